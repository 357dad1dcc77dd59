// Ops that change only the shape: Reshape, Flatten, expand_dims, squeeze, reshape_like, and the
// shape queries shape_array / size_array. Semantics follow MXNet 1.9.1 (src/operator/tensor/
// matrix_op*, elemwise_unary_op_basic.cc). Results are copies (kernels write allocated outputs);
// every gradient is reshape_like(ograd, data), so it is differentiable again.
#include <algorithm>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/ops/shape/shape_params.h"
#include "ndarray/storage.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;

void CopyKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  if (out[0].data_ptr() == in[0].data_ptr()) return;  // in place (memory planner)
  CopyBytes(out[0].data_ptr(), out[0].device(), in[0].data_ptr(), in[0].device(), in[0].nbytes());
}

// out[0] takes in[0]'s dtype (and back); other inputs are free.
void FirstInputType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  int t = (*in)[0];
  for (int o : *out) MergeType(&t, o, StrCat(OpName(a), ": output"));
  (*in)[0] = t;
  for (auto& o : *out) o = t;
}

// Fills the single unknown dim of `in` (known rank) from the element count of `out`.
void BackInferSize(Shape* in, const Shape& out) {
  if (!in->ndim_known() || !out.is_known() || in->is_known()) return;
  int unknown = -1;
  int64_t known = 1;
  for (int i = 0; i < in->ndim(); ++i) {
    if ((*in)[i] < 0) {
      if (unknown >= 0) return;
      unknown = i;
    } else {
      known *= (*in)[i];
    }
  }
  if (known > 0) (*in)[unknown] = out.Size() / known;
}

std::vector<GradValue> ReshapeLikeGrad(GradBuilder& b, const OpAttrs&,
                                       std::span<const GradValue> in, std::span<const GradValue>,
                                       std::span<const GradValue> og) {
  return {b.Call("reshape_like", {og[0], in[0]})};
}

// ---- Reshape ----

// MXNet's Reshape codes on a shape with unknown dims (-1): unknown propagates.
Shape PartialReshape(const Shape& in, const std::vector<int64_t>& spec_in, bool reverse) {
  std::vector<int64_t> src(in.begin(), in.end()), spec = spec_in;
  if (reverse) {
    std::reverse(src.begin(), src.end());
    std::reverse(spec.begin(), spec.end());
    for (size_t i = 0; i + 2 < spec.size(); ++i)
      if (spec[i + 2] == -4) {
        std::rotate(spec.begin() + i, spec.begin() + i + 2, spec.begin() + i + 3);
        i += 2;
      }
  }
  std::vector<int64_t> out;
  size_t s = 0;
  auto at = [&](size_t k) { return k < src.size() ? src[k] : int64_t{-1}; };
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t c = spec[i];
    if (c > 0) {
      out.push_back(c);
      ++s;
    } else if (c == 0) {
      out.push_back(at(s++));
    } else if (c == -1) {
      out.push_back(-1);
      ++s;
    } else if (c == -2) {
      while (s < src.size()) out.push_back(src[s++]);
    } else if (c == -3) {
      int64_t a = at(s), b = at(s + 1);
      out.push_back(a >= 0 && b >= 0 ? a * b : -1);
      s += 2;
    } else if (c == -4 && i + 2 < spec.size()) {
      int64_t d = at(s++), a = spec[i + 1], b = spec[i + 2];
      if (a == -1 && b > 0 && d >= 0) a = d / b;
      if (b == -1 && a > 0 && d >= 0) b = d / a;
      out.push_back(a);
      out.push_back(b);
      i += 2;
    } else {
      MX_THROW(
          absl::StatusCode::kInvalidArgument, "Reshape: invalid shape spec (",
          StrJoin(spec_in, ", "), ") for input shape ", in.ToString(), ": code ", c,
          c == -4 ? " needs two factors after it" : " is not a dim or one of 0, -1, -2, -3, -4");
    }
  }
  if (reverse) std::reverse(out.begin(), out.end());
  return Shape(out);
}

Shape ReshapeOutput(const OpAttrs& a, const Shape& in) {
  const auto& p = a.get<ReshapeParam>();
  if (p.shape.ndim() > 0) {
    std::vector<int64_t> spec = p.shape.ToVector();
    return in.is_known() ? InferReshape(in, spec, p.reverse, "Reshape")
                         : PartialReshape(in, spec, p.reverse);
  }
  if (p.target_shape.ndim() > 0) {  // deprecated form: 0 infers one dim
    Shape o = p.target_shape;
    int start = p.keep_highest ? 1 : 0;
    if (p.keep_highest) {
      if (in.ndim() < 1)
        Fail(a, "keep_highest needs an input with at least one dim, got ", in.ToString());
      o[0] = in[0];
    }
    int zeros = 0, at = -1;
    for (int i = start; i < o.ndim(); ++i)
      if (o[i] == 0) ++zeros, at = i;
    if (zeros == 1) {
      o[at] = 1;
      int64_t rest = o.Size();
      o[at] = in.is_known() && rest > 0 ? in.Size() / rest : -1;
    }
    if (in.is_known() && o.is_known() && o.Size() != in.Size())
      Fail(a, "target_shape ", p.target_shape.ToString(), " gives ", o.ToString(), " with ",
           o.Size(), " elements, not the ", in.Size(), " of input shape ", in.ToString());
    return o;
  }
  // Neither shape nor target_shape: a scalar (MXNet's empty target).
  if (in.is_known() && in.Size() != 1)
    Fail(a, "cannot reshape ", in.ToString(), " to () (shape is empty)");
  return Shape();
}

void ReshapeInferShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  Shape& x = (*in)[0];
  if (x.ndim_known()) MergeShape(&(*out)[0], ReshapeOutput(a, x), StrCat(OpName(a), ": output"));
  BackInferSize(&x, (*out)[0]);
  if (x.is_known() && (*out)[0].is_known() && x.Size() != (*out)[0].Size())
    Fail(a, "input shape ", x.ToString(), " and output shape ", (*out)[0].ToString(),
         " have different sizes");
}

MX_REGISTER_OP(Reshape)
    .describe(
        "Reshapes the input to `shape` (MXNet codes 0 copy, -1 infer, -2 copy the rest, -3 merge "
        "two dims, -4 split one dim in two; `reverse` applies them right to left).")
    .add_alias("reshape")
    .set_params<ReshapeParam>()
    .add_inplace(0, 0)
    .set_infer_shape(ReshapeInferShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient(ReshapeLikeGrad, true, false);

// ---- Flatten ----
MX_REGISTER_OP(Flatten)
    .describe("Collapses all dims but the first: (d0, d1, ..., dk) -> (d0, d1*...*dk).")
    .add_alias("flatten")
    .add_alias("_npx_batch_flatten")
    .add_inplace(0, 0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      Shape& x = (*in)[0];
      if (x.ndim_known()) {
        if (x.ndim() < 1) Fail(a, "the input must have at least 1 dim, got shape ", x.ToString());
        int64_t rest = 1;
        for (int i = 1; i < x.ndim(); ++i) rest = (rest < 0 || x[i] < 0) ? -1 : rest * x[i];
        MergeShape(&(*out)[0], Shape{x[0], rest}, "Flatten: output");
        if (x[0] < 0 && (*out)[0][0] >= 0) x[0] = (*out)[0][0];
        BackInferSize(&x, (*out)[0]);
      }
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient(ReshapeLikeGrad, true, false);

// ---- expand_dims ----
MX_REGISTER_OP(expand_dims)
    .describe("Inserts a size-1 axis at `axis` (in [-ndim-1, ndim]).")
    .add_alias("_npi_expand_dims")
    .set_params<ExpandDimsParam>()
    .add_inplace(0, 0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      Shape& x = (*in)[0];
      Shape& y = (*out)[0];
      if (!x.ndim_known() && !y.ndim_known()) return;
      int nd = x.ndim_known() ? x.ndim() : y.ndim() - 1;
      int axis = a.get<ExpandDimsParam>().axis;
      if (axis < -nd - 1 || axis > nd)
        Fail(a, "axis ", axis, " is out of range [", -nd - 1, ", ", nd, "] for input shape ",
             x.ndim_known() ? x.ToString() : StrCat("(ndim ", nd, ")"));
      if (axis < 0) axis += nd + 1;
      Shape o = Shape::Filled(nd + 1, -1);
      if (x.ndim_known())
        for (int i = 0; i < nd; ++i) o[i < axis ? i : i + 1] = x[i];
      o[axis] = 1;
      MergeShape(&y, o, "expand_dims: output");
      Shape back = Shape::Filled(nd, -1);
      for (int i = 0; i < nd; ++i) back[i] = y[i < axis ? i : i + 1];
      MergeShape(&x, back, "expand_dims: input");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient(ReshapeLikeGrad, true, false);

// ---- squeeze ----
MX_REGISTER_OP(squeeze)
    .describe(
        "Removes size-1 axes (all, or those in `axis`; a listed axis of another size is an "
        "error). Squeezing every axis leaves shape (1,), as in MXNet 1.x.")
    .set_params<SqueezeParam>()
    .add_inplace(0, 0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& x = (*in)[0];
      if (!x.ndim_known()) return;
      const auto& p = a.get<SqueezeParam>();
      std::vector<bool> drop(x.ndim(), false);
      if (p.axis) {
        for (int64_t ax : *p.axis) {
          int k = CheckAxis(a, ax, x.ndim(), "axis", x);
          if (drop[k]) Fail(a, "duplicate value in axis ", p.axis->ToString());
          if (x[k] >= 0 && x[k] != 1)
            Fail(a, "cannot squeeze axis ", ax, " of input shape ", x.ToString(), ": its size is ",
                 x[k], ", not 1");
          drop[k] = true;
        }
      } else {
        if (!x.is_known()) return;  // which axes go depends on the unknown dims
        for (int i = 0; i < x.ndim(); ++i) drop[i] = x[i] == 1;
      }
      Shape o;
      for (int i = 0; i < x.ndim(); ++i)
        if (!drop[i]) o.push_back(x[i]);
      if (o.ndim() == 0) o.push_back(1);
      MergeShape(&(*out)[0], o, "squeeze: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient(ReshapeLikeGrad, true, false);

// ---- reshape_like ----
void ReshapeLikeRange(const OpAttrs& a, int ndim, const char* side, const std::optional<int>& b,
                      const std::optional<int>& e, int* cb, int* ce) {
  *cb = b.value_or(0);
  if (*cb < 0) *cb += ndim;
  *ce = e ? *e : ndim;
  if (*ce < 0) *ce += ndim;
  // MXNet requires begin < end; an empty range is allowed here so 0-d arrays work too.
  if (*cb < 0 || *ce > ndim || *cb > *ce)
    Fail(a, "invalid range ", side, "_begin=", mxnet::PrintAttrValue(b), ", ", side,
         "_end=", mxnet::PrintAttrValue(e), " for ", side, " of ndim ", ndim);
}

MX_REGISTER_OP(reshape_like)
    .describe(
        "Reshapes lhs's dims [lhs_begin, lhs_end) to rhs's dims [rhs_begin, rhs_end) "
        "(default: all of lhs to rhs's shape). Sizes must agree.")
    .add_alias("_npx_reshape_like")
    .set_params<ReshapeLikeParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"lhs", "rhs"})
    .add_inplace(0, 0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape &l = (*in)[0], &r = (*in)[1];
      if (!l.ndim_known() || !r.ndim_known()) return;
      const auto& p = a.get<ReshapeLikeParam>();
      int lb, le, rb, re;
      ReshapeLikeRange(a, l.ndim(), "lhs", p.lhs_begin, p.lhs_end, &lb, &le);
      ReshapeLikeRange(a, r.ndim(), "rhs", p.rhs_begin, p.rhs_end, &rb, &re);
      Shape o;
      for (int i = 0; i < lb; ++i) o.push_back(l[i]);
      for (int i = rb; i < re; ++i) o.push_back(r[i]);
      for (int i = le; i < l.ndim(); ++i) o.push_back(l[i]);
      if (l.is_known() && o.is_known() && l.Size() != o.Size())
        Fail(a, "cannot reshape lhs of shape ", l.ToString(), " to ", o.ToString(), " (rhs shape ",
             r.ToString(), "): the sizes differ");
      MergeShape(&(*out)[0], o, "reshape_like: output");
    })
    .set_infer_type(FirstInputType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.Call("reshape_like", {og[0], in[0]}), b.ZerosLike(in[1])};
        },
        true, false);

// ---- shape_array / size_array ----
std::vector<GradValue> ZeroGrad(GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
                                std::span<const GradValue>, std::span<const GradValue>) {
  return {b.ZerosLike(in[0])};
}

void Int64Type(const OpAttrs&, DTypeVec*, DTypeVec* out) { (*out)[0] = DTypeFlag(DType::kInt64); }

MX_REGISTER_OP(shape_array)
    .describe("The input's shape as a 1-D int64 array.")
    .add_alias("_npx_shape_array")
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      if ((*in)[0].ndim_known())
        MergeShape(&(*out)[0], Shape{(*in)[0].ndim()}, "shape_array: output");
    })
    .set_infer_type(Int64Type)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::vector<int64_t> d = in[0].shape().ToVector();
                  if (d.empty()) return;
                  out[0].SyncCopyFromCPU(d.data(), d.size() * sizeof(int64_t));
                })
    .set_gradient(ZeroGrad, true, false);

MX_REGISTER_OP(size_array)
    .describe("The input's element count as a (1,) int64 array.")
    .set_infer_shape([](const OpAttrs&, ShapeVec*, ShapeVec* out) {
      MergeShape(&(*out)[0], Shape{1}, "size_array: output");
    })
    .set_infer_type(Int64Type)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  int64_t n = in[0].size();
                  out[0].SyncCopyFromCPU(&n, sizeof n);
                })
    .set_gradient(ZeroGrad, true, false);

}  // namespace
}  // namespace mxnet::ops
