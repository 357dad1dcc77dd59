// Test cases of the linear-algebra ops (reduce_linalg.cc), enumerated by //ndarray:all_ops_test:
// finite-difference gradients in float64 and attribute round trips. Inputs are valid for each op:
// symmetric positive definite for potrf, triangular factors with a dominant diagonal for
// potri/trsm, diagonally dominant for inverse/det, positive diagonals for sumlogdiag.
// potrf and syevd read only the lower triangle while MXNet's gradients are symmetric, so their
// gradients are checked with symmetric perturbations in reduce_linalg_test.cc instead.
#include <random>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

using Maker = std::function<std::vector<NDArray>(DType, uint64_t)>;

std::vector<double> Uniform(int64_t n, double lo, double hi, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = d(gen);
  return v;
}

// A batch of n x n matrices (shape (..., n, n)) with `add` on the diagonal.
NDArray DiagShifted(const Shape& s, double add, uint64_t seed, DType dt) {
  int64_t n = s[s.ndim() - 1];
  std::vector<double> v = Uniform(s.Size(), -1, 1, seed);
  for (int64_t b = 0; b < s.Size() / (n * n); ++b)
    for (int64_t i = 0; i < n; ++i) v[b * n * n + i * n + i] += add;
  return NDArray::FromVector(v, s, cpu(), dt);
}

// Symmetric positive definite X * X^T + n * I per matrix.
NDArray Spd(const Shape& s, uint64_t seed, DType dt) {
  int64_t n = s[s.ndim() - 1];
  std::vector<double> x = Uniform(s.Size(), -1, 1, seed), v(s.Size(), 0.0);
  for (int64_t b = 0; b < s.Size() / (n * n); ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = i == j ? static_cast<double>(n) : 0.0;
        for (int64_t k = 0; k < n; ++k) acc += x[b * n * n + i * n + k] * x[b * n * n + j * n + k];
        v[b * n * n + i * n + j] = acc;
      }
  return NDArray::FromVector(v, s, cpu(), dt);
}

// Symmetric with well separated eigenvalues: diag(1, 3, 5, ...) + 0.3 * sym(noise).
NDArray SymSeparated(const Shape& s, uint64_t seed, DType dt) {
  int64_t n = s[s.ndim() - 1];
  std::vector<double> x = Uniform(s.Size(), -1, 1, seed), v(s.Size());
  for (int64_t b = 0; b < s.Size() / (n * n); ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        v[b * n * n + i * n + j] = 0.15 * (x[b * n * n + i * n + j] + x[b * n * n + j * n + i]) +
                                   (i == j ? 1.0 + 2.0 * i : 0.0);
  return NDArray::FromVector(v, s, cpu(), dt);
}

Maker Shifted(Shape a, double add) {
  return
      [=](DType dt, uint64_t seed) { return std::vector<NDArray>{DiagShifted(a, add, seed, dt)}; };
}
// A triangular-ish (diagonal shifted by 2) and a random B.
Maker TriAndB(Shape a, Shape b) {
  return [=](DType dt, uint64_t seed) {
    return std::vector<NDArray>{DiagShifted(a, 2.5, seed, dt), RandomArray(b, -1, 1, seed + 1, dt)};
  };
}

// ---- gemm / gemm2 ----
MX_OP_TEST_CASE({.op = "_linalg_gemm", .shapes = {{3, 4}, {4, 5}, {3, 5}}});
MX_OP_TEST_CASE({.op = "_linalg_gemm",
                 .attrs = {{"transpose_a", "True"},
                           {"transpose_b", "True"},
                           {"alpha", "2.5"},
                           {"beta", "-0.5"}},
                 .shapes = {{4, 3}, {5, 4}, {3, 5}},
                 .label = "(transposes, alpha, beta)"});
MX_OP_TEST_CASE({.op = "_linalg_gemm",
                 .attrs = {{"transpose_b", "True"}},
                 .shapes = {{2, 3, 4}, {2, 5, 4}, {2, 3, 5}},
                 .label = "(batch)"});
MX_OP_TEST_CASE({.op = "_linalg_gemm",
                 .attrs = {{"axis", "1"}, {"alpha", "0.5"}},
                 .shapes = {{2, 3, 2, 4}, {2, 4, 2, 5}, {2, 3, 2, 5}},
                 .label = "(axis 1)"});
MX_OP_TEST_CASE({.op = "_linalg_gemm2", .shapes = {{3, 4}, {4, 2}}});
MX_OP_TEST_CASE({.op = "_linalg_gemm2",
                 .attrs = {{"transpose_a", "True"}, {"alpha", "-2.0"}},
                 .shapes = {{2, 4, 3}, {2, 4, 2}},
                 .label = "(batch, transpose_a, alpha)"});
MX_OP_TEST_CASE({.op = "_linalg_gemm2",
                 .attrs = {{"transpose_a", "True"}, {"transpose_b", "True"}, {"axis", "-3"}},
                 .shapes = {{4, 2, 3}, {5, 2, 4}},
                 .label = "(axis -3, transposes)"});

// ---- Cholesky family ----
MX_OP_TEST_CASE({.op = "_linalg_potrf",
                 .shapes = {{3, 3}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{Spd({3, 3}, seed, dt)};
                     },
                 .check_grad = false,
                 .label = "(SPD; symmetric gradient checked in reduce_linalg_test)"});
MX_OP_TEST_CASE({.op = "_linalg_potrf",
                 .shapes = {{2, 4, 4}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{Spd({2, 4, 4}, seed, dt)};
                     },
                 .check_grad = false,
                 .label = "(batch)"});
MX_OP_TEST_CASE({.op = "_linalg_potri", .shapes = {{3, 3}}, .make_inputs = Shifted({3, 3}, 2.5)});
MX_OP_TEST_CASE({.op = "_linalg_potri",
                 .shapes = {{2, 3, 3}},
                 .make_inputs = Shifted({2, 3, 3}, 2.5),
                 .label = "(batch)"});

// ---- trmm / trsm: every (transpose, rightside, lower) combination ----
int RegisterTriangCases() {
  for (const char* op : {"_linalg_trmm", "_linalg_trsm"})
    for (int t = 0; t < 2; ++t)
      for (int r = 0; r < 2; ++r)
        for (int l = 0; l < 2; ++l) {
          AttrDict attrs = {{"transpose", t ? "True" : "False"},
                            {"rightside", r ? "True" : "False"},
                            {"lower", l ? "True" : "False"}};
          if (t == r) attrs["alpha"] = "1.5";
          Shape b = r ? Shape{2, 3} : Shape{3, 2};
          RegisterOpTestCase({.op = op,
                              .attrs = attrs,
                              .shapes = {{3, 3}, b},
                              .make_inputs = TriAndB({3, 3}, b),
                              .label = StrCat("(t", t, " r", r, " l", l, ")")});
        }
  RegisterOpTestCase({.op = "_linalg_trsm",
                      .attrs = {{"alpha", "-0.5"}},
                      .shapes = {{2, 3, 3}, {2, 3, 4}},
                      .make_inputs = TriAndB({2, 3, 3}, {2, 3, 4}),
                      .label = "(batch)"});
  RegisterOpTestCase({.op = "_linalg_trmm",
                      .attrs = {{"rightside", "True"}},
                      .shapes = {{2, 3, 3}, {2, 4, 3}},
                      .make_inputs = TriAndB({2, 3, 3}, {2, 4, 3}),
                      .label = "(batch)"});
  return 0;
}
[[maybe_unused]] int triang_registered = RegisterTriangCases();

MX_OP_TEST_CASE({.op = "_linalg_syrk", .shapes = {{3, 4}}});
MX_OP_TEST_CASE({.op = "_linalg_syrk",
                 .attrs = {{"transpose", "True"}, {"alpha", "0.75"}},
                 .shapes = {{2, 3, 4}},
                 .label = "(batch, transpose)"});

// ---- diagonals and triangles ----
MX_OP_TEST_CASE({.op = "_linalg_sumlogdiag", .shapes = {{3, 3}}, .lo = 0.5, .hi = 1.5});
MX_OP_TEST_CASE({.op = "_linalg_sumlogdiag",
                 .shapes = {{2, 2, 3, 3}},
                 .lo = 0.5,
                 .hi = 1.5,
                 .label = "(batch)"});
MX_OP_TEST_CASE({.op = "_linalg_extractdiag", .shapes = {{3, 3}}});
MX_OP_TEST_CASE({.op = "_linalg_extractdiag", .attrs = {{"offset", "1"}}, .shapes = {{2, 4, 4}}});
MX_OP_TEST_CASE({.op = "_linalg_extractdiag", .attrs = {{"offset", "-2"}}, .shapes = {{4, 4}}});
MX_OP_TEST_CASE({.op = "_linalg_makediag", .shapes = {{3}}});
MX_OP_TEST_CASE({.op = "_linalg_makediag", .attrs = {{"offset", "2"}}, .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "_linalg_makediag", .attrs = {{"offset", "-1"}}, .shapes = {{2, 2, 2}}});
MX_OP_TEST_CASE({.op = "_linalg_extracttrian", .shapes = {{3, 3}}});
MX_OP_TEST_CASE({.op = "_linalg_extracttrian",
                 .attrs = {{"lower", "False"}},
                 .shapes = {{2, 3, 3}}});
MX_OP_TEST_CASE({.op = "_linalg_extracttrian", .attrs = {{"offset", "1"}}, .shapes = {{4, 4}}});
MX_OP_TEST_CASE({.op = "_linalg_extracttrian",
                 .attrs = {{"offset", "-2"}, {"lower", "False"}},
                 .shapes = {{4, 4}}});
MX_OP_TEST_CASE({.op = "_linalg_maketrian", .shapes = {{6}}});
MX_OP_TEST_CASE({.op = "_linalg_maketrian", .attrs = {{"lower", "False"}}, .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "_linalg_maketrian", .attrs = {{"offset", "2"}}, .shapes = {{2, 6}}});
MX_OP_TEST_CASE({.op = "_linalg_maketrian", .attrs = {{"offset", "-1"}}, .shapes = {{3}}});
MX_OP_TEST_CASE({.op = "_linalg_copyltu", .shapes = {{2, 3, 3}}});
MX_OP_TEST_CASE({.op = "_linalg_copyltu_adj", .shapes = {{3, 3}}});

// ---- LU family ----
MX_OP_TEST_CASE({.op = "_linalg_inverse", .shapes = {{3, 3}}, .make_inputs = Shifted({3, 3}, 3)});
MX_OP_TEST_CASE({.op = "_linalg_inverse",
                 .shapes = {{2, 4, 4}},
                 .make_inputs = Shifted({2, 4, 4}, 3),
                 .label = "(batch)"});
MX_OP_TEST_CASE({.op = "_linalg_det", .shapes = {{3, 3}}, .make_inputs = Shifted({3, 3}, 1)});
MX_OP_TEST_CASE({.op = "_linalg_det",
                 .shapes = {{2, 3, 3}},
                 .make_inputs = Shifted({2, 3, 3}, -2.5),
                 .label = "(batch, mixed signs)"});
MX_OP_TEST_CASE({.op = "_linalg_slogdet", .shapes = {{3, 3}}, .make_inputs = Shifted({3, 3}, 1)});
MX_OP_TEST_CASE({.op = "_linalg_slogdet",
                 .shapes = {{2, 4, 4}},
                 .make_inputs = Shifted({2, 4, 4}, -2.5),
                 .label = "(batch)"});

// ---- gelqf / syevd ----
MX_OP_TEST_CASE({.op = "_linalg_gelqf", .shapes = {{2, 4}}});
MX_OP_TEST_CASE({.op = "_linalg_gelqf",
                 .shapes = {{2, 3, 3}},
                 .make_inputs = Shifted({2, 3, 3}, 2),
                 .label = "(batch, square)"});
MX_OP_TEST_CASE({.op = "_linalg_syevd",
                 .shapes = {{3, 3}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{SymSeparated({3, 3}, seed, dt)};
                     },
                 .check_grad = false,
                 .label = "(symmetric gradient checked in reduce_linalg_test)"});
MX_OP_TEST_CASE({.op = "_linalg_syevd",
                 .shapes = {{2, 4, 4}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{SymSeparated({2, 4, 4}, seed, dt)};
                     },
                 .check_grad = false,
                 .label = "(batch)"});

// ---- dedicated backward ops (non-differentiable) ----
MX_OP_TEST_CASE(
    {.op = "_backward_linalg_sumlogdiag", .shapes = {{2}, {2, 3, 3}}, .lo = 0.5, .hi = 1.5});
MX_OP_TEST_CASE({.op = "_backward_linalg_det",
                 .shapes = {{2}, {2}, {2, 3, 3}},
                 .make_inputs = [](DType dt, uint64_t seed) {
                   return std::vector<NDArray>{RandomArray({2}, -1, 1, seed, dt),
                                               RandomArray({2}, -1, 1, seed + 1, dt),
                                               DiagShifted({2, 3, 3}, 2, seed + 2, dt)};
                 }});
MX_OP_TEST_CASE({.op = "_backward_linalg_slogdet",
                 .shapes = {{3, 3}},
                 .make_inputs = [](DType dt, uint64_t seed) {
                   return std::vector<NDArray>{RandomArray({1}, -1, 1, seed, dt),
                                               RandomArray({1}, -1, 1, seed + 1, dt),
                                               DiagShifted({3, 3}, 2, seed + 2, dt)};
                 }});
MX_OP_TEST_CASE({.op = "_backward_linalg_syevd",
                 .shapes = {{3, 3}, {3}, {3, 3}, {3}},
                 .make_inputs = [](DType dt, uint64_t seed) {
                   return std::vector<NDArray>{
                       RandomArray({3, 3}, -1, 1, seed, dt), RandomArray({3}, -1, 1, seed + 1, dt),
                       RandomArray({3, 3}, -1, 1, seed + 2, dt),
                       NDArray::FromVector(std::vector<double>{-1, 0.5, 2}, {3}, cpu(), dt)};
                 }});

}  // namespace
}  // namespace mxnet::testing
