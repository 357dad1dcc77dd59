package mxnet

// The cgo set-up shared by the package's files. The headers come from the repository's
// c_api/include; the library is found through -L/-rpath to bazel-bin/c_api (after
// `./bazelw build //c_api:libmxc.so.1`) or through CGO_LDFLAGS (run_tests.sh sets it).

/*
#cgo CFLAGS: -I${SRCDIR}/../../c_api/include -std=gnu99
#cgo LDFLAGS: -L${SRCDIR}/../../bazel-bin/c_api -Wl,-rpath,${SRCDIR}/../../bazel-bin/c_api -l:libmxc.so.1
#include "mxgo.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"
)

// The ABI version this package was written against (mxc/base.h).
const (
	abiMajor = C.MXC_ABI_MAJOR
	abiMinor = C.MXC_ABI_MINOR
)

func init() {
	if err := statusErr(C.mxc_abi_check(abiMajor, abiMinor)); err != nil {
		panic(fmt.Sprintf("mxnet: the loaded libmxc does not serve this binding: %v", err))
	}
	for d := DType(0); d < numDTypes; d++ {
		dtypeSize[d] = int(C.mxc_dtype_size(C.int32_t(d)))
		dtypeName[d] = C.GoString(C.mxc_dtype_name(C.int32_t(d)))
	}
}

// ABIVersion returns the loaded library's C ABI version as (major, minor).
func ABIVersion() (major, minor int) {
	v := uint32(C.mxc_abi_version())
	return int(v >> 16), int(v & 0xffff)
}

// maxStrings bounds the strings packed into one call: the C helpers split them on the C stack.
const maxStrings = 16384

// packer builds the packed string buffers of mxgo.h: each string NUL-terminated, in order.
type packer struct {
	buf []byte
	n   int
}

// add appends s; strings holding a NUL byte cannot cross the C ABI and are an error naming what.
func (p *packer) add(s, what string) error {
	if !p.tryAdd(s) {
		return p.addError(s, what)
	}
	return nil
}

// tryAdd appends s, or reports false (see addError) for a NUL byte or too many strings.
func (p *packer) tryAdd(s string) bool {
	if p.n >= maxStrings || strings.IndexByte(s, 0) >= 0 {
		return false
	}
	p.buf = append(p.buf, s...)
	p.buf = append(p.buf, 0)
	p.n++
	return true
}

// addError is the error of a failed tryAdd(s); what names s.
func (p *packer) addError(s, what string) error {
	if p.n >= maxStrings {
		return newError(CodeInvalidArgument, fmt.Sprintf("more than %d strings in one call", maxStrings))
	}
	return newError(CodeInvalidArgument, fmt.Sprintf("%s %q contains a NUL byte", what, s))
}

// ptr is the buffer for C (NULL when empty). The buffer holds no Go pointers.
func (p *packer) ptr() *C.char {
	if len(p.buf) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(&p.buf[0]))
}

// cString copies s into C memory (free with C.free); NUL bytes are an error naming what.
func cString(s, what string) (*C.char, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return nil, newError(CodeInvalidArgument, fmt.Sprintf("%s %q contains a NUL byte", what, s))
	}
	return C.CString(s), nil
}

// goStrings copies a C string array of n entries and frees it with mxc_string_array_free.
func goStrings(arr **C.char, n C.size_t) []string {
	if arr == nil {
		return nil
	}
	out := make([]string, int(n))
	for i := range out {
		out[i] = C.GoString(C.mxgo_str_at(arr, C.size_t(i)))
	}
	C.mxc_string_array_free(arr, n)
	return out
}

// goStringsStatic copies a C string array the library keeps (operator metadata).
func goStringsStatic(arr **C.char, n C.size_t) []string {
	if n == 0 || arr == nil {
		return nil
	}
	out := make([]string, int(n))
	for i := range out {
		out[i] = C.GoString(C.mxgo_cstr_at(arr, C.size_t(i)))
	}
	return out
}

// unsafePointer converts a C pointer for C.free and casts.
func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
