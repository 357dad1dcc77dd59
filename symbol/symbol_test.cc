#include "symbol/symbol.h"

#include <gtest/gtest.h>

#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "symbol/graph.h"

namespace mxnet::sym {
namespace {

class SymbolTest : public ::testing::Test {
 protected:
  void SetUp() override { NameManager::Reset(); }
};

TEST_F(SymbolTest, OperatorsNameNodesLikeMxnet) {
  Symbol x = var("x"), y = var("y");
  Symbol z = (x + y) * 2.0;
  EXPECT_EQ(z.name(), "_mulscalar0");
  EXPECT_EQ(z.get_children().name(), "_plus0");
  EXPECT_EQ(z.list_arguments(), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(z.list_outputs(), (std::vector<std::string>{"_mulscalar0_output"}));
  EXPECT_EQ(*z.attr("scalar"), "2.0");
  Symbol w = 1.0 - x;
  EXPECT_EQ(w.name(), "_rminusscalar0");
  {
    NameManager::Prefix p("net_");
    EXPECT_EQ((x * y).name(), "net__mul0");
  }
}

// Counters and prefixes belong to the current RuntimeContext (per thread by default).
TEST_F(SymbolTest, NamesAreCountedPerContext) {
  Symbol x = var("x");
  EXPECT_EQ((x * 2.0).name(), "_mulscalar0");
  RuntimeContext ctx;
  {
    ContextScope s(ctx);
    EXPECT_EQ((x * 2.0).name(), "_mulscalar0");  // ctx counts on its own
    NameManager::Prefix p("a_");
    EXPECT_EQ((x * 2.0).name(), "a__mulscalar1");
  }
  EXPECT_EQ((x * 2.0).name(), "_mulscalar1");  // the thread's counter, no prefix
  EXPECT_EQ(ctx.names.counters.at("_mulscalar"), 2);
  EXPECT_EQ(ctx.names.prefix, "");
}

// Two contexts used at once from two threads: each counts its own names, under its own prefix,
// and keeps its own recording flag, as if the other did not exist.
TEST_F(SymbolTest, ContextsOnTwoThreadsAreIndependent) {
  constexpr int kNames = 2000;
  RuntimeContext ctx[2];
  std::vector<std::string> names[2];
  int wrong_flag[2] = {0, 0};
  std::latch start(2);
  auto work = [&](int t) {
    ContextScope s(ctx[t]);
    NameManager::Prefix p(t == 0 ? "a_" : "b_");
    CurrentDispatchState().is_recording = t == 1;
    Symbol x = var("x");
    start.arrive_and_wait();
    for (int i = 0; i < kNames; ++i) {
      names[t].push_back((x * 2.0).name());
      if (CurrentDispatchState().is_recording != (t == 1)) ++wrong_flag[t];
    }
  };
  std::thread t0(work, 0), t1(work, 1);
  t0.join();
  t1.join();
  for (int t = 0; t < 2; ++t) {
    ASSERT_EQ(names[t].size(), static_cast<size_t>(kNames));
    for (int i = 0; i < kNames; ++i)
      ASSERT_EQ(names[t][i], StrCat(t == 0 ? "a_" : "b_", "_mulscalar", i)) << t;
    EXPECT_EQ(wrong_flag[t], 0) << t;
    EXPECT_EQ(ctx[t].names.counters.at("_mulscalar"), kNames);
    EXPECT_EQ(ctx[t].names.prefix, "");  // the Prefix scope ended
  }
  EXPECT_TRUE(ctx[1].dispatch.is_recording);
  EXPECT_FALSE(ctx[0].dispatch.is_recording);
  EXPECT_EQ((var("x") * 2.0).name(), "_mulscalar0");  // this thread's default counted nothing
}

TEST_F(SymbolTest, MissingInputsBecomeNamedVariables) {
  Symbol x = var("data");
  Symbol s = Symbol::Create("elemwise_add", {x}, {}, "add0");
  EXPECT_EQ(s.list_arguments(), (std::vector<std::string>{"data", "add0_rhs"}));
  EXPECT_THROW(Symbol::Create("elemwise_add", {x, x, x}), Error);
  EXPECT_THROW(Symbol::Create("no_such_op", {x}), Error);
  EXPECT_THROW(Symbol::Create("_plus_scalar", {x}, {{"scalar", "abc"}}), Error);
}

TEST_F(SymbolTest, GroupInternalsAndOutputLookup) {
  Symbol x = var("x");
  Symbol a = Symbol::Create("negative", {x}, {}, "neg");
  Symbol b = Symbol::Create("_copy", {a}, {}, "cp");
  Symbol g = Symbol::Group({a, b});
  EXPECT_EQ(g.list_outputs(), (std::vector<std::string>{"neg_output", "cp_output"}));
  Symbol internals = b.get_internals();
  EXPECT_EQ(internals.list_outputs(), (std::vector<std::string>{"x", "neg_output", "cp_output"}));
  EXPECT_EQ(internals["neg_output"].name(), "neg");
  EXPECT_THROW(internals["nope"], Error);
  EXPECT_THROW(g[5], Error);
}

TEST_F(SymbolTest, VariablesCarryHiddenAttributes) {
  Symbol w =
      var("w", {.shape = Shape{3, -1}, .dtype = DType::kFloat16, .lr_mult = 2.0, .init = "zeros"});
  EXPECT_EQ(*w.attr("__shape__"), "(3, -1)");
  EXPECT_EQ(*w.attr("__dtype__"), "2");
  EXPECT_EQ(*w.attr("__lr_mult__"), "2.0");
  EXPECT_EQ(*w.attr("__init__"), "zeros");
  std::string json = w.tojson();
  EXPECT_NE(json.find("\"(3, 0)\""), std::string::npos) << json;  // legacy form for MXNet 1.9
  Symbol back = *Symbol::fromjson(json);
  EXPECT_EQ(*back.attr("__shape__"), "(3, -1)");
}

TEST_F(SymbolTest, ShapeAndTypeInference) {
  Symbol x = var("x"), y = var("y");
  Symbol z = Symbol::Create("elemwise_add", {x * 2.0, y});
  auto r = z.infer_shape({{"x", Shape{2, 3}}});
  EXPECT_EQ(r.arg, (std::vector<Shape>{Shape{2, 3}, Shape{2, 3}}));  // y inferred backwards
  EXPECT_EQ(r.out, (std::vector<Shape>{Shape{2, 3}}));
  auto p = z.infer_shape_partial({});
  EXPECT_FALSE(p.out[0].ndim_known());
  EXPECT_THROW(z.infer_shape({}), Error);
  EXPECT_THROW(z.infer_shape({{"x", Shape{2, 3}}, {"y", Shape{3, 2}}}), Error);
  EXPECT_THROW(z.infer_shape({{"nope", Shape{1}}}), Error);
  auto t = z.infer_type({{"y", DType::kFloat64}});
  EXPECT_EQ(t.out[0], DTypeFlag(DType::kFloat64));
  EXPECT_EQ(t.arg[0], DTypeFlag(DType::kFloat64));
}

TEST_F(SymbolTest, ComposeSubstitutesInputs) {
  Symbol x = var("x");
  Symbol f = x * 3.0;
  Symbol a = var("a");
  Symbol g = f.compose({{"x", a + 1.0}});
  EXPECT_EQ(g.list_arguments(), (std::vector<std::string>{"a"}));
  EXPECT_EQ(f.list_arguments(), (std::vector<std::string>{"x"}));  // unchanged
  EXPECT_THROW(f.compose({{"zz", a}}), Error);
}

TEST_F(SymbolTest, JsonRoundTripPreservesGraph) {
  Symbol x = var("data"), y = var("w", {.lr_mult = 0.5});
  Symbol out = Symbol::Group({(x + y) / 4.0, -x});
  std::string json = out.tojson();
  auto back = Symbol::fromjson(json);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->tojson(), json);
  EXPECT_EQ(back->list_outputs(), out.list_outputs());
  EXPECT_NE(json.find("\"mxnet_version\""), std::string::npos);
  EXPECT_NE(json.find("\"node_row_ptr\""), std::string::npos);
  EXPECT_NE(json.find("\"op\": \"elemwise_add\""), std::string::npos);  // canonical name
}

// A hand-written pre-0.9 style file: "param" + "attr" keys, input pairs, alias op names, bare
// hidden keys, "<arg>_lr_mult" (docs/formats.md §3.3).
TEST_F(SymbolTest, ReadsLegacyJson) {
  const char* legacy = R"({
    "nodes": [
      {"op": "null", "name": "x", "param": {}, "inputs": [], "attr": {"lr_mult": "0.1"}},
      {"op": "null", "name": "y", "inputs": []},
      {"op": "_Plus", "name": "p", "param": {}, "inputs": [[0, 0], [1, 0]],
       "attr": {"ctx_group": "dev1", "rhs_lr_mult": "3"}},
      {"op": "_MulScalar", "name": "m", "param": {"scalar": "2"}, "attr": {"scalar": "5"},
       "inputs": [[2, 0]], "backward_source_id": -1}
    ],
    "arg_nodes": [0, 1],
    "heads": [[3, 0]]
  })";
  auto s = Symbol::fromjson(legacy);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s->attr("scalar"), "5");  // attr wins over param
  auto d = s->attr_dict();
  EXPECT_EQ(d["x"]["__lr_mult__"], "0.1");
  EXPECT_EQ(d["y"]["__lr_mult__"], "3");
  EXPECT_EQ(d["p"]["__ctx_group__"], "dev1");
  auto r = s->infer_shape({{"x", Shape{2}}, {"y", Shape{2}}});
  EXPECT_EQ(r.out[0], Shape({2}));
}

TEST_F(SymbolTest, MalformedJsonErrorsNameTheNode) {
  auto check = [](const std::string& json, const std::string& needle) {
    auto s = Symbol::fromjson(json);
    ASSERT_FALSE(s.ok()) << json;
    EXPECT_NE(std::string(s.status().message()).find(needle), std::string::npos) << s.status();
  };
  check("{", "not valid JSON");
  check(R"({"heads": []})", "nodes");
  check(R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
            {"op": "negative", "name": "n", "inputs": [[5, 0, 0]]}], "heads": [[1, 0, 0]]})",
        "node 1 ('n'): input refers to node 5");
  check(
      R"({"nodes": [{"op": "negative", "name": "self", "inputs": [[0, 0, 0]]}], "heads": [[0, 0, 0]]})",
      "cycle");
  check(R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
            {"op": "Frobnicate", "name": "f", "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]]})",
        "unknown operator 'Frobnicate'");
  check(R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
            {"op": "_plus_scalar", "name": "ps", "attrs": {"scalar": "two"}, "inputs": [[0, 0, 0]]}],
            "heads": [[1, 0, 0]]})",
        "node 1 ('ps')");
  check(R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
            {"op": "elemwise_add", "name": "a", "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]],
            "attrs": {"mxnet_version": ["int", 10901]}})",
        "takes 2 inputs");
  // Before 0.9 missing trailing inputs were implicit: they become variables (docs/formats.md
  // §3.3 step 3).
  auto old = Symbol::fromjson(R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "elemwise_add", "name": "a", "inputs": [[0, 0]]}], "heads": [[1, 0]]})");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->list_arguments(), (std::vector<std::string>{"x", "a_rhs"}));
  check(R"({"nodes": [{"op": "null", "name": "x", "inputs": []}], "heads": [[3, 0, 0]]})", "head");
}

// Inputs found by fuzzing (testdata/fuzz/): ~220-byte files declaring 2e9 inputs or outputs made
// fromjson list 2e9 input names, and inference allocate 2e9 shapes. Variadic inputs must be in
// the file, files before 0.9 may leave out at most 16 trailing inputs, and the outputs a file
// declares in all are bounded by its size (65536 + 16 per byte).
TEST_F(SymbolTest, FuzzReproducersAreClearErrors) {
  struct Case {
    const char* file;
    const char* expect;
  } cases[] = {
      {"concat_num_args_2e9.json", "operator Concat takes 2000000000 inputs, got 1"},
      {"concat_num_args_2e9_v0800.json", "operator Concat takes 2000000000 inputs, got 1"},
      {"slicechannel_num_outputs_2e9.json", "declares 2000000000 outputs"},
  };
  for (const Case& c : cases) {
    auto s = Symbol::load(std::string("symbol/testdata/fuzz/") + c.file);
    ASSERT_FALSE(s.ok()) << c.file;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << s.status();
    EXPECT_NE(std::string(s.status().message()).find(c.expect), std::string::npos) << s.status();
  }
  // Within the bounds: 1000 outputs of one node, a legacy BatchNorm with its 4 trailing inputs
  // left out (they become variables).
  auto many = Symbol::fromjson(R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "SliceChannel", "name": "s", "attrs": {"num_outputs": "1000"}, "inputs": [[0, 0, 0]]}],
      "heads": [[1, 999, 0]], "attrs": {"mxnet_version": ["int", 10901]}})");
  ASSERT_TRUE(many.ok()) << many.status();
  auto bn = Symbol::fromjson(R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "BatchNorm", "name": "bn0", "inputs": [[0, 0]]}], "heads": [[1, 0]]})");
  ASSERT_TRUE(bn.ok()) << bn.status();
  EXPECT_EQ(bn->list_arguments(), (std::vector<std::string>{"x", "bn0_gamma", "bn0_beta"}));
  EXPECT_EQ(bn->list_auxiliary_states(),
            (std::vector<std::string>{"bn0_moving_mean", "bn0_moving_var"}));
  auto too_many = Symbol::fromjson(R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "Concat", "name": "c", "attrs": {"num_args": "18"}, "inputs": [[0, 0]]}],
      "heads": [[1, 0]]})");
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(std::string(too_many.status().message()).find("takes 18 inputs"), std::string::npos)
      << too_many.status();
}

// Found by a generated input (a -symbol.json chain of 200,000 nodes): destroying the graph
// recursed once per node and overflowed the stack. Now iterative.
TEST_F(SymbolTest, DeepGraphsAreDestroyedWithoutRecursion) {
  Symbol x = var("x");
  Symbol y = x;
  for (int i = 0; i < 300000; ++i) y = y + 1.0;
  Symbol z = y * 2.0 + y;  // a shared node in the chain
  EXPECT_EQ(z.list_arguments(), (std::vector<std::string>{"x"}));
  y = x;  // drops one holder of the chain; z keeps it
  z = x;  // the 300,000-node chain is released here
  EXPECT_EQ(z.list_arguments(), (std::vector<std::string>{"x"}));
}

TEST_F(SymbolTest, IndexedGraphEntries) {
  Symbol x = var("x");
  Symbol y = x * 2.0 + x;
  IndexedGraph g(y);
  EXPECT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.num_entries, 3);
  EXPECT_EQ(g.input_nodes, (std::vector<int>{0}));
  EXPECT_EQ(g.outputs, (std::vector<int>{2}));
}

}  // namespace
}  // namespace mxnet::sym
