// Test cases of the OpenCV image ops of the shape family (shape_image_cv.cc), enumerated by
// //ndarray:all_ops_test: neither is differentiable; the cases run every kernel and round-trip
// the attributes. Values are checked against MXNet in shape_image_cv_test.cc.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

MX_OP_TEST_CASE({.op = "_cvimresize",
                 .attrs = {{"w", "3"}, {"h", "5"}, {"interp", "2"}},
                 .shapes = {{4, 6, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_cvcopyMakeBorder",
                 .attrs = {{"top", "1"},
                           {"bot", "2"},
                           {"left", "3"},
                           {"right", "0"},
                           {"values", "(0.5, 1.0, 2.0)"}},
                 .shapes = {{2, 3, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE(
    {.op = "_cvcopyMakeBorder",
     .attrs = {{"top", "2"}, {"bot", "1"}, {"left", "4"}, {"right", "4"}, {"type", "4"}},
     .shapes = {{3, 2, 1}},
     .check_grad = false,
     .label = "(reflect_101)"});

}  // namespace
}  // namespace mxnet::testing
