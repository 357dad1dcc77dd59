package mxnet

/*
#include "mxgo.h"
*/
import "C"

import (
	"fmt"
	"math"
)

// DType is an element type: MXNet's type flags (mxc_dtype), as stored in .params files.
type DType int32

// The element types.
const (
	Float32  DType = C.MXC_FLOAT32
	Float64  DType = C.MXC_FLOAT64
	Float16  DType = C.MXC_FLOAT16
	Uint8    DType = C.MXC_UINT8
	Int32    DType = C.MXC_INT32
	Int8     DType = C.MXC_INT8
	Int64    DType = C.MXC_INT64
	Bool     DType = C.MXC_BOOL
	Int16    DType = C.MXC_INT16
	Uint16   DType = C.MXC_UINT16
	Uint32   DType = C.MXC_UINT32
	Uint64   DType = C.MXC_UINT64
	BFloat16 DType = C.MXC_BFLOAT16

	// DTypeUnknown is what type inference reports for a dtype it could not infer.
	DTypeUnknown DType = -1

	numDTypes = BFloat16 + 1
)

// Filled by init from the library (mxc_dtype_size, mxc_dtype_name).
var (
	dtypeSize [numDTypes]int
	dtypeName [numDTypes]string
)

// Size is the size in bytes of one element (float32: 4, bool: 1); 0 for an unknown DType.
func (d DType) Size() int {
	if d < 0 || d >= numDTypes {
		return 0
	}
	return dtypeSize[d]
}

// String is the MXNet/NumPy name ("float32", "bool"); "dtype(N)" for an unknown value.
func (d DType) String() string {
	if d < 0 || d >= numDTypes {
		return fmt.Sprintf("dtype(%d)", int32(d))
	}
	return dtypeName[d]
}

// ParseDType returns the DType named name ("float32", ...). Errors: INVALID_ARGUMENT for an
// unknown name.
func ParseDType(name string) (DType, error) {
	for d := DType(0); d < numDTypes; d++ {
		if dtypeName[d] == name {
			return d, nil
		}
	}
	return DTypeUnknown, newError(CodeInvalidArgument, fmt.Sprintf("unknown dtype %q", name))
}

// Half is one IEEE 754 binary16 value (DType Float16), stored as its bits. Go has no float16
// type; convert with HalfFromFloat32 and Half.Float32.
type Half uint16

// BHalf is one bfloat16 value (DType BFloat16: the upper 16 bits of a float32), stored as its bits.
type BHalf uint16

// HalfFromFloat32 rounds f to the nearest binary16 (ties to even); out-of-range values become
// ±Inf, NaN stays NaN.
func HalfFromFloat32(f float32) Half {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	switch {
	case exp == 0xff: // Inf or NaN
		if man != 0 {
			return Half(sign | 0x7e00)
		}
		return Half(sign | 0x7c00)
	case exp-127 > 15: // overflow
		return Half(sign | 0x7c00)
	case exp-127 >= -14: // normal
		h := uint32(exp-127+15)<<10 | man>>13
		rest := man & 0x1fff
		if rest > 0x1000 || (rest == 0x1000 && h&1 == 1) {
			h++ // may carry into the exponent, up to Inf: still correct
		}
		return Half(uint32(sign) | h)
	case exp-127 >= -25: // subnormal
		m := man | 0x800000 // implicit bit
		shift := uint32(-14-(exp-127)) + 13
		h := m >> shift
		rest := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rest > half || (rest == half && h&1 == 1) {
			h++
		}
		return Half(uint32(sign) | h)
	default:
		return Half(sign)
	}
}

// Float32 is the exact float32 value of h.
func (h Half) Float32() float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
	case man == 0:
		return math.Float32frombits(sign)
	default: // subnormal: man * 2^-24
		f := float32(man) / (1 << 24)
		if sign != 0 {
			f = -f
		}
		return f
	}
}

// BHalfFromFloat32 rounds f to the nearest bfloat16 (ties to even); NaN stays NaN.
func BHalfFromFloat32(f float32) BHalf {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return BHalf(b>>16 | 0x40)
	}
	return BHalf((b + 0x7fff + (b>>16)&1) >> 16)
}

// Float32 is the exact float32 value of h.
func (h BHalf) Float32() float32 { return math.Float32frombits(uint32(h) << 16) }

// Element is a Go type with an mxnet DType: the element types of FromSlice, ToSlice and friends.
// Half and BHalf stand for float16 and bfloat16 (Go has neither).
type Element interface {
	float32 | float64 | Half | uint8 | int32 | int8 | int64 | bool | int16 | uint16 | uint32 |
		uint64 | BHalf
}

// DTypeOf returns the DType of the Go element type T (Float32 for float32, Float16 for Half, ...).
func DTypeOf[T Element]() DType {
	var z T
	switch any(z).(type) {
	case float32:
		return Float32
	case float64:
		return Float64
	case Half:
		return Float16
	case uint8:
		return Uint8
	case int32:
		return Int32
	case int8:
		return Int8
	case int64:
		return Int64
	case bool:
		return Bool
	case int16:
		return Int16
	case uint16:
		return Uint16
	case uint32:
		return Uint32
	case uint64:
		return Uint64
	case BHalf:
		return BFloat16
	}
	panic("unreachable: Element lists exactly the cases above")
}

// DeviceType is a device kind: MXNet's dev_type numbering (also DLPack's).
type DeviceType int32

// The device kinds.
const (
	DeviceCPU       DeviceType = C.MXC_DEVICE_CPU
	DeviceGPU       DeviceType = C.MXC_DEVICE_GPU
	DeviceCPUPinned DeviceType = C.MXC_DEVICE_CPU_PINNED
)

// Device is a device: {DeviceCPU, 0} is cpu(0). The zero Device means "the default device"
// wherever a device is optional (a Ctx's default device, else cpu(0)).
type Device struct {
	Type DeviceType
	ID   int32
}

// CPU is cpu(0).
var CPU = Device{DeviceCPU, 0}

// GPU returns gpu(id). Builds without GPU support answer UNAVAILABLE when it is used.
func GPU(id int) Device { return Device{DeviceGPU, int32(id)} }

// String is MXNet's form: "cpu(0)", "gpu(1)", "cpu_pinned(0)"; "default" for the zero Device.
func (d Device) String() string {
	switch d.Type {
	case 0:
		return "default"
	case DeviceCPU:
		return fmt.Sprintf("cpu(%d)", d.ID)
	case DeviceGPU:
		return fmt.Sprintf("gpu(%d)", d.ID)
	case DeviceCPUPinned:
		return fmt.Sprintf("cpu_pinned(%d)", d.ID)
	}
	return fmt.Sprintf("device(%d, %d)", d.Type, d.ID)
}

func (d Device) c() C.mxc_device { return C.mxc_device{_type: C.int32_t(d.Type), id: C.int32_t(d.ID)} }

func deviceFromC(d C.mxc_device) Device { return Device{DeviceType(d._type), int32(d.id)} }
