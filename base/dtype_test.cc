#include "base/dtype.h"

#include <gtest/gtest.h>

namespace mxnet {
namespace {

// The type-flag table of docs/formats.md §2.3, written out independently of dtype.cc.
struct Row {
  int flag;
  const char* name;
  size_t bytes;
  const char* npy;
};
constexpr Row kTable[] = {
    {0, "float32", 4, "<f4"},   {1, "float64", 8, "<f8"}, {2, "float16", 2, "<f2"},
    {3, "uint8", 1, "|u1"},     {4, "int32", 4, "<i4"},   {5, "int8", 1, "|i1"},
    {6, "int64", 8, "<i8"},     {7, "bool", 1, "|b1"},    {8, "int16", 2, "<i2"},
    {9, "uint16", 2, "<u2"},    {10, "uint32", 4, "<u4"}, {11, "uint64", 8, "<u8"},
    {12, "bfloat16", 2, "<b2"},
};

TEST(DType, TableMatchesFormatsSpec) {
  for (const Row& r : kTable) {
    auto t = DTypeFromFlag(r.flag);
    ASSERT_TRUE(t.ok()) << r.flag;
    EXPECT_EQ(DTypeFlag(*t), r.flag);
    EXPECT_EQ(DTypeName(*t), r.name);
    EXPECT_EQ(DTypeSize(*t), r.bytes) << r.name;
    EXPECT_EQ(DTypeNpyDescr(*t), r.npy) << r.name;
    EXPECT_EQ(*DTypeFromName(r.name), *t);
    EXPECT_EQ(*DTypeFromNpyDescr(r.npy), *t);
  }
}

TEST(DType, CppTypesHaveTheFlagSize) {
  EXPECT_EQ(sizeof(DTypeToCpp<DType::kFloat16>::type), 2u);
  EXPECT_EQ(sizeof(DTypeToCpp<DType::kBFloat16>::type), 2u);
  EXPECT_EQ(CppToDType<int64_t>(), DType::kInt64);
  EXPECT_EQ(CppToDType<bool>(), DType::kBool);
  int visited = 0;
  for (const Row& r : kTable) {
    DType t = *DTypeFromFlag(r.flag);
    MX_DTYPE_SWITCH(t, T, EXPECT_EQ(sizeof(T), r.bytes); EXPECT_EQ(CppToDType<T>(), t); ++visited);
  }
  EXPECT_EQ(visited, kNumDTypes);
}

TEST(DType, AliasesAndErrors) {
  EXPECT_EQ(*DTypeFromName("float"), DType::kFloat32);
  EXPECT_EQ(*DTypeFromName("Float64"), DType::kFloat64);
  EXPECT_EQ(*DTypeFromName("half"), DType::kFloat16);
  EXPECT_EQ(*DTypeFromNpyDescr("=f4"), DType::kFloat32);
  EXPECT_EQ(*DTypeFromNpyDescr("<u1"), DType::kUint8);
  auto bad = DTypeFromName("complex64");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("complex64"), std::string::npos);
  EXPECT_FALSE(DTypeFromFlag(13).ok());
  EXPECT_FALSE(DTypeFromFlag(-1).ok());
  EXPECT_FALSE(DTypeFromNpyDescr(">f4").ok());
  EXPECT_TRUE(IsFloatingPoint(DType::kBFloat16));
  EXPECT_FALSE(IsFloatingPoint(DType::kInt8));
  EXPECT_TRUE(IsSignedInteger(DType::kInt16));
  EXPECT_FALSE(IsSignedInteger(DType::kUint16));
}

}  // namespace
}  // namespace mxnet
