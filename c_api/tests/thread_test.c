/* 8 threads x 1,000 mxc_invoke calls on shared inputs, then 8 threads x 1,000 calls of one
 * hybridized block (static_alloc), each thread with its own ctx: every output equals the
 * single-threaded reference bit for bit; handles made on one thread are freed on another. Run
 * under --config=tsan too. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "check.h"

#define kThreads 8
#define kCalls 1000

static mxc_ndarray *g_x, *g_w, *g_b;
static float g_ref[4 * 8];

typedef struct {
  int mismatches;
  int errors;
  mxc_ndarray* last; /* handed to the main thread, which frees it */
} Result;

/* relu(FullyConnected(x, w, b, num_hidden=8)): x (4, 16), w (8, 16), b (8,) -> (4, 8). */
static mxc_status* compute(mxc_ctx* ctx, mxc_op* fc, mxc_op* relu, mxc_ndarray** out) {
  const char* k[1] = {"num_hidden"};
  const char* v[1] = {"8"};
  mxc_ndarray *in[3], *h = NULL;
  size_t n = 0;
  mxc_status* st;
  in[0] = g_x;
  in[1] = g_w;
  in[2] = g_b;
  st = mxc_invoke(ctx, fc, in, 3, k, v, 1, &h, 1, &n);
  if (st) return st;
  st = mxc_invoke(ctx, relu, &h, 1, NULL, NULL, 0, out, 1, &n);
  mxc_ndarray_free(h);
  return st;
}

static void* worker(void* arg) {
  Result* r = (Result*)arg;
  mxc_ctx* ctx = NULL;
  mxc_op *fc = NULL, *relu = NULL;
  float got[4 * 8];
  int i;
  mxc_status* st = mxc_ctx_create(NULL, &ctx);
  if (!st) st = mxc_op_find("FullyConnected", &fc);
  if (!st) st = mxc_op_find("relu", &relu);
  if (st) {
    r->errors++;
    mxc_status_free(st);
    return NULL;
  }
  for (i = 0; i < kCalls; ++i) {
    mxc_ndarray* y = NULL;
    st = compute(ctx, fc, relu, &y);
    if (!st) st = mxc_ndarray_copy_to_host(y, got, sizeof got);
    if (st) {
      r->errors++;
      mxc_status_free(st);
      continue;
    }
    if (memcmp(got, g_ref, sizeof got) != 0) r->mismatches++;
    if (i + 1 == kCalls) {
      r->last = y;
    } else {
      mxc_ndarray_free(y);
    }
  }
  mxc_ctx_free(ctx);
  return NULL;
}

/* ---- One hybridized block from many threads. ---- */
static mxc_block* g_net;
static float g_net_ref[4 * 4];

static void* block_worker(void* arg) {
  Result* r = (Result*)arg;
  mxc_ctx* ctx = NULL;
  float got[4 * 4];
  int i;
  mxc_status* st = mxc_ctx_create(NULL, &ctx);
  if (st) {
    r->errors++;
    mxc_status_free(st);
    return NULL;
  }
  for (i = 0; i < kCalls; ++i) {
    mxc_ndarray* y = NULL;
    size_t n = 0;
    st = mxc_block_call(ctx, g_net, &g_x, 1, &y, 1, &n);
    if (!st) st = mxc_ndarray_copy_to_host(y, got, sizeof got);
    if (st) {
      r->errors++;
      mxc_status_free(st);
      mxc_ndarray_free(y);
      continue;
    }
    if (memcmp(got, g_net_ref, sizeof got) != 0) r->mismatches++;
    if (i + 1 == kCalls) {
      r->last = y;
    } else {
      mxc_ndarray_free(y);
    }
  }
  mxc_ctx_free(ctx);
  return NULL;
}

/* make_mlp("8", "4") on g_x (4, 16), parameters set by hand, hybridized; g_net_ref by hand. */
static void make_block(void) {
  static const char* names[4] = {"fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"};
  static const int64_t shapes[4][2] = {{8, 16}, {8, 0}, {4, 8}, {4, 0}};
  float w1[8 * 16], b1[8], w2[4 * 8], b2[4], x[4 * 16], h[4 * 8];
  float* vals[4];
  mxc_parameter** ps = NULL;
  size_t np = 0, i, j;
  mxc_hybridize_options ho;
  mxc_ctx* ctx = NULL;
  mxc_ndarray* y = NULL;
  size_t n = 0;
  int r, c, k;
  vals[0] = w1, vals[1] = b1, vals[2] = w2, vals[3] = b2;
  for (i = 0; i < 128; ++i) w1[i] = (float)((i * 29) % 17) / 16 - 0.5f;
  for (i = 0; i < 8; ++i) b1[i] = (float)i / 8 - 0.4f;
  for (i = 0; i < 32; ++i) w2[i] = (float)((i * 11) % 7) / 6 - 0.5f;
  for (i = 0; i < 4; ++i) b2[i] = 0.1f * (float)i;
  g_net = make_mlp("8", "4");
  CHECK_OK(mxc_ctx_create(NULL, &ctx));
  CHECK_OK(mxc_block_initialize(ctx, g_net, NULL, cpu0(), 0));
  /* Parameters get their shapes on the first call. */
  CHECK_OK(mxc_block_call(ctx, g_net, &g_x, 1, &y, 1, &n));
  mxc_ndarray_free(y);
  CHECK_OK(mxc_block_collect_params(g_net, NULL, &ps, &np));
  CHECK(np == 4);
  for (i = 0; i < np && i < 4; ++i) {
    char* name = NULL;
    CHECK_OK(mxc_parameter_name(ps[i], &name));
    for (j = 0; j < 4; ++j) {
      if (name && strcmp(name, names[j]) == 0) {
        int64_t shape[2];
        size_t nd = shapes[j][1] ? 2 : 1;
        mxc_ndarray* v;
        shape[0] = shapes[j][0], shape[1] = shapes[j][1];
        v = make_f32(vals[j], shape, nd);
        CHECK_OK(mxc_parameter_set_data(ps[i], v));
        mxc_ndarray_free(v);
      }
    }
    mxc_string_free(name);
  }
  mxc_parameter_array_free(ps, np);
  memset(&ho, 0, sizeof ho);
  ho.struct_size = sizeof ho;
  ho.static_alloc = 1;
  ho.static_shape = 1;
  CHECK_OK(mxc_block_hybridize(g_net, &ho));
  CHECK_OK(mxc_block_call(ctx, g_net, &g_x, 1, &y, 1, &n)); /* trace + compile */
  read_f32(y, g_net_ref, 16);
  mxc_ndarray_free(y);
  mxc_ctx_free(ctx);
  /* By hand: fc2(relu(fc1(x))). */
  CHECK_OK(mxc_ndarray_copy_to_host(g_x, x, sizeof x));
  for (r = 0; r < 4; ++r)
    for (c = 0; c < 8; ++c) {
      double acc = b1[c];
      for (k = 0; k < 16; ++k) acc += (double)x[r * 16 + k] * w1[c * 16 + k];
      h[r * 8 + c] = acc > 0 ? (float)acc : 0;
    }
  for (r = 0; r < 4; ++r)
    for (c = 0; c < 4; ++c) {
      double acc = b2[c];
      for (k = 0; k < 8; ++k) acc += (double)h[r * 8 + k] * w2[c * 8 + k];
      CHECK_NEAR(g_net_ref[r * 4 + c], acc, 1e-4);
    }
}

int main(void) {
  float x[4 * 16], w[8 * 16], b[8];
  int64_t sx[2] = {4, 16}, sw[2] = {8, 16}, sb[1] = {8};
  pthread_t threads[kThreads];
  Result results[kThreads];
  mxc_op *fc, *relu;
  mxc_ndarray* ref = NULL;
  uint64_t live0 = live_handles();
  int i, positives = 0;
  for (i = 0; i < 64; ++i) x[i] = (float)((i * 37) % 11) / 4 - 1;
  for (i = 0; i < 128; ++i) w[i] = (float)((i * 53) % 13) / 8 - 0.75f;
  for (i = 0; i < 8; ++i) b[i] = (float)i / 10 - 0.3f;
  g_x = make_f32(x, sx, 2);
  g_w = make_f32(w, sw, 2);
  g_b = make_f32(b, sb, 1);
  CHECK_OK(mxc_op_find("FullyConnected", &fc));
  CHECK_OK(mxc_op_find("relu", &relu));
  CHECK_OK(compute(NULL, fc, relu, &ref));
  read_f32(ref, g_ref, 32);
  mxc_ndarray_free(ref);
  /* The reference itself, by hand: relu(x w^T + b). */
  for (i = 0; i < 32; ++i) {
    int r = i / 8, c = i % 8, k;
    double acc = b[c];
    for (k = 0; k < 16; ++k) acc += (double)x[r * 16 + k] * w[c * 16 + k];
    CHECK_NEAR(g_ref[i], acc > 0 ? acc : 0, 1e-4);
    positives += g_ref[i] > 0;
  }
  CHECK(positives > 0 && positives < 32);
  memset(results, 0, sizeof results);
  for (i = 0; i < kThreads; ++i) CHECK(pthread_create(&threads[i], NULL, worker, &results[i]) == 0);
  for (i = 0; i < kThreads; ++i) {
    float got[32];
    CHECK(pthread_join(threads[i], NULL) == 0);
    CHECK(results[i].errors == 0 && results[i].mismatches == 0);
    CHECK(results[i].last != NULL);
    read_f32(results[i].last, got, 32);
    CHECK(memcmp(got, g_ref, sizeof got) == 0);
    mxc_ndarray_free(results[i].last); /* made on the worker, freed here */
  }
  /* One hybridized block, 8 threads x 1,000 calls. */
  make_block();
  memset(results, 0, sizeof results);
  for (i = 0; i < kThreads; ++i)
    CHECK(pthread_create(&threads[i], NULL, block_worker, &results[i]) == 0);
  for (i = 0; i < kThreads; ++i) {
    float got[16];
    CHECK(pthread_join(threads[i], NULL) == 0);
    CHECK(results[i].errors == 0 && results[i].mismatches == 0);
    CHECK(results[i].last != NULL);
    read_f32(results[i].last, got, 16);
    CHECK(memcmp(got, g_net_ref, sizeof got) == 0);
    mxc_ndarray_free(results[i].last);
  }
  mxc_block_free(g_net);
  mxc_ndarray_free(g_x);
  mxc_ndarray_free(g_w);
  mxc_ndarray_free(g_b);
  CHECK(live_handles() == live0);
  return check_summary();
}
