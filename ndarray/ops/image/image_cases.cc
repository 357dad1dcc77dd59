// Test cases of the image ops (shape_image.cc), enumerated by //ndarray:all_ops_test
// (finite-difference gradients in float64, attribute round trips). MXNet's values are checked
// in shape_image_test.cc (testdata/shape/refs.json). The random ops draw a new value on every
// call, so finite differences cannot check their (pass-through) gradient: check_grad is false and
// shape_image_test.cc checks them statistically and their gradient through autograd.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

// to_tensor's output is float32: a larger step (the op is linear) keeps rounding small.
MX_OP_TEST_CASE({.op = "_image_to_tensor",
                 .shapes = {{4, 3, 3}},
                 .lo = 0,
                 .hi = 255,
                 .fd_eps = 1e-2,
                 .grad_rtol = 1e-3,
                 .grad_atol = 1e-6});
MX_OP_TEST_CASE({.op = "_image_to_tensor",
                 .shapes = {{2, 3, 2, 1}},
                 .lo = 0,
                 .hi = 255,
                 .fd_eps = 1e-2,
                 .grad_rtol = 1e-3,
                 .grad_atol = 1e-6,
                 .label = "(NHWC)"});
MX_OP_TEST_CASE({.op = "_backward_image_to_tensor",
                 .shapes = {{3, 4, 2}, {4, 2, 3}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_image_normalize",
                 .attrs = {{"mean", "(0.5, 0.2, 0.1)"}, {"std", "(2.0, 4.0, 0.5)"}},
                 .shapes = {{3, 2, 2}}});
MX_OP_TEST_CASE({.op = "_image_normalize",
                 .attrs = {{"mean", "(0.5,)"}, {"std", "(0.25,)"}},
                 .shapes = {{2, 1, 2, 3}},
                 .label = "(NCHW)"});
MX_OP_TEST_CASE({.op = "_backward_image_normalize",
                 .attrs = {{"mean", "(0.5, 0.2, 0.1)"}, {"std", "(2.0, 4.0, 0.5)"}},
                 .shapes = {{3, 2, 2}, {3, 2, 2}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_image_flip_left_right", .shapes = {{3, 5, 3}}});
MX_OP_TEST_CASE({.op = "_image_flip_left_right", .shapes = {{2, 3, 4, 1}}, .label = "(NHWC)"});
MX_OP_TEST_CASE({.op = "_image_flip_top_bottom", .shapes = {{3, 5, 3}}});
MX_OP_TEST_CASE({.op = "_image_flip_top_bottom", .shapes = {{2, 3, 4, 1}}, .label = "(NHWC)"});
MX_OP_TEST_CASE({.op = "_image_random_flip_left_right",
                 .shapes = {{3, 4, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_image_random_flip_top_bottom",
                 .shapes = {{3, 4, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_image_crop",
                 .attrs = {{"x", "1"}, {"y", "0"}, {"width", "2"}, {"height", "2"}},
                 .shapes = {{3, 4, 3}}});
MX_OP_TEST_CASE({.op = "_image_crop",
                 .attrs = {{"x", "0"}, {"y", "1"}, {"width", "3"}, {"height", "1"}},
                 .shapes = {{2, 3, 4, 1}},
                 .label = "(NHWC)"});
MX_OP_TEST_CASE({.op = "_backward_image_crop",
                 .attrs = {{"x", "1"}, {"y", "0"}, {"width", "2"}, {"height", "2"}},
                 .shapes = {{2, 2, 3}, {3, 4, 3}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_image_resize",
                 .attrs = {{"size", "(3, 2)"}},
                 .shapes = {{4, 5, 3}},
                 .lo = 0,
                 .hi = 1,
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_image_resize",
                 .attrs = {{"size", "(4,)"}, {"keep_ratio", "True"}, {"interp", "2"}},
                 .shapes = {{2, 3, 5, 1}},
                 .check_grad = false,
                 .label = "(NHWC, keep_ratio, bicubic)"});
MX_OP_TEST_CASE({.op = "_image_adjust_lighting",
                 .attrs = {{"alpha", "(0.1, -0.2, 0.3)"}},
                 .shapes = {{3, 4, 3}},
                 .lo = 0,
                 .hi = 255});
MX_OP_TEST_CASE({.op = "_image_random_lighting",
                 .attrs = {{"alpha_std", "0.1"}},
                 .shapes = {{3, 4, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_image_random_brightness",
                 .attrs = {{"min_factor", "0.5"}, {"max_factor", "1.5"}},
                 .shapes = {{3, 4, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_image_random_contrast",
                 .attrs = {{"min_factor", "0.5"}, {"max_factor", "1.5"}},
                 .shapes = {{3, 4, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_image_random_saturation",
                 .attrs = {{"min_factor", "0.5"}, {"max_factor", "1.5"}},
                 .shapes = {{3, 4, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_image_random_hue",
                 .attrs = {{"min_factor", "0.0"}, {"max_factor", "0.2"}},
                 .shapes = {{3, 4, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE(
    {.op = "_image_random_color_jitter",
     .attrs = {{"brightness", "0.2"}, {"contrast", "0.2"}, {"saturation", "0.2"}, {"hue", "0.1"}},
     .shapes = {{3, 4, 3}},
     .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
