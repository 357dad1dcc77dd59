#include "base/strings.h"

#include <cmath>

#include <gtest/gtest.h>

#include "base/shape.h"

namespace mxnet {
namespace {

TEST(Strings, StrCatMixesTypes) {
  std::string_view sv = "view";
  EXPECT_EQ(StrCat("a", sv, std::string("s"), 3, -4L, 'c', true), "aviews3-4ctrue");
  EXPECT_EQ(StrCat(0.1), "0.1");
  EXPECT_EQ(StrCat(1e-05f), "1e-05");
  EXPECT_EQ(StrCat("shape ", Shape({2, 3})), "shape (2, 3)");
  std::string s = "x";
  StrAppend(&s, "=", 5);
  EXPECT_EQ(s, "x=5");
  EXPECT_EQ(StrJoin(std::vector<int>{1, 2, 3}, ", "), "1, 2, 3");
}

TEST(Strings, SplitStripLower) {
  EXPECT_EQ(StrSplit("a,,b", ','), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(StrSplit("", ','), (std::vector<std::string_view>{""}));
  EXPECT_EQ(StripWhitespace("  a b\t\n"), "a b");
  EXPECT_EQ(AsciiToLower("TrUe"), "true");
  EXPECT_TRUE(StartsWith("arg:x", "arg:"));
  EXPECT_TRUE(EndsWith("x.params", ".params"));
  EXPECT_FALSE(EndsWith("s", "long"));
}

TEST(Strings, ParseNumbers) {
  int64_t i;
  EXPECT_TRUE(ParseInt64(" -12 ", &i));
  EXPECT_EQ(i, -12);
  EXPECT_FALSE(ParseInt64("12x", &i));
  EXPECT_FALSE(ParseInt64("", &i));
  EXPECT_FALSE(ParseInt64("99999999999999999999", &i));
  double d;
  EXPECT_TRUE(ParseDouble("1e-05", &d));
  EXPECT_DOUBLE_EQ(d, 1e-5);
  EXPECT_TRUE(ParseDouble("-inf", &d));
  EXPECT_TRUE(std::isinf(d) && d < 0);
  EXPECT_TRUE(ParseDouble("nan", &d));
  EXPECT_TRUE(std::isnan(d));
  EXPECT_FALSE(ParseDouble("1.0.0", &d));
}

}  // namespace
}  // namespace mxnet
