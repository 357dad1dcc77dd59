// Minimal CUDA kernel used to prove the nvcc toolchain works under --config=cuda.
#pragma once

namespace mxnet::cuda_smoke {

// Returns the number of CUDA devices, or a negative CUDA error code when the runtime reports no
// usable device (e.g. on a build machine without a GPU).
int DeviceCount();

// y[i] = a * x[i] + y[i] on the first GPU for n floats; returns 0, or the CUDA error code.
int Saxpy(int n, float a, const float* x, float* y);

}  // namespace mxnet::cuda_smoke
