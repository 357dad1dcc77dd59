// Test cases (//ndarray:all_ops_test) of reduce_np_linalg_svd.cc: _npi_svd (gradient by finite
// differences; well separated singular values), _npi_pinv, _npi_pinv_scalar_rcond (not
// differentiable, as in MXNet) and _backward_npi_svd.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

MX_OP_TEST_CASE({.op = "_npi_svd", .shapes = {{2, 3}}});
MX_OP_TEST_CASE({.op = "_npi_svd", .shapes = {{2, 3, 3}}, .label = "(batch of square)"});
MX_OP_TEST_CASE({.op = "_npi_pinv_scalar_rcond",
                 .attrs = {{"rcond", "0.01"}},
                 .shapes = {{2, 4, 3}},
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_pinv",
                 .attrs = {{"hermitian", "False"}},
                 .shapes = {{2, 3, 2}, {2}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{
                           RandomArray({2, 3, 2}, -1, 1, seed, dt),
                           NDArray::FromVector(std::vector<double>{0.01, 0.5}, Shape{2}, cpu(), dt)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_backward_npi_svd",
                 .shapes = {{2, 2}, {2}, {2, 3}, {2, 2}, {2}, {2, 3}},
                 .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
