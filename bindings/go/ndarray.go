package mxnet

/*
#include "mxgo.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// NDArray is a dense, C-contiguous (row-major) tensor on a device (mxnet.ndarray.NDArray,
// mxc_ndarray). Shapes are int64 dims, outermost first; ndim 0 is a scalar with one element.
// Views (Reshape, Slice) share memory with their source.
//
// Ownership: each NDArray holds one reference to a library array. Close releases it; the memory
// goes when no NDArray, view, gradient or recorded graph uses it. A finalizer releases forgotten
// references, but only as a safety net: the garbage collector does not see the library's memory,
// so close arrays explicitly (defer x.Close()).
//
// Goroutines (the C ABI's contract): distinct arrays may be used concurrently; one array may be
// read (an operator input, a copy out, the getters) by several goroutines at once; writing an
// array (CopyFromSlice, AttachGrad, an operator that writes it) while another goroutine uses it
// is a race. Close may run on any goroutine; closing an array that another goroutine is using is
// a bug of the caller but memory-safe (that call finishes or fails with INVALID_ARGUMENT).
type NDArray struct {
	h atomic.Pointer[C.mxc_ndarray] // nil once closed
}

// newNDArray wraps a +1 handle from the library.
func newNDArray(h *C.mxc_ndarray) *NDArray {
	x := &NDArray{}
	x.h.Store(h)
	runtime.SetFinalizer(x, (*NDArray).Close)
	return x
}

// Close releases the array. It is idempotent and always returns nil.
func (x *NDArray) Close() error {
	if x == nil {
		return nil
	}
	if h := x.h.Swap(nil); h != nil {
		runtime.SetFinalizer(x, nil)
		C.mxgo_ndarray_free(C.uintptr_t(uintptr(unsafe.Pointer(h))))
	}
	return nil
}

// handle returns the array's handle or an error for a nil or closed array. what names the
// argument in the error.
func (x *NDArray) handle(what string) (*C.mxc_ndarray, error) {
	if x == nil {
		return nil, newError(CodeInvalidArgument, what+" is a nil *NDArray")
	}
	h := x.h.Load()
	if h == nil {
		return nil, closedError(what + " (NDArray)")
	}
	return h, nil
}

// handles returns the handles of xs; what names the slice in errors ("inputs[2] is ...").
func handles(xs []*NDArray, what string) ([]*C.mxc_ndarray, error) {
	return appendHandles(make([]*C.mxc_ndarray, 0, len(xs)), xs, what)
}

// appendHandles appends the handles of xs to hs (the error, built only on failure, names the
// entry).
func appendHandles(hs []*C.mxc_ndarray, xs []*NDArray, what string) ([]*C.mxc_ndarray, error) {
	for i, x := range xs {
		var h *C.mxc_ndarray
		if x != nil {
			h = x.h.Load()
		}
		if h == nil {
			_, err := x.handle(fmt.Sprintf("%s[%d]", what, i))
			return nil, err
		}
		hs = append(hs, h)
	}
	return hs, nil
}

// keepAlive keeps every array of xs reachable (their finalizers unrun) until this point.
func keepAlive(xs []*NDArray) {
	for _, x := range xs {
		runtime.KeepAlive(x)
	}
}

// slicePtr is the address of s's first element, nil when s is empty.
func slicePtr[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

func shapePtr(shape []int64) *C.int64_t {
	if len(shape) == 0 {
		return nil
	}
	return (*C.int64_t)(unsafe.Pointer(&shape[0]))
}

// Zeros returns a zero-filled array of shape and dtype on dev (the zero Device: cpu(0)).
// Errors: negative dims, an unknown dtype or device (INVALID_ARGUMENT), a device this build
// lacks (UNAVAILABLE).
func Zeros(shape []int64, dtype DType, dev Device) (*NDArray, error) {
	var h *C.mxc_ndarray
	err := statusErr(C.mxc_ndarray_create(shapePtr(shape), C.size_t(len(shape)), C.int32_t(dtype), dev.c(), &h))
	if err != nil {
		return nil, err
	}
	return newNDArray(h), nil
}

// FromBytes returns a cpu(0) array of shape and dtype holding a copy of data (row-major,
// little-endian element bytes). Errors: len(data) != product(shape) * dtype.Size() (naming both),
// negative dims, an unknown dtype (INVALID_ARGUMENT).
func FromBytes(data []byte, dtype DType, shape ...int64) (*NDArray, error) {
	var h *C.mxc_ndarray
	err := statusErr(C.mxc_ndarray_from_host(slicePtr(data), C.size_t(len(data)), shapePtr(shape), C.size_t(len(shape)),
		C.int32_t(dtype), CPU.c(), &h))
	if err != nil {
		return nil, err
	}
	return newNDArray(h), nil
}

// get runs a getter f on x's handle and returns what it wrote (a closed array is an error).
func get[T any](x *NDArray, f func(h *C.mxc_ndarray, out *T) *C.mxc_status) (T, error) {
	var v T
	h, err := x.handle("array")
	if err != nil {
		return v, err
	}
	err = statusErr(f(h, &v))
	runtime.KeepAlive(x)
	return v, err
}

// NDim returns the number of dims (0 for a scalar). Errors: a closed array.
func (x *NDArray) NDim() (int, error) {
	n, err := get(x, func(h *C.mxc_ndarray, n *C.size_t) *C.mxc_status { return C.mxc_ndarray_ndim(h, n) })
	return int(n), err
}

// Shape returns the dims, outermost first (empty for a scalar). Errors: a closed array.
func (x *NDArray) Shape() ([]int64, error) {
	h, err := x.handle("array")
	if err != nil {
		return nil, err
	}
	defer runtime.KeepAlive(x)
	var buf [8]int64
	dims := buf[:]
	for {
		var ndim C.size_t
		err := statusErr(C.mxc_ndarray_shape(h, shapePtr(dims), C.size_t(len(dims)), &ndim))
		if err == nil {
			return append([]int64{}, dims[:ndim]...), nil
		}
		if e, ok := err.(*Error); !ok || e.Code != CodeOutOfRange {
			return nil, err
		}
		if err := statusErr(C.mxc_ndarray_ndim(h, &ndim)); err != nil {
			return nil, err
		}
		dims = make([]int64, int(ndim))
	}
}

// Size returns the number of elements (1 for a scalar). Errors: a closed array.
func (x *NDArray) Size() (int64, error) {
	n, err := get(x, func(h *C.mxc_ndarray, n *C.int64_t) *C.mxc_status { return C.mxc_ndarray_size(h, n) })
	return int64(n), err
}

// NBytes returns the size of the data in bytes: Size() * DType().Size(). Errors: a closed array.
func (x *NDArray) NBytes() (int, error) {
	n, err := get(x, func(h *C.mxc_ndarray, n *C.size_t) *C.mxc_status { return C.mxc_ndarray_nbytes(h, n) })
	return int(n), err
}

// DType returns the element type. Errors: a closed array.
func (x *NDArray) DType() (DType, error) {
	d, err := get(x, func(h *C.mxc_ndarray, d *C.int32_t) *C.mxc_status { return C.mxc_ndarray_dtype(h, d) })
	if err != nil {
		return DTypeUnknown, err
	}
	return DType(d), nil
}

// Device returns the device holding the data. Errors: a closed array.
func (x *NDArray) Device() (Device, error) {
	d, err := get(x, func(h *C.mxc_ndarray, d *C.mxc_device) *C.mxc_status { return C.mxc_ndarray_device(h, d) })
	return deviceFromC(d), err
}

// String describes the array: "NDArray(shape=[2 3], float32, cpu(0))", or "NDArray(closed)".
func (x *NDArray) String() string {
	shape, err := x.Shape()
	if err != nil {
		return "NDArray(closed)"
	}
	d, _ := x.DType()
	dev, _ := x.Device()
	return fmt.Sprintf("NDArray(shape=%v, %v, %v)", shape, d, dev)
}

// Bytes returns a copy of the data (row-major element bytes), after waiting for pending writes.
// Errors: a closed array.
func (x *NDArray) Bytes() ([]byte, error) {
	n, err := x.NBytes()
	if err != nil {
		return nil, err
	}
	out := make([]byte, n)
	if err := x.copyOut(slicePtr(out), n); err != nil {
		return nil, err
	}
	return out, nil
}

func (x *NDArray) copyOut(dst unsafe.Pointer, nbytes int) error {
	h, err := x.handle("array")
	if err != nil {
		return err
	}
	err = statusErr(C.mxc_ndarray_copy_to_host(h, dst, C.size_t(nbytes)))
	runtime.KeepAlive(x)
	return err
}

func (x *NDArray) copyIn(src unsafe.Pointer, nbytes int) error {
	h, err := x.handle("array")
	if err != nil {
		return err
	}
	err = statusErr(C.mxc_ndarray_copy_from_host(h, src, C.size_t(nbytes)))
	runtime.KeepAlive(x)
	return err
}

// CopyFromBytes overwrites the elements from src (row-major element bytes; views of the same
// memory see the change). Errors: len(src) != NBytes() (naming both), a closed array.
// Goroutines: writes the array.
func (x *NDArray) CopyFromBytes(src []byte) error {
	err := x.copyIn(slicePtr(src), len(src))
	return err
}

// Copy returns a deep copy on the same device.
func (x *NDArray) Copy() (*NDArray, error) { return x.CopyTo(Device{}) }

// CopyTo returns a deep copy on dev (the zero Device: the array's own device). Errors: a device
// this build lacks (UNAVAILABLE), a closed array.
func (x *NDArray) CopyTo(dev Device) (*NDArray, error) {
	return derive(x, func(h *C.mxc_ndarray, out **C.mxc_ndarray) *C.mxc_status { return C.mxc_ndarray_copy(h, dev.c(), out) })
}

// derive runs f, which makes a new array from x's handle, and wraps the result.
func derive(x *NDArray, f func(h *C.mxc_ndarray, out **C.mxc_ndarray) *C.mxc_status) (*NDArray, error) {
	out, err := get(x, f)
	if err != nil {
		return nil, err
	}
	return newNDArray(out), nil
}

// Reshape returns a view with a new shape (MXNet's Reshape codes: 0 copy the dim, -1 infer, -2
// copy the rest, -3 merge two, -4 split into the next two). It has no autograd history unless ctx
// is recording and x is tracked by autograd (then it is recorded as MXNet's Reshape). ctx may be
// nil. Errors: the element count differs (naming both shapes), bad codes (INVALID_ARGUMENT).
func (x *NDArray) Reshape(ctx *Ctx, shape ...int64) (*NDArray, error) {
	return deriveCtx(x, ctx, func(c *C.mxc_ctx, h *C.mxc_ndarray, out **C.mxc_ndarray) *C.mxc_status {
		return C.mxc_ndarray_reshape(c, h, shapePtr(shape), C.size_t(len(shape)), out)
	})
}

// Slice returns rows [begin, end) along axis 0 as a view (negative values count from the end);
// recorded as slice_axis under a recording ctx, like Reshape. Errors: a scalar, an empty or
// out-of-range interval (INVALID_ARGUMENT / OUT_OF_RANGE).
func (x *NDArray) Slice(ctx *Ctx, begin, end int64) (*NDArray, error) {
	return deriveCtx(x, ctx, func(c *C.mxc_ctx, h *C.mxc_ndarray, out **C.mxc_ndarray) *C.mxc_status {
		return C.mxc_ndarray_slice(c, h, C.int64_t(begin), C.int64_t(end), out)
	})
}

// deriveCtx is derive for calls that also take the (locked) ctx.
func deriveCtx(x *NDArray, ctx *Ctx, f func(c *C.mxc_ctx, h *C.mxc_ndarray, out **C.mxc_ndarray) *C.mxc_status) (*NDArray, error) {
	c, err := ctx.acquire()
	if err != nil {
		return nil, err
	}
	defer ctx.release()
	return derive(x, func(h *C.mxc_ndarray, out **C.mxc_ndarray) *C.mxc_status { return f(c, h, out) })
}

// Wait waits until pending work writing the array is done (wait_to_read).
func (x *NDArray) Wait() error {
	_, err := get(x, func(h *C.mxc_ndarray, _ *struct{}) *C.mxc_status { return C.mxc_ndarray_wait(h) })
	return err
}

// WaitAll waits for all pending work on every device (mx.nd.waitall).
func WaitAll() error { return statusErr(C.mxc_ndarray_waitall()) }
