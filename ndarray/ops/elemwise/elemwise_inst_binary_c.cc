// Compiles the kernels of MX_EW_BINARY_C (elemwise_inst.h): broadcast comparison.
#include "ndarray/ops/elemwise/elemwise_inst.h"

namespace mxnet::ops::ew {
MX_EW_BINARY_C(MX_EW_INSTANTIATE_BINARY)
}  // namespace mxnet::ops::ew
