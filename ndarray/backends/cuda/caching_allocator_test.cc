#include "ndarray/backends/cuda/caching_allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "base/error.h"
#include "ndarray/backends/cuda/testing/fake_device_memory.h"

namespace mxnet::backends::cuda {
namespace {

using testing::FakeDeviceMemory;
using testing::FakeDeviceState;

constexpr size_t kMiB = size_t{1} << 20;
StreamHandle S(int i) { return reinterpret_cast<StreamHandle>(static_cast<uintptr_t>(0x100 * i)); }

struct Fixture {
  std::shared_ptr<FakeDeviceState> dev = std::make_shared<FakeDeviceState>();
  std::unique_ptr<CachingAllocator> a =
      std::make_unique<CachingAllocator>(std::make_unique<FakeDeviceMemory>(dev), "gpu(0)");
  char* M(size_t n, int stream = 1) { return static_cast<char*>(a->Malloc(n, S(stream))); }
};

TEST(CachingAllocator, RoundingAndSegmentSizes) {
  EXPECT_EQ(CachingAllocator::RoundSize(1), 512u);
  EXPECT_EQ(CachingAllocator::RoundSize(512), 512u);
  EXPECT_EQ(CachingAllocator::RoundSize(513), 1024u);
  EXPECT_EQ(CachingAllocator::RoundSize(1000000), 1000448u);  // 1954 * 512
  EXPECT_EQ(CachingAllocator::SegmentSize(512), 2 * kMiB);
  EXPECT_EQ(CachingAllocator::SegmentSize(kMiB), 2 * kMiB);
  EXPECT_EQ(CachingAllocator::SegmentSize(kMiB + 512), 20 * kMiB);
  EXPECT_EQ(CachingAllocator::SegmentSize(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(CachingAllocator::SegmentSize(12 * kMiB + 512), 14 * kMiB);
}

TEST(CachingAllocator, FreedBlockIsReusedOnItsStream) {
  Fixture f;
  char* p = f.M(1000);
  EXPECT_EQ(f.a->BlockSize(p), 1024u);
  f.a->Free(p);
  EXPECT_EQ(f.M(900), p);  // same rounded size, same stream: the cached block
  AllocatorStats s = f.a->Stats();
  EXPECT_EQ(s.device_mallocs, 1u);
  EXPECT_EQ(s.allocations, 2u);
  EXPECT_EQ(s.cache_hits, 1u);
  EXPECT_EQ(s.bytes_in_use, 1024u);
}

TEST(CachingAllocator, SmallRequestsShareOneSegmentAndMergeBack) {
  Fixture f;
  char* p = f.M(1000);
  char* q = f.M(3000);  // split from the rest of p's 2 MiB segment
  EXPECT_EQ(q, p + 1024);
  EXPECT_EQ(f.dev->mallocs, 1);
  AllocatorStats s = f.a->Stats();
  EXPECT_EQ(s.bytes_reserved, 2 * kMiB);
  EXPECT_EQ(s.bytes_in_use, 1024u + 3072u);
  EXPECT_EQ(s.bytes_cached, 2 * kMiB - 4096);
  EXPECT_EQ(s.segments, 1u);
  f.a->Free(p);
  f.a->Free(q);
  // The three free pieces merged back into one 2 MiB block: a 1 MiB request (the largest of the
  // small pool) is served from the segment's start.
  EXPECT_EQ(f.M(kMiB), p);
  EXPECT_EQ(f.dev->mallocs, 1);
}

TEST(CachingAllocator, LargeRequestsSplitOnlyWhenTheRestExceedsOneMiB) {
  Fixture f;
  char* p = f.M(3 * kMiB);  // a 20 MiB segment, 17 MiB left free
  EXPECT_EQ(f.a->Stats().bytes_reserved, 20 * kMiB);
  char* q = f.M(16 * kMiB + kMiB / 2);  // 0.5 MiB would be left: the whole 17 MiB block
  EXPECT_EQ(q, p + 3 * kMiB);
  EXPECT_EQ(f.a->BlockSize(q), 17 * kMiB);
  EXPECT_EQ(f.a->Stats().bytes_in_use, 20 * kMiB);
  char* r = f.M(12 * kMiB + 1);  // its own 14 MiB segment
  EXPECT_EQ(f.a->BlockSize(r), 12 * kMiB + 512);
  EXPECT_EQ(f.a->Stats().bytes_reserved, 34 * kMiB);
  EXPECT_EQ(f.dev->mallocs, 2);
}

TEST(CachingAllocator, PeakAccounting) {
  Fixture f;
  char* p = f.M(kMiB);
  char* q = f.M(kMiB);
  f.a->Free(p);
  AllocatorStats s = f.a->Stats();
  EXPECT_EQ(s.bytes_in_use, kMiB);
  EXPECT_EQ(s.peak_in_use, 2 * kMiB);
  EXPECT_EQ(s.peak_reserved, 2 * kMiB);  // q came from the 1 MiB left of p's segment
  f.a->ResetPeak();
  EXPECT_EQ(f.a->Stats().peak_in_use, kMiB);
  f.a->Free(q);
  f.a->EmptyCache();
  s = f.a->Stats();
  EXPECT_EQ(s.bytes_reserved, 0u);
  EXPECT_EQ(s.peak_reserved, 2 * kMiB);
  EXPECT_EQ(s.peak_in_use, kMiB);
}

TEST(CachingAllocator, EmptyCacheReleasesOnlyWhollyFreeSegments) {
  Fixture f;
  char* small1 = f.M(1000);
  char* small2 = f.M(1000);
  char* large = f.M(3 * kMiB);
  f.a->Free(small1);
  f.a->Free(large);
  EXPECT_EQ(f.a->EmptyCache(), 20 * kMiB);  // the large segment; small2 pins the small one
  AllocatorStats s = f.a->Stats();
  EXPECT_EQ(s.bytes_reserved, 2 * kMiB);
  EXPECT_EQ(s.device_frees, 1u);
  EXPECT_EQ(f.dev->live_bytes, 2 * kMiB);
  f.a->Free(small2);
  EXPECT_EQ(f.a->EmptyCache(), 2 * kMiB);
  EXPECT_TRUE(f.dev->live.empty());
  EXPECT_EQ(f.a->Stats().segments, 0u);
}

TEST(CachingAllocator, FreedBlockIsNotHandedToAnotherStream) {
  Fixture f;
  char* p = f.M(1000, 1);
  f.a->Free(p);
  char* q = f.M(1000, 2);
  EXPECT_NE(q, p);
  EXPECT_EQ(f.dev->mallocs, 2);  // stream 2 got a segment of its own
  EXPECT_EQ(f.M(1000, 1), p);    // stream 1 still reuses its block
}

TEST(CachingAllocator, BlockUsedOnAnotherStreamWaitsForThatStreamsEvent) {
  Fixture f;
  char* p = f.M(1000, 1);
  f.a->RecordStream(p, S(2));  // e.g. a copy on stream 2 reads p
  f.a->RecordStream(p, S(2));  // recorded once
  f.a->RecordStream(p, S(1));  // its own stream: nothing to wait for
  f.a->Free(p);
  EXPECT_EQ(f.dev->events_created, 1);
  AllocatorStats s = f.a->Stats();
  EXPECT_EQ(s.bytes_pending, 1024u);
  EXPECT_EQ(s.bytes_in_use, 0u);
  char* q = f.M(1000, 1);  // stream 2 has not run: p is held back
  EXPECT_NE(q, p);
  f.dev->CompleteStream(S(2));
  char* r = f.M(1000, 1);
  EXPECT_EQ(r, p);
  EXPECT_EQ(f.a->Stats().bytes_pending, 0u);
  EXPECT_EQ(f.dev->events_destroyed, 1);
  EXPECT_EQ(f.dev->event_syncs, 0);  // no waiting on the hot path
}

TEST(CachingAllocator, EmptyCacheWaitsForPendingBlocks) {
  Fixture f;
  char* p = f.M(1000, 1);
  f.a->RecordStream(p, S(3));
  f.a->Free(p);
  EXPECT_EQ(f.a->EmptyCache(), 2 * kMiB);
  EXPECT_EQ(f.dev->event_syncs, 1);
  EXPECT_TRUE(f.dev->live.empty());
}

TEST(CachingAllocator, OutOfMemoryEmptiesTheCacheAndRetries) {
  Fixture f;
  f.dev->capacity = 21 * kMiB;
  f.a->Free(f.M(1000, 1));    // 2 MiB cached
  char* big = f.M(3 * kMiB);  // 20 MiB does not fit beside it until the cache is emptied
  EXPECT_NE(big, nullptr);
  EXPECT_EQ(f.dev->failed_mallocs, 1);
  EXPECT_EQ(f.a->Stats().device_frees, 1u);
  f.a->Free(big);
  f.a->EmptyCache();
  // A block waiting for stream 2 pins its segment: it is waited for before giving up.
  char* p = f.M(1000, 1);
  f.a->RecordStream(p, S(2));
  f.a->Free(p);
  EXPECT_EQ(f.dev->event_syncs, 0);
  EXPECT_NE(f.M(3 * kMiB), nullptr);
  EXPECT_EQ(f.dev->event_syncs, 1);
  EXPECT_EQ(f.a->Stats().bytes_reserved, 20 * kMiB);
}

TEST(CachingAllocator, OutOfMemoryErrorNamesDeviceAndRequest) {
  Fixture f;
  f.dev->capacity = 4 * kMiB;
  try {
    f.M(5 * kMiB);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kResourceExhausted);
    std::string m = e.what();
    EXPECT_NE(m.find("gpu(0): out of memory allocating 5242880 bytes"), std::string::npos) << m;
  }
  EXPECT_EQ(f.a->Stats().ooms, 1u);
}

TEST(CachingAllocator, BadPointersAreErrors) {
  Fixture f;
  int x = 0;
  EXPECT_THROW(f.a->Free(&x), Error);
  char* p = f.M(10);
  f.a->Free(p);
  try {
    f.a->Free(p);
    FAIL() << "double free accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("already freed"), std::string::npos);
  }
  EXPECT_THROW(f.a->RecordStream(p, S(2)), Error);
  EXPECT_THROW(f.a->Malloc(0, S(1)), Error);
  f.a->Free(nullptr);  // ignored, like free(NULL)
}

TEST(CachingAllocator, DestructorReturnsAllSegments) {
  auto dev = std::make_shared<FakeDeviceState>();
  {
    CachingAllocator a(std::make_unique<FakeDeviceMemory>(dev), "gpu(1)");
    void* p = a.Malloc(100, S(1));
    a.RecordStream(p, S(2));
    a.Free(p);
    a.Free(a.Malloc(50 * kMiB, S(1)));
    EXPECT_EQ(dev->mallocs, 2);
  }
  EXPECT_EQ(dev->frees, 2);
  EXPECT_EQ(dev->events_destroyed, dev->events_created);
}

TEST(CachingAllocator, UnpooledReturnsEveryBlockAtOnce) {
  auto dev = std::make_shared<FakeDeviceState>();
  CachingAllocator a(std::make_unique<FakeDeviceMemory>(dev), "gpu(0)", /*cache=*/false);
  void* p = a.Malloc(1000, S(1));
  EXPECT_EQ(dev->live_bytes, 1024u);  // the rounded size, no segment around it
  a.Free(p);
  EXPECT_EQ(dev->frees, 1);
  void* q = a.Malloc(1000, S(1));
  EXPECT_EQ(dev->mallocs, 2);  // no cache hit
  a.RecordStream(q, S(2));
  a.Free(q);
  EXPECT_EQ(dev->frees, 1);  // held until stream 2's event
  dev->CompleteStream(S(2));
  AllocatorStats s = a.Stats();  // processes the completed event
  EXPECT_EQ(dev->frees, 2);
  EXPECT_EQ(s.cache_hits, 0u);
  EXPECT_EQ(s.bytes_reserved, 0u);
  EXPECT_EQ(s.peak_in_use, 1024u);
}

// Threads allocating, writing and freeing at once (each thread its own stream, as each device's
// work would be): every block stays exclusively owned (its bytes keep the owner's pattern) and
// the statistics balance at the end. Also run under --config=tsan.
TEST(CachingAllocator, ConcurrentThreads) {
  Fixture f;
  std::vector<std::thread> threads;
  std::atomic<int> corrupted{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<std::pair<char*, size_t>> mine;
      for (int i = 0; i < 2000; ++i) {
        if (mine.size() < 8 && rng() % 3 != 0) {
          size_t n = 1 + rng() % 20000;
          char* p = f.M(n, 1 + t);
          std::memset(p, 'a' + t, n);
          mine.push_back({p, n});
        } else if (!mine.empty()) {
          auto [p, n] = mine.back();
          mine.pop_back();
          for (size_t k = 0; k < n; k += 97)
            if (p[k] != 'a' + t) ++corrupted;
          f.a->Free(p);
        }
      }
      for (auto [p, n] : mine) f.a->Free(p);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(corrupted.load(), 0);
  AllocatorStats s = f.a->Stats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.allocations, s.cache_hits + s.device_mallocs);
  EXPECT_EQ(f.a->EmptyCache(), s.bytes_reserved);
  EXPECT_TRUE(f.dev->live.empty());
}

// Random traffic on two streams checked against invariants computed independently of the
// allocator's own counters: live blocks never overlap, the sizes in use add up, and reserved
// bytes equal what the device handed out.
TEST(CachingAllocator, RandomTrafficKeepsInvariants) {
  Fixture f;
  std::mt19937 rng(7);
  std::map<char*, std::pair<size_t, int>> live;  // ptr -> (requested, stream)
  for (int step = 0; step < 4000; ++step) {
    int op = rng() % 10;
    if (op < 5 || live.empty()) {
      size_t n = rng() % 16 == 0 ? 1 + rng() % (24 * kMiB) : 1 + rng() % 65536;
      int stream = 1 + rng() % 2;
      char* p = f.M(n, stream);
      live[p] = {n, stream};
      if (rng() % 8 == 0) f.a->RecordStream(p, S(3 - stream));
    } else if (op < 9) {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      f.a->Free(it->first);
      live.erase(it);
    } else {
      f.dev->CompleteStream(S(1 + rng() % 2));
      if (rng() % 20 == 0) f.a->EmptyCache();
    }
    if (step % 50 == 0) {
      size_t in_use = 0;
      char* end = nullptr;
      for (auto& [p, v] : live) {
        size_t bs = f.a->BlockSize(p);
        ASSERT_GE(bs, v.first);
        ASSERT_GE(p, end) << "overlapping blocks at step " << step;
        end = p + bs;
        in_use += bs;
      }
      AllocatorStats s = f.a->Stats();
      ASSERT_EQ(s.bytes_in_use, in_use);
      ASSERT_EQ(s.bytes_reserved, f.dev->live_bytes);
      ASSERT_GE(s.peak_in_use, s.bytes_in_use);
    }
  }
  for (auto& [p, v] : live) f.a->Free(p);
  f.a->EmptyCache();
  EXPECT_TRUE(f.dev->live.empty());
  EXPECT_EQ(f.a->Stats().bytes_reserved, 0u);
}

}  // namespace
}  // namespace mxnet::backends::cuda
