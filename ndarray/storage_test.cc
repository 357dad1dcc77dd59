#include "ndarray/storage.h"

#include <cstdint>

#include <gtest/gtest.h>

#include "base/error.h"
#include "ndarray/random.h"

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
  try {
    Storage::Alloc(16, gpu(1));
    FAIL() << "gpu(1) allocated without a GPU backend";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(std::string(e.what()).find("gpu(1) requested but this build has no CUDA"),
              std::string::npos)
        << e.what();
  }
  try {
    GetDeviceBackend(DeviceType::kGPU);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(std::string(e.what()).find("gpu(0)"), std::string::npos);
  }
}

// External memory: used in place, released exactly once when the last reference (here a second
// owner) goes, never pooled.
TEST(Storage, WrapExternal) {
  Device d = cpu(3);  // a device id no other test uses, so the pool stats are this test's own
  alignas(64) float buf[4] = {1, 2, 3, 4};
  int released = 0;
  auto s = Storage::WrapExternal(buf, sizeof buf, d, [&] { ++released; });
  EXPECT_EQ(s->data(), buf);
  EXPECT_EQ(s->bytes(), sizeof buf);
  auto second = s;
  s.reset();
  EXPECT_EQ(released, 0);
  second.reset();
  EXPECT_EQ(released, 1);
  EXPECT_EQ(buf[3], 4);  // the memory was not touched
  EXPECT_EQ(Storage::GetStats(d).bytes_in_use, 0u);
  EXPECT_EQ(Storage::GetStats(d).bytes_cached, 0u);
  EXPECT_EQ(Storage::GetStats(d).allocations, 0u);
  Storage::WrapExternal(buf, sizeof buf, d, nullptr).reset();  // no release: fine
}

// The write version starts at 0 and counts bump_version() calls; pooled blocks track their
// writes, external memory (written by its owner) is marked untracked from the start, and a block
// whose raw pointer was handed out can be marked so later.
TEST(Storage, WriteVersion) {
  auto s = Storage::Alloc(64, cpu());
  EXPECT_EQ(s->version(), 0u);
  s->bump_version();
  s->bump_version();
  EXPECT_EQ(s->version(), 2u);
  EXPECT_FALSE(s->untracked_writes());
  s->mark_untracked_writes();
  EXPECT_TRUE(s->untracked_writes());
  EXPECT_EQ(s->version(), 2u);  // marking is not a write
  alignas(64) float buf[4] = {};
  auto e = Storage::WrapExternal(buf, sizeof buf, cpu(), nullptr);
  EXPECT_TRUE(e->untracked_writes());
  EXPECT_EQ(e->version(), 0u);
}

// Caller-owned generator sets: the same seed gives the same stream as the process-wide
// generators seeded alike; a ScopedGeneratorSet redirects GeneratorGuard on this thread only
// while it lives.
TEST(Random, GeneratorSets) {
  auto draw = [] { return random::GeneratorGuard(cpu()).gen()(); };
  random::seed(11);
  uint64_t global_first = draw();
  random::GeneratorSet mine(11);
  {
    random::ScopedGeneratorSet scope(&mine);
    EXPECT_EQ(draw(), global_first);  // same seed, same stream
    uint64_t second = draw();
    EXPECT_NE(second, global_first);
    mine.seed(11);
    EXPECT_EQ(draw(), global_first);  // restarted
  }
  random::seed(11);
  EXPECT_EQ(draw(), global_first);  // the global set was untouched by the scope
  random::GeneratorSet other(12);
  random::ScopedGeneratorSet scope(&other);
  EXPECT_NE(draw(), global_first);
}

}  // namespace
}  // namespace mxnet
