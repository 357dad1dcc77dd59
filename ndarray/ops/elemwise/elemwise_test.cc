// Tests of the elemwise op family:
//  - values and gradients against real MXNet 1.9.1 (testdata/elemwise/*.json, made by
//    tools/conformance/gen_elemwise_refs.py), and MXNet's op names, aliases and attributes;
//  - hand-computed edge cases, error messages, dtype rules, the nd:: API and NDArray operators;
//  - optimized vs reference kernels on many broadcast patterns and dtypes;
//  - second-order gradients of every differentiable case (the gradient definitions are
//    differentiated again through a small tape), checked against finite differences.
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/elemwise/elemwise_api.h"
#include "ndarray/ops/elemwise/elemwise_util.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet {
namespace {

using nlohmann::json;
using testing::AllClose;
using testing::RandomArray;

// ---------------------------------------------------------------------------------------------
// Reference data.
json LoadJson(const std::string& name) {
  std::ifstream f("ndarray/ops/testdata/elemwise/" + name);
  EXPECT_TRUE(f.good()) << "missing ndarray/ops/testdata/elemwise/" << name;
  return json::parse(f);
}

double JsonNumber(const json& v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s == "nan") return std::nan("");
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
    ADD_FAILURE() << "bad number " << s;
  }
  return v.get<double>();
}

NDArray FromJson(const json& a) {
  std::vector<int64_t> dims = a["shape"].get<std::vector<int64_t>>();
  std::vector<double> data;
  for (const auto& v : a["data"]) data.push_back(JsonNumber(v));
  DType t = ValueOrThrow(DTypeFromName(a["dtype"].get<std::string>()));
  return NDArray::FromVector(data, Shape(dims), cpu(), t);
}

AttrDict AttrsFromJson(const json& j) {
  AttrDict d;
  for (auto it = j.begin(); it != j.end(); ++it) d[it.key()] = it.value().get<std::string>();
  return d;
}

// Tolerances by dtype: integers and bool exact; floats allow rounding differences between
// MXNet's and our (composed) formulas.
::testing::AssertionResult Matches(const NDArray& got, const NDArray& want,
                                   double f32_rtol = 2e-5) {
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure()
           << "dtype " << DTypeName(got.dtype()) << " vs expected " << DTypeName(want.dtype());
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

// Ops whose float32 gradients go through longer compositions (more rounding) than MXNet's
// fused backward kernels.
double GradRtol(const std::string& op) {
  static const std::set<std::string> loose = {
      "gamma",           "gammaln", "erfinv",         "arccosh",       "rcbrt",           "rsqrt",
      "broadcast_power", "_power",  "_rpower_scalar", "_power_scalar", "broadcast_hypot", "_hypot",
      "_hypot_scalar",   "tan",     "cbrt",           "arcsin",        "arccos"};
  return loose.count(op) ? 2e-4 : 2e-5;
}

void RunReferenceFile(const std::string& file) {
  json doc = LoadJson(file);
  ASSERT_EQ(doc["mxnet_version"], "1.9.1");
  int n = 0;
  for (const auto& c : doc["cases"]) {
    std::string name = c["name"].get<std::string>(), opname = c["op"].get<std::string>();
    SCOPED_TRACE(file + ": " + name);
    const Op& op = OpRegistry::Get(opname);
    OpAttrs attrs = OpAttrs::Parse(op, AttrsFromJson(c["attrs"]));
    std::vector<NDArray> in;
    for (const auto& a : c["inputs"]) in.push_back(FromJson(a));
    NDArrayVec out = Invoke(op, attrs, in);
    ASSERT_EQ(out.size(), c["outputs"].size());
    for (size_t i = 0; i < out.size(); ++i) {
      NDArray want = FromJson(c["outputs"][i]);
      EXPECT_EQ(out[i].shape(), want.shape());
      EXPECT_TRUE(Matches(out[i], want)) << "output " << i;
    }
    if (c.contains("grads")) {
      std::vector<NDArray> og, outs(out.begin(), out.end());
      for (const auto& a : c["head_grads"]) og.push_back(FromJson(a));
      std::vector<NDArray> g = EagerGradBuilder::Run(op, attrs, in, outs, og);
      for (size_t i = 0; i < g.size(); ++i) {
        if (c["grads"][i].is_null()) continue;
        ASSERT_FALSE(g[i].is_none()) << "no gradient for input " << i;
        EXPECT_TRUE(Matches(g[i], FromJson(c["grads"][i]), GradRtol(op.name))) << "gradient " << i;
      }
    }
    ++n;
  }
  EXPECT_GT(n, 10);
}

TEST(ElemwiseVsMXNet, Unary) { RunReferenceFile("unary.json"); }
TEST(ElemwiseVsMXNet, Binary) { RunReferenceFile("binary.json"); }
TEST(ElemwiseVsMXNet, Scalar) { RunReferenceFile("scalar.json"); }
TEST(ElemwiseVsMXNet, Misc) { RunReferenceFile("misc.json"); }

// Names, aliases, input names and attributes as MXNet 1.9.1 registers them.
TEST(ElemwiseVsMXNet, NamesAliasesAndAttributes) {
  json ops = LoadJson("registry.json")["ops"];
  EXPECT_GE(ops.size(), 97u);
  for (auto it = ops.begin(); it != ops.end(); ++it) {
    const std::string& canonical = it.key();
    SCOPED_TRACE(canonical);
    const Op* op = OpRegistry::Find(canonical);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->name, canonical);
    for (const auto& n : it.value()["names"]) {
      const Op* alias = OpRegistry::Find(n.get<std::string>());
      EXPECT_EQ(alias, op) << "MXNet name " << n << " does not resolve to " << canonical;
    }
    // Attributes: same names; MXNet's "required" ones are required here.
    std::set<std::string> ours;
    if (op->schema)
      for (const auto& f : op->schema->fields) ours.insert(f.name);
    for (const auto& a : it.value()["attrs"]) {
      std::string n = a[0].get<std::string>(), type = a[1].get<std::string>();
      ASSERT_TRUE(ours.count(n)) << "missing attribute " << n;
      EXPECT_EQ(op->schema->Find(n)->required, type.find("required") != std::string::npos) << n;
      ours.erase(n);
    }
    // MXNet accepts is_int on smooth_l1 too (its scalar parser); nothing else may be extra.
    ours.erase("is_int");
    if (canonical == "add_n") ours.erase("num_args");  // MXNet's key_var_num_args
    EXPECT_TRUE(ours.empty()) << "extra attributes: " << StrJoin(ours, ", ");
    std::vector<std::string> inputs = it.value()["inputs"].get<std::vector<std::string>>();
    if (canonical != "add_n") {
      OpAttrs attrs;
      if (canonical == "clip")
        attrs = OpAttrs::Parse(*op, {{"a_min", "0"}, {"a_max", "1"}});
      else if (canonical == "cast")
        attrs = OpAttrs::Parse(*op, {{"dtype", "float32"}});
      else
        attrs = OpAttrs::Parse(*op, {});
      EXPECT_EQ(op->InputNames(attrs), inputs);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-computed values and rules.
NDArray F32(std::vector<double> v, Shape s) {
  return NDArray::FromVector(v, s, cpu(), DType::kFloat32);
}
NDArray Typed(std::vector<double> v, DType t) {
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())}, cpu(), t);
}
std::vector<double> Vals(const NDArray& a) { return a.ToVector<double>(); }

TEST(Elemwise, BroadcastShapes) {
  auto shape_of = [](Shape a, Shape b) {
    return nd::broadcast_add(NDArray::Full(a, 1), NDArray::Full(b, 2)).shape();
  };
  EXPECT_EQ(shape_of({2, 1, 3}, {4, 3}), (Shape{2, 4, 3}));
  EXPECT_EQ(shape_of({3}, {2, 1}), (Shape{2, 3}));
  EXPECT_EQ(shape_of({0, 3}, {1, 3}), (Shape{0, 3}));
  EXPECT_EQ(shape_of({2, 0}, {1}), (Shape{2, 0}));
  EXPECT_EQ(shape_of(Shape(), {2, 3}), (Shape{2, 3}));  // a 0-d scalar broadcasts
  EXPECT_EQ(shape_of({1, 1}, {1}), (Shape{1, 1}));
  // Unknown dims during inference.
  EXPECT_EQ(ops::ew::BroadcastShapes("op", Shape{-1, 3}, Shape{4, 1}), (Shape{4, 3}));
  EXPECT_EQ(ops::ew::BroadcastShapes("op", Shape{-1, 3}, Shape{1, 3}), (Shape{-1, 3}));
  EXPECT_FALSE(ops::ew::BroadcastShapes("op", Shape::Unknown(), Shape{1, 3}).ndim_known());
}

TEST(Elemwise, BroadcastValues) {
  NDArray a = F32({1, 2, 3, 4, 5, 6}, {2, 1, 3});
  NDArray b = F32({10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120}, {4, 3});
  NDArray c = nd::broadcast_add(a, b);
  ASSERT_EQ(c.shape(), (Shape{2, 4, 3}));
  std::vector<double> v = Vals(c);
  EXPECT_EQ(v[0], 11);    // a[0,0,0] + b[0,0]
  EXPECT_EQ(v[5], 63);    // a[0,0,2] + b[1,2]
  EXPECT_EQ(v[12], 14);   // a[1,0,0] + b[0,0]
  EXPECT_EQ(v[23], 126);  // a[1,0,2] + b[3,2]
  // Zero-size broadcast gives an empty result of the right shape.
  EXPECT_EQ(nd::broadcast_mul(NDArray::Full({0, 3}, 1), NDArray::Full({1, 3}, 2)).size(), 0);
}

TEST(Elemwise, IncompatibleShapesNameOpAndShapes) {
  try {
    nd::broadcast_add(NDArray::Full({2, 3}, 1), NDArray::Full({4, 3}, 1));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    std::string m = e.what();
    EXPECT_NE(m.find("broadcast_add"), std::string::npos) << m;
    EXPECT_NE(m.find("(2, 3)"), std::string::npos) << m;
    EXPECT_NE(m.find("(4, 3)"), std::string::npos) << m;
  }
  try {
    nd::elemwise_equal(NDArray::Full({2, 3}, 1), NDArray::Full({3, 2}, 1));
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("_equal"), std::string::npos) << m;
    EXPECT_NE(m.find("(2, 3)"), std::string::npos) << m;
    EXPECT_NE(m.find("(3, 2)"), std::string::npos) << m;
  }
  EXPECT_THROW(NDArray::Full({2, 3}, 1) * NDArray::Full({2}, 1), Error);
  try {
    nd::where(NDArray::Full({1, 3}, 1), NDArray::Full({2, 3}, 1), NDArray::Full({2, 3}, 1));
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("where"), std::string::npos) << m;
    EXPECT_NE(m.find("(1, 3)"), std::string::npos) << m;
  }
  EXPECT_THROW(nd::where(NDArray::Full({3}, 1), NDArray::Full({2, 3}, 1), NDArray::Full({2, 3}, 1)),
               Error);
  EXPECT_THROW(nd::add_n({NDArray::Full({2}, 1), NDArray::Full({3}, 1)}), Error);
}

TEST(Elemwise, DTypeErrors) {
  // Mixed dtypes are rejected (MXNet: "Incompatible attr ... expected float32, got float64").
  try {
    nd::broadcast_add(NDArray::Full({2}, 1), NDArray::Full({2}, 1, cpu(), DType::kFloat64));
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("broadcast_add"), std::string::npos) << m;
    EXPECT_NE(m.find("float64"), std::string::npos) << m;
  }
  // bool is not a numeric type for math (MXNet: "does not support boolean type").
  NDArray b = Typed({1, 0}, DType::kBool);
  EXPECT_THROW(nd::exp(b), Error);
  EXPECT_THROW(nd::broadcast_equal(b, b), Error);
  EXPECT_THROW(nd::clip(b, 0, 1), Error);
  EXPECT_EQ(nd::BlockGrad(b).dtype(), DType::kBool);
  // cast only to MXNet's nine dtypes.
  try {
    nd::cast(NDArray::Full({2}, 1), DType::kInt16);
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("cast"), std::string::npos) << m;
    EXPECT_NE(m.find("int16"), std::string::npos) << m;
  }
  // clip needs both bounds.
  EXPECT_THROW(Invoke("clip", std::vector<NDArray>{NDArray::Full({2}, 1)}, {{"a_min", "0"}}),
               Error);
  EXPECT_THROW(Invoke("add_n", std::vector<NDArray>{}, {{"num_args", "0"}}), Error);
}

TEST(Elemwise, ComparisonResultDTypes) {
  NDArray f = F32({1, 2, 3}, {3});
  NDArray i = Typed({1, 2, 3}, DType::kInt32);
  NDArray h = Typed({1, 2, 3}, DType::kFloat16);
  for (const NDArray& x : {f, i, h}) {
    EXPECT_EQ((x > x).dtype(), x.dtype());
    EXPECT_EQ((x == 2.0).dtype(), x.dtype());
    EXPECT_EQ(nd::broadcast_logical_xor(x, x).dtype(), x.dtype());
    EXPECT_EQ(nd::logical_not(x).dtype(), x.dtype());
  }
  EXPECT_EQ(Vals(f > 1.5), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(Vals(1.5 > f), (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(Vals(2.0 <= f), (std::vector<double>{0, 1, 1}));
  EXPECT_EQ(Vals(f != 2.0), (std::vector<double>{1, 0, 1}));
  // Integer arrays with a fractional scalar: MXNet's default is_int=True truncates the scalar...
  EXPECT_EQ(Vals(i == 2.5), (std::vector<double>{0, 1, 0}));
  // ...while is_int=False compares in float64 and returns float64.
  NDArray r = nd::equal_scalar(i, 2.5, /*is_int=*/false);
  EXPECT_EQ(r.dtype(), DType::kFloat64);
  EXPECT_EQ(Vals(r), (std::vector<double>{0, 0, 0}));
  // bool arrays give int64 (is_int) or float64.
  NDArray b = Typed({1, 0, 1}, DType::kBool);
  EXPECT_EQ(nd::maximum_scalar(b, 2).dtype(), DType::kInt64);
  EXPECT_EQ(nd::maximum_scalar(b, 2.5, false).dtype(), DType::kFloat64);
  EXPECT_EQ(Vals(nd::logical_and_scalar(b, 1)), (std::vector<double>{1, 0, 1}));
}

TEST(Elemwise, Operators) {
  NDArray a = F32({1, 2, 3, 4, 5, 6}, {2, 3});
  NDArray row = F32({10, 20, 30}, {3});
  EXPECT_EQ(Vals(a + row), (std::vector<double>{11, 22, 33, 14, 25, 36}));
  EXPECT_EQ(Vals(a - row), (std::vector<double>{-9, -18, -27, -6, -15, -24}));
  EXPECT_EQ(Vals(a * row), (std::vector<double>{10, 40, 90, 40, 100, 180}));
  EXPECT_EQ(Vals(row / F32({2, 4}, {2, 1})), (std::vector<double>{5, 10, 15, 2.5, 5, 7.5}));
  EXPECT_EQ(Vals(a + 2.0), (std::vector<double>{3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(Vals(2.0 - a), (std::vector<double>{1, 0, -1, -2, -3, -4}));
  EXPECT_TRUE(AllClose(12.0 / a, F32({12, 6, 4, 3, 2.4, 2}, {2, 3})));
  EXPECT_EQ(Vals(a * 0.5), (std::vector<double>{0.5, 1, 1.5, 2, 2.5, 3}));
  EXPECT_EQ(Vals(-a), (std::vector<double>{-1, -2, -3, -4, -5, -6}));
  EXPECT_EQ(Vals(a % 4.0), (std::vector<double>{1, 2, 3, 0, 1, 2}));
  EXPECT_EQ(Vals(7.0 % a), (std::vector<double>{0, 1, 1, 3, 2, 1}));
  EXPECT_EQ(Vals(-a % 4.0), (std::vector<double>{3, 2, 1, 0, 3, 2}));  // Python sign rule
  EXPECT_EQ(Vals(a > row * 0.2), (std::vector<double>{0, 0, 0, 1, 1, 0}));
  EXPECT_EQ(Vals(nd::maximum(a, 3.5)), (std::vector<double>{3.5, 3.5, 3.5, 4, 5, 6}));
  EXPECT_EQ(Vals(nd::power(2.0, F32({0, 1, 3}, {3}))), (std::vector<double>{1, 2, 8}));
  EXPECT_EQ(Vals(nd::power(F32({2, 3}, {2}), 2.0)), (std::vector<double>{4, 9}));
}

TEST(Elemwise, IntegerArithmetic) {
  NDArray a = Typed({7, -7, 7, -7, 5, INT32_MIN}, DType::kInt32);
  NDArray b = Typed({2, 2, -2, -2, 0, -1}, DType::kInt32);
  // Truncating division; x/0 = 0 and INT_MIN/-1 wraps (MXNet raises SIGFPE for both).
  EXPECT_EQ(Vals(nd::broadcast_div(a, b)), (std::vector<double>{3, -3, -3, 3, 0, INT32_MIN}));
  EXPECT_EQ(Vals(nd::broadcast_mod(a, b)), (std::vector<double>{1, 1, -1, -1, 0, 0}));
  NDArray u = Typed({250, 3}, DType::kUint8);
  EXPECT_EQ(Vals(u + Typed({10, 4}, DType::kUint8)), (std::vector<double>{4, 7}));  // wraps
  EXPECT_EQ(Vals(nd::square(Typed({-3, 20}, DType::kInt8))), (std::vector<double>{9, -112}));
  EXPECT_EQ(Vals(nd::abs(Typed({-128, 127}, DType::kInt8))), (std::vector<double>{-128, 127}));
  EXPECT_EQ(Vals(nd::exp(Typed({1, 2, 3}, DType::kInt32))), (std::vector<double>{2, 7, 20}));
  EXPECT_EQ(Vals(nd::reciprocal(Typed({1, 2, 0, -1}, DType::kInt64))),
            (std::vector<double>{1, 0, 0, -1}));
  EXPECT_EQ(Vals(nd::clip(Typed({-5, 5, 0}, DType::kInt32), -1.5f, 2.7f)),
            (std::vector<double>{-1, 2, 0}));
  EXPECT_EQ(Vals(nd::add_n({Typed({1, 2}, DType::kInt64), Typed({3, -4}, DType::kInt64)})),
            (std::vector<double>{4, -2}));
  // int64 stays exact beyond float64's 2^53.
  int64_t big = (int64_t{1} << 60) + 1;
  NDArray x = NDArray::FromVector(std::vector<int64_t>{big}, Shape{1});
  EXPECT_EQ(nd::broadcast_add(x, x).ToVector<int64_t>()[0], 2 * big);
  EXPECT_EQ(nd::maximum_scalar(x, 0).ToVector<int64_t>()[0], big);
}

TEST(Elemwise, FloatEdgeValues) {
  double nan = std::nan("");
  NDArray e = F32({nan, INFINITY, -INFINITY, 0.5, 1.5, 2.5, -0.5, -2.5}, {8});
  EXPECT_TRUE(AllClose(nd::round(e), F32({nan, INFINITY, -INFINITY, 1, 2, 3, -1, -3}, {8})));
  EXPECT_TRUE(AllClose(nd::rint(e), F32({nan, INFINITY, -INFINITY, 0, 1, 2, -1, -3}, {8})));
  EXPECT_TRUE(AllClose(nd::fix(e), F32({nan, INFINITY, -INFINITY, 0, 1, 2, 0, -2}, {8})));
  EXPECT_TRUE(AllClose(nd::sign(e), F32({0, 1, -1, 1, 1, 1, -1, -1}, {8})));
  EXPECT_TRUE(AllClose(nd::relu(e), F32({nan, INFINITY, 0, 0.5, 1.5, 2.5, 0, 0}, {8})));
  EXPECT_TRUE(AllClose(nd::logical_not(e), F32({0, 0, 0, 0, 0, 0, 0, 0}, {8})));
  NDArray m1 = F32({nan, 1, nan, 2}, {4}), m2 = F32({1, nan, nan, 1}, {4});
  EXPECT_TRUE(AllClose(nd::broadcast_maximum(m1, m2), F32({nan, nan, nan, 2}, {4})));
  EXPECT_TRUE(AllClose(nd::broadcast_minimum(m1, m2), F32({nan, nan, nan, 1}, {4})));
  EXPECT_TRUE(
      AllClose(nd::clip(F32({nan, -5, 5, 0.25}, {4}), -1, 1), F32({nan, -1, 1, 0.25}, {4})));
  EXPECT_TRUE(
      AllClose(nd::erfinv(F32({-1, 0, 1, 1.5}, {4})), F32({-INFINITY, 0, INFINITY, nan}, {4})));
  EXPECT_TRUE(AllClose(F32({1, -1, 0}, {3}) / 0.0, F32({INFINITY, -INFINITY, nan}, {3})));
  EXPECT_TRUE(AllClose(nd::mod_scalar(F32({5, -5}, {2}), 0), F32({0, 0}, {2})));
  EXPECT_TRUE(
      AllClose(nd::smooth_l1(F32({-2, -0.5, 0.5, 2}, {4})), F32({1.5, 0.125, 0.125, 1.5}, {4})));
  EXPECT_TRUE(AllClose(nd::smooth_l1(F32({-2, 0.25}, {2}), 0.0), F32({0, 0}, {2})));
  // float64 precision of the special functions.
  NDArray d = NDArray::FromVector(std::vector<double>{0.3, -0.999, 1e-10}, Shape{3});
  std::vector<double> inv = Vals(nd::erfinv(d));
  for (size_t k = 0; k < inv.size(); ++k) EXPECT_NEAR(std::erf(inv[k]), Vals(d)[k], 1e-15);
  EXPECT_NEAR(ops::ew::DigammaD(1.0), -0.57721566490153286, 1e-14);
  EXPECT_NEAR(ops::ew::DigammaD(0.5), -1.96351002602142348, 1e-14);
  EXPECT_NEAR(ops::ew::DigammaD(-0.5), 0.03648997397857652, 1e-13);
  EXPECT_NEAR(ops::ew::TrigammaD(1.0), M_PI * M_PI / 6, 1e-13);
  EXPECT_NEAR(ops::ew::TrigammaD(0.5), M_PI * M_PI / 2, 1e-12);
}

TEST(Elemwise, WhereCastAddNBlockGrad) {
  NDArray x = F32({1, 2, 3, 4, 5, 6}, {3, 2}), y = F32({-1, -2, -3, -4, -5, -6}, {3, 2});
  EXPECT_EQ(Vals(nd::where(F32({1, 0, 5}, {3}), x, y)), (std::vector<double>{1, 2, -3, -4, 5, 6}));
  EXPECT_EQ(Vals(nd::where(Typed({0, 1, 1, 0, 0, 1}, DType::kBool).reshape({3, 2}), x, y)),
            (std::vector<double>{-1, 2, 3, -4, -5, 6}));
  NDArray c = nd::cast(F32({-1.7, 2.5, 0}, {3}), DType::kInt32);
  EXPECT_EQ(c.dtype(), DType::kInt32);
  EXPECT_EQ(Vals(c), (std::vector<double>{-1, 2, 0}));
  EXPECT_EQ(nd::cast(c, DType::kBool).ToVector<bool>(), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(Vals(nd::add_n({x, x, y})), Vals(x));
  EXPECT_EQ(Vals(nd::stop_gradient(x)), Vals(x));
  EXPECT_EQ(Vals(nd::make_loss(x)), Vals(x));
}

// ---------------------------------------------------------------------------------------------
// Optimized kernels vs the reference on many broadcast patterns, dtypes and sizes (both run the
// same element functions, so results must be identical).
std::vector<Shape> RandomBroadcastPair(std::mt19937_64& gen, Shape* out) {
  std::uniform_int_distribution<int> rank(0, 4), dim(1, 5), coin(0, 2);
  int r = rank(gen);
  Shape o;
  for (int i = 0; i < r; ++i) o.push_back(dim(gen));
  auto sub = [&] {
    Shape s;
    int rr = std::uniform_int_distribution<int>(0, r)(gen);
    for (int i = r - rr; i < r; ++i) s.push_back(coin(gen) == 0 ? 1 : o[i]);
    return s;
  };
  *out = o;
  return {sub(), sub()};
}

TEST(ElemwiseKernels, OptimizedMatchesReferenceOnBroadcastPatterns) {
  std::mt19937_64 gen(42);
  const char* ops[] = {"broadcast_add",     "broadcast_sub",         "broadcast_mul",
                       "broadcast_div",     "broadcast_mod",         "broadcast_maximum",
                       "broadcast_greater", "broadcast_logical_xor", "broadcast_power"};
  const DType types[] = {DType::kFloat32, DType::kFloat64, DType::kFloat16,  DType::kInt32,
                         DType::kUint8,   DType::kInt64,   DType::kBFloat16, DType::kInt8};
  int checked = 0;
  for (int trial = 0; trial < 150; ++trial) {
    Shape o;
    std::vector<Shape> s = RandomBroadcastPair(gen, &o);
    const Op& op = OpRegistry::Get(ops[trial % std::size(ops)]);
    DType t = types[trial % std::size(types)];
    NDArray a = RandomArray(s[0], 1, 9, trial, t), b = RandomArray(s[1], 1, 9, trial + 1000, t);
    NDArrayVec ref = Invoke(op, OpAttrs::Parse(op, {}), std::vector<NDArray>{a, b});  // shape/dtype
    NDArray got(ref[0].shape(), cpu(), ref[0].dtype()), want(ref[0].shape(), cpu(), ref[0].dtype());
    std::vector<NDArray> in{a, b};
    OpContext ctx;
    (*op.FindKernel({DeviceType::kCPU, Backend::kReference}))(ctx, OpAttrs::Parse(op, {}), in,
                                                              std::vector<NDArray>{want});
    (*op.FindKernel({DeviceType::kCPU, Backend::kOptimized}))(ctx, OpAttrs::Parse(op, {}), in,
                                                              std::vector<NDArray>{got});
    EXPECT_TRUE(AllClose(got, want, 0, 0))
        << op.name << " " << s[0] << " vs " << s[1] << " " << DTypeName(t);
    ++checked;
  }
  EXPECT_EQ(checked, 150);
}

TEST(ElemwiseKernels, LargeArraysUseParallelPathsCorrectly) {
  // Big enough for several OpenMP chunks, with row, column and scalar broadcasting.
  const std::vector<std::pair<Shape, Shape>> pairs = {{{300, 500}, {500}},
                                                      {{300, 500}, {300, 1}},
                                                      {{300, 500}, {1}},
                                                      {{7, 1, 9000}, {5, 1}},
                                                      {{150000}, {150000}}};
  for (const auto& [sa, sb] : pairs) {
    NDArray a = RandomArray(sa, -2, 2, 1, DType::kFloat32),
            b = RandomArray(sb, -2, 2, 2, DType::kFloat32);
    for (const char* name : {"broadcast_add", "broadcast_hypot", "broadcast_minimum"}) {
      const Op& op = OpRegistry::Get(name);
      OpAttrs attrs = OpAttrs::Parse(op, {});
      NDArray want = Invoke(op, attrs, std::vector<NDArray>{a, b})[0];
      NDArray ref(want.shape(), cpu(), want.dtype());
      (*op.FindKernel({DeviceType::kCPU, Backend::kReference}))(
          OpContext{}, attrs, std::vector<NDArray>{a, b}, std::vector<NDArray>{ref});
      EXPECT_TRUE(AllClose(want, ref, 0, 0)) << name << " " << sa << " vs " << sb;
    }
  }
  NDArray x = RandomArray({200000}, -3, 3, 5, DType::kFloat32);
  for (const char* name :
       {"exp", "tanh", "relu", "sigmoid", "_greater_scalar", "clip", "smooth_l1", "log", "sqrt"}) {
    const Op& op = OpRegistry::Get(name);
    AttrDict d;
    if (std::string(name) == "_greater_scalar") d = {{"scalar", "0.5"}};
    if (std::string(name) == "clip") d = {{"a_min", "-1"}, {"a_max", "1"}};
    OpAttrs attrs = OpAttrs::Parse(op, d);
    NDArray opt(x.shape()), ref(x.shape());
    (*op.FindKernel({DeviceType::kCPU, Backend::kOptimized}))(
        OpContext{}, attrs, std::vector<NDArray>{x}, std::vector<NDArray>{opt});
    (*op.FindKernel({DeviceType::kCPU, Backend::kReference}))(
        OpContext{}, attrs, std::vector<NDArray>{x}, std::vector<NDArray>{ref});
    // exp/tanh/sigmoid run on oneDNN's JIT eltwise here: a few ulp from libm.
    EXPECT_TRUE(AllClose(opt, ref, 5e-6, 1e-7)) << name;
  }
}

// The oneDNN path (large float32 arrays) keeps MXNet's special values: NaN, +-inf, sqrt of
// negatives, exp overflow/underflow, saturating sigmoid/tanh; log (own loop) likewise.
TEST(ElemwiseKernels, OneDnnPathKeepsSpecialValues) {
  const int64_t n = 3 * ops::ew::onednn::kMinElements;
  std::vector<double> v = RandomArray({n}, -5, 5, 9, DType::kFloat64).ToVector<double>();
  const double specials[] = {std::nan(""), INFINITY, -INFINITY, 0.0,    -0.0, 1e-30,
                             -1e-30,       88.8,     -88.8,     100,    -100, 1e30,
                             -1e30,        1e-45,    3.4e38,    -3.4e38};
  for (size_t i = 0; i < std::size(specials); ++i) v[i * 997] = specials[i];
  NDArray x = NDArray::FromVector(v, Shape{n}, cpu(), DType::kFloat32);
  for (const char* name : {"exp", "log", "sqrt", "tanh", "sigmoid"}) {
    const Op& op = OpRegistry::Get(name);
    OpAttrs attrs = OpAttrs::Parse(op, {});
    NDArray opt(x.shape()), ref(x.shape());
    (*op.FindKernel({DeviceType::kCPU, Backend::kOptimized}))(
        OpContext{}, attrs, std::vector<NDArray>{x}, std::vector<NDArray>{opt});
    (*op.FindKernel({DeviceType::kCPU, Backend::kReference}))(
        OpContext{}, attrs, std::vector<NDArray>{x}, std::vector<NDArray>{ref});
    EXPECT_TRUE(AllClose(opt, ref, 5e-6, 1e-37)) << name;
    // In place (the memory planner may share the buffer).
    NDArray inplace = x.copy();
    (*op.FindKernel({DeviceType::kCPU, Backend::kOptimized}))(
        OpContext{}, attrs, std::vector<NDArray>{inplace}, std::vector<NDArray>{inplace});
    EXPECT_TRUE(AllClose(inplace, ref, 5e-6, 1e-37)) << name << " in place";
  }
}

// float32 <-> float16 casts use F16C in the optimized kernel: bit-identical to Half's rounding
// (NaNs stay NaN), across normal, subnormal, overflowing and special values.
TEST(ElemwiseKernels, CastFloat16FastPathMatchesReference) {
  const int64_t n = 100003;
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> mant(-1, 1);
  std::uniform_int_distribution<int> ex(-30, 20);
  std::vector<double> v(n);
  for (auto& e : v) e = std::ldexp(mant(gen), ex(gen));
  const double specials[] = {std::nan(""), INFINITY, -INFINITY, 0.0,     -0.0, 65504,        65520,
                             -65536,       6.1e-5,   5.96e-8,   2.98e-8, 1e-9, 1.00048828125};
  for (size_t i = 0; i < std::size(specials); ++i) v[i * 7001] = specials[i];
  NDArray x = NDArray::FromVector(v, Shape{n}, cpu(), DType::kFloat32);
  const Op& op = OpRegistry::Get("cast");
  for (DType to : {DType::kFloat16, DType::kFloat32}) {
    NDArray src = to == DType::kFloat16 ? x : x.astype(DType::kFloat16);
    OpAttrs attrs = OpAttrs::Parse(op, {{"dtype", std::string(DTypeName(to))}});
    NDArray opt(x.shape(), cpu(), to), ref(x.shape(), cpu(), to);
    (*op.FindKernel({DeviceType::kCPU, Backend::kOptimized}))(
        OpContext{}, attrs, std::vector<NDArray>{src}, std::vector<NDArray>{opt});
    (*op.FindKernel({DeviceType::kCPU, Backend::kReference}))(
        OpContext{}, attrs, std::vector<NDArray>{src}, std::vector<NDArray>{ref});
    EXPECT_TRUE(AllClose(opt, ref, 0, 0)) << DTypeName(to);
    if (to == DType::kFloat16) {
      const uint16_t* a = static_cast<const uint16_t*>(opt.data_ptr());
      const uint16_t* b = static_cast<const uint16_t*>(ref.data_ptr());
      int diff = 0;
      for (int64_t i = 0; i < n; ++i) diff += a[i] != b[i] && !std::isnan(v[i]);
      EXPECT_EQ(diff, 0);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Second-order gradients: a tiny reverse-mode tape over GradBuilder differentiates each op's
// gradient definition again (using the FGradient of every op it is composed of).
class TapeBuilder final : public GradBuilder {
 public:
  GradValue Leaf(const NDArray& a) {
    values_.push_back(a);
    return GradValue{static_cast<int>(values_.size()) - 1};
  }
  const NDArray& Get(GradValue v) const { return values_[v.id]; }
  std::vector<GradValue> Apply(const Op& op, const OpAttrs& attrs,
                               std::span<const GradValue> inputs) override {
    Node n{&op, attrs, {}, {}};
    std::vector<NDArray> in;
    for (GradValue v : inputs) n.in.push_back(v.id), in.push_back(values_[v.id]);
    NDArrayVec out = Invoke(op, attrs, in);
    std::vector<GradValue> res;
    for (auto& o : out) res.push_back(Leaf(o)), n.out.push_back(res.back().id);
    nodes_.push_back(std::move(n));
    return res;
  }
  // d(sum_k <seed_k, value_k>)/d(value of `wrt`), through every recorded node.
  NDArray Backward(const std::vector<std::pair<GradValue, NDArray>>& seeds, GradValue wrt) {
    std::map<int, NDArray> g;
    auto acc = [&](int id, const NDArray& v) {
      g[id] = g.count(id) ? nd::elemwise_add(g[id], v) : v;
    };
    for (const auto& [v, s] : seeds) acc(v.id, s);
    for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
      bool any = false;
      std::vector<NDArray> og, in, out;
      for (int o : it->out) {
        any |= g.count(o) > 0;
        og.push_back(g.count(o) ? g[o] : nd::zeros_like(values_[o]));
        out.push_back(values_[o]);
      }
      if (!any) continue;
      for (int i : it->in) in.push_back(values_[i]);
      std::vector<NDArray> gi = EagerGradBuilder::Run(*it->op, it->attrs, in, out, og);
      for (size_t k = 0; k < gi.size(); ++k)
        if (!gi[k].is_none()) acc(it->in[k], gi[k].astype(values_[it->in[k]].dtype(), false));
    }
    return g.count(wrt.id) ? g[wrt.id] : nd::zeros_like(values_[wrt.id]);
  }

 private:
  struct Node {
    const Op* op;
    OpAttrs attrs;
    std::vector<int> in, out;
  };
  std::vector<NDArray> values_;
  std::vector<Node> nodes_;
};

// H(x) = sum_i <v_i, grad_i(x)>, where grad_i is op's gradient for input i with output
// gradient w; returns H and, if tape != nullptr, records it there.
double GradientFunctional(const Op& op, const OpAttrs& attrs, const std::vector<NDArray>& x,
                          const std::vector<NDArray>& w, const std::vector<NDArray>& v,
                          const std::vector<int>& which) {
  NDArrayVec out = Invoke(op, attrs, x);
  std::vector<NDArray> outs(out.begin(), out.end());
  std::vector<NDArray> og(w);
  for (size_t k = og.size(); k < outs.size(); ++k) og.push_back(nd::zeros_like(outs[k]));
  std::vector<NDArray> g = EagerGradBuilder::Run(op, attrs, x, outs, og);
  double h = 0;
  for (int i : which) {
    std::vector<double> gv = g[i].ToVector<double>(), vv = v[i].ToVector<double>();
    for (size_t j = 0; j < gv.size(); ++j) h += gv[j] * vv[j];
  }
  return h;
}

TEST(ElemwiseGradients, SecondOrderMatchesFiniteDifferences) {
  // Ops whose gradients use _trigamma or _polyval_backward (declared non-differentiable): first
  // order only.
  const std::set<std::string> first_order_only = {"gamma", "gammaln", "_digamma", "_npi_polyval"};
  int checked = 0;
  for (const auto& c : testing::OpTestCases()) {
    const Op& op = OpRegistry::Get(c.op);
    if (!op.differentiable() || !c.check_grad || first_order_only.count(op.name)) continue;
    SCOPED_TRACE(c.op + c.label);
    OpAttrs attrs = OpAttrs::Parse(op, c.attrs);
    std::vector<NDArray> x = testing::MakeInputs(c, DType::kFloat64, 11);
    std::vector<int> which = c.grad_inputs;
    if (which.empty())
      for (size_t i = 0; i < x.size(); ++i) which.push_back(static_cast<int>(i));
    NDArrayVec out0 = Invoke(op, attrs, x);
    int visible = op.NumVisibleOutputs(attrs);
    std::vector<NDArray> w, v;
    for (int k = 0; k < visible; ++k) w.push_back(RandomArray(out0[k].shape(), -1, 1, 100 + k));
    for (size_t i = 0; i < x.size(); ++i) v.push_back(RandomArray(x[i].shape(), -1, 1, 200 + i));

    // Tape: forward, first-order gradient graph, then backward of H.
    TapeBuilder tape;
    std::vector<GradValue> xin, outs, og;
    for (const auto& a : x) xin.push_back(tape.Leaf(a));
    outs = tape.Apply(op, attrs, xin);
    for (int k = 0; k < static_cast<int>(outs.size()); ++k)
      og.push_back(tape.Leaf(k < visible ? w[k] : nd::zeros_like(tape.Get(outs[k]))));
    std::vector<GradValue> g = op.gradient(tape, attrs, xin, outs, og);
    std::vector<std::pair<GradValue, NDArray>> seeds;
    for (int i : which) seeds.push_back({g[i], v[i]});
    for (int j : which) {
      NDArray hess = tape.Backward(seeds, xin[j]);
      std::vector<double> xv = x[j].ToVector<double>(), fd(xv.size());
      const double eps = 1e-5;
      for (size_t e = 0; e < xv.size(); ++e) {
        std::vector<NDArray> p = x, m = x;
        std::vector<double> xp = xv, xm = xv;
        xp[e] += eps;
        xm[e] -= eps;
        p[j] = NDArray::FromVector(xp, x[j].shape());
        m[j] = NDArray::FromVector(xm, x[j].shape());
        fd[e] = (GradientFunctional(op, attrs, p, w, v, which) -
                 GradientFunctional(op, attrs, m, w, v, which)) /
                (2 * eps);
      }
      EXPECT_TRUE(AllClose(hess, NDArray::FromVector(fd, x[j].shape()), 1e-4, 1e-5))
          << "input " << j;
    }
    ++checked;
  }
  EXPECT_GT(checked, 150);
}

// "Apply the gradient function to its own output": d/dx of f'(x) for a few unary ops, by hand.
TEST(ElemwiseGradients, HigherOrderOfUnaryOpsByHand) {
  NDArray x = NDArray::FromVector(std::vector<double>{-0.7, 0.2, 0.9}, Shape{3});
  auto second = [&](const char* name) {
    const Op& op = OpRegistry::Get(name);
    OpAttrs attrs = OpAttrs::Parse(op, {});
    TapeBuilder t;
    GradValue xv = t.Leaf(x);
    std::vector<GradValue> y = t.Apply(op, attrs, std::vector<GradValue>{xv});
    GradValue ones = t.Leaf(nd::ones_like(x));
    GradValue d1 =
        op.gradient(t, attrs, std::vector<GradValue>{xv}, y, std::vector<GradValue>{ones})[0];
    return std::make_pair(t.Get(d1).ToVector<double>(),
                          t.Backward({{d1, nd::ones_like(x)}}, xv).ToVector<double>());
  };
  std::vector<double> xs = x.ToVector<double>();
  auto [d_sin, dd_sin] = second("sin");
  auto [d_tanh, dd_tanh] = second("tanh");
  auto [d_sig, dd_sig] = second("sigmoid");
  auto [d_exp, dd_exp] = second("exp");
  auto [d_erf, dd_erf] = second("erf");
  for (size_t i = 0; i < xs.size(); ++i) {
    double s = 1 / (1 + std::exp(-xs[i])), t = std::tanh(xs[i]);
    EXPECT_NEAR(d_sin[i], std::cos(xs[i]), 1e-12);
    EXPECT_NEAR(dd_sin[i], -std::sin(xs[i]), 1e-12);
    EXPECT_NEAR(d_tanh[i], 1 - t * t, 1e-12);
    EXPECT_NEAR(dd_tanh[i], -2 * t * (1 - t * t), 1e-12);
    EXPECT_NEAR(d_sig[i], s * (1 - s), 1e-12);
    EXPECT_NEAR(dd_sig[i], s * (1 - s) * (1 - 2 * s), 1e-12);
    EXPECT_NEAR(dd_exp[i], std::exp(xs[i]), 1e-12);
    EXPECT_NEAR(d_erf[i], 2 / std::sqrt(M_PI) * std::exp(-xs[i] * xs[i]), 1e-12);
    EXPECT_NEAR(dd_erf[i], -4 * xs[i] / std::sqrt(M_PI) * std::exp(-xs[i] * xs[i]), 1e-12);
  }
}

}  // namespace
}  // namespace mxnet
