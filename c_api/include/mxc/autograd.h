/* Autograd (mxnet.autograd): recording and training flags live in an mxc_ctx; the recorded
 * history hangs off the arrays, so a graph recorded under one ctx can be differentiated under any
 * ctx, on any thread.
 *
 *   mxc_autograd_set_recording(ctx, 1, &prev);  (with autograd.record():)
 *   ... mxc_invoke(ctx, ...) ...
 *   mxc_autograd_set_recording(ctx, prev, NULL);
 *   mxc_autograd_backward(ctx, &y, 1, NULL, 0, 1);  x's gradient is in mxc_ndarray_grad(x)
 *
 * Threads: the ctx functions follow mxc_ctx's rule (one thread at a time per ctx); backward and
 * grad on disjoint graphs may run concurrently. */
#ifndef MXC_AUTOGRAD_H_
#define MXC_AUTOGRAD_H_

#include "mxc/base.h"
#include "mxc/ctx.h"
#include "mxc/ndarray.h"

MXC_EXTERN_C_BEGIN

/* Gradient requests (MXNet's grad_req). */
#define MXC_GRAD_NULL 0
#define MXC_GRAD_WRITE 1
#define MXC_GRAD_ADD 2

/* Sets the ctx's recording flag (mx.autograd.set_recording); `previous` (may be NULL) gets the
 * old value (0/1). `record` is mx.autograd.record: set recording 1 and training train_mode;
 * `pause` is recording 0. Threads: one thread at a time per ctx. */
MXC_STATUS mxc_autograd_set_recording(mxc_ctx* ctx, int32_t recording,
                                      int32_t* previous) MXC_NOEXCEPT;
/* Sets the ctx's training flag (mx.autograd.set_training: Dropout, BatchNorm behaviour);
 * `previous` (may be NULL) gets the old value. Threads: one thread at a time per ctx. */
MXC_STATUS mxc_autograd_set_training(mxc_ctx* ctx, int32_t training,
                                     int32_t* previous) MXC_NOEXCEPT;
/* Threads: one thread at a time per ctx. */
MXC_STATUS mxc_autograd_is_recording(mxc_ctx* ctx, int32_t* out) MXC_NOEXCEPT;
/* Threads: one thread at a time per ctx. */
MXC_STATUS mxc_autograd_is_training(mxc_ctx* ctx, int32_t* out) MXC_NOEXCEPT;

/* Marks the array as a variable with a zero gradient buffer of its shape/dtype (attach_grad);
 * grad_req is MXC_GRAD_*. Errors: unknown grad_req. Threads: writes the array. */
MXC_STATUS mxc_ndarray_attach_grad(mxc_ndarray* array, int32_t grad_req) MXC_NOEXCEPT;
/* The array's gradient buffer (a +1 handle to the buffer itself, not a copy: backward updates
 * what it shows). Errors: MXC_FAILED_PRECONDITION when the array is no variable.
 * Threads: any; the handles it takes may be read by other threads at the same time. */
MXC_STATUS mxc_ndarray_grad(mxc_ndarray* array, mxc_ndarray** out) MXC_NOEXCEPT;

/* Marks variables[i] as a variable with gradient buffer gradients[i] (same shape) and request
 * grad_reqs[i] (mx.autograd.mark_variables). Errors: shape mismatch, unknown request.
 * Threads: writes its object: no other thread may use it meanwhile. */
MXC_STATUS mxc_autograd_mark_variables(mxc_ndarray* const* variables, mxc_ndarray* const* gradients,
                                       const int32_t* grad_reqs, size_t count) MXC_NOEXCEPT;

/* Back-propagates from heads[0..num_heads) into the variables' gradient buffers (write: overwrite,
 * add: accumulate). head_grads: NULL (ones) or num_heads entries, each NULL (ones) or an array of
 * the head's shape. retain_graph: keep the history for another backward. train_mode: run the
 * backward in training mode (MXNet's default is 1). Errors: a head without recorded history, a
 * second backward over a freed graph, shape mismatches.
 * Threads: one thread at a time per ctx; the other handles may be read concurrently by other calls.
 */
MXC_STATUS mxc_autograd_backward(mxc_ctx* ctx, mxc_ndarray* const* heads, size_t num_heads,
                                 mxc_ndarray* const* head_grads, int32_t retain_graph,
                                 int32_t train_mode) MXC_NOEXCEPT;

/* Gradients of heads w.r.t. variables[0..num_variables) (mx.autograd.grad), written as new arrays
 * to gradients[0..num_variables) (zeros for a variable the heads do not depend on) without
 * touching the variables' buffers. create_graph records the gradient computation itself, so the
 * results can be differentiated again (higher-order gradients; it implies retain_graph).
 * Errors: as mxc_autograd_backward; a variable that is neither marked nor recorded.
 * Threads: one thread at a time per ctx; the other handles may be read concurrently by other calls.
 */
MXC_STATUS mxc_autograd_grad(mxc_ctx* ctx, mxc_ndarray* const* heads, size_t num_heads,
                             mxc_ndarray* const* head_grads, mxc_ndarray* const* variables,
                             size_t num_variables, int32_t retain_graph, int32_t create_graph,
                             int32_t train_mode, mxc_ndarray** gradients) MXC_NOEXCEPT;

MXC_EXTERN_C_END

#endif /* MXC_AUTOGRAD_H_ */
