// nd:: free functions of MXNet 1.9.1's legacy nn extras (ndarray/ops/nn/nn_sequence.cc,
// nn_extra.cc): sequence ops, L2Normalization, LRN, hard_sigmoid, MakeLoss, SVMOutput, moments,
// IdentityAttachKLSparseReg. Options structs are the ops' typed attributes
// (ndarray/ops/nn/nn_extra_params.h) with MXNet's C++ defaults, used like Python kwargs:
//   nd::SequenceMask(x, lengths, {.value = -1e9f});
//   nd::L2Normalization(x, {.mode = "channel"});
//   auto [mean, var] = nd::moments(x, {.axes = Shape{0, 2}});
// Inputs must be floating-point (float32/64/16, bfloat16) unless noted. Errors throw
// mxnet::Error(kInvalidArgument) naming the op and the offending input, attribute or shape.
#pragma once

#include <utility>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/nn/nn_extra_params.h"

namespace mxnet::nd {

using SequenceMaskOptions = ops::SequenceMaskParam;
using SequenceLastOptions = ops::SequenceLastParam;
using SequenceReverseOptions = ops::SequenceReverseParam;
using L2NormalizationOptions = ops::L2NormalizationParam;
using LRNOptions = ops::LRNParam;
using HardSigmoidOptions = ops::HardSigmoidParam;
using MakeLossOptions = ops::MakeLossParam;
using SVMOutputOptions = ops::SVMOutputParam;
using MomentsOptions = ops::MomentsParam;
using IdentityAttachKLSparseRegOptions = ops::IdentityAttachKLSparseRegParam;

// ---- Sequence ops (mx.nd.SequenceMask, SequenceLast, SequenceReverse). ----
// data: (T, B, ...) with opts.axis 0 (default) or (B, T, ...) with axis 1 (SequenceReverse: 0
// only); rank >= 2; any numeric dtype. The overloads with `sequence_length` (shape (B,), any
// numeric dtype, values truncated to integers) set use_sequence_length. Errors: rank < 2, axis
// not supported, sequence_length not of shape (B,).

// Positions t >= sequence_length[b] set to opts.value (default 0); without lengths, identity.
NDArray SequenceMask(const NDArray& data, const SequenceMaskOptions& opts = {});
NDArray SequenceMask(const NDArray& data, const NDArray& sequence_length,
                     SequenceMaskOptions opts = {});
// The element at sequence_length[b] - 1 (default T - 1) of each sequence: (B, ...).
// Error: a length outside [1, T].
NDArray SequenceLast(const NDArray& data, const SequenceLastOptions& opts = {});
NDArray SequenceLast(const NDArray& data, const NDArray& sequence_length,
                     SequenceLastOptions opts = {});
// The first sequence_length[b] (default T) elements of each sequence reversed, the rest kept.
// Error: a length outside [0, T].
NDArray SequenceReverse(const NDArray& data, const SequenceReverseOptions& opts = {});
NDArray SequenceReverse(const NDArray& data, const NDArray& sequence_length,
                        SequenceReverseOptions opts = {});

// ---- Normalization (mx.nd.L2Normalization, LRN, moments). ----

// x / sqrt(sum(x^2) + eps) (eps 1e-10). mode "instance" (default): one norm per example over all
// axes but 0 (any rank >= 1; 1-D data normalizes each element by itself, as MXNet);
// "channel": across axis 1 at each (example, position); "spatial": over the axes after 1 per
// (example, channel). channel/spatial need rank >= 3. Errors: bad mode, rank.
NDArray L2Normalization(const NDArray& data, const L2NormalizationOptions& opts = {});

// Local response normalization across channels (Krizhevsky et al. 2012): data (N, C, H, W);
// y = x / (knorm + alpha / nsize * sum_{|j - c| <= (nsize - 1) / 2} x_j^2)^beta. Defaults alpha
// 1e-4, beta 0.75, knorm 2; nsize (required, >= 1) is the window width. An even nsize gives the
// window of nsize - 1 (what MXNet 1.9.1's oneDNN kernel computes; its native kernel rejects it).
// Errors: data not 4-D, nsize < 1.
NDArray LRN(const NDArray& data, int nsize, LRNOptions opts = {});

// {mean, var} (biased variance) over opts.axes (required: None/() is an error, as MXNet; negative
// axes count from the end; duplicates are errors); keepdims keeps reduced axes as 1. Reducing
// every axis without keepdims gives shape (1,). Any numeric dtype; integer data gives
// truncated integer results (MXNet's).
std::pair<NDArray, NDArray> moments(const NDArray& data, const MomentsOptions& opts);

// ---- Activations (mx.nd.hard_sigmoid). ----

// max(0, min(1, alpha * x + beta)), alpha 0.2, beta 0.5; gradient alpha where 0 < alpha * x +
// beta < 1 (strictly), else 0.
NDArray hard_sigmoid(const NDArray& data, const HardSigmoidOptions& opts = {});

// ---- Loss layers (mx.nd.MakeLoss, SVMOutput, IdentityAttachKLSparseReg). ----

// Identity forward; gradient (ignoring the head gradient) grad_scale for normalization "null"
// (default), grad_scale / (size / last dim) for "batch" (MXNet flattens to 2-D), grad_scale /
// max(1, count(data > valid_thresh)) for "valid". Error: bad normalization.
NDArray MakeLoss(const NDArray& data, const MakeLossOptions& opts = {});

// Identity forward on data (..., K) (rank >= 2) with class labels of shape data.shape[:-1]
// (data's dtype). Gradient per row with k = label, margin m, coefficient c (ignores the head
// gradient): L2-SVM (default) -2c(m - y_k) if y_k < m at k, 2c(m + y_j) if y_j > -m elsewhere;
// L1-SVM (use_linear) -c / c under the same conditions. Label gradient: 0.
NDArray SVMOutput(const NDArray& data, const NDArray& label, const SVMOutputOptions& opts = {});

// Identity on data (N, C) (sigmoid activations). moving_avg (C,) is an aux state: a recorded call
// sets it to momentum * moving_avg + (1 - momentum) * mean(data, axis 0). Gradient: ograd +
// penalty * (-t / m + (1 - t) / (1 - m)) with t = sparseness_target and m the updated average.
// Defaults: sparseness_target 0.1, penalty 0.001, momentum 0.9 (both in [0, 1]).
NDArray IdentityAttachKLSparseReg(const NDArray& data, const NDArray& moving_avg,
                                  const IdentityAttachKLSparseRegOptions& opts = {});

}  // namespace mxnet::nd
