// Tests of the reduce family: its registered cases (gradients, kernels, attribute round trips,
// as //ndarray:all_ops_test runs them), reference values from real MXNet 1.9.1
// (testdata/reduce/*.json, tools/conformance/gen_reduce_refs.py), hand-computed edge cases,
// randomized reductions against a naive float64 implementation, higher-order gradients, errors.
// GCC 12 reports a false maybe-uninitialized in absl::InlinedVector's move for empty Shape{}
// temporaries moved into std::optional.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/backends/backend.h"
#include "ndarray/grad.h"
#include "ndarray/ops/reduce/reduce_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

// Primitives in the oneDNN backend's cache.
size_t OneDnnPrimitives() { return backends::FindBackend("onednn")->stats().primitives.entries; }

NDArray Arr(std::vector<double> v, Shape s, DType t = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), t);
}
std::vector<double> Vals(const NDArray& a) { return a.ToVector<double>(); }

// Expects `fn` to throw mxnet::Error with `code` whose message contains every piece.
void ExpectError(const std::function<void()>& fn, absl::StatusCode code,
                 std::vector<std::string> pieces) {
  try {
    fn();
    ADD_FAILURE() << "no error thrown; expected one mentioning " << StrJoin(pieces, ", ");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const auto& p : pieces)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------------------------
// The family's registered cases, checked as //ndarray:all_ops_test does (this test links only the
// reduce family, so it runs quickly on its own).
class ReduceCase : public ::testing::TestWithParam<int> {};

TEST_P(ReduceCase, GradientMatchesFiniteDifferences) {
  const OpTestCase& c = OpTestCases()[GetParam()];
  const Op& op = OpRegistry::Get(c.op);
  if (!op.differentiable() || !c.check_grad) GTEST_SKIP();
  EXPECT_TRUE(CheckGradient(c));
}

TEST_P(ReduceCase, OptimizedMatchesReference) {
  const OpTestCase& c = OpTestCases()[GetParam()];
  const Op& op = OpRegistry::Get(c.op);
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    std::vector<NDArray> in = MakeInputs(c, dt, 3);
    KernelKey ref{DeviceType::kCPU, Backend::kReference},
        opt{DeviceType::kCPU, Backend::kOptimized};
    if (!op.FindKernel(opt)) continue;
    NDArrayVec e = RunWithKernel(c, ref, in), g = RunWithKernel(c, opt, in);
    for (int i = 0; i < op.NumVisibleOutputs(OpAttrs::Parse(op, c.attrs)); ++i)
      EXPECT_TRUE(AllClose(g[i], e[i], 1e-5, 1e-6)) << c.op << c.label << " output " << i;
  }
}

TEST_P(ReduceCase, AttributesRoundTrip) {
  const OpTestCase& c = OpTestCases()[GetParam()];
  const Op& op = OpRegistry::Get(c.op);
  OpAttrs a = OpAttrs::Parse(op, c.attrs);
  EXPECT_TRUE(a == OpAttrs::Parse(op, a.ToDict())) << a.Key();
}

std::string CaseName(const ::testing::TestParamInfo<int>& info) {
  std::string n = StrCat(OpTestCases()[info.param].op, "_", info.param);
  for (char& ch : n)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}
INSTANTIATE_TEST_SUITE_P(Reduce, ReduceCase,
                         ::testing::Range(0, static_cast<int>(OpTestCases().size())), CaseName);

TEST(ReduceFamily, EveryOpHasACase) {
  std::set<std::string> with_case;
  for (const auto& c : OpTestCases()) with_case.insert(OpRegistry::Get(c.op).name);
  for (const char* n :
       {"sum",       "mean",      "prod",      "nansum",     "nanprod",        "max",
        "min",       "norm",      "argmax",    "argmin",     "argmax_channel", "dot",
        "batch_dot", "topk",      "sort",      "argsort",    "take",           "pick",
        "one_hot",   "Embedding", "gather_nd", "scatter_nd", "batch_take"})
    EXPECT_TRUE(with_case.count(n)) << n;
}

// ---------------------------------------------------------------------------------------------
// Reductions: hand-computed values and edge cases.
TEST(Reduce, AxisRules) {
  NDArray x =
      Arr({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23},
          {2, 3, 4});
  EXPECT_EQ(nd::sum(x).shape(), (Shape{1}));
  EXPECT_EQ(Vals(nd::sum(x)), std::vector<double>{276});
  EXPECT_EQ(nd::sum(x, {.keepdims = true}).shape(), (Shape{1, 1, 1}));
  EXPECT_EQ(nd::sum(x, {.axis = Shape{}}).shape(), (Shape{1}));  // () = all
  EXPECT_EQ(nd::sum(x, {.axis = Shape{}, .exclude = true}).shape(),
            (Shape{1}));  // still all (MXNet)
  EXPECT_EQ(nd::sum(x, {.axis = Shape{1}, .exclude = true}).shape(), (Shape{3}));
  EXPECT_EQ(nd::sum(x, {.axis = Shape{1}, .keepdims = true, .exclude = true}).shape(),
            (Shape{1, 3, 1}));
  EXPECT_EQ(Vals(nd::sum(x, {.axis = Shape{-1}, .exclude = true})),
            (std::vector<double>{60, 66, 72, 78}));
  EXPECT_EQ(Vals(nd::sum(x, {.axis = Shape{2, 0}})),
            (std::vector<double>{60, 92, 124}));  // unsorted axes
  EXPECT_EQ(nd::sum(x, {.axis = Shape{0, 1, 2}}).shape(), (Shape{1}));
  NDArray same = nd::sum(x, {.axis = Shape{0, 1, 2}, .exclude = true});  // nothing reduced
  EXPECT_EQ(same.shape(), x.shape());
  EXPECT_EQ(Vals(same), Vals(x));
  EXPECT_EQ(Vals(nd::sum(x, 1)), (std::vector<double>{12, 15, 18, 21, 48, 51, 54, 57}));
  EXPECT_EQ(Vals(nd::mean(x, 2)), (std::vector<double>{1.5, 5.5, 9.5, 13.5, 17.5, 21.5}));
  EXPECT_EQ(Vals(nd::max(x, 0)), Vals(x.at(1).reshape({-1})));
  EXPECT_EQ(Vals(nd::min(x, -1, true)), (std::vector<double>{0, 4, 8, 12, 16, 20}));
  EXPECT_EQ(nd::min(x, -1, true).shape(), (Shape{2, 3, 1}));
  // A scalar input reduces to (1,).
  EXPECT_EQ(nd::sum(NDArray::Full(Shape{}, 5)).shape(), (Shape{1}));
  // The sum_axis / max_axis / min_axis aliases.
  EXPECT_EQ(OpRegistry::Get("sum_axis").name, "sum");
  EXPECT_EQ(OpRegistry::Get("max_axis").name, "max");
  EXPECT_EQ(OpRegistry::Get("min_axis").name, "min");
}

TEST(Reduce, AxisErrorsNameOpAxisAndShape) {
  NDArray x = NDArray::Full({2, 3, 4}, 1);
  ExpectError([&] { nd::sum(x, {.axis = Shape{3}}); }, absl::StatusCode::kInvalidArgument,
              {"sum", "axis 3", "(2, 3, 4)"});
  ExpectError([&] { nd::mean(x, {.axis = Shape{-4}}); }, absl::StatusCode::kInvalidArgument,
              {"mean", "axis -4", "(2, 3, 4)"});
  ExpectError(
      [&] {
        nd::max(x, {.axis = Shape{0, -3}});
      },
      absl::StatusCode::kInvalidArgument, {"max", "axis", "twice", "(2, 3, 4)"});
  ExpectError([&] { nd::argmax(x, 5); }, absl::StatusCode::kInvalidArgument,
              {"argmax", "axis 5", "(2, 3, 4)"});
  ExpectError(
      [&] {
        Invoke("sum", std::vector<NDArray>{x}, {{"axis", "(1"}});
      },
      absl::StatusCode::kInvalidArgument, {"sum", "axis"});
  ExpectError([&] { nd::norm(x, {.ord = 3}); }, absl::StatusCode::kInvalidArgument,
              {"norm", "ord=3"});
}

TEST(Reduce, ZeroSizeInputs) {
  NDArray e03(Shape{0, 3}), e20(Shape{2, 0});
  EXPECT_EQ(Vals(nd::sum(e03, 0)), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(Vals(nd::sum(e20, 1)), (std::vector<double>{0, 0}));
  EXPECT_EQ(Vals(nd::prod(e20, {.axis = Shape{1}})), (std::vector<double>{1, 1}));
  EXPECT_TRUE(std::isnan(Vals(nd::mean(e20, 1))[0]));  // 0 / 0
  EXPECT_EQ(Vals(nd::norm(e20, {.axis = Shape{1}})), (std::vector<double>{0, 0}));
  EXPECT_EQ(nd::max(e03, 1).shape(), (Shape{0}));  // nothing to reduce into
  ExpectError([&] { nd::max(e20, 1); }, absl::StatusCode::kInvalidArgument,
              {"max", "axis 1", "(2, 0)"});
  ExpectError([&] { nd::min(e20); }, absl::StatusCode::kInvalidArgument, {"min", "(2, 0)"});
  EXPECT_EQ(nd::argmax(e03, 1).shape(), (Shape{0}));
  ExpectError([&] { nd::argmin(e20, 1); }, absl::StatusCode::kInvalidArgument,
              {"argmin", "axis 1", "(2, 0)"});
  EXPECT_EQ(nd::sum(e20).shape(), (Shape{1}));
}

TEST(Reduce, DtypeSemanticsFollowMXNet) {
  // Integer sums wrap in the element type; mean divides the wrapped sum (MXNet 1.9.1 gives -56,
  // 15).
  EXPECT_EQ(Vals(nd::sum(Arr({100, 100}, {2}, DType::kInt8))), std::vector<double>{-56});
  EXPECT_EQ(Vals(nd::mean(Arr({100, 100, 101}, {3}, DType::kInt8))), std::vector<double>{15});
  EXPECT_EQ(Vals(nd::mean(Arr({1, 2, 3, 4}, {2, 2}, DType::kInt32), 1)),
            (std::vector<double>{1, 3}));
  EXPECT_EQ(nd::sum(Arr({1, 2}, {2}, DType::kInt64)).dtype(), DType::kInt64);
  // float16: the float32 sum is converted before the division (MXNet: mean([60000, 60000]) = inf).
  EXPECT_TRUE(std::isinf(Vals(nd::mean(Arr({60000, 60000}, {2}, DType::kFloat16)))[0]));
  EXPECT_EQ(Vals(nd::sum(Arr({0.5, 0.25}, {2}, DType::kBFloat16))), std::vector<double>{0.75});
  // bool sums/max stay bool.
  NDArray b = Arr({1, 0, 1}, {3}, DType::kBool);
  EXPECT_EQ(nd::sum(b).dtype(), DType::kBool);
  EXPECT_EQ(Vals(nd::sum(b)), std::vector<double>{1});
  ExpectError([&] { nd::mean(b); }, absl::StatusCode::kInvalidArgument, {"mean", "bool"});
  // norm's out_dtype.
  NDArray n = nd::norm(Arr({3, 4}, {1, 2}), {.axis = Shape{1}, .out_dtype = DType::kFloat64});
  EXPECT_EQ(n.dtype(), DType::kFloat64);
  EXPECT_EQ(Vals(n), std::vector<double>{5});
  EXPECT_EQ(Vals(nd::norm(Arr({3, -4}, {2}), {.ord = 1})), std::vector<double>{7});
  // Large values: no float32 overflow in the L2 accumulation (MXNet: 1.4142e20).
  EXPECT_NEAR(Vals(nd::norm(Arr({1e20, 1e20}, {2})))[0] / 1.4142135623730951e20, 1.0, 1e-6);
}

TEST(Reduce, NaNHandling) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(Vals(nd::max(Arr({1, nan, 3}, {3})))[0]));
  EXPECT_TRUE(std::isnan(Vals(nd::min(Arr({1, nan, 3}, {3})))[0]));
  EXPECT_EQ(Vals(nd::nansum(Arr({1, nan, 3, nan, nan, nan}, {2, 3}), {.axis = Shape{1}})),
            (std::vector<double>{4, 0}));
  EXPECT_EQ(Vals(nd::nanprod(Arr({1, nan, 3, nan, nan, nan}, {2, 3}), {.axis = Shape{1}})),
            (std::vector<double>{3, 1}));
  // argmax/argmin: the first NaN wins (MXNet 1.9.1).
  EXPECT_EQ(Vals(nd::argmax(Arr({nan, 1, nan, 3}, {1, 4}), 1)), std::vector<double>{0});
  EXPECT_EQ(Vals(nd::argmin(Arr({0, nan, 1, nan, 3}, {1, 5}), 1)), std::vector<double>{1});
}

TEST(Reduce, ArgmaxTiesAndDtypes) {
  NDArray x = Arr({1, 3, 3, 2, 2, 1}, {2, 3});
  EXPECT_EQ(Vals(nd::argmax(x, 1)), (std::vector<double>{1, 0}));
  EXPECT_EQ(Vals(nd::argmin(Arr({1, 1, 3, 2, 0, 0}, {2, 3}), 1)), (std::vector<double>{0, 1}));
  EXPECT_EQ(nd::argmax(x, 1).dtype(), DType::kFloat32);
  EXPECT_EQ(nd::argmax(x.astype(DType::kFloat64), 1).dtype(), DType::kFloat64);
  EXPECT_EQ(nd::argmax(x.astype(DType::kInt32), 1).dtype(), DType::kInt32);
  EXPECT_EQ(Vals(nd::argmax(x)), std::vector<double>{1});  // flattened
  EXPECT_EQ(nd::argmax(x, std::nullopt, true).shape(), (Shape{1, 1}));
  EXPECT_EQ(nd::argmax(x, 0, true).shape(), (Shape{1, 3}));
  EXPECT_EQ(nd::argmax(Arr({1, 5, 2}, {3}), 0).shape(), (Shape{1}));
  NDArray c = Arr({0, 1, 2, 3, 4, 5}, {2, 3});
  EXPECT_EQ(Vals(nd::argmax_channel(c)), (std::vector<double>{2, 2}));  // MXNet's doc example
  EXPECT_EQ(nd::argmax_channel(NDArray::Full({2, 3, 4}, 1)).shape(), (Shape{2, 4}));
}

// Naive float64 reduction: every input element added into its output slot.
std::vector<double> NaiveReduce(const std::string& op, const std::vector<double>& x, const Shape& s,
                                const std::vector<char>& red) {
  int nd = s.ndim();
  Shape os;
  for (int i = 0; i < nd; ++i) os.push_back(red[i] ? 1 : s[i]);
  int64_t on = os.Size();
  double init = op == "prod" ? 1 : op == "max" ? -INFINITY : op == "min" ? INFINITY : 0;
  std::vector<double> acc(on, init);
  std::vector<int64_t> cnt(on, 0);
  for (int64_t i = 0; i < static_cast<int64_t>(x.size()); ++i) {
    int64_t rem = i, o = 0, ostride = 1;
    std::vector<int64_t> coord(nd);
    for (int d = nd - 1; d >= 0; --d) coord[d] = rem % s[d], rem /= s[d];
    for (int d = nd - 1; d >= 0; --d) {
      if (!red[d]) o += coord[d] * ostride;
      ostride *= os[d];
    }
    double v = x[i];
    if (op == "sum" || op == "mean")
      acc[o] += v;
    else if (op == "prod")
      acc[o] *= v;
    else if (op == "max")
      acc[o] = std::max(acc[o], v);
    else if (op == "min")
      acc[o] = std::min(acc[o], v);
    else if (op == "norm")
      acc[o] += v * v;
    cnt[o]++;
  }
  for (int64_t o = 0; o < on; ++o) {
    if (op == "mean") acc[o] /= cnt[o];
    if (op == "norm") acc[o] = std::sqrt(acc[o]);
  }
  return acc;
}

TEST(Reduce, RandomizedAgainstNaiveFloat64) {
  std::mt19937_64 gen(2024);
  int checked = 0;
  for (int iter = 0; iter < 120; ++iter) {
    int nd = 1 + gen() % 4;
    Shape s;
    for (int i = 0; i < nd; ++i) s.push_back(1 + gen() % 5);
    std::vector<int64_t> axes;
    for (int i = 0; i < nd; ++i)
      if (gen() % 2) axes.push_back(gen() % 2 ? i : i - nd);
    bool exclude = gen() % 3 == 0, keepdims = gen() % 2;
    bool all = axes.empty();
    std::vector<char> red(nd, 1);
    if (!all) {
      for (int i = 0; i < nd; ++i) red[i] = 0;
      for (int64_t a : axes) red[a < 0 ? a + nd : a] = 1;
      if (exclude)
        for (auto& r : red) r = !r;
    }
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      NDArray x = RandomArray(s, 0.5, 1.5, iter * 7 + 1, dt);
      std::vector<double> xv = Vals(x);
      for (const char* op : {"sum", "mean", "prod", "max", "min", "norm"}) {
        AttrDict attrs;
        if (!all) attrs["axis"] = Shape(axes).ToString();
        if (keepdims) attrs["keepdims"] = "True";
        if (exclude && std::string(op) != "norm") attrs["exclude"] = "True";
        std::vector<char> r = red;
        if (exclude && std::string(op) == "norm" && !all) {  // norm has no exclude
          for (int i = 0; i < nd; ++i) r[i] = 0;
          for (int64_t a : axes) r[a < 0 ? a + nd : a] = 1;
        }
        NDArray y = Invoke(op, std::vector<NDArray>{x}, attrs)[0];
        std::vector<double> want = NaiveReduce(op, xv, s, r);
        ASSERT_EQ(y.size(), static_cast<int64_t>(want.size()))
            << op << " " << s << " " << Shape(axes);
        Shape ks;
        for (int i = 0; i < nd; ++i) ks.push_back(r[i] ? 1 : s[i]);
        EXPECT_EQ(y.shape(), ops::ReducedShape(s, r, keepdims)) << op;
        EXPECT_TRUE(AllClose(y.reshape(ks.ToVector()),
                             NDArray::FromVector(want, ks, cpu(), DType::kFloat64),
                             dt == DType::kFloat32 ? 2e-5 : 1e-12, 1e-6))
            << op << " shape " << s << " axes " << Shape(axes) << " exclude " << exclude;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 120 * 2 * 6);
}

TEST(Reduce, GradientsFollowMXNet) {
  auto grad = [](const std::string& op, const NDArray& x, AttrDict attrs) {
    const Op& o = OpRegistry::Get(op);
    OpAttrs a = OpAttrs::Parse(o, attrs);
    NDArrayVec y = Invoke(o, a, std::vector<NDArray>{x});
    std::vector<NDArray> outs(y.begin(), y.end());
    std::vector<NDArray> og{nd::ones_like(y[0])};
    return Vals(EagerGradBuilder::Run(o, a, std::vector<NDArray>{x}, outs, og)[0]);
  };
  double nan = std::numeric_limits<double>::quiet_NaN();
  // max/min: every tied maximum gets the full gradient; a NaN result passes none.
  EXPECT_EQ(grad("max", Arr({1, 3, 3, 2, 2, 1}, {2, 3}), {{"axis", "1"}}),
            (std::vector<double>{0, 1, 1, 1, 1, 0}));
  EXPECT_EQ(grad("min", Arr({1, 1, 3, 2, 0, 0}, {2, 3}), {}),
            (std::vector<double>{0, 0, 0, 0, 1, 1}));
  EXPECT_EQ(grad("max", Arr({1, nan, 3, 2, 2, 1}, {2, 3}), {{"axis", "1"}}),
            (std::vector<double>{0, 0, 0, 1, 1, 0}));
  // prod: out / x (NaN at a zero, as MXNet).
  std::vector<double> gp = grad("prod", Arr({1, 0, 3, 2, 2, 1}, {2, 3}), {{"axis", "1"}});
  EXPECT_EQ(gp[0], 0);
  EXPECT_TRUE(std::isnan(gp[1]));
  EXPECT_EQ(std::vector<double>(gp.begin() + 3, gp.end()), (std::vector<double>{2, 2, 4}));
  EXPECT_EQ(grad("nanprod", Arr({1, nan, 3, 2, 2, 1}, {2, 3}), {{"axis", "1"}}),
            (std::vector<double>{3, 0, 1, 2, 2, 4}));
  EXPECT_EQ(grad("nansum", Arr({1, nan, 3, 2, 2, 1}, {2, 3}), {{"axis", "1"}}),
            (std::vector<double>{1, 0, 1, 1, 1, 1}));
  EXPECT_EQ(grad("norm", Arr({0, -1, 2, 3, 4, 0}, {2, 3}), {{"ord", "1"}, {"axis", "1"}}),
            (std::vector<double>{0, -1, 1, 1, 1, 0}));
  std::vector<double> g2 = grad("norm", Arr({0, 0, 0, 3, 4, 0}, {2, 3}), {{"axis", "1"}});
  EXPECT_TRUE(std::isnan(g2[0]));
  EXPECT_NEAR(g2[3], 0.6, 1e-7);
  EXPECT_NEAR(g2[4], 0.8, 1e-7);
  EXPECT_EQ(grad("argmax", Arr({1, 3, 2}, {3}), {{"axis", "0"}}), (std::vector<double>{0, 0, 0}));
}

// ---------------------------------------------------------------------------------------------
// dot / batch_dot.

// Naive matrix product on explicitly transposed 2-D values.
std::vector<double> NaiveGemm(const std::vector<double>& a, const std::vector<double>& b, int64_t M,
                              int64_t N, int64_t K, bool ta, bool tb) {
  std::vector<double> c(M * N, 0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k)
        c[m * N + n] += (ta ? a[k * M + m] : a[m * K + k]) * (tb ? b[n * K + k] : b[k * N + n]);
  return c;
}

TEST(Dot, ShapesFollowMXNet) {
  auto shape = [](Shape l, Shape r, bool ta = false, bool tb = false) {
    return nd::dot(NDArray::Full(l, 1), NDArray::Full(r, 1), ta, tb).shape();
  };
  EXPECT_EQ(shape({3}, {3}), (Shape{1}));
  EXPECT_EQ(shape({3}, {3, 4}), (Shape{4}));
  EXPECT_EQ(shape({3}, {3, 4}, true), (Shape{4}));
  EXPECT_EQ(shape({3}, {4, 3}, false, true), (Shape{4}));
  EXPECT_EQ(shape({4, 3}, {3}), (Shape{4}));
  EXPECT_EQ(shape({3, 4}, {3}, true), (Shape{4}));
  EXPECT_EQ(shape({2, 3, 4}, {4, 5, 6}), (Shape{2, 3, 5, 6}));
  EXPECT_EQ(shape({2, 3, 4}, {2, 5, 6}, true), (Shape{3, 4, 5, 6}));
  EXPECT_EQ(shape({2, 3, 4}, {5, 6, 4}, false, true), (Shape{2, 3, 5, 6}));
  EXPECT_EQ(shape({2, 3, 4}, {5, 6, 2}, true, true), (Shape{3, 4, 5, 6}));
  EXPECT_EQ(shape({2, 3, 4}, {4}), (Shape{2, 3}));
  EXPECT_EQ(shape({2}, {2, 3, 4}), (Shape{3, 4}));
  auto bshape = [](Shape l, Shape r, bool ta = false, bool tb = false) {
    return nd::batch_dot(NDArray::Full(l, 1), NDArray::Full(r, 1), ta, tb).shape();
  };
  EXPECT_EQ(bshape({2, 3, 4}, {2, 4, 5}), (Shape{2, 3, 5}));
  EXPECT_EQ(bshape({2, 4, 3}, {2, 5, 4}, true, true), (Shape{2, 3, 5}));
  EXPECT_EQ(bshape({2, 2, 3, 4}, {2, 2, 4, 5}), (Shape{2, 2, 3, 5}));
}

TEST(Dot, ErrorsNameOpAndShapes) {
  auto ones = [](Shape s, DType t = DType::kFloat32) { return NDArray::Full(s, 1, cpu(), t); };
  ExpectError(
      [&] {
        nd::dot(ones({2, 3}), ones({4, 5}));
      },
      absl::StatusCode::kInvalidArgument, {"dot", "(2, 3)", "(4, 5)", "3", "4"});
  ExpectError([&] { nd::dot(ones({3}), ones({3}), true); }, absl::StatusCode::kInvalidArgument,
              {"dot", "transpose", "1-D"});
  ExpectError(
      [&] {
        nd::dot(ones({2, 2}, DType::kInt32), ones({2, 2}, DType::kInt32));
      },
      absl::StatusCode::kInvalidArgument, {"dot", "int32"});
  ExpectError(
      [&] {
        nd::dot(ones({2, 2}, DType::kFloat64), ones({2, 2}));
      },
      absl::StatusCode::kInvalidArgument, {"dot", "float64", "float32"});
  ExpectError(
      [&] {
        nd::batch_dot(ones({3, 4}), ones({4, 5}));
      },
      absl::StatusCode::kInvalidArgument, {"batch_dot", "(3, 4)", "(4, 5)", "N >= 3"});
  ExpectError(
      [&] {
        nd::batch_dot(ones({1, 3, 4}), ones({2, 4, 5}));
      },
      absl::StatusCode::kInvalidArgument, {"batch_dot", "batch", "(1, 3, 4)", "(2, 4, 5)"});
  ExpectError(
      [&] {
        nd::batch_dot(ones({2, 3, 4}), ones({2, 5, 5}));
      },
      absl::StatusCode::kInvalidArgument, {"batch_dot", "(2, 3, 4)", "(2, 5, 5)", "4", "5"});
}

TEST(Dot, AllKernelsAndDtypesMatchNaive) {
  std::mt19937_64 gen(5);
  for (int iter = 0; iter < 12; ++iter) {
    int64_t M = 1 + gen() % 37, N = 1 + gen() % 41, K = 1 + gen() % 33;
    bool ta = iter & 1, tb = iter & 2;
    for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
      NDArray a = RandomArray(ta ? Shape{K, M} : Shape{M, K}, -1, 1, iter, dt);
      NDArray b = RandomArray(tb ? Shape{N, K} : Shape{K, N}, -1, 1, iter + 100, dt);
      std::vector<double> want = NaiveGemm(Vals(a), Vals(b), M, N, K, ta, tb);
      NDArray w = NDArray::FromVector(want, {M, N}, cpu(), DType::kFloat64);
      double tol = dt == DType::kFloat64   ? 1e-12
                   : dt == DType::kFloat32 ? 1e-5
                   : dt == DType::kFloat16 ? 4e-3
                                           : 3e-2;
      NDArray got = nd::dot(a, b, ta, tb);
      EXPECT_EQ(got.dtype(), dt);
      EXPECT_TRUE(AllClose(got, w, tol, tol)) << DTypeName(dt) << " " << M << "x" << N << "x" << K;
      // The reference kernel too.
      OpTestCase c{.op = "dot",
                   .attrs = {{"transpose_a", ta ? "True" : "False"},
                             {"transpose_b", tb ? "True" : "False"}}};
      std::vector<NDArray> in{a, b};
      EXPECT_TRUE(
          AllClose(RunWithKernel(c, {DeviceType::kCPU, Backend::kReference}, in)[0], w, tol, tol));
      // batch_dot over 3 batches (batch i adds i to lhs, subtracts i from rhs).
      std::vector<double> av = Vals(a), bv = Vals(b), a3, b3, w3;
      for (int bi = 0; bi < 3; ++bi) {
        std::vector<double> ai(av), bj(bv);
        for (auto& x : ai) x += bi;
        for (auto& x : bj) x -= bi;
        a3.insert(a3.end(), ai.begin(), ai.end());
        b3.insert(b3.end(), bj.begin(), bj.end());
        std::vector<double> wi = NaiveGemm(ai, bj, M, N, K, ta, tb);
        w3.insert(w3.end(), wi.begin(), wi.end());
      }
      Shape as = a.shape(), bs = b.shape();
      NDArray A3 = NDArray::FromVector(a3, {3, as[0], as[1]}, cpu(), dt);
      NDArray B3 = NDArray::FromVector(b3, {3, bs[0], bs[1]}, cpu(), dt);
      // Compare against the naive product of the (rounded) stored values.
      std::vector<double> a3r = Vals(A3), b3r = Vals(B3), w3r;
      for (int bi = 0; bi < 3; ++bi) {
        std::vector<double> ai(a3r.begin() + bi * M * K, a3r.begin() + (bi + 1) * M * K);
        std::vector<double> bj(b3r.begin() + bi * K * N, b3r.begin() + (bi + 1) * K * N);
        std::vector<double> wi = NaiveGemm(ai, bj, M, N, K, ta, tb);
        w3r.insert(w3r.end(), wi.begin(), wi.end());
      }
      NDArray W3 = NDArray::FromVector(w3r, {3, M, N}, cpu(), DType::kFloat64);
      double btol = dt == DType::kFloat16 || dt == DType::kBFloat16 ? 0.05 : tol * 10;
      EXPECT_TRUE(AllClose(nd::batch_dot(A3, B3, ta, tb), W3, btol, btol)) << DTypeName(dt);
    }
  }
}

TEST(Dot, ZeroSizeAndPrimitiveCache) {
  EXPECT_EQ(nd::dot(NDArray(Shape{2, 0}), NDArray(Shape{0, 3})).shape(), (Shape{2, 3}));
  EXPECT_EQ(Vals(nd::dot(NDArray(Shape{2, 0}), NDArray(Shape{0, 3}))), std::vector<double>(6, 0));
  EXPECT_EQ(nd::dot(NDArray(Shape{0, 4}), NDArray::Full({4, 3}, 1)).shape(), (Shape{0, 3}));
  EXPECT_EQ(Vals(nd::batch_dot(NDArray(Shape{2, 2, 0}), NDArray(Shape{2, 0, 1}))),
            std::vector<double>(4, 0));
  NDArray a = RandomArray({7, 9}, -1, 1, 1, DType::kFloat32),
          b = RandomArray({9, 11}, -1, 1, 2, DType::kFloat32);
  nd::dot(a, b);
  size_t n = OneDnnPrimitives();
  nd::dot(a, b);
  EXPECT_EQ(OneDnnPrimitives(), n);  // reused
  nd::dot(b, a, true, true);         // new dims and flags: one more primitive
  EXPECT_EQ(OneDnnPrimitives(), n + 1);
}

// ---------------------------------------------------------------------------------------------
// Ordering.
TEST(Ordering, TopkTiesKAndReturnTypes) {
  NDArray x = Arr({3, 1, 4, 1, 5, 9, 2, 6, 5, 3}, {2, 5});
  EXPECT_EQ(Vals(nd::topk(x)[0]), (std::vector<double>{4, 0}));  // default: indices of the max, k=1
  EXPECT_EQ(nd::topk(x)[0].shape(), (Shape{2, 1}));
  NDArrayVec both = nd::topk(x, {.k = 2, .ret_typ = "both"});
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(Vals(both[0]), (std::vector<double>{5, 4, 9, 6}));
  EXPECT_EQ(Vals(both[1]), (std::vector<double>{4, 2, 0, 2}));
  EXPECT_EQ(nd::topk(x, {.k = 2, .ret_typ = "value"}).size(), 1u);  // the indices output is hidden
  EXPECT_EQ(Vals(nd::topk(x, {.k = 2, .ret_typ = "mask"})[0]),
            (std::vector<double>{0, 0, 1, 0, 1, 1, 0, 1, 0, 0}));
  // Ties keep index order, both directions.
  NDArrayVec t = nd::topk(Arr({1, 5, 5, 5, 2}, {5}), {.k = 2, .ret_typ = "both"});
  EXPECT_EQ(Vals(t[1]), (std::vector<double>{1, 2}));
  t = nd::topk(Arr({5, 1, 1, 1, 2}, {5}), {.k = 2, .ret_typ = "both", .is_ascend = true});
  EXPECT_EQ(Vals(t[1]), (std::vector<double>{1, 2}));
  t = nd::topk(x, {.k = 3, .ret_typ = "both", .is_ascend = true});
  EXPECT_EQ(Vals(t[1]), (std::vector<double>{1, 3, 0, 1, 4, 3}));
  // k < 1: the whole axis; axis None: flattened; dtype of the indices.
  EXPECT_EQ(Vals(nd::topk(x, {.k = 0, .ret_typ = "value"})[0]),
            (std::vector<double>{5, 4, 3, 1, 1, 9, 6, 5, 3, 2}));
  t = nd::topk(x, {.axis = std::nullopt, .k = 3, .ret_typ = "both"});
  EXPECT_EQ(Vals(t[0]), (std::vector<double>{9, 6, 5}));
  EXPECT_EQ(Vals(t[1]), (std::vector<double>{5, 7, 4}));
  EXPECT_EQ(nd::topk(x, {.axis = std::nullopt, .k = 3, .ret_typ = "mask"})[0].shape(), x.shape());
  NDArray i32 = nd::topk(x, {.k = 2, .dtype = DType::kInt32})[0];
  EXPECT_EQ(i32.dtype(), DType::kInt32);
  EXPECT_EQ(nd::topk(x, {.k = 2, .ret_typ = "mask", .dtype = DType::kInt32})[0].dtype(),
            DType::kFloat32);
  EXPECT_EQ(nd::topk(x, {.axis = 0, .k = 1, .ret_typ = "both"})[1].shape(), (Shape{1, 5}));
  ExpectError([&] { nd::topk(x, {.k = 6}); }, absl::StatusCode::kInvalidArgument,
              {"topk", "k=6", "5", "(2, 5)"});
  ExpectError([&] { nd::topk(x, {.axis = 2}); }, absl::StatusCode::kInvalidArgument,
              {"topk", "axis 2", "(2, 5)"});
  ExpectError(
      [&] {
        Invoke("topk", std::vector<NDArray>{x}, {{"ret_typ", "values"}});
      },
      absl::StatusCode::kInvalidArgument, {"topk", "ret_typ", "values"});
  // Empty rows.
  EXPECT_EQ(nd::topk(NDArray(Shape{0, 3}), {.k = 1, .ret_typ = "both"})[0].shape(), (Shape{0, 1}));
  ExpectError(
      [&] {
        nd::topk(NDArray(Shape{3, 0}), {.k = 1});
      },
      absl::StatusCode::kInvalidArgument, {"topk", "k=1"});
}

TEST(Ordering, SortAndArgsort) {
  NDArray x = Arr({3, 1, 4, 1, 5, 9, 2, 6, 5, 3}, {2, 5});
  EXPECT_EQ(Vals(nd::sort(x)), (std::vector<double>{1, 1, 3, 4, 5, 2, 3, 5, 6, 9}));
  EXPECT_EQ(Vals(nd::sort(x, -1, false)), (std::vector<double>{5, 4, 3, 1, 1, 9, 6, 5, 3, 2}));
  EXPECT_EQ(nd::sort(x, std::nullopt).shape(), (Shape{10}));
  EXPECT_EQ(Vals(nd::argsort(x)), (std::vector<double>{1, 3, 0, 2, 4, 1, 4, 3, 2, 0}));
  EXPECT_EQ(Vals(nd::argsort(Arr({1, 5, 5, 5, 2}, {5}), -1, false)),
            (std::vector<double>{1, 2, 3, 4, 0}));
  EXPECT_EQ(Vals(nd::argsort(x, std::nullopt)),
            (std::vector<double>{1, 3, 6, 0, 9, 2, 4, 8, 7, 5}));
  EXPECT_EQ(nd::argsort(x, -1, true, DType::kInt64).dtype(), DType::kInt64);
  EXPECT_EQ(Vals(nd::sort(Arr({3, 1, 2}, {3}, DType::kInt32))), (std::vector<double>{1, 2, 3}));
  double nan = std::numeric_limits<double>::quiet_NaN();
  // NaN sorts last ascending (MXNet 1.9.1's argsort gives [4, 2, 0, 1, 3] too).
  EXPECT_EQ(Vals(nd::argsort(Arr({3, nan, 2, nan, 1}, {5}))), (std::vector<double>{4, 2, 0, 1, 3}));
  // Long rows with ties: stable order.
  std::vector<double> v(1000);
  for (int i = 0; i < 1000; ++i) v[i] = i % 7;
  std::vector<double> idx = Vals(nd::argsort(Arr(v, {1000}), -1, true, DType::kInt32));
  for (int i = 1; i < 1000; ++i)
    ASSERT_TRUE(v[idx[i - 1]] < v[idx[i]] || (v[idx[i - 1]] == v[idx[i]] && idx[i - 1] < idx[i]))
        << i;
  NDArrayVec tk = nd::topk(Arr(v, {1000}), {.k = 5, .ret_typ = "both"});
  EXPECT_EQ(Vals(tk[1]), (std::vector<double>{6, 13, 20, 27, 34}));
}

// ---------------------------------------------------------------------------------------------
// Indexing.
TEST(Indexing, TakeModes) {
  NDArray a = Arr({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4});
  NDArray idx = Arr({0, 5, -1, 2}, {2, 2});
  EXPECT_EQ(nd::take(a, idx).shape(), (Shape{2, 2, 4}));
  EXPECT_EQ(Vals(nd::take(a, idx)),
            (std::vector<double>{0, 1, 2, 3, 8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(Vals(nd::take(a, idx, 0, "wrap")),
            (std::vector<double>{0, 1, 2, 3, 8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11}));
  EXPECT_EQ(Vals(nd::take(a, Arr({-4, -5, 7}, {3}), 0, "wrap")),
            (std::vector<double>{8, 9, 10, 11, 4, 5, 6, 7, 4, 5, 6, 7}));
  EXPECT_EQ(Vals(nd::take(a, Arr({0.7, 1.5, 2.9, -0.5}, {4}))),
            (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3}));
  EXPECT_EQ(Vals(nd::take(a, Arr({3, 0}, {2}), 1)), (std::vector<double>{3, 0, 7, 4, 11, 8}));
  EXPECT_EQ(nd::take(a, Arr({3, 1}, {2, 1}), -1).shape(), (Shape{3, 2, 1}));
  EXPECT_EQ(Vals(nd::take(a, Arr({2, 0}, {2}, DType::kInt64), 0, "raise")),
            (std::vector<double>{8, 9, 10, 11, 0, 1, 2, 3}));
  ExpectError(
      [&] {
        nd::take(a, Arr({3, 0}, {2}), 0, "raise");
      },
      absl::StatusCode::kOutOfRange, {"take", "index 3", "axis 0", "size 3", "raise"});
  ExpectError([&] { nd::take(a, Arr({-1}, {1}), 0, "raise"); }, absl::StatusCode::kOutOfRange,
              {"take", "index -1"});
  ExpectError([&] { nd::take(a, Arr({0}, {1}), 2); }, absl::StatusCode::kInvalidArgument,
              {"take", "axis 2", "(3, 4)"});
  ExpectError([&] { nd::take(a, Arr({0}, {1}), 0, "nearest"); }, absl::StatusCode::kInvalidArgument,
              {"take", "mode"});
  EXPECT_EQ(nd::take(a, NDArray(Shape{0})).shape(), (Shape{0, 4}));
  // Gradient: scatter-add at the clipped / wrapped rows; none for the indices.
  const Op& op = OpRegistry::Get("take");
  for (auto [mode, want] : {std::pair<std::string, std::vector<double>>{"clip", {3, 0, 1}},
                            std::pair<std::string, std::vector<double>>{"wrap", {2, 0, 2}}}) {
    OpAttrs at = OpAttrs::Parse(op, {{"mode", mode}});
    NDArray i = Arr({0, 5, 0, -1}, {4});
    NDArray y = Invoke(op, at, std::vector<NDArray>{a, i})[0];
    std::vector<NDArray> g =
        EagerGradBuilder::Run(op, at, std::vector<NDArray>{a, i}, std::vector<NDArray>{y},
                              std::vector<NDArray>{nd::ones_like(y)});
    std::vector<double> gv = Vals(g[0]);
    for (int r = 0; r < 3; ++r) EXPECT_EQ(gv[r * 4], want[r]) << mode;
    EXPECT_TRUE(g[1].is_none());
  }
}

TEST(Indexing, PickOneHotEmbedding) {
  NDArray a = Arr({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4});
  EXPECT_EQ(Vals(nd::pick(a, Arr({0, 5, -1}, {3}))), (std::vector<double>{0, 7, 8}));
  EXPECT_EQ(Vals(nd::pick(a, Arr({0, 5, -1}, {3}), -1, false, "wrap")),
            (std::vector<double>{0, 5, 11}));
  EXPECT_EQ(Vals(nd::pick(a, Arr({0, 2, 1, 1}, {4}), 0)), (std::vector<double>{0, 9, 6, 7}));
  EXPECT_EQ(nd::pick(a, Arr({0, 2, 1}, {3, 1}), 1, true).shape(), (Shape{3, 1}));
  EXPECT_EQ(nd::pick(a, Arr({0, 2, 1}, {3, 1}), 1, false).shape(), (Shape{3}));
  EXPECT_EQ(nd::pick(Arr({1, 2, 3}, {3}), Arr({2}, {1}), 0).shape(), (Shape{1}));
  ExpectError(
      [&] {
        nd::pick(a, Arr({0, 1}, {2}));
      },
      absl::StatusCode::kInvalidArgument, {"pick", "(2,)", "(3, 4)"});
  ExpectError(
      [&] {
        Invoke("pick", std::vector<NDArray>{a, Arr({0}, {1})}, {{"axis", "None"}});
      },
      absl::StatusCode::kInvalidArgument, {"pick", "axis=None"});
  EXPECT_EQ(Vals(nd::one_hot(Arr({1, 0, -1, 3, 2.7}, {5}), 3)),
            (std::vector<double>{0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
  NDArray oh = nd::one_hot(Arr({1, 0}, {1, 2}), 3, 5, -1, DType::kInt32);
  EXPECT_EQ(oh.dtype(), DType::kInt32);
  EXPECT_EQ(oh.shape(), (Shape{1, 2, 3}));
  EXPECT_EQ(Vals(oh), (std::vector<double>{-1, 5, -1, 5, -1, -1}));
  EXPECT_EQ(nd::one_hot(Arr({1, 0}, {2}), 0).shape(), (Shape{2, 0}));
  NDArray w = Arr({0, 1, 2, 3, 4, 5}, {3, 2});
  NDArray e = nd::Embedding(Arr({0, 2, 5, -1}, {2, 2}), w, 3, 2);
  EXPECT_EQ(e.shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(Vals(e), (std::vector<double>{0, 1, 4, 5, 4, 5, 0, 1}));  // out-of-range rows clipped
  EXPECT_EQ(nd::Embedding(Arr({1}, {1}), w.astype(DType::kFloat64), 3, 2).dtype(), DType::kFloat64);
  ExpectError(
      [&] {
        nd::Embedding(Arr({1}, {1}), Arr({0, 1, 2, 3, 4, 5}, {2, 3}), 3, 2);
      },
      absl::StatusCode::kInvalidArgument, {"Embedding", "weight", "(3, 2)", "(2, 3)"});
  // The weight gradient accumulates repeated (and clipped) rows; none for the data.
  const Op& op = OpRegistry::Get("Embedding");
  OpAttrs at = OpAttrs::Parse(op, {{"input_dim", "3"}, {"output_dim", "2"}});
  NDArray d = Arr({0, 2, 2, -1}, {2, 2});
  NDArray y = Invoke(op, at, std::vector<NDArray>{d, w})[0];
  std::vector<NDArray> g =
      EagerGradBuilder::Run(op, at, std::vector<NDArray>{d, w}, std::vector<NDArray>{y},
                            std::vector<NDArray>{nd::ones_like(y)});
  EXPECT_TRUE(g[0].is_none());
  EXPECT_EQ(Vals(g[1]), (std::vector<double>{2, 2, 0, 0, 2, 2}));
  ExpectError(
      [&] {
        Invoke("Embedding", std::vector<NDArray>{d, w}, {{"input_dim", "3"}});
      },
      absl::StatusCode::kInvalidArgument, {"Embedding", "output_dim"});
}

TEST(Indexing, GatherScatterBatchTake) {
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;
  NDArray d = Arr(v, {2, 3, 4});
  NDArray g = nd::gather_nd(d, Arr({1, 0, 1, 2, 0, -1}, {2, 3}));
  EXPECT_EQ(g.shape(), (Shape{3, 4}));
  EXPECT_EQ(Vals(g), (std::vector<double>{20, 21, 22, 23, 0, 1, 2, 3, 20, 21, 22, 23}));
  EXPECT_EQ(Vals(nd::gather_nd(d, Arr({1, 0, 2, 0, 3, 1}, {3, 2}))), (std::vector<double>{23, 1}));
  ExpectError(
      [&] {
        nd::gather_nd(d, Arr({5, 9}, {1, 2}));
      },
      absl::StatusCode::kOutOfRange, {"gather_nd", "index 5", "axis 0", "size 2"});
  ExpectError(
      [&] {
        nd::gather_nd(d, Arr({1, 2}, {2}));
      },
      absl::StatusCode::kInvalidArgument, {"gather_nd", "2 dimensions"});
  ExpectError(
      [&] {
        nd::gather_nd(d, NDArray::Full({4, 1}, 0));
      },
      absl::StatusCode::kInvalidArgument, {"gather_nd", "indices.shape[0]=4", "(2, 3, 4)"});
  {  // The gradient lands at the wrapped position of a negative index (MXNet 1.9.1's backward
     // uses the unwrapped offset; we follow the forward).
    const Op& op = OpRegistry::Get("gather_nd");
    OpAttrs at = OpAttrs::Parse(op, {});
    NDArray i = Arr({1, -1}, {2, 1});
    NDArray y = Invoke(op, at, std::vector<NDArray>{d, i})[0];
    std::vector<NDArray> gr =
        EagerGradBuilder::Run(op, at, std::vector<NDArray>{d, i}, std::vector<NDArray>{y},
                              std::vector<NDArray>{nd::ones_like(y)});
    std::vector<double> gv = Vals(gr[0]);
    EXPECT_EQ(gv[1 * 12 + 2 * 4], 1);  // d[1, 2, 0]
    EXPECT_EQ(gv[0 * 12 + 2 * 4], 0);
  }
  NDArray s = nd::scatter_nd(Arr({1, 2, 3}, {3}), Arr({0, 0, 1, 1, 1, 1}, {2, 3}), {2, 2});
  EXPECT_EQ(Vals(s), (std::vector<double>{0, 2, 0, 3}));  // duplicates: the last one wins
  EXPECT_EQ(Vals(nd::scatter_nd(Arr({1, 2, 3, 4}, {2, 2}), Arr({0, 1}, {1, 2}), {2, 2})),
            (std::vector<double>{1, 2, 3, 4}));
  ExpectError(
      [&] {
        nd::scatter_nd(Arr({1, 2}, {2}), Arr({0, 5, 0, 0}, {2, 2}), {2, 2});
      },
      absl::StatusCode::kOutOfRange, {"scatter_nd", "index 5"});
  NDArray a = Arr({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4});
  EXPECT_EQ(Vals(nd::batch_take(a, Arr({0, 3, 1}, {3}, DType::kInt32))),
            (std::vector<double>{0, 7, 9}));
  EXPECT_EQ(Vals(nd::batch_take(a, Arr({0, 5, -1}, {3}, DType::kInt32))),
            (std::vector<double>{0, 7, 8}));
  ExpectError(
      [&] {
        nd::batch_take(a, Arr({0, 1, 2}, {3}));
      },
      absl::StatusCode::kInvalidArgument, {"batch_take", "int32"});
}

// ---------------------------------------------------------------------------------------------
// Higher-order gradients: the gradient definitions are compositions of registered ops, so they
// can be differentiated again. A small tape records the first-order gradient graph; its backward
// (each op's FGradient again) is compared with finite differences of L2 = <v, dL/dx>.
class TapeBuilder final : public GradBuilder {
 public:
  GradValue Leaf(const NDArray& a) {
    vals_.push_back(a);
    return GradValue{static_cast<int>(vals_.size()) - 1};
  }
  std::vector<GradValue> Apply(const Op& op, const OpAttrs& attrs,
                               std::span<const GradValue> inputs) override {
    NDArrayVec in;
    Node n{&op, attrs, {}, {}};
    for (GradValue v : inputs) in.push_back(vals_[v.id]), n.in.push_back(v.id);
    NDArrayVec out = Invoke(op, attrs, in);
    std::vector<GradValue> res;
    for (auto& o : out) res.push_back(Leaf(o)), n.out.push_back(res.back().id);
    nodes_.push_back(std::move(n));
    return res;
  }
  // Gradients of sum_k <seed_k, value_k> with respect to every value on the tape.
  std::map<int, NDArray> Backward(std::map<int, NDArray> g) const {
    for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) {
      bool any = false;
      for (int o : it->out) any |= g.count(o) > 0;
      if (!any) continue;
      std::vector<NDArray> in, out, og;
      for (int i : it->in) in.push_back(vals_[i]);
      for (int o : it->out)
        out.push_back(vals_[o]), og.push_back(g.count(o) ? g[o] : nd::zeros_like(vals_[o]));
      std::vector<NDArray> gi = EagerGradBuilder::Run(*it->op, it->attrs, in, out, og);
      for (size_t k = 0; k < gi.size(); ++k) {
        if (gi[k].is_none()) continue;
        int id = it->in[k];
        g[id] = g.count(id) ? nd::elemwise_add(g[id], gi[k]) : gi[k];
      }
    }
    return g;
  }

 private:
  struct Node {
    const Op* op;
    OpAttrs attrs;
    std::vector<int> in, out;
  };
  std::vector<NDArray> vals_;
  std::vector<Node> nodes_;
};

// Second-order check of `op` at float64 inputs `x`: derivatives of <v, grad_x L(x, og)> with
// respect to every float input and og. Integer inputs are held fixed.
::testing::AssertionResult CheckSecondOrder(const std::string& opname, const AttrDict& attrs,
                                            std::vector<NDArray> x) {
  const Op& op = OpRegistry::Get(opname);
  OpAttrs a = OpAttrs::Parse(op, attrs);
  NDArray y0 = Invoke(op, a, x)[0];
  NDArray og = RandomArray(y0.shape(), -1, 1, 77);
  std::vector<NDArray> v;
  for (size_t i = 0; i < x.size(); ++i) v.push_back(RandomArray(x[i].shape(), -1, 1, 91 + i));
  auto is_float = [&](size_t i) { return IsFloatingPoint(x[i].dtype()); };
  auto l2 = [&](const std::vector<NDArray>& xs, const NDArray& g) {
    NDArrayVec y = Invoke(op, a, xs);
    std::vector<NDArray> outs(y.begin(), y.end()), ogs{g};
    for (size_t k = 1; k < outs.size(); ++k) ogs.push_back(nd::zeros_like(outs[k]));
    std::vector<NDArray> gr = EagerGradBuilder::Run(op, a, xs, outs, ogs);
    double s = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      if (!is_float(i)) continue;
      std::vector<double> gv = Vals(gr[i]), vv = Vals(v[i]);
      for (size_t j = 0; j < gv.size(); ++j) s += gv[j] * vv[j];
    }
    return s;
  };
  // Analytic: forward and first-order gradient recorded on the tape, then its backward.
  TapeBuilder t;
  std::vector<GradValue> xin;
  for (auto& xi : x) xin.push_back(t.Leaf(xi));
  std::vector<GradValue> yv = t.Apply(op, a, xin);
  GradValue ogl = t.Leaf(og);
  std::vector<GradValue> ogs{ogl};
  for (size_t k = 1; k < yv.size(); ++k)
    ogs.push_back(t.Apply(OpRegistry::Get("zeros_like"),
                          OpAttrs::Parse(OpRegistry::Get("zeros_like"), {}),
                          std::vector<GradValue>{yv[k]})[0]);
  std::vector<GradValue> g1 = op.gradient(t, a, xin, yv, ogs);
  std::map<int, NDArray> seeds;
  for (size_t i = 0; i < x.size(); ++i)
    if (is_float(i)) seeds[g1[i].id] = v[i];
  std::map<int, NDArray> g2 = t.Backward(seeds);
  // Finite differences over every float input and og.
  std::vector<NDArray> all = x;
  all.push_back(og);
  for (size_t i = 0; i < all.size(); ++i) {
    if (i < x.size() && !is_float(i)) continue;
    int id = i < x.size() ? xin[i].id : ogl.id;
    std::vector<double> base = Vals(all[i]), fd(base.size());
    for (size_t j = 0; j < base.size(); ++j) {
      const double eps = 1e-5;
      std::vector<double> p = base, m = base;
      p[j] += eps, m[j] -= eps;
      std::vector<NDArray> xp = x, xm = x;
      NDArray gp = og, gm = og;
      NDArray P = NDArray::FromVector(p, all[i].shape(), cpu(), DType::kFloat64);
      NDArray Mi = NDArray::FromVector(m, all[i].shape(), cpu(), DType::kFloat64);
      if (i < x.size())
        xp[i] = P, xm[i] = Mi;
      else
        gp = P, gm = Mi;
      fd[j] = (l2(xp, gp) - l2(xm, gm)) / (2 * eps);
    }
    NDArray want = NDArray::FromVector(fd, all[i].shape(), cpu(), DType::kFloat64);
    NDArray got = g2.count(id) ? g2[id] : NDArray::Full(all[i].shape(), 0, cpu(), DType::kFloat64);
    auto r = AllClose(got, want, 1e-4, 1e-6);
    if (!r)
      return ::testing::AssertionFailure()
             << opname << " second order, input " << i << ": " << r.message();
  }
  return ::testing::AssertionSuccess();
}

NDArray R64(Shape s, uint64_t seed, double lo = -1, double hi = 1) {
  return RandomArray(s, lo, hi, seed);
}

TEST(HigherOrder, Sum) {
  EXPECT_TRUE(CheckSecondOrder("sum", {{"axis", "(1,)"}}, {R64({2, 3, 2}, 1)}));
  EXPECT_TRUE(CheckSecondOrder("sum", {{"axis", "0"}, {"exclude", "True"}, {"keepdims", "True"}},
                               {R64({2, 3}, 2)}));
}
TEST(HigherOrder, Mean) {
  EXPECT_TRUE(CheckSecondOrder("mean", {{"axis", "(0, 2)"}}, {R64({2, 3, 2}, 3)}));
}
TEST(HigherOrder, Dot) {
  EXPECT_TRUE(CheckSecondOrder("dot", {}, {R64({3, 4}, 4), R64({4, 2}, 5)}));
  EXPECT_TRUE(CheckSecondOrder("dot", {{"transpose_a", "True"}, {"transpose_b", "True"}},
                               {R64({2, 3, 2}, 6), R64({2, 2, 2}, 7)}));
  EXPECT_TRUE(CheckSecondOrder("dot", {}, {R64({4}, 8), R64({4}, 9)}));
}
TEST(HigherOrder, BatchDot) {
  EXPECT_TRUE(CheckSecondOrder("batch_dot", {{"transpose_b", "True"}},
                               {R64({2, 3, 4}, 10), R64({2, 2, 4}, 11)}));
}
TEST(HigherOrder, ProdNormMaxTopkTake) {
  EXPECT_TRUE(CheckSecondOrder("prod", {{"axis", "1"}}, {R64({2, 3}, 12, 0.5, 1.5)}));
  EXPECT_TRUE(CheckSecondOrder("norm", {{"axis", "1"}}, {R64({2, 3}, 13)}));
  EXPECT_TRUE(CheckSecondOrder("max", {{"axis", "1"}}, {R64({2, 3}, 14)}));
  EXPECT_TRUE(CheckSecondOrder("topk", {{"k", "2"}, {"ret_typ", "value"}}, {R64({2, 4}, 15)}));
  EXPECT_TRUE(CheckSecondOrder("take", {{"axis", "1"}},
                               {R64({2, 3}, 16), NDArray::FromVector(std::vector<int>{2, 0, 2}, {3},
                                                                     cpu(), DType::kInt32)}));
}

// ---------------------------------------------------------------------------------------------
// Conformance with real MXNet 1.9.1 (testdata/reduce/*.json, tools/conformance/gen_reduce_refs.py).
json LoadJson(const std::string& name) {
  return LoadRefJson("ndarray/ops/testdata/reduce/" + name);
}

// Tolerance by dtype: MXNet's float32 kernels accumulate in float32, ours in double.
::testing::AssertionResult Matches(const NDArray& got, const NDArray& want) {
  switch (want.dtype()) {
    case DType::kFloat16:
      return SameDTypeAllClose(got, want, 2e-3, 2e-3);
    case DType::kBFloat16:
      return SameDTypeAllClose(got, want, 1e-2, 1e-2);
    case DType::kFloat32:
      return SameDTypeAllClose(got, want, 2e-5, 2e-6);
    case DType::kFloat64:
      return SameDTypeAllClose(got, want, 1e-12, 1e-13);
    default:
      return SameDTypeAllClose(got, want, 0, 0);
  }
}

class MXNetRefs : public ::testing::TestWithParam<std::string> {};

TEST_P(MXNetRefs, ValuesAndGradientsMatch) {
  json doc = LoadJson(GetParam());
  ASSERT_EQ(doc["mxnet_version"], "1.9.1");
  int n = 0, with_grads = 0;
  for (const auto& c : doc["cases"]) CheckRefCase(c, Matches, &n, &with_grads);
  EXPECT_GT(n, 10);
  RecordProperty("cases", n);
  RecordProperty("cases_with_gradients", with_grads);
}

INSTANTIATE_TEST_SUITE_P(Reduce, MXNetRefs,
                         ::testing::Values("reduce.json", "dot.json", "ordering.json",
                                           "indexing.json"),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           return i.param.substr(0, i.param.find('.'));
                         });

// Names, aliases, input names and attribute names/defaults/choices agree with MXNet's registry.
TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson("registry.json");
  const std::map<std::string, AttrDict> required = {
      {"one_hot", {{"depth", "3"}}},
      {"Embedding", {{"input_dim", "3"}, {"output_dim", "2"}}},
      {"scatter_nd", {{"shape", "(2, 2)"}}}};
  ASSERT_EQ(doc["ops"].size(), 23u);
  for (auto& [name, info] : doc["ops"].items())
    CheckRegistryEntry(name, info, required.count(name) ? required.at(name) : AttrDict{});
}

// ---------------------------------------------------------------------------------------------
// Shape/type inference with unknown dims (symbolic graphs, deferred initialization).
TEST(Inference, UnknownDimsPropagate) {
  auto infer = [](const std::string& name, ShapeVec in, AttrDict attrs, DTypeVec types = {}) {
    const Op& op = OpRegistry::Get(name);
    OpAttrs a = OpAttrs::Parse(op, attrs);
    if (types.empty()) types.assign(in.size(), static_cast<int>(DType::kFloat32));
    ShapeVec out;
    DTypeVec out_t;
    InferOutputs(op, a, &in, &types, &out, &out_t);
    return std::make_pair(in, out);
  };
  EXPECT_EQ(infer("sum", {Shape{-1, 3, 4}}, {{"axis", "1"}}).second[0], (Shape{-1, 4}));
  EXPECT_EQ(infer("max", {Shape{-1, 3}}, {{"keepdims", "True"}}).second[0], (Shape{1, 1}));
  EXPECT_FALSE(infer("mean", {Shape::Unknown()}, {}).second[0].ndim_known());
  EXPECT_EQ(infer("dot", {Shape{-1, 4}, Shape{4, 5}}, {}).second[0], (Shape{-1, 5}));
  EXPECT_EQ(infer("batch_dot", {Shape{-1, 3, 4}, Shape{-1, 4, 5}}, {}).second[0],
            (Shape{-1, 3, 5}));
  EXPECT_EQ(infer("topk", {Shape{3, -1}}, {{"k", "2"}, {"ret_typ", "both"}}).second[1],
            (Shape{3, 2}));
  EXPECT_EQ(infer("take", {Shape{-1, 3}, Shape{2}}, {}).second[0], (Shape{2, 3}));
  EXPECT_EQ(infer("argmax", {Shape{-1, 7}}, {{"axis", "1"}}).second[0], (Shape{-1}));
  // Embedding fills in the weight's shape from its attributes (Gluon's deferred init).
  auto [in, out] = infer("Embedding", {Shape{4, 6}, Shape::Unknown()},
                         {{"input_dim", "10"}, {"output_dim", "3"}});
  EXPECT_EQ(in[1], (Shape{10, 3}));
  EXPECT_EQ(out[0], (Shape{4, 6, 3}));
  // Type rules.
  const Op& tk = OpRegistry::Get("topk");
  ShapeVec s{Shape{3, 4}}, os;
  DTypeVec t{static_cast<int>(DType::kFloat64)}, ot;
  InferOutputs(tk, OpAttrs::Parse(tk, {{"ret_typ", "both"}, {"dtype", "int32"}}), &s, &t, &os, &ot);
  EXPECT_EQ(ot[0], static_cast<int>(DType::kFloat64));
  EXPECT_EQ(ot[1], static_cast<int>(DType::kInt32));
}

}  // namespace
}  // namespace mxnet::testing
