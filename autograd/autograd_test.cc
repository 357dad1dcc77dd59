#include "autograd/autograd.h"
#include "autograd/grad_hooks.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/elemwise/elemwise_api.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::autograd {
namespace {

using testing::AllClose;

NDArray Vec(std::vector<double> v) {
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())}, cpu(), DType::kFloat64);
}

TEST(Autograd, ScopesNestAndRestore) {
  EXPECT_FALSE(is_recording());
  EXPECT_FALSE(is_training());
  {
    auto r = record();
    EXPECT_TRUE(is_recording());
    EXPECT_TRUE(is_training());
    {
      auto p = pause();
      EXPECT_FALSE(is_recording());
      EXPECT_FALSE(is_training());
      auto t = train_mode();
      EXPECT_TRUE(is_training());
    }
    EXPECT_TRUE(is_recording());
    auto pm = predict_mode();
    EXPECT_FALSE(is_training());
    EXPECT_TRUE(is_recording());
  }
  EXPECT_FALSE(is_recording());
  {
    auto r = record(/*train_mode=*/false);
    EXPECT_FALSE(is_training());
  }
  EXPECT_FALSE(set_recording(true));
  EXPECT_TRUE(set_recording(false));
}

// Gradient-ready hooks: a chain x -> h = w1*x -> y = w2*h -> z = y*b. Each variable is reported
// right after the last op reading it ran: b, w2, w1; when a hook runs, its variable's buffer
// holds the final gradient while w1's (not reported yet) still holds the old value. Hand values:
// dz/db = y = w2*w1*x, dz/dw2 = b*w1*x, dz/dw1 = b*w2*x.
TEST(Autograd, GradReadyHooksReportEachFinalGradientInReverseOrder) {
  NDArray x = Vec({1, 2}), w1 = Vec({3, -1}), w2 = Vec({0.5, 4}), b = Vec({2, 3});
  for (NDArray* v : {&w1, &w2, &b}) v->attach_grad();
  w1.grad().Fill(-7);  // sentinel: not written before w1 is reported
  b.attach_grad(GradReq::kAdd);
  b.grad().Fill(10);  // accumulates
  std::vector<std::string> seen;
  std::vector<std::vector<double>> at_report, w1_at_report;
  auto name = [&](const NDArray& v) {
    return v.is_same(w1) ? "w1" : v.is_same(w2) ? "w2" : v.is_same(b) ? "b" : "?";
  };
  int64_t id = AddGradReadyHook([&](const NDArray& v) {
    seen.push_back(name(v));
    at_report.push_back(v.grad().ToVector<double>());
    w1_at_report.push_back(w1.grad().ToVector<double>());
  });
  NDArray z;
  {
    auto r = record();
    z = nd::elemwise_mul(nd::elemwise_mul(w2, nd::elemwise_mul(w1, x)), b);
  }
  backward({z});
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[2], "w1");  // after w2 and b: each reported right after the op reading it
  EXPECT_EQ(seen[0], "b");   // read by the last op only
  EXPECT_EQ(seen[1], "w2");  // final after the second-to-last op, though w2 is the DFS's first
  for (size_t i = 0; i < 3; ++i) {
    std::vector<double> want = seen[i] == "w2"  ? std::vector<double>{6, -6}    // b*w1*x
                               : seen[i] == "b" ? std::vector<double>{11.5, 2}  // 10 + y
                                                : std::vector<double>{1, 24};   // b*w2*x
    EXPECT_EQ(at_report[i], want) << seen[i];
    if (seen[i] != "w1") {
      EXPECT_EQ(w1_at_report[i], (std::vector<double>{-7, -7})) << seen[i];
    }
  }
  // The same values as without hooks.
  RemoveGradReadyHook(id);
  NDArray w1b = Vec({3, -1}), w2b = Vec({0.5, 4});
  w1b.attach_grad();
  w2b.attach_grad();
  {
    auto r = record();
    z = nd::elemwise_mul(nd::elemwise_mul(w2b, nd::elemwise_mul(w1b, x)), Vec({2, 3}));
  }
  backward({z});
  EXPECT_EQ(w1b.grad().ToVector<double>(), w1.grad().ToVector<double>());
  EXPECT_EQ(w2b.grad().ToVector<double>(), w2.grad().ToVector<double>());
  EXPECT_EQ(seen.size(), 3u);  // removed: not called again
}

// A variable reached only through BlockGrad is still reported (its buffer was written: zeros for
// write); variables not reached are not; grad() reports nothing; a hook's error ends backward.
TEST(Autograd, GradReadyHooksCoverBlockedAndSkipUnreached) {
  NDArray w = Vec({1, 2}), blocked = Vec({5, 5}), unused = Vec({1, 1});
  for (NDArray* v : {&w, &blocked, &unused}) v->attach_grad();
  blocked.grad().Fill(9);
  int reports = 0, blocked_reports = 0;
  int64_t id = AddGradReadyHook([&](const NDArray& v) {
    ++reports;
    if (v.is_same(blocked)) {
      ++blocked_reports;
      EXPECT_EQ(v.grad().ToVector<double>(), (std::vector<double>{0, 0}));
    }
    EXPECT_FALSE(v.is_same(unused));
  });
  NDArray y;
  {
    auto r = record();
    y = nd::elemwise_mul(w, nd::BlockGrad(blocked));
  }
  auto g = grad({y}, {w}, {}, /*retain_graph=*/true);
  EXPECT_EQ(reports, 0);
  EXPECT_EQ(g[0].ToVector<double>(), (std::vector<double>{5, 5}));
  backward({y});
  EXPECT_EQ(reports, 2);
  EXPECT_EQ(blocked_reports, 1);
  RemoveGradReadyHook(id);
  id =
      AddGradReadyHook([](const NDArray&) { MX_THROW(absl::StatusCode::kAborted, "hook failed"); });
  {
    auto r = record();
    y = nd::elemwise_mul(w, w);
  }
  EXPECT_THROW(backward({y}), Error);
  RemoveGradReadyHook(id);
  EXPECT_THROW(AddGradReadyHook(nullptr), Error);
  RemoveGradReadyHook(123456);  // unknown: no-op
}

// A variable read by two ops is reported once, after both ran, with the summed gradient
// (d(w*x*w)/dw = 2*w*x); a head that is itself a variable is reported (gradient ones).
TEST(Autograd, GradReadyHooksWaitForEveryReader) {
  NDArray w = Vec({3, -2}), x = Vec({1, 5});
  w.attach_grad();
  std::vector<std::vector<double>> reports;
  int64_t id =
      AddGradReadyHook([&](const NDArray& v) { reports.push_back(v.grad().ToVector<double>()); });
  NDArray z;
  {
    auto r = record();
    z = nd::elemwise_mul(nd::elemwise_mul(w, x), w);
  }
  backward({z});
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0], (std::vector<double>{6, -20}));
  backward({w});
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[1], (std::vector<double>{1, 1}));
  RemoveGradReadyHook(id);
}

TEST(Autograd, SquareGivesTwoX) {
  NDArray x = Vec({1, -2, 3});
  x.attach_grad();
  NDArray y;
  {
    auto r = record();
    y = nd::elemwise_mul(x, x);
  }
  backward({y});
  EXPECT_EQ(x.grad().ToVector<double>(), (std::vector<double>{2, -4, 6}));
}

TEST(Autograd, NDArrayBackwardMethod) {
  NDArray x = Vec({2, 5});
  x.attach_grad();
  NDArray y;
  {
    auto r = record();
    y = nd::elemwise_mul(x, x);
  }
  y.backward(Vec({1, 0.5}));
  EXPECT_EQ(x.grad().ToVector<double>(), (std::vector<double>{4, 5}));
}

TEST(Autograd, HeadGradsScale) {
  NDArray x = Vec({1, 2});
  x.attach_grad();
  NDArray y;
  {
    auto r = record();
    y = nd::mul_scalar(x, 3);
  }
  backward({y}, {Vec({10, -1})});
  EXPECT_EQ(x.grad().ToVector<double>(), (std::vector<double>{30, -3}));
  EXPECT_THROW(backward({y}, {Vec({1, 2, 3})}, true), Error);
}

TEST(Autograd, GradReqAddAccumulatesAndNullIsUntouched) {
  NDArray x = Vec({1, 2}), z = Vec({5, 5});
  x.attach_grad(GradReq::kAdd);
  z.attach_grad(GradReq::kNull);
  for (int step = 0; step < 3; ++step) {
    NDArray y;
    {
      auto r = record();
      y = nd::elemwise_mul(nd::mul_scalar(x, 2), z);
    }
    backward({y});
  }
  EXPECT_EQ(x.grad().ToVector<double>(), (std::vector<double>{30, 30}));  // 3 steps of 2*z
  EXPECT_EQ(z.grad().ToVector<double>(), (std::vector<double>{0, 0}));
}

TEST(Autograd, WriteOverwrites) {
  NDArray x = Vec({1});
  x.attach_grad();
  for (int step = 0; step < 2; ++step) {
    NDArray y;
    {
      auto r = record();
      y = nd::mul_scalar(x, 4);
    }
    backward({y});
  }
  EXPECT_EQ(x.grad().ToVector<double>(), (std::vector<double>{4}));
}

// A variable reached only through BlockGrad gets no gradient: real MXNet 1.9.1 then writes zeros
// for grad_req write, keeps the buffer for add, and marks both fresh.
TEST(Autograd, BlockedVariableGetsZerosForWriteAndKeepsAdd) {
  NDArray x = Vec({1, 2}), x2 = Vec({1, 2}), w = Vec({3, 4});
  x.attach_grad();
  x2.attach_grad(GradReq::kAdd);
  w.attach_grad();
  x.grad().Fill(5);
  x2.grad().Fill(5);
  NDArray y;
  {
    auto r = record();
    y = nd::elemwise_add(nd::elemwise_mul(nd::BlockGrad(x), w),
                         nd::elemwise_mul(nd::BlockGrad(x2), w));
  }
  backward({y});
  EXPECT_EQ(x.grad().ToVector<double>(), (std::vector<double>{0, 0}));
  EXPECT_EQ(x2.grad().ToVector<double>(), (std::vector<double>{5, 5}));
  EXPECT_EQ(w.grad().ToVector<double>(), (std::vector<double>{2, 4}));
  EXPECT_TRUE(x.fresh_grad());
  EXPECT_TRUE(x2.fresh_grad());
}

TEST(Autograd, FanOutAccumulatesAndBroadcastGradientsSum) {
  NDArray x = Vec({1, 2, 3});
  NDArray b = NDArray::FromVector(std::vector<double>{2}, Shape{1}, cpu(), DType::kFloat64);
  x.attach_grad();
  b.attach_grad();
  NDArray y;
  {
    auto r = record();
    // y = x*x + x * broadcast(b)  -> dy/dx = 2x + b, dy/db = sum(x)
    y = nd::elemwise_add(nd::elemwise_mul(x, x), nd::elemwise_mul(x, nd::broadcast_like(b, x)));
  }
  backward({y});
  EXPECT_EQ(x.grad().ToVector<double>(), (std::vector<double>{4, 6, 8}));
  EXPECT_EQ(b.grad().ToVector<double>(), (std::vector<double>{6}));
}

TEST(Autograd, SecondBackwardNeedsRetainGraph) {
  NDArray x = Vec({3});
  x.attach_grad();
  NDArray y;
  {
    auto r = record();
    y = nd::elemwise_mul(x, x);
  }
  backward({y}, {}, /*retain_graph=*/true);
  backward({y}, {}, /*retain_graph=*/false);
  EXPECT_EQ(x.grad().ToVector<double>(), (std::vector<double>{6}));
  try {
    backward({y});
    FAIL() << "a freed graph must not run twice";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(std::string(e.what()).find("retain_graph"), std::string::npos) << e.what();
  }
}

TEST(Autograd, UnrecordedHeadIsAClearError) {
  NDArray x = Vec({1});
  x.attach_grad();
  NDArray y = nd::elemwise_mul(x, x);  // not recording
  EXPECT_THROW(backward({y}), Error);
  NDArray c = Vec({1});
  NDArray z;
  {
    auto r = record();
    z = nd::elemwise_mul(c, c);  // no variable involved: not recorded
  }
  EXPECT_FALSE(is_tracked(z));
  EXPECT_THROW(backward({z}), Error);
}

TEST(Autograd, GradDoesNotTouchDotGrad) {
  NDArray x = Vec({1, 2});
  x.attach_grad();
  NDArray y;
  {
    auto r = record();
    y = nd::elemwise_mul(x, x);
  }
  auto g = grad({y}, {x});
  EXPECT_EQ(g[0].ToVector<double>(), (std::vector<double>{2, 4}));
  EXPECT_EQ(x.grad().ToVector<double>(), (std::vector<double>{0, 0}));
}

TEST(Autograd, SecondOrderMatchesClosedForm) {
  // y = x^3: dy/dx = 3x^2, d2y/dx2 = 6x.
  NDArray x = Vec({-1.5, 0.5, 2});
  x.attach_grad();
  NDArray dx;
  {
    auto r = record();
    NDArray y = nd::elemwise_mul(nd::elemwise_mul(x, x), x);
    dx = grad({y}, {x}, {}, false, /*create_graph=*/true)[0];
  }
  EXPECT_TRUE(AllClose(dx, Vec({6.75, 0.75, 12})));
  backward({dx});
  EXPECT_TRUE(AllClose(x.grad(), Vec({-9, 3, 12})));
}

TEST(Autograd, ThirdOrderThroughDivision) {
  // y = 1/x: y' = -1/x^2, y'' = 2/x^3, y''' = -6/x^4.
  NDArray x = Vec({0.5, 2});
  x.attach_grad();
  NDArray d3;
  {
    auto r = record();
    NDArray y = nd::rdiv_scalar(x, 1);
    NDArray d1 = grad({y}, {x}, {}, false, true)[0];
    NDArray d2 = grad({d1}, {x}, {}, false, true)[0];
    d3 = grad({d2}, {x}, {}, false, true)[0];
  }
  EXPECT_TRUE(AllClose(d3, Vec({-96, -0.375}), 1e-10));
}

TEST(Autograd, MarkVariables) {
  NDArray x = Vec({1, 2}), gx = Vec({7, 7});
  mark_variables({x}, {gx}, {GradReq::kWrite});
  NDArray y;
  {
    auto r = record();
    y = nd::plus_scalar(x, 1);
  }
  backward({y});
  EXPECT_EQ(gx.ToVector<double>(), (std::vector<double>{1, 1}));
  EXPECT_THROW(mark_variables({x}, {Vec({1})}, {GradReq::kWrite}), Error);
}

class Sigmoid : public Function {
 public:
  std::vector<NDArray> forward(const std::vector<NDArray>& in) override {
    std::vector<double> v = in[0].ToVector<double>();
    for (auto& e : v) e = 1 / (1 + std::exp(-e));
    NDArray y = NDArray::FromVector(v, in[0].shape(), cpu(), in[0].dtype());
    save_for_backward({y});
    return {y};
  }
  std::vector<NDArray> backward(const std::vector<NDArray>& og) override {
    const NDArray& y = saved_tensors()[0];
    // dy/dx = y * (1 - y)
    return {nd::elemwise_mul(og[0], nd::elemwise_mul(y, nd::rminus_scalar(y, 1)))};
  }
};

TEST(Autograd, CustomFunction) {
  NDArray x = Vec({0, 1});
  x.attach_grad();
  NDArray z;
  {
    auto r = record();
    NDArray y = (*std::make_shared<Sigmoid>())({x})[0];
    z = nd::mul_scalar(y, 2);
  }
  backward({z});
  double s1 = 1 / (1 + std::exp(-1.0));
  EXPECT_TRUE(AllClose(x.grad(), Vec({0.5, 2 * s1 * (1 - s1)}), 1e-12));
}

TEST(Autograd, ThreadsRecordIndependently) {
  auto work = [](double scale, std::vector<double>* out, bool* saw_recording) {
    NDArray x = Vec({1, 2});
    x.attach_grad();
    for (int i = 0; i < 200; ++i) {
      NDArray y;
      {
        auto r = record();
        y = nd::mul_scalar(nd::elemwise_mul(x, x), scale);
      }
      backward({y});
    }
    *saw_recording = is_recording();
    *out = x.grad().ToVector<double>();
  };
  std::vector<double> a, b;
  bool ra = true, rb = true;
  // The main thread records too, while the workers run.
  auto outer = record();
  std::thread t1(work, 1.0, &a, &ra), t2(work, 10.0, &b, &rb);
  t1.join();
  t2.join();
  EXPECT_EQ(a, (std::vector<double>{2, 4}));
  EXPECT_EQ(b, (std::vector<double>{20, 40}));
  EXPECT_FALSE(ra);  // a new thread starts not recording
  EXPECT_FALSE(rb);
}

// The flags belong to the current RuntimeContext: a context that starts recording on one thread
// records on the next (a goroutine moving between OS threads), and the history it records is
// differentiated on a third thread.
TEST(Autograd, RecordingFollowsTheContextAcrossThreads) {
  RuntimeContext ctx;
  NDArray x = Vec({1, 3});
  x.attach_grad();
  NDArray y;
  auto on_thread = [&](auto f) {
    std::thread t([&] {
      ContextScope s(ctx);
      f();
    });
    t.join();
  };
  on_thread([] { set_recording(true); });
  on_thread([&] { y = nd::elemwise_mul(x, x); });
  on_thread([] { EXPECT_TRUE(set_recording(false)); });
  EXPECT_FALSE(is_recording());  // this thread's default context never recorded
  std::thread t([&] { backward({y}); });
  t.join();
  EXPECT_TRUE(AllClose(x.grad(), Vec({2, 6}), 0));
}

// A record() scope restores the context it changed, whichever context is current when it ends.
TEST(Autograd, ScopesRestoreTheirOwnContext) {
  RuntimeContext ctx;
  auto outer = record(false);
  std::optional<Scope> inner;
  {
    ContextScope s(ctx);
    EXPECT_FALSE(is_recording());  // a fresh context
    inner.emplace(record());
    EXPECT_TRUE(is_recording());
    EXPECT_TRUE(is_training());
  }
  EXPECT_TRUE(is_recording());  // the thread's default context, unchanged by ctx's scope
  EXPECT_FALSE(is_training());
  inner.reset();
  EXPECT_FALSE(ctx.dispatch.is_recording);
  EXPECT_FALSE(ctx.dispatch.is_training);
  EXPECT_TRUE(is_recording());
}

TEST(Autograd, NoGrowthOver10000Iterations) {
  NDArray x = NDArray::Full(Shape{64}, 0.5, cpu(), DType::kFloat32);
  x.attach_grad();
  auto run = [&] {
    NDArray y;
    {
      auto r = record();
      y = nd::elemwise_mul(nd::plus_scalar(x, 1), x);
    }
    backward({y});
  };
  run();
  int64_t nodes = LiveNodeCount();
  size_t in_use = Storage::GetStats(cpu()).bytes_in_use;
  for (int i = 0; i < 10000; ++i) run();
  EXPECT_EQ(LiveNodeCount(), nodes);
  EXPECT_EQ(Storage::GetStats(cpu()).bytes_in_use, in_use);
}

// Gradients of composite expressions vs real MXNet 1.9.1 (tools/conformance/gen_autograd_refs.py).
TEST(Autograd, CompositeExpressionsMatchMxnet) {
  std::ifstream f("autograd/testdata/composite.json");
  ASSERT_TRUE(f.good());
  nlohmann::json j = nlohmann::json::parse(f);
  auto arr = [](const nlohmann::json& a) {
    std::vector<int64_t> s = a["shape"].get<std::vector<int64_t>>();
    return NDArray::FromVector(a["values"].get<std::vector<double>>(), Shape(s), cpu(),
                               DType::kFloat64);
  };
  using Fn = std::function<NDArray(const std::vector<NDArray>&)>;
  std::map<std::string, Fn> fns = {
      {"mul_div_chain",
       [](const std::vector<NDArray>& v) {
         const NDArray &x = v[0], &y = v[1];
         return nd::elemwise_mul(
             nd::elemwise_sub(nd::elemwise_add(nd::elemwise_mul(x, y), nd::elemwise_div(x, y)),
                              nd::mul_scalar(x, 3)),
             y);
       }},
      {"broadcast_like_mix",
       [](const std::vector<NDArray>& v) {
         return nd::elemwise_add(nd::elemwise_mul(nd::broadcast_like(v[1], v[0]), v[0]),
                                 nd::rdiv_scalar(v[0], 2));
       }},
      {"cubic_minus",
       [](const std::vector<NDArray>& v) {
         const NDArray& x = v[0];
         return nd::elemwise_sub(nd::elemwise_mul(nd::elemwise_mul(x, x), x),
                                 nd::mul_scalar(nd::negative(x), -1));
       }},
      {"shared_input_fanout",
       [](const std::vector<NDArray>& v) {
         const NDArray& x = v[0];
         return nd::elemwise_add(nd::elemwise_mul(x, x),
                                 nd::elemwise_div(x, nd::plus_scalar(x, 2)));
       }},
  };
  ASSERT_EQ(j.size(), fns.size());
  for (auto& [name, c] : j.items()) {
    SCOPED_TRACE(name);
    std::vector<NDArray> in;
    for (auto& a : c["inputs"]) in.push_back(arr(a));
    for (auto& a : in) a.attach_grad();
    NDArray y;
    {
      auto r = record();
      y = fns.at(name)(in);
    }
    NDArray expected_y = arr(c["output"]);
    EXPECT_TRUE(AllClose(y, expected_y, 1e-12, 1e-12));
    backward({y}, {NDArray::FromVector(c["head_grad"].get<std::vector<double>>(), y.shape(), cpu(),
                                       DType::kFloat64)});
    for (size_t i = 0; i < in.size(); ++i) {
      NDArray g = NDArray::FromVector(c["grads"][i].get<std::vector<double>>(), in[i].shape(),
                                      cpu(), DType::kFloat64);
      EXPECT_TRUE(AllClose(in[i].grad(), g, 1e-10, 1e-12)) << "input " << i;
    }
  }
}

}  // namespace
}  // namespace mxnet::autograd
