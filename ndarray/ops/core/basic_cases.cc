// Test cases of the basic family, enumerated by //ndarray:all_ops_test.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

MX_OP_TEST_CASE({.op = "elemwise_add", .shapes = {{3, 4}, {3, 4}}});
MX_OP_TEST_CASE({.op = "elemwise_sub", .shapes = {{2, 3, 2}, {2, 3, 2}}});
MX_OP_TEST_CASE({.op = "elemwise_mul", .shapes = {{5}, {5}}});
MX_OP_TEST_CASE({.op = "elemwise_div", .shapes = {{4, 3}, {4, 3}}, .lo = 0.5, .hi = 2.0});
MX_OP_TEST_CASE({.op = "negative", .shapes = {{3, 2}}});
MX_OP_TEST_CASE({.op = "_copy", .shapes = {{3, 2}}});
MX_OP_TEST_CASE({.op = "zeros_like", .shapes = {{3, 2}}});
MX_OP_TEST_CASE({.op = "ones_like", .shapes = {{3, 2}}});
MX_OP_TEST_CASE({.op = "_plus_scalar", .attrs = {{"scalar", "2.5"}}, .shapes = {{4}}});
MX_OP_TEST_CASE({.op = "_minus_scalar", .attrs = {{"scalar", "-1"}}, .shapes = {{4}}});
MX_OP_TEST_CASE({.op = "_rminus_scalar", .attrs = {{"scalar", "3"}}, .shapes = {{4}}});
MX_OP_TEST_CASE({.op = "_mul_scalar", .attrs = {{"scalar", "0.5"}}, .shapes = {{2, 2}}});
MX_OP_TEST_CASE({.op = "_div_scalar", .attrs = {{"scalar", "4"}}, .shapes = {{2, 2}}});
MX_OP_TEST_CASE(
    {.op = "_rdiv_scalar", .attrs = {{"scalar", "2"}}, .shapes = {{2, 2}}, .lo = 0.5, .hi = 2});
MX_OP_TEST_CASE({.op = "broadcast_like", .shapes = {{3, 1}, {2, 3, 4}}, .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "broadcast_like",
                 .shapes = {{4}, {3, 4}},
                 .grad_inputs = {0},
                 .label = "(rank-extend)"});
MX_OP_TEST_CASE({.op = "broadcast_like",
                 .attrs = {{"lhs_axes", "(0, 2)"}, {"rhs_axes", "(0, 1)"}},
                 .shapes = {{1, 3, 1}, {2, 4}},
                 .grad_inputs = {0},
                 .label = "(axes)"});
MX_OP_TEST_CASE({.op = "broadcast_like",
                 .attrs = {{"lhs_axes", "(-1,)"}, {"rhs_axes", "(0,)"}},
                 .shapes = {{2, 1}, {5, 7}},
                 .grad_inputs = {0},
                 .label = "(negative axis)"});
MX_OP_TEST_CASE({.op = "broadcast_to", .attrs = {{"shape", "(2, 0, 4)"}}, .shapes = {{1, 3, 1}}});
MX_OP_TEST_CASE({.op = "broadcast_axis",
                 .attrs = {{"axis", "(0, -1)"}, {"size", "(2, 3)"}},
                 .shapes = {{1, 4, 1}}});
MX_OP_TEST_CASE({.op = "_reduce_sum_like", .shapes = {{2, 3, 4}, {3, 1}}, .grad_inputs = {0}});

}  // namespace
}  // namespace mxnet::testing
