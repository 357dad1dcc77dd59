// The GPU's DeviceBackend (ndarray/storage.h) and its backends::BackendTable, registered at start
// when this library is linked into a CUDA build: Storage::Alloc(bytes, gpu(N)) then takes memory
// from gpu(N)'s caching allocator on gpu(N)'s stream, and CopyBytes / NDArray::copyto /
// as_in_context move data between the host and the GPU, and between GPUs directly (the peer copy
// registered through ndarray/device_copy.h). It also replaces cpu_pinned(N)'s backend:
// page-locked host memory (cudaHostAlloc, portable to all GPUs) when the machine has a GPU, so
// host<->GPU copies of such arrays (DataLoader batches) run at full speed; ordinary host memory
// otherwise. Storage's pool caches freed pinned blocks like other host memory. Without CUDA in
// the build nothing is registered: gpu(N) stays "requested but this build has no CUDA"
// (ndarray/storage.cc) and cpu_pinned(N) is ordinary host memory.
#include "ndarray/backends/backend.h"
#include "ndarray/backends/cuda/gpu.h"
#include "ndarray/device_copy.h"
#include "ndarray/storage.h"

#ifdef MXNET_CUDA
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>

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

// Turns on direct access between the two devices once per pair where the hardware allows it
// (NVLink/PCIe peer-to-peer), so cudaMemcpyPeerAsync does not stage through the host.
void EnablePeerAccess(int a, int b) {
  static std::mutex mu;
  static std::set<std::pair<int, int>> done;
  std::lock_guard<std::mutex> l(mu);
  if (!done.insert({std::min(a, b), std::max(a, b)}).second) return;
  for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess || !can) {
      cudaGetLastError();
      continue;
    }
    cudaSetDevice(from);
    cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
    if (e != cudaSuccess) cudaGetLastError();  // e.g. cudaErrorPeerAccessAlreadyEnabled
  }
}

// gpu(src_id) -> gpu(dst_id) (ndarray/device_copy.h), asynchronous and ordered on both streams:
// the copy runs on the source's stream after the work queued so far on the destination's stream
// (the destination block may still be in use there), and later work on the destination's stream
// waits for it. The allocator's blocks stay stream-ordered: the source block is freed on its own
// stream, after the copy; the destination's stream waits for the copy before reusing its block.
void PeerCopy(void* dst, int dst_id, const void* src, int src_id, size_t bytes) {
  CheckGpu(gpu(src_id));
  CheckGpu(gpu(dst_id));
  EnablePeerAccess(src_id, dst_id);
  auto s_src = static_cast<cudaStream_t>(Stream(src_id));
  auto s_dst = static_cast<cudaStream_t>(Stream(dst_id));
  cudaEvent_t dst_ready = nullptr, copied = nullptr;
  cudaSetDevice(dst_id);
  Check(cudaEventCreateWithFlags(&dst_ready, cudaEventDisableTiming), "peer copy event", dst_id,
        bytes);
  Check(cudaEventRecord(dst_ready, s_dst), "peer copy event", dst_id, bytes);
  cudaSetDevice(src_id);
  Check(cudaStreamWaitEvent(s_src, dst_ready, 0), "peer copy wait", src_id, bytes);
  Check(cudaMemcpyPeerAsync(dst, dst_id, src, src_id, bytes, s_src),
        StrCat("copy to ", gpu(dst_id).ToString()).c_str(), src_id, bytes);
  Check(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming), "peer copy event", src_id,
        bytes);
  Check(cudaEventRecord(copied, s_src), "peer copy event", src_id, bytes);
  cudaSetDevice(dst_id);
  Check(cudaStreamWaitEvent(s_dst, copied, 0), "peer copy wait", dst_id, bytes);
  cudaEventDestroy(dst_ready);  // released once the recorded work completes
  cudaEventDestroy(copied);
}

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
  RegisterPeerCopy(DeviceType::kGPU, &PeerCopy);
  RegisterBackend(&kCudaTable);
  return true;
}();

#endif  // MXNET_CUDA

}  // namespace
}  // namespace mxnet::backends::cuda
