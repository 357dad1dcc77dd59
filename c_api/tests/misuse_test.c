/* The misuse matrix: NULL, foreign, wrong-type, freed and double-freed handles; bad UTF-8; unknown
 * operators; bad attributes; wrong shapes; truncated files; bad options; NULL out-parameters.
 * Every case must be an error status (out-parameters untouched), never a crash. Also runs every
 * registered operator on unsuitable inputs: a status either way, never a crash. */
#include "check.h"

static mxc_ndarray* sentinel_nd(void) { return (mxc_ndarray*)(void*)0x1234; }

static uint64_t bad_frees(void) {
  mxc_handle_stats st;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  CHECK_OK(mxc_handle_stats_get(&st));
  return st.bad_frees;
}

static void test_handles(void) {
  float v[2] = {1, 2};
  int64_t s[1] = {2};
  mxc_ndarray *a = make_f32(v, s, 1), *out = sentinel_nd(), *b;
  mxc_symbol* sym = NULL;
  mxc_ctx* ctx = NULL;
  size_t ndim = 99;
  int local = 0;
  uint64_t bf0 = bad_frees();

  /* NULL. */
  CHECK_ERR(mxc_ndarray_ndim(NULL, &ndim), MXC_INVALID_ARGUMENT, "argument 'array' is NULL");
  CHECK_ERR(mxc_symbol_to_json(NULL, NULL), MXC_INVALID_ARGUMENT, "");
  CHECK_ERR(mxc_ctx_seed(NULL, 1), MXC_INVALID_ARGUMENT, "argument 'ctx' is NULL");
  CHECK_ERR(mxc_op_get_info(NULL, NULL), MXC_INVALID_ARGUMENT, "argument 'op'");
  CHECK_ERR(mxc_infer_result_count(NULL, 0, &ndim), MXC_INVALID_ARGUMENT, "result");
  CHECK_ERR(mxc_ndarray_retain(NULL), MXC_INVALID_ARGUMENT, "NULL");
  CHECK(ndim == 99);
  /* A foreign pointer (never dereferenced). */
  CHECK_ERR(mxc_ndarray_ndim((mxc_ndarray*)(void*)&local, &ndim), MXC_INVALID_ARGUMENT,
            "is not an mxc handle");
  CHECK_ERR(mxc_ndarray_ndim(sentinel_nd(), &ndim), MXC_INVALID_ARGUMENT, "not an mxc handle");
  /* Wrong type: an ndarray passed as a symbol, a ctx, an op. */
  CHECK_ERR(mxc_symbol_to_json((mxc_symbol*)(void*)a, NULL), MXC_INVALID_ARGUMENT, "");
  {
    char* json = NULL;
    CHECK_ERR(mxc_symbol_to_json((mxc_symbol*)(void*)a, &json), MXC_INVALID_ARGUMENT,
              "is an mxc_ndarray handle, expected mxc_symbol");
    CHECK(json == NULL);
  }
  CHECK_ERR(mxc_ctx_seed((mxc_ctx*)(void*)a, 3), MXC_INVALID_ARGUMENT, "expected mxc_ctx");
  CHECK_ERR(mxc_op_get_info((mxc_op*)(void*)a, NULL), MXC_INVALID_ARGUMENT, "expected mxc_op");
  CHECK_OK(mxc_ctx_create(NULL, &ctx));
  CHECK_ERR(mxc_ndarray_ndim((mxc_ndarray*)(void*)ctx, &ndim), MXC_INVALID_ARGUMENT,
            "is an mxc_ctx handle, expected mxc_ndarray");
  mxc_symbol_free((mxc_symbol*)(void*)ctx); /* wrong type: ignored, counted, ctx still alive */
  CHECK(bad_frees() == bf0 + 1);
  CHECK_OK(mxc_ctx_seed(ctx, 5));
  mxc_ctx_free(ctx);

  /* Retain / free counting: two references, two frees. */
  CHECK_OK(mxc_ndarray_retain(a));
  mxc_ndarray_free(a);
  CHECK_OK(mxc_ndarray_ndim(a, &ndim));
  CHECK(ndim == 1);
  mxc_ndarray_free(a);
  /* Use after free, retain after free, double free. */
  CHECK_ERR(mxc_ndarray_ndim(a, &ndim), MXC_INVALID_ARGUMENT, "is a freed mxc_ndarray handle");
  CHECK_ERR(mxc_ndarray_retain(a), MXC_INVALID_ARGUMENT, "freed");
  CHECK_ERR(mxc_ndarray_copy_to_host(a, v, sizeof v), MXC_INVALID_ARGUMENT, "freed");
  CHECK_ERR(mxc_ndarray_reshape(NULL, a, s, 1, &out), MXC_INVALID_ARGUMENT, "freed");
  CHECK(out == sentinel_nd());
  mxc_ndarray_free(a);
  mxc_ndarray_free(a);
  CHECK(bad_frees() == bf0 + 3);
  mxc_ndarray_free(NULL); /* NULL: ignored, not counted */
  mxc_ctx_free(NULL);
  mxc_symbol_free(NULL);
  mxc_infer_result_free(NULL);
  mxc_status_free(NULL);
  mxc_ndarray_array_free(NULL, 3);
  mxc_string_array_free(NULL, 3);
  CHECK(bad_frees() == bf0 + 3);
  /* A new handle is not confused with the stale one, even if it reuses memory. */
  b = make_f32(v, s, 1);
  CHECK(b != a);
  CHECK_ERR(mxc_ndarray_ndim(a, &ndim), MXC_INVALID_ARGUMENT, "freed");
  mxc_ndarray_free(a);
  CHECK_OK(mxc_ndarray_ndim(b, &ndim));
  mxc_ndarray_free(b);
  /* Symbols: use after free. */
  CHECK_OK(mxc_symbol_variable("x", &sym));
  mxc_symbol_free(sym);
  {
    char* json = NULL;
    CHECK_ERR(mxc_symbol_to_json(sym, &json), MXC_INVALID_ARGUMENT, "freed mxc_symbol");
  }
  mxc_symbol_free(sym);
  /* An invoke input that was freed: named by position. */
  {
    mxc_op* relu;
    mxc_ndarray* o = NULL;
    size_t n = 0;
    CHECK_OK(mxc_op_find("relu", &relu));
    CHECK_ERR(mxc_invoke(NULL, relu, &b, 1, NULL, NULL, 0, &o, 1, &n), MXC_INVALID_ARGUMENT,
              "argument 'inputs[0]' is a freed mxc_ndarray handle");
    CHECK(o == NULL && n == 0);
  }
}

static void test_strings(void) {
  mxc_op* op = NULL;
  mxc_symbol* s = NULL;
  char** names;
  size_t count;
  mxc_ndarray** arrays;
  CHECK_ERR(mxc_op_find("rel\xff", &op), MXC_INVALID_ARGUMENT,
            "invalid UTF-8: byte 0xFF at offset 3");
  CHECK_ERR(mxc_op_find("\xc0\xaf", &op), MXC_INVALID_ARGUMENT, "overlong");
  CHECK_ERR(mxc_op_find("\xed\xa0\x80", &op), MXC_INVALID_ARGUMENT, "surrogate");
  CHECK_ERR(mxc_op_find("ab\xe2\x82", &op), MXC_INVALID_ARGUMENT, "truncated");
  CHECK_ERR(mxc_op_find(NULL, &op), MXC_INVALID_ARGUMENT, "argument 'name'");
  CHECK(op == NULL);
  CHECK_ERR(mxc_symbol_variable("\x80x", &s), MXC_INVALID_ARGUMENT, "argument 'name'");
  CHECK_ERR(mxc_symbol_from_json("\xfe", &s), MXC_INVALID_ARGUMENT, "argument 'json'");
  CHECK_ERR(mxc_ndarray_load("/tmp/\xff.params", NULL, &arrays, &names, &count),
            MXC_INVALID_ARGUMENT, "argument 'path'");
  CHECK(s == NULL);
  CHECK_OK(mxc_op_find("relu", &op)); /* valid multi-byte UTF-8 elsewhere is fine: */
  CHECK_ERR(mxc_op_find("r\xc3\xa9lu", &op), MXC_NOT_FOUND, "unknown operator 'r\xc3\xa9lu'");
}

static void test_ops(void) {
  float v[6] = {1, 2, 3, 4, 5, 6};
  int64_t s23[2] = {2, 3}, s32[2] = {3, 2};
  mxc_ndarray *a = make_f32(v, s23, 2), *b = make_f32(v, s32, 2), *in[2], *o = sentinel_nd();
  mxc_op *add, *dot, *conv, *sum;
  size_t n = 77;
  const char* k_bad[1] = {"axs"};
  const char* k_axis[1] = {"axis"};
  const char* v_bad[1] = {"seven"};
  const char* v_ok[1] = {"1"};
  const char* k_dup[2] = {"axis", "axis"};
  const char* v_dup[2] = {"1", "0"};
  const char* bad_key[1] = {"\xff"};
  in[0] = a;
  in[1] = b;
  CHECK_OK(mxc_op_find("elemwise_add", &add));
  CHECK_OK(mxc_op_find("dot", &dot));
  CHECK_OK(mxc_op_find("Convolution", &conv));
  CHECK_OK(mxc_op_find("sum", &sum));
  /* Wrong shapes. */
  CHECK_ERR(mxc_invoke(NULL, add, in, 2, NULL, NULL, 0, &o, 1, &n), MXC_INVALID_ARGUMENT,
            "elemwise_add");
  in[1] = a;
  CHECK_ERR(mxc_invoke(NULL, dot, in, 2, NULL, NULL, 0, &o, 1, &n), MXC_INVALID_ARGUMENT, "dot");
  CHECK_ERR(mxc_invoke(NULL, add, in, 1, NULL, NULL, 0, &o, 1, &n), MXC_INVALID_ARGUMENT,
            "expected 2 inputs");
  /* Bad attributes: unknown key (the valid ones listed), bad value, duplicate, missing required,
   * bad UTF-8, NULL arrays. */
  CHECK_ERR(mxc_invoke(NULL, sum, &a, 1, k_bad, v_ok, 1, &o, 1, &n), MXC_INVALID_ARGUMENT, "axs");
  CHECK_ERR(mxc_invoke(NULL, sum, &a, 1, k_axis, v_bad, 1, &o, 1, &n), MXC_INVALID_ARGUMENT,
            "seven");
  CHECK_ERR(mxc_invoke(NULL, sum, &a, 1, k_dup, v_dup, 2, &o, 1, &n), MXC_INVALID_ARGUMENT,
            "duplicate");
  CHECK_ERR(mxc_invoke(NULL, conv, in, 3, NULL, NULL, 0, &o, 1, &n), MXC_INVALID_ARGUMENT, "");
  CHECK_ERR(mxc_invoke(NULL, sum, &a, 1, bad_key, v_ok, 1, &o, 1, &n), MXC_INVALID_ARGUMENT,
            "keys[0]");
  CHECK_ERR(mxc_invoke(NULL, sum, &a, 1, NULL, NULL, 2, &o, 1, &n), MXC_INVALID_ARGUMENT, "keys");
  CHECK_ERR(mxc_invoke(NULL, sum, NULL, 1, NULL, NULL, 0, &o, 1, &n), MXC_INVALID_ARGUMENT,
            "inputs");
  CHECK_ERR(mxc_invoke(NULL, sum, &a, 1, NULL, NULL, 0, NULL, 1, &n), MXC_INVALID_ARGUMENT,
            "outputs");
  CHECK_ERR(mxc_invoke(NULL, sum, &a, 1, NULL, NULL, 0, &o, 1, NULL), MXC_INVALID_ARGUMENT,
            "num_outputs");
  CHECK(o == sentinel_nd() && n == 77);
  /* Array creation errors. */
  {
    int64_t neg[2] = {2, -3};
    mxc_device bad = {9, 0};
    CHECK_ERR(mxc_ndarray_create(neg, 2, MXC_FLOAT32, cpu0(), &o), MXC_INVALID_ARGUMENT, "dim 1");
    CHECK_ERR(mxc_ndarray_create(s23, 2, 42, cpu0(), &o), MXC_INVALID_ARGUMENT, "dtype 42");
    CHECK_ERR(mxc_ndarray_create(s23, 2, MXC_FLOAT32, bad, &o), MXC_INVALID_ARGUMENT,
              "device type 9");
    CHECK_ERR(mxc_ndarray_create(NULL, 2, MXC_FLOAT32, cpu0(), &o), MXC_INVALID_ARGUMENT,
              "argument 'shape'");
    CHECK_ERR(mxc_ndarray_create(s23, 2, MXC_FLOAT32, cpu0(), NULL), MXC_INVALID_ARGUMENT, "out");
  }
  CHECK(o == sentinel_nd());
  mxc_ndarray_free(a);
  mxc_ndarray_free(b);
}

/* Options structs: too small a struct_size, or a newer caller's larger struct with fields this
 * library does not know set. */
static void test_options(void) {
  struct {
    mxc_ctx_options known;
    uint64_t future;
  } big;
  mxc_ctx_options small;
  mxc_ctx* ctx = NULL;
  memset(&big, 0, sizeof big);
  big.known.struct_size = sizeof big;
  CHECK_OK(mxc_ctx_create(&big.known, &ctx)); /* unknown fields zero: fine */
  mxc_ctx_free(ctx);
  ctx = NULL;
  big.future = 1;
  CHECK_ERR(mxc_ctx_create(&big.known, &ctx), MXC_INVALID_ARGUMENT, "does not know");
  memset(&small, 0, sizeof small);
  small.struct_size = 3;
  CHECK_ERR(mxc_ctx_create(&small, &ctx), MXC_INVALID_ARGUMENT, "struct_size 3");
  CHECK(ctx == NULL);
  /* An older, smaller struct (no seed fields): defaults for the rest. */
  small.struct_size = offsetof(mxc_ctx_options, has_seed);
  small.has_seed = 1; /* beyond its struct_size: ignored */
  CHECK_OK(mxc_ctx_create(&small, &ctx));
  mxc_ctx_free(ctx);
  CHECK_ERR(mxc_abi_check(MXC_ABI_MAJOR + 1, 0), MXC_FAILED_PRECONDITION, "2.0");
  CHECK_ERR(mxc_abi_check(MXC_ABI_MAJOR, MXC_ABI_MINOR + 1), MXC_FAILED_PRECONDITION,
            "needs the mxc ABI 1.4 but libmxc provides 1.3");
  CHECK_OK(mxc_abi_check(MXC_ABI_MAJOR, MXC_ABI_MINOR));
  CHECK_OK(mxc_abi_check(MXC_ABI_MAJOR, 0)); /* a binding built against 1.0 loads 1.3 */
  CHECK(mxc_abi_version() == MXC_ABI_VERSION);
}

/* Every prefix of an MXNet-written file and of a symbol JSON: an error, never a crash. */
static void test_truncated_files(void) {
  char path[4200];
  FILE* f;
  long size, i;
  char* bytes;
  mxc_ndarray** arrays = NULL;
  char** names = NULL;
  size_t count = 0;
  int errors = 0;
  snprintf(path, sizeof path, "%sndarray/testdata/mx/dict_v2.nd", data_dir());
  f = fopen(path, "rb");
  CHECK(f != NULL);
  if (!f) return;
  fseek(f, 0, SEEK_END);
  size = ftell(f);
  fseek(f, 0, SEEK_SET);
  bytes = (char*)malloc((size_t)size);
  CHECK(fread(bytes, 1, (size_t)size, f) == (size_t)size);
  fclose(f);
  for (i = 0; i < size; ++i) {
    mxc_status* st = mxc_ndarray_load_from_buffer(bytes, (size_t)i, NULL, &arrays, &names, &count);
    if (st) {
      ++errors;
      if (mxc_status_code(st) != MXC_DATA_LOSS && mxc_status_code(st) != MXC_INVALID_ARGUMENT)
        CHECK(!"a truncated file gave an unexpected code");
      mxc_status_free(st);
    }
  }
  CHECK(errors == size); /* every proper prefix is an error */
  CHECK(arrays == NULL);
  /* The same for a symbol's JSON. */
  {
    mxc_symbol* s = NULL;
    char* json = NULL;
    size_t len, j;
    int ok = 0;
    CHECK_OK(mxc_symbol_variable("data", &s));
    CHECK_OK(mxc_symbol_to_json(s, &json));
    mxc_symbol_free(s);
    len = strlen(json);
    for (j = 0; j + 1 < len; ++j) {
      char c = json[j];
      mxc_status* st;
      mxc_symbol* t = NULL;
      json[j] = '\0';
      st = mxc_symbol_from_json(json, &t);
      json[j] = c;
      if (!st) ++ok, mxc_symbol_free(t);
      mxc_status_free(st);
    }
    CHECK(ok == 0);
    mxc_string_free(json);
  }
  free(bytes);
}

/* Every registered operator with no inputs / a float32 (2, 3) input / two, and no attributes:
 * success or an error status, never a crash. */
static void test_every_op(void) {
  float v[6] = {0.5f, -1, 2, 3, 0, 1};
  int64_t s[2] = {2, 3};
  mxc_ndarray *in[2], *outs[16];
  size_t n = 0, i, j, k, n_out, ran = 0, failed = 0;
  mxc_ctx* ctx;
  in[0] = make_f32(v, s, 2);
  in[1] = make_f32(v, s, 2);
  CHECK_OK(mxc_ctx_create(NULL, &ctx));
  CHECK_OK(mxc_op_count(&n));
  for (i = 0; i < n; ++i) {
    mxc_op* op;
    mxc_op_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK_OK(mxc_op_at(i, &op));
    CHECK_OK(mxc_op_get_info(op, &info));
    for (k = 0; k <= 2; ++k) {
      mxc_status* st = mxc_invoke(ctx, op, in, k, NULL, NULL, 0, outs, 16, &n_out);
      if (st) {
        ++failed;
        if (mxc_status_message(st)[0] == '\0') CHECK(!"an error without a message");
        mxc_status_free(st);
      } else {
        ++ran;
        for (j = 0; j < n_out; ++j) mxc_ndarray_free(outs[j]);
      }
    }
  }
  printf("every op x {0, 1, 2} inputs: %lu ran, %lu errors\n", (unsigned long)ran,
         (unsigned long)failed);
  CHECK(ran > 100 && failed > 100);
  mxc_ctx_free(ctx);
  mxc_ndarray_free(in[0]);
  mxc_ndarray_free(in[1]);
}

int main(void) {
  uint64_t live0 = live_handles();
  test_handles();
  test_strings();
  test_ops();
  test_options();
  test_truncated_files();
  test_every_op();
  CHECK(live_handles() == live0);
  return check_summary();
}
