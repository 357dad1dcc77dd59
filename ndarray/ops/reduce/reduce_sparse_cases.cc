// Test cases of reduce_sparse.cc for //ndarray:all_ops_test (dense inputs: the generic checks run
// the reference kernels; the sparse paths are tested in reduce_sparse_test.cc).
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

MX_OP_TEST_CASE({.op = "_sparse_retain",
                 .shapes = {{5, 3}, {3}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{
                           RandomArray({5, 3}, -1, 1, seed, dt),
                           NDArray::FromVector(std::vector<int64_t>{4, 0, 2}, {3}, cpu(),
                                               DType::kInt64)};
                     },
                 .grad_inputs = {0}});
MX_OP_TEST_CASE({.op = "_backward_SparseEmbedding",
                 .attrs = {{"input_dim", "5"}, {"output_dim", "4"}},
                 .shapes = {{3, 2, 4}, {3, 2}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{
                           RandomArray({3, 2, 4}, -1, 1, seed, dt),
                           NDArray::FromVector(std::vector<double>{4, 0, 2, 4, 9, -1}, {3, 2},
                                               cpu(), DType::kFloat32)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_getnnz", .shapes = {{3, 4}}, .check_grad = false});
MX_OP_TEST_CASE(
    {.op = "_contrib_getnnz", .attrs = {{"axis", "1"}}, .shapes = {{3, 4}}, .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
