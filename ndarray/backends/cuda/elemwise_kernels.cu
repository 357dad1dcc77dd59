// The generic elementwise GPU kernel: one template over (op, element type, vector width)
// instantiated for every op of elemwise_ops.h, launched with a plan from elemwise_plan.h.
#include <cuda_runtime.h>

#include "ndarray/backends/cuda/elemwise_kernels.h"

namespace mxnet::backends::cuda {
namespace {

template <EwOp OP, typename S, int VEC>
__global__ void __launch_bounds__(kElemwiseBlock)
    ElemwiseKernel(S* out, const S* a, const S* b, typename EwType<S>::Acc s, int64_t n_vec,
                   int64_t n) {
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  ElemwiseThread<OP, S, VEC>(tid, stride, out, a, b, s, n_vec, n);
}

}  // namespace

const char* LaunchElemwise(EwOp op, EwDType t, const ElemwisePlan& plan, void* out, const void* a,
                           const void* b, double scalar, void* stream) {
  if (plan.grid == 0) return nullptr;
  auto launch = [&]<EwOp OP, typename S, int VEC>() {
    ElemwiseKernel<OP, S, VEC>
        <<<static_cast<unsigned>(plan.grid), plan.block, 0, static_cast<cudaStream_t>(stream)>>>(
            static_cast<S*>(out), static_cast<const S*>(a), static_cast<const S*>(b),
            static_cast<typename EwType<S>::Acc>(scalar), plan.n_vec, plan.n);
  };
  if (!EwDispatch(op, t, plan.vec, launch)) return "no kernel for this op/vector width";
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? nullptr : cudaGetErrorString(e);
}

}  // namespace mxnet::backends::cuda
