// Test cases (//ndarray:all_ops_test) of nn_quantized_rnn.cc: _contrib_quantized_rnn (not
// differentiable, as in MXNet; values in nn_quantized_rnn_test.cc).
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

MX_OP_TEST_CASE(
    {.op = "_contrib_quantized_rnn",
     .attrs =
         {{"state_size", "3"}, {"num_layers", "1"}, {"mode", "lstm"}, {"state_outputs", "True"}},
     .shapes = {{2, 2, 4}, {4 * 3 * (4 + 3) + 8 * 3}, {1, 2, 3}, {1, 2, 3}, {1}, {1}},
     .make_inputs =
         [](DType, uint64_t seed) {
           std::vector<double> q(16);
           for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<double>((i * 37) % 256);
           return std::vector<NDArray>{
               NDArray::FromVector(q, Shape{2, 2, 4}, cpu(), DType::kUint8),
               RandomArray({4 * 3 * (4 + 3) + 8 * 3}, -0.5, 0.5, seed, DType::kFloat32),
               RandomArray({1, 2, 3}, -1, 1, seed + 1, DType::kFloat32),
               RandomArray({1, 2, 3}, -1, 1, seed + 2, DType::kFloat32),
               NDArray::FromVector(std::vector<double>{64}, Shape{1}, cpu(), DType::kFloat32),
               NDArray::FromVector(std::vector<double>{128}, Shape{1}, cpu(), DType::kFloat32)};
         },
     .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
