#include "ndarray/backends/cuda/gpu.h"

#include <array>
#include <memory>
#include <mutex>

#include "base/error.h"
#include "base/strings.h"

#ifdef MXNET_CUDA
#include <cuda_runtime_api.h>
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
      cudaGetLastError();  // clear the sticky-free error so later calls start clean
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

struct PerDevice {
  std::once_flag stream_once, alloc_once;
  cudaStream_t stream = nullptr;
  std::unique_ptr<CachingAllocator> allocator;
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
  std::call_once(d.stream_once, [&] {
    SetDevice(id);
    MX_CUDA_CALL(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking));
  });
  return d.stream;
#else
  return nullptr;
#endif
}

void Synchronize(int id) {
#ifdef MXNET_CUDA
  if (id < 0) {
    for (int i = 0; i < GpuCount() && i < kMaxGpus; ++i) Synchronize(i);
    return;
  }
  CheckGpu(gpu(id));
  PerDevice& d = Devices()[id];
  // A stream is created inside call_once; before that there is nothing queued.
  bool made = false;
  std::call_once(d.stream_once, [&] {
    SetDevice(id);
    MX_CUDA_CALL(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking));
    made = true;
  });
  if (made) return;
  cudaError_t e = cudaStreamSynchronize(d.stream);
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
  std::call_once(d.alloc_once, [&] {
    d.allocator =
        std::make_unique<CachingAllocator>(std::make_unique<CudaDeviceMemory>(id), Requested(id));
  });
  return *d.allocator;
#else
  MX_THROW(absl::StatusCode::kInternal, "unreachable");
#endif
}

AllocatorStats MemoryStats(int id) {
  CheckGpu(gpu(id));
#ifdef MXNET_CUDA
  PerDevice& d = Devices()[id];
  bool made = false;
  std::call_once(d.alloc_once, [&] {
    d.allocator =
        std::make_unique<CachingAllocator>(std::make_unique<CudaDeviceMemory>(id), Requested(id));
    made = true;
  });
  return made ? AllocatorStats{} : d.allocator->Stats();
#else
  return {};
#endif
}

size_t EmptyCache(int id) {
#ifdef MXNET_CUDA
  if (id < 0) {
    size_t total = 0;
    for (int i = 0; i < GpuCount() && i < kMaxGpus; ++i) total += EmptyCache(i);
    return total;
  }
  return Allocator(id).EmptyCache();
#else
  if (id >= 0) CheckGpu(gpu(id));
  return 0;
#endif
}

}  // namespace mxnet::backends::cuda
