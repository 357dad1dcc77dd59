// The GPU path of Storage, CopyBytes and NDArray (ndarray/storage.cc, ndarray.cc) without a GPU:
// this test registers, for DeviceType::kGPU, a DeviceBackend shaped like gpu_storage.cc's
// (testing/fake_gpu_backend.h: CachingAllocator per device, one stream per device, over host
// memory) and records which backend calls the array operations make. Not linked with gpu_storage.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "ndarray/backends/cuda/caching_allocator.h"
#include "ndarray/backends/cuda/testing/fake_gpu_backend.h"
#include "ndarray/device_copy.h"
#include "ndarray/ndarray.h"
#include "ndarray/storage.h"

namespace mxnet::backends::cuda {
namespace {

using testing::FakeGpuBackend;
using Calls = testing::FakeGpuCalls;

class FakeGpuStorage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    calls_ = new Calls;
    backend_ = FakeGpuBackend::Install(calls_, /*peer=*/false);
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
  *calls_ = Calls{};
  NDArray g1 = g.copyto(gpu(1));  // between GPUs without a peer copy: through the host
  EXPECT_EQ(g1.device(), gpu(1));
  EXPECT_EQ(calls_->to_host, 1);
  EXPECT_EQ(calls_->from_host, 1);
  EXPECT_EQ(calls_->peer, 0);
  EXPECT_EQ(g1.ToVector<float>(), v);
  EXPECT_EQ(backend_->allocator(1).Stats().allocations, 1u);
}

TEST_F(FakeGpuStorage, CopiesBetweenGpusTakeThePeerCopyWhenRegistered) {
  std::vector<float> v{1, -2, 3.5f, 4, 5, 6, 7, 8};
  NDArray g0 = NDArray::FromVector(v, Shape{2, 4}, gpu(0));
  RegisterPeerCopy(DeviceType::kGPU, [](void* d, int di, const void* s, int si, size_t n) {
    backend_->PeerCopy(d, di, s, si, n);
  });
  *calls_ = Calls{};
  NDArray g1 = g0.copyto(gpu(1));  // copyto(Device)
  EXPECT_EQ(g1.device(), gpu(1));
  EXPECT_EQ(calls_->peer, 1);
  EXPECT_EQ(calls_->peer_pairs, (std::vector<std::pair<int, int>>{{0, 1}}));
  EXPECT_EQ(calls_->to_host, 0);  // no host staging
  EXPECT_EQ(calls_->from_host, 0);
  NDArray back = g1.as_in_context(gpu(0));  // as_in_context the other way
  EXPECT_EQ(calls_->peer_pairs, (std::vector<std::pair<int, int>>{{0, 1}, {1, 0}}));
  EXPECT_TRUE(g1.as_in_context(gpu(1)).is_same(g1));  // same device: no copy
  EXPECT_EQ(calls_->peer, 2);
  NDArray into(Shape{2, 4}, gpu(1));
  g0.slice(1, 2).copyto(into.slice(0, 1));  // copyto(NDArray) between views
  EXPECT_EQ(calls_->peer, 3);
  EXPECT_EQ(g1.ToVector<float>(), v);
  EXPECT_EQ(back.ToVector<float>(), v);
  EXPECT_EQ(into.slice(0, 1).ToVector<float>(), std::vector<float>(v.begin() + 4, v.end()));
  // CPU <-> GPU copies do not take it; a cast between GPUs converts on the host, then copies.
  *calls_ = Calls{};
  NDArray h = g1.copyto(cpu());
  EXPECT_EQ(calls_->peer, 0);
  EXPECT_EQ(h.ToVector<float>(), v);
  NDArray d1(Shape{2, 4}, gpu(1), DType::kFloat64);
  g0.copyto(d1);
  EXPECT_EQ(d1.ToVector<double>(), std::vector<double>(v.begin(), v.end()));
  RegisterPeerCopy(DeviceType::kGPU, nullptr);
  *calls_ = Calls{};
  g0.copyto(gpu(1));
  EXPECT_EQ(calls_->peer, 0);
  EXPECT_EQ(calls_->to_host, 1);
}

TEST_F(FakeGpuStorage, HostReadsSynchronizeTheDevice) {
  NDArray g = NDArray::FromVector<float>({1, 2}, Shape{2}, gpu(1));
  g.wait_to_read();
  waitall();
  EXPECT_EQ(calls_->syncs, (std::vector<int>{1, -1}));
}

}  // namespace
}  // namespace mxnet::backends::cuda
