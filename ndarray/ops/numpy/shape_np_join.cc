// MXNet 1.9.1's NumPy-interface joins (mx.np), every input of one dtype (mixed dtypes are an
// error, as in MXNet), the output of that dtype:
//   _npi_concatenate (num_args, axis=0): join along axis (negative allowed; None: the inputs
//     flattened); 0-dim inputs are an error.
//   _npi_stack (num_args, axis=0): same-shaped inputs joined along a new axis (stack's kernel).
//   _npi_vstack (num_args): inputs as atleast_2d, joined along axis 0.
//   _npi_hstack (num_args, dim ignored): inputs as atleast_1d, joined along axis 0 if 1-D,
//     else axis 1.
//   _npi_dstack (num_args, dim ignored): inputs as atleast_3d, joined along axis 2.
//   _npi_column_stack (num_args): 0-dim -> (1, 1), 1-D (n,) -> (n, 1), joined along axis 1.
//   _npi_hsplit / _npi_dsplit (indices, axis ignored, squeeze_axis, sections): _split_v2 along
//     axis 1 (1-D: 0) / axis 2. MXNet 1.9.1's dsplit returns wrong values for uneven sections
//     and both corrupt memory on some index lists; ours split like numpy.array_split.
// Errors (naming the op) for inputs whose other dims disagree, axis out of range.
// Gradients: the head gradient split (_split_like) by the inputs' joined views (the op applied
// to one input), then reshape_like each input.
// Source: src/operator/numpy/np_matrix_op.cc (NumpyConcatenate, NumpyVstack, NumpyHstack,
// NumpyDstack, NumpyColumnStack), MXNet 1.9.1.
#include <algorithm>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/numpy/shape_np_api.h"
#include "ndarray/ops/shape/shape_params.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

enum class Join { kConcat, kV, kH, kD, kCol };

Join KindOf(const OpAttrs& a) {
  std::string_view n = OpName(a);
  if (n == "_npi_vstack") return Join::kV;
  if (n == "_npi_hstack") return Join::kH;
  if (n == "_npi_dstack") return Join::kD;
  if (n == "_npi_column_stack") return Join::kCol;
  return Join::kConcat;
}

// The shape input x takes in the join.
Shape ViewOf(const OpAttrs& a, Join k, const Shape& x) {
  std::vector<int64_t> d = x.ToVector();
  switch (k) {
    case Join::kConcat:
      if (!a.get<NpConcatenateParam>().axis) return Shape{x.Size()};
      return x;
    case Join::kH:
      if (d.empty()) d = {1};
      break;
    case Join::kV:
      if (d.size() < 2) d.insert(d.begin(), 2 - d.size(), 1);
      break;
    case Join::kD:
      if (d.empty()) d = {1, 1, 1};
      if (d.size() == 1) d = {1, d[0], 1};
      if (d.size() == 2) d.push_back(1);
      break;
    case Join::kCol:
      if (d.empty()) d = {1, 1};
      if (d.size() == 1) d.push_back(1);
      break;
  }
  return Shape(d);
}

// The axis of the join for views of rank `nd` (the first input's).
int AxisOf(const OpAttrs& a, Join k, int nd, const Shape& first) {
  switch (k) {
    case Join::kConcat: {
      const auto& axis = a.get<NpConcatenateParam>().axis;
      if (!axis) return 0;
      if (nd == 0) Fail(a, "zero-dimensional arrays cannot be concatenated");
      return CheckAxis(a, *axis, nd, "axis", first);
    }
    case Join::kV:
      return 0;
    case Join::kH:
      return nd == 1 ? 0 : 1;
    case Join::kD:
      return 2;
    case Join::kCol:
      return 1;
  }
  return 0;
}

int NumArgs(const OpAttrs& a) {
  switch (KindOf(a)) {
    case Join::kConcat:
      return a.get<NpConcatenateParam>().num_args;
    case Join::kV:
    case Join::kCol:
      return a.get<NpVstackParam>().num_args;
    default:
      return a.get<NpHDStackParam>().num_args;
  }
}

// Output shape from the inputs' shapes (all known).
Shape JoinShape(const OpAttrs& a, const std::vector<Shape>& xs, int* axis_out) {
  Join k = KindOf(a);
  std::vector<Shape> v;
  for (const Shape& x : xs) v.push_back(ViewOf(a, k, x));
  int nd = v[0].ndim();
  int axis = AxisOf(a, k, nd, xs[0]);
  Shape o = v[0];
  for (size_t i = 1; i < v.size(); ++i) {
    bool ok = v[i].ndim() == nd;
    for (int d = 0; ok && d < nd; ++d) ok = d == axis || v[i][d] == o[d];
    if (!ok)
      Fail(a, "input ", i, " of shape ", xs[i].ToString(), " does not match input 0 of shape ",
           xs[0].ToString(), ": all dims but the joined axis ", axis, " must agree");
    o[axis] += v[i][axis];
  }
  if (axis_out) *axis_out = axis;
  return o;
}

void JoinInferShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  for (const Shape& x : *in)
    if (!x.is_known()) return;
  std::vector<Shape> xs(in->begin(), in->end());
  MergeShape(&(*out)[0], JoinShape(a, xs, nullptr), StrCat(OpName(a), ": output"));
}

void JoinKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  std::vector<Shape> xs;
  for (const NDArray& x : in) xs.push_back(x.shape());
  int axis = 0;
  Shape o = JoinShape(a, xs, &axis);
  int64_t outer = o.ProdRange(0, axis), inner = o.ProdRange(axis + 1, o.ndim()), A = o[axis];
  if (outer * inner == 0) return;
  size_t es = DTypeSize(out[0].dtype());
  int64_t start = 0;
  for (const NDArray& x : in) {
    int64_t part = x.shape().Size() / (outer * inner);
    std::vector<int64_t> dims{outer, part * inner}, ds{A * inner, 1}, ss{part * inner, 1};
    if (part > 0)
      StridedCopy(ElemPtr(out[0].data_ptr(), start * inner, es), x.data_ptr(), es, dims, ds, ss);
    start += part;
  }
}

// The op on one input (its view), with a's other attributes.
GradValue ViewNode(GradBuilder& b, const OpAttrs& a, GradValue x) {
  const Op& op = *a.op();
  switch (KindOf(a)) {
    case Join::kConcat: {
      NpConcatenateParam p = a.get<NpConcatenateParam>();
      p.num_args = 1;
      return b.Apply(op, OpAttrs::From(op, p), std::vector<GradValue>{x})[0];
    }
    case Join::kV:
    case Join::kCol:
      return b.Apply(op, OpAttrs::From(op, NpVstackParam{1}), std::vector<GradValue>{x})[0];
    default: {
      NpHDStackParam p = a.get<NpHDStackParam>();
      p.num_args = 1;
      return b.Apply(op, OpAttrs::From(op, p), std::vector<GradValue>{x})[0];
    }
  }
}

Grads JoinGrad(GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
  Join k = KindOf(a);
  GradValue g = og[0];
  std::vector<GradValue> views;
  for (GradValue x : in) views.push_back(ViewNode(b, a, x));
  SplitLikeParam sp;
  sp.num_args = static_cast<int>(in.size());
  switch (k) {
    case Join::kConcat: {
      const auto& axis = a.get<NpConcatenateParam>().axis;
      sp.dim = axis ? *axis : 0;
      break;
    }
    case Join::kV:
      sp.dim = 0;
      break;
    case Join::kH: {  // 1-D views join along 0, others along 1: as 2-D, always along 1
      const Op& at = OpRegistry::Get("_np_atleast_2d");
      OpAttrs one = OpAttrs::From(at, NpAtleastParam{1});
      g = b.Apply(at, one, std::vector<GradValue>{g})[0];
      for (auto& v : views) v = b.Apply(at, one, std::vector<GradValue>{v})[0];
      sp.dim = 1;
      break;
    }
    case Join::kD:
      sp.dim = 2;
      break;
    case Join::kCol:
      sp.dim = 1;
      break;
  }
  std::vector<GradValue> args{g};
  args.insert(args.end(), views.begin(), views.end());
  const Op& split = OpRegistry::Get("_split_like");
  Grads parts = b.Apply(split, OpAttrs::From(split, sp), args);
  Grads out;
  for (size_t i = 0; i < in.size(); ++i) out.push_back(b.Call("reshape_like", {parts[i], in[i]}));
  return out;
}

std::vector<std::string> DataNames(const OpAttrs& a) {
  std::vector<std::string> v;
  for (int i = 0; i < NumArgs(a); ++i) v.push_back(StrCat("data", i));
  return v;
}

template <class P>
Op& RegisterJoin(Op& op, const char* doc) {
  return op.describe(doc)
      .template set_params<P>()
      .set_num_inputs(NumArgs)
      .set_input_names(DataNames)
      .set_infer_shape(JoinInferShape)
      .set_kernel({DeviceType::kCPU, Backend::kReference}, JoinKernel)
      .set_gradient(JoinGrad, true, false);
}

[[maybe_unused]] Op& reg_concatenate = RegisterJoin<NpConcatenateParam>(
    OpRegistry::Register("_npi_concatenate"),
    "Joins the inputs along axis (None: flattened first); other dims must agree.");
[[maybe_unused]] Op& reg_vstack = RegisterJoin<NpVstackParam>(
    OpRegistry::Register("_npi_vstack"), "Inputs as atleast_2d, joined along axis 0.");
[[maybe_unused]] Op& reg_hstack = RegisterJoin<NpHDStackParam>(
    OpRegistry::Register("_npi_hstack"),
    "Inputs as atleast_1d, joined along axis 0 (1-D) or 1; dim is ignored.");
[[maybe_unused]] Op& reg_dstack =
    RegisterJoin<NpHDStackParam>(OpRegistry::Register("_npi_dstack"),
                                 "Inputs as atleast_3d, joined along axis 2; dim is ignored.");
[[maybe_unused]] Op& reg_column_stack = RegisterJoin<NpVstackParam>(
    OpRegistry::Register("_npi_column_stack"),
    "0-dim -> (1, 1), 1-D (n,) -> (n, 1) columns, joined along axis 1.");

// _npi_stack: stack's shapes, kernel and gradient under the NumPy name.
FCompute StackKernel() {
  return [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
            std::span<const NDArray> out) {
    const Op& s = OpRegistry::Get("stack");
    (*s.FindKernel({DeviceType::kCPU, Backend::kReference}))(
        ctx, OpAttrs::From(s, a.get<StackParam>()), in, out);
  };
}

MX_REGISTER_OP(_npi_stack)
    .describe("Same-shaped inputs joined along a new axis (stack).")
    .set_params<StackParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<StackParam>().num_args; })
    .set_input_names([](const OpAttrs& a) {
      std::vector<std::string> v;
      for (int i = 0; i < a.get<StackParam>().num_args; ++i) v.push_back(StrCat("data", i));
      return v;
    })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      for (const Shape& x : *in)  // the axis error names this op
        if (x.ndim_known()) {
          CheckAxis(a, a.get<StackParam>().axis, x.ndim() + 1, "axis", x);
          break;
        }
      const Op& s = OpRegistry::Get("stack");
      s.infer_shape(OpAttrs::From(s, a.get<StackParam>()), in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, StackKernel())
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
          const Op& s = OpRegistry::Get("stack");
          return s.gradient(b, OpAttrs::From(s, a.get<StackParam>()), in, out, og);
        },
        false, false);

// ---- _npi_hsplit / _npi_dsplit ----
// _split_v2's parameters; `axis` is ignored (as in MXNet): hsplit splits axis 1 (axis 0 of 1-D
// inputs), dsplit axis 2 (inputs of >= 3 dims). indices are the parts' starts (MXNet's frontend
// passes a leading 0); sections > 0 gives near-equal parts, the first len % sections one longer.
SplitV2Param SplitOf(const OpAttrs& a, const Shape& x) {
  bool h = OpName(a) == "_npi_hsplit";
  if (h && x.ndim() < 1) Fail(a, "hsplit only works on arrays of 1 or more dimensions");
  if (!h && x.ndim() < 3) Fail(a, "dsplit only works on arrays of 3 or more dimensions");
  SplitV2Param p = a.get<SplitV2Param>();
  p.axis = h ? (x.ndim() == 1 ? 0 : 1) : 2;
  return p;
}

int SplitOutputs(const OpAttrs& a) {
  const auto& p = a.get<SplitV2Param>();
  return p.sections > 0 ? p.sections : p.indices.ndim();
}

void SplitInferShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  if (!(*in)[0].ndim_known()) return;
  const Op& s = OpRegistry::Get("_split_v2");
  s.infer_shape(OpAttrs::From(s, SplitOf(a, (*in)[0])), in, out);
}

void SplitKernel(const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const Op& s = OpRegistry::Get("_split_v2");
  (*s.FindKernel({DeviceType::kCPU, Backend::kReference}))(
      ctx, OpAttrs::From(s, SplitOf(a, in[0].shape())), in, out);
}

// The parts joined back (missing head gradients: zeros): hsplit by hstack, or column_stack of
// squeezed parts (the same layout as stacking them at axis 1); dsplit by dstack, or stack at
// axis 2; then reshape_like the input.
Grads SplitGrad(GradBuilder& b, const OpAttrs& a, GV in, GV outs, GV og) {
  const auto& p = a.get<SplitV2Param>();
  std::vector<GradValue> g;
  for (size_t k = 0; k < og.size(); ++k) g.push_back(og[k].valid() ? og[k] : b.ZerosLike(outs[k]));
  int n = static_cast<int>(g.size());
  GradValue joined;
  if (OpName(a) == "_npi_hsplit") {
    const Op& op = OpRegistry::Get(p.squeeze_axis ? "_npi_column_stack" : "_npi_hstack");
    joined = p.squeeze_axis ? b.Apply(op, OpAttrs::From(op, NpVstackParam{n}), g)[0]
                            : b.Apply(op, OpAttrs::From(op, NpHDStackParam{n, 1}), g)[0];
  } else if (p.squeeze_axis) {
    const Op& op = OpRegistry::Get("_npi_stack");
    StackParam sp;
    sp.axis = 2;
    sp.num_args = n;
    joined = b.Apply(op, OpAttrs::From(op, sp), g)[0];
  } else {
    const Op& op = OpRegistry::Get("_npi_dstack");
    joined = b.Apply(op, OpAttrs::From(op, NpHDStackParam{n, 1}), g)[0];
  }
  return Grads{b.Call("reshape_like", {joined, in[0]})};
}

MX_REGISTER_OP(_npi_hsplit)
    .describe("Splits axis 1 (1-D: axis 0) at indices, or into sections parts.")
    .set_params<SplitV2Param>()
    .set_num_outputs(SplitOutputs)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(SplitInferShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SplitKernel)
    .set_gradient(SplitGrad, true, true);

MX_REGISTER_OP(_npi_dsplit)
    .describe("Splits axis 2 (inputs of >= 3 dims) at indices, or into sections parts.")
    .set_params<SplitV2Param>()
    .set_num_outputs(SplitOutputs)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(SplitInferShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SplitKernel)
    .set_gradient(SplitGrad, true, true);

}  // namespace
}  // namespace mxnet::ops
