#include "ndarray/backends/primitive_cache.h"

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace mxnet::backends {
namespace {

std::shared_ptr<const int> Int(int v) { return std::make_shared<const int>(v); }
int Val(const PrimitiveCache::Value& v) { return *std::static_pointer_cast<const int>(v); }

TEST(CacheKey, EqualWhenTheWordsAreEqual) {
  EXPECT_EQ(CacheKey("conv")(1, 2, int64_t{3}), CacheKey("conv")(int64_t{1}, 2u, 3));
  EXPECT_EQ(CacheKey("conv")(1, 2).hash(), CacheKey("conv")(1, 2).hash());
  EXPECT_NE(CacheKey("conv")(1, 2), CacheKey("conv")(2, 1));      // order matters
  EXPECT_NE(CacheKey("conv")(1, 2), CacheKey("pool")(1, 2));      // kind matters
  EXPECT_NE(CacheKey("conv")(1), CacheKey("conv")(1, 0));         // length matters
  EXPECT_NE(CacheKey("k")("ab", "c"), CacheKey("k")("a", "bc"));  // strings carry their length
  EXPECT_EQ(CacheKey("k")(std::string("relu+sum")), CacheKey("k")("relu+sum"));
  // Floating-point values by their bits.
  EXPECT_EQ(CacheKey("k")(0.5f), CacheKey("k")(0.5f));
  EXPECT_NE(CacheKey("k")(0.5f), CacheKey("k")(0.25f));
  EXPECT_NE(CacheKey("k")(0.0), CacheKey("k")(-0.0));
  // A string of 9 bytes: length word + 2 words, on top of the kind's 2 words.
  EXPECT_EQ(CacheKey("k")("123456789").size(), 2u + 3u);
  const std::vector<int64_t> dims{2, 3, 4};
  EXPECT_EQ(CacheKey("k")(std::span<const int64_t>(dims)), CacheKey("k")(3, 2, 3, 4));
}

TEST(PrimitiveCache, CountsHitsAndMissesAndCreatesOnce) {
  PrimitiveCache c(16);
  int made = 0;
  auto make = [&] {
    ++made;
    return Int(42);
  };
  EXPECT_EQ(Val(c.GetOrCreate(CacheKey("a")(1), make)), 42);
  EXPECT_EQ(Val(c.GetOrCreate(CacheKey("a")(1), make)), 42);
  EXPECT_EQ(Val(c.GetOrCreate(CacheKey("a")(1), make)), 42);
  EXPECT_EQ(made, 1);
  c.GetOrCreate(CacheKey("a")(2), make);
  EXPECT_EQ(made, 2);
  const CacheStats s = c.Stats();
  EXPECT_EQ(s.hits, 2u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.unsupported, 0u);
  EXPECT_EQ(s.evictions, 0u);
  EXPECT_EQ(s.capacity, 16u);
}

TEST(PrimitiveCache, CachesUnsupportedButNotFailures) {
  PrimitiveCache c(16);
  int made = 0;
  auto unsupported = [&] {
    ++made;
    return std::shared_ptr<const int>();
  };
  EXPECT_EQ(c.GetOrCreate(CacheKey("u"), unsupported), nullptr);
  EXPECT_EQ(c.GetOrCreate(CacheKey("u"), unsupported), nullptr);
  EXPECT_EQ(made, 1);  // asked once
  EXPECT_EQ(c.Stats().unsupported, 1u);
  auto fails = [&]() -> std::shared_ptr<const int> {
    ++made;
    throw std::runtime_error("no");
  };
  EXPECT_THROW(c.GetOrCreate(CacheKey("f"), fails), std::runtime_error);
  EXPECT_THROW(c.GetOrCreate(CacheKey("f"), fails), std::runtime_error);
  EXPECT_EQ(made, 3);  // not cached: tried again
  EXPECT_EQ(c.Stats().entries, 1u);
}

TEST(PrimitiveCache, EvictsTheLeastRecentlyUsed) {
  PrimitiveCache c(2);
  c.GetOrCreate(CacheKey("k")(1), [] { return Int(1); });
  c.GetOrCreate(CacheKey("k")(2), [] { return Int(2); });
  c.GetOrCreate(CacheKey("k")(1), [] { return Int(-1); });  // hit: 1 is now the most recent
  c.GetOrCreate(CacheKey("k")(3), [] { return Int(3); });   // evicts 2
  EXPECT_EQ(c.Stats().evictions, 1u);
  EXPECT_EQ(c.Stats().entries, 2u);
  bool found = false;
  EXPECT_EQ(Val(c.Lookup(CacheKey("k")(1), &found)), 1);
  EXPECT_TRUE(found);
  c.Lookup(CacheKey("k")(2), &found);
  EXPECT_FALSE(found);
  EXPECT_EQ(Val(c.Lookup(CacheKey("k")(3), &found)), 3);
  EXPECT_TRUE(found);
  c.SetCapacity(1);  // keeps the most recent (3)
  EXPECT_EQ(c.Stats().entries, 1u);
  EXPECT_EQ(Val(c.Lookup(CacheKey("k")(3), &found)), 3);
}

TEST(PrimitiveCache, ClearDropsEntriesButNotValuesInUse) {
  PrimitiveCache c(8);
  PrimitiveCache::Value held = c.GetOrCreate(CacheKey("k"), [] { return Int(7); });
  c.GetOrCreate(CacheKey("u"), [] { return std::shared_ptr<const int>(); });
  c.Clear();
  const CacheStats s = c.Stats();
  EXPECT_EQ(s.entries, 0u);
  EXPECT_EQ(s.unsupported, 0u);
  EXPECT_EQ(Val(held), 7);  // still usable
  EXPECT_EQ(held.use_count(), 1);
  int made = 0;
  c.GetOrCreate(CacheKey("k"), [&] {
    ++made;
    return Int(8);
  });
  EXPECT_EQ(made, 1);  // recreated after Clear
}

// Several threads on overlapping keys, with eviction and Clear running meanwhile: every value
// returned is the one made for its key, and the counters add up. (Run under --config=tsan too.)
TEST(PrimitiveCache, ConcurrentUse) {
  PrimitiveCache c(24);
  constexpr int kThreads = 8, kIters = 2000;
  std::atomic<int> wrong{0}, made{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < kIters; ++i) {
        // 16 frequent keys, and every tenth lookup one of 48 rare ones (evicting).
        const int k = i % 10 == 9 ? 16 + (i / 10 + t) % 48 : (i * 7 + t) % 16;
        auto v = c.GetOrCreate(CacheKey("k")(k), [&] {
          ++made;
          return Int(k * 10);
        });
        if (Val(v) != k * 10) ++wrong;
        if (t == 0 && i % 500 == 0) c.Clear();
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(wrong.load(), 0);
  const CacheStats s = c.Stats();
  EXPECT_EQ(s.hits + s.misses, uint64_t{kThreads * kIters});
  EXPECT_EQ(s.misses, static_cast<uint64_t>(made.load()));
  EXPECT_LE(s.entries, 24u);
  EXPECT_GT(s.hits, s.misses);
  EXPECT_GT(s.evictions, 0u);
}

}  // namespace
}  // namespace mxnet::backends
