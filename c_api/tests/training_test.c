/* mxc/training.h: losses by name (closed forms, keyword arguments), the Trainer (one SGD step
 * against the hand formula w - lr * grad / batch_size, learning rate, states round trip) and an
 * end-to-end run: a small MLP built from symbols learns a 3-class problem with SGD+momentum and
 * with Adam through the C API alone, its loss falling. Misuse: unknown names, bad keyword
 * arguments, wrong handle types. */
#include "check.h"

static const char* tmp_path(const char* name) {
  static char buf[512];
  snprintf(buf, sizeof buf, "%s/%s", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", name);
  return buf;
}

static mxc_ndarray* call(mxc_ctx* ctx, mxc_block* b, mxc_ndarray* x, mxc_ndarray* y) {
  mxc_ndarray *in[2], *out = NULL;
  size_t n = 0;
  in[0] = x;
  in[1] = y;
  CHECK_OK(mxc_block_call(ctx, b, in, y ? 2 : 1, &out, 1, &n));
  CHECK(n == 1);
  return out;
}

static float mean_of(mxc_ndarray* a, size_t n) {
  float v[64], s = 0;
  size_t i;
  read_f32(a, v, n);
  for (i = 0; i < n; ++i) s += v[i];
  return s / (float)n;
}

static void test_losses(void) {
  char** names = NULL;
  size_t count = 0, i;
  int found = 0;
  mxc_block *l2 = NULL, *ce = NULL, *bad = NULL;
  float p[2] = {1, 2}, z[2] = {0, 0}, logits[6] = {0, 0, 0, 1, 2, 3}, lab[2] = {1, 2}, got[2];
  int64_t s21[2] = {2, 1}, s23[2] = {2, 3}, s2[1] = {2};
  mxc_ndarray *pred = make_f32(p, s21, 2), *zero = make_f32(z, s21, 2);
  mxc_ndarray *lg = make_f32(logits, s23, 2), *label = make_f32(lab, s2, 1), *out;
  const char* k_w[1] = {"weight"};
  const char* v_w[1] = {"4"};
  const char* k_bad[1] = {"sparse_lable"};
  const char* v_bad[1] = {"True"};
  const char* v_notnum[1] = {"heavy"};

  CHECK_OK(mxc_loss_list(&names, &count));
  for (i = 0; i < count; ++i) found += strcmp(names[i], "SoftmaxCrossEntropyLoss") == 0;
  CHECK(found == 1 && count >= 14);
  mxc_string_array_free(names, count);

  /* L2Loss with weight 4: 0.5 * 4 * (pred - label)^2 = {2, 8}. */
  CHECK_OK(mxc_loss_create("L2Loss", k_w, v_w, 1, &l2));
  out = call(NULL, l2, pred, zero);
  read_f32(out, got, 2);
  CHECK_NEAR(got[0], 2.0, 1e-6);
  CHECK_NEAR(got[1], 8.0, 1e-6);
  mxc_ndarray_free(out);
  /* SoftmaxCrossEntropyLoss: -log softmax(row)[label]: log 3 and log(e^1+e^2+e^3) - 3. */
  CHECK_OK(mxc_loss_create("SoftmaxCELoss", NULL, NULL, 0, &ce));
  out = call(NULL, ce, lg, label);
  read_f32(out, got, 2);
  CHECK_NEAR(got[0], log(3.0), 1e-5);
  CHECK_NEAR(got[1], log(exp(1.0) + exp(2.0) + exp(3.0)) - 3.0, 1e-5);
  mxc_ndarray_free(out);

  /* Misuse. */
  CHECK_ERR(mxc_loss_create("L3Loss", NULL, NULL, 0, &bad), MXC_INVALID_ARGUMENT, "L2Loss");
  CHECK_ERR(mxc_loss_create("SoftmaxCrossEntropyLoss", k_bad, v_bad, 1, &bad), MXC_INVALID_ARGUMENT,
            "sparse_lable");
  CHECK_ERR(mxc_loss_create("L2Loss", k_w, v_notnum, 1, &bad), MXC_INVALID_ARGUMENT, "heavy");
  CHECK_ERR(mxc_loss_create("L2Loss", k_w, NULL, 1, &bad), MXC_INVALID_ARGUMENT, "values");
  CHECK_ERR(mxc_loss_create(NULL, NULL, NULL, 0, &bad), MXC_INVALID_ARGUMENT, "name");
  CHECK_ERR(mxc_loss_create("L2Loss", NULL, NULL, 0, NULL), MXC_INVALID_ARGUMENT, "out");
  CHECK(bad == NULL);
  {
    mxc_ndarray* in3[3];
    size_t n = 0;
    in3[0] = pred;
    in3[1] = zero;
    in3[2] = zero;
    in3[2] = pred;
    CHECK_ERR(mxc_block_call(NULL, l2, in3, 1, &out, 1, &n), MXC_INVALID_ARGUMENT, "L2Loss");
  }
  mxc_block_free(l2);
  mxc_block_free(ce);
  mxc_ndarray_free(pred);
  mxc_ndarray_free(zero);
  mxc_ndarray_free(lg);
  mxc_ndarray_free(label);
}

/* 48 points in 3 clusters (class = cluster), deterministic. */
static void make_data(float* x, float* y, size_t n) {
  static const float cx[3] = {2, -2, 0}, cy[3] = {0, 0, 2.5f};
  size_t i;
  for (i = 0; i < n; ++i) {
    int c = (int)(i % 3);
    float jx = (float)((i * 37) % 11) / 11.0f - 0.5f, jy = (float)((i * 53) % 13) / 13.0f - 0.5f;
    x[2 * i] = cx[c] + jx;
    x[2 * i + 1] = cy[c] + jy;
    y[i] = (float)c;
  }
}

/* Trains make_mlp("16", "3") for `steps` full-batch steps; returns the first and last mean losses.
 */
static void train(const char* optimizer, const char* const* keys, const char* const* values,
                  size_t nkw, int steps, float* first, float* last) {
  enum { N = 48 };
  float xv[N * 2], yv[N];
  int64_t sx[2] = {N, 2}, sy[1] = {N};
  mxc_ndarray *x, *y;
  mxc_block *net = make_mlp("16", "3"), *ce = NULL;
  mxc_parameter** ps = NULL;
  size_t np = 0;
  mxc_trainer* tr = NULL;
  mxc_ctx* ctx = NULL;
  mxc_ctx_options co;
  int s;
  make_data(xv, yv, N);
  x = make_f32(xv, sx, 2);
  y = make_f32(yv, sy, 1);
  memset(&co, 0, sizeof co);
  co.struct_size = sizeof co;
  co.has_seed = 1;
  co.seed = 11;
  CHECK_OK(mxc_ctx_create(&co, &ctx));
  CHECK_OK(mxc_block_initialize(ctx, net, "xavier", cpu0(), 0));
  CHECK_OK(mxc_loss_create("SoftmaxCrossEntropyLoss", NULL, NULL, 0, &ce));
  CHECK_OK(mxc_block_collect_params(net, NULL, &ps, &np));
  CHECK(np == 4);
  CHECK_OK(mxc_trainer_create(ps, np, optimizer, keys, values, nkw, &tr));
  for (s = 0; s < steps; ++s) {
    mxc_ndarray *pred, *l;
    float m;
    CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
    CHECK_OK(mxc_autograd_set_training(ctx, 1, NULL));
    pred = call(ctx, net, x, NULL);
    l = call(ctx, ce, pred, y);
    CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
    CHECK_OK(mxc_autograd_backward(ctx, &l, 1, NULL, 0, 1));
    CHECK_OK(mxc_trainer_step(ctx, tr, N, 0));
    m = mean_of(l, N);
    if (s == 0) *first = m;
    *last = m;
    mxc_ndarray_free(pred);
    mxc_ndarray_free(l);
  }
  printf("%s: loss %.4f -> %.4f in %d steps\n", optimizer, *first, *last, steps);
  /* States round trip into a second trainer of the same optimizer. */
  {
    mxc_trainer* t2 = NULL;
    CHECK_OK(mxc_trainer_save_states(tr, tmp_path("states.params")));
    CHECK_OK(mxc_trainer_create(ps, np, optimizer, keys, values, nkw, &t2));
    CHECK_OK(mxc_trainer_load_states(t2, tmp_path("states.params")));
    mxc_trainer_free(t2);
  }
  mxc_trainer_free(tr);
  mxc_parameter_array_free(ps, np);
  mxc_block_free(net);
  mxc_block_free(ce);
  mxc_ndarray_free(x);
  mxc_ndarray_free(y);
  mxc_ctx_free(ctx);
}

static void test_end_to_end(void) {
  const char* sgd_k[2] = {"learning_rate", "momentum"};
  const char* sgd_v[2] = {"0.2", "0.9"};
  const char* adam_k[1] = {"learning_rate"};
  const char* adam_v[1] = {"0.05"};
  float first = 0, last = 0;
  train("sgd", sgd_k, sgd_v, 2, 30, &first, &last);
  CHECK(first > 0.5f && last < 0.25f * first);
  train("adam", adam_k, adam_v, 1, 30, &first, &last);
  CHECK(first > 0.5f && last < 0.25f * first);
}

/* One plain SGD step on one parameter: w' = w - lr * (grad / batch_size + wd * w). */
static void test_sgd_step(void) {
  float wv[3] = {1, -2, 0.5f}, xv[3] = {3, 1, -1}, before[3], after[3], g[3];
  int64_t s[1] = {3};
  mxc_block* net = NULL;
  mxc_symbol *w = NULL, *x = NULL, *prod = NULL;
  mxc_op* mul;
  mxc_ndarray *xa = make_f32(xv, s, 1), *wa = make_f32(wv, s, 1), *out, *gr = NULL;
  mxc_parameter** ps = NULL;
  size_t np = 0, i;
  mxc_trainer* tr = NULL;
  mxc_ctx* ctx = NULL;
  const char* data_name[1] = {"x"};
  const char* k[2] = {"learning_rate", "wd"};
  const char* v[2] = {"0.1", "0.01"};
  const char* k_bad[1] = {"momentum"};
  const char* v_bad[1] = {"fast"};
  double lr = 0;
  mxc_trainer* bad = NULL;
  CHECK_OK(mxc_op_find("elemwise_mul", &mul));
  CHECK_OK(mxc_symbol_variable("x", &x));
  CHECK_OK(mxc_symbol_variable("w", &w));
  {
    mxc_symbol* in[2];
    in[0] = x;
    in[1] = w;
    CHECK_OK(mxc_symbol_create(mul, in, 2, NULL, NULL, 0, "mul", &prod));
  }
  CHECK_OK(mxc_symbol_block_create(prod, data_name, 1, &net));
  CHECK_OK(mxc_block_collect_params(net, NULL, &ps, &np));
  CHECK(np == 1);
  CHECK_OK(mxc_parameter_set_data(ps[0], wa));
  CHECK_OK(mxc_trainer_create(ps, np, "sgd", k, v, 2, &tr));
  CHECK_OK(mxc_trainer_learning_rate(tr, &lr));
  CHECK(lr == 0.1);
  CHECK_OK(mxc_ctx_create(NULL, &ctx));
  CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
  out = call(ctx, net, xa, NULL);
  CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
  CHECK_OK(mxc_autograd_backward(ctx, &out, 1, NULL, 0, 1)); /* d(sum x*w)/dw = x */
  CHECK_OK(mxc_parameter_grad(ps[0], cpu0(), &gr));
  read_f32(gr, g, 3);
  for (i = 0; i < 3; ++i) CHECK_NEAR(g[i], xv[i], 1e-6);
  memcpy(before, wv, sizeof before);
  CHECK_OK(mxc_trainer_step(ctx, tr, 2, 0));
  {
    mxc_ndarray* d = NULL;
    CHECK_OK(mxc_parameter_data(ps[0], cpu0(), &d));
    read_f32(d, after, 3);
    mxc_ndarray_free(d);
  }
  for (i = 0; i < 3; ++i)
    CHECK_NEAR(after[i], before[i] - 0.1 * (g[i] / 2 + 0.01 * before[i]), 1e-6);
  /* A second step without backward: the gradient is stale. */
  CHECK_ERR(mxc_trainer_step(ctx, tr, 2, 0), MXC_FAILED_PRECONDITION, "w");
  CHECK_OK(mxc_trainer_step(ctx, tr, 2, 1)); /* ignored: nothing updated */
  CHECK_OK(mxc_trainer_set_learning_rate(tr, 0.5));
  CHECK_OK(mxc_trainer_learning_rate(tr, &lr));
  CHECK(lr == 0.5);

  /* Misuse. */
  CHECK_ERR(mxc_trainer_step(ctx, tr, 0, 0), MXC_INVALID_ARGUMENT, "batch_size");
  CHECK_ERR(mxc_trainer_create(ps, np, "sdg", NULL, NULL, 0, &bad), MXC_NOT_FOUND, "sgd");
  CHECK_ERR(mxc_trainer_create(ps, np, "sgd", k_bad, v_bad, 1, &bad), MXC_INVALID_ARGUMENT,
            "momentum");
  CHECK_ERR(mxc_trainer_create(NULL, 1, "sgd", NULL, NULL, 0, &bad), MXC_INVALID_ARGUMENT,
            "params");
  CHECK_ERR(mxc_trainer_create((mxc_parameter* const*)(void*)&xa, 1, "sgd", NULL, NULL, 0, &bad),
            MXC_INVALID_ARGUMENT, "argument 'params[0]' is an mxc_ndarray handle");
  CHECK_ERR(mxc_trainer_step(ctx, (mxc_trainer*)(void*)net, 1, 0), MXC_INVALID_ARGUMENT,
            "expected mxc_trainer");
  CHECK_ERR(mxc_trainer_load_states(tr, tmp_path("no-such-states")), MXC_NOT_FOUND,
            "no-such-states");
  CHECK(bad == NULL);
  mxc_trainer_free(tr);
  CHECK_ERR(mxc_trainer_step(ctx, tr, 1, 0), MXC_INVALID_ARGUMENT, "freed mxc_trainer");
  mxc_trainer_free(tr); /* double free: ignored */

  mxc_ndarray_free(out);
  mxc_ndarray_free(gr);
  mxc_ndarray_free(xa);
  mxc_ndarray_free(wa);
  mxc_parameter_array_free(ps, np);
  mxc_symbol_free(x);
  mxc_symbol_free(w);
  mxc_symbol_free(prod);
  mxc_block_free(net);
  mxc_ctx_free(ctx);
}

int main(void) {
  uint64_t live0 = live_handles();
  test_losses();
  test_sgd_step();
  test_end_to_end();
  CHECK(live_handles() == live0);
  return check_summary();
}
