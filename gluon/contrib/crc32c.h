// CRC-32C (Castagnoli polynomial 0x1EDC6F41, reflected 0x82F63B78; RFC 3720 §B.4) and the
// masked form TFRecord files store (TensorFlow's crc32c::Mask).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mxnet::gluon::contrib {

// CRC-32C of `data`, continuing from `crc` (the CRC of the bytes before; 0 to start).
// Crc32c("123456789") == 0xE3069283.
uint32_t Crc32c(std::string_view data, uint32_t crc = 0);

// TFRecord's masked CRC: ((crc >> 15) | (crc << 17)) + 0xa282ead8 (mod 2^32). Stored CRCs are
// masked because a CRC of data that itself contains CRCs is weak.
uint32_t MaskCrc(uint32_t crc);
// The inverse of MaskCrc.
uint32_t UnmaskCrc(uint32_t masked);

}  // namespace mxnet::gluon::contrib
