// The generic elementwise GPU kernel's launcher (elemwise_kernels.cu, nvcc; CUDA builds only).
#pragma once

#include "ndarray/backends/cuda/elemwise_ops.h"
#include "ndarray/backends/cuda/elemwise_plan.h"

namespace mxnet::backends::cuda {

// Queues out[i] = op(a[i], b[i] or scalar) for the plan's n elements (float64 when is_double,
// else float32) on `stream` (a cudaStream_t of the current device). Returns nullptr, or the CUDA
// error of the launch ("cudaErrorInvalidConfiguration: ...").
const char* LaunchElemwise(EwOp op, bool is_double, const ElemwisePlan& plan, void* out,
                           const void* a, const void* b, double scalar, void* stream);

}  // namespace mxnet::backends::cuda
