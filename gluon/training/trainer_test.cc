// Trainer: steps on autograd gradients vs real MXNet 1.9.1 (testdata/trainer.json), linear
// regression to convergence (grad_req write and add), stale gradients, save/load_states,
// allreduce across two CPU devices, grad_req null, learning rate control.
#include "gluon/training/trainer.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "autograd/autograd.h"
#include "ndarray/io.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon {
namespace {

using json = nlohmann::json;
using ::mxnet::testing::AllClose;

NDArray FromJson(const json& j) {
  std::vector<int64_t> dims = j["shape"].get<std::vector<int64_t>>();
  DType t = ValueOrThrow(DTypeFromName(j["dtype"].get<std::string>()));
  return NDArray::FromVector(j["data"].get<std::vector<double>>(), Shape(dims), cpu(), t);
}

ParameterPtr MakeParam(const std::string& name, Shape shape, const NDArray& value,
                       std::vector<Device> devices = {cpu()}, GradReq req = GradReq::kWrite,
                       double lr_mult = 1.0, double wd_mult = 1.0) {
  auto p = std::make_shared<Parameter>(
      name,
      ParameterOptions{.shape = shape, .grad_req = req, .lr_mult = lr_mult, .wd_mult = wd_mult});
  p->initialize(nullptr, devices);
  p->set_data(value);
  return p;
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return StrCat(dir ? dir : "/tmp", "/", name);
}

NDArray RandomArray(Shape s, uint64_t seed) {
  return testing::RandomArray(s, -1, 1, seed, DType::kFloat32);
}

// ---- Real MXNet: gluon.Trainer.step on gradients from backward. ----
TEST(TrainerConformance, StepsMatchMxnet) {
  std::ifstream f("gluon/training/testdata/trainer.json");
  ASSERT_TRUE(f.good()) << "missing gluon/training/testdata/trainer.json";
  json doc = json::parse(f);
  for (const json& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    auto w = MakeParam("w", Shape{2, 3}, FromJson(c["w"]), {cpu()}, GradReq::kWrite, 0.5, 1.0);
    auto b = MakeParam("b", Shape{3}, FromJson(c["b"]), {cpu()}, GradReq::kWrite, 1.0, 0.0);
    ParameterDict dict;
    dict.add("w", w);
    dict.add("b", b);  // sorted by name: b is index 0, w index 1 (as MXNet)
    Kwargs kw;
    for (auto& [k, v] : c["kwargs"].items())
      kw.emplace(k, v.is_boolean() ? KwargValue(v.get<bool>()) : KwargValue(v.get<double>()));
    Trainer tr(dict, c["optimizer"].get<std::string>(), kw);
    EXPECT_EQ(tr.params()[0], b);
    for (int t = 0; t < 3; ++t) {
      NDArray l1, l2;
      {
        auto rec = autograd::record();
        l1 = nd::elemwise_mul(w->data(), FromJson(c["xs"][t]));
        l2 = nd::elemwise_mul(b->data(), FromJson(c["ys"][t]));
      }
      autograd::backward({l1, l2});
      tr.step(c["batch_size"].get<double>());
      const json& s = c["steps"][t];
      EXPECT_TRUE(AllClose(w->data(), FromJson(s["w"]), 1e-5, 1e-6)) << "step " << t + 1;
      EXPECT_TRUE(AllClose(b->data(), FromJson(s["b"]), 1e-5, 1e-6)) << "step " << t + 1;
      EXPECT_NEAR(tr.learning_rate(), s["lr"].get<double>(), 1e-12);
    }
  }
}

// ---- Linear regression y = X w* + b* with autograd, to convergence. ----
struct Regression {
  NDArray x, y;  // (n, d), (n, 1)
  Regression(int n, int d, uint64_t seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> xs(n * d), ys(n);
    std::vector<double> w_true{1.5, -2.0, 0.7, 0.3};
    double b_true = 0.25;
    for (int i = 0; i < n; ++i) {
      double s = b_true;
      for (int k = 0; k < d; ++k) s += (xs[i * d + k] = u(gen)) * w_true[k % 4];
      ys[i] = s;
    }
    x = NDArray::FromVector(xs, Shape{n, d}, cpu(), DType::kFloat32);
    y = NDArray::FromVector(ys, Shape{n, 1}, cpu(), DType::kFloat32);
  }
  // Sum of squared errors and its gradients into w (1, d) and b (1,).
  NDArray Loss(const NDArray& w, const NDArray& b) const {
    NDArray xw = nd::elemwise_mul(nd::broadcast_like(w, x), x);                 // (n, d)
    NDArray pred = Invoke("_reduce_sum_like", std::vector<NDArray>{xw, y})[0];  // (n, 1)
    pred = nd::elemwise_add(pred, nd::broadcast_like(b, y));
    NDArray err = nd::elemwise_sub(pred, y);
    return nd::elemwise_mul(err, err);  // (n, 1); backward with ones = d(sum)/d(.)
  }
};

double TrainRegression(const std::string& opt, const Kwargs& kw, GradReq req, int steps,
                       std::vector<double>* losses) {
  const int n = 32, d = 3;
  Regression data(n, d, 17);
  auto w = MakeParam("weight", Shape{1, d}, NDArray::Full(Shape{1, d}, 0.0), {cpu()}, req);
  auto b = MakeParam("bias", Shape{1}, NDArray::Full(Shape{1}, 0.0), {cpu()}, req);
  Trainer tr(std::vector<ParameterPtr>{w, b}, opt, kw);
  double mse = 0;
  for (int s = 0; s < steps; ++s) {
    NDArray loss;
    {
      auto rec = autograd::record();
      loss = data.Loss(w->data(), b->data());
    }
    autograd::backward({loss});
    std::vector<double> l = loss.ToVector<double>();
    mse = 0;
    for (double v : l) mse += v / n;
    if (losses) losses->push_back(mse);
    tr.step(n);
    if (req == GradReq::kAdd) {
      w->zero_grad();
      b->zero_grad();
    }
  }
  return mse;
}

TEST(Trainer, LinearRegressionConverges) {
  std::vector<double> losses;
  double final_mse = TrainRegression("sgd", {{"learning_rate", 0.5}, {"momentum", 0.5}},
                                     GradReq::kWrite, 150, &losses);
  EXPECT_LT(final_mse, 1e-6);
  EXPECT_LT(losses[10], losses[0]);
  EXPECT_LT(TrainRegression("adam", {{"learning_rate", 0.05}}, GradReq::kWrite, 400, nullptr),
            1e-4);
}

TEST(Trainer, GradReqAddAccumulatesUntilZeroGrad) {
  // With zero_grad after every step, "add" behaves like "write".
  std::vector<double> a, b;
  TrainRegression("sgd", {{"learning_rate", 0.5}}, GradReq::kWrite, 30, &a);
  TrainRegression("sgd", {{"learning_rate", 0.5}}, GradReq::kAdd, 30, &b);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6 * (1 + a[i]));
  EXPECT_LT(b.back(), 1e-3);
  // Two backward passes before a step accumulate twice the gradient.
  auto w = MakeParam("w", Shape{2}, NDArray::Full(Shape{2}, 1.0), {cpu()}, GradReq::kAdd);
  Trainer tr(std::vector<ParameterPtr>{w}, "sgd", {{"learning_rate", 0.1}});
  for (int i = 0; i < 2; ++i) {
    NDArray l;
    {
      auto rec = autograd::record();
      l = nd::elemwise_mul(w->data(), NDArray::Full(Shape{2}, 3.0));
    }
    autograd::backward({l});
  }
  tr.step(1);
  EXPECT_TRUE(AllClose(w->data(), NDArray::Full(Shape{2}, 1.0 - 0.1 * 6.0)));
}

void Forward(const std::vector<ParameterPtr>& used) {
  std::vector<NDArray> heads;
  {
    auto rec = autograd::record();
    for (const auto& p : used) heads.push_back(nd::mul_scalar(p->data(), 2.0));
  }
  autograd::backward(heads);
}

TEST(Trainer, StaleGradientsAreAnErrorUnlessIgnored) {
  auto a = MakeParam("a", Shape{2}, NDArray::Full(Shape{2}, 1.0));
  auto b = MakeParam("b", Shape{2}, NDArray::Full(Shape{2}, 1.0));
  ParameterDict dict;
  dict.add("a", a);
  dict.add("b", b);
  Trainer tr(dict, "sgd", {{"learning_rate", 0.1}});
  Forward({a});  // b is not used
  try {
    tr.step(1);
    FAIL() << "expected a stale-gradient error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(std::string(e.what()).find("Parameter `b`"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cpu(0)"), std::string::npos) << e.what();
  }
  // Nothing was updated by the failed step.
  EXPECT_TRUE(AllClose(a->data(), NDArray::Full(Shape{2}, 1.0)));
  // ignore_stale_grad: a is updated, b is skipped.
  tr.step(1, /*ignore_stale_grad=*/true);
  EXPECT_TRUE(AllClose(a->data(), NDArray::Full(Shape{2}, 0.8)));
  EXPECT_TRUE(AllClose(b->data(), NDArray::Full(Shape{2}, 1.0)));
  EXPECT_EQ(tr.optimizer().index_update_count(1), 0);
  // a's gradient was consumed by that step: stepping again without a new forward is stale.
  EXPECT_THROW(tr.step(1), Error);
  Forward({a, b});
  tr.step(1);
  EXPECT_TRUE(AllClose(a->data(), NDArray::Full(Shape{2}, 0.6)));
  EXPECT_TRUE(AllClose(b->data(), NDArray::Full(Shape{2}, 0.8)));
}

// A model with two branches; each call uses one: y = x * w_left or y = x * w_right (elementwise).
struct TwoBranch {
  ParameterPtr left = MakeParam("left.weight", Shape{3},
                                NDArray::FromVector(std::vector<float>{1, 2, 3}, Shape{3}));
  ParameterPtr right = MakeParam("right.weight", Shape{3},
                                 NDArray::FromVector(std::vector<float>{-1, 0.5, 4}, Shape{3}));
  // Forward through one branch and backward from the output (head gradient ones).
  void Train(bool use_left, const NDArray& x) const {
    NDArray y;
    {
      auto rec = autograd::record();
      y = nd::elemwise_mul(x, (use_left ? left : right)->data());
    }
    autograd::backward({y});
  }
};

std::string StaleError(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kFailedPrecondition) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected a stale-gradient error";
  return "";
}

TEST(Trainer, UnusedBranchIsStale) {
  TwoBranch m;
  Trainer tr(std::vector<ParameterPtr>{m.left, m.right}, "sgd", {{"learning_rate", 0.1}});
  NDArray x = NDArray::FromVector(std::vector<float>{2, -4, 6}, Shape{3});
  m.Train(/*use_left=*/true, x);
  EXPECT_TRUE(m.left->data().fresh_grad());
  EXPECT_FALSE(m.right->data().fresh_grad());
  std::string msg = StaleError([&] { tr.step(2); });
  // MXNet's message, naming the unused parameter and its context.
  EXPECT_EQ(msg,
            "Gradient of Parameter `right.weight` on context cpu(0) has not been updated by "
            "backward since last `step`. This could mean a bug in your model that made it only "
            "use a subset of the Parameters (Blocks) for this iteration. If you are intentionally "
            "only using a subset, call step with ignore_stale_grad=True to suppress this warning "
            "and skip updating of Parameters with stale gradient");
  // The failed step changed nothing (and consumed no gradient).
  EXPECT_EQ(m.left->data().ToVector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_TRUE(m.left->data().fresh_grad());
  // ignore_stale_grad: the used branch takes exactly one SGD step, w -= lr * grad / batch_size
  // with grad = x: {1, 2, 3} - 0.1 * {2, -4, 6} / 2 = {0.9, 2.2, 2.7}; the other is untouched.
  tr.step(2, /*ignore_stale_grad=*/true);
  EXPECT_TRUE(AllClose(m.left->data(),
                       NDArray::FromVector(std::vector<float>{0.9f, 2.2f, 2.7f}, Shape{3}), 0,
                       1e-7));
  EXPECT_EQ(m.right->data().ToVector<float>(), (std::vector<float>{-1, 0.5, 4}));
  EXPECT_EQ(tr.optimizer().index_update_count(0), 1);
  EXPECT_EQ(tr.optimizer().index_update_count(1), 0);
  // The step consumed left's gradient.
  EXPECT_FALSE(m.left->data().fresh_grad());
  // Now only the right branch: left is the stale one.
  m.Train(/*use_left=*/false, x);
  EXPECT_NE(StaleError([&] { tr.step(2); }).find("Parameter `left.weight` on context cpu(0)"),
            std::string::npos);
  tr.step(2, true);
  // {-1, 0.5, 4} - 0.1 * {2, -4, 6} / 2 = {-1.1, 0.7, 3.7}
  EXPECT_TRUE(AllClose(m.right->data(),
                       NDArray::FromVector(std::vector<float>{-1.1f, 0.7f, 3.7f}, Shape{3}), 0,
                       1e-7));
  EXPECT_TRUE(AllClose(m.left->data(),
                       NDArray::FromVector(std::vector<float>{0.9f, 2.2f, 2.7f}, Shape{3}), 0,
                       1e-7));
}

TEST(Trainer, StepClearsTheFreshFlag) {
  TwoBranch m;
  Trainer tr(std::vector<ParameterPtr>{m.left}, "sgd", {{"learning_rate", 0.1}});
  NDArray x = NDArray::Full(Shape{3}, 1.0);
  m.Train(true, x);
  tr.step(1);
  EXPECT_FALSE(m.left->data().fresh_grad());
  // A second step without backward: stale, even though the gradient buffer still holds values.
  EXPECT_NE(StaleError([&] { tr.step(1); }).find("`left.weight`"), std::string::npos);
  // A recorded forward without backward is stale too (MXNet's flag is set by backward only).
  {
    auto rec = autograd::record();
    NDArray y = nd::elemwise_mul(x, m.left->data());
  }
  EXPECT_NE(StaleError([&] { tr.step(1); }).find("`left.weight`"), std::string::npos);
  // update() (no allreduce) checks and clears the same flag.
  m.Train(true, x);
  tr.update(1);
  EXPECT_THROW(tr.update(1), Error);
  EXPECT_EQ(tr.optimizer().index_update_count(0), 2);
}

TEST(Trainer, FreshGradFlagFollowsBackward) {
  NDArray plain = NDArray::Full(Shape{2}, 1.0);
  EXPECT_FALSE(plain.fresh_grad());
  EXPECT_THROW(plain.set_fresh_grad(true), Error);
  NDArray v = NDArray::Full(Shape{2}, 3.0);
  v.attach_grad(GradReq::kAdd);
  EXPECT_FALSE(v.fresh_grad());
  auto run = [&] {
    NDArray y;
    {
      auto rec = autograd::record();
      y = nd::mul_scalar(v, 2.0);
    }
    return y;
  };
  // autograd::grad returns gradients without writing .grad: not fresh.
  autograd::grad({run()}, {v});
  EXPECT_FALSE(v.fresh_grad());
  autograd::backward({run()});  // grad_req add sets it too
  EXPECT_TRUE(v.fresh_grad());
  EXPECT_FALSE(v.grad().is_none());
  v.set_fresh_grad(false);
  EXPECT_FALSE(v.fresh_grad());
  // attach_grad gives a new buffer, not fresh.
  autograd::backward({run()});
  v.attach_grad();
  EXPECT_FALSE(v.fresh_grad());

  // grad_req add through the Trainer: two backwards accumulate, one step applies the sum.
  auto p = MakeParam("acc", Shape{2}, NDArray::Full(Shape{2}, 1.0), {cpu()}, GradReq::kAdd);
  Trainer tr(std::vector<ParameterPtr>{p}, "sgd", {{"learning_rate", 0.1}});
  for (int k = 0; k < 2; ++k) {
    NDArray y;
    {
      auto rec = autograd::record();
      y = nd::mul_scalar(p->data(), 2.0);
    }
    autograd::backward({y});
  }
  tr.step(1);  // grad 4: 1 - 0.1 * 4
  EXPECT_TRUE(AllClose(p->data(), NDArray::Full(Shape{2}, 0.6), 0, 1e-7));
  EXPECT_THROW(tr.step(1), Error);
}

TEST(Trainer, GradReqNullParametersAreSkipped) {
  auto a = MakeParam("a", Shape{2}, NDArray::Full(Shape{2}, 1.0));
  auto frozen =
      MakeParam("frozen", Shape{2}, NDArray::Full(Shape{2}, 1.0), {cpu()}, GradReq::kNull);
  Trainer tr(std::vector<ParameterPtr>{a, frozen}, "sgd", {{"learning_rate", 0.1}});
  Forward({a});
  tr.step(1);  // no stale error for the frozen parameter
  EXPECT_TRUE(AllClose(frozen->data(), NDArray::Full(Shape{2}, 1.0)));
  EXPECT_TRUE(AllClose(a->data(), NDArray::Full(Shape{2}, 0.8)));
}

TEST(Trainer, LearningRateControl) {
  auto a = MakeParam("a", Shape{1}, NDArray::Full(Shape{1}, 1.0));
  Trainer tr(std::vector<ParameterPtr>{a}, "sgd", {{"learning_rate", 0.1}});
  EXPECT_DOUBLE_EQ(tr.learning_rate(), 0.1);
  tr.set_learning_rate(0.5);
  EXPECT_DOUBLE_EQ(tr.learning_rate(), 0.5);
  Forward({a});
  tr.step(2);  // rescale 1/2: grad 2 -> 1
  EXPECT_TRUE(AllClose(a->data(), NDArray::Full(Shape{1}, 0.5)));
  auto sched = std::make_shared<lr_scheduler::FactorScheduler>(1, 0.5);
  Trainer ts(std::vector<ParameterPtr>{a}, "sgd", {{"lr_scheduler", sched}});
  EXPECT_THROW(ts.set_learning_rate(0.1), Error);
}

TEST(Trainer, AllreduceAcrossTwoCpuDevices) {
  std::vector<Device> devs{cpu(0), cpu(1)};
  auto w =
      MakeParam("w", Shape{3}, NDArray::FromVector(std::vector<float>{1, 2, 3}, Shape{3}), devs);
  auto single =
      MakeParam("w1", Shape{3}, NDArray::FromVector(std::vector<float>{1, 2, 3}, Shape{3}));
  Trainer tr(std::vector<ParameterPtr>{w}, "sgd", {{"learning_rate", 0.1}, {"momentum", 0.9}});
  Trainer ref(std::vector<ParameterPtr>{single}, "sgd",
              {{"learning_rate", 0.1}, {"momentum", 0.9}});
  std::vector<NDArray> xs{NDArray::FromVector(std::vector<float>{1, -1, 2}, Shape{3}),
                          NDArray::FromVector(std::vector<float>{0.5, 3, -2}, Shape{3})};
  for (int step = 0; step < 2; ++step) {
    // Each device copy sees its own half of the batch.
    std::vector<NDArray> heads;
    {
      auto rec = autograd::record();
      for (int k = 0; k < 2; ++k)
        heads.push_back(nd::elemwise_mul(w->data(devs[k]), xs[k].copyto(devs[k])));
    }
    autograd::backward(heads);
    EXPECT_EQ(w->grad(cpu(0)).ToVector<float>(), xs[0].ToVector<float>());
    EXPECT_EQ(w->grad(cpu(1)).ToVector<float>(), xs[1].ToVector<float>());
    tr.allreduce_grads();
    NDArray sum = nd::elemwise_add(xs[0], xs[1]);
    EXPECT_TRUE(AllClose(w->grad(cpu(0)), sum));
    EXPECT_TRUE(AllClose(w->grad(cpu(1)), sum));
    EXPECT_EQ(w->grad(cpu(1)).device(), cpu(1));
    tr.update(4);
    // The single-device reference on the summed gradient.
    NDArray h;
    {
      auto rec = autograd::record();
      h = nd::elemwise_mul(single->data(), sum);
    }
    autograd::backward({h});
    ref.step(4);
    EXPECT_TRUE(AllClose(w->data(cpu(0)), single->data(), 1e-6, 1e-7));
    EXPECT_EQ(w->data(cpu(0)).ToVector<float>(), w->data(cpu(1)).ToVector<float>());
  }
  EXPECT_EQ(tr.optimizer().index_update_count(0, cpu(1)), 2);
}

TEST(Trainer, SaveLoadStatesContinuesIdentically) {
  const std::string path = TempPath("trainer_states.params");
  auto make = [](const NDArray& w0, const NDArray& b0) {
    return std::make_pair(MakeParam("w", Shape{2, 3}, w0), MakeParam("b", Shape{3}, b0));
  };
  auto sched = [] { return std::make_shared<lr_scheduler::FactorScheduler>(2, 0.7, 1e-8, 0.05); };
  auto run = [](Trainer& tr, const ParameterPtr& w, const ParameterPtr& b, int from, int to) {
    for (int s = from; s < to; ++s) {
      NDArray l1, l2;
      {
        auto rec = autograd::record();
        l1 = nd::elemwise_mul(nd::elemwise_mul(w->data(), w->data()), RandomArray({2, 3}, 100 + s));
        l2 = nd::elemwise_mul(b->data(), RandomArray({3}, 200 + s));
      }
      autograd::backward({l1, l2});
      tr.step(3);
    }
  };
  for (const char* opt : {"adam", "sgd", "nadam"}) {
    SCOPED_TRACE(opt);
    Kwargs kw{{"lr_scheduler", sched()}, {"wd", 0.01}};
    if (std::string(opt) == "sgd") kw.emplace("momentum", 0.9);
    auto [w, b] = make(RandomArray({2, 3}, 1), RandomArray({3}, 2));
    Trainer tr(std::vector<ParameterPtr>{w, b}, opt, kw);
    run(tr, w, b, 0, 4);
    ASSERT_TRUE(tr.save_states(path).ok());
    NDArray w_saved = w->data().copy(), b_saved = b->data().copy();
    run(tr, w, b, 4, 7);
    // A fresh trainer (new optimizer and scheduler) resumes from the file.
    Kwargs kw2{{"lr_scheduler", sched()}, {"wd", 0.01}};
    if (std::string(opt) == "sgd") kw2.emplace("momentum", 0.9);
    auto [w2, b2] = make(w_saved, b_saved);
    Trainer tr2(std::vector<ParameterPtr>{w2, b2}, opt, kw2);
    absl::Status st = tr2.load_states(path);
    ASSERT_TRUE(st.ok()) << st;
    EXPECT_EQ(tr2.optimizer().index_update_count(0), 4);
    run(tr2, w2, b2, 4, 7);
    EXPECT_EQ(w2->data().ToVector<float>(), w->data().ToVector<float>());
    EXPECT_EQ(b2->data().ToVector<float>(), b->data().ToVector<float>());
    EXPECT_DOUBLE_EQ(tr2.learning_rate(), tr.learning_rate());
  }
  // The file is MXNet's NDArray dict format with the metadata record.
  auto file = nd::load(path);
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(file->is_dict);
  EXPECT_NE(file->find("__trainer_states__"), nullptr);
  EXPECT_NE(file->find("0:0"), nullptr);  // nadam's m of parameter 0
  // Errors: another optimizer class, a missing file, a file of another kind, wrong shapes.
  auto [w3, b3] = make(RandomArray({2, 3}, 1), RandomArray({3}, 2));
  Trainer other(std::vector<ParameterPtr>{w3, b3}, "adam");
  EXPECT_EQ(other.load_states(path).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(other.load_states(TempPath("does_not_exist")).code(), absl::StatusCode::kNotFound);
  const std::string plain = TempPath("plain.params");
  ASSERT_TRUE(
      nd::save(plain,
               std::vector<std::pair<std::string, NDArray>>{{"x", NDArray::Full(Shape{1}, 1.0)}})
          .ok());
  EXPECT_EQ(other.load_states(plain).code(), absl::StatusCode::kInvalidArgument);
  auto small = MakeParam("w", Shape{2}, NDArray::Full(Shape{2}, 0.0));
  auto small_b = MakeParam("b", Shape{3}, NDArray::Full(Shape{3}, 0.0));
  Trainer wrong(std::vector<ParameterPtr>{small, small_b}, "nadam");
  EXPECT_EQ(wrong.load_states(path).code(), absl::StatusCode::kInvalidArgument);
}

TEST(Trainer, ConstructionErrors) {
  auto a = MakeParam("a", Shape{1}, NDArray::Full(Shape{1}, 1.0));
  EXPECT_THROW(Trainer(std::vector<ParameterPtr>{a, a}, "sgd"), Error);
  EXPECT_THROW(Trainer(std::vector<ParameterPtr>{a}, "nope"), Error);
  EXPECT_THROW(Trainer(std::vector<ParameterPtr>{a}, optimizer::OptimizerPtr()), Error);
  auto b = MakeParam("b", Shape{1}, NDArray::Full(Shape{1}, 1.0), {cpu(0), cpu(1)});
  Trainer tr(std::vector<ParameterPtr>{a, b}, "sgd");
  EXPECT_THROW(tr.step(1, true), Error);  // different device sets
  EXPECT_THROW(tr.step(0), Error);
}

}  // namespace
}  // namespace mxnet::gluon

namespace mxnet::gluon {
namespace {

// Gradients written by hand (as backward would) and marked fresh.
void SetGrad(const ParameterPtr& p, const std::vector<float>& g) {
  NDArray::FromVector(g, p->shape()).copyto(p->grad());
  p->data().set_fresh_grad(true);
}

TEST(TrainerNumerics, NonFiniteGradientsNameTheStepAndFirstParameterAndUpdateNothing) {
  const float nan = std::nanf(""), inf = INFINITY;
  NDArray v = NDArray::FromVector(std::vector<float>{1, 2, 3, 4}, Shape{4});
  auto a = MakeParam("a", Shape{4}, v), b = MakeParam("b", Shape{4}, v),
       c = MakeParam("c", Shape{4}, v);
  Trainer t(std::vector<ParameterPtr>{a, b, c}, "sgd", {{"learning_rate", 0.5}});
  SetGrad(a, {1, 1, 1, 1});
  SetGrad(b, {1, 1, 1, 1});
  SetGrad(c, {1, 1, 1, 1});
  t.step(1);  // step 1: fine
  SetGrad(a, {1, 1, 1, 1});
  SetGrad(b, {0, 1, nan, nan});
  SetGrad(c, {inf, 0, 0, -inf});
  // MXNet's behaviour without the check: the update is applied and b becomes NaN.
  t.set_check_finite(true);
  try {
    t.step(1);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kOutOfRange);
    EXPECT_STREQ(e.what(),
                 "Trainer step 2: the gradient of Parameter 1 'b' (4,) on cpu(0) has 2 NaN and 0 "
                 "Inf values (first at flat index 2); 2 of 3 parameters have non-finite "
                 "gradients; nothing was updated");
  }
  for (const auto& p : {a, b, c})
    EXPECT_EQ(p->data().ToVector<float>(), (std::vector<float>{0.5, 1.5, 2.5, 3.5})) << p->name();
  EXPECT_EQ(t.optimizer().num_update(), 1);
  // Finite again: the step goes through.
  SetGrad(b, {0, 0, 0, 0});
  SetGrad(c, {0, 0, 0, 0});
  t.step(1);
  EXPECT_EQ(a->data().ToVector<float>(), (std::vector<float>{0, 1, 2, 3}));
  // Without the check the NaN is applied silently (MXNet's behaviour).
  t.set_check_finite(false);
  SetGrad(a, {0, 0, 0, 0});
  SetGrad(b, {nan, 0, 0, 0});
  SetGrad(c, {0, 0, 0, 0});
  t.step(1);
  EXPECT_TRUE(std::isnan(b->data().ToVector<float>()[0]));
}

TEST(TrainerNumerics, CheckLossNamesTheStepItPrecedes) {
  auto a = MakeParam("a", Shape{1}, NDArray::Full(Shape{1}, 1.0));
  Trainer t(std::vector<ParameterPtr>{a}, "sgd", {{"learning_rate", 0.1}});
  t.check_loss(NDArray::FromVector(std::vector<float>{1, 2}, Shape{2}));  // finite: no error
  try {
    t.check_loss(NDArray::FromVector(std::vector<double>{1, INFINITY, std::nan(""), 2}, Shape{2, 2},
                                     cpu(), DType::kFloat64));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kOutOfRange);
    EXPECT_STREQ(e.what(),
                 "Trainer step 1: the loss (2, 2) has 1 NaN and 1 Inf values (first at flat "
                 "index 1)");
  }
}

}  // namespace
}  // namespace mxnet::gluon
