/* mxc/ops.h: registry metadata (every operator), mxc_invoke on hand-computed cases, multiple
 * outputs, creation and random operators under a ctx, training mode. */
#include "check.h"

/* Every registered operator: listed in name order, found by name, with readable metadata. */
static void test_registry(void) {
  size_t n = 0, i, j;
  const char* prev = "";
  CHECK_OK(mxc_op_count(&n));
  CHECK(n >= 600);
  for (i = 0; i < n; ++i) {
    mxc_op *op = NULL, *found = NULL;
    mxc_op_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK_OK(mxc_op_at(i, &op));
    CHECK_OK(mxc_op_get_info(op, &info));
    if (strcmp(prev, info.name) >= 0) CHECK(!"names not strictly increasing");
    prev = info.name;
    CHECK_OK(mxc_op_find(info.name, &found));
    if (found != op) CHECK(!"mxc_op_find(name) differs from mxc_op_at");
    for (j = 0; j < info.num_aliases; ++j) {
      CHECK_OK(mxc_op_find(info.aliases[j], &found));
      if (found != op) CHECK(!"alias resolves to another op");
    }
    for (j = 0; j < info.num_attrs; ++j) {
      mxc_op_attr a;
      memset(&a, 0, sizeof a);
      a.struct_size = sizeof a;
      CHECK_OK(mxc_op_attr_at(op, j, &a));
      if (a.kind < MXC_ATTR_STRING || a.kind > MXC_ATTR_DTYPE) CHECK(!"bad attribute kind");
      if (!a.required && !a.default_value) CHECK(!"optional attribute without default");
    }
    if (info.num_inputs >= 0 && info.num_input_names != (size_t)info.num_inputs)
      CHECK(!"input names do not match the input count");
  }
  CHECK_ERR(mxc_op_at(n, NULL), MXC_INVALID_ARGUMENT, "out");
  {
    mxc_op* op;
    CHECK_ERR(mxc_op_at(n, &op), MXC_OUT_OF_RANGE, "out of range");
    CHECK_ERR(mxc_op_find("no_such_op", &op), MXC_NOT_FOUND, "no_such_op");
  }
}

static const mxc_op_attr* find_attr(mxc_op* op, const char* name, mxc_op_attr* a) {
  mxc_op_info info;
  size_t j;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  CHECK_OK(mxc_op_get_info(op, &info));
  for (j = 0; j < info.num_attrs; ++j) {
    memset(a, 0, sizeof *a);
    a->struct_size = sizeof *a;
    CHECK_OK(mxc_op_attr_at(op, j, a));
    if (strcmp(a->name, name) == 0) return a;
  }
  return NULL;
}

/* What a binding needs to generate a typed Convolution wrapper. */
static void test_metadata(void) {
  mxc_op *conv = NULL, *relu = NULL, *concat = NULL;
  mxc_op_info info;
  mxc_op_attr a;
  const char* k[2] = {"kernel", "num_filter"};
  const char* v[2] = {"(3, 3)", "8"};
  const char* k2[3] = {"kernel", "num_filter", "no_bias"};
  const char* v2[3] = {"(3, 3)", "8", "True"};
  char** names = NULL;
  size_t count = 0, ni = 0, no = 0, j;
  int saw_nchw = 0;
  CHECK_OK(mxc_op_find("Convolution", &conv));
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  CHECK_OK(mxc_op_get_info(conv, &info));
  CHECK(strcmp(info.name, "Convolution") == 0 && strstr(info.doc, "convolution") != NULL);
  CHECK(info.num_inputs == -1 && info.num_outputs == 1 && info.differentiable);
  CHECK(find_attr(conv, "kernel", &a) && a.required && a.kind == MXC_ATTR_SHAPE &&
        a.default_value == NULL);
  CHECK(find_attr(conv, "num_filter", &a) && a.required && a.kind == MXC_ATTR_INT);
  CHECK(find_attr(conv, "no_bias", &a) && !a.required && a.kind == MXC_ATTR_BOOL &&
        strcmp(a.default_value, "False") == 0);
  CHECK(find_attr(conv, "workspace", &a) && a.kind == MXC_ATTR_LONG &&
        strcmp(a.default_value, "1024") == 0);
  CHECK(find_attr(conv, "layout", &a) && a.optional && a.kind == MXC_ATTR_STRING &&
        strcmp(a.default_value, "None") == 0);
  for (j = 0; j < a.num_choices; ++j) saw_nchw |= strcmp(a.choices[j], "NCHW") == 0;
  CHECK(saw_nchw);
  CHECK_OK(mxc_op_input_names(conv, k, v, 2, &names, &count));
  CHECK(count == 3 && strcmp(names[0], "data") == 0 && strcmp(names[2], "bias") == 0);
  mxc_string_array_free(names, count);
  CHECK_OK(mxc_op_num_io(conv, k2, v2, 3, &ni, &no));
  CHECK(ni == 2 && no == 1);
  CHECK_ERR(mxc_op_num_io(conv, k, v, 1, &ni, &no), MXC_INVALID_ARGUMENT, "num_filter");

  CHECK_OK(mxc_op_find("relu", &relu));
  CHECK_OK(mxc_op_get_info(relu, &info));
  CHECK(info.num_inputs == 1 && info.num_input_names == 1 &&
        strcmp(info.input_names[0], "data") == 0 && info.num_attrs == 0);
  CHECK_OK(mxc_op_find("Concat", &concat));
  CHECK_OK(mxc_op_get_info(concat, &info));
  CHECK(info.num_inputs == -1 && info.variadic_attr && strcmp(info.variadic_attr, "num_args") == 0);

  /* An older caller's smaller struct gets only the fields it knows. */
  {
    struct {
      size_t struct_size;
      const char* name;
      const char* doc;
      int32_t num_inputs;
      int32_t guard;
    } old;
    memset(&old, 0, sizeof old);
    old.struct_size = offsetof(mxc_op_info, num_inputs) + sizeof(int32_t);
    old.guard = 77;
    CHECK_OK(mxc_op_get_info(relu, (mxc_op_info*)(void*)&old));
    CHECK(strcmp(old.name, "relu") == 0 && old.num_inputs == 1 && old.guard == 77);
  }
}

static void test_invoke(void) {
  float x[4] = {-1, 2, -3, 4}, out[12];
  int64_t s4[1] = {4}, s21[2] = {2, 1}, s13[2] = {1, 3};
  float a21[2] = {1, 2}, a13[3] = {10, 20, 30};
  mxc_ndarray *in = make_f32(x, s4, 1), *r, *ins[3];
  int64_t dims[4];
  size_t ndim;
  r = run1(NULL, "relu", &in, 1, NULL, NULL, 0);
  read_f32(r, out, 4);
  CHECK(out[0] == 0 && out[1] == 2 && out[2] == 0 && out[3] == 4);
  mxc_ndarray_free(r);
  mxc_ndarray_free(in);

  /* Broadcasting (2, 1) + (1, 3) -> (2, 3), by an alias. */
  ins[0] = make_f32(a21, s21, 2);
  ins[1] = make_f32(a13, s13, 2);
  r = run1(NULL, "broadcast_plus", ins, 2, NULL, NULL, 0);
  CHECK_OK(mxc_ndarray_shape(r, dims, 4, &ndim));
  CHECK(ndim == 2 && dims[0] == 2 && dims[1] == 3);
  read_f32(r, out, 6);
  CHECK(out[0] == 11 && out[2] == 31 && out[3] == 12 && out[5] == 32);
  mxc_ndarray_free(r);
  mxc_ndarray_free(ins[0]);
  mxc_ndarray_free(ins[1]);

  /* Convolution by hand: 3x3 image 1..9, a 2x2 kernel of ones, bias 0.5: window sums + 0.5. */
  {
    float img[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w[4] = {1, 1, 1, 1}, b[1] = {0.5f};
    int64_t si[4] = {1, 1, 3, 3}, sw[4] = {1, 1, 2, 2}, sb[1] = {1};
    const char* k[2] = {"kernel", "num_filter"};
    const char* v[2] = {"(2, 2)", "1"};
    ins[0] = make_f32(img, si, 4);
    ins[1] = make_f32(w, sw, 4);
    ins[2] = make_f32(b, sb, 1);
    r = run1(NULL, "Convolution", ins, 3, k, v, 2);
    CHECK_OK(mxc_ndarray_shape(r, dims, 4, &ndim));
    CHECK(ndim == 4 && dims[2] == 2 && dims[3] == 2);
    read_f32(r, out, 4);
    CHECK(out[0] == 12.5f && out[1] == 16.5f && out[2] == 24.5f && out[3] == 28.5f);
    mxc_ndarray_free(r);
    /* Wrong input count and a bad attribute: errors naming the op and the attribute. */
    {
      mxc_op* conv;
      mxc_ndarray* o = NULL;
      size_t n_out = 0;
      const char* bad_v[2] = {"(2, 2)", "two"};
      CHECK_OK(mxc_op_find("Convolution", &conv));
      CHECK_ERR(mxc_invoke(NULL, conv, ins, 2, k, v, 2, &o, 1, &n_out), MXC_INVALID_ARGUMENT,
                "Convolution: expected 3 inputs");
      CHECK_ERR(mxc_invoke(NULL, conv, ins, 3, k, bad_v, 2, &o, 1, &n_out), MXC_INVALID_ARGUMENT,
                "num_filter");
      CHECK(o == NULL && n_out == 0);
    }
    mxc_ndarray_free(ins[0]);
    mxc_ndarray_free(ins[1]);
    mxc_ndarray_free(ins[2]);
  }
}

static void test_multi_output(void) {
  float x[8] = {0, 1, 2, 3, 4, 5, 6, 7}, out[4];
  int64_t s[2] = {2, 4};
  mxc_ndarray *in = make_f32(x, s, 2), *outs[3] = {NULL, NULL, NULL};
  mxc_op* split;
  const char* k[2] = {"num_outputs", "axis"};
  const char* v[2] = {"2", "1"};
  size_t n_out = 0, ni = 0, no = 0;
  CHECK_OK(mxc_op_find("split", &split));
  CHECK_OK(mxc_op_num_io(split, k, v, 2, &ni, &no));
  CHECK(ni == 1 && no == 2);
  CHECK_ERR(mxc_invoke(NULL, split, &in, 1, k, v, 2, outs, 1, &n_out), MXC_OUT_OF_RANGE,
            "2 outputs");
  CHECK(outs[0] == NULL && n_out == 0);
  CHECK_OK(mxc_invoke(NULL, split, &in, 1, k, v, 2, outs, 3, &n_out));
  CHECK(n_out == 2 && outs[2] == NULL);
  read_f32(outs[1], out, 4);
  CHECK(out[0] == 2 && out[1] == 3 && out[2] == 6 && out[3] == 7);
  mxc_ndarray_free(outs[0]);
  mxc_ndarray_free(outs[1]);
  mxc_ndarray_free(in);
}

/* Creation and random operators run under the ctx: its device, its RNG stream. */
static void test_ctx(void) {
  mxc_ctx *c1 = NULL, *c2 = NULL, *c3 = NULL;
  mxc_ctx_options o;
  const char* k[2] = {"shape", "low"};
  const char* v[2] = {"(5,)", "-1"};
  const char* kz[1] = {"shape"};
  const char* vz[1] = {"(2, 2)"};
  float r1[5], r2[5], r3[5], g[5];
  mxc_ndarray* a;
  mxc_device d = {0, 0};
  int i, same12 = 1, same13 = 1, sameg = 1;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.has_seed = 1;
  o.seed = 7;
  CHECK_OK(mxc_ctx_create(&o, &c1));
  CHECK_OK(mxc_ctx_create(&o, &c2));
  CHECK_OK(mxc_ctx_create(NULL, &c3));
  CHECK_OK(mxc_ctx_seed(c3, 8));
  CHECK_OK(mxc_ctx_device(c1, &d));
  CHECK(d.type == MXC_DEVICE_CPU && d.id == 0);
  a = run1(c1, "_random_uniform", NULL, 0, k, v, 2);
  read_f32(a, r1, 5);
  mxc_ndarray_free(a);
  a = run1(c2, "_random_uniform", NULL, 0, k, v, 2);
  read_f32(a, r2, 5);
  mxc_ndarray_free(a);
  a = run1(c3, "_random_uniform", NULL, 0, k, v, 2);
  read_f32(a, r3, 5);
  mxc_ndarray_free(a);
  /* The process-wide generators seeded 7 give the stream a ctx seeded 7 starts with. */
  CHECK_OK(mxc_random_seed(7));
  a = run1(NULL, "_random_uniform", NULL, 0, k, v, 2);
  read_f32(a, g, 5);
  mxc_ndarray_free(a);
  for (i = 0; i < 5; ++i) {
    CHECK(r1[i] >= -1 && r1[i] < 1);
    same12 &= r1[i] == r2[i];
    same13 &= r1[i] == r3[i];
    sameg &= r1[i] == g[i];
  }
  CHECK(same12 && !same13 && sameg);
  /* A second draw on c1 continues its stream (differs from the first). */
  a = run1(c1, "_random_uniform", NULL, 0, k, v, 2);
  read_f32(a, r2, 5);
  mxc_ndarray_free(a);
  CHECK(r2[0] != r1[0]);
  /* Creation on the ctx's default device; "ctx" as an attribute also works. */
  a = run1(c1, "_zeros", NULL, 0, kz, vz, 1);
  CHECK_OK(mxc_ndarray_device(a, &d));
  CHECK(d.type == MXC_DEVICE_CPU);
  mxc_ndarray_free(a);
  d.type = 7;
  CHECK_ERR(mxc_ctx_set_device(c1, d, NULL), MXC_INVALID_ARGUMENT, "device type 7");
  d.type = MXC_DEVICE_GPU;
  CHECK_OK(mxc_ctx_set_device(c1, d, NULL));
  {
    mxc_op* zeros;
    mxc_ndarray* o2 = NULL;
    size_t n = 0;
    CHECK_OK(mxc_op_find("_zeros", &zeros));
    CHECK_ERR(mxc_invoke(c1, zeros, NULL, 0, kz, vz, 1, &o2, 1, &n), MXC_UNAVAILABLE, "gpu(0)");
  }
  mxc_ctx_free(c1);
  mxc_ctx_free(c2);
  mxc_ctx_free(c3);
}

/* Dropout: identity in predict mode; in training mode (the ctx's flag) about half the values are
 * dropped and the rest scaled by 1 / (1 - p) = 2. */
static void test_training_flag(void) {
  static float ones[1000], out[1000];
  int64_t s[1] = {1000};
  mxc_ndarray *x, *y;
  mxc_ctx* ctx;
  const char* k[1] = {"p"};
  const char* v[1] = {"0.5"};
  int32_t prev = -1;
  int i, zeros = 0, twos = 0;
  for (i = 0; i < 1000; ++i) ones[i] = 1;
  x = make_f32(ones, s, 1);
  CHECK_OK(mxc_ctx_create(NULL, &ctx));
  y = run1(ctx, "Dropout", &x, 1, k, v, 1);
  read_f32(y, out, 1000);
  for (i = 0; i < 1000; ++i) zeros += out[i] == 0;
  CHECK(zeros == 0);
  mxc_ndarray_free(y);
  CHECK_OK(mxc_autograd_set_training(ctx, 1, &prev));
  CHECK(prev == 0);
  y = run1(ctx, "Dropout", &x, 1, k, v, 1);
  read_f32(y, out, 1000);
  for (i = 0; i < 1000; ++i) zeros += out[i] == 0, twos += out[i] == 2;
  CHECK(zeros + twos == 1000 && zeros > 400 && zeros < 600);
  mxc_ndarray_free(y);
  mxc_ndarray_free(x);
  mxc_ctx_free(ctx);
}

int main(void) {
  uint64_t live0 = live_handles();
  test_registry();
  test_metadata();
  test_invoke();
  test_multi_output();
  test_ctx();
  test_training_flag();
  CHECK(live_handles() == live0);
  return check_summary();
}
