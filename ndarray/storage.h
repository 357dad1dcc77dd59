// Device memory: reference-counted buffers from a caching allocator per device.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "base/device.h"

namespace mxnet {

// How a device allocates and copies memory. CPU is built in; the CUDA library registers the GPU
// backend when linked (--config=cuda).
class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  // Raw allocation of `bytes` (> 0) aligned to at least 64 bytes; throws mxnet::Error
  // kResourceExhausted on failure.
  virtual void* Alloc(size_t bytes, int device_id) = 0;
  virtual void Free(void* ptr, size_t bytes, int device_id) = 0;
  // Copies between this device and host memory (blocking).
  virtual void CopyToHost(void* host_dst, const void* dev_src, size_t bytes, int device_id) = 0;
  virtual void CopyFromHost(void* dev_dst, const void* host_src, size_t bytes, int device_id) = 0;
  // Copies within one device (possibly asynchronous on the device's stream).
  virtual void CopyWithin(void* dst, const void* src, size_t bytes, int device_id) = 0;
  // Waits for all queued work on the device.
  virtual void Synchronize(int device_id) = 0;
};

// Installs the backend for a device type (takes ownership). Used by device libraries at startup.
void RegisterDeviceBackend(DeviceType type, std::unique_ptr<DeviceBackend> backend);
// The backend for `type`; throws mxnet::Error(kUnavailable) naming the device when none is built
// in (e.g. gpu(0) in a CPU-only build).
DeviceBackend& GetDeviceBackend(DeviceType type);
bool HasDeviceBackend(DeviceType type);

// A buffer on one device. Freed memory returns to the device's cache (Storage::Stats).
class Storage {
 public:
  // Allocates `bytes` on `device` from the caching allocator (0 bytes gives a null data pointer).
  static std::shared_ptr<Storage> Alloc(size_t bytes, Device device);
  // Wraps memory the caller owns (zero copy, e.g. the C ABI's external buffers and DLPack
  // imports): `data` (`bytes` long, on `device`) is used in place and `release` (may be empty)
  // runs once, on whichever thread drops the last reference. Not pooled, not counted in Stats.
  static std::shared_ptr<Storage> WrapExternal(void* data, size_t bytes, Device device,
                                               std::function<void()> release);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  Device device() const { return device_; }

  // ---- Write version (like torch's tensor _version). ----
  // A counter that every tracked write of this block's bytes increases: kernel outputs and
  // in-place updates (Invoke, InvokeInto, the graph executor, aux states and other mutable
  // inputs), copies into arrays (copyto, SyncCopyFromCPU, Fill), optimizer updates and kvstore
  // pulls. Equal versions (and the same block) mean no tracked write happened in between; caches
  // of values derived from the bytes (folded inference graphs, symbol/executor.h) compare it
  // instead of the contents. Writes through raw pointers (data(), NDArray::data_ptr()) are not
  // seen: whoever writes that way calls bump_version() (NDArray::mark_written()) afterwards.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  void bump_version() { version_.fetch_add(1, std::memory_order_acq_rel); }
  // True when writes may bypass bump_version for good: memory owned by others (WrapExternal: the
  // C ABI's external buffers, DLPack imports) or a block whose raw pointer was handed out (the C
  // ABI's mxc_ndarray_data, DLPack exports). Caches then compare contents, not versions.
  bool untracked_writes() const { return untracked_writes_.load(std::memory_order_acquire); }
  void mark_untracked_writes() { untracked_writes_.store(true, std::memory_order_release); }

  struct Stats {
    size_t bytes_in_use = 0;  // held by live Storage objects (rounded sizes)
    size_t bytes_cached = 0;  // free blocks kept for reuse
    size_t peak_in_use = 0;
    uint64_t allocations = 0;  // Alloc() calls
    uint64_t cache_hits = 0;   // served from the cache
  };
  static Stats GetStats(Device device);
  // Returns every cached block of `device` to the system.
  static void ReleaseCached(Device device);
  // Upper bound on cached bytes per device (default 2 GiB or $MXNET_MEM_POOL_LIMIT_MB);
  // beyond it freed blocks go back to the system.
  static void SetCacheLimit(size_t bytes);

 private:
  Storage(void* data, size_t bytes, size_t capacity, Device device)
      : data_(data), bytes_(bytes), capacity_(capacity), device_(device) {}
  void* data_;
  size_t bytes_;
  size_t capacity_;  // rounded size of the block
  Device device_;
  std::atomic<uint64_t> version_{0};
  std::atomic<bool> untracked_writes_{false};
};

// Copies `bytes` between any two devices (host staging where needed; blocking).
void CopyBytes(void* dst, Device dst_dev, const void* src, Device src_dev, size_t bytes);

}  // namespace mxnet
