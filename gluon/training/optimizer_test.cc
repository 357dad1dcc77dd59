// Optimizers: the first three updates of every optimizer vs real MXNet 1.9.1
// (testdata/optimizers.json, through mx.optimizer.Updater like gluon.Trainer), vs the formulas,
// multi-precision, clip/rescale/wd/lr_mult, update counts, the factory and serialization.
#include "gluon/training/optimizer.h"

#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon::optimizer {
namespace {

using json = nlohmann::json;
using ::mxnet::testing::AllClose;

NDArray FromJson(const json& j, Device dev = cpu()) {
  std::vector<int64_t> dims = j["shape"].get<std::vector<int64_t>>();
  DType t = ValueOrThrow(DTypeFromName(j["dtype"].get<std::string>()));
  return NDArray::FromVector(j["data"].get<std::vector<double>>(), Shape(dims), dev, t);
}

LRSchedulerPtr MakeScheduler(const json& spec) {
  std::string type = spec["type"];
  double base_lr = spec.value("base_lr", 0.01);
  if (type == "factor")
    return std::make_shared<lr_scheduler::FactorScheduler>(
        spec["step"].get<int64_t>(), spec.value("factor", 1.0), spec.value("stop_factor_lr", 1e-8),
        base_lr);
  if (type == "poly")
    return std::make_shared<lr_scheduler::PolyScheduler>(spec["max_update"].get<int64_t>(), base_lr,
                                                         spec.value("pwr", 2.0));
  ADD_FAILURE() << "scheduler type " << type;
  return nullptr;
}

Kwargs ToKwargs(const json& kw) {
  Kwargs out;
  for (auto& [k, v] : kw.items()) {
    if (k == "lr_scheduler")
      out.emplace(k, MakeScheduler(v));
    else if (v.is_boolean())
      out.emplace(k, v.get<bool>());
    else if (v.is_null())
      out.emplace(k, None);
    else
      out.emplace(k, v.get<double>());
  }
  return out;
}

TEST(OptimizerConformance, FirstThreeUpdatesMatchMxnet) {
  std::ifstream f("gluon/training/testdata/optimizers.json");
  ASSERT_TRUE(f.good()) << "missing gluon/training/testdata/optimizers.json";
  json doc = json::parse(f);
  std::set<std::string> covered;
  for (const json& c : doc["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    OptimizerPtr opt = Create(c["optimizer"], ToKwargs(c["kwargs"]));
    opt->set_lr_mult({{0, c["lr_mult"].get<double>()}});
    opt->set_wd_mult({{0, c["wd_mult"].get<double>()}});
    NDArray w = FromJson(c["weight"]);
    State st = opt->create_state_multi_precision(0, w);
    const bool f16 = w.dtype() == DType::kFloat16;
    for (int t = 0; t < 3; ++t) {
      opt->update_multi_precision(0, w, FromJson(c["grads"][t]), st);
      NDArray want = FromJson(c["weights"][t]);
      // float16 without a master copy rounds every MXNet op to float16; we round once.
      double rtol = f16 ? 2e-3 : 1e-5, atol = f16 ? 2e-3 : 2e-6;
      EXPECT_TRUE(AllClose(w, want, rtol, atol)) << "update " << t + 1;
      if (!c["lrs"].is_null()) {
        EXPECT_NEAR(opt->learning_rate(), c["lrs"][t].get<double>(), 1e-12) << "update " << t + 1;
      }
    }
    covered.insert(c["optimizer"].get<std::string>());
  }
  for (const std::string& n : List()) EXPECT_TRUE(covered.count(n)) << n << " not covered";
}

// ---- Formulas in float64. ----
NDArray D(std::vector<double> v) {
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())}, cpu(), DType::kFloat64);
}
double At(const NDArray& a, int i) { return a.ToVector<double>()[i]; }

TEST(Optimizer, AdamBiasCorrectionOverThreeUpdates) {
  auto opt = Create("adam", {{"learning_rate", 0.01}, {"wd", 0.1}, {"rescale_grad", 0.5}});
  NDArray w = D({0.5, -1.0});
  std::vector<std::vector<double>> grads{{0.2, 0.4}, {-0.6, 0.1}, {0.3, -0.9}};
  State st = opt->create_state(0, w);
  double m[2] = {0, 0}, v[2] = {0, 0}, ref[2] = {0.5, -1.0};
  const double b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;  // attributes are float32, like MXNet
  for (int t = 1; t <= 3; ++t) {
    opt->update(0, w, D(grads[t - 1]), st);
    double lr = double(float(0.01 * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t))));
    for (int i = 0; i < 2; ++i) {
      double g = double(0.5f) * grads[t - 1][i] + double(0.1f) * ref[i];
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      ref[i] -= lr * m[i] / (std::sqrt(v[i]) + eps);
      EXPECT_NEAR(At(w, i), ref[i], 1e-12) << "t=" << t << " i=" << i;
    }
  }
  EXPECT_EQ(opt->index_update_count(0), 3);
  EXPECT_EQ(opt->num_update(), 3);
}

TEST(Optimizer, SgdClipAfterRescaleWdOutsideTheClip) {
  auto opt = Create(
      "sgd", {{"learning_rate", 0.1}, {"wd", 0.5}, {"rescale_grad", 4.0}, {"clip_gradient", 1.0}});
  NDArray w = D({2.0, 2.0, 2.0});
  State st = opt->create_state(0, w);
  EXPECT_TRUE(st.arrays.at(0).is_none());  // no momentum, no state
  opt->update(0, w, D({0.1, 1.0, -3.0}), st);
  // (1 - lr*wd)*w - lr*clip(4g, 1): 0.95*2 - 0.1*{0.4, 1, -1}
  EXPECT_NEAR(At(w, 0), 1.9 - 0.04, 1e-7);
  EXPECT_NEAR(At(w, 1), 1.9 - 0.1, 1e-7);
  EXPECT_NEAR(At(w, 2), 1.9 + 0.1, 1e-7);
}

TEST(Optimizer, ClipGradientZeroIsOffForFusedOpsLikeMxnet) {
  // MXNet's optimizers pass clip_gradient to the fused ops only when truthy.
  auto opt = Create("sgd", {{"learning_rate", 1.0}, {"clip_gradient", 0.0}});
  NDArray w = D({1.0});
  State st = opt->create_state(0, w);
  opt->update(0, w, D({0.5}), st);
  EXPECT_DOUBLE_EQ(At(w, 0), 0.5);
}

TEST(Optimizer, LrMultAndWdMultFromParametersWin) {
  auto p = std::make_shared<Parameter>(
      "w", ParameterOptions{.shape = Shape{1}, .lr_mult = 0.5, .wd_mult = 0.0});
  auto opt = Create("sgd", {{"learning_rate", 0.2}, {"wd", 1.0}});
  opt->set_lr_mult({{0, 10.0}});  // ignored: index 0 has a Parameter
  opt->set_param_dict({{0, p}});
  EXPECT_DOUBLE_EQ(opt->get_lr(0), 0.1);
  EXPECT_DOUBLE_EQ(opt->get_wd(0), 0.0);
  opt->set_lr_mult({{1, 3.0}});
  opt->set_wd_mult({{1, 0.25}});
  EXPECT_DOUBLE_EQ(opt->get_lr(1), 0.2 * 3.0);
  EXPECT_DOUBLE_EQ(opt->get_wd(1), 0.25);
  EXPECT_DOUBLE_EQ(opt->get_lr(2), 0.2);
  p->set_lr_mult(2.0);  // read at every update
  EXPECT_DOUBLE_EQ(opt->get_lr(0), 0.4);
}

TEST(Optimizer, MultiPrecisionMasterCopy) {
  for (const char* name : {"sgd", "nag", "adam", "adamw", "lamb", "rmsprop"}) {
    SCOPED_TRACE(name);
    auto opt = Create(name, {{"learning_rate", 1e-4}, {"multi_precision", true}});
    NDArray w = NDArray::Full(Shape{3}, 1.0, cpu(), DType::kFloat16);
    State st = opt->create_state_multi_precision(0, w);
    ASSERT_FALSE(st.weight32.is_none());
    EXPECT_EQ(st.weight32.dtype(), DType::kFloat32);
    for (const NDArray& s : st.arrays)
      if (!s.is_none()) {
        EXPECT_EQ(s.dtype(), DType::kFloat32);
      }
    NDArray g = NDArray::Full(Shape{3}, 1.0, cpu(), DType::kFloat16);
    for (int i = 0; i < 3; ++i) opt->update_multi_precision(0, w, g, st);
    // The master copy moved; the float16 weight is its rounding.
    double m = st.weight32.ToVector<double>()[0];
    EXPECT_LT(m, 1.0);
    EXPECT_EQ(w.ToVector<double>()[0], static_cast<double>(static_cast<float>(Half(float(m)))));
  }
  // float32 weights with multi_precision: no master copy.
  auto opt = Create("sgd", {{"multi_precision", true}});
  EXPECT_TRUE(opt->create_state_multi_precision(0, D({1.0})).weight32.is_none());
  // Without multi_precision a float16 weight never moves by 1e-4 steps.
  auto plain = Create("sgd", {{"learning_rate", 1e-4}});
  NDArray w = NDArray::Full(Shape{2}, 1.0, cpu(), DType::kFloat16);
  State st = plain->create_state_multi_precision(0, w);
  EXPECT_TRUE(st.weight32.is_none());
  for (int i = 0; i < 5; ++i)
    plain->update_multi_precision(0, w, NDArray::Full(Shape{2}, 1.0, cpu(), DType::kFloat16), st);
  EXPECT_EQ(w.ToVector<double>()[0], 1.0);
}

TEST(Optimizer, UpdateCountsPerIndexAndDevice) {
  auto opt = Create("adam", {{"begin_num_update", 5}});
  NDArray a = D({1.0}), b = D({1.0}), c = NDArray::Full(Shape{1}, 1.0, cpu(1), DType::kFloat64);
  State sa = opt->create_state(0, a), sb = opt->create_state(1, b), sc = opt->create_state(0, c);
  opt->update(0, a, D({0.1}), sa);
  opt->update(0, a, D({0.1}), sa);
  opt->update(1, b, D({0.1}), sb);
  opt->update(0, c, NDArray::Full(Shape{1}, 0.1, cpu(1), DType::kFloat64), sc);
  EXPECT_EQ(opt->index_update_count(0), 7);
  EXPECT_EQ(opt->index_update_count(1), 6);
  EXPECT_EQ(opt->index_update_count(0, cpu(1)), 6);
  EXPECT_EQ(opt->index_update_count(3), 5);
  EXPECT_EQ(opt->num_update(), 7);
}

TEST(Optimizer, SchedulerDrivesLearningRate) {
  auto sched = std::make_shared<lr_scheduler::FactorScheduler>(1, 0.5, 1e-8, 0.4);
  auto opt = Create("sgd", {{"lr_scheduler", sched}});
  EXPECT_DOUBLE_EQ(sched->base_lr(), 0.4);  // no learning_rate given: the scheduler's stays
  NDArray w = D({0.0});
  State st = opt->create_state(0, w);
  std::vector<double> seen;
  for (int i = 0; i < 3; ++i) {
    opt->update(0, w, D({1.0}), st);
    seen.push_back(opt->learning_rate());
  }
  EXPECT_EQ(seen, (std::vector<double>{0.4, 0.2, 0.1}));
  try {
    opt->set_learning_rate(0.1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kFailedPrecondition);
  }
  // An explicit learning_rate overrides the scheduler's base_lr (as MXNet, with its warning).
  auto s2 = std::make_shared<lr_scheduler::FactorScheduler>(1, 0.5, 1e-8, 0.4);
  Create("adam", {{"lr_scheduler", s2}});
  EXPECT_DOUBLE_EQ(s2->base_lr(), 0.001);  // Adam's default learning_rate
  auto s3 = std::make_shared<lr_scheduler::FactorScheduler>(1, 0.5, 1e-8, 0.4);
  Create("ftrl", {{"lr_scheduler", s3}, {"learning_rate", 0.3}});
  EXPECT_DOUBLE_EQ(s3->base_lr(), 0.4);  // Ftrl keeps learning_rate to itself
}

TEST(Optimizer, DefaultsAndFactory) {
  EXPECT_DOUBLE_EQ(Create("sgd")->learning_rate(), 0.01);
  EXPECT_DOUBLE_EQ(Create("adam")->learning_rate(), 0.001);
  EXPECT_DOUBLE_EQ(Create("adamax")->learning_rate(), 0.002);
  EXPECT_DOUBLE_EQ(Create("signum")->learning_rate(), 0.01);
  EXPECT_DOUBLE_EQ(Create("ftrl")->learning_rate(), 0.1);
  EXPECT_DOUBLE_EQ(Create("RMSProp")->learning_rate(), 0.001);  // case-insensitive
  EXPECT_EQ(Create("Adam")->name(), "adam");
  EXPECT_EQ(List(),
            (std::vector<std::string>{"adadelta", "adagrad", "adam", "adamax", "adamw", "ftrl",
                                      "lamb", "nadam", "nag", "rmsprop", "sgd", "signum"}));
  try {
    Create("sgdd");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("Cannot find optimizer sgdd"), std::string::npos);
  }
  try {
    Create("sgd", {{"momentun", 0.9}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("momentun"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("momentum"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Create("sgd", {{"momentum", "fast"}}), Error);
  // String values (C ABI / bindings) parse.
  auto s =
      Create("sgd", {{"momentum", "0.9"}, {"clip_gradient", "None"}, {"multi_precision", "True"}});
  EXPECT_TRUE(s->multi_precision());
  EXPECT_FALSE(s->clip_gradient().has_value());
  // A user registration.
  Register("mysgd", [](const Kwargs& kw) { return std::make_shared<SGD>(kw); });
  EXPECT_EQ(Create("MySGD", {{"momentum", 0.5}})->name(), "sgd");
}

TEST(Optimizer, StateAndArgumentErrors) {
  auto opt = Create("sgd", {{"momentum", 0.9}});
  NDArray w = D({1.0, 2.0});
  State st = opt->create_state(0, D({1.0, 2.0, 3.0}));
  EXPECT_THROW(opt->update(0, w, D({1.0, 2.0}), st), Error);  // state of another shape
  State ok = opt->create_state(0, w);
  EXPECT_THROW(opt->update(0, w, D({1.0}), ok), Error);  // gradient shape
  NDArray g32 = NDArray::Full(Shape{2}, 1.0, cpu(), DType::kFloat32);
  EXPECT_THROW(opt->update(0, w, g32, ok), Error);  // gradient dtype
}

TEST(Optimizer, NadamScheduleIsOptimizerWideAsInMxnet) {
  auto a = Create("nadam");
  NDArray w0 = D({1.0}), w1 = D({1.0});
  State s0 = a->create_state(0, w0), s1 = a->create_state(1, w1);
  a->update(0, w0, D({0.5}), s0);
  double after_one = dynamic_cast<Nadam&>(*a).m_schedule();
  a->update(1, w1, D({0.5}), s1);
  EXPECT_LT(dynamic_cast<Nadam&>(*a).m_schedule(), after_one);
}

TEST(Optimizer, SerializeAndRestoreConfig) {
  auto sched = std::make_shared<lr_scheduler::FactorScheduler>(2, 0.5, 1e-8, 0.1);
  auto a = Create("rmsprop", {{"lr_scheduler", sched},
                              {"centered", true},
                              {"gamma1", 0.8},
                              {"clip_weights", 2.0},
                              {"wd", 0.01}});
  NDArray w = D({1.0});
  State st = a->create_state(0, w);
  for (int i = 0; i < 5; ++i) a->update(0, w, D({0.3}), st);
  auto sched2 = std::make_shared<lr_scheduler::FactorScheduler>(2, 0.5, 1e-8, 0.1);
  auto b = Create("rmsprop", {{"lr_scheduler", sched2}});
  b->RestoreConfig(a->SerializeConfig());
  EXPECT_EQ(b->SerializeConfig(), a->SerializeConfig());
  EXPECT_EQ(b->index_update_count(0), 5);
  EXPECT_DOUBLE_EQ(sched2->base_lr(), sched->base_lr());
  EXPECT_THROW(Create("sgd")->RestoreConfig(a->SerializeConfig()), Error);
  EXPECT_THROW(b->RestoreConfig("{not json"), Error);
}

}  // namespace
}  // namespace mxnet::gluon::optimizer
