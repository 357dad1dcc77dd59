package mxnet_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mxnet.local/mxnet"
	"mxnet.local/mxnet/nd"
)

// The image family against the operator path (_cvimdecode, tested against Go's image/jpeg in
// image_test.go): the same pixels; BGR is RGB reversed; grayscale has one channel; resize_short
// gives the documented sizes.
func TestImageFamily(t *testing.T) {
	begin(t)
	path := sharedFile(t, "data/images/dog.jpg")
	raw := must(os.ReadFile(path))
	buf := must(mxnet.FromSlice(raw))
	defer buf.Close()
	dec := must(nd.Cvimdecode(nil, buf))
	viaOp := must(mxnet.ToSlice[uint8](dec))
	dec.Close()
	rgb := must(mxnet.ImDecode(raw, true, true))
	defer rgb.Close()
	shape := must(rgb.Shape())
	if len(shape) != 3 || shape[2] != 3 {
		t.Fatalf("decoded shape %v, want (H, W, 3)", shape)
	}
	pix := must(mxnet.ToSlice[uint8](rgb))
	if string(pix) != string(viaOp) {
		t.Fatal("ImDecode differs from the _cvimdecode operator")
	}
	read := must(mxnet.ImRead(path, true, true))
	if string(must(mxnet.ToSlice[uint8](read))) != string(pix) {
		t.Fatal("ImRead differs from ImDecode")
	}
	read.Close()
	bgrArr := must(mxnet.ImDecode(raw, true, false))
	bgr := must(mxnet.ToSlice[uint8](bgrArr))
	bgrArr.Close()
	for i := 0; i < len(pix); i += 3 {
		if bgr[i] != pix[i+2] || bgr[i+1] != pix[i+1] || bgr[i+2] != pix[i] {
			t.Fatalf("pixel %d: BGR %v, RGB %v", i/3, bgr[i:i+3], pix[i:i+3])
		}
	}
	gray := must(mxnet.ImDecode(raw, false, true))
	shapeIs(t, gray, shape[0], shape[1], 1)
	gray.Close()

	// Short side 32; the long side floor(long * 32 / short) or rounded.
	h, w := shape[0], shape[1]
	short, long := h, w
	if w < h {
		short, long = w, h
	}
	for _, round := range []bool{false, true} {
		r := must(mxnet.ResizeShort(rgb, 32, mxnet.InterpBilinear, round))
		got := must(r.Shape())
		r.Close()
		wantLong := long * 32 / short
		if round {
			wantLong = (2*long*32 + short) / (2 * short)
		}
		gotShort, gotLong := got[0], got[1]
		if w < h {
			gotShort, gotLong = got[1], got[0]
		}
		if gotShort != 32 || gotLong != wantLong || got[2] != 3 {
			t.Fatalf("resize_short(32, round=%v) of %dx%d: %v, want short 32, long %d", round, h, w, got, wantLong)
		}
	}

	_, err := mxnet.ImDecode([]byte("not an image at all"), true, true)
	if err == nil {
		t.Fatal("decoding garbage succeeded")
	}
	_, err = mxnet.ImRead(filepath.Join(t.TempDir(), "missing.jpg"), true, true)
	wantErr(t, err, mxnet.CodeNotFound, "missing.jpg")
	_, err = mxnet.ResizeShort(rgb, 0, mxnet.InterpBilinear, false)
	wantErr(t, err, mxnet.CodeInvalidArgument, "")
}

// A Go transform (TransformFunc, through a runtime/cgo.Handle) runs on DataLoader worker threads
// the library starts; its results, errors and panics come back.
func TestTransformFuncInDataLoader(t *testing.T) {
	begin(t)
	data := make([]float32, 20)
	labels := make([]int32, 10)
	for i := range data {
		data[i] = float32(i)
	}
	for i := range labels {
		labels[i] = int32(i)
	}
	x, y := f32(t, data, 10, 2), must(mxnet.FromSlice(labels, 10))
	closeAll(t, y)
	ds := must(mxnet.NewArrayDataset(x, y))
	defer ds.Close()
	if n := must(ds.Len()); n != 10 {
		t.Fatalf("Len %d, want 10", n)
	}
	sample := must(ds.Get(3))
	near(t, must(sample[0].Float32s()), []float32{6, 7}, 0)
	closeFields(sample)
	_, err := ds.Get(10)
	wantErr(t, err, mxnet.CodeOutOfRange, "")

	double := must(mxnet.TransformFunc(func(in *mxnet.NDArray) (*mxnet.NDArray, error) {
		return nd.MulScalar(nil, in, nd.MulScalarScalar(2))
	}))
	defer double.Close()
	doubled := must(ds.TransformFirst(double, true))
	defer doubled.Close()
	for _, workers := range []int{0, 2} {
		loader := must(mxnet.NewDataLoader(doubled, mxnet.DataLoaderOptions{BatchSize: 4, NumWorkers: workers}))
		var got []float32
		var gotLabels []int32
		batches := 0
		for {
			batch, more, err := loader.Next(nil)
			ok(err)
			if !more {
				break
			}
			batches++
			got = append(got, must(batch[0].Float32s())...)
			gotLabels = append(gotLabels, must(mxnet.ToSlice[int32](batch[1]))...)
			closeFields(batch)
		}
		loader.Close()
		if batches != 3 {
			t.Fatalf("%d workers: %d batches, want 3 (4, 4, 2 samples)", workers, batches)
		}
		want := make([]float32, 20)
		for i := range want {
			want[i] = 2 * data[i]
		}
		near(t, got, want, 0)
		if fmt.Sprint(gotLabels) != fmt.Sprint(labels) {
			t.Fatalf("labels %v, want %v", gotLabels, labels)
		}
	}

	// The input itself may be returned.
	same := must(mxnet.TransformFunc(func(in *mxnet.NDArray) (*mxnet.NDArray, error) { return in, nil }))
	defer same.Close()
	out := must(same.Apply(x))
	near(t, values(t, out), data, 0)

	// Errors keep their code and message; panics are INTERNAL; both name the callback.
	fail := must(mxnet.TransformFunc(func(*mxnet.NDArray) (*mxnet.NDArray, error) {
		return nil, &mxnet.Error{Code: mxnet.CodeNotFound, Msg: "no such thing"}
	}))
	defer fail.Close()
	_, err = fail.Apply(x)
	wantErr(t, err, mxnet.CodeNotFound, "no such thing")
	plain := must(mxnet.TransformFunc(func(*mxnet.NDArray) (*mxnet.NDArray, error) { return nil, errors.New("plain") }))
	defer plain.Close()
	_, err = plain.Apply(x)
	wantErr(t, err, mxnet.CodeUnknown, "plain")
	boom := must(mxnet.TransformFunc(func(*mxnet.NDArray) (*mxnet.NDArray, error) { panic("boom") }))
	defer boom.Close()
	failing := must(ds.TransformFirst(boom, true))
	defer failing.Close()
	loader := must(mxnet.NewDataLoader(failing, mxnet.DataLoaderOptions{BatchSize: 2, NumWorkers: 2}))
	defer loader.Close()
	_, _, err = loader.Next(nil)
	wantErr(t, err, mxnet.CodeInternal, "boom")
	_, err = mxnet.TransformFunc(nil)
	wantErr(t, err, mxnet.CodeInvalidArgument, "nil")
}

// Built-in transforms as MXNet prints them, on Fashion-MNIST samples.
func TestTransformsAndFashionMNIST(t *testing.T) {
	begin(t)
	root := fashionMNIST(t)
	test := must(mxnet.FashionMNIST(root, false))
	defer test.Close()
	if n := must(test.Len()); n != 10000 {
		t.Fatalf("test set: %d images, want 10000", n)
	}
	s := must(test.Get(0))
	defer closeFields(s)
	shapeIs(t, s[0], 28, 28, 1)
	if d := must(s[0].DType()); d != mxnet.Uint8 {
		t.Fatalf("image dtype %v, want uint8", d)
	}
	if l := must(mxnet.ToSlice[int32](s[1])); l[0] != 9 { // the first test image is an ankle boot
		t.Fatalf("label %d, want 9", l[0])
	}
	toTensor := must(mxnet.ToTensor())
	defer toTensor.Close()
	norm := must(mxnet.Normalize([]float32{0.5}, []float32{0.25}))
	defer norm.Close()
	both := must(mxnet.Compose(toTensor, norm))
	defer both.Close()
	if str := both.String(); !strings.Contains(str, "ToTensor") || !strings.Contains(str, "Normalize") {
		t.Fatalf("Compose prints %q", str)
	}
	x := must(both.Apply(s[0]))
	shapeIs(t, x, 1, 28, 28)
	raw := must(mxnet.ToSlice[uint8](s[0]))
	want := make([]float32, len(raw))
	for i, v := range raw {
		want[i] = (float32(v)/255 - 0.5) / 0.25
	}
	near(t, values(t, x), want, 1e-5)

	shard := must(test.Shard(4, 1))
	if n := must(shard.Len()); n != 2500 {
		t.Fatalf("shard: %d, want 2500", n)
	}
	shard.Close()
	_, err := mxnet.FashionMNIST(t.TempDir(), true)
	wantErr(t, err, mxnet.CodeNotFound, "train-")
	_, err = mxnet.NewDataLoader(test, mxnet.DataLoaderOptions{BatchSize: 0})
	wantErr(t, err, mxnet.CodeInvalidArgument, "")
}
