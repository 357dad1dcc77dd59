// Test cases of the shape family, enumerated by //ndarray:all_ops_test (finite-difference
// gradients in float64, backend comparison, attribute round trips).
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

// ---- shape changes ----
MX_OP_TEST_CASE({.op = "Reshape", .attrs = {{"shape", "(0, -1)"}}, .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "Reshape",
                 .attrs = {{"shape", "(-4, 1, 2, -2)"}},
                 .shapes = {{2, 3, 4}},
                 .label = "(split)"});
MX_OP_TEST_CASE(
    {.op = "Reshape", .attrs = {{"shape", "(-3, -1)"}}, .shapes = {{2, 3, 4}}, .label = "(merge)"});
MX_OP_TEST_CASE({.op = "reshape",
                 .attrs = {{"shape", "(-1, 0)"}, {"reverse", "True"}},
                 .shapes = {{4, 3, 2}},
                 .label = "(reverse)"});
MX_OP_TEST_CASE({.op = "Reshape",
                 .attrs = {{"target_shape", "(0, 4)"}},
                 .shapes = {{2, 3, 4}},
                 .label = "(legacy)"});
MX_OP_TEST_CASE({.op = "Reshape",
                 .attrs = {{"target_shape", "(9, 0)"}, {"keep_highest", "True"}},
                 .shapes = {{2, 3, 4}},
                 .label = "(keep_highest)"});
MX_OP_TEST_CASE({.op = "Flatten", .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "flatten", .shapes = {{5}}, .label = "(1-d)"});
MX_OP_TEST_CASE({.op = "expand_dims", .attrs = {{"axis", "-1"}}, .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "expand_dims", .attrs = {{"axis", "1"}}, .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "squeeze", .shapes = {{1, 3, 1, 2}}});
MX_OP_TEST_CASE(
    {.op = "squeeze", .attrs = {{"axis", "(-2,)"}}, .shapes = {{1, 3, 1, 2}}, .label = "(axis)"});
MX_OP_TEST_CASE({.op = "reshape_like", .shapes = {{6, 2}, {3, 4}}, .grad_inputs = {0}});
MX_OP_TEST_CASE(
    {.op = "reshape_like",
     .attrs = {{"lhs_begin", "0"}, {"lhs_end", "1"}, {"rhs_begin", "0"}, {"rhs_end", "2"}},
     .shapes = {{6, 4}, {3, 2, 5}},
     .grad_inputs = {0},
     .label = "(ranges)"});
MX_OP_TEST_CASE({.op = "shape_array", .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "size_array", .shapes = {{2, 3}}});

// ---- permutations ----
MX_OP_TEST_CASE({.op = "transpose", .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "transpose",
                 .attrs = {{"axes", "(0, 2, 3, 1)"}},
                 .shapes = {{2, 3, 4, 5}},
                 .label = "(nhwc)"});
MX_OP_TEST_CASE({.op = "transpose",
                 .attrs = {{"axes", "(1, -1, 0)"}},
                 .shapes = {{2, 3, 4}},
                 .label = "(negative)"});
MX_OP_TEST_CASE({.op = "SwapAxis", .attrs = {{"dim1", "0"}, {"dim2", "2"}}, .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "swapaxes",
                 .attrs = {{"dim1", "-1"}, {"dim2", "1"}},
                 .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "reverse", .attrs = {{"axis", "(0, 2)"}}, .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "flip", .attrs = {{"axis", "(1,)"}}, .shapes = {{3, 5}}});
MX_OP_TEST_CASE({.op = "depth_to_space", .attrs = {{"block_size", "2"}}, .shapes = {{2, 8, 2, 3}}});
MX_OP_TEST_CASE({.op = "space_to_depth", .attrs = {{"block_size", "2"}}, .shapes = {{2, 2, 4, 6}}});

// ---- join / split ----
MX_OP_TEST_CASE({.op = "Concat",
                 .attrs = {{"num_args", "3"}, {"dim", "1"}},
                 .shapes = {{2, 3}, {2, 1}, {2, 4}}});
MX_OP_TEST_CASE({.op = "concat",
                 .attrs = {{"num_args", "2"}, {"dim", "-1"}},
                 .shapes = {{2, 3, 2}, {2, 3, 3}},
                 .label = "(negative dim)"});
MX_OP_TEST_CASE({.op = "Concat",
                 .attrs = {{"num_args", "2"}, {"dim", "0"}},
                 .shapes = {{1, 3}, {2, 3}},
                 .label = "(dim 0)"});
MX_OP_TEST_CASE({.op = "_split_like",
                 .attrs = {{"num_args", "2"}, {"dim", "1"}},
                 .shapes = {{2, 8}, {2, 3}, {2, 5}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "stack",
                 .attrs = {{"num_args", "3"}, {"axis", "1"}},
                 .shapes = {{2, 3}, {2, 3}, {2, 3}}});
MX_OP_TEST_CASE({.op = "stack",
                 .attrs = {{"num_args", "2"}, {"axis", "-1"}},
                 .shapes = {{2, 3}, {2, 3}},
                 .label = "(last)"});
MX_OP_TEST_CASE({.op = "SliceChannel",
                 .attrs = {{"num_outputs", "3"}, {"axis", "1"}},
                 .shapes = {{4, 6}}});
MX_OP_TEST_CASE({.op = "split",
                 .attrs = {{"num_outputs", "3"}, {"axis", "0"}, {"squeeze_axis", "True"}},
                 .shapes = {{3, 2, 2}},
                 .label = "(squeeze)"});
MX_OP_TEST_CASE({.op = "_split_v2",
                 .attrs = {{"indices", "(0, 2, 3)"}, {"axis", "1"}},
                 .shapes = {{2, 5}}});
MX_OP_TEST_CASE({.op = "_split_v2",
                 .attrs = {{"indices", "()"}, {"sections", "3"}, {"axis", "0"}},
                 .shapes = {{7, 2}},
                 .label = "(sections)"});
MX_OP_TEST_CASE(
    {.op = "_split_v2",
     .attrs = {{"indices", "()"}, {"sections", "2"}, {"axis", "-1"}, {"squeeze_axis", "True"}},
     .shapes = {{3, 2}},
     .label = "(squeeze)"});

// ---- slicing ----
MX_OP_TEST_CASE({.op = "slice",
                 .attrs = {{"begin", "(1, None)"}, {"end", "(3, None)"}},
                 .shapes = {{4, 5}}});
MX_OP_TEST_CASE({.op = "slice",
                 .attrs = {{"begin", "(None, -1)"}, {"end", "(None, 0)"}, {"step", "(-2, -2)"}},
                 .shapes = {{5, 5, 2}},
                 .label = "(negative step)"});
MX_OP_TEST_CASE({.op = "crop",
                 .attrs = {{"begin", "(0, 1, 1)"}, {"end", "(2, 3, -1)"}, {"step", "(1, None, 2)"}},
                 .shapes = {{2, 3, 6}},
                 .label = "(step)"});
MX_OP_TEST_CASE({.op = "_slice_assign",
                 .attrs = {{"begin", "(1, 0)"}, {"end", "(3, 5)"}, {"step", "(1, 2)"}},
                 .shapes = {{4, 5}, {2, 3}}});
MX_OP_TEST_CASE({.op = "_slice_assign_scalar",
                 .attrs = {{"scalar", "2.5"}, {"begin", "(1,)"}, {"end", "(3,)"}},
                 .shapes = {{4, 5}}});
MX_OP_TEST_CASE({.op = "slice_axis",
                 .attrs = {{"axis", "1"}, {"begin", "1"}, {"end", "3"}},
                 .shapes = {{2, 5, 3}}});
MX_OP_TEST_CASE({.op = "slice_axis",
                 .attrs = {{"axis", "-1"}, {"begin", "-2"}, {"end", "None"}},
                 .shapes = {{2, 5}},
                 .label = "(negative)"});
MX_OP_TEST_CASE({.op = "_slice_axis_grad",
                 .attrs = {{"axis", "1"}, {"begin", "1"}, {"end", "3"}},
                 .shapes = {{2, 2, 3}, {2, 5, 3}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "slice_like", .shapes = {{4, 5}, {2, 3}}, .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "slice_like",
                 .attrs = {{"axes", "(1,)"}},
                 .shapes = {{4, 5, 3}, {1, 2}},
                 .grad_inputs = {0},
                 .label = "(axes)"});
MX_OP_TEST_CASE({.op = "_slice_like_grad", .shapes = {{2, 3}, {4, 5}}, .grad_inputs = {0}});

// ---- tile / repeat / pad ----
MX_OP_TEST_CASE({.op = "tile", .attrs = {{"reps", "(2, 1, 2)"}}, .shapes = {{2, 3}}});
MX_OP_TEST_CASE(
    {.op = "tile", .attrs = {{"reps", "(3,)"}}, .shapes = {{2, 3, 2}}, .label = "(short reps)"});
MX_OP_TEST_CASE({.op = "_tile_grad",
                 .attrs = {{"reps", "(2, 1, 2)"}},
                 .shapes = {{2, 2, 6}, {2, 3}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "repeat", .attrs = {{"repeats", "2"}, {"axis", "1"}}, .shapes = {{2, 3}}});
MX_OP_TEST_CASE(
    {.op = "repeat", .attrs = {{"repeats", "3"}}, .shapes = {{2, 2}}, .label = "(flat)"});
MX_OP_TEST_CASE({.op = "_repeat_grad",
                 .attrs = {{"repeats", "2"}, {"axis", "-1"}},
                 .shapes = {{2, 6}, {2, 3}},
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_repeat_grad",
                 .attrs = {{"repeats", "3"}},
                 .shapes = {{12}, {2, 2}},
                 .grad_inputs = {0},
                 .label = "(flat)"});
MX_OP_TEST_CASE({.op = "Pad",
                 .attrs = {{"mode", "constant"},
                           {"pad_width", "(0, 0, 0, 0, 1, 2, 2, 1)"},
                           {"constant_value", "1.5"}},
                 .shapes = {{1, 2, 3, 4}}});
MX_OP_TEST_CASE({.op = "pad",
                 .attrs = {{"mode", "edge"}, {"pad_width", "(0, 0, 0, 0, 2, 1, 0, 3)"}},
                 .shapes = {{2, 1, 3, 2}},
                 .label = "(edge)"});
MX_OP_TEST_CASE({.op = "Pad",
                 .attrs = {{"mode", "reflect"}, {"pad_width", "(0, 0, 0, 0, 2, 1, 1, 2)"}},
                 .shapes = {{1, 2, 3, 4}},
                 .label = "(reflect)"});
MX_OP_TEST_CASE({.op = "Pad",
                 .attrs = {{"mode", "reflect"}, {"pad_width", "(0, 0, 0, 0, 1, 1, 1, 0, 0, 2)"}},
                 .shapes = {{1, 1, 2, 3, 3}},
                 .label = "(5-d)"});
MX_OP_TEST_CASE({.op = "_pad_grad",
                 .attrs = {{"mode", "constant"}, {"pad_width", "(0, 0, 0, 0, 1, 2, 2, 1)"}},
                 .shapes = {{1, 2, 6, 7}}});
MX_OP_TEST_CASE({.op = "_pad_grad",
                 .attrs = {{"mode", "edge"}, {"pad_width", "(0, 0, 0, 0, 2, 1, 0, 3)"}},
                 .shapes = {{2, 1, 6, 5}},
                 .label = "(edge)"});
MX_OP_TEST_CASE({.op = "_pad_grad",
                 .attrs = {{"mode", "reflect"}, {"pad_width", "(0, 0, 0, 0, 2, 1, 1, 2)"}},
                 .shapes = {{1, 2, 6, 7}},
                 .label = "(reflect)"});

// ---- creation (no inputs) ----
MX_OP_TEST_CASE({.op = "_zeros", .attrs = {{"shape", "(2, 3)"}}});
MX_OP_TEST_CASE({.op = "_ones", .attrs = {{"shape", "(4,)"}, {"dtype", "int32"}}});
MX_OP_TEST_CASE({.op = "_full",
                 .attrs = {{"shape", "(2, 2)"}, {"value", "3.5"}, {"dtype", "float64"}}});
MX_OP_TEST_CASE({.op = "_arange",
                 .attrs = {{"start", "1"}, {"stop", "4"}, {"step", "0.5"}, {"repeat", "2"}}});
MX_OP_TEST_CASE({.op = "_eye", .attrs = {{"N", "3"}, {"M", "4"}, {"k", "-1"}}});
MX_OP_TEST_CASE({.op = "_linspace",
                 .attrs = {{"start", "0"}, {"stop", "1"}, {"num", "5"}, {"endpoint", "False"}}});

// ---- random (compared statistically in shape_random_test.cc) ----
MX_OP_TEST_CASE({.op = "_random_uniform",
                 .attrs = {{"low", "-1"}, {"high", "2"}, {"shape", "(3, 4)"}}});
MX_OP_TEST_CASE({.op = "_random_normal",
                 .attrs = {{"loc", "1"}, {"scale", "2"}, {"shape", "(5,)"}, {"dtype", "float64"}}});
MX_OP_TEST_CASE({.op = "_random_randint",
                 .attrs = {{"low", "-3"}, {"high", "7"}, {"shape", "(6,)"}}});
MX_OP_TEST_CASE({.op = "_shuffle", .shapes = {{5, 3}}});
MX_OP_TEST_CASE({.op = "_sample_uniform",
                 .attrs = {{"shape", "(3,)"}},
                 .make_inputs = [](DType t, uint64_t seed) {
                   return std::vector<NDArray>{RandomArray({2, 2}, -1, 0, seed, t),
                                               RandomArray({2, 2}, 1, 2, seed + 1, t)};
                 }});
MX_OP_TEST_CASE({.op = "_sample_normal",
                 .attrs = {{"shape", "(2,)"}},
                 .make_inputs = [](DType t, uint64_t seed) {
                   return std::vector<NDArray>{RandomArray({3}, -1, 1, seed, t),
                                               RandomArray({3}, 0.5, 2, seed + 1, t)};
                 }});

}  // namespace
}  // namespace mxnet::testing
