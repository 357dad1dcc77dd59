// Test cases (//ndarray:all_ops_test) of the data-dependent-shape ops (reduce_mask.cc). Masks are
// fixed (not random) so finite differences never flip which rows are kept.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {
// data: random (shape); index: fixed values `mask` in dtype `idx_dt` (float dt if unset).
std::function<std::vector<NDArray>(DType, uint64_t)> DataAndMask(
    Shape shape, std::vector<double> mask, std::optional<DType> idx_dt = std::nullopt) {
  return [=](DType dt, uint64_t seed) {
    int64_t n = static_cast<int64_t>(mask.size());
    return std::vector<NDArray>{RandomArray(shape, -1, 1, seed, dt),
                                NDArray::FromVector(mask, {n}, cpu(), idx_dt.value_or(dt))};
  };
}
}  // namespace

MX_OP_TEST_CASE({.op = "_contrib_boolean_mask",
                 .shapes = {{4, 3}, {4}},
                 .make_inputs = DataAndMask({4, 3}, {1, 0, 1, 0}),
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_contrib_boolean_mask",
                 .attrs = {{"axis", "0"}},
                 .shapes = {{5, 2, 3}, {5}},
                 .make_inputs = DataAndMask({5, 2, 3}, {0, 2, -1, 0.5, 0}, DType::kInt64),
                 .grad_inputs = {0},
                 .label = "(int64 mask, 3-d data)"});
MX_OP_TEST_CASE({.op = "_contrib_boolean_mask",
                 .shapes = {{3}, {3}},
                 .make_inputs = DataAndMask({3}, {0, 0, 0}),
                 .grad_inputs = {0},
                 .label = "(nothing kept)"});
MX_OP_TEST_CASE({.op = "_backward_contrib_boolean_mask",
                 .shapes = {{2, 3}, {4, 3}, {4}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{
                           RandomArray({2, 3}, -1, 1, seed, dt),
                           RandomArray({4, 3}, -1, 1, seed + 1, dt),
                           NDArray::FromVector(std::vector<double>{0, 1, 0, 1}, {4}, cpu(), dt)};
                     },
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_npx_nonzero",
                 .shapes = {{2, 3}},
                 .make_inputs =
                     [](DType dt, uint64_t) {
                       return std::vector<NDArray>{NDArray::FromVector(
                           std::vector<double>{0, 1, 0, 2, 0, 3}, {2, 3}, cpu(), dt)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE(
    {.op = "_npx_nonzero", .shapes = {{2, 2, 2}}, .check_grad = false, .label = "(random, 3-d)"});

}  // namespace mxnet::testing
