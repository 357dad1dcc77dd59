// Test cases of the nn family, enumerated by //ndarray:all_ops_test (finite-difference gradients
// in float64, oneDNN kernels vs the reference in float32, attribute round trips).
//
// Loss layers (SoftmaxOutput, *RegressionOutput) have check_grad = false: by MXNet's contract
// their "gradient" is the loss gradient against the label, not the derivative of the forward
// output; nn_test.cc checks it against real MXNet instead.
#include <vector>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

NDArray Rand(const Shape& s, double lo, double hi, uint64_t seed, DType t) {
  return RandomArray(s, lo, hi, seed, t);
}

// Integer-valued array (class labels, lengths) in [0, n) stored as `t`.
NDArray Labels(const Shape& s, int n, uint64_t seed, DType t) {
  NDArray r = RandomArray(s, 0, n, seed, DType::kFloat64);
  std::vector<double> v = r.ToVector<double>();
  for (auto& x : v) x = static_cast<int>(x);
  return NDArray::FromVector(v, s, cpu(), t);
}

DType ParamType(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 ? DType::kFloat32 : t;
}

// BatchNorm inputs: data, gamma in [0.5, 1.5), beta, moving_mean, moving_var in [0.5, 1.5).
auto BNInputs(Shape data, int axis) {
  return [data, axis](DType t, uint64_t seed) {
    int a = axis < 0 ? axis + data.ndim() : axis;
    Shape c{data[a]};
    DType pt = ParamType(t);
    return std::vector<NDArray>{Rand(data, -1, 1, seed, t), Rand(c, 0.5, 1.5, seed + 1, pt),
                                Rand(c, -1, 1, seed + 2, pt), Rand(c, -0.5, 0.5, seed + 3, pt),
                                Rand(c, 0.5, 1.5, seed + 4, pt)};
  };
}

// ---- BatchNorm ----
MX_OP_TEST_CASE({.op = "BatchNorm",
                 .attrs = {{"fix_gamma", "False"}},
                 .make_inputs = BNInputs({2, 3, 2, 2}, 1),
                 .label = "(inference)"});
MX_OP_TEST_CASE({.op = "BatchNorm",
                 .attrs = {{"fix_gamma", "False"}, {"eps", "1e-05"}},
                 .make_inputs = BNInputs({4, 3, 2, 2}, 1),
                 .is_train = true,
                 .label = "(train)"});
MX_OP_TEST_CASE({.op = "BatchNorm",
                 .make_inputs = BNInputs({3, 2, 3}, 1),
                 .is_train = true,
                 .label = "(train, fix_gamma default)"});
MX_OP_TEST_CASE({.op = "BatchNorm",
                 .attrs = {{"fix_gamma", "False"}, {"axis", "-1"}},
                 .make_inputs = BNInputs({2, 3, 4}, -1),
                 .is_train = true,
                 .label = "(train, axis -1)"});
MX_OP_TEST_CASE({.op = "BatchNorm",
                 .attrs = {{"fix_gamma", "False"}, {"use_global_stats", "True"}},
                 .make_inputs = BNInputs({3, 2, 2}, 1),
                 .is_train = true,
                 .label = "(use_global_stats)"});
MX_OP_TEST_CASE({.op = "BatchNorm",
                 .attrs = {{"fix_gamma", "False"}, {"output_mean_var", "True"}},
                 .make_inputs = BNInputs({4, 3}, 1),
                 .is_train = true,
                 .label = "(train, output_mean_var, 2-D)"});
MX_OP_TEST_CASE({.op = "BatchNorm",
                 .attrs = {{"fix_gamma", "False"}, {"output_mean_var", "True"}, {"axis", "0"}},
                 .make_inputs = BNInputs({3, 4}, 0),
                 .label = "(inference, output_mean_var, axis 0)"});

// _backward_BatchNorm(ograd, data, gamma, mean, invstd, batch_stats[, ograd_mean, ograd_var])
auto BNBackwardInputs(Shape data, bool batch, bool stat_grads) {
  return [=](DType t, uint64_t seed) {
    Shape c{data[1]};
    DType pt = ParamType(t);
    std::vector<NDArray> v{
        Rand(data, -1, 1, seed, t),      Rand(data, -1, 1, seed + 1, t),
        Rand(c, 0.5, 1.5, seed + 2, pt), Rand(c, -0.5, 0.5, seed + 3, pt),
        Rand(c, 0.5, 1.5, seed + 4, pt), NDArray::Full({1}, batch ? 1 : 0, cpu(), pt)};
    if (stat_grads) {
      v.push_back(Rand(c, -1, 1, seed + 5, pt));
      v.push_back(Rand(c, -1, 1, seed + 6, pt));
    }
    return v;
  };
}
MX_OP_TEST_CASE({.op = "_backward_BatchNorm",
                 .attrs = {{"fix_gamma", "False"}},
                 .make_inputs = BNBackwardInputs({2, 3, 2, 2}, true, false),
                 .label = "(batch stats)"});
MX_OP_TEST_CASE({.op = "_backward_BatchNorm",
                 .attrs = {{"fix_gamma", "True"}},
                 .make_inputs = BNBackwardInputs({2, 3, 4}, false, false),
                 .label = "(moving stats)"});
MX_OP_TEST_CASE({.op = "_backward_BatchNorm",
                 .attrs = {{"fix_gamma", "False"}, {"output_mean_var", "True"}},
                 .make_inputs = BNBackwardInputs({3, 2}, true, true),
                 .label = "(stat grads)"});

// ---- LayerNorm, GroupNorm, InstanceNorm ----
MX_OP_TEST_CASE({.op = "LayerNorm", .shapes = {{2, 3, 4}, {4}, {4}}});
MX_OP_TEST_CASE({.op = "LayerNorm",
                 .attrs = {{"axis", "1"}, {"output_mean_var", "True"}, {"eps", "0.001"}},
                 .shapes = {{2, 3, 2}, {3}, {3}},
                 .label = "(axis 1, output_mean_var)"});
MX_OP_TEST_CASE({.op = "LayerNorm",
                 .attrs = {{"output_mean_var", "True"}},
                 .shapes = {{5, 6}, {6}, {6}},
                 .label = "(2-D, output_mean_var)"});
MX_OP_TEST_CASE({.op = "GroupNorm",
                 .attrs = {{"num_groups", "2"}},
                 .shapes = {{2, 4, 3}, {2}, {2}}});
MX_OP_TEST_CASE({.op = "GroupNorm",
                 .attrs = {{"num_groups", "3"}, {"output_mean_var", "True"}},
                 .shapes = {{2, 3, 2, 2}, {3}, {3}},
                 .label = "(output_mean_var)"});
MX_OP_TEST_CASE({.op = "InstanceNorm", .shapes = {{2, 3, 4}, {3}, {3}}});
MX_OP_TEST_CASE({.op = "InstanceNorm",
                 .attrs = {{"eps", "1e-05"}},
                 .shapes = {{1, 2, 2, 3}, {2}, {2}},
                 .label = "(4-D)"});

// _backward_X(ograd, data, gamma, mean, std[, ograd_mean, ograd_std])
auto RowBackwardInputs(Shape data, Shape param, Shape stat, bool stat_grads) {
  return [=](DType t, uint64_t seed) {
    std::vector<NDArray> v{Rand(data, -1, 1, seed, t), Rand(data, -1, 1, seed + 1, t),
                           Rand(param, 0.5, 1.5, seed + 2, t), Rand(stat, -0.5, 0.5, seed + 3, t),
                           Rand(stat, 0.5, 1.5, seed + 4, t)};
    if (stat_grads) {
      v.push_back(Rand(stat, -1, 1, seed + 5, t));
      v.push_back(Rand(stat, -1, 1, seed + 6, t));
    }
    return v;
  };
}
MX_OP_TEST_CASE({.op = "_backward_LayerNorm",
                 .make_inputs = RowBackwardInputs({2, 3}, {3}, {2, 1}, false)});
MX_OP_TEST_CASE({.op = "_backward_LayerNorm",
                 .attrs = {{"axis", "0"}, {"output_mean_var", "True"}},
                 .make_inputs = RowBackwardInputs({2, 3}, {2}, {1, 3}, true),
                 .label = "(stat grads)"});
MX_OP_TEST_CASE({.op = "_backward_GroupNorm",
                 .attrs = {{"num_groups", "2"}},
                 .make_inputs = RowBackwardInputs({2, 4, 2}, {2}, {2, 2}, false)});
MX_OP_TEST_CASE({.op = "_backward_InstanceNorm",
                 .make_inputs = RowBackwardInputs({2, 3, 2}, {3}, {2, 3}, false)});

// ---- Activation ----
MX_OP_TEST_CASE(
    {.op = "Activation", .attrs = {{"act_type", "relu"}}, .shapes = {{3, 4}}, .label = "(relu)"});
MX_OP_TEST_CASE({.op = "Activation",
                 .attrs = {{"act_type", "sigmoid"}},
                 .shapes = {{3, 4}},
                 .lo = -3,
                 .hi = 3,
                 .label = "(sigmoid)"});
MX_OP_TEST_CASE({.op = "Activation",
                 .attrs = {{"act_type", "tanh"}},
                 .shapes = {{3, 4}},
                 .lo = -2,
                 .hi = 2,
                 .label = "(tanh)"});
MX_OP_TEST_CASE({.op = "Activation",
                 .attrs = {{"act_type", "softrelu"}},
                 .shapes = {{3, 4}},
                 .lo = -3,
                 .hi = 3,
                 .label = "(softrelu)"});
MX_OP_TEST_CASE({.op = "Activation",
                 .attrs = {{"act_type", "softsign"}},
                 .shapes = {{3, 4}},
                 .lo = -3,
                 .hi = 3,
                 .label = "(softsign)"});
MX_OP_TEST_CASE({.op = "_nn_step", .shapes = {{2, 5}}});
MX_OP_TEST_CASE({.op = "_nn_act_deriv",
                 .attrs = {{"act_type", "gelu"}},
                 .shapes = {{2, 5}},
                 .lo = -3,
                 .hi = 3});
MX_OP_TEST_CASE({.op = "_nn_act_deriv",
                 .attrs = {{"act_type", "softsign"}},
                 .shapes = {{2, 5}},
                 .lo = -0.9,
                 .hi = 0.9,
                 .label = "(softsign, of the output)"});
MX_OP_TEST_CASE({.op = "_nn_act_deriv",
                 .attrs = {{"act_type", "softrelu"}},
                 .shapes = {{2, 5}},
                 .lo = 0.01,
                 .hi = 3,
                 .label = "(softrelu, of the output)"});
MX_OP_TEST_CASE({.op = "_nn_act_deriv2",
                 .attrs = {{"act_type", "gelu"}},
                 .shapes = {{2, 5}},
                 .lo = -3,
                 .hi = 3});
MX_OP_TEST_CASE({.op = "_nn_act_deriv2",
                 .attrs = {{"act_type", "softsign"}},
                 .shapes = {{2, 5}},
                 .lo = -0.9,
                 .hi = 0.9,
                 .label = "(softsign)"});
MX_OP_TEST_CASE({.op = "_nn_act_deriv2",
                 .attrs = {{"act_type", "softrelu"}},
                 .shapes = {{2, 5}},
                 .lo = 0.01,
                 .hi = 3,
                 .label = "(softrelu)"});
MX_OP_TEST_CASE({.op = "_nn_channel_bcast", .shapes = {{3}, {2, 3, 4}}, .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_nn_channel_bcast",
                 .attrs = {{"axis", "-1"}},
                 .shapes = {{1}, {2, 3}},
                 .grad_inputs = {0},
                 .label = "(scalar)"});
MX_OP_TEST_CASE({.op = "_nn_channel_sum", .shapes = {{2, 3, 4}, {3}}, .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_nn_channel_sum",
                 .attrs = {{"axis", "0"}},
                 .shapes = {{2, 3}, {1}},
                 .grad_inputs = {0},
                 .label = "(scalar)"});

// ---- LeakyReLU ----
MX_OP_TEST_CASE({.op = "LeakyReLU", .shapes = {{3, 4}}, .label = "(leaky)"});
MX_OP_TEST_CASE({.op = "LeakyReLU",
                 .attrs = {{"act_type", "elu"}, {"slope", "0.5"}},
                 .shapes = {{3, 4}},
                 .lo = -2,
                 .hi = 2,
                 .label = "(elu)"});
MX_OP_TEST_CASE({.op = "LeakyReLU",
                 .attrs = {{"act_type", "selu"}},
                 .shapes = {{3, 4}},
                 .lo = -2,
                 .hi = 2,
                 .label = "(selu)"});
MX_OP_TEST_CASE({.op = "LeakyReLU",
                 .attrs = {{"act_type", "gelu"}},
                 .shapes = {{3, 4}},
                 .lo = -3,
                 .hi = 3,
                 .label = "(gelu)"});
MX_OP_TEST_CASE({.op = "LeakyReLU",
                 .attrs = {{"act_type", "prelu"}},
                 .shapes = {{2, 3, 2}, {3}},
                 .label = "(prelu)"});
MX_OP_TEST_CASE({.op = "LeakyReLU",
                 .attrs = {{"act_type", "prelu"}},
                 .shapes = {{4, 2}, {1}},
                 .label = "(prelu, shared slope)"});
MX_OP_TEST_CASE({.op = "LeakyReLU",
                 .attrs = {{"act_type", "rrelu"}},
                 .shapes = {{3, 4}},
                 .is_train = true,
                 .label = "(rrelu, train)"});
MX_OP_TEST_CASE({.op = "LeakyReLU",
                 .attrs = {{"act_type", "rrelu"}, {"lower_bound", "0.1"}, {"upper_bound", "0.3"}},
                 .shapes = {{3, 4}},
                 .label = "(rrelu, predict)"});

// ---- Dropout ----
MX_OP_TEST_CASE({.op = "Dropout", .shapes = {{4, 5}}, .is_train = true, .label = "(train)"});
MX_OP_TEST_CASE(
    {.op = "Dropout", .attrs = {{"p", "0.3"}}, .shapes = {{4, 5}}, .label = "(predict: identity)"});
MX_OP_TEST_CASE({.op = "Dropout",
                 .attrs = {{"p", "0.25"}, {"mode", "always"}},
                 .shapes = {{3, 4}},
                 .label = "(always)"});
MX_OP_TEST_CASE({.op = "Dropout",
                 .attrs = {{"p", "0.5"}, {"axes", "(0, 2)"}},
                 .shapes = {{3, 4, 2}},
                 .is_train = true,
                 .label = "(train, axes)"});

// ---- softmax family ----
MX_OP_TEST_CASE({.op = "softmax", .shapes = {{3, 5}}, .lo = -2, .hi = 2});
MX_OP_TEST_CASE({.op = "softmax",
                 .attrs = {{"axis", "1"}, {"temperature", "2.0"}},
                 .shapes = {{2, 3, 4}},
                 .lo = -2,
                 .hi = 2,
                 .label = "(axis 1, temperature)"});
MX_OP_TEST_CASE(
    {.op = "softmax", .attrs = {{"dtype", "float64"}}, .shapes = {{2, 4}}, .label = "(dtype)"});
MX_OP_TEST_CASE({.op = "softmax",
                 .attrs = {{"use_length", "True"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return std::vector<NDArray>{Rand({3, 5}, -2, 2, seed, t),
                                                   NDArray::FromVector(std::vector<int>{2, 5, 1},
                                                                       {3}, cpu(), DType::kInt32)};
                     },
                 .grad_inputs = {0},
                 .label = "(use_length)"});
MX_OP_TEST_CASE({.op = "log_softmax", .shapes = {{3, 5}}, .lo = -2, .hi = 2});
MX_OP_TEST_CASE({.op = "log_softmax",
                 .attrs = {{"axis", "0"}, {"temperature", "0.5"}},
                 .shapes = {{3, 2}},
                 .label = "(axis 0, temperature)"});
MX_OP_TEST_CASE({.op = "softmin", .shapes = {{3, 5}}, .lo = -2, .hi = 2});
MX_OP_TEST_CASE({.op = "softmin",
                 .attrs = {{"axis", "0"}, {"temperature", "3"}},
                 .shapes = {{4, 2}},
                 .label = "(axis 0, temperature)"});
auto SoftmaxBackwardInputs(Shape s, bool with_data, bool with_length) {
  return [=](DType t, uint64_t seed) {
    std::vector<NDArray> v{Rand(s, -1, 1, seed, t), Rand(s, 0, 1, seed + 1, t)};
    if (with_data) v.push_back(Rand(s, -1, 1, seed + 2, DType::kFloat32));
    if (with_length)
      v.push_back(NDArray::FromVector(std::vector<int>{2, 4}, {2}, cpu(), DType::kInt32));
    return v;
  };
}
MX_OP_TEST_CASE({.op = "_backward_softmax",
                 .make_inputs = SoftmaxBackwardInputs({2, 4}, false, false)});
MX_OP_TEST_CASE({.op = "_backward_softmax",
                 .attrs = {{"dtype", "float64"}, {"use_length", "True"}},
                 .make_inputs = SoftmaxBackwardInputs({2, 4}, true, true),
                 .label = "(dtype, length)"});
MX_OP_TEST_CASE({.op = "_backward_log_softmax",
                 .attrs = {{"axis", "0"}},
                 .make_inputs = SoftmaxBackwardInputs({3, 2}, false, false)});
MX_OP_TEST_CASE({.op = "_backward_softmin",
                 .attrs = {{"temperature", "2"}},
                 .make_inputs = SoftmaxBackwardInputs({2, 3}, false, false)});
MX_OP_TEST_CASE(
    {.op = "SoftmaxActivation", .shapes = {{2, 3, 4}}, .lo = -2, .hi = 2, .label = "(instance)"});
MX_OP_TEST_CASE({.op = "SoftmaxActivation",
                 .attrs = {{"mode", "channel"}},
                 .shapes = {{2, 3, 2}},
                 .lo = -2,
                 .hi = 2,
                 .label = "(channel)"});

// ---- loss layers ----
auto WithLabels(Shape data, Shape label, int classes) {
  return [=](DType t, uint64_t seed) {
    return std::vector<NDArray>{Rand(data, -2, 2, seed, t), Labels(label, classes, seed + 1, t)};
  };
}
MX_OP_TEST_CASE({.op = "SoftmaxOutput",
                 .make_inputs = WithLabels({4, 5}, {4}, 5),
                 .check_grad = false});
MX_OP_TEST_CASE(
    {.op = "SoftmaxOutput",
     .attrs = {{"multi_output", "True"}, {"normalization", "valid"}, {"use_ignore", "True"}},
     .make_inputs = WithLabels({2, 3, 4}, {2, 4}, 3),
     .check_grad = false,
     .label = "(multi_output)"});
MX_OP_TEST_CASE({.op = "SoftmaxOutput",
                 .attrs = {{"preserve_shape", "True"}, {"grad_scale", "2"}},
                 .make_inputs = WithLabels({2, 3, 4}, {2, 3}, 4),
                 .check_grad = false,
                 .label = "(preserve_shape)"});
MX_OP_TEST_CASE({.op = "SoftmaxOutput",
                 .attrs = {{"out_grad", "True"}, {"smooth_alpha", "0.1"}},
                 .make_inputs = WithLabels({3, 4}, {3}, 4),
                 .check_grad = false,
                 .label = "(out_grad, smooth)"});
MX_OP_TEST_CASE({.op = "_backward_SoftmaxOutput",
                 .attrs = {{"normalization", "batch"}},
                 .make_inputs = WithLabels({4, 3}, {4}, 3)});
MX_OP_TEST_CASE({.op = "_backward_SoftmaxOutput",
                 .attrs = {{"out_grad", "True"}, {"multi_output", "True"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return std::vector<NDArray>{Rand({2, 3, 2}, 0, 1, seed, t),
                                                   Labels({2, 2}, 3, seed + 1, t),
                                                   Rand({2, 3, 2}, -1, 1, seed + 2, t)};
                     },
                 .label = "(out_grad, multi_output)"});
MX_OP_TEST_CASE({.op = "softmax_cross_entropy",
                 .make_inputs = WithLabels({4, 3}, {4}, 3),
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_backward_softmax_cross_entropy",
                 .make_inputs = [](DType t, uint64_t seed) {
                   return std::vector<NDArray>{Rand({1}, 0.5, 1.5, seed, t),
                                               Rand({3, 4}, -1, 1, seed + 1, t),
                                               Labels({3}, 4, seed + 2, t)};
                 }});
MX_OP_TEST_CASE({.op = "LinearRegressionOutput", .shapes = {{3, 2}, {3, 2}}, .check_grad = false});
MX_OP_TEST_CASE({.op = "LogisticRegressionOutput", .shapes = {{4, 1}, {4}}, .check_grad = false});
MX_OP_TEST_CASE({.op = "MAERegressionOutput",
                 .attrs = {{"grad_scale", "0.5"}},
                 .shapes = {{2, 3}, {2, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_backward_linear_reg_out", .shapes = {{3, 2}, {3, 2}}});
MX_OP_TEST_CASE({.op = "_backward_logistic_reg_out",
                 .attrs = {{"grad_scale", "3"}},
                 .shapes = {{4, 1}, {4}}});
MX_OP_TEST_CASE({.op = "_backward_mae_reg_out", .shapes = {{2, 3}, {2, 3}}});

}  // namespace
}  // namespace mxnet::testing
