package mxnet

/*
#include "mxgo.h"
*/
import "C"

import "unsafe"

// FileFormat selects the format Save writes.
type FileFormat int32

// The formats.
const (
	FormatNDArrayList FileFormat = C.MXC_FORMAT_NDARRAY_LIST // MXNet's .params / .nd
	FormatNPY         FileFormat = C.MXC_FORMAT_NPY          // one array
	FormatNPZ         FileFormat = C.MXC_FORMAT_NPZ
)

// SaveOptions configure Save and SaveBytes. The zero value (or nil) means the defaults.
type SaveOptions struct {
	Format FileFormat // FormatNDArrayList by default
	// Version is the record version of the NDArray-list format: 0 or 2: V2 (MXNet 1.x
	// mx.nd.save), 3: V3 (np-shape, MXNet 2.x).
	Version int
	// NoFsync skips the fsync before the atomic rename (Save).
	NoFsync bool
}

func (o *SaveOptions) c() *C.mxc_ndarray_save_options {
	if o == nil {
		return nil
	}
	co := &C.mxc_ndarray_save_options{struct_size: C.sizeof_mxc_ndarray_save_options,
		format: C.int32_t(o.Format), version: C.int32_t(o.Version)}
	if o.NoFsync {
		co.no_fsync = 1
	}
	return co
}

// LoadOptions configure Load and LoadBytes. The zero value (or nil) means the defaults.
type LoadOptions struct {
	// Device where the arrays are placed; the zero Device means cpu(0).
	Device Device
	// RejectTrailingBytes makes bytes after the data a DATA_LOSS error (default: ignored, as
	// MXNet does).
	RejectTrailingBytes bool
	// KeepSparse makes sparse records UNIMPLEMENTED instead of densifying them.
	KeepSparse bool
	// MaxDensifiedBytes bounds the dense bytes one sparse record may expand to
	// (RESOURCE_EXHAUSTED above it); 0 means the library's default, 1 GiB. ABI 1.3.
	MaxDensifiedBytes uint64
}

func (o *LoadOptions) c() *C.mxc_ndarray_load_options {
	if o == nil {
		return nil
	}
	co := &C.mxc_ndarray_load_options{struct_size: C.sizeof_mxc_ndarray_load_options, device: o.Device.c()}
	if o.RejectTrailingBytes {
		co.reject_trailing_bytes = 1
	}
	if o.KeepSparse {
		co.keep_sparse = 1
	}
	co.max_densified_bytes = C.uint64_t(o.MaxDensifiedBytes)
	return co
}

// packSave checks the save arguments: names nil (a list) or one unique name per array.
func packSave(arrays []*NDArray, names []string) ([]*C.mxc_ndarray, *packer, error) {
	if names != nil && len(names) != len(arrays) {
		return nil, nil, newError(CodeInvalidArgument, "Save: len(names) != len(arrays)")
	}
	hs, err := handles(arrays, "arrays")
	if err != nil {
		return nil, nil, err
	}
	if names == nil {
		return hs, nil, nil
	}
	p := &packer{}
	for _, n := range names {
		if err := p.add(n, "name"); err != nil {
			return nil, nil, err
		}
	}
	return hs, p, nil
}

func handlesPtr(hs []*C.mxc_ndarray) **C.mxc_ndarray {
	if len(hs) == 0 {
		return nil
	}
	return &hs[0]
}

// Save writes arrays to path: a dict when names is not nil (one unique name per array), else a
// list, in opts' format (nil: MXNet's .params format, V2). The file is written to a temporary
// name and renamed over path. Errors: duplicate names, npy with != 1 array (INVALID_ARGUMENT),
// the file system (NOT_FOUND, PERMISSION_DENIED, ...), a closed array.
func Save(path string, arrays []*NDArray, names []string, opts *SaveOptions) error {
	hs, p, err := packSave(arrays, names)
	if err != nil {
		return err
	}
	cpath, err := cString(path, "path")
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(cpath))
	var np *C.char
	if p != nil {
		np = p.ptr()
		if np == nil { // empty dict
			np = cpath
		}
	}
	err = statusErr(C.mxgo_save(cpath, handlesPtr(hs), np, C.size_t(len(hs)), opts.c()))
	keepAlive(arrays)
	return err
}

// SaveBytes returns the bytes Save would write. Errors: as Save, without the file system.
func SaveBytes(arrays []*NDArray, names []string, opts *SaveOptions) ([]byte, error) {
	hs, p, err := packSave(arrays, names)
	if err != nil {
		return nil, err
	}
	var np *C.char
	if p != nil {
		np = p.ptr()
		if np == nil {
			np = (*C.char)(unsafe.Pointer(&[1]byte{}))
		}
	}
	var data unsafe.Pointer
	var size C.size_t
	err = statusErr(C.mxgo_save_to_buffer(handlesPtr(hs), np, C.size_t(len(hs)), opts.c(), &data, &size))
	keepAlive(arrays)
	if err != nil {
		return nil, err
	}
	defer C.mxc_bytes_free(data)
	return C.GoBytes(data, C.int(size)), nil
}

// takeLoaded wraps the arrays and names a load returned (nil entries stand for "none"
// records): each wrapper takes a reference of its own, then mxc_ndarray_array_free releases the
// returned ones and the C array.
func takeLoaded(arr **C.mxc_ndarray, names **C.char, count C.size_t) ([]*NDArray, []string, error) {
	defer C.mxc_ndarray_array_free(arr, count)
	out := make([]*NDArray, int(count))
	for i := range out {
		if h := C.mxgo_nd_at(arr, C.size_t(i)); h != nil {
			if err := statusErr(C.mxc_ndarray_retain(h)); err != nil {
				for _, x := range out[:i] {
					x.Close()
				}
				C.mxc_string_array_free(names, count)
				return nil, nil, err
			}
			out[i] = newNDArray(h)
		}
	}
	return out, goStrings(names, count), nil
}

// Load reads every array of a file (.params / .nd, .npy, .npz; the format is sniffed), in file
// order. names is nil when the file is a list, else one name per array. An entry of arrays is
// nil for a "none" record. Errors: a missing file (NOT_FOUND), a corrupt or truncated one
// (DATA_LOSS naming the record and byte offset), not such a file (INVALID_ARGUMENT),
// UNIMPLEMENTED.
func Load(path string, opts *LoadOptions) (arrays []*NDArray, names []string, err error) {
	cpath, err := cString(path, "path")
	if err != nil {
		return nil, nil, err
	}
	defer C.free(unsafe.Pointer(cpath))
	var arr **C.mxc_ndarray
	var cn **C.char
	var count C.size_t
	if err := statusErr(C.mxc_ndarray_load(cpath, opts.c(), &arr, &cn, &count)); err != nil {
		return nil, nil, err
	}
	return takeLoaded(arr, cn, count)
}

// LoadBytes is Load from bytes in memory (the arrays are copies: data may be reused after).
func LoadBytes(data []byte, opts *LoadOptions) (arrays []*NDArray, names []string, err error) {
	var arr **C.mxc_ndarray
	var cn **C.char
	var count C.size_t
	err = statusErr(C.mxc_ndarray_load_from_buffer(slicePtr(data), C.size_t(len(data)), opts.c(), &arr, &cn, &count))
	if err != nil {
		return nil, nil, err
	}
	return takeLoaded(arr, cn, count)
}
