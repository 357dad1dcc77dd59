/* mxc_ctx: explicit runtime state instead of hidden thread-locals. A ctx holds the autograd
 * recording and training flags, the default device of calls that create arrays without inputs,
 * and an RNG stream. Every call that runs operators takes one (NULL: not recording, predict mode,
 * cpu(0), the process-wide generators; inside a callback (a transform on a DataLoader worker, a
 * custom op) random operators called with NULL draw from the generators of the call running it,
 * e.g. a worker's per-batch generators derived from the loader's ctx).
 *
 * Each ctx owns its runtime state (ABI 1.1: one C++ RuntimeContext per ctx, entered for the
 * duration of each call), so two ctxs on one thread never see each other's flags or RNG stream,
 * and a ctx that moves between threads carries its state along.
 *
 * Threads: a ctx is used by one thread at a time (it may move between threads, e.g. goroutines,
 * JVM pools); distinct ctxs run concurrently. A call entering a ctx while another thread is inside
 * a call with it fails with MXC_FAILED_PRECONDITION ("already in use by another thread"): misuse
 * is detected, never a race. Freeing is safe from any thread. */
#ifndef MXC_CTX_H_
#define MXC_CTX_H_

#include "mxc/base.h"

MXC_EXTERN_C_BEGIN

typedef struct mxc_ctx mxc_ctx;

typedef struct mxc_ctx_options {
  size_t struct_size;
  /* Default device of arrays made by operators without inputs; {0, 0}: cpu(0). */
  mxc_device device;
  /* Nonzero: the ctx gets its own RNG stream seeded with `seed` (mxc_ctx_seed); zero: random
   * operators draw from the process-wide generators (mxc_random_seed). */
  int32_t has_seed;
  uint64_t seed;
} mxc_ctx_options;

/* A new ctx: not recording, predict mode (training off), `options` applied (NULL: defaults).
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ctx_create(const mxc_ctx_options* options, mxc_ctx** out) MXC_NOEXCEPT;
/* +1 reference. Errors: invalid handle. Threads: any. */
MXC_STATUS mxc_ctx_retain(mxc_ctx* ctx) MXC_NOEXCEPT;
/* -1 reference; frees the ctx at zero. NULL and invalid handles are ignored.
 * Threads: any (also the thread that did not create it). */
MXC_API void mxc_ctx_free(mxc_ctx* ctx) MXC_NOEXCEPT;

/* The default device (for operators without inputs).
 * Threads: one thread at a time per ctx. */
MXC_STATUS mxc_ctx_device(mxc_ctx* ctx, mxc_device* out) MXC_NOEXCEPT;
/* Sets the default device; `previous` (may be NULL) gets the old one. Errors: unknown device
 * type, negative id. Threads: one thread at a time per ctx. */
MXC_STATUS mxc_ctx_set_device(mxc_ctx* ctx, mxc_device device, mxc_device* previous) MXC_NOEXCEPT;
/* Gives the ctx its own RNG stream restarted from `seed` (one generator per device derived from
 * it, like mx.random.seed): the same seed gives the same random operator outputs.
 * Threads: one thread at a time per ctx. */
MXC_STATUS mxc_ctx_seed(mxc_ctx* ctx, uint64_t seed) MXC_NOEXCEPT;

/* Seeds the process-wide generators (mx.random.seed), which ctxs without their own stream and
 * NULL ctxs use. Threads: any. */
MXC_STATUS mxc_random_seed(uint64_t seed) MXC_NOEXCEPT;

MXC_EXTERN_C_END

#endif /* MXC_CTX_H_ */
