// The GPU path of Storage, CopyBytes and NDArray (ndarray/storage.cc, ndarray.cc) without a GPU:
// this test registers, for DeviceType::kGPU, a DeviceBackend shaped like gpu_storage.cc's
// (CachingAllocator per device, one stream per device) over host memory (FakeDeviceMemory), and
// records which backend calls the array operations make. Not linked with gpu_storage.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "ndarray/backends/cuda/caching_allocator.h"
#include "ndarray/backends/cuda/testing/fake_device_memory.h"
#include "ndarray/ndarray.h"
#include "ndarray/storage.h"

namespace mxnet::backends::cuda {
namespace {

struct Calls {
  int alloc = 0, free = 0, to_host = 0, from_host = 0, within = 0;
  std::vector<int> syncs;
  size_t last_alloc_bytes = 0;
};

class FakeGpuBackend final : public DeviceBackend {
 public:
  explicit FakeGpuBackend(Calls* calls) : calls_(calls) {
    for (int i = 0; i < 2; ++i) {
      dev_[i] = std::make_shared<testing::FakeDeviceState>();
      alloc_[i] = std::make_unique<CachingAllocator>(
          std::make_unique<testing::FakeDeviceMemory>(dev_[i]), gpu(i).ToString());
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
    std::memcpy(d, s, n);
  }
  void CopyFromHost(void* d, const void* s, size_t n, int) override {
    ++calls_->from_host;
    std::memcpy(d, s, n);
  }
  void CopyWithin(void* d, const void* s, size_t n, int) override {
    ++calls_->within;
    std::memmove(d, s, n);
  }
  void Synchronize(int id) override { calls_->syncs.push_back(id); }
  CachingAllocator& allocator(int id) { return *alloc_.at(id); }

 private:
  static StreamHandle Stream(int id) { return reinterpret_cast<StreamHandle>(0x100 + id); }
  Calls* calls_;
  std::array<std::shared_ptr<testing::FakeDeviceState>, 2> dev_;
  std::array<std::unique_ptr<CachingAllocator>, 2> alloc_;
};

class FakeGpuStorage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    calls_ = new Calls;
    backend_ = new FakeGpuBackend(calls_);
    RegisterDeviceBackend(DeviceType::kGPU, std::unique_ptr<DeviceBackend>(backend_));
  }
  void SetUp() override { *calls_ = Calls{}; }
  static Calls* calls_;
  static FakeGpuBackend* backend_;
};
Calls* FakeGpuStorage::calls_ = nullptr;
FakeGpuBackend* FakeGpuStorage::backend_ = nullptr;

TEST_F(FakeGpuStorage, GpuMemoryComesFromTheBackendWithoutStoragePooling) {
  Storage::Stats before = Storage::GetStats(gpu(0));
  void* first = nullptr;
  {
    auto s = Storage::Alloc(1000, gpu(0));
    first = s->data();
    EXPECT_EQ(calls_->last_alloc_bytes, 1000u);  // no Storage size class: the allocator rounds
    EXPECT_EQ(backend_->allocator(0).BlockSize(first), 1024u);
    Storage::Stats st = Storage::GetStats(gpu(0));
    EXPECT_EQ(st.bytes_in_use, before.bytes_in_use + 1000);
    EXPECT_EQ(st.allocations, before.allocations + 1);
  }
  EXPECT_EQ(calls_->free, 1);  // straight back to the allocator, not into Storage's pool
  Storage::Stats after = Storage::GetStats(gpu(0));
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.bytes_cached, 0u);
  EXPECT_EQ(after.peak_in_use, std::max<size_t>(before.peak_in_use, before.bytes_in_use + 1000));
  auto again = Storage::Alloc(900, gpu(0));
  EXPECT_EQ(again->data(), first);  // the allocator's cache on gpu(0)'s stream
  EXPECT_EQ(backend_->allocator(0).Stats().cache_hits, 1u);
}

TEST_F(FakeGpuStorage, CopiesBetweenHostAndGpuTakeTheBackendsCopies) {
  std::vector<float> v{1, 2, 3, 4, 5, 6};
  NDArray a = NDArray::FromVector(v, Shape{2, 3});
  NDArray g = a.copyto(gpu(0));
  EXPECT_EQ(g.device(), gpu(0));
  EXPECT_EQ(calls_->from_host, 1);
  EXPECT_TRUE(g.as_in_context(gpu(0)).is_same(g));
  NDArray g2 = g.copy();
  EXPECT_EQ(calls_->within, 1);
  EXPECT_EQ(g2.as_in_context(cpu()).ToVector<float>(), v);
  EXPECT_GE(calls_->to_host, 1);
  NDArray g1 = g.copyto(gpu(1));  // between GPUs: through the host
  EXPECT_EQ(g1.device(), gpu(1));
  EXPECT_EQ(g1.ToVector<float>(), v);
  EXPECT_EQ(backend_->allocator(1).Stats().allocations, 1u);
}

TEST_F(FakeGpuStorage, HostReadsSynchronizeTheDevice) {
  NDArray g = NDArray::FromVector<float>({1, 2}, Shape{2}, gpu(1));
  g.wait_to_read();
  waitall();
  EXPECT_EQ(calls_->syncs, (std::vector<int>{1, -1}));
}

}  // namespace
}  // namespace mxnet::backends::cuda
