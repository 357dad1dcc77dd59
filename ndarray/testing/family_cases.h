// The per-case checks of //ndarray:all_ops_test, run by a family test on a subset of ops so the
// family can be tested on its own: finite-difference gradients (differentiable ops), the
// optimized kernel vs the reference on float32 inputs (first output, rtol 1e-6, atol 1e-7), the
// attribute round trip; and every registered op of the subset has an MX_OP_TEST_CASE.
#pragma once

#include <functional>
#include <string>

namespace mxnet::testing {

struct FamilyCaseCounts {
  int cases = 0;  // cases of the subset that ran
  int grads = 0;  // of which had their gradient checked
};
FamilyCaseCounts CheckFamilyCases(const std::function<bool(const std::string& op)>& in_subset);

}  // namespace mxnet::testing
