/* Training (mxnet.gluon.loss, mxnet.gluon.Trainer): losses by name (they are blocks: call them
 * with mxc_block_call on {pred, label[, sample_weight]}) and the Trainer that applies an optimizer
 * to parameters after mxc_autograd_backward.
 *
 * Keyword arguments (optimizer options, loss options) are passed as strings, keys[i] = values[i],
 * in Python's spelling: "0.1", "True", "None", "[10, 20]". Unknown keys and values of the wrong
 * type are MXC_INVALID_ARGUMENT naming the owner, the key and the value (and listing the accepted
 * keys).
 *
 * Threads: a trainer is used by one thread at a time; step/update write its parameters, so no
 * other thread may call the blocks owning them meanwhile. Freeing is safe from any thread. */
#ifndef MXC_TRAINING_H_
#define MXC_TRAINING_H_

#include "mxc/base.h"
#include "mxc/ctx.h"
#include "mxc/gluon.h"

MXC_EXTERN_C_BEGIN

typedef struct mxc_trainer mxc_trainer;

/* ---- Losses (gluon.loss). ---- */

/* The loss names mxc_loss_create accepts, sorted (MXNet's class names and aliases: "L1Loss",
 * "L2Loss", "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", ...); free *names with
 * mxc_string_array_free(*names, *count). Threads: any. */
MXC_STATUS mxc_loss_list(char*** names, size_t* count) MXC_NOEXCEPT;

/* A loss block by MXNet class name with its keyword arguments (as gluon.loss.<name>(**kwargs)):
 * every loss takes weight (default None; L2Loss 1.0) and batch_axis (0); also
 * SoftmaxCrossEntropyLoss: axis (-1), sparse_label (True), from_logits (False);
 * SigmoidBinaryCrossEntropyLoss: from_sigmoid (False); KLDivLoss: from_logits (True), axis (-1);
 * HuberLoss: rho (1); HingeLoss, SquaredHingeLoss, TripletLoss: margin (1); LogisticLoss:
 * label_format ("signed"); PoissonNLLLoss: from_logits (True), compute_full (False), epsilon
 * (1e-08); CosineEmbeddingLoss: margin (0).
 * Calling it (mxc_block_call) on (pred (batch, ...) float, label[, sample_weight]) gives one
 * output, the per-sample loss (batch,) (shapes as gluon.loss; see gluon/loss/loss.h). Under a
 * recording ctx its output can be the head of mxc_autograd_backward.
 * Errors: an unknown name (listing the valid ones), bad keyword arguments. Threads: any. */
MXC_STATUS mxc_loss_create(const char* name, const char* const* keys, const char* const* values,
                           size_t num_kwargs, mxc_block** out) MXC_NOEXCEPT;

/* ---- Trainer (gluon.Trainer). ---- */

/* A trainer over params[0..num_params) (the optimizer's index of a parameter is its position;
 * parameters with grad_req null are skipped) with the optimizer `optimizer` ("sgd", "adam",
 * "nag", "rmsprop", "adagrad", "adadelta", "ftrl", "signum", "lamb", ... as mx.optimizer) and its
 * keyword arguments (learning_rate, wd, momentum, beta1, clip_gradient, rescale_grad,
 * multi_precision, ...). The trainer keeps the parameters alive.
 * Errors: an unknown optimizer (MXC_NOT_FOUND listing them), bad keyword arguments, NULL/invalid
 * handles.
 * Threads: any. */
MXC_STATUS mxc_trainer_create(mxc_parameter* const* params, size_t num_params,
                              const char* optimizer, const char* const* keys,
                              const char* const* values, size_t num_kwargs,
                              mxc_trainer** out) MXC_NOEXCEPT;
/* +1 reference. Threads: any. */
MXC_STATUS mxc_trainer_retain(mxc_trainer* trainer) MXC_NOEXCEPT;
/* -1 reference; NULL and invalid handles are ignored. Threads: any. */
MXC_API void mxc_trainer_free(mxc_trainer* trainer) MXC_NOEXCEPT;

/* One optimization step (Trainer.step): gradients scaled by 1/batch_size, summed over device
 * copies, every parameter updated. Random optimizers draw from ctx's stream (NULL: the global
 * one). ignore_stale_grad nonzero: parameters whose gradient backward did not write since the
 * last step are skipped (else they are MXC_FAILED_PRECONDITION naming the parameter, before
 * anything is updated). Errors: batch_size <= 0, uninitialized parameters, stale gradients.
 * Threads: one thread at a time per trainer (see the top of this file). */
MXC_STATUS mxc_trainer_step(mxc_ctx* ctx, mxc_trainer* trainer, double batch_size,
                            int32_t ignore_stale_grad) MXC_NOEXCEPT;

/* The optimizer's current learning rate (its scheduler's, if any). Threads: one at a time. */
MXC_STATUS mxc_trainer_learning_rate(mxc_trainer* trainer, double* out) MXC_NOEXCEPT;
/* Sets it. Errors: MXC_FAILED_PRECONDITION when the optimizer has an lr_scheduler.
 * Threads: one thread at a time per trainer. */
MXC_STATUS mxc_trainer_set_learning_rate(mxc_trainer* trainer, double lr) MXC_NOEXCEPT;

/* Optimizer and per-parameter states to `path` (MXNet's NDArray dict format, written to a
 * temporary file renamed over `path`; see gluon/training/trainer.h) / back. load_states needs a
 * trainer with the same optimizer class and parameter shapes. Errors: I/O (MXC_NOT_FOUND, ...),
 * a different optimizer or shapes (MXC_INVALID_ARGUMENT). Threads: one thread at a time. */
MXC_STATUS mxc_trainer_save_states(mxc_trainer* trainer, const char* path) MXC_NOEXCEPT;
MXC_STATUS mxc_trainer_load_states(mxc_trainer* trainer, const char* path) MXC_NOEXCEPT;

MXC_EXTERN_C_END

#endif /* MXC_TRAINING_H_ */
