/* mxc/onnx.h (ABI 1.2): a model-zoo net and the real GluonCV CIFAR ResNet-20 export from
 * ../shared written as ONNX through the C ABI and read back (from the file and from bytes): the
 * same outputs as the original block, also at another batch size (dynamic batch); static-batch
 * export; the documented errors (bad opset, no inputs, negative dims, an operator without an
 * ONNX mapping, missing file, corrupt and truncated bytes, NULL arguments). That ONNX Runtime
 * runs our exports is checked by //gluon/onnx (onnx_test, onnx_zoo_test). */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "check.h"

static const char* tmp_path(const char* name) {
  static char buf[4][512];
  static int next = 0;
  char* b = buf[next++ % 4];
  snprintf(b, 512, "%s/%s", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", name);
  return b;
}

/* x: (n, 3, 32, 32) with a fixed pattern. */
static mxc_ndarray* input(int64_t n) {
  static float v[2 * 3 * 32 * 32];
  int64_t s[4] = {0, 3, 32, 32};
  int64_t i;
  s[0] = n;
  for (i = 0; i < n * 3 * 32 * 32; ++i) v[i] = (float)((i * 7919) % 255) / 255.0f - 0.5f;
  return make_f32(v, s, 4);
}

static mxc_ndarray* call1(mxc_block* b, mxc_ndarray* x) {
  mxc_ndarray* y = NULL;
  size_t n = 0;
  CHECK_OK(mxc_block_call(NULL, b, &x, 1, &y, 1, &n));
  CHECK(n == 1);
  return y;
}

/* max |a - b| / max |b| over n floats. */
static float rel_diff(mxc_ndarray* a, mxc_ndarray* b, size_t n) {
  float *x = (float*)malloc(n * sizeof(float)), *y = (float*)malloc(n * sizeof(float));
  float d = 0, scale = 0;
  size_t i;
  read_f32(a, x, n);
  read_f32(b, y, n);
  for (i = 0; i < n; ++i) {
    d = fabsf(x[i] - y[i]) > d ? fabsf(x[i] - y[i]) : d;
    scale = fabsf(y[i]) > scale ? fabsf(y[i]) : scale;
  }
  free(x);
  free(y);
  return scale > 0 ? d / scale : d;
}

static char* read_file(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  char* buf;
  long size;
  CHECK(f != NULL);
  if (!f) exit(1);
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = (char*)malloc((size_t)size + 1);
  CHECK(fread(buf, 1, (size_t)size, f) == (size_t)size);
  fclose(f);
  *n = (size_t)size;
  return buf;
}

/* Exports `net` (called on batch-1 input first when `call_first`) to `name`.onnx, imports it from
 * the file and from its bytes, and compares the outputs at batch 1 and 2 with the block's. */
static void round_trip(mxc_block* net, const char* name, size_t classes) {
  size_t ndims[1] = {4}, nbytes = 0;
  int64_t dims[4] = {1, 3, 32, 32};
  char* bytes;
  mxc_block *from_file = NULL, *from_bytes = NULL;
  mxc_ndarray *x1 = input(1), *x2 = input(2), *y1, *y2, *z1, *z2, *w2;
  mxc_onnx_export_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.opset = 17;
  CHECK_OK(mxc_block_export_onnx(NULL, net, ndims, dims, 1, tmp_path(name), &o));
  CHECK_OK(mxc_symbol_block_imports_onnx(tmp_path(name), cpu0(), &from_file));
  bytes = read_file(tmp_path(name), &nbytes);
  CHECK(nbytes > 1000);
  CHECK_OK(mxc_symbol_block_imports_onnx_bytes(bytes, nbytes, cpu0(), &from_bytes));

  y1 = call1(net, x1);
  y2 = call1(net, x2);
  z1 = call1(from_file, x1);
  z2 = call1(from_file, x2); /* dynamic batch: dim 0 is "N" */
  w2 = call1(from_bytes, x2);
  CHECK(rel_diff(z1, y1, classes) < 1e-4f);
  CHECK(rel_diff(z2, y2, 2 * classes) < 1e-4f);
  CHECK(rel_diff(w2, y2, 2 * classes) < 1e-4f);
  /* The batch's two rows differ relative to their scale (so the comparisons above are not
   * trivially true). */
  {
    float v[20], d = 0, scale = 0;
    size_t i;
    read_f32(y2, v, 2 * classes);
    for (i = 0; i < 2 * classes; ++i) scale = fabsf(v[i]) > scale ? fabsf(v[i]) : scale;
    for (i = 0; i < classes; ++i)
      d = fabsf(v[i] - v[classes + i]) > d ? fabsf(v[i] - v[classes + i]) : d;
    CHECK(d > 1e-2f * scale);
  }

  /* Truncated bytes: an error naming the problem, never a crash. */
  {
    mxc_block* bad = NULL;
    CHECK_ERR(mxc_symbol_block_imports_onnx_bytes(bytes, nbytes / 2, cpu0(), &bad),
              MXC_INVALID_ARGUMENT, "ONNX");
    CHECK(bad == NULL);
  }
  free(bytes);
  mxc_ndarray_free(x1);
  mxc_ndarray_free(x2);
  mxc_ndarray_free(y1);
  mxc_ndarray_free(y2);
  mxc_ndarray_free(z1);
  mxc_ndarray_free(z2);
  mxc_ndarray_free(w2);
  mxc_block_free(from_file);
  mxc_block_free(from_bytes);
}

static void test_opsets(void) {
  int32_t emin = 0, emax = 0, imin = 0, imax = 0;
  mxc_onnx_opsets(&emin, &emax, &imin, &imax);
  CHECK(emin == 13 && emax == 17 && imin == 7 && imax == 21);
  mxc_onnx_opsets(NULL, NULL, NULL, NULL); /* NULLs are allowed */
}

static void test_model_zoo(void) {
  mxc_model_options mo;
  mxc_block* net = NULL;
  memset(&mo, 0, sizeof mo);
  mo.struct_size = sizeof mo;
  mo.classes = 10;
  CHECK_OK(mxc_model_zoo_get("mobilenetv2_0.25", &mo, &net));
  CHECK_OK(mxc_block_initialize(NULL, net, "xavier", cpu0(), 0));
  round_trip(net, "mobilenet.onnx", 10);

  /* Static batch: the exported model runs at the exported batch with the same outputs. */
  {
    size_t ndims[1] = {4};
    int64_t dims[4] = {1, 3, 32, 32};
    mxc_onnx_export_options o;
    mxc_block* fixed = NULL;
    mxc_ndarray *x = input(1), *y, *z;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.static_batch = 1;
    CHECK_OK(mxc_block_export_onnx(NULL, net, ndims, dims, 1, tmp_path("fixed.onnx"), &o));
    CHECK_OK(mxc_symbol_block_imports_onnx(tmp_path("fixed.onnx"), cpu0(), &fixed));
    y = call1(net, x);
    z = call1(fixed, x);
    CHECK(rel_diff(z, y, 10) < 1e-4f);
    mxc_ndarray_free(x);
    mxc_ndarray_free(y);
    mxc_ndarray_free(z);
    mxc_block_free(fixed);
  }

  /* Bad arguments. */
  {
    size_t ndims[1] = {4};
    int64_t dims[4] = {1, 3, 32, 32}, neg[4] = {1, -3, 32, 32};
    mxc_onnx_export_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.opset = 12;
    CHECK_ERR(mxc_block_export_onnx(NULL, net, ndims, dims, 1, tmp_path("x.onnx"), &o),
              MXC_INVALID_ARGUMENT, "opset");
    o.opset = 18;
    CHECK_ERR(mxc_block_export_onnx(NULL, net, ndims, dims, 1, tmp_path("x.onnx"), &o),
              MXC_INVALID_ARGUMENT, "opset");
    CHECK_ERR(mxc_block_export_onnx(NULL, net, ndims, dims, 0, tmp_path("x.onnx"), NULL),
              MXC_INVALID_ARGUMENT, "num_inputs");
    CHECK_ERR(mxc_block_export_onnx(NULL, net, ndims, neg, 1, tmp_path("x.onnx"), NULL),
              MXC_INVALID_ARGUMENT, "dims");
    CHECK_ERR(mxc_block_export_onnx(NULL, net, NULL, dims, 1, tmp_path("x.onnx"), NULL),
              MXC_INVALID_ARGUMENT, "ndims");
    CHECK_ERR(mxc_block_export_onnx(NULL, NULL, ndims, dims, 1, tmp_path("x.onnx"), NULL),
              MXC_INVALID_ARGUMENT, "block");
    CHECK_ERR(mxc_block_export_onnx(NULL, net, ndims, dims, 1, NULL, NULL), MXC_INVALID_ARGUMENT,
              "path");
    CHECK(access(tmp_path("x.onnx"), F_OK) != 0); /* nothing written by a failed export */
  }
  mxc_block_free(net);
}

/* An operator without an ONNX mapping (Cholesky) is named in the error. */
static void test_unmapped_op(void) {
  mxc_symbol *data = NULL, *potrf = NULL;
  mxc_op* op = NULL;
  mxc_block* b = NULL;
  const char* in[1] = {"data"};
  size_t ndims[1] = {3};
  int64_t dims[3] = {1, 3, 3};
  CHECK_OK(mxc_symbol_variable("data", &data));
  CHECK_OK(mxc_op_find("_linalg_potrf", &op));
  CHECK_OK(mxc_symbol_create(op, &data, 1, NULL, NULL, 0, "chol", &potrf));
  CHECK_OK(mxc_symbol_block_create(potrf, in, 1, &b));
  CHECK_ERR(mxc_block_export_onnx(NULL, b, ndims, dims, 1, tmp_path("chol.onnx"), NULL),
            MXC_INVALID_ARGUMENT, "_linalg_potrf has no ONNX mapping");
  mxc_block_free(b);
  mxc_symbol_free(potrf);
  mxc_symbol_free(data);
}

static void test_bad_imports(void) {
  mxc_block* b = NULL;
  const char garbage[] = "this is not a protobuf \xff\xff\xff\xff\x01";
  CHECK_ERR(mxc_symbol_block_imports_onnx(tmp_path("missing.onnx"), cpu0(), &b), MXC_NOT_FOUND,
            "missing.onnx");
  CHECK_ERR(mxc_symbol_block_imports_onnx_bytes(garbage, sizeof garbage, cpu0(), &b),
            MXC_INVALID_ARGUMENT, "ONNX");
  CHECK_ERR(mxc_symbol_block_imports_onnx_bytes(NULL, 5, cpu0(), &b), MXC_INVALID_ARGUMENT, "data");
  CHECK_ERR(mxc_symbol_block_imports_onnx_bytes(garbage, sizeof garbage, cpu0(), NULL),
            MXC_INVALID_ARGUMENT, "out");
  CHECK_ERR(mxc_symbol_block_imports_onnx(NULL, cpu0(), &b), MXC_INVALID_ARGUMENT, "path");
  CHECK(b == NULL);
}

/* The real GluonCV export (MXNet-written files) through ONNX and back. */
static void test_real_export(void) {
  const char* shared = getenv("MXNET_SHARED_DIR");
  const char* data_name[1] = {"data"};
  char sym[4200], params[4200];
  mxc_block* b = NULL;
  if (!shared) {
    printf("MXNET_SHARED_DIR unset: skipping the real export\n");
    return;
  }
  snprintf(sym, sizeof sym, "%s/data/models/cifar_resnet20_v1-symbol.json", shared);
  snprintf(params, sizeof params, "%s/data/models/cifar_resnet20_v1-0000.params", shared);
  CHECK_OK(mxc_symbol_block_imports(sym, data_name, 1, params, cpu0(), &b));
  round_trip(b, "resnet20.onnx", 10);
  mxc_block_free(b);
}

int main(void) {
  test_opsets();
  test_model_zoo();
  test_unmapped_op();
  test_bad_imports();
  test_real_export();
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
