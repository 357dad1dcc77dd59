/* mxc/log.h: the progress/log sink. DataLoader and Trainer progress reports with their counts,
 * the min_level filter, messages sent by mxc_log_message, sink errors never failing the
 * reporting call, a sink that reports again (no deadlock), replacing the sink freeing its
 * user_data exactly once, and argument errors. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>

#include "check.h"

typedef struct {
  int id;
  int count;
  int32_t level[64];
  int64_t done[64], total[64];
  char source[64][40];
  char message[64][40];
  int off_thread;
  int fail; /* return an error status from every call */
  int nested;
} Sink;

static int g_freed[4];
static pthread_t g_main;

static void free_sink(void* p) {
  Sink* s = (Sink*)p;
  g_freed[s->id]++;
  free(s);
}

static mxc_status* sink_fn(void* user_data, int32_t level, const char* source, const char* message,
                           int64_t done, int64_t total) {
  Sink* s = (Sink*)user_data;
  if (!pthread_equal(pthread_self(), g_main)) s->off_thread++;
  if (s->count < 64) {
    s->level[s->count] = level;
    s->done[s->count] = done;
    s->total[s->count] = total;
    snprintf(s->source[s->count], 40, "%s", source);
    snprintf(s->message[s->count], 40, "%s", message);
  }
  s->count++;
  if (s->nested && level == MXC_LOG_WARNING) {
    /* Reporting from inside the sink: delivered (serialized on the same thread), no deadlock. */
    mxc_status* st;
    s->nested = 0;
    st = mxc_log_message(MXC_LOG_INFO, "test", "nested", -1, -1);
    if (st) mxc_status_free(st);
  }
  return s->fail ? mxc_status_create(MXC_INTERNAL, "sink failed") : NULL;
}

static Sink* new_sink(int id) {
  Sink* s = (Sink*)calloc(1, sizeof(Sink));
  s->id = id;
  return s;
}

int main(void) {
  Sink *s0 = new_sink(0), *s1 = new_sink(1);
  mxc_ctx* ctx = NULL;
  uint64_t live0 = live_handles();
  int i;
  g_main = pthread_self();
  CHECK_OK(mxc_ctx_create(NULL, &ctx));

  /* Argument errors; nothing installed, nothing freed. */
  CHECK_ERR(mxc_log_set_sink(sink_fn, s0, free_sink, 7), MXC_INVALID_ARGUMENT, "min_level");
  CHECK_ERR(mxc_log_set_sink(NULL, s0, free_sink, 0), MXC_INVALID_ARGUMENT, "fn");
  CHECK_ERR(mxc_log_message(9, "a", "b", -1, -1), MXC_INVALID_ARGUMENT, "level");
  CHECK_ERR(mxc_log_message(MXC_LOG_INFO, NULL, "b", -1, -1), MXC_INVALID_ARGUMENT, "source");
  CHECK_ERR(mxc_log_message(MXC_LOG_INFO, "a", "\xc3", -1, -1), MXC_INVALID_ARGUMENT, "UTF-8");
  CHECK(g_freed[0] == 0);

  /* Everything from PROGRESS up. */
  CHECK_OK(mxc_log_set_sink(sink_fn, s0, free_sink, MXC_LOG_PROGRESS));
  CHECK_OK(mxc_log_message(MXC_LOG_WARNING, "test", "hello", -1, -1));
  CHECK(s0->count == 1 && s0->level[0] == MXC_LOG_WARNING);
  CHECK(strcmp(s0->source[0], "test") == 0 && strcmp(s0->message[0], "hello") == 0);
  CHECK(s0->done[0] == -1 && s0->total[0] == -1);

  /* DataLoader progress: 5 samples, batch 2, keep the last batch: 3 batches per epoch. */
  {
    float xv[10];
    int64_t sx[2] = {5, 2};
    mxc_ndarray *x, *batch[1];
    mxc_dataset* ds = NULL;
    mxc_dataloader* dl = NULL;
    mxc_dataloader_options lo;
    size_t n = 0;
    int32_t has = 0;
    int epoch, b;
    for (i = 0; i < 10; ++i) xv[i] = (float)i;
    x = make_f32(xv, sx, 2);
    CHECK_OK(mxc_dataset_from_arrays(&x, 1, &ds));
    memset(&lo, 0, sizeof lo);
    lo.struct_size = sizeof lo;
    lo.batch_size = 2;
    CHECK_OK(mxc_dataloader_create(ds, &lo, &dl));
    s0->count = 0;
    for (epoch = 0; epoch < 2; ++epoch) {
      for (b = 0;; ++b) {
        CHECK_OK(mxc_dataloader_next(ctx, dl, batch, 1, &n, &has));
        if (!has) break;
        mxc_ndarray_free(batch[0]);
      }
      CHECK(b == 3);
    }
    CHECK(s0->count == 6);
    for (i = 0; i < 6 && i < s0->count; ++i) {
      char want[40];
      snprintf(want, sizeof want, "batch %d/3", i % 3 + 1);
      CHECK(s0->level[i] == MXC_LOG_PROGRESS);
      CHECK(strcmp(s0->source[i], "mxc_dataloader_next") == 0);
      CHECK(strcmp(s0->message[i], want) == 0);
      CHECK(s0->done[i] == i % 3 + 1 && s0->total[i] == 3);
    }
    /* A failing sink never fails the call. */
    s0->fail = 1;
    CHECK_OK(mxc_dataloader_next(ctx, dl, batch, 1, &n, &has));
    CHECK(has == 1);
    mxc_ndarray_free(batch[0]);
    s0->fail = 0;
    mxc_dataloader_free(dl);
    mxc_dataset_free(ds);
    mxc_ndarray_free(x);
  }

  /* Trainer progress: "step <k>" with the optimizer's update count. */
  {
    float xv[6] = {1, -1, 0.5f, 2, 0, -0.5f};
    int64_t sx[2] = {3, 2};
    mxc_ndarray* x = make_f32(xv, sx, 2);
    mxc_block* net = make_mlp("4", "2");
    mxc_parameter** ps = NULL;
    size_t np = 0, n = 0;
    mxc_trainer* tr = NULL;
    int step;
    const char* k[1] = {"learning_rate"};
    const char* v[1] = {"0.1"};
    CHECK_OK(mxc_block_initialize(ctx, net, "xavier", cpu0(), 0));
    CHECK_OK(mxc_block_collect_params(net, NULL, &ps, &np));
    CHECK_OK(mxc_trainer_create(ps, np, "sgd", k, v, 1, &tr));
    s0->count = 0;
    for (step = 0; step < 2; ++step) {
      mxc_ndarray *y = NULL, *l;
      CHECK_OK(mxc_autograd_set_recording(ctx, 1, NULL));
      CHECK_OK(mxc_block_call(ctx, net, &x, 1, &y, 1, &n));
      l = run1(ctx, "sum", &y, 1, NULL, NULL, 0);
      CHECK_OK(mxc_autograd_set_recording(ctx, 0, NULL));
      CHECK_OK(mxc_autograd_backward(ctx, &l, 1, NULL, 0, 1));
      CHECK_OK(mxc_trainer_step(ctx, tr, 3, 0));
      mxc_ndarray_free(y), mxc_ndarray_free(l);
    }
    CHECK(s0->count == 2);
    CHECK(s0->level[0] == MXC_LOG_PROGRESS && strcmp(s0->source[0], "mxc_trainer_step") == 0);
    CHECK(strcmp(s0->message[0], "step 1") == 0 && s0->done[0] == 1 && s0->total[0] == -1);
    CHECK(strcmp(s0->message[1], "step 2") == 0 && s0->done[1] == 2);
    mxc_trainer_free(tr);
    mxc_parameter_array_free(ps, np);
    mxc_block_free(net);
    mxc_ndarray_free(x);
  }

  /* A sink reporting again from inside itself. */
  s0->count = 0;
  s0->nested = 1;
  CHECK_OK(mxc_log_message(MXC_LOG_WARNING, "test", "outer", -1, -1));
  CHECK(s0->count == 2 && strcmp(s0->message[1], "nested") == 0);
  CHECK(s0->off_thread == 0);

  /* Replacing the sink frees the previous user_data once; min_level filters. */
  CHECK(g_freed[0] == 0);
  CHECK_OK(mxc_log_set_sink(sink_fn, s1, free_sink, MXC_LOG_WARNING));
  CHECK(g_freed[0] == 1);
  CHECK_OK(mxc_log_message(MXC_LOG_INFO, "test", "dropped", -1, -1));
  CHECK_OK(mxc_log_message(MXC_LOG_PROGRESS, "test", "dropped", 1, 2));
  CHECK(s1->count == 0);
  CHECK_OK(mxc_log_message(MXC_LOG_ERROR, "test", "kept", -1, -1));
  CHECK(s1->count == 1 && s1->level[0] == MXC_LOG_ERROR);
  /* Back to the default sink (stderr for warnings): s1 freed once. */
  CHECK_OK(mxc_log_set_sink(NULL, NULL, NULL, 0));
  CHECK(g_freed[1] == 1);
  CHECK_OK(mxc_log_message(MXC_LOG_PROGRESS, "test", "dropped by the default sink", 1, 2));
  CHECK(g_freed[0] == 1 && g_freed[1] == 1);
  mxc_ctx_free(ctx);
  CHECK(live_handles() == live0);
  return check_summary();
}
