/* mxc/symbol.h: building a graph, JSON round trips (string and file), argument/output/aux lists,
 * shape and type inference, compose; the real GluonCV export in ../shared when present. */
#include "check.h"

static int has(char** names, size_t n, const char* name) {
  size_t i;
  for (i = 0; i < n; ++i)
    if (strcmp(names[i], name) == 0) return 1;
  return 0;
}

/* fc = FullyConnected(data, num_hidden=3) named "fc"; out = relu(fc). */
static mxc_symbol* build(void) {
  mxc_symbol *data = NULL, *fc = NULL, *out = NULL;
  mxc_op *fc_op, *relu;
  const char* k[1] = {"num_hidden"};
  const char* v[1] = {"3"};
  CHECK_OK(mxc_symbol_variable("data", &data));
  CHECK_OK(mxc_op_find("FullyConnected", &fc_op));
  CHECK_OK(mxc_op_find("relu", &relu));
  CHECK_OK(mxc_symbol_create(fc_op, &data, 1, k, v, 1, "fc", &fc));
  CHECK_OK(mxc_symbol_create(relu, &fc, 1, NULL, NULL, 0, NULL, &out));
  mxc_symbol_free(data);
  mxc_symbol_free(fc);
  return out;
}

static void test_lists_and_json(void) {
  mxc_symbol *s = build(), *back = NULL, *loaded = NULL;
  char **names = NULL, *json = NULL, *json2 = NULL, *name = NULL;
  size_t n = 0;
  char path[256];
  CHECK_OK(mxc_symbol_list_arguments(s, &names, &n));
  CHECK(n == 3 && strcmp(names[0], "data") == 0 && strcmp(names[1], "fc_weight") == 0 &&
        strcmp(names[2], "fc_bias") == 0);
  mxc_string_array_free(names, n);
  CHECK_OK(mxc_symbol_list_outputs(s, &names, &n));
  CHECK(n == 1 && strstr(names[0], "_output") != NULL);
  mxc_string_array_free(names, n);
  CHECK_OK(mxc_symbol_list_auxiliary_states(s, &names, &n));
  CHECK(n == 0);
  mxc_string_array_free(names, n);
  CHECK_OK(mxc_symbol_name(s, &name));
  CHECK(strncmp(name, "relu", 4) == 0);
  mxc_string_free(name);

  CHECK_OK(mxc_symbol_to_json(s, &json));
  CHECK(strstr(json, "\"FullyConnected\"") != NULL &&
        strstr(json, "\"num_hidden\": \"3\"") != NULL);
  CHECK_OK(mxc_symbol_from_json(json, &back));
  CHECK_OK(mxc_symbol_to_json(back, &json2));
  CHECK(strcmp(json, json2) == 0);
  snprintf(path, sizeof path, "%s/mxc_test-symbol.json",
           getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp");
  CHECK_OK(mxc_symbol_save(back, path));
  CHECK_OK(mxc_symbol_load(path, &loaded));
  CHECK_OK(mxc_symbol_list_inputs(loaded, &names, &n));
  CHECK(n == 3 && strcmp(names[2], "fc_bias") == 0);
  mxc_string_array_free(names, n);
  CHECK_ERR(mxc_symbol_from_json("{\"nodes\": [", &back), MXC_INVALID_ARGUMENT, "");
  CHECK_ERR(mxc_symbol_load("/nonexistent-symbol.json", &back), MXC_NOT_FOUND, "");
  mxc_string_free(json);
  mxc_string_free(json2);
  mxc_symbol_free(back);
  mxc_symbol_free(loaded);
  mxc_symbol_free(s);
}

static void test_infer(void) {
  mxc_symbol* s = build();
  mxc_infer_result* r = NULL;
  const char* names[1] = {"data"};
  size_t ndims[1] = {2}, n = 0;
  int64_t dims[2] = {2, 5};
  const int64_t* d = NULL;
  int32_t nd = 0, dt = -2, f32 = MXC_FLOAT64;
  CHECK_OK(mxc_symbol_infer_shape(s, names, ndims, dims, 1, 0, &r));
  CHECK_OK(mxc_infer_result_count(r, MXC_INFER_ARGUMENTS, &n));
  CHECK(n == 3);
  CHECK_OK(mxc_infer_result_shape(r, MXC_INFER_ARGUMENTS, 1, &d, &nd)); /* fc_weight */
  CHECK(nd == 2 && d[0] == 3 && d[1] == 5);
  CHECK_OK(mxc_infer_result_shape(r, MXC_INFER_ARGUMENTS, 2, &d, &nd)); /* fc_bias */
  CHECK(nd == 1 && d[0] == 3);
  CHECK_OK(mxc_infer_result_shape(r, MXC_INFER_OUTPUTS, 0, &d, &nd));
  CHECK(nd == 2 && d[0] == 2 && d[1] == 3);
  CHECK_ERR(mxc_infer_result_dtype(r, MXC_INFER_OUTPUTS, 0, &dt), MXC_FAILED_PRECONDITION, "");
  CHECK_ERR(mxc_infer_result_shape(r, MXC_INFER_OUTPUTS, 1, &d, &nd), MXC_OUT_OF_RANGE, "");
  CHECK_ERR(mxc_infer_result_count(r, 5, &n), MXC_INVALID_ARGUMENT, "which");
  mxc_infer_result_free(r);
  /* Nothing known: a complete inference fails, a partial one returns unknown shapes. */
  CHECK_ERR(mxc_symbol_infer_shape(s, NULL, NULL, NULL, 0, 0, &r), MXC_INVALID_ARGUMENT, "");
  CHECK_OK(mxc_symbol_infer_shape(s, NULL, NULL, NULL, 0, 1, &r));
  CHECK_OK(mxc_infer_result_shape(r, MXC_INFER_OUTPUTS, 0, &d, &nd));
  CHECK(nd == -1 || (nd == 2 && d[1] == 3));
  mxc_infer_result_free(r);
  /* Shapes that contradict the graph: fc_weight (4, 5) but num_hidden is 3. */
  {
    const char* two[2] = {"data", "fc_weight"};
    size_t nd2[2] = {2, 2};
    int64_t d2[4] = {2, 5, 4, 5};
    CHECK_ERR(mxc_symbol_infer_shape(s, two, nd2, d2, 2, 0, &r), MXC_INVALID_ARGUMENT, "fc");
  }
  names[0] = "nope";
  CHECK_ERR(mxc_symbol_infer_shape(s, names, ndims, dims, 1, 0, &r), MXC_INVALID_ARGUMENT, "nope");
  names[0] = "data";
  CHECK_OK(mxc_symbol_infer_type(s, names, &f32, 1, &r));
  CHECK_OK(mxc_infer_result_dtype(r, MXC_INFER_OUTPUTS, 0, &dt));
  CHECK(dt == MXC_FLOAT64);
  CHECK_OK(mxc_infer_result_dtype(r, MXC_INFER_ARGUMENTS, 1, &dt));
  CHECK(dt == MXC_FLOAT64);
  mxc_infer_result_free(r);
  mxc_symbol_free(s);
}

static void test_compose_group(void) {
  mxc_symbol *s = build(), *x = NULL, *sq = NULL, *c = NULL, *g = NULL, *o1 = NULL;
  mxc_op* square;
  char** names = NULL;
  const char* sub[1] = {"data"};
  size_t n = 0;
  mxc_symbol* arr[2];
  CHECK_OK(mxc_symbol_variable("x", &x));
  CHECK_OK(mxc_op_find("square", &square));
  CHECK_OK(mxc_symbol_create(square, &x, 1, NULL, NULL, 0, "sq", &sq));
  /* relu(fc(square(x))): data replaced by square(x). */
  CHECK_OK(mxc_symbol_compose(s, sub, &sq, 1, &c));
  CHECK_OK(mxc_symbol_list_arguments(c, &names, &n));
  CHECK(n == 3 && strcmp(names[0], "x") == 0 && !has(names, n, "data"));
  mxc_string_array_free(names, n);
  /* The original is unchanged. */
  CHECK_OK(mxc_symbol_list_arguments(s, &names, &n));
  CHECK(has(names, n, "data"));
  mxc_string_array_free(names, n);
  sub[0] = "missing";
  CHECK_ERR(mxc_symbol_compose(s, sub, &sq, 1, &c), MXC_INVALID_ARGUMENT, "missing");
  arr[0] = s;
  arr[1] = sq;
  CHECK_OK(mxc_symbol_group(arr, 2, &g));
  CHECK_OK(mxc_symbol_list_outputs(g, &names, &n));
  CHECK(n == 2);
  mxc_string_array_free(names, n);
  CHECK_OK(mxc_symbol_output(g, 1, &o1));
  CHECK_OK(mxc_symbol_list_outputs(o1, &names, &n));
  CHECK(n == 1 && strcmp(names[0], "sq_output") == 0);
  mxc_string_array_free(names, n);
  CHECK_ERR(mxc_symbol_output(g, 2, &o1), MXC_OUT_OF_RANGE, "");
  mxc_symbol_free(o1);
  mxc_symbol_free(g);
  mxc_symbol_free(c);
  mxc_symbol_free(sq);
  mxc_symbol_free(x);
  mxc_symbol_free(s);
}

/* The GluonCV CIFAR ResNet-20 export (real MXNet JSON) from ../shared, when available. */
static void test_real_export(void) {
  const char* shared = getenv("MXNET_SHARED_DIR");
  char path[4200];
  mxc_symbol* s = NULL;
  char** names = NULL;
  size_t n = 0;
  mxc_infer_result* r = NULL;
  const char* in[1] = {"data"};
  size_t ndims[1] = {4};
  int64_t dims[4] = {1, 3, 32, 32};
  const int64_t* d;
  int32_t nd;
  if (!shared) {
    printf("MXNET_SHARED_DIR unset: skipping the real export\n");
    return;
  }
  snprintf(path, sizeof path, "%s/data/models/cifar_resnet20_v1-symbol.json", shared);
  CHECK_OK(mxc_symbol_load(path, &s));
  CHECK_OK(mxc_symbol_list_auxiliary_states(s, &names, &n));
  CHECK(n > 0 && strstr(names[0], "running_mean") != NULL);
  mxc_string_array_free(names, n);
  CHECK_OK(mxc_symbol_infer_shape(s, in, ndims, dims, 1, 0, &r));
  CHECK_OK(mxc_infer_result_shape(r, MXC_INFER_OUTPUTS, 0, &d, &nd));
  CHECK(nd == 2 && d[0] == 1 && d[1] == 10);
  mxc_infer_result_free(r);
  mxc_symbol_free(s);
}

int main(void) {
  uint64_t live0 = live_handles();
  test_lists_and_json();
  test_infer();
  test_compose_group();
  test_real_export();
  CHECK(live_handles() == live0);
  return check_summary();
}
