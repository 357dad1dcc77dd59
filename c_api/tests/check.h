/* Minimal checks for the C tests of libmxc (C99). Each test program counts its checks and ends
 * with "N passed, N failed"; any failure exits 1. */
#ifndef MXC_TESTS_CHECK_H_
#define MXC_TESTS_CHECK_H_

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mxc/mxc.h"

static int g_passed = 0, g_failed = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      ++g_passed;                                                              \
    } else {                                                                   \
      ++g_failed;                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

/* Fails the test (and stops it) when `expr` returns an error status. */
#define CHECK_OK(expr)                                                                 \
  do {                                                                                 \
    mxc_status* check_s_ = (expr);                                                     \
    if (check_s_) {                                                                    \
      fprintf(stderr, "%s:%d: %s failed: %s %s\n", __FILE__, __LINE__, #expr,          \
              mxc_code_name(mxc_status_code(check_s_)), mxc_status_message(check_s_)); \
      mxc_status_free(check_s_);                                                       \
      fprintf(stderr, "%d passed, %d failed\n", g_passed, g_failed + 1);               \
      exit(1);                                                                         \
    }                                                                                  \
    ++g_passed;                                                                        \
  } while (0)

/* Checks that `expr` returns an error with `code` whose message contains `substr`. */
#define CHECK_ERR(expr, code, substr) \
  check_err_((expr), (code), (substr), #expr, __FILE__, __LINE__)

static inline void check_err_(mxc_status* s, mxc_code code, const char* substr, const char* expr,
                              const char* file, int line) {
  if (!s) {
    ++g_failed;
    fprintf(stderr, "%s:%d: %s succeeded, expected %s\n", file, line, expr, mxc_code_name(code));
    return;
  }
  if (mxc_status_code(s) != code || !strstr(mxc_status_message(s), substr)) {
    ++g_failed;
    fprintf(stderr, "%s:%d: %s gave %s \"%s\", expected %s containing \"%s\"\n", file, line, expr,
            mxc_code_name(mxc_status_code(s)), mxc_status_message(s), mxc_code_name(code), substr);
  } else {
    ++g_passed;
  }
  mxc_status_free(s);
}

/* Checks that `expr` returns an error status (any code). */
#define CHECK_FAILS(expr) check_fails_((expr), #expr, __FILE__, __LINE__)

static inline void check_fails_(mxc_status* s, const char* expr, const char* file, int line) {
  if (s) {
    ++g_passed;
    mxc_status_free(s);
  } else {
    ++g_failed;
    fprintf(stderr, "%s:%d: %s succeeded, expected an error\n", file, line, expr);
  }
}

#define CHECK_NEAR(a, b, tol)                                                                    \
  do {                                                                                           \
    double check_a_ = (a), check_b_ = (b);                                                       \
    if (fabs(check_a_ - check_b_) <= (tol)) {                                                    \
      ++g_passed;                                                                                \
    } else {                                                                                     \
      ++g_failed;                                                                                \
      fprintf(stderr, "%s:%d: %s = %.9g, expected %s = %.9g (tol %g)\n", __FILE__, __LINE__, #a, \
              check_a_, #b, check_b_, (double)(tol));                                            \
    }                                                                                            \
  } while (0)

/* Prints the summary line and returns the exit code. */
static inline int check_summary(void) {
  printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}

/* Live handles now (leak checks: compare before and after). */
static inline uint64_t live_handles(void) {
  mxc_handle_stats st;
  memset(&st, 0, sizeof st);
  st.struct_size = sizeof st;
  CHECK_OK(mxc_handle_stats_get(&st));
  return st.live;
}

static inline mxc_device cpu0(void) {
  mxc_device d;
  d.type = MXC_DEVICE_CPU;
  d.id = 0;
  return d;
}

/* A float32 array from values (row-major) and a shape. */
static inline mxc_ndarray* make_f32(const float* values, const int64_t* shape, size_t ndim) {
  size_t n = 1, i;
  mxc_ndarray* a = NULL;
  for (i = 0; i < ndim; ++i) n *= (size_t)shape[i];
  CHECK_OK(mxc_ndarray_from_host(values, n * sizeof(float), shape, ndim, MXC_FLOAT32, cpu0(), &a));
  return a;
}

/* Copies a float32 array into out (n elements); checks the size. */
static inline void read_f32(mxc_ndarray* a, float* out, size_t n) {
  CHECK_OK(mxc_ndarray_copy_to_host(a, out, n * sizeof(float)));
}

/* Runs a one-output operator by name. */
static inline mxc_ndarray* run1(mxc_ctx* ctx, const char* op_name, mxc_ndarray* const* inputs,
                                size_t n, const char* const* keys, const char* const* values,
                                size_t n_attrs) {
  mxc_op* op = NULL;
  mxc_ndarray* out = NULL;
  size_t n_out = 0;
  CHECK_OK(mxc_op_find(op_name, &op));
  CHECK_OK(mxc_invoke(ctx, op, inputs, n, keys, values, n_attrs, &out, 1, &n_out));
  CHECK(n_out == 1);
  return out;
}

/* A small network built from symbols (mxc_symbol_block_create): data -> FullyConnected(hidden)
 * "fc1" -> relu "relu1" -> FullyConnected(outputs) "fc2"; parameters fc1_weight, fc1_bias,
 * fc2_weight, fc2_bias, uninitialized. FullyConnected flattens (B, ...) inputs. */
static inline mxc_block* make_mlp(const char* hidden, const char* outputs) {
  mxc_op *fc = NULL, *act = NULL;
  mxc_symbol *data = NULL, *h = NULL, *a = NULL, *y = NULL;
  const char* k_fc[1] = {"num_hidden"};
  const char* k_act[1] = {"act_type"};
  const char* v_act[1] = {"relu"};
  const char* data_name[1] = {"data"};
  mxc_block* b = NULL;
  CHECK_OK(mxc_op_find("FullyConnected", &fc));
  CHECK_OK(mxc_op_find("Activation", &act));
  CHECK_OK(mxc_symbol_variable("data", &data));
  CHECK_OK(mxc_symbol_create(fc, &data, 1, k_fc, &hidden, 1, "fc1", &h));
  CHECK_OK(mxc_symbol_create(act, &h, 1, k_act, v_act, 1, "relu1", &a));
  CHECK_OK(mxc_symbol_create(fc, &a, 1, k_fc, &outputs, 1, "fc2", &y));
  CHECK_OK(mxc_symbol_block_create(y, data_name, 1, &b));
  mxc_symbol_free(data);
  mxc_symbol_free(h);
  mxc_symbol_free(a);
  mxc_symbol_free(y);
  return b;
}

/* The directory of the test's data files (Bazel runfiles), with a trailing '/'. */
static inline const char* data_dir(void) {
  static char buf[4096];
  const char* src = getenv("TEST_SRCDIR");
  const char* ws = getenv("TEST_WORKSPACE");
  if (!src || !ws) return "";
  snprintf(buf, sizeof buf, "%s/%s/", src, ws);
  return buf;
}

#endif /* MXC_TESTS_CHECK_H_ */
