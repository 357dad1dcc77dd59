package mxnet_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"mxnet.local/mxnet"
)

// S6: one hybridized model-zoo block (mobilenet0.25, 10 classes) called from 8 goroutines x 200
// calls, each goroutine with its own Ctx, on one shared input: every output is bit-identical to
// the output of a call made before the goroutines start, and nothing crashes (run_tests.sh runs
// it with GODEBUG=cgocheck=2). The goroutines yield between calls, so they move between OS
// threads.
func TestS6Concurrency(t *testing.T) {
	begin(t)
	ctx := must(mxnet.NewCtx(&mxnet.CtxOptions{Seeded: true, Seed: 6}))
	defer ctx.Close()
	net := must(mxnet.ModelZoo("mobilenet0.25", &mxnet.ModelOptions{Classes: 10}))
	defer net.Close()
	ok(net.Initialize(ctx, "xavier", mxnet.CPU, false))
	ok(net.Hybridize(&mxnet.HybridizeOptions{StaticAlloc: true, StaticShape: true}))
	x := must(mxnet.Invoke(ctx, "_random_uniform", nil, mxnet.Attrs{"shape": []int{1, 3, 32, 32}}))[0]
	defer x.Close()
	ref := must(net.Forward(ctx, x))
	want := must(ref.Bytes())
	ref.Close()

	const goroutines, calls = 8, 200
	errs := make(chan error, goroutines)
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			errs <- func() error {
				c, err := mxnet.NewCtx(nil)
				if err != nil {
					return err
				}
				defer c.Close()
				for i := 0; i < calls; i++ {
					y, err := net.Forward(c, x)
					if err != nil {
						return fmt.Errorf("goroutine %d call %d: %w", g, i, err)
					}
					got, err := y.Bytes()
					y.Close()
					if err != nil {
						return err
					}
					if string(got) != string(want) {
						return fmt.Errorf("goroutine %d call %d: output differs from the reference", g, i)
					}
					runtime.Gosched()
				}
				return nil
			}()
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	// The block was really hybridized: it exports its traced graph.
	ok(net.Export(t.TempDir()+"/mobilenet", 0))
}
