// Tests of the linear-algebra ops (reduce_linalg.cc): reference values and gradients from real
// MXNet 1.9.1 (testdata/reduce/linalg.json, tools/conformance/gen_reduce_refs.py), MXNet's
// registry entries, MXNet's documentation examples, factorization identities on random float64
// matrices, gradients of potrf/syevd against symmetric finite differences, errors.
#include <cmath>
#include <functional>
#include <random>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/linalg/linalg_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

NDArray Arr(std::vector<double> v, Shape s, DType t = DType::kFloat64) {
  return NDArray::FromVector(v, s, cpu(), t);
}

void ExpectError(const std::function<void()>& fn, std::vector<std::string> pieces) {
  try {
    fn();
    ADD_FAILURE() << "no error thrown; expected one mentioning " << StrJoin(pieces, ", ");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument) << e.what();
    for (const auto& p : pieces)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

// Invoke with a brace list of inputs.
NDArrayVec RunOp(const Op& op, const OpAttrs& a, std::vector<NDArray> in) {
  return Invoke(op, a, in);
}
NDArrayVec RunOp(std::string_view op, std::vector<NDArray> in, const AttrDict& attrs) {
  return Invoke(op, in, attrs);
}

bool IsLinalg(const std::string& op) { return op.find("linalg") != std::string::npos; }

// ---------------------------------------------------------------------------------------------
// The registered cases of these ops, as //ndarray:all_ops_test checks them.
std::vector<int> LinalgCases() {
  std::vector<int> idx;
  for (size_t i = 0; i < OpTestCases().size(); ++i)
    if (IsLinalg(OpTestCases()[i].op)) idx.push_back(static_cast<int>(i));
  return idx;
}

class LinalgCase : public ::testing::TestWithParam<int> {};

TEST_P(LinalgCase, GradientMatchesFiniteDifferences) {
  const OpTestCase& c = OpTestCases()[GetParam()];
  const Op& op = OpRegistry::Get(c.op);
  if (!op.differentiable() || !c.check_grad) GTEST_SKIP();
  EXPECT_TRUE(CheckGradient(c));
}

TEST_P(LinalgCase, RunsInBothDtypesAndRoundTripsAttributes) {
  const OpTestCase& c = OpTestCases()[GetParam()];
  const Op& op = OpRegistry::Get(c.op);
  OpAttrs a = OpAttrs::Parse(op, c.attrs);
  EXPECT_TRUE(a == OpAttrs::Parse(op, a.ToDict())) << a.Key();
  std::vector<NDArray> in32 = MakeInputs(c, DType::kFloat32, 3),
                       in64 = MakeInputs(c, DType::kFloat64, 3);
  NDArrayVec o32 = Invoke(op, a, in32), o64 = Invoke(op, a, in64);
  for (int i = 0; i < op.NumVisibleOutputs(a); ++i) {
    EXPECT_EQ(o32[i].dtype(), DType::kFloat32);
    EXPECT_TRUE(AllClose(o32[i], o64[i].astype(DType::kFloat32), 1e-4, 1e-5)) << c.op << c.label;
  }
}

std::string CaseName(const ::testing::TestParamInfo<int>& info) {
  std::string n = StrCat(OpTestCases()[info.param].op, "_", info.param);
  for (char& ch : n)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}
INSTANTIATE_TEST_SUITE_P(Linalg, LinalgCase, ::testing::ValuesIn(LinalgCases()), CaseName);

TEST(LinalgFamily, EveryOpHasACase) {
  std::set<std::string> with_case;
  for (const auto& c : OpTestCases()) with_case.insert(OpRegistry::Get(c.op).name);
  for (const Op* op : OpRegistry::List())
    if (IsLinalg(op->name)) {
      EXPECT_TRUE(with_case.count(op->name)) << op->name;
    }
}

// ---------------------------------------------------------------------------------------------
// Conformance with MXNet 1.9.1.
json LoadJson() { return LoadRefJson("ndarray/ops/testdata/reduce/linalg.json"); }

// The reduce family's tolerances (report.py's tol_reduce): MXNet's float32 LAPACK/BLAS work in
// float32, ours in double.
::testing::AssertionResult Matches(const NDArray& got, const NDArray& want) {
  if (want.dtype() == DType::kFloat64) return SameDTypeAllClose(got, want, 1e-12, 1e-13);
  return SameDTypeAllClose(got, want, 2e-5, 2e-6);
}

TEST(MXNetRefs, ValuesAndGradientsMatch) {
  json doc = LoadJson();
  ASSERT_EQ(doc["mxnet_version"], "1.9.1");
  int n = 0, with_grads = 0;
  std::set<std::string> ops;
  for (const auto& c : doc["cases"]) CheckRefCase(c, Matches, &n, &with_grads, &ops);
  EXPECT_EQ(ops.size(), 17u);
  EXPECT_GT(with_grads, 60);
  RecordProperty("cases", n);
  RecordProperty("cases_with_gradients", with_grads);
}

// Every call MXNet rejects (the file's "errors") is rejected here too, naming the op.
TEST(MXNetRefs, RejectsWhatMXNetRejects) {
  json doc = LoadJson();
  int n = 0;
  for (const auto& c : doc["errors"]) {
    std::string name = c["name"], opname = c["op"];
    SCOPED_TRACE(name + " (MXNet: " + c["message"].get<std::string>() + ")");
    AttrDict attrs = RefAttrs(c);
    std::vector<NDArray> in = RefInputs(c);
    ExpectError([&] { RunOp(opname, in, attrs); }, {opname});
    ++n;
  }
  EXPECT_GT(n, 20);
}

// Names (aliases such as linalg_gemm, _npi_inv), input names and attribute defaults.
TEST(MXNetRefs, RegistryNamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["ops"].size(), 17u);
  for (auto& [name, info] : doc["ops"].items()) {
    SCOPED_TRACE(name);
    const Op* op = OpRegistry::Find(name);
    ASSERT_NE(op, nullptr);
    EXPECT_EQ(op->name, name);
    for (const auto& n : info["names"]) EXPECT_EQ(OpRegistry::Find(n.get<std::string>()), op) << n;
    OpAttrs defaults = OpAttrs::Parse(*op, {});
    EXPECT_EQ(op->InputNames(defaults), info["inputs"].get<std::vector<std::string>>());
    std::set<std::string> ours, theirs;
    if (op->schema)
      for (const auto& f : op->schema->fields) ours.insert(f.name);
    for (const auto& at : info["attrs"]) {
      std::string an = at[0], type = at[1];
      theirs.insert(an);
      size_t d = type.find("default=");
      ASSERT_NE(d, std::string::npos) << type;
      std::string def = type.substr(d + 8);
      if (def.size() >= 2 && def.front() == '\'') def = def.substr(1, def.size() - 2);
      EXPECT_TRUE(OpAttrs::Parse(*op, {{an, def}}) == defaults) << an << " default " << def;
    }
    EXPECT_EQ(ours, theirs);
  }
}

// ---------------------------------------------------------------------------------------------
// MXNet's documentation examples (la_op.cc).
TEST(Linalg, DocumentationExamples) {
  NDArray g = nd::linalg_gemm(Arr({1, 1, 1, 1}, {2, 2}), Arr({1, 1, 1, 1, 1, 1}, {3, 2}),
                              Arr({1, 1, 1, 1, 1, 1}, {2, 3}),
                              {.transpose_b = true, .alpha = 2.0, .beta = 10.0});
  EXPECT_TRUE(AllClose(g, Arr({14, 14, 14, 14, 14, 14}, {2, 3})));
  EXPECT_TRUE(AllClose(nd::linalg_potri(Arr({2, 0, 0.5, 2}, {2, 2})),
                       Arr({0.265625, -0.0625, -0.0625, 0.25}, {2, 2})));
  EXPECT_TRUE(AllClose(
      nd::linalg_trmm(Arr({1, 0, 1, 1}, {2, 2}), Arr({1, 1, 1, 1, 1, 1}, {2, 3}), {.alpha = 2.0}),
      Arr({2, 2, 2, 4, 4, 4}, {2, 3})));
  EXPECT_TRUE(
      AllClose(nd::linalg_sumlogdiag(Arr({1, 1, 1, 7}, {2, 2})), Arr({std::log(7.0)}, {1})));
  NDArray a = Arr({1, 2, 3, 4}, {2, 2});
  EXPECT_TRUE(AllClose(nd::linalg_extracttrian(a), Arr({1, 3, 4}, {3})));
  EXPECT_TRUE(AllClose(nd::linalg_extracttrian(a, 0, false), Arr({1, 2, 4}, {3})));
  EXPECT_TRUE(AllClose(nd::linalg_extracttrian(a, 1), Arr({2}, {1})));
  EXPECT_TRUE(AllClose(nd::linalg_extracttrian(a, -1), Arr({3}, {1})));
  NDArray t = Arr({1, 2, 3}, {3});
  EXPECT_TRUE(AllClose(nd::linalg_maketrian(t), Arr({1, 0, 2, 3}, {2, 2})));
  EXPECT_TRUE(AllClose(nd::linalg_maketrian(t, 0, false), Arr({1, 2, 0, 3}, {2, 2})));
  EXPECT_TRUE(AllClose(nd::linalg_maketrian(t, 1), Arr({0, 1, 2, 0, 0, 3, 0, 0, 0}, {3, 3})));
  EXPECT_TRUE(AllClose(nd::linalg_maketrian(t, -1), Arr({0, 0, 0, 1, 0, 0, 2, 3, 0}, {3, 3})));
  auto [q, l] = nd::linalg_gelqf(Arr({1, 2, 3, 4, 5, 6}, {2, 3}));
  EXPECT_TRUE(AllClose(
      q,
      Arr({-0.26726124, -0.53452248, -0.80178373, 0.87287156, 0.21821789, -0.43643578}, {2, 3})));
  EXPECT_TRUE(AllClose(l, Arr({-3.74165739, 0, -8.55235974, 1.96396101}, {2, 2})));
  auto [u, ev] = nd::linalg_syevd(Arr({1, 2, 2, 4}, {2, 2}));
  EXPECT_TRUE(AllClose(u, Arr({0.89442719, -0.4472136, 0.4472136, 0.89442719}, {2, 2})));
  EXPECT_TRUE(AllClose(ev, Arr({0, 5}, {2}), 1e-6, 1e-12));
  auto [sign, logabs] = nd::linalg_slogdet(Arr({2, 3, 1, 4, 1, 2, 2, 4, 1, 2, 4, 3}, {3, 2, 2}));
  EXPECT_EQ(sign.ToVector<double>(), (std::vector<double>{1, 0, -1}));
  std::vector<double> la = logabs.ToVector<double>();
  EXPECT_NEAR(la[0], std::log(5.0), 1e-12);
  EXPECT_EQ(la[1], -INFINITY);
  EXPECT_NEAR(la[2], std::log(5.0), 1e-12);
  // Ties in the eigenvector sign rule: the first largest entry is positive.
  auto [ui, li] = nd::linalg_syevd(Arr({2, 0, 0, 2}, {2, 2}));
  EXPECT_TRUE(AllClose(ui, Arr({1, 0, 0, 1}, {2, 2})));
  EXPECT_TRUE(AllClose(nd::linalg_det(Arr({0, 1, 1, 0}, {2, 2})), Arr({-1}, {1})));
}

// ---------------------------------------------------------------------------------------------
// Identities on random float64 batches.
NDArray Rand(Shape s, uint64_t seed) { return RandomArray(s, -1, 1, seed); }
NDArray Spd(int64_t batch, int64_t n, uint64_t seed) {
  NDArray x = Rand({batch, n, n}, seed);
  NDArray a = nd::linalg_syrk(x);
  std::vector<double> v = a.ToVector<double>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i) v[b * n * n + i * n + i] += 0.5;
  return Arr(v, {batch, n, n});
}
NDArray Eye(int64_t batch, int64_t n) {
  std::vector<double> v(batch * n * n, 0.0);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i) v[b * n * n + i * n + i] = 1;
  return Arr(v, {batch, n, n});
}
nd::LinalgGemm2Options Flags(bool ta, bool tb) { return {.transpose_a = ta, .transpose_b = tb}; }

TEST(Linalg, FactorizationIdentities) {
  for (int64_t n : {1, 2, 5, 8}) {
    SCOPED_TRACE(n);
    NDArray a = Spd(3, n, 10 + n);
    NDArray l = nd::linalg_potrf(a);
    EXPECT_TRUE(AllClose(nd::linalg_gemm2(l, l, Flags(false, true)), a, 1e-10, 1e-10));
    if (n > 1) {
      NDArray upper = nd::linalg_extracttrian(l, 1);
      EXPECT_TRUE(AllClose(upper, nd::zeros_like(upper), 0, 0)) << "potrf's upper triangle is zero";
    }
    NDArray ainv = nd::linalg_potri(l);
    EXPECT_TRUE(AllClose(nd::linalg_gemm2(a, ainv), Eye(3, n), 1e-9, 1e-9));
    EXPECT_TRUE(AllClose(nd::linalg_inverse(a), ainv, 1e-9, 1e-9));
    // log det via Cholesky = slogdet.
    NDArray ld = nd::mul_scalar(nd::linalg_sumlogdiag(l), 2.0);
    EXPECT_TRUE(AllClose(nd::linalg_slogdet(a).second, ld, 1e-9, 1e-9));
    // trsm inverts trmm for every flag combination.
    for (int f = 0; f < 8; ++f) {
      nd::LinalgTriangOptions o{.transpose = (f & 1) != 0,
                                .rightside = (f & 2) != 0,
                                .lower = (f & 4) != 0,
                                .alpha = 1.5};
      NDArray tri = nd::elemwise_add(Rand({3, n, n}, 40 + f), nd::mul_scalar(Eye(3, n), 3));
      NDArray b = Rand(o.rightside ? Shape{3, 4, n} : Shape{3, n, 4}, 50 + f);
      NDArray c = nd::linalg_trmm(tri, b, o);
      nd::LinalgTriangOptions inv = o;
      inv.alpha = 1 / 1.5;
      EXPECT_TRUE(AllClose(nd::linalg_trsm(tri, c, inv), b, 1e-9, 1e-9)) << f;
    }
    // LU: A * inv(A) = I, det = product of eigenvalues for symmetric A.
    NDArray g = nd::elemwise_add(Rand({3, n, n}, 60 + n), nd::mul_scalar(Eye(3, n), 0.3));
    EXPECT_TRUE(AllClose(nd::linalg_gemm2(g, nd::linalg_inverse(g)), Eye(3, n), 1e-8, 1e-8));
    auto [u, ev] = nd::linalg_syevd(a);
    // U * A = diag(L) * U and U * U^T = I.
    EXPECT_TRUE(
        AllClose(nd::linalg_gemm2(u, a), nd::linalg_gemm2(nd::linalg_makediag(ev), u), 1e-9, 1e-9));
    EXPECT_TRUE(AllClose(nd::linalg_gemm2(u, u, Flags(false, true)), Eye(3, n), 1e-10, 1e-10));
    std::vector<double> e = ev.ToVector<double>(), d = nd::linalg_det(a).ToVector<double>();
    for (int64_t b = 0; b < 3; ++b) {
      double p = 1;
      for (int64_t i = 0; i < n; ++i) {
        p *= e[b * n + i];
        if (i) {
          EXPECT_LE(e[b * n + i - 1], e[b * n + i]);
        }
      }
      EXPECT_NEAR(p, d[b], 1e-9 * std::abs(d[b]));
    }
    // LQ: A = L * Q with Q * Q^T = I, L lower.
    NDArray w = Rand({2, n, n + 2}, 70 + n);
    auto [q, lq] = nd::linalg_gelqf(w);
    EXPECT_TRUE(AllClose(nd::linalg_gemm2(lq, q), w, 1e-10, 1e-10));
    EXPECT_TRUE(AllClose(nd::linalg_gemm2(q, q, Flags(false, true)), Eye(2, n), 1e-10, 1e-10));
  }
}

// ---------------------------------------------------------------------------------------------
// potrf and syevd read only the lower triangle while their gradients (MXNet's) are symmetric:
// check them along symmetric perturbations E_ij + E_ji, for which <dA, E> = 2 dA_ij (i != j).
void CheckSymmetricGradient(const std::string& opname, const NDArray& a, uint64_t seed) {
  const Op& op = OpRegistry::Get(opname);
  OpAttrs attrs = OpAttrs::Parse(op, {});
  NDArrayVec out = RunOp(op, attrs, {a});
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<NDArray> og, outs(out.begin(), out.end());
  std::vector<std::vector<double>> w;
  for (const auto& o : outs) {
    w.emplace_back(o.size());
    for (auto& x : w.back()) x = dist(gen);
    og.push_back(Arr(w.back(), o.shape()));
  }
  auto loss = [&](const std::vector<double>& x) {
    NDArrayVec y = RunOp(op, attrs, {Arr(x, a.shape())});
    double s = 0;
    for (size_t k = 0; k < w.size(); ++k) {
      std::vector<double> v = y[k].ToVector<double>();
      for (size_t i = 0; i < v.size(); ++i) s += v[i] * w[k][i];
    }
    return s;
  };
  std::vector<double> g =
      EagerGradBuilder::Run(op, attrs, std::vector<NDArray>{a}, outs, og)[0].ToVector<double>();
  std::vector<double> x = a.ToVector<double>();
  int64_t n = a.shape()[a.ndim() - 1], nb = a.size() / (n * n);
  const double eps = 1e-6;
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        int64_t ij = b * n * n + i * n + j, ji = b * n * n + j * n + i;
        EXPECT_NEAR(g[ij], g[ji], 1e-10) << opname << " gradient is symmetric";
        std::vector<double> p = x, m = x;
        p[ij] += eps, m[ij] -= eps;
        if (i != j) p[ji] += eps, m[ji] -= eps;
        double fd = (loss(p) - loss(m)) / (2 * eps);
        double want = i == j ? g[ij] : 2 * g[ij];
        EXPECT_NEAR(fd, want, 1e-6 + 1e-5 * std::abs(want))
            << opname << " (" << i << ", " << j << ")";
      }
}

TEST(Linalg, PotrfAndSyevdGradientsAlongSymmetricPerturbations) {
  CheckSymmetricGradient("_linalg_potrf", Spd(2, 4, 90), 1);
  NDArray s =
      nd::elemwise_add(Spd(2, 4, 91), nd::linalg_makediag(Arr({0, 2, 4, 6, 0, 2, 4, 6}, {2, 4})));
  CheckSymmetricGradient("_linalg_syevd", s, 2);
}

// inverse's composed gradient against the closed form -inv^T * og * inv^T.
TEST(Linalg, InverseGradientIsAnalytic) {
  const Op& inv = OpRegistry::Get("_linalg_inverse");
  OpAttrs a = OpAttrs::Parse(inv, {});
  NDArray x = nd::elemwise_add(Rand({3, 3}, 5), Arr({3, 0, 0, 0, 3, 0, 0, 0, 3}, {3, 3}));
  NDArrayVec y = RunOp(inv, a, {x});
  std::vector<NDArray> outs(y.begin(), y.end()), og{Rand({3, 3}, 6)};
  std::vector<NDArray> g = EagerGradBuilder::Run(inv, a, std::vector<NDArray>{x}, outs, og);
  // Analytic: dA = -inv^T og inv^T.
  NDArray it = y[0];
  NDArray want = nd::mul_scalar(
      nd::linalg_gemm2(nd::linalg_gemm2(it, og[0], Flags(true, false)), it, Flags(false, true)),
      -1);
  EXPECT_TRUE(AllClose(g[0], want, 1e-10, 1e-12));
}

// ---------------------------------------------------------------------------------------------
TEST(Linalg, ErrorsNameOpAndShapes) {
  NDArray sq = Arr({4, 2, 2, 3}, {2, 2});
  ExpectError(
      [&] {
        nd::linalg_potrf(Arr({1, 2, 3, 4, 5, 6}, {2, 3}));
      },
      {"_linalg_potrf", "square", "(2, 3)"});
  ExpectError(
      [&] {
        nd::linalg_potrf(Arr({1, 2, 2, 1}, {2, 2}));
      },
      {"_linalg_potrf", "not symmetric positive definite", "matrix 0"});
  ExpectError(
      [&] {
        nd::linalg_potrf(Arr({4, 0, 0, 4, 1, 0, 0, -1}, {2, 2, 2}));
      },
      {"_linalg_potrf", "matrix 1", "positive definite"});
  ExpectError(
      [&] {
        nd::linalg_inverse(Arr({1, 2, 2, 4}, {2, 2}));
      },
      {"_linalg_inverse", "singular"});
  ExpectError(
      [&] {
        nd::linalg_det(Arr({1, 2, 3}, {3}));
      },
      {"_linalg_det", "at least 2 dimensions", "(3,)"});
  ExpectError([&] { nd::linalg_det(Arr({1, 2, 3, 4, 5, 6}, {2, 3})); }, {"_linalg_det", "square"});
  ExpectError(
      [&] {
        nd::linalg_gemm2(Arr({1, 2, 3, 4, 5, 6}, {2, 3}), Arr({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2}));
      },
      {"_linalg_gemm2", "incompatible", "(2, 3)", "(4, 2)"});
  ExpectError(
      [&] {
        nd::linalg_gemm2(Rand({2, 2, 3}, 1), Rand({3, 3, 2}, 2));
      },
      {"_linalg_gemm2", "(2, 2, 3)", "(3, 3, 2)", "agree"});
  ExpectError(
      [&] {
        nd::linalg_gemm2(Rand({2, 2, 3}, 1), Rand({2, 3, 2}, 2), {.axis = -1});
      },
      {"_linalg_gemm2", "axis -1"});
  ExpectError(
      [&] {
        nd::linalg_gemm(Rand({2, 3}, 1), Rand({3, 2}, 2), Rand({3, 3}, 3));
      },
      {"_linalg_gemm", "C"});
  ExpectError(
      [&] {
        nd::linalg_trsm(Rand({2, 2, 2}, 1), Rand({3, 2, 4}, 2));
      },
      {"_linalg_trsm", "batch dimensions", "(2, 2, 2)", "(3, 2, 4)"});
  ExpectError(
      [&] {
        nd::linalg_trmm(Rand({2, 2}, 1), Rand({3, 3}, 2));
      },
      {"_linalg_trmm", "incompatible"});
  ExpectError(
      [&] {
        nd::linalg_trsm(Rand({2, 2}, 1), Rand({2, 3}, 2), {.rightside = true});
      },
      {"_linalg_trsm", "rightside=True"});
  ExpectError([&] { nd::linalg_gelqf(Rand({3, 2}, 1)); }, {"_linalg_gelqf", "m <= n", "(3, 2)"});
  ExpectError([&] { nd::linalg_syevd(Rand({3, 2}, 1)); }, {"_linalg_syevd", "square"});
  ExpectError(
      [&] {
        nd::linalg_extractdiag(Rand({3, 3}, 1), 3);
      },
      {"_linalg_extractdiag", "offset 3", "|offset| < 3"});
  ExpectError(
      [&] {
        nd::linalg_extracttrian(Rand({3, 3}, 1), -3);
      },
      {"_linalg_extracttrian", "offset -3"});
  ExpectError([&] { nd::linalg_maketrian(Rand({4}, 1)); },
              {"_linalg_maketrian", "triangular number"});
  ExpectError([&] { nd::linalg_sumlogdiag(Rand({2, 3}, 1)); }, {"_linalg_sumlogdiag", "square"});
  // The gradient op called directly: non-square A (its kernel wrote out of bounds) and an ograd
  // that is not A's batch shape.
  ExpectError(
      [&] {
        RunOp("_backward_linalg_sumlogdiag", {Rand({2, 3}, 1), Rand({2, 3}, 2)}, {});
      },
      {"_backward_linalg_sumlogdiag", "square", "(2, 3)"});
  ExpectError(
      [&] {
        RunOp("_backward_linalg_sumlogdiag", {Rand({3}, 1), Rand({2, 3, 3}, 2)}, {});
      },
      {"_backward_linalg_sumlogdiag", "ograd"});
  ExpectError([&] { nd::linalg_syrk(Rand({3}, 1)); }, {"_linalg_syrk", "at least 2 dimensions"});
  ExpectError([&] { nd::linalg_inverse(sq.astype(DType::kInt32)); },
              {"_linalg_inverse", "int32", "float32 and float64"});
  ExpectError([&] { nd::linalg_inverse(sq.astype(DType::kFloat16)); }, {"float16"});
  ExpectError([&] { nd::linalg_gemm2(sq, sq.astype(DType::kFloat32)); }, {"_linalg_gemm2"});
  ExpectError(
      [&] {
        RunOp("_linalg_gemm", {sq, sq, sq}, {{"alpha", "x"}});
      },
      {"_linalg_gemm", "alpha"});
  ExpectError(
      [&] {
        RunOp("_linalg_trmm", {sq, sq}, {{"side", "left"}});
      },
      {"_linalg_trmm", "side"});
}

// Shape inference with unknown dims (symbolic graphs).
TEST(Linalg, InferenceWithUnknownDims) {
  auto infer = [](const std::string& name, ShapeVec in, AttrDict attrs = {}) {
    const Op& op = OpRegistry::Get(name);
    OpAttrs a = OpAttrs::Parse(op, attrs);
    DTypeVec types(in.size(), static_cast<int>(DType::kFloat32)), ot;
    ShapeVec out;
    InferOutputs(op, a, &in, &types, &out, &ot);
    return out;
  };
  EXPECT_EQ(infer("_linalg_gemm2", {Shape{-1, 3, 4}, Shape{-1, 4, 5}})[0], (Shape{-1, 3, 5}));
  EXPECT_EQ(infer("linalg_gemm", {Shape{3, 4}, Shape{4, 5}, Shape::Unknown()})[0], (Shape{3, 5}));
  EXPECT_EQ(infer("_linalg_gemm2", {Shape{2, 3, 6, 4}, Shape{2, 4, 6, 5}}, {{"axis", "1"}})[0],
            (Shape{2, 3, 6, 5}));
  EXPECT_EQ(infer("_npi_det", {Shape{-1, 3, 3}})[0], (Shape{-1}));
  EXPECT_EQ(infer("_linalg_det", {Shape{3, 3}})[0], (Shape{1}));
  auto s = infer("_linalg_slogdet", {Shape{2, 4, 3, 3}});
  EXPECT_EQ(s[0], (Shape{2, 4}));
  EXPECT_EQ(s[1], (Shape{2, 4}));
  auto q = infer("_linalg_gelqf", {Shape{5, 2, 4}});
  EXPECT_EQ(q[0], (Shape{5, 2, 4}));
  EXPECT_EQ(q[1], (Shape{5, 2, 2}));
  auto e = infer("_linalg_syevd", {Shape{2, 3, 3}});
  EXPECT_EQ(e[1], (Shape{2, 3}));
  EXPECT_EQ(infer("_linalg_syrk", {Shape{2, 3, 4}}, {{"transpose", "True"}})[0], (Shape{2, 4, 4}));
  EXPECT_EQ(infer("_linalg_extracttrian", {Shape{4, 4}}, {{"offset", "-1"}})[0], (Shape{6}));
  EXPECT_EQ(infer("_linalg_maketrian", {Shape{2, 6}}, {{"offset", "1"}})[0], (Shape{2, 4, 4}));
  EXPECT_EQ(infer("_linalg_makediag", {Shape{3}}, {{"offset", "-2"}})[0], (Shape{5, 5}));
  EXPECT_EQ(infer("_linalg_extractdiag", {Shape{2, 5, 5}}, {{"offset", "2"}})[0], (Shape{2, 3}));
  EXPECT_EQ(infer("_linalg_trsm", {Shape{3, 3}, Shape{3, -1}})[0], (Shape{3, -1}));
}

}  // namespace
}  // namespace mxnet::testing
