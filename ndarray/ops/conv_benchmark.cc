// Benchmarks of the conv family: reference kernels vs oneDNN (float32), kernel time only
// (outputs allocated once). Run with
//   ./bazelw run -c opt //ndarray/ops:conv_benchmark -- --benchmark_repetitions=3
// Cases: ResNet 3x3 conv 64->64 on 56x56 (batch 1 and 32), forward and both backward passes;
// FullyConnected 512 -> 1000 (batch 1 and 64); max pooling 3x3 stride 2 pad 1 on 64x112x112
// (ResNet's stem pool, batch 1 and 8).
#include <benchmark/benchmark.h>

#include <random>

#include "ndarray/op.h"

namespace mxnet {
namespace {

NDArray Random(const Shape& s, uint64_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(s.Size());
  for (auto& x : v) x = d(gen);
  return NDArray::FromVector(v, s);
}

// Runs `op` with the kernel of `backend` on fresh random inputs of `shapes`.
void RunOp(benchmark::State& state, const char* name, const AttrDict& attrs,
           std::vector<Shape> shapes, Backend backend) {
  const Op& op = OpRegistry::Get(name);
  OpAttrs a = OpAttrs::Parse(op, attrs);
  std::vector<NDArray> in;
  for (size_t i = 0; i < shapes.size(); ++i) in.push_back(Random(shapes[i], i + 1));
  ShapeVec in_s, out_s;
  DTypeVec in_t, out_t;
  for (auto& x : in) in_s.push_back(x.shape()), in_t.push_back(0);
  InferOutputs(op, a, &in_s, &in_t, &out_s, &out_t);
  NDArrayVec out;
  for (auto& s : out_s) out.emplace_back(s);
  const FCompute* k = op.FindKernel({DeviceType::kCPU, backend});
  if (!k) {
    state.SkipWithError("no such kernel");
    return;
  }
  OpContext ctx;
  (*k)(ctx, a, in, out);  // warm-up (creates and caches the oneDNN primitive)
  for (auto _ : state) {
    (*k)(ctx, a, in, out);
    benchmark::DoNotOptimize(out[0].data_ptr());
  }
  state.SetLabel(backend == Backend::kReference ? "reference" : "onednn");
}

const AttrDict kConv{
    {"kernel", "(3, 3)"}, {"num_filter", "64"}, {"pad", "(1, 1)"}, {"no_bias", "True"}};
const AttrDict kFc{{"num_hidden", "1000"}};
const AttrDict kPool{{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}};

Backend B(const benchmark::State& s) {
  return s.range(1) ? Backend::kOptimized : Backend::kReference;
}

void BM_Conv3x3_64(benchmark::State& s) {
  int64_t n = s.range(0);
  RunOp(s, "Convolution", kConv, {{n, 64, 56, 56}, {64, 64, 3, 3}}, B(s));
}
void BM_Conv3x3_64_BackwardData(benchmark::State& s) {
  int64_t n = s.range(0);
  RunOp(s, "_backward_Convolution_data", kConv, {{n, 64, 56, 56}, {64, 64, 3, 3}, {n, 64, 56, 56}},
        B(s));
}
void BM_Conv3x3_64_BackwardWeight(benchmark::State& s) {
  int64_t n = s.range(0);
  RunOp(s, "_backward_Convolution_weight", kConv, {{n, 64, 56, 56}, {n, 64, 56, 56}}, B(s));
}
void BM_FullyConnected_512x1000(benchmark::State& s) {
  int64_t n = s.range(0);
  RunOp(s, "FullyConnected", kFc, {{n, 512}, {1000, 512}, {1000}}, B(s));
}
void BM_MaxPool3x3s2(benchmark::State& s) {
  int64_t n = s.range(0);
  RunOp(s, "Pooling", kPool, {{n, 64, 112, 112}}, B(s));
}

// {batch, oneDNN?}; the batch-32 reference convolutions take seconds per iteration.
BENCHMARK(BM_Conv3x3_64)->ArgsProduct({{1}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv3x3_64)->Args({32, 0})->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv3x3_64)->Args({32, 1})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv3x3_64_BackwardData)->ArgsProduct({{1}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv3x3_64_BackwardWeight)->ArgsProduct({{1}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FullyConnected_512x1000)
    ->ArgsProduct({{1, 64}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MaxPool3x3s2)->ArgsProduct({{1, 8}, {0, 1}})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mxnet
