#include "ndarray/ops/contrib/nn_contrib_api.h"

namespace mxnet::nd::contrib {
namespace {
template <typename P>
NDArrayVec Run(const Op& op, const P& p, std::initializer_list<NDArray> in) {
  return Call(op, OpAttrs::From(op, p), in);
}
ops::InterleavedMatmulParam Heads(int heads) { return ops::InterleavedMatmulParam{.heads = heads}; }
}  // namespace

NDArray interleaved_matmul_selfatt_qk(const NDArray& queries_keys_values, int heads) {
  return Run(MX_ND_OP(_contrib_interleaved_matmul_selfatt_qk), Heads(heads),
             {queries_keys_values})[0];
}
NDArray interleaved_matmul_selfatt_valatt(const NDArray& queries_keys_values,
                                          const NDArray& attention, int heads) {
  return Run(MX_ND_OP(_contrib_interleaved_matmul_selfatt_valatt), Heads(heads),
             {queries_keys_values, attention})[0];
}
NDArray interleaved_matmul_encdec_qk(const NDArray& queries, const NDArray& keys_values,
                                     int heads) {
  return Run(MX_ND_OP(_contrib_interleaved_matmul_encdec_qk), Heads(heads),
             {queries, keys_values})[0];
}
NDArray interleaved_matmul_encdec_valatt(const NDArray& keys_values, const NDArray& attention,
                                         int heads) {
  return Run(MX_ND_OP(_contrib_interleaved_matmul_encdec_valatt), Heads(heads),
             {keys_values, attention})[0];
}

NDArrayVec BatchNormWithReLU(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                             const NDArray& moving_mean, const NDArray& moving_var,
                             const ops::BatchNormParam& opts) {
  const Op& op = MX_ND_OP(_contrib_BatchNormWithReLU);
  NDArrayVec r = Run(op, opts, {data, gamma, beta, moving_mean, moving_var});
  r.resize(opts.output_mean_var ? 3 : 1);
  return r;
}
NDArrayVec SyncBatchNorm(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                         const NDArray& moving_mean, const NDArray& moving_var,
                         ops::SyncBatchNormParam opts) {
  if (opts.key.empty()) opts.key = "sync_bn";
  NDArrayVec r =
      Run(MX_ND_OP(_contrib_SyncBatchNorm), opts, {data, gamma, beta, moving_mean, moving_var});
  r.resize(opts.output_mean_var ? 3 : 1);
  return r;
}

NDArray fft(const NDArray& data, const ops::FFTParam& opts) {
  return Run(MX_ND_OP(_contrib_fft), opts, {data})[0];
}
NDArray ifft(const NDArray& data, const ops::FFTParam& opts) {
  return Run(MX_ND_OP(_contrib_ifft), opts, {data})[0];
}
NDArray count_sketch(const NDArray& data, const NDArray& h, const NDArray& s, int out_dim) {
  return Run(MX_ND_OP(_contrib_count_sketch), ops::CountSketchParam{.out_dim = out_dim},
             {data, h, s})[0];
}
NDArrayVec hawkesll(const NDArray& lda, const NDArray& alpha, const NDArray& beta,
                    const NDArray& state, const NDArray& lags, const NDArray& marks,
                    const NDArray& valid_length, const NDArray& max_time) {
  const Op& op = MX_ND_OP(_contrib_hawkesll);
  return Call(op, OpAttrs::Parse(op, {}),
              {lda, alpha, beta, state, lags, marks, valid_length, max_time});
}

}  // namespace mxnet::nd::contrib
