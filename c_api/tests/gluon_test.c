/* mxc/gluon.h: a model-zoo net (build, initialize, call, hybridize: same outputs), parameters
 * (collect_params with RE2, accessors, set_data), save/load_parameters and export + SymbolBlock
 * imports round trips (same outputs), the real GluonCV export from ../shared, and one hybridized
 * block called from 8 threads at once. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "check.h"

static int ends_with(const char* s, const char* suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static const char* tmp_path(const char* name) {
  static char buf[4][512];
  static int next = 0;
  char* b = buf[next++ % 4];
  snprintf(b, 512, "%s/%s", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", name);
  return b;
}

/* x: (2, 3, 32, 32) with a fixed pattern. */
static mxc_ndarray* input(void) {
  static float v[2 * 3 * 32 * 32];
  int64_t s[4] = {2, 3, 32, 32};
  int i;
  for (i = 0; i < 2 * 3 * 32 * 32; ++i) v[i] = (float)((i * 7919) % 255) / 255.0f - 0.5f;
  return make_f32(v, s, 4);
}

static mxc_ndarray* call1(mxc_ctx* ctx, mxc_block* b, mxc_ndarray* x) {
  mxc_ndarray* y = NULL;
  size_t n = 0;
  CHECK_OK(mxc_block_call(ctx, b, &x, 1, &y, 1, &n));
  CHECK(n == 1);
  return y;
}

static float max_abs_diff(mxc_ndarray* a, mxc_ndarray* b, size_t n) {
  float *x = (float*)malloc(n * sizeof(float)), *y = (float*)malloc(n * sizeof(float)), m = 0;
  size_t i;
  read_f32(a, x, n);
  read_f32(b, y, n);
  for (i = 0; i < n; ++i) m = fabsf(x[i] - y[i]) > m ? fabsf(x[i] - y[i]) : m;
  free(x);
  free(y);
  return m;
}

static mxc_block* g_net;
static mxc_ndarray *g_x, *g_ref;
static int g_thread_bad[8];

static void* worker(void* arg) {
  int id = (int)(size_t)arg, i;
  mxc_ctx* ctx = NULL;
  mxc_status* st = mxc_ctx_create(NULL, &ctx);
  if (st) {
    g_thread_bad[id]++;
    mxc_status_free(st);
    return NULL;
  }
  for (i = 0; i < 200; ++i) {
    mxc_ndarray* y = NULL;
    size_t n = 0;
    float a[20], b[20];
    st = mxc_block_call(ctx, g_net, &g_x, 1, &y, 1, &n);
    if (!st) st = mxc_ndarray_copy_to_host(y, a, sizeof a);
    if (!st) st = mxc_ndarray_copy_to_host(g_ref, b, sizeof b);
    if (st) {
      g_thread_bad[id]++;
      mxc_status_free(st);
    } else if (memcmp(a, b, sizeof a) != 0) {
      g_thread_bad[id]++;
    }
    mxc_ndarray_free(y);
  }
  mxc_ctx_free(ctx);
  return NULL;
}

static void test_model_zoo(void) {
  char** names = NULL;
  size_t count = 0, i, n_all = 0, n_sel = 0, n_bn = 0;
  int found = 0;
  mxc_model_options mo;
  mxc_block *net = NULL, *loaded = NULL, *imported = NULL;
  mxc_ctx* ctx = NULL;
  mxc_ctx_options co;
  mxc_ndarray *x = input(), *y0, *y1, *y2, *y3;
  mxc_parameter **all = NULL, **sel = NULL;
  mxc_hybridize_options ho;
  int64_t dims[4];
  size_t ndim;
  const char* data_name[1] = {"data"};

  CHECK_OK(mxc_model_zoo_list(&names, &count));
  CHECK(count == 34);
  for (i = 0; i < count; ++i) found |= strcmp(names[i], "resnet18_v1") == 0;
  CHECK(found);
  mxc_string_array_free(names, count);
  CHECK_ERR(mxc_model_zoo_get("resnet19", NULL, &net), MXC_INVALID_ARGUMENT, "resnet18_v1");

  memset(&mo, 0, sizeof mo);
  mo.struct_size = sizeof mo;
  mo.classes = 10;
  CHECK_OK(mxc_model_zoo_get("resnet18_v1", &mo, &net));
  memset(&co, 0, sizeof co);
  co.struct_size = sizeof co;
  co.has_seed = 1;
  co.seed = 3;
  CHECK_OK(mxc_ctx_create(&co, &ctx));
  CHECK_OK(mxc_block_initialize(ctx, net, "xavier", cpu0(), 0));
  y0 = call1(ctx, net, x);
  CHECK_OK(mxc_ndarray_shape(y0, dims, 4, &ndim));
  CHECK(ndim == 2 && dims[0] == 2 && dims[1] == 10);

  /* Hybridized: the same outputs. */
  memset(&ho, 0, sizeof ho);
  ho.struct_size = sizeof ho;
  ho.static_alloc = 1;
  CHECK_OK(mxc_block_hybridize(net, &ho));
  y1 = call1(ctx, net, x);
  CHECK(max_abs_diff(y0, y1, 20) < 1e-4f);

  /* collect_params: ".*weight|.*bias" selects exactly the weights and biases. */
  CHECK_OK(mxc_block_collect_params(net, NULL, &all, &n_all));
  CHECK_OK(mxc_block_collect_params(net, ".*weight|.*bias", &sel, &n_sel));
  for (i = 0; i < n_all; ++i) {
    char* nm = NULL;
    CHECK_OK(mxc_parameter_name(all[i], &nm));
    if (ends_with(nm, "gamma") || ends_with(nm, "beta") || ends_with(nm, "running_mean") ||
        ends_with(nm, "running_var"))
      ++n_bn;
    mxc_string_free(nm);
  }
  CHECK(n_all > 0 && n_sel + n_bn == n_all && n_sel > 0);
  for (i = 0; i < n_sel; ++i) {
    char* nm = NULL;
    CHECK_OK(mxc_parameter_name(sel[i], &nm));
    if (!ends_with(nm, "weight") && !ends_with(nm, "bias")) CHECK(!"selected a non-weight");
    mxc_string_free(nm);
  }
  {
    /* A bad regular expression: the status names it, and nothing is written to stderr (RE2's
     * own error log is off). */
    mxc_status* st;
    FILE* f;
    long size = -1;
    int saved, fd;
    fflush(stderr);
    saved = dup(2);
    fd = open(tmp_path("stderr.txt"), O_CREAT | O_TRUNC | O_WRONLY, 0600);
    CHECK(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    st = mxc_block_collect_params(net, "(", &sel, &n_sel);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK_ERR(st, MXC_INVALID_ARGUMENT, "invalid regular expression '('");
    f = fopen(tmp_path("stderr.txt"), "rb");
    CHECK(f != NULL);
    if (f) {
      fseek(f, 0, SEEK_END);
      size = ftell(f);
      fclose(f);
    }
    CHECK(size == 0);
  }
  /* Accessors on the first parameter (features.0.weight: (64, 3, 7, 7)). */
  {
    char* nm = NULL;
    int32_t nd = 0, req = -1, dt = -1;
    double lr = 0;
    int64_t pd[4];
    mxc_ndarray *w = NULL, *g = NULL, *w2 = NULL;
    size_t nw = 64 * 3 * 7 * 7, k;
    float* vals = (float*)malloc(nw * sizeof(float));
    CHECK_OK(mxc_parameter_name(sel[0], &nm));
    CHECK(strcmp(nm, "features.0.weight") == 0);
    mxc_string_free(nm);
    CHECK_OK(mxc_parameter_shape(sel[0], pd, 4, &nd));
    CHECK(nd == 4 && pd[0] == 64 && pd[1] == 3 && pd[2] == 7 && pd[3] == 7);
    CHECK_OK(mxc_parameter_dtype(sel[0], &dt));
    CHECK(dt == MXC_FLOAT32);
    CHECK_OK(mxc_parameter_set_lr_mult(sel[0], 0.5));
    CHECK_OK(mxc_parameter_lr_mult(sel[0], &lr));
    CHECK(lr == 0.5);
    CHECK_OK(mxc_parameter_grad_req(sel[0], &req));
    CHECK(req == MXC_GRAD_WRITE);
    CHECK_OK(mxc_parameter_grad(sel[0], cpu0(), &g));
    CHECK_OK(mxc_parameter_set_grad_req(sel[0], MXC_GRAD_NULL));
    CHECK_OK(mxc_parameter_grad_req(sel[0], &req));
    CHECK(req == MXC_GRAD_NULL);
    CHECK_ERR(mxc_parameter_set_grad_req(sel[0], 7), MXC_INVALID_ARGUMENT, "grad_req");
    CHECK_OK(mxc_parameter_set_grad_req(sel[0], MXC_GRAD_WRITE));
    /* set_data: the block sees the new value (the data handle is the parameter's own array). */
    CHECK_OK(mxc_parameter_data(sel[0], cpu0(), &w));
    for (k = 0; k < nw; ++k) vals[k] = 0.001f * (float)(k % 17);
    {
      int64_t ws[4] = {64, 3, 7, 7};
      mxc_ndarray* nv = make_f32(vals, ws, 4);
      CHECK_OK(mxc_parameter_set_data(sel[0], nv));
      mxc_ndarray_free(nv);
    }
    CHECK_OK(mxc_parameter_data(sel[0], cpu0(), &w2));
    read_f32(w2, vals, nw);
    CHECK(vals[16] == 0.016f && vals[17] == 0.0f);
    mxc_ndarray_free(w);
    mxc_ndarray_free(w2);
    mxc_ndarray_free(g);
    free(vals);
  }
  y2 = call1(ctx, net, x); /* with the new conv weight */
  CHECK(max_abs_diff(y1, y2, 20) > 1e-6f);

  /* save_parameters -> a fresh net -> load_parameters: the same outputs. */
  CHECK_OK(mxc_block_save_parameters(net, tmp_path("r18.params")));
  CHECK_OK(mxc_model_zoo_get("resnet18_v1", &mo, &loaded));
  CHECK_OK(mxc_block_load_parameters(loaded, tmp_path("r18.params"), NULL));
  y3 = call1(ctx, loaded, x);
  CHECK(max_abs_diff(y2, y3, 20) < 1e-4f);
  mxc_ndarray_free(y3);
  CHECK_ERR(mxc_block_load_parameters(loaded, tmp_path("missing.params"), NULL), MXC_NOT_FOUND,
            "missing.params");

  /* export -> SymbolBlock imports: the same outputs. */
  CHECK_OK(mxc_block_export(net, tmp_path("r18"), 3));
  CHECK_OK(mxc_symbol_block_imports(tmp_path("r18-symbol.json"), data_name, 1,
                                    tmp_path("r18-0003.params"), cpu0(), &imported));
  y3 = call1(ctx, imported, x);
  CHECK(max_abs_diff(y2, y3, 20) < 1e-4f);
  mxc_ndarray_free(y3);

  /* One hybridized block, 8 threads x 200 calls, each its own ctx: identical outputs. */
  {
    pthread_t th[8];
    size_t t;
    g_net = net;
    g_x = x;
    g_ref = y2;
    for (t = 0; t < 8; ++t) CHECK(pthread_create(&th[t], NULL, worker, (void*)t) == 0);
    for (t = 0; t < 8; ++t) {
      CHECK(pthread_join(th[t], NULL) == 0);
      CHECK(g_thread_bad[t] == 0);
    }
  }

  mxc_parameter_array_free(all, n_all);
  mxc_parameter_array_free(sel, n_sel);
  mxc_ndarray_free(y0);
  mxc_ndarray_free(y1);
  mxc_ndarray_free(y2);
  mxc_ndarray_free(x);
  mxc_block_free(imported);
  mxc_block_free(loaded);
  mxc_block_free(net);
  mxc_ctx_free(ctx);
}

/* The GluonCV CIFAR ResNet-20 export from ../shared: imports, one parameter per file entry,
 * softmax outputs summing to 1. */
static void test_real_export(void) {
  const char* shared = getenv("MXNET_SHARED_DIR");
  char sym[4200], params[4200];
  mxc_block* b = NULL;
  mxc_parameter** ps = NULL;
  mxc_ndarray** arrays = NULL;
  char** names = NULL;
  size_t n_params = 0, n_file = 0;
  const char* data_name[1] = {"data"};
  if (!shared) {
    printf("MXNET_SHARED_DIR unset: skipping the real export\n");
    return;
  }
  snprintf(sym, sizeof sym, "%s/data/models/cifar_resnet20_v1-symbol.json", shared);
  snprintf(params, sizeof params, "%s/data/models/cifar_resnet20_v1-0000.params", shared);
  CHECK_OK(mxc_symbol_block_imports(sym, data_name, 1, params, cpu0(), &b));
  CHECK_OK(mxc_block_collect_params(b, NULL, &ps, &n_params));
  CHECK_OK(mxc_ndarray_load(params, NULL, &arrays, &names, &n_file));
  CHECK(n_params == n_file && n_file > 60);
  mxc_parameter_array_free(ps, n_params);
  mxc_ndarray_array_free(arrays, n_file);
  mxc_string_array_free(names, n_file);
  {
    float v[3 * 32 * 32], logits[10], e[10], sum = 0, mx = -1e30f;
    int64_t s[4] = {1, 3, 32, 32};
    int i;
    mxc_ndarray *x, *y;
    for (i = 0; i < 3 * 32 * 32; ++i) v[i] = (float)(i % 64) / 64.0f - 0.5f;
    x = make_f32(v, s, 4);
    y = call1(NULL, b, x);
    read_f32(y, logits, 10);
    for (i = 0; i < 10; ++i) mx = logits[i] > mx ? logits[i] : mx;
    for (i = 0; i < 10; ++i) sum += e[i] = expf(logits[i] - mx);
    CHECK(sum >= 1 && sum <= 10 && logits[0] == logits[0]); /* finite */
    mxc_ndarray_free(x);
    mxc_ndarray_free(y);
  }
  mxc_block_free(b);
}

static void set_param(mxc_block* b, const char* name, const float* v, const int64_t* s, size_t nd) {
  mxc_parameter** ps = NULL;
  size_t n = 0;
  mxc_ndarray* a = make_f32(v, s, nd);
  CHECK_OK(mxc_block_collect_params(b, name, &ps, &n));
  CHECK(n == 1);
  if (n == 1) CHECK_OK(mxc_parameter_set_data(ps[0], a));
  mxc_parameter_array_free(ps, n);
  mxc_ndarray_free(a);
}

/* A SymbolBlock made from a symbol graph (make_mlp: 2 -> 4 -> relu -> 3): parameters named after
 * the variables, deferred shapes, then y = W2 relu(W1 x + b1) + b2 checked by hand with weights
 * set through set_data. Misuse of blocks and parameters: NULL, wrong-type and freed handles. */
static void test_symbol_block_create(void) {
  mxc_block* b = make_mlp("4", "3");
  float x[2 * 2] = {1, -2, 0.5f, 3};
  float w1[4 * 2] = {1, 0, 0, 1, 1, 1, -1, 1}, b1[4] = {0, 0, 0, -1};
  float w2[3 * 4] = {1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1}, b2[3] = {0.5f, 0, 0};
  int64_t sx[2] = {2, 2}, sw1[2] = {4, 2}, sb1[1] = {4}, sw2[2] = {3, 4}, sb2[1] = {3};
  float got[6], want[6];
  mxc_ndarray *in = make_f32(x, sx, 2), *y;
  mxc_parameter** ps = NULL;
  size_t n = 0, i, j, k;
  const char* names[4] = {"fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"};
  const char* bad_input[1] = {"nope"};
  mxc_block* bad = NULL;
  mxc_symbol* v = NULL;

  CHECK_OK(mxc_block_collect_params(b, NULL, &ps, &n));
  CHECK(n == 4);
  for (i = 0; i < n && i < 4; ++i) {
    char* nm = NULL;
    int32_t nd = 0;
    int64_t d[2];
    CHECK_OK(mxc_parameter_name(ps[i], &nm));
    CHECK(strcmp(nm, names[i]) == 0);
    mxc_string_free(nm);
    CHECK_OK(mxc_parameter_shape(ps[i], d, 2, &nd)); /* unknown until the first call */
    CHECK(nd == -1 || d[nd - 1] <= 0 || d[0] <= 0);
  }
  {
    mxc_ndarray* d = NULL;
    CHECK_ERR(mxc_parameter_data(ps[0], cpu0(), &d), MXC_FAILED_PRECONDITION, "fc1_weight");
    CHECK(d == NULL);
  }
  mxc_parameter_array_free(ps, n);
  CHECK_OK(mxc_block_initialize(NULL, b, NULL, cpu0(), 0));
  y = call1(NULL, b, in); /* deferred initialization completes here */
  mxc_ndarray_free(y);
  set_param(b, "fc1_weight", w1, sw1, 2);
  set_param(b, "fc1_bias", b1, sb1, 1);
  set_param(b, "fc2_weight", w2, sw2, 2);
  set_param(b, "fc2_bias", b2, sb2, 1);
  y = call1(NULL, b, in);
  read_f32(y, got, 6);
  for (i = 0; i < 2; ++i) {
    float hid[4];
    for (j = 0; j < 4; ++j) {
      hid[j] = b1[j] + w1[j * 2] * x[i * 2] + w1[j * 2 + 1] * x[i * 2 + 1];
      hid[j] = hid[j] > 0 ? hid[j] : 0;
    }
    for (k = 0; k < 3; ++k) {
      want[i * 3 + k] = b2[k];
      for (j = 0; j < 4; ++j) want[i * 3 + k] += w2[k * 4 + j] * hid[j];
    }
  }
  for (i = 0; i < 6; ++i) CHECK_NEAR(got[i], want[i], 1e-5);
  mxc_ndarray_free(y);

  /* Misuse: an input that is no variable, NULL strings, NULL/wrong-type/freed handles. */
  CHECK_OK(mxc_symbol_variable("data", &v));
  CHECK_ERR(mxc_symbol_block_create(v, bad_input, 1, &bad), MXC_INVALID_ARGUMENT, "nope");
  CHECK_ERR(mxc_symbol_block_create(v, NULL, 1, &bad), MXC_INVALID_ARGUMENT, "input_names");
  bad_input[0] = NULL;
  CHECK_ERR(mxc_symbol_block_create(v, bad_input, 1, &bad), MXC_INVALID_ARGUMENT, "input_names[0]");
  CHECK_ERR(mxc_symbol_block_create((mxc_symbol*)(void*)in, bad_input, 0, &bad),
            MXC_INVALID_ARGUMENT, "expected mxc_symbol");
  CHECK(bad == NULL);
  mxc_symbol_free(v);
  {
    mxc_ndarray* out = NULL;
    size_t nout = 0;
    mxc_parameter* p = NULL;
    char* text = NULL;
    CHECK_ERR(mxc_block_call(NULL, NULL, &in, 1, &out, 1, &nout), MXC_INVALID_ARGUMENT,
              "argument 'block' is NULL");
    CHECK_ERR(mxc_block_call(NULL, (mxc_block*)(void*)in, &in, 1, &out, 1, &nout),
              MXC_INVALID_ARGUMENT, "is an mxc_ndarray handle, expected mxc_block");
    CHECK_ERR(mxc_block_call(NULL, b, &in, 1, &out, 0, &nout), MXC_OUT_OF_RANGE, "holds 0");
    CHECK_ERR(mxc_block_call(NULL, b, NULL, 1, &out, 1, &nout), MXC_INVALID_ARGUMENT, "inputs");
    CHECK(out == NULL && nout == 0);
    CHECK_ERR(mxc_block_hybridize((mxc_block*)(void*)in, NULL), MXC_INVALID_ARGUMENT,
              "expected mxc_block");
    CHECK_ERR(mxc_block_export(b, "x", -1), MXC_INVALID_ARGUMENT, "");
    CHECK_ERR(mxc_block_to_string(b, NULL), MXC_INVALID_ARGUMENT, "text");
    CHECK_ERR(mxc_parameter_name((mxc_parameter*)(void*)b, &text), MXC_INVALID_ARGUMENT,
              "is an mxc_block handle, expected mxc_parameter");
    CHECK_OK(mxc_block_collect_params(b, "fc1_weight", &ps, &n));
    p = ps[0];
    CHECK_OK(mxc_parameter_retain(p));
    mxc_parameter_array_free(ps, n);
    mxc_block_free(b); /* the parameter handle keeps the parameter alive */
    CHECK_OK(mxc_parameter_lr_mult(p, (double*)(void*)got));
    CHECK_ERR(mxc_block_call(NULL, b, &in, 1, &out, 1, &nout), MXC_INVALID_ARGUMENT,
              "is a freed mxc_block handle");
    mxc_parameter_free(p);
    CHECK_ERR(mxc_parameter_name(p, &text), MXC_INVALID_ARGUMENT,
              "is a freed mxc_parameter handle");
    CHECK_ERR(mxc_parameter_set_data(p, in), MXC_INVALID_ARGUMENT, "freed");
    CHECK(text == NULL);
    mxc_parameter_free(p); /* double free: ignored */
    mxc_block_free(b);
  }
  mxc_ndarray_free(in);
}

int main(void) {
  uint64_t live0 = live_handles();
  test_model_zoo();
  test_symbol_block_create();
  test_real_export();
  CHECK(live_handles() == live0);
  return check_summary();
}
