// Compiles the kernels of MX_EW_BINARY_A (elemwise_inst.h): broadcast arithmetic (add, subtract,
// multiply, divide, mod, power).
#include "ndarray/ops/elemwise/elemwise_inst.h"

namespace mxnet::ops::ew {
MX_EW_BINARY_A(MX_EW_INSTANTIATE_BINARY)
}  // namespace mxnet::ops::ew
