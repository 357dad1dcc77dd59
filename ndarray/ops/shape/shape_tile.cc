// Replication and padding: tile, repeat, Pad (pad), and the sums their gradients compose:
// _tile_grad, _repeat_grad, _pad_grad. Semantics follow MXNet 1.9.1 (matrix_op, pad.cc); Pad
// keeps MXNet's restrictions (4-D/5-D input, no padding on the first two axes) but also takes
// integer dtypes.
#include <algorithm>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/ops/shape/shape_params.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;

void FirstInputType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  int t = (*in)[0];
  MergeType(&t, (*out)[0], StrCat(OpName(a), ": output"));
  (*in)[0] = t;
  (*out)[0] = t;
}

// dst[o] = sum_k src[base(o) + offsets[k]] over the multi-index o of `dims`, with
// base(o) = sum_i o_i * base_strides[i]. Accumulates in SumType<T>.
void GatherSum(const NDArray& src, const NDArray& dst, const std::vector<int64_t>& dims,
               const std::vector<int64_t>& base_strides, const std::vector<int64_t>& offsets,
               std::string_view opname) {
  int64_t n = dst.size();
  int nd = static_cast<int>(dims.size());
  MX_NUMERIC_TYPE_SWITCH(src.dtype(), T, opname, {
    const T* x = static_cast<const T*>(src.data_ptr());
    T* y = static_cast<T*>(dst.data_ptr());
    ParallelFor(
        n,
        [&](int64_t o) {
          int64_t base = 0, r = o;
          for (int i = nd - 1; i >= 0; --i) {
            base += (r % dims[i]) * base_strides[i];
            r /= dims[i];
          }
          SumType<T> acc = SumType<T>(0);
          for (int64_t off : offsets)
            acc += static_cast<SumType<T>>(static_cast<AccType<T>>(x[base + off]));
          y[o] = static_cast<T>(static_cast<AccType<T>>(acc));
        },
        4096);
  });
}

// ---- tile ----
// data shape and reps, both left-padded with 1s to the output rank.
void TileAligned(const Shape& x, const Shape& reps, std::vector<int64_t>* d,
                 std::vector<int64_t>* r) {
  int L = std::max(x.ndim(), reps.ndim());
  d->assign(L, 1);
  r->assign(L, 1);
  for (int i = 0; i < x.ndim(); ++i) (*d)[L - x.ndim() + i] = x[i];
  for (int i = 0; i < reps.ndim(); ++i) (*r)[L - reps.ndim() + i] = reps[i];
}

MX_REGISTER_OP(tile)
    .describe(
        "Repeats the whole array reps[i] times along each axis; reps and the input shape are "
        "aligned at the last axis (the shorter one is padded with 1s in front).")
    .add_alias("_npi_tile")
    .set_params<TileParam>()
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      Shape &x = (*in)[0], &y = (*out)[0];
      const Shape& reps = a.get<TileParam>().reps;
      if (!x.ndim_known()) return;
      std::vector<int64_t> d, r;
      TileAligned(x, reps, &d, &r);
      int L = static_cast<int>(d.size());
      Shape o = Shape::Filled(L, -1);
      for (int i = 0; i < L; ++i) o[i] = d[i] < 0 ? -1 : d[i] * r[i];
      MergeShape(&y, o, "tile: output");
      for (int i = 0; i < x.ndim(); ++i) {
        int j = L - x.ndim() + i;
        if (x[i] < 0 && y[j] >= 0 && r[j] > 0) x[i] = y[j] / r[j];
      }
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::vector<int64_t> d, r;
                  TileAligned(in[0].shape(), a.get<TileParam>().reps, &d, &r);
                  std::vector<int64_t> is = Strides(Shape(d)), os = Strides(out[0].shape());
                  std::vector<int64_t> dims, ds, ss;
                  for (size_t i = 0; i < d.size(); ++i) {
                    dims.push_back(r[i]), ds.push_back(d[i] * os[i]), ss.push_back(0);
                    dims.push_back(d[i]), ds.push_back(os[i]), ss.push_back(is[i]);
                  }
                  StridedCopy(out[0].data_ptr(), in[0].data_ptr(), DTypeSize(in[0].dtype()), dims,
                              ds, ss);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.CallP("_tile_grad", {og[0], in[0]}, a.get<TileParam>())};
        },
        true, false);

MX_REGISTER_OP(_tile_grad)
    .describe(
        "Sums ograd (tile's output shape) over the tiled copies, giving data's shape (the "
        "gradient of tile).")
    .set_params<TileParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[1], "_tile_grad: output");
      (*in)[1] = (*out)[0];
      const Shape& x = (*in)[1];
      if (!x.ndim_known()) return;
      std::vector<int64_t> d, r;
      TileAligned(x, a.get<TileParam>().reps, &d, &r);
      Shape o = Shape::Filled(static_cast<int>(d.size()), -1);
      for (size_t i = 0; i < d.size(); ++i) o[i] = d[i] < 0 ? -1 : d[i] * r[i];
      MergeShape(&(*in)[0], o, "_tile_grad: ograd");
    })
    .set_infer_type(FirstInputType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::vector<int64_t> d, r;
                  TileAligned(out[0].shape(), a.get<TileParam>().reps, &d, &r);
                  std::vector<int64_t> gs = Strides(in[0].shape());
                  // og viewed as (r0, d0, r1, d1, ...): d_i has stride gs_i, r_i has d_i * gs_i.
                  std::vector<int64_t> offsets{0};
                  for (size_t i = 0; i < d.size(); ++i) {
                    std::vector<int64_t> next;
                    for (int64_t off : offsets)
                      for (int64_t k = 0; k < r[i]; ++k) next.push_back(off + k * d[i] * gs[i]);
                    offsets.swap(next);
                  }
                  GatherSum(in[0], out[0], d, gs, offsets, "_tile_grad");
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.CallP("tile", {og[0]}, a.get<TileParam>()),
                                        b.ZerosLike(in[1])};
        },
        true, false);

// ---- repeat ----
// The view of repeat's output as data's dims with R inserted after `axis` (or (n, R) flat).
struct RepeatView {
  std::vector<int64_t> dims;  // view dims
  std::vector<int64_t> src;   // data strides for the view (0 on the R dim)
  int r_dim = 0;              // position of R
};

RepeatView MakeRepeatView(const OpAttrs& a, const Shape& x) {
  const auto& p = a.get<RepeatParam>();
  RepeatView v;
  if (!p.axis) {
    v.dims = {x.Size(), p.repeats};
    v.src = {1, 0};
    v.r_dim = 1;
    return v;
  }
  int axis = CheckAxis(a, *p.axis, x.ndim(), "axis", x);
  std::vector<int64_t> st = Strides(x);
  for (int i = 0; i < x.ndim(); ++i) {
    v.dims.push_back(x[i]);
    v.src.push_back(st[i]);
    if (i == axis) {
      v.dims.push_back(p.repeats);
      v.src.push_back(0);
      v.r_dim = i + 1;
    }
  }
  return v;
}

Shape RepeatOutShape(const OpAttrs& a, const Shape& x) {
  const auto& p = a.get<RepeatParam>();
  if (p.repeats == 0) return Shape{0};  // MXNet: an empty 1-D array, whatever the axis
  if (!p.axis) return Shape{x.is_known() ? x.Size() * p.repeats : -1};
  int axis = CheckAxis(a, *p.axis, x.ndim(), "axis", x);
  Shape o = x;
  if (o[axis] >= 0) o[axis] *= p.repeats;
  return o;
}

MX_REGISTER_OP(repeat)
    .describe(
        "Repeats each element `repeats` times along `axis` (None: of the flattened input, "
        "giving a 1-D result). repeats=0 gives shape (0,).")
    .add_alias("_np_repeat")
    .set_params<RepeatParam>()
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      Shape &x = (*in)[0], &y = (*out)[0];
      if (!x.ndim_known()) return;
      MergeShape(&y, RepeatOutShape(a, x), "repeat: output");
      const auto& p = a.get<RepeatParam>();
      if (p.axis && p.repeats > 0) {
        for (int i = 0; i < x.ndim(); ++i) {
          if (x[i] >= 0 || y[i] < 0) continue;
          x[i] = i == CheckAxis(a, *p.axis, x.ndim(), "axis", x) ? y[i] / p.repeats : y[i];
        }
      }
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  if (out[0].size() == 0) return;
                  RepeatView v = MakeRepeatView(a, in[0].shape());
                  StridedCopy(out[0].data_ptr(), in[0].data_ptr(), DTypeSize(in[0].dtype()), v.dims,
                              Strides(Shape(v.dims)), v.src);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              b.CallP("_repeat_grad", {og[0], in[0]}, a.get<RepeatParam>())};
        },
        true, false);

MX_REGISTER_OP(_repeat_grad)
    .describe(
        "Sums ograd (repeat's output) over the repeated copies, giving data's shape (the "
        "gradient of repeat).")
    .set_params<RepeatParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[1], "_repeat_grad: output");
      (*in)[1] = (*out)[0];
      if ((*in)[1].ndim_known())
        MergeShape(&(*in)[0], RepeatOutShape(a, (*in)[1]), "_repeat_grad: ograd");
    })
    .set_infer_type(FirstInputType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  if (a.get<RepeatParam>().repeats == 0 || out[0].size() == 0) {
                    out[0].Fill(0);
                    return;
                  }
                  RepeatView v = MakeRepeatView(a, out[0].shape());
                  std::vector<int64_t> vs = Strides(Shape(v.dims)), dims, base;
                  for (size_t i = 0; i < v.dims.size(); ++i)
                    if (static_cast<int>(i) != v.r_dim)
                      dims.push_back(v.dims[i]), base.push_back(vs[i]);
                  std::vector<int64_t> offsets;
                  for (int64_t k = 0; k < v.dims[v.r_dim]; ++k) offsets.push_back(k * vs[v.r_dim]);
                  GatherSum(in[0], out[0], dims, base, offsets, "_repeat_grad");
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.CallP("repeat", {og[0]}, a.get<RepeatParam>()),
                                        b.ZerosLike(in[1])};
        },
        true, false);

// ---- Pad ----
void CheckPad(const OpAttrs& a, const Shape& x) {
  const auto& p = a.get<PadParam>();
  int nd = x.ndim();
  if (nd != 4 && nd != 5) Fail(a, "only 4-D or 5-D inputs are supported, got shape ", x.ToString());
  if (p.pad_width.ndim() != 2 * nd)
    Fail(a, "pad_width ", p.pad_width.ToString(), " must have 2*ndim = ", 2 * nd,
         " entries for input shape ", x.ToString());
  for (int i = 0; i < 4; ++i)
    if (p.pad_width[i] != 0)
      Fail(a, "padding on the first two axes must be zero, got pad_width ", p.pad_width.ToString());
  for (int i = 0; i < 2 * nd; ++i)
    if (p.pad_width[i] < 0) Fail(a, "pad_width ", p.pad_width.ToString(), " must be non-negative");
  if (p.mode == "reflect")
    for (int i = 2; i < nd; ++i)
      if (x[i] >= 0 && (p.pad_width[2 * i] >= x[i] || p.pad_width[2 * i + 1] >= x[i]))
        Fail(a, "reflect padding needs pads smaller than the input size, got pad_width ",
             p.pad_width.ToString(), " for input shape ", x.ToString());
  if (p.mode == "edge")
    for (int i = 2; i < nd; ++i)
      if (x[i] == 0 && (p.pad_width[2 * i] > 0 || p.pad_width[2 * i + 1] > 0))
        Fail(a, "edge padding of an empty axis ", i, " of input shape ", x.ToString());
}

// Source index along one axis of size `n` for padded position `o` (edge / reflect modes).
int64_t PadSource(const std::string& mode, int64_t o, int64_t before, int64_t n) {
  int64_t c = o - before;
  if (mode == "edge") return std::clamp<int64_t>(c, 0, n - 1);
  if (c < 0) c = -c;
  if (c >= n) c = 2 * (n - 1) - c;
  return c;
}

template <typename E>
void PadGather(const E* x, E* y, const Shape& in, const Shape& out,
               const std::vector<std::vector<int64_t>>& maps) {
  int nd = out.ndim();
  std::vector<int64_t> is = Strides(in);
  int64_t rows = out.ProdRange(0, nd - 1), W = out[nd - 1];
  const std::vector<int64_t>& last = maps[nd - 1];
  ParallelFor(
      rows,
      [&](int64_t r) {
        int64_t src = 0, t = r;
        for (int i = nd - 2; i >= 0; --i) {
          src += maps[i][t % out[i]] * is[i];
          t /= out[i];
        }
        E* yr = y + r * W;
        const E* xr = x + src;
        for (int64_t w = 0; w < W; ++w) yr[w] = xr[last[w]];
      },
      256);
}

MX_REGISTER_OP(Pad)
    .describe(
        "Pads a 4-D or 5-D input: pad_width gives (before, after) per axis (zeros for the "
        "first two); mode constant (constant_value), edge (repeat the border) or reflect "
        "(mirror without the border; pads must be smaller than the axis).")
    .add_alias("pad")
    .set_params<PadParam>()
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      Shape &x = (*in)[0], &y = (*out)[0];
      const Shape& pw = a.get<PadParam>().pad_width;
      if (!x.ndim_known() && y.ndim_known() && pw.ndim() == 2 * y.ndim())
        x = Shape::Filled(y.ndim(), -1);
      if (!x.ndim_known()) return;
      CheckPad(a, x);
      Shape o = x;
      for (int i = 0; i < x.ndim(); ++i) o[i] = x[i] < 0 ? -1 : x[i] + pw[2 * i] + pw[2 * i + 1];
      MergeShape(&y, o, "Pad: output");
      for (int i = 0; i < x.ndim(); ++i)
        if (x[i] < 0 && y[i] >= 0) x[i] = y[i] - pw[2 * i] - pw[2 * i + 1];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<PadParam>();
                  const Shape &s = in[0].shape(), &o = out[0].shape();
                  size_t es = DTypeSize(in[0].dtype());
                  if (out[0].size() == 0) return;
                  if (p.mode == "constant") {
                    FillValue(out[0].data_ptr(), out[0].dtype(), out[0].size(), p.constant_value);
                    std::vector<int64_t> os = Strides(o);
                    int64_t off = 0;
                    for (int i = 0; i < s.ndim(); ++i) off += p.pad_width[2 * i] * os[i];
                    StridedCopy(ElemPtr(out[0].data_ptr(), off, es), in[0].data_ptr(), es,
                                s.ToVector(), os, Strides(s));
                    return;
                  }
                  std::vector<std::vector<int64_t>> maps(s.ndim());
                  for (int i = 0; i < s.ndim(); ++i)
                    for (int64_t k = 0; k < o[i]; ++k)
                      maps[i].push_back(PadSource(p.mode, k, p.pad_width[2 * i], s[i]));
                  switch (es) {
                    case 1:
                      PadGather(static_cast<const uint8_t*>(in[0].data_ptr()),
                                static_cast<uint8_t*>(out[0].data_ptr()), s, o, maps);
                      break;
                    case 2:
                      PadGather(static_cast<const uint16_t*>(in[0].data_ptr()),
                                static_cast<uint16_t*>(out[0].data_ptr()), s, o, maps);
                      break;
                    case 4:
                      PadGather(static_cast<const uint32_t*>(in[0].data_ptr()),
                                static_cast<uint32_t*>(out[0].data_ptr()), s, o, maps);
                      break;
                    default:
                      PadGather(static_cast<const uint64_t*>(in[0].data_ptr()),
                                static_cast<uint64_t*>(out[0].data_ptr()), s, o, maps);
                      break;
                  }
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          return std::vector<GradValue>{b.CallP("_pad_grad", {og[0]}, a.get<PadParam>())};
        },
        false, false);

MX_REGISTER_OP(_pad_grad)
    .describe(
        "The adjoint of Pad: sums every padded position into its source element (constant "
        "mode: crops the interior). Gives Pad's input shape.")
    .set_params<PadParam>()
    .set_input_names(std::vector<std::string>{"ograd"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      Shape &g = (*in)[0], &y = (*out)[0];
      const Shape& pw = a.get<PadParam>().pad_width;
      if (g.ndim_known()) {
        if (pw.ndim() != 2 * g.ndim())
          Fail(a, "pad_width ", pw.ToString(), " must have 2*ndim entries for ograd shape ",
               g.ToString());
        Shape o = g;
        for (int i = 0; i < g.ndim(); ++i) o[i] = g[i] < 0 ? -1 : g[i] - pw[2 * i] - pw[2 * i + 1];
        for (int i = 0; i < g.ndim(); ++i)
          if (g[i] >= 0 && o[i] < 0)
            Fail(a, "ograd shape ", g.ToString(), " is smaller than pad_width ", pw.ToString());
        MergeShape(&y, o, "_pad_grad: output");
      }
      if (y.ndim_known()) {
        CheckPad(a, y);
        Shape back = y;
        for (int i = 0; i < y.ndim(); ++i)
          back[i] = y[i] < 0 ? -1 : y[i] + pw[2 * i] + pw[2 * i + 1];
        MergeShape(&g, back, "_pad_grad: ograd");
      }
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<PadParam>();
                  const Shape &g = in[0].shape(), &s = out[0].shape();
                  if (out[0].size() == 0) return;
                  std::vector<int64_t> gs = Strides(g), os = Strides(s);
                  if (p.mode == "constant") {
                    int64_t off = 0;
                    for (int i = 0; i < s.ndim(); ++i) off += p.pad_width[2 * i] * gs[i];
                    size_t es = DTypeSize(in[0].dtype());
                    StridedCopy(out[0].data_ptr(), ElemPtr(in[0].data_ptr(), off, es), es,
                                s.ToVector(), os, gs);
                    return;
                  }
                  int nd = g.ndim();
                  std::vector<std::vector<int64_t>> maps(nd);
                  for (int i = 0; i < nd; ++i)
                    for (int64_t k = 0; k < g[i]; ++k)
                      maps[i].push_back(PadSource(p.mode, k, p.pad_width[2 * i], s[i]) * os[i]);
                  MX_NUMERIC_TYPE_SWITCH(in[0].dtype(), T, "_pad_grad", {
                    const T* x = static_cast<const T*>(in[0].data_ptr());
                    std::vector<SumType<T>> acc(out[0].size(), SumType<T>(0));
                    int64_t n = in[0].size();
                    std::vector<int64_t> idx(nd, 0);
                    for (int64_t e = 0; e < n; ++e) {
                      int64_t dst = 0;
                      for (int i = 0; i < nd; ++i) dst += maps[i][idx[i]];
                      acc[dst] += static_cast<SumType<T>>(static_cast<AccType<T>>(x[e]));
                      for (int i = nd - 1; i >= 0; --i) {
                        if (++idx[i] < g[i]) break;
                        idx[i] = 0;
                      }
                    }
                    T* y = static_cast<T*>(out[0].data_ptr());
                    for (size_t i = 0; i < acc.size(); ++i)
                      y[i] = static_cast<T>(static_cast<AccType<T>>(acc[i]));
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          PadParam p = a.get<PadParam>();
          p.constant_value = 0;  // the adjoint of a crop is zero padding
          return std::vector<GradValue>{b.CallP("Pad", {og[0]}, p)};
        },
        false, false);

}  // namespace
}  // namespace mxnet::ops
