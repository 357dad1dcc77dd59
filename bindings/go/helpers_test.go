package mxnet_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mxnet.local/mxnet"
)

// cur is the running test, set by begin: must and ok fail it. The tests here do not use
// t.Parallel, and must/ok are called on the test's own goroutine only.
var cur testing.TB

// begin starts a test: must/ok report to t, and noLeaks checks its handles.
func begin(t *testing.T) {
	cur = t
	noLeaks(t)
}

// must fails the current test on err and returns v.
func must[T any](v T, err error) T {
	cur.Helper()
	if err != nil {
		cur.Fatalf("unexpected error: %v", err)
	}
	return v
}

func ok(err error) {
	cur.Helper()
	if err != nil {
		cur.Fatalf("unexpected error: %v", err)
	}
}

// closeAll closes arrays at the end of the test.
func closeAll(t testing.TB, xs ...*mxnet.NDArray) {
	t.Cleanup(func() {
		for _, x := range xs {
			x.Close()
		}
	})
}

func f32(t testing.TB, data []float32, shape ...int64) *mxnet.NDArray {
	t.Helper()
	x := must(mxnet.FromSlice(data, shape...))
	closeAll(t, x)
	return x
}

// values reads x as float32 and closes it.
func values(t testing.TB, x *mxnet.NDArray) []float32 {
	t.Helper()
	defer x.Close()
	return must(x.Float32s())
}

func near(t testing.TB, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values %v, want %d %v", len(got), got, len(want), want)
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > tol || math.IsNaN(float64(got[i])) != math.IsNaN(float64(want[i])) {
			t.Fatalf("value %d: got %v, want %v (all: %v vs %v)", i, got[i], want[i], got, want)
		}
	}
}

func shapeIs(t testing.TB, x *mxnet.NDArray, want ...int64) {
	t.Helper()
	got := must(x.Shape())
	if len(got) != len(want) {
		t.Fatalf("shape %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("shape %v, want %v", got, want)
		}
	}
}

// wantErr checks that err is an *mxnet.Error of code whose message contains substr.
func wantErr(t testing.TB, err error, code mxnet.Code, substr string) *mxnet.Error {
	t.Helper()
	var e *mxnet.Error
	if !errors.As(err, &e) {
		t.Fatalf("got error %v (%T), want an *mxnet.Error %v", err, err, code)
	}
	if e.Code != code || !strings.Contains(e.Msg, substr) {
		t.Fatalf("got %v, want code %v and a message containing %q", e, code, substr)
	}
	return e
}

// noLeaks checks at the end of the test that the library holds no more live handles than at its
// start (every array, ctx and symbol the test made was closed).
func noLeaks(t *testing.T) {
	before, err := mxnet.GetHandleStats()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		after, err := mxnet.GetHandleStats()
		if err != nil {
			t.Fatal(err)
		}
		if after.Live != before.Live {
			t.Errorf("live handles: %d before the test, %d after", before.Live, after.Live)
		}
		if after.BadFrees != before.BadFrees {
			t.Errorf("bad frees: %d before the test, %d after", before.BadFrees, after.BadFrees)
		}
	})
}

// sharedDir is ../shared (MXNET_SHARED_DIR under Bazel), or "" when absent.
func sharedDir() string {
	if d := os.Getenv("MXNET_SHARED_DIR"); d != "" {
		return d
	}
	d, _ := filepath.Abs("../../../shared")
	if _, err := os.Stat(d); err == nil {
		return d
	}
	return ""
}
