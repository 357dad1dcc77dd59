// nd:: free functions of the conv family (conv_api.h): parameter struct -> checked typed
// attributes -> Invoke. No field is copied or converted: the struct is the op's attributes.
#include "ndarray/ops/conv/conv_api.h"

#include "ndarray/ops/conv/typed_attrs.h"

namespace mxnet::nd {
namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// Runs `op` on (data, weight[, bias]) after checking no_bias against the arrays given
// (MXNet's rule: a bias input exactly when no_bias is false).
template <typename P>
NDArray WithOptionalBias(const Op& op, const P& p, const NDArray& data, const NDArray& weight,
                         const NDArray& bias) {
  if (p.no_bias && !bias.is_none())
    MX_THROW(kInvalid, op.name, ": no_bias=True but a bias array of shape ",
             bias.shape().ToString(), " was given (set no_bias=false, or leave the bias out)");
  if (!p.no_bias && bias.is_none())
    MX_THROW(kInvalid, op.name,
             ": no_bias=False but bias is an empty NDArray (set no_bias=true, or use the "
             "overload without a bias argument)");
  OpAttrs attrs = CheckedAttrs(op, p);
  if (p.no_bias) return Call(op, attrs, {data, weight})[0];
  return Call(op, attrs, {data, weight, bias})[0];
}

// The struct with no_bias set: the overloads without a bias argument.
template <typename P>
P NoBias(P p) {
  p.no_bias = true;
  return p;
}

}  // namespace

NDArray Convolution(const NDArray& data, const NDArray& weight, const NDArray& bias,
                    const ops::ConvolutionParam& p) {
  return WithOptionalBias(MX_ND_OP(Convolution), p, data, weight, bias);
}
NDArray Convolution(const NDArray& data, const NDArray& weight, const ops::ConvolutionParam& p) {
  return WithOptionalBias(MX_ND_OP(Convolution), NoBias(p), data, weight, NDArray());
}

NDArray Deconvolution(const NDArray& data, const NDArray& weight, const NDArray& bias,
                      const ops::DeconvolutionParam& p) {
  return WithOptionalBias(MX_ND_OP(Deconvolution), p, data, weight, bias);
}
NDArray Deconvolution(const NDArray& data, const NDArray& weight,
                      const ops::DeconvolutionParam& p) {
  return WithOptionalBias(MX_ND_OP(Deconvolution), NoBias(p), data, weight, NDArray());
}

NDArray FullyConnected(const NDArray& data, const NDArray& weight, const NDArray& bias,
                       const ops::FullyConnectedParam& p) {
  return WithOptionalBias(MX_ND_OP(FullyConnected), p, data, weight, bias);
}
NDArray FullyConnected(const NDArray& data, const NDArray& weight,
                       const ops::FullyConnectedParam& p) {
  return WithOptionalBias(MX_ND_OP(FullyConnected), NoBias(p), data, weight, NDArray());
}

NDArray Pooling(const NDArray& data, const ops::PoolingParam& p) {
  const Op& op = MX_ND_OP(Pooling);
  return Call(op, CheckedAttrs(op, p), {data})[0];
}

NDArray UpSampling(const NDArray& data, const ops::UpSamplingParam& p) {
  return UpSampling(std::vector<NDArray>{data}, p);
}

NDArray UpSampling(const std::vector<NDArray>& inputs, const ops::UpSamplingParam& p) {
  const Op& op = MX_ND_OP(UpSampling);
  const int n = static_cast<int>(inputs.size());
  if (p.num_args != 1 && p.num_args != n)
    MX_THROW(kInvalid, "UpSampling: num_args=", p.num_args, " but ", n, " inputs were given");
  ops::UpSamplingParam q = p;
  q.num_args = n;
  return Invoke(op, CheckedAttrs(op, std::move(q)), inputs)[0];
}

}  // namespace mxnet::nd
