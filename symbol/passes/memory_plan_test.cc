// The memory planner against the independent verifier on random graphs (several sizes,
// multi-output ops, in-place candidates), and the verifier catching broken plans.
#include "symbol/passes/memory_plan.h"

#include <random>

#include <gtest/gtest.h>

#include "symbol/passes/passes.h"
#include "symbol/passes/testing/graph_testing.h"

namespace mxnet::sym::passes {
namespace {

struct Planned {
  Graph graph;
  MemoryPlan plan;
  const Inferred* inf = nullptr;
};

Planned PlanOf(const Symbol& s, const std::map<std::string, Shape>& shapes, bool reuse = true) {
  Planned p;
  p.graph = Graph::CopyOf(s);
  p.graph.input_shapes = shapes;
  for (const auto& [k, v] : shapes) p.graph.input_types[k] = DType::kFloat32;
  MemoryPlanPass(p.graph, &p.plan, {.reuse = reuse});
  p.inf = &p.graph.inferred();
  return p;
}

absl::Status Verify(const Planned& p) {
  return VerifyMemoryPlan(p.inf->graph, p.inf->shapes, p.inf->types, p.plan);
}

// Random DAGs over values of a few sizes: elementwise ops (in-place candidates), scalar ops,
// reductions to other sizes, SliceChannel (several outputs, some unused) and Concat.
Symbol RandomGraph(std::mt19937& gen, std::map<std::string, Shape>* shapes) {
  std::vector<std::pair<Symbol, int64_t>> vals;  // symbol, its row count (shape (rows, 4))
  int nin = 1 + gen() % 3;
  for (int i = 0; i < nin; ++i) {
    std::string n = "in" + std::to_string(i);
    int64_t rows = 2 << (gen() % 3);
    (*shapes)[n] = Shape{rows, 4};
    vals.push_back({var(n), rows});
  }
  int nops = 4 + gen() % 20;
  for (int k = 0; k < nops; ++k) {
    auto [a, ra] = vals[gen() % vals.size()];
    switch (gen() % 6) {
      case 0: {  // same-size binary op with a partner of the same rows, if any
        std::vector<Symbol> same;
        for (const auto& [s, r] : vals)
          if (r == ra) same.push_back(s);
        Symbol b = same[gen() % same.size()];
        vals.push_back({gen() % 2 ? a + b : a * b, ra});
        break;
      }
      case 1:
        vals.push_back({gen() % 2 ? a * 0.5 : -a, ra});
        break;
      case 2:
        vals.push_back({Symbol::Create("Activation", {a}, {{"act_type", "relu"}}), ra});
        break;
      case 3:
        if (ra >= 2) {
          Symbol parts = Symbol::Create("SliceChannel", {a}, {{"num_outputs", "2"}, {"axis", "0"}});
          vals.push_back({parts[gen() % 2], ra / 2});
          break;
        }
        [[fallthrough]];
      case 4: {
        Symbol c = Symbol::Create("Concat", {a, a}, {{"num_args", "2"}, {"dim", "0"}});
        vals.push_back({c, ra * 2});
        break;
      }
      default:
        vals.push_back({Symbol::Create("Activation", {a}, {{"act_type", "tanh"}}), ra});
    }
  }
  std::vector<Symbol> outs{vals.back().first};
  if (gen() % 2) outs.push_back(vals[nin + gen() % nops].first);
  return Symbol::Group(outs);
}

TEST(MemoryPlan, RandomGraphsPassTheVerifier) {
  std::mt19937 gen(5);
  int64_t planned = 0, naive = 0;
  int inplace = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::map<std::string, Shape> shapes;
    Symbol s = RandomGraph(gen, &shapes);
    Planned p = PlanOf(s, shapes);
    absl::Status st = Verify(p);
    ASSERT_TRUE(st.ok()) << "trial " << trial << ": " << st;
    EXPECT_LE(p.plan.stats.planned_bytes, p.plan.stats.naive_bytes + 8 * p.plan.stats.num_buffers);
    planned += p.plan.stats.planned_bytes;
    naive += p.plan.stats.naive_bytes;
    inplace += p.plan.stats.num_inplace;
    // Without reuse: one buffer per value, and still valid.
    Planned q = PlanOf(s, shapes, false);
    EXPECT_TRUE(Verify(q).ok());
    EXPECT_EQ(q.plan.stats.num_buffers, q.plan.stats.num_values);
  }
  EXPECT_LT(planned, naive);
  EXPECT_GT(inplace, 0);
}

TEST(MemoryPlan, RandomConvGraphsAfterPassesPassTheVerifier) {
  for (int seed = 0; seed < 20; ++seed) {
    auto rg = testing::RandomConvGraph(100 + seed, {.num_ops = 14});
    Graph g = Graph::CopyOf(rg.symbol);
    g.input_values = rg.values;
    RunPipeline(g, {.backend = seed % 2 ? "onednn" : "default"});
    MemoryPlan plan;
    PassResult r = MemoryPlanPass(g, &plan);
    const Inferred& inf = g.inferred();
    absl::Status st = VerifyMemoryPlan(inf.graph, inf.shapes, inf.types, plan);
    EXPECT_TRUE(st.ok()) << "seed " << seed << ": " << st << "\n" << r.summary;
  }
}

Symbol Chain() {
  Symbol s = var("x");
  for (int i = 0; i < 4; ++i) s = Symbol::Create("Activation", {s * 2.0}, {{"act_type", "relu"}});
  return s;
}

TEST(MemoryPlan, VerifierCatchesBrokenPlans) {
  Planned p = PlanOf(Chain(), {{"x", Shape{16}}});
  ASSERT_TRUE(Verify(p).ok());
  EXPECT_GT(p.plan.stats.num_inplace, 0);
  const IndexedGraph& g = p.inf->graph;
  // A declared in-place handover is accepted: relu(x*2) may take x*2's buffer.
  {
    Symbol a = var("x") * 2.0;
    Symbol b = Symbol::Create("Activation", {a}, {{"act_type", "relu"}});
    Planned q = PlanOf(b * 3.0, {{"x", Shape{16}}}, false);
    const IndexedGraph& gq = q.inf->graph;
    int ea = -1, eb = -1;
    for (size_t n = 0; n < gq.nodes.size(); ++n) {
      if (!gq.nodes[n]->op) continue;
      if (gq.nodes[n]->op->name == "Activation") eb = gq.EntryId(static_cast<int>(n), 0);
      if (gq.nodes[n]->op->name == "_mul_scalar" && ea < 0) ea = gq.EntryId(static_cast<int>(n), 0);
    }
    MemoryPlan m = q.plan;
    m.slot[eb] = m.slot[ea];
    EXPECT_TRUE(VerifyMemoryPlan(gq, q.inf->shapes, q.inf->types, m).ok());
  }
  // The same sharing while x*2 is still read later (by the add) is an overlap.
  {
    Symbol a = var("x") * 2.0;
    Symbol b = Symbol::Create("Activation", {a}, {{"act_type", "relu"}});
    Planned q = PlanOf((a + b) * 3.0, {{"x", Shape{16}}}, false);
    const IndexedGraph& gq = q.inf->graph;
    int ea = -1, eb = -1;
    for (size_t n = 0; n < gq.nodes.size(); ++n) {
      if (!gq.nodes[n]->op) continue;
      if (gq.nodes[n]->op->name == "Activation") eb = gq.EntryId(static_cast<int>(n), 0);
      if (gq.nodes[n]->op->name == "_mul_scalar" && ea < 0) ea = gq.EntryId(static_cast<int>(n), 0);
    }
    MemoryPlan m = q.plan;
    m.slot[eb] = m.slot[ea];
    absl::Status st = VerifyMemoryPlan(gq, q.inf->shapes, q.inf->types, m);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(std::string(st.message()).find("at the same time"), std::string::npos) << st;
  }
  // An external value (graph input or output) with a buffer.
  {
    MemoryPlan bad = p.plan;
    bad.slot[g.outputs[0]] = 0;
    absl::Status st = VerifyMemoryPlan(g, p.inf->shapes, p.inf->types, bad);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(std::string(st.message()).find("external"), std::string::npos) << st;
  }
  // A buffer too small.
  {
    MemoryPlan bad = p.plan;
    bad.slot_bytes[0] = 4;
    absl::Status st = VerifyMemoryPlan(g, p.inf->shapes, p.inf->types, bad);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(std::string(st.message()).find("needs 64 bytes"), std::string::npos) << st;
  }
  // Two outputs of one node in one buffer.
  {
    Symbol parts = Symbol::Create("SliceChannel", {var("x") * 2.0}, {{"num_outputs", "2"}});
    Planned s = PlanOf(parts[0] + parts[1], {{"x", Shape{2, 4}}});
    ASSERT_TRUE(Verify(s).ok());
    MemoryPlan bad = s.plan;
    const IndexedGraph& gs = s.inf->graph;
    for (size_t n = 0; n < gs.nodes.size(); ++n)
      if (gs.nodes[n]->op && gs.nodes[n]->op->name == "SliceChannel")
        bad.slot[gs.EntryId(static_cast<int>(n), 1)] = bad.slot[gs.EntryId(static_cast<int>(n), 0)];
    EXPECT_FALSE(VerifyMemoryPlan(gs, s.inf->shapes, s.inf->types, bad).ok());
  }
}

}  // namespace
}  // namespace mxnet::sym::passes
