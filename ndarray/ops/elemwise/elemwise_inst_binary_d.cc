// Compiles the kernels of MX_EW_BINARY_D (elemwise_inst.h): broadcast logic and the NumPy integer
// ops (lcm, bitwise).
#include "ndarray/ops/elemwise/elemwise_inst.h"

namespace mxnet::ops::ew {
MX_EW_BINARY_D(MX_EW_INSTANTIATE_BINARY)
}  // namespace mxnet::ops::ew
