// Samplers of shape_sample.cc, checked statistically with fixed seeds (means and variances
// against closed forms, with bounds of about 5 standard errors; supports; dtypes; shape rules;
// seed repeatability; parameter errors), and the pdf ops of shape_pdf.cc against hand-written
// formulas, normalization sums/integrals, gradients, MXNet 1.9.1 reference values
// (testdata/shape/refs.json, tools/conformance/gen_shape_refs.py) and shape/dtype errors.
#include <cmath>
#include <map>
#include <numbers>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/random/sample_api.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/random.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

namespace rnd = nd::random;
using testing::AllClose;
using testing::ErrorOf;
using testing::LoadRefJson;
using testing::RefArray;
using testing::RefAttrs;
using testing::RefInputs;

struct Moments {
  double mean = 0, var = 0, min = INFINITY, max = -INFINITY;
  bool integers = true;
};
Moments MomentsOf(const std::vector<double>& v) {
  Moments m;
  for (double x : v) {
    m.mean += x, m.min = std::min(m.min, x), m.max = std::max(m.max, x);
    if (x != std::floor(x)) m.integers = false;
  }
  m.mean /= v.size();
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= v.size() - 1;
  return m;
}
Moments MomentsOf(const NDArray& a) { return MomentsOf(a.ToVector<double>()); }

// Row r (of `cols` values) of a 2-D result.
std::vector<double> Row(const NDArray& a, int64_t r, int64_t cols) {
  std::vector<double> v = a.ToVector<double>();
  return {v.begin() + r * cols, v.begin() + (r + 1) * cols};
}

NDArray Vec(std::vector<double> v, DType t = DType::kFloat32) {
  int64_t n = static_cast<int64_t>(v.size());
  return NDArray::FromVector(v, {n}, cpu(), t);
}

constexpr int64_t kN = 200000;

// ---------------------------------------------------------------------------------------------
// _random_<distr>

TEST(Sample, SeedMakesEverySamplerRepeatable) {
  NDArray data = nd::zeros({50}, cpu(), DType::kFloat64);
  NDArray lam = Vec({1, 2});
  NDArray probs = NDArray::FromVector(std::vector<double>{0.2, 0.3, 0.5}, {1, 3});
  auto draw = [&] {
    std::vector<std::vector<double>> v;
    for (const NDArray& a :
         {rnd::exponential(1, {50}), rnd::gamma(2, 1, {50}), rnd::poisson(3, {50}),
          rnd::negative_binomial(2, 0.5, {50}), rnd::generalized_negative_binomial(2, 0.3, {50}),
          rnd::uniform_like(data), rnd::normal_like(data), rnd::exponential_like(data),
          rnd::gamma_like(data), rnd::poisson_like(data), rnd::negative_binomial_like(data, 2, 0.5),
          rnd::generalized_negative_binomial_like(data), rnd::sample_exponential(lam, {20}),
          rnd::sample_gamma(lam, lam, {20}), rnd::sample_poisson(lam, {20}),
          rnd::sample_negative_binomial(lam, Vec({0.5, 0.5}), {20}),
          rnd::sample_generalized_negative_binomial(lam, lam, {20}),
          rnd::sample_multinomial(probs, {20})[0], rnd::sample_unique_zipfian(100, {2, 10}).first})
      v.push_back(a.ToVector<double>());
    return v;
  };
  ::mxnet::random::seed(42);
  auto a = draw();
  ::mxnet::random::seed(42);
  auto b = draw();
  ::mxnet::random::seed(43);
  auto c = draw();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i], b[i]) << "sampler " << i;
    EXPECT_NE(a[i], c[i]) << "sampler " << i;
  }
  // By name with MXNet's attribute strings, and through the random_* aliases.
  ::mxnet::random::seed(7);
  NDArray x = Invoke("_random_gamma", {},
                     {{"alpha", "2"}, {"beta", "3"}, {"shape", "(10,)"}, {"ctx", "cpu(0)"}})[0];
  ::mxnet::random::seed(7);
  NDArray y = Invoke("random_gamma", {}, {{"alpha", "2"}, {"beta", "3"}, {"shape", "(10,)"}})[0];
  EXPECT_EQ(x.ToVector<float>(), y.ToVector<float>());
}

TEST(Sample, ExponentialMeanVariance) {
  ::mxnet::random::seed(1);
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    NDArray e = rnd::exponential(2, {kN}, cpu(), t);
    EXPECT_EQ(e.dtype(), t);
    Moments m = MomentsOf(e);
    EXPECT_GE(m.min, 0.0);
    EXPECT_NEAR(m.mean, 0.5, 0.006);  // 1/lam; standard error 0.0011
    EXPECT_NEAR(m.var, 0.25, 0.01);   // 1/lam^2; standard error 0.0016
  }
  EXPECT_EQ(Invoke("random_exponential", {}, {{"shape", "(2, 3)"}})[0].shape(), Shape({2, 3}));
  EXPECT_EQ(Invoke("_random_exponential", {}, {{"shape", "(3,)"}, {"dtype", "float16"}})[0].dtype(),
            DType::kFloat16);
}

TEST(Sample, GammaMeanVarianceBothBranches) {
  ::mxnet::random::seed(2);
  Moments m = MomentsOf(rnd::gamma(2, 3, {kN}, cpu(), DType::kFloat64));
  EXPECT_GT(m.min, 0.0);
  EXPECT_NEAR(m.mean, 6.0, 0.05);  // alpha*beta (beta is the scale); standard error 0.0095
  EXPECT_NEAR(m.var, 18.0, 0.5);   // alpha*beta^2; standard error 0.09
  m = MomentsOf(rnd::gamma(0.5, 1, {kN}));
  EXPECT_GE(m.min, 0.0);
  EXPECT_NEAR(m.mean, 0.5, 0.01);
  EXPECT_NEAR(m.var, 0.5, 0.03);
}

TEST(Sample, PoissonMeanVarianceIntegers) {
  ::mxnet::random::seed(3);
  Moments m = MomentsOf(rnd::poisson(3, {kN}));
  EXPECT_TRUE(m.integers);
  EXPECT_EQ(m.min, 0.0);
  EXPECT_NEAR(m.mean, 3.0, 0.02);
  EXPECT_NEAR(m.var, 3.0, 0.06);
  m = MomentsOf(rnd::poisson(50, {kN}, cpu(), DType::kFloat64));
  EXPECT_TRUE(m.integers);
  EXPECT_NEAR(m.mean, 50.0, 0.1);
  EXPECT_NEAR(m.var, 50.0, 1.5);
  EXPECT_EQ(rnd::poisson(0, {5}).ToVector<double>(), std::vector<double>(5, 0.0));
}

TEST(Sample, NegativeBinomialMeanVariance) {
  ::mxnet::random::seed(4);
  Moments m = MomentsOf(rnd::negative_binomial(3, 0.4, {kN}));
  EXPECT_TRUE(m.integers);
  EXPECT_GE(m.min, 0.0);
  EXPECT_NEAR(m.mean, 4.5, 0.04);  // k(1-p)/p; standard error 0.0075
  EXPECT_NEAR(m.var, 11.25, 0.4);  // k(1-p)/p^2
  EXPECT_EQ(rnd::negative_binomial(0, 0.5, {4}).ToVector<double>(), std::vector<double>(4, 0.0));
  EXPECT_EQ(rnd::negative_binomial(3, 1, {4}).ToVector<double>(), std::vector<double>(4, 0.0));
}

TEST(Sample, GeneralizedNegativeBinomialMeanVariance) {
  ::mxnet::random::seed(5);
  Moments m = MomentsOf(rnd::generalized_negative_binomial(2, 0.5, {kN}));
  EXPECT_TRUE(m.integers);
  EXPECT_NEAR(m.mean, 2.0, 0.025);                                // mu; standard error 0.0045
  EXPECT_NEAR(m.var, 4.0, 0.15);                                  // mu + alpha*mu^2
  m = MomentsOf(rnd::generalized_negative_binomial(3, 0, {kN}));  // Poisson(3)
  EXPECT_NEAR(m.mean, 3.0, 0.02);
  EXPECT_NEAR(m.var, 3.0, 0.06);
}

TEST(Sample, ParameterErrorsNameTheOpAndAttribute) {
  EXPECT_NE(ErrorOf([] { rnd::exponential(0, {3}); }).find("lam"), std::string::npos);
  EXPECT_NE(ErrorOf([] { rnd::exponential(-1, {3}); }).find("_random_exponential"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { rnd::gamma(0, 1, {3}); }).find("alpha"), std::string::npos);
  EXPECT_NE(ErrorOf([] { rnd::gamma(1, -2, {3}); }).find("beta"), std::string::npos);
  EXPECT_NE(ErrorOf([] { rnd::poisson(-1, {3}); }).find("lam"), std::string::npos);
  EXPECT_NE(ErrorOf([] { rnd::negative_binomial(-1, 0.5, {3}); }).find("k"), std::string::npos);
  EXPECT_NE(ErrorOf([] { rnd::negative_binomial(1, 0, {3}); }).find("p"), std::string::npos);
  EXPECT_NE(ErrorOf([] { rnd::negative_binomial(1, 1.5, {3}); }).find("p"), std::string::npos);
  EXPECT_NE(ErrorOf([] { rnd::generalized_negative_binomial(-1, 1, {3}); }).find("mu"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { rnd::generalized_negative_binomial(1, -1, {3}); }).find("alpha"),
            std::string::npos);
  // k is an int attribute; dtype only float16/32/64; shape is required.
  EXPECT_THROW(Invoke("_random_negative_binomial", {}, {{"k", "2.5"}, {"shape", "(2,)"}}), Error);
  EXPECT_THROW(Invoke("_random_poisson", {}, {{"shape", "(2,)"}, {"dtype", "int32"}}), Error);
  EXPECT_THROW(Invoke("_random_poisson", {}, {}), Error);
}

// ---------------------------------------------------------------------------------------------
// _random_<distr>_like

TEST(Sample, LikeOpsTakeShapeAndDtypeOfData) {
  ::mxnet::random::seed(6);
  NDArray d64 = nd::zeros({400, 250}, cpu(), DType::kFloat64);
  struct Want {
    NDArray a;
    double mean, var, mean_tol, var_tol;
  };
  std::vector<Want> cases = {
      {rnd::uniform_like(d64, -1, 2), 0.5, 0.75, 0.01, 0.015},
      {rnd::normal_like(d64, 1, 2), 1, 4, 0.03, 0.08},
      {rnd::exponential_like(d64, 4), 0.25, 0.0625, 0.003, 0.003},
      {rnd::gamma_like(d64, 3, 0.5), 1.5, 0.75, 0.01, 0.03},
      {rnd::poisson_like(d64, 2), 2, 2, 0.015, 0.05},
      {rnd::negative_binomial_like(d64, 2, 0.5), 2, 4, 0.025, 0.15},
      {rnd::generalized_negative_binomial_like(d64, 1, 1), 1, 2, 0.02, 0.1},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Want& w = cases[i];
    EXPECT_EQ(w.a.shape(), Shape({400, 250})) << i;
    EXPECT_EQ(w.a.dtype(), DType::kFloat64) << i;
    Moments m = MomentsOf(w.a);
    EXPECT_NEAR(m.mean, w.mean, w.mean_tol) << i;
    EXPECT_NEAR(m.var, w.var, w.var_tol) << i;
  }
  NDArray u16 = rnd::uniform_like(nd::zeros({1000}, cpu(), DType::kFloat16), 0, 1);
  EXPECT_EQ(u16.dtype(), DType::kFloat16);
  EXPECT_LT(MomentsOf(u16).max, 1.0);  // half-open after rounding to float16
  NDArray ints = nd::zeros({3}, cpu(), DType::kInt32);
  EXPECT_NE(ErrorOf([&] { rnd::uniform_like(ints); }).find("floating"), std::string::npos);
  EXPECT_THROW(rnd::exponential_like(d64, -1), Error);
  EXPECT_THROW(rnd::uniform_like(d64, 3, 2), Error);
  EXPECT_THROW(rnd::normal_like(d64, 0, 0), Error);
  // No gradient flows into data (MXNet's is zero): the op is not differentiable.
  EXPECT_TRUE(OpRegistry::Get("_random_normal_like").non_differentiable);
}

// ---------------------------------------------------------------------------------------------
// _sample_<distr>

TEST(Sample, SampleOpsDrawPerParameterElement) {
  ::mxnet::random::seed(8);
  const int64_t n = 100000;
  NDArray e = rnd::sample_exponential(Vec({1, 4}), {n});
  EXPECT_EQ(e.shape(), Shape({2, n}));
  EXPECT_EQ(e.dtype(), DType::kFloat32);
  EXPECT_NEAR(MomentsOf(Row(e, 0, n)).mean, 1.0, 0.016);
  EXPECT_NEAR(MomentsOf(Row(e, 1, n)).mean, 0.25, 0.004);

  NDArray g = rnd::sample_gamma(Vec({2, 0.5}), Vec({3, 1}), {n}, DType::kFloat64);
  EXPECT_EQ(g.dtype(), DType::kFloat64);
  EXPECT_NEAR(MomentsOf(Row(g, 0, n)).mean, 6.0, 0.07);
  EXPECT_NEAR(MomentsOf(Row(g, 0, n)).var, 18.0, 0.7);
  EXPECT_NEAR(MomentsOf(Row(g, 1, n)).mean, 0.5, 0.012);

  NDArray p = rnd::sample_poisson(Vec({0, 2.5, 30}), {n});
  EXPECT_EQ(p.shape(), Shape({3, n}));
  EXPECT_EQ(MomentsOf(Row(p, 0, n)).max, 0.0);
  Moments m1 = MomentsOf(Row(p, 1, n)), m2 = MomentsOf(Row(p, 2, n));
  EXPECT_TRUE(m1.integers && m2.integers);
  EXPECT_NEAR(m1.mean, 2.5, 0.025);
  EXPECT_NEAR(m1.var, 2.5, 0.07);
  EXPECT_NEAR(m2.mean, 30, 0.09);
  EXPECT_NEAR(m2.var, 30, 1.2);

  NDArray nb = rnd::sample_negative_binomial(Vec({3, 0}), Vec({0.4, 0.5}), {n});
  EXPECT_NEAR(MomentsOf(Row(nb, 0, n)).mean, 4.5, 0.055);
  EXPECT_NEAR(MomentsOf(Row(nb, 0, n)).var, 11.25, 0.6);
  EXPECT_EQ(MomentsOf(Row(nb, 1, n)).max, 0.0);

  NDArray gnb = rnd::sample_generalized_negative_binomial(Vec({2, 3}), Vec({0.5, 0}), {n});
  EXPECT_NEAR(MomentsOf(Row(gnb, 0, n)).mean, 2.0, 0.035);
  EXPECT_NEAR(MomentsOf(Row(gnb, 0, n)).var, 4.0, 0.2);
  EXPECT_NEAR(MomentsOf(Row(gnb, 1, n)).mean, 3.0, 0.03);
  EXPECT_NEAR(MomentsOf(Row(gnb, 1, n)).var, 3.0, 0.09);
}

TEST(Sample, SampleOpShapesDtypesAndErrors) {
  NDArray lam = NDArray::FromVector(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(rnd::sample_poisson(lam).shape(), Shape({2, 3}));  // shape () : one draw each
  EXPECT_EQ(rnd::sample_poisson(lam, {4, 5}).shape(), Shape({2, 3, 4, 5}));
  EXPECT_EQ(rnd::sample_exponential(lam, {2}, DType::kFloat16).dtype(), DType::kFloat16);
  // Integer parameter arrays are accepted (MXNet too); the output stays float.
  NDArray ilam = NDArray::FromVector(std::vector<int32_t>{1, 2}, {2}, cpu(), DType::kInt32);
  EXPECT_EQ(rnd::sample_exponential(ilam, {3}).dtype(), DType::kFloat32);
  // Parameter arrays must agree in shape and dtype.
  std::string err = ErrorOf([] { rnd::sample_gamma(Vec({1, 2}), Vec({1, 2, 3}), {3}); });
  EXPECT_NE(err.find("_sample_gamma"), std::string::npos) << err;
  EXPECT_THROW(rnd::sample_gamma(Vec({1, 2}), Vec({1, 2}, DType::kFloat64)), Error);
  // Elements outside the parameter ranges (MXNet loops forever or returns garbage).
  err = ErrorOf([] { rnd::sample_exponential(Vec({1, -1})); });
  EXPECT_NE(err.find("lam must be > 0"), std::string::npos) << err;
  EXPECT_THROW(rnd::sample_gamma(Vec({0}), Vec({1})), Error);
  EXPECT_THROW(rnd::sample_gamma(Vec({1}), Vec({-1})), Error);
  EXPECT_THROW(rnd::sample_poisson(Vec({-0.5})), Error);
  EXPECT_THROW(rnd::sample_negative_binomial(Vec({-1}), Vec({0.5})), Error);
  EXPECT_THROW(rnd::sample_negative_binomial(Vec({1}), Vec({0})), Error);
  EXPECT_THROW(rnd::sample_generalized_negative_binomial(Vec({1}), Vec({-0.1})), Error);
  // Empty parameters give an empty result.
  EXPECT_EQ(rnd::sample_poisson(nd::zeros({0}), {3}).shape(), Shape({0, 3}));
}

// ---------------------------------------------------------------------------------------------
// _sample_multinomial

TEST(Sample, MultinomialFrequenciesAndShapes) {
  ::mxnet::random::seed(9);
  NDArray probs =
      NDArray::FromVector(std::vector<double>{0.1, 0.2, 0.3, 0.4, 0, 0.5, 0, 0.5}, {2, 4});
  NDArray s = rnd::sample_multinomial(probs, {kN})[0];
  EXPECT_EQ(s.shape(), Shape({2, kN}));
  EXPECT_EQ(s.dtype(), DType::kInt32);
  std::vector<int32_t> v = s.ToVector<int32_t>();
  std::vector<std::map<int, double>> freq(2);
  for (int r = 0; r < 2; ++r)
    for (int64_t j = 0; j < kN; ++j) freq[r][v[r * kN + j]] += 1.0 / kN;
  EXPECT_EQ(freq[1].count(0) + freq[1].count(2), 0u);  // zero-probability categories never drawn
  EXPECT_EQ(freq[0].size(), 4u);
  const double want[2][4] = {{0.1, 0.2, 0.3, 0.4}, {0, 0.5, 0, 0.5}};
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(freq[r][c], want[r][c], 0.005) << r << " " << c;

  NDArray p1 = Vec({0.25, 0.75});
  EXPECT_EQ(rnd::sample_multinomial(p1)[0].shape(), Shape({1}));  // 1-D data, shape ()
  EXPECT_EQ(rnd::sample_multinomial(p1, {3})[0].shape(), Shape({3}));
  NDArray p3 = NDArray::Full({2, 3, 4}, 0.25);
  EXPECT_EQ(rnd::sample_multinomial(p3, {5, 6})[0].shape(), Shape({2, 3, 5, 6}));
  EXPECT_EQ(rnd::sample_multinomial(p3)[0].shape(), Shape({2, 3}));
  EXPECT_EQ(rnd::sample_multinomial(p3, {}, false, DType::kUint8)[0].dtype(), DType::kUint8);
  EXPECT_EQ(rnd::sample_multinomial(p3, {}, false, DType::kFloat32)[0].dtype(), DType::kFloat32);
  EXPECT_EQ(rnd::sample_multinomial(p3).size(), 1u);
  // Errors: integer data, 0-d data, negative or all-zero rows, bad dtype attribute.
  EXPECT_NE(ErrorOf([] {
              rnd::sample_multinomial(
                  NDArray::FromVector(std::vector<int32_t>{0, 1}, {2}, cpu(), DType::kInt32));
            }).find("floating"),
            std::string::npos);
  EXPECT_THROW(rnd::sample_multinomial(nd::ones({})), Error);
  EXPECT_THROW(rnd::sample_multinomial(Vec({-0.5, 1.5})), Error);
  EXPECT_THROW(rnd::sample_multinomial(Vec({0, 0})), Error);
  EXPECT_THROW(Invoke("_sample_multinomial", std::vector<NDArray>{p1}, {{"dtype", "int64"}}),
               Error);
}

TEST(Sample, MultinomialLogProbabilityAndItsGradient) {
  NDArray p = NDArray::FromVector(std::vector<double>{0.2, 0.3, 0.5, 0.6, 0.1, 0.3}, {2, 3}, cpu(),
                                  DType::kFloat64);
  ::mxnet::random::seed(10);
  std::vector<NDArray> out = rnd::sample_multinomial(p, {4}, true);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].dtype(), DType::kFloat64);
  EXPECT_EQ(out[1].shape(), Shape({2, 4}));
  std::vector<int32_t> idx = out[0].ToVector<int32_t>();
  std::vector<double> lp = out[1].ToVector<double>(), pv = p.ToVector<double>();
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 4; ++j)
      EXPECT_DOUBLE_EQ(lp[r * 4 + j], std::log(pv[r * 3 + idx[r * 4 + j]]));

  // d/dp sum(w * log p[idx]) = sum of w / p at the drawn indices (MXNet's
  // _backward_sample_multinomial); checked by hand and by finite differences with the seed reset
  // (the inverse-CDF draws do not move under a 1e-6 change of p here).
  const Op& op = OpRegistry::Get("_sample_multinomial");
  OpAttrs attrs = OpAttrs::Parse(op, {{"shape", "(4,)"}, {"get_prob", "True"}});
  std::vector<double> w = {1, 2, 3, 4, -1, 0.5, 2, -3};
  NDArray wg = NDArray::FromVector(w, {2, 4}, cpu(), DType::kFloat64);
  std::vector<NDArray> heads = {nd::zeros({2, 4}, cpu(), DType::kInt32), wg};
  ::mxnet::random::seed(10);
  NDArrayVec fwd = Invoke(op, attrs, std::vector<NDArray>{p});
  std::vector<NDArray> outs(fwd.begin(), fwd.end());
  std::vector<NDArray> g = EagerGradBuilder::Run(op, attrs, std::vector<NDArray>{p}, outs, heads);
  std::vector<double> want(6, 0.0);
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 4; ++j)
      want[r * 3 + idx[r * 4 + j]] += w[r * 4 + j] / pv[r * 3 + idx[r * 4 + j]];
  EXPECT_TRUE(AllClose(g[0], NDArray::FromVector(want, {2, 3}, cpu(), DType::kFloat64), 1e-12));
  auto loss = [&](std::vector<double> q) {
    ::mxnet::random::seed(10);
    NDArrayVec o = Invoke(
        op, attrs, std::vector<NDArray>{NDArray::FromVector(q, {2, 3}, cpu(), DType::kFloat64)});
    EXPECT_EQ(o[0].ToVector<int32_t>(), idx);
    std::vector<double> l = o[1].ToVector<double>();
    double s = 0;
    for (int i = 0; i < 8; ++i) s += w[i] * l[i];
    return s;
  };
  for (int i = 0; i < 6; ++i) {
    std::vector<double> a = pv, b = pv;
    a[i] += 1e-6, b[i] -= 1e-6;
    EXPECT_NEAR((loss(a) - loss(b)) / 2e-6, want[i], 1e-5) << i;
  }
  // Without get_prob the gradient is zero (MXNet's zero gradient).
  OpAttrs plain = OpAttrs::Parse(op, {{"shape", "(4,)"}});
  NDArrayVec f2 = Invoke(op, plain, std::vector<NDArray>{p});
  std::vector<NDArray> o2(f2.begin(), f2.end());
  std::vector<NDArray> g2 =
      EagerGradBuilder::Run(op, plain, std::vector<NDArray>{p}, o2,
                            std::vector<NDArray>{nd::zeros({2, 4}, cpu(), DType::kInt32)});
  EXPECT_EQ(g2[0].ToVector<double>(), std::vector<double>(6, 0.0));
}

// ---------------------------------------------------------------------------------------------
// _sample_unique_zipfian

TEST(Sample, UniqueZipfianRowsAreDistinctAndLogUniform) {
  ::mxnet::random::seed(12);
  auto [s, tries] = rnd::sample_unique_zipfian(50, {20, 30});
  EXPECT_EQ(s.shape(), Shape({20, 30}));
  EXPECT_EQ(s.dtype(), DType::kInt64);
  EXPECT_EQ(tries.shape(), Shape({20}));
  EXPECT_EQ(tries.dtype(), DType::kInt64);
  std::vector<int64_t> v = s.ToVector<int64_t>(), t = tries.ToVector<int64_t>();
  for (int r = 0; r < 20; ++r) {
    std::set<int64_t> row(v.begin() + r * 30, v.begin() + (r + 1) * 30);
    EXPECT_EQ(row.size(), 30u);
    EXPECT_GE(*row.begin(), 0);
    EXPECT_LT(*row.rbegin(), 50);
    EXPECT_GE(t[r], 30);
  }
  // One draw per row: P(v) = (log(min(v + 1.5, R)) - log(max(v + 0.5, 1))) / log(R).
  const int R = 10;
  auto [one, n1] = rnd::sample_unique_zipfian(R, {kN, 1});
  EXPECT_EQ(n1.ToVector<int64_t>(), std::vector<int64_t>(kN, 1));
  std::vector<double> freq(R, 0.0);
  for (int64_t x : one.ToVector<int64_t>()) freq[x] += 1.0 / kN;
  for (int x = 0; x < R; ++x) {
    double want = (std::log(std::min(x + 1.5, 1.0 * R)) - std::log(std::max(x + 0.5, 1.0))) /
                  std::log(1.0 * R);
    EXPECT_NEAR(freq[x], want, 0.005) << x;
  }
  EXPECT_NE(ErrorOf([] {
              rnd::sample_unique_zipfian(5, {1, 8});
            }).find("range_max"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { rnd::sample_unique_zipfian(5, {3}); }).find("2-D"), std::string::npos);
  EXPECT_THROW(Invoke("_sample_unique_zipfian", {}, {{"shape", "(2, 2)"}}), Error);  // required
}

// ---------------------------------------------------------------------------------------------
// pdf ops

TEST(Pdf, MatchesHandFormulas) {
  // Densities at a few points, written out independently of shape_pdf.cc.
  NDArray x = NDArray::FromVector(std::vector<double>{0.5, 1.5, 2.5, 1, 2, 3}, {2, 3}, cpu(),
                                  DType::kFloat64);
  auto v = [](std::vector<double> a) {
    return NDArray::FromVector(a, {2}, cpu(), DType::kFloat64);
  };
  auto all = [](const NDArray& a, auto f) {
    std::vector<double> w(6);
    for (int i = 0; i < 6; ++i) w[i] = f(i / 3, i);
    return NDArray::FromVector(w, a.shape(), cpu(), DType::kFloat64);
  };
  std::vector<double> xs = x.ToVector<double>();
  const double pi = std::numbers::pi;
  EXPECT_TRUE(AllClose(rnd::pdf_uniform(x, v({0, 1}), v({2, 5})),
                       all(x, [](int r, int) { return r == 0 ? 0.5 : 0.25; }), 1e-12));
  EXPECT_TRUE(AllClose(rnd::pdf_normal(x, v({1, 2}), v({0.5, 2})),
                       all(x,
                           [&](int r, int i) {
                             double mu = r ? 2 : 1, s = r ? 2 : 0.5, z = (xs[i] - mu) / s;
                             return std::exp(-z * z / 2) / (s * std::sqrt(2 * pi));
                           }),
                       1e-12));
  // Gamma with shape 2 and rate 3: 9 x exp(-3x).
  EXPECT_TRUE(AllClose(rnd::pdf_gamma(x, v({2, 2}), v({3, 3})),
                       all(x, [&](int, int i) { return 9 * xs[i] * std::exp(-3 * xs[i]); }),
                       1e-12));
  EXPECT_TRUE(AllClose(rnd::pdf_exponential(x, v({2, 0.5}), true),
                       all(x,
                           [&](int r, int i) {
                             double l = r ? 0.5 : 2;
                             return std::log(l) - l * xs[i];
                           }),
                       1e-12));
  // Poisson(2) at 1, 2, 3: 2 e^-2, 2 e^-2, 4/3 e^-2.
  NDArray k = NDArray::FromVector(std::vector<double>{1, 2, 3}, {3}, cpu(), DType::kFloat64);
  NDArray lam = NDArray::FromVector(std::vector<double>{2, 2, 2}, {3}, cpu(), DType::kFloat64);
  double e2 = std::exp(-2.0);
  EXPECT_TRUE(AllClose(rnd::pdf_poisson(k, lam),
                       NDArray::FromVector(std::vector<double>{2 * e2, 2 * e2, 4 * e2 / 3}, {3},
                                           cpu(), DType::kFloat64),
                       1e-12));
  // Negative binomial k=2, p=0.5 at x: (x+1) 0.5^(x+2).
  NDArray nb = rnd::pdf_negative_binomial(k, NDArray::Full({3}, 2, cpu(), DType::kFloat64),
                                          NDArray::Full({3}, 0.5, cpu(), DType::kFloat64));
  EXPECT_TRUE(AllClose(nb,
                       NDArray::FromVector(std::vector<double>{2 / 8.0, 3 / 16.0, 4 / 32.0}, {3},
                                           cpu(), DType::kFloat64),
                       1e-12));
  // Generalized NB (mu, alpha) = NB(1/alpha, 1/(1 + mu*alpha)): mu=2, alpha=0.5 is NB(2, 0.5).
  EXPECT_TRUE(AllClose(
      rnd::pdf_generalized_negative_binomial(k, NDArray::Full({3}, 2, cpu(), DType::kFloat64),
                                             NDArray::Full({3}, 0.5, cpu(), DType::kFloat64)),
      nb, 1e-12));
  // Dirichlet(1, 2, 3) at (0.2, 0.3, 0.5): Gamma(6)/(Gamma(1)Gamma(2)Gamma(3)) * 0.3 * 0.25 = 4.5
  // (MXNet's example value).
  NDArray ds = NDArray::FromVector(std::vector<double>{0.2, 0.3, 0.5, 0.1, 0.1, 0.8}, {2, 3}, cpu(),
                                   DType::kFloat64);
  NDArray da = NDArray::FromVector(std::vector<double>{1, 2, 3}, {3}, cpu(), DType::kFloat64);
  EXPECT_TRUE(AllClose(
      rnd::pdf_dirichlet(ds, da),
      NDArray::FromVector(std::vector<double>{4.5, 60 * 0.1 * 0.64}, {2}, cpu(), DType::kFloat64),
      1e-12));
  EXPECT_EQ(rnd::pdf_dirichlet(Vec({0.2, 0.3, 0.5}), Vec({1, 2, 3})).shape(), Shape({1}));
}

TEST(Pdf, DensitiesNormalize) {
  // Discrete: sums over 0..399; continuous: midpoint sums; Dirichlet K=2 is a Beta density.
  std::vector<double> ks(400);
  for (int i = 0; i < 400; ++i) ks[i] = i;
  NDArray k = NDArray::FromVector(ks, {1, 400}, cpu(), DType::kFloat64);
  auto one = [](double x) {
    return NDArray::FromVector(std::vector<double>{x}, {1}, cpu(), DType::kFloat64);
  };
  auto sum = [](const NDArray& a, double h) {
    double s = 0;
    for (double x : a.ToVector<double>()) s += x;
    return s * h;
  };
  EXPECT_NEAR(sum(rnd::pdf_poisson(k, one(7.5)), 1), 1.0, 1e-10);
  EXPECT_NEAR(sum(rnd::pdf_negative_binomial(k, one(3.5), one(0.3)), 1), 1.0, 1e-10);
  EXPECT_NEAR(sum(rnd::pdf_generalized_negative_binomial(k, one(4), one(0.7)), 1), 1.0, 1e-8);
  const int n = 200000;
  std::vector<double> xs(n);
  double h = 40.0 / n;
  for (int i = 0; i < n; ++i) xs[i] = (i + 0.5) * h;
  NDArray x = NDArray::FromVector(xs, {1, n}, cpu(), DType::kFloat64);
  EXPECT_NEAR(sum(rnd::pdf_gamma(x, one(2.5), one(0.8)), h), 1.0, 1e-6);
  EXPECT_NEAR(sum(rnd::pdf_exponential(x, one(0.7)), h), 1.0, 1e-6);
  for (double& v : xs) v -= 20;
  EXPECT_NEAR(
      sum(rnd::pdf_normal(NDArray::FromVector(xs, {1, n}, cpu(), DType::kFloat64), one(1), one(2)),
          h),
      1.0, 1e-6);
  const int m = 100000;
  std::vector<double> b(2 * m);
  for (int i = 0; i < m; ++i) b[2 * i] = (i + 0.5) / m, b[2 * i + 1] = 1 - b[2 * i];
  NDArray beta = rnd::pdf_dirichlet(
      NDArray::FromVector(b, {1, m, 2}, cpu(), DType::kFloat64),
      NDArray::FromVector(std::vector<double>{2, 3}, {1, 2}, cpu(), DType::kFloat64));
  EXPECT_NEAR(sum(beta, 1.0 / m), 1.0, 1e-6);
}

TEST(Pdf, GradientsGoToParametersAndContinuousSamples) {
  // Parameter gradients are summed over each distribution's samples; discrete samples get 0.
  NDArray x =
      NDArray::FromVector(std::vector<double>{1, 2, 3, 0, 4, 1}, {2, 3}, cpu(), DType::kFloat64);
  NDArray lam = NDArray::FromVector(std::vector<double>{1.5, 2.5}, {2}, cpu(), DType::kFloat64);
  const Op& op = OpRegistry::Get("_random_pdf_poisson");
  OpAttrs a = OpAttrs::Parse(op, {{"is_log", "True"}});
  std::vector<NDArray> in = {x, lam};
  NDArrayVec out = Invoke(op, a, in);
  std::vector<NDArray> outs(out.begin(), out.end());
  std::vector<NDArray> g = EagerGradBuilder::Run(
      op, a, in, outs, std::vector<NDArray>{nd::ones({2, 3}, cpu(), DType::kFloat64)});
  EXPECT_EQ(g[0].ToVector<double>(), std::vector<double>(6, 0.0));
  // d/dlam sum_i (x_i log lam - lam - lgamma(x_i+1)) = sum x_i / lam - n.
  EXPECT_TRUE(AllClose(g[1],
                       NDArray::FromVector(std::vector<double>{6 / 1.5 - 3, 5 / 2.5 - 3}, {2},
                                           cpu(), DType::kFloat64),
                       1e-12));
  // Normal (not log): d pdf/dx = pdf * (mu - x)/sigma^2.
  const Op& nop = OpRegistry::Get("_random_pdf_normal");
  OpAttrs na = OpAttrs::Parse(nop, {});
  NDArray mu = NDArray::FromVector(std::vector<double>{0, 1}, {2}, cpu(), DType::kFloat64);
  NDArray sg = NDArray::FromVector(std::vector<double>{1, 2}, {2}, cpu(), DType::kFloat64);
  std::vector<NDArray> nin = {x, mu, sg};
  NDArrayVec nout = Invoke(nop, na, nin);
  std::vector<NDArray> nouts(nout.begin(), nout.end());
  std::vector<NDArray> ng = EagerGradBuilder::Run(
      nop, na, nin, nouts, std::vector<NDArray>{nd::ones({2, 3}, cpu(), DType::kFloat64)});
  std::vector<double> pdf = nout[0].ToVector<double>(), xv = x.ToVector<double>(), want(6);
  for (int i = 0; i < 6; ++i) {
    double m = i < 3 ? 0 : 1, s = i < 3 ? 1 : 2;
    want[i] = pdf[i] * (m - xv[i]) / (s * s);
  }
  EXPECT_TRUE(AllClose(ng[0], NDArray::FromVector(want, {2, 3}, cpu(), DType::kFloat64), 1e-12));
  EXPECT_EQ(ng[1].shape(), Shape({2}));
  EXPECT_EQ(ng[2].shape(), Shape({2}));
}

TEST(Pdf, ShapeAndDtypeErrors) {
  NDArray s = nd::ones({2, 3});
  std::string err = ErrorOf([&] { rnd::pdf_uniform(s, nd::zeros({3}), NDArray::Full({3}, 2.0)); });
  EXPECT_NE(err.find("_random_pdf_uniform"), std::string::npos) << err;
  EXPECT_NE(err.find("leading sub-shape"), std::string::npos) << err;
  EXPECT_THROW(rnd::pdf_uniform(s, nd::zeros({2}), nd::ones({3})), Error);  // params differ
  err = ErrorOf([&] { rnd::pdf_exponential(nd::ones({2}), nd::ones({2, 3})); });
  EXPECT_NE(err.find("more dimensions"), std::string::npos) << err;
  EXPECT_THROW(rnd::pdf_normal(s, nd::zeros({2}, cpu(), DType::kFloat64), nd::ones({2})), Error);
  err = ErrorOf([] {
    NDArray i = nd::ones({2}, cpu(), DType::kInt32);
    rnd::pdf_poisson(i, i);
  });
  EXPECT_NE(err.find("floating"), std::string::npos) << err;
  EXPECT_THROW(rnd::pdf_dirichlet(nd::ones({2, 4, 3}), nd::ones({2, 2})), Error);
  EXPECT_THROW(rnd::pdf_dirichlet(nd::ones({}), nd::ones({})), Error);
  // Same-shape parameters and samples: one density per distribution.
  EXPECT_EQ(rnd::pdf_gamma(nd::ones({2}), nd::ones({2}), nd::ones({2})).shape(), Shape({2}));
  EXPECT_EQ(rnd::pdf_dirichlet(NDArray::Full({2, 4, 3}, 1.0 / 3), nd::ones({2, 3})).shape(),
            Shape({2, 4}));
}

// Real MXNet 1.9.1 values and gradients of the pdf ops (refs.json, written by
// tools/conformance/gen_shape_refs.py; tests/shape_test.cc checks every case of the file too).
TEST(Pdf, MatchesMXNetReference) {
  const nlohmann::json refs = LoadRefJson("ndarray/ops/testdata/shape/refs.json");
  std::set<std::string> ops;
  int checked = 0, errors = 0;
  for (const auto& c : refs["cases"]) {
    std::string name = c["op"].get<std::string>();
    if (name.rfind("_random_pdf_", 0) != 0) continue;
    SCOPED_TRACE(StrCat(name, " ", c["attrs"].dump()));
    AttrDict attrs = RefAttrs(c);
    std::vector<NDArray> in = RefInputs(c);
    if (c.value("error", false)) {
      EXPECT_THROW(Invoke(name, in, attrs), Error);
      ++errors;
      continue;
    }
    const Op& op = OpRegistry::Get(name);
    OpAttrs a = OpAttrs::Parse(op, attrs);
    NDArrayVec out = Invoke(op, a, in);
    NDArray want = RefArray(c["outputs"][0]);
    EXPECT_EQ(out[0].dtype(), want.dtype());
    // float64: MXNet's pi is a float (normal: 1.4e-8 relative) and its digamma takes logf
    // (gamma/Dirichlet/negative binomial gradients: ~1e-7); ours are exact in double.
    bool f64 = want.dtype() == DType::kFloat64;
    EXPECT_TRUE(AllClose(out[0], want, f64 ? 5e-8 : 2e-6, f64 ? 1e-12 : 1e-7));
    ops.insert(name);
    ++checked;
    if (!c.contains("grads")) continue;
    std::vector<NDArray> outs(out.begin(), out.end()), heads;
    for (const auto& h : c["head_grads"]) heads.push_back(RefArray(h));
    std::vector<NDArray> g = EagerGradBuilder::Run(op, a, in, outs, heads);
    for (size_t i = 0; i < in.size(); ++i) {
      ASSERT_FALSE(g[i].is_none()) << "input " << i;
      EXPECT_TRUE(AllClose(g[i], RefArray(c["grads"][i]), f64 ? 1e-6 : 1e-5, 1e-6))
          << "gradient of input " << i;
    }
  }
  EXPECT_EQ(ops.size(), 8u);
  EXPECT_GE(checked, 16);
  EXPECT_GE(errors, 3);
}

}  // namespace
}  // namespace mxnet
