#include "gluon/init.h"

#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gluon/block.h"
#include "ndarray/random.h"

namespace mxnet::gluon {
namespace {

using json = nlohmann::json;

struct Stats {
  double mean = 0, std = 0, min = 0, max = 0;
  size_t n = 0;
};

Stats Of(const std::vector<double>& v) {
  Stats s;
  s.n = v.size();
  s.min = s.max = v.empty() ? 0 : v[0];
  for (double x : v) {
    s.mean += x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
  }
  s.mean /= v.size();
  for (double x : v) s.std += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(s.std / v.size());
  return s;
}

std::vector<double> Draw(const InitializerPtr& init, const Shape& shape, int seeds = 4,
                         const std::string& name = "weight") {
  std::vector<double> all;
  for (int s = 0; s < seeds; ++s) {
    random::seed(1000 + s);
    NDArray a(shape, cpu(), DType::kFloat32);
    (*init)(name, a);
    for (float x : a.ToVector<float>()) all.push_back(x);
  }
  return all;
}

// Checks mean ~ 0 (within 5 standard errors) and std within 3% of `want_std`.
void ExpectZeroMeanStd(const Stats& s, double want_std) {
  EXPECT_NEAR(s.mean, 0.0, 5 * want_std / std::sqrt(double(s.n)));
  EXPECT_NEAR(s.std, want_std, 0.03 * want_std);
}

// ---- Distribution statistics against the formulas. ----

TEST(Init, UniformAndNormalMatchTheirFormulas) {
  Stats u = Of(Draw(init::Uniform(0.07), Shape{64, 50}));
  ExpectZeroMeanStd(u, 0.07 / std::sqrt(3.0));
  EXPECT_GE(u.min, -0.07);
  EXPECT_LE(u.max, 0.07);
  ExpectZeroMeanStd(Of(Draw(init::Normal(0.5), Shape{64, 50})), 0.5);
}

TEST(Init, XavierScaleFollowsFanInOut) {
  // (64, 32, 3, 3): fan_in 288, fan_out 576.
  double avg = std::sqrt(3.0 / ((288 + 576) / 2.0));
  Stats s = Of(Draw(init::Xavier(), Shape{64, 32, 3, 3}));
  ExpectZeroMeanStd(s, avg / std::sqrt(3.0));
  EXPECT_LE(s.max, avg);
  ExpectZeroMeanStd(Of(Draw(init::Xavier("gaussian", "in", 2), Shape{64, 32, 3, 3})),
                    std::sqrt(2.0 / 288));
  ExpectZeroMeanStd(Of(Draw(init::Xavier("uniform", "out", 3), Shape{100, 40})),
                    std::sqrt(3.0 / 100) / std::sqrt(3.0));
}

TEST(Init, MSRAPreluIsGaussianWithHeScale) {
  // N(0, 2 / ((1 + slope^2) * factor)).
  ExpectZeroMeanStd(Of(Draw(init::MSRAPrelu(), Shape{32, 16, 3, 3})),
                    std::sqrt(2.0 / (1 + 0.0625) / ((144 + 288) / 2.0)));
  ExpectZeroMeanStd(Of(Draw(init::MSRAPrelu("in", 0.1), Shape{128, 64})),
                    std::sqrt(2.0 / 1.01 / 64));
  ExpectZeroMeanStd(Of(Draw(init::MSRAPrelu("out", 0.0), Shape{48, 24, 5})), std::sqrt(2.0 / 240));
  EXPECT_THROW(init::MSRAPrelu("fan"), Error);
}

// W reshaped to (nout, nin) has orthonormal rows (nout <= nin) or columns, times scale.
void ExpectOrthogonal(const NDArray& w, double scale, double* sumsq = nullptr) {
  const Shape& s = w.shape();
  int64_t nout = s[0], nin = s.Size() / nout;
  std::vector<float> v = w.ToVector<float>();
  bool rows = nout <= nin;
  int64_t k = rows ? nout : nin, len = rows ? nin : nout;
  auto at = [&](int64_t vec, int64_t i) {
    return double(rows ? v[vec * nin + i] : v[i * nin + vec]);
  };
  double max_dev = 0, total = 0;
  for (int64_t a = 0; a < k; ++a)
    for (int64_t b = a; b < k; ++b) {
      double g = 0;
      for (int64_t i = 0; i < len; ++i) g += at(a, i) * at(b, i);
      if (a == b) total += g;
      max_dev = std::max(max_dev, std::abs(g - (a == b ? scale * scale : 0.0)));
    }
  EXPECT_LT(max_dev, 1e-5 * std::max(1.0, scale * scale)) << "shape " << s;
  if (sumsq) *sumsq = total;
}

TEST(Init, OrthogonalGivesOrthonormalRowsOrColumns) {
  for (auto [shape, scale, type] :
       std::vector<std::tuple<Shape, double, std::string>>{{Shape{20, 50}, 1.414, "uniform"},
                                                           {Shape{50, 20}, 1.0, "normal"},
                                                           {Shape{8, 4, 3, 3}, 0.5, "uniform"},
                                                           {Shape{16, 16}, 2.0, "normal"},
                                                           {Shape{1, 7}, 1.0, "uniform"}}) {
    SCOPED_TRACE(shape.ToString());
    NDArray w(shape, cpu(), DType::kFloat32);
    random::seed(3);
    (*init::Orthogonal(scale, type))("weight", w);
    double sumsq = 0;
    ExpectOrthogonal(w, scale, &sumsq);
    EXPECT_NEAR(sumsq, scale * scale * std::min(shape[0], shape.Size() / shape[0]), 1e-4);
  }
  // Different seeds give different matrices.
  NDArray a(Shape{4, 4}, cpu(), DType::kFloat32), b(Shape{4, 4}, cpu(), DType::kFloat32);
  random::seed(1);
  (*init::Orthogonal())("weight", a);
  random::seed(2);
  (*init::Orthogonal())("weight", b);
  EXPECT_NE(a.ToVector<float>(), b.ToVector<float>());
  EXPECT_THROW(init::Orthogonal(1.0, "gaussian"), Error);
  NDArray v(Shape{5}, cpu(), DType::kFloat32);
  EXPECT_THROW(init::Orthogonal()->InitWeight("alpha", v), Error);
}

// ---- Exact values. ----

TEST(Init, BilinearKernel) {
  // f = 2, c = 0.75 for width 4: the 1-D profile is (0.25, 0.75, 0.75, 0.25).
  NDArray w(Shape{1, 1, 4, 4}, cpu(), DType::kFloat32);
  init::Bilinear()->InitWeight("upsampling_weight", w);
  std::vector<float> p = {0.25f, 0.75f, 0.75f, 0.25f};
  std::vector<float> want;
  for (float y : p)
    for (float x : p) want.push_back(x * y);
  EXPECT_EQ(w.ToVector<float>(), want);
  NDArray bad(Shape{3, 3}, cpu(), DType::kFloat32);
  EXPECT_THROW(init::Bilinear()->InitWeight("w", bad), Error);
}

TEST(Init, ConstantAndRoleRules) {
  NDArray w(Shape{2, 3}, cpu(), DType::kFloat32);
  (*init::Constant(0.5))("weight", w);
  EXPECT_EQ(w.ToVector<float>(), std::vector<float>(6, 0.5f));
  // Role rules: biases/betas/running means 0, gammas/running vars 1, whatever the initializer.
  for (const char* name : {"bias", "dense0.bias", "beta", "running_mean", "moving_mean"}) {
    (*init::Constant(0.5))(name, w);
    EXPECT_EQ(w.ToVector<float>(), std::vector<float>(6, 0.0f)) << name;
  }
  for (const char* name : {"gamma", "running_var", "moving_var"}) {
    (*init::Xavier())(name, w);
    EXPECT_EQ(w.ToVector<float>(), std::vector<float>(6, 1.0f)) << name;
  }
  // InitWeight (a parameter's own initializer) ignores the role.
  init::Constant(0.5)->InitWeight("bias", w);
  EXPECT_EQ(w.ToVector<float>(), std::vector<float>(6, 0.5f));
}

TEST(Init, MixedPicksTheFirstMatchingPattern) {
  auto m =
      init::Mixed({"run.*", ".*bias", ".*"}, {init::Constant(5), init::One(), init::Constant(2)});
  NDArray a(Shape{3}, cpu(), DType::kFloat32);
  (*m)("fc.weight", a);
  EXPECT_EQ(a.ToVector<float>(), std::vector<float>(3, 2.0f));
  (*m)("fc.bias", a);  // One() applied to a bias: the role rule gives 0, as MXNet
  EXPECT_EQ(a.ToVector<float>(), std::vector<float>(3, 0.0f));
  (*m)("running_scale", a);  // re.match: anchored at the start only
  EXPECT_EQ(a.ToVector<float>(), std::vector<float>(3, 5.0f));
  m->InitWeight("bias", a);  // as a parameter's own init: the picked initializer's weight rule
  EXPECT_EQ(a.ToVector<float>(), std::vector<float>(3, 1.0f));

  auto strict = init::Mixed({"conv.*"}, {init::Zero()});
  try {
    (*strict)("dense.weight", a);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dense.weight"), std::string::npos) << e.what();
  }
  EXPECT_THROW(init::Mixed({"a", "b"}, {init::Zero()}), Error);
  EXPECT_THROW(init::Mixed({"(unclosed"}, {init::Zero()}), Error);
  // dumps() round-trips through Create.
  auto again = init::Create(m->dumps());
  (*again)("running_scale", a);
  EXPECT_EQ(a.ToVector<float>(), std::vector<float>(3, 5.0f));
  EXPECT_EQ(again->dumps(), m->dumps());
}

// Block::initialize with Mixed and MSRAPrelu: the names the blocks pass work with patterns.
class TwoParams : public HybridBlock {
 public:
  TwoParams() {
    weight = register_parameter("weight", {.shape = Shape{64, 32}});
    bias = register_parameter("bias", {.shape = Shape{64}});
  }
  NDArray forward(const NDArray& x) override { return x; }
  ParameterPtr weight, bias;
};

TEST(Init, BlockInitializeWithNewInitializers) {
  TwoParams b;
  b.initialize(init::Mixed({".*bias", ".*"}, {init::Zero(), init::Constant(3)}));
  EXPECT_EQ(b.weight->data().ToVector<float>(), std::vector<float>(64 * 32, 3.0f));
  EXPECT_EQ(b.bias->data().ToVector<float>(), std::vector<float>(64, 0.0f));
  b.initialize(init::Orthogonal(), {cpu()}, false, /*force_reinit=*/true);
  ExpectOrthogonal(b.weight->data(), 1.414);
  EXPECT_EQ(b.bias->data().ToVector<float>(), std::vector<float>(64, 0.0f));
  b.initialize(init::MSRAPrelu(), {cpu()}, false, true);
  EXPECT_EQ(b.bias->data().ToVector<float>(), std::vector<float>(64, 0.0f));
}

TEST(Init, CreateKnowsEveryName) {
  EXPECT_EQ(init::Create("orthogonal")->dumps(),
            "[\"orthogonal\", {\"scale\": 1.414, \"rand_type\": \"uniform\"}]");
  EXPECT_EQ(init::Create("MSRAPrelu")->dumps(),
            "[\"msraprelu\", {\"factor_type\": \"avg\", \"slope\": 0.25}]");
  EXPECT_EQ(init::Create("bilinear")->dumps(), "[\"bilinear\", {}]");
  EXPECT_EQ(init::Create("[\"constant\", {\"value\": 0.5}]")->dumps(),
            "[\"constant\", {\"value\": 0.5}]");
  EXPECT_THROW(init::Create("he_normal"), Error);
  EXPECT_THROW(init::Create("[\"mixed\", {\"patterns\": 3}]"), Error);
}

// ---- Real MXNet 1.9.1 (testdata/init_refs.json, tools/conformance/gen_init_refs.py). ----

json Refs() {
  std::ifstream f("gluon/testdata/init_refs.json");
  EXPECT_TRUE(f.good()) << "missing gluon/testdata/init_refs.json";
  return json::parse(f);
}

Shape ShapeOf(const json& j) { return Shape(j.get<std::vector<int64_t>>()); }

TEST(InitMxnet, DistributionsMatchMxnetStatistics) {
  json refs = Refs();
  ASSERT_GE(refs["stats"].size(), 10u);
  for (const json& r : refs["stats"]) {
    std::string spec = r["spec"];
    SCOPED_TRACE(spec + " " + r["shape"].dump());
    Shape shape = ShapeOf(r["shape"]);
    std::vector<double> v = Draw(init::Create(spec), shape, r["seeds"].get<int>(), r["param"]);
    Stats s = Of(v);
    double mx_std = r["std"];
    // Same spread as MXNet's draws (standard error of a std over ~10^4 samples is < 1%).
    EXPECT_NEAR(s.std, mx_std, 0.03 * mx_std);
    EXPECT_NEAR(s.mean, r["mean"].get<double>(), 8 * mx_std / std::sqrt(double(s.n)));
    double mean_abs = 0;
    for (double x : v) mean_abs += std::abs(x);
    mean_abs /= v.size();
    EXPECT_NEAR(mean_abs, r["mean_abs"].get<double>(), 0.03 * r["mean_abs"].get<double>());
    // Bounded distributions: the same support.
    if (spec.find("uniform") != std::string::npos && spec.find("orthogonal") == std::string::npos) {
      double bound = std::max(std::abs(r["min"].get<double>()), std::abs(r["max"].get<double>()));
      EXPECT_LE(s.max, bound * 1.001);
      EXPECT_GE(s.min, -bound * 1.001);
    }
    if (r.contains("gram_dev")) {
      EXPECT_LT(r["gram_dev"].get<double>(), 1e-5);  // MXNet's are orthogonal too
      random::seed(99);
      NDArray w(shape, cpu(), DType::kFloat32);
      (*init::Create(spec))("weight", w);
      json args = spec[0] == '[' ? json::parse(spec)[1] : json::object();
      double scale = args.value("scale", 1.414), sumsq = 0;
      ExpectOrthogonal(w, scale, &sumsq);
      EXPECT_NEAR(sumsq, r["sumsq"].get<double>(), 1e-4 * r["sumsq"].get<double>());
    }
  }
}

TEST(InitMxnet, ExactValuesMatch) {
  json refs = Refs();
  ASSERT_GE(refs["exact"].size(), 8u);
  for (const json& r : refs["exact"]) {
    std::string param = r["param"];
    SCOPED_TRACE(r["spec"].get<std::string>() + " on " + param);
    NDArray a(ShapeOf(r["shape"]), cpu(), DType::kFloat32);
    (*init::Create(r["spec"]))(param, a);
    std::vector<float> want;
    for (double x : r["data"]) want.push_back(static_cast<float>(x));
    EXPECT_EQ(a.ToVector<float>(), want);
  }
}

TEST(InitMxnet, DumpsMatch) {
  json refs = Refs();
  for (const auto& [spec, text] : refs["dumps"].items()) {
    SCOPED_TRACE(spec);
    EXPECT_EQ(init::Create(spec)->dumps(), text.get<std::string>());
  }
}

}  // namespace
}  // namespace mxnet::gluon
