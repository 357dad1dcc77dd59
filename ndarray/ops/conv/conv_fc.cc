// FullyConnected (MXNet 1.9.1 src/operator/nn/fully_connected.cc) and its gradient helpers:
//   _backward_FullyConnected_data(ograd, weight, data)  -> d data   = ograd . weight
//   _backward_FullyConnected_weight(ograd, data)        -> d weight = ograd^T . data
// (on 2-D views: data (M, K), weight (H, K), ograd (M, H)); the bias gradient is
// _reduce_sum_like(ograd, bias). Both helpers are bilinear and differentiate into FullyConnected
// and each other, so higher-order gradients compose.
#include "ndarray/grad.h"
#include "ndarray/ops/conv/conv_kernels.h"
#include "ndarray/ops/conv/conv_shape.h"

namespace mxnet::ops {
namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
constexpr KernelKey kOpt{DeviceType::kCPU, Backend::kOptimized};
using GV = GradValue;
using GVs = std::vector<GradValue>;

bool AllFloat32(std::span<const NDArray> in) {
  for (const auto& a : in)
    if (a.dtype() != DType::kFloat32 || a.size() == 0) return false;
  return true;
}

// Product of dims [b, e), -1 if any is unknown.
int64_t Prod(const Shape& s, int b, int e) {
  int64_t p = 1;
  for (int i = b; i < e; ++i) {
    if (s[i] < 0) return -1;
    p *= s[i];
  }
  return p;
}

// The 2-D view (M, K) of data.
struct FcDims {
  int64_t M, K, H;
};
FcDims DimsOf(std::string_view op, const FullyConnectedParam& p, const Shape& data) {
  if (data.ndim() < 1)
    MX_THROW(kInvalid, op, ": data must have at least 1 dim, got shape ", data.ToString());
  int n = data.ndim();
  if (p.flatten) return {data[0], Prod(data, 1, n), p.num_hidden};
  return {Prod(data, 0, n - 1), data[n - 1], p.num_hidden};
}

Shape OutShape(const FullyConnectedParam& p, const Shape& data) {
  if (p.flatten) return Shape{data[0], p.num_hidden};
  Shape o = data;
  o[o.ndim() - 1] = p.num_hidden;
  return o;
}

void FullyConnectedShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "FullyConnected";
  const auto& p = attrs.get<FullyConnectedParam>();
  const int64_t H = p.num_hidden;
  if (!p.no_bias) AssignShape(op, "bias", &(*in)[2], Shape{H}, "(num_hidden,)");
  Shape data = (*in)[0];
  if (!data.ndim_known()) {
    AssignShape(op, "weight", &(*in)[1], Shape{H, -1}, "(num_hidden, input size)");
    return;
  }
  if (data.ndim() < 1)
    MX_THROW(kInvalid, op, ": data must have at least 1 dim, got shape ", data.ToString());
  int n = data.ndim();
  int64_t K = p.flatten ? Prod(data, 1, n) : data[n - 1];
  // With flatten=False the last data dim can come from the weight.
  if (K < 0 && !p.flatten && (*in)[1].ndim() == 2 && (*in)[1][1] >= 0)
    data[n - 1] = K = (*in)[1][1];
  AssignShape(
      op, "weight", &(*in)[1], Shape{H, K},
      StrCat("(num_hidden, input size", p.flatten ? " = product of data dims after the first" : "",
             ") for data shape ", data.ToString(), " with flatten=", p.flatten ? "True" : "False"));
  AssignShape(op, "output", &(*out)[0], OutShape(p, data));
  if (data[0] < 0) data[0] = (*out)[0][0];
  (*in)[0] = data;
}

template <bool kOptimized>
void FcKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
              std::span<const NDArray> out) {
  const auto& p = attrs.get<FullyConnectedParam>();
  FcDims d = DimsOf("FullyConnected", p, in[0].shape());
  const NDArray* bias = p.no_bias ? nullptr : &in[2];
  if (kOptimized && onednn::FcForward(d.M, d.K, d.H, in[0], in[1], bias, out[0])) return;
  FcForwardRef("FullyConnected", d.M, d.K, d.H, in[0], in[1], bias, out[0]);
}

template <bool kOptimized>
void FcBwdDataKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  const char* op = "_backward_FullyConnected_data";
  FcDims d = DimsOf(op, attrs.get<FullyConnectedParam>(), in[2].shape());
  if (kOptimized && onednn::FcBackwardData(d.M, d.K, d.H, in[0], in[1], out[0])) return;
  FcBackwardDataRef(op, d.M, d.K, d.H, in[0], in[1], out[0]);
}

template <bool kOptimized>
void FcBwdWeightKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  const char* op = "_backward_FullyConnected_weight";
  FcDims d = DimsOf(op, attrs.get<FullyConnectedParam>(), in[1].shape());
  if (kOptimized && onednn::FcBackwardWeight(d.M, d.K, d.H, in[0], in[1], out[0])) return;
  FcBackwardWeightRef(op, d.M, d.K, d.H, in[0], in[1], out[0]);
}

FullyConnectedParam NoBias(FullyConnectedParam p) {
  p.no_bias = true;
  return p;
}

MX_REGISTER_OP(FullyConnected)
    .describe(
        "Applies a linear transformation Y = X W^T + b (MXNet's FullyConnected): with "
        "flatten=True data (N, d1, ...) is flattened to (N, d1*...), output (N, num_hidden); "
        "with flatten=False data (..., K) gives (..., num_hidden). weight (num_hidden, K), "
        "optional bias (num_hidden,).")
    .set_params<FullyConnectedParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<FullyConnectedParam>().no_bias ? 2 : 3; })
    .set_input_names([](const OpAttrs& a) {
      return a.get<FullyConnectedParam>().no_bias
                 ? std::vector<std::string>{"data", "weight"}
                 : std::vector<std::string>{"data", "weight", "bias"};
    })
    .set_infer_shape(FullyConnectedShape)
    .set_kernel(kRef, FcKernel<false>)
    .set_kernel(kOpt, FcKernel<true>,
                [](const OpAttrs&, std::span<const NDArray> in) { return AllFloat32(in); })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          const auto& p = attrs.get<FullyConnectedParam>();
          GVs g{b.CallP("_backward_FullyConnected_data", {og[0], in[1], in[0]}, p),
                b.CallP("_backward_FullyConnected_weight", {og[0], in[0]}, p)};
          if (!p.no_bias) g.push_back(b.SumLike(og[0], in[2]));
          return g;
        },
        true, false);

MX_REGISTER_OP(_backward_FullyConnected_data)
    .describe(
        "Gradient of FullyConnected with respect to data: ograd (M, H) . weight (H, K), "
        "shaped like data.")
    .set_params<FullyConnectedParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "weight", "data"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const char* op = "_backward_FullyConnected_data";
      const auto& p = attrs.get<FullyConnectedParam>();
      const Shape& data = (*in)[2];
      if (data.is_known()) {
        FcDims d = DimsOf(op, p, data);
        AssignShape(op, "ograd", &(*in)[0], OutShape(p, data));
        AssignShape(op, "weight", &(*in)[1], Shape{d.H, d.K});
      }
      AssignShape(op, "output", &(*out)[0], data);
    })
    .set_kernel(kRef, FcBwdDataKernel<false>)
    .set_kernel(kOpt, FcBwdDataKernel<true>,
                [](const OpAttrs&, std::span<const NDArray> in) { return AllFloat32(in); })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          const auto& p = attrs.get<FullyConnectedParam>();
          return GVs{b.CallP("FullyConnected", {og[0], in[1]}, NoBias(p)),
                     b.CallP("_backward_FullyConnected_weight", {in[0], og[0]}, p),
                     b.ZerosLike(in[2])};
        },
        true, false);

MX_REGISTER_OP(_backward_FullyConnected_weight)
    .describe("Gradient of FullyConnected with respect to weight: ograd^T (H, M) . data (M, K).")
    .set_params<FullyConnectedParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const char* op = "_backward_FullyConnected_weight";
      const auto& p = attrs.get<FullyConnectedParam>();
      const Shape& data = (*in)[1];
      if (!data.ndim_known()) {
        AssignShape(op, "output", &(*out)[0], Shape{p.num_hidden, -1});
        return;
      }
      FcDims d = DimsOf(op, p, data);
      if (data.is_known()) AssignShape(op, "ograd", &(*in)[0], OutShape(p, data));
      AssignShape(op, "output", &(*out)[0], Shape{d.H, d.K});
    })
    .set_kernel(kRef, FcBwdWeightKernel<false>)
    .set_kernel(kOpt, FcBwdWeightKernel<true>,
                [](const OpAttrs&, std::span<const NDArray> in) { return AllFloat32(in); })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          const auto& p = attrs.get<FullyConnectedParam>();
          return GVs{b.CallP("FullyConnected", {in[1], og[0]}, NoBias(p)),
                     b.CallP("_backward_FullyConnected_data", {in[0], og[0], in[1]}, p)};
        },
        true, false);

}  // namespace
}  // namespace mxnet::ops
