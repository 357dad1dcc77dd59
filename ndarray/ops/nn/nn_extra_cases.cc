// Test cases of the nn family's legacy extras (nn_sequence.cc, nn_extra.cc), enumerated by
// //ndarray:all_ops_test (finite-difference gradients in float64, attribute round trips).
//
// Loss layers (MakeLoss, SVMOutput) and IdentityAttachKLSparseReg have check_grad = false: by
// MXNet's contract their gradient is the loss gradient (or the head gradient plus a penalty), not
// the derivative of the forward output; nn_extra_test.cc checks it against real MXNet instead.
#include <vector>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

NDArray Rand(const Shape& s, double lo, double hi, uint64_t seed, DType t) {
  return RandomArray(s, lo, hi, seed, t);
}

// Integer-valued array in [0, n) stored as `t` (class labels).
NDArray Labels(const Shape& s, int n, uint64_t seed, DType t) {
  std::vector<double> v = RandomArray(s, 0, n, seed, DType::kFloat64).ToVector<double>();
  for (auto& x : v) x = static_cast<int>(x);
  return NDArray::FromVector(v, s, cpu(), t);
}

NDArray Ints(std::vector<int> v, DType t = DType::kInt32) {
  const int64_t n = static_cast<int64_t>(v.size());
  return NDArray::FromVector(v, Shape{n}, cpu(), t);
}

// data of shape s plus fixed sequence lengths.
auto SeqInputs(Shape s, std::vector<int> len, DType len_type) {
  return [=](DType t, uint64_t seed) {
    return std::vector<NDArray>{Rand(s, -1, 1, seed, t), Ints(len, len_type)};
  };
}

// ---- SequenceMask, SequenceLast, SequenceReverse ----
MX_OP_TEST_CASE({.op = "SequenceMask", .shapes = {{4, 3, 2}}, .label = "(no lengths)"});
MX_OP_TEST_CASE({.op = "SequenceMask",
                 .attrs = {{"use_sequence_length", "True"}, {"value", "-2.5"}},
                 .make_inputs = SeqInputs({4, 3, 2}, {1, 4, 0}, DType::kFloat32),
                 .grad_inputs = {0},
                 .label = "(lengths)"});
MX_OP_TEST_CASE({.op = "SequenceMask",
                 .attrs = {{"use_sequence_length", "True"}, {"axis", "1"}},
                 .make_inputs = SeqInputs({2, 3}, {2, 1}, DType::kInt64),
                 .grad_inputs = {0},
                 .label = "(axis 1, int64 lengths)"});
MX_OP_TEST_CASE({.op = "SequenceLast", .shapes = {{4, 3, 2}}, .label = "(no lengths)"});
MX_OP_TEST_CASE({.op = "SequenceLast",
                 .attrs = {{"use_sequence_length", "True"}},
                 .make_inputs = SeqInputs({4, 3, 2}, {1, 4, 2}, DType::kInt32),
                 .grad_inputs = {0},
                 .label = "(lengths)"});
MX_OP_TEST_CASE({.op = "SequenceLast",
                 .attrs = {{"use_sequence_length", "True"}, {"axis", "1"}},
                 .make_inputs = SeqInputs({3, 4}, {4, 1, 2}, DType::kFloat32),
                 .grad_inputs = {0},
                 .label = "(axis 1)"});
MX_OP_TEST_CASE({.op = "_backward_SequenceLast",
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return std::vector<NDArray>{Rand({3, 2}, -1, 1, seed, t),
                                                   Rand({4, 3, 2}, -1, 1, seed + 1, t)};
                     },
                 .label = "(no lengths)"});
MX_OP_TEST_CASE({.op = "_backward_SequenceLast",
                 .attrs = {{"use_sequence_length", "True"}, {"axis", "1"}},
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return std::vector<NDArray>{Rand({2, 3}, -1, 1, seed, t),
                                                   Rand({2, 4, 3}, -1, 1, seed + 1, t),
                                                   Ints({3, 1})};
                     },
                 .grad_inputs = {0, 1},
                 .label = "(lengths, axis 1)"});
MX_OP_TEST_CASE({.op = "SequenceReverse", .shapes = {{4, 3, 2}}, .label = "(no lengths)"});
MX_OP_TEST_CASE({.op = "SequenceReverse",
                 .attrs = {{"use_sequence_length", "True"}},
                 .make_inputs = SeqInputs({4, 3}, {2, 0, 4}, DType::kInt32),
                 .grad_inputs = {0},
                 .label = "(lengths)"});

// ---- L2Normalization, LRN ----
MX_OP_TEST_CASE({.op = "L2Normalization", .shapes = {{2, 3, 2}}, .label = "(instance)"});
MX_OP_TEST_CASE({.op = "L2Normalization",
                 .attrs = {{"mode", "channel"}, {"eps", "0.001"}},
                 .shapes = {{2, 3, 2, 2}},
                 .label = "(channel)"});
MX_OP_TEST_CASE({.op = "L2Normalization",
                 .attrs = {{"mode", "spatial"}},
                 .shapes = {{2, 3, 4}},
                 .label = "(spatial)"});
MX_OP_TEST_CASE({.op = "_backward_L2Normalization",
                 .attrs = {{"mode", "spatial"}},
                 .make_inputs = [](DType t, uint64_t seed) {
                   return std::vector<NDArray>{Rand({2, 3, 4}, -1, 1, seed, t),
                                               Rand({2, 3, 4}, -1, 1, seed + 1, t),
                                               Rand({2, 3}, 0.5, 1.5, seed + 2, t)};
                 }});
MX_OP_TEST_CASE({.op = "LRN",
                 .attrs = {{"nsize", "3"}, {"alpha", "0.5"}},
                 .shapes = {{2, 5, 2, 2}},
                 .lo = -2,
                 .hi = 2});
MX_OP_TEST_CASE({.op = "LRN",
                 .attrs = {{"nsize", "4"}, {"alpha", "0.8"}, {"beta", "0.5"}, {"knorm", "1.0"}},
                 .shapes = {{1, 6, 1, 3}},
                 .lo = -2,
                 .hi = 2,
                 .label = "(even nsize)"});
MX_OP_TEST_CASE({.op = "_backward_LRN",
                 .attrs = {{"nsize", "3"}},
                 .make_inputs = [](DType t, uint64_t seed) {
                   return std::vector<NDArray>{Rand({1, 4, 2, 2}, -1, 1, seed, t),
                                               Rand({1, 4, 2, 2}, -1, 1, seed + 1, t),
                                               Rand({1, 4, 2, 2}, 1, 2, seed + 2, t)};
                 }});

// ---- hard_sigmoid ----
MX_OP_TEST_CASE({.op = "hard_sigmoid", .shapes = {{3, 5}}, .lo = -4, .hi = 4});
MX_OP_TEST_CASE({.op = "hard_sigmoid",
                 .attrs = {{"alpha", "0.3"}, {"beta", "0.4"}},
                 .shapes = {{4, 3}},
                 .lo = -3,
                 .hi = 3,
                 .label = "(alpha, beta)"});
MX_OP_TEST_CASE({.op = "_backward_hard_sigmoid", .shapes = {{3, 4}, {3, 4}}, .lo = -4, .hi = 4});

// ---- loss layers ----
MX_OP_TEST_CASE({.op = "MakeLoss", .shapes = {{2, 3}}, .check_grad = false});
MX_OP_TEST_CASE({.op = "MakeLoss",
                 .attrs = {{"normalization", "batch"}, {"grad_scale", "2.0"}},
                 .shapes = {{2, 3, 4}},
                 .check_grad = false,
                 .label = "(batch)"});
MX_OP_TEST_CASE({.op = "MakeLoss",
                 .attrs = {{"normalization", "valid"}, {"valid_thresh", "0.1"}},
                 .shapes = {{3, 4}},
                 .check_grad = false,
                 .label = "(valid)"});
MX_OP_TEST_CASE({.op = "_backward_MakeLoss",
                 .attrs = {{"normalization", "valid"}, {"valid_thresh", "-0.2"}},
                 .shapes = {{3, 4}}});
auto WithLabels(Shape data, Shape label, int classes) {
  return [=](DType t, uint64_t seed) {
    return std::vector<NDArray>{Rand(data, -2, 2, seed, t), Labels(label, classes, seed + 1, t)};
  };
}
MX_OP_TEST_CASE({.op = "SVMOutput",
                 .make_inputs = WithLabels({4, 5}, {4}, 5),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "SVMOutput",
                 .attrs = {{"use_linear", "True"}, {"margin", "0.5"}},
                 .make_inputs = WithLabels({2, 3, 4}, {2, 3}, 4),
                 .check_grad = false,
                 .label = "(L1, 3-D)"});
MX_OP_TEST_CASE({.op = "_backward_SVMOutput",
                 .attrs = {{"regularization_coefficient", "0.5"}},
                 .make_inputs = WithLabels({3, 4}, {3}, 4)});
MX_OP_TEST_CASE({.op = "IdentityAttachKLSparseReg",
                 .make_inputs =
                     [](DType t, uint64_t seed) {
                       return std::vector<NDArray>{Rand({4, 3}, 0.1, 0.9, seed, t),
                                                   Rand({3}, 0.2, 0.6, seed + 1, t)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE(
    {.op = "_backward_IdentityAttachKLSparseReg",
     .attrs = {{"penalty", "0.01"}, {"sparseness_target", "0.2"}},
     .make_inputs = [](DType t, uint64_t seed) {
       return std::vector<NDArray>{Rand({4, 3}, -1, 1, seed, t), Rand({3}, 0.2, 0.6, seed + 1, t)};
     }});

// ---- moments ----
MX_OP_TEST_CASE({.op = "moments", .attrs = {{"axes", "(1,)"}}, .shapes = {{2, 3, 4}}});
MX_OP_TEST_CASE({.op = "moments",
                 .attrs = {{"axes", "(0, -1)"}, {"keepdims", "True"}},
                 .shapes = {{2, 3, 4}},
                 .label = "(keepdims)"});
MX_OP_TEST_CASE(
    {.op = "moments", .attrs = {{"axes", "(1, 0)"}}, .shapes = {{3, 2}}, .label = "(all axes)"});
MX_OP_TEST_CASE({.op = "_backward_moments",
                 .attrs = {{"axes", "(1,)"}},
                 .shapes = {{2, 4}, {2, 4}, {2, 3, 4}, {2, 4}}});

}  // namespace
}  // namespace mxnet::testing
