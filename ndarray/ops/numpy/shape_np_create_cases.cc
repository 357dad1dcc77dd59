// Test cases (//ndarray:all_ops_test) of shape_np_create.cc's NumPy-interface creation ops.
// Zero-input ops have no gradient to check; _npi_full_like's gradient is zeros.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {

MX_OP_TEST_CASE({.op = "_npi_zeros", .attrs = {{"shape", "(2, 3)"}}, .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_ones",
                 .attrs = {{"shape", "(3,)"}, {"dtype", "int32"}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_full_like", .attrs = {{"fill_value", "2.5"}}, .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "_npi_identity", .attrs = {{"shape", "(3, 3)"}}, .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_eye",
                 .attrs = {{"N", "3"}, {"M", "4"}, {"k", "1"}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_arange",
                 .attrs = {{"start", "1"}, {"stop", "5"}, {"step", "1.5"}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_indices", .attrs = {{"dimensions", "(2, 3)"}}, .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_logspace",
                 .attrs = {{"start", "0"}, {"stop", "2"}, {"num", "5"}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_blackman", .attrs = {{"M", "5"}}, .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_hamming", .attrs = {{"M", "6"}}, .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_hanning", .attrs = {{"M", "7"}}, .check_grad = false});

}  // namespace mxnet::testing

// ---- samplers (shape_np_create_random.cc): random, so all_ops_test checks shapes, attribute
// round trips and that no gradient is claimed; values are checked statistically in
// shape_np_create_test.cc. Tensor parameters must be positive for gamma/pareto/powerd/weibull.
namespace mxnet::testing {

MX_OP_TEST_CASE({.op = "_npi_uniform", .attrs = {{"low", "0"}, {"high", "2"}, {"size", "(2, 3)"}}});
MX_OP_TEST_CASE({.op = "_npi_uniform",
                 .attrs = {{"low", "None"}, {"high", "None"}},
                 .shapes = {{2, 1}, {3}}});
MX_OP_TEST_CASE({.op = "_npi_uniform_n",
                 .attrs = {{"low", "None"}, {"high", "3"}, {"size", "(2,)"}},
                 .shapes = {{3}}});
MX_OP_TEST_CASE({.op = "_npi_normal",
                 .attrs = {{"loc", "1"}, {"scale", "2"}, {"size", "(4,)"}, {"dtype", "float64"}}});
MX_OP_TEST_CASE({.op = "_npi_normal",
                 .attrs = {{"loc", "None"}, {"scale", "1"}, {"size", "(2, 3)"}},
                 .shapes = {{3}}});
MX_OP_TEST_CASE({.op = "_npi_normal_n",
                 .attrs = {{"loc", "0"}, {"scale", "None"}, {"size", "(2,)"}},
                 .shapes = {{2}},
                 .lo = 0.5,
                 .hi = 2});
MX_OP_TEST_CASE({.op = "_npi_gamma",
                 .attrs = {{"shape", "None"}, {"scale", "0.5"}},
                 .shapes = {{2, 2}},
                 .lo = 0.5,
                 .hi = 3});
MX_OP_TEST_CASE({.op = "_npi_gumbel", .attrs = {{"loc", "0"}, {"scale", "1"}, {"size", "(3,)"}}});
MX_OP_TEST_CASE({.op = "_npi_logistic",
                 .attrs = {{"loc", "None"}, {"scale", "1"}},
                 .shapes = {{4}}});
MX_OP_TEST_CASE({.op = "_npi_exponential", .attrs = {{"scale", "2"}, {"size", "(2, 2)"}}});
MX_OP_TEST_CASE({.op = "_npi_rayleigh",
                 .attrs = {{"scale", "None"}, {"size", "(2, 3)"}},
                 .shapes = {{3}},
                 .lo = 0.5,
                 .hi = 2});
MX_OP_TEST_CASE({.op = "_npi_pareto", .attrs = {{"a", "3"}, {"size", "(5,)"}}});
MX_OP_TEST_CASE(
    {.op = "_npi_powerd", .attrs = {{"a", "None"}}, .shapes = {{3}}, .lo = 0.5, .hi = 2});
MX_OP_TEST_CASE({.op = "_npi_weibull", .attrs = {{"a", "1.5"}, {"size", "(2, 2)"}}});

}  // namespace mxnet::testing

namespace mxnet::testing {

MX_OP_TEST_CASE(
    {.op = "_npi_bernoulli",
     .attrs = {{"prob", "0.4"}, {"logit", "None"}, {"is_logit", "False"}, {"size", "(2, 3)"}}});
MX_OP_TEST_CASE({.op = "_npi_bernoulli",
                 .attrs = {{"prob", "None"}, {"logit", "None"}, {"is_logit", "True"}},
                 .shapes = {{3}}});

}  // namespace mxnet::testing

namespace mxnet::testing {

MX_OP_TEST_CASE({.op = "_npi_multinomial",
                 .attrs = {{"n", "5"}, {"pvals", "(0.2, 0.3, 0.5)"}, {"size", "(2,)"}}});

}  // namespace mxnet::testing
