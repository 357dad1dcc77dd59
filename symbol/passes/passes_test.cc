// Each graph pass on hand-made graphs (what it rewrites and what it must leave alone), and every
// pass preserving outputs on random conv/FC/BN/activation graphs (the optimized graph evaluated
// op by op with its constants bound, against the original graph).
#include "symbol/passes/passes.h"

#include <gtest/gtest.h>

#include "ndarray/ops/conv/conv_params.h"
#include "ndarray/testing/op_testing.h"
#include "symbol/passes/memory_plan.h"
#include "symbol/passes/testing/graph_testing.h"

namespace mxnet::sym::passes {
namespace {

using mxnet::testing::AllClose;
using mxnet::testing::RandomArray;
using sym::testing::Interpret;
using sym::testing::RandomConvGraph;

// Values of an optimized graph: the inputs plus the pass-made constants.
std::map<std::string, NDArray> WithConstants(const Graph& g, std::map<std::string, NDArray> v) {
  for (const auto& [k, c] : g.constants) v[k] = c;
  return v;
}

int CountOp(const Symbol& s, const std::string& op) {
  int n = 0;
  for (const auto& node : s.TopoNodes()) n += node->op && node->op->name == op;
  return n;
}

Graph InferenceGraph(const Symbol& s, const std::map<std::string, NDArray>& values) {
  Graph g = Graph::CopyOf(s);
  g.input_values = values;
  for (const auto& [k, v] : values) {
    g.input_shapes[k] = v.shape();
    g.input_types[k] = v.dtype();
  }
  return g;
}

void ExpectSameOutputs(const Symbol& original, const Graph& g,
                       const std::map<std::string, NDArray>& values, double rtol = 1e-4,
                       double atol = 1e-5) {
  auto want = Interpret(original, values);
  auto got = Interpret(g.symbol, WithConstants(g, values));
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_TRUE(AllClose(got[i], want[i], rtol, atol)) << "output " << i;
}

NDArray F32(const Shape& s, uint64_t seed, double lo = -1, double hi = 1) {
  return RandomArray(s, lo, hi, seed, DType::kFloat32);
}

// Every op node's string form (params, what JSON writes) parses to its parsed form (attrs), and
// the JSON of the graph carries the string form.
void ExpectParamsInStep(const Symbol& s) {
  for (const auto& n : s.TopoNodes()) {
    if (!n->op) continue;
    SCOPED_TRACE(StrCat(n->name, " (", n->op->name, ")"));
    OpAttrs parsed = OpAttrs::Parse(*n->op, n->params);
    EXPECT_TRUE(parsed == n->attrs) << parsed.Key() << " vs " << n->attrs.Key();
  }
}

// ---- Dead code. ----
TEST(DeadCodePass, BypassesIdentityOpsInInference) {
  Symbol x = var("x");
  Symbol y = Symbol::Create("Dropout", {x}, {{"p", "0.3"}});
  Symbol z = Symbol::Create("Activation", {Symbol::Create("_copy", {y})}, {{"act_type", "relu"}});
  std::map<std::string, NDArray> v{{"x", F32(Shape{4, 5}, 1)}};
  Graph g = InferenceGraph(z, v);
  PassResult r = DeadCodePass(g);
  EXPECT_EQ(r.nodes_before, 3);
  EXPECT_EQ(r.nodes_after, 1);
  EXPECT_EQ(r.removed, 2);
  EXPECT_NE(r.summary.find("1 Dropout"), std::string::npos) << r.summary;
  ExpectSameOutputs(z, g, v);
  // Training graphs keep them (Dropout is random there).
  Graph t = Graph::CopyOf(z);
  t.inference = false;
  EXPECT_EQ(DeadCodePass(t).removed, 0);
  // mode="always" drops in inference too: kept.
  Graph a = Graph::CopyOf(Symbol::Create("Dropout", {x}, {{"p", "0.3"}, {"mode", "always"}}));
  EXPECT_EQ(DeadCodePass(a).removed, 0);
}

TEST(DeadCodePass, NeverReturnsAnInputAsAnOutput) {
  Symbol x = var("x");
  Graph g = Graph::CopyOf(Symbol::Create("_copy", {x}));
  EXPECT_EQ(DeadCodePass(g).removed, 0);
}

TEST(DeadCodePass, ReportsUnusedHiddenOutputsAndInputs) {
  Symbol bn = Symbol::Create("BatchNorm", {var("x"), var("g"), var("b"), var("m"), var("v")});
  Graph g = Graph::CopyOf(bn);
  g.declared_inputs.push_back("gone");
  PassResult r = DeadCodePass(g);
  EXPECT_NE(r.summary.find("3 unused hidden outputs on 1 nodes"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("1 inputs no longer read (gone)"), std::string::npos) << r.summary;
}

// ---- Common subexpressions. ----
TEST(CommonSubexprPass, MergesEqualNodesUpTheGraph) {
  Symbol x = var("x"), y = var("y");
  Symbol a = Symbol::Create("Activation", {x}, {{"act_type", "tanh"}});
  Symbol b = Symbol::Create("Activation", {x}, {{"act_type", "tanh"}});
  Symbol c = Symbol::Create("Activation", {x}, {{"act_type", "relu"}});  // other attrs
  Symbol s1 = a + y, s2 = y + b;  // commutative: merged once a == b
  Symbol out = Symbol::Group({s1 * s2, c});
  std::map<std::string, NDArray> v{{"x", F32(Shape{3}, 1)}, {"y", F32(Shape{3}, 2)}};
  Graph g = InferenceGraph(out, v);
  PassResult r = CommonSubexprPass(g);
  EXPECT_EQ(r.nodes_before, 6);
  EXPECT_EQ(r.nodes_after, 4);
  EXPECT_EQ(r.removed, 2);
  ExpectSameOutputs(out, g, v, 0, 0);
}

TEST(CommonSubexprPass, NeverMergesRandomOrMutatingOps) {
  Symbol r1 = Symbol::Create("_random_uniform", {}, {{"shape", "(3,)"}});
  Symbol r2 = Symbol::Create("_random_uniform", {}, {{"shape", "(3,)"}});
  Symbol x = var("x"), ga = var("g"), be = var("b"), m = var("m"), vv = var("v");
  Symbol bn1 = Symbol::Create("BatchNorm", {x, ga, be, m, vv});
  Symbol bn2 = Symbol::Create("BatchNorm", {x, ga, be, m, vv});
  Graph g = Graph::CopyOf(Symbol::Group({r1 + r2, bn1 + bn2}));
  EXPECT_EQ(CommonSubexprPass(g).removed, 0);
  // Dropout: random in training, merged in inference (where it is an identity).
  Symbol d1 = Symbol::Create("Dropout", {x}, {{"p", "0.5"}});
  Symbol d2 = Symbol::Create("Dropout", {x}, {{"p", "0.5"}});
  Graph t = Graph::CopyOf(d1 + d2);
  t.inference = false;
  EXPECT_EQ(CommonSubexprPass(t).removed, 0);
  Graph i = Graph::CopyOf(d1 + d2);
  EXPECT_EQ(CommonSubexprPass(i).removed, 1);
}

// ---- Constant folding. ----
TEST(ConstantFoldingPass, FoldsSubgraphsWithoutInputs) {
  Symbol ones = Symbol::Create("_ones", {}, {{"shape", "(2, 3)"}});
  Symbol c = Symbol::Create("_mul_scalar", {ones + ones}, {{"scalar", "1.5"}});  // 3.0 everywhere
  Symbol x = var("x");
  Symbol out = Symbol::Group({x * c, c});
  std::map<std::string, NDArray> v{{"x", F32(Shape{2, 3}, 3)}};
  Graph g = InferenceGraph(out, v);
  PassResult r = ConstantFoldingPass(g);
  EXPECT_EQ(r.nodes_before, 4);
  EXPECT_EQ(r.nodes_after, 1);
  EXPECT_EQ(r.rewritten, 1);  // one constant, read by the product and the second output
  ASSERT_EQ(g.constants.size(), 1u);
  const NDArray& k = g.constants.begin()->second;
  EXPECT_EQ(k.shape(), Shape({2, 3}));
  EXPECT_EQ(k.ToVector<float>(), std::vector<float>(6, 3.0f));
  ExpectSameOutputs(out, g, v, 0, 0);
  // The constant is a plain variable with its shape and dtype, so the graph still infers.
  const Inferred& inf = g.inferred();
  EXPECT_EQ(inf.shapes[inf.graph.outputs[0]], Shape({2, 3}));
}

TEST(ConstantFoldingPass, LeavesRandomAndLargeAlone) {
  Symbol r = Symbol::Create("_random_uniform", {}, {{"shape", "(4,)"}});
  Graph g = Graph::CopyOf(r * 2.0);
  EXPECT_EQ(ConstantFoldingPass(g).rewritten, 0);
  Graph big = Graph::CopyOf(Symbol::Create("_zeros", {}, {{"shape", "(1000,)"}}) + var("x"));
  EXPECT_EQ(ConstantFoldingPass(big, {.max_bytes = 1000}).rewritten, 0);
  EXPECT_EQ(ConstantFoldingPass(big, {.max_bytes = 4000}).rewritten, 1);
}

// ---- BatchNorm folding. ----
Symbol ConvBn(const std::string& layout, bool bias, bool fix_gamma) {
  AttrDict ca{{"kernel", "(3, 3)"}, {"num_filter", "5"}, {"pad", "(1, 1)"}, {"layout", layout}};
  std::vector<Symbol> in{var("data"), var("w")};
  if (bias)
    in.push_back(var("b"));
  else
    ca["no_bias"] = "True";
  Symbol conv = Symbol::Create("Convolution", in, ca, "conv");
  AttrDict ba{{"eps", "1e-05"}, {"fix_gamma", fix_gamma ? "True" : "False"}};
  if (layout == "NHWC") ba["axis"] = "3";
  return Symbol::Create("BatchNorm", {conv, var("gamma"), var("beta"), var("mean"), var("var")}, ba,
                        "bn");
}

std::map<std::string, NDArray> ConvBnValues(bool nhwc) {
  return {{"data", F32(nhwc ? Shape{2, 6, 6, 3} : Shape{2, 3, 6, 6}, 1)},
          {"w", F32(nhwc ? Shape{5, 3, 3, 3} : Shape{5, 3, 3, 3}, 2, -0.3, 0.3)},
          {"b", F32(Shape{5}, 3)},
          {"gamma", F32(Shape{5}, 4, 0.5, 1.5)},
          {"beta", F32(Shape{5}, 5)},
          {"mean", F32(Shape{5}, 6)},
          {"var", F32(Shape{5}, 7, 0.5, 1.5)}};
}

TEST(BatchNormFoldingPass, FoldsIntoConvolution) {
  for (const char* layout : {"NCHW", "NHWC"})
    for (bool bias : {true, false})
      for (bool fix_gamma : {true, false}) {
        SCOPED_TRACE(StrCat(layout, " bias=", bias, " fix_gamma=", fix_gamma));
        Symbol s = ConvBn(layout, bias, fix_gamma);
        auto v = ConvBnValues(std::string(layout) == "NHWC");
        if (!bias) v.erase("b");
        Graph g = InferenceGraph(s, v);
        PassResult r = BatchNormFoldingPass(g);
        EXPECT_EQ(r.rewritten, 1) << r.summary;
        EXPECT_EQ(r.nodes_after, 1);
        EXPECT_EQ(CountOp(g.symbol, "BatchNorm"), 0);
        EXPECT_EQ(g.constants.size(), 2u);
        EXPECT_EQ(g.value_deps.count("gamma"), 1u);
        EXPECT_EQ(g.value_deps.count("w"), 1u);
        ExpectParamsInStep(g.symbol);
        ExpectSameOutputs(s, g, v);
      }
}

TEST(BatchNormFoldingPass, FoldsIntoFullyConnected) {
  Symbol fc =
      Symbol::Create("FullyConnected", {var("data"), var("w"), var("b")}, {{"num_hidden", "4"}});
  Symbol s = Symbol::Create("BatchNorm", {fc, var("gamma"), var("beta"), var("mean"), var("var")},
                            {{"fix_gamma", "False"}});
  std::map<std::string, NDArray> v{{"data", F32(Shape{3, 2, 5}, 1)}, {"w", F32(Shape{4, 10}, 2)},
                                   {"b", F32(Shape{4}, 3)},          {"gamma", F32(Shape{4}, 4)},
                                   {"beta", F32(Shape{4}, 5)},       {"mean", F32(Shape{4}, 6)},
                                   {"var", F32(Shape{4}, 7, 0.5, 2)}};
  Graph g = InferenceGraph(s, v);
  EXPECT_EQ(BatchNormFoldingPass(g).rewritten, 1);
  ExpectSameOutputs(s, g, v);
}

TEST(BatchNormFoldingPass, LeavesUnsafeCasesAlone) {
  auto v = ConvBnValues(false);
  // The conv output is read by someone else too.
  Symbol s = ConvBn("NCHW", true, false);
  Symbol conv = s.get_children()[0];
  {
    Graph g = InferenceGraph(Symbol::Group({s, conv}), v);
    EXPECT_EQ(BatchNormFoldingPass(g).rewritten, 0);
  }
  // Training graphs.
  {
    Graph g = InferenceGraph(s, v);
    g.inference = false;
    EXPECT_TRUE(BatchNormFoldingPass(g).skipped);
  }
  // Unknown parameter values.
  {
    Graph g = InferenceGraph(s, v);
    g.input_values.erase("var");
    PassResult r = BatchNormFoldingPass(g);
    EXPECT_EQ(r.rewritten, 0);
    EXPECT_NE(r.summary.find("parameter values unknown"), std::string::npos) << r.summary;
  }
  // The mean/var outputs are read.
  {
    Symbol bn =
        Symbol::Create("BatchNorm", {conv, var("gamma"), var("beta"), var("mean"), var("var")},
                       {{"output_mean_var", "True"}});
    Graph g = InferenceGraph(Symbol::Group({bn[0], bn[1]}), v);
    EXPECT_EQ(BatchNormFoldingPass(g).rewritten, 0);
  }
  // BatchNorm over another axis than the conv's channels.
  {
    Symbol bn = Symbol::Create(
        "BatchNorm", {conv, var("gamma"), var("beta"), var("mean"), var("var")}, {{"axis", "2"}});
    auto v6 = v;
    for (const char* k : {"gamma", "beta", "mean", "var"}) v6[k] = F32(Shape{6}, 1, 0.5, 1.5);
    Graph g = InferenceGraph(bn, v6);
    EXPECT_EQ(BatchNormFoldingPass(g).rewritten, 0);
  }
}

// ---- oneDNN fusion. ----
TEST(OneDnnFusionPass, FusesActivationAndResidualAdd) {
  Symbol x = var("data");
  auto conv = [&](const Symbol& in, const std::string& w, bool bias) {
    AttrDict a{{"kernel", "(3, 3)"}, {"num_filter", "3"}, {"pad", "(1, 1)"}};
    std::vector<Symbol> ins{in, var(w)};
    if (bias)
      ins.push_back(var(w + "_b"));
    else
      a["no_bias"] = "True";
    return Symbol::Create("Convolution", ins, a);
  };
  auto relu = [](const Symbol& s) {
    return Symbol::Create("Activation", {s}, {{"act_type", "relu"}});
  };
  Symbol y = relu(conv(x, "w1", true));
  Symbol z = relu(conv(y, "w2", false) + x);  // conv + add + relu
  Symbol fc = Symbol::Create("FullyConnected", {z, var("fw"), var("fb")}, {{"num_hidden", "4"}});
  Symbol out = Symbol::Create("Activation", {fc}, {{"act_type", "sigmoid"}});
  std::map<std::string, NDArray> v{{"data", F32(Shape{2, 3, 5, 5}, 1)},
                                   {"w1", F32(Shape{3, 3, 3, 3}, 2, -0.3, 0.3)},
                                   {"w1_b", F32(Shape{3}, 3)},
                                   {"w2", F32(Shape{3, 3, 3, 3}, 4, -0.3, 0.3)},
                                   {"fw", F32(Shape{4, 75}, 5, -0.1, 0.1)},
                                   {"fb", F32(Shape{4}, 6)}};
  Graph g = InferenceGraph(out, v);
  PassResult r = OneDnnFusionPass(g);
  EXPECT_EQ(r.nodes_before, 7);
  EXPECT_EQ(r.nodes_after, 3);
  EXPECT_EQ(r.removed, 7);
  EXPECT_EQ(r.added, 3);
  EXPECT_NE(r.summary.find("1 conv+add+relu"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("1 conv+relu"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("1 fc+sigmoid"), std::string::npos) << r.summary;
  EXPECT_EQ(CountOp(g.symbol, "_sg_onednn_conv"), 2);
  EXPECT_EQ(CountOp(g.symbol, "_sg_onednn_fully_connected"), 1);
  ExpectSameOutputs(out, g, v);
  // The fused graph prints as JSON and reads back.
  auto back = Symbol::fromjson(g.symbol.tojson());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(CountOp(*back, "_sg_onednn_conv"), 2);
}

TEST(OneDnnFusionPass, KeepsValuesOthersRead) {
  Symbol conv = Symbol::Create("Convolution", {var("data"), var("w"), var("b")},
                               {{"kernel", "(1, 1)"}, {"num_filter", "2"}});
  Symbol act = Symbol::Create("Activation", {conv}, {{"act_type", "relu"}});
  Graph g = Graph::CopyOf(Symbol::Group({act, conv}));  // the conv output is an output too
  EXPECT_EQ(OneDnnFusionPass(g).added, 0);
  Graph t = Graph::CopyOf(act);
  t.inference = false;
  EXPECT_TRUE(OneDnnFusionPass(t).skipped);
  // softsign has no oneDNN post-op.
  Graph s = Graph::CopyOf(Symbol::Create("Activation", {conv}, {{"act_type", "softsign"}}));
  EXPECT_EQ(OneDnnFusionPass(s).added, 0);
}

// clip(a_min <= a_max) right after a conv / FC is the eltwise_clip post-op (MobileNetV2's RELU6);
// an inverted range keeps clip's own ordering rule, so it stays a separate node.
TEST(OneDnnFusionPass, FusesClipAfterTheOp) {
  auto conv = [](const Symbol& in, const std::string& w) {
    return Symbol::Create("Convolution", {in, var(w), var(w + "_b")},
                          {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"pad", "(1, 1)"}});
  };
  auto clip = [](const Symbol& in, const char* lo, const char* hi) {
    return Symbol::Create("clip", {in}, {{"a_min", lo}, {"a_max", hi}});
  };
  Symbol y = clip(conv(var("data"), "w1"), "0", "6");   // RELU6
  Symbol z = clip(conv(y, "w2"), "-0.25", "0.75") + y;  // clip + add
  Symbol out = clip(conv(z, "w3"), "1", "0.5");         // inverted: not fused
  Symbol fc = Symbol::Create("FullyConnected", {out, var("fw"), var("fb")}, {{"num_hidden", "3"}});
  Symbol head = clip(fc, "-1", "1.5");
  // Inputs large enough that every clip cuts on both sides.
  std::map<std::string, NDArray> v{{"data", F32(Shape{2, 3, 6, 6}, 1, -3, 3)},
                                   {"w1", F32(Shape{4, 3, 3, 3}, 2)},
                                   {"w1_b", F32(Shape{4}, 3)},
                                   {"w2", F32(Shape{4, 4, 3, 3}, 4)},
                                   {"w2_b", F32(Shape{4}, 5)},
                                   {"w3", F32(Shape{4, 4, 3, 3}, 6)},
                                   {"w3_b", F32(Shape{4}, 7)},
                                   {"fw", F32(Shape{3, 144}, 8)},
                                   {"fb", F32(Shape{3}, 9)}};
  Graph g = InferenceGraph(head, v);
  PassResult r = OneDnnFusionPass(g);
  EXPECT_NE(r.summary.find("1 conv+clip,"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("1 conv+clip+add"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("1 fc+clip"), std::string::npos) << r.summary;
  EXPECT_EQ(CountOp(g.symbol, "_sg_onednn_conv"), 2);
  EXPECT_EQ(CountOp(g.symbol, "clip"), 1);  // the inverted one
  for (const auto& n : g.symbol.TopoNodes())
    if (n->op && n->op->name == "_sg_onednn_conv" && !n->params.count("with_sum")) {
      EXPECT_EQ(AttrString(*n, "act_type"), "clip");
      EXPECT_EQ(std::stof(n->params.at("act_min")), 0.f);
      EXPECT_EQ(std::stof(n->params.at("act_max")), 6.f);
    }
  // Fused (oneDNN eltwise_clip) against the separate ops, within 1e-5 relative.
  ExpectSameOutputs(head, g, v, 1e-5, 1e-5);
  auto back = Symbol::fromjson(g.symbol.tojson());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(CountOp(*back, "_sg_onednn_conv"), 2);
}

// ---- oneDNN channels-last chains. ----

// A MobileNetV2-style block: conv-BN-RELU6, depthwise conv-BN-RELU6, 1x1 conv-BN + residual,
// read by pooling and as a graph output.
Symbol InvertedResidual() {
  int k = 0;
  auto conv_bn = [&](const Symbol& in, int kernel, int groups) {
    const std::string p = StrCat("c", k++);
    Symbol c = Symbol::Create("Convolution", {in, var(p + "_w")},
                              {{"kernel", StrCat("(", kernel, ", ", kernel, ")")},
                               {"pad", kernel == 3 ? "(1, 1)" : "(0, 0)"},
                               {"num_filter", "8"},
                               {"num_group", StrCat(groups)},
                               {"no_bias", "True"}});
    return Symbol::Create("BatchNorm",
                          {c, var(p + "_g"), var(p + "_b"), var(p + "_m"), var(p + "_v")},
                          {{"fix_gamma", "False"}});
  };
  auto relu6 = [](const Symbol& s) {
    return Symbol::Create("clip", {s}, {{"a_min", "0"}, {"a_max", "6"}});
  };
  Symbol a = relu6(conv_bn(var("data"), 3, 1));
  Symbol b = relu6(conv_bn(a, 3, 8));
  Symbol c = Symbol::Create("elemwise_add", {conv_bn(b, 1, 1), a});
  Symbol pool = Symbol::Create(
      "Pooling", {c}, {{"global_pool", "True"}, {"pool_type", "avg"}, {"kernel", "(1, 1)"}});
  return Symbol::Group({pool, c});
}

std::map<std::string, NDArray> InvertedResidualValues() {
  std::map<std::string, NDArray> v{{"data", F32(Shape{2, 3, 6, 6}, 1, -2, 2)}};
  const Shape ws[] = {Shape{8, 3, 3, 3}, Shape{8, 1, 3, 3}, Shape{8, 8, 1, 1}};
  for (int k = 0; k < 3; ++k) {
    const std::string p = StrCat("c", k);
    v[p + "_w"] = F32(ws[k], 10 * k + 1);
    v[p + "_g"] = F32(Shape{8}, 10 * k + 2, 0.5, 2);
    v[p + "_b"] = F32(Shape{8}, 10 * k + 3);
    v[p + "_m"] = F32(Shape{8}, 10 * k + 4);
    v[p + "_v"] = F32(Shape{8}, 10 * k + 5, 0.5, 2);
  }
  return v;
}

TEST(OneDnnLayoutPass, ChainsOfFusedConvsRunChannelsLast) {
  Symbol s = InvertedResidual();
  auto v = InvertedResidualValues();
  for (bool fold : {true, false}) {
    SCOPED_TRACE(StrCat("fold_input_values=", fold));
    Graph g = InferenceGraph(s, v);
    auto results = RunPipeline(g, {.backend = "onednn", .fold_input_values = fold});
    const std::string report = FormatReport(results);
    EXPECT_NE(report.find("onednn_layout"), std::string::npos) << report;
    EXPECT_EQ(CountOp(g.symbol, "_sg_onednn_conv"), fold ? 3 : 0) << report;
    if (!fold) continue;  // BatchNorm stays unfolded: no fused convs, nothing to convert
    int nhwc = 0;
    for (const auto& n : g.symbol.TopoNodes())
      if (n->op && n->op->name == "_sg_onednn_conv") nhwc += AttrString(*n, "layout") == "NHWC";
    EXPECT_EQ(nhwc, 3) << report;
    // Transposes: the image in; the block's output back, once for both readers.
    EXPECT_EQ(CountOp(g.symbol, "transpose"), 2) << report;
    // Folding set no_bias, fusion made nodes, the layout pass set layout: string and parsed
    // forms agree, and the JSON says NHWC.
    ExpectParamsInStep(g.symbol);
    EXPECT_NE(g.symbol.tojson().find("\"layout\": \"NHWC\""), std::string::npos);
    ExpectSameOutputs(s, g, v, 1e-5, 1e-5);
  }
}

TEST(OneDnnLayoutPass, LeavesConvsWhoseWeightsAreNotConstants) {
  // Fused convs (relu post-op) whose weights are plain inputs: a channels-last chain would need a
  // weight transpose on every call.
  auto conv = [](const Symbol& in, const std::string& w) {
    Symbol c = Symbol::Create("Convolution", {in, var(w), var(w + "_b")},
                              {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"pad", "(1, 1)"}});
    return Symbol::Create("Activation", {c}, {{"act_type", "relu"}});
  };
  Symbol s = conv(conv(var("data"), "w1"), "w2");
  std::map<std::string, NDArray> v{{"data", F32(Shape{1, 4, 5, 5}, 1)},
                                   {"w1", F32(Shape{4, 4, 3, 3}, 2)},
                                   {"w1_b", F32(Shape{4}, 3)},
                                   {"w2", F32(Shape{4, 4, 3, 3}, 4)},
                                   {"w2_b", F32(Shape{4}, 5)}};
  Graph g = InferenceGraph(s, v);
  EXPECT_EQ(OneDnnFusionPass(g).added, 2);
  PassResult r = OneDnnLayoutPass(g);
  EXPECT_EQ(r.rewritten, 0) << r.summary;
  EXPECT_EQ(CountOp(g.symbol, "transpose"), 0) << r.summary;
  // A lone fused conv with a constant weight is left as it is too; so is a training graph.
  auto iv = InvertedResidualValues();
  Symbol one = Symbol::Create(
      "clip",
      {Symbol::Create(
          "BatchNorm",
          {Symbol::Create("Convolution", {var("data"), var("c0_w")},
                          {{"kernel", "(3, 3)"}, {"num_filter", "8"}, {"no_bias", "True"}}),
           var("c0_g"), var("c0_b"), var("c0_m"), var("c0_v")})},
      {{"a_min", "0"}, {"a_max", "6"}});
  Graph o = InferenceGraph(one, iv);
  RunPipeline(o, {.backend = "onednn"});
  EXPECT_EQ(CountOp(o.symbol, "_sg_onednn_conv"), 1);
  EXPECT_EQ(CountOp(o.symbol, "transpose"), 0);
  Graph t = InferenceGraph(s, v);
  t.inference = false;
  EXPECT_TRUE(OneDnnLayoutPass(t).skipped);
}

// ---- Every pass on random graphs. ----
TEST(Passes, EachPassPreservesOutputsOnRandomGraphs) {
  using PassFn = PassResult (*)(Graph&);
  const std::vector<std::pair<std::string, PassFn>> all = {
      {"infer", InferShapeTypePass}, {"dce", DeadCodePass},
      {"cse", CommonSubexprPass},    {"const", [](Graph& g) { return ConstantFoldingPass(g); }},
      {"bn", BatchNormFoldingPass},  {"fusion", OneDnnFusionPass},
  };
  std::map<std::string, int> changed;
  for (int seed = 0; seed < 12; ++seed) {
    auto rg = RandomConvGraph(seed, {.num_ops = 10});
    for (const auto& [name, fn] : all) {
      SCOPED_TRACE(StrCat("seed ", seed, " pass ", name));
      Graph g = InferenceGraph(rg.symbol, rg.values);
      PassResult r = fn(g);
      changed[name] += r.changed();
      EXPECT_EQ(r.nodes_after, CountOpNodes(g.symbol));
      ExpectSameOutputs(rg.symbol, g, rg.values);
    }
    SCOPED_TRACE(StrCat("seed ", seed, " pipeline"));
    Graph g = InferenceGraph(rg.symbol, rg.values);
    auto results = RunPipeline(g, {.backend = "onednn"});
    EXPECT_LT(CountOpNodes(g.symbol), CountOpNodes(rg.symbol)) << FormatReport(results);
    ExpectSameOutputs(rg.symbol, g, rg.values);
    // The planned memory of the optimized graph passes the independent check.
    MemoryPlan plan;
    MemoryPlanPass(g, &plan);
    const Inferred& inf = g.inferred();
    EXPECT_TRUE(VerifyMemoryPlan(inf.graph, inf.shapes, inf.types, plan).ok());
  }
  // The random graphs exercise every rewriting pass.
  for (const char* p : {"dce", "cse", "const", "bn", "fusion"}) EXPECT_GT(changed[p], 0) << p;
}

TEST(Passes, PipelineNamesAndTrainingSubset) {
  EXPECT_THROW(CheckBackendName("tensorrt"), Error);
  auto rg = RandomConvGraph(3);
  Graph g = InferenceGraph(rg.symbol, rg.values);
  EXPECT_TRUE(RunPipeline(g, {.backend = "none"}).empty());
  Graph t = InferenceGraph(rg.symbol, rg.values);
  t.inference = false;
  for (const auto& r : RunPipeline(t, {.backend = "onednn"}))
    EXPECT_TRUE(r.pass == "infer_shape_type" || r.pass == "dead_code" ||
                r.pass == "common_subexpression" || r.pass == "constant_folding")
        << r.pass;
  EXPECT_EQ(CountOp(t.symbol, "_sg_onednn_conv"), 0);
}

// ---- Editing node attributes (symbol/node_params.h). ----
TEST(NodeParams, SetParamUpdatesStringAndParsedForms) {
  Symbol conv =
      Symbol::Create("Convolution", {var("x"), var("w")},
                     {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"no_bias", "True"}}, "c0");
  Node* n = conv.outputs()[0].node.get();
  SetParam(n, "no_bias", "False");
  EXPECT_EQ(n->params.at("no_bias"), "False");
  EXPECT_FALSE(n->attrs.get<ops::ConvolutionParam>().no_bias);
  SetParam(n, "pad", "(1, 1)");
  EXPECT_EQ(n->attrs.get<ops::ConvolutionParam>().pad, (Shape{1, 1}));
  EXPECT_EQ(n->attrs.get<ops::ConvolutionParam>().num_filter, 4);  // the rest kept
  ExpectParamsInStep(conv);
  // The string form as given is what JSON writes ("no_bias" stays although False is the default).
  const std::string json = conv.tojson();
  EXPECT_NE(json.find("\"no_bias\": \"False\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"pad\": \"(1, 1)\""), std::string::npos) << json;

  SetParams(n, {{"kernel", "(1, 1)"}, {"num_filter", "2"}, {"no_bias", "True"}});
  EXPECT_EQ(n->params.size(), 3u);
  EXPECT_EQ(n->attrs.get<ops::ConvolutionParam>().kernel, (Shape{1, 1}));
  EXPECT_TRUE(n->attrs.get<ops::ConvolutionParam>().pad.ndim() == 0);  // replaced, not merged

  std::shared_ptr<Node> t =
      MakeOpNode(OpRegistry::Get("transpose"), "t0", {{"axes", "(0, 2, 3, 1)"}}, {n->inputs[0]});
  EXPECT_EQ(t->name, "t0");
  EXPECT_EQ(t->params.at("axes"), "(0, 2, 3, 1)");
  EXPECT_TRUE(OpAttrs::Parse(*t->op, t->params) == t->attrs);
}

TEST(NodeParams, BadValuesNameNodeOpAndKeyAndLeaveTheNodeAlone) {
  Symbol conv = Symbol::Create("Convolution", {var("x"), var("w")},
                               {{"kernel", "(3, 3)"}, {"num_filter", "4"}}, "c1");
  Node* n = conv.outputs()[0].node.get();
  const AttrDict before = n->params;
  const OpAttrs attrs_before = n->attrs;
  auto expect_error = [&](const std::string& key, const std::string& value,
                          std::vector<std::string> parts) {
    SCOPED_TRACE(key + "=" + value);
    try {
      SetParam(n, key, value);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
      for (const auto& p : parts)
        EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
    EXPECT_EQ(n->params, before);
    EXPECT_TRUE(n->attrs == attrs_before);
  };
  expect_error("no_bias", "maybe",
               {"node 'c1' (Convolution)", "no_bias='maybe'", "cannot parse", "boolean"});
  expect_error("layout", "NCHWX", {"node 'c1'", "layout='NCHWX'", "is not one of"});
  expect_error("kernal", "(3, 3)", {"node 'c1'", "unknown attribute 'kernal'"});
  expect_error("stride", "(1,)", {"node 'c1'", "stride=(1,)", "2 entries"});
  Symbol x = var("x");
  try {
    SetParam(x.outputs()[0].node.get(), "axis", "1");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node 'x' is a variable"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mxnet::sym::passes
