// Test cases of the optim family's multi-tensor ops (optim_multi.cc), enumerated by
// //ndarray:all_ops_test: none is differentiable; the cases run every kernel and round-trip the
// attributes. Values are checked against MXNet in optim_multi_test.cc.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

// Inputs of a multi SGD op: for each of `shapes`, weight and grad in the case dtype, then
// `n_typed` more states in that dtype and `n_f32` float32 states; then (preloaded) float32 lrs
// and wds of shapes.size() elements.
auto MultiInputs(std::vector<Shape> shapes, int n_typed, int n_f32, bool preloaded) {
  return [=](DType t, uint64_t seed) {
    std::vector<NDArray> v;
    uint64_t k = seed * 131;
    for (const Shape& s : shapes) {
      for (int i = 0; i < 2 + n_typed; ++i) v.push_back(RandomArray(s, -1, 1, k++, t));
      for (int i = 0; i < n_f32; ++i) v.push_back(RandomArray(s, -1, 1, k++, DType::kFloat32));
    }
    if (preloaded) {
      Shape n{static_cast<int64_t>(shapes.size())};
      v.push_back(RandomArray(n, 0.01, 0.2, k++, DType::kFloat32));
      v.push_back(RandomArray(n, 0.0, 0.01, k++, DType::kFloat32));
    }
    return v;
  };
}

const std::vector<Shape> kTwo{{2, 3}, {4}};

MX_OP_TEST_CASE({.op = "multi_sgd_update",
                 .attrs = {{"lrs", "(0.1, 0.2)"}, {"wds", "(0.01, 0.0)"}, {"num_weights", "2"}},
                 .make_inputs = MultiInputs(kTwo, 0, 0, false),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "multi_sgd_mom_update",
                 .attrs = {{"lrs", "(0.1, 0.2)"},
                           {"wds", "(0.01, 0.0)"},
                           {"momentum", "0.9"},
                           {"clip_gradient", "0.5"},
                           {"num_weights", "2"}},
                 .make_inputs = MultiInputs(kTwo, 1, 0, false),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "multi_mp_sgd_update",
                 .attrs = {{"lrs", "(0.1,)"}, {"wds", "(0.01,)"}, {"rescale_grad", "0.5"}},
                 .make_inputs = MultiInputs({{3, 2}}, 0, 1, false),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "multi_mp_sgd_mom_update",
                 .attrs = {{"lrs", "(0.1, 0.05)"},
                           {"wds", "(0.01, 0.02)"},
                           {"momentum", "0.9"},
                           {"num_weights", "2"}},
                 .make_inputs = MultiInputs(kTwo, 0, 2, false),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "preloaded_multi_sgd_update",
                 .attrs = {{"num_weights", "2"}, {"clip_gradient", "0.3"}},
                 .make_inputs = MultiInputs(kTwo, 0, 0, true),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "preloaded_multi_sgd_mom_update",
                 .attrs = {{"num_weights", "2"}, {"momentum", "0.8"}},
                 .make_inputs = MultiInputs(kTwo, 1, 0, true),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "preloaded_multi_mp_sgd_update",
                 .attrs = {{"num_weights", "1"}},
                 .make_inputs = MultiInputs({{5}}, 0, 1, true),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "preloaded_multi_mp_sgd_mom_update",
                 .attrs = {{"num_weights", "2"}, {"momentum", "0.9"}, {"rescale_grad", "2"}},
                 .make_inputs = MultiInputs(kTwo, 0, 2, true),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "ftml_update",
                 .attrs = {{"lr", "0.1"}, {"t", "2"}, {"wd", "0.01"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       Shape s{3, 2};
                       return std::vector<NDArray>{
                           RandomArray(s, -1, 1, seed, t), RandomArray(s, -1, 1, seed + 1, t),
                           RandomArray(s, 0.5, 1, seed + 2, t), RandomArray(s, 0, 1, seed + 3, t),
                           RandomArray(s, -1, 1, seed + 4, t)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "multi_sum_sq",
                 .attrs = {{"num_arrays", "3"}},
                 .shapes = {{2, 3}, {4}, {1}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "multi_lars",
                 .attrs = {{"eta", "0.001"}, {"eps", "1e-08"}},
                 .make_inputs =
                     [](DType, uint64_t seed) {
                       std::vector<NDArray> v;
                       for (int i = 0; i < 4; ++i)
                         v.push_back(RandomArray({5}, 0, 1, seed + i, DType::kFloat32));
                       return v;
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "all_finite", .shapes = {{3, 4}}, .check_grad = false});
MX_OP_TEST_CASE({.op = "all_finite",
                 .attrs = {{"init_output", "False"}},
                 .shapes = {{3}},
                 .check_grad = false,
                 .label = "(no init)"});
MX_OP_TEST_CASE({.op = "multi_all_finite",
                 .attrs = {{"num_arrays", "2"}},
                 .shapes = {{3, 4}, {2}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "reset_arrays",
                 .attrs = {{"num_arrays", "2"}},
                 .shapes = {{3, 4}, {2}},
                 .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
