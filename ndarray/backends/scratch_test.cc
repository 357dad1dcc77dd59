#include "ndarray/backends/scratch.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace mxnet::backends {
namespace {

bool Aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % ScratchPool::kAlignment == 0;
}

TEST(ScratchPool, SlotsAreDistinctAlignedAndReused) {
  ScratchPool pool;
  void *a0, *b0;
  {
    ScratchPool::Scope s(pool);
    a0 = s.Get(100);
    b0 = s.Get(5000);
    ASSERT_NE(a0, nullptr);
    ASSERT_NE(b0, nullptr);
    EXPECT_NE(a0, b0);
    EXPECT_TRUE(Aligned(a0));
    EXPECT_TRUE(Aligned(b0));
    std::memset(b0, 1, 5000);  // really 5000 bytes
  }
  EXPECT_EQ(pool.GetStats().buffers, 2u);
  EXPECT_EQ(pool.GetStats().bytes, 4096u + 8192u);  // page multiples
  EXPECT_EQ(pool.GetStats().threads, 1u);
  {
    ScratchPool::Scope s(pool);
    EXPECT_EQ(s.Get(50), a0);    // same slot, fits: reused
    EXPECT_EQ(s.Get(8192), b0);  // still fits the rounded size
  }
  {
    ScratchPool::Scope s(pool);
    s.Get(1);
    void* grown = s.Get(100000);  // slot 1 grows
    ASSERT_NE(grown, nullptr);
    std::memset(grown, 2, 100000);
  }
  EXPECT_EQ(pool.GetStats().bytes, 4096u + 102400u);
}

TEST(ScratchPool, DeclinesWhatItDoesNotKeep) {
  ScratchPool pool;
  ScratchPool::Scope s(pool);
  EXPECT_EQ(s.Get(ScratchPool::kMaxKept + 1), nullptr);  // too large (its slot is used up)
  for (size_t i = 1; i < ScratchPool::kSlots; ++i) EXPECT_NE(s.Get(64), nullptr);
  EXPECT_EQ(s.Get(64), nullptr);  // every slot taken
}

TEST(ScratchPool, NestedScopesContinueAfterTheOuterSlots) {
  ScratchPool pool;
  ScratchPool::Scope outer(pool);
  void* a = outer.Get(64);
  void* inner_first;
  {
    ScratchPool::Scope inner(pool);
    inner_first = inner.Get(64);
    EXPECT_NE(inner_first, a);
  }
  void* b = outer.Get(64);  // the inner Scope's slot, free again
  EXPECT_EQ(b, inner_first);
}

TEST(ScratchPool, ReleaseFreesIdleBuffers) {
  ScratchPool pool;
  {
    ScratchPool::Scope s(pool);
    s.Get(1 << 20);
    s.Get(1 << 16);
  }
  ASSERT_GT(pool.GetStats().bytes, 0u);
  pool.Release();
  EXPECT_EQ(pool.GetStats().bytes, 0u);
  EXPECT_EQ(pool.GetStats().buffers, 0u);
  ScratchPool::Scope s(pool);  // usable again
  void* p = s.Get(1 << 20);
  ASSERT_NE(p, nullptr);
  std::memset(p, 3, 1 << 20);
}

TEST(ScratchPool, ReleaseDuringAScopeWaitsForItsEnd) {
  ScratchPool pool;
  {
    ScratchPool::Scope s(pool);
    void* p = s.Get(4096);
    pool.Release();  // from inside: deferred
    EXPECT_EQ(pool.GetStats().buffers, 1u);
    std::memset(p, 4, 4096);  // still valid
  }
  EXPECT_EQ(pool.GetStats().buffers, 0u);

  // From another thread while this one is inside a Scope.
  ScratchPool::Scope s(pool);
  void* p = s.Get(4096);
  std::thread([&] { pool.Release(); }).join();
  std::memset(p, 5, 4096);
  EXPECT_EQ(pool.GetStats().buffers, 1u);
}

TEST(ScratchPool, ThreadsHaveTheirOwnBuffersFreedAtExit) {
  ScratchPool pool;
  constexpr int kThreads = 6, kIters = 300;
  std::atomic<int> bad{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < kIters; ++i) {
        ScratchPool::Scope s(pool);
        const size_t n = 4096 * (1 + (i + t) % 5);
        auto* a = static_cast<unsigned char*>(s.Get(n));
        auto* b = static_cast<unsigned char*>(s.Get(n));
        std::memset(a, t, n);
        std::memset(b, t + 100, n);
        std::this_thread::yield();
        for (size_t j = 0; j < n; j += 512)
          if (a[j] != t || b[j] != t + 100) ++bad;
        if (i % 50 == 0) pool.Release();  // racing with the other threads' Scopes
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(bad.load(), 0);
  const ScratchPool::Stats st = pool.GetStats();
  EXPECT_EQ(st.threads, 0u);  // every thread exited
  EXPECT_EQ(st.bytes, 0u);
}

TEST(ScratchPool, ThreadsMayOutliveThePool) {
  auto* pool = new ScratchPool();
  std::atomic<bool> used{false}, done{false};
  std::thread t([&] {
    {
      ScratchPool::Scope s(*pool);
      s.Get(4096);
    }
    used = true;
    while (!done) std::this_thread::yield();
  });
  while (!used) std::this_thread::yield();
  delete pool;  // the thread's arena lives on until it exits
  done = true;
  t.join();
}

}  // namespace
}  // namespace mxnet::backends
