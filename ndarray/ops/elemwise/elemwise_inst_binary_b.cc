// Compiles the kernels of MX_EW_BINARY_B (elemwise_inst.h): broadcast maximum, minimum, hypot and
// the NumPy arctan2, copysign, ldexp.
#include "ndarray/ops/elemwise/elemwise_inst.h"

namespace mxnet::ops::ew {
MX_EW_BINARY_B(MX_EW_INSTANTIATE_BINARY)
}  // namespace mxnet::ops::ew
