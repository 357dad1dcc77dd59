// Random ops of the shape family, checked statistically (//ndarray:all_ops_test skips them in the
// backend comparison): seed repeatability, ranges, means and variances, dtypes, shuffling.
#include <algorithm>
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/random.h"

namespace mxnet {
namespace {

struct Moments {
  double mean = 0, var = 0, min = INFINITY, max = -INFINITY;
};
Moments MomentsOf(const NDArray& a) {
  std::vector<double> v = a.ToVector<double>();
  Moments m;
  for (double x : v) m.mean += x, m.min = std::min(m.min, x), m.max = std::max(m.max, x);
  m.mean /= v.size();
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= v.size() - 1;
  return m;
}

constexpr int64_t kN = 200000;

TEST(Random, SeedMakesSequencesRepeatable) {
  ::mxnet::random::seed(42);
  NDArray a1 = nd::random::uniform(0, 1, {100});
  NDArray a2 = nd::random::normal(0, 1, {100});
  NDArray a3 = nd::random::randint(0, 1000, {100});
  ::mxnet::random::seed(42);
  NDArray b1 = nd::random::uniform(0, 1, {100});
  NDArray b2 = nd::random::normal(0, 1, {100});
  NDArray b3 = nd::random::randint(0, 1000, {100});
  EXPECT_EQ(a1.ToVector<float>(), b1.ToVector<float>());
  EXPECT_EQ(a2.ToVector<float>(), b2.ToVector<float>());
  EXPECT_EQ(a3.ToVector<int32_t>(), b3.ToVector<int32_t>());
  // Consecutive draws differ; another seed gives another sequence.
  EXPECT_NE(a1.ToVector<float>(), nd::random::uniform(0, 1, {100}).ToVector<float>());
  ::mxnet::random::seed(43);
  EXPECT_NE(a1.ToVector<float>(), nd::random::uniform(0, 1, {100}).ToVector<float>());
  // By name, as graphs and the C ABI call them.
  ::mxnet::random::seed(7);
  NDArray c = Invoke("_random_uniform", {},
                     {{"low", "0"}, {"high", "1"}, {"shape", "(100,)"}, {"ctx", "cpu(0)"}})[0];
  ::mxnet::random::seed(7);
  NDArray d = Invoke("random_uniform", {}, {{"shape", "(100,)"}})[0];
  EXPECT_EQ(c.ToVector<float>(), d.ToVector<float>());
}

TEST(Random, UniformRangeMeanVariance) {
  ::mxnet::random::seed(1);
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
    NDArray u = nd::random::uniform(-1, 2, {kN}, cpu(), t);
    EXPECT_EQ(u.dtype(), t);
    EXPECT_EQ(u.shape(), Shape({kN}));
    Moments m = MomentsOf(u);
    EXPECT_GE(m.min, -1.0);
    EXPECT_LT(m.max, 2.0);
    EXPECT_NEAR(m.mean, 0.5, 0.01) << DTypeName(t);   // sd of the mean: 0.866/sqrt(N) = 0.002
    EXPECT_NEAR(m.var, 0.75, 0.015) << DTypeName(t);  // (b-a)^2/12
  }
  // Default dtype is float32; low == high gives the constant.
  EXPECT_EQ(Invoke("uniform", {}, {{"shape", "(3,)"}})[0].dtype(), DType::kFloat32);
  EXPECT_EQ(nd::random::uniform(3, 3, {4}).ToVector<double>(), std::vector<double>(4, 3.0));
  EXPECT_THROW(nd::random::uniform(2, 1, {4}), Error);
}

TEST(Random, NormalMeanVariance) {
  ::mxnet::random::seed(2);
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    Moments m = MomentsOf(nd::random::normal(1, 2, {kN}, cpu(), t));
    EXPECT_NEAR(m.mean, 1.0, 0.03) << DTypeName(t);  // sd of the mean: 2/sqrt(N) = 0.0045
    EXPECT_NEAR(std::sqrt(m.var), 2.0, 0.02) << DTypeName(t);
  }
  NDArray n = Invoke("normal", {}, {{"loc", "-3"}, {"scale", "0.5"}, {"shape", "(1000, 100)"}})[0];
  EXPECT_EQ(n.shape(), Shape({1000, 100}));
  Moments m = MomentsOf(n);
  EXPECT_NEAR(m.mean, -3.0, 0.01);
  EXPECT_NEAR(std::sqrt(m.var), 0.5, 0.01);
  EXPECT_THROW(nd::random::normal(0, 0, {3}), Error);
}

TEST(Random, RandintRangeAndFrequencies) {
  ::mxnet::random::seed(3);
  NDArray r = nd::random::randint(-3, 7, {kN});
  EXPECT_EQ(r.dtype(), DType::kInt32);
  std::map<int32_t, int64_t> count;
  for (int32_t v : r.ToVector<int32_t>()) ++count[v];
  EXPECT_EQ(count.begin()->first, -3);
  EXPECT_EQ(count.rbegin()->first, 6);
  EXPECT_EQ(count.size(), 10u);
  for (const auto& [v, c] : count) EXPECT_NEAR(static_cast<double>(c) / kN, 0.1, 0.005) << v;
  NDArray big =
      nd::random::randint(int64_t{1} << 40, (int64_t{1} << 40) + 5, {100}, cpu(), DType::kInt64);
  EXPECT_EQ(big.dtype(), DType::kInt64);
  for (int64_t v : big.ToVector<int64_t>()) {
    EXPECT_GE(v, int64_t{1} << 40);
    EXPECT_LT(v, (int64_t{1} << 40) + 5);
  }
  EXPECT_THROW(nd::random::randint(5, 5, {3}), Error);
  EXPECT_THROW(nd::random::randint(0, int64_t{1} << 40, {3}), Error);  // does not fit int32
}

TEST(Random, ShuffleIsARepeatablePermutationOfRows) {
  std::vector<double> v(50 * 3);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i / 3);
  NDArray x = NDArray::FromVector(v, {50, 3});
  ::mxnet::random::seed(5);
  NDArray s = nd::random::shuffle(x);
  ::mxnet::random::seed(5);
  NDArray t = nd::random::shuffle(x);
  std::vector<double> sv = s.ToVector<double>();
  EXPECT_EQ(sv, t.ToVector<double>());
  EXPECT_NE(sv, v);
  std::vector<double> rows;
  for (int r = 0; r < 50; ++r) {
    EXPECT_EQ(sv[r * 3], sv[r * 3 + 1]);  // rows move whole
    EXPECT_EQ(sv[r * 3], sv[r * 3 + 2]);
    rows.push_back(sv[r * 3]);
  }
  std::sort(rows.begin(), rows.end());
  for (int r = 0; r < 50; ++r) EXPECT_EQ(rows[r], r);
}

TEST(Random, SampleOpsDrawPerParameter) {
  ::mxnet::random::seed(6);
  NDArray low = NDArray::FromVector(std::vector<float>{0, 10}, {2});
  NDArray high = NDArray::FromVector(std::vector<float>{1, 20}, {2});
  NDArray u = nd::random::sample_uniform(low, high, {20000});
  EXPECT_EQ(u.shape(), Shape({2, 20000}));
  std::vector<double> v = u.ToVector<double>();
  double m0 = 0, m1 = 0;
  for (int i = 0; i < 20000; ++i) {
    EXPECT_TRUE(v[i] >= 0 && v[i] < 1);
    EXPECT_TRUE(v[20000 + i] >= 10 && v[20000 + i] < 20);
    m0 += v[i], m1 += v[20000 + i];
  }
  EXPECT_NEAR(m0 / 20000, 0.5, 0.01);
  EXPECT_NEAR(m1 / 20000, 15, 0.1);
  NDArray mu = NDArray::FromVector(std::vector<double>{-5, 5}, {2}, cpu(), DType::kFloat64);
  NDArray sigma = NDArray::FromVector(std::vector<double>{1, 0.1}, {2}, cpu(), DType::kFloat64);
  NDArray n = nd::random::sample_normal(mu, sigma, {20000}, DType::kFloat64);
  EXPECT_EQ(n.dtype(), DType::kFloat64);
  std::vector<double> w = n.ToVector<double>();
  double a = 0, b = 0;
  for (int i = 0; i < 20000; ++i) a += w[i], b += w[20000 + i];
  EXPECT_NEAR(a / 20000, -5, 0.03);
  EXPECT_NEAR(b / 20000, 5, 0.003);
  EXPECT_EQ(nd::random::sample_uniform(low, high).dtype(), DType::kFloat32);
}

TEST(Random, OpsAreRandomAndNotDifferentiable) {
  for (const char* name : {"_random_uniform", "_random_normal", "_random_randint", "_shuffle",
                           "_sample_uniform", "_sample_normal"}) {
    const Op& op = OpRegistry::Get(name);
    EXPECT_TRUE(op.is_random) << name;
    EXPECT_TRUE(op.non_differentiable) << name;
    EXPECT_FALSE(op.differentiable()) << name;
  }
}

}  // namespace
}  // namespace mxnet
