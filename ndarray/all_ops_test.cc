// Every registered op, enumerated from the registry:
//  - has at least one test case (ndarray/ops/*_cases.cc);
//  - differentiable ops: gradient definition vs central finite differences in float64;
//  - every non-reference kernel vs the reference kernel on the same inputs (float32);
//  - attribute round trip: parse(print(attrs)) == attrs.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

std::map<std::string, std::vector<const OpTestCase*>> CasesByOp() {
  std::map<std::string, std::vector<const OpTestCase*>> m;
  for (const auto& c : OpTestCases()) m[OpRegistry::Get(c.op).name].push_back(&c);
  return m;
}

TEST(AllOps, EveryOpHasTestCasesAndAReferenceKernel) {
  auto cases = CasesByOp();
  std::vector<std::string> missing, no_ref, no_grad_decl;
  for (const Op* op : OpRegistry::List()) {
    if (!cases.count(op->name)) missing.push_back(op->name);
    if (!op->FindKernel({DeviceType::kCPU, Backend::kReference})) no_ref.push_back(op->name);
    if (!op->differentiable() && !op->non_differentiable) no_grad_decl.push_back(op->name);
  }
  EXPECT_TRUE(missing.empty()) << "ops without test cases: " << StrJoin(missing, ", ");
  EXPECT_TRUE(no_ref.empty()) << "ops without a CPU reference kernel: " << StrJoin(no_ref, ", ");
  EXPECT_TRUE(no_grad_decl.empty())
      << "ops neither differentiable nor declared non-differentiable: "
      << StrJoin(no_grad_decl, ", ");
}

class OpCase : public ::testing::TestWithParam<int> {};

TEST_P(OpCase, GradientMatchesFiniteDifferences) {
  const OpTestCase& c = OpTestCases()[GetParam()];
  const Op& op = OpRegistry::Get(c.op);
  if (!op.differentiable() || !c.check_grad) GTEST_SKIP() << c.op << " is not differentiable";
  EXPECT_TRUE(CheckGradient(c));
}

TEST_P(OpCase, EveryBackendMatchesTheReference) {
  const OpTestCase& c = OpTestCases()[GetParam()];
  const Op& op = OpRegistry::Get(c.op);
  std::vector<NDArray> in = MakeInputs(c, DType::kFloat32, 3);
  KernelKey ref{DeviceType::kCPU, Backend::kReference};
  if (op.is_random) GTEST_SKIP() << "random op: compared statistically in its family test";
  NDArrayVec expected = RunWithKernel(c, ref, in);
  for (KernelKey k : op.Kernels()) {
    if (k == ref || k.device != DeviceType::kCPU) continue;
    const auto& entry = *std::find_if(op.kernels.begin(), op.kernels.end(),
                                      [&](const Op::KernelEntry& e) { return e.key == k; });
    if (entry.supports && !entry.supports(OpAttrs::Parse(op, c.attrs), in)) continue;
    NDArrayVec got = RunWithKernel(c, k, in);
    for (int i = 0; i < op.NumVisibleOutputs(OpAttrs::Parse(op, c.attrs)); ++i)
      EXPECT_TRUE(AllClose(got[i], expected[i], 1e-4, 1e-5))
          << c.op << c.label << " backend " << BackendName(k.backend) << " output " << i;
  }
}

TEST_P(OpCase, AttributesRoundTrip) {
  const OpTestCase& c = OpTestCases()[GetParam()];
  const Op& op = OpRegistry::Get(c.op);
  OpAttrs a = OpAttrs::Parse(op, c.attrs);
  OpAttrs b = OpAttrs::Parse(op, a.ToDict());
  EXPECT_TRUE(a == b) << c.op << ": " << a.Key() << " vs " << b.Key();
  EXPECT_EQ(a.ToDict(), b.ToDict());
}

std::string CaseName(const ::testing::TestParamInfo<int>& info) {
  const OpTestCase& c = OpTestCases()[info.param];
  std::string n = StrCat(c.op, "_", info.param);
  for (char& ch : n)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Registry, OpCase,
                         ::testing::Range(0, static_cast<int>(OpTestCases().size())), CaseName);

}  // namespace
}  // namespace mxnet::testing
