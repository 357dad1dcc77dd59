// The Custom operator (ndarray/ops/nn/nn_custom.cc) beyond plain calls: autograd record/backward
// (write and add gradient requests), hybridize (traced into the graph, exported, imported), and a
// symbol JSON with a "Custom" node whose op_type is registered in C++. The custom ops are the
// test ops of ndarray/ops/nn/nn_custom_cases.cc:
//   _test_custom_sigmoid: y = 1 / (1 + exp(-x)), dx = dy * y * (1 - y)
//   _test_custom_pair (a, b; aux count, scale): (scale * a * b, a - b^2), count += 1 per forward
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "gluon/block.h"
#include "gluon/symbol_block.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/nn/nn_custom_api.h"
#include "ndarray/testing/op_testing.h"
#include "symbol/symbol.h"

namespace mxnet::gluon {
namespace {

using testing::AllClose;
using testing::RandomArray;

std::vector<double> Sigmoid(const std::vector<double>& x) {
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = 1 / (1 + std::exp(-x[i]));
  return y;
}
NDArray F32(const std::vector<double>& v, const Shape& s) {
  return NDArray::FromVector(v, s, cpu(), DType::kFloat32);
}

TEST(CustomOp, AutogradRecordAndBackward) {
  const std::vector<double> xv = {-1, 0.5, 2, -0.25};
  NDArray x = F32(xv, {4});
  x.attach_grad();
  NDArray z;
  {
    auto rec = autograd::record();
    NDArray y = nd::Custom({x}, "_test_custom_sigmoid")[0];
    z = nd::elemwise_mul(y, y);  // z = y^2: dz/dx = 2 y * y (1 - y)
  }
  z.backward();
  const std::vector<double> y = Sigmoid(xv);
  std::vector<double> want(4);
  for (int i = 0; i < 4; ++i) want[i] = 2 * y[i] * y[i] * (1 - y[i]);
  EXPECT_TRUE(AllClose(x.grad(), F32(want, {4}), 1e-5, 1e-6));
}

TEST(CustomOp, GradReqAddAccumulatesAndAuxGetsNoGradient) {
  NDArray a = F32({1, -2}, {2}), b = F32({0.5, 3}, {2}), count = NDArray::Full({1}, 0);
  a.attach_grad(GradReq::kAdd);
  b.attach_grad();
  for (int rep = 0; rep < 2; ++rep) {
    std::vector<NDArray> out;
    {
      auto rec = autograd::record();
      out = nd::Custom({a, b, count}, "_test_custom_pair", {{"scale", "2"}});
    }
    autograd::backward(out, {F32({1, 1}, {2}), F32({1, -1}, {2})});
  }
  // da = 2 b g0 + g1, twice (add); db = 2 a g0 - 2 b g1 (write).
  EXPECT_TRUE(AllClose(a.grad(), F32({2 * (1 + 1), 2 * (6 - 1)}, {2})));
  EXPECT_TRUE(AllClose(b.grad(), F32({2 - 1, -4 + 6}, {2})));
  EXPECT_EQ(count.ToVector<float>(), std::vector<float>{2});
}

TEST(CustomOp, OpsInsideTheCustomOpAreNotRecorded) {
  NDArray x = F32({0.5, -1}, {2});
  x.attach_grad();
  NDArray y;
  {
    auto rec = autograd::record();
    y = nd::Custom({x}, "_test_custom_sigmoid")[0];
  }
  // One recorded node (Custom) on top of x, not the ops its kernel ran.
  autograd::internal::History h = autograd::internal::RecordedHistory(y);
  int ops = 0;
  for (const auto& n : h.nodes)
    if (n.kind == autograd::internal::HistoryNode::Kind::kOp) {
      ++ops;
      EXPECT_EQ(n.op->name, "Custom");
    }
  EXPECT_EQ(ops, 1);
  y.backward();
  const std::vector<double> s = Sigmoid({0.5, -1});
  EXPECT_TRUE(AllClose(x.grad(), F32({s[0] * (1 - s[0]), s[1] * (1 - s[1])}, {2}), 1e-5, 1e-6));
}

// y = sigmoid_custom(x * weight).
class CustomNet : public HybridBlock {
 public:
  CustomNet() { weight = register_parameter("weight", {.shape = Shape{3}}); }
  NDArray forward(const NDArray& x) override {
    return nd::Custom({nd::elemwise_mul(x, weight->data(x.device()))}, "_test_custom_sigmoid")[0];
  }
  std::string class_name() const override { return "CustomNet"; }
  ParameterPtr weight;
};

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

TEST(CustomOp, HybridizeExportImport) {
  CustomNet net;
  net.initialize(init::Constant(0.5));
  NDArray x = F32({1, -2, 4}, {3});
  NDArray eager = net(x);
  EXPECT_TRUE(AllClose(eager, F32(Sigmoid({0.5, -1, 2}), {3}), 1e-6, 1e-7));
  net.hybridize();
  NDArray hy = net(x);
  EXPECT_TRUE(AllClose(hy, eager, 0, 0));
  const std::string json = net.cached_graph().tojson();
  EXPECT_NE(json.find("\"op\": \"Custom\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"op_type\": \"_test_custom_sigmoid\""), std::string::npos) << json;
  // Gradient through the hybridized graph: d/dw sigmoid(x w) = x y (1 - y).
  x.attach_grad();
  NDArray y;
  {
    auto rec = autograd::record();
    y = net(x);
  }
  y.backward();
  const std::vector<double> s = Sigmoid({0.5, -1, 2});
  std::vector<double> dw = {1 * s[0] * (1 - s[0]), -2 * s[1] * (1 - s[1]), 4 * s[2] * (1 - s[2])};
  EXPECT_TRUE(AllClose(net.weight->grad(), F32(dw, {3}), 1e-5, 1e-6));
  std::vector<double> dx = {0.5 * s[0] * (1 - s[0]), 0.5 * s[1] * (1 - s[1]),
                            0.5 * s[2] * (1 - s[2])};
  EXPECT_TRUE(AllClose(x.grad(), F32(dx, {3}), 1e-5, 1e-6));
  const std::string prefix = TempPath("custom_net");
  ASSERT_TRUE(net.export_model(prefix).ok());
  auto block = SymbolBlock::imports(prefix + "-symbol.json", {"data"}, prefix + "-0000.params");
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_TRUE(AllClose((**block)(x), eager, 0, 0));
}

// x + 2 prod(w, w), computed by two identical Custom calls that count themselves in an aux
// parameter.
class CountingNet : public HybridBlock {
 public:
  CountingNet() {
    weight = register_parameter("weight", {.shape = Shape{2}});
    count = register_parameter("count", {.shape = Shape{1}, .grad_req = GradReq::kNull});
  }
  NDArray forward(const NDArray& x) override {
    const NDArray w = weight->data(x.device());
    const NDArray c = count->data(x.device());
    NDArray p0 = nd::Custom({w, w, c}, "_test_custom_pair")[0];
    NDArray p1 = nd::Custom({w, w, c}, "_test_custom_pair")[0];
    return nd::elemwise_add(x, nd::elemwise_add(p0, p1));
  }
  std::string class_name() const override { return "CountingNet"; }
  ParameterPtr weight, count;
};

TEST(CustomOp, GraphPassesNeverMergeCustomNodes) {
  CountingNet net;
  net.initialize(init::Constant(0));
  net.weight->set_data(F32({1, 2}, {2}));
  net.hybridize(true, {.backend = "default"});
  NDArray x = F32({10, 20}, {2});
  EXPECT_TRUE(AllClose(net(x), F32({12, 28}, {2})));  // traces (shape-only) and compiles
  const float after_first = net.count->data().ToVector<float>()[0];
  EXPECT_EQ(after_first, 2);  // the first call runs each Custom node once, like every call
  for (int i = 0; i < 2; ++i) EXPECT_TRUE(AllClose(net(x), F32({12, 28}, {2})));
  // Common-subexpression elimination would merge the two identical nodes (user code with side
  // effects): both still run on every call.
  EXPECT_EQ(net.count->data().ToVector<float>()[0], after_first + 4);
}

// A symbol file as MXNet writes it for mx.sym.Custom(a, b, count, op_type=..., scale=...).
constexpr const char* kPairJson = R"({
  "nodes": [
    {"op": "null", "name": "a", "inputs": []},
    {"op": "null", "name": "b", "inputs": []},
    {"op": "null", "name": "count", "inputs": []},
    {"op": "Custom", "name": "pair0", "attrs": {"op_type": "_test_custom_pair", "scale": "0.5"},
     "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}
  ],
  "arg_nodes": [0, 1, 2],
  "node_row_ptr": [0, 1, 2, 3, 5],
  "heads": [[3, 0, 0], [3, 1, 0]],
  "attrs": {"mxnet_version": ["int", 10901]}
})";

TEST(CustomOp, SymbolJsonWithACustomNode) {
  auto s = sym::Symbol::fromjson(kPairJson);
  ASSERT_TRUE(s.ok()) << s.status();
  // Attributes round-trip exactly through our JSON.
  const std::string out = s->tojson();
  EXPECT_NE(out.find("\"scale\": \"0.5\""), std::string::npos) << out;
  auto again = sym::Symbol::fromjson(out);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->tojson(), out);

  SymbolBlock block(*s, std::vector<std::string>{"a", "b", "count"});
  NDArray a = F32({1, 2, -1}, {3}), b = F32({2, 0.5, 3}, {3}), count = NDArray::Full({1}, 0);
  NDArrayVec y = block(NDArrayVec{a, b, count});
  ASSERT_EQ(y.size(), 2u);
  EXPECT_TRUE(AllClose(y[0], F32({1, 0.5, -1.5}, {3})));
  EXPECT_TRUE(AllClose(y[1], F32({-3, 1.75, -10}, {3})));

  // An unregistered op_type fails on loading, with MXNet's wording.
  std::string bad = kPairJson;
  bad.replace(bad.find("_test_custom_pair"), 17, "_not_registered__");
  auto b2 = sym::Symbol::fromjson(bad);
  ASSERT_FALSE(b2.ok());
  EXPECT_NE(
      std::string(b2.status().message()).find("Cannot find custom operator _not_registered__"),
      std::string::npos)
      << b2.status();
}

}  // namespace
}  // namespace mxnet::gluon
