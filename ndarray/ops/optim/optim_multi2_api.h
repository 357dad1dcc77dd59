// nd:: free functions of the optim family's fused AdamW / LAMB / group AdaGrad ops (MXNet
// 1.9.1's _multi_adamw_update, _multi_mp_adamw_update, _multi_lamb_update,
// _multi_mp_lamb_update, _contrib_group_adagrad_update; src/operator/contrib/adamw*,
// multi_lamb*, optimizer_op*).
//
// The multi functions update weight k with its own lrs[k] / wds[k] (/ etas[k]) in one call and
// return the new weights, written to `out` when given (pass the weights themselves for MXNet's
// in-place `out=weights` update; MXNet requires out) or to new arrays. means, vars (and mp_
// master weights weights32, float32) are updated in place. Weight k, grad k, mean k, var k
// (weights32 k) share one shape; weights and grads of all k share one floating dtype; means and
// vars have the weights' dtype (mp_: float32). num_weights / num_tensors is set from
// weights.size(); lrs, wds, etas, step_count must hold that many values. Errors
// (kInvalidArgument) name the op and the input.
#pragma once

#include <vector>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/optim/optim_params.h"

namespace mxnet::nd {

using MultiAdamWOptions = ops::MultiAdamWParam;
using MultiLAMBOptions = ops::MultiLAMBParam;
using GroupAdagradOptions = ops::GroupAdagradParam;

// AdamW without bias correction (MXNet's kernel), per weight k with g = clip(rescale_grad*grad,
// clip_gradient):
//   mean = beta1*mean + (1-beta1)*g;  var = beta2*var + (1-beta2)*g^2
//   w = w - etas[k]*(lrs[k]*mean/(sqrt(var) + epsilon) + wds[k]*w)
// rescale_grad: an array whose first element is the scale (float32 for mp_, else the weights'
// dtype); when it is 0, NaN or infinite nothing is updated (the outputs get the weights).
std::vector<NDArray> multi_adamw_update(const std::vector<NDArray>& weights,
                                        const std::vector<NDArray>& grads,
                                        const std::vector<NDArray>& means,
                                        const std::vector<NDArray>& vars,
                                        const NDArray& rescale_grad, MultiAdamWOptions opts,
                                        const std::vector<NDArray>& out = {});
std::vector<NDArray> multi_mp_adamw_update(const std::vector<NDArray>& weights,
                                           const std::vector<NDArray>& grads,
                                           const std::vector<NDArray>& means,
                                           const std::vector<NDArray>& vars,
                                           const std::vector<NDArray>& weights32,
                                           const NDArray& rescale_grad, MultiAdamWOptions opts,
                                           const std::vector<NDArray>& out = {});

// LAMB (You et al. 2019, MXNet's kernel), per tensor k with g = clip(grad*rescale_grad,
// clip_gradient), t = step_count[k]:
//   mean = beta1*mean + (1-beta1)*g;  var = beta2*var + (1-beta2)*g^2
//   u = mean_hat/(sqrt(var_hat) + epsilon) + wds[k]*w   (hats: divided by 1-beta^t when
//                                                        bias_correction, else the raw moments)
//   r1 = |w| (the weights' norm, clamped to [lower_bound, upper_bound] where those are >= 0),
//   r2 = |u|; w = w - learning_rates[k]*(r1/r2 if both > 0 else 1)*u.
std::vector<NDArray> multi_lamb_update(const std::vector<NDArray>& weights,
                                       const std::vector<NDArray>& grads,
                                       const std::vector<NDArray>& means,
                                       const std::vector<NDArray>& vars, MultiLAMBOptions opts,
                                       const std::vector<NDArray>& out = {});
std::vector<NDArray> multi_mp_lamb_update(const std::vector<NDArray>& weights,
                                          const std::vector<NDArray>& grads,
                                          const std::vector<NDArray>& means,
                                          const std::vector<NDArray>& vars,
                                          const std::vector<NDArray>& weights32,
                                          MultiLAMBOptions opts,
                                          const std::vector<NDArray>& out = {});

// Group AdaGrad (one history value per row; dense gradient): with g = clip(rescale_grad*grad,
// clip_gradient) and rows = weight.shape[0],
//   history[r] += mean(g[r]^2);  w[r] = w[r] - lr*g[r]/sqrt(history[r] + epsilon).
// history: rows values, shape (rows,) or (rows, 1), weight's dtype; updated in place.
NDArray group_adagrad_update(const NDArray& weight, const NDArray& grad, const NDArray& history,
                             const GroupAdagradOptions& opts, const NDArray& out = NDArray());

}  // namespace mxnet::nd
