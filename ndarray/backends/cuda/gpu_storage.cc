// The GPU's DeviceBackend (ndarray/storage.h) and its backends::BackendTable, registered at start
// when this library is linked into a CUDA build: Storage::Alloc(bytes, gpu(N)) then takes memory
// from gpu(N)'s caching allocator on gpu(N)'s stream, and CopyBytes / NDArray::copyto /
// as_in_context move data between the host and the GPU. It also replaces cpu_pinned(N)'s backend:
// page-locked host memory (cudaHostAlloc, portable to all GPUs) when the machine has a GPU, so
// host<->GPU copies of such arrays (DataLoader batches) run at full speed; ordinary host memory
// otherwise. Storage's pool caches freed pinned blocks like other host memory. Without CUDA in
// the build nothing is registered: gpu(N) stays "requested but this build has no CUDA"
// (ndarray/storage.cc) and cpu_pinned(N) is ordinary host memory.
#include "ndarray/backends/backend.h"
#include "ndarray/backends/cuda/gpu.h"
#include "ndarray/storage.h"

#ifdef MXNET_CUDA
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>

#include "base/error.h"
#include "base/strings.h"
#endif

namespace mxnet::backends::cuda {
namespace {

#ifdef MXNET_CUDA

void Check(cudaError_t e, const char* what, int id, size_t bytes) {
  if (e != cudaSuccess)
    MX_THROW(absl::StatusCode::kInternal, gpu(id).ToString(), ": ", what, " of ", bytes,
             " bytes failed: ", cudaGetErrorName(e), ": ", cudaGetErrorString(e));
}

class GpuBackend final : public DeviceBackend {
 public:
  void* Alloc(size_t bytes, int id) override { return Allocator(id).Malloc(bytes, Stream(id)); }
  void Free(void* ptr, size_t, int id) override { Allocator(id).Free(ptr); }
  // Queued on the device's stream after the work that produced `src`, then waited for: the host
  // sees the finished values.
  void CopyToHost(void* host_dst, const void* src, size_t bytes, int id) override {
    auto s = static_cast<cudaStream_t>(Stream(id));
    cudaSetDevice(id);
    Check(cudaMemcpyAsync(host_dst, src, bytes, cudaMemcpyDeviceToHost, s), "copy to host", id,
          bytes);
    Check(cudaStreamSynchronize(s), "copy to host", id, bytes);
  }
  // Waited for as well: the caller may free or change `host_src` right after.
  void CopyFromHost(void* dst, const void* host_src, size_t bytes, int id) override {
    auto s = static_cast<cudaStream_t>(Stream(id));
    cudaSetDevice(id);
    Check(cudaMemcpyAsync(dst, host_src, bytes, cudaMemcpyHostToDevice, s), "copy from host", id,
          bytes);
    Check(cudaStreamSynchronize(s), "copy from host", id, bytes);
  }
  // Asynchronous, ordered on the device's stream.
  void CopyWithin(void* dst, const void* src, size_t bytes, int id) override {
    auto s = static_cast<cudaStream_t>(Stream(id));
    cudaSetDevice(id);
    Check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s), "device copy", id, bytes);
  }
  void Synchronize(int id) override { cuda::Synchronize(id); }
};

class PinnedBackend final : public DeviceBackend {
 public:
  void* Alloc(size_t bytes, int) override {
    void* p = nullptr;
    if (Pinned()) {
      cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
      if (e != cudaSuccess) {
        cudaGetLastError();
        MX_THROW(absl::StatusCode::kResourceExhausted, "cpu_pinned: cudaHostAlloc of ", bytes,
                 " bytes failed: ", cudaGetErrorName(e), ": ", cudaGetErrorString(e));
      }
      return p;
    }
    p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p)
      MX_THROW(absl::StatusCode::kResourceExhausted, "cpu_pinned: cannot allocate ", bytes,
               " bytes");
    return p;
  }
  void Free(void* p, size_t, int) override {
    if (Pinned())
      cudaFreeHost(p);
    else
      std::free(p);
  }
  void CopyToHost(void* d, const void* s, size_t n, int) override { std::memcpy(d, s, n); }
  void CopyFromHost(void* d, const void* s, size_t n, int) override { std::memcpy(d, s, n); }
  void CopyWithin(void* d, const void* s, size_t n, int) override { std::memmove(d, s, n); }
  void Synchronize(int) override {}

 private:
  // Decided at the first allocation (not at start: no CUDA call in programs that never pin) and
  // kept, so every block is freed the way it was allocated.
  static bool Pinned() {
    static const bool pinned = GpuCount() > 0;
    return pinned;
  }
};

BackendStats CudaStats() {
  BackendStats s;
  for (int i = 0; i < GpuCount(); ++i) {
    AllocatorStats a = MemoryStats(i);
    s.scratch_bytes += a.bytes_cached;  // device memory kept for reuse
  }
  return s;
}
void CudaRelease() { EmptyCache(-1); }

constexpr BackendTable kCudaTable{"cuda", DeviceType::kGPU, &CudaStats, &CudaRelease};

const bool kRegistered = [] {
  RegisterDeviceBackend(DeviceType::kGPU, std::make_unique<GpuBackend>());
  RegisterDeviceBackend(DeviceType::kCPUPinned, std::make_unique<PinnedBackend>());
  RegisterBackend(&kCudaTable);
  return true;
}();

#endif  // MXNET_CUDA

}  // namespace
}  // namespace mxnet::backends::cuda
