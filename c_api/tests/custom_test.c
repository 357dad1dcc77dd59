/* mxc/custom.h: custom operators written in C. Values against hand-computed references,
 * gradients against the closed form and central finite differences, the ops inside symbol graphs
 * and a hybridized block, aux states and is_train, callback errors propagating as statuses naming
 * the op and callback, registration errors, and user_data freed exactly once (after
 * unregistering and releasing every use). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>

#include "check.h"

/* ---- Callback helpers. ---- */

typedef struct {
  int id;
  int calls; /* forward calls */
} UserData;

static int g_freed[8];
static pthread_t g_main;
static int g_off_thread; /* callbacks that ran on another thread than the caller's */

static void free_user(void* p) {
  UserData* u = (UserData*)p;
  g_freed[u->id]++;
  free(u);
}

static UserData* new_user(int id) {
  UserData* u = (UserData*)calloc(1, sizeof(UserData));
  u->id = id;
  return u;
}

static const char* attr(const char* const* keys, const char* const* values, size_t n,
                        const char* key, const char* dflt) {
  size_t i;
  for (i = 0; i < n; ++i)
    if (strcmp(keys[i], key) == 0) return values[i];
  return dflt;
}

/* Element count of a float32 array, or -1 (with *st set) on error. */
static int64_t numel(mxc_ndarray* a, mxc_status** st) {
  int64_t n = -1;
  int32_t dt = -1;
  *st = mxc_ndarray_dtype(a, &dt);
  if (!*st && dt != MXC_FLOAT32) *st = mxc_status_create(MXC_INVALID_ARGUMENT, "float32 only");
  if (!*st) *st = mxc_ndarray_size(a, &n);
  return n;
}

static float* data_of(mxc_ndarray* a) {
  void* p = NULL;
  mxc_status* st = mxc_ndarray_data(a, &p);
  if (st) {
    mxc_status_free(st);
    return NULL;
  }
  return (float*)p;
}

static void note_thread(void) {
  if (!pthread_equal(pthread_self(), g_main)) g_off_thread++;
}

/* c_square: y = scale * x^2 (attribute scale, default 1); dx = 2 * scale * x * dy.
 * fail=1 fails forward, fail=2 fails backward. */
static mxc_status* square_forward(void* ud, const char* const* keys, const char* const* values,
                                  size_t num_attrs, int32_t is_train, mxc_ndarray* const* in,
                                  size_t num_in, mxc_ndarray* const* out, size_t num_out,
                                  mxc_ndarray* const* aux, size_t num_aux) {
  double scale = atof(attr(keys, values, num_attrs, "scale", "1"));
  mxc_status* st = NULL;
  int64_t n = numel(in[0], &st), i;
  float *x, *y;
  (void)is_train, (void)aux;
  note_thread();
  ((UserData*)ud)->calls++;
  if (st) return st;
  if (num_in != 1 || num_out != 1 || num_aux != 0)
    return mxc_status_create(MXC_INTERNAL, "c_square: wrong counts");
  if (strcmp(attr(keys, values, num_attrs, "fail", "0"), "1") == 0)
    return mxc_status_create(MXC_FAILED_PRECONDITION, "asked to fail in forward");
  x = data_of(in[0]);
  y = data_of(out[0]);
  for (i = 0; i < n; ++i) y[i] = (float)(scale * x[i] * x[i]);
  return NULL;
}

static mxc_status* square_backward(void* ud, const char* const* keys, const char* const* values,
                                   size_t num_attrs, mxc_ndarray* const* out_grad,
                                   mxc_ndarray* const* out_data, size_t num_out,
                                   mxc_ndarray* const* in_data, mxc_ndarray* const* in_grad,
                                   size_t num_in, mxc_ndarray* const* aux, size_t num_aux) {
  double scale = atof(attr(keys, values, num_attrs, "scale", "1"));
  mxc_status* st = NULL;
  int64_t n = numel(in_data[0], &st), i;
  float *x, *dy, *dx;
  (void)ud, (void)out_data, (void)aux;
  note_thread();
  if (st) return st;
  if (num_in != 1 || num_out != 1 || num_aux != 0)
    return mxc_status_create(MXC_INTERNAL, "c_square: wrong counts");
  if (strcmp(attr(keys, values, num_attrs, "fail", "0"), "2") == 0)
    return mxc_status_create(MXC_DATA_LOSS, "asked to fail in backward");
  x = data_of(in_data[0]);
  dy = data_of(out_grad[0]);
  dx = data_of(in_grad[0]);
  for (i = 0; i < n; ++i) dx[i] = (float)(2 * scale * x[i] * dy[i]);
  return NULL;
}

/* c_outer: a (m,), b (n,) -> out (m, n) = a[i] * b[j]; da = dy b, db = dy^T a. */
static mxc_status* outer_shape(void* ud, const char* const* keys, const char* const* values,
                               size_t num_attrs, const int64_t* in_dims, const size_t* in_ndims,
                               size_t num_in, int64_t* out_dims, size_t* out_ndims, size_t num_out,
                               int64_t* aux_dims, size_t* aux_ndims, size_t num_aux) {
  (void)ud, (void)keys, (void)values, (void)num_attrs, (void)aux_dims, (void)aux_ndims;
  if (num_in != 2 || num_out != 1 || num_aux != 0)
    return mxc_status_create(MXC_INTERNAL, "c_outer: wrong counts");
  if (in_ndims[0] != 1 || in_ndims[1] != 1)
    return mxc_status_create(MXC_INVALID_ARGUMENT, "a and b must be vectors");
  out_ndims[0] = 2;
  out_dims[0] = in_dims[0];
  out_dims[1] = in_dims[MXC_MAX_NDIM];
  return NULL;
}

static mxc_status* outer_forward(void* ud, const char* const* keys, const char* const* values,
                                 size_t num_attrs, int32_t is_train, mxc_ndarray* const* in,
                                 size_t num_in, mxc_ndarray* const* out, size_t num_out,
                                 mxc_ndarray* const* aux, size_t num_aux) {
  mxc_status* st = NULL;
  int64_t m = numel(in[0], &st), n, i, j;
  float *a, *b, *y;
  (void)ud, (void)keys, (void)values, (void)num_attrs, (void)is_train, (void)aux;
  (void)num_in, (void)num_out, (void)num_aux;
  if (st) return st;
  n = numel(in[1], &st);
  if (st) return st;
  a = data_of(in[0]), b = data_of(in[1]), y = data_of(out[0]);
  for (i = 0; i < m; ++i)
    for (j = 0; j < n; ++j) y[i * n + j] = a[i] * b[j];
  return NULL;
}

static mxc_status* outer_backward(void* ud, const char* const* keys, const char* const* values,
                                  size_t num_attrs, mxc_ndarray* const* out_grad,
                                  mxc_ndarray* const* out_data, size_t num_out,
                                  mxc_ndarray* const* in_data, mxc_ndarray* const* in_grad,
                                  size_t num_in, mxc_ndarray* const* aux, size_t num_aux) {
  mxc_status* st = NULL;
  int64_t m = numel(in_data[0], &st), n, i, j;
  float *a, *b, *dy, *da, *db;
  (void)ud, (void)keys, (void)values, (void)num_attrs, (void)out_data, (void)aux;
  (void)num_in, (void)num_out, (void)num_aux;
  if (st) return st;
  n = numel(in_data[1], &st);
  if (st) return st;
  a = data_of(in_data[0]), b = data_of(in_data[1]), dy = data_of(out_grad[0]);
  da = data_of(in_grad[0]), db = data_of(in_grad[1]);
  for (i = 0; i < m; ++i) {
    double s = 0;
    for (j = 0; j < n; ++j) s += dy[i * n + j] * b[j];
    da[i] = (float)s;
  }
  for (j = 0; j < n; ++j) {
    double s = 0;
    for (i = 0; i < m; ++i) s += dy[i * n + j] * a[i];
    db[j] = (float)s;
  }
  return NULL;
}

/* c_count: out = data (as float64: infer_type), aux counter (1,) += 1 when is_train. */
static mxc_status* count_shape(void* ud, const char* const* keys, const char* const* values,
                               size_t num_attrs, const int64_t* in_dims, const size_t* in_ndims,
                               size_t num_in, int64_t* out_dims, size_t* out_ndims, size_t num_out,
                               int64_t* aux_dims, size_t* aux_ndims, size_t num_aux) {
  (void)ud, (void)keys, (void)values, (void)num_attrs, (void)in_dims, (void)in_ndims;
  (void)out_dims, (void)out_ndims;
  if (num_in != 1 || num_out != 1 || num_aux != 1)
    return mxc_status_create(MXC_INTERNAL, "c_count: wrong counts");
  aux_ndims[0] = 1;
  aux_dims[0] = 1;
  return NULL;
}

static mxc_status* count_type(void* ud, const char* const* keys, const char* const* values,
                              size_t num_attrs, const int32_t* in_types, size_t num_in,
                              int32_t* out_types, size_t num_out, int32_t* aux_types,
                              size_t num_aux) {
  (void)ud, (void)keys, (void)values, (void)num_attrs, (void)num_in, (void)num_out;
  (void)num_aux;
  if (in_types[0] != MXC_FLOAT32 || out_types[0] != MXC_FLOAT32 || aux_types[0] != MXC_FLOAT32)
    return mxc_status_create(MXC_INTERNAL, "c_count: prefilled types are not float32");
  out_types[0] = MXC_FLOAT64;
  return NULL;
}

static mxc_status* count_forward(void* ud, const char* const* keys, const char* const* values,
                                 size_t num_attrs, int32_t is_train, mxc_ndarray* const* in,
                                 size_t num_in, mxc_ndarray* const* out, size_t num_out,
                                 mxc_ndarray* const* aux, size_t num_aux) {
  mxc_status* st = NULL;
  int64_t n = numel(in[0], &st), i;
  int32_t dt = -1;
  float* x;
  double* y;
  (void)ud, (void)keys, (void)values, (void)num_attrs, (void)num_in, (void)num_out;
  (void)num_aux;
  if (st) return st;
  st = mxc_ndarray_dtype(out[0], &dt);
  if (st) return st;
  if (dt != MXC_FLOAT64) return mxc_status_create(MXC_INTERNAL, "output is not float64");
  x = data_of(in[0]);
  y = (double*)(void*)data_of(out[0]);
  for (i = 0; i < n; ++i) y[i] = x[i];
  if (is_train) data_of(aux[0])[0] += 1;
  return NULL;
}

/* ---- Tests. ---- */

static mxc_ndarray* invoke_custom(mxc_ctx* ctx, const char* op_type, mxc_ndarray* const* in,
                                  size_t n, const char* k2, const char* v2, mxc_status** st) {
  const char* keys[2] = {"op_type", k2};
  const char* values[2] = {op_type, v2};
  mxc_op* op = NULL;
  mxc_ndarray* out = NULL;
  size_t n_out = 0;
  CHECK_OK(mxc_op_find("Custom", &op));
  *st = mxc_invoke(ctx, op, in, n, keys, values, k2 ? 2 : 1, &out, 1, &n_out);
  return out;
}

static double outer_loss(mxc_ndarray* a, mxc_ndarray* b, const float* w) {
  mxc_ndarray* in[2];
  mxc_status* st = NULL;
  mxc_ndarray* y;
  float v[12];
  double s = 0;
  int i;
  in[0] = a, in[1] = b;
  y = invoke_custom(NULL, "c_outer", in, 2, NULL, NULL, &st);
  CHECK_OK(st);
  read_f32(y, v, 12);
  mxc_ndarray_free(y);
  for (i = 0; i < 12; ++i) s += (double)w[i] * v[i];
  return s;
}

int main(void) {
  mxc_custom_op_def def;
  UserData *u_square = new_user(0), *u_outer = new_user(1), *u_count = new_user(2);
  UserData* u_dup = new_user(3);
  mxc_ctx* ctx = NULL;
  uint64_t live0 = live_handles();
  float xs[6] = {-1.5f, 0.5f, 2, -3, 0.25f, 1};
  int64_t s23[2] = {2, 3};
  int i, j;
  g_main = pthread_self();
  CHECK_OK(mxc_ctx_create(NULL, &ctx));

  /* Registration. */
  memset(&def, 0, sizeof def);
  def.struct_size = sizeof def;
  def.forward = square_forward;
  def.backward = square_backward;
  CHECK_OK(mxc_custom_op_register("c_square", &def, u_square, free_user));
  CHECK_ERR(mxc_custom_op_register("c_square", &def, u_dup, free_user), MXC_ALREADY_EXISTS,
            "c_square");
  {
    mxc_custom_op_def bad = def;
    bad.forward = NULL;
    CHECK_ERR(mxc_custom_op_register("c_bad", &bad, u_dup, free_user), MXC_INVALID_ARGUMENT,
              "def.forward");
    CHECK_ERR(mxc_custom_op_register("c_bad", NULL, u_dup, free_user), MXC_INVALID_ARGUMENT, "def");
    CHECK_ERR(mxc_custom_op_register("", &def, u_dup, free_user), MXC_INVALID_ARGUMENT, "op_type");
    CHECK_ERR(mxc_custom_op_register("c_bad\xff", &def, u_dup, free_user), MXC_INVALID_ARGUMENT,
              "UTF-8");
  }
  {
    const char* aux[1] = {"state"};
    mxc_custom_op_def bad = def;
    bad.aux_states = aux;
    bad.num_aux_states = 1;
    CHECK_ERR(mxc_custom_op_register("c_bad", &bad, u_dup, free_user), MXC_INVALID_ARGUMENT,
              "infer_shape");
  }
  {
    const char* names[2] = {"x", "x"};
    mxc_custom_op_def bad = def;
    bad.arguments = names;
    bad.num_arguments = 2;
    CHECK_ERR(mxc_custom_op_register("c_bad", &bad, u_dup, free_user), MXC_INVALID_ARGUMENT,
              "twice");
  }
  CHECK(g_freed[3] == 0); /* failed registrations never free user_data */
  free_user(u_dup);
  CHECK(g_freed[3] == 1);
  CHECK_ERR(mxc_custom_op_unregister("c_never"), MXC_NOT_FOUND, "c_never");
  {
    const char* args[2] = {"a", "b"};
    memset(&def, 0, sizeof def);
    def.struct_size = sizeof def;
    def.arguments = args;
    def.num_arguments = 2;
    def.forward = outer_forward;
    def.backward = outer_backward;
    def.infer_shape = outer_shape;
    CHECK_OK(mxc_custom_op_register("c_outer", &def, u_outer, free_user));
  }
  {
    const char* aux[1] = {"counter"};
    memset(&def, 0, sizeof def);
    def.struct_size = sizeof def;
    def.aux_states = aux;
    def.num_aux_states = 1;
    def.forward = count_forward; /* no backward */
    def.infer_shape = count_shape;
    def.infer_type = count_type;
    CHECK_OK(mxc_custom_op_register("c_count", &def, u_count, free_user));
  }

  /* c_square forward: values by hand, attribute passed through. */
  {
    mxc_ndarray* x = make_f32(xs, s23, 2);
    mxc_status* st = NULL;
    mxc_ndarray* y = invoke_custom(ctx, "c_square", &x, 1, "scale", "0.5", &st);
    float got[6];
    int64_t dims[4];
    size_t nd = 0;
    CHECK_OK(st);
    CHECK_OK(mxc_ndarray_shape(y, dims, 4, &nd));
    CHECK(nd == 2 && dims[0] == 2 && dims[1] == 3);
    read_f32(y, got, 6);
    for (i = 0; i < 6; ++i) CHECK_NEAR(got[i], 0.5 * xs[i] * xs[i], 1e-6);
    CHECK(u_square->calls == 1);
    mxc_ndarray_free(y);

    /* A failing forward: the status names the op, the callback and keeps its code. */
    y = invoke_custom(ctx, "c_square", &x, 1, "fail", "1", &st);
    CHECK(y == NULL);
    CHECK_ERR(st, MXC_FAILED_PRECONDITION, "c_square.forward");
    y = invoke_custom(ctx, "c_square", &x, 1, "fail", "1", &st);
    CHECK_ERR(st, MXC_FAILED_PRECONDITION, "asked to fail in forward");

    /* Autograd: d/dx sum(w * 3 x^2) = 6 x w (closed form). */
    {
      float w[6] = {1, -2, 0.5f, 3, -1, 0.25f}, g[6];
      mxc_ndarray *wa = make_f32(w, s23, 2), *grad = NULL;
      CHECK_OK(mxc_ndarray_attach_grad(x, MXC_GRAD_WRITE));
      CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
      y = invoke_custom(ctx, "c_square", &x, 1, "scale", "3", &st);
      CHECK_OK(st);
      CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
      CHECK_OK(mxc_autograd_backward(ctx, &y, 1, &wa, 0, 0));
      CHECK_OK(mxc_ndarray_grad(x, &grad));
      read_f32(grad, g, 6);
      for (i = 0; i < 6; ++i) CHECK_NEAR(g[i], 6.0 * xs[i] * w[i], 1e-5);
      mxc_ndarray_free(grad);
      mxc_ndarray_free(y);

      /* A failing backward: the error comes out of mxc_autograd_backward naming the op. */
      CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
      y = invoke_custom(ctx, "c_square", &x, 1, "fail", "2", &st);
      CHECK_OK(st);
      CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
      CHECK_ERR(mxc_autograd_backward(ctx, &y, 1, NULL, 0, 0), MXC_DATA_LOSS, "c_square.backward");
      mxc_ndarray_free(y);
      mxc_ndarray_free(wa);
    }
    mxc_ndarray_free(x);
  }

  /* c_outer: shape inference by callback, gradients vs finite differences. */
  {
    float av[3] = {0.5f, -1, 2}, bv[4] = {1, 2, -0.5f, 3}, w[12], ga[3], gb[4], got[12];
    int64_t s3[1] = {3}, s4[1] = {4}, s34[2] = {3, 4};
    mxc_ndarray *a = make_f32(av, s3, 1), *b = make_f32(bv, s4, 1), *in[2], *y, *wa;
    mxc_ndarray *grad_a = NULL, *grad_b = NULL;
    mxc_status* st = NULL;
    for (i = 0; i < 12; ++i) w[i] = (float)((i * 7) % 5) - 2;
    wa = make_f32(w, s34, 2);
    in[0] = a, in[1] = b;
    y = invoke_custom(ctx, "c_outer", in, 2, NULL, NULL, &st);
    CHECK_OK(st);
    read_f32(y, got, 12);
    for (i = 0; i < 3; ++i)
      for (j = 0; j < 4; ++j) CHECK_NEAR(got[i * 4 + j], av[i] * bv[j], 1e-6);
    mxc_ndarray_free(y);
    CHECK_OK(mxc_ndarray_attach_grad(a, MXC_GRAD_WRITE));
    CHECK_OK(mxc_ndarray_attach_grad(b, MXC_GRAD_WRITE));
    CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
    y = invoke_custom(ctx, "c_outer", in, 2, NULL, NULL, &st);
    CHECK_OK(st);
    CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
    CHECK_OK(mxc_autograd_backward(ctx, &y, 1, &wa, 0, 0));
    CHECK_OK(mxc_ndarray_grad(a, &grad_a));
    CHECK_OK(mxc_ndarray_grad(b, &grad_b));
    read_f32(grad_a, ga, 3);
    read_f32(grad_b, gb, 4);
    mxc_ndarray_free(y);
    /* Central differences of L(a, b) = sum(w * outer(a, b)) (bilinear: exact up to rounding). */
    for (i = 0; i < 3; ++i) {
      float p[3], m[3];
      mxc_ndarray *ap, *am;
      memcpy(p, av, sizeof p), memcpy(m, av, sizeof m);
      p[i] += 0.01f, m[i] -= 0.01f;
      ap = make_f32(p, s3, 1), am = make_f32(m, s3, 1);
      CHECK_NEAR(ga[i], (outer_loss(ap, b, w) - outer_loss(am, b, w)) / 0.02, 2e-3);
      mxc_ndarray_free(ap), mxc_ndarray_free(am);
    }
    for (j = 0; j < 4; ++j) {
      float p[4], m[4];
      mxc_ndarray *bp, *bm;
      memcpy(p, bv, sizeof p), memcpy(m, bv, sizeof m);
      p[j] += 0.01f, m[j] -= 0.01f;
      bp = make_f32(p, s4, 1), bm = make_f32(m, s4, 1);
      CHECK_NEAR(gb[j], (outer_loss(a, bp, w) - outer_loss(a, bm, w)) / 0.02, 2e-3);
      mxc_ndarray_free(bp), mxc_ndarray_free(bm);
    }
    /* An infer_shape error names the op and the callback. */
    {
      mxc_ndarray* bad = make_f32(xs, s23, 2);
      in[1] = bad;
      y = invoke_custom(ctx, "c_outer", in, 2, NULL, NULL, &st);
      CHECK(y == NULL);
      CHECK_ERR(st, MXC_INVALID_ARGUMENT, "c_outer.infer_shape");
      mxc_ndarray_free(bad);
      in[1] = b;
    }

    /* In a symbol graph: shape inference, then a SymbolBlock, hybridized, with autograd. */
    {
      mxc_op* custom = NULL;
      mxc_symbol *sa = NULL, *sb = NULL, *so = NULL, *sin[2];
      const char* keys[1] = {"op_type"};
      const char* values[1] = {"c_outer"};
      const char* names[2] = {"a", "b"};
      size_t ndims[2] = {1, 1};
      int64_t dims[2] = {3, 4};
      mxc_infer_result* r = NULL;
      mxc_block* blk = NULL;
      mxc_hybridize_options ho;
      mxc_ndarray* outs[1];
      size_t n = 0, nd = 0;
      int32_t ndim = 0;
      const int64_t* od = NULL;
      int round;
      CHECK_OK(mxc_op_find("Custom", &custom));
      CHECK_OK(mxc_symbol_variable("a", &sa));
      CHECK_OK(mxc_symbol_variable("b", &sb));
      sin[0] = sa, sin[1] = sb;
      CHECK_OK(mxc_symbol_create(custom, sin, 2, keys, values, 1, "outer", &so));
      CHECK_OK(mxc_symbol_infer_shape(so, names, ndims, dims, 2, 0, &r));
      CHECK_OK(mxc_infer_result_shape(r, MXC_INFER_OUTPUTS, 0, &od, &ndim));
      CHECK(ndim == 2 && od[0] == 3 && od[1] == 4);
      mxc_infer_result_free(r);
      CHECK_OK(mxc_symbol_block_create(so, names, 2, &blk));
      memset(&ho, 0, sizeof ho);
      ho.struct_size = sizeof ho;
      ho.static_alloc = 1;
      CHECK_OK(mxc_block_hybridize(blk, &ho));
      for (round = 0; round < 2; ++round) { /* trace + graph run, then the cached graph */
        CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
        CHECK_OK(mxc_block_call(ctx, blk, in, 2, outs, 1, &n));
        CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
        CHECK(n == 1);
        read_f32(outs[0], got, 12);
        for (i = 0; i < 12; ++i) CHECK_NEAR(got[i], av[i / 4] * bv[i % 4], 1e-6);
        CHECK_OK(mxc_autograd_backward(ctx, outs, 1, &wa, 0, 0));
        mxc_ndarray_free(grad_a);
        CHECK_OK(mxc_ndarray_grad(a, &grad_a));
        {
          float g2[3];
          read_f32(grad_a, g2, 3);
          for (i = 0; i < 3; ++i) CHECK_NEAR(g2[i], ga[i], 1e-5);
        }
        mxc_ndarray_free(outs[0]);
      }
      (void)nd;
      mxc_block_free(blk);
      mxc_symbol_free(sa), mxc_symbol_free(sb), mxc_symbol_free(so);
    }
    mxc_ndarray_free(grad_a), mxc_ndarray_free(grad_b);
    mxc_ndarray_free(a), mxc_ndarray_free(b), mxc_ndarray_free(wa);
  }

  /* c_count: aux state updated in place when training, dtype by infer_type, no backward. */
  {
    float one[1] = {0}, c;
    int64_t s1[1] = {1};
    mxc_ndarray *x = make_f32(xs, s23, 2), *counter = make_f32(one, s1, 1), *in[2], *y;
    mxc_status* st = NULL;
    int32_t dt = -1;
    double got[6];
    in[0] = x, in[1] = counter;
    y = invoke_custom(ctx, "c_count", in, 2, NULL, NULL, &st);
    CHECK_OK(st);
    CHECK_OK(mxc_ndarray_dtype(y, &dt));
    CHECK(dt == MXC_FLOAT64);
    CHECK_OK(mxc_ndarray_copy_to_host(y, got, sizeof got));
    for (i = 0; i < 6; ++i) CHECK(got[i] == xs[i]);
    read_f32(counter, &c, 1);
    CHECK(c == 0); /* predict mode */
    mxc_ndarray_free(y);
    CHECK_OK(mxc_autograd_set_training(ctx, 1, NULL));
    y = invoke_custom(ctx, "c_count", in, 2, NULL, NULL, &st);
    CHECK_OK(st);
    mxc_ndarray_free(y);
    y = invoke_custom(ctx, "c_count", in, 2, NULL, NULL, &st);
    CHECK_OK(st);
    read_f32(counter, &c, 1);
    CHECK(c == 2);
    CHECK_OK(mxc_autograd_set_training(ctx, 0, NULL));
    /* No backward registered: taking the gradient is UNIMPLEMENTED, naming the op. */
    CHECK_OK(mxc_ndarray_attach_grad(x, MXC_GRAD_WRITE));
    mxc_ndarray_free(y);
    CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
    y = invoke_custom(ctx, "c_count", in, 2, NULL, NULL, &st);
    CHECK_OK(st);
    CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
    CHECK_ERR(mxc_autograd_backward(ctx, &y, 1, NULL, 0, 0), MXC_UNIMPLEMENTED, "c_count");
    mxc_ndarray_free(y), mxc_ndarray_free(x), mxc_ndarray_free(counter);
  }
  CHECK(g_off_thread == 0); /* every callback ran on the calling thread */

  /* Unregistering: new uses fail, the name can be registered again; user_data is freed once,
   * after the registration and every use are gone. */
  {
    mxc_ndarray* x = make_f32(xs, s23, 2);
    mxc_status* st = NULL;
    mxc_ndarray* y;
    UserData* u2 = new_user(4);
    CHECK_OK(mxc_custom_op_unregister("c_square"));
    CHECK_ERR(mxc_custom_op_unregister("c_square"), MXC_NOT_FOUND, "c_square");
    y = invoke_custom(ctx, "c_square", &x, 1, NULL, NULL, &st);
    CHECK(y == NULL);
    CHECK_ERR(st, MXC_INVALID_ARGUMENT, "was unregistered");
    CHECK(g_freed[0] == 1);
    memset(&def, 0, sizeof def);
    def.struct_size = sizeof def;
    def.forward = square_forward;
    CHECK_OK(mxc_custom_op_register("c_square", &def, u2, free_user));
    y = invoke_custom(ctx, "c_square", &x, 1, NULL, NULL, &st);
    CHECK_OK(st);
    CHECK(u2->calls == 1);
    mxc_ndarray_free(y);
    CHECK_OK(mxc_custom_op_unregister("c_square"));
    CHECK_OK(mxc_custom_op_unregister("c_outer"));
    CHECK_OK(mxc_custom_op_unregister("c_count"));
    mxc_ndarray_free(x);
  }
  for (i = 0; i < 5; ++i) CHECK(g_freed[i] == 1);
  mxc_ctx_free(ctx);
  CHECK(live_handles() == live0);
  return check_summary();
}
