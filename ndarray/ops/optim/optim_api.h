// nd:: free functions of the optim op family (see ndarray/ops/BUILD): MXNet 1.9.1's fused
// optimizer updates (mx.nd.sgd_update, adam_update, ...). Options structs are the ops' typed
// attributes (ndarray/ops/optim/optim_params.h, MXNet's defaults; `lr` and the other fields MXNet
// requires must be set):
//   nd::sgd_mom_update(w, g, mom, {.lr = 0.1f, .momentum = 0.9f}, /*out=*/w);  // in place
//
// Every function returns the updated weight, written to `out` when given (pass the weight itself
// for MXNet's in-place `out=weight` update; `out` must have the weight's shape and dtype) or to
// a new array otherwise. State arrays (mom, mean, var, n, z, ...) are updated in place and must
// have the weight's shape; they share its dtype, except for the mp_* variants whose states and
// weight32 (the master copy) are float32 while weight and grad are float16 (or any float type).
// Weights must be floating point (float32, float64, float16, bfloat16). Shared semantics of lr,
// wd, rescale_grad and clip_gradient are described in optim_params.h. Errors (kInvalidArgument)
// name the op and the offending input. CPU kernels only (kUnimplemented on other devices).
#pragma once

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/optim/optim_params.h"

namespace mxnet::nd {

using SGDOptions = ops::SGDParam;
using SGDMomOptions = ops::SGDMomParam;
using NAGMomOptions = ops::NAGMomParam;
using AdamOptions = ops::AdamParam;
using AdamWOptions = ops::AdamWParam;
using RMSPropOptions = ops::RMSPropParam;
using RMSPropAlexOptions = ops::RMSPropAlexParam;
using FtrlOptions = ops::FtrlParam;
using SignSGDOptions = ops::SignSGDParam;
using SignumOptions = ops::SignumParam;
using LambPhase1Options = ops::LambUpdatePhaseOneParam;
using LambPhase2Options = ops::LambUpdatePhaseTwoParam;

// weight = (1 - lr*wd)*weight - lr*clip(rescale_grad*grad).
NDArray sgd_update(const NDArray& weight, const NDArray& grad, const SGDOptions& opts,
                   const NDArray& out = NDArray());
// mom = momentum*mom - lr*wd*weight - lr*clip(rescale_grad*grad); weight += mom.
NDArray sgd_mom_update(const NDArray& weight, const NDArray& grad, const NDArray& mom,
                       const SGDMomOptions& opts, const NDArray& out = NDArray());
// The same on a float32 master copy weight32 (updated in place; out gets it rounded).
NDArray mp_sgd_update(const NDArray& weight, const NDArray& grad, const NDArray& weight32,
                      const SGDOptions& opts, const NDArray& out = NDArray());
NDArray mp_sgd_mom_update(const NDArray& weight, const NDArray& grad, const NDArray& mom,
                          const NDArray& weight32, const SGDMomOptions& opts,
                          const NDArray& out = NDArray());
// Nesterov momentum (MXNet's NAG formulation).
NDArray nag_mom_update(const NDArray& weight, const NDArray& grad, const NDArray& mom,
                       const NAGMomOptions& opts, const NDArray& out = NDArray());
NDArray mp_nag_mom_update(const NDArray& weight, const NDArray& grad, const NDArray& mom,
                          const NDArray& weight32, const NAGMomOptions& opts,
                          const NDArray& out = NDArray());
// Adam without bias correction (MXNet folds it into lr): g = clip(rescale_grad*grad + wd*weight),
// mean = beta1*mean + (1-beta1)*g, var = beta2*var + (1-beta2)*g^2,
// weight -= lr*mean/(sqrt(var) + epsilon).
NDArray adam_update(const NDArray& weight, const NDArray& grad, const NDArray& mean,
                    const NDArray& var, const AdamOptions& opts, const NDArray& out = NDArray());
// AdamW (MXNet's _adamw_update): g = clip(rescale_grad*grad), moments as Adam,
// weight -= eta*(lr*mean/(sqrt(var) + epsilon) + wd*weight). rescale_grad is a one-element
// float32 array; the update is skipped when it is NaN, Inf or 0.
NDArray adamw_update(const NDArray& weight, const NDArray& grad, const NDArray& mean,
                     const NDArray& var, const NDArray& rescale_grad, const AdamWOptions& opts,
                     const NDArray& out = NDArray());
NDArray mp_adamw_update(const NDArray& weight, const NDArray& grad, const NDArray& mean,
                        const NDArray& var, const NDArray& weight32, const NDArray& rescale_grad,
                        const AdamWOptions& opts, const NDArray& out = NDArray());
// RMSProp: g = clip(rescale_grad*grad + wd*weight); n = (1-gamma1)*g^2 + gamma1*n;
// weight -= lr*g/sqrt(n + epsilon) (then clipped to clip_weights when >= 0).
NDArray rmsprop_update(const NDArray& weight, const NDArray& grad, const NDArray& n,
                       const RMSPropOptions& opts, const NDArray& out = NDArray());
// Centered RMSProp (Graves): n, g moving averages of g^2 and g;
// delta = gamma2*delta - lr*g/sqrt(n - g^2 + epsilon); weight += delta.
NDArray rmspropalex_update(const NDArray& weight, const NDArray& grad, const NDArray& n,
                           const NDArray& g, const NDArray& delta, const RMSPropAlexOptions& opts,
                           const NDArray& out = NDArray());
// FTRL-Proximal.
NDArray ftrl_update(const NDArray& weight, const NDArray& grad, const NDArray& z, const NDArray& n,
                    const FtrlOptions& opts, const NDArray& out = NDArray());
// weight = (1 - lr*wd)*weight - lr*sign(grad).
NDArray signsgd_update(const NDArray& weight, const NDArray& grad, const SignSGDOptions& opts,
                       const NDArray& out = NDArray());
// mom = momentum*mom - (1-momentum)*(wd*weight + clip(rescale_grad*grad));
// weight = (1 - lr*wd_lh)*weight + lr*sign(mom).
NDArray signum_update(const NDArray& weight, const NDArray& grad, const NDArray& mom,
                      const SignumOptions& opts, const NDArray& out = NDArray());
// LAMB: phase 1 updates mean/var and returns g (a new array unless `out`); phase 2 applies
// weight -= lr*(r1/r2)*g with one-element r1 = ||weight||, r2 = ||g||.
NDArray lamb_update_phase1(const NDArray& weight, const NDArray& grad, const NDArray& mean,
                           const NDArray& var, const LambPhase1Options& opts,
                           const NDArray& out = NDArray());
NDArray lamb_update_phase2(const NDArray& weight, const NDArray& g, const NDArray& r1,
                           const NDArray& r2, const LambPhase2Options& opts,
                           const NDArray& out = NDArray());
// Multi-precision LAMB: float32 mean, var, weight32 and g; phase 2 also updates weight32.
NDArray mp_lamb_update_phase1(const NDArray& weight, const NDArray& grad, const NDArray& mean,
                              const NDArray& var, const NDArray& weight32,
                              const LambPhase1Options& opts, const NDArray& out = NDArray());
NDArray mp_lamb_update_phase2(const NDArray& weight, const NDArray& g, const NDArray& r1,
                              const NDArray& r2, const NDArray& weight32,
                              const LambPhase2Options& opts, const NDArray& out = NDArray());

}  // namespace mxnet::nd
