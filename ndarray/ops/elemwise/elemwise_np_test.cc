// Tests of the NumPy-interface elemwise ops (_npi_* / _npx_*):
//  - values and gradients against real MXNet 1.9.1 (testdata/elemwise/np.json, written by
//    tools/conformance/refs_np_elemwise.py via gen_elemwise_refs.py), including mixed dtypes,
//    0-dim and zero-size arrays, NaN/inf edges;
//  - the output dtype (or rejection) of every op for every input dtype (pair), as MXNet;
//  - MXNet's op names, input names and attributes;
//  - the family's op cases: finite-difference gradients and optimized vs reference kernels;
//  - hand-computed values and error messages.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/elemwise/elemwise_np_api.h"
#include "ndarray/testing/family_cases.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

using nlohmann::json;
using testing::AllClose;
using testing::RefArray;

const json& Doc() {
  static const json doc = testing::LoadRefJson("ndarray/ops/testdata/elemwise/np.json");
  return doc;
}

::testing::AssertionResult Matches(const NDArray& got, const NDArray& want, double f32_rtol) {
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure()
           << "dtype " << DTypeName(got.dtype()) << " vs expected " << DTypeName(want.dtype());
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure()
           << "shape " << got.shape() << " vs expected " << want.shape();
  switch (want.dtype()) {
    case DType::kFloat64:
      return AllClose(got, want, 1e-9, 1e-12);
    case DType::kFloat32:
      return AllClose(got, want, f32_rtol, 1e-6);
    case DType::kFloat16:
    case DType::kBFloat16:
      return AllClose(got, want, 2e-3, 1e-3);
    default:
      return AllClose(got, want, 0, 0);
  }
}

// Gradients composed of more ops than MXNet's fused backward kernels round more.
double GradRtol(const std::string& op) {
  static const std::set<std::string> loose = {
      "_npi_power", "_npi_hypot",         "_npi_rpower_scalar", "_npi_power_scalar", "_npi_tan",
      "_npi_cbrt",  "_npi_arcsin",        "_npi_arccos",        "_npi_arccosh",      "_npi_arctan2",
      "_npi_ldexp", "_npi_rldexp_scalar", "_npi_true_divide"};
  return loose.count(op) ? 2e-4 : 2e-5;
}

TEST(NpElemwiseVsMXNet, ValuesAndGradients) {
  const json& doc = Doc();
  ASSERT_EQ(doc["mxnet_version"], "1.9.1");
  int n = 0, with_grads = 0;
  std::set<std::string> ops;
  for (const auto& c : doc["cases"]) {
    std::string name = c["name"], opname = c["op"];
    SCOPED_TRACE(name);
    const Op& op = OpRegistry::Get(opname);
    OpAttrs attrs = OpAttrs::Parse(op, testing::RefAttrs(c));
    std::vector<NDArray> in = testing::RefInputs(c);
    NDArrayVec out = Invoke(op, attrs, in);
    ASSERT_EQ(out.size(), c["outputs"].size());
    EXPECT_TRUE(Matches(out[0], RefArray(c["outputs"][0]), 2e-5));
    ops.insert(op.name);
    ++n;
    if (!c.contains("grads")) continue;
    ++with_grads;
    std::vector<NDArray> og{RefArray(c["head_grads"][0])}, outs(out.begin(), out.end());
    std::vector<NDArray> g = EagerGradBuilder::Run(op, attrs, in, outs, og);
    for (size_t i = 0; i < in.size(); ++i) {
      ASSERT_LT(i, g.size());
      ASSERT_FALSE(g[i].is_none()) << "no gradient for input " << i;
      EXPECT_TRUE(Matches(g[i], RefArray(c["grads"][i]), GradRtol(op.name))) << "gradient " << i;
    }
  }
  EXPECT_GT(n, 600);
  EXPECT_GT(with_grads, 150);
  EXPECT_GE(ops.size(), 88u);
}

// Every dtype (pair) of every op: MXNet's output dtype, or a rejection where MXNet has none.
TEST(NpElemwiseVsMXNet, OutputDTypesAndRejections) {
  int n = 0;
  for (const auto& row : Doc()["dtypes"]) {
    std::string opname = row[0];
    std::vector<NDArray> in;
    std::string what = opname;
    for (const auto& d : row[2]) {
      DType t = ValueOrThrow(DTypeFromName(d.get<std::string>()));
      in.push_back(NDArray::FromVector(std::vector<double>{1, 2, 3}, {3}, cpu(), t));
      what += " " + d.get<std::string>();
    }
    SCOPED_TRACE(what + " " + row[1].dump());
    const Op& op = OpRegistry::Get(opname);
    OpAttrs attrs = OpAttrs::Parse(op, testing::RefAttrs(json{{"attrs", row[1]}}));
    if (row[3].is_null()) {
      EXPECT_NE(testing::ErrorOf([&] { Invoke(op, attrs, in); }), "") << "accepted";
    } else {
      NDArrayVec out;
      std::string err = testing::ErrorOf([&] { out = Invoke(op, attrs, in); });
      ASSERT_EQ(err, "");
      EXPECT_EQ(DTypeName(out[0].dtype()), row[3].get<std::string>());
    }
    ++n;
  }
  EXPECT_GT(n, 1500);
}

TEST(NpElemwiseVsMXNet, NamesAndAttributes) {
  const json& reg = Doc()["registry"];
  EXPECT_GE(reg.size(), 88u);
  for (auto it = reg.begin(); it != reg.end(); ++it)
    testing::CheckRegistryEntry(it.key(), it.value(), {});
}

bool IsNpOp(const std::string& op) {
  return op.rfind("_npi_", 0) == 0 || op.rfind("_npx_", 0) == 0 || op == "_grad_cast_like" ||
         op == "_polyval_backward";
}

// The checks of //ndarray:all_ops_test for this family's ops (runs without the other families).
TEST(NpElemwiseCases, GradientsAndBackends) {
  testing::FamilyCaseCounts r = testing::CheckFamilyCases(IsNpOp);
  EXPECT_GT(r.cases, 180);
  EXPECT_GT(r.grads, 160);
}

NDArray F32(std::vector<double> v) {
  return NDArray::FromVector(v, {static_cast<int64_t>(v.size())}, cpu(), DType::kFloat32);
}
NDArray Of(std::vector<double> v, DType t) {
  return NDArray::FromVector(v, {static_cast<int64_t>(v.size())}, cpu(), t);
}

TEST(NpElemwise, HandComputed) {
  // int32 / int32 -> float32; bool + int8 -> int8; int32 + float16 -> float16.
  NDArray q = Invoke("_npi_true_divide", std::vector<NDArray>{Of({7, -7, 1}, DType::kInt32),
                                                              Of({2, 2, 0}, DType::kInt32)})[0];
  EXPECT_EQ(q.dtype(), DType::kFloat32);
  EXPECT_EQ(q.ToVector<double>(), (std::vector<double>{3.5, -3.5, INFINITY}));
  NDArray s = Invoke("_npi_add",
                     std::vector<NDArray>{Of({1, 0}, DType::kBool), Of({5, -3}, DType::kInt8)})[0];
  EXPECT_EQ(s.dtype(), DType::kInt8);
  EXPECT_EQ(s.ToVector<double>(), (std::vector<double>{6, -3}));
  // copysign: -0.0 counts as positive; lcm uses |x|.
  EXPECT_EQ(Invoke("_npi_copysign", std::vector<NDArray>{F32({1.5, 2}), F32({-0.0, -1})})[0]
                .ToVector<double>(),
            (std::vector<double>{1.5, -2}));
  EXPECT_EQ(Invoke("_npi_lcm", std::vector<NDArray>{Of({4, -6, 0}, DType::kInt32),
                                                    Of({6, 4, 3}, DType::kInt32)})[0]
                .ToVector<double>(),
            (std::vector<double>{12, 12, 0}));
  // around: halves to even; integers with negative decimals truncate (MXNet: 15 -> 10).
  EXPECT_EQ(
      Invoke("_npi_around", std::vector<NDArray>{F32({0.5, 1.5, 2.5, -2.5})})[0].ToVector<double>(),
      (std::vector<double>{0, 2, 2, -2}));
  EXPECT_EQ(Invoke("_npi_around", std::vector<NDArray>{Of({15, 25, -17}, DType::kInt32)},
                   {{"decimals", "-1"}})[0]
                .ToVector<double>(),
            (std::vector<double>{10, 20, -10}));
  // Comparisons and predicates give bool; 0-dim broadcasts against anything.
  NDArray e =
      Invoke("_npi_less", std::vector<NDArray>{NDArray::FromVector(std::vector<double>{1.5},
                                                                   Shape(), cpu(), DType::kFloat32),
                                               F32({1, 2})})[0];
  EXPECT_EQ(e.dtype(), DType::kBool);
  EXPECT_EQ(e.shape(), Shape{2});
  EXPECT_EQ(e.ToVector<double>(), (std::vector<double>{0, 1}));
  EXPECT_EQ(Invoke("_npi_isnan", std::vector<NDArray>{F32({NAN, 1})})[0].dtype(), DType::kBool);
  // Zero-size broadcasting.
  NDArray z =
      Invoke("_npi_multiply", std::vector<NDArray>{NDArray(Shape{0, 3}), NDArray(Shape{1, 3})})[0];
  EXPECT_EQ(z.shape(), (Shape{0, 3}));
}

TEST(NpElemwise, IntegerInputsGetZeroGradients) {
  const Op& op = OpRegistry::Get("_npi_multiply");
  std::vector<NDArray> in{Of({1, 2}, DType::kInt32), F32({0.5, 1.5})};
  NDArrayVec out = Invoke(op, OpAttrs::Parse(op, {}), in);
  std::vector<NDArray> outs(out.begin(), out.end()), og{F32({1, 1})};
  auto g = EagerGradBuilder::Run(op, OpAttrs::Parse(op, {}), in, outs, og);
  EXPECT_EQ(g[0].dtype(), DType::kInt32);
  EXPECT_EQ(g[0].ToVector<double>(), (std::vector<double>{0, 0}));
  EXPECT_EQ(g[1].ToVector<double>(), (std::vector<double>{1, 2}));
}

TEST(NpElemwise, Errors) {
  testing::ExpectInvalidArgument(
      [] {
        Invoke("_npi_add", std::vector<NDArray>{F32({1, 2, 3}), F32({1, 2})});
      },
      {"_npi_add", "could not be broadcast", "(3,)", "(2,)"});
  testing::ExpectInvalidArgument(
      [] {
        Invoke("_npi_add", std::vector<NDArray>{Of({1}, DType::kInt8), Of({1}, DType::kUint8)});
      },
      {"_npi_add", "unsupported dtypes", "int8", "uint8"});
  testing::ExpectInvalidArgument(
      [] {
        Invoke("_npi_equal", std::vector<NDArray>{Of({1}, DType::kInt32), F32({1})});
      },
      {"_npi_equal", "int32", "float32"});
  testing::ExpectInvalidArgument(
      [] {
        Invoke("_npi_bitwise_and_scalar", std::vector<NDArray>{F32({1})}, {{"scalar", "1"}});
      },
      {"_npi_bitwise_and_scalar", "float32"});
  testing::ExpectInvalidArgument(
      [] { Invoke("_npi_sqrt", std::vector<NDArray>{Of({1}, DType::kBool)}); },
      {"_npi_sqrt", "bool"});
}

TEST(NpElemwiseApi, CallsTheOps) {
  NDArray i = Of({7, -7, 4}, DType::kInt32), f = F32({2, 0.5, -1});
  EXPECT_EQ(nd::np::add(i, f).dtype(), DType::kFloat32);
  EXPECT_EQ(nd::np::add(i, 2.0).dtype(), DType::kInt32);    // integral scalar: is_int
  EXPECT_EQ(nd::np::add(i, 2.5).dtype(), DType::kFloat64);  // fractional: float
  EXPECT_EQ(nd::np::true_divide(i, i).ToVector<double>(), (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(nd::np::mod(i, 3.0).ToVector<double>(), (std::vector<double>{1, 2, 1}));
  EXPECT_EQ(nd::np::subtract(10.0, i).ToVector<double>(), (std::vector<double>{3, 17, 6}));
  EXPECT_EQ(nd::np::less(f, 1.0).ToVector<double>(), (std::vector<double>{0, 1, 1}));
  EXPECT_TRUE(AllClose(nd::np::around(F32({1.25, 2.5}), 1), F32({1.2, 2.5}), 0, 0));
  EXPECT_EQ(nd::np::nan_to_num(F32({NAN, INFINITY}), 1, 5.0).ToVector<double>(),
            (std::vector<double>{1, 5}));
  EXPECT_EQ(nd::np::where(Of({1, 0, 1}, DType::kBool), f, F32({9, 9, 9})).ToVector<double>(),
            (std::vector<double>{2, 9, -1}));
  EXPECT_EQ(nd::np::polyval(F32({1, 2, 3}), F32({2})).ToVector<double>(),
            (std::vector<double>{11}));
  EXPECT_EQ(nd::np::isfinite(F32({NAN, 1})).dtype(), DType::kBool);
  EXPECT_EQ(nd::np::bitwise_not(Of({0, 5}, DType::kInt8)).ToVector<double>(),
            (std::vector<double>{-1, -6}));
}

}  // namespace
}  // namespace mxnet
