// The nd:: free functions of the shape family (declared in shape_api.h).
#include "ndarray/ops/shape/shape_api.h"

namespace mxnet::nd {
namespace {

template <typename P>
NDArray Call1(const Op& op, P p, std::initializer_list<NDArray> inputs) {
  return Call(op, OpAttrs::From(op, std::move(p)), inputs)[0];
}

template <typename P>
NDArrayVec CallVec(const Op& op, P p, const std::vector<NDArray>& inputs) {
  OpAttrs a = OpAttrs::From(op, std::move(p));
  NDArrayVec out = Invoke(op, a, std::span<const NDArray>(inputs.data(), inputs.size()));
  out.resize(op.NumVisibleOutputs(a));
  return out;
}

template <typename P>
NDArray Create(const Op& op, P p, Device device) {
  return Invoke(op, OpAttrs::From(op, std::move(p)), {}, device)[0];
}

}  // namespace

NDArray reshape(const NDArray& x, const std::vector<int64_t>& shape, bool reverse) {
  ops::ReshapeParam p;
  p.shape = Shape(shape);
  p.reverse = reverse;
  return Call1(MX_ND_OP(Reshape), p, {x});
}

NDArray flatten(const NDArray& x) {
  const Op& op = MX_ND_OP(Flatten);
  return Call(op, NoAttrs(op), {x})[0];
}

NDArray expand_dims(const NDArray& x, int axis) {
  ops::ExpandDimsParam p;
  p.axis = axis;
  return Call1(MX_ND_OP(expand_dims), p, {x});
}

NDArray squeeze(const NDArray& x, std::optional<Shape> axis) {
  ops::SqueezeParam p;
  p.axis = std::move(axis);
  return Call1(MX_ND_OP(squeeze), p, {x});
}

NDArray reshape_like(const NDArray& lhs, const NDArray& rhs, std::optional<int> lhs_begin,
                     std::optional<int> lhs_end, std::optional<int> rhs_begin,
                     std::optional<int> rhs_end) {
  ops::ReshapeLikeParam p;
  p.lhs_begin = lhs_begin, p.lhs_end = lhs_end, p.rhs_begin = rhs_begin, p.rhs_end = rhs_end;
  return Call1(MX_ND_OP(reshape_like), p, {lhs, rhs});
}

NDArray shape_array(const NDArray& x) {
  const Op& op = MX_ND_OP(shape_array);
  return Call(op, NoAttrs(op), {x})[0];
}

NDArray size_array(const NDArray& x) {
  const Op& op = MX_ND_OP(size_array);
  return Call(op, NoAttrs(op), {x})[0];
}

NDArray transpose(const NDArray& x, const Shape& axes) {
  ops::TransposeParam p;
  p.axes = axes;
  return Call1(MX_ND_OP(transpose), p, {x});
}

NDArray swapaxes(const NDArray& x, int dim1, int dim2) {
  ops::SwapAxisParam p;
  p.dim1 = dim1, p.dim2 = dim2;
  return Call1(MX_ND_OP(SwapAxis), p, {x});
}

NDArray flip(const NDArray& x, const Shape& axes) {
  ops::ReverseParam p;
  p.axis = axes;
  return Call1(MX_ND_OP(reverse), p, {x});
}

NDArray depth_to_space(const NDArray& x, int block_size) {
  ops::DepthToSpaceParam p;
  p.block_size = block_size;
  return Call1(MX_ND_OP(depth_to_space), p, {x});
}

NDArray space_to_depth(const NDArray& x, int block_size) {
  ops::DepthToSpaceParam p;
  p.block_size = block_size;
  return Call1(MX_ND_OP(space_to_depth), p, {x});
}

NDArray Concat(const std::vector<NDArray>& inputs, int dim) {
  ops::ConcatParam p;
  p.num_args = static_cast<int>(inputs.size());
  p.dim = dim;
  return CallVec(MX_ND_OP(Concat), p, inputs)[0];
}

NDArray stack(const std::vector<NDArray>& inputs, int axis) {
  ops::StackParam p;
  p.num_args = static_cast<int>(inputs.size());
  p.axis = axis;
  return CallVec(MX_ND_OP(stack), p, inputs)[0];
}

NDArrayVec split(const NDArray& x, int num_outputs, int axis, bool squeeze_axis) {
  ops::SliceChannelParam p;
  p.num_outputs = num_outputs, p.axis = axis, p.squeeze_axis = squeeze_axis;
  return CallVec(MX_ND_OP(SliceChannel), p, {x});
}

NDArrayVec split_v2(const NDArray& x, const std::vector<int64_t>& indices, int axis,
                    bool squeeze_axis) {
  ops::SplitV2Param p;
  p.indices = Shape{0};
  for (int64_t i : indices) p.indices.push_back(i);
  p.axis = axis, p.squeeze_axis = squeeze_axis;
  return CallVec(MX_ND_OP(_split_v2), p, {x});
}

NDArrayVec split_v2(const NDArray& x, int sections, int axis, bool squeeze_axis) {
  ops::SplitV2Param p;
  p.sections = sections, p.axis = axis, p.squeeze_axis = squeeze_axis;
  return CallVec(MX_ND_OP(_split_v2), p, {x});
}

NDArray slice(const NDArray& x, const ops::OptIntTuple& begin, const ops::OptIntTuple& end,
              const ops::OptIntTuple& step) {
  ops::SliceParam p;
  p.begin = begin, p.end = end, p.step = step;
  return Call1(MX_ND_OP(slice), p, {x});
}

NDArray slice_axis(const NDArray& x, int axis, int64_t begin, std::optional<int64_t> end) {
  ops::SliceAxisParam p;
  p.axis = axis, p.begin = begin, p.end = end;
  return Call1(MX_ND_OP(slice_axis), p, {x});
}

NDArray slice_like(const NDArray& x, const NDArray& like, const Shape& axes) {
  ops::SliceLikeParam p;
  p.axes = axes;
  return Call1(MX_ND_OP(slice_like), p, {x, like});
}

NDArray tile(const NDArray& x, const Shape& reps) {
  ops::TileParam p;
  p.reps = reps;
  return Call1(MX_ND_OP(tile), p, {x});
}

NDArray repeat(const NDArray& x, int repeats, std::optional<int> axis) {
  ops::RepeatParam p;
  p.repeats = repeats, p.axis = axis;
  return Call1(MX_ND_OP(repeat), p, {x});
}

NDArray pad(const NDArray& x, const std::string& mode, const Shape& pad_width,
            double constant_value) {
  const Op& op = MX_ND_OP(Pad);
  ops::PadParam p;
  p.mode = mode, p.pad_width = pad_width, p.constant_value = constant_value;
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    MX_THROW(absl::StatusCode::kInvalidArgument, "Pad: attribute mode='", mode,
             "' is not one of {constant, edge, reflect}");
  return Call1(op, p, {x});
}

NDArray zeros(const Shape& shape, Device device, DType dtype) {
  ops::InitParam p;
  p.shape = shape, p.dtype = dtype;
  return Create(MX_ND_OP(_zeros), p, device);
}

NDArray ones(const Shape& shape, Device device, DType dtype) {
  ops::InitParam p;
  p.shape = shape, p.dtype = dtype;
  return Create(MX_ND_OP(_ones), p, device);
}

NDArray full(const Shape& shape, double value, Device device, DType dtype) {
  ops::FullParam p;
  p.shape = shape, p.value = value, p.dtype = dtype;
  return Create(MX_ND_OP(_full), p, device);
}

NDArray arange(double start, std::optional<double> stop, double step, int repeat, Device device,
               DType dtype) {
  ops::ArangeParam p;
  p.start = start, p.stop = stop, p.step = step, p.repeat = repeat, p.dtype = dtype;
  return Create(MX_ND_OP(_arange), p, device);
}

NDArray eye(int64_t N, int64_t M, int64_t k, Device device, DType dtype) {
  ops::EyeParam p;
  p.N = N, p.M = M, p.k = k, p.dtype = dtype;
  return Create(MX_ND_OP(_eye), p, device);
}

NDArray linspace(double start, double stop, int num, bool endpoint, Device device, DType dtype) {
  ops::LinspaceParam p;
  p.start = start, p.stop = stop, p.num = num, p.endpoint = endpoint, p.dtype = dtype;
  return Create(MX_ND_OP(_linspace), p, device);
}

namespace random {

NDArray uniform(double low, double high, const Shape& shape, Device device, DType dtype) {
  ops::UniformParam p;
  p.low = static_cast<float>(low), p.high = static_cast<float>(high), p.shape = shape,
  p.dtype = dtype;
  return Create(MX_ND_OP(_random_uniform), p, device);
}

NDArray normal(double loc, double scale, const Shape& shape, Device device, DType dtype) {
  ops::NormalParam p;
  p.loc = static_cast<float>(loc), p.scale = static_cast<float>(scale), p.shape = shape,
  p.dtype = dtype;
  return Create(MX_ND_OP(_random_normal), p, device);
}

NDArray randint(int64_t low, int64_t high, const Shape& shape, Device device, DType dtype) {
  ops::RandIntParam p;
  p.low = low, p.high = high, p.shape = shape, p.dtype = dtype;
  return Create(MX_ND_OP(_random_randint), p, device);
}

NDArray shuffle(const NDArray& x) {
  const Op& op = MX_ND_OP(_shuffle);
  return Call(op, NoAttrs(op), {x})[0];
}

NDArray sample_uniform(const NDArray& low, const NDArray& high, const Shape& shape,
                       std::optional<DType> dtype) {
  ops::SampleParam p;
  p.shape = shape, p.dtype = dtype;
  return Call1(MX_ND_OP(_sample_uniform), p, {low, high});
}

NDArray sample_normal(const NDArray& mu, const NDArray& sigma, const Shape& shape,
                      std::optional<DType> dtype) {
  ops::SampleParam p;
  p.shape = shape, p.dtype = dtype;
  return Call1(MX_ND_OP(_sample_normal), p, {mu, sigma});
}

}  // namespace random
}  // namespace mxnet::nd
