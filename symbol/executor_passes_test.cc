// CachedOp with pass pipelines ("default", "onednn") against op-by-op imperative execution on
// random graphs of conv/FC/activation/BN/add ops: inference, training-mode forward, gradients,
// re-optimization when folded parameters change, memory plans checked by the verifier.
#include <thread>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "ndarray/testing/op_testing.h"
#include "symbol/executor.h"
#include "symbol/passes/testing/graph_testing.h"

namespace mxnet::sym {
namespace {

using mxnet::testing::AllClose;
using mxnet::testing::RandomArray;
using testing::CopyValues;
using testing::InputsFor;
using testing::Interpret;
using testing::RandomConvGraph;

const char* const kBackends[] = {"", "default", "onednn"};

TEST(CachedOpPasses, RandomGraphsMatchImperativeInInference) {
  int fewer_nodes = 0;
  for (int seed = 0; seed < 24; ++seed) {
    auto rg = RandomConvGraph(seed, {.num_ops = 12});
    auto want = Interpret(rg.symbol, rg.values);
    for (const char* backend : kBackends) {
      SCOPED_TRACE(StrCat("seed ", seed, " backend '", backend, "'"));
      CachedOp op(rg.symbol, {.static_alloc = seed % 2 == 0, .backend = backend});
      for (int rep = 0; rep < 2; ++rep) {
        NDArrayVec got = op(InputsFor(op, rg.values));
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) {
          if (*backend)
            EXPECT_TRUE(AllClose(got[i], want[i], 1e-4, 1e-5)) << "output " << i;
          else
            EXPECT_TRUE(AllClose(got[i], want[i], 0, 0)) << "output " << i;
        }
      }
      absl::Status st = op.verify_memory_plan();
      EXPECT_TRUE(st.ok()) << st;
      CompileReport rep = op.last_report();
      EXPECT_TRUE(rep.inference || !*backend);
      if (std::string(backend) == "onednn") fewer_nodes += rep.nodes_after < rep.nodes_before;
    }
  }
  EXPECT_EQ(fewer_nodes, 24);
}

TEST(CachedOpPasses, TrainingModeRunsOnlySemanticsPreservingPasses) {
  for (int seed = 0; seed < 8; ++seed) {
    SCOPED_TRACE(StrCat("seed ", seed));
    auto rg = RandomConvGraph(50 + seed, {.dropout = false});
    auto ref_values = CopyValues(rg.values);
    auto want = Interpret(rg.symbol, ref_values, /*is_train=*/true);
    CachedOp op(rg.symbol, {.backend = "onednn"});
    auto exec_values = CopyValues(rg.values);
    NDArrayVec got = op.Forward(InputsFor(op, exec_values), /*is_train=*/true);
    for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(AllClose(got[i], want[i], 1e-4, 1e-5));
    // BatchNorm updated the moving statistics the same way.
    for (const auto& name : rg.symbol.list_auxiliary_states())
      EXPECT_TRUE(AllClose(exec_values[name], ref_values[name], 1e-5, 1e-6)) << name;
    CompileReport rep = op.last_report();
    EXPECT_FALSE(rep.inference);
    for (const auto& r : rep.passes)
      EXPECT_TRUE(r.pass != "batchnorm_folding" && r.pass != "onednn_fusion") << r.pass;
  }
}

TEST(CachedOpPasses, GradientsMatchTheUnoptimizedGraph) {
  for (int seed = 0; seed < 6; ++seed) {
    SCOPED_TRACE(StrCat("seed ", seed));
    auto rg =
        RandomConvGraph(70 + seed, {.num_ops = 8, .dtype = DType::kFloat64, .dropout = false});
    auto grads = [&](const std::string& backend) {
      CachedOp op(rg.symbol, {.backend = backend});
      auto values = CopyValues(rg.values);
      auto aux = rg.symbol.list_auxiliary_states();
      std::vector<NDArray> in = InputsFor(op, values);
      for (size_t i = 0; i < in.size(); ++i)
        if (std::find(aux.begin(), aux.end(), op.input_names()[i]) == aux.end())
          in[i].attach_grad();
      NDArrayVec out;
      {
        auto r = autograd::record();
        out = op(in);
      }
      autograd::backward(std::vector<NDArray>(out.begin(), out.end()));
      std::vector<NDArray> g;
      for (auto& a : in) g.push_back(a.grad_req() == GradReq::kNull ? NDArray() : a.grad());
      return g;
    };
    auto plain = grads(""), optimized = grads("onednn");
    for (size_t i = 0; i < plain.size(); ++i) {
      if (!plain[i].is_none()) {
        EXPECT_TRUE(AllClose(optimized[i], plain[i], 1e-9, 1e-11)) << i;
      }
    }
  }
}

// conv -> BatchNorm -> relu with parameters the test changes between calls.
struct ConvBnNet {
  Symbol symbol;
  std::map<std::string, NDArray> values;
  ConvBnNet() {
    Symbol conv = Symbol::Create("Convolution", {var("data"), var("w"), var("b")},
                                 {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"pad", "(1, 1)"}});
    Symbol bn =
        Symbol::Create("BatchNorm", {conv, var("gamma"), var("beta"), var("mean"), var("var")},
                       {{"fix_gamma", "False"}});
    symbol = Symbol::Create("Activation", {bn}, {{"act_type", "relu"}});
    values = {{"data", RandomArray(Shape{2, 3, 5, 5}, -1, 1, 1, DType::kFloat32)},
              {"w", RandomArray(Shape{4, 3, 3, 3}, -0.3, 0.3, 2, DType::kFloat32)},
              {"b", RandomArray(Shape{4}, -1, 1, 3, DType::kFloat32)},
              {"gamma", RandomArray(Shape{4}, 0.5, 1.5, 4, DType::kFloat32)},
              {"beta", RandomArray(Shape{4}, -1, 1, 5, DType::kFloat32)},
              {"mean", RandomArray(Shape{4}, -1, 1, 6, DType::kFloat32)},
              {"var", RandomArray(Shape{4}, 0.5, 1.5, 7, DType::kFloat32)}};
  }
  ::testing::AssertionResult Check(CachedOp& op) {
    NDArrayVec got = op(InputsFor(op, values));
    return AllClose(got[0], Interpret(symbol, values)[0], 1e-4, 1e-5);
  }
};

TEST(CachedOpPasses, RefoldsWhenFoldedParametersChange) {
  ConvBnNet net;
  CachedOp op(net.symbol, {.backend = "onednn"});
  EXPECT_TRUE(net.Check(op));
  CompileReport rep = op.last_report();
  EXPECT_EQ(rep.nodes_before, 3);
  EXPECT_EQ(rep.nodes_after, 1);  // one fused conv
  EXPECT_EQ(rep.folded_inputs.size(), 6u);
  // Same values again: no recompilation.
  int compiled = op.num_compiled();
  EXPECT_TRUE(net.Check(op));
  EXPECT_EQ(op.num_compiled(), compiled);
  // Written in place (like an optimizer step): detected by the fingerprint.
  net.values["gamma"].Fill(2.0);
  EXPECT_TRUE(net.Check(op));
  net.values["w"].SyncCopyFromCPU(
      RandomArray(Shape{4, 3, 3, 3}, -1, 1, 9, DType::kFloat32).ToVector<float>().data(),
      4 * 27 * 4);
  EXPECT_TRUE(net.Check(op));
  // A new array object.
  net.values["var"] = RandomArray(Shape{4}, 1, 2, 10, DType::kFloat32);
  EXPECT_TRUE(net.Check(op));
  // After a few changes the CachedOp stops folding values for this signature, still right.
  for (int i = 0; i < 4; ++i) {
    net.values["beta"].Fill(0.1 * i);
    EXPECT_TRUE(net.Check(op));
  }
  rep = op.last_report();
  EXPECT_TRUE(rep.folded_inputs.empty());
  EXPECT_EQ(rep.nodes_after, 3);  // conv, BatchNorm, relu: nothing folded, nothing to fuse
  net.values["beta"].Fill(0.7);
  EXPECT_TRUE(net.Check(op));
}

TEST(CachedOpPasses, KeepsFoldingWhenParametersChangeBetweenRunsOfCalls) {
  // Training epochs (in-place updates) with validation passes in between.
  ConvBnNet net;
  CachedOp op(net.symbol, {.backend = "onednn"});
  for (int epoch = 0; epoch < 6; ++epoch) {
    net.values["gamma"].Fill(1.0 + 0.1 * epoch);
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(net.Check(op)) << "epoch " << epoch << " call " << i;
  }
  EXPECT_EQ(op.last_report().folded_inputs.size(), 6u);
  EXPECT_EQ(op.last_report().nodes_after, 1);
}

// Folded inputs are checked by their storage blocks' write versions: every tracked write
// (in-place kernels, out= calls, writes through views, copies, declared raw writes) refolds, and
// the check reads no bytes, so an undeclared raw write goes unseen (the documented contract),
// unless the block is marked as written behind our back (external or exported memory), which
// turns the content check back on. Runs of 8 calls between changes keep the folding active.
TEST(CachedOpPasses, RefoldsAfterTrackedWritesByWriteVersion) {
  ConvBnNet net;
  CachedOp op(net.symbol, {.backend = "onednn"});
  auto calls = [&](const char* what) {
    for (int i = 0; i < 8; ++i) ASSERT_TRUE(net.Check(op)) << what << " call " << i;
    CompileReport rep = op.last_report();
    EXPECT_EQ(rep.folded_inputs.size(), 6u) << what;
    EXPECT_EQ(rep.nodes_after, 1) << what;
  };
  calls("first");
  const Op& mul = OpRegistry::Get("_mul_scalar");
  // An in-place kernel call into the weight (out=w).
  InvokeInto(mul, OpAttrs::Parse(mul, {{"scalar", "-1.5"}}), std::vector<NDArray>{net.values["w"]},
             std::vector<NDArray>{net.values["w"]});
  calls("in-place w");
  // Through a view sharing gamma's block.
  NDArray gamma_view = net.values["gamma"].reshape({2, 2});
  InvokeInto(mul, OpAttrs::Parse(mul, {{"scalar", "0.5"}}), std::vector<NDArray>{gamma_view},
             std::vector<NDArray>{gamma_view});
  calls("view of gamma");
  // copyto into the moving variance.
  RandomArray(Shape{4}, 1, 3, 21, DType::kFloat32).copyto(net.values["var"]);
  calls("copyto var");
  // A raw write, declared.
  net.values["mean"].data<float>()[1] += 0.75f;
  net.values["mean"].mark_written();
  calls("declared raw write");
  // An undeclared raw write is not seen: the folded graph keeps the old value.
  const NDArray before = op(InputsFor(op, net.values))[0].copy();
  net.values["beta"].data<float>()[0] += 5.0f;
  EXPECT_TRUE(AllClose(op(InputsFor(op, net.values))[0], before, 0, 0));
  // Marked as written behind our back: the contents are compared from the next compile on.
  net.values["beta"].storage()->mark_untracked_writes();
  net.values["beta"].mark_written();
  calls("untracked beta");
  net.values["beta"].data<float>()[2] -= 3.0f;  // undeclared, but the block is untracked
  calls("raw write to untracked beta");
  // Reads never refold.
  const int compiled = op.num_compiled();
  for (const auto& [name, value] : net.values) value.ToVector<float>();
  calls("reads");
  EXPECT_EQ(op.num_compiled(), compiled);
}

TEST(CachedOpPasses, IdentityOnlyCheckWithoutVerification) {
  ConvBnNet net;
  CachedOp op(net.symbol, {.backend = "default", .verify_folded_inputs = false});
  EXPECT_TRUE(net.Check(op));
  net.values["gamma"] = RandomArray(Shape{4}, 0.5, 1.5, 11, DType::kFloat32);  // new array
  EXPECT_TRUE(net.Check(op));
}

TEST(CachedOpPasses, TrainingAfterInferenceSeesUpdatedStatistics) {
  ConvBnNet net;
  CachedOp op(net.symbol, {.backend = "onednn"});
  EXPECT_TRUE(net.Check(op));
  // A training-mode forward updates the moving statistics in place...
  {
    auto r = autograd::record();
    op(InputsFor(op, net.values));
  }
  // ...which the next inference call must use.
  EXPECT_TRUE(net.Check(op));
}

TEST(CachedOpPasses, ConstantAndRepeatedOutputsAreFreshArrays) {
  Symbol x = var("x");
  Symbol c = Symbol::Create("_mul_scalar", {Symbol::Create("_ones", {}, {{"shape", "(3,)"}})},
                            {{"scalar", "2"}});
  Symbol t1 = Symbol::Create("Activation", {x}, {{"act_type", "tanh"}});
  Symbol t2 = Symbol::Create("Activation", {x}, {{"act_type", "tanh"}});  // CSE merges t1, t2
  CachedOp op(Symbol::Group({c, t1, t2}), {.backend = "default"});
  NDArray xv = NDArray::Full(Shape{3}, 0.5);
  NDArrayVec out = op(std::vector<NDArray>{xv});
  EXPECT_EQ(op.last_report().nodes_after, 1);
  EXPECT_FALSE(out[1].shares_storage(out[2]));
  out[0].Fill(7.0);
  out[1].Fill(7.0);
  NDArrayVec again = op(std::vector<NDArray>{xv});
  EXPECT_EQ(again[0].ToVector<float>(), std::vector<float>(3, 2.0f));
  EXPECT_TRUE(AllClose(again[2], again[1], 0, 0));
  EXPECT_NEAR(again[2].ToVector<float>()[0], std::tanh(0.5f), 1e-6);
}

TEST(CachedOpPasses, ConcurrentInferenceCalls) {
  auto rg = RandomConvGraph(7);
  auto want = Interpret(rg.symbol, rg.values);
  CachedOp op(rg.symbol, {.static_alloc = true, .backend = "onednn"});
  auto work = [&](bool* ok) {
    *ok = true;
    for (int i = 0; i < 20; ++i) {
      NDArrayVec got = op(InputsFor(op, rg.values));
      *ok &= static_cast<bool>(AllClose(got[0], want[0], 1e-4, 1e-5));
    }
  };
  bool a, b, c;
  std::thread t1(work, &a), t2(work, &b), t3(work, &c);
  t1.join();
  t2.join();
  t3.join();
  EXPECT_TRUE(a && b && c);
}

TEST(CachedOpPasses, ReportAndMonitorShowTheOptimizedGraph) {
  ConvBnNet net;
  CachedOp op(net.symbol, {.backend = "onednn"});
  std::vector<std::string> seen;
  op.set_monitor([&](const std::string& name, const std::string& opname,
                     const NDArray&) { seen.push_back(opname + ":" + name); },
                 false);
  op(InputsFor(op, net.values));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_NE(seen[0].find("_sg_onednn_conv:"), std::string::npos) << seen[0];
  std::string report = op.last_report().ToString();
  for (const char* p : {"dead_code", "common_subexpression", "constant_folding",
                        "batchnorm_folding", "onednn_fusion", "memory_plan"})
    EXPECT_NE(report.find(p), std::string::npos) << report;
  EXPECT_EQ(op.optimized_constants().size(), 2u);  // folded weight and bias
  EXPECT_THROW(CachedOp(net.symbol, {.backend = "tensorrt"}), Error);
}

}  // namespace
}  // namespace mxnet::sym
