// Test cases (//ndarray:all_ops_test) of reduce_np_percentile.cc: _npi_percentile and _npi_unique
// (not differentiable, as in MXNet: attribute round trips, every backend vs the reference).
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

MX_OP_TEST_CASE({.op = "_npi_percentile",
                 .attrs = {{"q_scalar", "30"}, {"axis", "(1,)"}},
                 .shapes = {{3, 4}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_percentile",
                 .attrs = {{"interpolation", "nearest"}, {"keepdims", "True"}},
                 .shapes = {{2, 3}, {3}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{
                           RandomArray({2, 3}, -1, 1, seed, dt),
                           NDArray::FromVector(std::vector<double>{10, 50, 95}, Shape{3})};
                     },
                 .check_grad = false,
                 .label = "(q tensor)"});
MX_OP_TEST_CASE(
    {.op = "_npi_unique",
     .attrs = {{"return_index", "True"}, {"return_inverse", "True"}, {"return_counts", "True"}},
     .shapes = {{6}},
     .make_inputs =
         [](DType dt, uint64_t) {
           return std::vector<NDArray>{
               NDArray::FromVector(std::vector<double>{3, 1, 3, 2, 1, 3}, Shape{6}, cpu(), dt)};
         },
     .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_unique",
                 .attrs = {{"axis", "0"}},
                 .shapes = {{3, 2}},
                 .make_inputs =
                     [](DType dt, uint64_t) {
                       return std::vector<NDArray>{NDArray::FromVector(
                           std::vector<double>{1, 2, 0, 5, 1, 2}, Shape{3, 2}, cpu(), dt)};
                     },
                 .check_grad = false,
                 .label = "(rows)"});

}  // namespace
}  // namespace mxnet::testing
