// Test cases of the optim family, enumerated by //ndarray:all_ops_test. The ops are not
// differentiable; the cases run every kernel and round-trip the attributes. Values are kept in
// the ops' domains (non-negative second moments, n - g^2 > 0 for the centered RMSProp).
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

// `n_typed` inputs of the case dtype then `n_f32` float32 inputs (mp_* states), all of `shape`,
// then `n_scalar` one-element float32 inputs; values uniform in [lo, hi).
auto Mixed(Shape shape, int n_typed, int n_f32, int n_scalar = 0, double lo = 0.0,
           double hi = 1.0) {
  return [=](DType t, uint64_t seed) {
    std::vector<NDArray> v;
    int k = 0;
    for (int i = 0; i < n_typed; ++i) v.push_back(RandomArray(shape, lo, hi, seed * 131 + k++, t));
    for (int i = 0; i < n_f32; ++i)
      v.push_back(RandomArray(shape, lo, hi, seed * 131 + k++, DType::kFloat32));
    for (int i = 0; i < n_scalar; ++i)
      v.push_back(RandomArray(Shape{1}, 0.5, 1.5, seed * 131 + k++, DType::kFloat32));
    return v;
  };
}

MX_OP_TEST_CASE({.op = "sgd_update",
                 .attrs = {{"lr", "0.1"}, {"wd", "0.01"}},
                 .shapes = {{3, 4}, {3, 4}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "sgd_update",
                 .attrs = {{"lr", "0.1"}, {"rescale_grad", "0.5"}, {"clip_gradient", "0.2"}},
                 .shapes = {{5}, {5}},
                 .check_grad = false,
                 .label = "(clip)"});
MX_OP_TEST_CASE({.op = "sgd_mom_update",
                 .attrs = {{"lr", "0.1"}, {"momentum", "0.9"}, {"wd", "0.01"}},
                 .shapes = {{3, 4}, {3, 4}, {3, 4}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "mp_sgd_update",
                 .attrs = {{"lr", "0.1"}, {"wd", "0.01"}},
                 .make_inputs = Mixed({2, 3}, 2, 1),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "mp_sgd_mom_update",
                 .attrs = {{"lr", "0.1"}, {"momentum", "0.9"}, {"clip_gradient", "0.5"}},
                 .make_inputs = Mixed({2, 3}, 2, 2),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "nag_mom_update",
                 .attrs = {{"lr", "0.1"}, {"momentum", "0.9"}, {"wd", "0.01"}},
                 .shapes = {{4, 3}, {4, 3}, {4, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "mp_nag_mom_update",
                 .attrs = {{"lr", "0.1"}, {"momentum", "0.9"}},
                 .make_inputs = Mixed({4}, 2, 2),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "adam_update",
                 .attrs = {{"lr", "0.01"}, {"wd", "0.001"}},
                 .shapes = {{3, 2}, {3, 2}, {3, 2}, {3, 2}},
                 .lo = 0.0,
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_adamw_update",
                 .attrs = {{"lr", "0.01"}, {"eta", "0.5"}, {"wd", "0.01"}},
                 .make_inputs = Mixed({3, 2}, 4, 0, 1),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_mp_adamw_update",
                 .attrs = {{"lr", "0.01"}, {"eta", "1.0"}, {"clip_gradient", "0.5"}},
                 .make_inputs = Mixed({3, 2}, 2, 3, 1),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "rmsprop_update",
                 .attrs = {{"lr", "0.01"}, {"gamma1", "0.9"}, {"clip_weights", "0.5"}},
                 .shapes = {{6}, {6}, {6}},
                 .lo = 0.0,
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "rmspropalex_update",
                 .attrs = {{"lr", "0.01"}, {"wd", "0.01"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       Shape s{2, 3};
                       return std::vector<NDArray>{RandomArray(s, -1, 1, seed, t),
                                                   RandomArray(s, -1, 1, seed + 1, t),
                                                   RandomArray(s, 1, 2, seed + 2, t),
                                                   RandomArray(s, -0.5, 0.5, seed + 3, t),
                                                   RandomArray(s, -0.1, 0.1, seed + 4, t)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "ftrl_update",
                 .attrs = {{"lr", "0.1"}, {"lamda1", "0.01"}, {"wd", "0.01"}},
                 .shapes = {{3, 3}, {3, 3}, {3, 3}, {3, 3}},
                 .lo = 0.0,
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_sparse_adagrad_update",
                 .attrs = {{"lr", "0.1"}, {"rescale_grad", "0.5"}},
                 .shapes = {{3, 4}, {3, 4}, {3, 4}},
                 .lo = 0.0,
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "signsgd_update",
                 .attrs = {{"lr", "0.1"}, {"wd", "0.01"}},
                 .shapes = {{5}, {5}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "signum_update",
                 .attrs = {{"lr", "0.1"}, {"momentum", "0.9"}, {"wd_lh", "0.01"}},
                 .shapes = {{5}, {5}, {5}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "lamb_update_phase1",
                 .attrs = {{"t", "2"}, {"wd", "0.01"}},
                 .shapes = {{3, 4}, {3, 4}, {3, 4}, {3, 4}},
                 .lo = 0.0,
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "lamb_update_phase2",
                 .attrs = {{"lr", "0.01"}, {"lower_bound", "0.1"}, {"upper_bound", "10"}},
                 .shapes = {{3, 4}, {3, 4}, {1}, {1}},
                 .lo = 0.5,
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "mp_lamb_update_phase1",
                 .attrs = {{"t", "1"}, {"wd", "0.01"}, {"bias_correction", "False"}},
                 .make_inputs = Mixed({2, 2}, 2, 3),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "mp_lamb_update_phase2",
                 .attrs = {{"lr", "0.01"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       Shape s{2, 2};
                       return std::vector<NDArray>{
                           RandomArray(s, -1, 1, seed, t),
                           RandomArray(s, -1, 1, seed + 1, DType::kFloat32),
                           RandomArray({1}, 0.5, 1, seed + 2, DType::kFloat32),
                           RandomArray({1}, 0.5, 1, seed + 3, DType::kFloat32),
                           RandomArray(s, -1, 1, seed + 4, DType::kFloat32)};
                     },
                 .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
