// PhaseMonitor's verdicts on made-up readings (the rules of soak_monitor.h), and ReadMemory
// against allocations whose size is known.
#include "tools/stress/soak_monitor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "ndarray/ndarray.h"

namespace mxnet::stress {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

MemoryReading Flat() {
  MemoryReading r;
  r.rss = 200 * kMiB;
  r.in_use = 50 * kMiB;
  r.cached = 10 * kMiB;
  r.scratch = 4 * kMiB;
  r.primitives = 40;
  return r;
}

// Runs 100 steps (warm-up 10) with readings from `at(step)`; returns the failures.
template <typename F>
std::vector<std::string> RunPhase(F at, PhaseOptions opt = {}) {
  PhaseMonitor m("p", 100, opt);
  EXPECT_EQ(m.warmup_steps(), 10);
  for (int64_t s = 1; s <= 100; ++s) m.Record(s, at(s));
  return m.Failures();
}

TEST(PhaseMonitor, GrowthDuringWarmUpAndFlatAfterPasses) {
  EXPECT_TRUE(RunPhase([](int64_t s) {
                MemoryReading r = Flat();
                if (s < 10) r.rss -= (10 - s) * kMiB, r.in_use -= (10 - s) * kMiB;
                return r;
              }).empty());
}

TEST(PhaseMonitor, RssDriftOverOnePercentFails) {
  // 200 MiB + 20 KiB per step: 1.8 MiB (0.9 %) after warm-up passes, 40 KiB (1.8 %) fails.
  EXPECT_TRUE(RunPhase([](int64_t s) {
                MemoryReading r = Flat();
                r.rss += s * 20 * 1024;
                return r;
              }).empty());
  auto f = RunPhase([](int64_t s) {
    MemoryReading r = Flat();
    r.rss += s * 40 * 1024;
    return r;
  });
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("RSS after warm-up not flat within 1.00%"), std::string::npos) << f[0];
  EXPECT_NE(f[0].find("max at step 100"), std::string::npos) << f[0];
}

TEST(PhaseMonitor, OneLeakedBufferPerStepFails) {
  auto f = RunPhase([](int64_t s) {
    MemoryReading r = Flat();
    r.in_use += s * 4096;  // RSS unchanged: only the allocator sees it
    return r;
  });
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].find("live allocator bytes after warm-up vary by 368640"), std::string::npos)
      << f[0];
  // A single buffer kept once after warm-up fails too (no slack by default) ...
  EXPECT_EQ(RunPhase([](int64_t s) {
              MemoryReading r = Flat();
              if (s > 50) r.in_use += 64;
              return r;
            }).size(),
            1u);
  // ... and passes within in_use_slack.
  EXPECT_TRUE(RunPhase(
                  [](int64_t s) {
                    MemoryReading r = Flat();
                    if (s > 50) r.in_use += 64;
                    return r;
                  },
                  {.in_use_slack = 64})
                  .empty());
}

TEST(PhaseMonitor, CachesGrowingAfterWarmUpFail) {
  auto f = RunPhase([](int64_t s) {
    MemoryReading r = Flat();
    if (s > 20) r.cached += kMiB, r.scratch += 4096, r.primitives += 1, r.constants += 1;
    return r;
  });
  ASSERT_EQ(f.size(), 4u);
  EXPECT_NE(f[0].find("the allocator's cache grew after warm-up"), std::string::npos) << f[0];
  EXPECT_NE(f[1].find("backend scratch grew"), std::string::npos) << f[1];
  EXPECT_NE(f[2].find("cached primitives grew"), std::string::npos) << f[2];
  EXPECT_NE(f[3].find("cached constants grew"), std::string::npos) << f[3];
  // A cache that shrinks after warm-up (or returns to its warm-up maximum) is fine.
  EXPECT_TRUE(RunPhase([](int64_t s) {
                MemoryReading r = Flat();
                if (s == 5) r.cached += kMiB;
                if (s > 50) r.cached -= kMiB;
                return r;
              }).empty());
}

TEST(PhaseMonitor, TooFewStepsMeasureNothing) {
  PhaseMonitor m("p", 100, {});
  for (int64_t s = 1; s <= 10; ++s) m.Record(s, Flat());
  ASSERT_EQ(m.Failures().size(), 1u);
  EXPECT_NE(m.Failures()[0].find("nothing measured"), std::string::npos);
}

TEST(ReadMemory, SeesAllocatorBuffersAndResidentPages) {
  const MemoryReading before = ReadMemory(0);
  EXPECT_GT(before.rss, 0u);
  {
    NDArray a = NDArray::Full(Shape{1024, 1024}, 0.0);  // 4 MiB from the caching allocator
    const MemoryReading during = ReadMemory(0);
    EXPECT_GE(during.in_use - before.in_use, 4 * kMiB);
    EXPECT_LE(during.in_use - before.in_use, 5 * kMiB);
  }
  EXPECT_EQ(ReadMemory(0).in_use, before.in_use);  // back in the cache
  std::vector<char> touched(64 * kMiB);
  std::memset(touched.data(), 1, touched.size());
  EXPECT_GE(ReadMemory(0).rss - before.rss, 60 * kMiB);
}

}  // namespace
}  // namespace mxnet::stress
