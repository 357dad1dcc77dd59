#include "gluon/data/dataset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>

namespace mxnet::gluon::data {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// An ArrayDataset of n samples {x: (2,) float32 = [i, 10 i], y: () int32 = 100 + i}.
std::shared_ptr<ArrayDataset> MakeDataset(int n) {
  std::vector<float> x;
  std::vector<int32_t> y;
  for (int i = 0; i < n; ++i) {
    x.push_back(static_cast<float>(i));
    x.push_back(10.f * i);
    y.push_back(100 + i);
  }
  return std::make_shared<ArrayDataset>(std::vector<ArrayDataset::Column>{
      NDArray::FromVector(x, Shape{n, 2}), NDArray::FromVector(y, Shape{n}, cpu(), DType::kInt32)});
}

// The label (field 1) of every sample.
std::vector<int> Labels(const Dataset& ds, int field = 1) {
  std::vector<int> out;
  for (int64_t i = 0; i < ds.size(); ++i) out.push_back(ds.at(i)[field].asscalar<int>());
  return out;
}

TEST(ArrayDatasetTest, ZipsColumnsAlongAxis0) {
  auto ds = MakeDataset(5);
  EXPECT_EQ(ds->size(), 5);
  EXPECT_EQ(ds->num_columns(), 2);
  Sample s = ds->at(3);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].shape(), (Shape{2}));
  EXPECT_THAT(s[0].ToVector<float>(), ElementsAre(3.f, 30.f));
  // A 1-D column gives scalar items (MXNet converts 1-D NDArrays to NumPy scalars).
  EXPECT_EQ(s[1].shape(), Shape());
  EXPECT_EQ(s[1].dtype(), DType::kInt32);
  EXPECT_EQ(s[1].asscalar<int>(), 103);
  EXPECT_EQ((*ds)[4][1].asscalar<int>(), 104);
}

TEST(ArrayDatasetTest, RowsAreViews) {
  NDArray x = NDArray::FromVector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2});
  auto ds = std::make_shared<ArrayDataset>(std::vector<ArrayDataset::Column>{x});
  EXPECT_TRUE(ds->at(1)[0].shares_storage(x));
}

TEST(ArrayDatasetTest, ListColumns) {
  std::vector<NDArray> items = {NDArray::Full(Shape{3}, 1.0), NDArray::Full(Shape{5}, 2.0)};
  auto ds = std::make_shared<ArrayDataset>(std::vector<ArrayDataset::Column>{
      items, NDArray::FromVector(std::vector<int32_t>{7, 8}, Shape{2}, cpu(), DType::kInt32)});
  EXPECT_EQ(ds->size(), 2);
  EXPECT_EQ(ds->at(1)[0].shape(), (Shape{5}));
  EXPECT_TRUE(ds->at(1)[0].is_same(items[1]));
  EXPECT_EQ(ds->at(1)[1].asscalar<int>(), 8);
}

TEST(ArrayDatasetTest, LengthMismatchNamesTheLengths) {
  try {
    ArrayDataset ds({NDArray::Full(Shape{10, 2}, 0.0), NDArray::Full(Shape{10}, 0.0),
                     NDArray::Full(Shape{9}, 0.0)});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("array[0] has length 10 while array[2] has 9"));
  }
  EXPECT_THROW(ArrayDataset({}), Error);
  EXPECT_THROW(ArrayDataset({NDArray::Full(Shape(), 1.0)}), Error);
}

TEST(DatasetTest, IndexOutOfRange) {
  auto ds = MakeDataset(3);
  try {
    ds->at(3);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kOutOfRange);
    EXPECT_THAT(e.what(), HasSubstr("index 3 is out of range for a dataset of 3 samples"));
  }
  EXPECT_THROW(ds->at(-1), Error);
}

TEST(SimpleDatasetTest, HoldsSamples) {
  auto ds = SimpleDataset::FromArrays({NDArray::Full(Shape{1}, 4.0), NDArray::Full(Shape{1}, 5.0)});
  EXPECT_EQ(ds->size(), 2);
  EXPECT_EQ(ds->at(1).size(), 1u);
  EXPECT_EQ(ds->at(1)[0].asscalar<float>(), 5.f);
}

TEST(DatasetTest, TransformLazyAndEager) {
  auto ds = MakeDataset(4);
  int calls = 0;
  auto fn = [&calls](const Sample& s) {
    ++calls;
    return Sample{s[1], s[0]};  // swap fields
  };
  auto lazy = ds->transform(fn, /*lazy=*/true);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(lazy->size(), 4);
  EXPECT_EQ(Labels(*lazy, 0), (std::vector<int>{100, 101, 102, 103}));
  EXPECT_EQ(calls, 4);
  Labels(*lazy, 0);
  EXPECT_EQ(calls, 8);  // applied on every access

  calls = 0;
  auto eager = ds->transform(fn, /*lazy=*/false);
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(Labels(*eager, 0), (std::vector<int>{100, 101, 102, 103}));
  EXPECT_EQ(calls, 4);
  EXPECT_NE(dynamic_cast<const SimpleDataset*>(eager.get()), nullptr);
}

TEST(DatasetTest, TransformFirstKeepsOtherFields) {
  auto ds = MakeDataset(3)->transform_first([](const NDArray& x) {
    std::vector<float> v = x.ToVector<float>();
    return NDArray::FromVector(std::vector<float>{v[0] + v[1]}, Shape{1});
  });
  Sample s = ds->at(2);
  EXPECT_EQ(s[0].asscalar<float>(), 22.f);
  EXPECT_EQ(s[1].asscalar<int>(), 102);
}

TEST(DatasetTest, Filter) {
  auto ds = MakeDataset(10)->filter([](const Sample& s) { return s[1].asscalar<int>() % 3 == 0; });
  EXPECT_EQ(Labels(*ds), (std::vector<int>{102, 105, 108}));
}

TEST(DatasetTest, ShardContiguousLikeMXNet) {
  // len 10 in 4 shards: sizes 3, 3, 2, 2 (the first len % n shards get one more).
  auto ds = MakeDataset(10);
  std::vector<std::vector<int>> shards;
  for (int i = 0; i < 4; ++i) shards.push_back(Labels(*ds->shard(4, i)));
  EXPECT_EQ(shards[0], (std::vector<int>{100, 101, 102}));
  EXPECT_EQ(shards[1], (std::vector<int>{103, 104, 105}));
  EXPECT_EQ(shards[2], (std::vector<int>{106, 107}));
  EXPECT_EQ(shards[3], (std::vector<int>{108, 109}));
  // More shards than samples: empty tails.
  EXPECT_EQ(MakeDataset(2)->shard(3, 2)->size(), 0);
  EXPECT_EQ(Labels(*MakeDataset(2)->shard(3, 1)), (std::vector<int>{101}));
  try {
    ds->shard(4, 4);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("shard index out of bound: 4 out of 4"));
  }
  EXPECT_THROW(ds->shard(0, 0), Error);
}

TEST(DatasetTest, TakeAndSample) {
  auto ds = MakeDataset(5);
  EXPECT_EQ(Labels(*ds->take(2)), (std::vector<int>{100, 101}));
  EXPECT_EQ(ds->take(50)->size(), 5);
  EXPECT_EQ(ds->take(-1)->size(), 5);
  EXPECT_EQ(ds->take(0)->size(), 0);
  EXPECT_EQ(Labels(*ds->sample({4, 0, 4})), (std::vector<int>{104, 100, 104}));
  EXPECT_THROW(ds->sample({5}), Error);
  // Chained views keep their sources alive.
  DatasetPtr chained = MakeDataset(8)->shard(2, 1)->take(3)->filter(
      [](const Sample& s) { return s[1].asscalar<int>() != 105; });
  EXPECT_EQ(Labels(*chained), (std::vector<int>{104, 106}));
}

TEST(DatasetTest, OpsNeedSharedOwnership) {
  ArrayDataset on_stack({NDArray::Full(Shape{2}, 0.0)});
  try {
    on_stack.take(1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(e.what(), HasSubstr("std::make_shared"));
  }
}

}  // namespace
}  // namespace mxnet::gluon::data
