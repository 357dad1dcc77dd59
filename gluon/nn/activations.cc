#include "gluon/nn/activations.h"

#include "base/strings.h"
#include "ndarray/params.h"

namespace mxnet::gluon::nn {

LeakyReLU::LeakyReLU(double alpha)
    : alpha_(alpha), op_("LeakyReLU", {{"act_type", "leaky"}, {"slope", PyFloatRepr(alpha)}}) {
  if (alpha < 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, "LeakyReLU: alpha must be >= 0, got ", alpha);
}
std::string LeakyReLU::repr_args() const { return PyFloatRepr(alpha_); }

PReLU::PReLU(InitializerPtr init, int64_t in_channels) : op_("LeakyReLU", {{"act_type", "prelu"}}) {
  if (in_channels < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, "PReLU: in_channels must be >= 1, got ",
             in_channels);
  alpha = register_parameter(
      "alpha", {.shape = Shape{in_channels}, .init = init ? init : init::Constant(0.25)});
}

ELU::ELU(double alpha) : op_("LeakyReLU", {{"act_type", "elu"}, {"slope", PyFloatRepr(alpha)}}) {}
SELU::SELU() : op_("LeakyReLU", {{"act_type", "selu"}}) {}
GELU::GELU() : op_("LeakyReLU", {{"act_type", "gelu"}}) {}

Swish::Swish(double beta)
    : scale_("_mul_scalar", {{"scalar", PyFloatRepr(beta)}}),
      sigmoid_("sigmoid", {}),
      mul_("elemwise_mul", {}) {}

NDArray Swish::forward(const NDArray& x) { return mul_({x, sigmoid_({scale_({x})})}); }

}  // namespace mxnet::gluon::nn
