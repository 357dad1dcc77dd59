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
                           NDArray::FromVector(std::vector<double>{0.01, 0.5}, Shape{2}, cpu(),
                                               dt)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_backward_npi_svd",
                 .shapes = {{2, 2}, {2}, {2, 3}, {2, 2}, {2}, {2, 3}},
                 .check_grad = false});

}  // namespace
}  // namespace mxnet::testing

// ---- _npi_norm (gradients by finite differences for every form) ----
namespace mxnet::testing {
namespace {
MX_OP_TEST_CASE({.op = "_npi_norm", .attrs = {{"flag", "-2"}}, .shapes = {{2, 3, 2}}});
MX_OP_TEST_CASE({.op = "_npi_norm",
                 .attrs = {{"ord", "3"}, {"axis", "(1,)"}, {"keepdims", "True"}},
                 .shapes = {{2, 3}},
                 .label = "(vector ord 3)"});
MX_OP_TEST_CASE({.op = "_npi_norm",
                 .attrs = {{"ord", "1"}, {"axis", "(0, 2, 1)"}},
                 .shapes = {{2, 2, 3}},
                 .label = "(vector ord 1 over three axes)"});
MX_OP_TEST_CASE({.op = "_npi_norm",
                 .attrs = {{"axis", "(0, 1)"}, {"flag", "1"}},
                 .shapes = {{3, 2}},
                 .label = "(Frobenius)"});
MX_OP_TEST_CASE(
    {.op = "_npi_norm", .attrs = {{"flag", "0"}}, .shapes = {{2, 3, 2}}, .label = "(spectral)"});
MX_OP_TEST_CASE({.op = "_npi_norm",
                 .attrs = {{"ord", "-2"}, {"axis", "(2, 0)"}, {"flag", "0"}},
                 .shapes = {{3, 2, 2}},
                 .label = "(smallest singular value)"});
MX_OP_TEST_CASE({.op = "_npi_norm",
                 .attrs = {{"axis", "(0, 1)"}, {"flag", "2"}},
                 .shapes = {{2, 3}},
                 .label = "(nuclear)"});
MX_OP_TEST_CASE({.op = "_npi_norm",
                 .attrs = {{"ord", "-1"}, {"axis", "(1, 0)"}},
                 .shapes = {{3, 4}},
                 .label = "(matrix ord -1)"});
MX_OP_TEST_CASE({.op = "_npi_norm",
                 .attrs = {{"ord", "inf"}, {"axis", "(0, 1)"}},
                 .shapes = {{3, 4}},
                 .label = "(matrix ord inf)"});
MX_OP_TEST_CASE({.op = "_backward_npi_norm",
                 .attrs = {{"ord", "3"}, {"axis", "(1,)"}},
                 .shapes = {{2}, {2, 3}},
                 .check_grad = false});
}  // namespace
}  // namespace mxnet::testing
