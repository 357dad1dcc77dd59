// _contrib_interleaved_matmul_selfatt_qk at BERT-base size (seq 128, batch 8, heads 12,
// head_dim 64), float32: the oneDNN kernel (strided batched matmul reading the interleaved
// projections in place) vs the reference loops, forward and backward:
//   ./bazelw run -c opt --config=bench //ndarray/ops/contrib:nn_contrib_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Kernels run on preallocated outputs (no dispatch or output allocation measured). Items
// processed: multiply-adds of the matmul (B * heads * T * T * head_dim).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ndarray/op.h"
#include "ndarray/ops/contrib/nn_contrib_api.h"

namespace mxnet {
namespace {

NDArray Uniform(const Shape& s, float lo, float hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(s.Size());
  for (auto& x : v) x = d(gen);
  return NDArray::FromVector(v, s);
}

NDArrayVec Outputs(const Op& op, const OpAttrs& attrs, const std::vector<NDArray>& in) {
  ShapeVec is, os;
  DTypeVec it, ot;
  for (auto& x : in) is.push_back(x.shape()), it.push_back(DTypeFlag(x.dtype()));
  InferOutputs(op, attrs, &is, &it, &os, &ot);
  NDArrayVec out;
  for (size_t i = 0; i < os.size(); ++i) out.emplace_back(os[i], cpu(), static_cast<DType>(ot[i]));
  return out;
}

// Arguments: backend (0 reference, 1 oneDNN), backward (0/1).
void BM_SelfAttQK(benchmark::State& state) {
  const int64_t T = 128, B = 8, H = 12, D = 64;
  const Backend be = state.range(0) ? Backend::kOptimized : Backend::kReference;
  const bool backward = state.range(1) != 0;
  const Op& op = OpRegistry::Get(backward ? "_backward_interleaved_matmul_selfatt_qk"
                                          : "_contrib_interleaved_matmul_selfatt_qk");
  const OpAttrs a = OpAttrs::From(op, ops::InterleavedMatmulParam{.heads = static_cast<int>(H)});
  std::vector<NDArray> in;
  if (backward) in.push_back(Uniform({B * H, T, T}, -1, 1, 2));
  in.push_back(Uniform({T, B, H * 3 * D}, -1, 1, 1));
  NDArrayVec out = Outputs(op, a, in);
  const FCompute* k = op.FindKernel({DeviceType::kCPU, be});
  OpContext ctx{false, false, cpu()};
  for (auto _ : state) (*k)(ctx, a, in, out);
  state.SetItemsProcessed(state.iterations() * B * H * T * T * D * (backward ? 2 : 1));
}
BENCHMARK(BM_SelfAttQK)
    ->ArgNames({"onednn", "backward"})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({0, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace mxnet

BENCHMARK_MAIN();
