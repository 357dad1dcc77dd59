// A host stand-in for the GPU's DeviceBackend (ndarray/backends/cuda/gpu_storage.cc), for testing
// Storage/NDArray's GPU path, the GPU fallback of ops and copies between GPUs without a GPU.
// Shaped like the real one: a CachingAllocator per device over FakeDeviceMemory, one stream per
// device; it counts the backend calls the array operations make.
//
// "Device" memory is host memory, so a CPU kernel could read it by mistake and still look right.
// To catch that, values on the fake GPUs are stored scrambled (every byte XOR kScramble): only
// the backend's copies to and from the host unscramble/scramble them; copies within a device and
// between devices move the stored bytes as they are. A CPU kernel run straight on fake-GPU arrays
// computes garbage.
#pragma once

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "base/device.h"
#include "ndarray/backends/cuda/caching_allocator.h"
#include "ndarray/backends/cuda/testing/fake_device_memory.h"
#include "ndarray/device_copy.h"
#include "ndarray/storage.h"

namespace mxnet::backends::cuda::testing {

struct FakeGpuCalls {
  int alloc = 0, free = 0, to_host = 0, from_host = 0, within = 0, peer = 0;
  std::vector<int> syncs;
  std::vector<std::pair<int, int>> peer_pairs;  // (src id, dst id)
  size_t last_alloc_bytes = 0;
};

class FakeGpuBackend final : public DeviceBackend {
 public:
  static constexpr unsigned char kScramble = 0x5A;
  static constexpr int kDevices = 2;

  explicit FakeGpuBackend(FakeGpuCalls* calls) : calls_(calls) {
    for (int i = 0; i < kDevices; ++i) {
      dev_[i] = std::make_shared<FakeDeviceState>();
      alloc_[i] = std::make_unique<CachingAllocator>(std::make_unique<FakeDeviceMemory>(dev_[i]),
                                                     gpu(i).ToString());
    }
  }
  void* Alloc(size_t bytes, int id) override {
    ++calls_->alloc;
    calls_->last_alloc_bytes = bytes;
    return alloc_.at(id)->Malloc(bytes, Stream(id));
  }
  void Free(void* p, size_t, int id) override {
    ++calls_->free;
    alloc_.at(id)->Free(p);
  }
  void CopyToHost(void* d, const void* s, size_t n, int) override {
    ++calls_->to_host;
    Xor(d, s, n);
  }
  void CopyFromHost(void* d, const void* s, size_t n, int) override {
    ++calls_->from_host;
    Xor(d, s, n);
  }
  void CopyWithin(void* d, const void* s, size_t n, int) override {
    ++calls_->within;
    std::memmove(d, s, n);
  }
  void Synchronize(int id) override { calls_->syncs.push_back(id); }
  // The RegisterPeerCopy function of this fake (stored bytes moved as they are).
  void PeerCopy(void* d, int dst_id, const void* s, int src_id, size_t n) {
    ++calls_->peer;
    calls_->peer_pairs.push_back({src_id, dst_id});
    std::memmove(d, s, n);
  }
  CachingAllocator& allocator(int id) { return *alloc_.at(id); }

  // Registers a new fake as the kGPU backend (the registry owns it) and, if `peer`, its peer copy.
  static FakeGpuBackend* Install(FakeGpuCalls* calls, bool peer) {
    auto* b = new FakeGpuBackend(calls);
    RegisterDeviceBackend(DeviceType::kGPU, std::unique_ptr<DeviceBackend>(b));
    if (peer)
      RegisterPeerCopy(DeviceType::kGPU, [b](void* d, int di, const void* s, int si, size_t n) {
        b->PeerCopy(d, di, s, si, n);
      });
    else
      RegisterPeerCopy(DeviceType::kGPU, nullptr);
    return b;
  }

 private:
  static void Xor(void* d, const void* s, size_t n) {
    auto* dst = static_cast<unsigned char*>(d);
    const auto* src = static_cast<const unsigned char*>(s);
    for (size_t i = 0; i < n; ++i) dst[i] = src[i] ^ kScramble;
  }
  static StreamHandle Stream(int id) { return reinterpret_cast<StreamHandle>(0x100 + id); }
  FakeGpuCalls* calls_;
  std::array<std::shared_ptr<FakeDeviceState>, kDevices> dev_;
  std::array<std::unique_ptr<CachingAllocator>, kDevices> alloc_;
};

}  // namespace mxnet::backends::cuda::testing
