/* mxc: the stable C ABI of mxnet-cpp (libmxc.so). Versioning, the error model, devices, dtypes,
 * handle accounting and the memory returned to callers.
 *
 * Conventions for every mxc_ function (c_api/README.md has the full table):
 *  - A call that can fail returns mxc_status*: NULL is success; otherwise the caller owns the
 *    status and frees it with mxc_status_free. On error no out-parameter is written and nothing
 *    needs cleaning up. No C++ exception ever leaves the library.
 *  - Handles (mxc_ndarray*, mxc_symbol*, mxc_ctx*, ...) are opaque, typed and reference counted.
 *    Every handle a call returns is a +1 reference, released with the family's _free (or
 *    retained with _retain). A NULL, stale (freed), double-freed or wrong-type handle passed to
 *    any call is an MXC_INVALID_ARGUMENT status naming the argument; _free ignores such handles
 *    (and NULL) and counts them in mxc_handle_stats. Never dereference a handle.
 *  - Strings in are NUL-terminated UTF-8 (checked: bad UTF-8 is MXC_INVALID_ARGUMENT); strings
 *    out are UTF-8.
 *  - Options structs start with `size_t struct_size` (set it to sizeof the struct you compiled
 *    against). Zero-filled fields mean the documented defaults; an older, smaller struct gets the
 *    defaults for the fields it lacks. A NULL options pointer means all defaults.
 *  - Threads: unless a function says otherwise, calls on distinct objects may run concurrently,
 *    one object may be read (used as an input) by several threads at once, and any handle may be
 *    freed from any thread. An mxc_ctx is used by one thread at a time.
 */
#ifndef MXC_BASE_H_
#define MXC_BASE_H_

#include <stddef.h>
#include <stdint.h>

#define MXC_ABI_MAJOR 1
#define MXC_ABI_MINOR 3
/* (major << 16) | minor, what mxc_abi_version() returns. */
#define MXC_ABI_VERSION ((MXC_ABI_MAJOR << 16) | MXC_ABI_MINOR)

#if defined(__GNUC__)
#define MXC_API __attribute__((visibility("default")))
#define MXC_MUST_USE __attribute__((warn_unused_result))
#else
#define MXC_API
#define MXC_MUST_USE
#endif

#ifdef __cplusplus
#define MXC_NOEXCEPT noexcept
#define MXC_EXTERN_C_BEGIN extern "C" {
#define MXC_EXTERN_C_END }
#else
#define MXC_NOEXCEPT
#define MXC_EXTERN_C_BEGIN
#define MXC_EXTERN_C_END
#endif

/* A status-returning function: the result must be checked (and freed when not NULL). */
#define MXC_STATUS MXC_API MXC_MUST_USE mxc_status*

MXC_EXTERN_C_BEGIN

/* ---- Versioning. ---- */

/* The library's ABI version, (major << 16) | minor. A binding built against headers of version
 * M.m works with a library of major M and minor >= m. Threads: any. */
MXC_API uint32_t mxc_abi_version(void) MXC_NOEXCEPT;

/* ---- Errors. ---- */

/* Status codes: the numbering of absl::StatusCode (and of google.rpc.Code). */
typedef enum mxc_code {
  MXC_OK = 0,
  MXC_CANCELLED = 1,
  MXC_UNKNOWN = 2,
  MXC_INVALID_ARGUMENT = 3,
  MXC_DEADLINE_EXCEEDED = 4,
  MXC_NOT_FOUND = 5,
  MXC_ALREADY_EXISTS = 6,
  MXC_PERMISSION_DENIED = 7,
  MXC_RESOURCE_EXHAUSTED = 8,
  MXC_FAILED_PRECONDITION = 9,
  MXC_ABORTED = 10,
  MXC_OUT_OF_RANGE = 11,
  MXC_UNIMPLEMENTED = 12,
  MXC_INTERNAL = 13,
  MXC_UNAVAILABLE = 14,
  MXC_DATA_LOSS = 15,
  MXC_UNAUTHENTICATED = 16
} mxc_code;

/* An error: a code and a UTF-8 message naming the function, what was wrong and where, e.g.
 * "mxc_invoke: Convolution: expected 3 inputs (data, weight, bias), got 2". Owned by the caller;
 * freed once with mxc_status_free (a status is not a reference-counted handle). */
typedef struct mxc_status mxc_status;

/* The status's code; MXC_OK for NULL. Threads: any, while the status is alive. */
MXC_API mxc_code mxc_status_code(const mxc_status* status) MXC_NOEXCEPT;
/* The status's message, valid until the status is freed; "" for NULL. Threads: as above. */
MXC_API const char* mxc_status_message(const mxc_status* status) MXC_NOEXCEPT;
/* Frees a status; NULL is ignored. Threads: any (once per status). */
MXC_API void mxc_status_free(mxc_status* status) MXC_NOEXCEPT;
/* A new status for callbacks to return (mxc/data.h): `code` (MXC_OK and values outside the enum
 * become MXC_UNKNOWN) and `message` (copied; NULL is ""; invalid UTF-8 is replaced by a note), as
 * "callback: <message>". Never NULL. Threads: any. */
MXC_API mxc_status* mxc_status_create(int32_t code, const char* message) MXC_NOEXCEPT;
/* The canonical name of a code ("INVALID_ARGUMENT"); "UNKNOWN" for values outside the enum.
 * The string is static. Threads: any. */
MXC_API const char* mxc_code_name(int32_t code) MXC_NOEXCEPT;

/* MXC_OK when this library can serve a binding built against ABI `major`.`minor`; otherwise
 * MXC_FAILED_PRECONDITION naming both versions (bindings call it when they load the library).
 * Threads: any. */
MXC_STATUS mxc_abi_check(uint32_t major, uint32_t minor) MXC_NOEXCEPT;

/* ---- Devices and element types. ---- */

/* Device types: MXNet's dev_type numbering (also DLPack's kDLCPU/kDLCUDA/kDLCUDAHost). */
#define MXC_DEVICE_CPU 1
#define MXC_DEVICE_GPU 2
#define MXC_DEVICE_CPU_PINNED 3

/* A device: {MXC_DEVICE_CPU, 0} is cpu(0). A zero-filled mxc_device ({0, 0}) means "the
 * default device" wherever a device is optional (the ctx's default device, else cpu(0)). */
typedef struct mxc_device {
  int32_t type;
  int32_t id;
} mxc_device;

/* Element types: MXNet's type flags (as stored in .params files). */
typedef enum mxc_dtype {
  MXC_FLOAT32 = 0,
  MXC_FLOAT64 = 1,
  MXC_FLOAT16 = 2,
  MXC_UINT8 = 3,
  MXC_INT32 = 4,
  MXC_INT8 = 5,
  MXC_INT64 = 6,
  MXC_BOOL = 7,
  MXC_INT16 = 8,
  MXC_UINT16 = 9,
  MXC_UINT32 = 10,
  MXC_UINT64 = 11,
  MXC_BFLOAT16 = 12
} mxc_dtype;

/* Size in bytes of one element of `dtype` (float32: 4, bool: 1); 0 for an unknown value.
 * Threads: any. */
MXC_API size_t mxc_dtype_size(int32_t dtype) MXC_NOEXCEPT;
/* MXNet/NumPy name of `dtype` ("float32", "bool", ...), static; NULL for an unknown value.
 * Threads: any. */
MXC_API const char* mxc_dtype_name(int32_t dtype) MXC_NOEXCEPT;

/* ---- Memory the library hands out. ---- */

/* Frees a string returned by an mxc_ call (JSON text, ...); NULL is ignored. Threads: any. */
MXC_API void mxc_string_free(char* str) MXC_NOEXCEPT;
/* Frees an array of `count` strings returned by an mxc_ call, and the strings; NULL is ignored.
 * Threads: any. */
MXC_API void mxc_string_array_free(char** strs, size_t count) MXC_NOEXCEPT;
/* Frees a byte buffer returned by an mxc_ call (e.g. mxc_ndarray_save_to_buffer); NULL is
 * ignored. Threads: any. */
MXC_API void mxc_bytes_free(void* bytes) MXC_NOEXCEPT;

/* ---- Handle accounting (leak checks in bindings' tests). ---- */

typedef struct mxc_handle_stats {
  size_t struct_size;
  /* Live handles of every type (each counted once, whatever its reference count). */
  uint64_t live;
  /* _free calls that were ignored because the handle was invalid: stale (double free), of the
   * wrong type or not an mxc handle. NULL is not counted. */
  uint64_t bad_frees;
} mxc_handle_stats;

/* Fills `stats` (its struct_size must be set). Threads: any. */
MXC_STATUS mxc_handle_stats_get(mxc_handle_stats* stats) MXC_NOEXCEPT;

MXC_EXTERN_C_END

#endif /* MXC_BASE_H_ */
