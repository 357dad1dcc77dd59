// Compiles the kernels of MX_EW_SCALAR_A (elemwise_inst.h): scalar ops of the legacy family (and
// the NumPy ones sharing their functors).
#include "ndarray/ops/elemwise/elemwise_inst.h"

namespace mxnet::ops::ew {
MX_EW_SCALAR_A(MX_EW_INSTANTIATE_SCALAR)
}  // namespace mxnet::ops::ew
