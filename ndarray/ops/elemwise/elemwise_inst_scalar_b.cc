// Compiles the kernels of MX_EW_SCALAR_B (elemwise_inst.h): the NumPy-only scalar ops.
#include "ndarray/ops/elemwise/elemwise_inst.h"

namespace mxnet::ops::ew {
MX_EW_SCALAR_B(MX_EW_INSTANTIATE_SCALAR_SAME)
}  // namespace mxnet::ops::ew
