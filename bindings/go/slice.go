package mxnet

/*
#include "mxgo.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// FromSlice returns a cpu(0) array holding a copy of data, with T's DType (DTypeOf) and the
// given shape (row-major); no shape means the 1-D shape [len(data)] (Scalar makes 0-d arrays).
// Errors: len(data) != product(shape) (INVALID_ARGUMENT naming both sizes), negative dims.
func FromSlice[T Element](data []T, shape ...int64) (*NDArray, error) {
	if len(shape) == 0 {
		shape = []int64{int64(len(data))}
	}
	return fromHost(slicePtr(data), len(data)*DTypeOf[T]().Size(), DTypeOf[T](), shape)
}

// Scalar returns a 0-d cpu(0) array holding v.
func Scalar[T Element](v T) (*NDArray, error) {
	data := []T{v}
	return fromHost(slicePtr(data), DTypeOf[T]().Size(), DTypeOf[T](), nil)
}

// fromHost copies nbytes at p into a new cpu(0) array. (Go memory passed to a C call stays
// alive during the call: only the wrappers with finalizers need runtime.KeepAlive.)
func fromHost(p unsafe.Pointer, nbytes int, dtype DType, shape []int64) (*NDArray, error) {
	var h *C.mxc_ndarray
	err := statusErr(C.mxc_ndarray_from_host(p, C.size_t(nbytes), shapePtr(shape), C.size_t(len(shape)),
		C.int32_t(dtype), CPU.c(), &h))
	if err != nil {
		return nil, err
	}
	return newNDArray(h), nil
}

// checkDType fails with INVALID_ARGUMENT when x's dtype is not T's.
func checkDType[T Element](x *NDArray, fn string) error {
	d, err := x.DType()
	if err != nil {
		return err
	}
	if want := DTypeOf[T](); d != want {
		return newError(CodeInvalidArgument, fmt.Sprintf("%s: the array's dtype is %v, the Go slice's element type is for %v", fn, d, want))
	}
	return nil
}

// ToSlice returns a copy of x's elements (row-major), after waiting for pending writes. T must
// match x's dtype (float32 for Float32, Half for Float16, ...). Errors: a dtype mismatch
// (INVALID_ARGUMENT naming both), a closed array.
func ToSlice[T Element](x *NDArray) ([]T, error) {
	if err := checkDType[T](x, "ToSlice"); err != nil {
		return nil, err
	}
	n, err := x.Size()
	if err != nil {
		return nil, err
	}
	out := make([]T, n)
	if err := x.copyOut(slicePtr(out), len(out)*DTypeOf[T]().Size()); err != nil {
		return nil, err
	}
	return out, nil
}

// CopyToSlice copies x's elements into dst, which must hold exactly Size() elements of x's
// dtype. Errors: a dtype mismatch, a length mismatch (INVALID_ARGUMENT naming both), a closed
// array.
func CopyToSlice[T Element](x *NDArray, dst []T) error {
	if err := checkDType[T](x, "CopyToSlice"); err != nil {
		return err
	}
	err := x.copyOut(slicePtr(dst), len(dst)*DTypeOf[T]().Size())
	return err
}

// CopyFromSlice overwrites x's elements from src (exactly Size() elements of x's dtype; views
// of the same memory see the change). Errors: as CopyToSlice. Goroutines: writes the array.
func CopyFromSlice[T Element](x *NDArray, src []T) error {
	if err := checkDType[T](x, "CopyFromSlice"); err != nil {
		return err
	}
	err := x.copyIn(slicePtr(src), len(src)*DTypeOf[T]().Size())
	return err
}

// Float32s is ToSlice[float32](x).
func (x *NDArray) Float32s() ([]float32, error) { return ToSlice[float32](x) }

// WithData calls f with a slice aliasing x's memory (zero copy: writes through it change the
// array), after waiting for pending writes. The slice is valid only during f: f must not keep
// it, nor use mxnet from inside f on x. x must be on the CPU and T must match its dtype.
// Errors: a dtype mismatch, a non-CPU array (FAILED_PRECONDITION), a closed array, f's error.
// Goroutines: f reads (and, if it writes, writes) the array, with the contract of NDArray.
func WithData[T Element](x *NDArray, f func(data []T) error) error {
	if err := checkDType[T](x, "WithData"); err != nil {
		return err
	}
	dev, err := x.Device()
	if err != nil {
		return err
	}
	if dev.Type != DeviceCPU && dev.Type != DeviceCPUPinned {
		return newError(CodeFailedPrecondition, "WithData: the array is on "+dev.String()+", not the CPU")
	}
	n, err := x.Size()
	if err != nil {
		return err
	}
	if err := x.Wait(); err != nil {
		return err
	}
	h, err := x.handle("array")
	if err != nil {
		return err
	}
	// An extra reference keeps the memory alive during f, even if x is closed meanwhile.
	if err := statusErr(C.mxc_ndarray_retain(h)); err != nil {
		return err
	}
	defer C.mxc_ndarray_free(h)
	var p unsafe.Pointer
	if err := statusErr(C.mxc_ndarray_data(h, &p)); err != nil {
		return err
	}
	if n == 0 {
		return f(nil)
	}
	return f(unsafe.Slice((*T)(p), n))
}
