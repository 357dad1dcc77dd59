// MXNet's oneDNN fused subgraph ops (symbol/sg_ops.cc): graphs exported by MXNet 1.9.1 after
// optimize_for('MKLDNN') (symbol/testdata/sg, written by tools/conformance/gen_sg_refs.py) load,
// run through a CachedOp and match MXNet's outputs; JSON round trips keep the subgraphs; bad nodes
// give clear errors. (The same files through a SymbolBlock, as `mxnet predict` runs them:
// gluon/symbol_block_sg_test.cc.)
#include <cstdio>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "base/strings.h"
#include "ndarray/io.h"
#include "symbol/control_flow.h"
#include "symbol/executor.h"
#include "symbol/symbol.h"

namespace mxnet::sym {
namespace {

const std::string kDir = "symbol/testdata/sg/";

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct Export {
  Symbol graph;
  nd::NDArrayFile params, io;
};

Export Load(const std::string& name) {
  Export e;
  auto g = Symbol::load(kDir + name + "-symbol.json");
  EXPECT_TRUE(g.ok()) << g.status();
  e.graph = *g;
  auto p = nd::load(kDir + name + "-0000.params");
  EXPECT_TRUE(p.ok()) << p.status();
  e.params = *p;
  auto io = nd::load(kDir + name + "-io.params");
  EXPECT_TRUE(io.ok()) << io.status();
  e.io = *io;
  return e;
}

// Runs `graph` with a CachedOp directly (params by name).
NDArray RunCached(const Symbol& graph, const Export& e) {
  CachedOp op(graph);
  std::vector<NDArray> in;
  for (const auto& name : op.input_names()) {
    const NDArray* a = name == "data" ? e.io.find("data") : e.params.find("arg:" + name);
    if (!a) a = e.params.find("aux:" + name);
    EXPECT_NE(a, nullptr) << name;
    in.push_back(a ? *a : NDArray());
  }
  return op.Forward(in, false)[0];
}

void ExpectClose(const NDArray& got, const NDArray& want, float tol, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  std::vector<float> g = got.ToVector<float>(), w = want.ToVector<float>();
  float worst = 0;
  for (size_t i = 0; i < g.size(); ++i) worst = std::max(worst, std::abs(g[i] - w[i]));
  EXPECT_LE(worst, tol) << what;
}

int CountOp(const Symbol& s, const std::string& op) {
  int n = 0;
  for (const auto& node : s.TopoNodes()) n += node->op && node->op->name == op;
  return n;
}

class SgExport : public ::testing::TestWithParam<const char*> {};

TEST_P(SgExport, MatchesMxnet) {
  Export e = Load(GetParam());
  int fused = 0;
  for (const char* op : {"_sg_mkldnn_conv", "_sg_mkldnn_fully_connected", "_sg_mkldnn_selfatt_qk",
                         "_sg_mkldnn_selfatt_valatt"})
    fused += CountOp(e.graph, op);
  EXPECT_GT(fused, 0);
  const NDArray& want = *e.io.find("output");
  // MXNet's fused oneDNN result vs our subgraph execution: float32 rounding only.
  ExpectClose(RunCached(e.graph, e), want, 1e-5f, "CachedOp");
  ExpectClose(RunCached(e.graph, e), *e.io.find("unfused"), 1e-5f, "vs MXNet unfused");
  // Our JSON keeps the subgraphs and the attributes; the reloaded graph gives the same result.
  auto again = Symbol::fromjson(e.graph.tojson());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->tojson(), e.graph.tojson());
  ExpectClose(RunCached(*again, e), want, 1e-5f, "round trip");
}

INSTANTIATE_TEST_SUITE_P(Refs, SgExport,
                         ::testing::Values("conv_bn_relu", "conv_add_relu", "fc_relu", "selfatt"));

TEST(SgOps, AttributesAndSubgraph) {
  Export e = Load("conv_bn_relu");
  int seen = 0;
  for (const auto& n : e.graph.TopoNodes()) {
    if (!n->op || n->op->name != "_sg_mkldnn_conv") continue;
    ++seen;
    EXPECT_EQ(n->attrs.ToDict().at("with_bn"), "True");
    EXPECT_EQ(n->attrs.ToDict().at("with_act"), "True");
    EXPECT_EQ(n->attrs.ToDict().count("with_sum"), 0u);  // defaults are not printed
    const Subgraphs* sg = NodeSubgraphs(*n);
    ASSERT_NE(sg, nullptr);
    ASSERT_EQ(sg->graphs.size(), 1u);
    EXPECT_EQ(CountOp(sg->graphs[0], "BatchNorm"), 1);
    EXPECT_EQ(n->inputs.size(), sg->input_names[0].size());
  }
  EXPECT_EQ(seen, 2);
  // Inference only, like MXNet's (no FGradient).
  EXPECT_TRUE(OpRegistry::Get("_sg_mkldnn_conv").non_differentiable);
  EXPECT_TRUE(OpRegistry::Get("_sg_mkldnn_fully_connected").non_differentiable);
  EXPECT_TRUE(OpRegistry::Get("_sg_mkldnn_selfatt_qk").non_differentiable);
  EXPECT_TRUE(OpRegistry::Get("_sg_mkldnn_selfatt_valatt").non_differentiable);
  EXPECT_FALSE(OpRegistry::Get("_sg_mkldnn_conv").differentiable());
  // The attention ops read heads from their attributes, like MXNet's.
  Export att = Load("selfatt");
  int heads = 0;
  for (const auto& n : att.graph.TopoNodes())
    if (n->op && StartsWith(n->op->name, "_sg_mkldnn_selfatt"))
      heads += std::stoi(n->attrs.ToDict().at("heads"));
  EXPECT_EQ(heads, 4);
}

TEST(SgOps, ShapeInference) {
  Export e = Load("conv_add_relu");
  InferResult<Shape> r = e.graph.infer_shape({{"data", Shape{2, 3, 5, 5}}});
  ASSERT_EQ(r.out.size(), 1u);
  EXPECT_EQ(r.out[0], (Shape{2, 5}));
  // A wrong data shape is reported through the subgraph.
  EXPECT_THROW(e.graph.infer_shape({{"data", Shape{2, 3, 6, 6}}}), Error);
}

// Quantized exports (quantize_net, calib_mode='naive'): int8 _sg_mkldnn_conv (with_bn+act
// -> uint8, with_sum -> int8) and the int8 FC with enable_float_output. We emulate oneDNN's int8
// arithmetic in float, so outputs differ from MXNet's by a few quantization steps.
float MaxDiff(const NDArray& a, const NDArray& b) {
  std::vector<float> x = a.ToVector<float>(), y = b.ToVector<float>();
  float worst = 0;
  for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, std::abs(x[i] - y[i]));
  return worst;
}

TEST(SgOps, QuantizedMatchesMxnet) {
  // {case, bound on |ours - MXNet int8| of the final float output}. Measured: 0.0140 and
  // 0.0296 (MXNet's own int8 - float error: 0.0143, 0.0166). Per fused node (checked in Python
  // against MXNet's internals), our int8 outputs are within 1-2 quantization steps of MXNet's
  // (mean |diff| 0.1 step): the difference is oneDNN's per-channel int8 weight rounding.
  for (auto [name, bound] :
       {std::pair{"quantized_conv_bn_relu", 0.02f}, std::pair{"quantized_conv_add_relu", 0.04f}}) {
    Export e = Load(name);
    NDArray got = RunCached(e.graph, e);
    const float vs_mx = MaxDiff(got, *e.io.find("output"));
    const float vs_float = MaxDiff(got, *e.io.find("unfused"));
    const float mx_vs_float = MaxDiff(*e.io.find("output"), *e.io.find("unfused"));
    std::printf("%s: |ours - MXNet int8| %.4g, |ours - float| %.4g, |MXNet int8 - float| %.4g\n",
                name, vs_mx, vs_float, mx_vs_float);
    EXPECT_LE(vs_mx, bound) << name;
    EXPECT_LE(vs_float, 2 * mx_vs_float + 0.01f) << name;
    ExpectClose(RunCached(e.graph, e), got, 0, StrCat(name, " rerun"));
  }
  // Output dtypes like MXNet's: uint8 after a fused relu, int8 otherwise.
  Export e = Load("quantized_conv_add_relu");
  InferResult<int> t = e.graph.get_internals().infer_type({{"data", DType::kFloat32}});
  std::vector<std::string> names = e.graph.get_internals().list_outputs();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "quantized_sg_mkldnn_conv_add_1_output") {
      EXPECT_EQ(t.out[i], static_cast<int>(DType::kInt8));
    }
    if (names[i] == "quantized_sg_mkldnn_fully_connected_eltwise_0_output") {
      EXPECT_EQ(t.out[i], static_cast<int>(DType::kFloat32));
    }
  }
  Export r = Load("quantized_conv_bn_relu");
  t = r.graph.get_internals().infer_type({{"data", DType::kFloat32}});
  names = r.graph.get_internals().list_outputs();
  int seen = 0;
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == "quantized_sg_mkldnn_conv_bn_act_0_output") {
      EXPECT_EQ(t.out[i], static_cast<int>(DType::kUint8));
      ++seen;
    }
  EXPECT_EQ(seen, 1);
}

TEST(SgOps, UnsupportedQuantizedNodes) {
  std::string text = ReadFile(kDir + "quantized_conv_bn_relu-symbol.json");
  const std::string calib = "\"min_calib_range\": \"-0.000000\", ";
  size_t at = text.find(calib, text.find("_sg_mkldnn_conv"));
  ASSERT_NE(at, std::string::npos);
  text.erase(at, calib.size());
  auto g = Symbol::fromjson(text);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented) << g.status();
  EXPECT_NE(g.status().ToString().find("calib_range"), std::string::npos) << g.status();
}

TEST(SgOps, BadNodes) {
  std::string text = ReadFile(kDir + "fc_relu-symbol.json");
  // Drop the bias input of the first fused node: the subgraph still has 3 inputs.
  std::string bad = text;
  const std::string in3 = "\"inputs\": [[0, 0, 0], [1, 0, 0], [2, 0, 0]], \n      \"subgraphs\"";
  size_t at = bad.find(in3);
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, in3.size(), "\"inputs\": [[0, 0, 0], [1, 0, 0]], \n      \"subgraphs\"");
  auto g = Symbol::fromjson(bad);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(g.status().ToString().find("has 2 inputs but its subgraph has 3"), std::string::npos)
      << g.status();
  // A fused node without its subgraph cannot run.
  const Op& op = OpRegistry::Get("_sg_mkldnn_fully_connected");
  EXPECT_EQ(op.NumInputs(OpAttrs::Parse(op, {})), 3);
  Symbol s = Symbol::Create(op, OpAttrs::Parse(op, {}),
                            {Symbol::Variable("x"), Symbol::Variable("w"), Symbol::Variable("b")});
  try {
    s.infer_shape({{"x", Shape{2, 3}}});
    ADD_FAILURE() << "no error";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("no subgraph"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace mxnet::sym
