// The generic elementwise GPU kernel's launcher (elemwise_kernels.cu, nvcc; CUDA builds only).
#pragma once

#include "ndarray/backends/cuda/elemwise_ops.h"
#include "ndarray/backends/cuda/elemwise_plan.h"

namespace mxnet::backends::cuda {

// Queues out[i] = op(a[i], b[i] or scalar) for the plan's n elements of type `t` on `stream` (a
// cudaStream_t of the current device). `scalar` is the compute-type value (EwScalarFor). Returns
// nullptr, or the CUDA error of the launch.
const char* LaunchElemwise(EwOp op, EwDType t, const ElemwisePlan& plan, void* out, const void* a,
                           const void* b, double scalar, void* stream);

}  // namespace mxnet::backends::cuda
