// Slicing: slice (crop), slice_axis, slice_like, and the ops their gradients compose:
// _slice_assign / _slice_assign_scalar (MXNet's names and semantics), _slice_axis_grad and
// _slice_like_grad (zeros with the output gradient placed at the sliced positions).
// Index rules follow MXNet 1.9.1's GetIndexRange / GetSliceAxisParams.
#include <algorithm>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/ops/shape/shape_params.h"
#include "ndarray/storage.h"

namespace mxnet::ops {

bool ParseAttrValue(std::string_view s, OptIntTuple* out) {
  std::string_view t = StripWhitespace(s);
  if (t == "None") return false;
  if (t.size() >= 2 &&
      ((t.front() == '(' && t.back() == ')') || (t.front() == '[' && t.back() == ']')))
    t = t.substr(1, t.size() - 2);
  out->v.clear();
  if (StripWhitespace(t).empty()) return true;
  auto parts = StrSplit(t, ',');
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view p = StripWhitespace(parts[i]);
    if (p.empty() && i + 1 == parts.size() && i > 0) break;  // "(3,)"
    if (p == "None") {
      out->v.push_back(std::nullopt);
      continue;
    }
    int64_t x;
    if (!mxnet::ParseAttrValue(p, &x)) return false;
    out->v.push_back(x);
  }
  return true;
}

std::string PrintAttrValue(const OptIntTuple& t) {
  std::string s = "(";
  for (size_t i = 0; i < t.v.size(); ++i)
    StrAppend(&s, i ? ", " : "", t.v[i] ? StrCat(*t.v[i]) : std::string("None"));
  if (t.v.size() == 1) s += ",";
  return s + ")";
}

namespace {

using namespace shape_internal;

void FirstInputType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  int t = (*in)[0];
  MergeType(&t, (*out)[0], StrCat(OpName(a), ": output"));
  (*in)[0] = t;
  (*out)[0] = t;
}

void CopyInput(const NDArray& in, const NDArray& out) {
  if (out.data_ptr() == in.data_ptr()) return;  // in place (memory planner)
  CopyBytes(out.data_ptr(), out.device(), in.data_ptr(), in.device(), in.nbytes());
}

// ---- slice ----
// The resolved range of a slice on a known-rank shape: per dim begin, step and output size
// (-1 where the input dim is unknown).
struct SliceRange {
  std::vector<int64_t> begin, step, size;
};

SliceRange GetSliceRange(const OpAttrs& a, const OptIntTuple& pb, const OptIntTuple& pe,
                         const OptIntTuple& ps, const Shape& d) {
  int nd = d.ndim();
  if (nd == 0) Fail(a, "cannot slice a 0-d array");
  if (pb.size() > nd)
    Fail(a, "begin ", PrintAttrValue(pb), " has more entries than input shape ", d.ToString(),
         " has dims");
  if (pe.size() != pb.size())
    Fail(a, "begin ", PrintAttrValue(pb), " and end ", PrintAttrValue(pe),
         " must have the same length");
  if (ps.size() > 0 && ps.size() != pb.size())
    Fail(a, "step ", PrintAttrValue(ps), " and begin ", PrintAttrValue(pb),
         " must have the same length");
  SliceRange r;
  for (int i = 0; i < nd; ++i) {
    int64_t len = d[i];
    if (i >= pb.size()) {
      r.begin.push_back(0), r.step.push_back(1), r.size.push_back(len);
      continue;
    }
    int64_t s = i < ps.size() && ps.v[i] ? *ps.v[i] : 1;
    if (s == 0) Fail(a, "step[", i, "] cannot be 0");
    int64_t b = 0, e = 0;
    if (len < 0) {
      r.begin.push_back(0), r.step.push_back(s), r.size.push_back(-1);
      continue;
    }
    if (len > 0) {
      b = pb.v[i] ? *pb.v[i] : (s < 0 ? len - 1 : 0);
      e = pe.v[i] ? *pe.v[i] : (s < 0 ? -1 : len);
      if (b < 0) b += len;
      if (e < 0 && pe.v[i]) e += len;
      if (b < 0 && s > 0) b = 0;
      if (b > len - 1 && s < 0) b = len - 1;
      if (b < 0 || b > len - 1) b = -1;
      e = std::clamp<int64_t>(e, -1, len);
    }
    int64_t n = 0;
    if (e != b && b >= 0)
      n = s > 0 ? (e > b ? (e - b - 1) / s + 1 : 0) : (e < b ? (b - e - 1) / (-s) + 1 : 0);
    r.begin.push_back(std::max<int64_t>(b, 0));
    r.step.push_back(s);
    r.size.push_back(n);
  }
  return r;
}

template <typename P>
SliceRange RangeOf(const OpAttrs& a, const Shape& d) {
  const P& p = a.get<P>();
  return GetSliceRange(a, p.begin, p.end, p.step, d);
}

// Strided region of `arr` (of shape `s`) selected by `r`: base offset and strides in elements.
void RegionOf(const Shape& s, const SliceRange& r, int64_t* offset, std::vector<int64_t>* strides) {
  std::vector<int64_t> st = Strides(s);
  *offset = 0;
  strides->resize(s.ndim());
  bool empty = false;
  for (int i = 0; i < s.ndim(); ++i) empty |= r.size[i] == 0;
  for (int i = 0; i < s.ndim(); ++i) {
    if (!empty) *offset += r.begin[i] * st[i];
    (*strides)[i] = st[i] * r.step[i];
  }
}

template <typename P>
void SliceInferShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  const Shape& x = (*in)[0];
  if (!x.ndim_known()) return;
  SliceRange r = RangeOf<P>(a, x);
  MergeShape(&(*out)[0], Shape(r.size), StrCat(OpName(a), ": output"));
}

template <typename P>
void SliceKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const Shape& s = in[0].shape();
  SliceRange r = RangeOf<P>(a, s);
  int64_t off;
  std::vector<int64_t> ss;
  RegionOf(s, r, &off, &ss);
  size_t es = DTypeSize(in[0].dtype());
  StridedCopy(out[0].data_ptr(), ElemPtr(in[0].data_ptr(), off, es), es, r.size,
              Strides(out[0].shape()), ss);
}

SliceAssignScalarParam ScalarSlice(const SliceParam& p, double v) {
  SliceAssignScalarParam q;
  q.scalar = v;
  q.begin = p.begin, q.end = p.end, q.step = p.step;
  return q;
}

MX_REGISTER_OP(slice)
    .describe(
        "Slices the leading axes: begin/end/step per axis with None entries (MXNet rules: "
        "negative indices count from the end, out-of-range ends are clipped, negative steps "
        "go backwards).")
    .add_alias("crop")
    .add_alias("_npi_slice")
    .add_alias("_npx_slice")
    .add_alias("_sparse_slice")
    .set_params<SliceParam>()
    .set_infer_shape(SliceInferShape<SliceParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SliceKernel<SliceParam>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              b.CallP("_slice_assign", {b.ZerosLike(in[0]), og[0]}, a.get<SliceParam>())};
        },
        true, false);

MX_REGISTER_OP(_slice_assign)
    .describe("lhs with the slice begin/end/step replaced by rhs (rhs has the slice's shape).")
    .add_alias("_crop_assign")
    .add_alias("_npi_slice_assign")
    .set_params<SliceParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"lhs", "rhs"})
    .add_inplace(0, 0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      Shape& x = (*in)[0];
      MergeShape(&x, (*out)[0], "_slice_assign: output");
      (*out)[0] = x;
      if (!x.ndim_known()) return;
      SliceRange r = RangeOf<SliceParam>(a, x);
      MergeShape(&(*in)[1], Shape(r.size), "_slice_assign: rhs (the slice's shape)");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  CopyInput(in[0], out[0]);
                  const Shape& s = out[0].shape();
                  SliceRange r = RangeOf<SliceParam>(a, s);
                  int64_t off;
                  std::vector<int64_t> ds;
                  RegionOf(s, r, &off, &ds);
                  size_t es = DTypeSize(out[0].dtype());
                  StridedCopy(ElemPtr(out[0].data_ptr(), off, es), in[1].data_ptr(), es, r.size, ds,
                              Strides(in[1].shape()));
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          const auto& p = a.get<SliceParam>();
          return std::vector<GradValue>{b.CallP("_slice_assign_scalar", {og[0]}, ScalarSlice(p, 0)),
                                        b.CallP("slice", {og[0]}, p)};
        },
        false, false);

MX_REGISTER_OP(_slice_assign_scalar)
    .describe("data with the slice begin/end/step set to `scalar`.")
    .add_alias("_crop_assign_scalar")
    .add_alias("_npi_slice_assign_scalar")
    .set_params<SliceAssignScalarParam>()
    .add_inplace(0, 0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      ElemwiseShape(a, in, out);
      if ((*in)[0].ndim_known()) RangeOf<SliceAssignScalarParam>(a, (*in)[0]);  // validates
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  CopyInput(in[0], out[0]);
                  const Shape& s = out[0].shape();
                  SliceRange r = RangeOf<SliceAssignScalarParam>(a, s);
                  int64_t off;
                  std::vector<int64_t> ds;
                  RegionOf(s, r, &off, &ds);
                  size_t es = DTypeSize(out[0].dtype());
                  FillStrided(ElemPtr(out[0].data_ptr(), off, es), out[0].dtype(),
                              a.get<SliceAssignScalarParam>().scalar, r.size, ds);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          SliceAssignScalarParam p = a.get<SliceAssignScalarParam>();
          p.scalar = 0;
          return std::vector<GradValue>{b.CallP("_slice_assign_scalar", {og[0]}, p)};
        },
        false, false);

// ---- slice_axis ----
struct AxisRange {
  int axis;
  int64_t begin, end;
};

AxisRange GetAxisRange(const OpAttrs& a, const Shape& s) {
  const auto& p = a.get<SliceAxisParam>();
  AxisRange r;
  r.axis = CheckAxis(a, p.axis, s.ndim(), "axis", s);
  int64_t len = s[r.axis];
  r.begin = p.begin;
  r.end = -1;
  if (len < 0) return r;
  if (r.begin < 0) r.begin += len;
  if (len > 0) {
    r.end = p.end ? *p.end : len;
    if (p.end && r.end < 0) r.end += len;
    if (r.end > len)
      Fail(a, "invalid end=", mxnet::PrintAttrValue(p.end), ": axis ", r.axis, " of input shape ",
           s.ToString(), " has size ", len);
    if (!(r.begin < r.end))
      Fail(a, "invalid begin=", p.begin, ", end=", mxnet::PrintAttrValue(p.end), " for axis ",
           r.axis, " of input shape ", s.ToString());
  } else {
    r.begin = r.end = 0;
  }
  if (r.end < 0 || r.begin < 0)
    Fail(a, "invalid begin=", p.begin, ", end=", mxnet::PrintAttrValue(p.end), " for axis ", r.axis,
         " of input shape ", s.ToString());
  return r;
}

// Copies between the full array (of shape `full`) and its slab [begin, end) along axis.
void AxisSlabCopy(const Shape& full, const AxisRange& r, void* dst, const void* src, size_t es,
                  bool to_slab) {
  int64_t outer = full.ProdRange(0, r.axis), inner = full.ProdRange(r.axis + 1, full.ndim());
  int64_t len = full[r.axis], n = r.end - r.begin;
  std::vector<int64_t> dims{outer, n * inner}, slab{n * inner, 1}, whole{len * inner, 1};
  if (to_slab)
    StridedCopy(dst, ElemPtr(src, r.begin * inner, es), es, dims, slab, whole);
  else
    StridedCopy(ElemPtr(dst, r.begin * inner, es), src, es, dims, whole, slab);
}

MX_REGISTER_OP(slice_axis)
    .describe(
        "Slices [begin, end) along one axis (negative indices count from the end; end None "
        "is the axis size; begin < end is required).")
    .set_params<SliceAxisParam>()
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& x = (*in)[0];
      if (!x.ndim_known()) return;
      AxisRange r = GetAxisRange(a, x);
      Shape o = x;
      o[r.axis] = x[r.axis] < 0 ? -1 : r.end - r.begin;
      MergeShape(&(*out)[0], o, "slice_axis: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  AxisRange r = GetAxisRange(a, in[0].shape());
                  AxisSlabCopy(in[0].shape(), r, out[0].data_ptr(), in[0].data_ptr(),
                               DTypeSize(in[0].dtype()), true);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              b.CallP("_slice_axis_grad", {og[0], in[0]}, a.get<SliceAxisParam>())};
        },
        true, false);

MX_REGISTER_OP(_slice_axis_grad)
    .describe("Zeros shaped like data with ograd placed at slice_axis's range (its gradient).")
    .set_params<SliceAxisParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[1], "_slice_axis_grad: output");
      (*in)[1] = (*out)[0];
      const Shape& x = (*in)[1];
      if (!x.ndim_known()) return;
      AxisRange r = GetAxisRange(a, x);
      Shape o = x;
      o[r.axis] = x[r.axis] < 0 ? -1 : r.end - r.begin;
      MergeShape(&(*in)[0], o, "_slice_axis_grad: ograd");
    })
    .set_infer_type(FirstInputType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  out[0].Fill(0);
                  AxisRange r = GetAxisRange(a, out[0].shape());
                  AxisSlabCopy(out[0].shape(), r, out[0].data_ptr(), in[0].data_ptr(),
                               DTypeSize(out[0].dtype()), false);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.CallP("slice_axis", {og[0]}, a.get<SliceAxisParam>()),
                                        b.ZerosLike(in[1])};
        },
        true, false);

// ---- slice_like ----
Shape SliceLikeOut(const OpAttrs& a, const Shape& x, const Shape& like) {
  const Shape& axes = a.get<SliceLikeParam>().axes;
  Shape o = x;
  auto take = [&](int k) {
    if (x[k] >= 0 && like[k] >= 0 && like[k] > x[k])
      Fail(a, "axis ", k, " of shape_like ", like.ToString(), " (size ", like[k],
           ") exceeds the input shape ", x.ToString());
    o[k] = like[k];
  };
  if (axes.ndim() == 0) {
    if (x.ndim() != like.ndim())
      Fail(a, "slicing all axes needs inputs of the same ndim, got ", x.ToString(), " and ",
           like.ToString());
    for (int k = 0; k < x.ndim(); ++k) take(k);
  } else {
    for (int64_t ax : axes) {
      int k = CheckAxis(a, ax, x.ndim(), "axis", x);
      if (k >= like.ndim())
        Fail(a, "axis ", ax, " exceeds the ndim of shape_like ", like.ToString());
      take(k);
    }
  }
  return o;
}

// Copies the leading corner of shape `small` between `big` (shape big) and small.
void CornerCopy(const Shape& big, const Shape& small, void* dst, const void* src, size_t es,
                bool to_small) {
  std::vector<int64_t> bs = Strides(big), ss = Strides(small), dims = small.ToVector();
  if (to_small)
    StridedCopy(dst, src, es, dims, ss, bs);
  else
    StridedCopy(dst, src, es, dims, bs, ss);
}

MX_REGISTER_OP(slice_like)
    .describe("Slices data from the start of each of `axes` (default all) to shape_like's size.")
    .set_params<SliceLikeParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "shape_like"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape &x = (*in)[0], &like = (*in)[1];
      if (!x.ndim_known() || !like.ndim_known()) return;
      MergeShape(&(*out)[0], SliceLikeOut(a, x, like), "slice_like: output");
    })
    .set_infer_type(FirstInputType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  CornerCopy(in[0].shape(), out[0].shape(), out[0].data_ptr(), in[0].data_ptr(),
                             DTypeSize(in[0].dtype()), true);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              b.CallP("_slice_like_grad", {og[0], in[0]}, a.get<SliceLikeParam>()),
              b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(_slice_like_grad)
    .describe(
        "Zeros shaped like data with ograd in the leading corner (the gradient of slice_like).")
    .set_params<SliceLikeParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[1], "_slice_like_grad: output");
      (*in)[1] = (*out)[0];
      const Shape &g = (*in)[0], &x = (*in)[1];
      if (g.ndim_known() && x.ndim_known()) {
        if (g.ndim() != x.ndim())
          Fail(a, "ograd ", g.ToString(), " and data ", x.ToString(), " differ in ndim");
        for (int k = 0; k < g.ndim(); ++k)
          if (g[k] >= 0 && x[k] >= 0 && g[k] > x[k])
            Fail(a, "ograd ", g.ToString(), " is larger than data ", x.ToString());
      }
    })
    .set_infer_type(FirstInputType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  out[0].Fill(0);
                  CornerCopy(out[0].shape(), in[0].shape(), out[0].data_ptr(), in[0].data_ptr(),
                             DTypeSize(out[0].dtype()), false);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              b.CallP("slice_like", {og[0], in[0]}, a.get<SliceLikeParam>()), b.ZerosLike(in[1])};
        },
        true, false);

}  // namespace
}  // namespace mxnet::ops
