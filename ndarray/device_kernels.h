// Kernels of a device library registered by operator name (issue 24: the CUDA kernels of
// //ndarray/backends/cuda), kept beside the op registry rather than in Op::kernels, so that a
// library may register them from its static initializers before or after the op itself is
// registered (static initialization order across libraries is not defined) and without mutating
// an Op that other threads may be dispatching.
//
// Op::SelectKernel(kGPU, ...) tries the op's own GPU kernels, then those registered here under its
// canonical name (kCudnn before kCuda; the first whose FSupports takes the call), then the CPU
// fallback (ndarray/op.cc). Op::FindKernel / Op::Kernels include them.
//
// Defined in ndarray/op.cc (//ndarray:core); this header is its own target
// (//ndarray:device_kernels) so that adding it did not change the header set every compile
// action of the tree sees. Keep the declarations in step with op.cc's definitions.
#pragma once

#include <string>

#include "ndarray/op.h"

namespace mxnet {

// Registers `fn` for the op named `op_name` (its canonical name, not an alias) under `key`
// (key.device must not be kCPU: CPU kernels are registered with the op). Thread-safe. A second
// kernel for the same (name, key) is kInternal, as in Op::set_kernel.
void RegisterDeviceKernel(const std::string& op_name, KernelKey key, FCompute fn,
                          FSupports supports = nullptr);

}  // namespace mxnet
