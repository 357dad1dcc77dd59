#include "tools/build_defs/cuda_smoke.h"

#include <cuda_runtime.h>

namespace mxnet::cuda_smoke {
namespace {
__global__ void SaxpyKernel(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
}  // namespace

int DeviceCount() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  return e == cudaSuccess ? n : -static_cast<int>(e);
}

int Saxpy(int n, float a, const float* x, float* y) {
  float *dx = nullptr, *dy = nullptr;
  size_t bytes = sizeof(float) * n;
  if (cudaError_t e = cudaMalloc(&dx, bytes); e != cudaSuccess) return e;
  if (cudaError_t e = cudaMalloc(&dy, bytes); e != cudaSuccess) {
    cudaFree(dx);
    return e;
  }
  cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice);
  SaxpyKernel<<<(n + 255) / 256, 256>>>(n, a, dx, dy);
  cudaError_t e = cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  return e;
}

}  // namespace mxnet::cuda_smoke
