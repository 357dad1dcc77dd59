// Ops whose output shape depends on input values (Op::set_dynamic_output_shape), with MXNet
// 1.9.1's names and semantics:
//   _contrib_boolean_mask (_npi_boolean_mask): rows of data (N, ...) where index (N,) != 0, in
//     order -> (count, ...); src/operator/contrib/boolean_mask.cc. Only axis 0 (MXNet: "Not
//     supported yet" otherwise). Gradient: the output gradient scattered back to the kept rows,
//     zeros elsewhere (_backward_contrib_boolean_mask).
//   _npx_nonzero (_npi_nonzero): int64 (count, ndim) coordinates of the nonzero elements of x in
//     row-major order (numpy.transpose(numpy.nonzero(x))); a 0-d x counts as shape (1,);
//     src/operator/numpy/np_nonzero_op.cc. Not differentiable.
// "Nonzero" is value != 0 in the input's dtype (NaN counts as nonzero). Static shape inference
// leaves the data-dependent dimension unknown (-1); Invoke and the executor count at run time.
#include <cstring>

#include "ndarray/grad.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/reduce/reduce_mask_api.h"

namespace mxnet::ops {
namespace {
using namespace reduce_internal;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

// Whether each element of `a` is nonzero (host copy for device arrays).
std::vector<uint8_t> NonzeroFlags(const NDArray& a) {
  NDArray h = a.device().type == DeviceType::kCPU ? a : a.as_in_context(cpu());
  std::vector<uint8_t> f(h.size());
  MX_DTYPE_SWITCH(h.dtype(), T, {
    const T* p = static_cast<const T*>(h.data_ptr());
    for (int64_t i = 0; i < h.size(); ++i) f[i] = static_cast<double>(p[i]) != 0.0;
  });
  return f;
}

int64_t CountOf(const std::vector<uint8_t>& f) {
  int64_t n = 0;
  for (uint8_t v : f) n += v;
  return n;
}

// ---- boolean_mask ----
void BooleanMaskCheck(std::string_view op, int axis, const Shape& data, const Shape& idx) {
  if (data.ndim_known() && data.ndim() == 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": data must have at least 1 dimension");
  if (axis != 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": axis=", axis,
             " is not supported (only axis 0, as in MXNet)");
  if (idx.ndim_known() && idx.ndim() != 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": index must be 1-D, got shape ",
             idx.ToString());
  if (data.ndim_known() && idx.ndim_known() && data[0] >= 0 && idx[0] >= 0 && data[0] != idx[0])
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": index length ", idx[0],
             " does not match data.shape[0] = ", data[0], " (data ", data.ToString(), ")");
}

void BooleanMaskShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  std::string_view op = OpName(attrs);
  const Shape &data = (*in)[0], &idx = (*in)[1];
  BooleanMaskCheck(op, attrs.get<BooleanMaskParam>().axis, data, idx);
  if (!data.ndim_known()) return;
  Shape o = data;
  o[0] = Shape::kUnknownDim;  // the number of nonzero index entries: known at run time
  MergeShape(&(*out)[0], o, StrCat(op, ": output"));
}

void BooleanMaskShapeFromData(const OpAttrs& attrs, std::span<const NDArray> in, ShapeVec* out) {
  BooleanMaskCheck(OpName(attrs), attrs.get<BooleanMaskParam>().axis, in[0].shape(), in[1].shape());
  Shape o = in[0].shape();
  o[0] = CountOf(NonzeroFlags(in[1]));
  (*out)[0] = o;
}

void BooleanMaskKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  BooleanMaskCheck(OpName(attrs), attrs.get<BooleanMaskParam>().axis, in[0].shape(), in[1].shape());
  std::vector<uint8_t> keep = NonzeroFlags(in[1]);
  if (CountOf(keep) != out[0].shape()[0])
    MX_THROW(absl::StatusCode::kInternal, OpName(attrs), ": output has ", out[0].shape()[0],
             " rows, the mask keeps ", CountOf(keep));
  size_t row = static_cast<size_t>(in[0].shape().ProdRange(1, in[0].shape().ndim())) *
               DTypeSize(in[0].dtype());
  if (row == 0) return;
  const char* x = static_cast<const char*>(in[0].data_ptr());
  char* y = static_cast<char*>(out[0].data_ptr());
  for (size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) {
      std::memcpy(y, x + i * row, row);
      y += row;
    }
}

MX_REGISTER_OP(_contrib_boolean_mask)
    .describe(
        "Rows of data (N, ...) where index (N,) is nonzero, in order: (count, ...). Output shape "
        "depends on index's values. Only axis=0.")
    .add_alias("_npi_boolean_mask")
    .set_params<BooleanMaskParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "index"})
    .set_infer_shape(BooleanMaskShape)
    .set_dynamic_output_shape(BooleanMaskShapeFromData)
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], StrCat(OpName(a), ": output"));
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BooleanMaskKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          // No gradient for the index (MXNet gives none).
          return Grads{b.CallP("_backward_contrib_boolean_mask", {og[0], in[0], in[1]},
                               a.get<BooleanMaskParam>()),
                       GradValue{}};
        },
        true, false);

// (ograd (count, ...), data (N, ...), index (N,)) -> grad of data (N, ...): ograd's rows at
// the kept positions, zeros elsewhere. data gives only the shape.
void BooleanMaskBackwardShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  std::string_view op = OpName(attrs);
  BooleanMaskCheck(op, attrs.get<BooleanMaskParam>().axis, (*in)[1], (*in)[2]);
  MergeShape(&(*out)[0], (*in)[1], StrCat(op, ": output"));
  MergeShape(&(*in)[1], (*out)[0], StrCat(op, ": data"));
  const Shape& d = (*in)[1];
  const Shape& g = (*in)[0];
  if (d.ndim_known() && g.ndim_known()) {
    bool ok = g.ndim() == d.ndim();
    for (int i = 1; ok && i < d.ndim(); ++i) ok = g[i] < 0 || d[i] < 0 || g[i] == d[i];
    if (!ok)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": ograd shape ", g.ToString(),
               " does not match data shape ", d.ToString(), " after axis 0");
  }
}

void BooleanMaskBackwardKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                               std::span<const NDArray> out) {
  std::vector<uint8_t> keep = NonzeroFlags(in[2]);
  if (CountOf(keep) != in[0].shape()[0])
    MX_THROW(absl::StatusCode::kInvalidArgument, OpName(attrs), ": ograd has ", in[0].shape()[0],
             " rows, the mask keeps ", CountOf(keep));
  out[0].Fill(0);
  size_t row = static_cast<size_t>(out[0].shape().ProdRange(1, out[0].shape().ndim())) *
               DTypeSize(out[0].dtype());
  if (row == 0) return;
  const char* g = static_cast<const char*>(in[0].data_ptr());
  char* y = static_cast<char*>(out[0].data_ptr());
  for (size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) {
      std::memcpy(y + i * row, g, row);
      g += row;
    }
}

MX_REGISTER_OP(_backward_contrib_boolean_mask)
    .describe(
        "Gradient of boolean_mask: ograd (count, ...) scattered to the rows of data (N, ...) "
        "where index (N,) is nonzero, zeros elsewhere.")
    .set_params<BooleanMaskParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "data", "index"})
    .set_infer_shape(BooleanMaskBackwardShape)
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], StrCat(OpName(a), ": output"));
      MergeType(&(*in)[0], (*out)[0], StrCat(OpName(a), ": ograd"));
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BooleanMaskBackwardKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          // Linear in ograd: its gradient masks the incoming gradient the same way.
          return Grads{b.CallP("_contrib_boolean_mask", {og[0], in[2]}, a.get<BooleanMaskParam>()),
                       GradValue{}, GradValue{}};
        },
        true, false);

// ---- nonzero ----
Shape NonzeroShape(const Shape& x, int64_t count) {
  return Shape{count, static_cast<int64_t>(std::max(1, x.ndim()))};
}

void NonzeroKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  std::vector<uint8_t> nz = NonzeroFlags(in[0]);
  const Shape& s = in[0].shape();
  int nd = std::max(1, s.ndim());
  if (CountOf(nz) != out[0].shape()[0])
    MX_THROW(absl::StatusCode::kInternal, "_npx_nonzero: output has ", out[0].shape()[0],
             " rows, the input has ", CountOf(nz), " nonzeros");
  int64_t* y = static_cast<int64_t*>(out[0].data_ptr());
  for (size_t i = 0; i < nz.size(); ++i) {
    if (!nz[i]) continue;
    int64_t r = static_cast<int64_t>(i);
    for (int d = nd - 1; d >= 0; --d) {
      int64_t n = s.ndim() == 0 ? 1 : s[d];
      y[d] = r % n;
      r /= n;
    }
    y += nd;
  }
}

MX_REGISTER_OP(_npx_nonzero)
    .describe(
        "int64 (count, ndim) coordinates of x's nonzero elements in row-major order "
        "(numpy.transpose(numpy.nonzero(x))); a 0-d x counts as shape (1,).")
    .add_alias("_npi_nonzero")
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"x"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const Shape& x = (*in)[0];
      if (!x.ndim_known()) return;
      MergeShape(&(*out)[0], NonzeroShape(x, Shape::kUnknownDim), "_npx_nonzero: output");
    })
    .set_dynamic_output_shape([](const OpAttrs&, std::span<const NDArray> in, ShapeVec* out) {
      (*out)[0] = NonzeroShape(in[0].shape(), CountOf(NonzeroFlags(in[0])));
    })
    .set_infer_type([](const OpAttrs&, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], static_cast<int>(DType::kInt64), "_npx_nonzero: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, NonzeroKernel)
    .set_non_differentiable();

}  // namespace

}  // namespace mxnet::ops

namespace mxnet::nd {
NDArray contrib::boolean_mask(const NDArray& data, const NDArray& index, int axis) {
  const Op& op = MX_ND_OP(_contrib_boolean_mask);
  ops::BooleanMaskParam p;
  p.axis = axis;
  return Call(op, OpAttrs::From(op, p), {data, index})[0];
}
NDArray npx::nonzero(const NDArray& x) {
  const Op& op = MX_ND_OP(_npx_nonzero);
  return Call(op, NoAttrs(op), {x})[0];
}
}  // namespace mxnet::nd
