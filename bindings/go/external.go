package mxnet

/*
#include "mxgo.h"
*/
import "C"

import (
	"runtime"
	"runtime/cgo"
	"unsafe"
)

//export mxgoRelease
func mxgoRelease(h C.uintptr_t) {
	hd := cgo.Handle(h)
	f := hd.Value().(func())
	hd.Delete()
	f()
}

// FromExternal returns an array of shape and dtype on dev that uses the memory at data (nbytes
// bytes, row-major, aligned to the element size) in place, without copying: writes through
// either side are seen by the other. data must NOT be Go memory (the library keeps the pointer,
// which cgo forbids for Go memory): use memory from C, syscall.Mmap, or another library.
// release (may be nil) is called exactly once when the last array or view using the memory is
// gone, on whichever goroutine or library thread drops it; it must not call into mxnet. It is
// kept by a runtime/cgo.Handle, never by C. On error release is never called.
// Errors: as FromBytes; misaligned data.
func FromExternal(data unsafe.Pointer, nbytes int, dtype DType, dev Device, shape []int64, release func()) (*NDArray, error) {
	if release == nil {
		release = func() {}
	}
	hd := cgo.NewHandle(release)
	var h *C.mxc_ndarray
	err := statusErr(C.mxgo_from_external(data, C.size_t(nbytes), shapePtr(shape), C.size_t(len(shape)),
		C.int32_t(dtype), dev.c(), C.uintptr_t(hd), &h))
	if err != nil {
		hd.Delete()
		return nil, err
	}
	return newNDArray(h), nil
}

// ToDLPack returns a DLPack DLManagedTensor* (as an unsafe.Pointer, for another C library)
// viewing the array without copying; it keeps the memory alive until its deleter is called,
// which the consumer must do exactly once (from any thread).
func (x *NDArray) ToDLPack() (unsafe.Pointer, error) {
	h, err := x.handle("array")
	if err != nil {
		return nil, err
	}
	var t *C.struct_DLManagedTensor
	err = statusErr(C.mxc_ndarray_to_dlpack(h, &t))
	runtime.KeepAlive(x)
	return unsafe.Pointer(t), err
}

// FromDLPack returns an array viewing the DLPack DLManagedTensor* tensor (from another C
// library) without copying. On success the library owns tensor and calls its deleter once the
// last array using it is gone; on error the caller keeps it. Errors: non-row-major strides,
// lanes != 1, an element type without a DType, misaligned data (UNIMPLEMENTED /
// INVALID_ARGUMENT naming the field).
func FromDLPack(tensor unsafe.Pointer) (*NDArray, error) {
	var h *C.mxc_ndarray
	if err := statusErr(C.mxc_ndarray_from_dlpack((*C.struct_DLManagedTensor)(tensor), &h)); err != nil {
		return nil, err
	}
	return newNDArray(h), nil
}

// HandleStats are the library's handle counts (mxc_handle_stats), for leak checks in tests.
type HandleStats struct {
	// Live handles of every type (each counted once, whatever its reference count).
	Live uint64
	// BadFrees counts frees the library ignored: stale (double) frees, wrong types, foreign
	// pointers. Close never causes one: it frees each handle once.
	BadFrees uint64
}

// GetHandleStats returns the library's handle counts. Safe from any goroutine.
func GetHandleStats() (HandleStats, error) {
	st := C.mxc_handle_stats{struct_size: C.sizeof_mxc_handle_stats}
	if err := statusErr(C.mxc_handle_stats_get(&st)); err != nil {
		return HandleStats{}, err
	}
	return HandleStats{Live: uint64(st.live), BadFrees: uint64(st.bad_frees)}, nil
}
