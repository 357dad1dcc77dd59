// Test cases (//ndarray:all_ops_test) of reduce_np_linalg_geev.cc: _npi_eig, _npi_eigvals (not
// differentiable, as in MXNet) on matrices with real, well separated eigenvalues.
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

NDArray RealSpectrum(const Shape& s, uint64_t seed, DType dt) {
  int64_t n = s[s.ndim() - 1];
  std::vector<double> v = RandomArray(s, -0.3, 0.3, seed, DType::kFloat64).ToVector<double>();
  for (int64_t b = 0; b < s.Size() / (n * n); ++b)
    for (int64_t i = 0; i < n; ++i) v[b * n * n + i * n + i] += 2.0 * static_cast<double>(i) + 1;
  return NDArray::FromVector(v, s, cpu(), dt);
}

MX_OP_TEST_CASE({.op = "_npi_eig",
                 .shapes = {{2, 3, 3}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{RealSpectrum({2, 3, 3}, seed, dt)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_npi_eigvals",
                 .shapes = {{4, 4}},
                 .make_inputs =
                     [](DType dt, uint64_t seed) {
                       return std::vector<NDArray>{RealSpectrum({4, 4}, seed, dt)};
                     },
                 .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
