// Reductions of the reduce family with MXNet 1.9.1's names and semantics: sum (sum_axis), mean,
// prod, nansum, nanprod, max (max_axis), min (min_axis), norm, argmax, argmin, argmax_channel;
// plus the `_reduce_*` helper ops their gradients are composed of.
//
// Axis rules (MXNet's ReduceAxesShapeImpl): axis None or () reduces every axis (whatever
// `exclude` says); otherwise axes may be negative, must be in range and distinct; `exclude`
// reduces the axes NOT listed; without keepdims a result with no axes left has shape (1,).
//
// Every reduction has a reference kernel (per output element, accumulating in double / int64) and
// an optimized one (axes collapsed into row / column / all patterns, parallel, 8 accumulation
// lanes). Integer sums wrap like MXNet's (they accumulate in the element type); mean divides the
// element-typed sum by the count in the element type, as MXNet does.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/reduce/reduce_api.h"
#include "ndarray/ops/reduce/reduce_params.h"

namespace mxnet::ops {

// ---- Axis resolution (shared with the API and tests through reduce_api.h). ----
std::vector<char> ResolveReduceAxes(std::string_view op, const Shape& in,
                                    const std::optional<Shape>& axis, bool exclude) {
  int nd = in.ndim();
  std::vector<char> red(std::max(nd, 0), 0);
  if (!axis || axis->ndim() <= 0) {
    std::fill(red.begin(), red.end(), 1);
    return red;
  }
  std::vector<int64_t> ax;
  for (int64_t a : *axis) {
    if (a < -nd || a >= nd)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": axis ", a,
               " is out of range for input shape ", in.ToString(), " (axis=", axis->ToString(),
               ")");
    ax.push_back(a < 0 ? a + nd : a);
  }
  std::sort(ax.begin(), ax.end());
  for (size_t i = 1; i < ax.size(); ++i)
    if (ax[i] == ax[i - 1])
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": axis=", axis->ToString(), " names axis ",
               ax[i], " twice (input shape ", in.ToString(), ")");
  for (int64_t a : ax) red[a] = 1;
  if (exclude)
    for (auto& r : red) r = !r;
  return red;
}

Shape ReducedShape(const Shape& in, const std::vector<char>& red, bool keepdims) {
  Shape out;
  for (int i = 0; i < in.ndim(); ++i) {
    if (!red[i])
      out.push_back(in[i]);
    else if (keepdims)
      out.push_back(1);
  }
  if (!keepdims && out.ndim() == 0) out.push_back(1);
  return out;
}

namespace {
using namespace reduce_internal;

// ---- Element conversions (Half/BFloat16 go through float). ----
template <typename T>
constexpr bool kIsFloat =
    std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename To, typename From>
inline To Cast(From v) {
  if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return Cast<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

// Accumulator of the reference kernels: double for floats, int64/uint64 for integers and bool.
template <typename T>
using RefAcc = std::conditional_t<
    kIsFloat<T>, double,
    std::conditional_t<std::is_same_v<T, bool> || std::is_signed_v<T>, int64_t, uint64_t>>;

template <typename A>
inline bool IsNan(A v) {
  if constexpr (std::is_floating_point_v<A>)
    return std::isnan(v);
  else
    return false;
}

// Integer accumulation wraps (two's complement, like the element type's own arithmetic) instead
// of overflowing.
template <class A>
inline A WrapAdd(A a, A b) {
  if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else
    return a + b;
}
template <class A>
inline A WrapMul(A a, A b) {
  if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else
    return a * b;
}

// ---- Reducers: Init, Map (per element), Combine, Finalize(acc, count) -> Out. ----
struct SumR {
  template <class A>
  static A Init() {
    return A(0);
  }
  template <class A>
  static A Map(A x) {
    return x;
  }
  template <class A>
  static A Combine(A a, A b) {
    return WrapAdd(a, b);
  }
  template <class T, class Out, class A>
  static Out Finalize(A acc, int64_t) {
    return Cast<Out>(Cast<T>(acc));
  }
};
struct MeanR : SumR {
  template <class T, class Out, class A>
  static Out Finalize(A acc, int64_t n) {
    T s = Cast<T>(acc);
    if constexpr (kIsFloat<T>) {
      using C = AccType<T>;
      return Cast<Out>(Cast<T>(static_cast<C>(s) / static_cast<C>(Cast<T>(n))));
    } else {
      T d = static_cast<T>(n);
      return Cast<Out>(d == T(0) ? T(0) : static_cast<T>(s / d));
    }
  }
};
struct NanSumR : SumR {
  template <class A>
  static A Map(A x) {
    return IsNan(x) ? A(0) : x;
  }
};
struct ProdR {
  template <class A>
  static A Init() {
    return A(1);
  }
  template <class A>
  static A Map(A x) {
    return x;
  }
  template <class A>
  static A Combine(A a, A b) {
    return WrapMul(a, b);
  }
  template <class T, class Out, class A>
  static Out Finalize(A acc, int64_t) {
    return Cast<Out>(Cast<T>(acc));
  }
};
struct NanProdR : ProdR {
  template <class A>
  static A Map(A x) {
    return IsNan(x) ? A(1) : x;
  }
};
// max/min propagate NaN (MXNet's reducers keep a NaN once seen).
struct MaxR {
  template <class A>
  static A Init() {
    if constexpr (std::is_floating_point_v<A>)
      return -std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::lowest();
  }
  template <class A>
  static A Map(A x) {
    return x;
  }
  template <class A>
  static A Combine(A a, A b) {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return b > a ? b : a;
  }
  template <class T, class Out, class A>
  static Out Finalize(A acc, int64_t) {
    return Cast<Out>(Cast<T>(acc));
  }
};
struct MinR : MaxR {
  template <class A>
  static A Init() {
    if constexpr (std::is_floating_point_v<A>)
      return std::numeric_limits<A>::infinity();
    else
      return std::numeric_limits<A>::max();
  }
  template <class A>
  static A Combine(A a, A b) {
    if (IsNan(a)) return a;
    if (IsNan(b)) return b;
    return b < a ? b : a;
  }
};
// norm: results are produced as double and converted to the output dtype.
struct L1R : SumR {
  template <class A>
  static A Map(A x) {
    if constexpr (std::is_unsigned_v<A>)
      return x;
    else
      return x < A(0) ? -x : x;
  }
  template <class T, class Out, class A>
  static Out Finalize(A acc, int64_t) {
    return static_cast<Out>(acc);
  }
};
struct L2R : SumR {
  template <class A>
  static A Map(A x) {
    return WrapMul(x, x);
  }
  template <class T, class Out, class A>
  static Out Finalize(A acc, int64_t) {
    return static_cast<Out>(std::sqrt(static_cast<double>(acc)));
  }
};

// ---- Geometry of one reduction. ----
struct Geom {
  std::vector<int64_t> kdims, kstrides, rdims, rstrides;  // kept / reduced axes (size-1 dropped)
  int64_t O = 1, R = 1;                                   // output count, reduced count
};

Geom MakeGeom(const Shape& in, const std::vector<char>& red) {
  Geom g;
  int nd = in.ndim();
  std::vector<int64_t> stride(nd, 1);
  for (int i = nd - 2; i >= 0; --i) stride[i] = stride[i + 1] * in[i + 1];
  for (int i = 0; i < nd; ++i) {
    if (red[i]) {
      g.R *= in[i];
      if (in[i] != 1) g.rdims.push_back(in[i]), g.rstrides.push_back(stride[i]);
    } else {
      g.O *= in[i];
      if (in[i] != 1) g.kdims.push_back(in[i]), g.kstrides.push_back(stride[i]);
    }
  }
  return g;
}

// Offset of linear index `i` over `dims` with `strides` (row-major decomposition).
inline int64_t Offset(int64_t i, const std::vector<int64_t>& dims,
                      const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    off += (i % dims[d]) * strides[d];
    i /= dims[d];
  }
  return off;
}

// Reference: for each output, walk the reduced index set.
template <class R, class T, class Out>
void ReduceRef(const T* x, Out* y, const Geom& g) {
  using A = RefAcc<T>;
  for (int64_t o = 0; o < g.O; ++o) {
    int64_t base = Offset(o, g.kdims, g.kstrides);
    A acc = R::template Init<A>();
    for (int64_t r = 0; r < g.R; ++r)
      acc = R::Combine(acc, R::Map(Cast<A>(x[base + Offset(r, g.rdims, g.rstrides)])));
    y[o] = R::template Finalize<T, Out>(acc, g.R);
  }
}

// ---- Optimized: collapse axes into segments and pick a loop shape. ----
template <class R, class A, class T>
inline A ReduceContiguous(const T* p, int64_t n) {
  constexpr int kLanes = 8;
  A lane[kLanes];
  for (auto& l : lane) l = R::template Init<A>();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int j = 0; j < kLanes; ++j) lane[j] = R::Combine(lane[j], R::Map(Cast<A>(p[i + j])));
  for (; i < n; ++i) lane[0] = R::Combine(lane[0], R::Map(Cast<A>(p[i])));
  A acc = lane[0];
  for (int j = 1; j < kLanes; ++j) acc = R::Combine(acc, lane[j]);
  return acc;
}

template <class R, class T, class Out>
void ReduceOpt(const T* x, Out* y, const Shape& in, const std::vector<char>& red) {
  using A = RefAcc<T>;
  Geom g = MakeGeom(in, red);
  if (g.O == 0) return;
  if (g.R == 0) {
    Out v = R::template Finalize<T, Out>(R::template Init<A>(), 0);
    std::fill(y, y + g.O, v);
    return;
  }
  // Segments of consecutive non-trivial axes with the same reduced flag.
  std::vector<int64_t> seg;
  std::vector<char> segred;
  for (int i = 0; i < in.ndim(); ++i) {
    if (in[i] == 1) continue;
    if (!seg.empty() && segred.back() == red[i])
      seg.back() *= in[i];
    else
      seg.push_back(in[i]), segred.push_back(red[i]);
  }
  const int64_t kGrain = 32768;
  if (g.R == 1) {  // nothing to reduce: map + finalize per element
    ParallelForRange(g.O, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        y[i] = R::template Finalize<T, Out>(
            R::Combine(R::template Init<A>(), R::Map(Cast<A>(x[i]))), 1);
    });
    return;
  }
  if (seg.size() == 1) {  // everything reduced: per-thread partials
    int64_t n = g.R;
    int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(GetNumThreads(), n / kGrain));
    std::vector<A> part(chunks);
    ParallelFor(
        chunks,
        [&](int64_t c) {
          int64_t b = n * c / chunks, e = n * (c + 1) / chunks;
          part[c] = ReduceContiguous<R, A>(x + b, e - b);
        },
        1);
    A acc = part[0];
    for (int64_t c = 1; c < chunks; ++c) acc = R::Combine(acc, part[c]);
    y[0] = R::template Finalize<T, Out>(acc, n);
    return;
  }
  if (seg.size() == 2 && segred[1]) {  // (O, R): rows
    int64_t rlen = seg[1];
    ParallelForRange(g.O, std::max<int64_t>(1, kGrain / rlen), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o)
        y[o] = R::template Finalize<T, Out>(ReduceContiguous<R, A>(x + o * rlen, rlen), rlen);
    });
    return;
  }
  if ((seg.size() == 2 && segred[0]) || (seg.size() == 3 && segred[1])) {  // (K1, R, K2): columns
    int64_t k1 = seg.size() == 3 ? seg[0] : 1;
    int64_t rlen = seg.size() == 3 ? seg[1] : seg[0];
    int64_t k2 = seg.back();
    constexpr int64_t kChunk = 512;
    int64_t nck = (k2 + kChunk - 1) / kChunk;
    int64_t items = k1 * nck;
    ParallelFor(
        items,
        [&](int64_t item) {
          int64_t a = item / nck, c = item % nck;
          int64_t kb = c * kChunk, ke = std::min(k2, kb + kChunk);
          A acc[kChunk];
          for (int64_t k = kb; k < ke; ++k) acc[k - kb] = R::template Init<A>();
          const T* base = x + a * rlen * k2;
          for (int64_t r = 0; r < rlen; ++r) {
            const T* row = base + r * k2;
            for (int64_t k = kb; k < ke; ++k)
              acc[k - kb] = R::Combine(acc[k - kb], R::Map(Cast<A>(row[k])));
          }
          for (int64_t k = kb; k < ke; ++k)
            y[a * k2 + k] = R::template Finalize<T, Out>(acc[k - kb], rlen);
        },
        std::max<int64_t>(1, kGrain / (rlen * std::min(k2, kChunk))));
    return;
  }
  // General pattern: per output, strided walk (parallel over outputs).
  ParallelForRange(g.O, std::max<int64_t>(1, kGrain / g.R), [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      int64_t base = Offset(o, g.kdims, g.kstrides);
      A acc = R::template Init<A>();
      for (int64_t r = 0; r < g.R; ++r)
        acc = R::Combine(acc, R::Map(Cast<A>(x[base + Offset(r, g.rdims, g.rstrides)])));
      y[o] = R::template Finalize<T, Out>(acc, g.R);
    }
  });
}

template <class R, class T, class Out>
void RunReduce(bool optimized, const T* x, Out* y, const Shape& in, const std::vector<char>& red) {
  if (optimized) {
    ReduceOpt<R, T, Out>(x, y, in, red);
  } else {
    Geom g = MakeGeom(in, red);
    ReduceRef<R, T, Out>(x, y, g);
  }
}

// ---- Registration helpers for the ReduceAxesParam ops. ----
struct AxesSpec {
  std::optional<Shape> axis;
  bool keepdims, exclude;
};
AxesSpec SpecOf(const OpAttrs& a) {
  if (a.op()->schema == &SchemaOf<NormParam>()) {
    const auto& p = a.get<NormParam>();
    return {p.axis, p.keepdims, false};
  }
  if (a.op()->schema == &SchemaOf<ReduceBroadcastParam>()) {
    const auto& p = a.get<ReduceBroadcastParam>();
    return {p.axis, p.keepdims, p.exclude};
  }
  const auto& p = a.get<ReduceAxesParam>();
  return {p.axis, p.keepdims, p.exclude};
}

void ReduceShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out, bool needs_nonempty) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return;
  AxesSpec sp = SpecOf(attrs);
  std::string_view op = OpName(attrs);
  std::vector<char> red = ResolveReduceAxes(op, s, sp.axis, sp.exclude);
  Shape o = ReducedShape(s, red, sp.keepdims);
  if (needs_nonempty && s.is_known() && o.Size() > 0) {
    for (int i = 0; i < s.ndim(); ++i)
      if (red[i] && s[i] == 0)
        MX_THROW(absl::StatusCode::kInvalidArgument, op, ": cannot reduce over axis ", i,
                 " of size 0 (input shape ", s.ToString(), "); the reduction has no identity");
  }
  MergeShape(&(*out)[0], o, StrCat(op, ": output"));
}

template <class R, bool kAllowBool>
FCompute ReduceKernel(bool optimized) {
  return [optimized](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
    AxesSpec sp = SpecOf(attrs);
    std::string_view op = OpName(attrs);
    const Shape& s = in[0].shape();
    std::vector<char> red = ResolveReduceAxes(op, s, sp.axis, sp.exclude);
    DType t = in[0].dtype();
    if (t == DType::kBool) {
      if constexpr (kAllowBool) {
        RunReduce<R, bool, bool>(optimized, in[0].data<bool>(), out[0].data<bool>(), s, red);
        return;
      } else {
        MX_THROW(absl::StatusCode::kInvalidArgument, op, ": dtype bool is not supported");
      }
    }
    MX_NUMERIC_TYPE_SWITCH(t, T, op, {
      RunReduce<R, T, T>(optimized, static_cast<const T*>(in[0].data_ptr()),
                         static_cast<T*>(out[0].data_ptr()), s, red);
    });
  };
}

// Gradient pieces.
ReduceBroadcastParam BcastParamOf(const OpAttrs& a, bool normalize = false) {
  AxesSpec sp = SpecOf(a);
  ReduceBroadcastParam p;
  p.axis = sp.axis;
  p.keepdims = sp.keepdims;
  p.exclude = sp.exclude;
  p.normalize = normalize;
  return p;
}
GradValue Bcast(GradBuilder& b, const OpAttrs& a, GradValue v, GradValue like,
                bool normalize = false) {
  return b.CallP("_reduce_bcast", {v, like}, BcastParamOf(a, normalize));
}
ReduceAxesParam AxesParamOf(const OpAttrs& a) {
  AxesSpec sp = SpecOf(a);
  ReduceAxesParam p;
  p.axis = sp.axis;
  p.keepdims = sp.keepdims;
  p.exclude = sp.exclude;
  return p;
}

using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

#define MX_REDUCE_OP(NAME, R, ALLOW_BOOL, NONEMPTY)                                              \
  MX_REGISTER_OP(NAME)                                                                           \
      .set_params<ReduceAxesParam>()                                                             \
      .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {                       \
        ReduceShape(a, in, out, NONEMPTY);                                                       \
      })                                                                                         \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, (ReduceKernel<R, ALLOW_BOOL>(false))) \
      .set_kernel({DeviceType::kCPU, Backend::kOptimized}, (ReduceKernel<R, ALLOW_BOOL>(true)))

MX_REDUCE_OP(sum, SumR, true, false)
    .describe("Sum of array elements over the given axes.")
    .add_alias("sum_axis")
    .add_alias("_sparse_sum")
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV,
                     GV og) { return Grads{Bcast(b, a, og[0], in[0])}; },
                  true, false);

MX_REDUCE_OP(mean, MeanR, false, false)
    .describe("Mean of array elements over the given axes.")
    .add_alias("_sparse_mean")
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV,
                     GV og) { return Grads{Bcast(b, a, og[0], in[0], /*normalize=*/true)}; },
                  true, false);

MX_REDUCE_OP(nansum, NanSumR, false, false)
    .describe("Sum of array elements over the given axes, treating NaN as zero.")
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.Mul(Bcast(b, a, og[0], in[0]), b.Call("_reduce_notnan", {in[0]}))};
        },
        true, false);

// d prod / dx_i = prod / x_i (MXNet's formula: NaN/inf where x_i == 0).
MX_REDUCE_OP(prod, ProdR, true, false)
    .describe("Product of array elements over the given axes.")
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
      return Grads{b.Mul(Bcast(b, a, og[0], in[0]), b.Div(Bcast(b, a, out[0], in[0]), in[0]))};
    });

MX_REDUCE_OP(nanprod, NanProdR, false, false)
    .describe("Product of array elements over the given axes, treating NaN as one.")
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
      GradValue safe_x = b.Call("_reduce_nan_to_one", {in[0]});
      GradValue ratio = b.Div(Bcast(b, a, out[0], in[0]), safe_x);
      return Grads{
          b.Mul(Bcast(b, a, og[0], in[0]), b.Mul(ratio, b.Call("_reduce_notnan", {in[0]})))};
    });

// max/min: every element equal to the result receives the full output gradient (MXNet's rule,
// ties included); NaN results pass no gradient.
MX_REDUCE_OP(max, MaxR, true, true)
    .describe("Maximum of array elements over the given axes (NaN propagates).")
    .add_alias("max_axis")
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
      GradValue mask = b.CallP("_reduce_extremum_mask", {in[0], out[0]}, AxesParamOf(a));
      return Grads{b.Mul(Bcast(b, a, og[0], in[0]), mask)};
    });

MX_REDUCE_OP(min, MinR, true, true)
    .describe("Minimum of array elements over the given axes (NaN propagates).")
    .add_alias("min_axis")
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
      GradValue mask = b.CallP("_reduce_extremum_mask", {in[0], out[0]}, AxesParamOf(a));
      return Grads{b.Mul(Bcast(b, a, og[0], in[0]), mask)};
    });

// ---- norm ----
template <class R>
void NormRun(bool optimized, const NDArray& x, const NDArray& y, const std::vector<char>& red,
             std::string_view op) {
  std::vector<double> res(y.size());
  MX_NUMERIC_TYPE_SWITCH(x.dtype(), T, op, {
    RunReduce<R, T, double>(optimized, static_cast<const T*>(x.data_ptr()), res.data(), x.shape(),
                            red);
  });
  ConvertElements(res.data(), DType::kFloat64, y.data_ptr(), y.dtype(), res.size());
}

FCompute NormKernel(bool optimized) {
  return [optimized](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
    const auto& p = attrs.get<NormParam>();
    std::vector<char> red = ResolveReduceAxes("norm", in[0].shape(), p.axis, false);
    if (p.ord == 1)
      NormRun<L1R>(optimized, in[0], out[0], red, "norm");
    else
      NormRun<L2R>(optimized, in[0], out[0], red, "norm");
  };
}

MX_REGISTER_OP(norm)
    .describe("Vector L1/L2 norm over the given axes (Frobenius norm for a 2-D axis pair).")
    .add_alias("_sparse_norm")
    .set_params<NormParam>()
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      ReduceShape(a, in, out, false);
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      const auto& p = a.get<NormParam>();
      if (p.out_dtype) {
        MergeType(&(*out)[0], static_cast<int>(*p.out_dtype), "norm: output");
      } else {
        MergeType(&(*out)[0], (*in)[0], "norm: output");
        MergeType(&(*in)[0], (*out)[0], "norm: input");
      }
      if ((*in)[0] == static_cast<int>(DType::kBool))
        MX_THROW(absl::StatusCode::kInvalidArgument, "norm: dtype bool is not supported");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, NormKernel(false))
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, NormKernel(true))
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
      // ord 2: g * x / norm (NaN where the norm is 0, as MXNet); ord 1: g * sign(x).
      GradValue g = Bcast(b, a, og[0], in[0]);
      if (a.get<NormParam>().ord == 1) return Grads{b.Mul(g, b.Call("_reduce_sign", {in[0]}))};
      return Grads{b.Div(b.Mul(g, in[0]), Bcast(b, a, out[0], in[0]))};
    });

// ---- argmax / argmin / argmax_channel ----
// Index of the first maximum (minimum); the first NaN wins if there is one (MXNet's behaviour).
// The result has the input's dtype (MXNet 1.x).
template <bool kMax, typename T>
void ArgReduce(const T* x, T* y, int64_t outer, int64_t n, int64_t inner) {
  ParallelFor(
      outer * inner,
      [&](int64_t oi) {
        int64_t o = oi / inner, i = oi % inner;
        const T* p = x + o * n * inner + i;
        int64_t best = 0;
        auto bv = static_cast<AccType<T>>(p[0]);
        if (!IsNan(bv)) {
          for (int64_t j = 1; j < n; ++j) {
            auto v = static_cast<AccType<T>>(p[j * inner]);
            if (IsNan(v)) {
              best = j;
              break;
            }
            if (kMax ? v > bv : v < bv) bv = v, best = j;
          }
        }
        y[oi] = Cast<T>(best);
      },
      4096);
}

struct ArgSpec {
  std::optional<int> axis;
  bool keepdims;
};
ArgSpec ArgSpecOf(const OpAttrs& a) {
  if (!a.op()->schema) return {1, false};  // argmax_channel: axis 1
  const auto& p = a.get<ReduceAxisParam>();
  return {p.axis, p.keepdims};
}

void ArgReduceShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return;
  ArgSpec sp = ArgSpecOf(attrs);
  std::string_view op = OpName(attrs);
  Shape o;
  if (!sp.axis) {
    o = sp.keepdims ? Shape::Filled(s.ndim(), 1) : Shape{1};
    if (s.is_known() && s.Size() == 0)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": cannot search an empty array of shape ",
               s.ToString());
  } else {
    int ax = CheckAxis(op, *sp.axis, s);
    if (s.is_known() && s[ax] == 0 && s.ProdRange(0, ax) * s.ProdRange(ax + 1, s.ndim()) > 0)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": cannot search along axis ", ax,
               " of size 0 (input shape ", s.ToString(), ")");
    for (int i = 0; i < s.ndim(); ++i) {
      if (i != ax)
        o.push_back(s[i]);
      else if (sp.keepdims)
        o.push_back(1);
    }
    if (o.ndim() == 0) o.push_back(1);
  }
  MergeShape(&(*out)[0], o, StrCat(op, ": output"));
}

template <bool kMax>
void ArgReduceKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  ArgSpec sp = ArgSpecOf(attrs);
  const Shape& s = in[0].shape();
  int64_t outer = 1, n = s.Size(), inner = 1;
  if (sp.axis) {
    AxisSplit sp2 = SplitAt(s, CheckAxis(OpName(attrs), *sp.axis, s));
    outer = sp2.outer, n = sp2.n, inner = sp2.inner;
  }
  if (outer * inner == 0) return;
  MX_NUMERIC_TYPE_SWITCH(in[0].dtype(), T, OpName(attrs), {
    ArgReduce<kMax>(static_cast<const T*>(in[0].data_ptr()), static_cast<T*>(out[0].data_ptr()),
                    outer, n, inner);
  });
}

// Gradient of the index-valued ops: zero (MXNet registers MakeZeroGradNodes).
Grads ZeroGrad(GradBuilder& b, const OpAttrs&, GV in, GV, GV) { return Grads{b.ZerosLike(in[0])}; }

MX_REGISTER_OP(argmax)
    .describe("Indices of the maximum values along an axis (first occurrence; dtype of the input).")
    .set_params<ReduceAxisParam>()
    .set_infer_shape(ArgReduceShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ArgReduceKernel<true>)
    .set_gradient(ZeroGrad, true, false);

MX_REGISTER_OP(argmin)
    .describe("Indices of the minimum values along an axis (first occurrence; dtype of the input).")
    .set_params<ReduceAxisParam>()
    .set_infer_shape(ArgReduceShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ArgReduceKernel<false>)
    .set_gradient(ZeroGrad, true, false);

MX_REGISTER_OP(argmax_channel)
    .describe("argmax along axis 1 (MXNet's legacy argmax_channel).")
    .set_infer_shape(ArgReduceShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ArgReduceKernel<true>)
    .set_non_differentiable();

// ---- Helper ops the gradients are composed of. ----

// Broadcasts a reduced array (data) back to like's shape and dtype; with normalize, divides by the
// number of reduced elements. The adjoint of sum (mean).
void ReduceBcastShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape& like = (*in)[1];
  if (!like.ndim_known()) return;
  AxesSpec sp = SpecOf(attrs);
  std::vector<char> red = ResolveReduceAxes("_reduce_bcast", like, sp.axis, sp.exclude);
  MergeShape(&(*in)[0], ReducedShape(like, red, sp.keepdims),
             "_reduce_bcast: data (the reduced array)");
  MergeShape(&(*out)[0], like, "_reduce_bcast: output");
}

void ReduceBcastKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  AxesSpec sp = SpecOf(attrs);
  bool normalize = attrs.get<ReduceBroadcastParam>().normalize;
  const Shape& s = out[0].shape();
  std::vector<char> red = ResolveReduceAxes("_reduce_bcast", s, sp.axis, sp.exclude);
  Geom g = MakeGeom(s, red);
  // Source stride (in the reduced array) of each output axis; 0 along reduced axes.
  int nd = s.ndim();
  std::vector<int64_t> src_stride(nd, 0);
  int64_t st = 1;
  for (int i = nd - 1; i >= 0; --i)
    if (!red[i]) src_stride[i] = st, st *= s[i];
  std::vector<int64_t> dims(s.begin(), s.end());
  int64_t n = out[0].size();
  std::vector<double> src = in[0].ToVector<double>();
  MX_NUMERIC_TYPE_SWITCH(out[0].dtype(), T, "_reduce_bcast", {
    T* y = static_cast<T*>(out[0].data_ptr());
    ParallelForRange(n, 16384, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        using C = AccType<T>;
        C v = Cast<C>(src[Offset(i, dims, src_stride)]);
        y[i] = Cast<T>(normalize ? v / Cast<C>(g.R) : v);
      }
    });
  });
}

MX_REGISTER_OP(_reduce_bcast)
    .describe(
        "Broadcasts a reduced array back to the shape/dtype of `like` (gradient of sum/mean).")
    .set_params<ReduceBroadcastParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "like"})
    .set_infer_shape(ReduceBcastShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_reduce_bcast: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ReduceBcastKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          const auto& p = a.get<ReduceBroadcastParam>();
          GradValue g = b.CallP(p.normalize ? "mean" : "sum", {og[0]}, AxesParamOf(a));
          return Grads{g, b.ZerosLike(in[1])};
        },
        true, false);

// 1 where data equals the broadcast reduction result `out`, else 0 (max/min gradient mask).
MX_REGISTER_OP(_reduce_extremum_mask)
    .describe("1 where data equals the broadcast max/min result, else 0.")
    .set_params<ReduceAxesParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "out"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& s = (*in)[0];
      if (s.ndim_known()) {
        AxesSpec sp = SpecOf(a);
        std::vector<char> red = ResolveReduceAxes("_reduce_extremum_mask", s, sp.axis, sp.exclude);
        MergeShape(&(*in)[1], ReducedShape(s, red, sp.keepdims), "_reduce_extremum_mask: out");
      }
      MergeShape(&(*out)[0], s, "_reduce_extremum_mask: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  AxesSpec sp = SpecOf(attrs);
                  const Shape& s = in[0].shape();
                  std::vector<char> red =
                      ResolveReduceAxes("_reduce_extremum_mask", s, sp.axis, sp.exclude);
                  int nd = s.ndim();
                  std::vector<int64_t> src_stride(nd, 0), dims(s.begin(), s.end());
                  int64_t st = 1;
                  for (int i = nd - 1; i >= 0; --i)
                    if (!red[i]) src_stride[i] = st, st *= s[i];
                  MX_DTYPE_SWITCH(in[0].dtype(), T, {
                    const T* x = static_cast<const T*>(in[0].data_ptr());
                    const T* r = static_cast<const T*>(in[1].data_ptr());
                    T* y = static_cast<T*>(out[0].data_ptr());
                    ParallelFor(in[0].size(), [&](int64_t i) {
                      bool eq = Cast<double>(x[i]) == Cast<double>(r[Offset(i, dims, src_stride)]);
                      y[i] = Cast<T>(eq ? 1 : 0);
                    });
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV, GV) {
          return Grads{b.ZerosLike(in[0]), b.ZerosLike(in[1])};
        },
        true, false);

template <typename F>
FCompute UnaryHelper(const char* name, F f) {
  return [name, f](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
    MX_NUMERIC_TYPE_SWITCH(in[0].dtype(), T, name, {
      const T* x = static_cast<const T*>(in[0].data_ptr());
      T* y = static_cast<T*>(out[0].data_ptr());
      ParallelForRange(in[0].size(), 32768, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) y[i] = Cast<T>(f(Cast<double>(x[i])));
      });
    });
  };
}

MX_REGISTER_OP(_reduce_notnan)
    .describe("1 where the input is not NaN, else 0 (gradient of nansum/nanprod).")
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                UnaryHelper("_reduce_notnan", [](double v) { return std::isnan(v) ? 0.0 : 1.0; }))
    .set_gradient(ZeroGrad, true, false);

MX_REGISTER_OP(_reduce_nan_to_one)
    .describe("The input with NaN replaced by 1 (gradient of nanprod).")
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                UnaryHelper("_reduce_nan_to_one", [](double v) { return std::isnan(v) ? 1.0 : v; }))
    .set_gradient([](GradBuilder& b, const OpAttrs&, GV in, GV,
                     GV og) { return Grads{b.Mul(og[0], b.Call("_reduce_notnan", {in[0]}))}; },
                  true, false);

MX_REGISTER_OP(_reduce_sign)
    .describe("Sign of the input: -1, 0 or 1 (gradient of the L1 norm).")
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                UnaryHelper("_reduce_sign",
                            [](double v) { return v > 0   ? 1.0
                                                  : v < 0 ? -1.0
                                                          : 0.0; }))
    .set_gradient(ZeroGrad, true, false);

}  // namespace
}  // namespace mxnet::ops
