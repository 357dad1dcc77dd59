// MXNet 1.9.1's NumPy-interface diagonal ops (mx.np), output dtype = input dtype unless noted:
//   _np_diag (k=0): 1-D (n,) -> (n+|k|, n+|k|) with the input on diagonal k; 2-D -> diagonal k
//     (empty (0,) when k is past the matrix). Other ranks are an error.
//   _np_diagonal (offset=0, axis1=0, axis2=1): N-D (N >= 2) -> diagonal `offset` of the
//     (axis1, axis2) planes as the last axis (the other axes in order); may be empty.
//   _np_diagflat (k=0): the input flattened, then _np_diag's 1-D case (0-dim input: an error,
//     as in MXNet's "Diagonal does not exist").
//   _npi_tril (k=0): zeros above diagonal k of the last two axes; 1-D (n,) is first repeated
//     into n rows (n, n); 0-dim is an error.
//   _npi_diag_indices_from: int64 (ndim, n) indices of the main diagonal of an N-D (N >= 2)
//     array whose dims are all n. Not differentiable.
//   _npi_share_memory (a, b): 0-dim bool, whether the two arrays' memory overlaps. Not
//     differentiable.
// Kernels of nonempty diagonals reuse diag's (shape_misc.cc); gradients are _diag_grad,
// tril + _reduce_sum_like. Source: src/operator/numpy/np_matrix_op.cc, np_tril_op.cc,
// np_diagflat_op.cc, np_memory_op.cc (MXNet 1.9.1).
#include <algorithm>
#include <cstring>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/numpy/shape_np_api.h"
#include "ndarray/ops/shape/shape_misc_params.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

// Length of diagonal k of an h x w plane (0 when it lies outside).
int64_t DiagLen(int64_t h, int64_t w, int64_t k) {
  if (k > 0) w -= k;
  if (k < 0) h += k;
  return std::max<int64_t>(0, std::min(h, w));
}

// diag's reference kernel with DiagParam p (nonempty outputs only).
void RunDiag(const OpContext& ctx, const DiagParam& p, const NDArray& in, const NDArray& out) {
  if (out.shape().Size() == 0) return;
  const Op& d = OpRegistry::Get("diag");
  NDArray ins[1] = {in}, outs[1] = {out};
  (*d.FindKernel({DeviceType::kCPU, Backend::kReference}))(ctx, OpAttrs::From(d, p), ins, outs);
}

Shape PlaceShape(int64_t n, int k) {
  int64_t s = n + std::abs(k);
  return Shape{s, s};
}

// ---- _np_diag ----
Shape NpDiagShape(const OpAttrs& a, const Shape& x) {
  int k = a.get<NpDiagKParam>().k;
  if (x.ndim() == 1) return PlaceShape(x[0], k);
  if (x.ndim() != 2) Fail(a, "input must be 1- or 2-d, got shape ", x.ToString());
  return Shape{DiagLen(x[0], x[1], k)};
}

DiagParam DiagOf(int k, int axis1 = 0, int axis2 = 1) {
  DiagParam p;
  p.k = k;
  p.axis1 = axis1;
  p.axis2 = axis2;
  return p;
}

template <Shape (*F)(const OpAttrs&, const Shape&)>
void UnaryShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  if (!(*in)[0].is_known()) return;
  MergeShape(&(*out)[0], F(a, (*in)[0]), StrCat(OpName(a), ": output"));
}

MX_REGISTER_OP(_np_diag)
    .describe("1-D: a square matrix with the input on diagonal k; 2-D: diagonal k.")
    .set_params<NpDiagKParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(UnaryShape<NpDiagShape>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  if (in[0].ndim() == 1) out[0].Fill(0);
                  RunDiag(ctx, DiagOf(a.get<NpDiagKParam>().k), in[0], out[0]);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.CallP("_diag_grad", {og[0], in[0]}, DiagOf(a.get<NpDiagKParam>().k))};
        },
        true, false);

// ---- _np_diagonal ----
Shape NpDiagonalShape(const OpAttrs& a, const Shape& x) {
  const auto& p = a.get<NpDiagonalParam>();
  if (x.ndim() < 2) Fail(a, "input array should be at least 2d, got shape ", x.ToString());
  int x1 = CheckAxis(a, p.axis1, x.ndim(), "axis1", x);
  int x2 = CheckAxis(a, p.axis2, x.ndim(), "axis2", x);
  if (x1 == x2) Fail(a, "axis1 and axis2 cannot refer to the same axis ", x1);
  std::vector<int64_t> o;
  for (int i = 0; i < x.ndim(); ++i)
    if (i != x1 && i != x2) o.push_back(x[i]);
  o.push_back(DiagLen(x[x1], x[x2], p.offset));
  return Shape(o);
}

DiagParam DiagOfDiagonal(const OpAttrs& a) {
  const auto& p = a.get<NpDiagonalParam>();
  return DiagOf(p.offset, p.axis1, p.axis2);
}

MX_REGISTER_OP(_np_diagonal)
    .describe("Diagonal `offset` of the (axis1, axis2) planes, appended as the last axis.")
    .set_params<NpDiagonalParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(UnaryShape<NpDiagonalShape>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  RunDiag(ctx, DiagOfDiagonal(a), in[0], out[0]);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.CallP("_diag_grad", {og[0], in[0]}, DiagOfDiagonal(a))};
        },
        true, false);

// ---- _np_diagflat ----
Shape DiagflatShape(const OpAttrs& a, const Shape& x) {
  if (x.ndim() == 0) Fail(a, "diagonal does not exist for a 0-dim input");
  return PlaceShape(x.Size(), a.get<NpDiagKParam>().k);
}

MX_REGISTER_OP(_np_diagflat)
    .describe("The flattened input placed on diagonal k of a square matrix.")
    .set_params<NpDiagKParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(UnaryShape<DiagflatShape>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  out[0].Fill(0);
                  RunDiag(ctx, DiagOf(a.get<NpDiagKParam>().k), in[0].reshape({-1}), out[0]);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          GradValue flat = b.Call("_np_reshape", {in[0]}, {{"newshape", "(-1,)"}});
          GradValue g = b.CallP("_diag_grad", {og[0], flat}, DiagOf(a.get<NpDiagKParam>().k));
          return Grads{b.Call("reshape_like", {g, in[0]})};
        },
        true, false);

// ---- _npi_tril ----
Shape TrilShape(const OpAttrs& a, const Shape& x) {
  if (x.ndim() == 0) Fail(a, "input must have at least 1 dimension, got shape ()");
  if (x.ndim() == 1) return Shape{x[0], x[0]};
  return x;
}

void TrilKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const Shape& o = out[0].shape();
  if (o.Size() == 0) return;
  size_t es = DTypeSize(in[0].dtype());
  int64_t h = o[o.ndim() - 2], w = o[o.ndim() - 1], k = a.get<NpDiagKParam>().k;
  if (in[0].ndim() == 1) {  // every row is the input
    std::vector<int64_t> dims{h, w}, ds{w, 1}, ss{0, 1};
    StridedCopy(out[0].data_ptr(), in[0].data_ptr(), es, dims, ds, ss);
  } else {
    std::memcpy(out[0].data_ptr(), in[0].data_ptr(), in[0].nbytes());
  }
  int64_t batch = o.Size() / (h * w);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < h; ++i) {
      int64_t from = std::clamp<int64_t>(i + k + 1, 0, w);
      if (from < w)
        FillValue(ElemPtr(out[0].data_ptr(), (b * h + i) * w + from, es), out[0].dtype(), w - from,
                  0);
    }
}

MX_REGISTER_OP(_npi_tril)
    .describe("Zeros above diagonal k of the last two axes (1-D: repeated into n rows first).")
    .set_params<NpDiagKParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(UnaryShape<TrilShape>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, TrilKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          GradValue t = b.CallP("_npi_tril", {og[0]}, a.get<NpDiagKParam>());
          return Grads{b.SumLike(t, in[0])};
        },
        true, false);

// ---- _npi_diag_indices_from ----
Shape DiagIndicesShape(const OpAttrs& a, const Shape& x) {
  if (x.ndim() < 2) Fail(a, "input array should be at least 2d, got shape ", x.ToString());
  for (int i = 1; i < x.ndim(); ++i)
    if (x[i] != x[0])
      Fail(a, "all dimensions of the input must be of equal length, got shape ", x.ToString());
  return Shape{x.ndim(), x[0]};
}

MX_REGISTER_OP(_npi_diag_indices_from)
    .describe("int64 (ndim, n): row d is 0..n-1, the main diagonal's index along axis d.")
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(UnaryShape<DiagIndicesShape>)
    .set_infer_type([](const OpAttrs& a, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], DTypeFlag(DType::kInt64), StrCat(OpName(a), ": output"));
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  int64_t* p = out[0].data<int64_t>();
                  int64_t nd = out[0].shape()[0], n = out[0].shape()[1];
                  for (int64_t d = 0; d < nd; ++d)
                    for (int64_t i = 0; i < n; ++i) p[d * n + i] = i;
                })
    .set_non_differentiable();

// ---- _npi_share_memory ----
MX_REGISTER_OP(_npi_share_memory)
    .describe("0-dim bool: whether the memory of a and b overlaps.")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"a", "b"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec*, ShapeVec* out) {
      MergeShape(&(*out)[0], Shape(), StrCat(OpName(a), ": output"));
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], DTypeFlag(DType::kBool), StrCat(OpName(a), ": output"));
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  auto lo0 = static_cast<const char*>(in[0].data_ptr()),
                       lo1 = static_cast<const char*>(in[1].data_ptr());
                  auto hi0 = lo0 + in[0].nbytes(), hi1 = lo1 + in[1].nbytes();
                  bool overlap = in[0].nbytes() > 0 && in[1].nbytes() > 0 && lo0 < hi1 && lo1 < hi0;
                  *out[0].data<bool>() = overlap;
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
