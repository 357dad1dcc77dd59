// LR schedulers: curves vs real MXNet 1.9.1 (testdata/schedulers.json), errors, state.
#include "gluon/training/lr_scheduler.h"

#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/error.h"

namespace mxnet::gluon::lr_scheduler {
namespace {

using json = nlohmann::json;

std::shared_ptr<LRScheduler> Make(const json& spec) {
  std::string type = spec["type"];
  double base_lr = spec.value("base_lr", 0.01);
  int64_t warmup_steps = spec.value("warmup_steps", 0);
  double warmup_begin_lr = spec.value("warmup_begin_lr", 0.0);
  std::string mode = spec.value("warmup_mode", "linear");
  if (type == "factor")
    return std::make_shared<FactorScheduler>(spec["step"].get<int64_t>(), spec.value("factor", 1.0),
                                             spec.value("stop_factor_lr", 1e-8), base_lr,
                                             warmup_steps, warmup_begin_lr, mode);
  if (type == "multifactor")
    return std::make_shared<MultiFactorScheduler>(spec["step"].get<std::vector<int64_t>>(),
                                                  spec.value("factor", 1.0), base_lr, warmup_steps,
                                                  warmup_begin_lr, mode);
  if (type == "poly")
    return std::make_shared<PolyScheduler>(spec["max_update"].get<int64_t>(), base_lr,
                                           spec.value("pwr", 2.0), spec.value("final_lr", 0.0),
                                           warmup_steps, warmup_begin_lr, mode);
  if (type == "cosine")
    return std::make_shared<CosineScheduler>(spec["max_update"].get<int64_t>(), base_lr,
                                             spec.value("final_lr", 0.0), warmup_steps,
                                             warmup_begin_lr, mode);
  ADD_FAILURE() << "unknown scheduler " << type;
  return nullptr;
}

TEST(LRScheduler, CurvesMatchMxnet) {
  std::ifstream f("gluon/training/testdata/schedulers.json");
  ASSERT_TRUE(f.good()) << "missing gluon/training/testdata/schedulers.json";
  json doc = json::parse(f);
  int n = 0;
  for (const json& c : doc["cases"]) {
    SCOPED_TRACE(c["spec"].dump());
    auto s = Make(c["spec"]);
    ASSERT_TRUE(s);
    std::vector<int64_t> queries;
    if (c.contains("queries")) {
      queries = c["queries"].get<std::vector<int64_t>>();
    } else {
      for (size_t i = 0; i < c["lrs"].size(); ++i) queries.push_back(static_cast<int64_t>(i));
    }
    std::vector<double> want = c["lrs"].get<std::vector<double>>();
    for (size_t i = 0; i < queries.size(); ++i)
      EXPECT_NEAR((*s)(queries[i]), want[i], 1e-15 + 1e-12 * std::fabs(want[i]))
          << "num_update " << queries[i];
    ++n;
  }
  EXPECT_GE(n, 13);
}

TEST(LRScheduler, FactorFormula) {
  FactorScheduler s(/*step=*/10, /*factor=*/0.5, /*stop_factor_lr=*/0.02, /*base_lr=*/0.1);
  EXPECT_DOUBLE_EQ(s(0), 0.1);
  EXPECT_DOUBLE_EQ(s(10), 0.1);  // changes only past count + step
  EXPECT_DOUBLE_EQ(s(11), 0.05);
  EXPECT_DOUBLE_EQ(s(21), 0.025);
  EXPECT_DOUBLE_EQ(s(31), 0.02);  // stop_factor_lr floor
  EXPECT_DOUBLE_EQ(s(100), 0.02);
  EXPECT_DOUBLE_EQ(s(1), 0.02);  // stateful, like MXNet
}

TEST(LRScheduler, WarmupLinearAndConstant) {
  PolyScheduler p(/*max_update=*/10, /*base_lr=*/1.0, /*pwr=*/1, /*final_lr=*/0,
                  /*warmup_steps=*/4, /*warmup_begin_lr=*/0.2);
  EXPECT_DOUBLE_EQ(p(0), 0.2);
  EXPECT_DOUBLE_EQ(p(2), 0.6);
  EXPECT_DOUBLE_EQ(p(4), 1.0);
  EXPECT_DOUBLE_EQ(p(7), 0.5);
  EXPECT_DOUBLE_EQ(p(10), 0.0);
  EXPECT_DOUBLE_EQ(p(12), 0.0);
  CosineScheduler c(/*max_update=*/10, /*base_lr=*/1.0, /*final_lr=*/0.0, /*warmup_steps=*/2,
                    /*warmup_begin_lr=*/0.5, "constant");
  EXPECT_DOUBLE_EQ(c(1), 0.5);
  EXPECT_NEAR(c(6), 0.5, 1e-15);
  EXPECT_NEAR(c(10), 0.0, 1e-15);
}

TEST(LRScheduler, MultiFactor) {
  MultiFactorScheduler s({2, 5}, 0.1, 1.0);
  EXPECT_DOUBLE_EQ(s(2), 1.0);
  EXPECT_NEAR(s(3), 0.1, 1e-15);
  EXPECT_NEAR(s(6), 0.01, 1e-15);
  EXPECT_NEAR(s(100), 0.01, 1e-15);
}

void ExpectInvalid(const std::function<void()>& f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing '" << text << "'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST(LRScheduler, ArgumentErrorsAsMxnet) {
  ExpectInvalid([] { FactorScheduler(0); }, "greater or equal than 1");
  ExpectInvalid([] { FactorScheduler(1, 1.5); }, "no more than 1");
  ExpectInvalid([] { MultiFactorScheduler({3, 3}); }, "increasing");
  ExpectInvalid([] { MultiFactorScheduler({0, 3}); }, "greater or equal than 1");
  ExpectInvalid([] { PolyScheduler(0); }, "strictly positive");
  ExpectInvalid([] { CosineScheduler(10, 0.01, 0, 2, 0.5); }, "higher than warmup_begin_lr");
  ExpectInvalid([] { CosineScheduler(10, 0.01, 0, -1); }, "positive or 0");
  ExpectInvalid([] { FactorScheduler(1, 1, 1e-8, 0.01, 2, 0, "cubic"); }, "linear and constant");
}

TEST(LRScheduler, StateRoundTripContinuesIdentically) {
  FactorScheduler a(3, 0.5, 1e-8, 1.0);
  for (int i = 0; i < 8; ++i) a(i);
  FactorScheduler b(3, 0.5, 1e-8, 1.0);
  b.SetState(a.GetState());
  for (int i = 8; i < 20; ++i) EXPECT_DOUBLE_EQ(a(i), b(i));
  MultiFactorScheduler m1({2, 4, 6}, 0.5, 1.0), m2({2, 4, 6}, 0.5, 1.0);
  m1(5);
  m2.SetState(m1.GetState());
  for (int i = 5; i < 10; ++i) EXPECT_DOUBLE_EQ(m1(i), m2(i));
  EXPECT_THROW(m2.SetState({{"cur_step_ind", 7}}), Error);
}

}  // namespace
}  // namespace mxnet::gluon::lr_scheduler
