// Compiles the kernels of MX_EW_UNARY_B (elemwise_inst.h): unary rounding, sign, special functions,
// activations, bitwise_not.
#include "ndarray/ops/elemwise/elemwise_inst.h"

namespace mxnet::ops::ew {
MX_EW_UNARY_B(MX_EW_INSTANTIATE_UNARY)
}  // namespace mxnet::ops::ew
