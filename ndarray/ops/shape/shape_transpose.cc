// Axis permutations: transpose, SwapAxis, reverse (flip), depth_to_space, space_to_depth.
// All are one strided copy (shape_util.h). Semantics follow MXNet 1.9.1; negative axes are
// accepted everywhere (MXNet's transpose and reverse reject them).
#include <numeric>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/ops/shape/shape_params.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;

// The permutation transpose applies for rank `ndim` (empty axes: reversed).
std::vector<int> TransposeAxes(const OpAttrs& a, int ndim, const Shape& in) {
  const Shape& axes = a.get<TransposeParam>().axes;
  std::vector<int> perm(ndim);
  if (axes.ndim() == 0) {
    for (int i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
    return perm;
  }
  if (axes.ndim() != ndim)
    Fail(a, "axes ", axes.ToString(), " must have one entry per input dim, input shape ",
         in.ToString());
  std::vector<bool> seen(ndim, false);
  for (int i = 0; i < ndim; ++i) {
    perm[i] = CheckAxis(a, axes[i], ndim, "axis", in);
    if (seen[perm[i]])
      Fail(a, "axes ", axes.ToString(), " is not a permutation (repeated axis ", axes[i], ")");
    seen[perm[i]] = true;
  }
  return perm;
}

void PermuteShapes(const std::vector<int>& perm, Shape* x, Shape* y) {
  int n = static_cast<int>(perm.size());
  Shape o = Shape::Filled(n, -1), back = Shape::Filled(n, -1);
  if (x->ndim_known())
    for (int i = 0; i < n; ++i) o[i] = (*x)[perm[i]];
  MergeShape(y, o, "transpose: output");
  for (int i = 0; i < n; ++i) back[perm[i]] = (*y)[i];
  MergeShape(x, back, "transpose: input");
}

// out = in with axes permuted: out dim i is in dim perm[i].
void PermuteCopy(const NDArray& in, const NDArray& out, const std::vector<int>& perm) {
  std::vector<int64_t> is = Strides(in.shape()), os = Strides(out.shape()),
                       dims = out.shape().ToVector();
  std::vector<int64_t> ss(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) ss[i] = is[perm[i]];
  StridedCopy(out.data_ptr(), in.data_ptr(), DTypeSize(in.dtype()), dims, os, ss);
}

// ---- transpose ----
MX_REGISTER_OP(transpose)
    .describe("Permutes the axes: output dim i is input dim axes[i] (empty axes: reversed order).")
    .set_params<TransposeParam>()
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      Shape &x = (*in)[0], &y = (*out)[0];
      int nd = x.ndim_known()   ? x.ndim()
               : y.ndim_known() ? y.ndim()
                                : a.get<TransposeParam>().axes.ndim();
      if (nd <= 0 && !x.ndim_known() && !y.ndim_known()) return;
      PermuteShapes(TransposeAxes(a, nd, x), &x, &y);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  PermuteCopy(in[0], out[0], TransposeAxes(a, in[0].ndim(), in[0].shape()));
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          const Shape& axes = a.get<TransposeParam>().axes;
          TransposeParam inv;
          if (axes.ndim() > 0) {
            int n = axes.ndim();
            inv.axes = Shape::Filled(n, 0);
            for (int i = 0; i < n; ++i)
              inv.axes[static_cast<int>(axes[i] < 0 ? axes[i] + n : axes[i])] = i;
          }
          return std::vector<GradValue>{b.CallP("transpose", {og[0]}, inv)};
        },
        false, false);

// ---- SwapAxis ----
std::vector<int> SwapPerm(const OpAttrs& a, int ndim, const Shape& in) {
  const auto& p = a.get<SwapAxisParam>();
  int d1 = CheckAxis(a, p.dim1, ndim, "dim1", in), d2 = CheckAxis(a, p.dim2, ndim, "dim2", in);
  std::vector<int> perm(ndim);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[d1], perm[d2]);
  return perm;
}

MX_REGISTER_OP(SwapAxis)
    .describe("Interchanges axes dim1 and dim2.")
    .add_alias("swapaxes")
    .add_alias("_npi_swapaxes")
    .set_params<SwapAxisParam>()
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      Shape &x = (*in)[0], &y = (*out)[0];
      if (!x.ndim_known() && !y.ndim_known()) return;
      int nd = x.ndim_known() ? x.ndim() : y.ndim();
      PermuteShapes(SwapPerm(a, nd, x), &x, &y);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  PermuteCopy(in[0], out[0], SwapPerm(a, in[0].ndim(), in[0].shape()));
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          return std::vector<GradValue>{b.CallP("SwapAxis", {og[0]}, a.get<SwapAxisParam>())};
        },
        false, false);

// ---- reverse ----
MX_REGISTER_OP(reverse)
    .describe(
        "Reverses the order of elements along the given axes (an axis listed twice is "
        "reversed twice, as in MXNet).")
    .add_alias("flip")
    .set_params<ReverseParam>()
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& x = (*in)[0];
      if (x.ndim_known())
        for (int64_t ax : a.get<ReverseParam>().axis) CheckAxis(a, ax, x.ndim(), "axis", x);
      ElemwiseShape(a, in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  std::vector<bool> flip(s.ndim(), false);
                  for (int64_t ax : a.get<ReverseParam>().axis) {
                    int k = CheckAxis(a, ax, s.ndim(), "axis", s);
                    flip[k] = !flip[k];
                  }
                  std::vector<int64_t> st = Strides(s), os = st, dims = s.ToVector();
                  int64_t offset = 0;
                  for (int k = 0; k < s.ndim(); ++k)
                    if (flip[k] && s[k] > 0) {
                      offset += (s[k] - 1) * st[k];
                      st[k] = -st[k];
                    }
                  size_t es = DTypeSize(in[0].dtype());
                  StridedCopy(out[0].data_ptr(), ElemPtr(in[0].data_ptr(), offset, es), es, dims,
                              os, st);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          return std::vector<GradValue>{b.CallP("reverse", {og[0]}, a.get<ReverseParam>())};
        },
        false, false);

// ---- depth_to_space / space_to_depth ----
void CheckBlockInput(const OpAttrs& a, const Shape& x) {
  if (x.ndim() != 4) Fail(a, "requires a 4-D input (N, C, H, W), got shape ", x.ToString());
  for (int i = 0; i < 4; ++i)
    if (x[i] == 0) Fail(a, "dim ", i, " of input shape ", x.ToString(), " cannot be 0");
}

MX_REGISTER_OP(depth_to_space)
    .describe(
        "Moves depth blocks into space: (N, C, H, W) -> (N, C/b^2, H*b, W*b); element "
        "[n, c, h*b+i, w*b+j] comes from [n, (i*b+j)*C/b^2 + c, h, w].")
    .set_params<DepthToSpaceParam>()
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      Shape &x = (*in)[0], &y = (*out)[0];
      int64_t b = a.get<DepthToSpaceParam>().block_size;
      if (x.ndim_known()) {
        CheckBlockInput(a, x);
        if (x[1] >= 0 && x[1] % (b * b) != 0)
          Fail(a, "the depth (dim 1) of input shape ", x.ToString(),
               " must be a multiple of block_size^2 = ", b * b);
        auto mul = [&](int64_t v, int64_t f) { return v < 0 ? v : v * f; };
        MergeShape(&y, Shape{x[0], x[1] < 0 ? -1 : x[1] / (b * b), mul(x[2], b), mul(x[3], b)},
                   "depth_to_space: output");
      }
      if (y.ndim() == 4) {
        auto div = [&](int64_t v, int64_t f) { return v < 0 ? v : v / f; };
        MergeShape(&x, Shape{y[0], y[1] < 0 ? -1 : y[1] * b * b, div(y[2], b), div(y[3], b)},
                   "depth_to_space: input");
      }
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t b = a.get<DepthToSpaceParam>().block_size;
                  int64_t N = s[0], C = s[1] / (b * b), H = s[2], W = s[3];
                  // Output viewed as (N, C, H, b, W, b), contiguous.
                  std::vector<int64_t> dims{N, C, H, b, W, b};
                  std::vector<int64_t> os = Strides(Shape(dims));
                  std::vector<int64_t> ss{s[1] * H * W, H * W, W, b * C * H * W, 1, C * H * W};
                  StridedCopy(out[0].data_ptr(), in[0].data_ptr(), DTypeSize(in[0].dtype()), dims,
                              os, ss);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          return std::vector<GradValue>{
              b.CallP("space_to_depth", {og[0]}, a.get<DepthToSpaceParam>())};
        },
        false, false);

MX_REGISTER_OP(space_to_depth)
    .describe(
        "Moves spatial blocks into depth: (N, C, H, W) -> (N, C*b^2, H/b, W/b); element "
        "[n, (i*b+j)*C + c, h, w] comes from [n, c, h*b+i, w*b+j].")
    .set_params<DepthToSpaceParam>()
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      Shape &x = (*in)[0], &y = (*out)[0];
      int64_t b = a.get<DepthToSpaceParam>().block_size;
      if (x.ndim_known()) {
        CheckBlockInput(a, x);
        for (int i = 2; i < 4; ++i)
          if (x[i] >= 0 && x[i] % b != 0)
            Fail(a, "dim ", i, " of input shape ", x.ToString(),
                 " must be a multiple of block_size ", b);
        auto div = [&](int64_t v, int64_t f) { return v < 0 ? v : v / f; };
        MergeShape(&y, Shape{x[0], x[1] < 0 ? -1 : x[1] * b * b, div(x[2], b), div(x[3], b)},
                   "space_to_depth: output");
      }
      if (y.ndim() == 4) {
        auto mul = [&](int64_t v, int64_t f) { return v < 0 ? v : v * f; };
        MergeShape(&x, Shape{y[0], y[1] < 0 ? -1 : y[1] / (b * b), mul(y[2], b), mul(y[3], b)},
                   "space_to_depth: input");
      }
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t b = a.get<DepthToSpaceParam>().block_size;
                  int64_t N = s[0], C = s[1], H = s[2], W = s[3], Ho = H / b, Wo = W / b;
                  // Output viewed as (N, b, b, C, H/b, W/b), contiguous.
                  std::vector<int64_t> dims{N, b, b, C, Ho, Wo};
                  std::vector<int64_t> os = Strides(Shape(dims));
                  std::vector<int64_t> ss{C * H * W, W, 1, H * W, b * W, b};
                  StridedCopy(out[0].data_ptr(), in[0].data_ptr(), DTypeSize(in[0].dtype()), dims,
                              os, ss);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          return std::vector<GradValue>{
              b.CallP("depth_to_space", {og[0]}, a.get<DepthToSpaceParam>())};
        },
        false, false);

}  // namespace
}  // namespace mxnet::ops
