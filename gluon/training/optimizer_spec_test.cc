// The optimizer specs: every built-in spec is consistent with what its optimizer does (states,
// hyper-parameter defaults, serialized keys, registered ops), and a new optimizer is one
// Register(spec) away (hand-computed updates).
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gluon/training/optimizer.h"
#include "ndarray/op.h"
#include "ndarray/ops/optim/optim_api.h"

namespace mxnet::gluon::optimizer {
namespace {

NDArray D(std::vector<double> v) {
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())}, cpu(), DType::kFloat64);
}

TEST(OptimizerSpec, BuiltinsAreConsistent) {
  std::vector<std::string> names;
  for (const auto& [spec, factory] : Builtins()) {
    SCOPED_TRACE(spec->name);
    names.push_back(spec->name);
    EXPECT_EQ(BuiltinSpec(spec->name), spec);
    OptimizerPtr opt = Create(spec->name);
    EXPECT_EQ(&opt->spec(), spec.get());  // Create makes the built-in class of this spec
    for (const HyperParam& h : spec->hyper) {
      const double v = opt->hyper(h.name);
      if (h.kind == HyperParam::kOptional)
        EXPECT_TRUE(std::isnan(v)) << h.name;
      else
        EXPECT_EQ(v, h.default_value) << h.name;
    }
    // Default states: one array per name (SGD/NAG/Signum: [mom], none without momentum;
    // RMSProp: [n] unless centered).
    State st = opt->create_state(0, D({1.0, 2.0}));
    EXPECT_GE(spec->states.size(), st.arrays.size());
    EXPECT_GE(st.arrays.size(), 1u);
    for (const std::string& op : spec->ops) EXPECT_NE(OpRegistry::Find(op), nullptr) << op;
    nlohmann::json config = nlohmann::json::parse(opt->SerializeConfig());
    EXPECT_EQ(config["hyper"].size(), spec->hyper.size());
    for (const HyperParam& h : spec->hyper) EXPECT_TRUE(config["hyper"].contains(h.name)) << h.name;
    EXPECT_EQ(config["extra"].size(), spec->extra_state.size());
  }
  const std::vector<std::string> registered = List();
  for (const std::string& n : names)
    EXPECT_NE(std::find(registered.begin(), registered.end(), n), registered.end()) << n;
  EXPECT_EQ(dynamic_cast<SGD&>(*Create("sgd", {{"momentum", 0.5}})).momentum(), 0.5);
  EXPECT_THROW(Create("sgd")->hyper("beta1"), Error);
  EXPECT_THROW(BuiltinSpec("nope"), Error);
}

// "decayed_sgd": w = (1 - shrink) * w - lr * g, one declaration and a step on sgd_update.
OptimizerSpecPtr DecayedSgd() {
  return std::make_shared<const OptimizerSpec>(OptimizerSpec{
      .name = "decayed_sgd",
      .default_lr = 0.5,
      .hyper = {{"shrink", 0.25}, {"nesterov", false}, {"cap", None}},
      .states = {"mom"},
      .ops = {"sgd_update"},
      .step = [](const Step& s) {
        const float wd = static_cast<float>(s.h("shrink") / s.lr());  // (1 - lr*wd) = 1 - shrink
        nd::sgd_update(s.weight, s.grad, {.lr = static_cast<float>(s.lr()), .wd = wd}, s.weight);
        const NDArray& steps = s.state.at(0);  // counts the steps
        NDArray::Full(steps.shape(), steps.ToVector<double>()[0] + 1, steps.device(), steps.dtype())
            .copyto(steps);
      }});
}

TEST(OptimizerSpec, RegisterOneDeclaration) {
  Register(DecayedSgd());
  OptimizerPtr opt = Create("Decayed_SGD", {{"shrink", 0.5}, {"cap", 3.0}});
  EXPECT_EQ(opt->name(), "decayed_sgd");
  EXPECT_DOUBLE_EQ(opt->learning_rate(), 0.5);
  EXPECT_DOUBLE_EQ(opt->hyper("shrink"), 0.5);
  EXPECT_DOUBLE_EQ(opt->hyper("nesterov"), 0.0);
  EXPECT_DOUBLE_EQ(opt->hyper("cap"), 3.0);
  NDArray w = D({2.0, -4.0});
  State st = opt->create_state(0, w);
  ASSERT_EQ(st.arrays.size(), 1u);
  opt->update(0, w, D({1.0, 2.0}), st);
  // 0.5 * w - 0.5 * g
  EXPECT_DOUBLE_EQ(w.ToVector<double>()[0], 0.5);
  EXPECT_DOUBLE_EQ(w.ToVector<double>()[1], -3.0);
  EXPECT_DOUBLE_EQ(st.arrays[0].ToVector<double>()[0], 1.0);
  // Its keywords are checked like a built-in's.
  try {
    Create("decayed_sgd", {{"shrinkk", 0.1}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("shrink"), std::string::npos) << e.what();
  }
  // Hyper-parameters round-trip through the serialized config.
  OptimizerPtr other = Create("decayed_sgd");
  other->RestoreConfig(opt->SerializeConfig());
  EXPECT_DOUBLE_EQ(other->hyper("shrink"), 0.5);
  EXPECT_DOUBLE_EQ(other->hyper("cap"), 3.0);
  // A spec needs a step.
  EXPECT_THROW(Register(std::make_shared<const OptimizerSpec>(OptimizerSpec{.name = "nostep"})),
               Error);
}

}  // namespace
}  // namespace mxnet::gluon::optimizer
