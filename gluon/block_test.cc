#include "gluon/block.h"

#include <atomic>
#include <cstdio>
#include <latch>
#include <thread>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "gluon/symbol_block.h"
#include "ndarray/ops/conv/conv_api.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/elemwise/elemwise_api.h"
#include "ndarray/ops/nn/nn_api.h"
#include "ndarray/ops/random/sample_api.h"
#include "ndarray/ops/reduce/reduce_api.h"
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
  sym::CompileReport report = net.compile_report();
  EXPECT_TRUE(report.inference);
  EXPECT_EQ(report.nodes_before, 3);
  EXPECT_EQ(report.nodes_after, 1) << report.ToString();  // one fused convolution
  EXPECT_TRUE(AllClose(net(x), expected, 1e-5, 1e-5));
  // Without a backend the traced graph runs as is.
  net.hybridize();
  EXPECT_TRUE(AllClose(net(x), expected, 1e-6, 1e-6));
  EXPECT_EQ(net.compile_report().nodes_after, 3);
  ConvBnRelu bad;
  bad.initialize();
  EXPECT_THROW(bad.optimize_for({x}, "tensorrt"), Error);
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

}  // namespace
}  // namespace mxnet::gluon
