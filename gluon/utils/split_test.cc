// split_data / split_and_load against hand-computed slices (MXNet 1.9.1's divmod rule: the
// first size % n pieces get one more row) and MXNet's even_split error.
#include "gluon/utils/split.h"

#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "base/error.h"

namespace mxnet::gluon::utils {
namespace {

NDArray Arange(const Shape& shape) {
  std::vector<float> v(static_cast<size_t>(shape.Size()));
  std::iota(v.begin(), v.end(), 0.0f);
  return NDArray::FromVector(v, shape);
}

TEST(SplitData, EvenAlongAxis0) {
  auto s = split_data(Arange(Shape{4, 2}), 2);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(s[0].ToVector<float>(), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(s[1].ToVector<float>(), (std::vector<float>{4, 5, 6, 7}));
}

TEST(SplitData, UnevenFirstPiecesGetTheExtraRows) {
  // 5 rows into 2: 3 + 2; 7 rows into 3: 3 + 2 + 2.
  auto s = split_data(Arange(Shape{5, 2}), 2, 0, /*even_split=*/false);
  EXPECT_EQ(s[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(s[1].ToVector<float>(), (std::vector<float>{6, 7, 8, 9}));
  auto t = split_data(Arange(Shape{7}), 3, 0, false);
  EXPECT_EQ(t[0].ToVector<float>(), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(t[1].ToVector<float>(), (std::vector<float>{3, 4}));
  EXPECT_EQ(t[2].ToVector<float>(), (std::vector<float>{5, 6}));
  // Fewer rows than pieces: empty pieces at the end.
  auto u = split_data(Arange(Shape{1}), 2, 0, false);
  EXPECT_EQ(u[0].shape(), (Shape{1}));
  EXPECT_EQ(u[1].shape(), (Shape{0}));
}

TEST(SplitData, OtherAxis) {
  // (2, 5) along axis 1 into 3: columns [0, 2), [2, 4), [4, 5).
  auto s = split_data(Arange(Shape{2, 5}), 3, 1, false);
  EXPECT_EQ(s[0].ToVector<float>(), (std::vector<float>{0, 1, 5, 6}));
  EXPECT_EQ(s[1].ToVector<float>(), (std::vector<float>{2, 3, 7, 8}));
  EXPECT_EQ(s[2].shape(), (Shape{2, 1}));
  EXPECT_EQ(s[2].ToVector<float>(), (std::vector<float>{4, 9}));
  auto n = split_data(Arange(Shape{2, 4}), 2, -1);
  EXPECT_EQ(n[1].ToVector<float>(), (std::vector<float>{2, 3, 6, 7}));
}

TEST(SplitData, Errors) {
  try {
    split_data(Arange(Shape{5, 2}), 2);
    ADD_FAILURE() << "uneven split accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("cannot be evenly split into 2 slices along axis 0"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(split_data(Arange(Shape{4}), 0), Error);
  EXPECT_THROW(split_data(Arange(Shape{4}), 2, 1), Error);
  EXPECT_THROW(split_data(NDArray(), 2), Error);
  EXPECT_THROW(split_and_load(Arange(Shape{4}), {}), Error);
}

TEST(SplitAndLoad, OnePiecePerDevice) {
  NDArray x = Arange(Shape{6, 1});
  auto s = split_and_load(x, {cpu(0), cpu(1), cpu(2)});
  ASSERT_EQ(s.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(s[i].device(), cpu(i));
    EXPECT_EQ(s[i].ToVector<float>(), (std::vector<float>{2.0f * i, 2.0f * i + 1}));
  }
  auto one = split_and_load(x, {cpu(1)});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].shape(), (Shape{6, 1}));
  EXPECT_EQ(one[0].device(), cpu(1));
}

}  // namespace
}  // namespace mxnet::gluon::utils
