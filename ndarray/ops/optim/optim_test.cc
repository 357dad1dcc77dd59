// Tests of the optim op family: three in-place updates of every op against real MXNet 1.9.1
// (testdata/optim/ops.json from tools/conformance/gen_optim_refs.py), the documented formulas,
// in-place vs separate outputs, type/shape inference and errors.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/ops/optim/optim_api.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

NDArray FromJson(const json& j) {
  std::vector<int64_t> dims = j["shape"].get<std::vector<int64_t>>();
  DType t = ValueOrThrow(DTypeFromName(j["dtype"].get<std::string>()));
  std::vector<double> v;
  for (const json& x : j["data"])
    v.push_back(x.is_string() ? std::stod(x.get<std::string>()) : x.get<double>());
  return NDArray::FromVector(v, Shape(dims), cpu(), t);
}

double Rtol(DType t) { return t == DType::kFloat16 ? 2e-3 : t == DType::kFloat64 ? 1e-12 : 2e-6; }
double Atol(DType t) { return t == DType::kFloat16 ? 2e-3 : t == DType::kFloat64 ? 1e-12 : 1e-6; }

json LoadCases() {
  std::ifstream f("ndarray/ops/testdata/optim/ops.json");
  if (!f.good()) return json();
  return json::parse(f)["cases"];
}

TEST(OptimConformance, ThreeInPlaceUpdatesMatchMxnet) {
  json cases = LoadCases();
  ASSERT_TRUE(cases.is_array()) << "missing ndarray/ops/testdata/optim/ops.json";
  int n = 0;
  for (const json& c : cases) {
    const std::string name = c["name"];
    if (c.value("multi", false)) continue;  // multi-tensor ops: optim_multi_test.cc
    SCOPED_TRACE(name);
    const Op& op = OpRegistry::Get(c["op"].get<std::string>());
    std::vector<NDArray> in;
    for (const json& j : c["inputs"]) in.push_back(FromJson(j));
    if (c.value("single", false)) {
      AttrDict ad;
      for (auto& [k, v] : c["attrs"].items()) ad[k] = v.get<std::string>();
      NDArray w = in[0];
      InvokeInto(op, OpAttrs::Parse(op, ad), in, std::vector<NDArray>{w});
      EXPECT_TRUE(AllClose(w, FromJson(c["steps"][0]["out"]), Rtol(w.dtype()), Atol(w.dtype())));
      ++n;
      continue;
    }
    // Inputs in op order: weight, grad, states..., extra (rescale_grad).
    NDArray weight = in[0];
    std::vector<NDArray> states(in.begin() + 1, in.end());
    std::vector<NDArray> extra;
    for (const json& j : c["extra"]) extra.push_back(FromJson(j));
    const bool returns_g = c.value("returns_g", false);
    for (int t = 0; t < 3; ++t) {
      SCOPED_TRACE(StrCat("step ", t + 1));
      AttrDict ad;
      for (auto& [k, v] : c["attrs"].items()) ad[k] = v.get<std::string>();
      for (auto& [k, v] : c["step_attrs"][t].items()) ad[k] = v.get<std::string>();
      std::vector<NDArray> args{weight, FromJson(c["grads"][t])};
      args.insert(args.end(), states.begin(), states.end());
      args.insert(args.end(), extra.begin(), extra.end());
      const json& step = c["steps"][t];
      NDArray expected = FromJson(step["out"]);
      NDArray out = returns_g ? NDArray(expected.shape(), cpu(), expected.dtype()) : weight;
      InvokeInto(op, OpAttrs::Parse(op, ad), args, std::vector<NDArray>{out});
      EXPECT_TRUE(AllClose(out, expected, Rtol(out.dtype()), Atol(out.dtype()))) << "out";
      for (auto& [k, v] : step["mutated"].items()) {
        int idx = std::stoi(k);
        NDArray want = FromJson(v);
        EXPECT_TRUE(AllClose(args[idx], want, Rtol(want.dtype()), Atol(want.dtype())))
            << "mutated input " << idx << " (" << op.InputNames(OpAttrs::Parse(op, ad))[idx] << ")";
      }
    }
    ++n;
  }
  EXPECT_GE(n, 30);
}

// ---- Formulas (float64, exact arithmetic order irrelevant at 1e-12). ----
NDArray D(std::vector<double> v) {
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())}, cpu(), DType::kFloat64);
}

TEST(OptimOps, SgdMomFormulaRescaleClipAndWd) {
  NDArray w = D({1.0, -2.0, 0.5}), g = D({0.3, -4.0, 10.0}), mom = D({0.1, 0.0, -0.2});
  const double lr = 0.1f, mu = 0.9f, wd = 0.01f, rg = 0.5f, clip = 1.0f;
  std::vector<double> wv = w.ToVector<double>(), gv = g.ToVector<double>(),
                      mv = mom.ToVector<double>();
  nd::sgd_mom_update(
      w, g, mom,
      {.lr = 0.1f, .momentum = 0.9f, .wd = 0.01f, .rescale_grad = 0.5f, .clip_gradient = 1.0f}, w);
  for (int i = 0; i < 3; ++i) {
    double gi = std::clamp(rg * gv[i], -clip, clip);  // clip after rescale; wd outside the clip
    double m = mu * mv[i] - lr * wd * wv[i] - lr * gi;
    EXPECT_NEAR(mom.ToVector<double>()[i], m, 1e-12);
    EXPECT_NEAR(w.ToVector<double>()[i], wv[i] + m, 1e-12);
  }
}

TEST(OptimOps, AdamFormulaAddsWdBeforeTheClip) {
  NDArray w = D({1.0, -2.0}), g = D({0.3, -4.0}), m = D({0, 0}), v = D({0, 0});
  nd::adam_update(w, g, m, v,
                  {.lr = 0.01f, .wd = 0.1f, .rescale_grad = 2.0f, .clip_gradient = 0.5f}, w);
  const double b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, lr = 0.01f;
  std::vector<double> w0{1.0, -2.0}, g0{0.3, -4.0};
  for (int i = 0; i < 2; ++i) {
    double gi = std::clamp(double(2.0f) * g0[i] + double(0.1f) * w0[i], -0.5, 0.5);
    double mi = (1 - b1) * gi, vi = (1 - b2) * gi * gi;
    EXPECT_NEAR(w.ToVector<double>()[i], w0[i] - lr * mi / (std::sqrt(vi) + eps), 1e-12);
  }
}

TEST(OptimOps, AdamWDecouplesWeightDecayAndSkipsOnNonFiniteScale) {
  NDArray w = D({1.0, -2.0}), g = D({0.3, -4.0}), m = D({0, 0}), v = D({0, 0});
  NDArray scale = NDArray::FromVector(std::vector<float>{1.0f}, Shape{1});
  nd::adamw_update(w, g, m, v, scale, {.lr = 0.01f, .wd = 0.5f, .eta = 2.0f}, w);
  std::vector<double> w0{1.0, -2.0}, g0{0.3, -4.0};
  for (int i = 0; i < 2; ++i) {
    double mi = (1 - double(0.9f)) * g0[i], vi = (1 - double(0.999f)) * g0[i] * g0[i];
    double want =
        w0[i] - 2.0 * (double(0.01f) * mi / (std::sqrt(vi) + double(1e-8f)) + 0.5 * w0[i]);
    EXPECT_NEAR(w.ToVector<double>()[i], want, 1e-12);
  }
  // NaN / Inf / 0 scale: nothing changes; a separate out receives the weight.
  for (float bad : {std::nanf(""), INFINITY, 0.0f}) {
    NDArray w2 = D({1.0, 2.0}), m2 = D({0.5, 0.5});
    NDArray s = NDArray::FromVector(std::vector<float>{bad}, Shape{1});
    NDArray out = nd::adamw_update(w2, g, m2, D({0, 0}), s, {.lr = 0.1f, .eta = 1.0f});
    EXPECT_EQ(out.ToVector<double>(), (std::vector<double>{1.0, 2.0}));
    EXPECT_EQ(m2.ToVector<double>(), (std::vector<double>{0.5, 0.5}));
  }
}

TEST(OptimOps, SeparateOutputLeavesTheWeightAlone) {
  NDArray w = D({1.0, 2.0}), g = D({1.0, 1.0});
  NDArray out = nd::sgd_update(w, g, {.lr = 0.5f});
  EXPECT_EQ(w.ToVector<double>(), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(out.ToVector<double>(), (std::vector<double>{0.5, 1.5}));
}

TEST(OptimOps, NagInPlaceUsesTheNewWeightForTheMomentumDecay) {
  // MXNet's kernel writes out before reading weight for mom's wd term.
  auto run = [](bool in_place) {
    NDArray w = D({1.0}), g = D({0.5}), mom = D({0.2});
    NDArray out = in_place ? w : NDArray(Shape{1}, cpu(), DType::kFloat64);
    nd::nag_mom_update(w, g, mom, {.lr = 0.1f, .momentum = 0.9f, .wd = 0.5f}, out);
    return std::make_pair(out.ToVector<double>()[0], mom.ToVector<double>()[0]);
  };
  auto [w_in, m_in] = run(true);
  auto [w_out, m_out] = run(false);
  EXPECT_DOUBLE_EQ(w_in, w_out);
  const double lr = 0.1f, wd = 0.5f, m = double(0.9f) * 0.2;
  EXPECT_NEAR(m_out, m - lr * (0.5 + wd * 1.0), 1e-12);
  EXPECT_NEAR(m_in, m - lr * (0.5 + wd * w_in), 1e-12);
}

TEST(OptimOps, MultiPrecisionKeepsFloat32MasterWeights) {
  // 1 - 1e-4 is 1 in float16, so a float16 weight alone never moves; the master copy does.
  NDArray w = NDArray::Full(Shape{4}, 1.0, cpu(), DType::kFloat16);
  NDArray g = NDArray::Full(Shape{4}, 1.0, cpu(), DType::kFloat16);
  NDArray w32 = NDArray::Full(Shape{4}, 1.0, cpu(), DType::kFloat32);
  NDArray w16 = w.copy();
  for (int i = 0; i < 10; ++i) {
    nd::mp_sgd_update(w, g, w32, {.lr = 1e-4f}, w);
    nd::sgd_update(w16, g, {.lr = 1e-4f}, w16);
  }
  EXPECT_NEAR(w32.ToVector<double>()[0], 0.999, 1e-6);
  EXPECT_NEAR(w.ToVector<double>()[0], 0.999, 5e-4);
  EXPECT_NE(w.ToVector<double>()[0], 1.0);
  EXPECT_EQ(w16.ToVector<double>()[0], 1.0);
}

TEST(OptimOps, InferenceAndErrors) {
  const Op& op = OpRegistry::Get("mp_sgd_mom_update");
  EXPECT_EQ(op.InputNames(OpAttrs::Parse(op, {{"lr", "0.1"}})),
            (std::vector<std::string>{"weight", "grad", "mom", "weight32"}));
  EXPECT_TRUE(op.IsMutableInput(2) && op.IsMutableInput(3) && !op.IsMutableInput(0));
  EXPECT_TRUE(op.non_differentiable);
  // Missing required lr.
  try {
    OpAttrs::Parse(OpRegistry::Get("sgd_update"), {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("lr"), std::string::npos) << e.what();
  }
  // mp states must be float32.
  NDArray w = NDArray::Full(Shape{2}, 1.0, cpu(), DType::kFloat16);
  NDArray bad = NDArray::Full(Shape{2}, 1.0, cpu(), DType::kFloat16);
  try {
    nd::mp_sgd_update(w, w, bad, {.lr = 0.1f}, w);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("weight32"), std::string::npos) << e.what();
  }
  // Shape mismatch names the op.
  try {
    nd::sgd_mom_update(D({1, 2}), D({1, 2}), D({1, 2, 3}), {.lr = 0.1f});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("sgd_mom_update"), std::string::npos) << e.what();
  }
  // Integer weights are rejected.
  NDArray wi = NDArray::Full(Shape{2}, 1.0, cpu(), DType::kInt32);
  EXPECT_THROW(nd::sgd_update(wi, wi, {.lr = 0.1f}), Error);
  // lamb phase 2's r1/r2 hold one element.
  EXPECT_THROW(nd::lamb_update_phase2(D({1, 2}), D({1, 2}), D({1, 2}), D({1}), {.lr = 0.1f}),
               Error);
}

TEST(OptimOps, SparseAliasesResolve) {
  for (const char* a : {"_sparse_sgd_update", "_sparse_sgd_mom_update", "_sparse_adam_update",
                        "_sparse_ftrl_update"})
    EXPECT_NE(OpRegistry::Find(a), nullptr) << a;
}

}  // namespace
}  // namespace mxnet::testing
