// Custom / _backward_Custom (nn_custom.cc) with the test custom ops of nn_custom_cases.cc:
// values and gradients by hand, the registry and its errors, attribute round trips, and real
// MXNet 1.9.1 running the same ops written with mx.operator.register
// (testdata/nn/custom.json, tools/conformance/refs_custom.py). Autograd, hybridize and symbol
// JSON are covered by //gluon:custom_op_test.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/nn/nn_custom_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

using testing::AllClose;

NDArray F32(const std::vector<double>& v, const Shape& s) {
  return NDArray::FromVector(v, s, cpu(), DType::kFloat32);
}

// Expects `fn` to throw mxnet::Error with `code` and a message containing `part`.
template <typename Fn>
void ExpectError(Fn fn, absl::StatusCode code, const std::string& part) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected: " << part;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(Custom, SigmoidForwardAndBackwardByHand) {
  const std::vector<double> x = {-2, -0.5, 0, 0.25, 1, 3};
  NDArray in = F32(x, {2, 3});
  std::vector<NDArray> y = nd::Custom({in}, "_test_custom_sigmoid");
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(y[0].dtype(), DType::kFloat32);
  std::vector<double> want(x.size()), dx(x.size()), og = {1, 2, -1, 0.5, 3, -2};
  for (size_t i = 0; i < x.size(); ++i) {
    want[i] = 1 / (1 + std::exp(-x[i]));
    dx[i] = og[i] * want[i] * (1 - want[i]);
  }
  EXPECT_TRUE(AllClose(y[0], F32(want, {2, 3}), 1e-6, 1e-7));

  const Op& op = OpRegistry::Get("Custom");
  OpAttrs attrs = OpAttrs::Parse(op, {{"op_type", "_test_custom_sigmoid"}});
  std::vector<NDArray> g = EagerGradBuilder::Run(op, attrs, std::vector<NDArray>{in}, y,
                                                 std::vector<NDArray>{F32(og, {2, 3})});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_TRUE(AllClose(g[0], F32(dx, {2, 3}), 1e-5, 1e-6));
}

TEST(Custom, TwoInputsTwoOutputsAuxAndKwargs) {
  const std::vector<double> a = {1, -2, 0.5, 3}, b = {0.5, 1, -1, 2};
  NDArray A = F32(a, {2, 2}), B = F32(b, {2, 2}), count = NDArray::Full({1}, 0);
  std::vector<NDArray> out = nd::Custom({A, B, count}, "_test_custom_pair", {{"scale", "0.5"}});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> prod(4), diff(4);
  for (int i = 0; i < 4; ++i) {
    prod[i] = 0.5 * a[i] * b[i];
    diff[i] = a[i] - b[i] * b[i];
  }
  EXPECT_TRUE(AllClose(out[0], F32(prod, {2, 2})));
  EXPECT_TRUE(AllClose(out[1], F32(diff, {2, 2})));
  // The aux state is updated in place by every forward call.
  EXPECT_EQ(count.ToVector<float>(), std::vector<float>{1});
  nd::Custom({A, B, count}, "_test_custom_pair");
  EXPECT_EQ(count.ToVector<float>(), std::vector<float>{2});

  // Gradient (analytic formula), one per argument, none for the aux state.
  const Op& op = OpRegistry::Get("Custom");
  OpAttrs attrs = OpAttrs::Parse(op, {{"op_type", "_test_custom_pair"}, {"scale", "0.5"}});
  const std::vector<double> g0 = {1, -1, 2, 0.5}, g1 = {0.25, 3, -2, 1};
  std::vector<NDArray> ins = {A, B, count};
  std::vector<NDArray> g = EagerGradBuilder::Run(
      op, attrs, ins, out, std::vector<NDArray>{F32(g0, {2, 2}), F32(g1, {2, 2})});
  ASSERT_EQ(g.size(), 3u);
  std::vector<double> da(4), db(4);
  for (int i = 0; i < 4; ++i) {
    da[i] = 0.5 * b[i] * g0[i] + g1[i];
    db[i] = 0.5 * a[i] * g0[i] - 2 * b[i] * g1[i];
  }
  EXPECT_TRUE(AllClose(g[0], F32(da, {2, 2})));
  EXPECT_TRUE(AllClose(g[1], F32(db, {2, 2})));
  EXPECT_TRUE(g[2].is_none());
}

TEST(Custom, GradientsMatchFiniteDifferences) {
  int n = 0;
  for (const auto& c : testing::OpTestCases()) {
    if (c.op != "Custom" || !c.check_grad) continue;
    EXPECT_TRUE(testing::CheckGradient(c)) << c.label;
    ++n;
  }
  EXPECT_EQ(n, 2);
}

TEST(Custom, NeedTopGradFalseIgnoresTheHeadGradient) {
  NDArray x = F32({1, -2, 3}, {3});
  std::vector<NDArray> y = nd::Custom({x}, "_test_custom_sqloss");
  EXPECT_TRUE(AllClose(y[0], x));
  const Op& op = OpRegistry::Get("Custom");
  OpAttrs attrs = OpAttrs::Parse(op, {{"op_type", "_test_custom_sqloss"}});
  std::vector<NDArray> g = EagerGradBuilder::Run(op, attrs, std::vector<NDArray>{x}, y,
                                                 std::vector<NDArray>{F32({5, 6, 7}, {3})});
  EXPECT_TRUE(AllClose(g[0], F32({2, -4, 6}, {3})));
  // _backward_Custom then takes (data, output) only.
  const Op& bop = OpRegistry::Get("_backward_Custom");
  EXPECT_EQ(bop.NumInputs(OpAttrs::Parse(bop, {{"op_type", "_test_custom_sqloss"}})), 2);
  EXPECT_EQ(bop.NumInputs(OpAttrs::Parse(bop, {{"op_type", "_test_custom_pair"}})), 2 + 2 + 2 + 1);
}

TEST(Custom, AssignHonoursReq) {
  NDArray dst = F32({1, 2, 3}, {3}), src = F32({10, 20, 30}, {3});
  nd::CustomOp::assign(dst, "null", src);
  EXPECT_TRUE(AllClose(dst, F32({1, 2, 3}, {3})));
  nd::CustomOp::assign(dst, "add", src);
  EXPECT_TRUE(AllClose(dst, F32({11, 22, 33}, {3})));
  nd::CustomOp::assign(dst, "add", src.astype(DType::kFloat64));
  EXPECT_TRUE(AllClose(dst, F32({21, 42, 63}, {3})));
  nd::CustomOp::assign(dst, "write", src);
  EXPECT_TRUE(AllClose(dst, src));
  nd::CustomOp::assign(dst, "inplace", F32({0, 0, 1}, {3}));
  EXPECT_TRUE(AllClose(dst, F32({0, 0, 1}, {3})));
  ExpectError([&] { nd::CustomOp::assign(dst, "append", src); }, absl::StatusCode::kInvalidArgument,
              "req must be one of null, write, inplace, add");
  ExpectError(
      [&] {
        nd::CustomOp::assign(dst, "write", F32({1, 2}, {2}));
      },
      absl::StatusCode::kInvalidArgument, "src has shape (2,), dst has (3,)");
}

TEST(Custom, RegistryDescribesTheOp) {
  const Op& op = OpRegistry::Get("_npi_Custom");
  EXPECT_EQ(op.name, "Custom");
  OpAttrs attrs = OpAttrs::Parse(op, {{"op_type", "_test_custom_pair"}, {"scale", "2"}});
  EXPECT_EQ(op.NumInputs(attrs), 3);
  EXPECT_EQ(op.NumOutputs(attrs), 2);
  EXPECT_EQ(op.InputNames(attrs), (std::vector<std::string>{"a", "b", "count"}));
  // Any kwargs round-trip as given.
  EXPECT_EQ(attrs.ToDict(), (AttrDict{{"op_type", "_test_custom_pair"}, {"scale", "2"}}));
  EXPECT_TRUE(OpAttrs::Parse(op, attrs.ToDict()) == attrs);
  EXPECT_FALSE(OpAttrs::Parse(op, {{"op_type", "_test_custom_pair"}, {"scale", "3"}}) == attrs);
  EXPECT_TRUE(nd::IsCustomOpRegistered("_test_custom_sigmoid"));
  EXPECT_FALSE(nd::IsCustomOpRegistered("nope"));
  auto names = nd::ListCustomOps();
  EXPECT_NE(std::find(names.begin(), names.end(), "_test_custom_pair"), names.end());
  // Shape inference waits for every argument shape; then the prop decides.
  ShapeVec in = {Shape{2, 3}, Shape::Unknown(), Shape::Unknown()}, out;
  DTypeVec it = {0, -1, -1}, ot;
  InferOutputs(op, attrs, &in, &it, &out, &ot);
  EXPECT_FALSE(out[0].is_known());
  in = {Shape{2, 3}, Shape{2, 3}, Shape::Unknown()};
  it = {1, 1, -1};
  InferOutputs(op, attrs, &in, &it, &out, &ot);
  EXPECT_EQ(out[0], (Shape{2, 3}));
  EXPECT_EQ(out[1], (Shape{2, 3}));
  EXPECT_EQ(in[2], (Shape{1}));  // aux shape from the prop
  EXPECT_EQ(ot, (DTypeVec{1, 1}));
  EXPECT_EQ(it[2], 1);
}

class NoBackwardOp : public nd::CustomOp {
 public:
  void forward(bool, const ReqVec& req, const ArrayVec& in, const ArrayVec& out,
               const ArrayVec&) override {
    assign(out[0], req[0], in[0]);
  }
};
class NoBackwardProp : public nd::CustomOpProp {
 public:
  explicit NoBackwardProp(const AttrDict& kwargs) {
    if (kwargs.count("fail")) MX_THROW(absl::StatusCode::kInvalidArgument, "asked to fail");
  }
  nd::CustomShapes infer_shape(const std::vector<Shape>& in) const override {
    if (in[0].ndim() != 1) throw std::runtime_error("data must be 1-D");
    return CustomOpProp::infer_shape(in);
  }
  std::unique_ptr<nd::CustomOp> create_operator(Device, const std::vector<Shape>&,
                                                const std::vector<DType>&) const override {
    return std::make_unique<NoBackwardOp>();
  }
};

TEST(Custom, Errors) {
  NDArray x = F32({1, 2}, {2});
  // MXNet: "Cannot find custom operator nope".
  ExpectError([&] { nd::Custom({x}, "nope"); }, absl::StatusCode::kInvalidArgument,
              "Custom: Cannot find custom operator nope");
  ExpectError([&] { Invoke("Custom", std::vector<NDArray>{x}, {}); },
              absl::StatusCode::kInvalidArgument, "required attribute 'op_type'");
  ExpectError([&] { nd::Custom({x}, "_test_custom_pair"); }, absl::StatusCode::kInvalidArgument,
              "Custom: expected 3 inputs (a, b, count), got 1");
  ExpectError(
      [&] {
        nd::Custom({x, F32({1, 2, 3}, {3}), x}, "_test_custom_pair");
      },
      absl::StatusCode::kInvalidArgument,
      "Custom: error in _test_custom_pair.infer_shape: a and b must have one shape, got "
      "(2,) and (3,)");
  ExpectError(
      [&] {
        nd::Custom({x, x, x}, "_test_custom_pair", {{"scale", "abc"}});
      },
      absl::StatusCode::kInvalidArgument, "scale must be a number, got 'abc'");
  ExpectError(
      [&] {
        nd::Custom({x}, "_test_custom_sigmoid", {{"op_type", "x"}});
      },
      absl::StatusCode::kInvalidArgument, "op_type is given twice");

  nd::RegisterCustomOp<NoBackwardProp>("_test_custom_nobackward");
  ExpectError([] { nd::RegisterCustomOp<NoBackwardProp>("_test_custom_nobackward"); },
              absl::StatusCode::kAlreadyExists,
              "custom operator '_test_custom_nobackward' is already registered");
  ExpectError([] { nd::RegisterCustomOp("", nullptr); }, absl::StatusCode::kInvalidArgument,
              "empty op_type");
  ExpectError(
      [&] {
        nd::Custom({x}, "_test_custom_nobackward", {{"fail", "1"}});
      },
      absl::StatusCode::kInvalidArgument,
      "error creating the prop of custom operator _test_custom_nobackward: asked to fail");
  ExpectError(
      [&] {
        nd::Custom({F32({1, 2, 3, 4}, {2, 2})}, "_test_custom_nobackward");
      },
      absl::StatusCode::kInvalidArgument,
      "Custom: error in _test_custom_nobackward.infer_shape: data must be 1-D");
  std::vector<NDArray> y = nd::Custom({x}, "_test_custom_nobackward");
  const Op& op = OpRegistry::Get("Custom");
  OpAttrs attrs = OpAttrs::Parse(op, {{"op_type", "_test_custom_nobackward"}});
  ExpectError(
      [&] {
        EagerGradBuilder::Run(op, attrs, std::vector<NDArray>{x}, y, std::vector<NDArray>{x});
      },
      absl::StatusCode::kUnimplemented,
      "Custom: error in _test_custom_nobackward.backward: CustomOp::backward is not "
      "implemented");
}

// Real MXNet 1.9.1 running the same ops (mx.operator.register), fixed inputs.
TEST(Custom, MatchesMXNet) {
  const auto doc = testing::LoadRefJson("ndarray/ops/testdata/nn/custom.json");
  int n = 0;
  for (const auto& c : doc["cases"]) {
    SCOPED_TRACE(c["id"].get<std::string>());
    std::vector<NDArray> in;
    for (const auto& a : c["inputs"]) in.push_back(testing::RefArray(a));
    AttrDict kwargs;
    for (const auto& [k, v] : c["kwargs"].items()) kwargs[k] = v.get<std::string>();
    const std::string op_type = c["op_type"].get<std::string>();
    std::vector<NDArray> out = nd::Custom(in, op_type, kwargs);
    ASSERT_EQ(out.size(), c["outputs"].size());
    for (size_t k = 0; k < out.size(); ++k)
      EXPECT_TRUE(AllClose(out[k], testing::RefArray(c["outputs"][k]), 1e-5, 1e-6)) << k;
    for (size_t k = 0; k < in.size(); ++k)
      EXPECT_TRUE(AllClose(in[k], testing::RefArray(c["inputs_after"][k]), 1e-5, 1e-6)) << k;
    const Op& op = OpRegistry::Get("Custom");
    AttrDict d = kwargs;
    d["op_type"] = op_type;
    std::vector<NDArray> og;
    for (const auto& a : c["head_grads"]) og.push_back(testing::RefArray(a));
    std::vector<NDArray> g = EagerGradBuilder::Run(op, OpAttrs::Parse(op, d), in, out, og);
    for (size_t k = 0; k < c["grads"].size(); ++k)
      EXPECT_TRUE(AllClose(g[k], testing::RefArray(c["grads"][k]), 1e-5, 1e-6)) << k;
    ++n;
  }
  EXPECT_GE(n, 3);
}

}  // namespace
}  // namespace mxnet
