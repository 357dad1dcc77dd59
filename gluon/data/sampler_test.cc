#include "gluon/data/sampler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "base/error.h"
#include "ndarray/random.h"

namespace mxnet::gluon::data {
namespace {

using Batches = std::vector<std::vector<int64_t>>;

TEST(SequentialSamplerTest, Range) {
  SequentialSampler s(4, 3);
  EXPECT_EQ(s.size(), 4);
  EXPECT_EQ(s.Epoch(), (std::vector<int64_t>{3, 4, 5, 6}));
  EXPECT_EQ(SequentialSampler(0).Epoch(), std::vector<int64_t>{});
  EXPECT_THROW(SequentialSampler(-1), Error);
}

TEST(RandomSamplerTest, PermutationRepeatableWithSeed) {
  RandomSampler s(50);
  random::seed(42);
  std::vector<int64_t> a = s.Epoch();
  std::vector<int64_t> a2 = s.Epoch();
  random::seed(42);
  std::vector<int64_t> b = s.Epoch();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, a2);  // the next epoch is a different order
  std::vector<int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> iota(50);
  std::iota(iota.begin(), iota.end(), 0);
  EXPECT_EQ(sorted, iota);
  EXPECT_NE(a, iota);
  random::seed(43);
  EXPECT_NE(s.Epoch(), a);
}

// MXNet's doc example: SequentialSampler(10), batch 3.
TEST(BatchSamplerTest, Keep) {
  BatchSampler b(std::make_shared<SequentialSampler>(10), 3, LastBatch::kKeep);
  EXPECT_EQ(b.size(), 4);
  EXPECT_EQ(b.Epoch(), (Batches{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9}}));
  EXPECT_EQ(b.Epoch(), (Batches{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9}}));
}

TEST(BatchSamplerTest, Discard) {
  BatchSampler b(std::make_shared<SequentialSampler>(10), 3, LastBatch::kDiscard);
  EXPECT_EQ(b.size(), 3);
  EXPECT_EQ(b.Epoch(), (Batches{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}));
}

TEST(BatchSamplerTest, RolloverCarriesRemainderIntoNextEpoch) {
  BatchSampler b(std::make_shared<SequentialSampler>(10), 4, LastBatch::kRollover);
  EXPECT_EQ(b.size(), 2);
  EXPECT_EQ(b.Epoch(), (Batches{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  // {8, 9} rolled over: 12 indices -> 3 batches.
  EXPECT_EQ(b.size(), 3);
  EXPECT_EQ(b.Epoch(), (Batches{{8, 9, 0, 1}, {2, 3, 4, 5}, {6, 7, 8, 9}}));
  EXPECT_EQ(b.size(), 2);
  EXPECT_EQ(b.Epoch(), (Batches{{0, 1, 2, 3}, {4, 5, 6, 7}}));
}

TEST(BatchSamplerTest, ExactMultipleAndErrors) {
  for (LastBatch lb : {LastBatch::kKeep, LastBatch::kDiscard, LastBatch::kRollover}) {
    BatchSampler b(std::make_shared<SequentialSampler>(6), 3, lb);
    EXPECT_EQ(b.size(), 2);
    EXPECT_EQ(b.Epoch(), (Batches{{0, 1, 2}, {3, 4, 5}}));
  }
  EXPECT_THROW(BatchSampler(nullptr, 3), Error);
  EXPECT_THROW(BatchSampler(std::make_shared<SequentialSampler>(6), 0), Error);
}

TEST(LastBatchTest, Parse) {
  EXPECT_EQ(*ParseLastBatch("rollover"), LastBatch::kRollover);
  EXPECT_EQ(LastBatchName(LastBatch::kDiscard), "discard");
  absl::StatusOr<LastBatch> bad = ParseLastBatch("drop");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              ::testing::HasSubstr("'keep', 'discard', or 'rollover', but got 'drop'"));
}

}  // namespace
}  // namespace mxnet::gluon::data
