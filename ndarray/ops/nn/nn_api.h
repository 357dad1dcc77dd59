// nd:: free functions of the nn op family (see ndarray/ops/BUILD): normalization, activations,
// softmax and loss layers, Dropout. Options structs are the ops' typed attributes
// (ndarray/ops/nn/nn_params.h) with MXNet 1.9.1's C++ defaults, used like Python kwargs:
//   nd::BatchNorm(x, gamma, beta, mean, var, {.eps = 1e-5, .fix_gamma = false});
//   nd::Activation(x, "relu");
//   nd::softmax(x, {.axis = -1});
//   nd::Dropout(x, {.p = 0.5});
// Inputs must be floating-point (float32, float64; float16/bfloat16 run on the reference kernels)
// unless noted. Errors throw mxnet::Error(kInvalidArgument) naming the op and the offending
// input, attribute or shape. Training behaviour (BatchNorm batch statistics, Dropout, rrelu)
// follows the thread's autograd train mode (autograd::train_mode / record).
#pragma once

#include <string>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/nn/nn_params.h"

namespace mxnet::nd {

using BatchNormOptions = ops::BatchNormParam;
using LayerNormOptions = ops::LayerNormParam;
using GroupNormOptions = ops::GroupNormParam;
using InstanceNormOptions = ops::InstanceNormParam;
using LeakyReLUOptions = ops::LeakyReLUParam;
using SoftmaxOptions = ops::SoftmaxParam;
using SoftmaxActivationOptions = ops::SoftmaxActivationParam;
using SoftmaxOutputOptions = ops::SoftmaxOutputParam;
using DropoutOptions = ops::DropoutParam;
using RegressionOutputOptions = ops::RegressionOutputParam;

// ---- Normalization (mx.nd.BatchNorm, LayerNorm, GroupNorm, InstanceNorm). ----

// Batch normalization. data: any rank >= 1 with channels on `axis` (NCHW: axis 1, NHWC: axis -1);
// gamma, beta, moving_mean, moving_var: (C,), float32 for float16/bfloat16 data, else data's
// dtype. In train mode (and !use_global_stats) normalizes with the batch mean/variance over all
// axes but `axis`; when also recording, updates moving_mean/moving_var in place:
// moving = moving * momentum + batch * (1 - momentum) (biased variance; MXNet 1.9.1 applies the
// same update when the recorded graph runs backward). Otherwise normalizes with the moving
// statistics. fix_gamma (default True, as MXNet's op) treats gamma as 1 (gradient 0).
// Defaults: eps 1e-3, momentum 0.9, fix_gamma True, axis 1 (Gluon's BatchNorm block passes
// eps 1e-5, fix_gamma False). Returns the normalized data (data's shape).
NDArray BatchNorm(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                  const NDArray& moving_mean, const NDArray& moving_var,
                  const BatchNormOptions& opts = {});
// The same with output_mean_var: {output, mean (C,), inverse std 1/sqrt(var + eps) (C,)} — the
// batch statistics in training, the moving ones otherwise (MXNet's convention).
NDArrayVec BatchNormWithStats(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                              const NDArray& moving_mean, const NDArray& moving_var,
                              BatchNormOptions opts = {});

// Layer normalization along `axis` (default -1): gamma, beta (data.shape[axis],), same dtype as
// data. eps 1e-5.
NDArray LayerNorm(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                  const LayerNormOptions& opts = {});
// {output, mean, std = sqrt(var + eps)}; mean/std have data's shape with the axis set to 1.
NDArrayVec LayerNormWithStats(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                              LayerNormOptions opts = {});

// Group normalization: data (N, C, ...), C divisible by num_groups; gamma, beta (num_groups,)
// (MXNet 1.9.1: one scale/shift per group). eps 1e-5.
NDArray GroupNorm(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                  const GroupNormOptions& opts = {});
// {output, mean (N, num_groups), std (N, num_groups)}.
NDArrayVec GroupNormWithStats(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                              GroupNormOptions opts = {});

// Instance normalization: data (N, C, spatial...) with rank >= 3; gamma, beta (C,). eps 1e-3.
NDArray InstanceNorm(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                     const InstanceNormOptions& opts = {});

// ---- Activations (mx.nd.Activation, LeakyReLU). ----

// act_type: "relu", "sigmoid", "tanh", "softrelu" (log(1 + exp(x))), "softsign" (x / (1 + |x|)).
// Any shape. Error: an unknown act_type.
NDArray Activation(const NDArray& data, const std::string& act_type);

// act_type "leaky" (default; slope 0.25), "elu" (slope * (exp(x) - 1) for x <= 0), "selu",
// "gelu" (erf form), "rrelu" (random slope in [lower_bound, upper_bound) per element in train
// mode, their mean otherwise). For "prelu" use the overload with gamma.
NDArray LeakyReLU(const NDArray& data, const LeakyReLUOptions& opts = {});
// act_type "prelu" (set automatically): gamma (C,) per channel on axis 1 of data, or (1,).
NDArray LeakyReLU(const NDArray& data, const NDArray& gamma, LeakyReLUOptions opts = {});

// ---- Softmax family (mx.nd.softmax, log_softmax, softmin, SoftmaxActivation). ----

// softmax(x / temperature) along `axis` (default -1). opts.dtype picks the output dtype.
NDArray softmax(const NDArray& data, const SoftmaxOptions& opts = {});
// With a length mask: length (integer dtype) has data's shape without `axis`; positions at or
// beyond length are 0 (use_length is set automatically).
NDArray softmax(const NDArray& data, const NDArray& length, SoftmaxOptions opts = {});
NDArray log_softmax(const NDArray& data, const SoftmaxOptions& opts = {});
NDArray softmin(const NDArray& data, const SoftmaxOptions& opts = {});
// mode "instance" (default): softmax over the last axis; "channel": over axis 1 (rank >= 3).
NDArray SoftmaxActivation(const NDArray& data, const SoftmaxActivationOptions& opts = {});

// ---- Loss layers and Dropout. ----

// Softmax output layer (mx.nd.SoftmaxOutput): data (N, ...) with label (N,) (softmax over the
// flattened rest), multi_output: (N, K, ...) with label (N, ...); preserve_shape: softmax over
// the last axis with label data.shape[:-1]; or label of data's shape (probabilities). The label
// has data's dtype. Its gradient is the cross-entropy gradient (see nn_softmax.cc).
NDArray SoftmaxOutput(const NDArray& data, const NDArray& label,
                      const SoftmaxOutputOptions& opts = {});
// sum over the batch of -log(softmax(data)[i, label[i]]): data (N, K), label (N,) of data's
// dtype; returns shape (1,).
NDArray softmax_cross_entropy(const NDArray& data, const NDArray& label);
// Regression output layers: label of data's shape (or (N,) for data (N, 1)).
NDArray LinearRegressionOutput(const NDArray& data, const NDArray& label,
                               const RegressionOutputOptions& opts = {});
NDArray LogisticRegressionOutput(const NDArray& data, const NDArray& label,
                                 const RegressionOutputOptions& opts = {});
NDArray MAERegressionOutput(const NDArray& data, const NDArray& label,
                            const RegressionOutputOptions& opts = {});

// Dropout: in train mode (or mode "always") zeroes each element with probability p and scales
// the rest by 1 / (1 - p); identity in predict mode. axes: dims along which one draw is shared
// (variational dropout). Draws come from the global generator of data's device (mx.random.seed).
NDArray Dropout(const NDArray& data, const DropoutOptions& opts = {});

}  // namespace mxnet::nd
