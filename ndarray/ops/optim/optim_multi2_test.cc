// Tests of the optim family's fused AdamW / LAMB / group AdaGrad ops (optim_multi2.cc): every
// case of testdata/optim/multi2.json (real MXNet 1.9.1, tools/conformance/refs_optim_multi2.py)
// step by step, hand-computed formulas, the nd:: API, inference and errors.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/ops/optim/optim_multi2_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

bool AllFinite(const NDArray& a) {
  for (double x : a.ToVector<double>())
    if (!std::isfinite(x)) return false;
  return true;
}

double Tol(DType t) { return t == DType::kFloat16 ? 2e-3 : t == DType::kFloat64 ? 1e-12 : 2e-6; }

TEST(OptimMulti2Conformance, EveryCaseMatchesMxnet) {
  std::set<std::string> ops;
  int n = 0;
  const json doc = LoadRefJson("ndarray/ops/testdata/optim/multi2.json");
  for (const json& c : doc["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    const Op& op = OpRegistry::Get(c["op"].get<std::string>());
    const OpAttrs attrs = OpAttrs::Parse(op, RefAttrs(c));
    std::vector<NDArray> in = RefInputs(c);
    std::vector<int> grad_index = c["grad_index"].get<std::vector<int>>();
    for (size_t t = 0; t < c["steps"].size(); ++t) {
      SCOPED_TRACE(StrCat("step ", t + 1));
      for (size_t j = 0; j < grad_index.size(); ++j) in[grad_index[j]] = RefArray(c["grads"][t][j]);
      std::vector<NDArray> outs;
      for (int i : c["out_index"].get<std::vector<int>>()) outs.push_back(in[i]);
      InvokeInto(op, attrs, in, outs);
      const json& step = c["steps"][t];
      ASSERT_EQ(outs.size(), step["outputs"].size());
      for (size_t k = 0; k < outs.size(); ++k) {
        NDArray want = RefArray(step["outputs"][k]);
        EXPECT_EQ(outs[k].dtype(), want.dtype()) << "output " << k;
        EXPECT_TRUE(AllClose(outs[k], want, Tol(want.dtype()), Tol(want.dtype())))
            << "output " << k;
      }
      for (auto& [k, v] : step["mutated"].items()) {
        NDArray want = RefArray(v);
        if (!AllFinite(want)) continue;  // AdamW's rescale_grad = nan input
        EXPECT_TRUE(AllClose(in[std::stoi(k)], want, Tol(want.dtype()), Tol(want.dtype())))
            << "input " << k << " (" << op.InputNames(attrs)[std::stoi(k)] << ") after the call";
      }
    }
    ops.insert(op.name);
    ++n;
  }
  EXPECT_GE(n, 18);
  for (const char* o : {"_multi_adamw_update", "_multi_mp_adamw_update", "_multi_lamb_update",
                        "_multi_mp_lamb_update", "_contrib_group_adagrad_update"})
    EXPECT_TRUE(ops.count(o)) << o << " has no MXNet case";
}

NDArray D(std::vector<double> v, DType t = DType::kFloat64) {
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())}, cpu(), t);
}

TEST(OptimMulti2Ops, AdamWByHand) {
  NDArray w = D({1.0, -2.0}), g = D({0.3, -4.0}), m = D({0.1, 0.0}), v = D({0.2, 0.0});
  const std::vector<double> w0 = w.ToVector<double>(), m0 = m.ToVector<double>(),
                            v0 = v.ToVector<double>(), g0 = g.ToVector<double>();
  nd::multi_adamw_update({w}, {g}, {m}, {v}, D({0.5}),
                         {.lrs = {0.1}, .wds = {0.01}, .etas = {0.5}, .clip_gradient = 1.0f}, {w});
  const double b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, lr = 0.1f, wd = 0.01f, eta = 0.5;
  for (int i = 0; i < 2; ++i) {
    const double gi = std::clamp(0.5 * g0[i], -1.0, 1.0);
    const double mi = b1 * m0[i] + (1 - b1) * gi, vi = b2 * v0[i] + (1 - b2) * gi * gi;
    EXPECT_NEAR(m.ToVector<double>()[i], mi, 1e-12) << i;
    EXPECT_NEAR(v.ToVector<double>()[i], vi, 1e-12) << i;
    EXPECT_NEAR(w.ToVector<double>()[i],
                w0[i] - eta * (lr * mi / (std::sqrt(vi) + eps) + wd * w0[i]), 1e-12)
        << i;
  }
}

TEST(OptimMulti2Ops, AdamWSkipsOnZeroOrNonFiniteScale) {
  NDArray w = D({1.0, 2.0}, DType::kFloat32), g = D({1.0, 1.0}, DType::kFloat32);
  NDArray m = D({0.0, 0.0}, DType::kFloat32), v = D({0.0, 0.0}, DType::kFloat32);
  for (double s : {0.0, std::nan(""), static_cast<double>(INFINITY)}) {
    std::vector<NDArray> o = nd::multi_adamw_update({w}, {g}, {m}, {v}, D({s}, DType::kFloat32),
                                                    {.lrs = {0.1}, .wds = {0.0}, .etas = {1.0}});
    EXPECT_EQ(o[0].ToVector<double>(), (std::vector<double>{1.0, 2.0})) << s;
    EXPECT_EQ(m.ToVector<double>(), (std::vector<double>{0.0, 0.0})) << s;
  }
}

TEST(OptimMulti2Ops, LambFirstStepByHand) {
  // t = 1, mean = var = 0, bias correction: mean_hat = g, var_hat = g^2, u = g/(|g| + eps) +
  // wd*w; w -= lr * |w|/|u| * u.
  NDArray w = D({3.0, 4.0}), g = D({0.5, -2.0}), m = D({0, 0}), v = D({0, 0});
  const std::vector<double> w0 = w.ToVector<double>(), g0 = g.ToVector<double>();
  nd::multi_lamb_update({w}, {g}, {m}, {v},
                        {.learning_rates = {0.1}, .wds = {0.01}, .step_count = Shape{1}}, {w});
  const double eps = 1e-6f, wd = 0.01f, lr = 0.1f;
  double u[2], nu = 0;
  for (int i = 0; i < 2; ++i) {
    u[i] = g0[i] / (std::fabs(g0[i]) + eps) + wd * w0[i];
    nu += u[i] * u[i];
  }
  const double r = 5.0 / std::sqrt(nu);  // |w| = 5
  for (int i = 0; i < 2; ++i)
    EXPECT_NEAR(w.ToVector<double>()[i], w0[i] - lr * r * u[i], 1e-6) << i;
}

TEST(OptimMulti2Ops, GroupAdagradByHand) {
  NDArray w =
      NDArray::FromVector(std::vector<double>{1, 2, 3, 4}, Shape{2, 2}, cpu(), DType::kFloat64);
  NDArray g = NDArray::FromVector(std::vector<double>{0.5, -0.5, 0, 0}, Shape{2, 2}, cpu(),
                                  DType::kFloat64);
  NDArray h = D({0.1, 0.2});
  NDArray o = nd::group_adagrad_update(w, g, h, {.lr = 0.1f, .epsilon = 0.0f});
  const double hist = 0.1 + 0.25;
  EXPECT_NEAR(h.ToVector<double>()[0], hist, 1e-12);
  EXPECT_NEAR(h.ToVector<double>()[1], 0.2, 1e-12);
  const double lr = 0.1f;
  EXPECT_NEAR(o.ToVector<double>()[0], 1 - lr * 0.5 / std::sqrt(hist), 1e-12);
  EXPECT_NEAR(o.ToVector<double>()[1], 2 + lr * 0.5 / std::sqrt(hist), 1e-12);
  EXPECT_EQ(o.ToVector<double>()[2], 3.0);  // zero-gradient rows stay
}

template <typename F>
std::string ErrorOf(F f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument) << e.what();
    return e.what();
  }
  return "";
}

TEST(OptimMulti2Ops, InferenceAndErrors) {
  const Op& op = OpRegistry::Get("_multi_mp_adamw_update");
  OpAttrs a = OpAttrs::Parse(
      op, {{"lrs", "(0.1, 0.1)"}, {"wds", "(0, 0)"}, {"etas", "(1, 1)"}, {"num_weights", "2"}});
  EXPECT_EQ(op.NumInputs(a), 11);
  EXPECT_EQ(op.NumOutputs(a), 2);
  EXPECT_EQ(op.InputNames(a), (std::vector<std::string>{
                                  "weight_0", "grad_0", "mean_0", "var_0", "weight32_0", "weight_1",
                                  "grad_1", "mean_1", "var_1", "weight32_1", "rescale_grad"}));
  for (int i : {2, 3, 4, 7, 8, 9}) EXPECT_TRUE(op.IsMutableInput(i)) << i;
  for (int i : {0, 1, 5, 6, 10}) EXPECT_FALSE(op.IsMutableInput(i)) << i;
  EXPECT_TRUE(op.non_differentiable);
  const Op& lamb = OpRegistry::Get("_multi_lamb_update");
  OpAttrs la =
      OpAttrs::Parse(lamb, {{"learning_rates", "(0.1,)"}, {"wds", "(0,)"}, {"step_count", "(1,)"}});
  EXPECT_EQ(lamb.NumInputs(la), 4);

  // Attribute counts must match num_weights / num_tensors.
  std::string e = ErrorOf([] {
    OpAttrs::Parse(
        OpRegistry::Get("_multi_adamw_update"),
        {{"lrs", "(0.1, 0.1)"}, {"wds", "(0, 0)"}, {"etas", "(1,)"}, {"num_weights", "2"}});
  });
  EXPECT_NE(e.find("etas"), std::string::npos) << e;
  e = ErrorOf([] {
    OpAttrs::Parse(OpRegistry::Get("_multi_lamb_update"), {{"learning_rates", "(0.1, 0.1)"},
                                                           {"wds", "(0, 0)"},
                                                           {"step_count", "(1,)"},
                                                           {"num_tensors", "2"}});
  });
  EXPECT_NE(e.find("step_count"), std::string::npos) << e;
  e = ErrorOf([] {
    OpAttrs::Parse(OpRegistry::Get("_multi_lamb_update"), {{"learning_rates", "(0.1,)"},
                                                           {"wds", "(0,)"},
                                                           {"step_count", "(1,)"},
                                                           {"num_tensors", "0"}});
  });
  EXPECT_NE(e.find("num_tensors"), std::string::npos) << e;
  // Wrong input count for num_weights (invoking with too few arrays).
  e = ErrorOf([&] {
    Invoke(op, a, std::vector<NDArray>{D({1}), D({1}), D({1}), D({1}), D({1}), D({1})});
  });
  EXPECT_FALSE(e.empty());
  // Mismatched list lengths in the nd:: API.
  e = ErrorOf([] {
    nd::multi_lamb_update({D({1}), D({2})}, {D({1})}, {D({0})}, {D({0})},
                          {.learning_rates = {0.1}, .wds = {0}, .step_count = Shape{1}});
  });
  EXPECT_NE(e.find("_multi_lamb_update"), std::string::npos) << e;
  // Shapes within a group must agree; the message names the input.
  e = ErrorOf([] {
    nd::multi_adamw_update({D({1, 2})}, {D({1, 2})}, {D({0})}, {D({0, 0})}, D({1.0}),
                           {.lrs = {0.1}, .wds = {0}, .etas = {1}});
  });
  EXPECT_NE(e.find("mean_0"), std::string::npos) << e;
  // mp_ states are float32.
  NDArray h = NDArray::Full(Shape{2}, 1.0, cpu(), DType::kFloat16);
  e = ErrorOf([&] {
    nd::multi_mp_lamb_update({h}, {h}, {h}, {h}, {h},
                             {.learning_rates = {0.1}, .wds = {0}, .step_count = Shape{1}});
  });
  EXPECT_NE(e.find("mean_0"), std::string::npos) << e;
  // group AdaGrad: one history value per row.
  e = ErrorOf([] {
    nd::group_adagrad_update(D({1, 2, 3}), D({1, 2, 3}), D({0, 0}), {.lr = 0.1f});
  });
  EXPECT_NE(e.find("history"), std::string::npos) << e;
}

}  // namespace
}  // namespace mxnet::testing
