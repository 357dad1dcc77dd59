#include "gluon/block.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <latch>
#include <thread>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "gluon/symbol_block.h"
#include "ndarray/io.h"
#include "ndarray/ops/conv/conv_api.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/elemwise/elemwise_api.h"
#include "ndarray/ops/nn/nn_api.h"
#include "ndarray/ops/random/sample_api.h"
#include "ndarray/ops/reduce/reduce_api.h"
#include "ndarray/ops/shape/shape_misc_api.h"
#include "ndarray/random.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon {
namespace {

using testing::AllClose;
using testing::RandomArray;

// y = x * weight + bias, weight/bias shapes inferred from x (deferred init).
class Mul : public HybridBlock {
 public:
  Mul() {
    weight = register_parameter("weight", {.shape = Shape::Unknown()});
    bias = register_parameter("bias", {.shape = Shape::Unknown()});
  }
  NDArray forward(const NDArray& x) override {
    ++calls;
    return nd::elemwise_add(nd::elemwise_mul(x, weight->data(x.device())), bias->data(x.device()));
  }
  std::string class_name() const override { return "Mul"; }
  ParameterPtr weight, bias;
  int calls = 0;
};

class Net : public HybridBlock {
 public:
  Net() {
    layer0 = register_child(std::make_shared<Mul>(), "layer0");
    layer1 = register_child(std::make_shared<Mul>(), "layer1");
  }
  NDArray forward(const NDArray& x) override {
    ++calls;
    return nd::mul_scalar((*layer1)(nd::negative((*layer0)(x))), 0.5);
  }
  std::string class_name() const override { return "Net"; }
  std::shared_ptr<Mul> layer0, layer1;
  int calls = 0;
};

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

TEST(Block, StructuredNamesAndSelection) {
  Net net;
  EXPECT_EQ(
      net.collect_params().keys(),
      (std::vector<std::string>{"layer0.weight", "layer0.bias", "layer1.weight", "layer1.bias"}));
  EXPECT_EQ(net.collect_params(".*weight|.*bias").size(), 4u);
  EXPECT_EQ(net.collect_params(".*weight").keys(),
            (std::vector<std::string>{"layer0.weight", "layer1.weight"}));
  EXPECT_EQ(net.collect_params("layer1").keys(),
            (std::vector<std::string>{"layer1.weight", "layer1.bias"}));
  EXPECT_TRUE(net.collect_params("weight").empty());  // anchored at the start, like re.match
  EXPECT_THROW(net.collect_params("("), Error);
  EXPECT_EQ(net.ToString(), "Net(\n  (layer0): Mul()\n  (layer1): Mul()\n)");
}

TEST(Block, DeferredInitializationCompletesAtFirstForward) {
  Net net;
  net.initialize(init::Constant(2));
  EXPECT_TRUE(net.layer0->weight->has_deferred_init());
  try {
    net.layer0->weight->data();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("deferred"), std::string::npos) << e.what();
  }
  NDArray x = NDArray::FromVector(std::vector<float>{1, 2, 3}, Shape{3});
  NDArray y = net(x);
  EXPECT_EQ(net.layer0->weight->shape(), Shape({3}));
  // Constant(2) is the block initializer: weights 2, biases 0 (name rule).
  // layer0: 2x, negative: -2x, layer1: -4x, * 0.5: -2x
  EXPECT_EQ(y.ToVector<float>(), (std::vector<float>{-2, -4, -6}));
}

// The process-wide count of postponed initializations (what lets a forward skip the scan for
// them): up at initialize() with unknown shapes, down when they finish or the parameter dies; a
// second net initialized after the first one's forward still completes at its first call.
TEST(Block, DeferredInitializationCountFollowsParameters) {
  const int64_t before = Parameter::num_deferred_inits();
  NDArray x = NDArray::FromVector(std::vector<float>{1, 2, 3}, Shape{3});
  {
    Net a;
    a.initialize(init::Constant(2));
    const int64_t pending = Parameter::num_deferred_inits() - before;
    EXPECT_EQ(pending, static_cast<int64_t>(a.collect_params().size()));
    a(x);
    EXPECT_EQ(Parameter::num_deferred_inits(), before);
    Net b;
    b.initialize(init::Constant(2));
    EXPECT_EQ(Parameter::num_deferred_inits() - before, pending);
    a(x);  // a has nothing pending; b's count stays
    EXPECT_EQ(Parameter::num_deferred_inits() - before, pending);
    EXPECT_EQ(b(x).ToVector<float>(), (std::vector<float>{-2, -4, -6}));
    EXPECT_EQ(Parameter::num_deferred_inits(), before);
    Net c;
    c.initialize(init::Constant(2));
  }  // c dies with its initializations still pending
  EXPECT_EQ(Parameter::num_deferred_inits(), before);
}

TEST(Block, UninitializedParameterIsAClearError) {
  Mul m;
  NDArray x(Shape{2});
  try {
    m(x);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not been initialized"), std::string::npos) << e.what();
  }
}

TEST(HybridBlock, HybridizedMatchesImperativeOutputsAndGradients) {
  auto run = [](bool hybrid, NDArray* y, std::vector<NDArray>* grads) {
    mxnet::random::seed(3);
    Net net;
    net.initialize(init::Uniform(1.0));
    if (hybrid) net.hybridize();
    NDArray x = RandomArray(Shape{2, 3}, -1, 1, 9, DType::kFloat32);
    {
      auto r = autograd::record();
      *y = net(x);
    }
    autograd::backward({*y});
    for (const auto& [_, p] : net.collect_params()) grads->push_back(p->grad());
    if (hybrid) {
      EXPECT_EQ(net.calls, 2);  // one shape-only pass (deferred init) and one trace
      net(x);
      net(x);
      EXPECT_EQ(net.calls, 2);  // later calls run the cached graph
      EXPECT_FALSE(net.cached_graph().outputs().empty());
    }
  };
  NDArray yi, yh;
  std::vector<NDArray> gi, gh;
  run(false, &yi, &gi);
  run(true, &yh, &gh);
  EXPECT_TRUE(AllClose(yh, yi, 0, 0));
  ASSERT_EQ(gi.size(), gh.size());
  for (size_t i = 0; i < gi.size(); ++i) EXPECT_TRUE(AllClose(gh[i], gi[i], 1e-6, 1e-7)) << i;
}

TEST(HybridBlock, NewInputRankRetraces) {
  Net net;
  net.initialize();
  net.hybridize();
  net(NDArray::Full(Shape{4}, 1.0));
  EXPECT_EQ(net.calls, 2);  // shape pass + trace
  // Parameters are (4,): a different rank traces again and reports the shape error clearly.
  EXPECT_THROW(net(NDArray::Full(Shape{2, 4}, 1.0)), Error);
}

class Reader : public HybridBlock {
 public:
  NDArray forward(const NDArray& x) override {
    if (x.ToVector<float>()[0] > 0) return nd::negative(x);  // data-dependent branch
    return x;
  }
};

TEST(HybridBlock, ReadingValuesWhileHybridizedIsAnError) {
  Reader r;
  NDArray x = NDArray::Full(Shape{2}, 1.0);
  EXPECT_EQ(r(x).ToVector<float>()[0], -1);  // fine imperatively
  r.hybridize();
  try {
    r(x);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hybridized"), std::string::npos) << e.what();
  }
}

// Reads values the ways a forward might: asscalar on a computed value, a raw data pointer.
class ScalarReader : public HybridBlock {
 public:
  explicit ScalarReader(bool pointer) : pointer_(pointer) {}
  NDArray forward(const NDArray& x) override {
    NDArray s = nd::sum(x);
    float v = pointer_ ? s.data<float>()[0] : s.asscalar<float>();
    return nd::mul_scalar(x, v);
  }

 private:
  bool pointer_;
};

TEST(HybridBlock, ReadingValuesOfTracedArraysIsAClearError) {
  for (bool pointer : {false, true}) {
    ScalarReader r(pointer);
    NDArray x = NDArray::Full(Shape{2}, 1.0);
    EXPECT_EQ(r(x).ToVector<float>(), (std::vector<float>{2, 2}));
    r.hybridize();
    try {
      r(x);
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), absl::StatusCode::kFailedPrecondition);
      EXPECT_NE(std::string(e.what()).find("hybridize"), std::string::npos) << e.what();
    }
    r.hybridize(false);
    EXPECT_EQ(r(x).ToVector<float>(), (std::vector<float>{2, 2}));  // nothing left behind
  }
}

// x + uniform noise: a stateful op.
class Noisy : public HybridBlock {
 public:
  NDArray forward(const NDArray& x) override {
    ++calls;
    return nd::elemwise_add(x, nd::random::uniform_like(x));
  }
  int calls = 0;
};

// Hybridize traces without running: the first call draws once, from the graph, so it gives what
// every later call gives for the same seed (and what the imperative call gives).
TEST(HybridBlock, FirstCallRunsStatefulOpsOnce) {
  Noisy net;
  NDArray x = NDArray::Full(Shape{5}, 0.0);
  mxnet::random::seed(11);
  std::vector<float> imperative = net(x).ToVector<float>();
  net.hybridize();
  mxnet::random::seed(11);
  std::vector<float> first = net(x).ToVector<float>();  // traces, then runs the graph
  std::vector<float> after_first = net(x).ToVector<float>();
  mxnet::random::seed(11);
  std::vector<float> second = net(x).ToVector<float>();  // the cached graph
  EXPECT_EQ(first, second);
  EXPECT_EQ(first, imperative);
  mxnet::random::seed(11);
  net(x);
  EXPECT_EQ(net(x).ToVector<float>(), after_first);  // one draw per call, the first included
  EXPECT_EQ(net.calls, 2);                           // imperative + one trace
}

// Children's hooks run while the parent is traced (with placeholders), not on cached calls.
TEST(HybridBlock, ChildHooksRunDuringTheTrace) {
  Net net;
  net.initialize();
  std::vector<std::string> log;
  HookHandle h =
      net.layer0->register_forward_hook([&](Block&, const NDArrayVec& in, const NDArrayVec& out) {
        log.push_back(in[0].is_placeholder() && out[0].is_placeholder() ? "traced" : "values");
      });
  net.hybridize();
  NDArray x = NDArray::Full(Shape{2}, 1.0);
  net(x);  // deferred init (no hooks), trace, graph
  net(x);
  EXPECT_EQ(log, (std::vector<std::string>{"traced"}));
}

// Many threads make the first call of one hybridized block at once: one trace, equal outputs.
TEST(HybridBlock, ConcurrentFirstCalls) {
  for (int round = 0; round < 5; ++round) {
    Net net;
    net.initialize(init::Uniform(1));
    NDArray x0 = RandomArray(Shape{16}, -1, 1, 1, DType::kFloat32);
    net(x0);  // deferred init done; the hybridized trace is still to come
    NDArray expected = net(x0);
    net.hybridize();
    constexpr int kThreads = 8;
    std::latch start(kThreads);
    std::vector<char> ok(kThreads, 0);
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> ts;
    for (int t = 0; t < kThreads; ++t)
      ts.emplace_back([&, t] {
        start.arrive_and_wait();
        try {
          ok[t] = static_cast<bool>(AllClose(net(x0), expected, 0, 0));
        } catch (const Error& e) {
          errors[t] = e.what();
        }
      });
    for (auto& t : ts) t.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(ok[t]) << errors[t];
    EXPECT_EQ(net.calls, 4) << "one trace";  // shape pass, two imperative calls, one trace
  }
}

// "_test_counted_negative": y = -x (float32) with a kernel that counts its runs.
std::atomic<int> g_kernel_runs{0};
const Op& CountedNegative() {
  static const Op& op = []() -> const Op& {
    Op& o = OpRegistry::Register("_test_counted_negative");
    o.set_num_inputs(1)
        .set_num_outputs(1)
        .set_infer_shape(ElemwiseShape)
        .set_infer_type(ElemwiseType)
        .set_kernel({DeviceType::kCPU, Backend::kReference},
                    [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
                      ++g_kernel_runs;
                      const float* x = in[0].data<float>();
                      float* y = out[0].data<float>();
                      for (int64_t i = 0; i < in[0].size(); ++i) y[i] = -x[i];
                    });
    return o;
  }();
  return op;
}

// Two counted ops in a row, then a parameterized child (deferred init).
class Counted : public HybridBlock {
 public:
  Counted() { mul = register_child(std::make_shared<Mul>(), "mul"); }
  NDArray forward(const NDArray& x) override {
    const Op& neg = CountedNegative();
    NDArray y = Invoke(neg, OpAttrs::Parse(neg, {}), std::vector<NDArray>{x})[0];
    y = Invoke(neg, OpAttrs::Parse(neg, {}), std::vector<NDArray>{nd::plus_scalar(y, 1)})[0];
    return (*mul)(y);
  }
  std::shared_ptr<Mul> mul;
};

// The trace is shape-only: the first hybridized call runs each kernel once (the graph), as every
// later call does; before issue 21 item 6 it ran forward eagerly too (twice each).
TEST(HybridBlock, TracingRunsNoKernels) {
  Counted net;
  net.initialize(init::Constant(3));  // weight 3, bias 0
  NDArray x = NDArray::FromVector(std::vector<float>{1, -2}, Shape{2});
  g_kernel_runs = 0;
  EXPECT_EQ(net(x).ToVector<float>(), (std::vector<float>{0, -9}));  // 3 * (x - 1)
  EXPECT_EQ(g_kernel_runs, 2);  // the deferred-init shape pass runs none either
  net.hybridize();
  g_kernel_runs = 0;
  EXPECT_EQ(net(x).ToVector<float>(), (std::vector<float>{0, -9}));  // trace, then the graph
  EXPECT_EQ(g_kernel_runs, 2);
  EXPECT_EQ(net(x).ToVector<float>(), (std::vector<float>{0, -9}));  // the cached graph
  EXPECT_EQ(g_kernel_runs, 4);
  // hybridize() drops the cached graph: the new trace runs no kernel either.
  net.hybridize();
  g_kernel_runs = 0;
  net(x);
  EXPECT_EQ(g_kernel_runs, 2);
}

// optimize_for prepares the graph without executing a forward pass (MXNet 1.9): deferred shapes
// are inferred and the graph traced, no kernel runs; the first call then runs only the graph.
TEST(HybridBlock, OptimizeForRunsNoForward) {
  Counted net;
  net.initialize(init::Constant(3));  // deferred: the shapes come from optimize_for's inputs
  NDArray x = NDArray::FromVector(std::vector<float>{1, -2}, Shape{2});
  g_kernel_runs = 0;
  net.optimize_for({x}, "default");
  EXPECT_EQ(g_kernel_runs, 0);
  EXPECT_TRUE(net.is_hybridized());
  EXPECT_FALSE(net.cached_graph().outputs().empty());
  EXPECT_EQ(net.compile_report().nodes_after, 0);  // compiled at the first call
  EXPECT_EQ(net(x).ToVector<float>(), (std::vector<float>{0, -9}));
  EXPECT_EQ(g_kernel_runs, 2);  // the graph's two ops, no trace
  EXPECT_GT(net.compile_report().nodes_after, 0);
  Counted bad;
  bad.initialize();
  EXPECT_THROW(bad.optimize_for({x}, "tensorrt"), Error);
}

class Plain : public Block {
 public:
  NDArray forward(const NDArray& x) override { return x; }
};

TEST(HybridBlock, NonHybridChildIsRejected) {
  Net net;
  EXPECT_THROW(net.register_child(std::make_shared<Plain>(), "plain"), Error);
  Plain p;
  EXPECT_NO_THROW(p.register_child(std::make_shared<Mul>(), "m"));
}

TEST(Block, HooksFireInOrderAndDetach) {
  Net net;
  net.initialize();
  std::vector<std::string> log;
  HookHandle a =
      net.register_forward_pre_hook([&](Block&, const NDArrayVec&) { log.push_back("pre"); });
  HookHandle b = net.register_forward_hook(
      [&](Block&, const NDArrayVec&, const NDArrayVec&) { log.push_back("post"); });
  HookHandle c = net.layer0->register_forward_hook(
      [&](Block&, const NDArrayVec&, const NDArrayVec&) { log.push_back("child"); });
  net(NDArray::Full(Shape{2}, 1.0));
  EXPECT_EQ(log, (std::vector<std::string>{"pre", "child", "post"}));
  a.detach();
  c.detach();
  log.clear();
  net(NDArray::Full(Shape{2}, 1.0));
  EXPECT_EQ(log, (std::vector<std::string>{"post"}));
}

TEST(Block, SaveAndLoadParameters) {
  Net a, b;
  a.initialize(init::Uniform(1));
  NDArray x = RandomArray(Shape{3}, -1, 1, 4, DType::kFloat32);
  NDArray ya = a(x);
  std::string path = TempPath("net.params");
  ASSERT_TRUE(a.save_parameters(path).ok());
  b.initialize();
  b(x);
  ASSERT_TRUE(b.load_parameters(path).ok());
  EXPECT_TRUE(AllClose(b(x), ya, 0, 0));
  // Missing and extra keys are errors naming them and the file.
  Mul single;
  auto st = single.load_parameters(path);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find(path), std::string::npos) << st;
  EXPECT_NE(std::string(st.message()).find("layer0.weight"), std::string::npos) << st;
  EXPECT_TRUE(single.load_parameters(path, {.allow_missing = true, .ignore_extra = true}).ok());
  EXPECT_FALSE(b.load_parameters(TempPath("missing.params")).ok());
}

TEST(HybridBlock, ExportThenImportGivesTheSameOutputs) {
  Net net;
  net.initialize(init::Uniform(1));
  net.hybridize();
  NDArray x = RandomArray(Shape{2, 3}, -1, 1, 5, DType::kFloat32);
  NDArray y = net(x);
  std::string prefix = TempPath("exported");
  ASSERT_TRUE(net.export_model(prefix, 7).ok());
  auto block = SymbolBlock::imports(prefix + "-symbol.json", {"data"}, prefix + "-0007.params");
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_TRUE(AllClose((**block)(x), y, 0, 0));
  EXPECT_EQ((*block)->collect_params().size(), 4u);
  Net fresh;
  EXPECT_FALSE(fresh.export_model(prefix).ok());  // never traced
  EXPECT_FALSE(SymbolBlock::imports(prefix + "-symbol.json", {"nope"}).ok());
  // A SymbolBlock exports its own graph without a call (MXNet's SymbolBlock.export): the
  // re-imported block gives the same outputs.
  auto again = SymbolBlock::imports(prefix + "-symbol.json", {"data"}, prefix + "-0007.params");
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_TRUE((*again)->export_model(prefix + "2", 1).ok());
  auto third = SymbolBlock::imports(prefix + "2-symbol.json", {"data"}, prefix + "2-0001.params");
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_TRUE(AllClose((**third)(x), y, 0, 0));
}

TEST(HybridBlock, ConcurrentCallsOfOneHybridizedBlock) {
  Net net;
  net.initialize(init::Uniform(1));
  net.hybridize(true, {.static_alloc = true});
  NDArray x0 = RandomArray(Shape{16}, -1, 1, 1, DType::kFloat32);
  NDArray expected = net(x0);
  std::vector<char> ok(4, 1);  // not vector<bool>: its bits share words across threads
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i)
        ok[t] = ok[t] && static_cast<bool>(AllClose(net(x0), expected, 0, 0));
    });
  for (auto& t : ts) t.join();
  for (char b : ok) EXPECT_TRUE(b);
}

// NDArray view methods inside a traced forward become ops (Reshape, slice_axis, ...), and under
// autograd they keep the history.
class Views : public HybridBlock {
 public:
  NDArray forward(const NDArray& x) override {
    NDArray r = x.reshape({-1}).expand_dims(0).squeeze();  // (2, 3) -> (6,)
    return nd::mul_scalar(r.slice(1, 4), 2.0);
  }
};

TEST(HybridBlock, ViewMethodsAreTracedAndDifferentiable) {
  Views v;
  NDArray x = NDArray::FromVector(std::vector<float>{0, 1, 2, 3, 4, 5}, Shape{2, 3});
  NDArray imperative = v(x);
  v.hybridize();
  x.attach_grad();
  NDArray y;
  {
    auto r = autograd::record();
    y = v(x);
  }
  y.backward();
  EXPECT_EQ(y.ToVector<float>(), imperative.ToVector<float>());
  EXPECT_EQ(y.ToVector<float>(), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(x.grad().ToVector<float>(), (std::vector<float>{0, 2, 2, 2, 0, 0}));
  EXPECT_GE(v.cached_graph().TopoNodes().size(), 5u);  // data + reshape/expand/squeeze/slice/mul
}

TEST(Block, SummaryTable) {
  Net net;
  net.initialize();
  std::string s = net.summary({NDArray::Full(Shape{2, 5}, 1.0)});
  // MXNet 1.9.1's header line, character for character ("{:>20}  {:>42} {:>15}").
  EXPECT_NE(
      s.find(
          "\n        Layer (type)                                Output Shape         Param #\n"),
      std::string::npos)
      << s;
  EXPECT_NE(s.find("Mul-1"), std::string::npos) << s;
  EXPECT_NE(s.find("Net-3"), std::string::npos) << s;
  EXPECT_NE(s.find("Total params: 40"), std::string::npos) << s;  // 4 params of (2, 5)
  net.hybridize();
  EXPECT_THROW(net.summary({NDArray::Full(Shape{2, 5}, 1.0)}), Error);
}

// relu(BatchNorm(Convolution(x))) with Gluon's BatchNorm settings, written with ops directly.
class ConvBnRelu : public HybridBlock {
 public:
  ConvBnRelu() {
    weight = register_parameter("weight", {.shape = Shape{4, 3, 3, 3}});
    bias = register_parameter("bias", {.shape = Shape{4}});
    gamma = register_parameter("gamma", {.shape = Shape{4}});
    beta = register_parameter("beta", {.shape = Shape{4}});
    mean = register_parameter("running_mean", {.shape = Shape{4}, .grad_req = GradReq::kNull});
    var = register_parameter("running_var", {.shape = Shape{4}, .grad_req = GradReq::kNull});
  }
  NDArray forward(const NDArray& x) override {
    Device d = x.device();
    NDArray c = nd::Convolution(x, weight->data(d), bias->data(d),
                                {.kernel = Shape{3, 3}, .num_filter = 4, .pad = Shape{1, 1}});
    return nd::relu(nd::BatchNorm(c, gamma->data(d), beta->data(d), mean->data(d), var->data(d),
                                  {.eps = 1e-5, .fix_gamma = false}));
  }
  std::string class_name() const override { return "ConvBnRelu"; }
  ParameterPtr weight, bias, gamma, beta, mean, var;
};

// optimize_for with the oneDNN backend folds BatchNorm into the convolution and fuses the relu
// for inference; the result equals the imperative forward (running statistics, not training).
TEST(HybridBlock, OptimizeForFusesAndMatchesImperative) {
  ConvBnRelu net;
  net.initialize(init::Uniform(1.0));
  net.var->set_data(RandomArray(Shape{4}, 0.5, 2.0, 5, DType::kFloat32));
  net.mean->set_data(RandomArray(Shape{4}, -0.5, 0.5, 6, DType::kFloat32));
  NDArray x = RandomArray(Shape{2, 3, 8, 8}, -1, 1, 7, DType::kFloat32);
  NDArray expected = net(x);
  net.optimize_for({x}, "onednn");
  EXPECT_TRUE(net.is_hybridized());
  EXPECT_TRUE(AllClose(net(x), expected, 1e-5, 1e-5));
  sym::CompileReport report = net.compile_report();
  EXPECT_TRUE(report.inference);
  EXPECT_EQ(report.nodes_before, 3);
  EXPECT_EQ(report.nodes_after, 1) << report.ToString();  // one fused convolution
  EXPECT_TRUE(AllClose(net(x), expected, 1e-5, 1e-5));
  // Backend "none": the traced graph runs as is.
  net.hybridize(true, {.backend = "none"});
  EXPECT_TRUE(AllClose(net(x), expected, 1e-6, 1e-6));
  EXPECT_EQ(net.compile_report().nodes_after, 3);
  // No backend: MXNET_SUBGRAPH_BACKEND decides, fusion when unset (MXNet 1.x oneDNN builds).
  const char* saved = std::getenv("MXNET_SUBGRAPH_BACKEND");
  std::string saved_value = saved ? saved : "";
  unsetenv("MXNET_SUBGRAPH_BACKEND");
  net.hybridize();
  EXPECT_TRUE(AllClose(net(x), expected, 1e-5, 1e-5));
  EXPECT_EQ(net.compile_report().nodes_after, 1) << net.compile_report().ToString();
  setenv("MXNET_SUBGRAPH_BACKEND", "NONE", 1);
  net.hybridize();
  EXPECT_TRUE(AllClose(net(x), expected, 1e-6, 1e-6));
  EXPECT_EQ(net.compile_report().nodes_after, 3);
  setenv("MXNET_SUBGRAPH_BACKEND", "MKLDNN", 1);
  net.hybridize();
  net(x);
  EXPECT_EQ(net.compile_report().nodes_after, 1);
  // Training calls never fuse: the training pipeline keeps BatchNorm (it updates statistics).
  {
    auto rec = autograd::record();
    net(x);
  }
  sym::CompileReport train = net.compile_report();
  EXPECT_FALSE(train.inference);
  for (const auto& r : train.passes) EXPECT_EQ(r.added, 0) << train.ToString();  // nothing fused
  setenv("MXNET_SUBGRAPH_BACKEND", "TensorRT", 1);
  net.hybridize();
  EXPECT_THROW(net(x), Error);  // an unknown pipeline name is an error, not ignored
  if (saved)
    setenv("MXNET_SUBGRAPH_BACKEND", saved_value.c_str(), 1);
  else
    unsetenv("MXNET_SUBGRAPH_BACKEND");
  ConvBnRelu bad;
  bad.initialize();
  EXPECT_THROW(bad.optimize_for({x}, "tensorrt"), Error);
}

TEST(HybridBlock, ResolveHybridizeBackendFollowsMxnetSubgraphBackend) {
  const char* saved = std::getenv("MXNET_SUBGRAPH_BACKEND");
  std::string saved_value = saved ? saved : "";
  unsetenv("MXNET_SUBGRAPH_BACKEND");
  EXPECT_EQ(ResolveHybridizeBackend(""), "onednn");
  EXPECT_EQ(ResolveHybridizeBackend("none"), "none");
  EXPECT_EQ(ResolveHybridizeBackend("default"), "default");
  for (const char* v : {"MKLDNN", "ONEDNN", "onednn", "MkLdNn"}) {
    setenv("MXNET_SUBGRAPH_BACKEND", v, 1);
    EXPECT_EQ(ResolveHybridizeBackend(""), "onednn") << v;
  }
  for (const char* v : {"NONE", "None", "none"}) {
    setenv("MXNET_SUBGRAPH_BACKEND", v, 1);
    EXPECT_EQ(ResolveHybridizeBackend(""), "none") << v;
  }
  setenv("MXNET_SUBGRAPH_BACKEND", "default", 1);
  EXPECT_EQ(ResolveHybridizeBackend(""), "default");
  EXPECT_EQ(ResolveHybridizeBackend("onednn"), "onednn");  // an explicit name wins
  setenv("MXNET_SUBGRAPH_BACKEND", "", 1);
  EXPECT_EQ(ResolveHybridizeBackend(""), "onednn");
  if (saved)
    setenv("MXNET_SUBGRAPH_BACKEND", saved_value.c_str(), 1);
  else
    unsetenv("MXNET_SUBGRAPH_BACKEND");
}

// register_op_hook sees every op of the cached graph in order, with the values it computed.
TEST(HybridBlock, RegisterOpHookSeesEveryOp) {
  Net net;
  net.initialize(init::Uniform(1.0));
  net.hybridize();
  NDArray x = RandomArray(Shape{2, 3}, -1, 1, 9, DType::kFloat32);
  net(x);
  std::vector<std::string> ops;
  NDArray last;
  net.register_op_hook([&](const std::string&, const std::string& op, const NDArray& v) {
    ops.push_back(op);
    last = v.copy();
  });
  NDArray y = net(x);
  std::vector<std::string> want = {"elemwise_mul", "elemwise_add", "negative",
                                   "elemwise_mul", "elemwise_add", "_mul_scalar"};
  EXPECT_EQ(ops, want);
  EXPECT_TRUE(AllClose(last, y, 0, 0));
  ops.clear();
  int inputs_seen = 0;
  net.register_op_hook(
      [&](const std::string& name, const std::string& op, const NDArray&) {
        ops.push_back(op);
        if (name.find("_output") == std::string::npos) ++inputs_seen;
      },
      /*monitor_all=*/true);
  net(x);
  EXPECT_EQ(inputs_seen,
            10);  // 2 inputs for each of the 4 binary ops, 1 for negative and _mul_scalar
}

// Block.register_op_hook reaches the hybridized children of a plain Block (MXNet installs the
// callback recursively): each child's graph reports its ops.
TEST(Block, RegisterOpHookReachesHybridChildren) {
  Plain seq;
  auto m0 = seq.register_child(std::make_shared<Mul>(), "m0");
  auto m1 = seq.register_child(std::make_shared<Mul>(), "m1");
  seq.initialize(init::Uniform(1.0));
  seq.hybridize();
  NDArray x = RandomArray(Shape{3}, -1, 1, 2, DType::kFloat32);
  (*m1)((*m0)(x));
  std::vector<std::string> ops;
  seq.register_op_hook(
      [&](const std::string&, const std::string& op, const NDArray&) { ops.push_back(op); });
  (*m1)((*m0)(x));
  EXPECT_EQ(ops, (std::vector<std::string>{"elemwise_mul", "elemwise_add", "elemwise_mul",
                                           "elemwise_add"}));
}

// save_parameters(deduplicate=True) writes a shared parameter once, under its last structured
// name at its first position, as MXNet 1.9.1 does: for a net whose dense b shares dense a's
// parameters (then dense c), MXNet writes [b.weight, b.bias, c.weight, c.bias], and without
// deduplication [a.weight, a.bias, b.weight, b.bias, c.weight, c.bias] (gluon.nn.Dense(2,
// in_units=2, params=a.params) in a HybridBlock, mx.nd.load(file).keys()).
TEST(Block, SaveParametersDeduplicateKeepsMxnetsNames) {
  auto make = [] {
    auto net = std::make_unique<Plain>();
    auto a = net->register_child(std::make_shared<Mul>(), "a");
    auto b = net->register_child(std::make_shared<Mul>(), "b");
    net->register_child(std::make_shared<Mul>(), "c");
    b->weight = b->register_parameter("weight", a->weight);
    b->bias = b->register_parameter("bias", a->bias);
    net->initialize(init::Uniform(1.0));
    NDArray x = NDArray::Full(Shape{2}, 1.0);
    for (const auto& [_, c] : net->children()) (*c)(x);
    return net;
  };
  auto net = make();
  auto keys = [](const std::string& path) {
    std::vector<std::string> k;
    for (const auto& [name, _] : nd::load(path)->items()) k.push_back(name);
    return k;
  };
  std::string dedup = TempPath("dedup.params"), all = TempPath("all.params");
  ASSERT_TRUE(net->save_parameters(dedup, /*deduplicate=*/true).ok());
  ASSERT_TRUE(net->save_parameters(all).ok());
  EXPECT_EQ(keys(dedup), (std::vector<std::string>{"b.weight", "b.bias", "c.weight", "c.bias"}));
  EXPECT_EQ(keys(all), (std::vector<std::string>{"a.weight", "a.bias", "b.weight", "b.bias",
                                                 "c.weight", "c.bias"}));
  // Either file loads into a fresh net (a shared parameter needs one of its names).
  for (const auto& path : {dedup, all}) {
    auto fresh = make();
    ASSERT_TRUE(fresh->load_parameters(path).ok()) << path;
    for (const auto& [name, p] : fresh->collect_params())
      EXPECT_TRUE(AllClose(p->data(), net->collect_params().get(name)->data(), 0, 0)) << name;
  }
}

TEST(Block, SetattrZeroGradShareCast) {
  Net a;
  a.initialize();
  a(NDArray::Full(Shape{2}, 1.0));
  a.setattr("grad_req", "null");
  EXPECT_EQ(a.layer0->weight->grad_req(), GradReq::kNull);
  EXPECT_THROW(a.setattr("colour", "red"), Error);
  Net b;
  b.share_parameters(a.collect_params());
  EXPECT_EQ(b.collect_params().get("layer1.bias"), a.collect_params().get("layer1.bias"));
  a.cast(DType::kFloat64);
  EXPECT_EQ(a.layer0->weight->data().dtype(), DType::kFloat64);
}

TEST(Block, SaveLoadPrefixChecksStructure) {
  Net a, b;
  a.initialize(init::Uniform(1));
  NDArray x = NDArray::Full(Shape{3}, 0.5);
  NDArray y = a(x);
  std::string prefix = TempPath("whole");
  ASSERT_TRUE(a.save(prefix).ok());
  ASSERT_TRUE(b.load(prefix).ok());
  EXPECT_TRUE(AllClose(b(x), y, 0, 0));
  Mul other;
  EXPECT_FALSE(other.load(prefix).ok());
}

// An imported SymbolBlock runs like a hybridized block (MXNet's SymbolBlock goes through
// _call_cached_op): hybridize options and optimize_for backends apply, op hooks see its ops,
// compile_report and cached_graph describe it (cached_graph from construction), and it exports
// again after its parameters change.
TEST(SymbolBlock, HonoursHybridizeOptionsOpHooksAndExportsAgain) {
  const char* saved = std::getenv("MXNET_SUBGRAPH_BACKEND");
  const std::string saved_value = saved ? saved : "";
  unsetenv("MXNET_SUBGRAPH_BACKEND");
  ConvBnRelu net;
  net.initialize(init::Uniform(1.0));
  net.var->set_data(RandomArray(Shape{4}, 0.5, 2.0, 5, DType::kFloat32));
  net.mean->set_data(RandomArray(Shape{4}, -0.5, 0.5, 6, DType::kFloat32));
  NDArray x = RandomArray(Shape{2, 3, 8, 8}, -1, 1, 7, DType::kFloat32);
  NDArray expected = net(x);
  // The traced graph as is (hybridize()'s default would fuse), so the export is the plain graph
  // and both blocks' op hooks see the same ops below.
  net.hybridize(true, {.backend = "none"});
  net(x);
  std::string prefix = TempPath("sb_options");
  ASSERT_TRUE(net.export_model(prefix).ok());
  auto sb = SymbolBlock::imports(prefix + "-symbol.json", {"data"}, prefix + "-0000.params");
  ASSERT_TRUE(sb.ok()) << sb.status();
  SymbolBlock& b = **sb;
  EXPECT_EQ(b.cached_graph().list_outputs(), b.graph().list_outputs());  // before any call
  // hybridize()'s default backend from construction on: MXNET_SUBGRAPH_BACKEND unset = onednn,
  // BatchNorm folded into one fused convolution for inference calls.
  EXPECT_TRUE(AllClose(b(x), expected, 1e-5, 1e-5));
  EXPECT_EQ(b.compile_report().nodes_after, 1) << b.compile_report().ToString();
  // Backend "none": the graph as given.
  b.hybridize(true, {.backend = "none"});
  EXPECT_TRUE(AllClose(b(x), expected, 1e-5, 1e-5));
  EXPECT_EQ(b.compile_report().nodes_after, 3) << b.compile_report().ToString();
  std::vector<std::string> ops;
  b.register_op_hook(
      [&](const std::string&, const std::string& op, const NDArray&) { ops.push_back(op); });
  b(x);
  // The same calls as the hybridized block's hook (BatchNorm reports each of its outputs).
  std::vector<std::string> block_ops;
  net.register_op_hook(
      [&](const std::string&, const std::string& op, const NDArray&) { block_ops.push_back(op); });
  net(x);
  EXPECT_EQ(ops, block_ops);
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  EXPECT_EQ(ops, (std::vector<std::string>{"Convolution", "BatchNorm", "relu"}));
  // optimize_for: one fused node, same values; the op hook stays installed.
  b.optimize_for({x}, "onednn");
  ops.clear();
  EXPECT_TRUE(AllClose(b(x), expected, 1e-5, 1e-5));
  EXPECT_EQ(b.compile_report().nodes_after, 1) << b.compile_report().ToString();
  ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
  EXPECT_EQ(ops.size(), 1u);  // the fused convolution
  // The default backend again.
  b.hybridize(true, {.static_alloc = true, .static_shape = true});
  EXPECT_TRUE(AllClose(b(x), expected, 1e-5, 1e-5));
  EXPECT_TRUE(AllClose(b(x), expected, 1e-5, 1e-5));
  EXPECT_EQ(b.compile_report().nodes_after, 1);
  setenv("MXNET_SUBGRAPH_BACKEND", "NONE", 1);  // MXNet's switch for no passes
  b.hybridize(true, {.static_alloc = true, .static_shape = true});
  EXPECT_TRUE(AllClose(b(x), expected, 1e-5, 1e-5));
  EXPECT_EQ(b.compile_report().nodes_after, 3);
  if (saved)
    setenv("MXNET_SUBGRAPH_BACKEND", saved_value.c_str(), 1);
  else
    unsetenv("MXNET_SUBGRAPH_BACKEND");
  EXPECT_THROW(b.optimize_for({x}, "tensorrt"), Error);
  // "Fine-tuning": new parameter values are what the next export writes.
  b.hybridize();
  b.collect_params().get("bias")->set_data(NDArray::Full(Shape{4}, 0.25));
  net.bias->set_data(NDArray::Full(Shape{4}, 0.25));
  NDArray tuned = net(x);
  ASSERT_TRUE(b.export_model(prefix + "_tuned", 2).ok());
  auto again =
      SymbolBlock::imports(prefix + "_tuned-symbol.json", {"data"}, prefix + "_tuned-0002.params");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(AllClose((**again)(x), tuned, 1e-5, 1e-5));
}

// A HybridBlock called on a Symbol returns the Symbol of its forward (MXNet's F = mx.sym path):
// parameters are variables with their structured names, so a SymbolBlock over the result with
// the block's collect_params() computes the block's outputs (the seeds' feature-extraction
// recipe). A SymbolBlock called on a Symbol composes its graph.
TEST(HybridBlock, CalledOnSymbolsReturnsItsGraph) {
  Net net;  // not initialized: the graph needs no parameter values
  sym::Symbol x = sym::Symbol::Variable("x", {.shape = Shape{3}});
  sym::Symbol out = net(x);
  EXPECT_EQ(out.list_arguments(), (std::vector<std::string>{"x", "layer0.weight", "layer0.bias",
                                                            "layer1.weight", "layer1.bias"}));
  EXPECT_EQ(out.num_outputs(), 1u);
  // The symbol's shape did not fix the parameters' shapes: another shape still works.
  {
    Net other;
    other(sym::Symbol::Variable("x", {.shape = Shape{3}}));
    other.initialize();
    EXPECT_EQ(other(NDArray::Full(Shape{4}, 1.0)).shape(), Shape({4}));
    EXPECT_EQ(other.layer0->weight->shape(), Shape({4}));
  }
  net.initialize(init::Uniform(1.0));
  NDArray xa = RandomArray(Shape{3}, -1, 1, 4, DType::kFloat32);
  NDArray y = net(xa);
  SymbolBlock sb(out, std::vector<std::string>{"x"}, net.collect_params());
  EXPECT_TRUE(AllClose(sb(xa), y, 0, 0));
  EXPECT_EQ(sb.collect_params().get("layer1.bias"), net.collect_params().get("layer1.bias"));
  // An expression of x is composed in place of the block's input.
  sym::Symbol doubled = net(x * 2.0);
  SymbolBlock sb2(doubled, std::vector<std::string>{"x"}, net.collect_params());
  EXPECT_TRUE(AllClose(sb2(xa), net(nd::mul_scalar(xa, 2.0)), 1e-6, 1e-6));
  // Without a shape the block needs a traced graph: the error says how to get one.
  Net fresh;
  try {
    fresh(sym::Symbol::Variable("data"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("VarOptions::shape"), std::string::npos) << e.what();
  }
  net.hybridize();
  net(xa);
  sym::Symbol traced = net(sym::Symbol::Variable("data"));
  EXPECT_EQ(traced.list_arguments().front(), "data");
  // SymbolBlock on a symbol: its graph with z in place of x.
  sym::Symbol composed = sb(sym::Symbol::Variable("z"));
  EXPECT_EQ(composed.list_arguments().front(), "z");
  SymbolBlock sb3(composed, std::vector<std::string>{"z"}, net.collect_params());
  EXPECT_TRUE(AllClose(sb3(xa), y, 0, 0));
  EXPECT_THROW(sb(std::vector<sym::Symbol>{}), Error);
}

// y = multicast(cast(x, float16), weight)[0] * weight: AMP casts in the traced graph.
class AmpMul : public HybridBlock {
 public:
  AmpMul() { weight = register_parameter("weight", {.shape = Shape{3}}); }
  NDArray forward(const NDArray& x) override {
    NDArray h = nd::amp_cast(x, DType::kFloat16);
    std::vector<NDArray> v = nd::amp_multicast({h, weight->data(x.device())});
    return nd::elemwise_mul(v[0], v[1]);
  }
  ParameterPtr weight;
};

// export's remove_amp_cast (MXNet's default True) drops amp_cast / amp_multicast, rewiring their
// consumers to the casts' inputs; the in-memory export (MXNet 2's export(None)) gives the same
// graph and arg:/aux: parameters as the files.
TEST(HybridBlock, ExportRemovesAmpCastsAndExportsInMemory) {
  AmpMul net;
  net.initialize();
  net.weight->set_data(NDArray::FromVector(std::vector<float>{1.0f, 3.0f, -2.0f}, Shape{3}));
  net.hybridize();
  // 1/3 is not a float16 value: the cast rounds it (float16 1/3 = 0.333251953125).
  NDArray x = NDArray::FromVector(std::vector<float>{1.0f / 3, 0.5f, 2049.0f}, Shape{3});
  EXPECT_EQ(net(x).ToVector<float>(), (std::vector<float>{0.333251953125f, 1.5f, -4096.0f}));
  std::string prefix = TempPath("amp");
  ASSERT_TRUE(net.export_model(prefix).ok());
  ASSERT_TRUE(net.export_model(prefix + "_kept", 0, ExportOptions{.remove_amp_cast = false}).ok());
  auto read = [](const std::string& path) {
    std::ifstream f(path);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  EXPECT_EQ(read(prefix + "-symbol.json").find("amp_"), std::string::npos);
  EXPECT_NE(read(prefix + "_kept-symbol.json").find("\"amp_cast\""), std::string::npos);
  EXPECT_NE(read(prefix + "_kept-symbol.json").find("\"amp_multicast\""), std::string::npos);
  // Without the casts: float32 x * weight exactly (hand-computed).
  auto sb = SymbolBlock::imports(prefix + "-symbol.json", {"data"}, prefix + "-0000.params");
  ASSERT_TRUE(sb.ok()) << sb.status();
  EXPECT_EQ((**sb)(x).ToVector<float>(), (std::vector<float>{1.0f / 3, 1.5f, -4098.0f}));
  auto kept =
      SymbolBlock::imports(prefix + "_kept-symbol.json", {"data"}, prefix + "_kept-0000.params");
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_TRUE(AllClose((**kept)(x), net(x), 0, 0));
  // The cached graph itself keeps its casts (the export works on a copy).
  EXPECT_NE(net.cached_graph().tojson().find("amp_cast"), std::string::npos);
  // In memory: the file's graph and keys.
  absl::StatusOr<ExportedModel> m = net.export_model(ExportOptions{});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->symbol.tojson(), sym::Symbol::load(prefix + "-symbol.json")->tojson());
  ASSERT_EQ(m->params.size(), 1u);
  EXPECT_EQ(m->params[0].first, "arg:weight");
  EXPECT_TRUE(AllClose(m->params[0].second, net.weight->data(), 0, 0));
  AmpMul never_called;
  EXPECT_EQ(never_called.export_model(ExportOptions{}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// infer_type keeps the parameters' declared dtypes and fails when an op does not accept them,
// as MXNet 1.9.1 does: nn.Dense(3, in_units=4) (float32) .infer_type(float64 data) raises
// "Incompatible attr in node dense0_fwd at 1-th input: expected float64, got float32".
// (A SymbolBlock's parameters adopt the inferred dtypes: ModuleExportLabels in
// symbol_block_test.)
TEST(HybridBlock, InferTypeChecksDeclaredDtypesLikeMxnet) {
  Mul m;
  m.initialize();
  EXPECT_THROW(m.infer_type({NDArray::Full(Shape{3}, 1.0, cpu(), DType::kFloat64)}), Error);
  m.infer_type({NDArray::Full(Shape{3}, 1.0)});
  EXPECT_EQ(m.weight->dtype(), DType::kFloat32);
  EXPECT_EQ(m.weight->shape(), Shape({3}));
}

// load_parameters' cast_dtype / dtype_source (MXNet 1.9's Parameter._load_init): without
// cast_dtype a dtype mismatch is an error; 'current' converts the file's values to the
// parameter's dtype, 'saved' makes the parameter take the file's dtype.
TEST(Block, LoadParametersCastDtype) {
  Net a;
  a.initialize(init::Uniform(1.0));
  NDArray x = NDArray::Full(Shape{3}, 1.0);
  a(x);
  a.cast(DType::kFloat64);
  a.layer0->weight->set_data(NDArray::FromVector(std::vector<double>{1.0 / 3, 0.1, 2.0}, Shape{3}));
  std::string path = TempPath("f64.params");
  ASSERT_TRUE(a.save_parameters(path).ok());
  auto fresh = [&] {
    auto n = std::make_unique<Net>();
    n->initialize();
    (*n)(x);
    return n;
  };
  auto b = fresh();
  absl::Status st = b->load_parameters(path);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("cast_dtype"), std::string::npos) << st;
  ASSERT_TRUE(b->load_parameters(path, {.cast_dtype = true}).ok());
  EXPECT_EQ(b->layer0->weight->dtype(), DType::kFloat32);
  EXPECT_EQ(b->layer0->weight->data().ToVector<float>(),
            (std::vector<float>{1.0f / 3, 0.1f, 2.0f}));
  auto c = fresh();
  ASSERT_TRUE(c->load_parameters(path, {.cast_dtype = true, .dtype_source = "saved"}).ok());
  EXPECT_EQ(c->layer0->weight->dtype(), DType::kFloat64);
  EXPECT_EQ(c->layer0->weight->data().ToVector<double>(), (std::vector<double>{1.0 / 3, 0.1, 2.0}));
  // reset_ctx is reset_device (MXNet 1.x's name): data kept.
  c->reset_ctx({cpu()});
  EXPECT_EQ(c->layer0->weight->data().ToVector<double>(), (std::vector<double>{1.0 / 3, 0.1, 2.0}));
}

}  // namespace
}  // namespace mxnet::gluon
