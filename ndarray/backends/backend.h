// Compute backends' shared resources, one table per backend in the spirit of ggml's backend
// interfaces: what a backend keeps between kernel calls (compiled primitives, constant operands in
// its own layout, scratch memory) and the hooks that report and free it.
//
// Backends: "onednn" (CPU, the Backend::kOptimized kernels of ndarray/op.h;
// ndarray/backends/onednn) today; the CUDA backends (Backend::kCuda: cuBLAS handles,
// Backend::kCudnn: cuDNN handles and plans, per-thread streams, a caching allocator) will register
// their tables the same way. Kernels use their backend's own header; everything else uses only this
// one (no library headers here).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "base/device.h"
#include "ndarray/backends/primitive_cache.h"

namespace mxnet::backends {

// What a backend holds. For a backend without one of these the field stays zero.
struct BackendStats {
  CacheStats primitives;     // compiled primitives (oneDNN primitives; cuDNN plans)
  size_t constants = 0;      // constant operands kept in the backend's layout (reordered weights)
  size_t scratch_bytes = 0;  // scratch memory kept between calls (all threads)
  size_t scratch_buffers = 0;
};

struct BackendTable {
  std::string_view name;  // "onednn"
  DeviceType device = DeviceType::kCPU;
  BackendStats (*stats)() = nullptr;
  // Frees what the backend keeps between calls (primitives, constants, idle scratch; see the
  // backend's header for what is deferred while a kernel runs). Kernels keep working afterwards
  // (they recreate what they need).
  void (*release)() = nullptr;
};

// Adds a backend's table (static storage; from a static initializer). Thread-safe.
void RegisterBackend(const BackendTable* table);
// The registered backends, in registration order.
std::vector<const BackendTable*> Backends();
// The table named `name`, or nullptr.
const BackendTable* FindBackend(std::string_view name);
// Calls every registered backend's release hook (e.g. after a model is unloaded, or to return
// memory to the system between workloads).
void ReleaseCaches();

}  // namespace mxnet::backends
