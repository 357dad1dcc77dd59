// Test cases of the shape family's miscellaneous ops (shape_misc.cc), enumerated by
// //ndarray:all_ops_test (finite-difference gradients in float64, attribute round trips).
// MXNet's values are checked through testdata/shape/refs.json (shape_test.cc).
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

MX_OP_TEST_CASE({.op = "diag", .shapes = {{3, 4}}});
MX_OP_TEST_CASE({.op = "diag", .attrs = {{"k", "1"}}, .shapes = {{4}}, .label = "(1-d, k=1)"});
MX_OP_TEST_CASE({.op = "diag", .attrs = {{"k", "-2"}}, .shapes = {{3}}, .label = "(1-d, k=-2)"});
MX_OP_TEST_CASE({.op = "diag",
                 .attrs = {{"k", "-1"}, {"axis1", "2"}, {"axis2", "0"}},
                 .shapes = {{3, 2, 4}},
                 .label = "(3-d)"});
MX_OP_TEST_CASE(
    {.op = "_diag_grad", .attrs = {{"k", "1"}}, .shapes = {{3}, {3, 4}}, .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_diag_grad",
                 .attrs = {{"k", "-1"}},
                 .shapes = {{4, 4}, {3}},
                 .grad_inputs = {0},
                 .label = "(1-d data)"});
MX_OP_TEST_CASE({.op = "khatri_rao",
                 .attrs = {{"num_args", "3"}},
                 .shapes = {{2, 3}, {3, 3}, {1, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "fill_element_0index",
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return std::vector<NDArray>{
                           RandomArray({3, 4}, -1, 1, seed, t),
                           RandomArray({3}, -1, 1, seed + 1, t),
                           NDArray::FromVector(std::vector<double>{0, 3, 1}, Shape{3}, cpu(), t)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "amp_cast", .attrs = {{"dtype", "float16"}}, .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "_amp_cast_grad", .shapes = {{2, 3}, {2, 3}}, .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "amp_multicast", .attrs = {{"num_outputs", "2"}}, .shapes = {{2, 3}, {4}}});
MX_OP_TEST_CASE({.op = "amp_multicast",
                 .attrs = {{"num_outputs", "2"}, {"cast_narrow", "True"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return std::vector<NDArray>{RandomArray({3}, -1, 1, seed, t),
                                                   RandomArray({2}, -1, 1, seed + 1, t)};
                     },
                 .label = "(narrow)"});
MX_OP_TEST_CASE({.op = "cast_storage", .attrs = {{"stype", "default"}}, .shapes = {{2, 3}}});

}  // namespace
}  // namespace mxnet::testing
