// nd:: free functions of the reduce op family (see ndarray/ops/BUILD): reductions, dot/batch_dot,
// ordering and indexing, following MXNet 1.9.1's `mx.nd.*` operators of the same names.
//
//   NDArray s = nd::sum(x, {.axis = Shape{1}, .keepdims = true});
//   NDArray c = nd::dot(a, b, /*transpose_a=*/false, /*transpose_b=*/true);
//   NDArrayVec vi = nd::topk(x, {.axis = -1, .k = 3, .ret_typ = "both"});
//
// Errors: mxnet::Error(kInvalidArgument) naming the op, the axis/attribute and the input shape
// (bad axes, shape mismatches, unsupported dtypes); kOutOfRange for indices outside an axis where
// the mode does not clip/wrap them (take mode="raise", gather_nd, scatter_nd).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/reduce/reduce_params.h"

namespace mxnet::ops {
// Per input axis, whether `op` reduces it (MXNet's rules: axis None or () -> every axis;
// negative axes count from the end; duplicates and out-of-range axes are kInvalidArgument).
std::vector<char> ResolveReduceAxes(std::string_view op, const Shape& in,
                                    const std::optional<Shape>& axis, bool exclude);
// The result shape of a reduction over `reduced` axes ((1,) when nothing is left, no keepdims).
Shape ReducedShape(const Shape& in, const std::vector<char>& reduced, bool keepdims);
}  // namespace mxnet::ops

namespace mxnet::nd {

// ---- Reductions ----
// Options of sum/mean/prod/nansum/nanprod/max/min: axis (None or (): all axes; an int tuple,
// negative from the end), keepdims, exclude (reduce the axes NOT listed).
using ReduceOptions = ops::ReduceAxesParam;

// Any dtype (bool too: sum/prod/max/min). Without keepdims, a result with no axes left is (1,).
// Integer sums wrap in the element type (MXNet); float16 accumulates in float32.
NDArray sum(const NDArray& x, const ReduceOptions& opts = {});
// sum / count, with the division done in the element type (integer mean truncates, MXNet).
NDArray mean(const NDArray& x, const ReduceOptions& opts = {});
NDArray prod(const NDArray& x, const ReduceOptions& opts = {});
// NaN counted as 0 (nansum) or 1 (nanprod).
NDArray nansum(const NDArray& x, const ReduceOptions& opts = {});
NDArray nanprod(const NDArray& x, const ReduceOptions& opts = {});
// NaN propagates. Reducing a zero-size axis into a non-empty result is kInvalidArgument.
NDArray max(const NDArray& x, const ReduceOptions& opts = {});
NDArray min(const NDArray& x, const ReduceOptions& opts = {});
// Single-axis conveniences: nd::sum(x, 1) etc.
NDArray sum(const NDArray& x, int axis, bool keepdims = false);
NDArray mean(const NDArray& x, int axis, bool keepdims = false);
NDArray max(const NDArray& x, int axis, bool keepdims = false);
NDArray min(const NDArray& x, int axis, bool keepdims = false);

// L1 (ord=1) or L2 (ord=2) norm over `axis` (None: all); out_dtype converts the result.
using NormOptions = ops::NormParam;
NDArray norm(const NDArray& x, const NormOptions& opts = {});

// Index of the first maximum/minimum along `axis` (None: of the flattened array, shape (1,)).
// The result has x's dtype (MXNet 1.x); if the row has a NaN, the first NaN's index.
NDArray argmax(const NDArray& x, std::optional<int> axis = std::nullopt, bool keepdims = false);
NDArray argmin(const NDArray& x, std::optional<int> axis = std::nullopt, bool keepdims = false);
// argmax along axis 1 (MXNet's legacy argmax_channel): (n, c, ...) -> (n, ...).
NDArray argmax_channel(const NDArray& x);

// ---- Linear algebra ----
// MXNet's dot: lhs (..., k) x rhs (k, ...) -> lhs.shape[:-1] + rhs.shape[1:]; transpose_a
// contracts lhs's first axis instead (output lhs.shape[1:] + ...), transpose_b rhs's last axis
// (output ... + rhs.shape[:-1]). 1-D x 1-D is the inner product, shape (1,). Floating dtypes;
// both inputs of one dtype. float32 runs on oneDNN.
NDArray dot(const NDArray& lhs, const NDArray& rhs, bool transpose_a = false,
            bool transpose_b = false);
// (B..., m, k) x (B..., k, n) -> (B..., m, n), N >= 3 dims, equal batch dims; transposes apply to
// the last two axes.
NDArray batch_dot(const NDArray& lhs, const NDArray& rhs, bool transpose_a = false,
                  bool transpose_b = false);

// ---- Ordering ----
// topk along `axis` (None: flattened); k < 1 means the whole axis. ret_typ "indices" (default;
// dtype attribute), "value", "mask" (x's dtype, 1 at the selected positions) or "both" (values,
// indices). Ties keep index order; NaN counts as the largest value.
using TopKOptions = ops::TopKParam;
NDArrayVec topk(const NDArray& x, const TopKOptions& opts = {});
// Sorted copy along `axis` (None: flattened, 1-D result).
NDArray sort(const NDArray& x, std::optional<int> axis = -1, bool is_ascend = true);
// Indices that sort x along `axis` (stable), in `dtype`.
NDArray argsort(const NDArray& x, std::optional<int> axis = -1, bool is_ascend = true,
                DType dtype = DType::kFloat32);

// ---- Indexing ----
// a.shape[:axis] + indices.shape + a.shape[axis+1:]; mode "clip" (default), "wrap" or "raise"
// (kOutOfRange on any index outside [0, n)). Indices of any dtype, floats truncated.
NDArray take(const NDArray& a, const NDArray& indices, int axis = 0,
             std::string_view mode = "clip");
// out[i, j] = data[i, index[i, j], j] along `axis`; index has data's shape without the axis (or
// with size 1 there); mode "clip" or "wrap".
NDArray pick(const NDArray& data, const NDArray& index, int axis = -1, bool keepdims = false,
             std::string_view mode = "clip");
// indices.shape + (depth,) with on_value where the index is, off_value elsewhere.
NDArray one_hot(const NDArray& indices, int depth, double on_value = 1.0, double off_value = 0.0,
                DType dtype = DType::kFloat32);
// weight (input_dim, output_dim) rows at data (clipped): data.shape + (output_dim,).
NDArray Embedding(const NDArray& data, const NDArray& weight, int64_t input_dim, int64_t output_dim,
                  DType dtype = DType::kFloat32, bool sparse_grad = false);
// indices (M, Y...) -> (Y...) + data.shape[M:]; negative indices count from the end.
NDArray gather_nd(const NDArray& data, const NDArray& indices);
// zeros(shape) with data (Y...) + shape[M:] written at indices (M, Y...).
NDArray scatter_nd(const NDArray& data, const NDArray& indices, const Shape& shape);
// out[i] = a[i, indices[i]] over a's last axis, int32 indices (deprecated; prefer pick).
NDArray batch_take(const NDArray& a, const NDArray& indices);

}  // namespace mxnet::nd
