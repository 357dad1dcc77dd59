// nd:: free functions of the reduce family (declared in reduce_api.h).
#include "ndarray/ops/reduce/reduce_api.h"

namespace mxnet::nd {
namespace {
template <typename P>
NDArray Call1(const Op& op, const P& p, std::initializer_list<NDArray> in) {
  return Call(op, OpAttrs::From(op, p), in)[0];
}
ReduceOptions Axis1(int axis, bool keepdims) {
  ReduceOptions o;
  o.axis = Shape{axis};
  o.keepdims = keepdims;
  return o;
}
ops::ReduceAxisParam ArgParam(std::optional<int> axis, bool keepdims) {
  ops::ReduceAxisParam p;
  p.axis = axis;
  p.keepdims = keepdims;
  return p;
}
ops::DotParam DotFlags(bool ta, bool tb) {
  ops::DotParam p;
  p.transpose_a = ta;
  p.transpose_b = tb;
  return p;
}
}  // namespace

NDArray sum(const NDArray& x, const ReduceOptions& o) { return Call1(MX_ND_OP(sum), o, {x}); }
NDArray mean(const NDArray& x, const ReduceOptions& o) { return Call1(MX_ND_OP(mean), o, {x}); }
NDArray prod(const NDArray& x, const ReduceOptions& o) { return Call1(MX_ND_OP(prod), o, {x}); }
NDArray nansum(const NDArray& x, const ReduceOptions& o) { return Call1(MX_ND_OP(nansum), o, {x}); }
NDArray nanprod(const NDArray& x, const ReduceOptions& o) {
  return Call1(MX_ND_OP(nanprod), o, {x});
}
NDArray max(const NDArray& x, const ReduceOptions& o) { return Call1(MX_ND_OP(max), o, {x}); }
NDArray min(const NDArray& x, const ReduceOptions& o) { return Call1(MX_ND_OP(min), o, {x}); }
NDArray sum(const NDArray& x, int axis, bool keepdims) { return sum(x, Axis1(axis, keepdims)); }
NDArray mean(const NDArray& x, int axis, bool keepdims) { return mean(x, Axis1(axis, keepdims)); }
NDArray max(const NDArray& x, int axis, bool keepdims) { return max(x, Axis1(axis, keepdims)); }
NDArray min(const NDArray& x, int axis, bool keepdims) { return min(x, Axis1(axis, keepdims)); }

NDArray norm(const NDArray& x, const NormOptions& o) { return Call1(MX_ND_OP(norm), o, {x}); }

NDArray argmax(const NDArray& x, std::optional<int> axis, bool keepdims) {
  return Call1(MX_ND_OP(argmax), ArgParam(axis, keepdims), {x});
}
NDArray argmin(const NDArray& x, std::optional<int> axis, bool keepdims) {
  return Call1(MX_ND_OP(argmin), ArgParam(axis, keepdims), {x});
}
NDArray argmax_channel(const NDArray& x) {
  const Op& op = MX_ND_OP(argmax_channel);
  return Call(op, NoAttrs(op), {x})[0];
}

NDArray dot(const NDArray& lhs, const NDArray& rhs, bool ta, bool tb) {
  return Call1(MX_ND_OP(dot), DotFlags(ta, tb), {lhs, rhs});
}
NDArray batch_dot(const NDArray& lhs, const NDArray& rhs, bool ta, bool tb) {
  return Call1(MX_ND_OP(batch_dot), DotFlags(ta, tb), {lhs, rhs});
}

NDArrayVec topk(const NDArray& x, const TopKOptions& o) {
  const Op& op = MX_ND_OP(topk);
  return Call(op, OpAttrs::From(op, o), {x});
}
NDArray sort(const NDArray& x, std::optional<int> axis, bool is_ascend) {
  ops::SortParam p;
  p.axis = axis;
  p.is_ascend = is_ascend;
  return Call1(MX_ND_OP(sort), p, {x});
}
NDArray argsort(const NDArray& x, std::optional<int> axis, bool is_ascend, DType dtype) {
  ops::ArgSortParam p;
  p.axis = axis;
  p.is_ascend = is_ascend;
  p.dtype = dtype;
  return Call1(MX_ND_OP(argsort), p, {x});
}

NDArray take(const NDArray& a, const NDArray& indices, int axis, std::string_view mode) {
  const Op& op = MX_ND_OP(take);
  ops::TakeParam p;
  p.axis = axis;
  p.mode = std::string(mode);
  return Call1(op, p, {a, indices});
}
NDArray pick(const NDArray& data, const NDArray& index, int axis, bool keepdims,
             std::string_view mode) {
  const Op& op = MX_ND_OP(pick);
  ops::PickParam p;
  p.axis = axis;
  p.keepdims = keepdims;
  p.mode = std::string(mode);
  return Call1(op, p, {data, index});
}
NDArray one_hot(const NDArray& indices, int depth, double on_value, double off_value, DType dtype) {
  ops::OneHotParam p;
  p.depth = depth;
  p.on_value = on_value;
  p.off_value = off_value;
  p.dtype = dtype;
  return Call1(MX_ND_OP(one_hot), p, {indices});
}
NDArray Embedding(const NDArray& data, const NDArray& weight, int64_t input_dim, int64_t output_dim,
                  DType dtype, bool sparse_grad) {
  ops::EmbeddingParam p;
  p.input_dim = input_dim;
  p.output_dim = output_dim;
  p.dtype = dtype;
  p.sparse_grad = sparse_grad;
  return Call1(MX_ND_OP(Embedding), p, {data, weight});
}
NDArray gather_nd(const NDArray& data, const NDArray& indices) {
  const Op& op = MX_ND_OP(gather_nd);
  return Call(op, NoAttrs(op), {data, indices})[0];
}
NDArray scatter_nd(const NDArray& data, const NDArray& indices, const Shape& shape) {
  ops::ScatterNDParam p;
  p.shape = shape;
  return Call1(MX_ND_OP(scatter_nd), p, {data, indices});
}
NDArray batch_take(const NDArray& a, const NDArray& indices) {
  const Op& op = MX_ND_OP(batch_take);
  return Call(op, NoAttrs(op), {a, indices})[0];
}

}  // namespace mxnet::nd
