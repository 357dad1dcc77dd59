#include "ndarray/testing/family_cases.h"

#include <gtest/gtest.h>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {

FamilyCaseCounts CheckFamilyCases(const std::function<bool(const std::string& op)>& in_subset) {
  FamilyCaseCounts r;
  for (const auto& c : OpTestCases()) {
    const Op& op = OpRegistry::Get(c.op);
    if (!in_subset(op.name)) continue;
    SCOPED_TRACE(c.op + c.label);
    ++r.cases;
    if (op.differentiable() && c.check_grad) {
      EXPECT_TRUE(CheckGradient(c));
      ++r.grads;
    }
    std::vector<NDArray> in = MakeInputs(c, DType::kFloat32, 3);
    NDArrayVec want = RunWithKernel(c, {DeviceType::kCPU, Backend::kReference}, in);
    if (op.FindKernel({DeviceType::kCPU, Backend::kOptimized})) {
      NDArrayVec got = RunWithKernel(c, {DeviceType::kCPU, Backend::kOptimized}, in);
      EXPECT_TRUE(AllClose(got[0], want[0], 1e-6, 1e-7));
    }
    OpAttrs a = OpAttrs::Parse(op, c.attrs);
    EXPECT_TRUE(a == OpAttrs::Parse(op, a.ToDict()));
  }
  for (const Op* op : OpRegistry::List()) {
    if (!in_subset(op->name)) continue;
    bool has = false;
    for (const auto& c : OpTestCases()) has = has || OpRegistry::Get(c.op).name == op->name;
    EXPECT_TRUE(has) << op->name << " has no MX_OP_TEST_CASE";
  }
  return r;
}

}  // namespace mxnet::testing
