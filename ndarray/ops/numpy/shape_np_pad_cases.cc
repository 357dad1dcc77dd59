// Test cases (//ndarray:all_ops_test) of shape_np_pad.cc: _npi_pad (gradient for mode 'constant'
// by finite differences, as in MXNet only that mode has one) and its gradient op.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

MX_OP_TEST_CASE({.op = "_npi_pad",
                 .attrs = {{"pad_width", "((1, 2), (0, 3))"}, {"constant_value", "0.5"}},
                 .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "_npi_pad",
                 .attrs = {{"pad_width", "(1,)"}},
                 .shapes = {{2, 1, 2}},
                 .label = "(one width for every axis)"});
MX_OP_TEST_CASE({.op = "_npi_pad",
                 .attrs = {{"pad_width", "((2, 3), (3, 1))"}, {"mode", "reflect"}},
                 .shapes = {{2, 3}},
                 .check_grad = false,
                 .label = "(reflect; gradient only for constant, as MXNet)"});
MX_OP_TEST_CASE(
    {.op = "_npi_pad",
     .attrs = {{"pad_width", "((1, 1), (4, 2))"}, {"mode", "symmetric"}, {"reflect_type", "odd"}},
     .shapes = {{2, 3}},
     .check_grad = false,
     .label = "(symmetric odd)"});
MX_OP_TEST_CASE({.op = "_npi_pad",
                 .attrs = {{"pad_width", "((1, 0), (2, 2))"}, {"mode", "maximum"}},
                 .shapes = {{3, 2}},
                 .check_grad = false,
                 .label = "(maximum)"});
MX_OP_TEST_CASE({.op = "_npi_pad",
                 .attrs = {{"pad_width", "((0, 1), (2, 1))"}, {"mode", "edge"}},
                 .shapes = {{2, 2}},
                 .check_grad = false,
                 .label = "(edge)"});
MX_OP_TEST_CASE({.op = "_backward_npi_pad",
                 .attrs = {{"pad_width", "((1, 2), (0, 3))"}},
                 .shapes = {{5, 6}}});

}  // namespace
}  // namespace mxnet::testing
