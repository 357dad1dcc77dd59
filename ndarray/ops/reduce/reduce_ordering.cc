// Ordering ops with MXNet 1.9.1's names and attributes: topk, sort, argsort; plus the
// _take_along_axis / _scatter_add_along_axis pair their gradients are composed of.
//
// Order: a stable sort -- equal values keep their index order (MXNet's CPU kernel uses std::sort,
// which agrees for short rows; for long rows with ties MXNet's order is unspecified). NaN sorts
// as larger than every number (last ascending, first descending).
// topk's ret_typ: "indices" (default, dtype attribute), "value", "mask" (input dtype, 1 at the
// selected positions) or "both" (values, indices). "value" and sort carry a hidden int64 indices
// output for the gradient (as MXNet's FNumVisibleOutputs does).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/reduce/reduce_api.h"
#include "ndarray/ops/reduce/reduce_params.h"

namespace mxnet::ops {
namespace {
using namespace reduce_internal;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

// What one ordering call does, derived from its attributes and the input shape.
struct SortSpec {
  std::optional<int> axis;  // normalized; nullopt: flattened
  int64_t k = 0;            // elements kept per row (-1: unknown yet)
  bool ascend = true;
  enum Ret { kIndices, kValue, kMask, kBoth } ret = kValue;
  DType idx_dtype = DType::kInt64;
  bool hidden_indices = false;  // value/sort: a hidden int64 indices output
};

SortSpec SpecOf(const OpAttrs& attrs, const Shape& s) {
  std::string_view op = OpName(attrs);
  SortSpec sp;
  std::optional<int> axis;
  int64_t k = 0;
  if (attrs.op()->schema == &SchemaOf<TopKParam>()) {
    const auto& p = attrs.get<TopKParam>();
    axis = p.axis, k = p.k, sp.ascend = p.is_ascend, sp.idx_dtype = p.dtype;
    sp.ret = p.ret_typ == "indices" ? SortSpec::kIndices
             : p.ret_typ == "mask"  ? SortSpec::kMask
             : p.ret_typ == "both"  ? SortSpec::kBoth
                                    : SortSpec::kValue;
    sp.hidden_indices = sp.ret == SortSpec::kValue;
  } else if (attrs.op()->schema == &SchemaOf<ArgSortParam>()) {
    const auto& p = attrs.get<ArgSortParam>();
    axis = p.axis, sp.ascend = p.is_ascend, sp.idx_dtype = p.dtype, sp.ret = SortSpec::kIndices;
  } else {
    const auto& p = attrs.get<SortParam>();
    axis = p.axis, sp.ascend = p.is_ascend, sp.ret = SortSpec::kValue, sp.hidden_indices = true;
  }
  if (axis && s.ndim_known()) sp.axis = CheckAxis(op, *axis, s);
  if (!s.ndim_known()) return sp;
  int64_t n = sp.axis ? s[*sp.axis] : s.Size();
  if (n < 0) {  // unknown length: the output length is k if given
    sp.k = k >= 1 ? k : -1;
    return sp;
  }
  if (k < 1) k = n;  // k < 1: the whole axis (MXNet)
  if (k > n)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": k=", k, " is larger than the ",
             sp.axis ? StrCat("size ", n, " of axis ", *sp.axis) : StrCat(n, " elements"),
             " of input shape ", s.ToString());
  sp.k = k;
  return sp;
}

int NumOutputs(const OpAttrs& attrs) {
  if (attrs.op()->schema == &SchemaOf<TopKParam>()) {
    const auto& r = attrs.get<TopKParam>().ret_typ;
    return r == "value" || r == "both" ? 2 : 1;
  }
  return attrs.op()->schema == &SchemaOf<SortParam>() ? 2 : 1;
}
int NumVisible(const OpAttrs& attrs) {
  if (attrs.op()->schema == &SchemaOf<TopKParam>())
    return attrs.get<TopKParam>().ret_typ == "both" ? 2 : 1;
  return 1;
}

void SortShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return;
  SortSpec sp = SpecOf(attrs, s);
  Shape o;
  if (sp.ret == SortSpec::kMask) {
    o = s;
  } else if (sp.axis) {
    o = s;
    o[*sp.axis] = sp.k;
  } else {
    o = Shape{sp.k};
  }
  for (auto& x : *out) MergeShape(&x, o, StrCat(OpName(attrs), ": output"));
}

void SortType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  SortSpec sp = SpecOf(attrs, Shape::Unknown());
  int data = (*in)[0];
  std::string what = StrCat(OpName(attrs), ": output");
  switch (sp.ret) {
    case SortSpec::kIndices:
      MergeType(&(*out)[0], static_cast<int>(sp.idx_dtype), what);
      break;
    case SortSpec::kMask:
      MergeType(&(*out)[0], data, what);
      break;
    case SortSpec::kBoth:
      MergeType(&(*out)[0], data, what);
      MergeType(&(*out)[1], static_cast<int>(sp.idx_dtype), what);
      break;
    case SortSpec::kValue:
      MergeType(&(*out)[0], data, what);
      MergeType(&(*out)[1], static_cast<int>(DType::kInt64), what);
      break;
  }
}

// NaN-aware strict order on values: NaN is larger than every number, NaNs are equivalent.
template <typename A>
inline bool Less(A a, A b) {
  if constexpr (std::is_floating_point_v<A>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// Sorts one row: fills idx[0..k) with the positions of the k first elements in the order.
template <typename A>
void OrderRow(const std::vector<A>& v, std::vector<int64_t>* idx, int64_t k, bool ascend,
              bool optimized) {
  int64_t n = static_cast<int64_t>(v.size());
  idx->resize(n);
  std::iota(idx->begin(), idx->end(), int64_t{0});
  if (!optimized) {  // reference: stable full sort on the value order alone
    std::stable_sort(idx->begin(), idx->end(), [&](int64_t i, int64_t j) {
      return ascend ? Less(v[i], v[j]) : Less(v[j], v[i]);
    });
    return;
  }
  // Ties broken by index: a strict total order, so partial sorting gives the stable result.
  // (value, index) pairs keep the comparisons on contiguous memory.
  std::vector<std::pair<A, int64_t>> kv(n);
  for (int64_t j = 0; j < n; ++j) kv[j] = {v[j], j};
  auto cmp = [ascend](const std::pair<A, int64_t>& a, const std::pair<A, int64_t>& b) {
    if (ascend ? Less(a.first, b.first) : Less(b.first, a.first)) return true;
    if (ascend ? Less(b.first, a.first) : Less(a.first, b.first)) return false;
    return a.second < b.second;
  };
  if (k * 8 <= n)
    std::partial_sort(kv.begin(), kv.begin() + k, kv.end(), cmp);
  else
    std::sort(kv.begin(), kv.end(), cmp);
  for (int64_t j = 0; j < k; ++j) (*idx)[j] = kv[j].second;
}

template <typename T>
void SortKernelT(const SortSpec& sp, const NDArray& x, std::span<const NDArray> out,
                 bool optimized) {
  using A = AccType<T>;
  const Shape& s = x.shape();
  int64_t outer = 1, n = s.Size(), inner = 1;
  if (sp.axis) {
    AxisSplit a = SplitAt(s, *sp.axis);
    outer = a.outer, n = a.n, inner = a.inner;
  }
  int64_t k = sp.k, rows = outer * inner;
  const T* px = static_cast<const T*>(x.data_ptr());
  bool want_values = sp.ret == SortSpec::kValue || sp.ret == SortSpec::kBoth;
  bool want_idx = sp.ret != SortSpec::kMask;
  T* values = want_values ? static_cast<T*>(out[0].data_ptr()) : nullptr;
  std::vector<int64_t> idx_out(want_idx ? rows * k : 0);
  T* mask = nullptr;
  if (sp.ret == SortSpec::kMask) {
    out[0].Fill(0);
    mask = static_cast<T*>(out[0].data_ptr());
  }
  auto row_fn = [&](int64_t b, int64_t e) {
    std::vector<A> v(n);
    std::vector<int64_t> idx;
    for (int64_t r = b; r < e; ++r) {
      int64_t o = r / inner, i = r % inner;
      const T* base = px + o * n * inner + i;
      for (int64_t j = 0; j < n; ++j) v[j] = static_cast<A>(base[j * inner]);
      OrderRow(v, &idx, k, sp.ascend, optimized);
      for (int64_t j = 0; j < k; ++j) {
        int64_t pos = (o * k + j) * inner + i;
        if (values) values[pos] = base[idx[j] * inner];
        if (want_idx) idx_out[pos] = idx[j];
        if (mask) mask[(o * n + idx[j]) * inner + i] = static_cast<T>(1.0f);
      }
    }
  };
  if (optimized)
    ParallelForRange(rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(1, n)), row_fn);
  else
    row_fn(0, rows);
  if (!want_idx) return;
  const NDArray& io = sp.ret == SortSpec::kIndices ? out[0] : out[1];
  ConvertElements(idx_out.data(), DType::kInt64, io.data_ptr(), io.dtype(), idx_out.size());
}

FCompute SortKernel(bool optimized) {
  return [optimized](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
    SortSpec sp = SpecOf(attrs, in[0].shape());
    MX_NUMERIC_TYPE_SWITCH(in[0].dtype(), T, OpName(attrs),
                           { SortKernelT<T>(sp, in[0], out, optimized); });
  };
}

// Gradient of the value outputs: scatter the output gradient back to the selected positions.
Grads ValueGrad(GradBuilder& b, const OpAttrs& attrs, GV in, GV out, GV og) {
  AlongAxisParam p;
  if (attrs.op()->schema == &SchemaOf<TopKParam>())
    p.axis = attrs.get<TopKParam>().axis;
  else
    p.axis = attrs.get<SortParam>().axis;
  return Grads{b.CallP("_scatter_add_along_axis", {og[0], out[1], in[0]}, p)};
}

MX_REGISTER_OP(topk)
    .describe("The top k elements (or their indices, or a mask) along an axis.")
    .add_alias("_npx_topk")
    .set_params<TopKParam>()
    .set_num_outputs(NumOutputs)
    .set_num_visible_outputs(NumVisible)
    .set_infer_shape(SortShape)
    .set_infer_type(SortType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SortKernel(false))
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, SortKernel(true))
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
      const std::string& r = a.get<TopKParam>().ret_typ;
      if (r == "value" || r == "both") return ValueGrad(b, a, in, out, og);
      return Grads{b.ZerosLike(in[0])};  // indices / mask: zero gradient (MXNet)
    });

MX_REGISTER_OP(sort)
    .describe("Sorted copy of the input along an axis.")
    .add_alias("_npi_sort")
    .set_params<SortParam>()
    .set_num_outputs(2)
    .set_num_visible_outputs([](const OpAttrs&) { return 1; })
    .set_infer_shape(SortShape)
    .set_infer_type(SortType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SortKernel(false))
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, SortKernel(true))
    .set_gradient(ValueGrad);

MX_REGISTER_OP(argsort)
    .describe("Indices that sort the input along an axis.")
    .add_alias("_npi_argsort")
    .set_params<ArgSortParam>()
    .set_infer_shape(SortShape)
    .set_infer_type(SortType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SortKernel(false))
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, SortKernel(true))
    .set_gradient([](GradBuilder& b, const OpAttrs&, GV in, GV,
                     GV) { return Grads{b.ZerosLike(in[0])}; },
                  true, false);

// ---- _take_along_axis / _scatter_add_along_axis ----
// idx has data's shape except along `axis` (any length there); axis None: both flattened.
struct AlongGeom {
  int64_t outer = 1, n = 1, m = 1, inner = 1;  // data (outer, n, inner), idx (outer, m, inner)
};

AlongGeom AlongOf(std::string_view op, const std::optional<int>& axis, const Shape& data,
                  const Shape& idx) {
  AlongGeom g;
  if (!axis) {
    if (idx.ndim() != 1)
      MX_THROW(absl::StatusCode::kInvalidArgument, op,
               ": with axis=None the indices must be 1-D, got ", idx.ToString());
    g.n = data.Size(), g.m = idx[0];
    return g;
  }
  int ax = CheckAxis(op, *axis, data);
  bool ok = idx.ndim() == data.ndim();
  for (int i = 0; ok && i < data.ndim(); ++i)
    ok = i == ax || idx[i] == data[i] || idx[i] < 0 || data[i] < 0;
  if (!ok)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": indices shape ", idx.ToString(),
             " must match data shape ", data.ToString(), " except along axis ", ax);
  g.outer = data.ProdRange(0, ax), g.n = data[ax], g.m = idx[ax],
  g.inner = data.ProdRange(ax + 1, data.ndim());
  return g;
}

inline int64_t ResolveAlong(std::string_view op, int64_t v, int64_t n) {
  int64_t r = v < 0 ? v + n : v;
  if (r < 0 || r >= n)
    MX_THROW(absl::StatusCode::kOutOfRange, op, ": index ", v,
             " is out of range for an axis of size ", n);
  return r;
}

MX_REGISTER_OP(_take_along_axis)
    .describe("out[..., j, ...] = data[..., idx[..., j, ...], ...] along `axis`.")
    .set_params<AlongAxisParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "indices"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      if ((*in)[0].is_known() && (*in)[1].is_known())
        AlongOf("_take_along_axis", a.get<AlongAxisParam>().axis, (*in)[0], (*in)[1]);
      MergeShape(&(*out)[0], (*in)[1], "_take_along_axis: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "_take_along_axis: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  AlongGeom g = AlongOf("_take_along_axis", a.get<AlongAxisParam>().axis,
                                        in[0].shape(), in[1].shape());
                  std::vector<int64_t> idx = ReadIndices(in[1]);
                  size_t es = DTypeSize(in[0].dtype());
                  const char* x = static_cast<const char*>(in[0].data_ptr());
                  char* y = static_cast<char*>(out[0].data_ptr());
                  for (int64_t o = 0; o < g.outer; ++o)
                    for (int64_t j = 0; j < g.m; ++j)
                      for (int64_t i = 0; i < g.inner; ++i) {
                        int64_t pos = (o * g.m + j) * g.inner + i;
                        int64_t src =
                            (o * g.n + ResolveAlong("_take_along_axis", idx[pos], g.n)) * g.inner +
                            i;
                        std::memcpy(y + pos * es, x + src * es, es);
                      }
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{
              b.CallP("_scatter_add_along_axis", {og[0], in[1], in[0]}, a.get<AlongAxisParam>()),
              b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(_scatter_add_along_axis)
    .describe(
        "zeros(like.shape); out[..., idx[..., j, ...], ...] += data[..., j, ...] along `axis`.")
    .set_params<AlongAxisParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"data", "indices", "like"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*in)[0], (*in)[1], "_scatter_add_along_axis: data (must match indices)");
      MergeShape(&(*in)[1], (*in)[0], "_scatter_add_along_axis: indices (must match data)");
      if ((*in)[2].is_known() && (*in)[1].is_known())
        AlongOf("_scatter_add_along_axis", a.get<AlongAxisParam>().axis, (*in)[2], (*in)[1]);
      MergeShape(&(*out)[0], (*in)[2], "_scatter_add_along_axis: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "_scatter_add_along_axis: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  AlongGeom g = AlongOf("_scatter_add_along_axis", a.get<AlongAxisParam>().axis,
                                        out[0].shape(), in[1].shape());
                  std::vector<int64_t> idx = ReadIndices(in[1]);
                  out[0].Fill(0);
                  MX_NUMERIC_TYPE_SWITCH(in[0].dtype(), T, "_scatter_add_along_axis", {
                    const T* x = static_cast<const T*>(in[0].data_ptr());
                    T* y = static_cast<T*>(out[0].data_ptr());
                    for (int64_t o = 0; o < g.outer; ++o)
                      for (int64_t j = 0; j < g.m; ++j)
                        for (int64_t i = 0; i < g.inner; ++i) {
                          int64_t pos = (o * g.m + j) * g.inner + i;
                          int64_t dst =
                              (o * g.n + ResolveAlong("_scatter_add_along_axis", idx[pos], g.n)) *
                                  g.inner +
                              i;
                          y[dst] = static_cast<T>(static_cast<AccType<T>>(y[dst]) +
                                                  static_cast<AccType<T>>(x[pos]));
                        }
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.CallP("_take_along_axis", {og[0], in[1]}, a.get<AlongAxisParam>()),
                       b.ZerosLike(in[1]), b.ZerosLike(in[2])};
        },
        true, false);

}  // namespace
}  // namespace mxnet::ops
