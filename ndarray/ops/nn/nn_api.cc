#include "ndarray/ops/nn/nn_api.h"

namespace mxnet::nd {
namespace {
template <typename P>
NDArrayVec Run(const Op& op, const P& p, std::initializer_list<NDArray> in) {
  return Call(op, OpAttrs::From(op, p), in);
}
}  // namespace

NDArray BatchNorm(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                  const NDArray& moving_mean, const NDArray& moving_var,
                  const BatchNormOptions& opts) {
  return Run(MX_ND_OP(BatchNorm), opts, {data, gamma, beta, moving_mean, moving_var})[0];
}

NDArrayVec BatchNormWithStats(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                              const NDArray& moving_mean, const NDArray& moving_var,
                              BatchNormOptions opts) {
  opts.output_mean_var = true;
  return Run(MX_ND_OP(BatchNorm), opts, {data, gamma, beta, moving_mean, moving_var});
}

NDArray LayerNorm(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                  const LayerNormOptions& opts) {
  return Run(MX_ND_OP(LayerNorm), opts, {data, gamma, beta})[0];
}

NDArrayVec LayerNormWithStats(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                              LayerNormOptions opts) {
  opts.output_mean_var = true;
  return Run(MX_ND_OP(LayerNorm), opts, {data, gamma, beta});
}

NDArray GroupNorm(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                  const GroupNormOptions& opts) {
  return Run(MX_ND_OP(GroupNorm), opts, {data, gamma, beta})[0];
}

NDArrayVec GroupNormWithStats(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                              GroupNormOptions opts) {
  opts.output_mean_var = true;
  return Run(MX_ND_OP(GroupNorm), opts, {data, gamma, beta});
}

NDArray InstanceNorm(const NDArray& data, const NDArray& gamma, const NDArray& beta,
                     const InstanceNormOptions& opts) {
  return Run(MX_ND_OP(InstanceNorm), opts, {data, gamma, beta})[0];
}

NDArray Activation(const NDArray& data, const std::string& act_type) {
  const Op& op = MX_ND_OP(Activation);
  // Through the string form so an unknown act_type is rejected with the valid choices.
  return Call(op, OpAttrs::Parse(op, {{"act_type", act_type}}), {data})[0];
}

NDArray LeakyReLU(const NDArray& data, const LeakyReLUOptions& opts) {
  if (opts.act_type == "prelu")
    MX_THROW(
        absl::StatusCode::kInvalidArgument,
        "LeakyReLU: act_type='prelu' needs the gamma input (use LeakyReLU(data, gamma, opts))");
  return Run(MX_ND_OP(LeakyReLU), opts, {data})[0];
}

NDArray LeakyReLU(const NDArray& data, const NDArray& gamma, LeakyReLUOptions opts) {
  opts.act_type = "prelu";
  return Run(MX_ND_OP(LeakyReLU), opts, {data, gamma})[0];
}

NDArray softmax(const NDArray& data, const SoftmaxOptions& opts) {
  if (opts.has_length())
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "softmax: use_length=True needs the length input (use softmax(data, length, opts))");
  return Run(MX_ND_OP(softmax), opts, {data})[0];
}

NDArray softmax(const NDArray& data, const NDArray& length, SoftmaxOptions opts) {
  opts.use_length = true;
  return Run(MX_ND_OP(softmax), opts, {data, length})[0];
}

NDArray log_softmax(const NDArray& data, const SoftmaxOptions& opts) {
  return Run(MX_ND_OP(log_softmax), opts, {data})[0];
}

NDArray softmin(const NDArray& data, const SoftmaxOptions& opts) {
  return Run(MX_ND_OP(softmin), opts, {data})[0];
}

NDArray SoftmaxActivation(const NDArray& data, const SoftmaxActivationOptions& opts) {
  return Run(MX_ND_OP(SoftmaxActivation), opts, {data})[0];
}

NDArray SoftmaxOutput(const NDArray& data, const NDArray& label, const SoftmaxOutputOptions& opts) {
  return Run(MX_ND_OP(SoftmaxOutput), opts, {data, label})[0];
}

NDArray softmax_cross_entropy(const NDArray& data, const NDArray& label) {
  const Op& op = MX_ND_OP(softmax_cross_entropy);
  return Call(op, NoAttrs(op), {data, label})[0];
}

NDArray LinearRegressionOutput(const NDArray& data, const NDArray& label,
                               const RegressionOutputOptions& opts) {
  return Run(MX_ND_OP(LinearRegressionOutput), opts, {data, label})[0];
}

NDArray LogisticRegressionOutput(const NDArray& data, const NDArray& label,
                                 const RegressionOutputOptions& opts) {
  return Run(MX_ND_OP(LogisticRegressionOutput), opts, {data, label})[0];
}

NDArray MAERegressionOutput(const NDArray& data, const NDArray& label,
                            const RegressionOutputOptions& opts) {
  return Run(MX_ND_OP(MAERegressionOutput), opts, {data, label})[0];
}

NDArray Dropout(const NDArray& data, const DropoutOptions& opts) {
  return Run(MX_ND_OP(Dropout), opts, {data})[0];
}

}  // namespace mxnet::nd
