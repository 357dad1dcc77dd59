package mxnet_test

// S2 (../shared/BINDINGS.md): record y = sum(x * x + 3 * x), backward, the gradient equals
// 2x + 3; Grad with CreateGraph gives the second derivative (2; 6x for x^3).

import (
	"errors"
	"testing"

	"mxnet.local/mxnet"
	"mxnet.local/mxnet/nd"
)

// polynomial records y = sum(x * x + 3 * x) under ctx.
func polynomial(t *testing.T, ctx *mxnet.Ctx, x *mxnet.NDArray) *mxnet.NDArray {
	t.Helper()
	var y *mxnet.NDArray
	ok(ctx.Record(func() error {
		xx := must(nd.ElemwiseMul(ctx, x, x))
		defer xx.Close()
		x3 := must(nd.MulScalar(ctx, x, nd.MulScalarScalar(3)))
		defer x3.Close()
		s := must(nd.ElemwiseAdd(ctx, xx, x3))
		defer s.Close()
		y = must(nd.Sum(ctx, s))
		return nil
	}))
	closeAll(t, y)
	return y
}

func TestS2Backward(t *testing.T) {
	begin(t)
	ctx := must(mxnet.NewCtx(nil))
	defer ctx.Close()
	xv := []float32{-2, -0.5, 0, 1, 3}
	x := f32(t, xv)
	ok(x.AttachGrad(mxnet.GradWrite))
	y := polynomial(t, ctx, x)
	want := 0.0
	for _, v := range xv {
		want += float64(v*v + 3*v)
	}
	near(t, must(y.Float32s()), []float32{float32(want)}, 1e-5)
	ok(y.Backward(ctx, nil))
	g := must(x.Grad())
	closeAll(t, g)
	wantG := make([]float32, len(xv))
	for i, v := range xv {
		wantG[i] = 2*v + 3
	}
	near(t, must(g.Float32s()), wantG, 1e-5)

	// The graph was freed by the first backward: a second one is an error...
	err := y.Backward(ctx, nil)
	var e *mxnet.Error
	if !errors.As(err, &e) {
		t.Fatalf("second backward over a freed graph: %v", err)
	}
	// ...unless it is retained; with GradAdd the gradients accumulate, and head gradients scale.
	ok(x.AttachGrad(mxnet.GradAdd))
	g2 := must(x.Grad())
	closeAll(t, g2)
	y2 := polynomial(t, ctx, x)
	ok(y2.Backward(ctx, &mxnet.BackwardOptions{RetainGraph: true}))
	half := f32(t, []float32{0.5})
	ok(y2.Backward(ctx, &mxnet.BackwardOptions{HeadGrads: []*mxnet.NDArray{half}}))
	for i := range wantG {
		wantG[i] *= 1.5
	}
	near(t, must(g2.Float32s()), wantG, 1e-5)
}

func TestS2SecondDerivative(t *testing.T) {
	begin(t)
	ctx := must(mxnet.NewCtx(nil))
	defer ctx.Close()
	xv := []float32{-1, 0.5, 2}
	x := f32(t, xv)
	ok(x.AttachGrad(mxnet.GradWrite))
	y := polynomial(t, ctx, x)

	// dy/dx = 2x + 3, recorded (CreateGraph), then d/dx sum(dy/dx) = 2.
	var d1, sd1 *mxnet.NDArray
	ok(ctx.Record(func() error {
		g := must(mxnet.Grad(ctx, []*mxnet.NDArray{y}, []*mxnet.NDArray{x}, &mxnet.BackwardOptions{CreateGraph: true}))
		d1 = g[0]
		sd1 = must(nd.Sum(ctx, d1))
		return nil
	}))
	closeAll(t, d1, sd1)
	near(t, must(d1.Float32s()), []float32{1, 4, 7}, 1e-5)
	d2 := must(mxnet.Grad(ctx, []*mxnet.NDArray{sd1}, []*mxnet.NDArray{x}, nil))
	closeAll(t, d2...)
	near(t, must(d2[0].Float32s()), []float32{2, 2, 2}, 1e-5)

	// x^3: first derivative 3x^2, second 6x.
	var c, dc, sdc *mxnet.NDArray
	ok(ctx.Record(func() error {
		x2 := must(nd.ElemwiseMul(ctx, x, x))
		defer x2.Close()
		x3 := must(nd.ElemwiseMul(ctx, x2, x))
		defer x3.Close()
		c = must(nd.Sum(ctx, x3))
		g := must(mxnet.Grad(ctx, []*mxnet.NDArray{c}, []*mxnet.NDArray{x}, &mxnet.BackwardOptions{CreateGraph: true}))
		dc = g[0]
		sdc = must(nd.Sum(ctx, dc))
		return nil
	}))
	closeAll(t, c, dc, sdc)
	near(t, must(dc.Float32s()), []float32{3, 0.75, 12}, 1e-5)
	d6 := must(mxnet.Grad(ctx, []*mxnet.NDArray{sdc}, []*mxnet.NDArray{x}, nil))
	closeAll(t, d6...)
	near(t, must(d6[0].Float32s()), []float32{-6, 3, 12}, 1e-5)
	// Grad left x's own buffer alone (zeros from AttachGrad).
	near(t, values(t, must(x.Grad())), []float32{0, 0, 0}, 0)
}

func TestS2FlagsAndMarkVariables(t *testing.T) {
	begin(t)
	ctx := must(mxnet.NewCtx(nil))
	defer ctx.Close()
	rec, train := must(ctx.IsRecording()), must(ctx.IsTraining())
	if rec || train {
		t.Fatalf("a new Ctx is recording=%v training=%v", rec, train)
	}
	ok(ctx.Record(func() error {
		if !must(ctx.IsRecording()) || !must(ctx.IsTraining()) {
			t.Error("Record did not set recording and training")
		}
		return ctx.Pause(func() error {
			if must(ctx.IsRecording()) {
				t.Error("Pause left recording on")
			}
			return nil
		})
	}))
	ok(ctx.RecordPredict(func() error {
		if !must(ctx.IsRecording()) || must(ctx.IsTraining()) {
			t.Error("RecordPredict: want recording, not training")
		}
		return nil
	}))
	// Flags come back after an error and after a panic.
	sentinel := errors.New("inside")
	if err := ctx.TrainMode(func() error { return sentinel }); err != sentinel {
		t.Fatalf("TrainMode returned %v", err)
	}
	func() {
		defer func() { recover() }()
		ctx.Record(func() error { panic("boom") })
	}()
	if must(ctx.IsRecording()) || must(ctx.IsTraining()) {
		t.Fatal("flags not restored after a panic")
	}
	prev := must(ctx.SetTraining(true))
	if prev {
		t.Fatal("SetTraining previous value")
	}
	ok(ctx.PredictMode(func() error {
		if must(ctx.IsTraining()) {
			t.Error("PredictMode left training on")
		}
		return nil
	}))
	if !must(ctx.IsTraining()) {
		t.Fatal("PredictMode did not restore training")
	}

	// mark_variables with our own gradient buffer: d/dx sum(x * x) = 2x.
	x := f32(t, []float32{1, -2})
	gbuf := f32(t, []float32{0, 0})
	ok(mxnet.MarkVariables([]*mxnet.NDArray{x}, []*mxnet.NDArray{gbuf}, []mxnet.GradReq{mxnet.GradWrite}))
	var y *mxnet.NDArray
	ok(ctx.Record(func() error {
		xx := must(nd.ElemwiseMul(ctx, x, x))
		defer xx.Close()
		y = must(nd.Sum(ctx, xx))
		return nil
	}))
	closeAll(t, y)
	ok(mxnet.Backward(ctx, []*mxnet.NDArray{y}, nil))
	near(t, must(gbuf.Float32s()), []float32{2, -4}, 1e-6)
	err := mxnet.MarkVariables([]*mxnet.NDArray{x}, nil, nil)
	wantErr(t, err, mxnet.CodeInvalidArgument, "length")
	// A plain array has no gradient.
	_, err = gbuf.Grad()
	wantErr(t, err, mxnet.CodeFailedPrecondition, "")
}

// The view functions record under a recording ctx: d/dx sum(reshape(x)) = 1.
func TestS2RecordedViews(t *testing.T) {
	begin(t)
	ctx := must(mxnet.NewCtx(nil))
	defer ctx.Close()
	x := f32(t, []float32{1, 2, 3, 4}, 2, 2)
	ok(x.AttachGrad(mxnet.GradWrite))
	var y *mxnet.NDArray
	ok(ctx.Record(func() error {
		r := must(x.Reshape(ctx, 4))
		defer r.Close()
		s := must(r.Slice(ctx, 1, 3))
		defer s.Close()
		y = must(nd.Sum(ctx, s))
		return nil
	}))
	closeAll(t, y)
	ok(y.Backward(ctx, nil))
	near(t, values(t, must(x.Grad())), []float32{0, 1, 1, 0}, 0)
}
