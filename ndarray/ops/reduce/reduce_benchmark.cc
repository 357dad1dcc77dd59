// Benchmarks of the reduce family, kernel time only (outputs allocated once), reference vs
// optimized kernels. Run with
//   ./bazelw run -c opt //ndarray/ops/reduce:reduce_benchmark -- --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true  (one line)
// Cases: sum over each axis of a (256, 1024) float32 array; dot 256x256x256 and 1x512 . 512x1000
// (float32 on oneDNN, float64 on the packed loop); batch_dot 32 x (64x64 . 64x64); np.matmul
// 8 x (128x64 . 64x128); topk k=5 over
// rows of 1000 (and a full sort).
#include <benchmark/benchmark.h>

#include <random>

#include "ndarray/op.h"

namespace mxnet {
namespace {

NDArray Random(const Shape& s, uint64_t seed, DType dt) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<double> v(s.Size());
  for (auto& x : v) x = d(gen);
  return NDArray::FromVector(v, s, cpu(), dt);
}

// Runs `op` with the kernel of `backend` on random inputs of `shapes`.
void RunOp(benchmark::State& state, const char* name, const AttrDict& attrs,
           std::vector<Shape> shapes, Backend backend, DType dt = DType::kFloat32) {
  const Op& op = OpRegistry::Get(name);
  OpAttrs a = OpAttrs::Parse(op, attrs);
  std::vector<NDArray> in;
  for (size_t i = 0; i < shapes.size(); ++i) in.push_back(Random(shapes[i], i + 1, dt));
  ShapeVec in_s, out_s;
  DTypeVec in_t, out_t;
  for (auto& x : in) in_s.push_back(x.shape()), in_t.push_back(static_cast<int>(dt));
  InferOutputs(op, a, &in_s, &in_t, &out_s, &out_t);
  NDArrayVec out;
  for (size_t i = 0; i < out_s.size(); ++i)
    out.emplace_back(out_s[i], cpu(), static_cast<DType>(out_t[i]));
  const FCompute* k = op.FindKernel({DeviceType::kCPU, backend});
  if (!k) {
    state.SkipWithError("no such kernel");
    return;
  }
  OpContext ctx;
  (*k)(ctx, a, in, out);  // warm-up (creates and caches oneDNN primitives)
  for (auto _ : state) {
    (*k)(ctx, a, in, out);
    benchmark::DoNotOptimize(out[0].data_ptr());
  }
  int64_t elems = 0;
  for (auto& x : in) elems += x.size();
  state.SetItemsProcessed(state.iterations() * elems);
  state.SetLabel(backend == Backend::kReference ? "reference" : "optimized");
}

Backend B(const benchmark::State& s, int arg = 0) {
  return s.range(arg) ? Backend::kOptimized : Backend::kReference;
}

// sum over axis range(0) of (256, 1024); range(1): 0 reference, 1 optimized.
void BM_SumAxis_256x1024(benchmark::State& s) {
  RunOp(s, "sum", {{"axis", s.range(0) ? "1" : "0"}}, {{256, 1024}}, B(s, 1));
}
BENCHMARK(BM_SumAxis_256x1024)
    ->ArgNames({"axis", "opt"})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({0, 0})
    ->Args({0, 1});

void BM_Dot_256x256x256(benchmark::State& s) {
  RunOp(s, "dot", {}, {{256, 256}, {256, 256}}, B(s));
}
BENCHMARK(BM_Dot_256x256x256)->ArgName("opt")->Arg(0)->Arg(1);

void BM_Dot_256x256x256_TransposeB(benchmark::State& s) {
  RunOp(s, "dot", {{"transpose_b", "True"}}, {{256, 256}, {256, 256}}, B(s));
}
BENCHMARK(BM_Dot_256x256x256_TransposeB)->ArgName("opt")->Arg(1);

void BM_Dot_256x256x256_Float64(benchmark::State& s) {
  RunOp(s, "dot", {}, {{256, 256}, {256, 256}}, B(s), DType::kFloat64);
}
BENCHMARK(BM_Dot_256x256x256_Float64)->ArgName("opt")->Arg(0)->Arg(1);

void BM_Dot_1x512x1000(benchmark::State& s) { RunOp(s, "dot", {}, {{1, 512}, {512, 1000}}, B(s)); }
BENCHMARK(BM_Dot_1x512x1000)->ArgName("opt")->Arg(0)->Arg(1);

void BM_BatchDot_32x64x64x64(benchmark::State& s) {
  RunOp(s, "batch_dot", {}, {{32, 64, 64}, {32, 64, 64}}, B(s));
}
BENCHMARK(BM_BatchDot_32x64x64x64)->ArgName("opt")->Arg(0)->Arg(1);

// np.matmul 8 x (128x64 . 64x128): the contraction loop vs batch_dot's oneDNN kernel.
void BM_NpMatmul_8x128x64x128(benchmark::State& s) {
  RunOp(s, "_npi_matmul", {}, {{8, 128, 64}, {8, 64, 128}}, B(s));
}
BENCHMARK(BM_NpMatmul_8x128x64x128)->ArgName("opt")->Arg(0)->Arg(1);

void BM_Topk5_64x1000(benchmark::State& s) {
  RunOp(s, "topk", {{"k", "5"}, {"ret_typ", "both"}}, {{64, 1000}}, B(s));
}
BENCHMARK(BM_Topk5_64x1000)->ArgName("opt")->Arg(0)->Arg(1);

void BM_Sort_64x1000(benchmark::State& s) { RunOp(s, "sort", {}, {{64, 1000}}, B(s)); }
BENCHMARK(BM_Sort_64x1000)->ArgName("opt")->Arg(0)->Arg(1);

}  // namespace
}  // namespace mxnet
