// Package nd has a typed function per registered operator of mxnet-cpp (mx.nd.relu, mx.nd.dot,
// mx.nd.Convolution, ... as nd.Relu, nd.Dot, nd.Convolution), generated from the C ABI's
// operator metadata into ops_gen.go. Each takes the Ctx first (nil: the defaults), then the
// input arrays, then the required attributes as typed parameters, then options for the others
// (nd.ConvolutionStride(2, 2), nd.SumAxis(1), ...), and returns new arrays the caller closes.
// Function names are the operator names' '_'-separated words capitalized ("broadcast_add":
// BroadcastAdd, "_plus_scalar": PlusScalar). The _backward_ operators have no function; every
// operator is also reachable by name through mxnet.Invoke.
//
// Goroutines: as mxnet.Invoke (the inputs are read; calls with distinct Ctxs or nil run
// concurrently).
package nd

//go:generate go run ../internal/cmd/opgen -o ops_gen.go

import (
	"fmt"
	"sync"

	"mxnet.local/mxnet"
)

// pair is one attribute in MXNet's string form.
type pair struct{ k, v string }

// lazyOp finds its operator on first use.
type lazyOp struct {
	name string
	once sync.Once
	op   *mxnet.Op
	err  error
}

func (l *lazyOp) get() (*mxnet.Op, error) {
	l.once.Do(func() { l.op, l.err = mxnet.FindOp(l.name) })
	return l.op, l.err
}

// call runs the operator with attributes kv (key, value, ...).
func call(ctx *mxnet.Ctx, l *lazyOp, inputs []*mxnet.NDArray, kv []string) ([]*mxnet.NDArray, error) {
	op, err := l.get()
	if err != nil {
		return nil, err
	}
	return op.Call(ctx, inputs, kv...)
}

// call1 runs an operator with one visible output.
func call1(ctx *mxnet.Ctx, l *lazyOp, inputs []*mxnet.NDArray, kv []string) (*mxnet.NDArray, error) {
	outs, err := call(ctx, l, inputs, kv)
	if err != nil {
		return nil, err
	}
	if len(outs) != 1 {
		for _, o := range outs {
			o.Close()
		}
		return nil, &mxnet.Error{Code: mxnet.CodeInternal, Msg: fmt.Sprintf("%s returned %d outputs, expected 1", l.name, len(outs))}
	}
	return outs[0], nil
}

// trim drops trailing nil inputs (optional inputs the attributes do not use).
func trim(xs ...*mxnet.NDArray) []*mxnet.NDArray {
	n := len(xs)
	for n > 0 && xs[n-1] == nil {
		n--
	}
	return xs[:n]
}
