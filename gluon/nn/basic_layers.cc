#include "gluon/nn/basic_layers.h"

#include <limits>

#include "base/strings.h"
#include "ndarray/ops/conv/conv_params.h"
#include "ndarray/ops/nn/nn_params.h"
#include "ndarray/ops/reduce/reduce_params.h"
#include "ndarray/ops/shape/shape_params.h"
#include "ndarray/params.h"

namespace mxnet::gluon::nn {
namespace {
NDArray Apply(const Op& op, const OpAttrs& attrs, std::vector<NDArray> inputs) {
  return Invoke(op, attrs, inputs)[0];
}

NDArrayVec Chain(const std::vector<std::pair<std::string, BlockPtr>>& children, NDArrayVec x) {
  for (const auto& [_, c] : children) x = (*c)(x);
  return x;
}
}  // namespace

Sequential& Sequential::add(std::initializer_list<BlockPtr> blocks) {
  for (const auto& b : blocks) add(b);
  return *this;
}
Sequential& Sequential::add(BlockPtr block) {
  register_child(std::move(block));
  return *this;
}
NDArrayVec Sequential::forward(const NDArrayVec& inputs) { return Chain(children_, inputs); }

HybridSequential& HybridSequential::add(std::initializer_list<BlockPtr> blocks) {
  for (const auto& b : blocks) add(b);
  return *this;
}
HybridSequential& HybridSequential::add(BlockPtr block) {
  register_child(std::move(block));
  return *this;
}
NDArrayVec HybridSequential::forward(const NDArrayVec& inputs) { return Chain(children_, inputs); }

Dense::Dense(int64_t units, DenseOptions o) : units_(units), options_(std::move(o)) {
  if (units <= 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, "Dense: units must be positive, got ", units);
  if (units > std::numeric_limits<int>::max())  // FullyConnected's num_hidden is an int
    MX_THROW(absl::StatusCode::kInvalidArgument, "Dense: units must be below 2^31, got ", units);
  weight = register_parameter(
      "weight", {.shape = Shape{units, options_.in_units > 0 ? options_.in_units : -1},
                 .dtype = options_.dtype,
                 .init = options_.weight_initializer});
  if (options_.use_bias)
    bias = register_parameter(
        "bias", {.shape = Shape{units},
                 .dtype = options_.dtype,
                 .init = options_.bias_initializer ? options_.bias_initializer : init::Zero()});
  fc_attrs_ = CheckedAttrs(MX_ND_OP(FullyConnected),
                           ops::FullyConnectedParam{.num_hidden = static_cast<int>(units),
                                                    .no_bias = !options_.use_bias,
                                                    .flatten = options_.flatten});
  if (!options_.activation.empty())
    act_attrs_ =
        CheckedAttrs(MX_ND_OP(Activation), ops::ActivationParam{.act_type = options_.activation});
}

NDArray Dense::forward(const NDArray& x) {
  Device d = x.device();
  std::vector<NDArray> in = {x, weight->data(d)};
  if (bias) in.push_back(bias->data(d));
  NDArray y = Apply(*fc_attrs_.op(), fc_attrs_, in);
  if (act_attrs_.op()) y = Apply(*act_attrs_.op(), act_attrs_, {y});
  return y;
}

std::string Dense::repr_args() const {
  int64_t in = weight->shape().ndim() == 2 ? weight->shape()[1] : -1;
  std::string act =
      options_.activation.empty() ? "linear" : StrCat("Activation(", options_.activation, ")");
  return StrCat(in > 0 ? StrCat(in) : std::string("None"), " -> ", units_, ", ", act);
}

Activation::Activation(std::string activation) : act_(std::move(activation)) {
  attrs_ = CheckedAttrs(MX_ND_OP(Activation), ops::ActivationParam{.act_type = act_});
}

NDArray Activation::forward(const NDArray& x) { return Apply(*attrs_.op(), attrs_, {x}); }

Dropout::Dropout(double rate, Shape axes) : rate_(rate), axes_(axes) {
  if (!(rate >= 0 && rate <= 1))
    MX_THROW(absl::StatusCode::kInvalidArgument, "Dropout: rate must be in [0, 1], got ", rate);
  // MXNet: Dropout op for rate > 0, identity otherwise.
  op_ = rate > 0 ? internal::OpCall(MX_ND_OP(Dropout),
                                    ops::DropoutParam{.p = static_cast<float>(rate), .axes = axes})
                 : internal::OpCall(MX_ND_OP(_copy));
}

std::string Dropout::repr_args() const {
  return StrCat("p = ", PyFloatRepr(rate_), ", axes=", axes_.ToString());
}

namespace {
ParameterPtr Param(Block& b, const char* name, int64_t c, InitializerPtr init, InitializerPtr dflt,
                   GradReq req = GradReq::kWrite) {
  return b.register_parameter(name, {.shape = Shape{c > 0 ? c : -1},
                                     .init = init ? init : dflt,
                                     .grad_req = req,
                                     .differentiable = req != GradReq::kNull});
}
}  // namespace

BatchNorm::BatchNorm(BatchNormOptions o) : o_(std::move(o)) {
  int64_t c = o_.in_channels;
  gamma = Param(*this, "gamma", c, o_.gamma_initializer, init::One(),
                o_.scale ? GradReq::kWrite : GradReq::kNull);
  beta = Param(*this, "beta", c, o_.beta_initializer, init::Zero(),
               o_.center ? GradReq::kWrite : GradReq::kNull);
  running_mean =
      Param(*this, "running_mean", c, o_.running_mean_initializer, init::Zero(), GradReq::kNull);
  running_var =
      Param(*this, "running_var", c, o_.running_variance_initializer, init::One(), GradReq::kNull);
  op_ = internal::OpCall(MX_ND_OP(BatchNorm),
                         ops::BatchNormParam{.eps = o_.epsilon,
                                             .momentum = static_cast<float>(o_.momentum),
                                             .fix_gamma = !o_.scale,
                                             .use_global_stats = o_.use_global_stats,
                                             .axis = o_.axis});
}

void BatchNorm::cast(DType dtype) {
  HybridBlock::cast(dtype == DType::kFloat16 ? DType::kFloat32 : dtype);
}

NDArray BatchNorm::forward(const NDArray& x) {
  Device d = x.device();
  return op_({x, gamma->data(d), beta->data(d), running_mean->data(d), running_var->data(d)});
}

std::string BatchNorm::repr_args() const {
  int64_t c = gamma->shape().is_known() ? gamma->shape()[0] : -1;
  return StrCat("axis=", o_.axis, ", eps=", PyFloatRepr(o_.epsilon),
                ", momentum=", PyFloatRepr(o_.momentum),
                ", fix_gamma=", o_.scale ? "False" : "True",
                ", use_global_stats=", o_.use_global_stats ? "True" : "False",
                ", in_channels=", c > 0 ? StrCat(c) : std::string("None"));
}

namespace {
std::string PyBool(bool b) { return b ? "True" : "False"; }
// gamma.shape[0] as MXNet 1.9.1 prints it: 0 while unknown.
int64_t KnownDim0(const Parameter& p) {
  return p.shape().ndim_known() && p.shape().ndim() > 0 && p.shape()[0] > 0 ? p.shape()[0] : 0;
}
}  // namespace

LayerNorm::LayerNorm(int axis, double eps, bool center, bool scale, int64_t c,
                     InitializerPtr beta_init, InitializerPtr gamma_init)
    : axis_(axis),
      eps_(eps),
      center_(center),
      scale_(scale),
      op_(MX_ND_OP(LayerNorm), ops::LayerNormParam{.axis = axis, .eps = static_cast<float>(eps)}) {
  if (c < 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, "LayerNorm: in_channels must be >= 0, got ", c);
  gamma =
      Param(*this, "gamma", c, gamma_init, init::One(), scale ? GradReq::kWrite : GradReq::kNull);
  beta =
      Param(*this, "beta", c, beta_init, init::Zero(), center ? GradReq::kWrite : GradReq::kNull);
}
NDArray LayerNorm::forward(const NDArray& x) {
  return op_({x, gamma->data(x.device()), beta->data(x.device())});
}
std::string LayerNorm::repr_args() const {
  return StrCat("eps=", PyFloatRepr(eps_), ", axis=", axis_, ", center=", PyBool(center_),
                ", scale=", PyBool(scale_), ", in_channels=", KnownDim0(*gamma));
}

GroupNorm::GroupNorm(int groups, double eps, bool center, bool scale, int64_t /*in_channels*/,
                     InitializerPtr beta_init, InitializerPtr gamma_init)
    : num_groups_(groups),
      eps_(eps),
      center_(center),
      scale_(scale),
      op_(MX_ND_OP(GroupNorm),
          ops::GroupNormParam{.num_groups = groups, .eps = static_cast<float>(eps)}) {
  if (groups < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, "GroupNorm: num_groups must be >= 1, got ",
             groups);
  // MXNet 1.9.1: (num_groups,), known from the start.
  gamma = Param(*this, "gamma", groups, gamma_init, init::One(),
                scale ? GradReq::kWrite : GradReq::kNull);
  beta = Param(*this, "beta", groups, beta_init, init::Zero(),
               center ? GradReq::kWrite : GradReq::kNull);
}
NDArray GroupNorm::forward(const NDArray& x) {
  return op_({x, gamma->data(x.device()), beta->data(x.device())});
}
std::string GroupNorm::repr_args() const {
  return StrCat("eps=", PyFloatRepr(eps_), ", num_groups=", num_groups_,
                ", center=", PyBool(center_), ", scale=", PyBool(scale_));
}

InstanceNorm::InstanceNorm(int axis, double eps, bool center, bool scale, int64_t c,
                           InitializerPtr beta_init, InitializerPtr gamma_init)
    : axis_(axis),
      eps_(eps),
      center_(center),
      scale_(scale),
      op_(MX_ND_OP(InstanceNorm), ops::InstanceNormParam{.eps = static_cast<float>(eps)}) {
  if (c < 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, "InstanceNorm: in_channels must be >= 0, got ", c);
  if (axis == 0)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "InstanceNorm: axis must not be 0 (the batch axis), got ", axis);
  gamma =
      Param(*this, "gamma", c, gamma_init, init::One(), scale ? GradReq::kWrite : GradReq::kNull);
  beta =
      Param(*this, "beta", c, beta_init, init::Zero(), center ? GradReq::kWrite : GradReq::kNull);
  // MXNet: x.swapaxes(1, axis) -> InstanceNorm -> swapaxes back.
  if (axis != 1)
    swap_ = internal::OpCall(MX_ND_OP(SwapAxis), ops::SwapAxisParam{.dim1 = 1, .dim2 = axis});
}
NDArray InstanceNorm::forward(const NDArray& x) {
  if (!swap_.valid()) return op_({x, gamma->data(x.device()), beta->data(x.device())});
  NDArray y = op_({swap_({x}), gamma->data(x.device()), beta->data(x.device())});
  return swap_({y});
}
std::string InstanceNorm::repr_args() const {
  return StrCat("eps=", PyFloatRepr(eps_), ", axis=", axis_, ", center=", PyBool(center_),
                ", scale=", PyBool(scale_), ", in_channels=", KnownDim0(*gamma));
}

Embedding::Embedding(int64_t input_dim, int64_t output_dim, DType dtype, InitializerPtr winit,
                     bool sparse_grad)
    : input_dim_(input_dim), output_dim_(output_dim) {
  if (input_dim <= 0 || output_dim <= 0)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "Embedding: input_dim and output_dim must be positive, got ", input_dim, " and ",
             output_dim);
  op_ = internal::OpCall(MX_ND_OP(Embedding), ops::EmbeddingParam{.input_dim = input_dim,
                                                                  .output_dim = output_dim,
                                                                  .dtype = dtype,
                                                                  .sparse_grad = sparse_grad});
  weight = register_parameter(
      "weight", {.shape = Shape{input_dim, output_dim},
                 .dtype = dtype,
                 .init = winit,
                 .grad_stype = sparse_grad ? StorageType::kRowSparse : StorageType::kDefault});
}
NDArray Embedding::forward(const NDArray& x) { return op_({x, weight->data(x.device())}); }
std::string Embedding::repr_args() const {
  return StrCat(input_dim_, " -> ", output_dim_, ", ", DTypeName(weight->dtype()));
}

namespace {
NDArrayVec ConcatChildren(const std::vector<std::pair<std::string, BlockPtr>>& children,
                          const NDArrayVec& in, int axis) {
  std::vector<NDArray> outs;
  for (const auto& [_, c] : children) {
    NDArrayVec o = (*c)(in);
    outs.insert(outs.end(), o.begin(), o.end());
  }
  const Op& concat = MX_ND_OP(Concat);
  OpAttrs a = CheckedAttrs(
      concat, ops::ConcatParam{.num_args = static_cast<int>(outs.size()), .dim = axis});
  return {Invoke(concat, a, outs)[0]};
}
}  // namespace

NDArrayVec Concatenate::forward(const NDArrayVec& inputs) {
  return ConcatChildren(children_, inputs, axis_);
}
NDArrayVec HybridConcatenate::forward(const NDArrayVec& inputs) {
  return ConcatChildren(children_, inputs, axis_);
}

}  // namespace mxnet::gluon::nn
