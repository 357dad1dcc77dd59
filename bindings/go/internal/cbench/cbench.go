// Package cbench runs operator calls directly through the C ABI, in a loop in C, as the baseline
// of the S8 overhead benchmark (the binding's calls are measured against it).
package cbench

/*
#cgo CFLAGS: -I${SRCDIR}/../../../../c_api/include -std=gnu99
#cgo LDFLAGS: -L${SRCDIR}/../../../../bazel-bin/c_api -Wl,-rpath,${SRCDIR}/../../../../bazel-bin/c_api -l:libmxc.so.1
#include <stdio.h>
#include <stdlib.h>
#include "mxc/mxc.h"

// Runs op on one (10,) float32 array of ones n times with the given attribute (key NULL: none)
// under a ctx, freeing each output: what a C caller of mxc_invoke does. Returns 0, or -1 after
// printing the first error.
static int invoke_loop(const char* op_name, const char* key, const char* value, long n) {
  float v[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  int64_t shape[1] = {10};
  mxc_device cpu = {MXC_DEVICE_CPU, 0};
  mxc_ndarray* x = NULL;
  mxc_op* op = NULL;
  mxc_ctx* ctx = NULL;
  mxc_status* s = mxc_ndarray_from_host(v, sizeof v, shape, 1, MXC_FLOAT32, cpu, &x);
  if (!s) s = mxc_op_find(op_name, &op);
  if (!s) s = mxc_ctx_create(NULL, &ctx);
  for (long i = 0; !s && i < n; ++i) {
    mxc_ndarray* y = NULL;
    size_t k = 0;
    s = mxc_invoke(ctx, op, &x, 1, key ? &key : NULL, key ? &value : NULL, key ? 1 : 0, &y, 1, &k);
    mxc_ndarray_free(y);
  }
  mxc_ctx_free(ctx);
  mxc_ndarray_free(x);
  if (s) {
    fprintf(stderr, "cbench: %s\n", mxc_status_message(s));
    mxc_status_free(s);
    return -1;
  }
  return 0;
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// InvokeLoop calls opName on a (10,) float32 array n times through mxc_invoke in C (with the one
// attribute key=value, or none when key is ""), each output freed.
func InvokeLoop(opName, key, value string, n int) error {
	cop := C.CString(opName)
	defer C.free(unsafe.Pointer(cop))
	var ck, cv *C.char
	if key != "" {
		ck, cv = C.CString(key), C.CString(value)
		defer C.free(unsafe.Pointer(ck))
		defer C.free(unsafe.Pointer(cv))
	}
	if C.invoke_loop(cop, ck, cv, C.long(n)) != 0 {
		return errors.New("cbench: the C loop failed (see stderr)")
	}
	return nil
}
