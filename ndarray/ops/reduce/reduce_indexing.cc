// Indexing ops with MXNet 1.9.1's names and semantics: take, pick, one_hot, Embedding, gather_nd,
// scatter_nd, batch_take; plus the scatter-add helpers their gradients are composed of
// (_take_backward, _pick_backward, _gather_nd_backward).
//
// Index inputs may have any dtype; floating indices are truncated toward zero (MXNet casts).
// take/pick/Embedding/batch_take: mode clip (default) clamps into [0, n-1] (so -1 -> 0), wrap
// takes Python's modulo, raise (take only) rejects anything outside [0, n-1] with kOutOfRange.
// gather_nd/scatter_nd: negative indices count from the end; anything else out of range is a
// kOutOfRange error.
#include <cstring>

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

enum class Mode { kClip, kWrap, kRaise };
Mode ModeOf(const std::string& m) {
  return m == "wrap" ? Mode::kWrap : m == "raise" ? Mode::kRaise : Mode::kClip;
}

// Resolves index `v` into [0, n) by `mode`; throws for raise (and when n == 0).
inline int64_t Resolve(std::string_view op, int64_t v, int64_t n, Mode mode, int axis) {
  if (n <= 0)
    MX_THROW(absl::StatusCode::kOutOfRange, op, ": cannot index axis ", axis, " of size 0");
  switch (mode) {
    case Mode::kClip:
      return v < 0 ? 0 : v >= n ? n - 1 : v;
    case Mode::kWrap: {
      int64_t r = v % n;
      return r < 0 ? r + n : r;
    }
    case Mode::kRaise:
      if (v < 0 || v >= n)
        MX_THROW(absl::StatusCode::kOutOfRange, op, ": index ", v, " is out of range for axis ",
                 axis, " of size ", n, " (mode='raise')");
      return v;
  }
  return v;
}

// Scatter-add of rows: out (outer, n, inner) += src (outer, m, inner) at rows idx[j] (resolved).
template <typename T>
void ScatterAddRows(const T* src, T* out, const std::vector<int64_t>& rows, int64_t outer,
                    int64_t n, int64_t inner) {
  int64_t m = static_cast<int64_t>(rows.size());
  // Parallel over the inner dimension keeps every destination element on one thread.
  ParallelForRange(inner, 4096, [&](int64_t ib, int64_t ie) {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < m; ++j) {
        const T* s = src + (o * m + j) * inner;
        T* d = out + (o * n + rows[j]) * inner;
        for (int64_t i = ib; i < ie; ++i)
          d[i] = static_cast<T>(static_cast<AccType<T>>(d[i]) + static_cast<AccType<T>>(s[i]));
      }
  });
}

// ---- take ----
Shape TakeOutShape(const Shape& a, const Shape& idx, int axis) {
  Shape o;
  for (int i = 0; i < axis; ++i) o.push_back(a[i]);
  for (int64_t d : idx) o.push_back(d);
  for (int i = axis + 1; i < a.ndim(); ++i) o.push_back(a[i]);
  return o;
}

std::vector<int64_t> ResolveAll(std::string_view op, const NDArray& idx, int64_t n, Mode mode,
                                int axis) {
  std::vector<int64_t> v = ReadIndices(idx);
  for (auto& x : v) x = Resolve(op, x, n, mode, axis);
  return v;
}

void TakeShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape &a = (*in)[0], &idx = (*in)[1];
  if (!a.ndim_known() || !idx.ndim_known()) return;
  if (a.ndim() == 0)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "take: the input must have at least one dimension");
  int axis = CheckAxis("take", attrs.get<TakeParam>().axis, a);
  MergeShape(&(*out)[0], TakeOutShape(a, idx, axis), "take: output");
}

void TakeKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<TakeParam>();
  const Shape& s = in[0].shape();
  int axis = CheckAxis("take", p.axis, s);
  AxisSplit g = SplitAt(s, axis);
  if (in[1].size() == 0 || out[0].size() == 0) return;
  std::vector<int64_t> rows = ResolveAll("take", in[1], g.n, ModeOf(p.mode), axis);
  int64_t m = static_cast<int64_t>(rows.size());
  size_t block = static_cast<size_t>(g.inner) * DTypeSize(in[0].dtype());
  const char* x = static_cast<const char*>(in[0].data_ptr());
  char* y = static_cast<char*>(out[0].data_ptr());
  ParallelFor(
      g.outer * m,
      [&](int64_t t) {
        int64_t o = t / m, j = t % m;
        std::memcpy(y + t * block, x + (o * g.n + rows[j]) * block, block);
      },
      std::max<int64_t>(1, 65536 / std::max<int64_t>(1, g.inner)));
}

MX_REGISTER_OP(take)
    .describe(
        "Elements of `a` at `indices` along an axis; output a.shape[:axis] + indices.shape + "
        "a.shape[axis+1:].")
    .add_alias("_npi_take")
    .set_params<TakeParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"a", "indices"})
    .set_infer_shape(TakeShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "take: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, TakeKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          // No gradient for the indices (MXNet refuses one).
          return Grads{b.CallP("_take_backward", {og[0], in[1], in[0]}, a.get<TakeParam>()),
                       GradValue{}};
        },
        true, false);

// zeros(like); scatter-adds og (take's output gradient) back to the taken rows.
void TakeBackwardKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                        std::span<const NDArray> out) {
  const auto& p = attrs.get<TakeParam>();
  const Shape& s = out[0].shape();
  int axis = CheckAxis("_take_backward", p.axis, s);
  AxisSplit g = SplitAt(s, axis);
  out[0].Fill(0);
  if (in[1].size() == 0 || out[0].size() == 0) return;
  std::vector<int64_t> rows = ResolveAll("_take_backward", in[1], g.n, ModeOf(p.mode), axis);
  MX_NUMERIC_TYPE_SWITCH(out[0].dtype(), T, "_take_backward", {
    ScatterAddRows(static_cast<const T*>(in[0].data_ptr()), static_cast<T*>(out[0].data_ptr()),
                   rows, g.outer, g.n, g.inner);
  });
}

MX_REGISTER_OP(_take_backward)
    .describe("Gradient of take: zeros of like's shape with og scatter-added at the indices.")
    .set_params<TakeParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"data", "indices", "like"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape &like = (*in)[2], &idx = (*in)[1];
      if (like.ndim_known() && idx.ndim_known()) {
        int axis = CheckAxis("_take_backward", attrs.get<TakeParam>().axis, like);
        MergeShape(&(*in)[0], TakeOutShape(like, idx, axis), "_take_backward: data");
      }
      MergeShape(&(*out)[0], like, "_take_backward: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "_take_backward: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, TakeBackwardKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.CallP("take", {og[0], in[1]}, a.get<TakeParam>()), GradValue{},
                       b.ZerosLike(in[2])};
        },
        true, false);

// ---- Embedding ----
void EmbeddingShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<EmbeddingParam>();
  MergeShape(&(*in)[1], Shape{p.input_dim, p.output_dim}, "Embedding: weight");
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return;
  Shape o = d;
  o.push_back(p.output_dim);
  MergeShape(&(*out)[0], o, "Embedding: output");
}

MX_REGISTER_OP(Embedding)
    .describe(
        "Maps integer indices to vector representations: weight[data] (indices clipped to "
        "[0, input_dim-1]); output data.shape + (output_dim,).")
    .add_alias("_npx_embedding")
    .add_alias("_sparse_Embedding")
    .add_alias("_contrib_SparseEmbedding")  // deprecated contrib name; dense storage
    .set_params<EmbeddingParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "weight"})
    .set_infer_shape(EmbeddingShape)
    .set_infer_type([](const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
      // The output has the weight's dtype; the dtype attribute is the weight's dtype if unknown.
      int w = (*in)[1] >= 0    ? (*in)[1]
              : (*out)[0] >= 0 ? (*out)[0]
                               : static_cast<int>(attrs.get<EmbeddingParam>().dtype);
      MergeType(&(*in)[1], w, "Embedding: weight");
      MergeType(&(*out)[0], w, "Embedding: output");
      if ((*in)[0] < 0) (*in)[0] = w;
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& w = in[1].shape();
                  int64_t n = w[0];
                  size_t block = static_cast<size_t>(w[1]) * DTypeSize(in[1].dtype());
                  if (in[0].size() == 0 || block == 0) return;
                  std::vector<int64_t> rows = ResolveAll("Embedding", in[0], n, Mode::kClip, 0);
                  const char* x = static_cast<const char*>(in[1].data_ptr());
                  char* y = static_cast<char*>(out[0].data_ptr());
                  ParallelFor(
                      static_cast<int64_t>(rows.size()),
                      [&](int64_t j) { std::memcpy(y + j * block, x + rows[j] * block, block); },
                      std::max<int64_t>(1, 65536 / std::max<int64_t>(1, w[1])));
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, GV in, GV, GV og) {
          // Weight: scatter-add of og rows; with sparse_grad row_sparse (the looked-up rows,
          // _backward_SparseEmbedding in reduce_sparse.cc). Data: no gradient (MXNet refuses one).
          const auto& e = attrs.get<EmbeddingParam>();
          if (e.sparse_grad)
            return Grads{GradValue{}, b.CallP("_backward_SparseEmbedding", {og[0], in[0]}, e)};
          TakeParam p;
          p.axis = 0;
          p.mode = "clip";
          return Grads{GradValue{}, b.CallP("_take_backward", {og[0], in[0], in[1]}, p)};
        },
        true, false);

// ---- pick ----
struct PickGeom {
  int axis;
  AxisSplit g;
};

PickGeom PickOf(const OpAttrs& attrs, const Shape& s) {
  const auto& p = attrs.get<PickParam>();
  if (!p.axis)
    MX_THROW(absl::StatusCode::kInvalidArgument, OpName(attrs),
             ": axis=None is not supported (MXNet's pick requires an axis)");
  if (s.ndim() == 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, OpName(attrs),
             ": the input must have at least one dimension");
  int axis = CheckAxis(OpName(attrs), *p.axis, s);
  return {axis, SplitAt(s, axis)};
}

Shape PickOutShape(const Shape& s, int axis, bool keepdims) {
  Shape o;
  for (int i = 0; i < s.ndim(); ++i) {
    if (i != axis)
      o.push_back(s[i]);
    else if (keepdims)
      o.push_back(1);
  }
  if (o.ndim() == 0) o.push_back(1);
  return o;
}

// index must have the output's shape, with or without the picked axis (MXNet accepts both).
void CheckPickIndex(std::string_view op, const Shape& s, int axis, const Shape& idx) {
  if (!s.is_known() || !idx.is_known()) return;
  Shape a = PickOutShape(s, axis, false), b = PickOutShape(s, axis, true);
  if (idx != a && idx != b)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": index shape ", idx.ToString(),
             " does not match data shape ", s.ToString(), " without axis ", axis, " (expected ",
             a.ToString(), " or ", b.ToString(), ")");
}

void PickKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const Shape& s = in[0].shape();
  PickGeom pg = PickOf(attrs, s);
  Mode mode = ModeOf(attrs.get<PickParam>().mode);
  std::vector<int64_t> idx = ReadIndices(in[1]);
  int64_t cnt = pg.g.outer * pg.g.inner;
  if (cnt == 0) return;
  for (auto& v : idx) v = Resolve("pick", v, pg.g.n, mode, pg.axis);
  size_t es = DTypeSize(in[0].dtype());
  const char* x = static_cast<const char*>(in[0].data_ptr());
  char* y = static_cast<char*>(out[0].data_ptr());
  ParallelFor(cnt, [&](int64_t t) {
    int64_t o = t / pg.g.inner, i = t % pg.g.inner;
    std::memcpy(y + t * es, x + ((o * pg.g.n + idx[t]) * pg.g.inner + i) * es, es);
  });
}

MX_REGISTER_OP(pick)
    .describe("Picks one element per position along an axis: out[i, j] = data[i, index[i, j], j].")
    .add_alias("choose_element_0index")
    .add_alias("_npx_pick")
    .set_params<PickParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "index"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& s = (*in)[0];
      if (!s.ndim_known()) return;
      PickGeom pg = PickOf(attrs, s);
      CheckPickIndex("pick", s, pg.axis, (*in)[1]);
      MergeShape(&(*out)[0], PickOutShape(s, pg.axis, attrs.get<PickParam>().keepdims),
                 "pick: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "pick: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, PickKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.CallP("_pick_backward", {og[0], in[1], in[0]}, a.get<PickParam>()),
                       b.ZerosLike(in[1])};  // index: zero gradient (MXNet)
        },
        true, false);

MX_REGISTER_OP(_pick_backward)
    .describe("Gradient of pick: zeros of like's shape with og added at the picked positions.")
    .set_params<PickParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"data", "index", "like"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& s = (*in)[2];
      if (s.ndim_known()) {
        PickGeom pg = PickOf(attrs, s);
        CheckPickIndex("_pick_backward", s, pg.axis, (*in)[1]);
        MergeShape(&(*in)[0], PickOutShape(s, pg.axis, attrs.get<PickParam>().keepdims),
                   "_pick_backward: data");
      }
      MergeShape(&(*out)[0], s, "_pick_backward: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "_pick_backward: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = out[0].shape();
                  PickGeom pg = PickOf(attrs, s);
                  Mode mode = ModeOf(attrs.get<PickParam>().mode);
                  out[0].Fill(0);
                  int64_t cnt = pg.g.outer * pg.g.inner;
                  if (cnt == 0) return;
                  std::vector<int64_t> idx = ReadIndices(in[1]);
                  MX_NUMERIC_TYPE_SWITCH(out[0].dtype(), T, "_pick_backward", {
                    const T* g = static_cast<const T*>(in[0].data_ptr());
                    T* y = static_cast<T*>(out[0].data_ptr());
                    ParallelFor(cnt, [&](int64_t t) {  // each t writes a distinct element
                      int64_t o = t / pg.g.inner, i = t % pg.g.inner;
                      int64_t r = Resolve("_pick_backward", idx[t], pg.g.n, mode, pg.axis);
                      y[(o * pg.g.n + r) * pg.g.inner + i] = g[t];
                    });
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.CallP("pick", {og[0], in[1]}, a.get<PickParam>()), b.ZerosLike(in[1]),
                       b.ZerosLike(in[2])};
        },
        true, false);

// ---- one_hot ----
MX_REGISTER_OP(one_hot)
    .describe(
        "One-hot encoding: output indices.shape + (depth,), on_value at the index, off_value "
        "elsewhere (out-of-range indices give an all-off row).")
    .add_alias("_npx_one_hot")
    .set_params<OneHotParam>()
    .set_input_names(std::vector<std::string>{"indices"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].ndim_known()) return;
      Shape o = (*in)[0];
      o.push_back(attrs.get<OneHotParam>().depth);
      MergeShape(&(*out)[0], o, "one_hot: output");
    })
    .set_infer_type([](const OpAttrs& attrs, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], static_cast<int>(attrs.get<OneHotParam>().dtype), "one_hot: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = attrs.get<OneHotParam>();
                  out[0].Fill(p.off_value);
                  std::vector<int64_t> idx = ReadIndices(in[0]);
                  int64_t depth = p.depth;
                  MX_DTYPE_SWITCH(out[0].dtype(), T, {
                    T* y = static_cast<T*>(out[0].data_ptr());
                    T on;
                    ConvertElements(&p.on_value, DType::kFloat64, &on, out[0].dtype(), 1);
                    for (size_t i = 0; i < idx.size(); ++i)
                      if (idx[i] >= 0 && idx[i] < depth) y[i * depth + idx[i]] = on;
                  });
                })
    .set_gradient([](GradBuilder& b, const OpAttrs&, GV in, GV,
                     GV) { return Grads{b.ZerosLike(in[0])}; },
                  true, false);

// ---- gather_nd / scatter_nd ----
struct NdGeom {
  int64_t M = 0;                       // index tuple length (indices.shape[0])
  int64_t count = 1;                   // number of tuples (prod(indices.shape[1:]))
  int64_t block = 1;                   // elements per tuple (prod(data.shape[M:]))
  std::vector<int64_t> dims, strides;  // data dims/strides of the first M axes
};

NdGeom NdOf(std::string_view op, const Shape& data, const Shape& idx) {
  if (idx.ndim() < 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, op,
             ": indices must have at least 2 dimensions "
             "(M, ...), got ",
             idx.ToString());
  NdGeom g;
  g.M = idx[0];
  if (g.M > data.ndim() || g.M < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": indices.shape[0]=", g.M, " must be in [1, ",
             data.ndim(), "] for data shape ", data.ToString());
  g.count = idx.ProdRange(1, idx.ndim());
  g.block = data.ProdRange(static_cast<int>(g.M), data.ndim());
  int64_t st = g.block;
  g.dims.resize(g.M);
  g.strides.resize(g.M);
  for (int i = static_cast<int>(g.M) - 1; i >= 0; --i)
    g.dims[i] = data[i], g.strides[i] = st, st *= data[i];
  return g;
}

Shape GatherOutShape(const Shape& data, const Shape& idx) {
  Shape o;
  for (int i = 1; i < idx.ndim(); ++i) o.push_back(idx[i]);
  for (int i = static_cast<int>(idx[0]); i < data.ndim(); ++i) o.push_back(data[i]);
  return o;
}

// Element offsets (of the first block element) of each index tuple.
std::vector<int64_t> NdOffsets(std::string_view op, const NdGeom& g, const NDArray& idx) {
  std::vector<int64_t> v = ReadIndices(idx);
  std::vector<int64_t> off(g.count, 0);
  for (int64_t j = 0; j < g.count; ++j)
    for (int64_t m = 0; m < g.M; ++m) {
      int64_t x = v[m * g.count + j], n = g.dims[m];
      int64_t r = x < 0 ? x + n : x;
      if (r < 0 || r >= n)
        MX_THROW(absl::StatusCode::kOutOfRange, op, ": index ", x, " is out of bounds for axis ", m,
                 " with size ", n);
      off[j] += r * g.strides[m];
    }
  return off;
}

void GatherShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  const Shape &d = (*in)[0], &i = (*in)[1];
  if (!d.ndim_known() || !i.ndim_known()) return;
  if (i.ndim() >= 1 && i[0] < 0) return;
  NdOf("gather_nd", d, i);
  MergeShape(&(*out)[0], GatherOutShape(d, i), "gather_nd: output");
}

MX_REGISTER_OP(gather_nd)
    .describe(
        "Gathers slices of data at index tuples: indices (M, Y...) give output (Y...) + "
        "data.shape[M:].")
    .add_alias("_npi_gather_nd")
    .add_alias("_npx_gather_nd")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "indices"})
    .set_infer_shape(GatherShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "gather_nd: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  NdGeom g = NdOf("gather_nd", in[0].shape(), in[1].shape());
                  std::vector<int64_t> off = NdOffsets("gather_nd", g, in[1]);
                  size_t es = DTypeSize(in[0].dtype()), bytes = g.block * es;
                  const char* x = static_cast<const char*>(in[0].data_ptr());
                  char* y = static_cast<char*>(out[0].data_ptr());
                  for (int64_t j = 0; j < g.count; ++j)
                    std::memcpy(y + j * bytes, x + off[j] * es, bytes);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV, GV og) {
          return Grads{b.Call("_gather_nd_backward", {og[0], in[1], in[0]}), b.ZerosLike(in[1])};
        },
        true, false);

// zeros(like); out[indices[:, j]] += data[j] (accumulating: the gradient of gather_nd).
MX_REGISTER_OP(_gather_nd_backward)
    .describe("Gradient of gather_nd: zeros of like's shape with data scatter-added at the tuples.")
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"data", "indices", "like"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const Shape &l = (*in)[2], &i = (*in)[1];
      if (l.ndim_known() && i.is_known()) {
        NdOf("_gather_nd_backward", l, i);
        MergeShape(&(*in)[0], GatherOutShape(l, i), "_gather_nd_backward: data");
      }
      MergeShape(&(*out)[0], l, "_gather_nd_backward: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "_gather_nd_backward: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  NdGeom g = NdOf("_gather_nd_backward", out[0].shape(), in[1].shape());
                  std::vector<int64_t> off = NdOffsets("_gather_nd_backward", g, in[1]);
                  out[0].Fill(0);
                  MX_NUMERIC_TYPE_SWITCH(out[0].dtype(), T, "_gather_nd_backward", {
                    const T* x = static_cast<const T*>(in[0].data_ptr());
                    T* y = static_cast<T*>(out[0].data_ptr());
                    for (int64_t j = 0; j < g.count; ++j)
                      for (int64_t e = 0; e < g.block; ++e) {
                        T& d = y[off[j] + e];
                        d = static_cast<T>(static_cast<AccType<T>>(d) +
                                           static_cast<AccType<T>>(x[j * g.block + e]));
                      }
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV, GV og) {
          return Grads{b.Call("gather_nd", {og[0], in[1]}), b.ZerosLike(in[1]), b.ZerosLike(in[2])};
        },
        true, false);

MX_REGISTER_OP(scatter_nd)
    .describe(
        "zeros(shape) with data written at index tuples (duplicates: the last one wins); the "
        "inverse of gather_nd.")
    .set_params<ScatterNDParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "indices"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& shape = attrs.get<ScatterNDParam>().shape;
      const Shape& i = (*in)[1];
      if (i.is_known()) {
        NdOf("scatter_nd", shape, i);
        MergeShape(&(*in)[0], GatherOutShape(shape, i), "scatter_nd: data");
      }
      MergeShape(&(*out)[0], shape, "scatter_nd: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "scatter_nd: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  NdGeom g = NdOf("scatter_nd", out[0].shape(), in[1].shape());
                  std::vector<int64_t> off = NdOffsets("scatter_nd", g, in[1]);
                  out[0].Fill(0);
                  size_t es = DTypeSize(in[0].dtype()), bytes = g.block * es;
                  const char* x = static_cast<const char*>(in[0].data_ptr());
                  char* y = static_cast<char*>(out[0].data_ptr());
                  for (int64_t j = 0; j < g.count; ++j)
                    std::memcpy(y + off[j] * es, x + j * bytes, bytes);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV, GV og) {
          return Grads{b.Call("gather_nd", {og[0], in[1]}), b.ZerosLike(in[1])};
        },
        true, false);

// ---- batch_take (deprecated in MXNet; use pick) ----
MX_REGISTER_OP(batch_take)
    .describe(
        "out[i] = a[i, indices[i]] over a's last axis (clipped); int32 indices. Deprecated "
        "in MXNet in favour of pick.")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"a", "indices"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const Shape &a = (*in)[0], &i = (*in)[1];
      if (a.ndim_known() && a.ndim() < 2)
        MX_THROW(absl::StatusCode::kInvalidArgument,
                 "batch_take: a must have at least 2 dimensions, got ", a.ToString());
      if (a.is_known() && i.is_known() &&
          a.Size() / std::max<int64_t>(1, a[a.ndim() - 1]) != i.Size())
        MX_THROW(absl::StatusCode::kInvalidArgument, "batch_take: indices ", i.ToString(),
                 " must have ", a.Size() / std::max<int64_t>(1, a[a.ndim() - 1]),
                 " elements for a of shape ", a.ToString());
      MergeShape(&(*out)[0], i, "batch_take: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "batch_take: output");
      MergeType(&(*in)[1], static_cast<int>(DType::kInt32), "batch_take: indices");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t m = s[s.ndim() - 1];
                  const int32_t* idx = in[1].data<int32_t>();
                  size_t es = DTypeSize(in[0].dtype());
                  const char* x = static_cast<const char*>(in[0].data_ptr());
                  char* y = static_cast<char*>(out[0].data_ptr());
                  for (int64_t i = 0; i < out[0].size(); ++i) {
                    int64_t j = Resolve("batch_take", idx[i], m, Mode::kClip, s.ndim() - 1);
                    std::memcpy(y + i * es, x + (i * m + j) * es, es);
                  }
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
