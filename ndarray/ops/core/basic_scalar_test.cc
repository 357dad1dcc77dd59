// The dtype rules of the basic family's scalar ops (_plus_scalar, _minus_scalar, _rminus_scalar,
// _mul_scalar, _div_scalar, _rdiv_scalar), hand-checked against what real MXNet 1.9.1 returns
// (the same calls are cases of tools/conformance/gen_basic_refs.py, which report.py checks):
//   - integer inputs keep their dtype and the scalar is truncated to it (int32 * 2.5 = int32 * 2);
//   - bool inputs give int64 (is_int=True, the default) or float64 (is_int=False);
//   - integer inputs with is_int=False give float64 computed with the exact scalar;
//   - _rdiv_scalar on integers divides in float32 and converts like x86 (2 / 0 -> INT_MIN).
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet {
namespace {

NDArray Arr(std::vector<double> v, DType t) {
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())}, cpu(), t);
}

NDArray Scal(const std::string& op, const NDArray& x, const std::string& scalar,
             bool is_int = true) {
  AttrDict a{{"scalar", scalar}};
  if (!is_int) a["is_int"] = "False";
  return Invoke(op, std::vector<NDArray>{x}, a)[0];
}

struct Want {
  DType dtype;
  std::vector<int64_t> values;
};

void ExpectInts(const NDArray& got, const Want& w, const std::string& what) {
  EXPECT_EQ(got.dtype(), w.dtype) << what;
  EXPECT_EQ(got.ToVector<int64_t>(), w.values) << what;
}

TEST(ScalarDTypes, IntegerInputsTruncateTheScalar) {
  // mx.nd.array([3, 0, 1, 200], dtype='uint8') op 2.5, etc. (MXNet 1.9.1 outputs).
  NDArray u8 = Arr({3, 0, 1, 200}, DType::kUint8);
  ExpectInts(Scal("_plus_scalar", u8, "2.5"), {DType::kUint8, {5, 2, 3, 202}}, "u8 +");
  ExpectInts(Scal("_minus_scalar", u8, "2.5"), {DType::kUint8, {1, 254, 255, 198}}, "u8 -");
  ExpectInts(Scal("_rminus_scalar", u8, "2.5"), {DType::kUint8, {255, 2, 1, 58}}, "u8 r-");
  ExpectInts(Scal("_mul_scalar", u8, "2.5"), {DType::kUint8, {6, 0, 2, 144}}, "u8 *");
  ExpectInts(Scal("_div_scalar", u8, "2.5"), {DType::kUint8, {1, 0, 0, 100}}, "u8 /");
  ExpectInts(Scal("_rdiv_scalar", u8, "2.5"), {DType::kUint8, {0, 0, 2, 0}}, "u8 r/");

  NDArray i8 = Arr({3, 0, -2, 127}, DType::kInt8);
  ExpectInts(Scal("_plus_scalar", i8, "2.5"), {DType::kInt8, {5, 2, 0, -127}}, "i8 +");
  ExpectInts(Scal("_rminus_scalar", i8, "2.5"), {DType::kInt8, {-1, 2, 4, -125}}, "i8 r-");
  ExpectInts(Scal("_mul_scalar", i8, "2.5"), {DType::kInt8, {6, 0, -4, -2}}, "i8 *");
  ExpectInts(Scal("_div_scalar", i8, "2.5"), {DType::kInt8, {1, 0, -1, 63}}, "i8 /");
  ExpectInts(Scal("_rdiv_scalar", i8, "2.5"), {DType::kInt8, {0, 0, -1, 0}}, "i8 r/");

  NDArray i32 = Arr({7, 0, -3, 2147483647}, DType::kInt32);
  ExpectInts(Scal("_plus_scalar", i32, "2.5"), {DType::kInt32, {9, 2, -1, -2147483647}}, "i32 +");
  ExpectInts(Scal("_mul_scalar", i32, "2.5"), {DType::kInt32, {14, 0, -6, -2}}, "i32 *");
  ExpectInts(Scal("_div_scalar", i32, "2.5"), {DType::kInt32, {3, 0, -1, 1073741823}}, "i32 /");
  ExpectInts(Scal("_rdiv_scalar", i32, "2.5"), {DType::kInt32, {0, INT32_MIN, 0, 0}}, "i32 r/");
  NDArray n32 = Arr({7, 1, -3, 4}, DType::kInt32);
  ExpectInts(Scal("_mul_scalar", n32, "-1.5"), {DType::kInt32, {-7, -1, 3, -4}}, "i32 * -1.5");
  ExpectInts(Scal("_rdiv_scalar", n32, "-1.5"), {DType::kInt32, {0, -1, 0, 0}}, "i32 r/ -1.5");

  NDArray i64 = Arr({5, 0, -6, 1099511627776.0}, DType::kInt64);
  ExpectInts(Scal("_mul_scalar", i64, "2.5"), {DType::kInt64, {10, 0, -12, 2199023255552}},
             "i64 *");
  ExpectInts(Scal("_rminus_scalar", i64, "2.5"), {DType::kInt64, {-3, 2, 8, -1099511627774}},
             "i64 r-");
  ExpectInts(Scal("_rdiv_scalar", i64, "2.5"),
             {DType::kInt64, {0, std::numeric_limits<int64_t>::min(), 0, 0}}, "i64 r/");
}

TEST(ScalarDTypes, BoolGivesInt64OrFloat64) {
  // mx.nd.array([1, 0, 1], dtype='bool') * 2.5 -> int64 [2, 0, 2].
  NDArray b = Arr({1, 0, 1}, DType::kBool);
  ExpectInts(Scal("_plus_scalar", b, "2.5"), {DType::kInt64, {3, 2, 3}}, "bool +");
  ExpectInts(Scal("_minus_scalar", b, "2.5"), {DType::kInt64, {-1, -2, -1}}, "bool -");
  ExpectInts(Scal("_rminus_scalar", b, "2.5"), {DType::kInt64, {1, 2, 1}}, "bool r-");
  ExpectInts(Scal("_mul_scalar", b, "2.5"), {DType::kInt64, {2, 0, 2}}, "bool *");
  ExpectInts(Scal("_div_scalar", b, "2.5"), {DType::kInt64, {0, 0, 0}}, "bool /");
  ExpectInts(Scal("_rdiv_scalar", b, "2.5"),
             {DType::kInt64, {2, std::numeric_limits<int64_t>::min(), 2}}, "bool r/");
  ExpectInts(nd::mul_scalar(b, 2.5), {DType::kInt64, {2, 0, 2}}, "nd::mul_scalar(bool)");

  NDArray f = Scal("_mul_scalar", b, "2.5", /*is_int=*/false);
  EXPECT_EQ(f.dtype(), DType::kFloat64);
  EXPECT_EQ(f.ToVector<double>(), (std::vector<double>{2.5, 0, 2.5}));
  NDArray r = Scal("_rdiv_scalar", b, "2.5", false);
  EXPECT_EQ(r.dtype(), DType::kFloat64);
  EXPECT_EQ(r.ToVector<double>()[0], 2.5);
  EXPECT_TRUE(std::isinf(r.ToVector<double>()[1]));
}

TEST(ScalarDTypes, IntegerWithIsIntFalseIsFloat64) {
  NDArray x = Arr({7, 1, -3, 4}, DType::kInt32);
  NDArray m = Scal("_mul_scalar", x, "2.5", false);
  EXPECT_EQ(m.dtype(), DType::kFloat64);
  EXPECT_EQ(m.ToVector<double>(), (std::vector<double>{17.5, 2.5, -7.5, 10}));
  NDArray d = Scal("_div_scalar", x, "2.5", false);
  EXPECT_EQ(d.ToVector<double>(), (std::vector<double>{2.8, 0.4, -1.2, 1.6}));
  NDArray p = Scal("_plus_scalar", Arr({1, 2}, DType::kUint8), "0.5", false);
  EXPECT_EQ(p.dtype(), DType::kFloat64);
  EXPECT_EQ(p.ToVector<double>(), (std::vector<double>{1.5, 2.5}));
  // Type inference alone gives the same dtypes.
  const Op& op = OpRegistry::Get("_mul_scalar");
  ShapeVec in_s{Shape{2}}, out_s;
  DTypeVec in_t{static_cast<int>(DType::kInt32)}, out_t;
  InferOutputs(op, OpAttrs::Parse(op, {{"scalar", "2.5"}, {"is_int", "False"}}), &in_s, &in_t,
               &out_s, &out_t);
  EXPECT_EQ(out_t[0], static_cast<int>(DType::kFloat64));
}

TEST(ScalarDTypes, FloatScalarIsRoundedToTheElementType) {
  // float16: DType(0.3) is float16(0.3) = 0.300048828125; 3 * that = 0.900146484375 rounds to
  // 0.900390625 (MXNet 1.9.1's value; 3 * 0.3 rounded once would give 0.89990234375).
  NDArray h = Arr({0.5, 1.5, 3}, DType::kFloat16);
  NDArray y = Scal("_mul_scalar", h, "0.3");
  EXPECT_EQ(y.dtype(), DType::kFloat16);
  std::vector<double> v = y.ToVector<double>();
  EXPECT_EQ(v[2], 0.900390625);
  NDArray f = Scal("_plus_scalar", Arr({1.0}, DType::kFloat32), "0.1");
  EXPECT_EQ(f.ToVector<float>()[0], 1.0f + 0.1f);
}

}  // namespace
}  // namespace mxnet
