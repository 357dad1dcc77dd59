// Test cases (//ndarray:all_ops_test) of shape_np_choice.cc: _npi_choice (random: attribute round
// trips; statistics in shape_np_choice_test.cc).
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

MX_OP_TEST_CASE({.op = "_npi_choice",
                 .attrs = {{"a", "5"}, {"size", "(2, 3)"}},
                 .shapes = {},
                 .check_grad = false});
MX_OP_TEST_CASE(
    {.op = "_npi_choice",
     .attrs = {{"a", "None"}, {"size", "(2,)"}, {"replace", "False"}, {"weighted", "True"}},
     .shapes = {{4}, {4}},
     .make_inputs =
         [](DType dt, uint64_t seed) {
           return std::vector<NDArray>{
               RandomArray({4}, -1, 1, seed, dt),
               NDArray::FromVector(std::vector<double>{0.1, 0.2, 0.3, 0.4}, Shape{4})};
         },
     .check_grad = false,
     .label = "(population input, weighted, no replacement)"});

}  // namespace
}  // namespace mxnet::testing
