// MXNet 1.9.1's mx.np.percentile and mx.np.unique as ops, with NumPy's semantics:
//   _npi_percentile (a[, q]; axis=None, interpolation='linear', keepdims=False, q_scalar=None):
//     numpy.percentile(a, q, axis, interpolation=...). q is q_scalar when given (then no q input),
//     else the q input (0-d or 1-d, any dtype); every q in [0, 100]. Output: a reduced over axis
//     (None: all; keepdims keeps size-1 axes), with q's length in front for a 1-d q. The k-th
//     smallest along the axes at position q/100 * (n - 1), interpolated 'linear', 'lower',
//     'higher', 'midpoint' or 'nearest' (round half to even, as numpy). Dtype: float64 for a
//     float64 input, else float32 (MXNet's rule; integers too). Computed in double.
//     MXNet gives zero gradients: not differentiable here. Where MXNet 1.9.1 differs we follow
//     NumPy: it rounds 'nearest' positions half away from zero (NumPy: half to even) and
//     interpolates with float32 positions and weights even for float64 data.
//   _npi_unique (data; return_index, return_inverse, return_counts, axis=None): numpy.unique.
//     Outputs: the sorted unique values (data's dtype; axis None: of the flattened data, else the
//     unique slices along axis in lexicographic order) then, as flagged, int64 first-occurrence
//     indices, int64 inverse indices (length of the flattened data / of axis) and int64 counts.
//     Output lengths depend on the values (dynamic output shape). Not differentiable (MXNet: zero
//     gradients).
// Source: src/operator/numpy/np_percentile_op-inl.h, np_percentile_op.cc, np_unique_op.cc
// (MXNet 1.9.1); NumPy's documentation of percentile and unique.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/params.h"

namespace mxnet::ops {
namespace {

constexpr auto kBad = absl::StatusCode::kInvalidArgument;

// MXNet's NumpyPercentileParam.
struct NpPercentileParam {
  std::optional<Shape> axis;
  std::string interpolation = "linear";
  bool keepdims = false;
  std::optional<double> q_scalar;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &NpPercentileParam::axis).describe("Axes reduced (None: all).");
    d.field("interpolation", &NpPercentileParam::interpolation)
        .choices({"higher", "linear", "lower", "midpoint", "nearest"})
        .describe("How a position between two data points is read.");
    d.field("keepdims", &NpPercentileParam::keepdims).describe("Keep the reduced axes as 1.");
    d.field("q_scalar", &NpPercentileParam::q_scalar)
        .describe("The percentile, when given as a number (then no q input).");
  }
};

// MXNet's NumpyUniqueParam.
struct NpUniqueParam {
  bool return_index = false, return_inverse = false, return_counts = false;
  std::optional<int> axis;
  template <class D>
  static void Declare(D& d) {
    d.field("return_index", &NpUniqueParam::return_index).describe("Also first indices.");
    d.field("return_inverse", &NpUniqueParam::return_inverse).describe("Also inverse indices.");
    d.field("return_counts", &NpUniqueParam::return_counts).describe("Also counts.");
    d.field("axis", &NpUniqueParam::axis).describe("Axis of the unique slices (None: flattened).");
  }
};

std::vector<double> Load(const NDArray& a) {
  NDArray h = a.device().type == DeviceType::kCPU ? a : a.as_in_context(cpu());
  return h.ToVector<double>();
}

// ---- percentile ----
// Reduced flags per axis.
std::vector<bool> ReducedAxes(const OpAttrs& a, const Shape& s) {
  const auto& p = a.get<NpPercentileParam>();
  std::vector<bool> r(s.ndim(), !p.axis.has_value());
  if (p.axis)
    for (int64_t ax : *p.axis) {
      int k = reduce_internal::CheckAxis("_npi_percentile", ax, s, "axis");
      if (r[k]) MX_THROW(kBad, "_npi_percentile: axis ", ax, " is repeated");
      r[k] = true;
    }
  return r;
}

Shape PercentileShape(const OpAttrs& a, const Shape& s, const Shape* q) {
  const auto& p = a.get<NpPercentileParam>();
  std::vector<bool> red = ReducedAxes(a, s);
  std::vector<int64_t> o;
  if (q) {
    if (q->ndim() > 1)
      MX_THROW(kBad, "_npi_percentile: q must be 0-d or 1-d, got shape ", q->ToString());
    if (q->ndim() == 1) o.push_back((*q)[0]);
  }
  for (int i = 0; i < s.ndim(); ++i) {
    if (!red[i])
      o.push_back(s[i]);
    else if (p.keepdims)
      o.push_back(1);
  }
  return Shape(o);
}

double Percentile(std::vector<double>& v, double q, const std::string& how) {
  size_t n = v.size();
  double pos = q / 100.0 * static_cast<double>(n - 1);
  size_t lo = static_cast<size_t>(std::floor(pos)), hi = std::min(n - 1, lo + 1);
  std::nth_element(v.begin(), v.begin() + lo, v.end());
  double a = v[lo];
  double b = a;
  if (hi != lo) b = *std::min_element(v.begin() + lo + 1, v.end());
  double t = pos - static_cast<double>(lo);
  if (how == "lower") return a;
  if (how == "higher") return t > 0 ? b : a;
  if (how == "midpoint") return t > 0 ? (a + b) / 2 : a;
  if (how == "nearest") return std::nearbyint(pos) > static_cast<double>(lo) ? b : a;
  return t >= 0.5 ? b - (b - a) * (1 - t) : a + (b - a) * t;  // numpy's lerp
}

void PercentileKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const auto& p = a.get<NpPercentileParam>();
  const Shape& s = in[0].shape();
  std::vector<double> qs = p.q_scalar ? std::vector<double>{*p.q_scalar} : Load(in[1]);
  for (double q : qs)
    if (!(q >= 0 && q <= 100))
      MX_THROW(kBad, "_npi_percentile: percentiles must be in the range [0, 100], got ", q);
  std::vector<bool> red = ReducedAxes(a, s);
  // Kept and reduced axes; each output element gathers its reduced elements.
  std::vector<int> kept, reduced;
  for (int i = 0; i < s.ndim(); ++i) (red[i] ? reduced : kept).push_back(i);
  int64_t nk = 1, nr = 1;
  for (int i : kept) nk *= s[i];
  for (int i : reduced) nr *= s[i];
  if (nr == 0 && nk > 0)
    MX_THROW(kBad, "_npi_percentile: cannot take a percentile of an empty selection (shape ",
             s.ToString(), ")");
  std::vector<int64_t> st(s.ndim(), 1);
  for (int i = s.ndim() - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  std::vector<double> x = Load(in[0]), res(qs.size() * nk), buf(nr);
  for (int64_t k = 0; k < nk; ++k) {
    int64_t base = 0, r = k;
    for (int j = static_cast<int>(kept.size()) - 1; j >= 0; --j) {
      base += (r % s[kept[j]]) * st[kept[j]];
      r /= s[kept[j]];
    }
    for (int64_t m = 0; m < nr; ++m) {
      int64_t off = base, rr = m;
      for (int j = static_cast<int>(reduced.size()) - 1; j >= 0; --j) {
        off += (rr % s[reduced[j]]) * st[reduced[j]];
        rr /= s[reduced[j]];
      }
      buf[m] = x[off];
    }
    for (size_t qi = 0; qi < qs.size(); ++qi) {
      std::vector<double> w = buf;
      res[qi * nk + k] = Percentile(w, qs[qi], p.interpolation);
    }
  }
  MX_DTYPE_SWITCH(out[0].dtype(), T, {
    T* o = static_cast<T*>(out[0].data_ptr());
    for (size_t i = 0; i < res.size(); ++i) o[i] = static_cast<T>(res[i]);
  });
}

MX_REGISTER_OP(_npi_percentile)
    .describe(
        "numpy.percentile(a, q, axis, interpolation, keepdims): q (q_scalar or the q input, "
        "in [0, 100]) percentiles of a over axis; float64 for float64 a, else float32.")
    .set_params<NpPercentileParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<NpPercentileParam>().q_scalar ? 1 : 2; })
    .set_input_names([](const OpAttrs& a) {
      return a.get<NpPercentileParam>().q_scalar ? std::vector<std::string>{"a"}
                                                 : std::vector<std::string>{"a", "q"};
    })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].is_known() || (in->size() > 1 && !(*in)[1].is_known())) return;
      MergeShape(&(*out)[0], PercentileShape(a, (*in)[0], in->size() > 1 ? &(*in)[1] : nullptr),
                 "_npi_percentile: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      int t = (*in)[0];
      if (t < 0) return;
      if (static_cast<DType>(t) == DType::kBool)
        MX_THROW(kBad, "_npi_percentile: dtype bool is not supported");
      MergeType(&(*out)[0],
                static_cast<int>(static_cast<DType>(t) == DType::kFloat64 ? DType::kFloat64
                                                                          : DType::kFloat32),
                "_npi_percentile: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, PercentileKernel)
    .set_non_differentiable();

// ---- unique ----
int UniqueOutputs(const OpAttrs& a) {
  const auto& p = a.get<NpUniqueParam>();
  return 1 + p.return_index + p.return_inverse + p.return_counts;
}

// The unique analysis: slices (rows of `row` elements) of x, sorted unique order.
struct UniqueResult {
  std::vector<int64_t> first;    // per unique: index of its first occurrence
  std::vector<int64_t> inverse;  // per slice: its unique's position
  std::vector<int64_t> counts;
  int64_t outer = 1, n = 0, inner = 1;
  int axis = -1;  // -1: flattened
};

UniqueResult Analyze(const OpAttrs& a, const NDArray& x) {
  const auto& p = a.get<NpUniqueParam>();
  UniqueResult r;
  const Shape& s = x.shape();
  if (p.axis) {
    if (s.ndim() == 0) MX_THROW(kBad, "_npi_unique: axis given for a 0-d array");
    r.axis = reduce_internal::CheckAxis("_npi_unique", *p.axis, s, "axis");
    r.outer = s.ProdRange(0, r.axis);
    r.n = s[r.axis];
    r.inner = s.ProdRange(r.axis + 1, s.ndim());
  } else {
    r.n = s.Size();
  }
  std::vector<double> v = Load(x);
  // Slice j: elements (o, j, i) for o < outer, i < inner, in that order.
  auto elem = [&](int64_t j, int64_t e) {
    return v[((e / r.inner) * r.n + j) * r.inner + e % r.inner];
  };
  int64_t len = r.outer * r.inner;
  auto less = [&](int64_t i, int64_t j) {
    for (int64_t e = 0; e < len; ++e) {
      double u = elem(i, e), w = elem(j, e);
      if (u != w) return u < w;
    }
    return false;
  };
  std::vector<int64_t> order(r.n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), less);
  r.inverse.assign(r.n, 0);
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || less(order[k - 1], order[k])) {
      r.first.push_back(order[k]);
      r.counts.push_back(0);
    }
    r.inverse[order[k]] = static_cast<int64_t>(r.first.size()) - 1;
    ++r.counts.back();
  }
  return r;
}

ShapeVec UniqueShapes(const OpAttrs& a, const Shape& s, int64_t nu) {
  const auto& p = a.get<NpUniqueParam>();
  ShapeVec o;
  if (p.axis) {
    int ax = reduce_internal::CheckAxis("_npi_unique", *p.axis, s, "axis");
    Shape u = s;
    u[ax] = nu;
    o.push_back(u);
  } else {
    o.push_back(Shape{nu});
  }
  int64_t n = p.axis ? s[reduce_internal::CheckAxis("_npi_unique", *p.axis, s, "axis")] : s.Size();
  if (p.return_index) o.push_back(Shape{nu});
  if (p.return_inverse) o.push_back(Shape{n});
  if (p.return_counts) o.push_back(Shape{nu});
  return o;
}

void UniqueKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const auto& p = a.get<NpUniqueParam>();
  UniqueResult r = Analyze(a, in[0]);
  int64_t nu = static_cast<int64_t>(r.first.size());
  size_t es = DTypeSize(in[0].dtype());
  size_t run = static_cast<size_t>(r.inner) * es;
  const char* src = static_cast<const char*>(in[0].data_ptr());
  char* dst = static_cast<char*>(out[0].data_ptr());
  if (run > 0)
    for (int64_t o = 0; o < r.outer; ++o)
      for (int64_t k = 0; k < nu; ++k)
        std::memcpy(dst + (o * nu + k) * run, src + (o * r.n + r.first[k]) * run, run);
  int next = 1;
  auto put = [&](const std::vector<int64_t>& v) {
    int64_t* d = static_cast<int64_t*>(out[next++].data_ptr());
    std::copy(v.begin(), v.end(), d);
  };
  if (p.return_index) put(r.first);
  if (p.return_inverse) put(r.inverse);
  if (p.return_counts) put(r.counts);
}

MX_REGISTER_OP(_npi_unique)
    .describe(
        "numpy.unique(data, return_index, return_inverse, return_counts, axis): sorted unique "
        "values (or slices along axis), then the flagged int64 outputs.")
    .set_params<NpUniqueParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_num_outputs(UniqueOutputs)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].is_known()) return;
      ShapeVec o = UniqueShapes(a, (*in)[0], Shape::kUnknownDim);
      for (size_t i = 0; i < o.size(); ++i) MergeShape(&(*out)[i], o[i], "_npi_unique: output");
    })
    .set_dynamic_output_shape([](const OpAttrs& a, std::span<const NDArray> in, ShapeVec* out) {
      *out = UniqueShapes(a, in[0].shape(), static_cast<int64_t>(Analyze(a, in[0]).first.size()));
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "_npi_unique: output");
      for (size_t i = 1; i < out->size(); ++i)
        MergeType(&(*out)[i], static_cast<int>(DType::kInt64), "_npi_unique: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, UniqueKernel)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
