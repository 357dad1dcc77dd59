#include "base/half.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace mxnet {
namespace {

// Known binary16 encodings (IEEE 754-2008 examples).
TEST(Half, KnownEncodings) {
  EXPECT_EQ(Half(1.0f).bits, 0x3C00);
  EXPECT_EQ(Half(-2.0f).bits, 0xC000);
  EXPECT_EQ(Half(65504.0f).bits, 0x7BFF);                 // largest normal
  EXPECT_EQ(Half(6.103515625e-05f).bits, 0x0400);         // smallest normal
  EXPECT_EQ(Half(5.9604644775390625e-08f).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(Half(0.333251953125f).bits, 0x3555);
  EXPECT_EQ(Half(1e6f).bits, 0x7C00);  // overflow -> inf
  EXPECT_EQ(Half(std::numeric_limits<float>::infinity()).bits, 0x7C00);
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(std::nanf("")))));
  EXPECT_EQ(Half(-0.0f).bits, 0x8000);
}

TEST(Half, RoundsToNearestEven) {
  // 1 + 2^-11 is exactly halfway between 1 and 1 + 2^-10: ties to even (1.0).
  EXPECT_EQ(Half(1.0f + std::ldexp(1.0f, -11)).bits, 0x3C00);
  // 1 + 3 * 2^-11 is halfway between 1+2^-10 (odd) and 1+2^-9 (even): rounds up.
  EXPECT_EQ(Half(1.0f + 3 * std::ldexp(1.0f, -11)).bits, 0x3C02);
}

TEST(Half, EveryHalfRoundTrips) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    Half h = Half::FromBits(static_cast<uint16_t>(b));
    float f = h;
    if (std::isnan(f)) continue;
    EXPECT_EQ(Half(f).bits, b) << std::hex << b;
  }
}

TEST(BFloat16, KnownEncodingsAndRounding) {
  EXPECT_EQ(BFloat16(1.0f).bits, 0x3F80);
  EXPECT_EQ(BFloat16(-2.0f).bits, 0xC000);
  EXPECT_FLOAT_EQ(static_cast<float>(BFloat16(3.140625f)), 3.140625f);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even.
  EXPECT_EQ(BFloat16(1.0f + std::ldexp(1.0f, -8)).bits, 0x3F80);
  EXPECT_EQ(BFloat16(1.0f + 3 * std::ldexp(1.0f, -8)).bits, 0x3F82);
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(std::nanf("")))));
}

}  // namespace
}  // namespace mxnet
