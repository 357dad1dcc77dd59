/* mxc/ndarray.h: creation (zeros, host copy, zero-copy external memory), properties, copies,
 * views, files (MXNet-written .nd, round trips in every format, buffers) and DLPack. */
#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#include "check.h"

static int g_deleted = 0;
static void count_delete(void* user_data) { g_deleted += *(int*)user_data; }

static void test_create(void) {
  int64_t shape[2] = {2, 3}, dims[4] = {0, 0, 0, 0};
  size_t ndim = 0, nbytes = 0;
  int64_t size = 0;
  int32_t dtype = -1;
  mxc_device dev = {0, 0};
  mxc_ndarray* a = NULL;
  double zeros[6] = {1, 1, 1, 1, 1, 1};
  int i;
  CHECK_OK(mxc_ndarray_create(shape, 2, MXC_FLOAT64, dev, &a)); /* {0,0}: cpu(0) */
  CHECK_OK(mxc_ndarray_shape(a, dims, 4, &ndim));
  CHECK(ndim == 2 && dims[0] == 2 && dims[1] == 3);
  CHECK_OK(mxc_ndarray_size(a, &size));
  CHECK(size == 6);
  CHECK_OK(mxc_ndarray_nbytes(a, &nbytes));
  CHECK(nbytes == 48);
  CHECK_OK(mxc_ndarray_dtype(a, &dtype));
  CHECK(dtype == MXC_FLOAT64);
  CHECK_OK(mxc_ndarray_device(a, &dev));
  CHECK(dev.type == MXC_DEVICE_CPU && dev.id == 0);
  CHECK_OK(mxc_ndarray_copy_to_host(a, zeros, sizeof zeros));
  for (i = 0; i < 6; ++i) CHECK(zeros[i] == 0.0);
  /* A too-small shape buffer is an error and writes nothing. */
  dims[0] = -7;
  CHECK_ERR(mxc_ndarray_shape(a, dims, 1, &ndim), MXC_OUT_OF_RANGE, "2 dims");
  CHECK(dims[0] == -7);
  mxc_ndarray_free(a);

  /* A scalar: ndim 0, one element; shape may be NULL. */
  CHECK_OK(mxc_ndarray_create(NULL, 0, MXC_INT32, cpu0(), &a));
  CHECK_OK(mxc_ndarray_ndim(a, &ndim));
  CHECK(ndim == 0);
  CHECK_OK(mxc_ndarray_size(a, &size));
  CHECK(size == 1);
  mxc_ndarray_free(a);

  CHECK(mxc_dtype_size(MXC_FLOAT16) == 2 && mxc_dtype_size(MXC_BOOL) == 1);
  CHECK(mxc_dtype_size(99) == 0 && mxc_dtype_name(99) == NULL);
  CHECK(strcmp(mxc_dtype_name(MXC_BFLOAT16), "bfloat16") == 0);
}

static void test_host_copy_and_external(void) {
  float src[6] = {1, 2, 3, 4, 5, 6}, out[6];
  int64_t shape[2] = {2, 3}, flat[1] = {6};
  mxc_ndarray *a = NULL, *ext = NULL, *view = NULL;
  void* data = NULL;
  int one = 1;
  /* from_host copies: later changes of the source are not seen. */
  a = make_f32(src, shape, 2);
  src[0] = 100;
  read_f32(a, out, 6);
  CHECK(out[0] == 1 && out[5] == 6);
  mxc_ndarray_free(a);

  /* from_external is zero copy: the array sees the caller's writes and vice versa. */
  g_deleted = 0;
  CHECK_OK(mxc_ndarray_from_external(src, sizeof src, shape, 2, MXC_FLOAT32, cpu0(), count_delete,
                                     &one, &ext));
  CHECK_OK(mxc_ndarray_data(ext, &data));
  CHECK(data == (void*)src);
  src[1] = 42;
  read_f32(ext, out, 6);
  CHECK(out[0] == 100 && out[1] == 42);
  out[2] = -3;
  CHECK_OK(mxc_ndarray_copy_from_host(ext, out, sizeof out));
  CHECK(src[2] == -3);
  /* A view keeps the memory alive after the original handle is freed; the deleter runs once,
   * when the last user goes. */
  CHECK_OK(mxc_ndarray_reshape(NULL, ext, flat, 1, &view));
  mxc_ndarray_free(ext);
  CHECK(g_deleted == 0);
  read_f32(view, out, 6);
  CHECK(out[1] == 42);
  mxc_ndarray_free(view);
  CHECK(g_deleted == 1);

  /* Errors leave the deleter with the caller: it is never called. */
  CHECK_ERR(
      mxc_ndarray_from_external(src, 5, shape, 2, MXC_FLOAT32, cpu0(), count_delete, &one, &ext),
      MXC_INVALID_ARGUMENT, "needs 24");
  CHECK_ERR(mxc_ndarray_from_external((char*)src + 1, 24, shape, 2, MXC_FLOAT32, cpu0(),
                                      count_delete, &one, &ext),
            MXC_INVALID_ARGUMENT, "aligned");
  CHECK(g_deleted == 1);
  CHECK_ERR(mxc_ndarray_from_host(src, 20, shape, 2, MXC_FLOAT32, cpu0(), &a), MXC_INVALID_ARGUMENT,
            "20 bytes given");
}

static void test_views_and_copies(void) {
  float v[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, out[12];
  int64_t shape[2] = {4, 3}, spec[3] = {2, -1, 3}, dims[3];
  size_t ndim;
  mxc_ndarray *a = make_f32(v, shape, 2), *r = NULL, *s = NULL, *c = NULL;
  float two[3] = {-1, -2, -3};
  mxc_device d0 = {0, 0};
  /* Reshape with codes: (4, 3) -> (2, -1, 3) = (2, 2, 3), sharing memory. */
  CHECK_OK(mxc_ndarray_reshape(NULL, a, spec, 3, &r));
  CHECK_OK(mxc_ndarray_shape(r, dims, 3, &ndim));
  CHECK(ndim == 3 && dims[0] == 2 && dims[1] == 2 && dims[2] == 3);
  /* Rows [1, 3) of a: a view; writing it changes a (and r). */
  CHECK_OK(mxc_ndarray_slice(NULL, a, 1, 3, &s));
  CHECK_OK(mxc_ndarray_shape(s, dims, 3, &ndim));
  CHECK(ndim == 2 && dims[0] == 2 && dims[1] == 3);
  read_f32(s, out, 6);
  CHECK(out[0] == 3 && out[5] == 8);
  mxc_ndarray_free(s);
  CHECK_OK(mxc_ndarray_slice(NULL, a, -1, 4, &s)); /* the last row */
  CHECK_OK(mxc_ndarray_copy_from_host(s, two, sizeof two));
  read_f32(r, out, 12);
  CHECK(out[9] == -1 && out[11] == -3 && out[8] == 8);
  /* A deep copy does not share. */
  CHECK_OK(mxc_ndarray_copy(a, d0, &c));
  CHECK_OK(mxc_ndarray_copy_from_host(s, v, sizeof two));
  read_f32(c, out, 12);
  CHECK(out[9] == -1);
  read_f32(a, out, 12);
  CHECK(out[9] == 0);
  CHECK_OK(mxc_ndarray_wait(a));
  CHECK_OK(mxc_ndarray_waitall());
  spec[0] = 5;
  CHECK_ERR(mxc_ndarray_reshape(NULL, a, spec, 3, &r), MXC_INVALID_ARGUMENT, "(4, 3)");
  CHECK_ERR(mxc_ndarray_slice(NULL, a, 3, 9, &s), MXC_OUT_OF_RANGE, "slice");
  mxc_ndarray_free(s);
  mxc_ndarray_free(r);
  mxc_ndarray_free(c);
  mxc_ndarray_free(a);
}

/* dict_v2.nd was written by MXNet 1.9.1 (ndarray/testdata/mx/manifest.json lists its values). */
static void test_load_mxnet_file(void) {
  char path[4200];
  mxc_ndarray** arrays = NULL;
  char** names = NULL;
  size_t count = 0, ndim = 0;
  int64_t dims[4];
  float w[12];
  int32_t dtype;
  snprintf(path, sizeof path, "%sndarray/testdata/mx/dict_v2.nd", data_dir());
  CHECK_OK(mxc_ndarray_load(path, NULL, &arrays, &names, &count));
  CHECK(count == 10);
  CHECK(names != NULL && strcmp(names[0], "arg:weight") == 0 &&
        strcmp(names[1], "aux:moving_var") == 0);
  CHECK_OK(mxc_ndarray_shape(arrays[0], dims, 4, &ndim));
  CHECK(ndim == 2 && dims[0] == 3 && dims[1] == 4);
  CHECK_OK(mxc_ndarray_dtype(arrays[1], &dtype));
  CHECK(dtype == MXC_FLOAT64);
  read_f32(arrays[0], w, 12);
  CHECK(w[2] == 1.0f && w[3] == -2.5f && w[4] == 3.4028234663852886e+38f);
  CHECK_NEAR(w[7], 78.35459899902344, 1e-5);
  mxc_ndarray_array_free(arrays, count);
  mxc_string_array_free(names, count);

  snprintf(path, sizeof path, "%sndarray/testdata/mx/list_v2.nd", data_dir());
  CHECK_OK(mxc_ndarray_load(path, NULL, &arrays, &names, &count));
  CHECK(count > 0 && names == NULL);
  mxc_ndarray_array_free(arrays, count);
  CHECK_ERR(mxc_ndarray_load("/nonexistent/x.params", NULL, &arrays, &names, &count), MXC_NOT_FOUND,
            "x.params");
}

/* max_densified_bytes (ABI 1.3) bounds what one sparse record may densify to. sparse_v2.nd
 * (MXNet 1.9.1) holds a (3, 4) float32 csr (48 dense bytes) and a (4, 2) row_sparse (32 bytes). */
static void test_densify_cap(void) {
  char path[4200];
  mxc_ndarray** arrays = NULL;
  char** names = NULL;
  size_t count = 0;
  float v[12];
  mxc_ndarray_load_options lo;
  snprintf(path, sizeof path, "%sndarray/testdata/mx/sparse_v2.nd", data_dir());
  memset(&lo, 0, sizeof lo);
  lo.struct_size = sizeof lo;
  lo.max_densified_bytes = 47; /* one byte short of the csr record */
  CHECK_ERR(mxc_ndarray_load(path, &lo, &arrays, &names, &count), MXC_RESOURCE_EXHAUSTED,
            "csr array of shape (3, 4) would densify to 48 bytes, more than "
            "LoadOptions::max_densified_bytes (47)");
  lo.max_densified_bytes = 48; /* exactly enough for both */
  CHECK_OK(mxc_ndarray_load(path, &lo, &arrays, &names, &count));
  CHECK(count == 2 && strcmp(names[0], "csr") == 0);
  read_f32(arrays[0], v, 12);
  CHECK(v[0] == 1.0f && v[2] == 2.0f && v[9] == 3.0f && v[1] == 0.0f);
  mxc_ndarray_array_free(arrays, count);
  mxc_string_array_free(names, count);
  /* 0 is the 1 GiB default; an ABI 1.2 caller's smaller struct gets it too. */
  lo.max_densified_bytes = 0;
  CHECK_OK(mxc_ndarray_load(path, &lo, &arrays, &names, &count));
  mxc_ndarray_array_free(arrays, count);
  mxc_string_array_free(names, count);
  lo.max_densified_bytes = 1;
  lo.struct_size = offsetof(mxc_ndarray_load_options, max_densified_bytes);
  CHECK_OK(mxc_ndarray_load(path, &lo, &arrays, &names, &count));
  mxc_ndarray_array_free(arrays, count);
  mxc_string_array_free(names, count);
}

/* Save then load, in every format, to a file and to memory. */
static void test_round_trips(void) {
  float v[6] = {1.5f, -2, 3, 4, 5, 6}, out[6];
  int64_t shape[2] = {2, 3};
  mxc_ndarray* arrs[2];
  const char* names[2] = {"arg:w", "aux:b"};
  mxc_ndarray** back = NULL;
  char** back_names = NULL;
  size_t count = 0, size = 0, i;
  void* bytes = NULL;
  char path[256];
  mxc_ndarray_save_options so;
  mxc_ndarray_load_options lo;
  int fmt;
  arrs[0] = make_f32(v, shape, 2);
  arrs[1] = make_f32(v + 3, shape + 1, 1);
  snprintf(path, sizeof path, "%s/mxc_round_trip.params",
           getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp");
  for (fmt = 0; fmt < 3; ++fmt) {
    memset(&so, 0, sizeof so);
    so.struct_size = sizeof so;
    so.format = fmt == 1 ? MXC_FORMAT_NPZ : MXC_FORMAT_NDARRAY_LIST;
    so.version = fmt == 2 ? 3 : 0;
    CHECK_OK(mxc_ndarray_save(path, arrs, names, 2, &so));
    CHECK_OK(mxc_ndarray_load(path, NULL, &back, &back_names, &count));
    CHECK(count == 2 && back_names && strcmp(back_names[1], "aux:b") == 0);
    read_f32(back[0], out, 6);
    CHECK(out[0] == 1.5f && out[5] == 6);
    mxc_ndarray_array_free(back, count);
    mxc_string_array_free(back_names, count);
    /* The same bytes through memory; a list when names is NULL. */
    CHECK_OK(mxc_ndarray_save_to_buffer(arrs, NULL, 2, &so, &bytes, &size));
    CHECK(size > 24);
    CHECK_OK(mxc_ndarray_load_from_buffer(bytes, size, NULL, &back, &back_names, &count));
    /* npz stores a list as members arr_0, arr_1: it loads as a dict. */
    CHECK(count == 2 &&
          (fmt == 1 ? back_names && strcmp(back_names[1], "arr_1") == 0 : back_names == NULL));
    read_f32(back[1], out, 3);
    CHECK(out[0] == 4 && out[2] == 6);
    mxc_ndarray_array_free(back, count);
    mxc_string_array_free(back_names, count);
    /* Truncated: a DATA_LOSS error, never a crash; nothing written. */
    back = NULL;
    CHECK_FAILS(mxc_ndarray_load_from_buffer(bytes, size - 3, NULL, &back, &back_names, &count));
    CHECK(back == NULL);
    mxc_bytes_free(bytes);
  }
  /* .npy holds one array. */
  memset(&so, 0, sizeof so);
  so.struct_size = sizeof so;
  so.format = MXC_FORMAT_NPY;
  CHECK_ERR(mxc_ndarray_save_to_buffer(arrs, NULL, 2, &so, &bytes, &size), MXC_INVALID_ARGUMENT,
            "");
  CHECK_OK(mxc_ndarray_save_to_buffer(arrs, NULL, 1, &so, &bytes, &size));
  /* Trailing bytes: ignored by default, an error when asked. */
  {
    char* padded = (char*)malloc(size + 4);
    memcpy(padded, bytes, size);
    memset(padded + size, 0, 4);
    CHECK_OK(mxc_ndarray_load_from_buffer(padded, size + 4, NULL, &back, &back_names, &count));
    mxc_ndarray_array_free(back, count);
    memset(&lo, 0, sizeof lo);
    lo.struct_size = sizeof lo;
    lo.reject_trailing_bytes = 1;
    CHECK_ERR(mxc_ndarray_load_from_buffer(padded, size + 4, &lo, &back, &back_names, &count),
              MXC_DATA_LOSS, "");
    free(padded);
  }
  mxc_bytes_free(bytes);
  for (i = 0; i < 2; ++i) mxc_ndarray_free(arrs[i]);
}

static int g_dl_deleted = 0;
static void dl_deleter(DLManagedTensor* self) {
  ++g_dl_deleted;
  free(self->dl_tensor.shape);
  free(self);
}

static void test_dlpack(void) {
  float v[6] = {1, 2, 3, 4, 5, 6}, out[6];
  int64_t shape[2] = {3, 2}, strides[2] = {1, 3};
  mxc_ndarray *a = make_f32(v, shape, 2), *b = NULL;
  DLManagedTensor* t = NULL;
  DLManagedTensor* mine;
  void *pa = NULL, *pb = NULL;
  /* Export: the tensor views the array's memory and keeps it alive. */
  CHECK_OK(mxc_ndarray_to_dlpack(a, &t));
  CHECK_OK(mxc_ndarray_data(a, &pa));
  CHECK(t->dl_tensor.data == pa && t->dl_tensor.ndim == 2 && t->dl_tensor.shape[0] == 3);
  CHECK(t->dl_tensor.dtype.code == kDLFloat && t->dl_tensor.dtype.bits == 32);
  CHECK(t->dl_tensor.device.device_type == kDLCPU && t->dl_tensor.strides == NULL);
  mxc_ndarray_free(a);
  CHECK(((float*)t->dl_tensor.data)[5] == 6); /* still alive: the tensor holds it */
  /* Import it back: zero copy; the library calls the deleter when the array goes. */
  CHECK_OK(mxc_ndarray_from_dlpack(t, &b));
  CHECK_OK(mxc_ndarray_data(b, &pb));
  CHECK(pb == pa);
  read_f32(b, out, 6);
  CHECK(out[0] == 1 && out[5] == 6);
  mxc_ndarray_free(b); /* runs the exporter's deleter: no leak under LeakSanitizer */

  /* A caller-made tensor with a byte offset; non-row-major strides are refused (caller keeps
   * ownership on error). */
  mine = (DLManagedTensor*)calloc(1, sizeof *mine);
  mine->dl_tensor.data = v;
  mine->dl_tensor.byte_offset = 2 * sizeof(float); /* elements v[2..5] */
  mine->dl_tensor.ndim = 2;
  mine->dl_tensor.shape = (int64_t*)malloc(2 * sizeof(int64_t));
  mine->dl_tensor.shape[0] = 2;
  mine->dl_tensor.shape[1] = 2;
  mine->dl_tensor.strides = strides; /* column-major (1, 2): refused */
  strides[0] = 1;
  strides[1] = 2;
  mine->dl_tensor.dtype.code = kDLFloat;
  mine->dl_tensor.dtype.bits = 32;
  mine->dl_tensor.dtype.lanes = 1;
  mine->dl_tensor.device.device_type = kDLCPU;
  mine->deleter = dl_deleter;
  CHECK_ERR(mxc_ndarray_from_dlpack(mine, &b), MXC_UNIMPLEMENTED, "strides");
  CHECK(g_dl_deleted == 0);
  mine->dl_tensor.strides = NULL;
  CHECK_OK(mxc_ndarray_from_dlpack(mine, &b));
  read_f32(b, out, 4);
  CHECK(out[0] == 3 && out[3] == 6);
  mxc_ndarray_free(b);
  CHECK(g_dl_deleted == 1);
}

int main(void) {
  uint64_t live0 = live_handles();
  test_create();
  test_host_copy_and_external();
  test_views_and_copies();
  test_load_mxnet_file();
  test_densify_cap();
  test_round_trips();
  test_dlpack();
  CHECK(live_handles() == live0); /* every handle freed */
  return check_summary();
}
