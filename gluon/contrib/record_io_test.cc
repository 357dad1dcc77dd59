#include "gluon/contrib/record_io.h"

#include <gtest/gtest.h>

#include "gluon/contrib/crc32c.h"

namespace mxnet::gluon::contrib {
namespace {

// Test vectors of CRC-32C: RFC 3720 §B.4 (iSCSI) and the "check" value of the CRC catalogue.
TEST(Crc32c, KnownVectors) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(""), 0u);
  EXPECT_EQ(Crc32c(std::string(32, '\0')), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(std::string(32, '\xff')), 0x62A8AB43u);
  std::string inc, dec;
  for (int i = 0; i < 32; ++i) inc += static_cast<char>(i), dec += static_cast<char>(31 - i);
  EXPECT_EQ(Crc32c(inc), 0x46DD794Eu);
  EXPECT_EQ(Crc32c(dec), 0x113FDB5Cu);
  EXPECT_EQ(Crc32c("a"), 0xC1D04330u);
}

TEST(Crc32c, ContinuesAcrossPieces) {
  EXPECT_EQ(Crc32c("6789", Crc32c("12345")), Crc32c("123456789"));
}

TEST(Crc32c, MaskRoundTripsAndMatchesTensorFlow) {
  // TensorFlow's Mask: rotate right by 15 bits, add 0xa282ead8.
  EXPECT_EQ(MaskCrc(0), 0xa282ead8u);
  EXPECT_EQ(MaskCrc(0xE3069283u), ((0xE3069283u >> 15) | (0xE3069283u << 17)) + 0xa282ead8u);
  for (uint32_t c : {0u, 1u, 0xE3069283u, 0xFFFFFFFFu, 0x12345678u})
    EXPECT_EQ(UnmaskCrc(MaskCrc(c)), c);
}

TEST(RecordIo, FramingByHand) {
  const std::string rec = EncodeRecord("abc");
  ASSERT_EQ(rec.size(), 3u + 16u);
  // Length 3 as little-endian uint64.
  EXPECT_EQ(rec.substr(0, 8), std::string("\x03\0\0\0\0\0\0\0", 8));
  auto le32 = [&](size_t pos) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v |= static_cast<uint32_t>(static_cast<unsigned char>(rec[pos + i])) << (8 * i);
    return v;
  };
  EXPECT_EQ(le32(8), MaskCrc(Crc32c(std::string("\x03\0\0\0\0\0\0\0", 8))));
  EXPECT_EQ(rec.substr(12, 3), "abc");
  EXPECT_EQ(le32(15), MaskCrc(Crc32c("abc")));
}

TEST(RecordIo, RoundTripAndCorruption) {
  const std::string bytes = EncodeRecord("first") + EncodeRecord("") + EncodeRecord("third!");
  auto recs = DecodeRecords(bytes, "t");
  ASSERT_TRUE(recs.ok()) << recs.status();
  EXPECT_EQ(*recs, (std::vector<std::string>{"first", "", "third!"}));

  std::string flipped = bytes;
  flipped[14] ^= 1;  // inside record 0's data
  auto bad = DecodeRecords(flipped, "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(bad.status().message().find("record 0 at byte 0: data CRC mismatch"), std::string::npos)
      << bad.status();

  std::string len_flip = bytes;
  len_flip[21] ^= 4;  // record 1's length
  bad = DecodeRecords(len_flip, "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("record 1 at byte 21: length CRC"), std::string::npos)
      << bad.status();

  bad = DecodeRecords(bytes.substr(0, bytes.size() - 2), "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("record 2"), std::string::npos) << bad.status();
  EXPECT_NE(bad.status().message().find("truncated"), std::string::npos) << bad.status();

  bad = DecodeRecords(bytes.substr(0, 5), "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("truncated header"), std::string::npos) << bad.status();

  EXPECT_EQ(ReadRecords("/nonexistent/x").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace mxnet::gluon::contrib
