// nd:: free functions of the quantization ops (conv_quant_api.h).
#include "ndarray/ops/quantization/quant_api.h"

namespace mxnet::nd::contrib {
namespace {
template <typename P>
NDArrayVec Run(const Op& op, const P& p, std::initializer_list<NDArray> in) {
  return Call(op, OpAttrs::From(op, p), in);
}
}  // namespace

NDArrayVec quantize(const NDArray& data, const NDArray& min_range, const NDArray& max_range,
                    const QuantizeOptions& opts) {
  return Run(MX_ND_OP(_contrib_quantize), opts, {data, min_range, max_range});
}

NDArrayVec quantize_v2(const NDArray& data, const QuantizeV2Options& opts) {
  return Run(MX_ND_OP(_contrib_quantize_v2), opts, {data});
}

NDArray dequantize(const NDArray& data, const NDArray& min_range, const NDArray& max_range) {
  return Run(MX_ND_OP(_contrib_dequantize), ops::DequantizeParam{},
             {data, min_range, max_range})[0];
}

NDArrayVec requantize(const NDArray& data, const NDArray& min_range, const NDArray& max_range,
                      const RequantizeOptions& opts) {
  return Run(MX_ND_OP(_contrib_requantize), opts, {data, min_range, max_range});
}

NDArrayVec quantize_asym(const NDArray& data, const QuantizeAsymOptions& opts) {
  return Run(MX_ND_OP(_contrib_quantize_asym), opts, {data});
}

namespace {
// The inputs without bias and its range when `no_bias`.
std::vector<NDArray> WithOptionalBias(bool no_bias, std::vector<NDArray> v) {
  if (no_bias) {
    v.erase(v.begin() + 7, v.end());
    v.erase(v.begin() + 2);
  }
  return v;
}
NDArrayVec RunVec(const Op& op, const OpAttrs& a, const std::vector<NDArray>& in) {
  NDArrayVec out = Invoke(op, a, in);
  out.resize(op.NumVisibleOutputs(a));
  return out;
}
}  // namespace

NDArrayVec quantized_conv(const NDArray& data, const NDArray& weight, const NDArray& bias,
                          const NDArray& min_data, const NDArray& max_data,
                          const NDArray& min_weight, const NDArray& max_weight,
                          const NDArray& min_bias, const NDArray& max_bias,
                          const QuantizedConvOptions& opts) {
  const Op& op = MX_ND_OP(_contrib_quantized_conv);
  return RunVec(op, OpAttrs::From(op, opts),
                WithOptionalBias(opts.no_bias, {data, weight, bias, min_data, max_data, min_weight,
                                                max_weight, min_bias, max_bias}));
}

NDArrayVec quantized_fully_connected(const NDArray& data, const NDArray& weight,
                                     const NDArray& bias, const NDArray& min_data,
                                     const NDArray& max_data, const NDArray& min_weight,
                                     const NDArray& max_weight, const NDArray& min_bias,
                                     const NDArray& max_bias,
                                     const QuantizedFullyConnectedOptions& opts) {
  const Op& op = MX_ND_OP(_contrib_quantized_fully_connected);
  return RunVec(op, OpAttrs::From(op, opts),
                WithOptionalBias(opts.no_bias, {data, weight, bias, min_data, max_data, min_weight,
                                                max_weight, min_bias, max_bias}));
}

NDArrayVec quantized_pooling(const NDArray& data, const NDArray& min_data, const NDArray& max_data,
                             const QuantizedPoolingOptions& opts) {
  return Run(MX_ND_OP(_contrib_quantized_pooling), opts, {data, min_data, max_data});
}

NDArrayVec quantized_act(const NDArray& data, const NDArray& min_data, const NDArray& max_data) {
  return Run(MX_ND_OP(_contrib_quantized_act), ops::QuantizedActParam{.act_type = "relu"},
             {data, min_data, max_data});
}

NDArrayVec quantized_flatten(const NDArray& data, const NDArray& min_data,
                             const NDArray& max_data) {
  const Op& op = MX_ND_OP(_contrib_quantized_flatten);
  return Call(op, NoAttrs(op), {data, min_data, max_data});
}

NDArrayVec quantized_concat(const std::vector<NDArray>& data, const std::vector<NDArray>& mins,
                            const std::vector<NDArray>& maxs, QuantizedConcatOptions opts) {
  if (mins.size() != data.size() || maxs.size() != data.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "_contrib_quantized_concat: ", data.size(),
             " inputs need as many mins and maxs, got ", mins.size(), " and ", maxs.size());
  opts.num_args = static_cast<int>(data.size());
  std::vector<NDArray> in = data;
  for (size_t i = 0; i < data.size(); ++i) {
    in.push_back(mins[i]);
    in.push_back(maxs[i]);
  }
  const Op& op = MX_ND_OP(_contrib_quantized_concat);
  return RunVec(op, OpAttrs::From(op, opts), in);
}

NDArrayVec quantized_elemwise_add(const NDArray& lhs, const NDArray& rhs, const NDArray& lhs_min,
                                  const NDArray& lhs_max, const NDArray& rhs_min,
                                  const NDArray& rhs_max, const QuantizedElemwiseAddOptions& opts) {
  return Run(MX_ND_OP(_contrib_quantized_elemwise_add), opts,
             {lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max});
}

NDArrayVec quantized_elemwise_mul(const NDArray& lhs, const NDArray& rhs, const NDArray& lhs_min,
                                  const NDArray& lhs_max, const NDArray& rhs_min,
                                  const NDArray& rhs_max, const QuantizedElemwiseMulOptions& opts) {
  return Run(MX_ND_OP(_contrib_quantized_elemwise_mul), opts,
             {lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max});
}

NDArrayVec quantized_batch_norm(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                                const NDArray& moving_mean, const NDArray& moving_var,
                                const NDArray& min_data, const NDArray& max_data,
                                const QuantizedBatchNormOptions& opts) {
  return Run(MX_ND_OP(_contrib_quantized_batch_norm), opts,
             {data, gamma, beta, moving_mean, moving_var, min_data, max_data});
}

NDArrayVec quantized_embedding(const NDArray& data, const NDArray& weight,
                               const NDArray& min_weight, const NDArray& max_weight,
                               const QuantizedEmbeddingOptions& opts) {
  return Run(MX_ND_OP(_contrib_quantized_embedding), opts, {data, weight, min_weight, max_weight});
}

NDArrayVec calibrate_entropy(const NDArray& hist, const NDArray& hist_edges,
                             const CalibrateEntropyOptions& opts) {
  return Run(MX_ND_OP(_contrib_calibrate_entropy), opts, {hist, hist_edges});
}

}  // namespace mxnet::nd::contrib
