package mxnet

/*
#include "mxgo.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/cgo"
	"sync"
)

// Interp is a resize filter (OpenCV's codes, as mx.image).
type Interp int32

// The resize filters.
const (
	InterpNearest  Interp = C.MXC_INTERP_NEAREST
	InterpBilinear Interp = C.MXC_INTERP_BILINEAR
	InterpBicubic  Interp = C.MXC_INTERP_BICUBIC
	InterpArea     Interp = C.MXC_INTERP_AREA
	InterpLanczos  Interp = C.MXC_INTERP_LANCZOS
)

// ImDecode decodes a JPEG or PNG held in data (mx.image.imdecode) to an (H, W, C) uint8 array:
// color true gives 3 channels (RGB when toRGB, else BGR), false 1 channel (grayscale). data is
// read during the call only. Errors: data that is no (complete) JPEG/PNG (INVALID_ARGUMENT /
// DATA_LOSS).
func ImDecode(data []byte, color, toRGB bool) (*NDArray, error) {
	var h *C.mxc_ndarray
	err := statusErr(C.mxc_image_decode(slicePtr(data), C.size_t(len(data)), boolInt(color), boolInt(toRGB), &h))
	runtime.KeepAlive(data)
	return arrayResult(h, err)
}

// ImRead is ImDecode of a file's contents (mx.image.imread). Errors: NOT_FOUND naming the path,
// ImDecode's.
func ImRead(path string, color, toRGB bool) (*NDArray, error) {
	p, err := cstr(path, "path")
	if err != nil {
		return nil, err
	}
	var h *C.mxc_ndarray
	return arrayResult(h, statusErr(C.mxc_image_read(p.ptr(), boolInt(color), boolInt(toRGB), &h)))
}

// ResizeShort resizes an (H, W, C) uint8 or float32 image so that its shorter side is size
// (mx.image.resize_short), antialiased; the long side is floor(long * size / short), or rounded
// to the nearest pixel with roundLongSide (what `mxnet classify` does). Errors: rank != 3,
// size <= 0, an unknown interp.
func ResizeShort(img *NDArray, size int64, interp Interp, roundLongSide bool) (*NDArray, error) {
	return derive(img, func(h *C.mxc_ndarray, out **C.mxc_ndarray) *C.mxc_status {
		return C.mxc_image_resize_short(h, C.int64_t(size), C.int32_t(interp), boolInt(roundLongSide), out)
	})
}

func arrayResult(h *C.mxc_ndarray, err error) (*NDArray, error) {
	if err != nil {
		return nil, err
	}
	return newNDArray(h), nil
}

// Transform is an image transform (gluon.data.vision.transforms, mxc_transform): built in
// (ToTensor, Normalize, Resize, CenterCrop, Cast, Compose) or a Go function (TransformFunc).
// Immutable once made. Ownership: Close releases it (idempotent); composites and datasets keep
// what they use alive. Goroutines: any goroutines may apply one at once; Close from any.
type Transform struct {
	r ref[C.mxc_transform]
}

// Close releases the transform. It is idempotent and always returns nil.
func (t *Transform) Close() error {
	if t != nil {
		t.r.close(t, func(h *C.mxc_transform) { C.mxc_transform_free(h) })
	}
	return nil
}

func (t *Transform) handle(what string) (*C.mxc_transform, error) {
	if t == nil {
		return nil, newError(CodeInvalidArgument, what+" is a nil *Transform")
	}
	return t.r.get("Transform", what)
}

func transformResult(h *C.mxc_transform, err error) (*Transform, error) {
	if err != nil {
		return nil, err
	}
	t := &Transform{}
	t.r.init(t, h, (*Transform).Close)
	return t, nil
}

// ToTensor returns the ToTensor transform: HWC [0, 255] image (uint8 or any numeric dtype) ->
// CHW float32 x / 255; NHWC -> NCHW.
func ToTensor() (*Transform, error) {
	var h *C.mxc_transform
	return transformResult(h, statusErr(C.mxc_transform_to_tensor(&h)))
}

// Normalize returns (x - mean[c]) / std[c] per channel of a CHW / NCHW float32 tensor
// (Normalize); mean and std have 1 or C entries. Errors: empty mean/std, a zero std.
func Normalize(mean, std []float32) (*Transform, error) {
	var h *C.mxc_transform
	err := statusErr(C.mxc_transform_normalize((*C.float)(slicePtr(mean)), C.size_t(len(mean)),
		(*C.float)(slicePtr(std)), C.size_t(len(std)), &h))
	return transformResult(h, err)
}

// Resize returns Resize((width, height)) of HWC/NHWC uint8 or float32 images, or with keepRatio
// the shorter side to width keeping the aspect ratio (height must be 0). Errors: sizes <= 0, an
// unknown interp.
func Resize(width, height int64, keepRatio bool, interp Interp) (*Transform, error) {
	var h *C.mxc_transform
	err := statusErr(C.mxc_transform_resize(C.int64_t(width), C.int64_t(height), boolInt(keepRatio), C.int32_t(interp), &h))
	return transformResult(h, err)
}

// CenterCrop returns CenterCrop((width, height)) of HWC images, resizing first with interp when
// the image is smaller. Errors: sizes <= 0.
func CenterCrop(width, height int64, interp Interp) (*Transform, error) {
	var h *C.mxc_transform
	return transformResult(h, statusErr(C.mxc_transform_center_crop(C.int64_t(width), C.int64_t(height), C.int32_t(interp), &h)))
}

// Cast returns the Cast(dtype) transform.
func Cast(dtype DType) (*Transform, error) {
	var h *C.mxc_transform
	return transformResult(h, statusErr(C.mxc_transform_cast(C.int32_t(dtype), &h)))
}

// Compose returns steps[0], then steps[1], ... (Compose); the steps are kept alive by it.
// Errors: no steps, nil or closed steps.
func Compose(steps ...*Transform) (*Transform, error) {
	hs := make([]*C.mxc_transform, len(steps))
	for i, s := range steps {
		var err error
		if hs[i], err = s.handle(fmt.Sprintf("steps[%d]", i)); err != nil {
			return nil, err
		}
	}
	var first **C.mxc_transform
	if len(hs) > 0 {
		first = &hs[0]
	}
	var h *C.mxc_transform
	err := statusErr(C.mxc_transform_compose(first, C.size_t(len(hs)), &h))
	for _, s := range steps {
		runtime.KeepAlive(s)
	}
	return transformResult(h, err)
}

// TransformFunc returns a transform calling f. f gets an input it must not close or keep (valid
// during the call) and returns a new array (which the library takes over: f must not use it
// afterwards), or an error (an *Error keeps its code; others are UNKNOWN), reported naming the
// transform. f runs on whichever goroutine or library thread applies the transform, concurrently
// from DataLoader workers (NumWorkers > 0): it must be safe for that. A panic in f is recovered
// and reported as an INTERNAL error. f is held through a runtime/cgo.Handle (C keeps no Go
// pointer), released when the library drops the transform.
func TransformFunc(f func(input *NDArray) (*NDArray, error)) (*Transform, error) {
	if f == nil {
		return nil, newError(CodeInvalidArgument, "TransformFunc: f is nil")
	}
	hd := cgo.NewHandle(f)
	var h *C.mxc_transform
	err := statusErr(C.mxgo_transform_from_callback(C.uintptr_t(hd), &h))
	if err != nil {
		hd.Delete()
	}
	return transformResult(h, err)
}

//export mxgoTransformCall
func mxgoTransformCall(fn C.uintptr_t, input *C.mxc_ndarray, output **C.mxc_ndarray) (st *C.mxc_status) {
	defer func() {
		if r := recover(); r != nil {
			st = statusFor(CodeInternal, fmt.Sprintf("Go transform panicked: %v", r))
		}
	}()
	f := cgo.Handle(fn).Value().(func(*NDArray) (*NDArray, error))
	if err := statusErr(C.mxc_ndarray_retain(input)); err != nil {
		return statusFor(CodeInternal, err.Error())
	}
	in := newNDArray(input)
	defer in.Close()
	out, err := f(in)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return statusFor(e.Code, e.Msg)
		}
		return statusFor(CodeUnknown, err.Error())
	}
	h, err := out.handle("the transform's output")
	if err != nil {
		return statusFor(CodeInvalidArgument, err.Error())
	}
	if out == in { // the library's input: hand back a new reference
		if err := statusErr(C.mxc_ndarray_retain(h)); err != nil {
			return statusFor(CodeInternal, err.Error())
		}
	} else { // hand our reference over
		out.h.Store(nil)
		runtime.SetFinalizer(out, nil)
	}
	*output = h
	return nil
}

//export mxgoDeleteHandle
func mxgoDeleteHandle(h C.uintptr_t) { cgo.Handle(h).Delete() }

// statusFor makes a C status for a callback's error (the library frees it).
func statusFor(code Code, msg string) *C.mxc_status {
	p := &packer{}
	if !p.tryAdd(msg) {
		p = &packer{}
		p.tryAdd("(message with a NUL byte)")
	}
	return C.mxc_status_create(C.int32_t(code), p.ptr())
}

// Apply applies the transform to input and returns a new array. Errors: the transform's.
func (t *Transform) Apply(input *NDArray) (*NDArray, error) {
	th, err := t.handle("transform")
	if err != nil {
		return nil, err
	}
	res, err := derive(input, func(h *C.mxc_ndarray, out **C.mxc_ndarray) *C.mxc_status {
		return C.mxc_transform_apply(th, h, out)
	})
	runtime.KeepAlive(t)
	return res, err
}

// String returns the transform as MXNet prints it ("Compose(ToTensor(), Normalize(...))").
func (t *Transform) String() string {
	th, err := t.handle("transform")
	if err != nil {
		return "Transform(" + err.Error() + ")"
	}
	var s *C.char
	err = statusErr(C.mxc_transform_to_string(th, &s))
	runtime.KeepAlive(t)
	if err != nil {
		return "Transform(" + err.Error() + ")"
	}
	defer C.mxc_string_free(s)
	return C.GoString(s)
}

// Dataset is a list of samples, each a list of arrays ("fields", e.g. {image, label})
// (gluon.data.Dataset, mxc_dataset). Immutable once made. Ownership: Close releases it
// (idempotent); derived datasets and loaders keep it alive. Goroutines: any goroutines at once.
type Dataset struct {
	r ref[C.mxc_dataset]
}

// Close releases the dataset. It is idempotent and always returns nil.
func (d *Dataset) Close() error {
	if d != nil {
		d.r.close(d, func(h *C.mxc_dataset) { C.mxc_dataset_free(h) })
	}
	return nil
}

func (d *Dataset) handle() (*C.mxc_dataset, error) {
	if d == nil {
		return nil, newError(CodeInvalidArgument, "dataset is a nil *Dataset")
	}
	return d.r.get("Dataset", "dataset")
}

func datasetResult(h *C.mxc_dataset, err error) (*Dataset, error) {
	if err != nil {
		return nil, err
	}
	d := &Dataset{}
	d.r.init(d, h, (*Dataset).Close)
	return d, nil
}

// FashionMNIST opens Fashion-MNIST in root ({train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz];
// "": $MXNET_HOME/datasets/fashion-mnist; Debian's dataset-fashion-mnist installs
// /usr/share/datasets/fashion-mnist): the 60,000 training images (train) or the 10,000 test
// images. Samples: {(28, 28, 1) uint8 image, () int32 label}. Nothing is downloaded.
// Errors: NOT_FOUND naming the missing file, DATA_LOSS for truncated files.
func FashionMNIST(root string, train bool) (*Dataset, error) {
	r, err := optStr(root, "root")
	if err != nil {
		return nil, err
	}
	var h *C.mxc_dataset
	return datasetResult(h, statusErr(C.mxc_dataset_fashion_mnist(r.ptr(), boolInt(train), &h)))
}

// MNIST is FashionMNIST for MNIST ("": $MXNET_HOME/datasets/mnist).
func MNIST(root string, train bool) (*Dataset, error) {
	r, err := optStr(root, "root")
	if err != nil {
		return nil, err
	}
	var h *C.mxc_dataset
	return datasetResult(h, statusErr(C.mxc_dataset_mnist(r.ptr(), boolInt(train), &h)))
}

// NewArrayDataset returns a dataset over columns (ArrayDataset): sample i is {columns[0][i],
// ...}; the arrays are shared, not copied. Errors: no columns, 0-d arrays, different lengths.
func NewArrayDataset(columns ...*NDArray) (*Dataset, error) {
	hs, err := handles(columns, "columns")
	if err != nil {
		return nil, err
	}
	var h *C.mxc_dataset
	err = statusErr(C.mxc_dataset_from_arrays(handlesPtr(hs), C.size_t(len(hs)), &h))
	keepAlive(columns)
	return datasetResult(h, err)
}

func (d *Dataset) derive(f func(h *C.mxc_dataset, out **C.mxc_dataset) *C.mxc_status) (*Dataset, error) {
	var h *C.mxc_dataset
	err := withHandle[C.mxc_dataset](d, func(dh *C.mxc_dataset) *C.mxc_status { return f(dh, &h) })
	return datasetResult(h, err)
}

// Len returns the number of samples.
func (d *Dataset) Len() (int64, error) {
	var n C.int64_t
	err := withHandle[C.mxc_dataset](d, func(h *C.mxc_dataset) *C.mxc_status { return C.mxc_dataset_size(h, &n) })
	return int64(n), err
}

// Get returns sample index's fields, new arrays the caller closes. Errors: index out of range
// (OUT_OF_RANGE), a transform's error.
func (d *Dataset) Get(index int64) ([]*NDArray, error) {
	dh, err := d.handle()
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(d)
	for max := 8; ; max *= 16 {
		fields := make([]*C.mxc_ndarray, max)
		var n C.size_t
		err := statusErr(C.mxc_dataset_get(dh, C.int64_t(index), &fields[0], C.size_t(max), &n))
		if e, ok := err.(*Error); ok && e.Code == CodeOutOfRange && max < 1<<12 && index >= 0 {
			if l, lerr := d.Len(); lerr == nil && index < l {
				continue // a valid index: more fields than the buffer holds
			}
		}
		if err != nil {
			return nil, err
		}
		return wrapOutputs(fields[:n]), nil
	}
}

// Take returns the first min(count, Len) samples (Dataset.take; count < 0: all).
func (d *Dataset) Take(count int64) (*Dataset, error) {
	return d.derive(func(h *C.mxc_dataset, out **C.mxc_dataset) *C.mxc_status {
		return C.mxc_dataset_take(h, C.int64_t(count), out)
	})
}

// Shard returns contiguous shard index of numShards (Dataset.shard). Errors: bad numShards or
// index.
func (d *Dataset) Shard(numShards, index int64) (*Dataset, error) {
	return d.derive(func(h *C.mxc_dataset, out **C.mxc_dataset) *C.mxc_status {
		return C.mxc_dataset_shard(h, C.int64_t(numShards), C.int64_t(index), out)
	})
}

// TransformFirst returns a dataset whose first field is t(field) (Dataset.transform_first):
// lazy applies t on every read, otherwise to every sample now.
func (d *Dataset) TransformFirst(t *Transform, lazy bool) (*Dataset, error) {
	th, err := t.handle("transform")
	if err != nil {
		return nil, err
	}
	res, err := d.derive(func(h *C.mxc_dataset, out **C.mxc_dataset) *C.mxc_status {
		return C.mxc_dataset_transform_first(h, th, boolInt(lazy), out)
	})
	runtime.KeepAlive(t)
	return res, err
}

// LastBatch says what a DataLoader does with an incomplete last batch.
type LastBatch int32

// The last-batch policies (gluon.data.DataLoader's last_batch).
const (
	LastBatchKeep     LastBatch = C.MXC_LAST_BATCH_KEEP
	LastBatchDiscard  LastBatch = C.MXC_LAST_BATCH_DISCARD
	LastBatchRollover LastBatch = C.MXC_LAST_BATCH_ROLLOVER
)

// DataLoaderOptions configure NewDataLoader.
type DataLoaderOptions struct {
	// BatchSize is the number of samples per batch (>= 1, required).
	BatchSize int64
	// Shuffle draws a new order each epoch from the Ctx given to the epoch's first Next.
	Shuffle   bool
	LastBatch LastBatch
	// NumWorkers are library threads loading batches ahead (0: on the calling goroutine).
	NumWorkers int
	// Prefetch is the number of batches in flight with workers (0: 2 * NumWorkers).
	Prefetch int
}

// DataLoader batches a dataset (gluon.data.DataLoader, mxc_dataloader), read by polling Next:
// fields of shape S become (batch, S); Fashion-MNIST with ToTensor gives (B, 1, 28, 28) float32
// images and (B,) int32 labels. Ownership: Close releases it and stops its workers (idempotent).
// Goroutines: a DataLoader holds a mutex across each call (one goroutine at a time); Close from
// any goroutine.
type DataLoader struct {
	mu sync.Mutex
	r  ref[C.mxc_dataloader]
}

// NewDataLoader returns a loader over ds. Errors: BatchSize < 1, negative NumWorkers/Prefetch,
// an unknown LastBatch (INVALID_ARGUMENT).
func NewDataLoader(ds *Dataset, opts DataLoaderOptions) (*DataLoader, error) {
	dh, err := ds.handle()
	if err != nil {
		return nil, err
	}
	o := C.mxc_dataloader_options{struct_size: C.sizeof_mxc_dataloader_options, batch_size: C.int64_t(opts.BatchSize),
		shuffle: boolInt(opts.Shuffle), last_batch: C.int32_t(opts.LastBatch), num_workers: C.int32_t(opts.NumWorkers),
		prefetch: C.int32_t(opts.Prefetch)}
	var h *C.mxc_dataloader
	err = statusErr(C.mxc_dataloader_create(dh, &o, &h))
	runtime.KeepAlive(ds)
	if err != nil {
		return nil, err
	}
	l := &DataLoader{}
	l.r.init(l, h, (*DataLoader).Close)
	return l, nil
}

// Close releases the loader and stops its workers. It is idempotent and always returns nil.
func (l *DataLoader) Close() error {
	if l != nil {
		l.r.close(l, func(h *C.mxc_dataloader) { C.mxc_dataloader_free(h) })
	}
	return nil
}

func (l *DataLoader) handle() (*C.mxc_dataloader, error) {
	if l == nil {
		return nil, newError(CodeInvalidArgument, "loader is a nil *DataLoader")
	}
	return l.r.get("DataLoader", "loader")
}

// call runs f on the handle under the loader's mutex.
func (l *DataLoader) call(f func(h *C.mxc_dataloader) *C.mxc_status) error {
	if l == nil {
		return newError(CodeInvalidArgument, "loader is a nil *DataLoader")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return withHandle[C.mxc_dataloader](l, f)
}

// Len returns the number of batches in one epoch (len(loader)).
func (l *DataLoader) Len() (int64, error) {
	var n C.int64_t
	err := l.call(func(h *C.mxc_dataloader) *C.mxc_status { return C.mxc_dataloader_size(h, &n) })
	return int64(n), err
}

// Next returns the next batch of the current epoch (its fields, new arrays the caller closes)
// and true; at the end of the epoch it returns nil and false, and the following call starts a
// new epoch (a new order when shuffling, drawn under ctx; nil: the process-wide generator).
// Errors: a loading error naming the sample and batch (the epoch is then over).
func (l *DataLoader) Next(ctx *Ctx) ([]*NDArray, bool, error) {
	c, err := ctx.acquire()
	if err != nil {
		return nil, false, err
	}
	defer ctx.release()
	for max := 8; ; max *= 16 {
		fields := make([]*C.mxc_ndarray, max)
		var n C.size_t
		var has C.int32_t
		err := l.call(func(h *C.mxc_dataloader) *C.mxc_status {
			return C.mxc_dataloader_next(c, h, &fields[0], C.size_t(max), &n, &has)
		})
		if e, ok := err.(*Error); ok && e.Code == CodeOutOfRange && max < 1<<12 {
			continue // too many fields for the buffer: the batch is not consumed
		}
		if err != nil || has == 0 {
			return nil, false, err
		}
		return wrapOutputs(fields[:n]), true, nil
	}
}

// Reset ends the current epoch early; the next Next starts a new one.
func (l *DataLoader) Reset() error {
	return l.call(func(h *C.mxc_dataloader) *C.mxc_status { return C.mxc_dataloader_reset(h) })
}
