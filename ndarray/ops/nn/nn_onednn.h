// oneDNN (2.6) primitives behind the nn family's Backend::kOptimized kernels: batch/layer
// normalization, eltwise activations and (log-)softmax. Float32 only; the FSupports of each
// kernel declines everything else and the reference kernel runs instead.
//
// Primitives are created once per (kind, shape, attributes) and kept in the oneDNN backend's
// cache (ndarray/backends/onednn); executing a cached primitive is thread-safe (each call uses its
// thread's stream and a pooled user scratchpad).
#pragma once

#include <cstdint>

namespace mxnet::ops::nn::onednn {

// Batch normalization of channels-last data (rows, c) (oneDNN's jit nhwc kernels; plain nchw
// only has a slow generic implementation in oneDNN 2.6, so NCHW data uses our own loops).
// training: computes the batch mean/variance into mean/var; else normalizes with the given
// mean/var. scale/shift are per-channel (c,).
void BatchNormForward(const float* x, float* y, const float* scale, const float* shift, float* mean,
                      float* var, int64_t rows, int64_t c, float eps, bool training);
// Gradients of batch normalization: dx, dscale, dshift. global_stats: mean/var were constants.
void BatchNormBackward(const float* x, const float* dy, const float* scale, const float* mean,
                       const float* var, float* dx, float* dscale, float* dshift, int64_t rows,
                       int64_t c, float eps, bool global_stats);

// Layer normalization of the last axis of data viewed as (rows, c); mean/var are (rows,).
void LayerNormForward(const float* x, float* y, const float* scale, const float* shift, float* mean,
                      float* var, int64_t rows, int64_t c, float eps);

enum class Eltwise { kRelu, kLogistic, kTanh, kSoftRelu, kElu, kGeluErf, kLeakyRelu };
// y = f(x) elementwise over n values (alpha: leaky slope / elu scale).
void EltwiseForward(Eltwise alg, float alpha, const float* x, float* y, int64_t n);

// softmax (or log_softmax) along axis 1 of data viewed as (outer, n, inner).
void SoftmaxForward(bool log, const float* x, float* y, int64_t outer, int64_t n, int64_t inner);

}  // namespace mxnet::ops::nn::onednn
