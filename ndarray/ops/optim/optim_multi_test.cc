// Tests of the optim family's multi-tensor ops (optim_multi.cc): every "multi" case of
// testdata/optim/ops.json (real MXNet 1.9.1, tools/conformance/gen_optim_refs.py) step by step,
// hand-computed formulas, the nd:: API, inference and errors. ftml_update's MXNet cases run in
// optim_test.cc (the three-step single-weight format).
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/ops/optim/optim_api.h"
#include "ndarray/ops/optim/optim_multi_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

double Tol(DType t) { return t == DType::kFloat16 ? 2e-3 : t == DType::kFloat64 ? 1e-12 : 2e-6; }

TEST(OptimMultiConformance, EveryMultiCaseMatchesMxnet) {
  std::set<std::string> ops;
  int n = 0;
  const json doc = LoadRefJson("ndarray/ops/testdata/optim/ops.json");
  for (const json& c : doc["cases"]) {
    if (!c.value("multi", false)) continue;
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
      if (!c["out_index"].is_null()) {
        for (int i : c["out_index"].get<std::vector<int>>()) outs.push_back(in[i]);
        InvokeInto(op, attrs, in, outs);
      } else if (c.contains("out_init")) {
        for (const json& j : c["out_init"]) outs.push_back(RefArray(j));
        InvokeInto(op, attrs, in, outs);
      } else {
        NDArrayVec o = Invoke(op, attrs, in);
        outs.assign(o.begin(), o.end());
      }
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
        EXPECT_TRUE(AllClose(in[std::stoi(k)], want, Tol(want.dtype()), Tol(want.dtype())))
            << "input " << k << " (" << op.InputNames(attrs)[std::stoi(k)] << ") after the call";
      }
    }
    ops.insert(op.name);
    ++n;
  }
  EXPECT_GE(n, 30);
  for (const char* o :
       {"multi_sgd_update", "multi_sgd_mom_update", "multi_mp_sgd_update",
        "multi_mp_sgd_mom_update", "preloaded_multi_sgd_update", "preloaded_multi_sgd_mom_update",
        "preloaded_multi_mp_sgd_update", "preloaded_multi_mp_sgd_mom_update", "multi_sum_sq",
        "multi_lars", "all_finite", "multi_all_finite", "reset_arrays"})
    EXPECT_TRUE(ops.count(o)) << o << " has no MXNet case";
}

NDArray D(std::vector<double> v, DType t = DType::kFloat64) {
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())}, cpu(), t);
}

TEST(OptimMultiOps, MultiSgdMomUpdatesEachWeightWithItsOwnLrAndWd) {
  NDArray w0 = D({1.0, -2.0}), w1 = D({0.5, 0.25, 4.0});
  NDArray g0 = D({0.3, -4.0}), g1 = D({1.0, -1.0, 0.5});
  NDArray m0 = D({0.1, 0.0}), m1 = D({0.0, 0.2, -0.1});
  std::vector<double> w0v = w0.ToVector<double>(), w1v = w1.ToVector<double>();
  std::vector<double> m0v = m0.ToVector<double>(), m1v = m1.ToVector<double>();
  std::vector<NDArray> out = nd::multi_sgd_mom_update({w0, w1}, {g0, g1}, {m0, m1},
                                                      {.lrs = {0.1, 0.5},
                                                       .wds = {0.01, 0.0},
                                                       .momentum = 0.9f,
                                                       .rescale_grad = 0.5f,
                                                       .clip_gradient = 1.0f},
                                                      {w0, w1});
  ASSERT_EQ(out.size(), 2u);
  const double mu = 0.9f, rg = 0.5f, lr[] = {double(0.1f), double(0.5f)},
               wd[] = {double(0.01f), 0.0};
  auto check = [&](int k, const std::vector<double>& w, const std::vector<double>& g,
                   const std::vector<double>& m, const NDArray& wn, const NDArray& mn) {
    for (size_t i = 0; i < w.size(); ++i) {
      double mm = mu * m[i] - lr[k] * wd[k] * w[i] - lr[k] * std::clamp(rg * g[i], -1.0, 1.0);
      EXPECT_NEAR(mn.ToVector<double>()[i], mm, 1e-12) << k << " " << i;
      EXPECT_NEAR(wn.ToVector<double>()[i], w[i] + mm, 1e-12) << k << " " << i;
    }
  };
  check(0, w0v, g0.ToVector<double>(), m0v, w0, m0);
  check(1, w1v, g1.ToVector<double>(), m1v, w1, m1);
}

TEST(OptimMultiOps, MultiSgdEqualsSgdUpdatePerWeight) {
  // float32: multi_sgd_update matches sgd_update to rounding (the formulas group differently).
  NDArray w = RandomArray({3, 4}, -1, 1, 1, DType::kFloat32);
  NDArray g = RandomArray({3, 4}, -1, 1, 2, DType::kFloat32);
  NDArray single = nd::sgd_update(w, g, {.lr = 0.1f, .wd = 0.01f});
  NDArray multi = nd::multi_sgd_update({w}, {g}, {.lrs = {0.1}, .wds = {0.01}})[0];
  EXPECT_TRUE(AllClose(multi, single, 1e-6, 1e-7));
  // Separate outputs leave the weights alone.
  EXPECT_FALSE(AllClose(w, multi, 0, 0));
}

TEST(OptimMultiOps, PreloadedEqualsAttributeLrs) {
  auto make = [] {
    return std::vector<NDArray>{RandomArray({5}, -1, 1, 3, DType::kFloat32),
                                RandomArray({2, 2}, -1, 1, 4, DType::kFloat32)};
  };
  std::vector<NDArray> w = make(), g = make(), m1 = make(), m2 = make();
  NDArray lrs = D({0.1, 0.2}, DType::kFloat32), wds = D({0.0, 0.05}, DType::kFloat32);
  auto a =
      nd::multi_sgd_mom_update(w, g, m1, {.lrs = {0.1, 0.2}, .wds = {0.0, 0.05}, .momentum = 0.9f});
  auto b = nd::preloaded_multi_sgd_mom_update(w, g, m2, lrs, wds, {.momentum = 0.9f});
  for (int k = 0; k < 2; ++k) {
    EXPECT_TRUE(AllClose(a[k], b[k], 0, 0)) << k;
    EXPECT_TRUE(AllClose(m1[k], m2[k], 0, 0)) << k;
  }
}

TEST(OptimMultiOps, MultiPrecisionUpdatesFloat32MasterWeights) {
  NDArray w = NDArray::Full(Shape{4}, 1.0, cpu(), DType::kFloat16);
  NDArray g = NDArray::Full(Shape{4}, 1.0, cpu(), DType::kFloat16);
  NDArray w32 = NDArray::Full(Shape{4}, 1.0, cpu(), DType::kFloat32);
  for (int i = 0; i < 10; ++i)
    nd::multi_mp_sgd_update({w}, {g}, {w32}, {.lrs = {1e-4}, .wds = {0.0}}, {w});
  EXPECT_NEAR(w32.ToVector<double>()[0], 0.999, 1e-6);
  EXPECT_NE(w.ToVector<double>()[0], 1.0);
  EXPECT_EQ(w.dtype(), DType::kFloat16);
}

TEST(OptimMultiOps, SumSqLarsAllFiniteReset) {
  NDArray s = nd::multi_sum_sq({D({1, 2}, DType::kFloat32), D({3}, DType::kFloat32)});
  EXPECT_EQ(s.dtype(), DType::kFloat32);
  EXPECT_EQ(s.ToVector<double>(), (std::vector<double>{5, 9}));

  // lrs*eta*|w| / (|g|*rescale + wd*|w| + eps); lrs where |w| or |g| is 0.
  NDArray l = nd::multi_lars(D({0.1, 0.2}, DType::kFloat32), D({4, 0}, DType::kFloat32),
                             D({1, 1}, DType::kFloat32), D({0.5, 0.5}, DType::kFloat32),
                             {.eta = 0.5f, .eps = 0.0f});
  EXPECT_NEAR(l.ToVector<double>()[0], 0.1 * 0.5 * 2 / (1 + 0.5 * 2), 1e-7);
  EXPECT_NEAR(l.ToVector<double>()[1], 0.2, 1e-7);

  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(nd::all_finite(D({1, 2})).ToVector<double>(), std::vector<double>{1});
  EXPECT_EQ(nd::all_finite(D({1, inf})).ToVector<double>(), std::vector<double>{0});
  EXPECT_EQ(nd::all_finite(D({1, 1e300})).ToVector<double>(), std::vector<double>{0})
      << "read as float32, as MXNet does";
  NDArray o = D({0.5}, DType::kFloat32);
  nd::all_finite(D({1.0}), /*init_output=*/false, o);
  EXPECT_EQ(o.ToVector<double>(), std::vector<double>{0.5});
  nd::multi_all_finite({D({1.0}), D({std::nan("")}, DType::kFloat32)}, false, o);
  EXPECT_EQ(o.ToVector<double>(), std::vector<double>{0});

  NDArray a = D({1, 2}), b = D({3}, DType::kFloat16);
  nd::reset_arrays({a, b});
  EXPECT_EQ(a.ToVector<double>(), (std::vector<double>{0, 0}));
  EXPECT_EQ(b.ToVector<double>(), (std::vector<double>{0}));
}

TEST(OptimMultiOps, FtmlFirstStepByHand) {
  // t = 1, d = v = z = 0: v = (1-b2) g^2, d_t = (1-b1)/lr*(sqrt(v/(1-b2)) + eps) = (1-b1)/lr*(|g|
  // + eps), z = (1-b1) g - d_t w, weight = -z/d_t.
  NDArray w = D({0.5, -1.0}), g = D({0.2, -0.4});
  NDArray d = D({0, 0}), v = D({0, 0}), z = D({0, 0});
  NDArray out = nd::ftml_update(w, g, d, v, z, {.lr = 0.1f, .t = 1});
  const double b1 = 0.6f, lr = 0.1f, eps = 1e-8f;
  for (int i = 0; i < 2; ++i) {
    double gi = g.ToVector<double>()[i], wi = w.ToVector<double>()[i];
    double dt = (1 - b1) / lr * (std::fabs(gi) + eps);
    double zi = (1 - b1) * gi - dt * wi;
    EXPECT_NEAR(d.ToVector<double>()[i], dt, 1e-9);
    EXPECT_NEAR(z.ToVector<double>()[i], zi, 1e-9);
    EXPECT_NEAR(out.ToVector<double>()[i], -zi / dt, 1e-9);
  }
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

TEST(OptimMultiOps, InferenceAndErrors) {
  const Op& op = OpRegistry::Get("preloaded_multi_mp_sgd_mom_update");
  OpAttrs a = OpAttrs::Parse(op, {{"num_weights", "2"}});
  EXPECT_EQ(op.NumInputs(a), 10);
  EXPECT_EQ(op.NumOutputs(a), 2);
  EXPECT_EQ(op.InputNames(a),
            (std::vector<std::string>{"weight_0", "grad_0", "mom_0", "weight32_0", "weight_1",
                                      "grad_1", "mom_1", "weight32_1", "lrs", "wds"}));
  for (int i : {2, 3, 6, 7}) EXPECT_TRUE(op.IsMutableInput(i)) << i;
  for (int i : {0, 1, 4, 5, 8, 9}) EXPECT_FALSE(op.IsMutableInput(i)) << i;
  EXPECT_TRUE(op.non_differentiable);

  // lrs must have num_weights values.
  std::string e = ErrorOf([] {
    OpAttrs::Parse(OpRegistry::Get("multi_sgd_update"),
                   {{"lrs", "(0.1,)"}, {"wds", "(0, 0)"}, {"num_weights", "2"}});
  });
  EXPECT_NE(e.find("lrs"), std::string::npos) << e;
  // Missing required lrs.
  e = ErrorOf([] { OpAttrs::Parse(OpRegistry::Get("multi_sgd_update"), {{"wds", "(0,)"}}); });
  EXPECT_NE(e.find("lrs"), std::string::npos) << e;
  // Weight and grad shapes of one group must agree; the message names the op and input.
  e = ErrorOf([] {
    nd::multi_sgd_update({D({1, 2})}, {D({1, 2, 3})}, {.lrs = {0.1}, .wds = {0}});
  });
  EXPECT_NE(e.find("multi_sgd_update"), std::string::npos) << e;
  EXPECT_NE(e.find("grad_0"), std::string::npos) << e;
  // mp_ states are float32.
  NDArray h = NDArray::Full(Shape{2}, 1.0, cpu(), DType::kFloat16);
  e = ErrorOf([&] { nd::multi_mp_sgd_update({h}, {h}, {h}, {.lrs = {0.1}, .wds = {0}}); });
  EXPECT_NE(e.find("weight32_0"), std::string::npos) << e;
  // preloaded lrs must hold num_weights values.
  e = ErrorOf([] {
    nd::preloaded_multi_sgd_update({D({1})}, {D({1})}, D({0.1, 0.2}, DType::kFloat32),
                                   D({0}, DType::kFloat32));
  });
  EXPECT_NE(e.find("lrs"), std::string::npos) << e;
  // Mismatched list lengths in the nd:: API.
  e = ErrorOf([] { nd::multi_sgd_update({D({1}), D({2})}, {D({1})}, {.lrs = {0.1}, .wds = {0}}); });
  EXPECT_NE(e.find("multi_sgd_update"), std::string::npos) << e;
  // multi_lars is float32 only; ftml's beta1 must be in [0, 1].
  EXPECT_FALSE(ErrorOf([] {
                 nd::multi_lars(D({1}), D({1}), D({1}), D({1}), {.eta = 1, .eps = 0});
               }).empty());
  EXPECT_FALSE(ErrorOf([] {
                 OpAttrs::Parse(OpRegistry::Get("ftml_update"),
                                {{"lr", "0.1"}, {"t", "1"}, {"beta1", "1.5"}});
               }).empty());
}

}  // namespace
}  // namespace mxnet::testing
