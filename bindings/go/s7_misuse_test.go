package mxnet_test

// S7 (../shared/BINDINGS.md): use after close, double close, wrong dtype buffer, missing file,
// bad JSON, unknown operator: each an error value, never a crash.

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"mxnet.local/mxnet"
	"mxnet.local/mxnet/nd"
)

func TestS7UseAfterClose(t *testing.T) {
	begin(t)
	x := must(mxnet.FromSlice([]float32{1, 2}))
	ok(x.Close())
	for name, err := range map[string]error{
		"Shape":   second(x.Shape()),
		"ToSlice": second(mxnet.ToSlice[float32](x)),
		"Relu":    second(nd.Relu(nil, x)),
		"Invoke":  second(mxnet.Invoke(nil, "relu", []*mxnet.NDArray{x}, nil)),
		"Grad":    second(x.Grad()),
		"Reshape": second(x.Reshape(nil, 2)),
		"Save":    mxnet.Save(filepath.Join(t.TempDir(), "x"), []*mxnet.NDArray{x}, nil, nil),
	} {
		if !errors.Is(err, mxnet.ErrClosed) || !errors.Is(err, mxnet.ErrInvalidArgument) {
			t.Errorf("%s on a closed array: %v", name, err)
		}
	}
	if s := x.String(); s != "NDArray(closed)" {
		t.Errorf("String() = %q", s)
	}

	ctx := must(mxnet.NewCtx(nil))
	ok(ctx.Close())
	y := f32(t, []float32{1})
	_, err := nd.Relu(ctx, y)
	if !errors.Is(err, mxnet.ErrClosed) {
		t.Errorf("a closed Ctx: %v", err)
	}
	_, err = ctx.IsRecording()
	if !errors.Is(err, mxnet.ErrClosed) {
		t.Errorf("IsRecording on a closed Ctx: %v", err)
	}

	s := must(mxnet.Variable("v"))
	ok(s.Close())
	_, err = s.JSON()
	if !errors.Is(err, mxnet.ErrClosed) {
		t.Errorf("a closed Symbol: %v", err)
	}
	// A nil array is an error naming the argument, not a crash.
	_, err = nd.ElemwiseAdd(nil, y, nil)
	wantErr(t, err, mxnet.CodeInvalidArgument, "inputs[1] is a nil *NDArray")
	var nilCtx *mxnet.Ctx
	_, err = nilCtx.IsRecording()
	wantErr(t, err, mxnet.CodeInvalidArgument, "nil *Ctx")
}

func second[T any](_ T, err error) error { return err }

func TestS7DoubleClose(t *testing.T) {
	begin(t)
	x := must(mxnet.FromSlice([]float32{1, 2}))
	ctx := must(mxnet.NewCtx(nil))
	s := must(mxnet.Variable("v"))
	for i := 0; i < 3; i++ {
		ok(x.Close())
		ok(ctx.Close())
		ok(s.Close())
	}
	var nilArray *mxnet.NDArray
	ok(nilArray.Close())
	// noLeaks (begin) checks that no close reached the library twice: bad_frees is unchanged.
}

func TestS7WrongDTypeBuffer(t *testing.T) {
	begin(t)
	x := f32(t, []float32{1, 2, 3, 4}, 2, 2)
	_, err := mxnet.ToSlice[float64](x)
	wantErr(t, err, mxnet.CodeInvalidArgument, "dtype is float32")
	wantErr(t, mxnet.CopyFromSlice(x, []int32{1, 2, 3, 4}), mxnet.CodeInvalidArgument, "float32")
	wantErr(t, mxnet.CopyToSlice(x, make([]mxnet.Half, 4)), mxnet.CodeInvalidArgument, "float16")
	// The right type with the wrong length: the C ABI names both sizes.
	wantErr(t, mxnet.CopyFromSlice(x, []float32{1, 2, 3}), mxnet.CodeInvalidArgument, "16")
	wantErr(t, mxnet.CopyToSlice(x, make([]float32, 5)), mxnet.CodeInvalidArgument, "20")
	_, err = mxnet.FromBytes([]byte{1, 2, 3}, mxnet.Float32, 1)
	wantErr(t, err, mxnet.CodeInvalidArgument, "mxc_ndarray_from_host")
	_, err = mxnet.FromSlice([]float32{1, 2, 3}, 2, 2)
	wantErr(t, err, mxnet.CodeInvalidArgument, "")
	_, err = mxnet.Zeros([]int64{-1}, mxnet.Float32, mxnet.Device{})
	wantErr(t, err, mxnet.CodeInvalidArgument, "")
	_, err = mxnet.Zeros([]int64{1}, mxnet.DType(42), mxnet.Device{})
	wantErr(t, err, mxnet.CodeInvalidArgument, "")
	_, err = mxnet.ParseDType("float128")
	wantErr(t, err, mxnet.CodeInvalidArgument, "float128")
	_, err = x.Reshape(nil, 3, 2)
	wantErr(t, err, mxnet.CodeInvalidArgument, "")
}

func TestS7MissingFile(t *testing.T) {
	begin(t)
	missing := filepath.Join(t.TempDir(), "no-such.params")
	_, _, err := mxnet.Load(missing, nil)
	if !errors.Is(err, mxnet.ErrNotFound) {
		t.Fatalf("Load of a missing file: %v", err)
	}
	_, err = mxnet.LoadSymbol(missing)
	if !errors.Is(err, mxnet.ErrNotFound) {
		t.Fatalf("LoadSymbol of a missing file: %v", err)
	}
	// Not such a file, and a truncated one.
	junk := filepath.Join(t.TempDir(), "junk.params")
	ok(os.WriteFile(junk, []byte("hello, world"), 0o644))
	_, _, err = mxnet.Load(junk, nil)
	if err == nil {
		t.Fatal("Load of junk succeeded")
	}
	x := f32(t, []float32{1, 2, 3, 4})
	data := must(mxnet.SaveBytes([]*mxnet.NDArray{x}, []string{"x"}, nil))
	_, _, err = mxnet.LoadBytes(data[:len(data)-7], nil)
	wantErr(t, err, mxnet.CodeDataLoss, "")
	// Saving into a directory that does not exist.
	err = mxnet.Save(filepath.Join(missing, "sub", "x.params"), []*mxnet.NDArray{x}, nil, nil)
	if err == nil {
		t.Fatal("Save into a missing directory succeeded")
	}
	err = mxnet.Save(filepath.Join(t.TempDir(), "dup"), []*mxnet.NDArray{x, x}, []string{"a", "a"}, nil)
	wantErr(t, err, mxnet.CodeInvalidArgument, "")
}

func TestS7BadJSON(t *testing.T) {
	begin(t)
	for _, js := range []string{"", "{", `{"nodes": 3}`, "[1, 2]", `{"nodes": [{"op": "NoSuchOp", "name": "a", "inputs": []}], "arg_nodes": [], "heads": [[0, 0, 0]]}`} {
		s, err := mxnet.SymbolFromJSON(js)
		if err == nil {
			s.Close()
			t.Errorf("SymbolFromJSON(%q) succeeded", js)
			continue
		}
		var e *mxnet.Error
		if !errors.As(err, &e) || e.Code == mxnet.CodeOK || e.Msg == "" {
			t.Errorf("SymbolFromJSON(%q): %v", js, err)
		}
	}
	_, err := mxnet.SymbolFromJSON("{\"a\": \"\x00\"}")
	wantErr(t, err, mxnet.CodeInvalidArgument, "NUL")
	_, err = mxnet.SymbolFromJSON("{\"a\": \"\xff\"}")
	wantErr(t, err, mxnet.CodeInvalidArgument, "UTF-8")
}

func TestS7UnknownOperator(t *testing.T) {
	begin(t)
	x := f32(t, []float32{1})
	_, err := mxnet.Invoke(nil, "no_such_op", []*mxnet.NDArray{x}, nil)
	e := wantErr(t, err, mxnet.CodeNotFound, "unknown operator 'no_such_op'")
	if !errors.Is(err, mxnet.ErrNotFound) || !errors.Is(err, &mxnet.Error{Code: mxnet.CodeNotFound, Msg: e.Msg}) {
		t.Fatalf("errors.Is with %v", err)
	}
	if errors.Is(err, &mxnet.Error{Code: mxnet.CodeNotFound, Msg: "other"}) {
		t.Fatal("errors.Is matched a different message")
	}
	if e.Error() != "mxnet: NOT_FOUND: "+e.Msg {
		t.Fatalf("Error() = %q", e.Error())
	}
	_, err = mxnet.CreateSymbol("no_such_op", nil, nil, "")
	wantErr(t, err, mxnet.CodeNotFound, "no_such_op")
	// Bad attributes: an unformattable Go value, an unknown name, a NUL byte, odd key/values.
	_, err = mxnet.Invoke(nil, "relu", []*mxnet.NDArray{x}, mxnet.Attrs{"a": struct{}{}})
	wantErr(t, err, mxnet.CodeInvalidArgument, "attribute 'a'")
	_, err = mxnet.Invoke(nil, "relu", []*mxnet.NDArray{x}, mxnet.Attrs{"bogus": 1})
	wantErr(t, err, mxnet.CodeInvalidArgument, "bogus")
	_, err = mxnet.Invoke(nil, "_plus_scalar", []*mxnet.NDArray{x}, mxnet.Attrs{"scalar": "1\x002"})
	wantErr(t, err, mxnet.CodeInvalidArgument, "NUL")
	op := must(mxnet.FindOp("relu"))
	_, err = op.Call(nil, []*mxnet.NDArray{x}, "odd")
	wantErr(t, err, mxnet.CodeInvalidArgument, "pairs")
	_, err = nd.Relu(nil, nil)
	wantErr(t, err, mxnet.CodeInvalidArgument, "nil")
	_, err = mxnet.Invoke(nil, "relu", []*mxnet.NDArray{x, x}, nil)
	wantErr(t, err, mxnet.CodeInvalidArgument, "")
	if mxnet.CodeNotFound.String() != "NOT_FOUND" || mxnet.Code(99).String() != "UNKNOWN" {
		t.Fatal("Code.String")
	}
	// A device this build lacks, and a bad device.
	_, err = x.CopyTo(mxnet.GPU(0))
	if err == nil {
		t.Log("this build has a GPU")
	}
	_, err = mxnet.NewCtx(&mxnet.CtxOptions{Device: mxnet.Device{Type: 77}})
	wantErr(t, err, mxnet.CodeInvalidArgument, "")
}

// The finalizer releases an array that was never closed (the safety net), and GetHandleStats
// sees live arrays.
func TestFinalizerSafetyNet(t *testing.T) {
	begin(t)
	base := must(mxnet.GetHandleStats()).Live
	func() {
		for i := 0; i < 10; i++ {
			_ = must(mxnet.FromSlice([]float32{1, 2, 3}))
		}
	}()
	if live := must(mxnet.GetHandleStats()).Live; live != base+10 {
		t.Fatalf("live handles %d, want %d", live, base+10)
	}
	deadline := time.Now().Add(10 * time.Second)
	for must(mxnet.GetHandleStats()).Live != base {
		if time.Now().After(deadline) {
			t.Fatalf("finalizers left %d handles", must(mxnet.GetHandleStats()).Live-base)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}
