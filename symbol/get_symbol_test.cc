// autograd::get_symbol: graph structure vs real MXNet 1.9.1 (testdata/get_symbol.json, from
// tools/conformance/gen_autograd_symbol_refs.py), and the result is usable: infer_shape, JSON
// round trip, and a CachedOp bound to the recorded inputs recomputes the array.
#include "symbol/get_symbol.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "autograd/autograd.h"
#include "ndarray/ops/conv/conv_api.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/elemwise/elemwise_api.h"
#include "ndarray/ops/nn/nn_api.h"
#include "ndarray/ops/reduce/reduce_api.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/testing/op_testing.h"
#include "symbol/executor.h"

namespace mxnet::autograd {
namespace {

using json = nlohmann::json;
using testing::AllClose;

NDArray Rand(Shape s, uint64_t seed) {
  return testing::RandomArray(s, -1, 1, seed, DType::kFloat32);
}

NDArray Var(Shape s, uint64_t seed) {
  NDArray a = Rand(s, seed);
  a.attach_grad();
  return a;
}

// ---- The cases of gen_autograd_symbol_refs.py, recorded the same way (random values). ----
// `keep` holds the inputs: get_symbol_with_inputs only returns arrays that are still alive.
struct Case {
  NDArray y;
  std::vector<NDArray> keep;
  bool train = false;  // the recorded ops ran in training mode (BatchNorm batch statistics)
};

Case Chain() {
  NDArray x = Var({2, 3}, 1);
  auto rec = record();
  return {nd::relu(nd::plus_scalar(nd::mul_scalar(x, 2.0), 1.0)), {x}};
}

Case SplitFc() {
  NDArray x = Var({2, 3}, 2), w = Var({4, 3}, 3), c = Rand({2, 3}, 4), ones = Rand({1, 4}, 5);
  auto rec = record();
  NDArray a = nd::broadcast_add(x, c);
  NDArrayVec parts = nd::split(a, 3, 1);
  NDArray z = nd::broadcast_add(nd::broadcast_mul(parts[2], parts[0]), c);
  NDArray f = nd::FullyConnected(z, w, {.num_hidden = 4});
  return {nd::broadcast_add(f, ones), {x, w, c, ones}};
}

Case SplitHead() {
  NDArray x = Var({2, 6}, 6);
  auto rec = record();
  return {nd::split(nd::exp(x), 3, 1)[1], {x}};
}

Case SharedVar() {
  NDArray x = Var({3}, 7);
  auto rec = record();
  NDArray z = nd::elemwise_add(x, x);
  return {nd::elemwise_mul(z, x), {x}};
}

Case FcBias() {
  NDArray d = Rand({3, 5}, 8), w = Var({2, 5}, 9), b = Var({2}, 10);
  auto rec = record();
  return {nd::sum(nd::FullyConnected(d, w, b, {.num_hidden = 2}), 1), {d, w, b}};
}

Case BatchNormCase() {
  NDArray x = Var({2, 3, 4}, 11), gamma = Var({3}, 12), beta = Var({3}, 13);
  NDArray mean = NDArray::Full({3}, 0.0), var = NDArray::Full({3}, 1.0);
  auto rec = record();
  return {nd::BatchNorm(x, gamma, beta, mean, var, {.eps = 1e-5, .fix_gamma = false}),
          {x, gamma, beta, mean, var},
          true};
}

const std::map<std::string, std::function<Case()>>& Cases() {
  static const auto* cases = new std::map<std::string, std::function<Case()>>{
      {"chain", Chain},          {"split_fc", SplitFc}, {"split_head", SplitHead},
      {"shared_var", SharedVar}, {"fc_bias", FcBias},   {"batchnorm", BatchNormCase},
  };
  return *cases;
}

// "var12" -> {"var", 12}; "node_3" -> {"node_", 3}.
std::pair<std::string, int64_t> SplitName(const std::string& name) {
  size_t k = name.find_first_of("0123456789");
  EXPECT_NE(k, std::string::npos) << name;
  if (k == std::string::npos) return {name, -1};
  return {name.substr(0, k), std::stoll(name.substr(k))};
}

// Per node: its name's kind and the rank of its number among the nodes of that kind (MXNet's
// numbers are process-wide counters; only their order is comparable).
std::vector<std::pair<std::string, int>> NameRanks(const json& nodes) {
  std::map<std::string, std::vector<int64_t>> by_kind;
  for (const json& n : nodes) {
    auto [kind, num] = SplitName(n["name"].get<std::string>());
    by_kind[kind].push_back(num);
  }
  for (auto& [k, v] : by_kind) std::sort(v.begin(), v.end());
  std::vector<std::pair<std::string, int>> out;
  for (const json& n : nodes) {
    auto [kind, num] = SplitName(n["name"].get<std::string>());
    const auto& v = by_kind[kind];
    out.push_back({kind, static_cast<int>(std::lower_bound(v.begin(), v.end(), num) - v.begin())});
  }
  return out;
}

AttrDict Attrs(const json& node) {
  AttrDict d;
  if (node.contains("attrs"))
    for (const auto& [k, v] : node["attrs"].items()) d[k] = v.get<std::string>();
  return d;
}

void ExpectSameGraph(const json& ours, const json& ref) {
  const json& on = ours["nodes"];
  const json& rn = ref["nodes"];
  ASSERT_EQ(on.size(), rn.size()) << ours.dump(1);
  auto oranks = NameRanks(on), rranks = NameRanks(rn);
  for (size_t i = 0; i < rn.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "node " << i << " " << rn[i]["name"]);
    std::string op = rn[i]["op"].get<std::string>();
    EXPECT_EQ(on[i]["op"], op);
    EXPECT_EQ(oranks[i], rranks[i]) << on[i]["name"];
    EXPECT_EQ(on[i]["inputs"], rn[i]["inputs"]);
    if (op != "null" && on[i]["op"] == op) {
      // Attribute strings may differ in form (MXNet keeps what Python passed; we print the
      // required ones and non-defaults): compare them parsed.
      const Op& o = OpRegistry::Get(op);
      EXPECT_TRUE(OpAttrs::Parse(o, Attrs(on[i])) == OpAttrs::Parse(o, Attrs(rn[i])))
          << on[i].dump() << " vs " << rn[i].dump();
    }
  }
  EXPECT_EQ(ours["arg_nodes"], ref["arg_nodes"]);
  // Outputs per node. Known difference: our BatchNorm has a fourth, hidden output (batch_stats,
  // ndarray/ops/nn/nn_norm.cc); MXNet's has three.
  const json& orow = ours["node_row_ptr"];
  const json& rrow = ref["node_row_ptr"];
  ASSERT_EQ(orow.size(), rrow.size());
  for (size_t i = 0; i + 1 < rrow.size(); ++i) {
    int extra = rn[i]["op"] == "BatchNorm" ? 1 : 0;
    EXPECT_EQ(orow[i + 1].get<int>() - orow[i].get<int>(),
              rrow[i + 1].get<int>() - rrow[i].get<int>() + extra)
        << "outputs of node " << i << " " << rn[i]["op"];
  }
  EXPECT_EQ(ours["heads"], ref["heads"]);
}

TEST(GetSymbolConformance, GraphsMatchMxnet) {
  std::ifstream f("symbol/testdata/get_symbol.json");
  ASSERT_TRUE(f.good()) << "missing symbol/testdata/get_symbol.json";
  json doc = json::parse(f);
  ASSERT_EQ(doc["cases"].size(), Cases().size());
  for (const auto& [name, make] : Cases()) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(doc["cases"].contains(name));
    Case c = make();
    json ours = json::parse(get_symbol(c.y).tojson());
    ExpectSameGraph(ours, doc["cases"][name]);
  }
}

// The inputs in list_inputs() order, from get_symbol_with_inputs.
std::vector<NDArray> BindInputs(const RecordedSymbol& r) {
  std::vector<NDArray> in;
  for (const std::string& n : r.symbol.list_inputs()) {
    auto it = r.inputs.find(n);
    EXPECT_NE(it, r.inputs.end()) << "no value for input " << n;
    in.push_back(it != r.inputs.end() ? it->second : NDArray());
  }
  return in;
}

TEST(GetSymbol, CachedOpRecomputesTheArray) {
  for (const auto& [name, make] : Cases()) {
    SCOPED_TRACE(name);
    Case c = make();
    RecordedSymbol r = get_symbol_with_inputs(c.y);
    std::vector<NDArray> in = BindInputs(r);
    // infer_shape from the input shapes gives x's shape.
    std::map<std::string, Shape> known;
    std::vector<std::string> names = r.symbol.list_inputs();
    for (size_t i = 0; i < names.size(); ++i) known[names[i]] = in[i].shape();
    auto shapes = r.symbol.infer_shape(known);
    ASSERT_EQ(shapes.out.size(), 1u);
    EXPECT_EQ(shapes.out[0], c.y.shape());
    for (std::string opts : {"", "default"}) {
      SCOPED_TRACE(opts);
      sym::CachedOp op(r.symbol, {.backend = opts});
      NDArrayVec out = op.Forward(in, c.train);
      ASSERT_EQ(out.size(), 1u);
      EXPECT_TRUE(AllClose(out[0], c.y, 1e-5, 1e-6));
    }
    // Valid MXNet JSON that loads back into the same graph.
    std::string text = r.symbol.tojson();
    ASSERT_TRUE(json::accept(text));
    auto back = sym::Symbol::fromjson(text);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->tojson(), text);
  }
}

TEST(GetSymbol, NamesAndKinds) {
  NDArray x = Var({2, 2}, 20);
  NDArray c = Rand({2, 2}, 21);
  NDArray y;
  {
    auto rec = record();
    NDArray a = nd::elemwise_mul(x, c);
    y = nd::elemwise_add(a, c);  // c read twice: one variable
  }
  sym::Symbol s = get_symbol(y);
  std::vector<std::string> args = s.list_arguments();
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(SplitName(args[0]).first, "var");
  EXPECT_EQ(SplitName(args[1]).first, "null");
  EXPECT_EQ(SplitName(s.name()).first, "node_");
  EXPECT_EQ(s.list_outputs(), std::vector<std::string>{s.name() + "_output"});
  // Stable across calls; the intermediate keeps its name in the larger graph.
  EXPECT_EQ(get_symbol(y).tojson(), s.tojson());
  auto internals = s.get_internals().list_outputs();
  EXPECT_EQ(internals.size(), 4u);
  // A variable alone is its variable.
  sym::Symbol v = get_symbol(x);
  EXPECT_EQ(v.list_arguments(), std::vector<std::string>{args[0]});
  EXPECT_TRUE(v.outputs()[0].node->is_variable());
  // The inputs map holds the arrays themselves.
  RecordedSymbol r = get_symbol_with_inputs(y);
  EXPECT_TRUE(r.inputs.at(args[0]).is_same(x));
  EXPECT_TRUE(r.inputs.at(args[1]).is_same(c));
}

TEST(GetSymbol, MultiOutputHeadIndex) {
  NDArray x = Var({2, 4}, 30);
  NDArrayVec parts;
  {
    auto rec = record();
    parts = nd::split(x, 2, 1);
  }
  for (int k = 0; k < 2; ++k) {
    RecordedSymbol r = get_symbol_with_inputs(parts[k]);
    ASSERT_EQ(r.symbol.outputs().size(), 1u);
    EXPECT_EQ(r.symbol.outputs()[0].index, k);
    EXPECT_EQ(r.symbol.outputs()[0].node->op->name, "SliceChannel");
    sym::CachedOp op(r.symbol);
    EXPECT_TRUE(AllClose(op.Forward(BindInputs(r), false)[0], parts[k]));
  }
}

TEST(GetSymbol, FreedConstantHasNoValue) {
  NDArray x = Var({3}, 40);
  NDArray y;
  {
    auto rec = record();
    y = nd::broadcast_mul(x, Rand({3}, 41));  // the constant dies here
  }
  RecordedSymbol r = get_symbol_with_inputs(y);
  std::vector<std::string> args = r.symbol.list_arguments();
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(r.inputs.count(args[0]), 1u);
  EXPECT_EQ(r.inputs.count(args[1]), 0u);
  auto shapes = r.symbol.infer_shape({{args[0], Shape{3}}, {args[1], Shape{3}}});
  EXPECT_EQ(shapes.out[0], Shape{3});
}

void ExpectError(const std::function<void()>& f, absl::StatusCode code, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing '" << text << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(GetSymbol, Errors) {
  NDArray plain = Rand({2}, 50);
  ExpectError([&] { get_symbol(plain); }, absl::StatusCode::kFailedPrecondition,
              "not part of a computation graph");
  ExpectError([&] { get_symbol(NDArray()); }, absl::StatusCode::kFailedPrecondition,
              "not part of a computation graph");
  // Recorded from constants only: nothing was recorded.
  NDArray y;
  {
    auto rec = record();
    y = nd::relu(plain);
  }
  ExpectError([&] { get_symbol(y); }, absl::StatusCode::kFailedPrecondition,
              "not part of a computation graph");
  // backward without retain_graph frees the history (MXNet clears it too).
  NDArray x = Var({2}, 51);
  {
    auto rec = record();
    y = nd::relu(nd::mul_scalar(x, 3.0));
  }
  NDArray y2;
  {
    auto rec = record();
    y2 = nd::relu(nd::mul_scalar(x, 3.0));
  }
  backward({y2}, {}, /*retain_graph=*/true);
  EXPECT_NO_THROW(get_symbol(y2));
  backward({y});
  ExpectError([&] { get_symbol(y); }, absl::StatusCode::kFailedPrecondition, "freed by backward");

  // A custom Function has no operator to name.
  struct Square : Function {
    std::vector<NDArray> forward(const std::vector<NDArray>& in) override {
      save_for_backward(in);
      return {nd::elemwise_mul(in[0], in[0])};
    }
    std::vector<NDArray> backward(const std::vector<NDArray>& og) override {
      return {nd::mul_scalar(nd::elemwise_mul(og[0], saved_tensors()[0]), 2.0)};
    }
  };
  NDArray z;
  {
    auto rec = record();
    z = nd::relu((*std::make_shared<Square>())({x})[0]);
  }
  ExpectError([&] { get_symbol(z); }, absl::StatusCode::kUnimplemented, "autograd::Function");
}

}  // namespace
}  // namespace mxnet::autograd
