#include "ndarray/storage.h"

#include <cstdint>

#include <gtest/gtest.h>

#include "base/error.h"

namespace mxnet {
namespace {

TEST(Storage, CachesFreedBlocks) {
  Device d = cpu(7);  // its own pool
  void* first;
  {
    auto s = Storage::Alloc(1000, d);
    first = s->data();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
    EXPECT_EQ(Storage::GetStats(d).bytes_in_use, 1024u);
  }
  EXPECT_EQ(Storage::GetStats(d).bytes_in_use, 0u);
  EXPECT_EQ(Storage::GetStats(d).bytes_cached, 1024u);
  auto again = Storage::Alloc(900, d);  // same size class
  EXPECT_EQ(again->data(), first);
  EXPECT_EQ(Storage::GetStats(d).cache_hits, 1u);
  again.reset();
  Storage::ReleaseCached(d);
  EXPECT_EQ(Storage::GetStats(d).bytes_cached, 0u);
  EXPECT_EQ(Storage::GetStats(d).peak_in_use, 1024u);
}

TEST(Storage, ZeroBytesAndMissingDevices) {
  auto s = Storage::Alloc(0, cpu());
  EXPECT_EQ(s->data(), nullptr);
  EXPECT_THROW(Storage::Alloc(16, gpu(0)), Error);
  try {
    GetDeviceBackend(DeviceType::kGPU);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(std::string(e.what()).find("gpu(0)"), std::string::npos);
  }
}

}  // namespace
}  // namespace mxnet
