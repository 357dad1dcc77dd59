// Benchmark of the int8 convolution (_contrib_quantized_conv: uint8 data x int8 weight -> int32,
// oneDNN int8 primitive and the reference loops) against the float32 Convolution (oneDNN), on
// ResNet's 3x3 conv 64->64 over 56x56 (batch 1 and 8), kernel time only (outputs allocated
// once, primitives cached by a warm-up call). Run with
//   ./bazelw run -c opt --config=bench //ndarray/ops:conv_quant_benchmark --
//   --benchmark_repetitions=3
// On a shared machine compare the CPU column with OMP_NUM_THREADS=1.
#include <benchmark/benchmark.h>

#include <random>

#include "ndarray/op.h"

namespace mxnet {
namespace {

NDArray Random(const Shape& s, uint64_t seed, DType dt) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(dt == DType::kUint8 ? 0 : -127, 127);
  std::vector<float> v(s.Size());
  for (auto& x : v) x = dt == DType::kFloat32 ? d(gen) / 127.0f : static_cast<float>(d(gen));
  return NDArray::FromVector(v, s, cpu(), dt);
}
NDArray Range(float v) { return NDArray::FromVector(std::vector<float>{v}, Shape{1}); }

void Run(benchmark::State& state, const char* name, const AttrDict& attrs, std::vector<NDArray> in,
         Backend backend) {
  const Op& op = OpRegistry::Get(name);
  OpAttrs a = OpAttrs::Parse(op, attrs);
  const FCompute* k = op.FindKernel({DeviceType::kCPU, backend});
  if (!k) {
    state.SkipWithError("no such kernel");
    return;
  }
  NDArrayVec out = Invoke(op, a, in);  // allocates outputs, warms the primitive cache
  OpContext ctx;
  for (auto _ : state) {
    (*k)(ctx, a, in, out);
    benchmark::DoNotOptimize(out[0].data_ptr());
  }
  state.SetLabel(backend == Backend::kReference ? "reference" : "optimized");
}

const AttrDict kConv{
    {"kernel", "(3, 3)"}, {"num_filter", "64"}, {"pad", "(1, 1)"}, {"no_bias", "True"}};

// range(0): batch; range(1): 1 = oneDNN, 0 = reference.
void BM_QuantizedConv(benchmark::State& state) {
  const int64_t n = state.range(0);
  Run(state, "_contrib_quantized_conv", kConv,
      {Random({n, 64, 56, 56}, 1, DType::kUint8), Random({64, 64, 3, 3}, 2, DType::kInt8), Range(0),
       Range(1), Range(-1), Range(1)},
      state.range(1) ? Backend::kOptimized : Backend::kReference);
}
BENCHMARK(BM_QuantizedConv)
    ->Args({1, 1})
    ->Args({8, 1})
    ->Args({1, 0})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_FloatConv(benchmark::State& state) {
  const int64_t n = state.range(0);
  Run(state, "Convolution", kConv,
      {Random({n, 64, 56, 56}, 1, DType::kFloat32), Random({64, 64, 3, 3}, 2, DType::kFloat32)},
      Backend::kOptimized);
}
BENCHMARK(BM_FloatConv)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace mxnet
