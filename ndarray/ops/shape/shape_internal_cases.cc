// Test cases (//ndarray:all_ops_test) of shape_internal.cc's internal helper ops. _set_value and
// _NoGradient have no inputs or attributes giving their output: op_testing runs such ops on a
// (2, 3) float32 output.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {

MX_OP_TEST_CASE({.op = "_scatter_elemwise_div", .shapes = {{2, 3}, {2, 3}}, .lo = 0.5, .hi = 2});
MX_OP_TEST_CASE({.op = "_scatter_plus_scalar", .attrs = {{"scalar", "1.5"}}, .shapes = {{3, 2}}});
MX_OP_TEST_CASE({.op = "_scatter_minus_scalar",
                 .attrs = {{"scalar", "-2"}, {"is_int", "False"}},
                 .shapes = {{4}}});
MX_OP_TEST_CASE({.op = "_set_value", .attrs = {{"src", "2.5"}}, .check_grad = false});
MX_OP_TEST_CASE({.op = "_NoGradient", .check_grad = false});
MX_OP_TEST_CASE({.op = "_zeros_without_dtype",
                 .attrs = {{"shape", "(2, 3)"}, {"dtype", "0"}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_identity_with_attr_like_rhs", .shapes = {{2, 3}, {2, 3}}});
MX_OP_TEST_CASE({.op = "_copyto", .shapes = {{3, 2}}});
MX_OP_TEST_CASE({.op = "_CrossDeviceCopy", .shapes = {{2, 2}}});
MX_OP_TEST_CASE({.op = "_rnn_param_concat",
                 .attrs = {{"num_args", "2"}},
                 .shapes = {{2, 3}, {2, 1}}});
MX_OP_TEST_CASE({.op = "_rnn_param_concat",
                 .attrs = {{"num_args", "3"}, {"dim", "0"}},
                 .shapes = {{4}, {2}, {3}}});

}  // namespace mxnet::testing
