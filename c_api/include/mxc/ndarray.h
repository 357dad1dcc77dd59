/* mxc_ndarray: dense, C-contiguous (row-major) tensors on a device (mxnet.ndarray.NDArray).
 * Views (reshape, slice) share memory with their source; writes through one are seen by all.
 * Shapes are int64 dims, outermost first; ndim 0 is a scalar with one element.
 *
 * Threads: distinct arrays may be used concurrently; one array may be read (an operator input,
 * copy out, getters) by several threads at once; writing an array (copy in, an operator writing
 * it, attach_grad) while another thread uses it is a race. Freeing is safe from any thread. */
#ifndef MXC_NDARRAY_H_
#define MXC_NDARRAY_H_

#include "mxc/base.h"
#include "mxc/ctx.h"

MXC_EXTERN_C_BEGIN

typedef struct mxc_ndarray mxc_ndarray;
/* DLPack's managed tensor (dlpack.h, ABI of DLPack 0.6 and later 0.x). */
struct DLManagedTensor;

/* ---- Creation. ---- */

/* A zero-filled array of `shape` (ndim dims, each >= 0; shape may be NULL when ndim is 0),
 * `dtype` (mxc_dtype) on `device` ({0, 0}: cpu(0)). Errors: negative dims, unknown dtype or
 * device, a device this build lacks (MXC_UNAVAILABLE).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_create(const int64_t* shape, size_t ndim, int32_t dtype, mxc_device device,
                              mxc_ndarray** out) MXC_NOEXCEPT;

/* An array holding a copy of host memory `data` (`nbytes` = product(shape) * dtype size bytes,
 * row-major). Errors: nbytes mismatch (names both sizes), NULL data with nbytes > 0, as create.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_from_host(const void* data, size_t nbytes, const int64_t* shape, size_t ndim,
                                 int32_t dtype, mxc_device device, mxc_ndarray** out) MXC_NOEXCEPT;

/* Called once when the last array using external memory is gone, on whichever thread drops it
 * (possibly one of the library's). Must not call back into mxc. */
typedef void (*mxc_deleter)(void* user_data);

/* An array using memory the caller owns, without copying (zero copy): `data` (on `device`,
 * `nbytes` bytes, row-major, aligned to the element size) stays valid and is not freed by the
 * library until `deleter(user_data)` runs (deleter may be NULL: the caller then guarantees the
 * memory outlives every array and view using it). On success the library owns the deleter call;
 * on error it is never called. Errors: as mxc_ndarray_from_host, misaligned data.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_from_external(void* data, size_t nbytes, const int64_t* shape, size_t ndim,
                                     int32_t dtype, mxc_device device, mxc_deleter deleter,
                                     void* user_data, mxc_ndarray** out) MXC_NOEXCEPT;

/* +1 reference. Threads: any. */
MXC_STATUS mxc_ndarray_retain(mxc_ndarray* array) MXC_NOEXCEPT;
/* -1 reference; the array (and its memory, once no view uses it) goes at zero. NULL and invalid
 * handles are ignored. Threads: any (also the thread that did not create it). */
MXC_API void mxc_ndarray_free(mxc_ndarray* array) MXC_NOEXCEPT;
/* Frees each non-NULL handle of `arrays[0..count)` and then the array itself (as returned by
 * mxc_ndarray_load); NULL is ignored. Threads: any (also the thread that did not create it). */
MXC_API void mxc_ndarray_array_free(mxc_ndarray** arrays, size_t count) MXC_NOEXCEPT;

/* ---- Properties. ---- */

/* Number of dims (0 for a scalar).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_ndim(mxc_ndarray* array, size_t* out) MXC_NOEXCEPT;
/* Writes the ndim dims to dims[0..ndim) and ndim to *ndim. Errors: capacity < ndim
 * (MXC_OUT_OF_RANGE naming both; nothing written).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_shape(mxc_ndarray* array, int64_t* dims, size_t capacity,
                             size_t* ndim) MXC_NOEXCEPT;
/* Number of elements (1 for a scalar).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_size(mxc_ndarray* array, int64_t* out) MXC_NOEXCEPT;
/* Bytes of the data: size * dtype size.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_nbytes(mxc_ndarray* array, size_t* out) MXC_NOEXCEPT;
/* Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_dtype(mxc_ndarray* array, int32_t* out) MXC_NOEXCEPT;
/* Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_device(mxc_ndarray* array, mxc_device* out) MXC_NOEXCEPT;
/* The array's data pointer (device memory for GPU arrays), valid while the array lives. For
 * zero-copy reads/writes from the caller's language; call mxc_ndarray_wait first on GPUs.
 * Writes through it are not announced, so from this call on cached graphs that baked the array's
 * values in (hybridized inference) compare its contents on every call, not its write version.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_data(mxc_ndarray* array, void** out) MXC_NOEXCEPT;

/* ---- Copies. ---- */

/* Copies the array's elements (row-major) into host memory `dst` of exactly nbytes bytes, after
 * waiting for pending writes. Errors: nbytes mismatch (names both), NULL dst with nbytes > 0.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_copy_to_host(mxc_ndarray* array, void* dst, size_t nbytes) MXC_NOEXCEPT;
/* Overwrites the array's elements from host memory `src` of exactly nbytes bytes (views of the
 * same memory see the change). Errors: as mxc_ndarray_copy_to_host.
 * Threads: writes its object: no other thread may use it meanwhile. */
MXC_STATUS mxc_ndarray_copy_from_host(mxc_ndarray* array, const void* src,
                                      size_t nbytes) MXC_NOEXCEPT;
/* A deep copy on `device` ({0, 0}: the array's own device).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_copy(mxc_ndarray* array, mxc_device device, mxc_ndarray** out) MXC_NOEXCEPT;

/* ---- Views. ----
 * The result shares memory with `array` and has no autograd history, except when `ctx` is
 * recording and `array` is tracked by autograd (a variable or recorded result): then the view is
 * recorded as MXNet records it (the Reshape / slice_axis operator; its result is a new array).
 * ctx may be NULL (not recording). */

/* A view with a new shape (MXNet's Reshape codes: 0 copy the dim, -1 infer, -2 copy the rest,
 * -3 merge two, -4 split into the next two). Errors: element count differs (names both
 * shapes), bad codes.
 * Threads: one thread at a time per ctx; the other handles may be read concurrently by other calls.
 */
MXC_STATUS mxc_ndarray_reshape(mxc_ctx* ctx, mxc_ndarray* array, const int64_t* shape, size_t ndim,
                               mxc_ndarray** out) MXC_NOEXCEPT;
/* Rows [begin, end) along axis 0 (negative values count from the end), as a view. Errors: a
 * scalar, an empty or out-of-range interval.
 * Threads: one thread at a time per ctx; the other handles may be read concurrently by other calls.
 */
MXC_STATUS mxc_ndarray_slice(mxc_ctx* ctx, mxc_ndarray* array, int64_t begin, int64_t end,
                             mxc_ndarray** out) MXC_NOEXCEPT;

/* ---- Synchronisation. ---- */

/* Waits until pending work writing the array is done (wait_to_read).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_wait(mxc_ndarray* array) MXC_NOEXCEPT;
/* Waits for all pending work on every device (mx.nd.waitall). Threads: any. */
MXC_STATUS mxc_ndarray_waitall(void) MXC_NOEXCEPT;

/* ---- Files: .params / .nd (MXNet's NDArray-list format), .npy, .npz. ---- */

/* File formats (mxc_ndarray_save_options.format). */
#define MXC_FORMAT_NDARRAY_LIST 0 /* .params / .nd */
#define MXC_FORMAT_NPY 1
#define MXC_FORMAT_NPZ 2

typedef struct mxc_ndarray_load_options {
  size_t struct_size;
  /* Where loaded arrays are placed; {0, 0}: cpu(0). */
  mxc_device device;
  /* Nonzero: bytes after the names section / .npy data are an MXC_DATA_LOSS error (default:
   * ignored, as MXNet does). */
  int32_t reject_trailing_bytes;
  /* Nonzero: sparse records are MXC_UNIMPLEMENTED instead of being densified. */
  int32_t keep_sparse;
  /* ABI 1.3: the most bytes a sparse record may densify to; a record beyond it is
   * MXC_RESOURCE_EXHAUSTED naming the record and both sizes. 0: the default, 1 GiB. Set it to what
   * the caller can afford when reading files from strangers (a few hundred bytes of csr header
   * can describe gigabytes of dense data). */
  uint64_t max_densified_bytes;
} mxc_ndarray_load_options;

typedef struct mxc_ndarray_save_options {
  size_t struct_size;
  /* MXC_FORMAT_*; 0: the NDArray-list format. */
  int32_t format;
  /* Record version of the NDArray-list format: 0 or 2: V2 (MXNet 1.x mx.nd.save), 3: V3
   * (np-shape: npx.save, MXNet 2.x). */
  int32_t version;
  /* Nonzero: do not fsync before the atomic rename (saving to a path). */
  int32_t no_fsync;
} mxc_ndarray_save_options;

/* Loads every array of a file (format sniffed). *arrays gets `count` handles in file order
 * (NULL entries for "none" records), freed with mxc_ndarray_array_free; *names gets `count` names
 * when the file is a dict, or NULL when it is a list (free with mxc_string_array_free). Errors:
 * MXC_NOT_FOUND (missing file), MXC_DATA_LOSS (corrupt or truncated, naming the record and byte
 * offset), MXC_INVALID_ARGUMENT (not such a file), MXC_UNIMPLEMENTED.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_load(const char* path, const mxc_ndarray_load_options* options,
                            mxc_ndarray*** arrays, char*** names, size_t* count) MXC_NOEXCEPT;
/* The same from `size` bytes in memory.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_load_from_buffer(const void* data, size_t size,
                                        const mxc_ndarray_load_options* options,
                                        mxc_ndarray*** arrays, char*** names,
                                        size_t* count) MXC_NOEXCEPT;
/* Saves `count` arrays: a dict when `names` is not NULL (unique names), else a list. The file is
 * written to a temporary name and renamed over `path`. Errors: duplicate names, NULL array
 * handles, npy with != 1 array, the file system.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_save(const char* path, mxc_ndarray* const* arrays, const char* const* names,
                            size_t count, const mxc_ndarray_save_options* options) MXC_NOEXCEPT;
/* The bytes mxc_ndarray_save would write: *data (free with mxc_bytes_free) and *size.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_save_to_buffer(mxc_ndarray* const* arrays, const char* const* names,
                                      size_t count, const mxc_ndarray_save_options* options,
                                      void** data, size_t* size) MXC_NOEXCEPT;

/* ---- DLPack. ---- */

/* A DLManagedTensor viewing the array (zero copy; strides NULL = row-major; kDLCPU / kDLCUDA /
 * kDLCUDAHost). It keeps the array's memory alive until its deleter is called; the consumer calls
 * it exactly once (from any thread).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_to_dlpack(mxc_ndarray* array, struct DLManagedTensor** out) MXC_NOEXCEPT;
/* An array viewing a DLPack tensor without copying. On success the library owns `tensor` and
 * calls its deleter once the last array using it is gone; on error the caller keeps it.
 * Errors: non-row-major strides, lanes != 1, an element type without an mxc_dtype, misaligned
 * data (MXC_UNIMPLEMENTED / MXC_INVALID_ARGUMENT naming the field).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_from_dlpack(struct DLManagedTensor* tensor, mxc_ndarray** out) MXC_NOEXCEPT;

MXC_EXTERN_C_END

#endif /* MXC_NDARRAY_H_ */
