package mxnet_test

// S8 (../shared/BINDINGS.md): a small operator through the binding vs through the C ABI
// directly; the binding may add at most 1 us per call (median). The direct-C baseline runs the
// whole loop inside C (internal/cbench), so the difference is everything the binding adds: the
// cgo transitions, handle checks, attribute formatting, the Ctx lock, the output wrapper with
// its finalizer, and Close. bench_s8.sh runs these and prints the medians and differences.
//
// Besides wall time (ns/op) each benchmark reports CPU time per call from getrusage: cpu-ns/op
// for the process (all threads: the calling one, the library's, the Go runtime's) and
// thread-cpu-ns/op for the calling thread. On a loaded machine wall time is mostly waiting for a
// CPU, and a Go program doing cgo calls waits more than a C loop (P hand-offs while a call is
// descheduled), so CPU time is the fair measure there; on an idle machine they agree.

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"mxnet.local/mxnet"
	"mxnet.local/mxnet/internal/cbench"
	"mxnet.local/mxnet/nd"
)

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadCPUTime is the calling OS thread's user + system CPU time so far (RUSAGE_THREAD).
func threadCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs body(b.N) on one locked OS thread and reports, besides the wall time, cpu-ns/op
// (the process's CPU time per call) and thread-cpu-ns/op (the calling thread's: the Go code, the
// cgo transitions and the C code, without the runtime's and library's background threads).
func measure(b *testing.B, body func(n int)) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	c0, t0 := cpuTime(), threadCPUTime()
	body(b.N)
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(threadCPUTime()-t0)/float64(b.N), "thread-cpu-ns/op")
}

// callLoop measures b.N calls of call, closing each output as a C caller frees it.
func callLoop(b *testing.B, call func() (*mxnet.NDArray, error)) {
	measure(b, func(n int) {
		for i := 0; i < n; i++ {
			y, err := call()
			if err != nil {
				b.Fatal(err)
			}
			y.Close()
		}
	})
}

func benchInput(b *testing.B) *mxnet.NDArray {
	x, err := mxnet.FromSlice([]float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	return x
}

func benchCtx(b *testing.B) *mxnet.Ctx {
	ctx, err := mxnet.NewCtx(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ctx.Close() })
	return ctx
}

// relu on a (10,) float32 array: no attributes.
func BenchmarkS8Relu10(b *testing.B) {
	b.Run("direct-C", func(b *testing.B) {
		measure(b, func(n int) {
			if err := cbench.InvokeLoop("relu", "", "", n); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("binding", func(b *testing.B) {
		x, ctx := benchInput(b), benchCtx(b)
		callLoop(b, func() (*mxnet.NDArray, error) { return nd.Relu(ctx, x) })
	})
	b.Run("binding-by-name", func(b *testing.B) {
		x, ctx := benchInput(b), benchCtx(b)
		in := []*mxnet.NDArray{x}
		callLoop(b, func() (*mxnet.NDArray, error) {
			ys, err := mxnet.Invoke(ctx, "relu", in, nil)
			if err != nil {
				return nil, err
			}
			return ys[0], nil
		})
	})
}

// _plus_scalar on a (10,) float32 array: one attribute, formatted and parsed per call.
func BenchmarkS8PlusScalar10(b *testing.B) {
	b.Run("direct-C", func(b *testing.B) {
		measure(b, func(n int) {
			if err := cbench.InvokeLoop("_plus_scalar", "scalar", "2", n); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("binding", func(b *testing.B) {
		x, ctx := benchInput(b), benchCtx(b)
		callLoop(b, func() (*mxnet.NDArray, error) { return nd.PlusScalar(ctx, x, nd.PlusScalarScalar(2)) })
	})
}
