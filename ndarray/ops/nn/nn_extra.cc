// MXNet 1.9.1's legacy nn extras: L2Normalization, LRN, hard_sigmoid, MakeLoss, SVMOutput,
// moments, IdentityAttachKLSparseReg, and their backward helpers (_backward_*). Semantics and
// gradients follow src/operator/{l2_normalization,make_loss,svm_output,
// identity_attach_KL_sparse_reg}-inl.h, src/operator/nn/{lrn,moments}-inl.h and
// src/operator/tensor/elemwise_unary_op_basic.cc (hard_sigmoid); nn_extra_api.h has the
// user-facing description.
//
// Loss layers (MakeLoss, SVMOutput) keep MXNet's contract: the forward is the identity and the
// "gradient" is the loss gradient, ignoring the head gradient. IdentityAttachKLSparseReg's
// gradient is the head gradient plus MXNet's KL sparseness penalty.
//
// The reference kernels compute in double (hard_sigmoid in the data's own precision, so its
// clipping boundaries match MXNet's float arithmetic).
#include <algorithm>
#include <cmath>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/nn/nn_extra_params.h"
#include "ndarray/ops/nn/nn_util.h"

namespace mxnet::ops {

std::string L2NormalizationParam::Validate() const {
  if (mode != "instance" && mode != "channel" && mode != "spatial")
    return StrCat("attribute mode must be one of channel, instance, spatial, got '", mode, "'");
  if (!(eps >= 0)) return StrCat("attribute eps must be >= 0, got ", eps);
  return "";
}
std::string LRNParam::Validate() const {
  if (nsize < 1) return StrCat("attribute nsize must be >= 1, got ", nsize);
  return "";
}
std::string MakeLossParam::Validate() const {
  if (normalization != "null" && normalization != "batch" && normalization != "valid")
    return StrCat("attribute normalization must be one of batch, null, valid, got '", normalization,
                  "'");
  return "";
}
std::string IdentityAttachKLSparseRegParam::Validate() const {
  if (!(sparseness_target >= 0 && sparseness_target <= 1))
    return StrCat("attribute sparseness_target must be in [0, 1], got ", sparseness_target);
  if (!(momentum >= 0 && momentum <= 1))
    return StrCat("attribute momentum must be in [0, 1], got ", momentum);
  return "";
}

namespace nn {
namespace {

std::vector<double> V(const NDArray& a) { return a.ToVector<double>(); }
// Writes `v` into `out` converted to out's dtype.
void Store(const NDArray& out, const std::vector<double>& v) {
  NDArray::FromVector(v, out.shape(), cpu(), out.dtype()).copyto(out);
}

void FloatType(std::string_view op, int t) {
  if (t >= 0) RequireFloat(op, "data", static_cast<DType>(t));
}
// All inputs and outputs share one floating-point dtype.
void SameFloat(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  const std::string& op = attrs.op()->name;
  const std::vector<std::string> names = attrs.op()->InputNames(attrs);
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i) MergeType(&t, (*in)[i], StrCat(op, ": input ", names[i]));
  for (auto x : *out) MergeType(&t, x, StrCat(op, ": output"));
  FloatType(op, t);
  for (auto& x : *in) x = t;
  for (auto& x : *out) x = t;
}

// ---------------------------------------------------------------------------------------------
// L2Normalization: y = x / sqrt(sum(x^2) + eps) over (instance) all axes but 0, (channel) axis 1,
// (spatial) the axes after 1. Hidden output `norm`: (N,), data's shape with axis 1 = 1, (N, C).

constexpr const char* kL2 = "L2Normalization";

// The data as (outer, n, inner), reducing over n; the norm has outer * inner entries.
Split3 L2Split(const std::string& mode, const Shape& s) {
  if (mode == "instance") return Split3{s[0], s[0] ? s.Size() / s[0] : 0, 1};
  if (mode == "channel") return Split3{s[0], s[1], s.ProdRange(2, s.ndim())};
  return Split3{s[0] * s[1], s.ProdRange(2, s.ndim()), 1};
}

void L2Shape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const std::string& mode = attrs.get<L2NormalizationParam>().mode;
  const Shape& d = (*in)[0];
  (*out)[0] = d;
  if (!d.ndim_known()) return;
  if (d.ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, kL2, ": data must have at least 1 dimension");
  if (mode != "instance" && d.ndim() < 3)
    MX_THROW(absl::StatusCode::kInvalidArgument, kL2, ": mode='", mode,
             "' needs data with at least 3 dimensions (N, C, ...), got ", d.ToString());
  if (mode == "instance") {
    (*out)[1] = Shape{d[0]};
  } else if (mode == "channel") {
    Shape n = d;
    n[1] = 1;
    (*out)[1] = n;
  } else {
    (*out)[1] = Shape{d[0], d[1]};
  }
}

void L2Ref(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
           std::span<const NDArray> out) {
  const auto& p = attrs.get<L2NormalizationParam>();
  const Split3 s = L2Split(p.mode, in[0].shape());
  const std::vector<double> x = V(in[0]);
  std::vector<double> y(x.size()), norm(static_cast<size_t>(s.outer * s.inner));
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      double acc = 0;
      for (int64_t k = 0; k < s.n; ++k) {
        const double v = x[(o * s.n + k) * s.inner + i];
        acc += v * v;
      }
      const double nv = std::sqrt(acc + p.eps);
      norm[o * s.inner + i] = nv;
      for (int64_t k = 0; k < s.n; ++k) {
        const int64_t idx = (o * s.n + k) * s.inner + i;
        y[idx] = x[idx] / nv;
      }
    }
  Store(out[0], y);
  Store(out[1], norm);
}

// _backward_L2Normalization(ograd, output, norm): (g - y * sum(g * y)) / norm, sums as forward.
void L2BackwardRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<L2NormalizationParam>();
  const Split3 s = L2Split(p.mode, in[1].shape());
  const std::vector<double> g = V(in[0]), y = V(in[1]), norm = V(in[2]);
  std::vector<double> dx(y.size());
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i) {
      double acc = 0;
      for (int64_t k = 0; k < s.n; ++k) {
        const int64_t idx = (o * s.n + k) * s.inner + i;
        acc += g[idx] * y[idx];
      }
      const double nv = norm[o * s.inner + i];
      for (int64_t k = 0; k < s.n; ++k) {
        const int64_t idx = (o * s.n + k) * s.inner + i;
        dx[idx] = (g[idx] - y[idx] * acc) / nv;
      }
    }
  Store(out[0], dx);
}

MX_REGISTER_OP(L2Normalization)
    .describe(
        "x / sqrt(sum(x^2) + eps) per instance (all axes but 0), channel (across axis 1) or "
        "spatial (the axes after 1) group.")
    .set_params<L2NormalizationParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_num_outputs(2)
    .set_num_visible_outputs([](const OpAttrs&) { return 1; })
    .set_output_names(std::vector<std::string>{"output", "norm"})
    .set_infer_shape(L2Shape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      FloatType(kL2, (*in)[0]);
      (*out)[0] = (*out)[1] = (*in)[0];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, L2Ref)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue>,
           std::span<const GradValue> out, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              Apply1(b, "_backward_L2Normalization", {og[0], out[0], out[1]},
                     MakeAttrs("_backward_L2Normalization", attrs.get<L2NormalizationParam>()))};
        },
        false, true);

MX_REGISTER_OP(_backward_L2Normalization)
    .describe("Gradient of L2Normalization from the head gradient, output and norm (internal).")
    .set_params<L2NormalizationParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "output", "norm"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*in)[0], (*in)[1], "_backward_L2Normalization: ograd vs output");
      (*in)[1] = (*in)[0];
      (*out)[0] = (*in)[0];
    })
    .set_infer_type(SameFloat)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, L2BackwardRef)
    .set_non_differentiable();

// ---------------------------------------------------------------------------------------------
// LRN on (N, C, H, W): tmp_norm = knorm + alpha / nsize * sum over channels c - h .. c + h of
// x^2 (h = (nsize - 1) / 2, out-of-range channels count 0); y = x * tmp_norm^-beta. Hidden
// output tmp_norm.

constexpr const char* kLRN = "LRN";

struct LRNGeom {
  int64_t N, C, S, h;
};
LRNGeom LRNGeomOf(const LRNParam& p, const Shape& s) {
  return {s[0], s[1], s[2] * s[3], (p.nsize - 1) / 2};
}

void LRNRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
            std::span<const NDArray> out) {
  const auto& p = attrs.get<LRNParam>();
  const LRNGeom g = LRNGeomOf(p, in[0].shape());
  const double salpha = static_cast<double>(p.alpha) / p.nsize;
  const std::vector<double> x = V(in[0]);
  std::vector<double> y(x.size()), tmp(x.size());
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t c = 0; c < g.C; ++c)
      for (int64_t i = 0; i < g.S; ++i) {
        double acc = 0;
        for (int64_t j = std::max<int64_t>(0, c - g.h); j <= std::min(g.C - 1, c + g.h); ++j) {
          const double v = x[(n * g.C + j) * g.S + i];
          acc += v * v;
        }
        const int64_t idx = (n * g.C + c) * g.S + i;
        tmp[idx] = p.knorm + salpha * acc;
        y[idx] = x[idx] * std::pow(tmp[idx], -static_cast<double>(p.beta));
      }
  Store(out[0], y);
  Store(out[1], tmp);
}

// _backward_LRN(ograd, data, tmp_norm):
//   dx = g * t^-beta - 2 * beta * alpha / nsize * x * sum over the window of g * x * t^(-beta-1)
void LRNBackwardRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& p = attrs.get<LRNParam>();
  const LRNGeom g = LRNGeomOf(p, in[1].shape());
  const double salpha = static_cast<double>(p.alpha) / p.nsize, beta = p.beta;
  const std::vector<double> og = V(in[0]), x = V(in[1]), t = V(in[2]);
  std::vector<double> w(x.size()), dx(x.size());
  for (size_t i = 0; i < x.size(); ++i) w[i] = og[i] * x[i] * std::pow(t[i], -beta - 1);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t c = 0; c < g.C; ++c)
      for (int64_t i = 0; i < g.S; ++i) {
        double acc = 0;
        for (int64_t j = std::max<int64_t>(0, c - g.h); j <= std::min(g.C - 1, c + g.h); ++j)
          acc += w[(n * g.C + j) * g.S + i];
        const int64_t idx = (n * g.C + c) * g.S + i;
        dx[idx] = og[idx] * std::pow(t[idx], -beta) - 2 * beta * salpha * x[idx] * acc;
      }
  Store(out[0], dx);
}

MX_REGISTER_OP(LRN)
    .describe(
        "Local response normalization across channels of (N, C, H, W) data: x / (knorm + "
        "alpha / nsize * windowed sum of x^2)^beta.")
    .set_params<LRNParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_num_outputs(2)
    .set_num_visible_outputs([](const OpAttrs&) { return 1; })
    .set_output_names(std::vector<std::string>{"output", "tmp_norm"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const Shape& d = (*in)[0];
      if (d.ndim_known() && d.ndim() != 4)
        MX_THROW(absl::StatusCode::kInvalidArgument, kLRN,
                 ": data must be 4-D (batch, channel, height, width), got ", d.ToString());
      (*out)[0] = (*out)[1] = d;
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      FloatType(kLRN, (*in)[0]);
      (*out)[0] = (*out)[1] = (*in)[0];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, LRNRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
           std::span<const GradValue> out, std::span<const GradValue> og) {
          return std::vector<GradValue>{Apply1(b, "_backward_LRN", {og[0], in[0], out[1]},
                                               MakeAttrs("_backward_LRN", attrs.get<LRNParam>()))};
        },
        true, true);

MX_REGISTER_OP(_backward_LRN)
    .describe("Gradient of LRN from the head gradient, data and tmp_norm (internal).")
    .set_params<LRNParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "data", "tmp_norm"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      for (int i : {1, 2}) MergeShape(&(*in)[0], (*in)[i], "_backward_LRN: input shapes");
      (*in)[1] = (*in)[2] = (*in)[0];
      (*out)[0] = (*in)[0];
    })
    .set_infer_type(SameFloat)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, LRNBackwardRef)
    .set_non_differentiable();

// ---------------------------------------------------------------------------------------------
// hard_sigmoid: max(0, min(1, alpha * x + beta)); gradient alpha * g where 0 < alpha * x + beta
// < 1 (strictly), else 0.

template <typename T, bool kBackward>
void HardSigmoidLoop(const HardSigmoidParam& p, const T* x, const T* g, T* y, int64_t n) {
  using A = AccType<T>;
  const A alpha = static_cast<A>(p.alpha), beta = static_cast<A>(p.beta);
  ParallelFor(n, [&](int64_t i) {
    const A v = alpha * static_cast<A>(x[i]) + beta;
    if constexpr (kBackward) {
      y[i] = static_cast<T>(v > A(0) && v < A(1) ? alpha * static_cast<A>(g[i]) : A(0));
    } else {
      y[i] = static_cast<T>(v < A(0) ? A(0) : (v > A(1) ? A(1) : v));
    }
  });
}

MX_REGISTER_OP(hard_sigmoid)
    .describe("max(0, min(1, alpha * x + beta)) elementwise.")
    .set_params<HardSigmoidParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(ElemwiseShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      FloatType("hard_sigmoid", (*in)[0]);
      (*out)[0] = (*in)[0];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "hard_sigmoid", {
                    HardSigmoidLoop<T, false>(attrs.get<HardSigmoidParam>(), in[0].data<T>(),
                                              nullptr, out[0].data<T>(), in[0].size());
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              Apply1(b, "_backward_hard_sigmoid", {og[0], in[0]},
                     MakeAttrs("_backward_hard_sigmoid", attrs.get<HardSigmoidParam>()))};
        },
        true, false)
    .add_inplace(0, 0);

MX_REGISTER_OP(_backward_hard_sigmoid)
    .describe("Gradient of hard_sigmoid from the head gradient and data (internal).")
    .set_params<HardSigmoidParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape(ElemwiseShape)
    .set_infer_type(SameFloat)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  MX_FLOAT_TYPE_SWITCH(in[1].dtype(), T, "_backward_hard_sigmoid", {
                    HardSigmoidLoop<T, true>(attrs.get<HardSigmoidParam>(), in[1].data<T>(),
                                             in[0].data<T>(), out[0].data<T>(), in[1].size());
                  });
                })
    .set_non_differentiable();

// ---------------------------------------------------------------------------------------------
// MakeLoss: identity forward; gradient grad_scale (null), grad_scale / rows (batch; rows = size /
// last dim, MXNet's 2-D flattening), grad_scale / max(1, count(data > valid_thresh)) (valid).

constexpr const char* kML = "MakeLoss";

void MakeLossShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  const Shape& d = (*in)[0];
  if (d.ndim_known() && d.ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, kML, ": data must have at least 1 dimension");
  (*out)[0] = d;
}

void MakeLossBackwardRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                         std::span<const NDArray> out) {
  const auto& p = attrs.get<MakeLossParam>();
  const Shape& s = in[0].shape();
  double g = p.grad_scale;
  if (p.normalization == "batch") {
    const int64_t last = s[s.ndim() - 1];
    g /= static_cast<double>(last ? s.Size() / last : 1);
  } else if (p.normalization == "valid") {
    int64_t valid = 0;
    for (double v : V(in[0])) valid += static_cast<double>(p.valid_thresh) < v;
    g /= static_cast<double>(std::max<int64_t>(valid, 1));
  }
  out[0].Fill(g);
}

MX_REGISTER_OP(MakeLoss)
    .describe(
        "Marks data as a loss: identity forward; the gradient is grad_scale (optionally "
        "divided by the batch size or the valid count), ignoring the head gradient.")
    .set_params<MakeLossParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(MakeLossShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      FloatType(kML, (*in)[0]);
      (*out)[0] = (*in)[0];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  if (out[0].data_ptr() != in[0].data_ptr()) in[0].copyto(out[0]);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue>) {
          return std::vector<GradValue>{
              Apply1(b, "_backward_MakeLoss", {in[0]},
                     MakeAttrs("_backward_MakeLoss", attrs.get<MakeLossParam>()))};
        },
        true, false)
    .add_inplace(0, 0);

MX_REGISTER_OP(_backward_MakeLoss)
    .describe("MakeLoss's gradient from its data (internal).")
    .set_params<MakeLossParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(MakeLossShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      FloatType("_backward_MakeLoss", (*in)[0]);
      (*out)[0] = (*in)[0];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MakeLossBackwardRef)
    .set_non_differentiable();

// ---------------------------------------------------------------------------------------------
// SVMOutput: identity forward on data (..., K) with label data.shape[:-1]; gradient per row r
// with k = int(label[r]) (margin m, coefficient c):
//   L2: k: -2c (m - y_k) if m > y_k;  j != k: 2c (m + y_j) if m > -y_j;  else 0
//   L1: k: -c if m > y_k;             j != k: c if m > -y_j;              else 0

constexpr const char* kSVM = "SVMOutput";

void SVMShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  const Shape& d = (*in)[0];
  (*out)[0] = d;
  if (!d.ndim_known()) return;
  if (d.ndim() < 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, kSVM,
             ": data must have at least 2 dimensions (batch, ..., classes), got ", d.ToString());
  Shape want;
  for (int i = 0; i + 1 < d.ndim(); ++i) want.push_back(d[i]);
  Shape& l = (*in)[1];
  if (l.ndim_known() && l.is_known() && want.is_known() && l != want)
    MX_THROW(absl::StatusCode::kInvalidArgument, kSVM, ": input label has shape ", l.ToString(),
             ", expected ", want.ToString(), " (data ", d.ToString(), " without its last axis)");
  AssignShape(kSVM, "label", &l, want);
}

void SVMBackwardRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& p = attrs.get<SVMOutputParam>();
  const Shape& s = in[0].shape();
  const int64_t K = s[s.ndim() - 1], rows = K ? s.Size() / K : 0;
  const std::vector<double> y = V(in[0]), lab = V(in[1]);
  const double m = p.margin, c = p.regularization_coefficient;
  std::vector<double> g(y.size());
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t k = static_cast<int64_t>(lab[r]);
    for (int64_t j = 0; j < K; ++j) {
      const double v = y[r * K + j];
      double d;
      if (j == k)
        d = m > v ? (p.use_linear ? -c : -2 * c * (m - v)) : 0.0;
      else
        d = m > -v ? (p.use_linear ? c : 2 * c * (m + v)) : 0.0;
      g[r * K + j] = d;
    }
  }
  Store(out[0], g);
}

MX_REGISTER_OP(SVMOutput)
    .describe(
        "Support vector machine output layer: identity forward; the backward is the L2-SVM "
        "(squared hinge) or L1-SVM (hinge, use_linear) gradient against the label, ignoring "
        "the head gradient.")
    .set_params<SVMOutputParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "label"})
    .set_infer_shape(SVMShape)
    .set_infer_type(SameFloat)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  if (out[0].data_ptr() != in[0].data_ptr()) in[0].copyto(out[0]);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
           std::span<const GradValue> out, std::span<const GradValue>) {
          GradValue dx = Apply1(b, "_backward_SVMOutput", {out[0], in[1]},
                                MakeAttrs("_backward_SVMOutput", attrs.get<SVMOutputParam>()));
          return std::vector<GradValue>{dx, b.ZerosLike(in[1])};
        },
        true, true)
    .add_inplace(0, 0);

MX_REGISTER_OP(_backward_SVMOutput)
    .describe("The data gradient of SVMOutput from its output and label (internal).")
    .set_params<SVMOutputParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"output", "label"})
    .set_infer_shape(SVMShape)
    .set_infer_type(SameFloat)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SVMBackwardRef)
    .set_non_differentiable();

// ---------------------------------------------------------------------------------------------
// moments: mean and (biased) variance over `axes`. Integer data gives MXNet's integer results:
// mean = trunc(sum / n), var = trunc(sum((x - mean)^2) / n).

constexpr const char* kMom = "moments";

struct MomentsPlan {
  Shape out;                 // output shape (keepdims or not; (1,) when everything is reduced)
  std::vector<int64_t> map;  // data flat index -> output flat index
  int64_t count = 1;         // elements per output entry
};

std::vector<bool> ReducedAxes(const MomentsParam& p, const Shape& d) {
  if (!p.axes || p.axes->ndim() == 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, kMom,
             ": attribute axes must name at least one axis (None/() is not supported; pass "
             "every axis for global moments)");
  std::vector<bool> red(static_cast<size_t>(d.ndim()), false);
  for (int i = 0; i < p.axes->ndim(); ++i) {
    const int64_t a0 = (*p.axes)[i], a = a0 < 0 ? a0 + d.ndim() : a0;
    if (a < 0 || a >= d.ndim())
      MX_THROW(absl::StatusCode::kInvalidArgument, kMom, ": axis ", a0,
               " in attribute axes=", p.axes->ToString(), " is out of range for data of shape ",
               d.ToString());
    if (red[a])
      MX_THROW(absl::StatusCode::kInvalidArgument, kMom, ": attribute axes=", p.axes->ToString(),
               " names axis ", a, " twice");
    red[a] = true;
  }
  return red;
}

Shape MomentsOutShape(const MomentsParam& p, const Shape& d, const std::vector<bool>& red) {
  Shape o;
  for (int k = 0; k < d.ndim(); ++k) {
    if (!red[k])
      o.push_back(d[k]);
    else if (p.keepdims)
      o.push_back(1);
  }
  if (o.ndim() == 0) o.push_back(1);
  return o;
}

MomentsPlan PlanMoments(const MomentsParam& p, const Shape& d) {
  const std::vector<bool> red = ReducedAxes(p, d);
  MomentsPlan plan;
  plan.out = MomentsOutShape(p, d, red);
  const int nd = d.ndim();
  std::vector<int64_t> ostride(nd, 0);  // stride in the output of each data axis (0: reduced)
  int64_t st = 1;
  for (int k = nd - 1; k >= 0; --k) {
    if (red[k]) {
      plan.count *= d[k];
      continue;
    }
    ostride[k] = st;
    st *= d[k];
  }
  plan.map.resize(static_cast<size_t>(d.Size()));
  std::vector<int64_t> idx(nd, 0);
  int64_t o = 0;
  for (int64_t i = 0; i < d.Size(); ++i) {
    plan.map[i] = o;
    for (int k = nd - 1; k >= 0; --k) {  // odometer step
      o += ostride[k];
      if (++idx[k] < d[k]) break;
      o -= ostride[k] * d[k];
      idx[k] = 0;
    }
  }
  return plan;
}

void MomentsShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<MomentsParam>();
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return;
  const Shape o = MomentsOutShape(p, d, ReducedAxes(p, d));
  (*out)[0] = (*out)[1] = o;
}

void MomentsRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const MomentsPlan plan = PlanMoments(attrs.get<MomentsParam>(), in[0].shape());
  const bool integer = !IsFloatingPoint(in[0].dtype());
  const std::vector<double> x = V(in[0]);
  const size_t no = static_cast<size_t>(plan.out.Size());
  const double n = static_cast<double>(plan.count);
  std::vector<double> mean(no, 0.0), var(no, 0.0);
  for (size_t i = 0; i < x.size(); ++i) mean[plan.map[i]] += x[i];
  for (auto& m : mean) m = integer ? std::trunc(m / n) : m / n;
  for (size_t i = 0; i < x.size(); ++i) {
    const double dv = x[i] - mean[plan.map[i]];
    var[plan.map[i]] += dv * dv;
  }
  for (auto& v : var) v = integer ? std::trunc(v / n) : v / n;
  Store(out[0], mean);
  Store(out[1], var);
}

// _backward_moments(ograd_mean, ograd_var, data, mean): og_mean / n + og_var * 2 (x - mean) / n.
void MomentsBackwardRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                        std::span<const NDArray> out) {
  const MomentsPlan plan = PlanMoments(attrs.get<MomentsParam>(), in[2].shape());
  const std::vector<double> gm = V(in[0]), gv = V(in[1]), x = V(in[2]), mean = V(in[3]);
  const double n = static_cast<double>(plan.count);
  std::vector<double> dx(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t j = plan.map[i];
    dx[i] = gm[j] / n + gv[j] * 2 * (x[i] - mean[j]) / n;
  }
  Store(out[0], dx);
}

MX_REGISTER_OP(moments)
    .describe("The mean and the (biased) variance of data over `axes`: outputs (mean, var).")
    .set_params<MomentsParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_num_outputs(2)
    .set_infer_shape(MomentsShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      if ((*in)[0] == DTypeFlag(DType::kBool))
        MX_THROW(absl::StatusCode::kInvalidArgument, kMom, ": data must be numeric, got bool");
      (*out)[0] = (*out)[1] = (*in)[0];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MomentsRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
           std::span<const GradValue> out, std::span<const GradValue> og) {
          GradValue gm = og[0].valid() ? og[0] : b.ZerosLike(out[0]);
          GradValue gv = og[1].valid() ? og[1] : b.ZerosLike(out[1]);
          return std::vector<GradValue>{
              Apply1(b, "_backward_moments", {gm, gv, in[0], out[0]},
                     MakeAttrs("_backward_moments", attrs.get<MomentsParam>()))};
        },
        true, true);

MX_REGISTER_OP(_backward_moments)
    .describe("Gradient of moments from both head gradients, data and the mean (internal).")
    .set_params<MomentsParam>()
    .set_num_inputs(4)
    .set_input_names(std::vector<std::string>{"ograd_mean", "ograd_var", "data", "mean"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& d = (*in)[2];
      (*out)[0] = d;
      if (!d.ndim_known()) return;
      const auto& p = attrs.get<MomentsParam>();
      const Shape o = MomentsOutShape(p, d, ReducedAxes(p, d));
      for (int i : {0, 1, 3}) AssignShape("_backward_moments", "ograd/mean", &(*in)[i], o);
    })
    .set_infer_type(SameFloat)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MomentsBackwardRef)
    .set_non_differentiable();

// ---------------------------------------------------------------------------------------------
// IdentityAttachKLSparseReg(data (N, C), moving_avg (C,) aux): identity forward. Hidden output
// moving_avg_new = momentum * moving_avg + (1 - momentum) * mean(data, axis 0), written into
// moving_avg when the call is recorded (MXNet 1.9.1 updates it in the backward of a recorded
// call: the same values in a record + backward loop). Gradient:
//   g + penalty * (-sparseness_target / m + (1 - sparseness_target) / (1 - m)), m = moving_avg_new
// (no gradient for moving_avg).

constexpr const char* kKL = "IdentityAttachKLSparseReg";

void KLShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  const Shape& d = (*in)[0];
  (*out)[0] = d;
  if (!d.ndim_known()) return;
  if (d.ndim() != 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, kKL, ": data must be 2-D (batch, units), got ",
             d.ToString());
  Shape& m = (*in)[1];
  if (m.ndim_known() && m.is_known() && d[1] >= 0 && m != Shape{d[1]})
    MX_THROW(absl::StatusCode::kInvalidArgument, kKL, ": input moving_avg has shape ", m.ToString(),
             ", expected (", d[1], ",) for data ", d.ToString());
  AssignShape(kKL, "moving_avg", &m, Shape{d[1]});
  (*out)[1] = m;
}

void KLRef(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
           std::span<const NDArray> out) {
  const auto& p = attrs.get<IdentityAttachKLSparseRegParam>();
  const int64_t N = in[0].shape()[0], C = in[0].shape()[1];
  const std::vector<double> x = V(in[0]), mv = V(in[1]);
  std::vector<double> avg(static_cast<size_t>(C), 0.0);
  for (int64_t r = 0; r < N; ++r)
    for (int64_t c = 0; c < C; ++c) avg[c] += x[r * C + c];
  for (int64_t c = 0; c < C; ++c)
    avg[c] = p.momentum * mv[c] + (1.0 - p.momentum) * (N ? avg[c] / N : 0.0);
  in[0].copyto(out[0]);
  Store(out[1], avg);
  if (ctx.is_record) out[1].copyto(in[1]);
}

MX_REGISTER_OP(IdentityAttachKLSparseReg)
    .describe(
        "Identity on (N, C) sigmoid activations whose gradient adds a KL sparseness penalty "
        "against a moving average of the mean activation (aux state moving_avg).")
    .set_params<IdentityAttachKLSparseRegParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "moving_avg"})
    .set_num_outputs(2)
    .set_num_visible_outputs([](const OpAttrs&) { return 1; })
    .set_output_names(std::vector<std::string>{"output", "moving_avg_new"})
    .set_mutable_inputs({1})
    .set_infer_shape(KLShape)
    .set_infer_type(SameFloat)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, KLRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue>,
           std::span<const GradValue> out, std::span<const GradValue> og) {
          GradValue dx = Apply1(b, "_backward_IdentityAttachKLSparseReg", {og[0], out[1]},
                                MakeAttrs("_backward_IdentityAttachKLSparseReg",
                                          attrs.get<IdentityAttachKLSparseRegParam>()));
          return std::vector<GradValue>{dx, GradValue{}};
        },
        false, true);

MX_REGISTER_OP(_backward_IdentityAttachKLSparseReg)
    .describe(
        "IdentityAttachKLSparseReg's gradient from the head gradient and moving_avg_new "
        "(internal).")
    .set_params<IdentityAttachKLSparseRegParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "moving_avg_new"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const Shape& g = (*in)[0];
      if (g.ndim_known() && g.ndim() == 2)
        AssignShape("_backward_IdentityAttachKLSparseReg", "moving_avg_new", &(*in)[1],
                    Shape{g[1]});
      (*out)[0] = g;
    })
    .set_infer_type(SameFloat)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = attrs.get<IdentityAttachKLSparseRegParam>();
                  if (in[0].ndim() != 2)
                    MX_THROW(absl::StatusCode::kInvalidArgument,
                             "_backward_IdentityAttachKLSparseReg: ograd must be 2-D, got ",
                             in[0].shape().ToString());
                  const int64_t C = in[0].shape()[1];
                  std::vector<double> g = V(in[0]);
                  const std::vector<double> m = V(in[1]);
                  const double t = p.sparseness_target;
                  for (size_t i = 0; i < g.size(); ++i) {
                    const double mi = m[static_cast<int64_t>(i) % C];
                    g[i] += p.penalty * (-t / mi + (1 - t) / (1 - mi));
                  }
                  Store(out[0], g);
                })
    .set_non_differentiable();

}  // namespace
}  // namespace nn
}  // namespace mxnet::ops
