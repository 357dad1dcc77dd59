// The GPU device runtime (issue 24 items 1 and 5): how many GPUs there are, their properties, one
// stream per device and one caching allocator per device, through the CUDA runtime API.
//
// One build runs with or without a GPU. Without --config=cuda this library is compiled without
// CUDA: GpuCount() is 0 and asking for a GPU throws "gpu(0) requested but this build has no CUDA".
// With --config=cuda on a machine without a driver or a device, GpuCount() is 0 as well and the
// error names the driver's answer ("gpu(0) requested but no CUDA device found (driver: ...)").
//
// Ordering: all work for gpu(N) (kernels, copies, the allocator's blocks) goes to Stream(N), one
// non-blocking CUDA stream per device created on first use, so it runs in the order it was queued.
// Host reads wait for it: copies to the host (DeviceBackend::CopyToHost) synchronize the stream,
// as do NDArray::wait_to_read() and waitall() (through Synchronize). The legacy default stream is
// never used (it does not order with non-blocking streams).
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "base/device.h"
#include "ndarray/backends/cuda/caching_allocator.h"

namespace mxnet::backends::cuda {

// True when this library was compiled with CUDA (--config=cuda).
bool BuiltWithCuda();

// The number of usable CUDA devices: 0 without CUDA in the build, without a driver, or when the
// driver finds none. Queried once per process (cudaGetDeviceCount).
int GpuCount();
// MXNet's name (mx.context.num_gpus()).
inline int num_gpus() { return GpuCount(); }
// (free, total) bytes of gpu(id)'s memory as the driver reports them (cudaMemGetInfo;
// mx.context.gpu_memory_info). Memory cached by the allocator counts as used. Throws as CheckGpu.
std::pair<size_t, size_t> gpu_memory_info(int id);

// One line on the CUDA driver, for error messages and reports: "this build has no CUDA",
// "CUDA driver 13.0, runtime 13.0, 1 device", or the CUDA error of the device query (e.g.
// "cudaErrorNoDevice: no CUDA-capable device is detected"; "no NVIDIA driver (libcuda.so.1 not
// found); cudaErrorInsufficientDriver: ..." on a machine without a driver).
std::string DriverStatus();

// What CUDA reports about one device (cudaGetDeviceProperties).
struct GpuProperties {
  int id = 0;
  std::string name;          // "NVIDIA H200"
  size_t total_memory = 0;   // bytes
  int major = 0, minor = 0;  // compute capability (9.0 on Hopper)
  int multiprocessors = 0;
};
// Throws as CheckGpu(gpu(id)).
GpuProperties GetGpuProperties(int id);

// Throws mxnet::Error unless `device` is a GPU that exists: kInvalidArgument for a non-GPU
// device; kUnavailable "gpu(N) requested but this build has no CUDA (build with --config=cuda)",
// "gpu(N) requested but no CUDA device found (driver: ...)" or "gpu(N) requested but only K CUDA
// device(s) found (driver: ...)".
void CheckGpu(Device device);

// The stream of gpu(id) (a cudaStream_t), created on first use; lives for the process.
// Throws as CheckGpu.
StreamHandle Stream(int id);
// Waits for all work queued on gpu(id)'s stream; id -1: on every device whose stream exists
// (without streams it touches no CUDA API, so waitall() costs nothing in CPU-only programs).
// Throws as CheckGpu for a missing gpu(id); kInternal with the CUDA error if the work failed.
void Synchronize(int id);

// The caching allocator of gpu(id) (CachingAllocator over cudaMalloc/cudaFree and CUDA events),
// created on first use; $MXNET_GPU_MEM_POOL_TYPE=Unpooled (MXNet's setting) turns caching off.
// Throws as CheckGpu.
CachingAllocator& Allocator(int id);
// Statistics of gpu(id)'s allocator (all zero before its first use). Throws as CheckGpu.
AllocatorStats MemoryStats(int id);
// Returns the cached, unused segments of gpu(id) (-1: of every GPU whose allocator exists) to the
// driver (MXNet's Context.empty_cache); the bytes released. Without GPUs, 0 (throws as CheckGpu
// for a missing gpu(id) >= 0).
size_t EmptyCache(int id = -1);

}  // namespace mxnet::backends::cuda
