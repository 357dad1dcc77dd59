// Test cases of the conv family, enumerated by //ndarray:all_ops_test (finite-difference
// gradients in float64, oneDNN vs reference in float32, attribute round trips). Shapes are small
// so the finite differences stay fast; each case names the mode it covers.
#include <cmath>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

// ---- Convolution. ----
MX_OP_TEST_CASE({.op = "Convolution",
                 .attrs = {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"pad", "(1, 1)"}},
                 .shapes = {{2, 3, 5, 5}, {4, 3, 3, 3}, {4}},
                 .label = "(2d, pad, bias)"});
MX_OP_TEST_CASE({.op = "Convolution",
                 .attrs = {{"kernel", "(3, 3)"},
                           {"num_filter", "6"},
                           {"stride", "(2, 2)"},
                           {"dilate", "(2, 2)"},
                           {"pad", "(1, 1)"},
                           {"num_group", "2"},
                           {"no_bias", "True"}},
                 .shapes = {{1, 4, 7, 7}, {6, 2, 3, 3}},
                 .label = "(2d grouped dilated strided)"});
// One output position (a dense layer as a convolution: oneDNN's kernel on the plain layouts).
MX_OP_TEST_CASE({.op = "Convolution",
                 .attrs = {{"kernel", "(1, 1)"}, {"num_filter", "5"}, {"no_bias", "True"}},
                 .shapes = {{3, 8, 1, 1}, {5, 8, 1, 1}},
                 .label = "(1x1 on 1x1: classifier)"});
MX_OP_TEST_CASE({.op = "Convolution",
                 .attrs = {{"kernel", "(3, 3)"}, {"num_filter", "4"}},
                 .shapes = {{2, 3, 3, 3}, {4, 3, 3, 3}, {4}},
                 .label = "(kernel = input: one output position, bias)"});
MX_OP_TEST_CASE(
    {.op = "Convolution",
     .attrs = {{"kernel", "(2, 3)"}, {"num_filter", "3"}, {"stride", "(1, 2)"}, {"num_group", "3"}},
     .shapes = {{2, 3, 4, 6}, {3, 1, 2, 3}, {3}},
     .label = "(2d depthwise, rectangular)"});
MX_OP_TEST_CASE(
    {.op = "Convolution",
     .attrs = {{"kernel", "(3,)"}, {"num_filter", "2"}, {"stride", "(2,)"}, {"pad", "(1,)"}},
     .shapes = {{2, 3, 8}, {2, 3, 3}, {2}},
     .label = "(1d)"});
MX_OP_TEST_CASE({.op = "Convolution",
                 .attrs = {{"kernel", "(2, 2, 2)"},
                           {"num_filter", "3"},
                           {"pad", "(1, 0, 1)"},
                           {"stride", "(2, 1, 1)"}},
                 .shapes = {{1, 2, 4, 3, 3}, {3, 2, 2, 2, 2}, {3}},
                 .label = "(3d)"});
MX_OP_TEST_CASE({.op = "Convolution",
                 .attrs = {{"kernel", "(3, 3)"},
                           {"num_filter", "4"},
                           {"stride", "(2, 2)"},
                           {"pad", "(1, 1)"},
                           {"num_group", "2"},
                           {"layout", "NHWC"}},
                 .shapes = {{1, 5, 5, 4}, {4, 3, 3, 2}, {4}},
                 .label = "(NHWC grouped)"});
MX_OP_TEST_CASE(
    {.op = "Convolution",
     .attrs = {{"kernel", "(3,)"}, {"num_filter", "2"}, {"dilate", "(2,)"}, {"layout", "NWC"}},
     .shapes = {{2, 7, 3}, {2, 3, 3}, {2}},
     .label = "(NWC dilated)"});
MX_OP_TEST_CASE({.op = "Convolution",
                 .attrs = {{"kernel", "(2, 2, 2)"},
                           {"num_filter", "2"},
                           {"layout", "NDHWC"},
                           {"no_bias", "True"}},
                 .shapes = {{1, 3, 3, 3, 2}, {2, 2, 2, 2, 2}},
                 .label = "(NDHWC)"});

// ---- Deconvolution. ----
MX_OP_TEST_CASE({.op = "Deconvolution",
                 .attrs = {{"kernel", "(3, 3)"},
                           {"num_filter", "2"},
                           {"stride", "(2, 2)"},
                           {"pad", "(1, 1)"},
                           {"adj", "(1, 1)"},
                           {"no_bias", "False"}},
                 .shapes = {{1, 3, 3, 3}, {3, 2, 3, 3}, {2}},
                 .label = "(2d stride pad adj bias)"});
MX_OP_TEST_CASE(
    {.op = "Deconvolution",
     .attrs = {{"kernel", "(3, 3)"}, {"num_filter", "2"}, {"dilate", "(2, 2)"}, {"num_group", "2"}},
     .shapes = {{1, 4, 3, 3}, {4, 1, 3, 3}},
     .label = "(2d grouped dilated)"});
MX_OP_TEST_CASE({.op = "Deconvolution",
                 .attrs = {{"kernel", "(3, 3)"},
                           {"num_filter", "3"},
                           {"stride", "(2, 2)"},
                           {"target_shape", "(6, 6)"}},
                 .shapes = {{1, 2, 3, 3}, {2, 3, 3, 3}},
                 .label = "(target_shape)"});
MX_OP_TEST_CASE({.op = "Deconvolution",
                 .attrs = {{"kernel", "(4,)"},
                           {"num_filter", "2"},
                           {"stride", "(2,)"},
                           {"pad", "(1,)"},
                           {"no_bias", "False"}},
                 .shapes = {{2, 3, 4}, {3, 2, 4}, {2}},
                 .label = "(1d)"});
MX_OP_TEST_CASE({.op = "Deconvolution",
                 .attrs = {{"kernel", "(2, 2, 2)"}, {"num_filter", "2"}, {"stride", "(2, 1, 2)"}},
                 .shapes = {{1, 2, 2, 2, 2}, {2, 2, 2, 2, 2}},
                 .label = "(3d)"});
MX_OP_TEST_CASE({.op = "Deconvolution",
                 .attrs = {{"kernel", "(3, 3)"},
                           {"num_filter", "4"},
                           {"stride", "(2, 2)"},
                           {"pad", "(1, 1)"},
                           {"num_group", "2"},
                           {"layout", "NHWC"},
                           {"no_bias", "False"}},
                 .shapes = {{1, 3, 3, 2}, {2, 3, 3, 2}, {4}},
                 .label = "(NHWC grouped)"});

// ---- Convolution/Deconvolution gradient helpers. Shapes follow a forward config:
// conv (1,4,7,7) k3 s2 d2 p1 g2 -> (1,6,3,3); conv NHWC (1,5,5,4) k3 s2 p1 g2 -> (1,3,3,4);
// deconv (1,3,3,3) k3 s2 p1 adj1 -> (1,2,6,6); deconv (1,2,3,3) k3 s2 target (6,6). ----
const AttrDict kConvG = {{"kernel", "(3, 3)"}, {"num_filter", "6"}, {"stride", "(2, 2)"},
                         {"dilate", "(2, 2)"}, {"pad", "(1, 1)"},   {"num_group", "2"}};
const AttrDict kConvNhwc = {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"stride", "(2, 2)"},
                            {"pad", "(1, 1)"},    {"num_group", "2"},  {"layout", "NHWC"}};
const AttrDict kDeconvAdj = {{"kernel", "(3, 3)"},
                             {"num_filter", "2"},
                             {"stride", "(2, 2)"},
                             {"pad", "(1, 1)"},
                             {"adj", "(1, 1)"}};
const AttrDict kDeconvTarget = {
    {"kernel", "(3, 3)"}, {"num_filter", "3"}, {"stride", "(2, 2)"}, {"target_shape", "(6, 6)"}};

MX_OP_TEST_CASE({.op = "_backward_Convolution_data",
                 .attrs = kConvG,
                 .shapes = {{1, 6, 3, 3}, {6, 2, 3, 3}, {1, 4, 7, 7}},
                 .label = "(grouped dilated)"});
MX_OP_TEST_CASE({.op = "_backward_Convolution_data",
                 .attrs = kConvNhwc,
                 .shapes = {{1, 3, 3, 4}, {4, 3, 3, 2}, {1, 5, 5, 4}},
                 .label = "(NHWC)"});
MX_OP_TEST_CASE({.op = "_backward_Convolution_weight",
                 .attrs = kConvG,
                 .shapes = {{1, 6, 3, 3}, {1, 4, 7, 7}},
                 .label = "(grouped dilated)"});
MX_OP_TEST_CASE({.op = "_backward_Convolution_weight",
                 .attrs = kConvNhwc,
                 .shapes = {{1, 3, 3, 4}, {1, 5, 5, 4}},
                 .label = "(NHWC)"});
MX_OP_TEST_CASE({.op = "_backward_Deconvolution_data",
                 .attrs = kDeconvAdj,
                 .shapes = {{1, 2, 6, 6}, {3, 2, 3, 3}, {1, 3, 3, 3}},
                 .label = "(adj)"});
MX_OP_TEST_CASE({.op = "_backward_Deconvolution_data",
                 .attrs = kDeconvTarget,
                 .shapes = {{1, 3, 6, 6}, {2, 3, 3, 3}, {1, 2, 3, 3}},
                 .label = "(target_shape)"});
MX_OP_TEST_CASE({.op = "_backward_Deconvolution_weight",
                 .attrs = kDeconvAdj,
                 .shapes = {{1, 2, 6, 6}, {1, 3, 3, 3}},
                 .label = "(adj)"});
MX_OP_TEST_CASE({.op = "_backward_Deconvolution_weight",
                 .attrs = kDeconvTarget,
                 .shapes = {{1, 3, 6, 6}, {1, 2, 3, 3}},
                 .label = "(target_shape)"});
MX_OP_TEST_CASE({.op = "_channel_sum", .attrs = {{"axis", "1"}}, .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "_channel_sum",
                 .attrs = {{"axis", "-1"}},
                 .shapes = {{2, 2, 3}},
                 .label = "(last axis)"});
// Sizes that exercise the optimized kernel's SIMD rows and channel blocks.
MX_OP_TEST_CASE(
    {.op = "_channel_sum", .attrs = {{"axis", "1"}}, .shapes = {{3, 5, 7, 9}}, .label = "(rows)"});
MX_OP_TEST_CASE({.op = "_channel_sum",
                 .attrs = {{"axis", "-1"}},
                 .shapes = {{3, 4, 300}},
                 .label = "(last axis, blocks)"});
MX_OP_TEST_CASE({.op = "_channel_broadcast_like",
                 .attrs = {{"axis", "1"}},
                 .shapes = {{3}, {2, 3, 4}},
                 .grad_inputs = {0}});

// ---- FullyConnected. ----
MX_OP_TEST_CASE({.op = "FullyConnected",
                 .attrs = {{"num_hidden", "5"}},
                 .shapes = {{2, 3, 4}, {5, 12}, {5}},
                 .label = "(flatten)"});
MX_OP_TEST_CASE({.op = "FullyConnected",
                 .attrs = {{"num_hidden", "5"}, {"flatten", "False"}},
                 .shapes = {{2, 3, 4}, {5, 4}, {5}},
                 .label = "(no flatten)"});
MX_OP_TEST_CASE({.op = "FullyConnected",
                 .attrs = {{"num_hidden", "3"}, {"no_bias", "True"}},
                 .shapes = {{4, 6}, {3, 6}},
                 .label = "(no bias)"});
MX_OP_TEST_CASE({.op = "_backward_FullyConnected_data",
                 .attrs = {{"num_hidden", "5"}},
                 .shapes = {{2, 5}, {5, 12}, {2, 3, 4}},
                 .label = "(flatten)"});
MX_OP_TEST_CASE({.op = "_backward_FullyConnected_data",
                 .attrs = {{"num_hidden", "5"}, {"flatten", "False"}},
                 .shapes = {{2, 3, 5}, {5, 4}, {2, 3, 4}},
                 .label = "(no flatten)"});
MX_OP_TEST_CASE({.op = "_backward_FullyConnected_weight",
                 .attrs = {{"num_hidden", "5"}},
                 .shapes = {{2, 5}, {2, 3, 4}},
                 .label = "(flatten)"});
MX_OP_TEST_CASE({.op = "_backward_FullyConnected_weight",
                 .attrs = {{"num_hidden", "5"}, {"flatten", "False"}},
                 .shapes = {{2, 3, 5}, {2, 3, 4}},
                 .label = "(no flatten)"});

// ---- Pooling. ----
#define MX_POOL_CASE(LABEL, SHAPE, ...) \
  MX_OP_TEST_CASE({.op = "Pooling", .attrs = {__VA_ARGS__}, .shapes = {SHAPE}, .label = LABEL})
#define MX_POOL_CASE_POS(LABEL, SHAPE, ...) \
  MX_OP_TEST_CASE({.op = "Pooling",         \
                   .attrs = {__VA_ARGS__},  \
                   .shapes = {SHAPE},       \
                   .lo = 0.5,               \
                   .hi = 1.5,               \
                   .label = LABEL})
#define S(...) \
  Shape { __VA_ARGS__ }

MX_POOL_CASE("(max 3x3/2 pad 1)", S(1, 2, 5, 5), {"kernel", "(3, 3)"}, {"stride", "(2, 2)"},
             {"pad", "(1, 1)"});
MX_POOL_CASE("(max full)", S(1, 2, 6, 6), {"kernel", "(3, 3)"}, {"stride", "(2, 2)"},
             {"pooling_convention", "full"});
MX_POOL_CASE("(avg valid)", S(2, 2, 4, 5), {"kernel", "(2, 2)"}, {"stride", "(2, 2)"},
             {"pool_type", "avg"});
MX_POOL_CASE("(avg full pad include)", S(1, 2, 6, 6), {"kernel", "(3, 3)"}, {"stride", "(2, 2)"},
             {"pad", "(1, 1)"}, {"pool_type", "avg"}, {"pooling_convention", "full"});
MX_POOL_CASE("(avg full pad exclude)", S(1, 2, 6, 6), {"kernel", "(3, 3)"}, {"stride", "(2, 2)"},
             {"pad", "(1, 1)"}, {"pool_type", "avg"}, {"pooling_convention", "full"},
             {"count_include_pad", "False"});
MX_POOL_CASE("(avg pad include)", S(1, 2, 5, 5), {"kernel", "(3, 3)"}, {"pad", "(1, 1)"},
             {"pool_type", "avg"});
MX_POOL_CASE("(avg full no pad)", S(1, 2, 5, 5), {"kernel", "(2, 2)"}, {"stride", "(2, 2)"},
             {"pool_type", "avg"}, {"pooling_convention", "full"});
MX_POOL_CASE("(sum full pad)", S(1, 2, 5, 6), {"kernel", "(3, 2)"}, {"stride", "(2, 2)"},
             {"pad", "(1, 1)"}, {"pool_type", "sum"}, {"pooling_convention", "full"});
MX_POOL_CASE_POS("(lp 1)", S(1, 2, 4, 4), {"kernel", "(2, 2)"}, {"pool_type", "lp"},
                 {"p_value", "1"});
MX_POOL_CASE_POS("(lp 2)", S(1, 2, 4, 4), {"kernel", "(2, 2)"}, {"stride", "(2, 2)"},
                 {"pool_type", "lp"}, {"p_value", "2"});
MX_POOL_CASE_POS("(lp 3 pad)", S(1, 2, 4, 4), {"kernel", "(3, 3)"}, {"pad", "(1, 1)"},
                 {"stride", "(2, 2)"}, {"pool_type", "lp"}, {"p_value", "3"});
MX_POOL_CASE("(global max)", S(2, 3, 3, 4), {"kernel", "(1, 1)"}, {"global_pool", "True"});
MX_POOL_CASE("(global avg)", S(2, 3, 3, 4), {"global_pool", "True"}, {"pool_type", "avg"});
MX_POOL_CASE("(1d max same)", S(2, 2, 7), {"kernel", "(3,)"}, {"stride", "(2,)"},
             {"pooling_convention", "same"});
MX_POOL_CASE("(1d avg same)", S(2, 2, 7), {"kernel", "(3,)"}, {"stride", "(2,)"},
             {"pool_type", "avg"}, {"pooling_convention", "same"});
MX_POOL_CASE("(1d avg pad)", S(2, 2, 7), {"kernel", "(3,)"}, {"stride", "(2,)"}, {"pad", "(1,)"},
             {"pool_type", "avg"});
MX_POOL_CASE("(3d max)", S(1, 2, 4, 4, 4), {"kernel", "(2, 2, 2)"}, {"stride", "(2, 2, 2)"});
MX_POOL_CASE("(3d avg pad)", S(1, 1, 3, 4, 4), {"kernel", "(2, 3, 3)"}, {"pad", "(1, 1, 1)"},
             {"stride", "(2, 2, 2)"}, {"pool_type", "avg"});
MX_POOL_CASE("(NHWC max)", S(1, 5, 5, 3), {"kernel", "(3, 3)"}, {"stride", "(2, 2)"},
             {"pad", "(1, 1)"}, {"layout", "NHWC"});
MX_POOL_CASE("(NHWC avg)", S(1, 4, 4, 3), {"kernel", "(2, 2)"}, {"stride", "(2, 2)"},
             {"pool_type", "avg"}, {"layout", "NHWC"});
MX_POOL_CASE("(NWC sum)", S(2, 6, 2), {"kernel", "(2,)"}, {"stride", "(2,)"}, {"pool_type", "sum"},
             {"layout", "NWC"});
MX_POOL_CASE("(NDHWC global avg)", S(1, 2, 3, 3, 2), {"global_pool", "True"}, {"pool_type", "avg"},
             {"layout", "NDHWC"});

// _backward_Pooling / _Pooling_max_gather inputs: (ograd or grad, data, Pooling(data)).
std::function<std::vector<NDArray>(DType, uint64_t)> PoolHelperInputs(AttrDict attrs, Shape data,
                                                                      bool grad_like_data,
                                                                      double lo, double hi) {
  return [attrs, data, grad_like_data, lo, hi](DType dtype, uint64_t seed) {
    NDArray x = RandomArray(data, lo, hi, seed * 131 + 1, dtype);
    NDArray y = Invoke("Pooling", std::vector<NDArray>{x}, attrs)[0];
    NDArray g = RandomArray(grad_like_data ? x.shape() : y.shape(), -1, 1, seed * 131, dtype);
    return std::vector<NDArray>{g, x, y};
  };
}

#define MX_POOL_BWD_CASE(LABEL, GRAD_INPUTS, LO, HI, SHAPE, ...)                         \
  MX_OP_TEST_CASE({.op = "_backward_Pooling",                                            \
                   .attrs = {__VA_ARGS__},                                               \
                   .make_inputs = PoolHelperInputs({__VA_ARGS__}, SHAPE, false, LO, HI), \
                   .grad_inputs = GRAD_INPUTS,                                           \
                   .label = LABEL})

MX_POOL_BWD_CASE("(max)", {0}, -1, 1, S(1, 2, 5, 5), {"kernel", "(3, 3)"}, {"stride", "(2, 2)"},
                 {"pad", "(1, 1)"});
MX_POOL_BWD_CASE("(max full NHWC)", {0}, -1, 1, S(1, 6, 6, 2), {"kernel", "(3, 3)"},
                 {"stride", "(2, 2)"}, {"pooling_convention", "full"}, {"layout", "NHWC"});
MX_POOL_BWD_CASE("(avg full pad)", {}, -1, 1, S(1, 2, 6, 6), {"kernel", "(3, 3)"},
                 {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "avg"},
                 {"pooling_convention", "full"});
MX_POOL_BWD_CASE("(avg exclude)", {}, -1, 1, S(1, 2, 5, 5), {"kernel", "(3, 3)"},
                 {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "avg"},
                 {"count_include_pad", "False"});
MX_POOL_BWD_CASE("(sum 1d)", {}, -1, 1, S(2, 2, 7), {"kernel", "(3,)"}, {"stride", "(2,)"},
                 {"pool_type", "sum"});
MX_POOL_BWD_CASE("(lp 2)", {}, 0.5, 1.5, S(1, 2, 4, 4), {"kernel", "(2, 2)"}, {"stride", "(1, 2)"},
                 {"pool_type", "lp"}, {"p_value", "2"});
MX_POOL_BWD_CASE("(lp 3 pad)", {}, 0.5, 1.5, S(1, 1, 4, 4), {"kernel", "(3, 3)"},
                 {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "lp"}, {"p_value", "3"});
MX_POOL_BWD_CASE("(lp 1)", {}, 0.5, 1.5, S(1, 1, 4, 4), {"kernel", "(2, 2)"}, {"pool_type", "lp"},
                 {"p_value", "1"});
MX_POOL_BWD_CASE("(3d max)", {0}, -1, 1, S(1, 1, 4, 4, 4), {"kernel", "(2, 2, 2)"},
                 {"stride", "(2, 2, 2)"});

// Non-overlapping max windows (stride >= kernel) take the optimized kernel's own routing (the
// 2x2/2 rows four windows at a time): exactly covered planes, odd sizes with uncovered edges,
// padding, 1-D, and other kernel sizes.
MX_POOL_BWD_CASE("(max 2x2/2)", {0}, -1, 1, S(2, 3, 8, 8), {"kernel", "(2, 2)"},
                 {"stride", "(2, 2)"});
MX_POOL_BWD_CASE("(max 2x2/2 odd)", {0}, -1, 1, S(1, 2, 11, 13), {"kernel", "(2, 2)"},
                 {"stride", "(2, 2)"});
MX_POOL_BWD_CASE("(max 2x2/2 full)", {0}, -1, 1, S(1, 2, 11, 13), {"kernel", "(2, 2)"},
                 {"stride", "(2, 2)"}, {"pooling_convention", "full"});
MX_POOL_BWD_CASE("(max 3x3/3 pad)", {0}, -1, 1, S(1, 2, 10, 10), {"kernel", "(3, 3)"},
                 {"stride", "(3, 3)"}, {"pad", "(1, 1)"});
MX_POOL_BWD_CASE("(max 2x3/2x4)", {0}, -1, 1, S(2, 2, 7, 17), {"kernel", "(2, 3)"},
                 {"stride", "(2, 4)"});
MX_POOL_BWD_CASE("(max 1d 2/2)", {0}, -1, 1, S(2, 2, 9), {"kernel", "(2,)"}, {"stride", "(2,)"});

// Ties within windows (values on a coarse grid): the ograd goes to the first maximum.
std::function<std::vector<NDArray>(DType, uint64_t)> PoolTiesInputs(AttrDict attrs, Shape data) {
  return [attrs, data](DType dtype, uint64_t seed) {
    NDArray r = RandomArray(data, 0, 3, seed * 131 + 1, DType::kFloat64);
    std::vector<double> v = r.ToVector<double>();
    for (double& e : v) e = std::floor(e);  // 0, 1 or 2
    NDArray x = NDArray::FromVector(v, data).astype(dtype);
    NDArray y = Invoke("Pooling", std::vector<NDArray>{x}, attrs)[0];
    NDArray g = RandomArray(y.shape(), -1, 1, seed * 131, dtype);
    return std::vector<NDArray>{g, x, y};
  };
}
MX_OP_TEST_CASE({.op = "_backward_Pooling",
                 .attrs = {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}},
                 .make_inputs = PoolTiesInputs({{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}},
                                               S(2, 2, 6, 10)),
                 .grad_inputs = {0},
                 .label = "(max 2x2/2 ties)"});

MX_OP_TEST_CASE({.op = "_Pooling_max_gather",
                 .attrs = {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}},
                 .make_inputs = PoolHelperInputs(
                     {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}}, S(1, 2, 5, 5),
                     true, -1, 1),
                 .grad_inputs = {0}});

// ---- UpSampling. ----
MX_OP_TEST_CASE({.op = "UpSampling",
                 .attrs = {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "1"}},
                 .shapes = {{1, 2, 3, 3}},
                 .label = "(nearest)"});
MX_OP_TEST_CASE({.op = "UpSampling",
                 .attrs = {{"scale", "3"}, {"sample_type", "nearest"}, {"num_args", "2"}},
                 .shapes = {{1, 2, 2, 2}, {1, 3, 1, 1}},
                 .label = "(nearest concat)"});
MX_OP_TEST_CASE({.op = "UpSampling",
                 .attrs = {{"scale", "2"},
                           {"sample_type", "nearest"},
                           {"num_args", "2"},
                           {"multi_input_mode", "sum"}},
                 .shapes = {{1, 2, 4, 4}, {1, 2, 2, 2}},
                 .label = "(nearest sum)"});
MX_OP_TEST_CASE(
    {.op = "UpSampling",
     .attrs = {{"scale", "2"}, {"sample_type", "bilinear"}, {"num_args", "2"}, {"num_filter", "2"}},
     .shapes = {{1, 2, 3, 3}, {2, 1, 4, 4}},
     .label = "(bilinear)"});
MX_OP_TEST_CASE(
    {.op = "UpSampling",
     .attrs = {{"scale", "3"}, {"sample_type", "bilinear"}, {"num_args", "2"}, {"num_filter", "1"}},
     .shapes = {{2, 1, 2, 2}, {1, 1, 5, 5}},
     .label = "(bilinear odd scale)"});
MX_OP_TEST_CASE({.op = "_backward_UpSampling",
                 .attrs = {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "1"}},
                 .shapes = {{1, 2, 6, 6}, {1, 2, 3, 3}}});
MX_OP_TEST_CASE({.op = "_backward_UpSampling",
                 .attrs = {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}},
                 .shapes = {{1, 5, 4, 4}, {1, 2, 2, 2}, {1, 3, 1, 1}},
                 .label = "(concat)"});

#undef S

}  // namespace
}  // namespace mxnet::testing
