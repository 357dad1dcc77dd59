package mxnet_test

// Goroutine safety as the C ABI's contract allows: distinct Ctxs run concurrently on shared
// inputs; a shared Ctx serializes its calls; a Ctx (and its recorded graph) moves between OS
// threads; concurrent Closes free once. (S6 proper, a hybridized block: s6_concurrency_test.go.)

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"mxnet.local/mxnet"
	"mxnet.local/mxnet/nd"
)

// forward computes relu(x . w) summed over axis 1: a small chain of operators.
func forward(ctx *mxnet.Ctx, x, w *mxnet.NDArray) ([]float32, error) {
	d, err := nd.Dot(ctx, x, w)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	r, err := nd.Relu(ctx, d)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	s, err := nd.Sum(ctx, r, nd.SumAxis(1))
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Float32s()
}

// runGoroutines runs body(g) on n goroutines and fails the test with the first error.
func runGoroutines(t *testing.T, n int, body func(g int) error) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8)) // more Ps than cores: goroutines move more
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for g := 0; g < n; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			errs <- body(g)
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func sameValues(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestGoroutinesOwnCtxSharedInputs(t *testing.T) {
	begin(t)
	x := f32(t, []float32{1, -2, 3, -4, 5, 6}, 2, 3)
	w := f32(t, []float32{1, 0, -1, 0.5, 2, -3, 0, 1, 1, 1, 1, 1}, 3, 4)
	want := must(forward(nil, x, w))
	runGoroutines(t, 8, func(g int) error {
		ctx, err := mxnet.NewCtx(nil)
		if err != nil {
			return err
		}
		defer ctx.Close()
		for i := 0; i < 200; i++ {
			got, err := forward(ctx, x, w)
			if err != nil {
				return err
			}
			if !sameValues(got, want) {
				return fmt.Errorf("goroutine %d call %d: %v, want %v", g, i, got, want)
			}
			if i%50 == 0 {
				runtime.Gosched()
			}
		}
		return nil
	})
	// nil Ctxs run concurrently too.
	runGoroutines(t, 8, func(g int) error {
		for i := 0; i < 50; i++ {
			got, err := forward(nil, x, w)
			if err != nil {
				return err
			}
			if !sameValues(got, want) {
				return fmt.Errorf("nil ctx, goroutine %d: %v", g, got)
			}
		}
		return nil
	})
}

func TestGoroutinesShareOneCtx(t *testing.T) {
	begin(t)
	ctx := must(mxnet.NewCtx(nil))
	defer ctx.Close()
	x := f32(t, []float32{1, -2, 3, -4, 5, 6}, 2, 3)
	w := f32(t, []float32{1, 0, -1, 0.5, 2, -3, 0, 1, 1, 1, 1, 1}, 3, 4)
	want := must(forward(nil, x, w))
	runGoroutines(t, 8, func(g int) error {
		for i := 0; i < 100; i++ {
			got, err := forward(ctx, x, w)
			if err != nil {
				return err
			}
			if !sameValues(got, want) {
				return fmt.Errorf("goroutine %d: %v", g, got)
			}
			if _, err := ctx.IsRecording(); err != nil {
				return err
			}
		}
		return nil
	})
}

// Each goroutine records and differentiates its own graph under its own Ctx: the recording flag
// of one never leaks into another, whatever OS threads they run on.
func TestGoroutinesIndependentAutograd(t *testing.T) {
	begin(t)
	runGoroutines(t, 8, func(g int) error {
		ctx, err := mxnet.NewCtx(nil)
		if err != nil {
			return err
		}
		defer ctx.Close()
		for i := 0; i < 25; i++ {
			v := float32(g + i)
			x, err := mxnet.FromSlice([]float32{v, -v})
			if err != nil {
				return err
			}
			if err := x.AttachGrad(mxnet.GradWrite); err != nil {
				return err
			}
			var y *mxnet.NDArray
			err = ctx.Record(func() error {
				xx, err := nd.ElemwiseMul(ctx, x, x)
				if err != nil {
					return err
				}
				defer xx.Close()
				runtime.Gosched() // let the goroutine move between the recorded calls
				y, err = nd.Sum(ctx, xx)
				return err
			})
			if err != nil {
				return err
			}
			if err := y.Backward(ctx, nil); err != nil {
				return err
			}
			gr, err := x.Grad()
			if err != nil {
				return err
			}
			got, err := gr.Float32s()
			gr.Close()
			y.Close()
			x.Close()
			if err != nil {
				return err
			}
			if !sameValues(got, []float32{2 * v, -2 * v}) {
				return fmt.Errorf("goroutine %d: grad %v for x = %v", g, got, v)
			}
		}
		return nil
	})
}

// A Ctx moves between OS threads: recording starts on one locked thread, the operators and the
// backward pass run on another.
func TestCtxMovesBetweenThreads(t *testing.T) {
	begin(t)
	ctx := must(mxnet.NewCtx(nil))
	defer ctx.Close()
	x := f32(t, []float32{3})
	ok(x.AttachGrad(mxnet.GradWrite))
	onLockedThread := func(f func() error) error {
		done := make(chan error)
		go func() {
			runtime.LockOSThread() // the goroutine's thread exits with it: a fresh thread each time
			done <- f()
		}()
		return <-done
	}
	ok(onLockedThread(func() error { _, err := ctx.SetRecording(true); return err }))
	var y *mxnet.NDArray
	ok(onLockedThread(func() error {
		rec, err := ctx.IsRecording()
		if err != nil || !rec {
			return fmt.Errorf("recording flag on another thread: %v %v", rec, err)
		}
		y, err = nd.ElemwiseMul(ctx, x, x)
		return err
	}))
	closeAll(t, y)
	ok(onLockedThread(func() error { _, err := ctx.SetRecording(false); return err }))
	ok(onLockedThread(func() error { return y.Backward(ctx, nil) }))
	near(t, values(t, must(x.Grad())), []float32{6}, 0)
}

func TestConcurrentCloseFreesOnce(t *testing.T) {
	begin(t) // checks that bad_frees stays unchanged
	for i := 0; i < 20; i++ {
		x := must(mxnet.FromSlice([]float32{1}))
		ctx := must(mxnet.NewCtx(nil))
		s := must(mxnet.Variable("v"))
		runGoroutines(t, 8, func(int) error {
			x.Close()
			ctx.Close()
			return s.Close()
		})
	}
}
