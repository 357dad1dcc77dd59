package mxnet_test

// S1 (../shared/BINDINGS.md): arrays from Go slices with a shape and dtype; operators through the
// generated typed functions (package nd) and the by-name call; results read back; a bad call
// returns an *mxnet.Error with the C ABI's message. Expected values are computed by hand.

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"mxnet.local/mxnet"
	"mxnet.local/mxnet/nd"
)

func TestS1ArrayFromSlice(t *testing.T) {
	begin(t)
	x := f32(t, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	shapeIs(t, x, 2, 3)
	if d := must(x.DType()); d != mxnet.Float32 {
		t.Fatalf("dtype %v", d)
	}
	if n := must(x.Size()); n != 6 {
		t.Fatalf("size %d", n)
	}
	if n := must(x.NBytes()); n != 24 {
		t.Fatalf("nbytes %d", n)
	}
	if n := must(x.NDim()); n != 2 {
		t.Fatalf("ndim %d", n)
	}
	if d := must(x.Device()); d != mxnet.CPU {
		t.Fatalf("device %v", d)
	}
	if s := x.String(); s != "NDArray(shape=[2 3], float32, cpu(0))" {
		t.Fatalf("String() = %q", s)
	}
	near(t, must(x.Float32s()), []float32{1, 2, 3, 4, 5, 6}, 0)

	// No shape: 1-D; Scalar: 0-d.
	v := f32(t, []float32{7, 8, 9})
	shapeIs(t, v, 3)
	s := must(mxnet.Scalar(float64(2.5)))
	closeAll(t, s)
	shapeIs(t, s)
	if got := must(mxnet.ToSlice[float64](s)); !reflect.DeepEqual(got, []float64{2.5}) {
		t.Fatalf("scalar %v", got)
	}

	// Zeros and the raw byte interface.
	z := must(mxnet.Zeros([]int64{2, 2}, mxnet.Int32, mxnet.Device{}))
	closeAll(t, z)
	if got := must(mxnet.ToSlice[int32](z)); !reflect.DeepEqual(got, []int32{0, 0, 0, 0}) {
		t.Fatalf("zeros %v", got)
	}
	ok(z.CopyFromBytes([]byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}))
	if got := must(mxnet.ToSlice[int32](z)); !reflect.DeepEqual(got, []int32{1, 2, 3, -1}) {
		t.Fatalf("after CopyFromBytes %v", got)
	}
	b := must(mxnet.FromBytes([]byte{1, 2, 3}, mxnet.Uint8, 3))
	closeAll(t, b)
	if got := must(b.Bytes()); !reflect.DeepEqual(got, []byte{1, 2, 3}) {
		t.Fatalf("bytes %v", got)
	}
}

// roundTrip checks FromSlice/ToSlice/CopyToSlice for one element type and its DType.
func roundTrip[T mxnet.Element](t *testing.T, want mxnet.DType, data []T) {
	t.Helper()
	if d := mxnet.DTypeOf[T](); d != want {
		t.Fatalf("DTypeOf = %v, want %v", d, want)
	}
	x := must(mxnet.FromSlice(data, 2, int64(len(data)/2)))
	defer x.Close()
	if d := must(x.DType()); d != want {
		t.Fatalf("array dtype %v, want %v", d, want)
	}
	if n := must(x.NBytes()); n != len(data)*want.Size() {
		t.Fatalf("%v: nbytes %d", want, n)
	}
	if got := must(mxnet.ToSlice[T](x)); !reflect.DeepEqual(got, data) {
		t.Fatalf("%v: got %v, want %v", want, got, data)
	}
	dst := make([]T, len(data))
	ok(mxnet.CopyToSlice(x, dst))
	if !reflect.DeepEqual(dst, data) {
		t.Fatalf("%v: CopyToSlice %v", want, dst)
	}
}

func TestS1AllDTypes(t *testing.T) {
	begin(t)
	roundTrip(t, mxnet.Float32, []float32{1.5, -2, 3e-8, float32(math.Inf(1))})
	roundTrip(t, mxnet.Float64, []float64{1.5, -2, 1e-300, math.MaxFloat64})
	roundTrip(t, mxnet.Float16, []mxnet.Half{0x3c00, 0xc000, 0x7bff, 0x0001})
	roundTrip(t, mxnet.Uint8, []uint8{0, 1, 200, 255})
	roundTrip(t, mxnet.Int32, []int32{math.MinInt32, -1, 0, math.MaxInt32})
	roundTrip(t, mxnet.Int8, []int8{-128, -1, 0, 127})
	roundTrip(t, mxnet.Int64, []int64{math.MinInt64, -1, 1 << 40, math.MaxInt64})
	roundTrip(t, mxnet.Bool, []bool{true, false, false, true})
	roundTrip(t, mxnet.Int16, []int16{-32768, -1, 0, 32767})
	roundTrip(t, mxnet.Uint16, []uint16{0, 1, 40000, 65535})
	roundTrip(t, mxnet.Uint32, []uint32{0, 1, 3000000000, math.MaxUint32})
	roundTrip(t, mxnet.Uint64, []uint64{0, 1, 1 << 63, math.MaxUint64})
	roundTrip(t, mxnet.BFloat16, []mxnet.BHalf{0x3f80, 0xc000, 0x7f7f, 0x0001})

	names := map[mxnet.DType]string{mxnet.Float32: "float32", mxnet.Float16: "float16", mxnet.Bool: "bool", mxnet.BFloat16: "bfloat16"}
	for d, n := range names {
		if d.String() != n {
			t.Errorf("%d.String() = %q, want %q", d, d.String(), n)
		}
		if p := must(mxnet.ParseDType(n)); p != d {
			t.Errorf("ParseDType(%q) = %v", n, p)
		}
	}
	if mxnet.Float64.Size() != 8 || mxnet.Bool.Size() != 1 || mxnet.DType(99).Size() != 0 {
		t.Error("DType.Size")
	}
}

// Half and BHalf conversions against IEEE 754 bit patterns.
func TestHalfConversions(t *testing.T) {
	cases := []struct {
		f float32
		h mxnet.Half
	}{
		{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {0.5, 0x3800}, {0, 0},
		{float32(math.Pow(2, -24)), 0x0001}, // smallest subnormal
		{float32(math.Pow(2, -14)), 0x0400}, // smallest normal
		{65520, 0x7c00},                     // rounds up to Inf
		{1 + 1.0/2048, 0x3c00},              // tie: to even (down)
		{1 + 3.0/2048, 0x3c02},              // tie: to even (up)
		{float32(math.Inf(-1)), 0xfc00},
	}
	for _, c := range cases {
		if got := mxnet.HalfFromFloat32(c.f); got != c.h {
			t.Errorf("HalfFromFloat32(%v) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
	for _, h := range []mxnet.Half{0x3c00, 0xc000, 0x7bff, 0x0001, 0x03ff, 0x8400} {
		if back := mxnet.HalfFromFloat32(h.Float32()); back != h {
			t.Errorf("%#04x -> %v -> %#04x", h, h.Float32(), back)
		}
	}
	if f := mxnet.Half(0x7e00).Float32(); !math.IsNaN(float64(f)) {
		t.Errorf("NaN half -> %v", f)
	}
	if b := mxnet.BHalfFromFloat32(1); b != 0x3f80 || b.Float32() != 1 {
		t.Errorf("bfloat16(1) = %#04x", b)
	}
	if b := mxnet.BHalfFromFloat32(1 + 1.0/256); b != 0x3f80 { // tie to even
		t.Errorf("bfloat16 tie = %#04x", b)
	}
	if b := mxnet.BHalfFromFloat32(float32(math.NaN())); !math.IsNaN(float64(b.Float32())) {
		t.Errorf("bfloat16 NaN = %#04x", b)
	}
}

func TestS1TypedOperators(t *testing.T) {
	begin(t)
	x := f32(t, []float32{-1, 2, -3, 4, -5, 6}, 2, 3)

	// relu: max(x, 0).
	near(t, values(t, must(nd.Relu(nil, x))), []float32{0, 2, 0, 4, 0, 6}, 0)

	// dot: (2, 3) x (3, 2).
	a := f32(t, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := f32(t, []float32{1, 0, 0, 1, 1, 1}, 3, 2)
	d := must(nd.Dot(nil, a, b))
	shapeIs(t, d, 2, 2)
	near(t, values(t, d), []float32{4, 5, 10, 11}, 1e-6)
	// transpose_a as an option: (3, 2)^T x (3, 2) = [[2, 1], [1, 2]].
	near(t, values(t, must(nd.Dot(nil, b, b, nd.DotTransposeA(true)))), []float32{2, 1, 1, 2}, 1e-6)

	// sum with tuple and bool options.
	s := must(nd.Sum(nil, a, nd.SumAxis(1), nd.SumKeepdims(true)))
	shapeIs(t, s, 2, 1)
	near(t, values(t, s), []float32{6, 15}, 1e-6)
	near(t, values(t, must(nd.Sum(nil, a))), []float32{21}, 1e-6)

	// Convolution: data (1, 1, 3, 3) NCHW, weight (1, 1, 2, 2), bias (1,).
	data := f32(t, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 1, 3, 3)
	w := f32(t, []float32{1, 2, 3, 4}, 1, 1, 2, 2)
	bias := f32(t, []float32{0.5}, 1)
	y := must(nd.Convolution(nil, data, w, bias, []int64{2, 2}, 1))
	shapeIs(t, y, 1, 1, 2, 2)
	near(t, values(t, y), []float32{37.5, 47.5, 67.5, 77.5}, 1e-5)
	// no_bias: the optional bias input is nil.
	near(t, values(t, must(nd.Convolution(nil, data, w, nil, []int64{2, 2}, 1, nd.ConvolutionNoBias(true)))),
		[]float32{37, 47, 67, 77}, 1e-5)
	// stride (2, 2): only the first window.
	y = must(nd.Convolution(nil, data, w, bias, []int64{2, 2}, 1, nd.ConvolutionStride(2, 2)))
	shapeIs(t, y, 1, 1, 1, 1)
	near(t, values(t, y), []float32{37.5}, 1e-5)

	// A variadic operator: add_n sets num_args itself.
	near(t, values(t, must(nd.AddN(nil, []*mxnet.NDArray{a, a, x}))), []float32{1, 6, 3, 12, 5, 18}, 1e-6)

	// A dtype attribute: cast to float16, read back as Half.
	h := must(nd.Cast(nil, a, mxnet.Float16))
	defer h.Close()
	hv := must(mxnet.ToSlice[mxnet.Half](h))
	for i, v := range hv {
		if v.Float32() != float32(i+1) {
			t.Fatalf("cast to float16: %v", hv)
		}
	}

	// An operator with several outputs: SliceChannel into 3 columns.
	parts := must(nd.SliceChannel(nil, a, 3, nd.SliceChannelAxis(1)))
	if len(parts) != 3 {
		t.Fatalf("SliceChannel gave %d outputs", len(parts))
	}
	near(t, values(t, parts[0]), []float32{1, 4}, 0)
	near(t, values(t, parts[1]), []float32{2, 5}, 0)
	near(t, values(t, parts[2]), []float32{3, 6}, 0)

	// A creation operator (no inputs) on the ctx's default device.
	ctx := must(mxnet.NewCtx(nil))
	defer ctx.Close()
	o := must(nd.Ones(ctx, nd.OnesShape(2, 2), nd.OnesDtype(mxnet.Float64)))
	if got := must(mxnet.ToSlice[float64](o)); !reflect.DeepEqual(got, []float64{1, 1, 1, 1}) {
		t.Fatalf("ones %v", got)
	}
	o.Close()
}

func TestS1ByNameCall(t *testing.T) {
	begin(t)
	x := f32(t, []float32{-1, 2, -3}, 3)
	outs := must(mxnet.Invoke(nil, "relu", []*mxnet.NDArray{x}, nil))
	if len(outs) != 1 {
		t.Fatalf("%d outputs", len(outs))
	}
	near(t, values(t, outs[0]), []float32{0, 2, 0}, 0)
	// Attributes from Go values, and an alias name.
	outs = must(mxnet.Invoke(nil, "_PlusScalar", []*mxnet.NDArray{x}, mxnet.Attrs{"scalar": 2.5}))
	near(t, values(t, outs[0]), []float32{1.5, 4.5, -0.5}, 1e-6)
	a := f32(t, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	outs = must(mxnet.Invoke(nil, "sum", []*mxnet.NDArray{a}, mxnet.Attrs{"axis": []int{0}, "keepdims": false}))
	near(t, values(t, outs[0]), []float32{5, 7, 9}, 1e-6)
	// Op.Call with strings, and the same result as the typed function.
	op := must(mxnet.FindOp("Convolution"))
	data := f32(t, []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 1, 3, 3)
	w := f32(t, []float32{1, 2, 3, 4}, 1, 1, 2, 2)
	outs = must(op.Call(nil, []*mxnet.NDArray{data, w}, "kernel", "(2, 2)", "num_filter", "1", "no_bias", "True"))
	near(t, values(t, outs[0]), []float32{37, 47, 67, 77}, 1e-5)
}

func TestS1BadCallsReturnTheCABIMessage(t *testing.T) {
	begin(t)
	a := f32(t, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := f32(t, []float32{1, 2, 3}, 3)
	_, err := nd.ElemwiseAdd(nil, a, b)
	e := wantErr(t, err, mxnet.CodeInvalidArgument, "mxc_invoke")
	if !errors.Is(err, mxnet.ErrInvalidArgument) || errors.Is(err, mxnet.ErrNotFound) {
		t.Fatalf("errors.Is on %v", e)
	}
	// A bad attribute value names the attribute.
	_, err = nd.Convolution(nil, a, b, nil, []int64{2, 2}, 1, nd.ConvolutionLayout("XYZ"))
	wantErr(t, err, mxnet.CodeInvalidArgument, "layout")
	// A missing required attribute through the by-name call.
	_, err = mxnet.Invoke(nil, "Convolution", []*mxnet.NDArray{a, b}, nil)
	wantErr(t, err, mxnet.CodeInvalidArgument, "kernel")
}

func TestS1ViewsAndCopies(t *testing.T) {
	begin(t)
	x := f32(t, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	v := must(x.Reshape(nil, 3, -1))
	closeAll(t, v)
	shapeIs(t, v, 3, 2)
	row := must(x.Slice(nil, 1, 2))
	closeAll(t, row)
	shapeIs(t, row, 1, 3)
	c := must(x.Copy())
	closeAll(t, c)
	ok(mxnet.CopyFromSlice(x, []float32{10, 20, 30, 40, 50, 60}))
	near(t, must(v.Float32s()), []float32{10, 20, 30, 40, 50, 60}, 0) // the view shares memory
	near(t, must(row.Float32s()), []float32{40, 50, 60}, 0)
	near(t, must(c.Float32s()), []float32{1, 2, 3, 4, 5, 6}, 0) // the copy does not
	ok(x.Wait())
	ok(mxnet.WaitAll())
}

func TestWithDataIsZeroCopy(t *testing.T) {
	begin(t)
	x := f32(t, []float32{1, 2, 3}, 3)
	ok(mxnet.WithData(x, func(d []float32) error {
		if !reflect.DeepEqual(d, []float32{1, 2, 3}) {
			t.Fatalf("WithData sees %v", d)
		}
		d[1] = 20
		return nil
	}))
	near(t, must(x.Float32s()), []float32{1, 20, 3}, 0)
	sentinel := errors.New("stop")
	if err := mxnet.WithData(x, func([]float32) error { return sentinel }); err != sentinel {
		t.Fatalf("WithData returned %v", err)
	}
	err := mxnet.WithData(x, func([]int32) error { return nil })
	wantErr(t, err, mxnet.CodeInvalidArgument, "dtype is float32")
}

// Calls beyond the small-call frame: more than 4 inputs, more than 4 outputs, attributes longer
// than the frame's buffer.
func TestS1LargeCalls(t *testing.T) {
	begin(t)
	var ins []*mxnet.NDArray
	for i := 1; i <= 6; i++ {
		ins = append(ins, f32(t, []float32{float32(i), float32(10 * i)}))
	}
	near(t, values(t, must(nd.AddN(nil, ins))), []float32{21, 210}, 1e-5)
	a := f32(t, []float32{1, 2, 3, 4, 5, 6}, 1, 6)
	parts := must(nd.SliceChannel(nil, a, 6, nd.SliceChannelAxis(1)))
	if len(parts) != 6 {
		t.Fatalf("%d outputs", len(parts))
	}
	for i, p := range parts {
		near(t, values(t, p), []float32{float32(i + 1)}, 0)
	}
	long := "2." + strings.Repeat("0", 300) + "1"
	outs := must(mxnet.Invoke(nil, "_plus_scalar", []*mxnet.NDArray{a}, mxnet.Attrs{"scalar": long}))
	near(t, values(t, outs[0]), []float32{3, 4, 5, 6, 7, 8}, 1e-6)
	y := must(nd.PlusScalar(nil, a, nd.PlusScalarScalar(0.5), nd.PlusScalarIsInt(false)))
	near(t, values(t, y), []float32{1.5, 2.5, 3.5, 4.5, 5.5, 6.5}, 1e-6)
	// Errors on both paths name the input.
	_, err := nd.AddN(nil, append(ins[:5:5], nil))
	wantErr(t, err, mxnet.CodeInvalidArgument, "inputs[5]")
	_, err = nd.AddN(nil, []*mxnet.NDArray{ins[0], nil})
	wantErr(t, err, mxnet.CodeInvalidArgument, "inputs[1]")
}
