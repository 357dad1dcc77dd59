// Test cases of the NumPy-interface matrix products (reduce_np_linalg.cc), enumerated by
// //ndarray:all_ops_test: finite-difference gradients in float64, attribute round trips, float32
// vs float64. Shapes cover NumPy's dot forms (1-D, N-D . 1-D, N-D . M-D, 0-dim), matmul's batch
// broadcasting and vectors, tensordot axis lists/ints, and einsum's explicit, implicit,
// ellipsis-broadcast and repeated-label subscripts.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

// ---- _np_dot ----
MX_OP_TEST_CASE({.op = "_np_dot", .shapes = {{4}, {4}}, .label = "(1-D . 1-D)"});
MX_OP_TEST_CASE({.op = "_np_dot", .shapes = {{2, 3}, {3, 4}}});
MX_OP_TEST_CASE({.op = "_np_dot", .shapes = {{2, 3, 4}, {4}}, .label = "(N-D . 1-D)"});
MX_OP_TEST_CASE({.op = "_np_dot", .shapes = {{3}, {2, 3, 2}}, .label = "(1-D . N-D)"});
MX_OP_TEST_CASE({.op = "_np_dot", .shapes = {{2, 3}, {2, 3, 2}}, .label = "(N-D . M-D)"});
MX_OP_TEST_CASE({.op = "_np_dot", .shapes = {{}, {2, 3}}, .label = "(0-dim . 2-D)"});

// ---- _npi_matmul ----
MX_OP_TEST_CASE({.op = "_npi_matmul", .shapes = {{3, 4}, {4, 2}}});
MX_OP_TEST_CASE({.op = "_npi_matmul",
                 .shapes = {{2, 1, 3, 4}, {3, 4, 2}},
                 .label = "(broadcast batch)"});
MX_OP_TEST_CASE({.op = "_npi_matmul", .shapes = {{4}, {2, 4, 3}}, .label = "(1-D . batch)"});
MX_OP_TEST_CASE({.op = "_npi_matmul", .shapes = {{2, 3, 4}, {4}}, .label = "(batch . 1-D)"});
MX_OP_TEST_CASE({.op = "_npi_matmul", .shapes = {{3}, {3}}, .label = "(1-D . 1-D)"});
MX_OP_TEST_CASE({.op = "_npi_matmul",
                 .shapes = {{2, 3, 4}, {2, 4, 5}},
                 .label = "(equal batch: the batch_dot kernel)"});
MX_OP_TEST_CASE({.op = "_npi_matmul",
                 .shapes = {{2, 2, 3, 4}, {2, 2, 4, 1}},
                 .label = "(equal 2-D batch: the batch_dot kernel)"});

// ---- _npi_tensordot / _npi_tensordot_int_axes ----
MX_OP_TEST_CASE({.op = "_npi_tensordot",
                 .attrs = {{"a_axes_summed", "(0, 1)"}, {"b_axes_summed", "(1, 0)"}},
                 .shapes = {{3, 4, 2}, {4, 3, 2}}});
MX_OP_TEST_CASE({.op = "_npi_tensordot",
                 .attrs = {{"a_axes_summed", "(-1,)"}, {"b_axes_summed", "(1,)"}},
                 .shapes = {{2, 3}, {2, 3, 2}},
                 .label = "(negative axis)"});
MX_OP_TEST_CASE({.op = "_npi_tensordot",
                 .attrs = {{"a_axes_summed", "()"}, {"b_axes_summed", "()"}},
                 .shapes = {{2, 3}, {2}},
                 .label = "(outer)"});
MX_OP_TEST_CASE({.op = "_npi_tensordot_int_axes",
                 .attrs = {{"axes", "2"}},
                 .shapes = {{3, 2, 4}, {2, 4, 3}}});
MX_OP_TEST_CASE({.op = "_npi_tensordot_int_axes",
                 .attrs = {{"axes", "0"}},
                 .shapes = {{2, 3}, {3}},
                 .label = "(outer)"});

// ---- _npi_einsum ----
MX_OP_TEST_CASE({.op = "_npi_einsum",
                 .attrs = {{"num_args", "2"}, {"subscripts", "ij,jk->ik"}},
                 .shapes = {{2, 3}, {3, 4}}});
MX_OP_TEST_CASE({.op = "_npi_einsum",
                 .attrs = {{"num_args", "2"}, {"subscripts", "...ij,...jk"}, {"optimize", "1"}},
                 .shapes = {{3, 2, 3}, {1, 3, 2}},
                 .label = "(implicit, ellipsis broadcast)"});
MX_OP_TEST_CASE({.op = "_npi_einsum",
                 .attrs = {{"num_args", "1"}, {"subscripts", "ii->i"}},
                 .shapes = {{3, 3}},
                 .label = "(diagonal)"});
MX_OP_TEST_CASE({.op = "_npi_einsum",
                 .attrs = {{"num_args", "1"}, {"subscripts", "iji"}},
                 .shapes = {{3, 2, 3}},
                 .label = "(repeated label, implicit)"});
MX_OP_TEST_CASE({.op = "_npi_einsum",
                 .attrs = {{"num_args", "3"}, {"subscripts", "bi,ijk,bk->bj"}},
                 .shapes = {{2, 3}, {3, 2, 4}, {2, 4}},
                 .label = "(three operands)"});
MX_OP_TEST_CASE({.op = "_npi_einsum",
                 .attrs = {{"num_args", "2"}, {"subscripts", "i,i->"}},
                 .shapes = {{3}, {1}},
                 .label = "(size-1 label broadcast)"});

// ---- _npi_cholesky / _npi_solve (reduce_np_linalg_solve.cc) ----
// cholesky reads only the lower triangle while its gradient is symmetric (as _linalg_potrf):
// the unit test compares its gradient with MXNet's instead of finite differences.
NDArray Spd(const Shape& s, uint64_t seed, DType dt) {
  int64_t n = s[s.ndim() - 1];
  NDArray x = RandomArray(s, -1, 1, seed, DType::kFloat64);
  std::vector<double> v = x.ToVector<double>(), o(v.size(), 0.0);
  for (int64_t b = 0; b < s.Size() / (n * n); ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = i == j ? static_cast<double>(n) : 0.0;
        for (int64_t k = 0; k < n; ++k) acc += v[b * n * n + i * n + k] * v[b * n * n + j * n + k];
        o[b * n * n + i * n + j] = acc;
      }
  return NDArray::FromVector(o, s, cpu(), dt);
}
NDArray Dominant(const Shape& s, uint64_t seed, DType dt) {
  int64_t n = s[s.ndim() - 1];
  std::vector<double> v = RandomArray(s, -1, 1, seed, DType::kFloat64).ToVector<double>();
  for (int64_t b = 0; b < s.Size() / (n * n); ++b)
    for (int64_t i = 0; i < n; ++i) v[b * n * n + i * n + i] += 2.5;
  return NDArray::FromVector(v, s, cpu(), dt);
}

MX_OP_TEST_CASE({.op = "_npi_cholesky",
                 .shapes = {{2, 3, 3}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{Spd({2, 3, 3}, seed, dt)};
                     },
                 .check_grad = false,
                 .label = "(SPD batch; gradient vs MXNet in reduce_np_linalg_test)"});
MX_OP_TEST_CASE({.op = "_npi_solve",
                 .shapes = {{3, 3}, {3}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{Dominant({3, 3}, seed, dt),
                                                   RandomArray({3}, -1, 1, seed + 1, dt)};
                     },
                 .label = "(vector)"});
MX_OP_TEST_CASE({.op = "_npi_solve",
                 .shapes = {{2, 3, 3}, {2, 3, 2}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{Dominant({2, 3, 3}, seed, dt),
                                                   RandomArray({2, 3, 2}, -1, 1, seed + 1, dt)};
                     },
                 .label = "(batch of matrices)"});
MX_OP_TEST_CASE({.op = "_backward_npi_solve",
                 .shapes = {{3, 2}, {3, 3}, {3, 2}, {3, 2}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{RandomArray({3, 2}, -1, 1, seed, dt),
                                                   Dominant({3, 3}, seed + 1, dt),
                                                   RandomArray({3, 2}, -1, 1, seed + 2, dt),
                                                   RandomArray({3, 2}, -1, 1, seed + 3, dt)};
                     },
                 .check_grad = false});

MX_OP_TEST_CASE({.op = "_npi_tensorinv",
                 .attrs = {{"ind", "1"}},
                 .shapes = {{4, 2, 2}},
                 .make_inputs = [](DType dt, uint64_t seed) {
                   return std::vector<NDArray>{Dominant({4, 4}, seed, dt).reshape({4, 2, 2})};
                 }});
MX_OP_TEST_CASE({.op = "_npi_tensorinv",
                 .shapes = {{2, 3, 6}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{Dominant({6, 6}, seed, dt).reshape({2, 3, 6})};
                     },
                 .label = "(default ind 2)"});
MX_OP_TEST_CASE({.op = "_backward_npi_tensorinv",
                 .attrs = {{"ind", "1"}},
                 .shapes = {{2, 2, 4}, {2, 2, 4}},
                 .check_grad = false});

MX_OP_TEST_CASE({.op = "_npi_tensorsolve",
                 .shapes = {{2, 3, 6}, {2, 3}},
                 .make_inputs = [](DType dt, uint64_t seed) {
                   return std::vector<NDArray>{Dominant({6, 6}, seed, dt).reshape({2, 3, 6}),
                                               RandomArray({2, 3}, -1, 1, seed + 1, dt)};
                 }});
MX_OP_TEST_CASE({.op = "_npi_tensorsolve",
                 .attrs = {{"a_axes", "(1,)"}},
                 .shapes = {{2, 6, 3}, {2, 3}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{Dominant({6, 6}, seed, dt).reshape({2, 6, 3}),
                                                   RandomArray({2, 3}, -1, 1, seed + 1, dt)};
                     },
                 .label = "(a_axes moved)"});
MX_OP_TEST_CASE({.op = "_backward_npi_tensorsolve",
                 .attrs = {{"a_axes", "(0,)"}},
                 .shapes = {{4}, {4, 2, 2}, {2, 2}, {4}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{
                           RandomArray({4}, -1, 1, seed, dt),
                           Dominant({4, 4}, seed + 1, dt).reshape({4, 2, 2}),
                           RandomArray({2, 2}, -1, 1, seed + 2, dt),
                           RandomArray({4}, -1, 1, seed + 3, dt)};
                     },
                 .check_grad = false});

// ---- _npi_eigh / _npi_eigvalsh (reduce_np_linalg_eig.cc; not differentiable, as MXNet) ----
MX_OP_TEST_CASE({.op = "_npi_eigvalsh",
                 .shapes = {{2, 3, 3}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{Spd({2, 3, 3}, seed, dt)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_eigh",
                 .attrs = {{"UPLO", "U"}},
                 .shapes = {{3, 3}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{Spd({3, 3}, seed, dt)};
                     },
                 .check_grad = false});

// ---- the shared gradient op (inputs: head gradient, operands) ----
MX_OP_TEST_CASE({.op = "_backward_np_linalg_contract",
                 .attrs = {{"num_args", "2"}, {"op", "_npi_matmul"}},
                 .shapes = {{2, 3, 2}, {2, 3, 4}, {1, 4, 2}},
                 .check_grad = false,
                 .label = "(matmul)"});
MX_OP_TEST_CASE({.op = "_backward_np_linalg_contract",
                 .attrs = {{"num_args", "1"}, {"op", "_npi_einsum"}, {"subscripts", "ii->i"}},
                 .shapes = {{3}, {3, 3}},
                 .check_grad = false,
                 .label = "(einsum diagonal)"});

}  // namespace
}  // namespace mxnet::testing
