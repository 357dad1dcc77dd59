// Lazy updates with row_sparse gradients (MXNet 1.9.1, src/operator/optimizer_op-inl.h): with a
// dense weight and states, a row_sparse grad and lazy_update=True, sgd_update, sgd_mom_update and
// adam_update change only the rows the gradient stores: weight decay, momentum decay and the
// moving averages apply to those rows alone; every other row of the weight and of the states
// stays bit-identical. Per stored row the arithmetic is MXNet's lazy kernels' (bit-identical on
// the reference cases), which is the dense kernel's (optim.cc) except that adam with
// clip_gradient squares the clipped gradient before scaling it (the last bit may differ).
// lazy_update=False (or other storage types) falls back to the dense update of the densified
// gradient (MXNet's "standard update": the same values). _sparse_adagrad_update is MXNet's
// AdaGrad op for row_sparse gradients.
//
// MXNet requires out to be the weight (kWriteInplace); here another out receives a copy of the
// weight with the rows updated.
#pragma once

#include <span>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/optim/optim_params.h"

namespace mxnet::ops {

// _sparse_adagrad_update's attributes (MXNet's AdagradParam, declaration order).
#define MX_ADAGRAD_FIELDS_(X)                                   \
  MX_OPTIM_LR_(X)                                               \
  X(float, epsilon, 1.0e-7f, , "epsilon")                       \
  X(float, wd, 0.0f, , "weight decay (must be 0, as in MXNet)") \
  MX_OPTIM_RESCALE_(X) MX_OPTIM_CLIP_(X)
MX_OPTIM_PARAMS(AdagradParam, MX_ADAGRAD_FIELDS_);

// The storage kernels attached to sgd_update / sgd_mom_update / adam_update (optim.cc): they take
// a dense weight (and states) with a row_sparse grad when lazy_update is true; out is dense.
bool SGDLazyStorage(const OpAttrs& a, std::span<const StorageType> in, std::span<StorageType> out);
bool SGDMomLazyStorage(const OpAttrs& a, std::span<const StorageType> in,
                       std::span<StorageType> out);
bool AdamLazyStorage(const OpAttrs& a, std::span<const StorageType> in, std::span<StorageType> out);
void SGDLazyKernel(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out);
void SGDMomLazyKernel(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out);
void AdamLazyKernel(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out);

}  // namespace mxnet::ops

namespace mxnet::nd {

using AdagradOptions = ops::AdagradParam;

// _sparse_adagrad_update (mx.nd.sparse.adagrad_update): for each row the grad stores,
// g = clip(rescale_grad*grad); history += g^2; weight -= lr * g / sqrt(history + epsilon); other
// rows untouched. weight, history dense (history updated in place), grad row_sparse; a dense
// grad updates every row (MXNet: not supported). wd must be 0 (kInvalidArgument, as MXNet).
NDArray sparse_adagrad_update(const NDArray& weight, const NDArray& grad, const NDArray& history,
                              const AdagradOptions& opts, const NDArray& out = NDArray());

}  // namespace mxnet::nd
