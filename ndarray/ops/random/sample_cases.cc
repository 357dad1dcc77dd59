// Test cases of the shape family's samplers (shape_sample.cc; compared statistically in
// shape_sample_test.cc, //ndarray:all_ops_test skips random ops in the backend comparison) and
// pdf ops (shape_pdf.cc: finite-difference gradients in float64 over valid parameter ranges).
#include <cmath>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

using Inputs = std::vector<NDArray>;

// Integer-valued floats in [lo, hi].
NDArray Ints(const Shape& s, int lo, int hi, uint64_t seed, DType t) {
  std::vector<double> v = RandomArray(s, lo, hi + 1, seed).ToVector<double>();
  for (double& x : v) x = std::floor(x);
  return NDArray::FromVector(v, s, cpu(), t);
}

// rows x k probabilities, each row summing to 1.
NDArray Probs(int64_t rows, int64_t k, uint64_t seed, DType t) {
  std::vector<double> v = RandomArray({rows, k}, 0.1, 1, seed).ToVector<double>();
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t c = 0; c < k; ++c) s += v[r * k + c];
    for (int64_t c = 0; c < k; ++c) v[r * k + c] /= s;
  }
  return NDArray::FromVector(v, {rows, k}, cpu(), t);
}

// ---- _random_<distr> ----
MX_OP_TEST_CASE({.op = "_random_exponential", .attrs = {{"lam", "2"}, {"shape", "(3, 4)"}}});
MX_OP_TEST_CASE({.op = "_random_gamma",
                 .attrs = {
                     {"alpha", "2"}, {"beta", "0.5"}, {"shape", "(5,)"}, {"dtype", "float64"}}});
MX_OP_TEST_CASE({.op = "_random_poisson", .attrs = {{"lam", "3"}, {"shape", "(4,)"}}});
MX_OP_TEST_CASE({.op = "_random_negative_binomial",
                 .attrs = {{"k", "3"}, {"p", "0.4"}, {"shape", "(2, 3)"}}});
MX_OP_TEST_CASE({.op = "_random_generalized_negative_binomial",
                 .attrs = {{"mu", "2"}, {"alpha", "0.5"}, {"shape", "(6,)"}}});

// ---- _random_<distr>_like ----
MX_OP_TEST_CASE({.op = "_random_uniform_like",
                 .attrs = {{"low", "-1"}, {"high", "2"}},
                 .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "_random_normal_like",
                 .attrs = {{"loc", "1"}, {"scale", "2"}},
                 .shapes = {{4}}});
MX_OP_TEST_CASE({.op = "_random_exponential_like", .attrs = {{"lam", "3"}}, .shapes = {{2, 2}}});
MX_OP_TEST_CASE({.op = "_random_gamma_like",
                 .attrs = {{"alpha", "0.5"}, {"beta", "2"}},
                 .shapes = {{3, 2}}});
MX_OP_TEST_CASE({.op = "_random_poisson_like", .attrs = {{"lam", "4"}}, .shapes = {{5}}});
MX_OP_TEST_CASE({.op = "_random_negative_binomial_like",
                 .attrs = {{"k", "2"}, {"p", "0.3"}},
                 .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "_random_generalized_negative_binomial_like",
                 .attrs = {{"mu", "3"}, {"alpha", "0.2"}},
                 .shapes = {{3}}});

// ---- _sample_<distr> ----
MX_OP_TEST_CASE({.op = "_sample_exponential",
                 .attrs = {{"shape", "(3,)"}},
                 .make_inputs = [](DType t, uint64_t seed) {
                   return Inputs{RandomArray({2, 2}, 0.5, 2, seed, t)};
                 }});
MX_OP_TEST_CASE(
    {.op = "_sample_gamma",
     .attrs = {{"shape", "(2,)"}, {"dtype", "float64"}},
     .make_inputs = [](DType t, uint64_t seed) {
       return Inputs{RandomArray({3}, 0.5, 3, seed, t), RandomArray({3}, 0.5, 2, seed + 1, t)};
     }});
MX_OP_TEST_CASE({.op = "_sample_poisson",
                 .attrs = {{"shape", "(4,)"}},
                 .make_inputs = [](DType t, uint64_t seed) {
                   return Inputs{RandomArray({2}, 0, 20, seed, t)};
                 }});
MX_OP_TEST_CASE({.op = "_sample_negative_binomial",
                 .attrs = {{"shape", "(2, 2)"}},
                 .make_inputs = [](DType t, uint64_t seed) {
                   return Inputs{Ints({3}, 0, 5, seed, t), RandomArray({3}, 0.2, 1, seed + 1, t)};
                 }});
MX_OP_TEST_CASE(
    {.op = "_sample_generalized_negative_binomial", .make_inputs = [](DType t, uint64_t seed) {
       return Inputs{RandomArray({2, 3}, 0, 4, seed, t), RandomArray({2, 3}, 0, 1, seed + 1, t)};
     }});

// ---- _sample_multinomial (+ its gradient op), _sample_unique_zipfian ----
MX_OP_TEST_CASE({.op = "_sample_multinomial",
                 .attrs = {{"shape", "(3,)"}},
                 .make_inputs = [](DType t, uint64_t seed) {
                   return Inputs{Probs(2, 4, seed, t)};
                 }});
// The gradient check re-seeds before each evaluation, so the draws stay put and the
// finite differences see d log p[index] / dp.
MX_OP_TEST_CASE({.op = "_sample_multinomial",
                 .attrs = {{"shape", "(2,)"}, {"get_prob", "True"}, {"dtype", "float32"}},
                 .make_inputs = [](DType t, uint64_t seed) { return Inputs{Probs(3, 5, seed, t)}; },
                 .label = "(get_prob)"});
MX_OP_TEST_CASE({.op = "_backward_sample_multinomial", .make_inputs = [](DType t, uint64_t seed) {
                   return Inputs{RandomArray({2, 3}, -1, 1, seed, t), Probs(2, 4, seed + 1, t),
                                 Ints({2, 3}, 0, 3, seed + 2, DType::kInt32)};
                 }});
MX_OP_TEST_CASE({.op = "_sample_unique_zipfian",
                 .attrs = {{"range_max", "20"}, {"shape", "(2, 5)"}}});

// ---- _random_pdf_<distr> ----
MX_OP_TEST_CASE({.op = "_random_pdf_uniform", .make_inputs = [](DType t, uint64_t seed) {
                   return Inputs{RandomArray({2, 3}, 0, 1, seed, t),
                                 RandomArray({2}, -1, -0.5, seed + 1, t),
                                 RandomArray({2}, 1.5, 2, seed + 2, t)};
                 }});
MX_OP_TEST_CASE({.op = "_random_pdf_uniform",
                 .attrs = {{"is_log", "True"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return Inputs{RandomArray({3}, 0, 1, seed, t),
                                     RandomArray({3}, -1, -0.5, seed + 1, t),
                                     RandomArray({3}, 1.5, 2, seed + 2, t)};
                     },
                 .label = "(log)"});
MX_OP_TEST_CASE({.op = "_random_pdf_normal", .make_inputs = [](DType t, uint64_t seed) {
                   return Inputs{RandomArray({2, 3}, -1, 1, seed, t),
                                 RandomArray({2}, -0.5, 0.5, seed + 1, t),
                                 RandomArray({2}, 0.5, 1.5, seed + 2, t)};
                 }});
MX_OP_TEST_CASE({.op = "_random_pdf_normal",
                 .attrs = {{"is_log", "True"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return Inputs{RandomArray({2, 2, 2}, -1, 1, seed, t),
                                     RandomArray({2, 2}, -0.5, 0.5, seed + 1, t),
                                     RandomArray({2, 2}, 0.5, 1.5, seed + 2, t)};
                     },
                 .label = "(log)"});
MX_OP_TEST_CASE({.op = "_random_pdf_gamma", .make_inputs = [](DType t, uint64_t seed) {
                   return Inputs{RandomArray({2, 3}, 0.5, 2, seed, t),
                                 RandomArray({2}, 1, 3, seed + 1, t),
                                 RandomArray({2}, 0.5, 2, seed + 2, t)};
                 }});
MX_OP_TEST_CASE({.op = "_random_pdf_gamma",
                 .attrs = {{"is_log", "True"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return Inputs{RandomArray({4}, 0.5, 2, seed, t),
                                     RandomArray({4}, 0.5, 3, seed + 1, t),
                                     RandomArray({4}, 0.5, 2, seed + 2, t)};
                     },
                 .label = "(log)"});
MX_OP_TEST_CASE(
    {.op = "_random_pdf_exponential", .make_inputs = [](DType t, uint64_t seed) {
       return Inputs{RandomArray({2, 3}, 0.1, 2, seed, t), RandomArray({2}, 0.5, 2, seed + 1, t)};
     }});
MX_OP_TEST_CASE({.op = "_random_pdf_exponential",
                 .attrs = {{"is_log", "True"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return Inputs{RandomArray({3, 2}, 0.1, 2, seed, t),
                                     RandomArray({3}, 0.5, 2, seed + 1, t)};
                     },
                 .label = "(log)"});
// Discrete distributions: no gradient w.r.t. the sample (MXNet gives 0).
MX_OP_TEST_CASE(
    {.op = "_random_pdf_poisson",
     .make_inputs =
         [](DType t, uint64_t seed) {
           return Inputs{Ints({2, 3}, 0, 5, seed, t), RandomArray({2}, 0.5, 4, seed + 1, t)};
         },
     .grad_inputs = {1}});
MX_OP_TEST_CASE(
    {.op = "_random_pdf_poisson",
     .attrs = {{"is_log", "True"}},
     .make_inputs =
         [](DType t, uint64_t seed) {
           return Inputs{Ints({4}, 0, 5, seed, t), RandomArray({4}, 0.5, 4, seed + 1, t)};
         },
     .grad_inputs = {1},
     .label = "(log)"});
MX_OP_TEST_CASE({.op = "_random_pdf_negative_binomial",
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return Inputs{Ints({2, 3}, 0, 5, seed, t),
                                     RandomArray({2}, 1, 4, seed + 1, t),
                                     RandomArray({2}, 0.2, 0.8, seed + 2, t)};
                     },
                 .grad_inputs = {1, 2}});
MX_OP_TEST_CASE({.op = "_random_pdf_negative_binomial",
                 .attrs = {{"is_log", "True"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return Inputs{Ints({3}, 0, 5, seed, t), RandomArray({3}, 1, 4, seed + 1, t),
                                     RandomArray({3}, 0.2, 0.8, seed + 2, t)};
                     },
                 .grad_inputs = {1, 2},
                 .label = "(log)"});
MX_OP_TEST_CASE({.op = "_random_pdf_generalized_negative_binomial",
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return Inputs{Ints({2, 3}, 0, 5, seed, t),
                                     RandomArray({2}, 0.5, 3, seed + 1, t),
                                     RandomArray({2}, 0.2, 1, seed + 2, t)};
                     },
                 .grad_inputs = {1, 2}});
MX_OP_TEST_CASE({.op = "_random_pdf_generalized_negative_binomial",
                 .attrs = {{"is_log", "True"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return Inputs{Ints({3}, 0, 5, seed, t),
                                     RandomArray({3}, 0.5, 3, seed + 1, t),
                                     RandomArray({3}, 0.2, 1, seed + 2, t)};
                     },
                 .grad_inputs = {1, 2},
                 .label = "(log)"});
MX_OP_TEST_CASE({.op = "_random_pdf_dirichlet", .make_inputs = [](DType t, uint64_t seed) {
                   return Inputs{RandomArray({2, 3, 4}, 0.1, 1, seed, t),
                                 RandomArray({2, 4}, 0.5, 3, seed + 1, t)};
                 }});
MX_OP_TEST_CASE(
    {.op = "_random_pdf_dirichlet",
     .attrs = {{"is_log", "True"}},
     .make_inputs =
         [](DType t, uint64_t seed) {
           return Inputs{RandomArray({3}, 0.1, 1, seed, t), RandomArray({3}, 0.5, 3, seed + 1, t)};
         },
     .label = "(log, 1-d)"});

// ---- _backward_pdf_<distr>: (ograd, sample, params..., pdf) ----
template <int kParams>
Inputs PdfBwdInputs(DType t, uint64_t seed) {
  Inputs v{RandomArray({2, 3}, -1, 1, seed, t), Ints({2, 3}, 1, 4, seed + 1, t)};
  for (int k = 0; k < kParams; ++k)
    v.push_back(RandomArray({2}, 0.2 + k, 0.8 + k, seed + 2 + k, t));
  v.push_back(RandomArray({2, 3}, 0.1, 1, seed + 9, t));
  return v;
}
MX_OP_TEST_CASE({.op = "_backward_pdf_uniform", .make_inputs = PdfBwdInputs<2>});
MX_OP_TEST_CASE({.op = "_backward_pdf_normal",
                 .attrs = {{"is_log", "True"}},
                 .make_inputs = PdfBwdInputs<2>});
MX_OP_TEST_CASE({.op = "_backward_pdf_gamma", .make_inputs = PdfBwdInputs<2>});
MX_OP_TEST_CASE({.op = "_backward_pdf_exponential", .make_inputs = PdfBwdInputs<1>});
MX_OP_TEST_CASE({.op = "_backward_pdf_poisson", .make_inputs = PdfBwdInputs<1>});
MX_OP_TEST_CASE({.op = "_backward_pdf_negative_binomial", .make_inputs = PdfBwdInputs<2>});
MX_OP_TEST_CASE({.op = "_backward_pdf_generalized_negative_binomial",
                 .make_inputs = PdfBwdInputs<2>});
MX_OP_TEST_CASE({.op = "_backward_pdf_dirichlet", .make_inputs = [](DType t, uint64_t seed) {
                   return Inputs{RandomArray({2, 3}, -1, 1, seed, t),
                                 RandomArray({2, 3, 4}, 0.1, 1, seed + 1, t),
                                 RandomArray({2, 4}, 0.5, 3, seed + 2, t),
                                 RandomArray({2, 3}, 0.1, 1, seed + 3, t)};
                 }});

}  // namespace
}  // namespace mxnet::testing
