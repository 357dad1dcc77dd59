// Compiles the kernels of MX_EW_UNARY_A (elemwise_inst.h): unary math (exp, log, trig, hyperbolic).
#include "ndarray/ops/elemwise/elemwise_inst.h"

namespace mxnet::ops::ew {
MX_EW_UNARY_A(MX_EW_INSTANTIATE_UNARY)
}  // namespace mxnet::ops::ew
