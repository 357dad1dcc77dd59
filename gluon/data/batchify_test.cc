#include "gluon/data/batchify.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace mxnet::gluon::data {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

NDArray F(std::vector<float> v, Shape s) { return NDArray::FromVector(v, s); }
NDArray I(int32_t v) {
  return NDArray::FromVector(std::vector<int32_t>{v}, Shape(), cpu(), DType::kInt32);
}

TEST(StackTest, StacksEveryField) {
  std::vector<Sample> samples = {{F({1, 2}, Shape{2}), I(7)}, {F({3, 4}, Shape{2}), I(8)}};
  Batch b = Stack()(samples);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].shape(), (Shape{2, 2}));
  EXPECT_THAT(b[0].ToVector<float>(), ElementsAre(1, 2, 3, 4));
  EXPECT_EQ(b[1].shape(), (Shape{2}));
  EXPECT_EQ(b[1].dtype(), DType::kInt32);
  EXPECT_THAT(b[1].ToVector<int>(), ElementsAre(7, 8));
}

TEST(StackTest, ShapeMismatchNamesFieldAndSample) {
  std::vector<Sample> samples = {{F({1, 2}, Shape{2})}, {F({3, 4, 5}, Shape{3})}};
  try {
    Stack()(samples);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(e.what(), HasSubstr("field 0"));
    EXPECT_THAT(e.what(), HasSubstr("sample 1 has shape (3,) but sample 0 has (2,)"));
  }
  std::vector<Sample> ragged = {{F({1}, Shape{1}), I(1)}, {F({1}, Shape{1})}};
  EXPECT_THROW(Stack()(ragged), Error);
  EXPECT_THROW(Stack()(std::vector<Sample>{}), Error);
}

TEST(PadTest, PadsEveryAxisToMax) {
  std::vector<NDArray> items = {F({1, 2, 3, 4}, Shape{2, 2}), F({5, 6, 7}, Shape{1, 3})};
  Batch b = Pad(-1, std::nullopt, /*ret_length=*/true)(items);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].shape(), (Shape{2, 2, 3}));
  EXPECT_THAT(b[0].ToVector<float>(), ElementsAre(1, 2, -1, 3, 4, -1, 5, 6, 7, -1, -1, -1));
  EXPECT_EQ(b[1].dtype(), DType::kInt32);
  EXPECT_THAT(b[1].ToVector<int>(), ElementsAre(2, 1));
}

TEST(PadTest, SequencesWithDtypeAndSamples) {
  std::vector<Sample> samples = {{F({1, 2, 3}, Shape{3}), I(0)}, {F({4}, Shape{1}), I(1)}};
  Batch b = Pad(0, DType::kInt32)(samples);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].dtype(), DType::kInt32);
  EXPECT_THAT(b[0].ToVector<int>(), ElementsAre(1, 2, 3, 4, 0, 0));
  EXPECT_THAT(b[1].ToVector<int>(), ElementsAre(0, 1));
  std::vector<NDArray> bad = {F({1}, Shape{1}), F({1}, Shape{1, 1})};
  try {
    Pad()(bad);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("rank 2 but sample 0 has rank 1"));
  }
}

TEST(GroupTest, PerFieldFunctions) {
  std::vector<Sample> samples = {{F({1, 2, 3}, Shape{3}), I(5)}, {F({4}, Shape{1}), I(6)}};
  Batch b = Group({Pad(0, std::nullopt, true), Stack()})(samples);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].shape(), (Shape{2, 3}));
  EXPECT_THAT(b[1].ToVector<int>(), ElementsAre(3, 1));
  EXPECT_THAT(b[2].ToVector<int>(), ElementsAre(5, 6));
  EXPECT_THROW(Group({Stack()})(samples), Error);
}

}  // namespace
}  // namespace mxnet::gluon::data
