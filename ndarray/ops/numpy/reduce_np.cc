// MXNet 1.9.1's NumPy-interface reductions (src/operator/numpy/np_broadcast_reduce_op_value.cc,
// np_broadcast_reduce_op_boolean.cc, np_broadcast_reduce_op_index.cc), declared in
// reduce_np_api.h:
//   _np_sum (sum), _np_prod (_np_product), _npi_mean, _np_max (_np_amax), _np_min (_np_amin)
//       run the legacy reduce kernels (reduce.cc) in the output dtype, after converting the input;
//   _np_all, _np_any (_np_sometrue)   the legacy min/max kernels on the input converted to bool;
//   _npi_argmax, _npi_argmin           the legacy argmax/argmin kernels, int64 result;
//   _npi_std, _npi_var                 two-pass moments in double, converted to the output dtype.
// Shapes (NumPy): axis None reduces every axis, () none; no keepdims -> the reduced axes dropped
// (a 0-dim () result when none is left). Zero-size inputs (MXNet 1.9.1): sum/prod/mean of nothing
// give 0 (NumPy gives 1 for prod and NaN for mean), std/var NaN, all True, any False; max/min/
// argmax/argmin over an empty axis into a non-empty result are kInvalidArgument.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ndarray/grad.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/numpy/reduce_np_api.h"
#include "ndarray/ops/reduce/reduce_api.h"

namespace mxnet::ops {
namespace {
using reduce_internal::OpName;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
constexpr KernelKey kOpt{DeviceType::kCPU, Backend::kOptimized};

// axis and keepdims of any of the param structs.
struct Spec {
  std::optional<Shape> axis;
  bool keepdims = false;
};
Spec SpecOf(const OpAttrs& a) {
  const ParamSchema* s = a.op()->schema;
  if (s == &SchemaOf<NpReduceParam>())
    return {a.get<NpReduceParam>().axis, a.get<NpReduceParam>().keepdims};
  if (s == &SchemaOf<NpMaxParam>()) return {a.get<NpMaxParam>().axis, a.get<NpMaxParam>().keepdims};
  if (s == &SchemaOf<NpMomentParam>())
    return {a.get<NpMomentParam>().axis, a.get<NpMomentParam>().keepdims};
  if (s == &SchemaOf<NpReduceBcastParam>())
    return {a.get<NpReduceBcastParam>().axis, a.get<NpReduceBcastParam>().keepdims};
  return {a.get<NpBoolReduceParam>().axis, a.get<NpBoolReduceParam>().keepdims};
}

// Reduced-axis flags with NumPy's rules (axis () reduces nothing).
std::vector<char> NpAxes(std::string_view op, const Shape& in, const std::optional<Shape>& axis) {
  if (axis && axis->ndim() == 0) return std::vector<char>(std::max(in.ndim(), 0), 0);
  return ResolveReduceAxes(op, in, axis, false);
}
Shape NpReducedShape(const Shape& in, const std::vector<char>& red, bool keepdims) {
  Shape out = Shape::Filled(0, 0);
  for (int i = 0; i < in.ndim(); ++i) {
    if (!red[i])
      out.push_back(in[i]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

void NpReduceShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out, bool needs_nonempty) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return;
  Spec sp = SpecOf(attrs);
  std::string_view op = OpName(attrs);
  std::vector<char> red = NpAxes(op, s, sp.axis);
  Shape o = NpReducedShape(s, red, sp.keepdims);
  if (needs_nonempty && s.is_known() && o.Size() > 0)
    for (int i = 0; i < s.ndim(); ++i)
      if (red[i] && s[i] == 0)
        MX_THROW(absl::StatusCode::kInvalidArgument, op, ": zero-size array to reduction ",
                 "operation (axis ", i, " of input shape ", s.ToString(),
                 ") which has no identity");
  MergeShape(&(*out)[0], o, StrCat(op, ": output"));
}

// For every input element (row-major), the index of the output element it reduces into.
std::vector<int64_t> OutIndex(const Shape& s, const std::vector<char>& red) {
  int nd = s.ndim();
  std::vector<int64_t> ostride(nd, 0);
  int64_t st = 1;
  for (int i = nd - 1; i >= 0; --i)
    if (!red[i]) ostride[i] = st, st *= s[i];
  std::vector<int64_t> idx(s.Size());
  std::vector<int64_t> pos(nd, 0);
  for (size_t k = 0; k < idx.size(); ++k) {
    int64_t o = 0;
    for (int d = 0; d < nd; ++d) o += pos[d] * ostride[d];
    idx[k] = o;
    for (int d = nd - 1; d >= 0; --d) {
      if (++pos[d] < s[d]) break;
      pos[d] = 0;
    }
  }
  return idx;
}

int64_t ReducedCount(const Shape& s, const std::vector<char>& red) {
  int64_t n = 1;
  for (int i = 0; i < s.ndim(); ++i)
    if (red[i]) n *= s[i];
  return n;
}

// Runs the legacy reduction `legacy` (sum/prod/mean/max/min) on x (already in the compute
// dtype) over `red` and writes the result, converted, into out (same element count).
void RunLegacy(const char* legacy, bool optimized, const NDArray& x, const std::vector<char>& red,
               const NDArray& out) {
  bool any = std::any_of(red.begin(), red.end(), [](char r) { return r != 0; });
  if (!any) {  // nothing reduced: a (converted) copy
    ConvertElements(x.data_ptr(), x.dtype(), out.data_ptr(), out.dtype(), out.size());
    return;
  }
  const Op& op = OpRegistry::Get(legacy);
  ReduceAxesParam p;
  Shape axes = Shape::Filled(0, 0);
  for (int i = 0; i < x.ndim(); ++i)
    if (red[i]) axes.push_back(i);
  p.axis = axes;
  p.keepdims = true;
  OpAttrs a = OpAttrs::From(op, p);
  const FCompute* k = op.FindKernel(optimized ? kOpt : kRef);
  if (!k) k = op.FindKernel(kRef);
  NDArray tmp(ReducedShape(x.shape(), red, true), x.device(), x.dtype());
  (*k)(OpContext{}, a, std::span<const NDArray>(&x, 1), std::span<const NDArray>(&tmp, 1));
  ConvertElements(tmp.data_ptr(), tmp.dtype(), out.data_ptr(), out.dtype(), out.size());
}

NDArray AsDType(const NDArray& x, DType t) {
  if (x.dtype() == t) return x;
  NDArray y(x.shape(), x.device(), t);
  ConvertElements(x.data_ptr(), x.dtype(), y.data_ptr(), t, x.size());
  return y;
}

void Fill(const NDArray& out, double v) {
  std::vector<double> vals(out.size(), v);
  ConvertElements(vals.data(), DType::kFloat64, out.data_ptr(), out.dtype(), vals.size());
}

// Kernel of sum/prod/mean/max/min: the input converted to the output dtype, the legacy kernel.
FCompute NpReduceKernel(const char* legacy, bool optimized) {
  return [legacy, optimized](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                             std::span<const NDArray> out) {
    if (out[0].size() == 0) return;
    std::vector<char> red = NpAxes(OpName(attrs), in[0].shape(), SpecOf(attrs).axis);
    if (in[0].size() == 0) return Fill(out[0], 0);  // MXNet: 0 for sum, prod and mean
    RunLegacy(legacy, optimized, AsDType(in[0], out[0].dtype()), red, out[0]);
  };
}

// all = min over bools, any = max over bools.
FCompute NpBoolKernel(bool is_all, bool optimized) {
  return [is_all, optimized](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                             std::span<const NDArray> out) {
    if (out[0].size() == 0) return;
    std::vector<char> red = NpAxes(OpName(attrs), in[0].shape(), SpecOf(attrs).axis);
    if (in[0].size() == 0) return Fill(out[0], is_all ? 1 : 0);
    RunLegacy(is_all ? "min" : "max", optimized, AsDType(in[0], DType::kBool), red, out[0]);
  };
}

void CheckNoInitial(const OpAttrs& a) {
  std::optional<double> init;
  if (a.op()->schema == &SchemaOf<NpReduceParam>()) init = a.get<NpReduceParam>().initial;
  if (a.op()->schema == &SchemaOf<NpMaxParam>()) init = a.get<NpMaxParam>().initial;
  if (init)
    MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a), ": initial=", *init,
             " is not supported (MXNet 1.9.1: initial is not supported yet)");
}

// dtype rules.
enum class TypeRule { kSumProd, kMean, kSame, kBool, kMoment };
void NpReduceType(TypeRule rule, const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  int t = (*in)[0];
  std::string_view op = OpName(a);
  std::optional<DType> want;
  if (a.op()->schema == &SchemaOf<NpReduceParam>()) want = a.get<NpReduceParam>().dtype;
  if (a.op()->schema == &SchemaOf<NpMomentParam>()) want = a.get<NpMomentParam>().dtype;
  if (rule == TypeRule::kBool) {
    MergeType(&(*out)[0], DTypeFlag(DType::kBool), StrCat(op, ": output"));
    return;
  }
  if (t < 0) {
    if (want) MergeType(&(*out)[0], DTypeFlag(*want), StrCat(op, ": output"));
    return;
  }
  DType d = static_cast<DType>(t);
  if (rule == TypeRule::kMoment && d == DType::kBool)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": dtype bool is not supported");
  DType o = d;
  if (want) {
    o = *want;
    // MXNet: a bool input sums/multiplies only into bool, int32, int64, float32 or float64.
    if (rule == TypeRule::kSumProd && d == DType::kBool &&
        (o == DType::kFloat16 || o == DType::kInt8))
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": dtype=", DTypeName(o),
               " is not supported for a bool input (bool, int32, int64, float32, float64)");
  } else if (rule == TypeRule::kSumProd) {
    if (d == DType::kBool) o = DType::kInt64;
  } else if (rule == TypeRule::kMean) {
    if (!IsFloatingPoint(d)) o = DType::kFloat32;
  }
  if (rule == TypeRule::kMean && o == DType::kBool)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": dtype bool is not supported for mean");
  MergeType(&(*out)[0], DTypeFlag(o), StrCat(op, ": output"));
}

// ---- gradient helpers ----
NpReduceBcastParam BcastParam(const OpAttrs& a, bool normalize) {
  Spec sp = SpecOf(a);
  NpReduceBcastParam p;
  p.axis = sp.axis;
  p.keepdims = sp.keepdims;
  p.normalize = normalize;
  return p;
}
GradValue Bcast(GradBuilder& b, const OpAttrs& a, GradValue v, GradValue like,
                bool normalize = false) {
  return b.CallP("_np_reduce_bcast", {v, like}, BcastParam(a, normalize));
}

void BcastShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape& like = (*in)[1];
  if (!like.ndim_known()) return;
  Spec sp = SpecOf(attrs);
  std::string_view op = OpName(attrs);
  std::vector<char> red = NpAxes(op, like, sp.axis);
  MergeShape(&(*in)[0], NpReducedShape(like, red, sp.keepdims), StrCat(op, ": reduced input"));
  MergeShape(&(*out)[0], like, StrCat(op, ": output"));
}

// out[i] = data[reduced index of i] (/ count when normalize), in like's dtype.
void BcastKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const Shape& s = out[0].shape();
  std::vector<char> red = NpAxes(OpName(attrs), s, SpecOf(attrs).axis);
  double scale = attrs.get<NpReduceBcastParam>().normalize
                     ? 1.0 / static_cast<double>(std::max<int64_t>(ReducedCount(s, red), 1))
                     : 1.0;
  std::vector<double> src = in[0].ToVector<double>();
  std::vector<int64_t> idx = OutIndex(s, red);
  std::vector<double> v(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) v[i] = src[idx[i]] * scale;
  ConvertElements(v.data(), DType::kFloat64, out[0].data_ptr(), out[0].dtype(), v.size());
}

// 1 where data equals the max/min result `out` of its reduction, else 0 (data's dtype).
void MaskKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const Shape& s = in[0].shape();
  std::vector<char> red = NpAxes(OpName(attrs), s, SpecOf(attrs).axis);
  std::vector<double> x = in[0].ToVector<double>(), r = in[1].ToVector<double>();
  std::vector<int64_t> idx = OutIndex(s, red);
  std::vector<double> v(idx.size());
  for (size_t i = 0; i < idx.size(); ++i) v[i] = x[i] == r[idx[i]] ? 1.0 : 0.0;
  ConvertElements(v.data(), DType::kFloat64, out[0].data_ptr(), out[0].dtype(), v.size());
}

#define MX_NP_REDUCE(NAME, LEGACY, PARAM, RULE, NONEMPTY)                                        \
  MX_REGISTER_OP(NAME)                                                                           \
      .set_params<PARAM>()                                                                       \
      .set_input_names(std::vector<std::string>{"a"})                                            \
      .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {                       \
        CheckNoInitial(a);                                                                       \
        NpReduceShape(a, in, out, NONEMPTY);                                                     \
      })                                                                                         \
      .set_infer_type(                                                                           \
          [](const OpAttrs& a, DTypeVec* in, DTypeVec* out) { NpReduceType(RULE, a, in, out); }) \
      .set_kernel(kRef, NpReduceKernel(LEGACY, false))                                           \
      .set_kernel(kOpt, NpReduceKernel(LEGACY, true))

MX_NP_REDUCE(_np_sum, "sum", NpReduceParam, TypeRule::kSumProd, false)
    .describe("Sum over axes (mx.np.sum). Output dtype: `dtype`, else the input's (bool -> int64).")
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV,
                     GV og) { return Grads{Bcast(b, a, og[0], in[0])}; },
                  true, false);

MX_NP_REDUCE(_np_prod, "prod", NpReduceParam, TypeRule::kSumProd, false)
    .describe("Product over axes (mx.np.prod). Output dtype as _np_sum. Gradient: prod / x.")
    .add_alias("_np_product")
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
      return Grads{b.Mul(Bcast(b, a, og[0], in[0]), b.Div(Bcast(b, a, out[0], in[0]), in[0]))};
    });

MX_NP_REDUCE(_npi_mean, "mean", NpReduceParam, TypeRule::kMean, false)
    .describe(
        "Mean over axes (mx.np.mean). Output dtype: `dtype`, else floats keep theirs and "
        "ints/bool give float32.")
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV,
                     GV og) { return Grads{Bcast(b, a, og[0], in[0], true)}; },
                  true, false);

// max/min: every element equal to the result gets the output gradient (ties included).
MX_NP_REDUCE(_np_max, "max", NpMaxParam, TypeRule::kSame, true)
    .describe("Maximum over axes (mx.np.max); NaN propagates; the input's dtype.")
    .add_alias("_np_amax")
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
      GradValue mask = b.CallP("_np_reduce_extremum_mask", {in[0], out[0]}, BcastParam(a, false));
      return Grads{b.Mul(Bcast(b, a, og[0], in[0]), mask)};
    });

MX_NP_REDUCE(_np_min, "min", NpMaxParam, TypeRule::kSame, true)
    .describe("Minimum over axes (mx.np.min); NaN propagates; the input's dtype.")
    .add_alias("_np_amin")
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
      GradValue mask = b.CallP("_np_reduce_extremum_mask", {in[0], out[0]}, BcastParam(a, false));
      return Grads{b.Mul(Bcast(b, a, og[0], in[0]), mask)};
    });
#undef MX_NP_REDUCE

Grads ZeroGrad(GradBuilder& b, const OpAttrs&, GV in, GV, GV) { return Grads{b.ZerosLike(in[0])}; }

#define MX_NP_BOOL_REDUCE(NAME, IS_ALL)                                                            \
  MX_REGISTER_OP(NAME)                                                                             \
      .set_params<NpBoolReduceParam>()                                                             \
      .set_input_names(std::vector<std::string>{"data"})                                           \
      .set_infer_shape(                                                                            \
          [](const OpAttrs& a, ShapeVec* in, ShapeVec* out) { NpReduceShape(a, in, out, false); }) \
      .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {                          \
        NpReduceType(TypeRule::kBool, a, in, out);                                                 \
      })                                                                                           \
      .set_kernel(kRef, NpBoolKernel(IS_ALL, false))                                               \
      .set_kernel(kOpt, NpBoolKernel(IS_ALL, true))                                                \
      .set_gradient(ZeroGrad, true, false)

MX_NP_BOOL_REDUCE(_np_all, true)
    .describe(
        "Whether every element over the axes is nonzero (mx.np.all); bool output, True for "
        "an empty reduction. Gradient: zero.");
MX_NP_BOOL_REDUCE(_np_any, false)
    .describe(
        "Whether any element over the axes is nonzero (mx.np.any); bool output, False for "
        "an empty reduction. Gradient: zero.")
    .add_alias("_np_sometrue");
#undef MX_NP_BOOL_REDUCE

// ---- std / var ----
// Per output: mean, then sum of squared deviations / (N - ddof); std takes the square root.
// MXNet 1.9.1 registers zero gradients for std/var; ours are the true derivatives (MomentGrad).
FCompute MomentKernel(bool is_std) {
  return [is_std](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
    const auto& p = attrs.get<NpMomentParam>();
    const Shape& s = in[0].shape();
    std::vector<char> red = NpAxes(OpName(attrs), s, p.axis);
    std::vector<int64_t> idx = OutIndex(s, red);
    std::vector<double> x = in[0].ToVector<double>();
    size_t no = static_cast<size_t>(out[0].size());
    double n = static_cast<double>(ReducedCount(s, red));
    std::vector<double> mean(no, 0.0), sq(no, 0.0);
    for (size_t i = 0; i < x.size(); ++i) mean[idx[i]] += x[i];
    // Integer inputs: the mean is taken in the integer dtype (truncated), as MXNet does.
    bool int_mean = !IsFloatingPoint(in[0].dtype());
    for (auto& m : mean) m = int_mean ? std::trunc(m / n) : m / n;
    for (size_t i = 0; i < x.size(); ++i) {
      double d = x[i] - mean[idx[i]];
      sq[idx[i]] += d * d;
    }
    for (auto& v : sq) {
      v /= (n - p.ddof);
      if (is_std) v = std::sqrt(v);
    }
    ConvertElements(sq.data(), DType::kFloat64, out[0].data_ptr(), out[0].dtype(), no);
  };
}

NpReduceParam MeanParam(const OpAttrs& a) {
  NpReduceParam p;
  p.axis = a.get<NpMomentParam>().axis;
  p.keepdims = a.get<NpMomentParam>().keepdims;
  return p;
}

// d var / dx = 2 (x - mean) / (N - ddof); d std / dx = (x - mean) / ((N - ddof) std).
Grads MomentGrad(bool is_std, GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
  const auto& p = a.get<NpMomentParam>();
  GradValue mean = b.CallP("_npi_mean", {in[0]}, MeanParam(a));
  GradValue dev = b.Sub(in[0], Bcast(b, a, mean, in[0]));
  // 1 / (N - ddof) as a broadcast of ones normalized by N, scaled by N / (N - ddof): the count N
  // is only known from shapes, so it comes from _np_reduce_bcast's normalize.
  GradValue g = Bcast(b, a, og[0], in[0]);
  GradValue inv_n = Bcast(b, a, b.OnesLike(og[0]), in[0], true);  // 1 / N
  GradValue n = b.Div(b.OnesLike(inv_n), inv_n);                  // N
  GradValue inv_div = b.Div(b.OnesLike(n), b.AddScalar(n, -static_cast<double>(p.ddof)));
  GradValue r = b.Mul(b.Mul(g, dev), inv_div);
  if (is_std) return Grads{b.Div(r, Bcast(b, a, out[0], in[0]))};
  return Grads{b.MulScalar(r, 2.0)};
}

#define MX_NP_MOMENT(NAME, IS_STD)                                                                 \
  MX_REGISTER_OP(NAME)                                                                             \
      .set_params<NpMomentParam>()                                                                 \
      .set_input_names(std::vector<std::string>{"a"})                                              \
      .set_infer_shape(                                                                            \
          [](const OpAttrs& a, ShapeVec* in, ShapeVec* out) { NpReduceShape(a, in, out, false); }) \
      .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {                          \
        NpReduceType(TypeRule::kMoment, a, in, out);                                               \
      })                                                                                           \
      .set_kernel(kRef, MomentKernel(IS_STD))                                                      \
      .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {                   \
        return MomentGrad(IS_STD, b, a, in, out, og);                                              \
      })

MX_NP_MOMENT(_npi_std, true)
    .describe(
        "Standard deviation over axes (mx.np.std): sqrt(sum((x - mean)^2) / (N - ddof)); "
        "output dtype `dtype`, else the input's (integers truncated); NaN when N = 0.");
MX_NP_MOMENT(_npi_var, false)
    .describe(
        "Variance over axes (mx.np.var): sum((x - mean)^2) / (N - ddof); output dtype "
        "`dtype`, else the input's (integers truncated); NaN when N = 0.");
#undef MX_NP_MOMENT

// ---- argmax / argmin ----
void NpArgShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return;
  const auto& p = attrs.get<ReduceAxisParam>();
  std::string_view op = OpName(attrs);
  Shape o = Shape::Filled(0, 0);
  if (!p.axis) {
    if (p.keepdims) o = Shape::Filled(s.ndim(), 1);
    if (s.is_known() && s.Size() == 0)
      MX_THROW(absl::StatusCode::kInvalidArgument, op,
               ": attempt to search an empty array of shape ", s.ToString());
  } else {
    int ax = reduce_internal::CheckAxis(op, *p.axis, s);
    if (s.is_known() && s[ax] == 0 && s.ProdRange(0, ax) * s.ProdRange(ax + 1, s.ndim()) > 0)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": cannot search along axis ", ax,
               " of size 0 (input shape ", s.ToString(), ")");
    for (int i = 0; i < s.ndim(); ++i) {
      if (i != ax)
        o.push_back(s[i]);
      else if (p.keepdims)
        o.push_back(1);
    }
  }
  MergeShape(&(*out)[0], o, StrCat(op, ": output"));
}

// The legacy kernel (index in its input's dtype) on the input as float64 (int64 stays int64:
// every index is exact), converted to int64.
FCompute NpArgKernel(const char* legacy) {
  return [legacy](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
    if (out[0].size() == 0) return;
    DType c = in[0].dtype() == DType::kInt64 ? DType::kInt64 : DType::kFloat64;
    NDArray x = AsDType(in[0], c);
    const Op& op = OpRegistry::Get(legacy);
    OpAttrs a = OpAttrs::From(op, attrs.get<ReduceAxisParam>());
    NDArray tmp(Shape{out[0].size()}, x.device(), c);
    (*op.FindKernel(kRef))(OpContext{}, a, std::span<const NDArray>(&x, 1),
                           std::span<const NDArray>(&tmp, 1));
    ConvertElements(tmp.data_ptr(), c, out[0].data_ptr(), out[0].dtype(), out[0].size());
  };
}

#define MX_NP_ARG(NAME, LEGACY, DOC)                                                    \
  MX_REGISTER_OP(NAME)                                                                  \
      .describe(DOC)                                                                    \
      .set_params<ReduceAxisParam>()                                                    \
      .set_input_names(std::vector<std::string>{"data"})                                \
      .set_infer_shape(NpArgShape)                                                      \
      .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {               \
        if ((*in)[0] == DTypeFlag(DType::kBool))                                        \
          MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a),                       \
                   ": dtype bool is not supported");                                    \
        MergeType(&(*out)[0], DTypeFlag(DType::kInt64), StrCat(OpName(a), ": output")); \
      })                                                                                \
      .set_kernel(kRef, NpArgKernel(LEGACY))                                            \
      .set_gradient(ZeroGrad, true, false)

MX_NP_ARG(_npi_argmax, "argmax",
          "Index (int64) of the first maximum along axis (mx.np.argmax; None: of the flattened "
          "array, 0-dim); the first NaN wins. Gradient: zero.");
MX_NP_ARG(_npi_argmin, "argmin",
          "Index (int64) of the first minimum along axis (mx.np.argmin; None: of the flattened "
          "array, 0-dim); the first NaN wins. Gradient: zero.");
#undef MX_NP_ARG

// ---- helper ops of the gradients ----
MX_REGISTER_OP(_np_reduce_bcast)
    .describe(
        "Broadcasts the result of a NumPy reduction (data) back to like's shape and dtype; "
        "normalize divides by the reduced count (gradients of _np_sum/_npi_mean/...).")
    .set_params<NpReduceBcastParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "like"})
    .set_infer_shape(BcastShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_np_reduce_bcast: output");
    })
    .set_kernel(kRef, BcastKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          const auto& p = a.get<NpReduceBcastParam>();
          NpReduceParam r;
          r.axis = p.axis;
          r.keepdims = p.keepdims;
          return Grads{b.CallP(p.normalize ? "_npi_mean" : "_np_sum", {og[0]}, r),
                       b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(_np_reduce_extremum_mask)
    .describe("1 where data equals its NumPy max/min reduction result `out`, else 0.")
    .set_params<NpReduceBcastParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "out"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& s = (*in)[0];
      if (s.ndim_known()) {
        Spec sp = SpecOf(a);
        MergeShape(&(*in)[1], NpReducedShape(s, NpAxes(OpName(a), s, sp.axis), sp.keepdims),
                   "_np_reduce_extremum_mask: out");
      }
      MergeShape(&(*out)[0], s, "_np_reduce_extremum_mask: output");
    })
    .set_kernel(kRef, MaskKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV, GV) {
          return Grads{b.ZerosLike(in[0]), b.ZerosLike(in[1])};
        },
        true, false);

}  // namespace
}  // namespace mxnet::ops

namespace mxnet::nd::np {
namespace {
template <typename P>
NDArray Call1(const char* name, const P& p, const NDArray& a) {
  const Op& op = OpRegistry::Get(name);
  NDArray in[1] = {a};
  return Invoke(op, OpAttrs::From(op, p), in)[0];
}
}  // namespace
NDArray sum(const NDArray& a, const ops::NpReduceParam& p) { return Call1("_np_sum", p, a); }
NDArray prod(const NDArray& a, const ops::NpReduceParam& p) { return Call1("_np_prod", p, a); }
NDArray mean(const NDArray& a, const ops::NpReduceParam& p) { return Call1("_npi_mean", p, a); }
NDArray max(const NDArray& a, const ops::NpMaxParam& p) { return Call1("_np_max", p, a); }
NDArray min(const NDArray& a, const ops::NpMaxParam& p) { return Call1("_np_min", p, a); }
NDArray std(const NDArray& a, const ops::NpMomentParam& p) { return Call1("_npi_std", p, a); }
NDArray var(const NDArray& a, const ops::NpMomentParam& p) { return Call1("_npi_var", p, a); }
NDArray all(const NDArray& a, const ops::NpBoolReduceParam& p) { return Call1("_np_all", p, a); }
NDArray any(const NDArray& a, const ops::NpBoolReduceParam& p) { return Call1("_np_any", p, a); }
NDArray argmax(const NDArray& a, const ops::ReduceAxisParam& p) {
  return Call1("_npi_argmax", p, a);
}
NDArray argmin(const NDArray& a, const ops::ReduceAxisParam& p) {
  return Call1("_npi_argmin", p, a);
}
}  // namespace mxnet::nd::np
