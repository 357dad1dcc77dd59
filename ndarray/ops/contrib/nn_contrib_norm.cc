// MXNet 1.9.1's contrib batch normalizations, on the BatchNorm kernels of nn_norm.cc (called
// through the registry: reference kernel for the reference, BatchNorm's best kernel for the
// optimized backend):
//   _contrib_BatchNormWithReLU (src/operator/contrib/batch_norm_relu.cc): relu(BatchNorm(...)),
//     BatchNorm's attributes, aux states, outputs (output, mean, invstd) and moving-stat update.
//     Gradient: BatchNorm's gradient of the head gradient masked where the output is > 0.
//   _contrib_SyncBatchNorm (src/operator/contrib/sync_batch_norm-inl.h): cross-device BatchNorm
//     on the channel axis 1. On one device (ours) it is BatchNorm with batch statistics of the
//     local batch; outputs (output, mean, var) where var is the biased batch variance (not
//     BatchNorm's inverse std). Its mean/var outputs get no gradient (as MXNet).
//
// Differences from MXNet 1.9.1: BatchNormWithReLU runs any rank and dtype BatchNorm runs (MXNet:
// 4-D float32 through MKL-DNN only, else an error). SyncBatchNorm with ndev > 1 normalizes with
// the local batch (MXNet waits for ndev devices); in inference MXNet leaves its mean/var outputs
// unwritten (zeros or garbage), ours are the moving mean and variance. MXNet's
// BatchNormWithReLU backward after a predict-mode forward gives zero gradients; ours is the
// gradient of the forward (BatchNorm's with the moving statistics, masked by the ReLU).
#include <cmath>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/contrib/nn_contrib_params.h"
#include "ndarray/ops/nn/nn_util.h"

namespace mxnet::ops {

std::string SyncBatchNormParam::Validate() const {
  if (!(eps > 0)) return StrCat("attribute eps must be > 0, got ", eps);
  if (ndev < 1) return StrCat("attribute ndev must be >= 1, got ", ndev);
  return "";
}

namespace nn {
namespace {

constexpr const char* kBNReLU = "_contrib_BatchNormWithReLU";
constexpr const char* kSync = "_contrib_SyncBatchNorm";

const Op& BN() {
  static const Op& op = OpRegistry::Get("BatchNorm");
  return op;
}

// Runs BatchNorm's inference under `op`'s name: BatchNorm's messages get the op's name.
template <typename F>
void AsOp(std::string_view op, F f) {
  try {
    f();
  } catch (const Error& e) {
    std::string m = e.what();
    if (m.rfind("BatchNorm", 0) == 0) m = std::string(op) + m.substr(9);
    throw Error(e.code(), m);
  }
}

// BatchNorm's kernel for `backend` (kOptimized: the best one that handles the call).
void RunBN(Backend backend, const OpContext& ctx, const OpAttrs& bn_attrs,
           std::span<const NDArray> in, std::span<const NDArray> out) {
  if (backend == Backend::kReference)
    (*BN().FindKernel({DeviceType::kCPU, Backend::kReference}))(ctx, bn_attrs, in, out);
  else
    BN().SelectKernel(DeviceType::kCPU, bn_attrs, in)(ctx, bn_attrs, in, out);
}

template <typename T>
void ReluInPlace(const NDArray& a) {
  T* p = a.data<T>();
  ParallelFor(a.size(), [&](int64_t i) {
    if (!(static_cast<float>(p[i]) > 0.f) && !std::isnan(static_cast<float>(p[i]))) p[i] = T(0);
  });
}

// ---- _contrib_BatchNormWithReLU ----

template <Backend kB>
void BNReLUKernel(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  RunBN(kB, ctx, MakeAttrs("BatchNorm", attrs.get<BatchNormParam>()), in, out);
  MX_FLOAT_TYPE_SWITCH(out[0].dtype(), T, kBNReLU, { ReluInPlace<T>(out[0]); });
}

std::vector<GradValue> BNReLUGrad(GradBuilder& b, const OpAttrs& attrs,
                                  std::span<const GradValue> in, std::span<const GradValue> out,
                                  std::span<const GradValue> og) {
  const auto& p = attrs.get<BatchNormParam>();
  GradValue masked = b.Mul(og[0], b.Call("_nn_step", {out[0]}));
  std::vector<GradValue> args{masked, in[0], in[1], out[1], out[2], out[3]};
  if (p.output_mean_var) {
    args.push_back(og[1].valid() ? og[1] : b.ZerosLike(out[1]));
    args.push_back(og[2].valid() ? og[2] : b.ZerosLike(out[2]));
  }
  auto g =
      b.Apply(OpRegistry::Get("_backward_BatchNorm"), MakeAttrs("_backward_BatchNorm", p), args);
  return {g[0], g[1], g[2], GradValue{}, GradValue{}};
}

MX_REGISTER_OP(_contrib_BatchNormWithReLU)
    .describe(
        "relu(BatchNorm(data, gamma, beta, moving_mean, moving_var)): batch normalization "
        "followed by max(x, 0), with BatchNorm's attributes, aux states and outputs.")
    .set_params<BatchNormParam>()
    .set_num_inputs(5)
    .set_input_names(std::vector<std::string>{"data", "gamma", "beta", "moving_mean", "moving_var"})
    .set_num_outputs(4)
    .set_num_visible_outputs([](const OpAttrs& a) {
      return a.get<BatchNormParam>().output_mean_var ? 3 : 1;
    })
    .set_output_names(std::vector<std::string>{"output", "mean", "var", "batch_stats"})
    .set_mutable_inputs({3, 4})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      AsOp(kBNReLU, [&] { BN().infer_shape(attrs, in, out); });
    })
    .set_infer_type([](const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
      AsOp(kBNReLU, [&] { BN().infer_type(attrs, in, out); });
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BNReLUKernel<Backend::kReference>)
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, BNReLUKernel<Backend::kOptimized>)
    .set_gradient(BNReLUGrad);

// ---- _contrib_SyncBatchNorm ----
// Outputs: output, mean, var (visible with output_mean_var), invstd and batch_stats (hidden,
// for the gradient).

BatchNormParam BNParamOf(const SyncBatchNormParam& s) {
  BatchNormParam p;
  p.eps = s.eps;
  p.momentum = s.momentum;
  p.fix_gamma = s.fix_gamma;
  p.use_global_stats = s.use_global_stats;
  p.axis = 1;
  return p;
}

OpAttrs BNAttrs(const OpAttrs& attrs) {
  return MakeAttrs("BatchNorm", BNParamOf(attrs.get<SyncBatchNormParam>()));
}

void SyncShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape& d = (*in)[0];
  if (d.ndim_known() && d.ndim() < 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, kSync,
             ": data must have at least 2 dimensions (batch, channel, ...), got ", d.ToString());
  ShapeVec bo(4, Shape::Unknown());
  AsOp(kSync, [&] { BN().infer_shape(BNAttrs(attrs), in, &bo); });
  (*out)[0] = bo[0];
  (*out)[1] = (*out)[2] = (*out)[3] = bo[1];
  (*out)[4] = bo[3];
}

void SyncType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  DTypeVec bo{(*out)[0], -1, -1, -1};
  AsOp(kSync, [&] { BN().infer_type(BNAttrs(attrs), in, &bo); });
  (*out)[0] = bo[0];
  (*out)[1] = (*out)[2] = (*out)[3] = bo[1];
  (*out)[4] = bo[3];
}

// var = 1 / invstd^2 - eps, from BatchNorm's inverse std.
template <typename P>
void VarFromInvStd(const NDArray& inv, const NDArray& var, double eps) {
  const P* iv = inv.data<P>();
  P* v = var.data<P>();
  for (int64_t c = 0; c < inv.size(); ++c) {
    const double x = static_cast<double>(iv[c]);
    v[c] = static_cast<P>(1.0 / (x * x) - eps);
  }
}

template <Backend kB>
void SyncKernel(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<SyncBatchNormParam>();
  const NDArray bo[4] = {out[0], out[1], out[3], out[4]};
  RunBN(kB, ctx, BNAttrs(attrs), in, bo);
  if (out[3].dtype() == DType::kFloat64)
    VarFromInvStd<double>(out[3], out[2], p.eps);
  else
    VarFromInvStd<float>(out[3], out[2], p.eps);
}

MX_REGISTER_OP(_contrib_SyncBatchNorm)
    .describe(
        "Synchronized batch normalization on channel axis 1; on one device it is BatchNorm "
        "with the local batch statistics. With output_mean_var also outputs the batch mean and "
        "(biased) variance.")
    .set_params<SyncBatchNormParam>()
    .set_num_inputs(5)
    .set_input_names(std::vector<std::string>{"data", "gamma", "beta", "moving_mean", "moving_var"})
    .set_num_outputs(5)
    .set_num_visible_outputs([](const OpAttrs& a) {
      return a.get<SyncBatchNormParam>().output_mean_var ? 3 : 1;
    })
    .set_output_names(std::vector<std::string>{"output", "mean", "var", "invstd", "batch_stats"})
    .set_mutable_inputs({3, 4})
    .set_infer_shape(SyncShape)
    .set_infer_type(SyncType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SyncKernel<Backend::kReference>)
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, SyncKernel<Backend::kOptimized>)
    .set_gradient([](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
                     std::span<const GradValue> out, std::span<const GradValue> og) {
      const BatchNormParam p = BNParamOf(attrs.get<SyncBatchNormParam>());
      auto g = b.Apply(OpRegistry::Get("_backward_BatchNorm"), MakeAttrs("_backward_BatchNorm", p),
                       std::vector<GradValue>{og[0], in[0], in[1], out[1], out[3], out[4]});
      return std::vector<GradValue>{g[0], g[1], g[2], GradValue{}, GradValue{}};
    });

}  // namespace
}  // namespace nn
}  // namespace mxnet::ops
