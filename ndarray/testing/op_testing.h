// Test support for operators: random inputs, closeness checks, a registry of per-op test cases
// (enumerated by the all-ops tests), finite-difference gradient checks and backend-vs-reference
// comparison.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ndarray/op.h"

namespace mxnet::testing {

// Uniform values in [lo, hi) of `dtype`, deterministic in `seed`.
NDArray RandomArray(const Shape& shape, double lo, double hi, uint64_t seed,
                    DType dtype = DType::kFloat64);

// |a - b| <= atol + rtol * |b| elementwise (shapes must match; compared in float64).
::testing::AssertionResult AllClose(const NDArray& actual, const NDArray& expected,
                                    double rtol = 1e-5, double atol = 1e-6);

// One test case of an op: attributes, input shapes and value ranges.
struct OpTestCase {
  std::string op;  // registered name
  AttrDict attrs;
  std::vector<Shape> shapes;   // one per input
  double lo = -1.0, hi = 1.0;  // value range of random inputs
  // Optional: builds the inputs (e.g. integer indices), given dtype for float inputs and a seed.
  std::function<std::vector<NDArray>(DType dtype, uint64_t seed)> make_inputs;
  std::vector<int> grad_inputs;  // inputs to check by finite differences (default: all float)
  bool check_grad = true;        // false only for ops declared non-differentiable
  bool is_train = false;         // run in training mode
  double fd_eps = 1e-5, grad_rtol = 1e-4, grad_atol = 1e-6;
  std::string label;  // shown in failures
};

// Registers a case (at static-initialization time, from *_cases.cc files).
int RegisterOpTestCase(OpTestCase c);
const std::vector<OpTestCase>& OpTestCases();
#define MX_OP_TEST_CASE(...)                             \
  static int MX_CONCAT_(mx_op_test_case_, __COUNTER__) = \
      ::mxnet::testing::RegisterOpTestCase(::mxnet::testing::OpTestCase __VA_ARGS__)

// Inputs of a case in `dtype` (float inputs; make_inputs decides for custom ones).
std::vector<NDArray> MakeInputs(const OpTestCase& c, DType dtype, uint64_t seed);

// Runs the case's op with the kernel registered under exactly `key`.
NDArrayVec RunWithKernel(const OpTestCase& c, KernelKey key, std::span<const NDArray> inputs);

// Checks op's gradient definition (EagerGradBuilder) against central finite differences in
// float64 of L = sum_k <w_k, out_k> over visible outputs with random weights w_k.
::testing::AssertionResult CheckGradient(const OpTestCase& c, uint64_t seed = 7);

}  // namespace mxnet::testing
