// MXNet 1.9.1's internal index/count ops (names, attributes and semantics of
// src/operator/tensor/ravel.cc, histogram.cc, indexing_op.cc, square_sum.cc and the legacy
// ndarray function _onehot_encode):
//   _ravel_multi_index (ravel_multi_index): data (M, N) of multi-indices into `shape` (M dims)
//     -> (N,) flat indices, data's dtype; out = sum_m idx[m] * stride[m] with indices truncated
//     to integers and not range-checked (like MXNet). Zero gradient.
//   _unravel_index (unravel_index): data (N,) flat indices -> (M, N); for m = M-1..1
//     out[m] = i % shape[m], i /= shape[m] (C remainders), out[0] = the rest. Zero gradient.
//   _histogram (_npi_histogram): (counts int64 (B,), edges (B+1,) data's dtype) of the
//     flattened data; bin_cnt + range: B uniform bins over [lo, hi] (lo == hi widens to
//     lo-0.5..hi+0.5); else input `bins` (B+1,) edges of data's dtype. Values outside the edges
//     and NaN are ignored; the last bin includes its right edge. Not differentiable.
//   _onehot_encode: index (N,), proptype (N, K) float32 -> (N, K) float32 with
//     out[i, int(index[i])] = 1 (indices outside [0, K) give a zero row). Not differentiable.
//   _scatter_set_nd (_npi_scatter_set_nd): lhs (shape), rhs values, indices (M, Y...) -> lhs with
//     the index tuples' blocks set from rhs (like scatter_nd, starting from lhs instead of
//     zeros; negative indices count from the end, others out of range are kOutOfRange).
//     Not differentiable.
//   _square_sum: sum(data * data) over axis/keepdims/exclude like sum (MXNet implements it only
//     for row_sparse data; dense here). Gradient 2 * data * ograd (broadcast).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ndarray/grad.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/reduce/reduce_index_api.h"
#include "ndarray/ops/reduce/reduce_params.h"

namespace mxnet::ops {
namespace {
using namespace reduce_internal;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

// ---- ravel / unravel ----
const Shape& RavelShapeOf(const OpAttrs& attrs, std::string_view what) {
  const auto& s = attrs.get<RavelParam>().shape;
  if (!s || s->ndim() <= 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, OpName(attrs), ": empty shape parameter for ",
             what, " (give shape=(d0, d1, ...))");
  return *s;
}

// Reads data as int64 (truncating), applies f(flat index list) and writes out in out's dtype.
template <typename F>
void WithIndices(const NDArray& in, const NDArray& out, F&& f) {
  std::vector<int64_t> v = ReadIndices(in);
  std::vector<int64_t> r = f(v);
  MX_DTYPE_SWITCH(out.dtype(), T, {
    T* y = static_cast<T*>(out.data_ptr());
    for (size_t i = 0; i < r.size(); ++i) y[i] = static_cast<T>(r[i]);
  });
}

MX_REGISTER_OP(_ravel_multi_index)
    .describe(
        "Flat indices (N,) of multi-indices data (M, N) into an array of `shape` (M dims); "
        "data's dtype, no range check.")
    .add_alias("ravel_multi_index")
    .set_params<RavelParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& shape = RavelShapeOf(a, "ravel");
      const Shape& d = (*in)[0];
      if (!d.ndim_known()) return;
      if (d.ndim() != 2)
        MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a),
                 ": data must be 2-D (M, N), got shape ", d.ToString());
      if (d[0] >= 0 && d[0] != shape.ndim())
        MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a), ": data.shape[0]=", d[0],
                 " does not match the ", shape.ndim(), " dimensions of shape ", shape.ToString());
      MergeShape(&(*out)[0], Shape{d[1]}, StrCat(OpName(a), ": output"));
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& shape = RavelShapeOf(a, "ravel");
                  int64_t M = shape.ndim(), N = in[0].shape()[1];
                  WithIndices(in[0], out[0], [&](const std::vector<int64_t>& v) {
                    std::vector<int64_t> r(N, 0);
                    for (int64_t j = 0; j < N; ++j)
                      for (int64_t m = 0; m < M; ++m) r[j] = r[j] * shape[m] + v[m * N + j];
                    return r;
                  });
                })
    .set_gradient(ZeroGrads, false, false);

MX_REGISTER_OP(_unravel_index)
    .describe("Multi-indices (M, N) into an array of `shape` (M dims) of flat indices data (N,).")
    .add_alias("unravel_index")
    .set_params<RavelParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& shape = RavelShapeOf(a, "unravel");
      const Shape& d = (*in)[0];
      if (!d.ndim_known()) return;
      // MXNet 1.9.1 returns unspecified values for data of more than N elements in N rows.
      if (d.ndim() < 1 || (d.is_known() && d.Size() != d[0]))
        MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a),
                 ": data must be a 1-D array of flat indices (N,), got shape ", d.ToString());
      MergeShape(&(*out)[0], Shape{shape.ndim(), d[0]}, StrCat(OpName(a), ": output"));
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& shape = RavelShapeOf(a, "unravel");
                  int64_t M = shape.ndim(), N = in[0].size();
                  WithIndices(in[0], out[0], [&](const std::vector<int64_t>& v) {
                    std::vector<int64_t> r(M * N, 0);
                    for (int64_t j = 0; j < N; ++j) {
                      int64_t i = v[j];
                      for (int64_t m = M - 1; m > 0; --m) {
                        int64_t d = shape[static_cast<int>(m)];
                        r[m * N + j] = d == 0 ? 0 : i % d;
                        i = d == 0 ? 0 : i / d;
                      }
                      r[j] = i;
                    }
                    return r;
                  });
                })
    .set_gradient(ZeroGrads, false, false);

// ---- histogram ----
int NumBins(const OpAttrs& a, const Shape& bins) {
  const auto& p = a.get<HistogramParam>();
  if (p.bin_cnt) return *p.bin_cnt;
  return bins.ndim_known() && bins[0] >= 0 ? static_cast<int>(bins[0]) - 1 : -1;
}

void HistogramKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  const auto& p = a.get<HistogramParam>();
  const NDArray& x = in[0];
  int64_t* counts = static_cast<int64_t*>(out[0].data_ptr());
  const int64_t B = out[0].size();
  std::fill(counts, counts + B, 0);
  MX_NUMERIC_TYPE_SWITCH(x.dtype(), T, OpName(a), {
    const T* xv = static_cast<const T*>(x.data_ptr());
    T* edges = static_cast<T*>(out[1].data_ptr());
    if (p.bin_cnt) {
      double lo = (*p.range)[0], hi = (*p.range)[1];
      if (lo == hi) lo -= 0.5, hi += 0.5;
      for (int64_t i = 0; i <= B; ++i) edges[i] = static_cast<T>(lo + i * (hi - lo) / B);
      for (int64_t i = 0; i < x.size(); ++i) {
        double v = static_cast<double>(xv[i]);
        if (!(v >= lo && v <= hi) || B == 0) continue;
        int64_t t =
            std::min<int64_t>(B - 1, static_cast<int64_t>(std::floor((v - lo) * B / (hi - lo))));
        if (v < static_cast<double>(edges[t])) --t;
        if (t < B - 1 && v >= static_cast<double>(edges[t + 1])) ++t;
        if (t >= 0) ++counts[t];
      }
    } else {
      const T* bv = static_cast<const T*>(in[1].data_ptr());
      std::memcpy(edges, bv, sizeof(T) * (B + 1));
      if (B <= 0) return;
      for (int64_t i = 0; i < x.size(); ++i) {
        double v = static_cast<double>(xv[i]);
        if (!(v >= static_cast<double>(bv[0]) && v <= static_cast<double>(bv[B]))) continue;
        int64_t t = 0;
        while (t < B && v >= static_cast<double>(bv[t + 1])) ++t;  // first edge above v, minus 1
        ++counts[std::min<int64_t>(t, B - 1)];
      }
    }
  });
}

MX_REGISTER_OP(_histogram)
    .describe(
        "(counts int64 (B,), bin edges (B+1,)) of data: B uniform bins over range (bin_cnt, "
        "range) or the edges of input `bins`; right-most edge inclusive, NaN ignored.")
    .add_alias("_npi_histogram")
    .set_params<HistogramParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<HistogramParam>().bin_cnt ? 1 : 2; })
    .set_input_names([](const OpAttrs& a) {
      return a.get<HistogramParam>().bin_cnt ? std::vector<std::string>{"data"}
                                             : std::vector<std::string>{"data", "bins"};
    })
    .set_num_outputs(2)
    .set_output_names(std::vector<std::string>{"counts", "bin_edges"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      Shape bins = in->size() > 1 ? (*in)[1] : Shape::Unknown();
      if (in->size() > 1 && bins.ndim_known() && bins.ndim() != 1)
        MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a),
                 ": bins must be a 1-D vector of edges, got shape ", bins.ToString());
      if (in->size() > 1 && bins.ndim_known() && bins[0] == 0)
        MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a), ": bins must have an edge");
      int B = NumBins(a, bins);
      if (B < 0) return;
      MergeShape(&(*out)[0], Shape{B}, StrCat(OpName(a), ": counts"));
      MergeShape(&(*out)[1], Shape{B + 1}, StrCat(OpName(a), ": bin_edges"));
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      if (in->size() > 1) {
        MergeType(&(*in)[1], (*in)[0], StrCat(OpName(a), ": bins (must have data's dtype)"));
        MergeType(&(*in)[0], (*in)[1], StrCat(OpName(a), ": data"));
      }
      MergeType(&(*out)[0], static_cast<int>(DType::kInt64), StrCat(OpName(a), ": counts"));
      MergeType(&(*out)[1], (*in)[0], StrCat(OpName(a), ": bin_edges"));
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, HistogramKernel)
    .set_non_differentiable();

// ---- _onehot_encode ----
MX_REGISTER_OP(_onehot_encode)
    .describe(
        "Rows of proptype's shape (N, K) float32 with a 1 at column int(index[i]) of row i "
        "(zero row when outside [0, K)). Deprecated in MXNet (use one_hot).")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"lhs", "rhs"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const Shape &i = (*in)[0], &p = (*in)[1];
      if ((i.ndim_known() && i.ndim() != 1) || (p.ndim_known() && p.ndim() != 2))
        MX_THROW(absl::StatusCode::kInvalidArgument,
                 "_onehot_encode: index must be 1-D and proptype 2-D, got ", i.ToString(), " and ",
                 p.ToString());
      if (i.ndim_known() && p.ndim_known() && i[0] >= 0 && p[0] >= 0 && i[0] != p[0])
        MX_THROW(absl::StatusCode::kInvalidArgument, "_onehot_encode: index length ", i[0],
                 " does not match proptype.shape[0] = ", p[0]);
      MergeShape(&(*out)[0], p, "_onehot_encode: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      if ((*in)[1] >= 0 && (*in)[1] != static_cast<int>(DType::kFloat32))
        MX_THROW(absl::StatusCode::kInvalidArgument,
                 "_onehot_encode: only float32 proptype/output is supported, got ",
                 DTypeName(static_cast<DType>((*in)[1])));
      MergeType(&(*out)[0], static_cast<int>(DType::kFloat32), "_onehot_encode: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::vector<int64_t> idx = ReadIndices(in[0]);
                  int64_t K = out[0].shape()[1];
                  float* y = static_cast<float*>(out[0].data_ptr());
                  std::fill(y, y + out[0].size(), 0.0f);
                  for (size_t i = 0; i < idx.size(); ++i)
                    if (idx[i] >= 0 && idx[i] < K) y[i * K + idx[i]] = 1.0f;
                })
    .set_non_differentiable();

// ---- _scatter_set_nd ----
// (count, block, offsets) of index tuples idx (M, Y...) into an array of `shape`.
struct SetNd {
  int64_t count = 1, block = 1;
  std::vector<int64_t> off;
};
SetNd SetNdOf(const Shape& shape, const Shape& idx) {
  if (idx.ndim() < 2 || idx[0] < 1 || idx[0] > shape.ndim())
    MX_THROW(absl::StatusCode::kInvalidArgument, "_scatter_set_nd: indices must be (M, ...) with ",
             "M in [1, ", shape.ndim(), "], got shape ", idx.ToString());
  SetNd g;
  g.count = idx.ProdRange(1, idx.ndim());
  g.block = shape.ProdRange(static_cast<int>(idx[0]), shape.ndim());
  return g;
}
Shape SetNdValueShape(const Shape& shape, const Shape& idx) {
  Shape o;
  for (int i = 1; i < idx.ndim(); ++i) o.push_back(idx[i]);
  for (int i = static_cast<int>(idx[0]); i < shape.ndim(); ++i) o.push_back(shape[i]);
  return o;
}

MX_REGISTER_OP(_scatter_set_nd)
    .describe(
        "lhs (shape) with the blocks at index tuples indices (M, Y...) set from rhs "
        "(Y...) + shape[M:] (duplicates: the last one wins).")
    .add_alias("_npi_scatter_set_nd")
    .set_params<ScatterNDParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"lhs", "rhs", "indices"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& shape = a.get<ScatterNDParam>().shape;
      MergeShape(&(*in)[0], shape, "_scatter_set_nd: lhs (must have `shape`)");
      const Shape& i = (*in)[2];
      if (i.is_known()) {
        SetNdOf(shape, i);
        MergeShape(&(*in)[1], SetNdValueShape(shape, i), "_scatter_set_nd: rhs");
      }
      MergeShape(&(*out)[0], shape, "_scatter_set_nd: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*in)[1], (*in)[0], "_scatter_set_nd: rhs");
      MergeType(&(*out)[0], (*in)[0], "_scatter_set_nd: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = out[0].shape();
                  SetNd g = SetNdOf(s, in[2].shape());
                  int64_t M = in[2].shape()[0];
                  std::vector<int64_t> v = ReadIndices(in[2]);
                  in[0].copyto(out[0]);
                  size_t es = DTypeSize(out[0].dtype()), bytes = g.block * es;
                  const char* x = static_cast<const char*>(in[1].data_ptr());
                  char* y = static_cast<char*>(out[0].data_ptr());
                  for (int64_t j = 0; j < g.count; ++j) {
                    int64_t off = 0;
                    for (int64_t m = 0; m < M; ++m) {
                      int64_t n = s[static_cast<int>(m)], idx = v[m * g.count + j];
                      int64_t r = idx < 0 ? idx + n : idx;
                      if (r < 0 || r >= n)
                        MX_THROW(absl::StatusCode::kOutOfRange, "_scatter_set_nd: index ", idx,
                                 " is out of bounds for axis ", m, " with size ", n);
                      off = off * n + r;
                    }
                    std::memcpy(y + off * bytes, x + j * bytes, bytes);
                  }
                })
    .set_non_differentiable();

// ---- _square_sum ----
MX_REGISTER_OP(_square_sum)
    .describe("sum(data * data) over axis (keepdims, exclude as in sum).")
    .set_params<ReduceAxesParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      OpRegistry::Get("sum").infer_shape(a, in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  NDArray sq(in[0].shape(), in[0].device(), in[0].dtype());
                  MX_NUMERIC_TYPE_SWITCH(in[0].dtype(), T, OpName(a), {
                    const T* x = static_cast<const T*>(in[0].data_ptr());
                    T* y = static_cast<T*>(sq.data_ptr());
                    for (int64_t i = 0; i < sq.size(); ++i) y[i] = static_cast<T>(x[i] * x[i]);
                  });
                  const FCompute* sum =
                      OpRegistry::Get("sum").FindKernel({DeviceType::kCPU, Backend::kReference});
                  std::vector<NDArray> sin = {sq};
                  (*sum)(ctx, a, sin, out);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          const auto& p = a.get<ReduceAxesParam>();
          ReduceBroadcastParam bp;
          bp.axis = p.axis;
          bp.keepdims = p.keepdims;
          bp.exclude = p.exclude;
          GradValue g = b.CallP("_reduce_bcast", {og[0], in[0]}, bp);
          return Grads{b.Mul(g, b.MulScalar(in[0], 2))};
        },
        true, false);

}  // namespace
}  // namespace mxnet::ops
