// The softmax family and loss layers: softmax, log_softmax, softmin, SoftmaxActivation,
// SoftmaxOutput (alias Softmax), softmax_cross_entropy, Linear/Logistic/MAERegressionOutput,
// and their backward helpers. Semantics follow MXNet 1.9.1 (src/operator/nn/softmax*.cc,
// softmax_output.cc, loss_binary_op.cc, regression_output.cc).
//
// The loss layers (SoftmaxOutput, *RegressionOutput) keep MXNet's contract: the forward is the
// prediction (softmax / identity / sigmoid) and the "gradient" is that of the loss against the
// label, ignoring the head gradient (SoftmaxOutput multiplies by it only with out_grad=True).
// The label gets a zero gradient.
//
// Known differences from MXNet 1.9.1 (pinned in nn_test.cc, KnownMxnetDeviations):
//  - SoftmaxOutput out_grad=True: MXNet's backward node never receives the head gradient and
//    multiplies by the softmax output instead; we multiply by the head gradient, as documented.
//  - SoftmaxActivation mode="instance" on rank > 2: MXNet's backward uses the channel (axis 1)
//    formula although the forward normalizes the last axis; ours differentiates the forward.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/nn/nn_onednn.h"
#include "ndarray/ops/nn/nn_params.h"
#include "ndarray/ops/nn/nn_util.h"

namespace mxnet::ops::nn {
namespace {

template <typename T>
inline double D(T v) {
  return static_cast<double>(static_cast<AccType<T>>(v));
}
template <typename T>
inline T To(double v) {
  return static_cast<T>(static_cast<AccType<T>>(v));
}

enum class SMode { kSoftmax, kLog, kSoftmin };

// softmax / log_softmax / softmin along axis 1 of (outer, n, inner), scaled by 1/temperature.
// len (optional, one per (outer, inner) row): positions >= len are 0 (softmax only).
template <typename TI, typename TO>
void SoftmaxRows(SMode mode, const Split3& s, double temp, const TI* x, TO* y,
                 const std::vector<int64_t>* len) {
  const double sign = mode == SMode::kSoftmin ? -1.0 : 1.0;
  ParallelFor(
      s.outer * s.inner,
      [&](int64_t r) {
        const int64_t o = r / s.inner, i = r % s.inner;
        const int64_t base = o * s.n * s.inner + i;
        const int64_t L = len ? std::clamp<int64_t>((*len)[r], 0, s.n) : s.n;
        double mx = -INFINITY;
        for (int64_t k = 0; k < L; ++k) mx = std::max(mx, sign * D(x[base + k * s.inner]) / temp);
        double sum = 0;
        for (int64_t k = 0; k < L; ++k)
          sum += std::exp(sign * D(x[base + k * s.inner]) / temp - mx);
        const double lsum = std::log(sum);
        for (int64_t k = 0; k < s.n; ++k) {
          const int64_t idx = base + k * s.inner;
          if (k >= L) {
            y[idx] = To<TO>(0.0);
            continue;
          }
          const double z = sign * D(x[idx]) / temp - mx;
          y[idx] = To<TO>(mode == SMode::kLog ? z - lsum : std::exp(z) / sum);
        }
      },
      std::max<int64_t>(1, 16384 / std::max<int64_t>(1, s.n)));
}

// Gradient of SoftmaxRows given its output y and head gradient g:
//   softmax: y * (g - sum(g * y)) / T;  softmin: the negative;  log: (g - exp(y) * sum(g)) / T.
template <typename TG, typename TX>
void SoftmaxRowsBackward(SMode mode, const Split3& s, double temp, const TG* g, const TG* y,
                         TX* dx) {
  ParallelFor(
      s.outer * s.inner,
      [&](int64_t r) {
        const int64_t o = r / s.inner, i = r % s.inner;
        const int64_t base = o * s.n * s.inner + i;
        double acc = 0;
        for (int64_t k = 0; k < s.n; ++k) {
          const int64_t idx = base + k * s.inner;
          acc += mode == SMode::kLog ? D(g[idx]) : D(g[idx]) * D(y[idx]);
        }
        for (int64_t k = 0; k < s.n; ++k) {
          const int64_t idx = base + k * s.inner;
          double v = mode == SMode::kLog ? D(g[idx]) - std::exp(D(y[idx])) * acc
                                         : D(y[idx]) * (D(g[idx]) - acc);
          if (mode == SMode::kSoftmin) v = -v;
          dx[idx] = To<TX>(v / temp);
        }
      },
      std::max<int64_t>(1, 16384 / std::max<int64_t>(1, s.n)));
}

// ---------------------------------------------------------------------------------------------
// softmax, log_softmax, softmin

SMode ModeOf(std::string_view op) {
  if (op == "log_softmax" || op == "_backward_log_softmax") return SMode::kLog;
  if (op == "softmin" || op == "_backward_softmin") return SMode::kSoftmin;
  return SMode::kSoftmax;
}

bool TakesLength(std::string_view op) { return op == "softmax" || op == "_backward_softmax"; }

void SoftmaxShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<SoftmaxParam>();
  const std::string& op = attrs.op()->name;
  if (p.has_length() && !TakesLength(op))
    MX_THROW(absl::StatusCode::kInvalidArgument, op,
             ": use_length=True is only supported by softmax");
  Shape& data = (*in)[0];
  if (p.has_length() && data.ndim_known()) {
    const int axis = NormalizeAxis(op, "axis", p.axis, data);
    Shape want;
    for (int k = 0; k < data.ndim(); ++k)
      if (k != axis) want.push_back(data[k]);
    if ((*in)[1].ndim_known() && (*in)[1] != want && (*in)[1].is_known() && want.is_known())
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input length has shape ",
               (*in)[1].ToString(), ", expected ", want.ToString(), " (data ", data.ToString(),
               " without axis ", p.axis, ")");
    AssignShape(op, "length", &(*in)[1], want);
  } else if (data.ndim_known()) {
    NormalizeAxis(op, "axis", p.axis, data);
  }
  (*out)[0] = data;
}

void SoftmaxType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  const auto& p = attrs.get<SoftmaxParam>();
  const std::string& op = attrs.op()->name;
  int t = (*in)[0];
  if (t >= 0) RequireFloat(op, "data", static_cast<DType>(t));
  if (p.has_length() && (*in)[1] >= 0 &&
      (IsFloatingPoint(static_cast<DType>((*in)[1])) || (*in)[1] == DTypeFlag(DType::kBool)))
    MX_THROW(absl::StatusCode::kInvalidArgument, op,
             ": input length must be an integer array, got ",
             DTypeName(static_cast<DType>((*in)[1])));
  (*out)[0] = p.dtype ? DTypeFlag(*p.dtype) : t;
}

double Temp(const SoftmaxParam& p) { return p.temperature ? *p.temperature : 1.0; }

std::vector<int64_t> Lengths(const NDArray& a) { return a.ToVector<int64_t>(); }

void SoftmaxRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<SoftmaxParam>();
  const std::string& op = attrs.op()->name;
  const Split3 s = SplitAt(in[0].shape(), NormalizeAxis(op, "axis", p.axis, in[0].shape()));
  std::vector<int64_t> len;
  if (p.has_length()) len = Lengths(in[1]);
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), TI, op, {
    MX_FLOAT_TYPE_SWITCH(out[0].dtype(), TO, op, {
      SoftmaxRows<TI, TO>(ModeOf(op), s, Temp(p), in[0].data<TI>(), out[0].data<TO>(),
                          p.has_length() ? &len : nullptr);
    });
  });
}

bool SoftmaxDnnlSupports(const OpAttrs& attrs, std::span<const NDArray> in) {
  const auto& p = attrs.get<SoftmaxParam>();
  return in[0].dtype() == DType::kFloat32 && in[0].size() > 0 && !p.has_length() &&
         (!p.temperature || *p.temperature == 1.0) && (!p.dtype || *p.dtype == DType::kFloat32) &&
         ModeOf(attrs.op()->name) != SMode::kSoftmin;
}

void SoftmaxDnnl(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const auto& p = attrs.get<SoftmaxParam>();
  const std::string& op = attrs.op()->name;
  const Split3 s = SplitAt(in[0].shape(), NormalizeAxis(op, "axis", p.axis, in[0].shape()));
  onednn::SoftmaxForward(ModeOf(op) == SMode::kLog, in[0].data<float>(), out[0].data<float>(),
                         s.outer, s.n, s.inner);
}

// _backward_X(ograd, output[, data (when dtype is set: gives the gradient's dtype)][, length])
std::vector<GradValue> SoftmaxGrad(GradBuilder& b, const OpAttrs& attrs,
                                   std::span<const GradValue> in, std::span<const GradValue> out,
                                   std::span<const GradValue> og) {
  const auto& p = attrs.get<SoftmaxParam>();
  std::vector<GradValue> args{og[0], out[0]};
  if (p.dtype) args.push_back(in[0]);
  if (p.has_length()) args.push_back(in[1]);
  const Op& bw = OpRegistry::Get(StrCat("_backward_", attrs.op()->name));
  GradValue dx = b.Apply(bw, OpAttrs::From(bw, p), args)[0];
  if (p.has_length()) return {dx, GradValue{}};
  return {dx};
}

int BackwardSoftmaxInputs(const OpAttrs& a) {
  const auto& p = a.get<SoftmaxParam>();
  return 2 + (p.dtype ? 1 : 0) + (p.has_length() ? 1 : 0);
}

void BackwardSoftmaxRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                        std::span<const NDArray> out) {
  const auto& p = attrs.get<SoftmaxParam>();
  const std::string& op = attrs.op()->name;
  const Split3 s = SplitAt(in[1].shape(), NormalizeAxis(op, "axis", p.axis, in[1].shape()));
  MX_FLOAT_TYPE_SWITCH(in[1].dtype(), TG, op, {
    MX_FLOAT_TYPE_SWITCH(out[0].dtype(), TX, op, {
      SoftmaxRowsBackward<TG, TX>(ModeOf(op), s, Temp(p), in[0].data<TG>(), in[1].data<TG>(),
                                  out[0].data<TX>());
    });
  });
}

#define MX_SOFTMAX_OP(NAME, DOC)                                                             \
  MX_REGISTER_OP(NAME)                                                                       \
      .describe(DOC)                                                                         \
      .set_params<SoftmaxParam>()                                                            \
      .set_num_inputs([](const OpAttrs& a) {                                                 \
        return a.get<SoftmaxParam>().has_length() && TakesLength(#NAME) ? 2 : 1;             \
      })                                                                                     \
      .set_input_names([](const OpAttrs& a) {                                                \
        return a.get<SoftmaxParam>().has_length() && TakesLength(#NAME)                      \
                   ? std::vector<std::string>{"data", "length"}                              \
                   : std::vector<std::string>{"data"};                                       \
      })                                                                                     \
      .set_infer_shape(SoftmaxShape)                                                         \
      .set_infer_type(SoftmaxType)                                                           \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, SoftmaxRef)                       \
      .set_kernel({DeviceType::kCPU, Backend::kOptimized}, SoftmaxDnnl, SoftmaxDnnlSupports) \
      .set_gradient(SoftmaxGrad, true, true)

#define MX_SOFTMAX_BACKWARD_OP(NAME)                                                       \
  MX_REGISTER_OP(_backward_##NAME)                                                         \
      .describe("Gradient of " #NAME " from the head gradient and its output (internal).") \
      .set_params<SoftmaxParam>()                                                          \
      .set_num_inputs(BackwardSoftmaxInputs)                                               \
      .set_input_names([](const OpAttrs& a) {                                              \
        std::vector<std::string> n{"ograd", "output"};                                     \
        if (a.get<SoftmaxParam>().dtype) n.push_back("data");                              \
        if (a.get<SoftmaxParam>().has_length()) n.push_back("length");                     \
        return n;                                                                          \
      })                                                                                   \
      .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {                   \
        MergeShape(&(*in)[0], (*in)[1], "_backward_" #NAME ": ograd vs output");           \
        (*in)[1] = (*in)[0];                                                               \
        (*out)[0] = (*in)[0];                                                              \
      })                                                                                   \
      .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {                  \
        (*out)[0] = a.get<SoftmaxParam>().dtype ? (*in)[2] : (*in)[1];                     \
      })                                                                                   \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, BackwardSoftmaxRef)             \
      .set_non_differentiable()

MX_SOFTMAX_OP(softmax,
              "exp(x / T) / sum(exp(x / T)) along `axis`; with use_length, positions at "
              "or beyond length[...] are 0.")
    .add_alias("_npx_softmax");
MX_SOFTMAX_OP(log_softmax, "log(softmax(x)) along `axis`, computed stably.")
    .add_alias("_npx_log_softmax");
MX_SOFTMAX_OP(softmin, "softmax(-x) along `axis`.");
MX_SOFTMAX_BACKWARD_OP(softmax);
MX_SOFTMAX_BACKWARD_OP(log_softmax);
MX_SOFTMAX_BACKWARD_OP(softmin);

// ---------------------------------------------------------------------------------------------
// SoftmaxActivation

Split3 SoftmaxActivationSplit(const OpAttrs& attrs, const Shape& s) {
  if (attrs.get<SoftmaxActivationParam>().mode == "channel") {
    if (s.ndim() < 3)
      MX_THROW(absl::StatusCode::kInvalidArgument,
               "SoftmaxActivation: mode='channel' needs data with at least 3 dimensions (N, C, "
               "...), got ",
               s.ToString());
    return SplitAt(s, 1);
  }
  if (s.ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "SoftmaxActivation: data must have at least 1 dimension");
  return SplitAt(s, s.ndim() - 1);
}

MX_REGISTER_OP(SoftmaxActivation)
    .describe("Softmax over the last axis (mode='instance') or over axis 1 (mode='channel').")
    .set_params<SoftmaxActivationParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      if ((*in)[0].ndim_known()) SoftmaxActivationSplit(attrs, (*in)[0]);
      (*out)[0] = (*in)[0];
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      if ((*in)[0] >= 0) RequireFloat("SoftmaxActivation", "data", static_cast<DType>((*in)[0]));
      (*out)[0] = (*in)[0];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Split3 s = SoftmaxActivationSplit(attrs, in[0].shape());
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "SoftmaxActivation", {
                    SoftmaxRows<T, T>(SMode::kSoftmax, s, 1.0, in[0].data<T>(), out[0].data<T>(),
                                      nullptr);
                  });
                })
    .set_kernel(
        {DeviceType::kCPU, Backend::kOptimized},
        [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
           std::span<const NDArray> out) {
          const Split3 s = SoftmaxActivationSplit(attrs, in[0].shape());
          onednn::SoftmaxForward(false, in[0].data<float>(), out[0].data<float>(), s.outer, s.n,
                                 s.inner);
        },
        [](const OpAttrs&, std::span<const NDArray> in) {
          return in[0].dtype() == DType::kFloat32 && in[0].size() > 0;
        })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue>,
           std::span<const GradValue> out, std::span<const GradValue> og) {
          SoftmaxParam p;
          p.axis = attrs.get<SoftmaxActivationParam>().mode == "channel" ? 1 : -1;
          return std::vector<GradValue>{
              Apply1(b, "_backward_softmax", {og[0], out[0]}, MakeAttrs("_backward_softmax", p))};
        },
        false, true);

// ---------------------------------------------------------------------------------------------
// SoftmaxOutput

constexpr const char* kSO = "SoftmaxOutput";

// The forward's softmax layout: multi_output (N, K, rest) along axis 1; preserve_shape along the
// last axis; else data flattened to (N, rest).
Split3 SoftmaxOutputSplit(const SoftmaxOutputParam& p, const Shape& s) {
  if (s.ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, kSO, ": data must have at least 1 dimension");
  Split3 r;
  if (p.multi_output) {
    if (s.ndim() < 2)
      MX_THROW(absl::StatusCode::kInvalidArgument, kSO,
               ": multi_output needs data (N, K, ...), got ", s.ToString());
    return SplitAt(s, 1);
  }
  if (p.preserve_shape) return SplitAt(s, s.ndim() - 1);
  r.outer = s[0];
  r.n = s[0] ? s.Size() / s[0] : 0;
  r.inner = 1;
  return r;
}

void SoftmaxOutputShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<SoftmaxOutputParam>();
  const Shape& d = (*in)[0];
  Shape& l = (*in)[1];
  (*out)[0] = d;
  if (!d.ndim_known()) return;
  if (d.ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, kSO, ": data must have at least 1 dimension");
  if (l == d) return;  // probabilities as labels
  if (p.multi_output) {
    if (d.ndim() < 2)
      MX_THROW(absl::StatusCode::kInvalidArgument, kSO,
               ": multi_output needs data (N, K, ...), got ", d.ToString());
    if (!d.is_known()) return;
    Shape l1{d[0], d[1] ? d.Size() / d[0] / d[1] : 0};
    Shape l2{d[0]};
    for (int i = 2; i < d.ndim(); ++i) l2.push_back(d[i]);
    Shape l3 = d;
    l3[1] = 1;
    if (!l.ndim_known())
      l = l1;
    else if (l != l1 && l != l2 && l != l3)
      MX_THROW(absl::StatusCode::kInvalidArgument, kSO, ": input label has shape ", l.ToString(),
               ", expected ", l1.ToString(), " or ", l2.ToString(), " for data ", d.ToString(),
               " with multi_output");
    return;
  }
  Shape want;
  for (int i = 0; i + 1 < d.ndim(); ++i) want.push_back(d[i]);
  if (l.ndim_known() && want.is_known() && l.is_known() && l != want)
    MX_THROW(absl::StatusCode::kInvalidArgument, kSO, ": input label has shape ", l.ToString(),
             ", expected ", want.ToString(), " (data ", d.ToString(), " without its last axis) or ",
             d.ToString());
  AssignShape(kSO, "label", &l, want);
}

void SameFloatType(std::string_view op, DTypeVec* in, DTypeVec* out) {
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i)
    MergeType(&t, (*in)[i], StrCat(op, ": input ", i == 0 ? "data" : i == 1 ? "label" : "ograd"));
  for (auto x : *out) MergeType(&t, x, StrCat(op, ": output"));
  if (t >= 0) RequireFloat(op, "data", static_cast<DType>(t));
  for (auto& x : *in) x = t;
  for (auto& x : *out) x = t;
}

void SoftmaxOutputRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const Split3 s = SoftmaxOutputSplit(attrs.get<SoftmaxOutputParam>(), in[0].shape());
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, kSO, {
    SoftmaxRows<T, T>(SMode::kSoftmax, s, 1.0, in[0].data<T>(), out[0].data<T>(), nullptr);
  });
}

void SoftmaxOutputDnnl(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  const Split3 s = SoftmaxOutputSplit(attrs.get<SoftmaxOutputParam>(), in[0].shape());
  onednn::SoftmaxForward(false, in[0].data<float>(), out[0].data<float>(), s.outer, s.n, s.inner);
}

// _backward_SoftmaxOutput(output, label[, ograd]) -> data gradient (MXNet's SoftmaxGrad /
// SmoothSoftmaxGrad with ignore_label, normalization and grad_scale).
void BackwardSoftmaxOutputRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                              std::span<const NDArray> out) {
  const auto& p = attrs.get<SoftmaxOutputParam>();
  const NDArray &y = in[0], &label = in[1];
  const Shape& ds = y.shape();
  const std::vector<double> lab = label.ToVector<double>();
  std::vector<double> og;
  if (p.out_grad) og = in[2].ToVector<double>();
  const int ign = static_cast<int>(p.ignore_label);
  MX_FLOAT_TYPE_SWITCH(y.dtype(), T, "_backward_SoftmaxOutput", {
    const T* yp = y.data<T>();
    T* g = out[0].data<T>();
    const int64_t total = y.size();
    std::vector<double> grad(total);
    double scale = p.grad_scale;
    if (label.shape() == ds) {  // probabilities as labels
      for (int64_t i = 0; i < total; ++i) grad[i] = (D(yp[i]) - lab[i]) * scale;
    } else if (p.multi_output) {
      const Split3 s = SplitAt(ds, 1);  // (N, K, rest)
      for (int64_t n = 0; n < s.outer; ++n)
        for (int64_t r = 0; r < s.inner; ++r) {
          const int k = static_cast<int>(lab[n * s.inner + r]);
          const bool ignored = p.use_ignore && k == ign;
          for (int64_t c = 0; c < s.n; ++c) {
            const int64_t idx = (n * s.n + c) * s.inner + r;
            grad[idx] = ignored ? 0.0 : D(yp[idx]) - (c == k ? 1.0 : 0.0);
          }
        }
      int64_t valid = static_cast<int64_t>(lab.size());
      if (p.normalization == "batch") {
        valid = s.outer;
      } else if (p.normalization == "valid") {
        for (double v : lab) valid -= static_cast<int>(v) == ign;
        valid = std::max<int64_t>(valid, 1);
      } else {
        valid = 1;
      }
      scale = p.grad_scale / (p.normalization == "valid" ? 1.0 : static_cast<double>(s.inner)) /
              static_cast<double>(valid);
      for (auto& v : grad) v *= scale;
    } else {
      const Split3 s = SoftmaxOutputSplit(p, ds);  // rows of length s.n
      const double smooth = s.n > 1 ? p.smooth_alpha / (s.n - 1) : 0.0;
      for (int64_t r = 0; r < s.outer; ++r) {
        const int k = r < static_cast<int64_t>(lab.size()) ? static_cast<int>(lab[r]) : -1;
        const bool ignored = p.use_ignore && k == ign;
        for (int64_t c = 0; c < s.n; ++c) {
          const int64_t idx = r * s.n + c;
          if (ignored)
            grad[idx] = 0.0;
          else if (p.smooth_alpha == 0.0f)
            grad[idx] = D(yp[idx]) - (c == k ? 1.0 : 0.0);
          else
            grad[idx] = D(yp[idx]) - (c == k ? 1.0 - p.smooth_alpha : smooth);
        }
      }
      int64_t valid = static_cast<int64_t>(lab.size());
      if (p.normalization == "valid") {
        for (double v : lab) valid -= static_cast<int>(v) == ign;
        valid = std::max<int64_t>(valid, 1);
      } else if (p.normalization != "batch") {
        valid = 1;
      }
      scale = p.grad_scale / static_cast<double>(valid);
      for (auto& v : grad) v *= scale;
    }
    for (int64_t i = 0; i < total; ++i) g[i] = To<T>(p.out_grad ? grad[i] * og[i] : grad[i]);
  });
}

MX_REGISTER_OP(SoftmaxOutput)
    .describe(
        "Softmax with a cross-entropy gradient: the forward is softmax (over data flattened "
        "to (N, rest), axis 1 with multi_output, the last axis with preserve_shape); the "
        "backward is (softmax - one_hot(label)) * grad_scale, normalized, ignoring the head "
        "gradient unless out_grad.")
    .add_alias("Softmax")
    .set_params<SoftmaxOutputParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "label"})
    .set_infer_shape(SoftmaxOutputShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      SameFloatType(kSO, in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SoftmaxOutputRef)
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, SoftmaxOutputDnnl,
                [](const OpAttrs&, std::span<const NDArray> in) {
                  return in[0].dtype() == DType::kFloat32 && in[0].size() > 0;
                })
    .set_gradient([](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
                     std::span<const GradValue> out, std::span<const GradValue> og) {
      const auto& p = attrs.get<SoftmaxOutputParam>();
      std::vector<GradValue> args{out[0], in[1]};
      if (p.out_grad) args.push_back(og[0]);
      GradValue dx =
          Apply1(b, "_backward_SoftmaxOutput", args, MakeAttrs("_backward_SoftmaxOutput", p));
      return std::vector<GradValue>{dx, b.ZerosLike(in[1])};
    });

MX_REGISTER_OP(_backward_SoftmaxOutput)
    .describe("The data gradient of SoftmaxOutput from its output and label (internal).")
    .set_params<SoftmaxOutputParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<SoftmaxOutputParam>().out_grad ? 3 : 2; })
    .set_input_names([](const OpAttrs& a) {
      return a.get<SoftmaxOutputParam>().out_grad
                 ? std::vector<std::string>{"output", "label", "ograd"}
                 : std::vector<std::string>{"output", "label"};
    })
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) { (*out)[0] = (*in)[0]; })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      SameFloatType("_backward_SoftmaxOutput", in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BackwardSoftmaxOutputRef)
    .set_non_differentiable();

// ---------------------------------------------------------------------------------------------
// softmax_cross_entropy(data (N, K), label (N,)) -> (1,): sum_i -log(max(softmax(data)[i, label_i],
// 1e-8))

constexpr const char* kSCE = "softmax_cross_entropy";

void SCEShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  const Shape& d = (*in)[0];
  Shape& l = (*in)[1];
  if (d.ndim_known() && d.ndim() != 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, kSCE, ": data must be 2-D (batch, classes), got ",
             d.ToString());
  if (l.ndim_known() && l.ndim() != 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, kSCE, ": label must be 1-D (batch,), got ",
             l.ToString());
  if (d.ndim_known()) {
    if (l.ndim_known() && l[0] >= 0 && d[0] >= 0 && l[0] != d[0])
      MX_THROW(absl::StatusCode::kInvalidArgument, kSCE, ": label ", l.ToString(),
               " does not match the batch size of data ", d.ToString());
    AssignShape(kSCE, "label", &l, Shape{d[0]});
  }
  (*out)[0] = Shape{1};
}

template <typename T>
void SCERows(const NDArray& data, std::vector<double>* prob) {
  const Split3 s{data.shape()[0], data.shape()[1], 1};
  prob->resize(data.size());
  SoftmaxRows<T, double>(SMode::kSoftmax, s, 1.0, data.data<T>(), prob->data(), nullptr);
}

MX_REGISTER_OP(softmax_cross_entropy)
    .describe("Cross entropy of softmax(data) against integer labels, summed over the batch.")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "label"})
    .set_infer_shape(SCEShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      SameFloatType(kSCE, in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const std::vector<double> lab = in[1].ToVector<double>();
                  std::vector<double> prob;
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, kSCE, { SCERows<T>(in[0], &prob); });
                  const int64_t N = in[0].shape()[0], K = in[0].shape()[1];
                  double loss = 0;
                  for (int64_t i = 0; i < N; ++i) {
                    const int64_t k = static_cast<int64_t>(lab[i]);
                    const double pk = k >= 0 && k < K ? prob[i * K + k] : 0.0;
                    loss -= std::log(std::max(pk, 1e-8));
                  }
                  out[0].Fill(loss);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          GradValue dx = b.Call("_backward_softmax_cross_entropy", {og[0], in[0], in[1]});
          return std::vector<GradValue>{dx, b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(_backward_softmax_cross_entropy)
    .describe("ograd * (softmax(data) - one_hot(label)) (internal).")
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "data", "label"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) { (*out)[0] = (*in)[1]; })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      SameFloatType("_backward_softmax_cross_entropy", in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const std::vector<double> lab = in[2].ToVector<double>();
                  const double g = in[0].ToVector<double>()[0];
                  std::vector<double> prob;
                  MX_FLOAT_TYPE_SWITCH(in[1].dtype(), T, "_backward_softmax_cross_entropy", {
                    SCERows<T>(in[1], &prob);
                    const int64_t N = in[1].shape()[0], K = in[1].shape()[1];
                    T* dx = out[0].data<T>();
                    for (int64_t i = 0; i < N; ++i)
                      for (int64_t k = 0; k < K; ++k)
                        dx[i * K + k] =
                            To<T>(g * (prob[i * K + k] -
                                       (k == static_cast<int64_t>(lab[i]) ? 1.0 : 0.0)));
                  });
                })
    .set_non_differentiable();

// ---------------------------------------------------------------------------------------------
// Linear/Logistic/MAERegressionOutput: forward identity / sigmoid / identity; gradient
// grad_scale / num_output * (out - label) (MAE: sign(out - label)), num_output = label.size /
// label.shape[0].

void RegressionShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const std::string& op = attrs.op()->name;
  const Shape& d = (*in)[0];
  Shape& l = (*in)[1];
  (*out)[0] = d;
  if (!d.is_known()) return;
  if (!l.ndim_known()) {
    l = d.ndim() == 2 && d[1] == 1 ? Shape{d[0]} : d;
  } else if (l.is_known() &&
             (l.ndim() < 1 || d.ndim() < 1 || l[0] != d[0] || l.Size() != d.Size())) {
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input label has shape ", l.ToString(),
             ", inconsistent with data ", d.ToString(), " (same first dim and size expected)");
  }
}

template <int Kind>  // 0 linear, 1 logistic, 2 MAE
void RegressionFwd(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "RegressionOutput", {
    const T* x = in[0].data<T>();
    T* y = out[0].data<T>();
    for (int64_t i = 0; i < in[0].size(); ++i)
      y[i] = Kind == 1 ? To<T>(1.0 / (1.0 + std::exp(-D(x[i])))) : x[i];
  });
}

template <int Kind>
void RegressionBwd(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const double gs = attrs.get<RegressionOutputParam>().grad_scale;
  const Shape& ls = in[1].shape();
  const double num_output =
      ls.ndim() >= 1 && ls[0] > 0 ? static_cast<double>(ls.Size() / ls[0]) : 1.0;
  const std::vector<double> lab = in[1].ToVector<double>();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, attrs.op()->name, {
    const T* y = in[0].data<T>();
    T* g = out[0].data<T>();
    for (int64_t i = 0; i < in[0].size(); ++i) {
      double d = D(y[i]) - lab[i];
      if (Kind == 2) d = (d > 0) - (d < 0);
      g[i] = To<T>(gs / num_output * d);
    }
  });
}

#define MX_REGRESSION_OP(NAME, BWD, KIND, DOC)                                                     \
  MX_REGISTER_OP(NAME)                                                                             \
      .describe(DOC)                                                                               \
      .set_params<RegressionOutputParam>()                                                         \
      .set_num_inputs(2)                                                                           \
      .set_input_names(std::vector<std::string>{"data", "label"})                                  \
      .set_infer_shape(RegressionShape)                                                            \
      .set_infer_type(                                                                             \
          [](const OpAttrs&, DTypeVec* in, DTypeVec* out) { SameFloatType(#NAME, in, out); })      \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, RegressionFwd<KIND>)                    \
      .set_gradient([](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,        \
                       std::span<const GradValue> out, std::span<const GradValue>) {               \
        GradValue dx =                                                                             \
            Apply1(b, #BWD, {out[0], in[1]}, MakeAttrs(#BWD, attrs.get<RegressionOutputParam>())); \
        return std::vector<GradValue>{dx, b.ZerosLike(in[1])};                                     \
      });                                                                                          \
  MX_REGISTER_OP(BWD)                                                                              \
      .describe("Gradient of " #NAME " from its output and the label (internal).")                 \
      .set_params<RegressionOutputParam>()                                                         \
      .set_num_inputs(2)                                                                           \
      .set_input_names(std::vector<std::string>{"output", "label"})                                \
      .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) { (*out)[0] = (*in)[0]; })  \
      .set_infer_type(                                                                             \
          [](const OpAttrs&, DTypeVec* in, DTypeVec* out) { SameFloatType(#BWD, in, out); })       \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, RegressionBwd<KIND>)                    \
      .set_non_differentiable()

MX_REGRESSION_OP(LinearRegressionOutput, _backward_linear_reg_out, 0,
                 "Identity forward; gradient (out - label) * grad_scale / num_output (L2 loss).");
MX_REGRESSION_OP(
    LogisticRegressionOutput, _backward_logistic_reg_out, 1,
    "Sigmoid forward; gradient (out - label) * grad_scale / num_output (logistic loss).");
MX_REGRESSION_OP(
    MAERegressionOutput, _backward_mae_reg_out, 2,
    "Identity forward; gradient sign(out - label) * grad_scale / num_output (L1 loss).");

}  // namespace
}  // namespace mxnet::ops::nn
