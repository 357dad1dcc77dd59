// MXNet 1.9.1's _np_trace (mx.np.trace; src/operator/numpy/np_trace_op.cc) and _npi_diff
// (mx.np.diff; np_diff.cc), attributes in reduce_np_api.h, and their gradient helpers
// _np_trace_backward (og placed on the diagonal) and _npi_diff_backward (the adjoint of the
// difference). Every numeric dtype except bool, output of the input's dtype (integers computed
// in int64 and wrapped, floats in double and rounded once).
#include <cmath>
#include <cstdint>

#include "ndarray/grad.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/numpy/reduce_np_api.h"

namespace mxnet::ops {
namespace {
using reduce_internal::CheckAxis;
using reduce_internal::OpName;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};

void NoBool(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  if ((*in)[0] == DTypeFlag(DType::kBool))
    MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a), ": dtype bool is not supported");
  MergeType(&(*out)[0], (*in)[0], StrCat(OpName(a), ": output"));
}

// Values as double; integer dtypes go through int64 so sums wrap like the element type.
std::vector<double> Load(const NDArray& x) { return x.ToVector<double>(); }
void Save(const std::vector<double>& v, const NDArray& out) {
  if (IsFloatingPoint(out.dtype())) {
    ConvertElements(v.data(), DType::kFloat64, out.data_ptr(), out.dtype(), v.size());
  } else {
    std::vector<int64_t> iv(v.size());
    for (size_t i = 0; i < v.size(); ++i) iv[i] = static_cast<int64_t>(v[i]);
    ConvertElements(iv.data(), DType::kInt64, out.data_ptr(), out.dtype(), iv.size());
  }
}

// ---- trace ----
struct TraceAxes {
  int a1, a2;
};
TraceAxes TraceAxesOf(const OpAttrs& attrs, const Shape& s) {
  const auto& p = attrs.get<NpTraceParam>();
  std::string_view op = OpName(attrs);
  if (s.ndim() < 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": needs an input of at least 2 dims, got ",
             s.ToString());
  int a1 = CheckAxis(op, p.axis1, s, "axis1"), a2 = CheckAxis(op, p.axis2, s, "axis2");
  if (a1 == a2)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": axis1 and axis2 refer to the same axis ",
             a1, " (input shape ", s.ToString(), ")");
  return {a1, a2};
}
Shape TraceOutShape(const Shape& s, TraceAxes t) {
  Shape o = Shape::Filled(0, 0);
  for (int i = 0; i < s.ndim(); ++i)
    if (i != t.a1 && i != t.a2) o.push_back(s[i]);
  return o;
}
// For each element of `s`: its output index, or -1 off the diagonal.
std::vector<int64_t> TraceMap(const Shape& s, TraceAxes t, int offset) {
  int nd = s.ndim();
  std::vector<int64_t> ostride(nd, 0), pos(nd, 0), m(s.Size());
  int64_t st = 1;
  for (int i = nd - 1; i >= 0; --i)
    if (i != t.a1 && i != t.a2) ostride[i] = st, st *= s[i];
  for (size_t k = 0; k < m.size(); ++k) {
    int64_t o = -1;
    if (pos[t.a2] - pos[t.a1] == offset) {
      o = 0;
      for (int d = 0; d < nd; ++d) o += pos[d] * ostride[d];
    }
    m[k] = o;
    for (int d = nd - 1; d >= 0; --d) {
      if (++pos[d] < s[d]) break;
      pos[d] = 0;
    }
  }
  return m;
}

MX_REGISTER_OP(_np_trace)
    .describe(
        "Sum along the diagonal at offset of the 2-D slices over axis1/axis2 (mx.np.trace); "
        "output: the input's shape without those axes (0 where the offset is outside).")
    .set_params<NpTraceParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& s = (*in)[0];
      if (!s.ndim_known()) return;
      MergeShape(&(*out)[0], TraceOutShape(s, TraceAxesOf(a, s)), StrCat(OpName(a), ": output"));
    })
    .set_infer_type(NoBool)
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  std::vector<int64_t> m =
                      TraceMap(s, TraceAxesOf(a, s), a.get<NpTraceParam>().offset);
                  std::vector<double> x = Load(in[0]), y(out[0].size(), 0.0);
                  for (size_t k = 0; k < m.size(); ++k)
                    if (m[k] >= 0) y[m[k]] += x[k];
                  Save(y, out[0]);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.CallP("_np_trace_backward", {og[0], in[0]}, a.get<NpTraceParam>())};
        },
        true, false);

MX_REGISTER_OP(_np_trace_backward)
    .describe(
        "Gradient of _np_trace: ograd placed on the diagonal, zeros elsewhere (like's "
        "shape and dtype).")
    .set_params<NpTraceParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "like"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& like = (*in)[1];
      if (!like.ndim_known()) return;
      MergeShape(&(*in)[0], TraceOutShape(like, TraceAxesOf(a, like)), "_np_trace_backward: ograd");
      MergeShape(&(*out)[0], like, "_np_trace_backward: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_np_trace_backward: output");
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = out[0].shape();
                  std::vector<int64_t> m =
                      TraceMap(s, TraceAxesOf(a, s), a.get<NpTraceParam>().offset);
                  std::vector<double> g = Load(in[0]), y(m.size(), 0.0);
                  for (size_t k = 0; k < m.size(); ++k)
                    if (m[k] >= 0) y[k] = g[m[k]];
                  Save(y, out[0]);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.CallP("_np_trace", {og[0]}, a.get<NpTraceParam>()), b.ZerosLike(in[1])};
        },
        true, false);

// ---- diff ----
// out[.., i, ..] = sum_k (-1)^(n-k) C(n, k) x[.., i + k, ..] along the axis.
std::vector<double> Binomial(int n) {
  std::vector<double> c(n + 1, 1.0);
  for (int k = 1; k <= n; ++k) c[k] = c[k - 1] * (n - k + 1) / k;
  for (int k = 0; k <= n; ++k)
    if ((n - k) % 2) c[k] = -c[k];
  return c;
}
Shape DiffShape(const OpAttrs& a, const Shape& s) {
  std::string_view op = OpName(a);
  if (s.ndim() == 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": needs an input of at least 1 dim");
  const auto& p = a.get<NpDiffParam>();
  int ax = CheckAxis(op, p.axis, s);
  Shape o = s;
  if (o[ax] >= 0) o[ax] = std::max<int64_t>(o[ax] - p.n, 0);
  return o;
}
// Runs the difference (adjoint=false: x -> y) or its adjoint (y-grad -> x-grad).
void DiffRun(const OpAttrs& a, const Shape& xs, const std::vector<double>& src,
             std::vector<double>* dst, bool adjoint) {
  const auto& p = a.get<NpDiffParam>();
  int ax = CheckAxis(OpName(a), p.axis, xs);
  reduce_internal::AxisSplit sp = reduce_internal::SplitAt(xs, ax);
  int64_t m = std::max<int64_t>(sp.n - p.n, 0);
  std::vector<double> c = Binomial(p.n);
  for (int64_t o = 0; o < sp.outer; ++o)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t r = 0; r < sp.inner; ++r) {
        int64_t yi = (o * m + i) * sp.inner + r;
        for (int k = 0; k <= p.n; ++k) {
          int64_t xi = (o * sp.n + i + k) * sp.inner + r;
          if (adjoint)
            (*dst)[xi] += c[k] * src[yi];
          else
            (*dst)[yi] += c[k] * src[xi];
        }
      }
}

MX_REGISTER_OP(_npi_diff)
    .describe(
        "n-th discrete difference along axis (mx.np.diff): the axis shrinks by n (to 0 at "
        "least); n = 0 copies.")
    .set_params<NpDiffParam>()
    .set_input_names(std::vector<std::string>{"a"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& s = (*in)[0];
      if (!s.ndim_known()) return;
      MergeShape(&(*out)[0], DiffShape(a, s), StrCat(OpName(a), ": output"));
    })
    .set_infer_type(NoBool)
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::vector<double> y(out[0].size(), 0.0);
                  DiffRun(a, in[0].shape(), Load(in[0]), &y, false);
                  Save(y, out[0]);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.CallP("_npi_diff_backward", {og[0], in[0]}, a.get<NpDiffParam>())};
        },
        true, false);

MX_REGISTER_OP(_npi_diff_backward)
    .describe(
        "Gradient of _npi_diff: the adjoint of the difference applied to ograd (like's "
        "shape and dtype).")
    .set_params<NpDiffParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "like"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& like = (*in)[1];
      if (!like.ndim_known()) return;
      MergeShape(&(*in)[0], DiffShape(a, like), "_npi_diff_backward: ograd");
      MergeShape(&(*out)[0], like, "_npi_diff_backward: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_npi_diff_backward: output");
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::vector<double> x(out[0].size(), 0.0);
                  DiffRun(a, out[0].shape(), Load(in[0]), &x, true);
                  Save(x, out[0]);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.CallP("_npi_diff", {og[0]}, a.get<NpDiffParam>()), b.ZerosLike(in[1])};
        },
        true, false);

}  // namespace
}  // namespace mxnet::ops
