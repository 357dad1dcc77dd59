#include "gluon/nn/activations.h"

#include "base/strings.h"
#include "ndarray/ops/nn/nn_params.h"
#include "ndarray/params.h"

namespace mxnet::gluon::nn {
namespace {
internal::OpCall LeakyReLUOp(const char* act_type, float slope = ops::LeakyReLUParam().slope) {
  return internal::OpCall(MX_ND_OP(LeakyReLU),
                          ops::LeakyReLUParam{.act_type = act_type, .slope = slope});
}
}  // namespace

LeakyReLU::LeakyReLU(double alpha)
    : alpha_(alpha), op_(LeakyReLUOp("leaky", static_cast<float>(alpha))) {
  if (alpha < 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, "LeakyReLU: alpha must be >= 0, got ", alpha);
}
std::string LeakyReLU::repr_args() const { return PyFloatRepr(alpha_); }

PReLU::PReLU(InitializerPtr init, int64_t in_channels) : op_(LeakyReLUOp("prelu")) {
  if (in_channels < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, "PReLU: in_channels must be >= 1, got ",
             in_channels);
  alpha = register_parameter(
      "alpha", {.shape = Shape{in_channels}, .init = init ? init : init::Constant(0.25)});
}

ELU::ELU(double alpha) : op_(LeakyReLUOp("elu", static_cast<float>(alpha))) {}
SELU::SELU() : op_(LeakyReLUOp("selu")) {}
GELU::GELU() : op_(LeakyReLUOp("gelu")) {}

Swish::Swish(double beta)
    : scale_(MX_ND_OP(_mul_scalar), ops::ScalarParam{.scalar = beta}),
      sigmoid_(MX_ND_OP(sigmoid)),
      mul_(MX_ND_OP(elemwise_mul)) {}

NDArray Swish::forward(const NDArray& x) { return mul_({x, sigmoid_({scale_({x})})}); }

}  // namespace mxnet::gluon::nn
