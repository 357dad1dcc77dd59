#include "ndarray/backends/cuda/gpu.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string_view>

#include "base/error.h"
#include "base/strings.h"

#ifdef MXNET_CUDA
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#endif

namespace mxnet::backends::cuda {
namespace {

#ifdef MXNET_CUDA

constexpr int kMaxGpus = 64;

std::string Requested(int id) { return Device{DeviceType::kGPU, id}.ToString(); }

std::string CudaError(cudaError_t e) {
  return StrCat(cudaGetErrorName(e), ": ", cudaGetErrorString(e));
}

#define MX_CUDA_CALL(call)                                                              \
  do {                                                                                  \
    cudaError_t mx_cuda_e_ = (call);                                                    \
    if (mx_cuda_e_ != cudaSuccess)                                                      \
      MX_THROW(absl::StatusCode::kInternal, #call, " failed: ", CudaError(mx_cuda_e_)); \
  } while (0)

struct Query {
  int count = 0;
  std::string status;
};
const Query& GetQuery() {
  static const Query* q = [] {
    auto* r = new Query;
    cudaError_t e = cudaGetDeviceCount(&r->count);
    if (e != cudaSuccess) {
      r->count = 0;
      r->status = CudaError(e);
      // The runtime says "insufficient driver" also when there is no driver at all: say which.
      if (e == cudaErrorInsufficientDriver) {
        if (void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL))
          dlclose(h);
        else
          r->status = "no NVIDIA driver (libcuda.so.1 not found); " + r->status;
      }
      cudaGetLastError();  // clear the error so later calls start clean
      return r;
    }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    r->status =
        StrCat("CUDA driver ", driver / 1000, ".", driver % 1000 / 10, ", runtime ", runtime / 1000,
               ".", runtime % 1000 / 10, ", ", r->count, r->count == 1 ? " device" : " devices");
    return r;
  }();
  return *q;
}

void SetDevice(int id) {
  int cur = -1;
  if (cudaGetDevice(&cur) != cudaSuccess || cur != id) MX_CUDA_CALL(cudaSetDevice(id));
}

// cudaMalloc/cudaFree and events of one device; called under the allocator's lock.
class CudaDeviceMemory final : public DeviceMemory {
 public:
  explicit CudaDeviceMemory(int id) : id_(id) {}
  void* Malloc(size_t bytes) override {
    SetDevice(id_);
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // not sticky: clear it, the allocator retries after emptying
      return nullptr;
    }
    if (e != cudaSuccess)
      MX_THROW(absl::StatusCode::kInternal, Requested(id_), ": cudaMalloc(", bytes,
               ") failed: ", CudaError(e));
    return p;
  }
  void Free(void* p) override {
    SetDevice(id_);
    // cudaFree synchronizes the device, so no queued work can still use the block.
    MX_CUDA_CALL(cudaFree(p));
  }
  EventHandle RecordEvent(StreamHandle stream) override {
    SetDevice(id_);
    cudaEvent_t e;
    MX_CUDA_CALL(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    MX_CUDA_CALL(cudaEventRecord(e, static_cast<cudaStream_t>(stream)));
    return e;
  }
  bool EventDone(EventHandle e) override {
    cudaError_t r = cudaEventQuery(static_cast<cudaEvent_t>(e));
    if (r == cudaErrorNotReady) return false;
    MX_CUDA_CALL(r);
    return true;
  }
  void EventSynchronize(EventHandle e) override {
    MX_CUDA_CALL(cudaEventSynchronize(static_cast<cudaEvent_t>(e)));
  }
  void DestroyEvent(EventHandle e) override { cudaEventDestroy(static_cast<cudaEvent_t>(e)); }

 private:
  int id_;
};

bool CachingEnabled() {
  const char* v = std::getenv("MXNET_GPU_MEM_POOL_TYPE");
  return !(v && std::string_view(v) == "Unpooled");
}

// Created on first use and never destroyed (arrays may be freed during static destruction).
struct PerDevice {
  std::mutex mu;
  std::atomic<cudaStream_t> stream{nullptr};
  std::atomic<CachingAllocator*> allocator{nullptr};
};
std::array<PerDevice, kMaxGpus>& Devices() {
  static auto* d = new std::array<PerDevice, kMaxGpus>();  // never destroyed (exit order)
  return *d;
}

#endif  // MXNET_CUDA

}  // namespace

bool BuiltWithCuda() {
#ifdef MXNET_CUDA
  return true;
#else
  return false;
#endif
}

int GpuCount() {
#ifdef MXNET_CUDA
  return GetQuery().count;
#else
  return 0;
#endif
}

std::string DriverStatus() {
#ifdef MXNET_CUDA
  return GetQuery().status;
#else
  return "this build has no CUDA";
#endif
}

void CheckGpu(Device device) {
  MX_REQUIRE(device.is_gpu(), absl::StatusCode::kInvalidArgument, "expected a GPU device, got ",
             device.ToString());
#ifdef MXNET_CUDA
  int n = GpuCount();
  if (n == 0)
    MX_THROW(absl::StatusCode::kUnavailable, device.ToString(),
             " requested but no CUDA device found (driver: ", DriverStatus(), ")");
  if (device.id < 0 || device.id >= n || device.id >= kMaxGpus)
    MX_THROW(absl::StatusCode::kUnavailable, device.ToString(), " requested but only ", n,
             n == 1 ? " CUDA device" : " CUDA devices", " found (driver: ", DriverStatus(), ")");
#else
  MX_THROW(absl::StatusCode::kUnavailable, device.ToString(),
           " requested but this build has no CUDA (build with --config=cuda)");
#endif
}

GpuProperties GetGpuProperties(int id) {
  CheckGpu(gpu(id));
  GpuProperties p;
  p.id = id;
#ifdef MXNET_CUDA
  cudaDeviceProp prop;
  MX_CUDA_CALL(cudaGetDeviceProperties(&prop, id));
  p.name = prop.name;
  p.total_memory = prop.totalGlobalMem;
  p.major = prop.major;
  p.minor = prop.minor;
  p.multiprocessors = prop.multiProcessorCount;
#endif
  return p;
}

StreamHandle Stream(int id) {
  CheckGpu(gpu(id));
#ifdef MXNET_CUDA
  PerDevice& d = Devices()[id];
  if (cudaStream_t s = d.stream.load(std::memory_order_acquire)) return s;
  std::lock_guard<std::mutex> l(d.mu);
  if (cudaStream_t s = d.stream.load()) return s;
  SetDevice(id);
  cudaStream_t s = nullptr;
  MX_CUDA_CALL(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  d.stream.store(s, std::memory_order_release);
  return s;
#else
  return nullptr;
#endif
}

void Synchronize(int id) {
#ifdef MXNET_CUDA
  if (id < 0) {  // only devices that have a stream (so waitall() never initializes CUDA)
    for (int i = 0; i < kMaxGpus; ++i)
      if (Devices()[i].stream.load(std::memory_order_acquire)) Synchronize(i);
    return;
  }
  CheckGpu(gpu(id));
  cudaStream_t s = Devices()[id].stream.load(std::memory_order_acquire);
  if (!s) return;  // nothing was ever queued
  cudaError_t e = cudaStreamSynchronize(s);
  if (e != cudaSuccess)
    MX_THROW(absl::StatusCode::kInternal, Requested(id),
             ": queued GPU work failed: ", CudaError(e));
#else
  if (id >= 0) CheckGpu(gpu(id));
#endif
}

CachingAllocator& Allocator(int id) {
  CheckGpu(gpu(id));
#ifdef MXNET_CUDA
  PerDevice& d = Devices()[id];
  if (CachingAllocator* a = d.allocator.load(std::memory_order_acquire)) return *a;
  std::lock_guard<std::mutex> l(d.mu);
  if (CachingAllocator* a = d.allocator.load()) return *a;
  auto* a =
      new CachingAllocator(std::make_unique<CudaDeviceMemory>(id), Requested(id), CachingEnabled());
  d.allocator.store(a, std::memory_order_release);
  return *a;
#else
  MX_THROW(absl::StatusCode::kInternal, "unreachable");
#endif
}

AllocatorStats MemoryStats(int id) {
  CheckGpu(gpu(id));
#ifdef MXNET_CUDA
  CachingAllocator* a = Devices()[id].allocator.load(std::memory_order_acquire);
  return a ? a->Stats() : AllocatorStats{};
#else
  return {};
#endif
}

size_t EmptyCache(int id) {
#ifdef MXNET_CUDA
  if (id >= 0) CheckGpu(gpu(id));
  size_t total = 0;
  for (int i = 0; i < kMaxGpus; ++i) {
    if (id >= 0 && i != id) continue;
    if (CachingAllocator* a = Devices()[i].allocator.load(std::memory_order_acquire))
      total += a->EmptyCache();
  }
  return total;
#else
  if (id >= 0) CheckGpu(gpu(id));
  return 0;
#endif
}

std::pair<size_t, size_t> gpu_memory_info(int id) {
  CheckGpu(gpu(id));
#ifdef MXNET_CUDA
  SetDevice(id);
  size_t free = 0, total = 0;
  MX_CUDA_CALL(cudaMemGetInfo(&free, &total));
  return {free, total};
#else
  return {0, 0};
#endif
}

}  // namespace mxnet::backends::cuda
