// Element types with MXNet's type-flag numbering (mshadow::TypeFlag; docs/formats.md §2.3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/half.h"

namespace mxnet {

// The numeric value is MXNet's type flag, as stored in .params files and `__dtype__` attributes.
enum class DType : int32_t {
  kFloat32 = 0,
  kFloat64 = 1,
  kFloat16 = 2,
  kUint8 = 3,
  kInt32 = 4,
  kInt8 = 5,
  kInt64 = 6,
  kBool = 7,
  kInt16 = 8,
  kUint16 = 9,
  kUint32 = 10,
  kUint64 = 11,
  kBFloat16 = 12,
};

inline constexpr int kNumDTypes = 13;

// Size of one element in bytes (float32: 4, bool: 1, ...).
size_t DTypeSize(DType t);
// MXNet/NumPy name: "float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool",
// "int16", "uint16", "uint32", "uint64", "bfloat16".
std::string_view DTypeName(DType t);
// NumPy array-interface descriptor as MXNet 2.x writes to .npy: "<f4", "|u1", "<b2" (bfloat16)...
std::string_view DTypeNpyDescr(DType t);
// Parses a name as above (also "float", "double", "half", "int", "long" aliases NumPy accepts).
// Error: kInvalidArgument naming the text.
absl::StatusOr<DType> DTypeFromName(std::string_view name);
// Maps a type flag 0..12 to a DType. Error: kInvalidArgument for any other value.
absl::StatusOr<DType> DTypeFromFlag(int64_t flag);
// Parses an .npy descr ("<f4", "|b1", "<i8", ...). Big-endian descrs are rejected.
absl::StatusOr<DType> DTypeFromNpyDescr(std::string_view descr);

inline int DTypeFlag(DType t) { return static_cast<int>(t); }
bool IsFloatingPoint(DType t);  // float16/32/64, bfloat16
bool IsSignedInteger(DType t);  // int8..int64

// The C++ storage type of a DType: DTypeToCpp<DType::kFloat32>::type is float.
template <DType T>
struct DTypeToCpp;
template <>
struct DTypeToCpp<DType::kFloat32> {
  using type = float;
};
template <>
struct DTypeToCpp<DType::kFloat64> {
  using type = double;
};
template <>
struct DTypeToCpp<DType::kFloat16> {
  using type = Half;
};
template <>
struct DTypeToCpp<DType::kUint8> {
  using type = uint8_t;
};
template <>
struct DTypeToCpp<DType::kInt32> {
  using type = int32_t;
};
template <>
struct DTypeToCpp<DType::kInt8> {
  using type = int8_t;
};
template <>
struct DTypeToCpp<DType::kInt64> {
  using type = int64_t;
};
template <>
struct DTypeToCpp<DType::kBool> {
  using type = bool;
};
template <>
struct DTypeToCpp<DType::kInt16> {
  using type = int16_t;
};
template <>
struct DTypeToCpp<DType::kUint16> {
  using type = uint16_t;
};
template <>
struct DTypeToCpp<DType::kUint32> {
  using type = uint32_t;
};
template <>
struct DTypeToCpp<DType::kUint64> {
  using type = uint64_t;
};
template <>
struct DTypeToCpp<DType::kBFloat16> {
  using type = BFloat16;
};

// The DType of a C++ type: CppToDType<float>() == DType::kFloat32.
template <typename T>
constexpr DType CppToDType();
template <>
constexpr DType CppToDType<float>() {
  return DType::kFloat32;
}
template <>
constexpr DType CppToDType<double>() {
  return DType::kFloat64;
}
template <>
constexpr DType CppToDType<Half>() {
  return DType::kFloat16;
}
template <>
constexpr DType CppToDType<uint8_t>() {
  return DType::kUint8;
}
template <>
constexpr DType CppToDType<int32_t>() {
  return DType::kInt32;
}
template <>
constexpr DType CppToDType<int8_t>() {
  return DType::kInt8;
}
template <>
constexpr DType CppToDType<int64_t>() {
  return DType::kInt64;
}
template <>
constexpr DType CppToDType<bool>() {
  return DType::kBool;
}
template <>
constexpr DType CppToDType<int16_t>() {
  return DType::kInt16;
}
template <>
constexpr DType CppToDType<uint16_t>() {
  return DType::kUint16;
}
template <>
constexpr DType CppToDType<uint32_t>() {
  return DType::kUint32;
}
template <>
constexpr DType CppToDType<uint64_t>() {
  return DType::kUint64;
}
template <>
constexpr DType CppToDType<BFloat16>() {
  return DType::kBFloat16;
}

}  // namespace mxnet

// Runs BODY with `using T = <C++ type of dtype>` for every DType.
#define MX_DTYPE_CASE_(DT, T, ...)                    \
  case DT: {                                          \
    using T = typename ::mxnet::DTypeToCpp<DT>::type; \
    __VA_ARGS__;                                      \
    break;                                            \
  }
#define MX_DTYPE_SWITCH(dtype, T, ...)                        \
  switch (dtype) {                                            \
    MX_DTYPE_CASE_(::mxnet::DType::kFloat32, T, __VA_ARGS__)  \
    MX_DTYPE_CASE_(::mxnet::DType::kFloat64, T, __VA_ARGS__)  \
    MX_DTYPE_CASE_(::mxnet::DType::kFloat16, T, __VA_ARGS__)  \
    MX_DTYPE_CASE_(::mxnet::DType::kUint8, T, __VA_ARGS__)    \
    MX_DTYPE_CASE_(::mxnet::DType::kInt32, T, __VA_ARGS__)    \
    MX_DTYPE_CASE_(::mxnet::DType::kInt8, T, __VA_ARGS__)     \
    MX_DTYPE_CASE_(::mxnet::DType::kInt64, T, __VA_ARGS__)    \
    MX_DTYPE_CASE_(::mxnet::DType::kBool, T, __VA_ARGS__)     \
    MX_DTYPE_CASE_(::mxnet::DType::kInt16, T, __VA_ARGS__)    \
    MX_DTYPE_CASE_(::mxnet::DType::kUint16, T, __VA_ARGS__)   \
    MX_DTYPE_CASE_(::mxnet::DType::kUint32, T, __VA_ARGS__)   \
    MX_DTYPE_CASE_(::mxnet::DType::kUint64, T, __VA_ARGS__)   \
    MX_DTYPE_CASE_(::mxnet::DType::kBFloat16, T, __VA_ARGS__) \
  }
