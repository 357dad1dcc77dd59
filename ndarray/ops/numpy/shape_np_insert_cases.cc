// Test cases (//ndarray:all_ops_test) of shape_np_insert.cc: numpy.insert / numpy.delete and the
// boolean-mask assignment (attribute round trips, every backend vs the reference; none is
// differentiable, as in MXNet).
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

NDArray Ints(std::vector<double> v, Shape s, DType t = DType::kInt64) {
  return NDArray::FromVector(v, s, cpu(), t);
}

MX_OP_TEST_CASE({.op = "_npi_insert_scalar",
                 .attrs = {{"int_ind", "1"}, {"axis", "1"}},
                 .shapes = {{3, 4}, {3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_insert_scalar",
                 .attrs = {{"val", "2.5"}, {"int_ind", "-1"}},
                 .shapes = {{2, 3}},
                 .check_grad = false,
                 .label = "(val, flattened)"});
MX_OP_TEST_CASE({.op = "_npi_insert_slice",
                 .attrs = {{"start", "0"}, {"stop", "3"}, {"step", "2"}, {"axis", "0"}},
                 .shapes = {{3, 2}, {1, 2}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_insert_tensor",
                 .attrs = {{"axis", "1"}},
                 .shapes = {{2, 3}, {2, 2}, {2}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{RandomArray({2, 3}, -1, 1, seed, dt),
                                                   RandomArray({2, 2}, -1, 1, seed + 1, dt),
                                                   Ints({3, 0}, {2})};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_delete",
                 .attrs = {{"int_ind", "-1"}, {"axis", "0"}},
                 .shapes = {{3, 2}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_delete",
                 .attrs = {{"start", "1"}, {"step", "2"}},
                 .shapes = {{2, 3}},
                 .check_grad = false,
                 .label = "(slice, flattened)"});
MX_OP_TEST_CASE(
    {.op = "_npi_delete",
     .attrs = {{"axis", "1"}},
     .shapes = {{2, 4}, {3}},
     .make_inputs =
         [](DType dt, uint64_t seed) {
           return std::vector<NDArray>{RandomArray({2, 4}, -1, 1, seed, dt), Ints({-1, 0, 0}, {3})};
         },
     .check_grad = false,
     .label = "(tensor obj)"});
MX_OP_TEST_CASE({.op = "_npi_boolean_mask_assign_scalar",
                 .attrs = {{"value", "7"}, {"start_axis", "1"}},
                 .shapes = {{2, 3, 2}, {3}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{RandomArray({2, 3, 2}, -1, 1, seed, dt),
                                                   Ints({1, 0, 1}, {3}, DType::kBool)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_boolean_mask_assign_tensor",
                 .attrs = {{"start_axis", "0"}},
                 .shapes = {{3, 2}, {3}, {2, 2}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{RandomArray({3, 2}, -1, 1, seed, dt),
                                                   Ints({1, 0, 1}, {3}, DType::kBool),
                                                   RandomArray({2, 2}, -1, 1, seed + 1, dt)};
                     },
                 .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
