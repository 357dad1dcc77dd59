/* mxc/autograd.h: y = sum(x * x + 3 * x) gives dy/dx = 2x + 3; grad with create_graph gives the
 * second derivative 2; head gradients, retain_graph, mark_variables, flags. */
#include "check.h"

static mxc_ndarray* scalar_op(mxc_ctx* ctx, const char* op, mxc_ndarray* x, const char* scalar) {
  const char* k[1] = {"scalar"};
  const char* v[1] = {scalar};
  return run1(ctx, op, &x, 1, k, v, 1);
}

static mxc_ndarray* binary(mxc_ctx* ctx, const char* op, mxc_ndarray* a, mxc_ndarray* b) {
  mxc_ndarray* in[2];
  in[0] = a;
  in[1] = b;
  return run1(ctx, op, in, 2, NULL, NULL, 0);
}

/* y = sum(x * x + 3 * x), recorded under ctx. */
static mxc_ndarray* forward(mxc_ctx* ctx, mxc_ndarray* x) {
  mxc_ndarray *xx = binary(ctx, "elemwise_mul", x, x), *x3 = scalar_op(ctx, "_mul_scalar", x, "3");
  mxc_ndarray* s = binary(ctx, "elemwise_add", xx, x3);
  mxc_ndarray* y = run1(ctx, "sum", &s, 1, NULL, NULL, 0);
  mxc_ndarray_free(xx);
  mxc_ndarray_free(x3);
  mxc_ndarray_free(s);
  return y;
}

static void test_backward(void) {
  float xv[4] = {-2, 0, 0.5f, 3}, g[4], y;
  int64_t s[1] = {4};
  mxc_ndarray *x = make_f32(xv, s, 1), *out, *grad = NULL;
  mxc_ctx* ctx;
  int32_t prev = -1, flag = -1;
  int i;
  CHECK_OK(mxc_ctx_create(NULL, &ctx));
  CHECK_OK(mxc_ndarray_attach_grad(x, MXC_GRAD_WRITE));
  CHECK_OK(mxc_autograd_set_recording(ctx, 1, &prev));
  CHECK(prev == 0);
  CHECK_OK(mxc_autograd_is_recording(ctx, &flag));
  CHECK(flag == 1);
  out = forward(ctx, x);
  CHECK_OK(mxc_autograd_set_recording(ctx, 0, &prev));
  CHECK(prev == 1);
  read_f32(out, &y, 1);
  CHECK_NEAR(y, (4 - 6) + 0 + (0.25 + 1.5) + (9 + 9), 1e-5);
  CHECK_OK(mxc_autograd_backward(ctx, &out, 1, NULL, 0, 1));
  CHECK_OK(mxc_ndarray_grad(x, &grad));
  read_f32(grad, g, 4);
  for (i = 0; i < 4; ++i) CHECK_NEAR(g[i], 2 * xv[i] + 3, 1e-6);
  /* The graph was freed by that backward: a second one is an error. */
  CHECK_ERR(mxc_autograd_backward(ctx, &out, 1, NULL, 0, 1), MXC_FAILED_PRECONDITION, "");
  mxc_ndarray_free(out);
  mxc_ndarray_free(grad);

  /* Head gradient 0.5 and retain_graph: two backwards, grad_req add accumulates. */
  CHECK_OK(mxc_ndarray_attach_grad(x, MXC_GRAD_ADD));
  CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
  out = forward(ctx, x);
  CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
  {
    float half = 0.5f;
    int64_t one[1] = {1}; /* sum's output has shape (1,), as in MXNet 1.x */
    mxc_ndarray* hg = NULL;
    CHECK_OK(mxc_ndarray_from_host(&half, sizeof half, one, 1, MXC_FLOAT32, cpu0(), &hg));
    CHECK_OK(mxc_autograd_backward(ctx, &out, 1, &hg, 1, 1));
    CHECK_OK(mxc_autograd_backward(ctx, &out, 1, &hg, 0, 1));
    mxc_ndarray_free(hg);
  }
  CHECK_OK(mxc_ndarray_grad(x, &grad));
  read_f32(grad, g, 4);
  for (i = 0; i < 4; ++i) CHECK_NEAR(g[i], 2 * 0.5 * (2 * xv[i] + 3), 1e-6);
  mxc_ndarray_free(grad);
  mxc_ndarray_free(out);

  /* Not recorded: backward names the head. */
  out = forward(ctx, x);
  CHECK_ERR(mxc_autograd_backward(ctx, &out, 1, NULL, 0, 1), MXC_FAILED_PRECONDITION,
            "head 0 was not recorded");
  mxc_ndarray_free(out);
  mxc_ndarray_free(x);
  mxc_ctx_free(ctx);
}

/* d/dx of (x^3) is 3x^2; with create_graph its derivative 6x comes from a second grad call. */
static void test_higher_order(void) {
  float xv[3] = {-1, 0.5f, 2}, g1[3], g2[3];
  int64_t s[1] = {3};
  mxc_ndarray *x = make_f32(xv, s, 1), *x2, *x3, *y, *d1 = NULL, *d2 = NULL, *sd1;
  mxc_ctx* ctx;
  int i;
  CHECK_OK(mxc_ctx_create(NULL, &ctx));
  CHECK_OK(mxc_ndarray_attach_grad(x, MXC_GRAD_WRITE));
  CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
  x2 = binary(ctx, "elemwise_mul", x, x);
  x3 = binary(ctx, "elemwise_mul", x2, x);
  y = run1(ctx, "sum", &x3, 1, NULL, NULL, 0);
  CHECK_OK(mxc_autograd_grad(ctx, &y, 1, NULL, &x, 1, 1, 1, 1, &d1));
  sd1 = run1(ctx, "sum", &d1, 1, NULL, NULL, 0);
  CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
  read_f32(d1, g1, 3);
  for (i = 0; i < 3; ++i) CHECK_NEAR(g1[i], 3 * xv[i] * xv[i], 1e-5);
  CHECK_OK(mxc_autograd_grad(ctx, &sd1, 1, NULL, &x, 1, 0, 0, 1, &d2));
  read_f32(d2, g2, 3);
  for (i = 0; i < 3; ++i) CHECK_NEAR(g2[i], 6 * xv[i], 1e-5);
  mxc_ndarray_free(x2);
  mxc_ndarray_free(x3);
  mxc_ndarray_free(y);
  mxc_ndarray_free(d1);
  mxc_ndarray_free(d2);
  mxc_ndarray_free(sd1);
  mxc_ndarray_free(x);
  mxc_ctx_free(ctx);
}

/* mark_variables with caller-made gradient buffers; views recorded under a recording ctx. */
static void test_mark_variables_and_views(void) {
  float xv[4] = {1, 2, 3, 4}, zero[4] = {0, 0, 0, 0}, g[4];
  int64_t s[1] = {4}, s22[2] = {2, 2};
  mxc_ndarray *x = make_f32(xv, s, 1), *gx = make_f32(zero, s, 1), *r = NULL, *y, *sq;
  int32_t req = MXC_GRAD_WRITE, bad_req = 9;
  mxc_ctx* ctx;
  int i;
  CHECK_OK(mxc_ctx_create(NULL, &ctx));
  CHECK_ERR(mxc_autograd_mark_variables(&x, &gx, &bad_req, 1), MXC_INVALID_ARGUMENT,
            "grad_reqs[0]");
  CHECK_OK(mxc_autograd_mark_variables(&x, &gx, &req, 1));
  CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
  CHECK_OK(mxc_ndarray_reshape(ctx, x, s22, 2, &r)); /* recorded as Reshape */
  sq = binary(ctx, "elemwise_mul", r, r);
  y = run1(ctx, "sum", &sq, 1, NULL, NULL, 0);
  CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
  CHECK_OK(mxc_autograd_backward(ctx, &y, 1, NULL, 0, 1));
  read_f32(gx, g, 4); /* the caller's buffer received d/dx sum(x^2) = 2x */
  for (i = 0; i < 4; ++i) CHECK_NEAR(g[i], 2 * xv[i], 1e-6);
  mxc_ndarray_free(r);
  mxc_ndarray_free(sq);
  mxc_ndarray_free(y);
  mxc_ndarray_free(gx);
  mxc_ndarray_free(x);
  mxc_ctx_free(ctx);
}

int main(void) {
  uint64_t live0 = live_handles();
  test_backward();
  test_higher_order();
  test_mark_variables_and_views();
  CHECK(live_handles() == live0);
  return check_summary();
}
