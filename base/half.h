// 16-bit floating-point storage types: IEEE 754 binary16 (float16) and bfloat16.
// Arithmetic goes through float; conversions round to nearest even (as MXNet's mshadow does).
#pragma once

#include <bit>
#include <cstdint>

namespace mxnet {

// IEEE 754 half precision (1 sign, 5 exponent, 10 mantissa bits).
struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(FromFloat(f)) {}             // NOLINT(runtime/explicit): numeric conversion
  operator float() const { return ToFloat(bits); }  // NOLINT
  static Half FromBits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }

  static uint16_t FromFloat(float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t exp = (x >> 23) & 0xFFu;
    uint32_t mant = x & 0x7FFFFFu;
    if (exp == 0xFF) return sign | 0x7C00u | (mant ? 0x200u : 0u);  // inf / nan
    int32_t e = static_cast<int32_t>(exp) - 127 + 15;
    if (e >= 0x1F) return sign | 0x7C00u;  // overflow -> inf
    if (e <= 0) {                          // subnormal or zero
      if (e < -10) return sign;
      mant |= 0x800000u;
      uint32_t shift = static_cast<uint32_t>(14 - e);
      uint32_t half_mant = mant >> shift;
      uint32_t rem = mant & ((1u << shift) - 1u);
      uint32_t halfway = 1u << (shift - 1);
      if (rem > halfway || (rem == halfway && (half_mant & 1u))) ++half_mant;
      return sign | half_mant;
    }
    uint32_t h = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry into exponent: correct
    return static_cast<uint16_t>(h);
  }

  static float ToFloat(uint16_t h) {
    uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x3FFu;
    uint32_t x;
    if (exp == 0) {
      if (mant == 0) {
        x = sign;
      } else {  // subnormal: normalize
        int e = -1;
        do {
          ++e;
          mant <<= 1;
        } while ((mant & 0x400u) == 0);
        x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3FFu) << 13);
      }
    } else if (exp == 0x1F) {
      x = sign | 0x7F800000u | (mant << 13);
    } else {
      x = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    return std::bit_cast<float>(x);
  }
};

// bfloat16: the upper 16 bits of a float32, rounded to nearest even.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(FromFloat(f)) {}  // NOLINT(runtime/explicit)
  operator float() const {
    return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
  }  // NOLINT
  static BFloat16 FromBits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  static uint16_t FromFloat(float f) {
    uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7F800000u) == 0x7F800000u && (x & 0x7FFFFFu)) return (x >> 16) | 0x40u;  // nan
    x += 0x7FFFu + ((x >> 16) & 1u);
    return static_cast<uint16_t>(x >> 16);
  }
};

}  // namespace mxnet
