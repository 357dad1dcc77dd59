// Test cases of the fused inference ops (_sg_onednn_conv, _sg_onednn_fully_connected),
// enumerated by //ndarray:all_ops_test: the oneDNN post-op kernel against the reference kernel
// (the unfused ops composed) in float32, and attribute round trips. Not differentiable.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

MX_OP_TEST_CASE(
    {.op = "_sg_onednn_conv",
     .attrs = {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"pad", "(1, 1)"}, {"act_type", "relu"}},
     .shapes = {{2, 3, 5, 5}, {4, 3, 3, 3}, {4}},
     .check_grad = false,
     .label = "(conv+relu)"});
MX_OP_TEST_CASE({.op = "_sg_onednn_conv",
                 .attrs = {{"kernel", "(3, 3)"},
                           {"num_filter", "4"},
                           {"pad", "(1, 1)"},
                           {"with_sum", "True"},
                           {"postsum_act_type", "relu"}},
                 .shapes = {{2, 3, 5, 5}, {4, 3, 3, 3}, {4}, {2, 4, 5, 5}},
                 .check_grad = false,
                 .label = "(conv+add+relu)"});
MX_OP_TEST_CASE({.op = "_sg_onednn_conv",
                 .attrs = {{"kernel", "(3, 3)"},
                           {"num_filter", "6"},
                           {"stride", "(2, 2)"},
                           {"num_group", "2"},
                           {"no_bias", "True"},
                           {"act_type", "tanh"},
                           {"with_sum", "True"},
                           {"postsum_act_type", "sigmoid"}},
                 .shapes = {{1, 4, 7, 7}, {6, 2, 3, 3}, {1, 6, 3, 3}},
                 .check_grad = false,
                 .label = "(grouped strided, no bias, tanh+add+sigmoid)"});
MX_OP_TEST_CASE({.op = "_sg_onednn_conv",
                 .attrs = {{"kernel", "(3, 3)"},
                           {"num_filter", "4"},
                           {"layout", "NHWC"},
                           {"act_type", "softrelu"}},
                 .shapes = {{1, 5, 5, 2}, {4, 3, 3, 2}, {4}},
                 .check_grad = false,
                 .label = "(NHWC softrelu)"});
MX_OP_TEST_CASE({.op = "_sg_onednn_conv",
                 .attrs = {{"kernel", "(1, 1)"}, {"num_filter", "8"}, {"with_sum", "True"}},
                 .shapes = {{2, 4, 4, 4}, {8, 4, 1, 1}, {8}, {2, 8, 4, 4}},
                 .check_grad = false,
                 .label = "(1x1 conv+add)"});
MX_OP_TEST_CASE({.op = "_sg_onednn_conv",
                 .attrs = {{"kernel", "(3, 3)"},
                           {"num_filter", "16"},
                           {"pad", "(1, 1)"},
                           {"const_weight", "True"},
                           {"act_type", "relu"}},
                 .shapes = {{1, 16, 8, 8}, {16, 16, 3, 3}, {16}},
                 .check_grad = false,
                 .label = "(constant weight, cached in oneDNN layout)"});
// clip (RELU6 and a range that cuts both sides of these small values), NCHW, depthwise NHWC and
// with a residual add.
MX_OP_TEST_CASE({.op = "_sg_onednn_conv",
                 .attrs = {{"kernel", "(3, 3)"},
                           {"num_filter", "4"},
                           {"pad", "(1, 1)"},
                           {"act_type", "clip"},
                           {"act_min", "0"},
                           {"act_max", "6"}},
                 .shapes = {{2, 3, 5, 5}, {4, 3, 3, 3}, {4}},
                 .check_grad = false,
                 .label = "(conv+relu6)"});
MX_OP_TEST_CASE({.op = "_sg_onednn_conv",
                 .attrs = {{"kernel", "(3, 3)"},
                           {"num_filter", "8"},
                           {"num_group", "8"},
                           {"pad", "(1, 1)"},
                           {"layout", "NHWC"},
                           {"act_type", "clip"},
                           {"act_min", "-0.1"},
                           {"act_max", "0.2"}},
                 .shapes = {{1, 6, 6, 8}, {8, 3, 3, 1}, {8}},
                 .check_grad = false,
                 .label = "(depthwise NHWC + clip)"});
MX_OP_TEST_CASE({.op = "_sg_onednn_conv",
                 .attrs = {{"kernel", "(1, 1)"},
                           {"num_filter", "8"},
                           {"act_type", "clip"},
                           {"act_min", "-0.1"},
                           {"act_max", "0.2"},
                           {"with_sum", "True"}},
                 .shapes = {{2, 4, 4, 4}, {8, 4, 1, 1}, {8}, {2, 8, 4, 4}},
                 .check_grad = false,
                 .label = "(1x1 conv+clip+add)"});
MX_OP_TEST_CASE(
    {.op = "_sg_onednn_fully_connected",
     .attrs = {{"num_hidden", "5"}, {"act_type", "clip"}, {"act_min", "-0.2"}, {"act_max", "0.1"}},
     .shapes = {{3, 8}, {5, 8}, {5}},
     .check_grad = false,
     .label = "(fc+clip)"});
MX_OP_TEST_CASE({.op = "_sg_onednn_fully_connected",
                 .attrs = {{"num_hidden", "5"}, {"act_type", "relu"}},
                 .shapes = {{3, 2, 4}, {5, 8}, {5}},
                 .check_grad = false,
                 .label = "(fc+relu, flatten)"});
MX_OP_TEST_CASE({.op = "_sg_onednn_fully_connected",
                 .attrs = {{"num_hidden", "6"},
                           {"flatten", "False"},
                           {"act_type", "sigmoid"},
                           {"with_sum", "True"},
                           {"postsum_act_type", "tanh"}},
                 .shapes = {{2, 3, 4}, {6, 4}, {6}, {2, 3, 6}},
                 .check_grad = false,
                 .label = "(fc no flatten, sigmoid+add+tanh)"});
MX_OP_TEST_CASE({.op = "_sg_onednn_fully_connected",
                 .attrs = {{"num_hidden", "4"}, {"no_bias", "True"}, {"with_sum", "True"}},
                 .shapes = {{3, 5}, {4, 5}, {3, 4}},
                 .check_grad = false,
                 .label = "(fc no bias + add)"});

}  // namespace
}  // namespace mxnet::testing
