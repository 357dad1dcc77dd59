#include "base/dtype.h"

#include <array>

#include "base/strings.h"

namespace mxnet {
namespace {

struct DTypeInfo {
  DType type;
  size_t size;
  std::string_view name;
  std::string_view npy;
};

// Indexed by type flag (docs/formats.md §2.3).
constexpr std::array<DTypeInfo, kNumDTypes> kInfo = {{
    {DType::kFloat32, 4, "float32", "<f4"},
    {DType::kFloat64, 8, "float64", "<f8"},
    {DType::kFloat16, 2, "float16", "<f2"},
    {DType::kUint8, 1, "uint8", "|u1"},
    {DType::kInt32, 4, "int32", "<i4"},
    {DType::kInt8, 1, "int8", "|i1"},
    {DType::kInt64, 8, "int64", "<i8"},
    {DType::kBool, 1, "bool", "|b1"},
    {DType::kInt16, 2, "int16", "<i2"},
    {DType::kUint16, 2, "uint16", "<u2"},
    {DType::kUint32, 4, "uint32", "<u4"},
    {DType::kUint64, 8, "uint64", "<u8"},
    {DType::kBFloat16, 2, "bfloat16", "<b2"},
}};

const DTypeInfo& Info(DType t) {
  auto i = static_cast<size_t>(t);
  return kInfo[i < kInfo.size() ? i : 0];
}

}  // namespace

size_t DTypeSize(DType t) { return Info(t).size; }
std::string_view DTypeName(DType t) { return Info(t).name; }
std::string_view DTypeNpyDescr(DType t) { return Info(t).npy; }

absl::StatusOr<DType> DTypeFromName(std::string_view name) {
  std::string n = AsciiToLower(name);
  for (const auto& i : kInfo)
    if (n == i.name) return i.type;
  if (n == "float" || n == "single") return DType::kFloat32;
  if (n == "double") return DType::kFloat64;
  if (n == "half") return DType::kFloat16;
  if (n == "int" || n == "long") return DType::kInt64;
  if (n == "bool_" || n == "boolean") return DType::kBool;
  return absl::InvalidArgumentError(
      StrCat("unknown dtype '", name,
             "' (expected float32, float64, float16, bfloat16, uint8, int8, int16, int32, int64, "
             "uint16, uint32, uint64 or bool)"));
}

absl::StatusOr<DType> DTypeFromFlag(int64_t flag) {
  if (flag < 0 || flag >= kNumDTypes)
    return absl::InvalidArgumentError(
        StrCat("unknown dtype flag ", flag, " (valid flags are 0..12)"));
  return static_cast<DType>(flag);
}

absl::StatusOr<DType> DTypeFromNpyDescr(std::string_view descr) {
  for (const auto& i : kInfo) {
    if (descr == i.npy) return i.type;
    // Single-byte types may be written with any byte-order mark; multi-byte may use '=' too.
    if (descr.size() == 3 && descr.substr(1) == i.npy.substr(1) &&
        (descr[0] == '=' || descr[0] == '|' || (i.size == 1 && descr[0] == '<')))
      return i.type;
  }
  if (descr == "<?" || descr == "|?") return DType::kBool;
  return absl::InvalidArgumentError(
      StrCat("unsupported .npy dtype descr '", descr, "' (big-endian is not supported)"));
}

bool IsFloatingPoint(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16 ||
         t == DType::kBFloat16;
}

bool IsSignedInteger(DType t) {
  return t == DType::kInt8 || t == DType::kInt16 || t == DType::kInt32 || t == DType::kInt64;
}

}  // namespace mxnet
