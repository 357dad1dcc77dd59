package mxnet_test

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"mxnet.local/mxnet"
	"mxnet.local/mxnet/nd"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	begin(t)
	dir := t.TempDir()
	a := f32(t, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := must(mxnet.FromSlice([]int64{7, -8}))
	closeAll(t, b)
	for _, opts := range []*mxnet.SaveOptions{nil, {Version: 3}, {Format: mxnet.FormatNPZ, NoFsync: true}} {
		path := filepath.Join(dir, "dict")
		ok(mxnet.Save(path, []*mxnet.NDArray{a, b}, []string{"arg:w", "aux:b"}, opts))
		arrays, names := func() ([]*mxnet.NDArray, []string) {
			arrays, names, err := mxnet.Load(path, nil)
			ok(err)
			return arrays, names
		}()
		closeAll(t, arrays...)
		if !reflect.DeepEqual(names, []string{"arg:w", "aux:b"}) {
			t.Fatalf("%+v: names %v", opts, names)
		}
		shapeIs(t, arrays[0], 2, 3)
		near(t, must(arrays[0].Float32s()), []float32{1, 2, 3, 4, 5, 6}, 0)
		if got := must(mxnet.ToSlice[int64](arrays[1])); !reflect.DeepEqual(got, []int64{7, -8}) {
			t.Fatalf("%+v: int64 array %v", opts, got)
		}
	}
	// A list (names nil), through bytes; the loaded arrays are copies of the buffer.
	data := must(mxnet.SaveBytes([]*mxnet.NDArray{a, b}, nil, nil))
	arrays, names, err := mxnet.LoadBytes(data, nil)
	ok(err)
	closeAll(t, arrays...)
	if names != nil || len(arrays) != 2 {
		t.Fatalf("list: %d arrays, names %v", len(arrays), names)
	}
	for i := range data {
		data[i] = 0xAA
	}
	near(t, must(arrays[0].Float32s()), []float32{1, 2, 3, 4, 5, 6}, 0)
	// The bytes equal the file Save writes.
	path := filepath.Join(dir, "list.nd")
	ok(mxnet.Save(path, []*mxnet.NDArray{a, b}, nil, nil))
	file := must(os.ReadFile(path))
	again := must(mxnet.SaveBytes([]*mxnet.NDArray{a, b}, nil, nil))
	if !reflect.DeepEqual(file, again) {
		t.Fatal("Save and SaveBytes differ")
	}
	// .npy: one array; a device in the load options.
	ok(mxnet.Save(filepath.Join(dir, "a.npy"), []*mxnet.NDArray{a}, nil, &mxnet.SaveOptions{Format: mxnet.FormatNPY}))
	arrays, _, err = mxnet.Load(filepath.Join(dir, "a.npy"), &mxnet.LoadOptions{Device: mxnet.CPU})
	ok(err)
	closeAll(t, arrays...)
	near(t, must(arrays[0].Float32s()), []float32{1, 2, 3, 4, 5, 6}, 0)
}

// MaxDensifiedBytes bounds what one sparse record may densify to. sparse_v2.nd (written by MXNet
// 1.9.1) holds a (3, 4) float32 csr (48 dense bytes) and a (4, 2) row_sparse (32 bytes).
func TestLoadDensifyCap(t *testing.T) {
	begin(t)
	path := "../../ndarray/testdata/mx/sparse_v2.nd"
	_, _, err := mxnet.Load(path, &mxnet.LoadOptions{MaxDensifiedBytes: 47})
	wantErr(t, err, mxnet.CodeResourceExhausted, "would densify to 48 bytes")
	arrays, names, err := mxnet.Load(path, &mxnet.LoadOptions{MaxDensifiedBytes: 48})
	ok(err)
	closeAll(t, arrays...)
	if !reflect.DeepEqual(names, []string{"csr", "rsp"}) {
		t.Fatalf("names %v", names)
	}
	near(t, must(arrays[0].Float32s()), []float32{1, 0, 2, 0, 0, 0, 0, 0, 0, 3, 0, 0}, 0)
	near(t, must(arrays[1].Float32s()), []float32{0, 0, 1, -1, 0, 0, 0.5, 2}, 0)
}

// The real export in ../shared: the parameters fit the symbol's inferred shapes.
func TestRealModelFiles(t *testing.T) {
	begin(t)
	shared := sharedDir()
	if shared == "" {
		t.Skip("../shared (MXNET_SHARED_DIR) is absent")
	}
	prefix := filepath.Join(shared, "data/models/cifar_resnet20_v1")
	sym := must(mxnet.LoadSymbol(prefix + "-symbol.json"))
	defer sym.Close()
	args := must(sym.ListArguments())
	aux := must(sym.ListAuxiliaryStates())
	if args[0] != "data" || len(aux) == 0 {
		t.Fatalf("arguments %v, aux %v", args[:3], aux)
	}
	inf := must(sym.InferShape(map[string][]int64{"data": {1, 3, 32, 32}}, false))
	if !reflect.DeepEqual(inf.Outputs, [][]int64{{1, 10}}) {
		t.Fatalf("output shapes %v", inf.Outputs)
	}
	shapes := map[string][]int64{}
	for i, n := range args {
		shapes["arg:"+n] = inf.Arguments[i]
	}
	for i, n := range aux {
		shapes["aux:"+n] = inf.AuxStates[i]
	}
	params, names, err := mxnet.Load(prefix+"-0000.params", nil)
	ok(err)
	closeAll(t, params...)
	if len(names) != len(args)-1+len(aux) {
		t.Fatalf("%d parameters for %d arguments + %d aux states", len(names), len(args), len(aux))
	}
	for i, n := range names {
		want, found := shapes[n]
		if !found {
			t.Fatalf("parameter %q is no input of the symbol", n)
		}
		shapeIs(t, params[i], want...)
	}
	types := must(sym.InferType(map[string]mxnet.DType{"data": mxnet.Float32}))
	if types.Outputs[0] != mxnet.Float32 {
		t.Fatalf("output dtype %v", types.Outputs[0])
	}
}

func TestSymbolConstruction(t *testing.T) {
	begin(t)
	data := must(mxnet.Variable("data"))
	defer data.Close()
	fc := must(mxnet.CreateSymbol("FullyConnected", []*mxnet.Symbol{data}, mxnet.Attrs{"num_hidden": 4}, "fc1"))
	defer fc.Close()
	act := must(mxnet.CreateSymbol("Activation", []*mxnet.Symbol{fc}, mxnet.Attrs{"act_type": "relu"}, ""))
	defer act.Close()
	if got := must(fc.ListArguments()); !reflect.DeepEqual(got, []string{"data", "fc1_weight", "fc1_bias"}) {
		t.Fatalf("arguments %v", got)
	}
	if got := must(fc.Name()); got != "fc1" {
		t.Fatalf("name %q", got)
	}
	inf := must(act.InferShape(map[string][]int64{"data": {2, 3}}, false))
	if !reflect.DeepEqual(inf.Arguments, [][]int64{{2, 3}, {4, 3}, {4}}) || !reflect.DeepEqual(inf.Outputs, [][]int64{{2, 4}}) {
		t.Fatalf("inferred %+v", inf)
	}
	// Partial inference leaves unknown shapes nil.
	part := must(act.InferShape(nil, true))
	if part.Arguments[0] != nil && len(part.Arguments[0]) > 0 && part.Arguments[0][0] != -1 {
		t.Fatalf("partial: %+v", part)
	}
	_, err := act.InferShape(nil, false)
	wantErr(t, err, mxnet.CodeInvalidArgument, "")

	// JSON round trip, groups, outputs, internals, compose.
	js := must(act.JSON())
	back := must(mxnet.SymbolFromJSON(js))
	defer back.Close()
	if got := must(back.ListArguments()); !reflect.DeepEqual(got, []string{"data", "fc1_weight", "fc1_bias"}) {
		t.Fatalf("after JSON: %v", got)
	}
	path := filepath.Join(t.TempDir(), "net-symbol.json")
	ok(act.Save(path))
	loaded := must(mxnet.LoadSymbol(path))
	defer loaded.Close()
	if must(loaded.JSON()) != js {
		t.Fatal("Save/LoadSymbol changed the JSON")
	}
	g := must(mxnet.Group(fc, act))
	defer g.Close()
	if outs := must(g.ListOutputs()); len(outs) != 2 || outs[0] != "fc1_output" {
		t.Fatalf("group outputs %v", outs)
	}
	o1 := must(g.Output(1))
	defer o1.Close()
	if must(o1.JSON()) != js {
		t.Fatal("Group(...).Output(1) differs from the symbol")
	}
	internals := must(act.Internals())
	defer internals.Close()
	if outs := must(internals.ListOutputs()); len(outs) < 4 {
		t.Fatalf("internals %v", outs)
	}
	x := must(mxnet.Variable("x"))
	defer x.Close()
	composed := must(act.Compose(map[string]*mxnet.Symbol{"data": x}))
	defer composed.Close()
	if got := must(composed.ListInputs()); got[0] != "x" {
		t.Fatalf("composed inputs %v", got)
	}
	_, err = act.Compose(map[string]*mxnet.Symbol{"nope": x})
	wantErr(t, err, mxnet.CodeInvalidArgument, "nope")
	if aux := must(act.ListAuxiliaryStates()); len(aux) != 0 {
		t.Fatalf("aux %v", aux)
	}
	_, err = g.Output(5)
	if err == nil {
		t.Fatal("Output(5) of a 2-output group succeeded")
	}
}

// FromExternal uses non-Go memory (an anonymous mmap) in place; its release callback (held by a
// cgo.Handle) runs once, when the last array using the memory is gone.
func TestFromExternalZeroCopy(t *testing.T) {
	begin(t)
	mem := must(syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE))
	f := unsafe.Slice((*float32)(unsafe.Pointer(&mem[0])), 4)
	copy(f, []float32{1, 2, 3, 4})
	released := 0
	x := must(mxnet.FromExternal(unsafe.Pointer(&mem[0]), 16, mxnet.Float32, mxnet.CPU, []int64{2, 2}, func() {
		released++
		syscall.Munmap(mem)
	}))
	near(t, must(x.Float32s()), []float32{1, 2, 3, 4}, 0)
	f[3] = 40 // the array sees writes to the memory...
	near(t, must(x.Float32s()), []float32{1, 2, 3, 40}, 0)
	ok(mxnet.CopyFromSlice(x, []float32{5, 6, 7, 8})) // ...and the memory sees the array's
	if f[0] != 5 {
		t.Fatalf("memory after CopyFromSlice: %v", f)
	}
	view := must(x.Reshape(nil, 4))
	x.Close()
	if released != 0 {
		t.Fatal("released while a view still uses the memory")
	}
	view.Close()
	if released != 1 {
		t.Fatalf("release ran %d times after the last array closed", released)
	}
	// On error the callback is never called.
	_, err := mxnet.FromExternal(unsafe.Pointer(&mem[0]), 12, mxnet.Float32, mxnet.CPU, []int64{2, 2}, func() { released++ })
	wantErr(t, err, mxnet.CodeInvalidArgument, "")
	if released != 1 {
		t.Fatal("release called on error")
	}
}

func TestDLPackRoundTrip(t *testing.T) {
	begin(t)
	x := f32(t, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	p := must(x.ToDLPack())
	y := must(mxnet.FromDLPack(p)) // takes ownership of the tensor
	defer y.Close()
	shapeIs(t, y, 2, 3)
	ok(mxnet.CopyFromSlice(x, []float32{0, 0, 0, 0, 0, 9}))
	near(t, must(y.Float32s()), []float32{0, 0, 0, 0, 0, 9}, 0) // zero copy
}

func TestOperatorMetadata(t *testing.T) {
	begin(t)
	ops := must(mxnet.Ops())
	if len(ops) < 500 {
		t.Fatalf("only %d operators", len(ops))
	}
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.Name()
	}
	if !sort.StringsAreSorted(names) {
		t.Fatal("Ops() is not in name order")
	}
	conv := must(mxnet.FindOp("Convolution"))
	info := must(conv.Info())
	if info.Name != "Convolution" || !info.Differentiable || info.NumOutputs != 1 {
		t.Fatalf("Convolution info %+v", info)
	}
	var kernel *mxnet.AttrInfo
	for i := range info.Attrs {
		if info.Attrs[i].Name == "kernel" {
			kernel = &info.Attrs[i]
		}
	}
	if kernel == nil || kernel.Kind != mxnet.AttrShape || !kernel.Required {
		t.Fatalf("kernel attribute %+v", kernel)
	}
	in := must(conv.InputNames(mxnet.Attrs{"kernel": []int{3, 3}, "num_filter": 8, "no_bias": true}))
	if !reflect.DeepEqual(in, []string{"data", "weight"}) {
		t.Fatalf("input names %v", in)
	}
	nin, nout, err := conv.NumIO(mxnet.Attrs{"kernel": []int{3, 3}, "num_filter": 8})
	ok(err)
	if nin != 3 || nout != 1 {
		t.Fatalf("NumIO %d %d", nin, nout)
	}
	// An alias finds the same operator.
	plus := must(mxnet.FindOp("_plus"))
	if plus.Name() != "elemwise_add" || must(mxnet.FindOp("elemwise_add")) != plus {
		t.Fatalf("_plus is %q", plus.Name())
	}
	if ma, mi := mxnet.ABIVersion(); ma != 1 || mi < 0 {
		t.Fatalf("ABI %d.%d", ma, mi)
	}
	if !strings.Contains(must(mxnet.FindOp("relu")).Name(), "relu") {
		t.Fatal("relu")
	}
	_ = nd.Relu // the typed functions are in package nd
}
