// Test cases of the optim family's fused AdamW / LAMB / group AdaGrad ops (optim_multi2.cc),
// enumerated by //ndarray:all_ops_test: none is differentiable; the cases run every kernel and
// round-trip the attributes. Values are checked against MXNet in optim_multi2_test.cc.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

// For each of `shapes`: weight, grad in the case dtype, mean (in [-0.1, 0.1]) and var (in
// [0, 0.1]) in the case dtype (float32 for mp), then weight32 (mp); then AdamW's rescale_grad.
auto Inputs(std::vector<Shape> shapes, bool mp, bool scale) {
  return [=](DType t, uint64_t seed) {
    std::vector<NDArray> v;
    uint64_t k = seed * 131;
    const DType st = mp ? DType::kFloat32 : t;
    for (const Shape& s : shapes) {
      v.push_back(RandomArray(s, -1, 1, k++, t));
      v.push_back(RandomArray(s, -1, 1, k++, t));
      v.push_back(RandomArray(s, -0.1, 0.1, k++, st));
      v.push_back(RandomArray(s, 0, 0.1, k++, st));
      if (mp) v.push_back(RandomArray(s, -1, 1, k++, DType::kFloat32));
    }
    if (scale) v.push_back(NDArray::Full(Shape{1}, 0.5, cpu(), st));
    return v;
  };
}

const std::vector<Shape> kTwo{{2, 3}, {4}};

MX_OP_TEST_CASE({.op = "_multi_adamw_update",
                 .attrs = {{"lrs", "(0.1, 0.2)"},
                           {"wds", "(0.01, 0.0)"},
                           {"etas", "(1.0, 0.5)"},
                           {"clip_gradient", "0.4"},
                           {"num_weights", "2"}},
                 .make_inputs = Inputs(kTwo, false, true),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_multi_mp_adamw_update",
                 .attrs = {{"lrs", "(0.1,)"}, {"wds", "(0.01,)"}, {"etas", "(1.0,)"}},
                 .make_inputs = Inputs({{3, 2}}, true, true),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_multi_lamb_update",
                 .attrs = {{"learning_rates", "(0.1, 0.2)"},
                           {"wds", "(0.01, 0.0)"},
                           {"step_count", "(1, 3)"},
                           {"num_tensors", "2"}},
                 .make_inputs = Inputs(kTwo, false, false),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_multi_mp_lamb_update",
                 .attrs = {{"learning_rates", "(0.1,)"},
                           {"wds", "(0.01,)"},
                           {"step_count", "(2,)"},
                           {"bias_correction", "False"},
                           {"lower_bound", "0.1"},
                           {"upper_bound", "2"}},
                 .make_inputs = Inputs({{5}}, true, false),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_group_adagrad_update",
                 .attrs = {{"lr", "0.1"}, {"clip_gradient", "0.5"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return std::vector<NDArray>{RandomArray({3, 2}, -1, 1, seed, t),
                                                   RandomArray({3, 2}, -1, 1, seed + 1, t),
                                                   RandomArray({3, 1}, 0, 1, seed + 2, t)};
                     },
                 .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
