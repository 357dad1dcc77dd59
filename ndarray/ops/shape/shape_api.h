// nd:: free functions of the shape op family (see ndarray/ops/BUILD): shape manipulation,
// joining/splitting, slicing, creation and random sampling. Each calls the registered MXNet op
// named in its comment (same semantics as MXNet 1.9.1's mx.nd.<op>); errors are mxnet::Error
// (kInvalidArgument) naming the op, the attribute and the offending shape. Results are new
// arrays (copies), never views. Every function keeps the input dtype unless stated otherwise.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/shape/shape_params.h"

namespace mxnet::nd {

// ---- Shape changes (copies; gradients are reshape_like) ----

// Reshape: MXNet codes 0 (copy dim), -1 (infer), -2 (copy the rest), -3 (merge two dims),
// -4 a b (split a dim in two; one of a, b may be -1). reverse applies them right to left.
// reshape(x(2,3,4), {0, -1}) -> (2, 12); {-3, 4} -> (6, 4); {-4, 1, 2, -2} -> (1, 2, 3, 4).
// Error if the element count changes or a code has no input dim.
NDArray reshape(const NDArray& x, const std::vector<int64_t>& shape, bool reverse = false);
// Flatten: (d0, d1, ..., dk) -> (d0, d1*...*dk); (n,) -> (n, 1). Error on 0-d input.
NDArray flatten(const NDArray& x);
// expand_dims: inserts a size-1 axis at `axis` in [-ndim-1, ndim].
NDArray expand_dims(const NDArray& x, int axis);
// squeeze: removes the size-1 axes listed (None: all size-1 axes). A listed axis of another size
// is an error. Squeezing every axis gives (1,) as in MXNet 1.x.
NDArray squeeze(const NDArray& x, std::optional<Shape> axis = std::nullopt);
// reshape_like: lhs dims [lhs_begin, lhs_end) become rhs dims [rhs_begin, rhs_end) (default: lhs
// takes rhs's whole shape); sizes must agree. Negative indices count from the end.
NDArray reshape_like(const NDArray& lhs, const NDArray& rhs,
                     std::optional<int> lhs_begin = std::nullopt,
                     std::optional<int> lhs_end = std::nullopt,
                     std::optional<int> rhs_begin = std::nullopt,
                     std::optional<int> rhs_end = std::nullopt);
// shape_array: x's shape as an int64 array of shape (ndim,). size_array: x.size() as int64 (1,).
NDArray shape_array(const NDArray& x);
NDArray size_array(const NDArray& x);

// ---- Axis permutations ----

// transpose: output dim i is input dim axes[i] (empty: reversed order); negative axes allowed.
// transpose(x(32,64,56,56), {0, 2, 3, 1}) is NCHW -> NHWC. Error unless axes is a permutation.
NDArray transpose(const NDArray& x, const Shape& axes = Shape());
// SwapAxis (swapaxes): interchanges two axes (negative allowed).
NDArray swapaxes(const NDArray& x, int dim1 = 0, int dim2 = 0);
// reverse (flip): reverses the element order along each listed axis.
NDArray flip(const NDArray& x, const Shape& axes);
// depth_to_space: (N, C, H, W) -> (N, C/b^2, H*b, W*b); C must be a multiple of b^2.
NDArray depth_to_space(const NDArray& x, int block_size);
// space_to_depth: (N, C, H, W) -> (N, C*b^2, H/b, W/b); H and W must be multiples of b.
NDArray space_to_depth(const NDArray& x, int block_size);

// ---- Joining and splitting ----

// Concat (concat): joins along `dim` (negative allowed); all other dims must agree.
NDArray Concat(const std::vector<NDArray>& inputs, int dim = 1);
inline NDArray concat(const std::vector<NDArray>& inputs, int dim = 1) {
  return Concat(inputs, dim);
}
// stack: joins same-shaped inputs along a new axis `axis` of the result (in [-ndim-1, ndim]).
NDArray stack(const std::vector<NDArray>& inputs, int axis = 0);
// SliceChannel (split): num_outputs equal parts along `axis` (the size must divide evenly);
// squeeze_axis drops the axis (its size must then equal num_outputs).
NDArrayVec split(const NDArray& x, int num_outputs, int axis = 1, bool squeeze_axis = false);
// _split_v2 (mx.nd.split_v2): parts starting at 0 and at each of `indices` (increasing), or
// `sections` near-equal parts (the first len % sections one element longer).
NDArrayVec split_v2(const NDArray& x, const std::vector<int64_t>& indices, int axis = 0,
                    bool squeeze_axis = false);
NDArrayVec split_v2(const NDArray& x, int sections, int axis = 0, bool squeeze_axis = false);

// ---- Slicing ----

// slice (crop): per leading axis, begin/end/step with None entries (MXNet/NumPy rules: negative
// indices count from the end, ends are clipped, negative steps go backwards; None begin/end are
// the first/last element in the step's direction). Axes beyond begin.size() are kept whole.
// slice(x(4,5), {1, std::nullopt}, {3, std::nullopt}) -> rows 1..2; slice(x, {std::nullopt},
// {std::nullopt}, {-1}) reverses axis 0. Error if step is 0 or begin/end/step lengths differ.
NDArray slice(const NDArray& x, const ops::OptIntTuple& begin, const ops::OptIntTuple& end,
              const ops::OptIntTuple& step = {});
// slice_axis: [begin, end) along `axis` (negative allowed; end None = the axis size). MXNet
// requires begin < end and end <= size.
NDArray slice_axis(const NDArray& x, int axis, int64_t begin, std::optional<int64_t> end);
// slice_like: x cut from the start of each of `axes` (empty: all) to like's size there.
NDArray slice_like(const NDArray& x, const NDArray& like, const Shape& axes = Shape());

// ---- Replication and padding ----

// tile: repeats the whole array reps[i] times per axis (reps and shape aligned at the end).
NDArray tile(const NDArray& x, const Shape& reps);
// repeat: repeats each element `repeats` times along `axis` (None: flattened, 1-D result).
NDArray repeat(const NDArray& x, int repeats, std::optional<int> axis = std::nullopt);
// Pad (pad): 4-D/5-D input; pad_width = (before, after) per axis, zeros for the first two axes;
// mode "constant" (constant_value), "edge" or "reflect" (pads smaller than the axis).
NDArray pad(const NDArray& x, const std::string& mode, const Shape& pad_width,
            double constant_value = 0);

// ---- Creation (no inputs; float32 on cpu(0) unless given) ----

// _zeros / _ones / _full: arrays of `shape` filled with 0, 1 or `value` (converted to dtype).
NDArray zeros(const Shape& shape, Device device = cpu(), DType dtype = DType::kFloat32);
NDArray ones(const Shape& shape, Device device = cpu(), DType dtype = DType::kFloat32);
NDArray full(const Shape& shape, double value, Device device = cpu(),
             DType dtype = DType::kFloat32);
// _arange: start, start+step, ... below stop (stop None: [0, start)), each value `repeat` times;
// values are computed in dtype like MXNet. Error on step 0 or an empty range (MXNet's rule).
NDArray arange(double start, std::optional<double> stop = std::nullopt, double step = 1.0,
               int repeat = 1, Device device = cpu(), DType dtype = DType::kFloat32);
// _eye: N x M (M 0: N) with ones on diagonal k.
NDArray eye(int64_t N, int64_t M = 0, int64_t k = 0, Device device = cpu(),
            DType dtype = DType::kFloat32);
// _linspace: num values from start to stop (stop included iff endpoint).
NDArray linspace(double start, double stop, int num, bool endpoint = true, Device device = cpu(),
                 DType dtype = DType::kFloat32);

// ---- Random sampling from the global generator (mxnet::random::seed makes it repeatable) ----
namespace random {
// _random_uniform: U[low, high); dtype float16/32/64. Error if low > high.
NDArray uniform(double low, double high, const Shape& shape, Device device = cpu(),
                DType dtype = DType::kFloat32);
// _random_normal: N(loc, scale^2); scale > 0.
NDArray normal(double loc, double scale, const Shape& shape, Device device = cpu(),
               DType dtype = DType::kFloat32);
// _random_randint: integers in [low, high); dtype int32 or int64. Error unless low < high.
NDArray randint(int64_t low, int64_t high, const Shape& shape, Device device = cpu(),
                DType dtype = DType::kInt32);
// _shuffle: a random permutation of x along axis 0.
NDArray shuffle(const NDArray& x);
// _sample_uniform / _sample_normal: for each element of the parameter arrays (same shape S),
// `shape` samples; result S + shape, float32 unless dtype is given.
NDArray sample_uniform(const NDArray& low, const NDArray& high, const Shape& shape = Shape(),
                       std::optional<DType> dtype = std::nullopt);
NDArray sample_normal(const NDArray& mu, const NDArray& sigma, const Shape& shape = Shape(),
                      std::optional<DType> dtype = std::nullopt);
}  // namespace random

}  // namespace mxnet::nd
