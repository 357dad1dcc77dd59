/* mxc/ctx.h: each mxc_ctx owns its runtime context. Two ctxs on one thread keep separate flags
 * and RNG streams; one ctx handed from thread to thread keeps its flags and continues its stream
 * exactly as on one thread; a ctx used by two threads at once is an MXC_FAILED_PRECONDITION
 * error on the second (detected, not a race), while other ctxs run meanwhile; a callback may
 * re-enter the ctx it runs under on its own thread; DataLoader workers draw random transforms
 * from per-batch generators derived from the ctx (repeatable epochs under one seed). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "check.h"

static const char* k_unif[3] = {"low", "high", "shape"};
static const char* v_unif[3] = {"0", "1", "(6,)"};

static void draw(mxc_ctx* ctx, float* out) {
  mxc_ndarray* a = run1(ctx, "_random_uniform", NULL, 0, k_unif, v_unif, 3);
  read_f32(a, out, 6);
  mxc_ndarray_free(a);
}

static mxc_ctx* seeded(uint64_t seed) {
  mxc_ctx_options o;
  mxc_ctx* c = NULL;
  memset(&o, 0, sizeof o);
  o.struct_size = sizeof o;
  o.has_seed = 1;
  o.seed = seed;
  CHECK_OK(mxc_ctx_create(&o, &c));
  return c;
}

/* ---- A ctx moving between threads. ---- */
/* Worker threads never use CHECK (its counters belong to the main thread): they count errors. */
typedef struct {
  mxc_ctx* ctx;
  float drawn[6];
  int32_t recording;
  int32_t training_before;
  int errors;
} Step;

static void count_error(mxc_status* st, int* errors) {
  if (st) {
    fprintf(stderr, "worker: %s\n", mxc_status_message(st));
    mxc_status_free(st);
    ++*errors;
  }
}

static void* step_thread(void* arg) {
  Step* s = (Step*)arg;
  mxc_op* unif = NULL;
  mxc_ndarray* a = NULL;
  size_t n = 0;
  mxc_status* st = mxc_op_find("_random_uniform", &unif);
  if (!st) st = mxc_invoke(s->ctx, unif, NULL, 0, k_unif, v_unif, 3, &a, 1, &n);
  if (!st) st = mxc_ndarray_copy_to_host(a, s->drawn, sizeof s->drawn);
  mxc_ndarray_free(a);
  count_error(st, &s->errors);
  count_error(mxc_autograd_is_recording(s->ctx, &s->recording), &s->errors);
  count_error(mxc_autograd_set_training(s->ctx, 1, &s->training_before), &s->errors);
  return NULL;
}

/* ---- A callback that holds the ctx busy. ---- */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_entered, g_release;
static mxc_ctx* g_busy;
static int g_nested_ok;

static mxc_status* hold_forward(void* ud, const char* const* keys, const char* const* values,
                                size_t num_attrs, int32_t is_train, mxc_ndarray* const* in,
                                size_t num_in, mxc_ndarray* const* out, size_t num_out,
                                mxc_ndarray* const* aux, size_t num_aux) {
  mxc_ndarray* r = NULL;
  mxc_op* relu = NULL;
  size_t n = 0;
  mxc_status* st;
  (void)ud, (void)keys, (void)values, (void)num_attrs, (void)is_train, (void)num_in;
  (void)num_out, (void)aux, (void)num_aux, (void)out;
  /* Re-entering the ctx this op runs under, on the same thread, is allowed. */
  st = mxc_op_find("relu", &relu);
  if (!st) st = mxc_invoke(g_busy, relu, in, 1, NULL, NULL, 0, &r, 1, &n);
  if (st) return st;
  mxc_ndarray_free(r);
  g_nested_ok = 1;
  pthread_mutex_lock(&g_mu);
  g_entered = 1;
  pthread_cond_broadcast(&g_cv);
  while (!g_release) pthread_cond_wait(&g_cv, &g_mu);
  pthread_mutex_unlock(&g_mu);
  return NULL;
}

static mxc_ndarray* g_x;
static mxc_status* g_hold_status;

static void* hold_thread(void* arg) {
  const char* keys[1] = {"op_type"};
  const char* values[1] = {"c_hold"};
  mxc_op* custom = NULL;
  mxc_ndarray* y = NULL;
  size_t n = 0;
  (void)arg;
  g_hold_status = mxc_op_find("Custom", &custom);
  if (!g_hold_status)
    g_hold_status = mxc_invoke(g_busy, custom, &g_x, 1, keys, values, 1, &y, 1, &n);
  mxc_ndarray_free(y);
  return NULL;
}

/* ---- DataLoader workers drawing from the ctx's RNG. ---- */

/* x + uniform(0, 1) noise of x's shape (2,), drawn with a NULL ctx: from the generators of the
 * context the worker runs the batch under. */
static mxc_status* noisy(void* ud, mxc_ndarray* input, mxc_ndarray** output) {
  const char* k[3] = {"low", "high", "shape"};
  const char* v[3] = {"0", "1", "(2,)"};
  mxc_op *unif = NULL, *add = NULL;
  mxc_ndarray *noise = NULL, *in[2];
  size_t n = 0;
  mxc_status* st;
  (void)ud;
  st = mxc_op_find("_random_uniform", &unif);
  if (!st) st = mxc_op_find("elemwise_add", &add);
  if (!st) st = mxc_invoke(NULL, unif, NULL, 0, k, v, 3, &noise, 1, &n);
  if (st) return st;
  in[0] = input, in[1] = noise;
  st = mxc_invoke(NULL, add, in, 2, NULL, NULL, 0, output, 1, &n);
  mxc_ndarray_free(noise);
  return st;
}

/* One epoch (4 batches of 2 samples (2,)) with 2 workers under a ctx seeded `seed`. */
static void epoch(mxc_dataset* ds, uint64_t seed, float* out) {
  mxc_ctx* ctx = seeded(seed);
  mxc_dataloader* dl = NULL;
  mxc_dataloader_options lo;
  mxc_ndarray* f[1];
  size_t n = 0;
  int32_t has = 0;
  int b;
  memset(&lo, 0, sizeof lo);
  lo.struct_size = sizeof lo;
  lo.batch_size = 2;
  lo.num_workers = 2;
  CHECK_OK(mxc_dataloader_create(ds, &lo, &dl));
  for (b = 0; b < 4; ++b) {
    CHECK_OK(mxc_dataloader_next(ctx, dl, f, 1, &n, &has));
    CHECK(has == 1);
    if (!has) break;
    read_f32(f[0], out + 4 * b, 4);
    mxc_ndarray_free(f[0]);
  }
  CHECK_OK(mxc_dataloader_next(ctx, dl, f, 1, &n, &has));
  CHECK(has == 0);
  mxc_dataloader_free(dl);
  mxc_ctx_free(ctx);
}

int main(void) {
  float a1[6], a2[6], b1[6], b2[6], r[6];
  uint64_t live0 = live_handles();
  mxc_ctx *a = seeded(7), *b = seeded(7), *ref = seeded(9), *moving = seeded(9), *other = NULL;
  int32_t flag = -1;
  int i;
  /* Two ctxs on one thread: separate streams (same seed, same sequence, interleaved) and flags. */
  draw(a, a1);
  draw(NULL, r); /* the process-wide generators: no effect on either stream */
  draw(b, b1);
  draw(a, a2);
  draw(b, b2);
  CHECK(memcmp(a1, b1, sizeof a1) == 0 && memcmp(a2, b2, sizeof a2) == 0);
  CHECK(memcmp(a1, a2, sizeof a1) != 0);
  CHECK_OK(mxc_autograd_set_recording(a, 1, &flag));
  CHECK(flag == 0);
  CHECK_OK(mxc_autograd_is_recording(b, &flag));
  CHECK(flag == 0);
  CHECK_OK(mxc_autograd_is_recording(a, &flag));
  CHECK(flag == 1);
  CHECK_OK(mxc_autograd_set_recording(a, 0, NULL));
  mxc_ctx_free(a), mxc_ctx_free(b);

  /* One ctx across threads, one after the other: the stream continues, the flags stay. */
  {
    Step s1, s2;
    pthread_t t;
    float want1[6], want2[6];
    draw(ref, want1);
    draw(ref, want2);
    CHECK_OK(mxc_autograd_set_recording(moving, 1, NULL));
    memset(&s1, 0, sizeof s1), memset(&s2, 0, sizeof s2);
    s1.ctx = s2.ctx = moving;
    CHECK(pthread_create(&t, NULL, step_thread, &s1) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(pthread_create(&t, NULL, step_thread, &s2) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(memcmp(s1.drawn, want1, sizeof want1) == 0);
    CHECK(memcmp(s2.drawn, want2, sizeof want2) == 0);
    CHECK(s1.errors == 0 && s2.errors == 0);
    CHECK(s1.recording == 1 && s2.recording == 1);
    CHECK(s1.training_before == 0 && s2.training_before == 1);
    CHECK_OK(mxc_autograd_set_recording(moving, 0, NULL));
  }

  /* Two threads in one ctx at once: the second gets FAILED_PRECONDITION; other ctxs run. */
  {
    mxc_custom_op_def def;
    float xv[3] = {-1, 2, -3};
    int64_t s3[1] = {3};
    pthread_t t;
    mxc_ndarray* y;
    mxc_op* relu = NULL;
    size_t n = 0;
    memset(&def, 0, sizeof def);
    def.struct_size = sizeof def;
    def.forward = hold_forward;
    CHECK_OK(mxc_custom_op_register("c_hold", &def, NULL, NULL));
    CHECK_OK(mxc_ctx_create(NULL, &g_busy));
    CHECK_OK(mxc_ctx_create(NULL, &other));
    CHECK_OK(mxc_op_find("relu", &relu));
    g_x = make_f32(xv, s3, 1);
    CHECK(pthread_create(&t, NULL, hold_thread, NULL) == 0);
    pthread_mutex_lock(&g_mu);
    while (!g_entered) pthread_cond_wait(&g_cv, &g_mu);
    pthread_mutex_unlock(&g_mu);
    CHECK(g_nested_ok == 1);
    y = NULL;
    CHECK_ERR(mxc_invoke(g_busy, relu, &g_x, 1, NULL, NULL, 0, &y, 1, &n), MXC_FAILED_PRECONDITION,
              "another thread");
    CHECK(y == NULL);
    CHECK_ERR(mxc_autograd_set_recording(g_busy, 1, NULL), MXC_FAILED_PRECONDITION,
              "another thread");
    CHECK_ERR(mxc_ctx_seed(g_busy, 3), MXC_FAILED_PRECONDITION, "another thread");
    CHECK_OK(mxc_invoke(other, relu, &g_x, 1, NULL, NULL, 0, &y, 1, &n));
    read_f32(y, r, 3);
    CHECK(r[0] == 0 && r[1] == 2 && r[2] == 0);
    mxc_ndarray_free(y);
    CHECK_OK(mxc_invoke(NULL, relu, &g_x, 1, NULL, NULL, 0, &y, 1, &n));
    mxc_ndarray_free(y);
    pthread_mutex_lock(&g_mu);
    g_release = 1;
    pthread_cond_broadcast(&g_cv);
    pthread_mutex_unlock(&g_mu);
    CHECK(pthread_join(t, NULL) == 0);
    CHECK_OK(g_hold_status);
    /* Free again: usable from this thread now. */
    CHECK_OK(mxc_autograd_is_recording(g_busy, &flag));
    CHECK(flag == 0);
    CHECK_OK(mxc_custom_op_unregister("c_hold"));
    mxc_ndarray_free(g_x);
    mxc_ctx_free(g_busy), mxc_ctx_free(other);
  }
  mxc_ctx_free(ref), mxc_ctx_free(moving);

  /* DataLoader workers: random transforms draw from per-batch generators derived from the ctx,
   * so an epoch is repeatable under the same seed whichever worker loads which batch. */
  {
    float xv[16], e1[16], e2[16], e3[16];
    int64_t sx[2] = {8, 2};
    mxc_ndarray* x;
    mxc_dataset *raw = NULL, *ds = NULL;
    mxc_transform* t = NULL;
    int same13 = 1;
    for (i = 0; i < 16; ++i) xv[i] = (float)(10 * i);
    x = make_f32(xv, sx, 2);
    CHECK_OK(mxc_dataset_from_arrays(&x, 1, &raw));
    CHECK_OK(mxc_transform_from_callback(noisy, NULL, NULL, &t));
    CHECK_OK(mxc_dataset_transform_first(raw, t, 1, &ds));
    epoch(ds, 21, e1);
    epoch(ds, 21, e2);
    epoch(ds, 22, e3);
    for (i = 0; i < 16; ++i) {
      CHECK(e1[i] >= xv[i] && e1[i] < xv[i] + 1); /* x + U(0, 1), in order */
      same13 &= e1[i] == e3[i];
    }
    CHECK(memcmp(e1, e2, sizeof e1) == 0);
    CHECK(!same13);
    mxc_transform_free(t);
    mxc_dataset_free(ds), mxc_dataset_free(raw);
    mxc_ndarray_free(x);
  }
  CHECK(live_handles() == live0);
  return check_summary();
}
