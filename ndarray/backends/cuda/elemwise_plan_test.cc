// The generic elementwise GPU kernel without a GPU: its launch plan (vector width from the
// pointers' alignment, tail, grid), and its per-thread body (elemwise_ops.h, the code the CUDA
// kernel runs) executed on the host over the plan, thread by thread, for every covered op,
// compared with the registry's CPU reference kernels in float32, float64 and float16: the same
// bits for the exact ops, within 4 ulp for the transcendental ones (one half ulp in float16).
#include "ndarray/backends/cuda/elemwise_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/error.h"
#include "ndarray/backends/cuda/elemwise_gpu.h"
#include "ndarray/backends/cuda/elemwise_ops.h"
#include "ndarray/ndarray.h"
#include "ndarray/op.h"

namespace mxnet::backends::cuda {
namespace {

TEST(ElemwisePlan, VectorWidthFollowsAlignment) {
  const uintptr_t a16 = 0x1000, a8 = 0x1008, a4 = 0x1004;
  std::vector<uintptr_t> all16{a16, a16 + 64, a16 + 4096};
  EXPECT_EQ(PlanElemwise(1000, 4, all16, 132).vec, 4);  // float32 x4 = 16 bytes
  EXPECT_EQ(PlanElemwise(1000, 8, all16, 132).vec, 2);  // float64 x2
  EXPECT_EQ(PlanElemwise(1000, 2, all16, 132).vec, 8);  // float16 x8
  EXPECT_EQ(PlanElemwise(1000, 1, all16, 132).vec, 16);
  std::vector<uintptr_t> one8{a16, a8};
  EXPECT_EQ(PlanElemwise(1000, 4, one8, 132).vec, 2);  // a view 8 bytes in
  std::vector<uintptr_t> one4{a16, a16, a4};
  EXPECT_EQ(PlanElemwise(1000, 4, one4, 132).vec, 1);
  EXPECT_EQ(PlanElemwise(1000, 8, one8, 132).vec, 1);
}

TEST(ElemwisePlan, VectorsTailAndGrid) {
  std::vector<uintptr_t> al{0x1000};
  ElemwisePlan p = PlanElemwise(1003, 4, al, 132);
  EXPECT_EQ(p.n_vec, 250);  // 1000 elements in 250 float4s, 3 in the tail
  EXPECT_EQ(p.n, 1003);
  EXPECT_EQ(p.block, 256);
  EXPECT_EQ(p.grid, 1);
  EXPECT_EQ(p.ToString(), "vec 4, 250 vectors + 3 tail, grid 1 x 256");
  p = PlanElemwise(3, 4, al, 132);  // only a tail
  EXPECT_EQ(p.n_vec, 0);
  EXPECT_EQ(p.grid, 1);
  p = PlanElemwise(0, 4, al, 132);
  EXPECT_EQ(p.grid, 0);  // nothing to launch
  p = PlanElemwise(int64_t{4} * 256 * 10 + 1, 4, al, 132);
  EXPECT_EQ(p.grid, 10);  // 2560 vectors / 256 threads; thread 0 also does the 1-element tail
  p = PlanElemwise(int64_t{4} * 256 * 10 + 4, 4, al, 132);
  EXPECT_EQ(p.grid, 11);  // 2561 vectors, rounded up
  // Large arrays: at most 32 blocks per multiprocessor, looping (counts beyond 2^31).
  p = PlanElemwise(int64_t{3} << 32, 4, al, 132);
  EXPECT_EQ(p.n_vec, int64_t{3} << 30);
  EXPECT_EQ(p.grid, 132 * kBlocksPerSm);
}

TEST(ElemwisePlan, BadArgumentsAreErrors) {
  std::vector<uintptr_t> al{0x1000};
  EXPECT_THROW(PlanElemwise(-1, 4, al, 1), Error);
  EXPECT_THROW(PlanElemwise(8, 3, al, 1), Error);
  EXPECT_THROW(PlanElemwise(8, 4, al, 0), Error);
}

// Runs the kernel body for every thread of the plan's grid, on the host.
void RunOnHost(const EwCall& c, const ElemwisePlan& p, const NDArray& out,
               std::span<const NDArray> in) {
  auto body = [&]<EwOp OP, typename S, int VEC>() {
    const int64_t stride = p.grid * p.block;
    const auto s = static_cast<typename EwType<S>::Acc>(EwScalarFor(out.dtype(), c.scalar));
    for (int64_t tid = 0; tid < stride; ++tid)
      ElemwiseThread<OP, S, VEC>(
          tid, stride, static_cast<S*>(out.data_ptr()), static_cast<const S*>(in[0].data_ptr()),
          EwArity(OP) == 2 ? static_cast<const S*>(in[1].data_ptr()) : nullptr, s, p.n_vec, p.n);
  };
  ASSERT_TRUE(EwDispatch(c.op, *EwDTypeOf(out.dtype()), p.vec, body));
}

// Values in [lo, hi), a few special ones first (signed zeros, NaN, infinities, 20 +- epsilon).
std::vector<double> Values(size_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  const double special[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 20.0, 20.5, 1e-30, -3.0};
  for (size_t i = 0; i < n; ++i) v[i] = i < std::size(special) ? special[i] : u(gen);
  return v;
}

// A length-n array viewed `offset` elements into a larger one (misaligns the pointers).
NDArray At(const std::vector<double>& v, int64_t offset, DType t) {
  std::vector<double> padded(offset, 7.0);
  padded.insert(padded.end(), v.begin(), v.end());
  NDArray big = NDArray::FromVector(padded, Shape{static_cast<int64_t>(padded.size())}, cpu(), t);
  return big.slice(offset, offset + static_cast<int64_t>(v.size()));
}

// ulp distance of two finite floats/doubles of one type (0 for equal bits or both NaN).
template <typename T>
double UlpDiff(T x, T y) {
  if (std::isnan(x) && std::isnan(y)) return 0;
  if (std::isnan(x) || std::isnan(y)) return 1e30;
  if (x == y) return 0;
  if (std::isinf(x) || std::isinf(y)) return 1e30;
  return std::fabs(static_cast<double>(x) - static_cast<double>(y)) /
         static_cast<double>(std::nextafter(std::fabs(x), T(INFINITY)) - std::fabs(x));
}

struct Case {
  std::string op;
  AttrDict attrs;
  bool exact;              // the same bits as the CPU
  double lo = -4, hi = 4;  // input range
};

TEST(ElemwiseKernelOnHost, EveryCoveredOpMatchesTheCpuKernels) {
  std::vector<Case> cases = {
      {"elemwise_add", {}, true},
      {"elemwise_sub", {}, true},
      {"elemwise_mul", {}, true},
      {"elemwise_div", {}, true},
      {"negative", {}, true},
      {"abs", {}, true},
      {"square", {}, true},
      {"relu", {}, true},
      {"sqrt", {}, false, 0, 9},
      {"exp", {}, false},
      {"log", {}, false, 0, 9},
      {"tanh", {}, false},
      {"sigmoid", {}, false},
      {"_plus_scalar", {{"scalar", "0.3"}}, true},
      {"_minus_scalar", {{"scalar", "2"}}, true},
      {"_rminus_scalar", {{"scalar", "-1.5"}}, true},
      {"_mul_scalar", {}, true},  // default scalar 1
      {"_mul_scalar", {{"scalar", "0.1"}}, true},
      {"_div_scalar", {{"scalar", "3"}}, true},
      {"_rdiv_scalar", {{"scalar", "7"}}, true},
      {"Activation", {{"act_type", "relu"}}, true},
      {"Activation", {{"act_type", "sigmoid"}}, false},
      {"Activation", {{"act_type", "tanh"}}, false},
      {"Activation", {{"act_type", "softrelu"}}, false, -30, 30},
      {"Activation", {{"act_type", "softsign"}}, false},
  };
  std::vector<std::string> seen;
  for (const Case& c : cases) {
    const Op& op = OpRegistry::Get(c.op);
    OpAttrs attrs = OpAttrs::Parse(op, c.attrs);
    std::optional<EwCall> call = ResolveElemwise(attrs);
    ASSERT_TRUE(call) << c.op;
    seen.push_back(c.op);
    for (DType t : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
      for (size_t n : {size_t{0}, size_t{1}, size_t{9}, size_t{1031}}) {
        for (int64_t offset : {0, 1, 2}) {
          SCOPED_TRACE(c.op + " " + std::string(DTypeName(t)) + " n=" + std::to_string(n) +
                       " offset=" + std::to_string(offset));
          std::vector<NDArray> in;
          for (int i = 0; i < op.NumInputs(attrs); ++i)
            in.push_back(At(Values(n, c.lo, c.hi, 1 + i), i == 0 ? offset : 0, t));
          ASSERT_TRUE(ElemwiseGpuSupports(attrs, in));
          // The reference kernel (the optimized float32 ones approximate: oneDNN's softrelu
          // flushes 2e-10 to 0).
          NDArray want(in[0].shape(), cpu(), t);
          (*op.FindKernel({DeviceType::kCPU, Backend::kReference}))(
              OpContext{}, attrs, in, std::span<const NDArray>(&want, 1));
          NDArray got = At(std::vector<double>(n, 12345.0), offset, t);  // sentinel
          ElemwisePlan plan = PlanFor(*call, got, in, 2);
          if (offset == 0 && n > 0) {
            EXPECT_EQ(plan.vec, 16 / static_cast<int>(DTypeSize(t)));
          }
          if (offset == 1 && n > 0) {
            EXPECT_EQ(plan.vec, 1);
          }
          RunOnHost(*call, plan, got, in);
          std::vector<double> g = got.ToVector<double>(), w = want.ToVector<double>();
          for (size_t i = 0; i < n; ++i) {
            // float16: results within one half ulp (the CPU rounds a float or double result,
            // the kernel a float one), counted in float ulps of 2^13 per half ulp.
            double ulp = t == DType::kFloat64
                             ? UlpDiff(g[i], w[i])
                             : UlpDiff(static_cast<float>(g[i]), static_cast<float>(w[i])) /
                                   (t == DType::kFloat16 ? 8192.0 : 1.0);
            ASSERT_LE(ulp, t == DType::kFloat16 ? 1 : 4)
                << "element " << i << ": " << g[i] << " vs the CPU's " << w[i];
          }
        }
      }
    }
  }
  // Every covered name has a case.
  for (const std::string& name : ElemwiseGpuOpNames())
    EXPECT_NE(std::find(seen.begin(), seen.end(), name), seen.end()) << name;
}

TEST(ElemwiseKernelOnHost, UncoveredCallsAreNotTaken) {
  const Op& act = OpRegistry::Get("Activation");
  NDArray x = NDArray::FromVector<float>({1, 2}, Shape{2});
  EXPECT_FALSE(ElemwiseGpuSupports(OpAttrs::Parse(act, {{"act_type", "relu"}}),
                                   std::vector<NDArray>{x.astype(DType::kBFloat16)}));
  EXPECT_FALSE(ElemwiseGpuSupports(OpAttrs::Parse(act, {{"act_type", "relu"}}),
                                   std::vector<NDArray>{x.astype(DType::kInt32)}));
  const Op& add = OpRegistry::Get("elemwise_add");
  EXPECT_FALSE(ElemwiseGpuSupports(OpAttrs::Parse(add, {}),
                                   std::vector<NDArray>{x, x.astype(DType::kFloat64)}));
  const Op& sin = OpRegistry::Get("sin");
  EXPECT_FALSE(ResolveElemwise(OpAttrs::Parse(sin, {})));
  EXPECT_FALSE(ElemwiseGpuSupports(OpAttrs::Parse(sin, {}), std::vector<NDArray>{x}));
}

}  // namespace
}  // namespace mxnet::backends::cuda
