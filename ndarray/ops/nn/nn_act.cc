// Activations and Dropout: Activation, LeakyReLU, Dropout, and the helper ops their gradients
// compose (_nn_step, _nn_act_deriv, _nn_act_deriv2, _nn_channel_bcast, _nn_channel_sum).
// Semantics follow MXNet 1.9.1 (src/operator/nn/activation.cc, leaky_relu.cc, nn/dropout.cc).
//
// Gradients are compositions of registered ops, so autograd can differentiate them again:
//   relu'     = step(y)                      (_nn_step, whose own gradient is 0)
//   sigmoid'  = y * (1 - y),  tanh' = 1 - y^2 (basic ops on the output)
//   softrelu' = -expm1(-y), softsign' = (1 - |y|)^2   (_nn_act_deriv of the output)
//   gelu'     = _nn_act_deriv(x)             (both differentiable again via _nn_act_deriv2)
// Activation's gradient reads only its output (as MXNet's), so it may run in place.
//   leaky/elu/selu/prelu/rrelu: affine combinations of step(x), the output and the slopes.
// Known difference: MXNet 1.9.1's selu backward computes lambda * (alpha + y) from the output y
// for x <= 0, which is not the derivative; ours is lambda * alpha * exp(x) (= y + lambda * alpha).
// rrelu in predict mode writes the slope it used, (lower + upper) / 2, to its mask output (MXNet
// leaves that output unwritten). Dropout with p = 1 outputs zeros (MXNet: NaN from 0 * inf).
#include <algorithm>
#include <cmath>
#include <random>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/nn/nn_onednn.h"
#include "ndarray/ops/nn/nn_params.h"
#include "ndarray/ops/nn/nn_util.h"
#include "ndarray/random.h"

namespace mxnet::ops::nn {
namespace {

// out[i] = f(double(in[i])) for floating-point arrays (computed in double, stored as T).
template <typename F>
void MapFloat(std::string_view op, const NDArray& in, const NDArray& out, F f) {
  const int64_t n = in.size();
  MX_FLOAT_TYPE_SWITCH(in.dtype(), T, op, {
    const T* x = static_cast<const T*>(in.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    ParallelForRange(n, 32768, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        y[i] = static_cast<T>(
            static_cast<AccType<T>>(f(static_cast<double>(static_cast<AccType<T>>(x[i])))));
    });
  });
}

void FloatType(std::string_view op, DTypeVec* in, DTypeVec* out) {
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i) MergeType(&t, (*in)[i], StrCat(op, ": input ", i));
  for (size_t i = 0; i < out->size(); ++i) MergeType(&t, (*out)[i], StrCat(op, ": output ", i));
  if (t >= 0) RequireFloat(op, "data", static_cast<DType>(t));
  for (auto& x : *in) x = t;
  for (auto& x : *out) x = t;
}

GradValue Scalar(GradBuilder& b, std::string_view op, GradValue x, double s) {
  return b.Call(op, {x}, {{"scalar", PyFloatRepr(s)}});
}
GradValue Step(GradBuilder& b, GradValue x) { return b.Call("_nn_step", {x}); }
GradValue ActDeriv(GradBuilder& b, GradValue x, const std::string& act) {
  return b.Call("_nn_act_deriv", {x}, {{"act_type", act}});
}

inline double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
inline double SoftRelu(double x) { return x > 20 ? x : std::log1p(std::exp(x)); }
inline double Gelu(double x) { return 0.5 * x * (1.0 + std::erf(x * kSqrt1_2)); }
inline double GeluD1(double x) {
  return 0.5 * (1.0 + std::erf(x * kSqrt1_2)) + x * kInvSqrt2Pi * std::exp(-0.5 * x * x);
}
inline double GeluD2(double x) { return kInvSqrt2Pi * std::exp(-0.5 * x * x) * (2.0 - x * x); }

// ---------------------------------------------------------------------------------------------
// Activation

void ActivationRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const std::string& t = attrs.get<ActivationParam>().act_type;
  if (t == "relu")
    MapFloat("Activation", in[0], out[0], [](double x) { return x > 0 ? x : 0.0; });
  else if (t == "sigmoid")
    MapFloat("Activation", in[0], out[0], Sigmoid);
  else if (t == "tanh")
    MapFloat("Activation", in[0], out[0], [](double x) { return std::tanh(x); });
  else if (t == "softrelu")
    MapFloat("Activation", in[0], out[0], SoftRelu);
  else if (t == "softsign")
    MapFloat("Activation", in[0], out[0], [](double x) { return x / (1 + std::fabs(x)); });
  else
    MX_THROW(absl::StatusCode::kInvalidArgument, "Activation: unknown act_type '", t, "'");
}

bool ActivationDnnlSupports(const OpAttrs& attrs, std::span<const NDArray> in) {
  return in[0].dtype() == DType::kFloat32 && in[0].size() > 0 &&
         attrs.get<ActivationParam>().act_type != "softsign";
}

void ActivationDnnl(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const std::string& t = attrs.get<ActivationParam>().act_type;
  onednn::Eltwise alg = t == "relu"      ? onednn::Eltwise::kRelu
                        : t == "sigmoid" ? onednn::Eltwise::kLogistic
                        : t == "tanh"    ? onednn::Eltwise::kTanh
                                         : onednn::Eltwise::kSoftRelu;
  onednn::EltwiseForward(alg, 0.f, in[0].data<float>(), out[0].data<float>(), in[0].size());
}

std::vector<GradValue> ActivationGrad(GradBuilder& b, const OpAttrs& attrs,
                                      std::span<const GradValue> in, std::span<const GradValue> out,
                                      std::span<const GradValue> og) {
  const std::string& t = attrs.get<ActivationParam>().act_type;
  GradValue y = out[0], d;
  if (t == "relu")
    d = Step(b, y);
  else if (t == "sigmoid")
    d = b.Mul(y, Scalar(b, "_rminus_scalar", y, 1.0));
  else if (t == "tanh")
    d = Scalar(b, "_rminus_scalar", b.Mul(y, y), 1.0);
  else
    d = ActDeriv(b, y, t);  // softrelu, softsign: in terms of the output
  return {b.Mul(og[0], d)};
}

MX_REGISTER_OP(Activation)
    .describe(
        "Elementwise activation: relu max(x, 0), sigmoid 1/(1+exp(-x)), tanh, softrelu "
        "log(1+exp(x)), softsign x/(1+|x|).")
    .add_alias("_npx_activation")
    .set_params<ActivationParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .add_inplace(0, 0)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      FloatType("Activation", in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ActivationRef)
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, ActivationDnnl, ActivationDnnlSupports)
    .set_gradient(ActivationGrad, /*uses_inputs=*/false, /*uses_outputs=*/true);

// ---------------------------------------------------------------------------------------------
// Helper ops for gradients.

MX_REGISTER_OP(_nn_step)
    .describe("1 where x > 0, else 0 (the derivative of relu; internal).")
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      FloatType("_nn_step", in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  MapFloat("_nn_step", in[0], out[0], [](double x) { return x > 0 ? 1.0 : 0.0; });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>,
           std::span<const GradValue>) { return std::vector<GradValue>{b.ZerosLike(in[0])}; },
        true, false);

// _nn_act_deriv(t) = f'(x) of an activation f written in terms of t: t = x for gelu, t = the
// output y for softrelu (-expm1(-y)) and softsign ((1 - |y|)^2). _nn_act_deriv2(t) is its
// derivative with respect to t.
template <int Order>
void ActDerivRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const std::string& t = attrs.get<ActDerivParam>().act_type;
  const char* name = Order == 1 ? "_nn_act_deriv" : "_nn_act_deriv2";
  if (t == "gelu") {
    MapFloat(name, in[0], out[0], Order == 1 ? GeluD1 : GeluD2);
  } else if (t == "softrelu") {
    if (Order == 1)
      MapFloat(name, in[0], out[0], [](double y) { return -std::expm1(-y); });
    else
      MapFloat(name, in[0], out[0], [](double y) { return std::exp(-y); });
  } else {  // softsign
    if (Order == 1) {
      MapFloat(name, in[0], out[0], [](double y) {
        double d = 1 - std::fabs(y);
        return d * d;
      });
    } else {
      MapFloat(name, in[0], out[0],
               [](double y) { return y == 0 ? 0.0 : (y > 0 ? -2.0 : 2.0) * (1 - std::fabs(y)); });
    }
  }
}

MX_REGISTER_OP(_nn_act_deriv)
    .describe(
        "Elementwise derivative of an activation, from its input (gelu) or output "
        "(softrelu, softsign) (internal).")
    .set_params<ActDerivParam>()
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      FloatType("_nn_act_deriv", in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ActDerivRef<1>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              b.Mul(og[0], b.Apply(OpRegistry::Get("_nn_act_deriv2"),
                                   MakeAttrs("_nn_act_deriv2", attrs.get<ActDerivParam>()),
                                   std::vector<GradValue>{in[0]})[0])};
        },
        true, false);

MX_REGISTER_OP(_nn_act_deriv2)
    .describe("Derivative of _nn_act_deriv with respect to its argument (internal).")
    .set_params<ActDerivParam>()
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      FloatType("_nn_act_deriv2", in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ActDerivRef<2>)
    .set_non_differentiable();

// _nn_channel_bcast(v, like; axis): like's shape, out[..., c, ...] = v[c] along `axis`
// (v of size 1: v[0] everywhere). _nn_channel_sum(x, like; axis): the reverse, summing x over
// every axis but `axis` into like's shape (C,) (or (1,): the total).
struct ChannelMap {
  bool scalar = false;
  Split3 s;
};
ChannelMap MakeChannelMap(std::string_view op, const Shape& full, const Shape& vec, int axis) {
  ChannelMap m;
  if (vec.Size() == 1) {
    m.scalar = true;
    return m;
  }
  const int a = NormalizeAxis(op, "axis", axis, full);
  if (vec.ndim() != 1 || vec[0] != full[a])
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": per-channel vector of shape ",
             vec.ToString(), " does not match axis ", axis, " of ", full.ToString());
  m.s = SplitAt(full, a);
  return m;
}

void ChannelBcastRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  const ChannelMap m = MakeChannelMap("_nn_channel_bcast", out[0].shape(), in[0].shape(),
                                      attrs.get<ChannelParam>().axis);
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_nn_channel_bcast", {
    const T* v = in[0].data<T>();
    T* y = out[0].data<T>();
    const int64_t n = out[0].size();
    if (m.scalar) {
      std::fill_n(y, n, v[0]);
    } else {
      ParallelFor(n, [&](int64_t i) { y[i] = v[(i / m.s.inner) % m.s.n]; });
    }
  });
}

void ChannelSumRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const ChannelMap m = MakeChannelMap("_nn_channel_sum", in[0].shape(), out[0].shape(),
                                      attrs.get<ChannelParam>().axis);
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_nn_channel_sum", {
    const T* x = in[0].data<T>();
    const int64_t n = in[0].size();
    std::vector<double> acc(out[0].size(), 0.0);
    for (int64_t i = 0; i < n; ++i)
      acc[m.scalar ? 0 : (i / m.s.inner) % m.s.n] +=
          static_cast<double>(static_cast<AccType<T>>(x[i]));
    T* y = out[0].data<T>();
    for (size_t k = 0; k < acc.size(); ++k) y[k] = static_cast<T>(static_cast<AccType<T>>(acc[k]));
  });
}

MX_REGISTER_OP(_nn_channel_bcast)
    .describe(
        "Broadcasts a per-channel vector (C,) or (1,) along `axis` to like's shape (internal).")
    .set_params<ChannelParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "like"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) { (*out)[0] = (*in)[1]; })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) { (*out)[0] = (*in)[0]; })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ChannelBcastRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              Apply1(b, "_nn_channel_sum", {og[0], in[0]},
                     MakeAttrs("_nn_channel_sum", attrs.get<ChannelParam>())),
              b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(_nn_channel_sum)
    .describe("Sums data over every axis but `axis` into like's shape (C,) or (1,) (internal).")
    .set_params<ChannelParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "like"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) { (*out)[0] = (*in)[1]; })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) { (*out)[0] = (*in)[0]; })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ChannelSumRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              Apply1(b, "_nn_channel_bcast", {og[0], in[0]},
                     MakeAttrs("_nn_channel_bcast", attrs.get<ChannelParam>())),
              b.ZerosLike(in[1])};
        },
        true, false);

// ---------------------------------------------------------------------------------------------
// LeakyReLU

constexpr const char* kLR = "LeakyReLU";

bool IsPrelu(const OpAttrs& a) { return a.get<LeakyReLUParam>().act_type == "prelu"; }
bool IsRrelu(const OpAttrs& a) { return a.get<LeakyReLUParam>().act_type == "rrelu"; }

void LeakyReLUShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  Shape& data = (*in)[0];
  if (IsPrelu(attrs)) {
    Shape& g = (*in)[1];
    if (g.ndim_known() && g.ndim() != 1)
      MX_THROW(absl::StatusCode::kInvalidArgument, kLR,
               ": input gamma must be 1-D ((1,) or (channels,)), got ", g.ToString());
    if (data.ndim_known()) {
      if (!g.ndim_known() || g[0] < 0) {
        if (data.ndim() >= 2)
          AssignShape(kLR, "gamma", &g, Shape{data[1]});
        else
          g = Shape{1};
      } else if (g[0] != 1) {
        if (data.ndim() < 2 || (data[1] >= 0 && data[1] != g[0]))
          MX_THROW(absl::StatusCode::kInvalidArgument, kLR, ": prelu gamma of shape ", g.ToString(),
                   " does not match the channels (axis 1) of data ", data.ToString(),
                   "; expected (1,) or (channels,)");
        if (data[1] < 0) data[1] = g[0];
      }
    }
  }
  for (auto& o : *out) o = data;
}

void LeakyReLURef(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const auto& p = attrs.get<LeakyReLUParam>();
  const std::string& t = p.act_type;
  const double slope = p.slope;
  if (t == "leaky") {
    MapFloat(kLR, in[0], out[0], [slope](double x) { return x > 0 ? x : slope * x; });
  } else if (t == "elu") {
    MapFloat(kLR, in[0], out[0], [slope](double x) { return x > 0 ? x : slope * std::expm1(x); });
  } else if (t == "selu") {
    MapFloat(kLR, in[0], out[0],
             [](double x) { return kSeluLambda * (x > 0 ? x : kSeluAlpha * std::expm1(x)); });
  } else if (t == "gelu") {
    MapFloat(kLR, in[0], out[0], Gelu);
  } else if (t == "prelu") {
    const ChannelMap m = MakeChannelMap(kLR, in[0].shape(), in[1].shape(), 1);
    MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, kLR, {
      const T* x = in[0].data<T>();
      const T* g = in[1].data<T>();
      T* y = out[0].data<T>();
      ParallelFor(in[0].size(), [&](int64_t i) {
        double v = static_cast<double>(static_cast<AccType<T>>(x[i]));
        double s =
            static_cast<double>(static_cast<AccType<T>>(g[m.scalar ? 0 : (i / m.s.inner) % m.s.n]));
        y[i] = static_cast<T>(static_cast<AccType<T>>(v > 0 ? v : s * v));
      });
    });
  } else {  // rrelu: random slopes in [lower, upper) when training, their mean otherwise
    const int64_t n = in[0].size();
    std::vector<double> slopes(n, 0.5 * (static_cast<double>(p.lower_bound) + p.upper_bound));
    if (ctx.is_train) {
      random::GeneratorGuard g(ctx.device);
      std::uniform_real_distribution<double> dist(p.lower_bound, p.upper_bound);
      for (auto& s : slopes) s = p.lower_bound == p.upper_bound ? p.lower_bound : dist(g.gen());
    }
    MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, kLR, {
      const T* x = in[0].data<T>();
      T* y = out[0].data<T>();
      T* mask = out[1].data<T>();
      for (int64_t i = 0; i < n; ++i) {
        double v = static_cast<double>(static_cast<AccType<T>>(x[i]));
        mask[i] = static_cast<T>(static_cast<AccType<T>>(slopes[i]));
        double s = static_cast<double>(static_cast<AccType<T>>(mask[i]));
        y[i] = static_cast<T>(static_cast<AccType<T>>(v > 0 ? v : s * v));
      }
    });
  }
}

bool LeakyReLUDnnlSupports(const OpAttrs& attrs, std::span<const NDArray> in) {
  const std::string& t = attrs.get<LeakyReLUParam>().act_type;
  return in[0].dtype() == DType::kFloat32 && in[0].size() > 0 &&
         (t == "leaky" || t == "elu" || t == "gelu");
}

void LeakyReLUDnnl(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<LeakyReLUParam>();
  onednn::Eltwise alg = p.act_type == "leaky" ? onednn::Eltwise::kLeakyRelu
                        : p.act_type == "elu" ? onednn::Eltwise::kElu
                                              : onednn::Eltwise::kGeluErf;
  onednn::EltwiseForward(alg, p.slope, in[0].data<float>(), out[0].data<float>(), in[0].size());
}

std::vector<GradValue> LeakyReLUGrad(GradBuilder& b, const OpAttrs& attrs,
                                     std::span<const GradValue> in, std::span<const GradValue> out,
                                     std::span<const GradValue> og) {
  const auto& p = attrs.get<LeakyReLUParam>();
  const std::string& t = p.act_type;
  GradValue x = in[0], y = out[0];
  if (t == "gelu") return {b.Mul(og[0], ActDeriv(b, x, "gelu"))};
  GradValue s = Step(b, x);
  // d = base + s * (top - base): `top` where x > 0, `base` elsewhere.
  auto blend = [&](GradValue base, double top) {
    return b.Add(base, b.Mul(s, Scalar(b, "_rminus_scalar", base, top)));
  };
  if (t == "leaky") {
    GradValue d = Scalar(b, "_plus_scalar", Scalar(b, "_mul_scalar", s, 1.0 - p.slope), p.slope);
    return {b.Mul(og[0], d)};
  }
  if (t == "elu") return {b.Mul(og[0], blend(Scalar(b, "_plus_scalar", y, p.slope), 1.0))};
  if (t == "selu")
    return {
        b.Mul(og[0], blend(Scalar(b, "_plus_scalar", y, kSeluLambda * kSeluAlpha), kSeluLambda))};
  if (t == "rrelu") return {b.Mul(og[0], blend(out[1], 1.0))};
  // prelu
  OpAttrs ch = MakeAttrs("_nn_channel_bcast", ChannelParam{1});
  GradValue gb = Apply1(b, "_nn_channel_bcast", {in[1], x}, ch);
  GradValue dx = b.Mul(og[0], blend(gb, 1.0));
  GradValue neg = b.Mul(x, Scalar(b, "_rminus_scalar", s, 1.0));  // x where x <= 0
  GradValue dg = Apply1(b, "_nn_channel_sum", {b.Mul(og[0], neg), in[1]},
                        MakeAttrs("_nn_channel_sum", ChannelParam{1}));
  return {dx, dg};
}

MX_REGISTER_OP(LeakyReLU)
    .describe(
        "Leaky rectifiers: leaky x>0 ? x : slope*x; prelu with a learned per-channel gamma; "
        "elu slope*(exp(x)-1) for x<=0; selu; gelu (erf form); rrelu with random slopes in "
        "[lower_bound, upper_bound) when training (second output: the slopes).")
    .add_alias("_npx_leaky_relu")
    .set_params<LeakyReLUParam>()
    .set_num_inputs([](const OpAttrs& a) { return IsPrelu(a) ? 2 : 1; })
    .set_input_names([](const OpAttrs& a) {
      return IsPrelu(a) ? std::vector<std::string>{"data", "gamma"}
                        : std::vector<std::string>{"data"};
    })
    .set_num_outputs([](const OpAttrs& a) { return IsRrelu(a) ? 2 : 1; })
    .set_output_names(std::vector<std::string>{"output", "mask"})
    .set_infer_shape(LeakyReLUShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) { FloatType(kLR, in, out); })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, LeakyReLURef)
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, LeakyReLUDnnl, LeakyReLUDnnlSupports)
    .set_gradient(LeakyReLUGrad);

// ---------------------------------------------------------------------------------------------
// Dropout

constexpr const char* kDO = "Dropout";

// The mask's shape: data's with the `axes` dims set to 1 (one draw shared along them).
Shape MaskDrawShape(const DropoutParam& p, const Shape& data) {
  Shape m = data;
  for (int64_t a : p.axes) {
    int ax = NormalizeAxis(kDO, "axes", static_cast<int>(a), data);
    m[ax] = 1;
  }
  return m;
}

void DropoutRef(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<DropoutParam>();
  const bool active = (ctx.is_train || p.mode == "always") && p.p > 0;
  const NDArray &x = in[0], &y = out[0], &mask = out[1];
  if (!active) {
    CopyBytes(y.data_ptr(), y.device(), x.data_ptr(), x.device(), x.nbytes());
    mask.Fill(1);
    return;
  }
  const double keep = 1.0 - static_cast<double>(p.p);
  const double scale = keep > 0 ? 1.0 / keep : 0.0;
  const Shape ms = MaskDrawShape(p, x.shape());
  std::vector<double> draw(ms.Size());
  {
    random::GeneratorGuard g(ctx.device);
    for (auto& d : draw) {
      double u = static_cast<double>(g.gen()() >> 11) * 0x1.0p-53;  // uniform [0, 1)
      d = u < keep ? scale : 0.0;
    }
  }
  // Index of element i of data in the draw array (axes broadcast).
  const Shape& s = x.shape();
  const int nd = s.ndim();
  std::vector<int64_t> dstride(nd, 0);
  for (int k = nd - 1, st = 1; k >= 0; --k) {
    dstride[k] = ms[k] == 1 ? 0 : st;
    st *= static_cast<int>(ms[k]);
  }
  MX_FLOAT_TYPE_SWITCH(x.dtype(), T, kDO, {
    const T* xp = x.data<T>();
    T* yp = y.data<T>();
    T* mp = mask.data<T>();
    ParallelFor(x.size(), [&](int64_t i) {
      int64_t rem = i, di = 0;
      for (int k = nd - 1; k >= 0; --k) {
        di += (rem % s[k]) * dstride[k];
        rem /= s[k];
      }
      const double m = draw[di];
      mp[i] = static_cast<T>(static_cast<AccType<T>>(m));
      yp[i] = static_cast<T>(static_cast<AccType<T>>(
          m == 0 ? 0.0 : static_cast<double>(static_cast<AccType<T>>(xp[i])) * m));
    });
  });
}

MX_REGISTER_OP(Dropout)
    .describe(
        "Dropout: in training (or mode='always') zeroes each element with probability p and "
        "scales the rest by 1/(1-p); identity otherwise. axes share one draw along them.")
    .add_alias("_npx_dropout")
    .set_params<DropoutParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_num_outputs(2)
    .set_num_visible_outputs([](const OpAttrs&) { return 1; })
    .set_output_names(std::vector<std::string>{"output", "mask"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      ElemwiseShape(attrs, in, out);
      if ((*in)[0].ndim_known()) MaskDrawShape(attrs.get<DropoutParam>(), (*in)[0]);
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) { FloatType(kDO, in, out); })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, DropoutRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue>,
           std::span<const GradValue> out,
           std::span<const GradValue> og) { return std::vector<GradValue>{b.Mul(og[0], out[1])}; },
        false, true);

}  // namespace
}  // namespace mxnet::ops::nn
