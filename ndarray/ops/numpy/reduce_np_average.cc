// MXNet 1.9.1's _npi_average (mx.np.average; src/operator/numpy/np_broadcast_reduce_op_value.cc),
// attributes in reduce_np_api.h, and its gradient _npi_average_backward.
// Inputs: a; weights when weighted (a's shape, or 1-D of length a.shape[axis] with exactly one
// axis), of a's dtype. Outputs: avg = sum(a * w) / sum(w) over axis (a reduced, no keepdims;
// a 0-dim () for axis None) and sum_of_weights (avg's shape for same-shape weights, else 0-dim;
// unweighted: the element count), both in a's dtype (integers: truncating division); the second
// output is visible only with returned=True. A zero weight sum gives inf/NaN (MXNet).
#include <cmath>

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

// Geometry of one call: reduced axes of a, and for 1-D weights the axis they run along.
struct AvgGeom {
  std::vector<char> red;
  Shape avg, sw;
  int w_axis = -1;  // >= 0: 1-D weights along this axis
};

AvgGeom Geometry(const OpAttrs& attrs, const Shape& a, const Shape* w) {
  const auto& p = attrs.get<NpAverageParam>();
  std::string_view op = OpName(attrs);
  AvgGeom g;
  g.red = ResolveReduceAxes(op, a, p.axis, false);
  g.avg = Shape::Filled(0, 0);
  for (int i = 0; i < a.ndim(); ++i)
    if (!g.red[i]) g.avg.push_back(a[i]);
  g.sw = Shape::Filled(0, 0);
  if (w && *w != a) {
    if (!p.axis || p.axis->ndim() != 1)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": weights of shape ", w->ToString(),
               " differ from a's shape ", a.ToString(), ", so axis must be a single int (axis=",
               p.axis ? p.axis->ToString() : std::string("None"), ")");
    g.w_axis = reduce_internal::CheckAxis(op, (*p.axis)[0], a);
    if (w->ndim() != 1 || (*w)[0] != a[g.w_axis])
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": weights of shape ", w->ToString(),
               " must be 1-D of length ", a[g.w_axis], " (a.shape[", g.w_axis, "] of a ",
               a.ToString(), ")");
  } else if (w) {
    g.sw = g.avg;
  }
  return g;
}

// Per element of a: the output index and the weights index.
struct Index {
  std::vector<int64_t> out, w;
};
Index Indices(const Shape& a, const AvgGeom& g) {
  int nd = a.ndim();
  std::vector<int64_t> ostride(nd, 0);
  int64_t st = 1;
  for (int i = nd - 1; i >= 0; --i)
    if (!g.red[i]) ostride[i] = st, st *= a[i];
  Index ix;
  int64_t n = a.Size();
  ix.out.resize(n);
  ix.w.resize(n);
  std::vector<int64_t> pos(nd, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t o = 0;
    for (int d = 0; d < nd; ++d) o += pos[d] * ostride[d];
    ix.out[k] = o;
    ix.w[k] = g.w_axis >= 0 ? pos[g.w_axis] : k;
    for (int d = nd - 1; d >= 0; --d) {
      if (++pos[d] < a[d]) break;
      pos[d] = 0;
    }
  }
  return ix;
}

void Store(const std::vector<double>& v, const NDArray& out) {
  ConvertElements(v.data(), DType::kFloat64, out.data_ptr(), out.dtype(), v.size());
}

void AverageKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  bool weighted = attrs.get<NpAverageParam>().weighted;
  const Shape& s = in[0].shape();
  AvgGeom g = Geometry(attrs, s, weighted ? &in[1].shape() : nullptr);
  Index ix = Indices(s, g);
  std::vector<double> a = in[0].ToVector<double>();
  std::vector<double> w = weighted ? in[1].ToVector<double>() : std::vector<double>();
  size_t no = static_cast<size_t>(out[0].size());
  std::vector<double> num(no, 0.0), den(no, 0.0);
  for (size_t k = 0; k < a.size(); ++k) {
    double wk = weighted ? w[ix.w[k]] : 1.0;
    num[ix.out[k]] += a[k] * wk;
    den[ix.out[k]] += wk;
  }
  bool integer = !IsFloatingPoint(in[0].dtype());
  std::vector<double> avg(no);
  for (size_t o = 0; o < no; ++o) {
    double q = num[o] / den[o];
    avg[o] = integer && std::isfinite(q) ? std::trunc(q) : q;
  }
  Store(avg, out[0]);
  // Sum of weights: per output (same-shape weights) or one value.
  std::vector<double> sw;
  if (weighted && g.w_axis < 0) {
    sw = den;
  } else if (weighted) {
    double t = 0;
    for (double v : w) t += v;
    sw = {t};
  } else {
    double n = 1;
    for (int i = 0; i < s.ndim(); ++i)
      if (g.red[i]) n *= s[i];
    sw = {n};
  }
  Store(sw, out[1]);
}

// Inputs: ograd (avg), ograd (sum_of_weights), a, [weights], avg, sum_of_weights. Outputs: the
// gradients of a [and weights]:
//   da = og * w / sw;  dw = og * (a - avg) / sw (summed over the other axes for 1-D weights)
//                           + og_sw (the weights' share of sum_of_weights);
//   unweighted: da = og / N.
void AverageBackwardKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                           std::span<const NDArray> out) {
  bool weighted = attrs.get<NpAverageParam>().weighted;
  const NDArray& a_arr = in[2];
  const Shape& s = a_arr.shape();
  AvgGeom g = Geometry(attrs, s, weighted ? &in[3].shape() : nullptr);
  Index ix = Indices(s, g);
  std::vector<double> og = in[0].ToVector<double>(), og_sw = in[1].ToVector<double>();
  std::vector<double> a = a_arr.ToVector<double>();
  int base = weighted ? 4 : 3;
  std::vector<double> avg = in[base].ToVector<double>(), sw = in[base + 1].ToVector<double>();
  std::vector<double> da(a.size());
  if (!weighted) {
    for (size_t k = 0; k < a.size(); ++k) da[k] = og[ix.out[k]] / sw[0];
    Store(da, out[0]);
    return;
  }
  std::vector<double> w = in[3].ToVector<double>();
  std::vector<double> dw(w.size(), 0.0);
  bool per_out = g.w_axis < 0;
  for (size_t k = 0; k < a.size(); ++k) {
    int64_t o = ix.out[k];
    double swk = per_out ? sw[o] : sw[0];
    da[k] = og[o] * w[ix.w[k]] / swk;
    dw[ix.w[k]] += og[o] * (a[k] - avg[o]) / swk;
  }
  if (per_out)
    for (size_t k = 0; k < w.size(); ++k) dw[k] += og_sw[ix.out[k]];
  else
    for (double& v : dw) v += og_sw[0];
  Store(da, out[0]);
  Store(dw, out[1]);
}

MX_REGISTER_OP(_npi_average)
    .describe(
        "Weighted average over axes (mx.np.average): sum(a * weights) / sum(weights); "
        "outputs avg and (visible with returned=True) the sum of the weights.")
    .set_params<NpAverageParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<NpAverageParam>().weighted ? 2 : 1; })
    .set_input_names([](const OpAttrs& a) {
      return a.get<NpAverageParam>().weighted ? std::vector<std::string>{"a", "weights"}
                                              : std::vector<std::string>{"a"};
    })
    .set_num_outputs(2)
    .set_num_visible_outputs([](const OpAttrs& a) {
      return a.get<NpAverageParam>().returned ? 2 : 1;
    })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      bool weighted = a.get<NpAverageParam>().weighted;
      const Shape& s = (*in)[0];
      if (!s.is_known() || (weighted && !(*in)[1].is_known())) return;
      AvgGeom g = Geometry(a, s, weighted ? &(*in)[1] : nullptr);
      MergeShape(&(*out)[0], g.avg, StrCat(OpName(a), ": output"));
      MergeShape(&(*out)[1], g.sw, StrCat(OpName(a), ": sum_of_weights"));
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      int t = (*in)[0];
      if (t == DTypeFlag(DType::kBool))
        MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a), ": dtype bool is not supported");
      if (in->size() > 1 && t >= 0 && (*in)[1] >= 0 && (*in)[1] != t)
        MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a), ": weights dtype ",
                 DTypeName(static_cast<DType>((*in)[1])), " differs from a's dtype ",
                 DTypeName(static_cast<DType>(t)));
      MergeType(&(*out)[0], t, StrCat(OpName(a), ": output"));
      MergeType(&(*out)[1], t, StrCat(OpName(a), ": sum_of_weights"));
    })
    .set_kernel(kRef, AverageKernel)
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
      GradValue og_sw = og.size() > 1 && og[1].valid() ? og[1] : b.ZerosLike(out[1]);
      std::vector<GradValue> args{og[0], og_sw};
      for (GradValue v : in) args.push_back(v);
      args.push_back(out[0]);
      args.push_back(out[1]);
      const Op& bw = OpRegistry::Get("_npi_average_backward");
      return b.Apply(bw, OpAttrs::From(bw, a.get<NpAverageParam>()), args);
    });

MX_REGISTER_OP(_npi_average_backward)
    .describe(
        "Gradient of _npi_average: inputs (ograd, ograd_sum_of_weights, a, [weights], avg, "
        "sum_of_weights), outputs the gradients of a [and weights].")
    .set_params<NpAverageParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<NpAverageParam>().weighted ? 6 : 5; })
    .set_input_names([](const OpAttrs& a) {
      return a.get<NpAverageParam>().weighted
                 ? std::vector<std::string>{"ograd", "ograd_sum", "a", "weights", "avg", "sum"}
                 : std::vector<std::string>{"ograd", "ograd_sum", "a", "avg", "sum"};
    })
    .set_num_outputs([](const OpAttrs& a) { return a.get<NpAverageParam>().weighted ? 2 : 1; })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[2], "_npi_average_backward: a gradient");
      if (a.get<NpAverageParam>().weighted)
        MergeShape(&(*out)[1], (*in)[3], "_npi_average_backward: weights gradient");
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      for (auto& t : *out) MergeType(&t, (*in)[2], "_npi_average_backward: output");
    })
    .set_kernel(kRef, AverageBackwardKernel)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
