package mxnet_test

import (
	"fmt"
	"log"

	"mxnet.local/mxnet"
	"mxnet.local/mxnet/nd"
)

// The README's example: arrays from Go slices, typed and by-name operators, autograd.
func Example() {
	ctx, err := mxnet.NewCtx(nil) // explicit runtime state; one per goroutine for parallel work
	if err != nil {
		log.Fatal(err)
	}
	defer ctx.Close()
	x, _ := mxnet.FromSlice([]float32{-1, 2, -3, 4}, 2, 2) // shape (2, 2), float32, cpu(0)
	defer x.Close()
	x.AttachGrad(mxnet.GradWrite)

	var y *mxnet.NDArray
	err = ctx.Record(func() error { // with autograd.record():
		r, err := nd.Relu(ctx, x) // typed, generated from the operator metadata
		if err != nil {
			return err
		}
		defer r.Close()
		m, err := nd.ElemwiseMul(ctx, r, x)
		if err != nil {
			return err
		}
		defer m.Close()
		y, err = nd.Sum(ctx, m, nd.SumAxis(1)) // options for optional attributes
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	defer y.Close()
	y.Backward(ctx, nil)
	g, _ := x.Grad()
	defer g.Close()
	sum, _ := y.Float32s()
	grad, _ := g.Float32s()
	fmt.Println(sum, grad)

	// The by-name call, and an error value with the C ABI's message.
	_, err = mxnet.Invoke(ctx, "no_such_op", []*mxnet.NDArray{x}, mxnet.Attrs{"axis": 1})
	fmt.Println(err)
	// Output:
	// [4 16] [0 4 0 8]
	// mxnet: NOT_FOUND: mxc_op_find: unknown operator 'no_such_op'
}
