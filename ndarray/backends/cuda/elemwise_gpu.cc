#include "ndarray/backends/cuda/elemwise_gpu.h"

#include <cstdlib>
#include <map>

#include "base/error.h"
#include "base/half.h"

#ifdef MXNET_CUDA
#include <cuda_runtime_api.h>

#include "ndarray/backends/cuda/elemwise_kernels.h"
#include "ndarray/backends/cuda/gpu.h"
#include "ndarray/device_kernels.h"
#endif

namespace mxnet::backends::cuda {
namespace {

// Registry name -> op for ops without attributes; the scalar ops read "scalar" (default 1).
const std::map<std::string, EwOp, std::less<>>& PlainOps() {
  static const auto* m = new std::map<std::string, EwOp, std::less<>>{
      {"elemwise_add", EwOp::kAdd}, {"elemwise_sub", EwOp::kSub}, {"elemwise_mul", EwOp::kMul},
      {"elemwise_div", EwOp::kDiv}, {"negative", EwOp::kNeg},     {"abs", EwOp::kAbs},
      {"square", EwOp::kSquare},    {"sqrt", EwOp::kSqrt},        {"exp", EwOp::kExp},
      {"log", EwOp::kLog},          {"tanh", EwOp::kTanh},        {"sigmoid", EwOp::kSigmoid},
      {"relu", EwOp::kRelu},
  };
  return *m;
}
const std::map<std::string, EwOp, std::less<>>& ScalarOps() {
  static const auto* m = new std::map<std::string, EwOp, std::less<>>{
      {"_plus_scalar", EwOp::kAddScalar}, {"_minus_scalar", EwOp::kSubScalar},
      {"_rminus_scalar", EwOp::kRSub},    {"_mul_scalar", EwOp::kMulScalar},
      {"_div_scalar", EwOp::kDivScalar},  {"_rdiv_scalar", EwOp::kRDiv},
  };
  return *m;
}
const std::map<std::string, EwOp, std::less<>>& ActTypes() {
  static const auto* m = new std::map<std::string, EwOp, std::less<>>{
      {"relu", EwOp::kActRelu},      {"sigmoid", EwOp::kSigmoid},   {"tanh", EwOp::kTanh},
      {"softrelu", EwOp::kSoftrelu}, {"softsign", EwOp::kSoftsign},
  };
  return *m;
}

}  // namespace

const std::vector<std::string>& ElemwiseGpuOpNames() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>{"Activation"};
    for (const auto& [n, op] : PlainOps()) v->push_back(n);
    for (const auto& [n, op] : ScalarOps()) v->push_back(n);
    return v;
  }();
  return *names;
}

std::optional<EwCall> ResolveElemwise(const OpAttrs& attrs) {
  if (!attrs.op()) return std::nullopt;
  const std::string& name = attrs.op()->name;
  if (auto it = PlainOps().find(name); it != PlainOps().end()) return EwCall{it->second, 0};
  if (auto it = ScalarOps().find(name); it != ScalarOps().end()) {
    // The printed attributes (Python float repr, which strtod reads back exactly); absent when
    // the scalar is ScalarParam's default, 1.
    AttrDict d = attrs.ToDict();
    auto s = d.find("scalar");
    return EwCall{it->second, s == d.end() ? 1.0 : std::strtod(s->second.c_str(), nullptr)};
  }
  if (name == "Activation") {
    AttrDict d = attrs.ToDict();
    auto t = d.find("act_type");
    if (t == d.end()) return std::nullopt;
    auto it = ActTypes().find(t->second);
    if (it == ActTypes().end()) return std::nullopt;
    return EwCall{it->second, 0};
  }
  return std::nullopt;
}

std::optional<EwDType> EwDTypeOf(DType t) {
  switch (t) {
    case DType::kFloat32:
      return EwDType::kFloat32;
    case DType::kFloat64:
      return EwDType::kFloat64;
    case DType::kFloat16:
      return EwDType::kFloat16;
    default:
      return std::nullopt;
  }
}

double EwScalarFor(DType t, double s) {
  if (t == DType::kFloat32) return static_cast<float>(s);
  if (t == DType::kFloat16) return static_cast<float>(Half(static_cast<float>(s)));
  return s;
}

bool ElemwiseGpuSupports(const OpAttrs& attrs, std::span<const NDArray> in) {
  if (in.empty()) return false;
  const DType t = in[0].dtype();
  if (!EwDTypeOf(t)) return false;
  for (const NDArray& x : in)
    if (x.dtype() != t || x.is_sparse() || x.shape() != in[0].shape()) return false;
  std::optional<EwCall> c = ResolveElemwise(attrs);
  return c && static_cast<int>(in.size()) >= EwArity(c->op);
}

ElemwisePlan PlanFor(const EwCall& call, const NDArray& out, std::span<const NDArray> in,
                     int multiprocessors) {
  std::vector<uintptr_t> addr{reinterpret_cast<uintptr_t>(out.data_ptr())};
  for (int i = 0; i < EwArity(call.op); ++i)
    addr.push_back(reinterpret_cast<uintptr_t>(in[i].data_ptr()));
  return PlanElemwise(out.size(), DTypeSize(out.dtype()), addr, multiprocessors);
}

#ifdef MXNET_CUDA
namespace {

void ElemwiseGpuKernel(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  std::optional<EwCall> call = ResolveElemwise(attrs);
  if (!call)
    MX_THROW(absl::StatusCode::kInternal, attrs.op() ? attrs.op()->name : "?",
             ": not covered by the generic elementwise GPU kernel");
  const int id = ctx.device.id;
  static thread_local std::map<int, int> sms;  // multiprocessors per device
  auto& sm = sms[id];
  if (sm == 0) sm = GetGpuProperties(id).multiprocessors;
  ElemwisePlan plan = PlanFor(*call, out[0], in, sm);
  if (plan.grid == 0) return;
  cudaSetDevice(id);
  const DType t = out[0].dtype();
  const char* err =
      LaunchElemwise(call->op, *EwDTypeOf(t), plan, out[0].data_ptr(), in[0].data_ptr(),
                     EwArity(call->op) == 2 ? in[1].data_ptr() : nullptr,
                     EwScalarFor(t, call->scalar), Stream(id));
  if (err)
    MX_THROW(absl::StatusCode::kInternal, attrs.op()->name, " on ", ctx.device.ToString(),
             ": elementwise kernel launch failed (", plan.ToString(), "): ", err);
}

const bool kRegistered = [] {
  for (const std::string& name : ElemwiseGpuOpNames())
    RegisterDeviceKernel(name, {DeviceType::kGPU, Backend::kCuda}, ElemwiseGpuKernel,
                         ElemwiseGpuSupports);
  return true;
}();

}  // namespace
#endif  // MXNET_CUDA

}  // namespace mxnet::backends::cuda
