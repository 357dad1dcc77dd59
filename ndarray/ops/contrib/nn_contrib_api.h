// nd:: free functions of MXNet 1.9.1's nn contrib ops (ndarray/ops/nn_contrib*.cc), named like
// mx.nd.contrib.*. Options structs are the ops' typed attributes
// (ndarray/ops/contrib/nn_contrib_params.h) with MXNet's C++ defaults. Inputs are floating-point
// (float32/64/16, bfloat16) unless noted. Errors throw mxnet::Error(kInvalidArgument) naming the op
// and the offending input, attribute or shape.
#pragma once

#include "ndarray/ops/contrib/nn_contrib_params.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/nn/nn_params.h"

namespace mxnet::nd::contrib {

// ---- Fused multi-head attention matmuls (GluonNLP BERT/Transformer). ----
// Projections are (seq_length, batch, heads * n * head_dim) with the n slots of each head
// interleaved: element (t, b, h, j, d) at ((t * B + b) * heads + h) * n * head_dim + j * head_dim
// + d (self-attention: n = 3, q/k/v; encoder-decoder keys_values: n = 2, k/v; queries: n = 1).
// Attention maps are (batch * heads, query_length, key_length), head index b * heads + h.
// Errors: heads < 1, a projection not 3-D or its last axis not a multiple of heads * n,
// mismatched batch sizes / head_dim, an attention map of the wrong shape.

// (B*heads, T, T): per head Q K^T / sqrt(head_dim), from qkv (T, B, heads*3*head_dim).
NDArray interleaved_matmul_selfatt_qk(const NDArray& queries_keys_values, int heads);
// (T, B, heads*head_dim): per head attention (B*heads, T, T) times V, heads concatenated.
NDArray interleaved_matmul_selfatt_valatt(const NDArray& queries_keys_values,
                                          const NDArray& attention, int heads);
// (B*heads, Tq, Tk): Q K^T / sqrt(head_dim) from queries (Tq, B, heads*head_dim) and
// keys_values (Tk, B, heads*2*head_dim).
NDArray interleaved_matmul_encdec_qk(const NDArray& queries, const NDArray& keys_values, int heads);
// (Tq, B, heads*head_dim): attention (B*heads, Tq, Tk) times V of keys_values.
NDArray interleaved_matmul_encdec_valatt(const NDArray& keys_values, const NDArray& attention,
                                         int heads);

// ---- BatchNorm variants (mx.nd.contrib.BatchNormWithReLU, SyncBatchNorm). ----
// Inputs as nd::BatchNorm: data (N, C, ...), gamma, beta, moving_mean, moving_var (C,) (the
// last two aux states, updated by a recorded train-mode call).

// max(BatchNorm(...), 0) with BatchNorm's options (channel axis opts.axis, default 1). Returns
// {output} or, with output_mean_var, {output, mean, inverse std}.
NDArrayVec BatchNormWithReLU(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                             const NDArray& moving_mean, const NDArray& moving_var,
                             const ops::BatchNormParam& opts = {});
// BatchNorm over channel axis 1 with the statistics of this device's batch (one device: no
// synchronization). opts.key names the layer (required by MXNet; defaults to "sync_bn" here).
// Returns {output} or, with output_mean_var, {output, mean, biased variance}.
// Errors: data rank < 2, parameter shapes, ndev < 1, eps <= 0.
NDArrayVec SyncBatchNorm(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                         const NDArray& moving_mean, const NDArray& moving_var,
                         ops::SyncBatchNormParam opts = {});

// ---- Signal ops (mx.nd.contrib.fft, ifft, count_sketch, hawkesll). ----

// Unnormalized DFT of each row along the last axis of real data (..., d): (..., 2d) as
// [re0, im0, re1, im1, ...]. opts.compute_size (default 128) has no effect on results.
NDArray fft(const NDArray& data, const ops::FFTParam& opts = {});
// Real part of the unnormalized inverse DFT of interleaved complex rows (..., 2d): (..., d);
// ifft(fft(x)) = d * x. Error: an odd last axis.
NDArray ifft(const NDArray& data, const ops::FFTParam& opts = {});
// Count sketch of data (..., d) into (..., out_dim): out[r, h[i]] += s[i] * data[r, i]; h
// (integer buckets in [0, out_dim)) and s (signs) are (1, d) in data's dtype. Errors: rank < 2,
// h/s sizes, out_dim < 1, an h value that is not an integer in [0, out_dim).
NDArray count_sketch(const NDArray& data, const NDArray& h, const NDArray& s, int out_dim);
// Hawkes process log-likelihood: {loglike (N,), out_state (N, K)} from lda (N, K), alpha (K,),
// beta (K,), state (N, K), lags (N, T), marks (N, T) int32, valid_length (N,), max_time (N,)
// (see nn_contrib_signal.cc for the formula). Errors: shapes, marks not int32 or outside
// [0, K), valid_length > T.
NDArrayVec hawkesll(const NDArray& lda, const NDArray& alpha, const NDArray& beta,
                    const NDArray& state, const NDArray& lags, const NDArray& marks,
                    const NDArray& valid_length, const NDArray& max_time);

}  // namespace mxnet::nd::contrib
