// SplitSampler and SplitBatchSampler against hand-worked index lists.
#include "gluon/data/split_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/error.h"
#include "ndarray/random.h"

namespace mxnet::gluon::data {
namespace {

using V = std::vector<int64_t>;

TEST(SplitSampler, ContiguousEqualParts) {
  // 10 samples in 3 parts: part_len 3, sample 9 left out.
  EXPECT_EQ(SplitSampler(10, 3, 0).Epoch(), (V{0, 1, 2}));
  EXPECT_EQ(SplitSampler(10, 3, 2).Epoch(), (V{6, 7, 8}));
  EXPECT_EQ(SplitSampler(10, 3, 2).size(), 3);
  EXPECT_EQ(SplitSampler(10).Epoch().size(), 10u);
  SplitSampler s(10, 2, 1, /*shuffle=*/true);
  random::seed(3);
  V a = s.Epoch();
  V sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (V{5, 6, 7, 8, 9}));
  V b = s.Epoch();
  random::seed(3);
  EXPECT_EQ(s.Epoch(), a);  // the global generator decides the order
  EXPECT_THROW(SplitSampler(10, 0, 0), Error);
  EXPECT_THROW(SplitSampler(10, 2, 2), Error);
  EXPECT_THROW(SplitSampler(-1, 1, 0), Error);
}

TEST(SplitBatchSampler, SlicesOfEachGlobalBatch) {
  auto seq = std::make_shared<SequentialSampler>(11);
  // Global batches of 4: {0..3}, {4..7}, {8, 9, 10}. Two parts: (2, 2), (2, 2), (2, 1).
  SplitBatchSampler r0(seq, 4, LastBatch::kKeep, 2, 0), r1(seq, 4, LastBatch::kKeep, 2, 1);
  EXPECT_EQ(r0.Epoch(), (std::vector<V>{{0, 1}, {4, 5}, {8, 9}}));
  EXPECT_EQ(r1.Epoch(), (std::vector<V>{{2, 3}, {6, 7}, {10}}));
  EXPECT_EQ(r0.size(), 3);
  // Three parts of a batch of 4: sizes 2, 1, 1; the last batch (3) splits 1, 1, 1.
  SplitBatchSampler p0(seq, 4, LastBatch::kKeep, 3, 0), p2(seq, 4, LastBatch::kKeep, 3, 2);
  EXPECT_EQ(p0.Epoch(), (std::vector<V>{{0, 1}, {4, 5}, {8}}));
  EXPECT_EQ(p2.Epoch(), (std::vector<V>{{3}, {7}, {10}}));
  // A last batch smaller than the number of parts is dropped everywhere: 9 = 4 + 4 + 1.
  auto nine = std::make_shared<SequentialSampler>(9);
  SplitBatchSampler d(nine, 4, LastBatch::kKeep, 2, 1);
  EXPECT_EQ(d.Epoch(), (std::vector<V>{{2, 3}, {6, 7}}));
  EXPECT_EQ(d.size(), 2);
  SplitBatchSampler disc(seq, 4, LastBatch::kDiscard, 2, 0);
  EXPECT_EQ(disc.size(), 2);
  EXPECT_EQ(disc.Epoch().size(), 2u);
  // Union over the parts = the global batch, for a shuffled order too.
  auto rnd = std::make_shared<RandomSampler>(11);
  random::seed(5);
  SplitBatchSampler a(rnd, 4, LastBatch::kKeep, 2, 0);
  auto ea = a.Epoch();
  random::seed(5);
  SplitBatchSampler b(rnd, 4, LastBatch::kKeep, 2, 1);
  auto eb = b.Epoch();
  random::seed(5);
  auto global = BatchSampler(rnd, 4).Epoch();
  ASSERT_EQ(ea.size(), global.size());
  for (size_t i = 0; i < global.size(); ++i) {
    V both = ea[i];
    both.insert(both.end(), eb[i].begin(), eb[i].end());
    EXPECT_EQ(both, global[i]) << i;
  }
  EXPECT_THROW(SplitBatchSampler(nullptr, 4, LastBatch::kKeep, 2, 0), Error);
  EXPECT_THROW(SplitBatchSampler(seq, 4, LastBatch::kKeep, 2, -1), Error);
}

}  // namespace
}  // namespace mxnet::gluon::data
