// nd:: free functions of the conv family (conv_api.h): options -> typed attributes -> Invoke.
#include "ndarray/ops/conv/conv_api.h"

#include "ndarray/ops/conv/conv_params.h"

namespace mxnet::nd {
namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// Resolves no_bias against the arrays given.
bool ResolveNoBias(std::string_view op, const std::optional<bool>& no_bias, const NDArray& bias) {
  bool nb = no_bias.value_or(bias.is_none());
  if (nb && !bias.is_none())
    MX_THROW(kInvalid, op, ": no_bias=True but a bias array of shape ", bias.shape().ToString(),
             " was given");
  if (!nb && bias.is_none()) MX_THROW(kInvalid, op, ": no_bias=False but bias is an empty NDArray");
  return nb;
}

void CheckChoice(std::string_view op, std::string_view name, const std::string& value,
                 std::initializer_list<std::string_view> choices) {
  for (std::string_view c : choices)
    if (c == value) return;
  MX_THROW(kInvalid, op, ": attribute ", name, "='", value, "' is not one of {",
           StrJoin(choices, ", "), "}");
}

template <typename P>
NDArray WithOptionalBias(const Op& op, const P& p, const NDArray& data, const NDArray& weight,
                         const NDArray& bias) {
  OpAttrs attrs = OpAttrs::From(op, p);
  if (p.no_bias) return Call(op, attrs, {data, weight})[0];
  return Call(op, attrs, {data, weight, bias})[0];
}

}  // namespace

NDArray Convolution(const NDArray& data, const NDArray& weight, const NDArray& bias,
                    const ConvolutionOptions& o) {
  ops::ConvolutionParam p;
  p.kernel = o.kernel;
  p.stride = o.stride;
  p.dilate = o.dilate;
  p.pad = o.pad;
  p.num_filter = o.num_filter;
  p.num_group = o.num_group;
  p.workspace = o.workspace;
  p.no_bias = ResolveNoBias("Convolution", o.no_bias, bias);
  p.cudnn_tune = o.cudnn_tune;
  p.cudnn_off = o.cudnn_off;
  p.layout = o.layout;
  return WithOptionalBias(MX_ND_OP(Convolution), p, data, weight, bias);
}

NDArray Deconvolution(const NDArray& data, const NDArray& weight, const NDArray& bias,
                      const DeconvolutionOptions& o) {
  ops::DeconvolutionParam p;
  p.kernel = o.kernel;
  p.stride = o.stride;
  p.dilate = o.dilate;
  p.pad = o.pad;
  p.adj = o.adj;
  p.target_shape = o.target_shape;
  p.num_filter = o.num_filter;
  p.num_group = o.num_group;
  p.workspace = o.workspace;
  p.no_bias = ResolveNoBias("Deconvolution", o.no_bias, bias);
  p.cudnn_tune = o.cudnn_tune;
  p.cudnn_off = o.cudnn_off;
  p.layout = o.layout;
  return WithOptionalBias(MX_ND_OP(Deconvolution), p, data, weight, bias);
}

NDArray FullyConnected(const NDArray& data, const NDArray& weight, const NDArray& bias,
                       const FullyConnectedOptions& o) {
  ops::FullyConnectedParam p;
  p.num_hidden = o.num_hidden;
  p.no_bias = ResolveNoBias("FullyConnected", o.no_bias, bias);
  p.flatten = o.flatten;
  return WithOptionalBias(MX_ND_OP(FullyConnected), p, data, weight, bias);
}

NDArray Pooling(const NDArray& data, const PoolingOptions& o) {
  ops::PoolingParam p;
  p.kernel = o.kernel;
  p.pool_type = o.pool_type;
  p.global_pool = o.global_pool;
  p.cudnn_off = o.cudnn_off;
  p.pooling_convention = o.pooling_convention;
  p.stride = o.stride;
  p.pad = o.pad;
  p.p_value = o.p_value;
  p.count_include_pad = o.count_include_pad;
  p.layout = o.layout;
  // Enumerated values are checked like parsed ones.
  CheckChoice("Pooling", "pool_type", p.pool_type, {"avg", "lp", "max", "sum"});
  CheckChoice("Pooling", "pooling_convention", p.pooling_convention, {"full", "same", "valid"});
  const Op& op = MX_ND_OP(Pooling);
  return Call(op, OpAttrs::From(op, p), {data})[0];
}

namespace {
ops::UpSamplingParam UpParam(const UpSamplingOptions& o, int num_args) {
  ops::UpSamplingParam p;
  p.scale = o.scale;
  p.num_filter = o.num_filter;
  p.sample_type = o.sample_type;
  p.multi_input_mode = o.multi_input_mode;
  p.num_args = num_args;
  p.workspace = o.workspace;
  CheckChoice("UpSampling", "sample_type", p.sample_type, {"bilinear", "nearest"});
  CheckChoice("UpSampling", "multi_input_mode", p.multi_input_mode, {"concat", "sum"});
  return p;
}
}  // namespace

NDArray UpSampling(const NDArray& data, const UpSamplingOptions& o) {
  return UpSampling(std::vector<NDArray>{data}, o);
}

NDArray UpSampling(const std::vector<NDArray>& inputs, const UpSamplingOptions& o) {
  const Op& op = MX_ND_OP(UpSampling);
  OpAttrs attrs = OpAttrs::From(op, UpParam(o, static_cast<int>(inputs.size())));
  return Invoke(op, attrs, inputs)[0];
}

}  // namespace mxnet::nd
