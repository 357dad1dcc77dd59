#include "base/shape.h"

#include <gtest/gtest.h>

#include "base/error.h"

namespace mxnet {
namespace {

TEST(Shape, PrintsLikePythonTuples) {
  EXPECT_EQ(Shape({2, 3}).ToString(), "(2, 3)");
  EXPECT_EQ(Shape({5}).ToString(), "(5,)");
  EXPECT_EQ(Shape().ToString(), "()");
  EXPECT_EQ(Shape::Unknown().ToString(), "None");
  EXPECT_EQ(Shape({-1, 3}).ToString(), "(-1, 3)");
  EXPECT_EQ(Shape({-1, 3}).ToLegacyString(), "(0, 3)");
  EXPECT_EQ(Shape({16, 3, 3, 3}).ToString(), "(16, 3, 3, 3)");
}

TEST(Shape, SizeAndKnownness) {
  EXPECT_EQ(Shape({2, 3, 4}).Size(), 24);
  EXPECT_EQ(Shape().Size(), 1);          // scalar
  EXPECT_EQ(Shape({0, 3}).Size(), 0);    // real zero-size dim
  EXPECT_EQ(Shape({-1, 3}).Size(), -1);  // unknown dim
  EXPECT_FALSE(Shape::Unknown().is_known());
  EXPECT_EQ(Shape::Unknown().ndim(), -1);
  EXPECT_TRUE(Shape({0}).is_known());
  EXPECT_EQ(Shape({2, 3, 4, 5}).ProdRange(1, 3), 12);
  EXPECT_EQ(Shape({2, 3}).dim(-1), 3);
  EXPECT_THROW(Shape({2, 3}).dim(2), Error);
  EXPECT_THROW(Shape({int64_t{1} << 62, 4}).Size(), Error);  // overflow, not UB
  EXPECT_EQ(Shape({int64_t{1} << 62, 4, 0}).Size(), 0);
}

TEST(Shape, LegacyConversion) {
  EXPECT_EQ(Shape::FromLegacy(Shape({0, 3})), Shape({-1, 3}));
  EXPECT_EQ(Shape::FromLegacy(Shape()), Shape::Unknown());
  EXPECT_EQ(Shape::FromLegacy(Shape({2, 3})), Shape({2, 3}));
}

TEST(Shape, ParsesEveryMxnetTupleForm) {
  EXPECT_EQ(*ParseShape("(2, 3)"), Shape({2, 3}));
  EXPECT_EQ(*ParseShape("(7,7)"), Shape({7, 7}));
  EXPECT_EQ(*ParseShape("[3,3]"), Shape({3, 3}));
  EXPECT_EQ(*ParseShape("(10,)"), Shape({10}));
  EXPECT_EQ(*ParseShape("()"), Shape());
  EXPECT_EQ(*ParseShape("3"), Shape({3}));
  EXPECT_EQ(*ParseShape(" (2L, 3L) "), Shape({2, 3}));
  EXPECT_EQ(*ParseShape("None"), Shape::Unknown());
  EXPECT_EQ(*ParseShape("(-1, 3)"), Shape({-1, 3}));
  EXPECT_EQ(*ParseIntTuple("(0, -1, -2, -3, -4)"), (std::vector<int64_t>{0, -1, -2, -3, -4}));
}

TEST(Shape, ParseErrorsNameTheText) {
  for (const char* bad : {"", "(2, x)", "(2,,3)", "(2, 3", "2, 3)", "(,)", "(-5, 2)"}) {
    auto r = ParseShape(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(bad), std::string::npos) << r.status();
  }
}

TEST(Shape, NormalizeAxis) {
  EXPECT_EQ(NormalizeAxis(-1, 4), 3);
  EXPECT_EQ(NormalizeAxis(0, 1), 0);
  try {
    NormalizeAxis(3, 2, "sum");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_STREQ(e.what(), "sum: axis 3 is out of range for ndim 2");
  }
}

}  // namespace
}  // namespace mxnet
