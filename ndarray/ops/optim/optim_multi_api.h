// nd:: free functions of the optim family's multi-tensor ops (MXNet 1.9.1's multi_sgd_update,
// multi_sgd_mom_update, multi_mp_sgd_update, multi_mp_sgd_mom_update, their preloaded_ variants,
// ftml_update, multi_sum_sq, multi_lars, all_finite, multi_all_finite, reset_arrays).
//
// The multi_*sgd* functions update weight k with lrs[k], wds[k] exactly as sgd_update /
// sgd_mom_update (and the mp_ versions) would, in one call:
//   mom = momentum*mom - lr*wd*w - lr*clip(rescale_grad*grad, clip_gradient); w += mom
// (no momentum: mom = 0). They return the new weights, written to `out` when given (pass the
// weights themselves for MXNet's in-place `out=weights` update) or to new arrays otherwise.
// Momenta (and mp_ master weights weights32) are updated in place. Weight k, grad k, mom k and
// weights32 k share one shape; weights and grads share one floating dtype (all k); mp_ momenta
// and weights32 are float32. num_weights is set from weights.size() (MXNet allows at most 60
// in its kernels; we have no limit). Errors (kInvalidArgument) name the op and the input.
#pragma once

#include <vector>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/optim/optim_params.h"

namespace mxnet::nd {

using MultiSGDOptions = ops::MultiSGDParam;
using MultiSGDMomOptions = ops::MultiSGDMomParam;
using PreloadedMultiSGDOptions = ops::PreloadedMultiSGDParam;
using PreloadedMultiSGDMomOptions = ops::PreloadedMultiSGDMomParam;
using FTMLOptions = ops::FTMLParam;
using LARSOptions = ops::LARSParam;

// lrs/wds in opts (one per weight).
std::vector<NDArray> multi_sgd_update(const std::vector<NDArray>& weights,
                                      const std::vector<NDArray>& grads, MultiSGDOptions opts,
                                      const std::vector<NDArray>& out = {});
std::vector<NDArray> multi_sgd_mom_update(const std::vector<NDArray>& weights,
                                          const std::vector<NDArray>& grads,
                                          const std::vector<NDArray>& moms, MultiSGDMomOptions opts,
                                          const std::vector<NDArray>& out = {});
std::vector<NDArray> multi_mp_sgd_update(const std::vector<NDArray>& weights,
                                         const std::vector<NDArray>& grads,
                                         const std::vector<NDArray>& weights32,
                                         MultiSGDOptions opts,
                                         const std::vector<NDArray>& out = {});
std::vector<NDArray> multi_mp_sgd_mom_update(const std::vector<NDArray>& weights,
                                             const std::vector<NDArray>& grads,
                                             const std::vector<NDArray>& moms,
                                             const std::vector<NDArray>& weights32,
                                             MultiSGDMomOptions opts,
                                             const std::vector<NDArray>& out = {});
// lrs/wds as float32 arrays of num_weights elements (read on the device, no host sync in MXNet).
std::vector<NDArray> preloaded_multi_sgd_update(const std::vector<NDArray>& weights,
                                                const std::vector<NDArray>& grads,
                                                const NDArray& lrs, const NDArray& wds,
                                                PreloadedMultiSGDOptions opts = {},
                                                const std::vector<NDArray>& out = {});
std::vector<NDArray> preloaded_multi_sgd_mom_update(const std::vector<NDArray>& weights,
                                                    const std::vector<NDArray>& grads,
                                                    const std::vector<NDArray>& moms,
                                                    const NDArray& lrs, const NDArray& wds,
                                                    PreloadedMultiSGDMomOptions opts = {},
                                                    const std::vector<NDArray>& out = {});
std::vector<NDArray> preloaded_multi_mp_sgd_update(const std::vector<NDArray>& weights,
                                                   const std::vector<NDArray>& grads,
                                                   const std::vector<NDArray>& weights32,
                                                   const NDArray& lrs, const NDArray& wds,
                                                   PreloadedMultiSGDOptions opts = {},
                                                   const std::vector<NDArray>& out = {});
std::vector<NDArray> preloaded_multi_mp_sgd_mom_update(const std::vector<NDArray>& weights,
                                                       const std::vector<NDArray>& grads,
                                                       const std::vector<NDArray>& moms,
                                                       const std::vector<NDArray>& weights32,
                                                       const NDArray& lrs, const NDArray& wds,
                                                       PreloadedMultiSGDMomOptions opts = {},
                                                       const std::vector<NDArray>& out = {});

// FTML (Zheng & Kwok, ICML 2017), MXNet's ftml_update: with g = clip(rescale_grad*grad +
// wd*weight, clip_grad), v = beta2*v + (1-beta2)*g^2,
// d_t = (1 - beta1^t)/lr * (sqrt(v/(1 - beta2^t)) + epsilon),
// z = beta1*z + (1-beta1)*g - (d_t - beta1*d)*weight, d = d_t; returns -z/d_t.
// d, v, z (the weight's shape and dtype) are updated in place.
NDArray ftml_update(const NDArray& weight, const NDArray& grad, const NDArray& d, const NDArray& v,
                    const NDArray& z, const FTMLOptions& opts, const NDArray& out = NDArray());

// Sums of squares of each array (one floating dtype for all), as float32 of shape (n,),
// accumulated in float32 like MXNet's CPU kernel.
NDArray multi_sum_sq(const std::vector<NDArray>& arrays);
// LARS learning rates (float32, all four of one shape): lrs*eta*|w| / (|g|*rescale_grad +
// wds*|w| + eps) where |w| = sqrt(weights_sum_sq), |g| = sqrt(grads_sum_sq) are both > 0,
// else lrs.
NDArray multi_lars(const NDArray& lrs, const NDArray& weights_sum_sq, const NDArray& grads_sum_sq,
                   const NDArray& wds, const LARSOptions& opts);
// float32 (1,): 1 if every element (read as float32) is finite, else 0. With
// init_output=False the output keeps its value unless a non-finite element is found (pass `out`).
NDArray all_finite(const NDArray& data, bool init_output = true, const NDArray& out = NDArray());
NDArray multi_all_finite(const std::vector<NDArray>& arrays, bool init_output = true,
                         const NDArray& out = NDArray());
// Sets every element of every array to 0 (in place; no outputs).
void reset_arrays(const std::vector<NDArray>& arrays);

}  // namespace mxnet::nd
