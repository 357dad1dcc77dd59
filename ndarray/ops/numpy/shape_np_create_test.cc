// Tests of shape_np_create.cc's NumPy-interface creation ops: values from real MXNet 1.9.1
// (testdata/shape/np_create.json, tools/conformance/refs_np_create.py), MXNet's names,
// attributes and defaults, rejected calls, and a few values by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>

#include "ndarray/ops/numpy/shape_np_create_api.h"
#include "ndarray/random.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

json LoadJson() { return LoadRefJson("ndarray/ops/testdata/shape/np_create.json"); }
std::vector<double> Vals(const NDArray& a) { return a.ToVector<double>(); }

::testing::AssertionResult Matches(const NDArray& got, const NDArray& want) {
  if (want.dtype() == DType::kFloat32) return SameDTypeAllClose(got, want, 1e-6, 1e-7);
  if (want.dtype() == DType::kFloat64) return SameDTypeAllClose(got, want, 1e-12, 1e-13);
  if (want.dtype() == DType::kFloat16) return SameDTypeAllClose(got, want, 1e-3, 1e-3);
  return SameDTypeAllClose(got, want, 0, 0);
}

TEST(MXNetRefs, ValuesMatch) {
  json doc = LoadJson();
  ASSERT_EQ(doc["mxnet_version"], "1.9.1");
  int n = 0, with_grads = 0;
  std::set<std::string> ops_seen;
  for (const auto& c : doc["cases"]) CheckRefCase(c, Matches, &n, &with_grads, &ops_seen);
  EXPECT_GE(n, 70);
  EXPECT_EQ(ops_seen.size(), 11u);
}

TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["ops"].size(), 11u);
  for (auto& [name, info] : doc["ops"].items()) {
    AttrDict required;
    if (name == "_npi_full_like") required = {{"fill_value", "1"}};
    if (name == "_npi_eye") required = {{"N", "2"}};
    if (name == "_npi_arange") required = {{"start", "2"}};
    if (name == "_npi_indices") required = {{"dimensions", "(2,)"}};
    if (name == "_npi_logspace") required = {{"start", "0"}, {"stop", "1"}, {"num", "3"}};
    CheckRegistryEntry(name, info, required);
  }
}

TEST(MXNetErrors, RejectedLikeMXNet) {
  json doc = LoadJson();
  ASSERT_EQ(doc["errors"].size(), 26u);
  for (const auto& c : doc["errors"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    std::vector<NDArray> in = RefInputs(c);
    std::string op = c["op"];
    ExpectInvalidArgument([&] { Invoke(op, in, RefAttrs(c)); }, {op});
  }
}

TEST(ByHand, SmallValues) {
  EXPECT_EQ(Vals(Invoke("_npi_eye", {}, {{"N", "2"}, {"k", "-1"}})[0]),
            (std::vector<double>{0, 0, 1, 0}));
  NDArray ind = Invoke("_npi_indices", {}, {{"dimensions", "(2, 2)"}})[0];
  EXPECT_EQ(ind.dtype(), DType::kInt32);
  EXPECT_EQ(Vals(ind), (std::vector<double>{0, 0, 1, 1, 0, 1, 0, 1}));
  EXPECT_EQ(Vals(Invoke("_npi_logspace", {},
                        {{"start", "0"}, {"stop", "3"}, {"num", "4"}, {"base", "2"}})[0]),
            (std::vector<double>{1, 2, 4, 8}));
  std::vector<double> h = Vals(Invoke("_npi_hanning", {}, {{"M", "3"}, {"dtype", "float64"}})[0]);
  ASSERT_EQ(h.size(), 3u);
  EXPECT_NEAR(h[1], 1.0, 1e-12);
  NDArray z = Invoke("_npi_zeros", {}, {})[0];
  EXPECT_EQ(z.shape().ndim(), 0);
  EXPECT_EQ(z.dtype(), DType::kFloat32);
  NDArray a = NDArray::FromVector<double>({1, 2}, {2}, cpu(), DType::kInt64);
  NDArray f = Invoke("_npi_full_like", std::vector<NDArray>{a}, {{"fill_value", "-3.5"}})[0];
  EXPECT_EQ(f.dtype(), DType::kInt64);
  EXPECT_EQ(Vals(f), (std::vector<double>{-3, -3}));
}

// ---- samplers ----

// Output shapes and dtypes of MXNet's calls (attributes or tensor parameters, size, _n).
TEST(MXNetRandom, ShapesAndDTypes) {
  json doc = LoadJson();
  std::set<std::string> ops;
  for (const auto& c : doc["random"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    std::string op = c["op"];
    ops.insert(op);
    NDArray y = Invoke(op, RefInputs(c), RefAttrs(c))[0];
    EXPECT_EQ(y.shape(), Shape(c["out_shape"].get<std::vector<int64_t>>()));
    EXPECT_EQ(y.dtype(), *DTypeFromName(c["out_dtype"].get<std::string>()));
  }
  EXPECT_EQ(ops.size(), 14u);
}

TEST(MXNetRandom, Registry) {
  json doc = LoadJson();
  ASSERT_EQ(doc["random_ops"].size(), 14u);
  for (auto& [name, info] : doc["random_ops"].items()) {
    AttrDict required;
    for (const auto& at : info["attrs"])
      if (at[1].get<std::string>().find("required") != std::string::npos)
        required[at[0]] = at[0] == "is_logit" ? "False" : at[0] == "n" ? "3" : "None";
    if (name == "_npi_exponential" || name == "_npi_rayleigh") {
      // scale defaults to 1 (no input); None makes it the input MXNet lists.
      EXPECT_EQ(OpRegistry::Get(name).InputNames(
                    OpAttrs::Parse(OpRegistry::Get(name), {{"scale", "None"}})),
                info["inputs"].get<std::vector<std::string>>());
      info["inputs"] = json::array();
    }
    CheckRegistryEntry(name, info, required);
  }
}

struct Moments {
  double mean, var;
};
Moments SampleMoments(const NDArray& y) {
  std::vector<double> v = Vals(y);
  double m = 0, s = 0;
  for (double x : v) m += x;
  m /= v.size();
  for (double x : v) s += (x - m) * (x - m);
  return {m, s / (v.size() - 1)};
}

// Mean within 6 standard errors, variance within `var_rtol` (relative), N = 100000.
TEST(Samplers, MomentsMatchTheDistributions) {
  random::seed(42);
  const double pi = std::numbers::pi, g = 0.5772156649015329;
  struct Case {
    std::string op;
    AttrDict attrs;
    double mean, var, var_rtol;
  };
  double w1 = std::tgamma(1 + 1 / 1.5), w2 = std::tgamma(1 + 2 / 1.5);
  std::vector<Case> cases = {
      {"_npi_uniform", {{"low", "-1"}, {"high", "3"}}, 1, 16.0 / 12, 0.03},
      {"_npi_uniform_n", {{"low", "0"}, {"high", "2"}}, 1, 4.0 / 12, 0.03},
      {"_npi_normal", {{"loc", "1"}, {"scale", "2"}}, 1, 4, 0.03},
      {"_npi_normal_n", {{"loc", "-2"}, {"scale", "0.5"}}, -2, 0.25, 0.03},
      {"_npi_gamma", {{"shape", "2"}, {"scale", "0.5"}}, 1, 0.5, 0.05},
      {"_npi_gumbel", {{"loc", "1"}, {"scale", "2"}}, 1 + 2 * g, pi * pi / 6 * 4, 0.05},
      {"_npi_logistic", {{"loc", "1"}, {"scale", "2"}}, 1, pi * pi / 3 * 4, 0.05},
      {"_npi_exponential", {{"scale", "2"}}, 2, 4, 0.05},
      {"_npi_rayleigh", {{"scale", "2"}}, 2 * std::sqrt(pi / 2), (4 - pi) / 2 * 4, 0.05},
      {"_npi_pareto", {{"a", "5"}}, 0.25, 5.0 / 48, 0.2},
      {"_npi_powerd", {{"a", "2"}}, 2.0 / 3, 2.0 / 36, 0.05},
      {"_npi_weibull", {{"a", "1.5"}}, w1, w2 - w1 * w1, 0.05},
  };
  const int64_t n = 100000;
  for (auto& c : cases) {
    SCOPED_TRACE(c.op);
    c.attrs["size"] = StrCat("(", n, ",)");
    NDArray y = Invoke(c.op, {}, c.attrs)[0];
    ASSERT_EQ(y.size(), n);
    EXPECT_EQ(y.dtype(), DType::kFloat32);
    Moments m = SampleMoments(y);
    EXPECT_NEAR(m.mean, c.mean, 6 * std::sqrt(c.var / n));
    EXPECT_NEAR(m.var, c.var, c.var_rtol * c.var);
  }
}

TEST(Samplers, SupportAndKolmogorovSmirnovForUniform) {
  random::seed(3);
  NDArray y = Invoke("_npi_uniform", {},
                     {{"low", "2"}, {"high", "5"}, {"size", "(20000,)"}, {"dtype", "float64"}})[0];
  std::vector<double> v = Vals(y);
  std::sort(v.begin(), v.end());
  EXPECT_GE(v.front(), 2);
  EXPECT_LT(v.back(), 5);
  double d = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    double f = (v[i] - 2) / 3;
    d = std::max({d, std::abs(f - double(i) / v.size()), std::abs(f - double(i + 1) / v.size())});
  }
  EXPECT_LT(d, 1.95 / std::sqrt(double(v.size())));  // KS at alpha 0.001
  for (const char* op : {"_npi_exponential", "_npi_rayleigh", "_npi_pareto", "_npi_weibull"}) {
    AttrDict at = {{"size", "(5000,)"}};
    at[op == std::string("_npi_exponential") || op == std::string("_npi_rayleigh") ? "scale"
                                                                                   : "a"] = "2";
    for (double x : Vals(Invoke(op, {}, at)[0])) ASSERT_GE(x, 0) << op;
  }
  for (double x : Vals(Invoke("_npi_powerd", {}, {{"a", "3"}, {"size", "(5000,)"}})[0]))
    ASSERT_TRUE(x >= 0 && x <= 1);
}

TEST(Samplers, SeedRepeats) {
  for (const char* op : {"_npi_normal", "_npi_gamma", "_npi_uniform_n"}) {
    AttrDict at = {{"size", "(50,)"}};
    if (op == std::string("_npi_gamma"))
      at["shape"] = "2", at["scale"] = "1";
    else if (op == std::string("_npi_normal"))
      at["loc"] = "0", at["scale"] = "1";
    else
      at["low"] = "0", at["high"] = "1";
    random::seed(11);
    std::vector<double> a = Vals(Invoke(op, {}, at)[0]);
    random::seed(11);
    std::vector<double> b = Vals(Invoke(op, {}, at)[0]);
    random::seed(12);
    std::vector<double> c = Vals(Invoke(op, {}, at)[0]);
    EXPECT_EQ(a, b) << op;
    EXPECT_NE(a, c) << op;
  }
}

TEST(Samplers, BernoulliFrequencies) {
  random::seed(9);
  const int64_t n = 100000;
  double m = SampleMoments(Invoke("_npi_bernoulli", {},
                                  {{"prob", "0.3"},
                                   {"logit", "None"},
                                   {"is_logit", "False"},
                                   {"size", StrCat("(", n, ",)")}})[0])
                 .mean;
  EXPECT_NEAR(m, 0.3, 6 * std::sqrt(0.21 / n));
  double pl = 1 / (1 + std::exp(-0.5));
  m = SampleMoments(Invoke("_npi_bernoulli", {},
                           {{"prob", "None"},
                            {"logit", "0.5"},
                            {"is_logit", "True"},
                            {"size", StrCat("(", n, ",)")}})[0])
          .mean;
  EXPECT_NEAR(m, pl, 6 * std::sqrt(pl * (1 - pl) / n));
  NDArray pr = NDArray::FromVector<double>({0, 1}, {2}, cpu(), DType::kFloat32);
  NDArray y = Invoke("_npi_bernoulli", std::vector<NDArray>{pr},
                     {{"prob", "None"},
                      {"logit", "None"},
                      {"is_logit", "False"},
                      {"size", "(50, 2)"},
                      {"dtype", "bool"}})[0];
  EXPECT_EQ(y.dtype(), DType::kBool);
  std::vector<double> v = Vals(y);
  for (int64_t i = 0; i < 50; ++i) {
    EXPECT_EQ(v[2 * i], 0);
    EXPECT_EQ(v[2 * i + 1], 1);
  }
}

// Counts sum to n per row; category means n * p (6 standard errors); the last category takes
// the remaining probability; bad pvals are rejected.
TEST(Samplers, MultinomialCounts) {
  random::seed(13);
  const int64_t rows = 20000, n = 10;
  NDArray y = Invoke("_npi_multinomial", {},
                     {{"n", "10"}, {"pvals", "(0.2, 0.3)"}, {"size", StrCat("(", rows, ",)")}})[0];
  ASSERT_EQ(y.shape(), (Shape{rows, 2}));
  EXPECT_EQ(y.dtype(), DType::kInt64);
  std::vector<double> v = Vals(y);
  double s0 = 0, s1 = 0;
  for (int64_t r = 0; r < rows; ++r) {
    ASSERT_EQ(v[2 * r] + v[2 * r + 1], n);
    s0 += v[2 * r], s1 += v[2 * r + 1];
  }
  EXPECT_NEAR(s0 / rows, 2, 6 * std::sqrt(n * 0.2 * 0.8 / rows));
  EXPECT_NEAR(s1 / rows, 8, 6 * std::sqrt(n * 0.2 * 0.8 / rows));
  NDArray pv = NDArray::FromVector<double>({0, 1, 0}, {3}, cpu(), DType::kFloat32);
  EXPECT_EQ(Vals(Invoke("_npi_multinomial", std::vector<NDArray>{pv}, {{"n", "4"}})[0]),
            (std::vector<double>{0, 4, 0}));
  ExpectInvalidArgument(
      [] {
        Invoke("_npi_multinomial", {}, {{"n", "3"}, {"pvals", "(0.9, 0.3, 0.1)"}});
      },
      {"_npi_multinomial", "sum(pvals[:-1])"});
  ExpectInvalidArgument(
      [] {
        Invoke("_npi_multinomial", {}, {{"n", "3"}, {"pvals", "(-0.1, 0.3)"}});
      },
      {"_npi_multinomial", ">= 0"});
}

// Tensor parameters broadcast against each other and the output (size, or _n's prefix).
TEST(Samplers, TensorParametersBroadcast) {
  random::seed(5);
  NDArray loc = NDArray::FromVector<double>({0, 100}, {2}, cpu(), DType::kFloat32);
  NDArray scale = NDArray::FromVector<double>({1, 0}, {2, 1}, cpu(), DType::kFloat64);
  NDArray y = Invoke("_npi_normal", std::vector<NDArray>{loc, scale},
                     {{"loc", "None"}, {"scale", "None"}})[0];
  ASSERT_EQ(y.shape(), (Shape{2, 2}));
  std::vector<double> v = Vals(y);
  EXPECT_EQ(v[2], 0);  // scale 0: exactly loc
  EXPECT_EQ(v[3], 100);
  NDArray big = Invoke("_npi_normal_n", std::vector<NDArray>{loc},
                       {{"loc", "None"}, {"scale", "1"}, {"size", "(20000,)"}})[0];
  ASSERT_EQ(big.shape(), (Shape{20000, 2}));
  std::vector<double> b = Vals(big);
  double m0 = 0, m1 = 0;
  for (int64_t i = 0; i < 20000; ++i) m0 += b[2 * i], m1 += b[2 * i + 1];
  EXPECT_NEAR(m0 / 20000, 0, 0.05);
  EXPECT_NEAR(m1 / 20000, 100, 0.05);
  NDArray low = NDArray::FromVector<double>({0, 10}, {2, 1}, cpu(), DType::kFloat32);
  NDArray high = NDArray::FromVector<double>({1, 2, 11}, {3}, cpu(), DType::kFloat32);
  NDArray u = Invoke("_npi_uniform", std::vector<NDArray>{low, high},
                     {{"low", "None"}, {"high", "None"}, {"size", "(4, 2, 3)"}})[0];
  ASSERT_EQ(u.shape(), (Shape{4, 2, 3}));
  std::vector<double> uv = Vals(u);
  double lows[2] = {0, 10}, highs[3] = {1, 2, 11};
  for (int64_t i = 0; i < 24; ++i) {
    double lo = lows[(i / 3) % 2], hi = highs[i % 3];
    if (lo <= hi) {
      EXPECT_GE(uv[i], lo) << i;
      EXPECT_LT(uv[i], hi) << i;
    } else {  // low > high: (high, low]
      EXPECT_LE(uv[i], lo) << i;
      EXPECT_GT(uv[i], hi) << i;
    }
  }
  // float16 / float64 outputs from the dtype attribute, not the inputs.
  EXPECT_EQ(
      Invoke("_npi_gamma", {}, {{"shape", "1"}, {"scale", "1"}, {"dtype", "float16"}})[0].dtype(),
      DType::kFloat16);
  EXPECT_EQ(Invoke("_npi_exponential", std::vector<NDArray>{scale}, {{"scale", "None"}})[0].dtype(),
            DType::kFloat32);
}

}  // namespace
}  // namespace mxnet::testing
