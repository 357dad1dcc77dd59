// Tests of the shape family: values, gradients and errors against real MXNet 1.9.1
// (testdata/shape/refs.json from tools/conformance/gen_shape_refs.py), the family's op cases
// (finite-difference gradients, attribute round trips), hand-computed edge cases (reshape codes,
// negative axes and steps, zero-size dims), shape inference with unknown dims, error messages
// and the nd:: API.
#include <cctype>
#include <fstream>
#include <numeric>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

using json = nlohmann::json;
using testing::AllClose;
using testing::ErrorOf;

NDArray Iota(const Shape& s, DType t = DType::kFloat32) {
  if (s.Size() == 0) return nd::zeros(s, cpu(), t);
  std::vector<double> v(s.Size());
  std::iota(v.begin(), v.end(), 0.0);
  return NDArray::FromVector(v, s, cpu(), t);
}

std::vector<double> Values(const NDArray& a) { return a.ToVector<double>(); }

// ---------------------------------------------------------------------------------------------
// Real MXNet 1.9.1 reference values.

NDArray FromJson(const json& j) {
  Shape s;
  for (const auto& d : j["shape"]) s.push_back(d.get<int64_t>());
  DType t = ValueOrThrow(DTypeFromName(j["dtype"].get<std::string>()));
  return NDArray::FromVector(j["values"].get<std::vector<double>>(), s, cpu(), t);
}

const json& Refs() {
  static const json* refs = [] {
    std::ifstream f("ndarray/ops/testdata/shape/refs.json");
    auto* j = new json(json::parse(f));
    return j;
  }();
  return *refs;
}

std::string Describe(const json& c) {
  return StrCat(c["op"].get<std::string>(), " ", c["attrs"].dump());
}

TEST(MXNetReference, FileIsThereAndCoversTheFamily) {
  const json& r = Refs();
  EXPECT_EQ(r["mxnet_version"], "1.9.1");
  std::set<std::string> ops;
  for (const auto& c : r["cases"]) ops.insert(OpRegistry::Get(c["op"].get<std::string>()).name);
  for (const char* op : {"Reshape",
                         "Flatten",
                         "expand_dims",
                         "squeeze",
                         "reshape_like",
                         "shape_array",
                         "size_array",
                         "transpose",
                         "SwapAxis",
                         "reverse",
                         "depth_to_space",
                         "space_to_depth",
                         "Concat",
                         "stack",
                         "SliceChannel",
                         "_split_v2",
                         "slice",
                         "_slice_assign",
                         "_slice_assign_scalar",
                         "slice_axis",
                         "slice_like",
                         "tile",
                         "repeat",
                         "Pad",
                         "_zeros",
                         "_ones",
                         "_full",
                         "_arange",
                         "_eye",
                         "_linspace"})
    EXPECT_TRUE(ops.count(op)) << op;
}

TEST(MXNetReference, EveryMXNetAliasNamesTheSameOp) {
  int groups = 0;
  for (const auto& g : Refs()["aliases"]) {
    const Op& first = OpRegistry::Get(g[0].get<std::string>());
    for (const auto& n : g)
      EXPECT_EQ(&OpRegistry::Get(n.get<std::string>()), &first) << n << " vs " << g[0];
    ++groups;
  }
  EXPECT_GE(groups, 35);
}

TEST(MXNetReference, OutputsGradientsAndErrorsMatch) {
  int checked = 0, grads = 0, errors = 0;
  for (const auto& c : Refs()["cases"]) {
    std::string what = Describe(c);
    SCOPED_TRACE(what);
    const std::string op_name = c["op"].get<std::string>();
    AttrDict attrs;
    for (const auto& [k, v] : c["attrs"].items()) attrs[k] = v.get<std::string>();
    std::vector<NDArray> in;
    for (const auto& x : c["inputs"]) in.push_back(FromJson(x));
    if (c.value("ours_error", false)) {  // MXNet accepts it unchecked; we reject it on purpose
      EXPECT_FALSE(ErrorOf([&] { Invoke(op_name, in, attrs); }).empty())
          << c["note"].get<std::string>();
      continue;
    }
    if (c.value("error", false)) {
      std::string msg = ErrorOf([&] { Invoke(op_name, in, attrs); });
      EXPECT_FALSE(msg.empty()) << "MXNet rejects this call (" << c["message"].get<std::string>()
                                << ") but it succeeded";
      ++errors;
      continue;
    }
    NDArrayVec out;
    try {
      out = Invoke(op_name, in, attrs);
    } catch (const Error& e) {
      ADD_FAILURE() << "threw " << e.what();
      continue;
    }
    ASSERT_EQ(out.size(), c["outputs"].size());
    for (size_t k = 0; k < out.size(); ++k) {
      NDArray want = FromJson(c["outputs"][k]);
      EXPECT_EQ(out[k].dtype(), want.dtype()) << "output " << k;
      EXPECT_TRUE(AllClose(out[k], want, 1e-6, 1e-7)) << "output " << k;
    }
    ++checked;
    if (!c.contains("grads")) continue;
    const Op& op = OpRegistry::Get(op_name);
    std::vector<NDArray> heads, outs(out.begin(), out.end());
    for (const auto& h : c["head_grads"]) heads.push_back(FromJson(h));
    std::vector<NDArray> g = EagerGradBuilder::Run(op, OpAttrs::Parse(op, attrs), in, outs, heads);
    for (size_t i = 0; i < in.size(); ++i) {
      if (c["grads"][i].is_null()) continue;
      ASSERT_FALSE(g[i].is_none()) << "no gradient for input " << i;
      EXPECT_TRUE(AllClose(g[i], FromJson(c["grads"][i]), 1e-5, 1e-6)) << "gradient of input " << i;
      ++grads;
    }
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(grads, 80);
  EXPECT_GT(errors, 20);
}

// ---------------------------------------------------------------------------------------------
// The family's registered test cases (the same checks as //ndarray:all_ops_test, run here so the
// family is verified on its own).

class ShapeCase : public ::testing::TestWithParam<int> {};

TEST_P(ShapeCase, GradientMatchesFiniteDifferences) {
  const testing::OpTestCase& c = testing::OpTestCases()[GetParam()];
  const Op& op = OpRegistry::Get(c.op);
  if (!op.differentiable() || !c.check_grad) GTEST_SKIP() << c.op << " is not differentiable";
  EXPECT_TRUE(testing::CheckGradient(c));
}

TEST_P(ShapeCase, AttributesRoundTripAndForwardRuns) {
  const testing::OpTestCase& c = testing::OpTestCases()[GetParam()];
  const Op& op = OpRegistry::Get(c.op);
  OpAttrs a = OpAttrs::Parse(op, c.attrs);
  OpAttrs b = OpAttrs::Parse(op, a.ToDict());
  EXPECT_TRUE(a == b) << a.Key() << " vs " << b.Key();
  EXPECT_TRUE(op.differentiable() || op.non_differentiable) << c.op;
  ASSERT_NE(op.FindKernel({DeviceType::kCPU, Backend::kReference}), nullptr);
  std::vector<NDArray> in = testing::MakeInputs(c, DType::kFloat32, 5);
  if (in.empty()) {  // _set_value, _NoGradient: only the caller (InvokeInto) gives the output
    ShapeVec is, os;
    DTypeVec it, ot;
    InferOutputs(op, a, &is, &it, &os, &ot);
    if (!os.empty() && !os[0].is_known()) GTEST_SKIP() << c.op << ": output given by the caller";
  }
  NDArrayVec out = Invoke(op, a, in);
  EXPECT_EQ(static_cast<int>(out.size()), op.NumOutputs(a));
}

INSTANTIATE_TEST_SUITE_P(Family, ShapeCase,
                         ::testing::Range(0, static_cast<int>(testing::OpTestCases().size())),
                         [](const ::testing::TestParamInfo<int>& info) {
                           std::string n =
                               StrCat(testing::OpTestCases()[info.param].op, "_", info.param);
                           for (char& ch : n)
                             if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// ---------------------------------------------------------------------------------------------
// Hand-computed edge cases.

TEST(Reshape, SpecialCodes) {
  NDArray x = Iota({2, 3, 4});
  struct Row {
    std::vector<int64_t> spec;
    bool reverse;
    Shape want;
  };
  for (const Row& r : std::vector<Row>{
           {{0, -1}, false, {2, 12}},
           {{-1}, false, {24}},
           {{-2}, false, {2, 3, 4}},
           {{-2, 1, 1}, false, {2, 3, 4, 1, 1}},
           {{-3, 4}, false, {6, 4}},
           {{2, -3}, false, {2, 12}},
           {{-4, 1, 2, -2}, false, {1, 2, 3, 4}},
           {{2, -4, -1, 3, 4}, false, {2, 1, 3, 4}},
           {{0, -4, 3, -1, 4}, false, {2, 3, 1, 4}},
           {{-1, 0}, true, {6, 4}},
           {{0, -1}, true, {3, 8}},  // right to left: -1 takes the place of 4, 0 copies 3
       }) {
    NDArray y = nd::reshape(x, r.spec, r.reverse);
    EXPECT_EQ(y.shape(), r.want) << "spec (" << StrJoin(r.spec, ", ") << ") reverse " << r.reverse;
    EXPECT_EQ(Values(y), Values(x));
  }
  // reverse: (10, 5, 4) with (-1, 0) -> (50, 4) (MXNet's doc example); without reverse (40, 5).
  NDArray z = nd::zeros({10, 5, 4});
  EXPECT_EQ(nd::reshape(z, {-1, 0}, true).shape(), Shape({50, 4}));
  EXPECT_EQ(nd::reshape(z, {-1, 0}).shape(), Shape({40, 5}));
  // Errors name the op, the spec and the input shape.
  std::string e = ErrorOf([&] { nd::reshape(x, {5, -1}); });
  EXPECT_NE(e.find("Reshape"), std::string::npos) << e;
  EXPECT_NE(e.find("(2, 3, 4)"), std::string::npos) << e;
  EXPECT_FALSE(ErrorOf([&] { nd::reshape(x, {-1, -1}); }).empty());
  EXPECT_FALSE(ErrorOf([&] { nd::reshape(x, {7}); }).empty());
}

TEST(Reshape, LegacyTargetShapeAndScalar) {
  NDArray x = Iota({2, 3, 4});
  EXPECT_EQ(Invoke("Reshape", {&x, 1}, {{"target_shape", "(0, 4)"}})[0].shape(), Shape({6, 4}));
  EXPECT_EQ(
      Invoke("Reshape", {&x, 1}, {{"target_shape", "(9, 0)"}, {"keep_highest", "True"}})[0].shape(),
      Shape({2, 12}));
  NDArray one = Iota({1, 1});
  EXPECT_EQ(Invoke("Reshape", {&one, 1}, {})[0].shape(), Shape());
  EXPECT_FALSE(ErrorOf([&] { Invoke("Reshape", {&x, 1}, {}); }).empty());
}

TEST(Slice, NegativeStepsAndClipping) {
  NDArray x = Iota({10});
  using ops::OptIntTuple;
  EXPECT_EQ(Values(nd::slice(x, {8}, {1}, {-3})), (std::vector<double>{8, 5, 2}));
  EXPECT_EQ(Values(nd::slice(x, {std::nullopt}, {std::nullopt}, {-4})),
            (std::vector<double>{9, 5, 1}));
  EXPECT_EQ(Values(nd::slice(x, {-2}, {std::nullopt})), (std::vector<double>{8, 9}));
  EXPECT_EQ(Values(nd::slice(x, {-100}, {2})), (std::vector<double>{0, 1}));
  EXPECT_EQ(Values(nd::slice(x, {100}, {std::nullopt}, {-5})), (std::vector<double>{9, 4}));
  EXPECT_EQ(nd::slice(x, {5}, {2}).shape(), Shape({0}));
  EXPECT_EQ(nd::slice(x, {5}, {8}, {-1}).shape(), Shape({0}));
  NDArray m = Iota({3, 4});
  NDArray r = nd::slice(m, {std::nullopt, std::nullopt}, {std::nullopt, std::nullopt}, {-1, -1});
  EXPECT_EQ(Values(r), (std::vector<double>{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  // slice_axis with negative axis and indices.
  EXPECT_EQ(Values(nd::slice_axis(m, -1, -3, -1)), (std::vector<double>{1, 2, 5, 6, 9, 10}));
  EXPECT_EQ(Values(nd::slice_axis(m, 0, 2, std::nullopt)), (std::vector<double>{8, 9, 10, 11}));
  std::string e = ErrorOf([&] { nd::slice(m, {0}, {1}, {0}); });
  EXPECT_NE(e.find("slice: step[0] cannot be 0"), std::string::npos) << e;
  e = ErrorOf([&] { nd::slice_axis(m, 1, 3, 2); });
  EXPECT_NE(e.find("slice_axis"), std::string::npos) << e;
}

TEST(Slice, GradientScattersIntoZeros) {
  NDArray x = Iota({3, 4}, DType::kFloat64);
  const Op& op = OpRegistry::Get("slice");
  OpAttrs a =
      OpAttrs::Parse(op, {{"begin", "(None, 3)"}, {"end", "(None, 0)"}, {"step", "(2, -2)"}});
  NDArrayVec y = Invoke(op, a, {&x, 1});
  EXPECT_EQ(Values(y[0]), (std::vector<double>{3, 1, 11, 9}));
  NDArray og = NDArray::FromVector(std::vector<double>{1, 2, 3, 4}, {2, 2}, cpu(), DType::kFloat64);
  std::vector<NDArray> outs{y[0]};
  auto g = EagerGradBuilder::Run(op, a, std::vector<NDArray>{x}, outs, std::vector<NDArray>{og});
  EXPECT_EQ(Values(g[0]), (std::vector<double>{0, 2, 0, 1, 0, 0, 0, 0, 0, 4, 0, 3}));
}

TEST(NegativeAxes, Everywhere) {
  NDArray x = Iota({2, 3, 4});
  EXPECT_EQ(nd::transpose(x, {1, -1, 0}).shape(), Shape({3, 4, 2}));
  EXPECT_EQ(nd::expand_dims(x, -1).shape(), Shape({2, 3, 4, 1}));
  EXPECT_EQ(nd::expand_dims(x, -4).shape(), Shape({1, 2, 3, 4}));
  EXPECT_EQ(nd::stack({x, x}, -1).shape(), Shape({2, 3, 4, 2}));
  EXPECT_EQ(nd::Concat({x, x}, -2).shape(), Shape({2, 6, 4}));
  EXPECT_EQ(nd::split(x, 2, -1)[1].shape(), Shape({2, 3, 2}));
  EXPECT_EQ(nd::swapaxes(x, -1, 0).shape(), Shape({4, 3, 2}));
  EXPECT_EQ(nd::squeeze(Iota({1, 3, 1}), Shape{-1}).shape(), Shape({1, 3}));
  EXPECT_EQ(nd::repeat(x, 2, -3).shape(), Shape({4, 3, 4}));
  EXPECT_EQ(Values(nd::flip(Iota({2, 3}), {-1})), (std::vector<double>{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(Values(nd::slice_like(Iota({3, 4}), Iota({2, 2}), {-1})),
            (std::vector<double>{0, 1, 4, 5, 8, 9}));
  std::string e = ErrorOf([&] { nd::transpose(x, {0, 1, 3}); });
  EXPECT_NE(e.find("transpose"), std::string::npos) << e;
  EXPECT_NE(e.find("(2, 3, 4)"), std::string::npos) << e;
}

TEST(ZeroSize, DimsFlowThrough) {
  NDArray e = nd::zeros({0, 3});
  EXPECT_EQ(e.size(), 0);
  EXPECT_EQ(nd::transpose(e).shape(), Shape({3, 0}));
  EXPECT_EQ(nd::reshape(e, {0, 3, 1}).shape(), Shape({0, 3, 1}));
  EXPECT_EQ(nd::flatten(e).shape(), Shape({0, 3}));
  EXPECT_EQ(nd::tile(e, {2, 2}).shape(), Shape({0, 6}));
  EXPECT_EQ(nd::tile(Iota({2, 3}), {0, 1}).shape(), Shape({0, 3}));
  EXPECT_EQ(nd::repeat(Iota({2, 3}), 0, 1).shape(), Shape({0}));  // MXNet: (0,) whatever the axis
  NDArray c = nd::Concat({Iota({2, 0}), Iota({2, 3})}, 1);
  EXPECT_EQ(c.shape(), Shape({2, 3}));
  EXPECT_EQ(Values(c), Values(Iota({2, 3})));
  EXPECT_EQ(nd::Concat({e, Iota({1, 3})}, 0).shape(), Shape({1, 3}));
  NDArrayVec parts = nd::split(Iota({4, 0}), 2, 0);
  EXPECT_EQ(parts[1].shape(), Shape({2, 0}));
  EXPECT_EQ(nd::stack({Iota({0}), Iota({0})}, 0).shape(), Shape({2, 0}));
  EXPECT_EQ(nd::slice(Iota({4, 5}), {-10, 2}, {10, -10}).shape(), Shape({4, 0}));
  EXPECT_EQ(nd::slice(Iota({4, 5}), {10}, {std::nullopt}).shape(), Shape({0, 5}));
  NDArray p = nd::pad(nd::zeros({1, 1, 0, 2}), "constant", {0, 0, 0, 0, 1, 1, 1, 1}, 7);
  EXPECT_EQ(p.shape(), Shape({1, 1, 2, 4}));
  EXPECT_EQ(Values(p), std::vector<double>(8, 7.0));
  EXPECT_EQ(nd::shape_array(e).ToVector<int64_t>(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(nd::size_array(e).ToVector<int64_t>(), (std::vector<int64_t>{0}));
  // Gradients through zero-size arrays.
  const Op& op = OpRegistry::Get("Concat");
  OpAttrs a = OpAttrs::Parse(op, {{"num_args", "2"}, {"dim", "1"}});
  std::vector<NDArray> in{Iota({2, 0}, DType::kFloat64), Iota({2, 3}, DType::kFloat64)};
  NDArrayVec y = Invoke(op, a, in);
  std::vector<NDArray> outs{y[0]}, og{Iota({2, 3}, DType::kFloat64)};
  auto g = EagerGradBuilder::Run(op, a, in, outs, og);
  EXPECT_EQ(g[0].shape(), Shape({2, 0}));
  EXPECT_EQ(Values(g[1]), Values(og[0]));
}

TEST(Values, PermutationsAndReplication) {
  NDArray x = Iota({2, 3});
  EXPECT_EQ(Values(nd::transpose(x)), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(Values(nd::tile(x, {2, 1})), (std::vector<double>{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(Values(nd::tile(Iota({2}), {2, 2})), (std::vector<double>{0, 1, 0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(Values(nd::repeat(x, 2, 0)), (std::vector<double>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
  EXPECT_EQ(Values(nd::repeat(x, 2)), (std::vector<double>{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}));
  EXPECT_EQ(Values(nd::stack({x, x}, 1)),
            (std::vector<double>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}));
  NDArrayVec s = nd::split_v2(Iota({7}), 3, 0);
  EXPECT_EQ(s[0].shape(), Shape({3}));
  EXPECT_EQ(s[2].shape(), Shape({2}));
  NDArrayVec t = nd::split_v2(Iota({5}), std::vector<int64_t>{1, 4}, 0);
  EXPECT_EQ(Values(t[1]), (std::vector<double>{1, 2, 3}));
  // An axis listed twice in reverse is reversed twice (MXNet's behaviour).
  EXPECT_EQ(Values(nd::flip(x, {1, 1})), Values(x));
  // Transpose of a large-ish tensor through the tiled path, every dtype size.
  for (DType t : {DType::kUint8, DType::kFloat16, DType::kInt32, DType::kFloat64}) {
    std::vector<double> iv(3 * 37 * 41);
    for (size_t i = 0; i < iv.size(); ++i) iv[i] = static_cast<double>(i % 100);
    NDArray big = NDArray::FromVector(iv, {3, 37, 41}, cpu(), t);
    NDArray y = nd::transpose(big, {2, 0, 1});
    std::vector<double> v = Values(big), w = Values(y);
    bool ok = true;
    for (int64_t c = 0; c < 41; ++c)
      for (int64_t a = 0; a < 3; ++a)
        for (int64_t b = 0; b < 37; ++b) ok &= w[(c * 3 + a) * 37 + b] == v[(a * 37 + b) * 41 + c];
    EXPECT_TRUE(ok) << DTypeName(t);
  }
}

// ---------------------------------------------------------------------------------------------
// Shape inference with unknown dims, both ways.

struct Inferred {
  ShapeVec in, out;
};
Inferred InferShapes(const std::string& op_name, const AttrDict& attrs, ShapeVec in, ShapeVec out) {
  const Op& op = OpRegistry::Get(op_name);
  OpAttrs a = OpAttrs::Parse(op, attrs);
  if (out.empty()) out.assign(op.NumOutputs(a), Shape::Unknown());
  op.infer_shape(a, &in, &out);
  return {in, out};
}

TEST(ShapeInference, ConcatFillsAMissingInputDimFromTheOutput) {
  auto r = InferShapes("Concat", {{"num_args", "3"}, {"dim", "1"}}, {{2, 3}, {-1, -1}, {2, 1}},
                       {{-1, 7}});
  EXPECT_EQ(r.in[1], Shape({2, 3}));
  EXPECT_EQ(r.out[0], Shape({2, 7}));
  r = InferShapes("Concat", {{"num_args", "2"}, {"dim", "0"}}, {Shape::Unknown(), {2, 5}}, {});
  EXPECT_EQ(r.in[0], Shape({-1, 5}));
  EXPECT_EQ(r.out[0], Shape({-1, 5}));
  r = InferShapes("Concat", {{"num_args", "2"}, {"dim", "0"}}, {{-1, 5}, {2, -1}}, {{6, -1}});
  EXPECT_EQ(r.in[0], Shape({4, 5}));
  std::string e = ErrorOf([] { InferShapes("Concat", {{"num_args", "2"}}, {{2, 3}, {3, 3}}, {}); });
  EXPECT_NE(e.find("Concat"), std::string::npos) << e;
  EXPECT_NE(e.find("(3, 3)"), std::string::npos) << e;
}

TEST(ShapeInference, BothWays) {
  // Reshape: partially known input, then the input from the output.
  auto r = InferShapes("Reshape", {{"shape", "(0, -1)"}}, {{2, -1, 4}}, {});
  EXPECT_EQ(r.out[0], Shape({2, -1}));
  r = InferShapes("Reshape", {{"shape", "(0, -1)"}}, {{2, -1, 4}}, {{2, 12}});
  EXPECT_EQ(r.in[0], Shape({2, 3, 4}));
  r = InferShapes("Reshape", {{"shape", "(-3, 4)"}}, {{2, -1, 4}}, {});
  EXPECT_EQ(r.out[0], Shape({-1, 4}));
  // transpose, SwapAxis.
  r = InferShapes("transpose", {{"axes", "(1, 2, 0)"}}, {{-1, 3, -1}}, {{-1, -1, 5}});
  EXPECT_EQ(r.in[0], Shape({5, 3, -1}));
  EXPECT_EQ(r.out[0], Shape({3, -1, 5}));
  r = InferShapes("transpose", {{"axes", "(1, 0)"}}, {Shape::Unknown()}, {{4, 7}});
  EXPECT_EQ(r.in[0], Shape({7, 4}));
  // stack and split recover their inputs from outputs.
  r = InferShapes("stack", {{"num_args", "2"}, {"axis", "1"}}, {Shape::Unknown(), {-1, 3}},
                  {{2, 2, -1}});
  EXPECT_EQ(r.in[0], Shape({2, 3}));
  r = InferShapes("SliceChannel", {{"num_outputs", "2"}, {"axis", "1"}}, {Shape::Unknown()},
                  {{3, 2}, {3, -1}});
  EXPECT_EQ(r.in[0], Shape({3, 4}));
  r = InferShapes("SliceChannel", {{"num_outputs", "3"}, {"axis", "0"}, {"squeeze_axis", "1"}},
                  {Shape::Unknown()}, {{5}, Shape::Unknown(), Shape::Unknown()});
  EXPECT_EQ(r.in[0], Shape({3, 5}));
  EXPECT_EQ(r.out[2], Shape({5}));
  // expand_dims, tile, repeat, Pad, Flatten backwards.
  r = InferShapes("expand_dims", {{"axis", "1"}}, {Shape::Unknown()}, {{2, 1, 3}});
  EXPECT_EQ(r.in[0], Shape({2, 3}));
  r = InferShapes("tile", {{"reps", "(2, 3)"}}, {{-1, -1}}, {{4, 9}});
  EXPECT_EQ(r.in[0], Shape({2, 3}));
  r = InferShapes("repeat", {{"repeats", "2"}, {"axis", "0"}}, {{-1, -1}}, {{6, 5}});
  EXPECT_EQ(r.in[0], Shape({3, 5}));
  r = InferShapes("Pad", {{"mode", "edge"}, {"pad_width", "(0, 0, 0, 0, 1, 1, 2, 2)"}},
                  {Shape::Unknown()}, {{1, 2, 5, 8}});
  EXPECT_EQ(r.in[0], Shape({1, 2, 3, 4}));
  r = InferShapes("Flatten", {}, {{-1, 3, -1}}, {{2, 12}});
  EXPECT_EQ(r.in[0], Shape({2, 3, 4}));
  // Unknown dims stay unknown where nothing tells them.
  r = InferShapes("slice", {{"begin", "(1, 0)"}, {"end", "(3, 2)"}}, {{-1, 4, -1}}, {});
  EXPECT_EQ(r.out[0], Shape({-1, 2, -1}));
  r = InferShapes("slice_axis", {{"axis", "0"}, {"begin", "0"}, {"end", "1"}}, {{5, -1}}, {});
  EXPECT_EQ(r.out[0], Shape({1, -1}));
  r = InferShapes("_zeros", {{"shape", "(2, 3)"}}, {}, {});
  EXPECT_EQ(r.out[0], Shape({2, 3}));
  r = InferShapes("_random_uniform", {}, {}, {{4, 4}});
  EXPECT_EQ(r.out[0], Shape({4, 4}));
}

// ---------------------------------------------------------------------------------------------
// Errors name the op, the attribute and the shape.

TEST(Errors, NameOpAttributeAndShape) {
  NDArray x = Iota({2, 3});
  std::vector<NDArray> in{x};
  auto msg = [&](const std::string& op, const AttrDict& a) {
    return ErrorOf([&] { Invoke(op, in, a); });
  };
  std::string e = msg("slice", {{"begin", "(a,)"}, {"end", "(1,)"}});
  EXPECT_NE(e.find("slice"), std::string::npos) << e;
  EXPECT_NE(e.find("begin"), std::string::npos) << e;
  e = msg("Reshape", {{"shape", "(0, -1)"}, {"foo", "1"}});
  EXPECT_NE(e.find("unknown attribute 'foo'"), std::string::npos) << e;
  e = msg("Pad", {{"mode", "wrap"}, {"pad_width", "(0, 0, 0, 0)"}});
  EXPECT_NE(e.find("mode"), std::string::npos) << e;
  e = msg("Pad", {{"mode", "edge"}, {"pad_width", "(0, 0, 0, 0)"}});
  EXPECT_NE(e.find("(2, 3)"), std::string::npos) << e;
  e = msg("transpose", {{"axes", "(0, 0)"}});
  EXPECT_NE(e.find("axes"), std::string::npos) << e;
  e = msg("split", {{"num_outputs", "4"}});
  EXPECT_NE(e.find("SliceChannel"), std::string::npos) << e;
  EXPECT_NE(e.find("(2, 3)"), std::string::npos) << e;
  e = msg("slice_axis", {{"axis", "2"}, {"begin", "0"}, {"end", "1"}});
  EXPECT_NE(e.find("axis 2 is out of range"), std::string::npos) << e;
  e = msg("squeeze", {{"axis", "(0,)"}});
  EXPECT_NE(e.find("squeeze"), std::string::npos) << e;
  EXPECT_NE(e.find("size is 2"), std::string::npos) << e;
  e = msg("tile", {});
  EXPECT_NE(e.find("reps"), std::string::npos) << e;  // required attribute
  e = ErrorOf([] { nd::arange(3, 1); });
  EXPECT_NE(e.find("_arange"), std::string::npos) << e;
  e = ErrorOf([] { nd::arange(0, 1, 0); });
  EXPECT_NE(e.find("step=0"), std::string::npos) << e;
  e = ErrorOf([&] { nd::Concat({x, Iota({3, 3})}, 1); });
  EXPECT_NE(e.find("input 1"), std::string::npos) << e;
  e = ErrorOf([&] { nd::depth_to_space(Iota({1, 6, 2, 2}), 2); });
  EXPECT_NE(e.find("block_size"), std::string::npos) << e;
}

// ---------------------------------------------------------------------------------------------
// The nd:: API.

TEST(Api, CreationFunctions) {
  NDArray z = nd::zeros({2, 3}, cpu(), DType::kInt32);
  EXPECT_EQ(z.dtype(), DType::kInt32);
  EXPECT_EQ(Values(z), std::vector<double>(6, 0.0));
  EXPECT_EQ(Values(nd::ones({3}, cpu(), DType::kFloat16)), std::vector<double>(3, 1.0));
  EXPECT_EQ(Values(nd::full({2}, 2.5, cpu(), DType::kFloat64)), (std::vector<double>{2.5, 2.5}));
  EXPECT_EQ(Values(nd::arange(5)), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(Values(nd::arange(1, 3, 0.5, 2)),
            (std::vector<double>{1, 1, 1.5, 1.5, 2, 2, 2.5, 2.5}));
  EXPECT_EQ(Values(nd::arange(3, 0, -1, 1, cpu(), DType::kInt64)), (std::vector<double>{3, 2, 1}));
  EXPECT_EQ(Values(nd::eye(2, 3, 1)), (std::vector<double>{0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(Values(nd::eye(3, 0, -1)), (std::vector<double>{0, 0, 0, 1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(Values(nd::linspace(0, 1, 3)), (std::vector<double>{0, 0.5, 1}));
  // By name with ctx, as the C ABI calls them.
  NDArrayVec o = Invoke("_full", {},
                        {{"shape", "(2,)"}, {"value", "4"}, {"ctx", "cpu(0)"}, {"dtype", "uint8"}});
  EXPECT_EQ(o[0].dtype(), DType::kUint8);
  EXPECT_EQ(o[0].device(), cpu());
  EXPECT_EQ(Values(o[0]), (std::vector<double>{4, 4}));
  EXPECT_FALSE(ErrorOf([] { Invoke("_zeros", {}, {}); }).empty());  // no shape: cannot infer
}

TEST(Api, ShapeFunctions) {
  NDArray x = Iota({2, 3, 4});
  EXPECT_EQ(nd::reshape(x, {0, -1}).shape(), Shape({2, 12}));
  EXPECT_EQ(nd::flatten(x).shape(), Shape({2, 12}));
  EXPECT_EQ(nd::squeeze(Iota({1, 2, 1})).shape(), Shape({2}));
  EXPECT_EQ(nd::squeeze(Iota({1, 1})).shape(), Shape({1}));
  EXPECT_EQ(nd::reshape_like(x, Iota({4, 6})).shape(), Shape({4, 6}));
  EXPECT_EQ(nd::reshape_like(Iota({6, 4}), Iota({3, 2, 5}), 0, 1, 0, 2).shape(), Shape({3, 2, 4}));
  EXPECT_EQ(nd::shape_array(x).ToVector<int64_t>(), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(nd::size_array(x).ToVector<int64_t>(), (std::vector<int64_t>{24}));
  EXPECT_EQ(nd::transpose(x, {0, 2, 1}).shape(), Shape({2, 4, 3}));
  EXPECT_EQ(nd::concat({x, x}, 0).shape(), Shape({4, 3, 4}));
  NDArrayVec parts = nd::split(x, 3, 1, true);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].shape(), Shape({2, 4}));
  EXPECT_EQ(nd::depth_to_space(nd::space_to_depth(Iota({1, 2, 4, 6}), 2), 2).ToVector<double>(),
            Values(Iota({1, 2, 4, 6})));
  EXPECT_EQ(nd::pad(Iota({1, 1, 2, 2}), "edge", {0, 0, 0, 0, 1, 0, 0, 1}).ToVector<double>(),
            (std::vector<double>{0, 1, 1, 0, 1, 1, 2, 3, 3}));
  EXPECT_EQ(nd::pad(Iota({1, 1, 1, 3}), "reflect", {0, 0, 0, 0, 0, 0, 2, 2}).ToVector<double>(),
            (std::vector<double>{2, 1, 0, 1, 2, 1, 0}));
}

// Gradients are compositions of registered ops: second-order differentiation goes through them.
TEST(Gradients, AreDifferentiableAgain) {
  for (const char* name :
       {"Reshape", "transpose", "Concat", "slice", "tile", "repeat", "Pad", "slice_axis",
        "slice_like", "stack", "SliceChannel", "_split_v2", "reverse", "depth_to_space"}) {
    const Op& op = OpRegistry::Get(name);
    EXPECT_TRUE(op.differentiable()) << name;
  }
  for (const char* helper :
       {"_split_like", "_slice_assign", "_slice_assign_scalar", "_slice_axis_grad",
        "_slice_like_grad", "_tile_grad", "_repeat_grad", "_pad_grad"})
    EXPECT_TRUE(OpRegistry::Get(helper).differentiable()) << helper;
}

}  // namespace
}  // namespace mxnet
