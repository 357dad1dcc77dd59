// Benchmark of the int8 convolution (_contrib_quantized_conv: uint8 data x int8 weight -> int32,
// oneDNN int8 primitive and the reference loops) against the float32 Convolution (oneDNN), on
// ResNet's 3x3 conv 64->64 over 56x56 (batch 1 and 8), kernel time only (outputs allocated
// once, primitives cached by a warm-up call). BM_QuantizedConvSplit times the exact path that
// CPUs without VNNI take (conv_quant_exact.h) on any CPU; the context lines name the CPU level
// and whether oneDNN uses VNNI. Run with
//   ./bazelw run -c opt --config=bench //ndarray/ops/quantization:quant_benchmark --
//   --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// and again with ONEDNN_MAX_CPU_ISA=AVX2 in the environment for an AVX2 CPU's kernels (then
// BM_QuantizedConv/*/1 runs the split path too). On a shared machine compare the CPU column with
// OMP_NUM_THREADS=1.
#include <benchmark/benchmark.h>

#include <random>

#include "base/cpu_isa.h"
#include "ndarray/op.h"
#include "ndarray/ops/conv/conv_params.h"
#include "ndarray/ops/quantization/quant_exact.h"

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

// range(0): batch. The weight-split path directly (exact without VNNI).
void BM_QuantizedConvSplit(benchmark::State& state) {
  const int64_t n = state.range(0);
  NDArray x = Random({n, 64, 56, 56}, 1, DType::kUint8),
          w = Random({64, 64, 3, 3}, 2, DType::kInt8);
  ops::ConvolutionParam p;
  p.kernel = Shape{3, 3};
  p.pad = Shape{1, 1};
  p.num_filter = 64;
  ops::ConvGeom g = ops::ConvGeomFromConv("_contrib_quantized_conv", p, x.shape());
  NDArray y = NDArray::Full(g.YShape(), 0, cpu(), DType::kInt32);
  if (!ops::onednn::QuantizedConvForwardSplit(g, x, w, nullptr, y)) {
    state.SkipWithError("oneDNN cannot run it");
    return;
  }
  for (auto _ : state) {
    ops::onednn::QuantizedConvForwardSplit(g, x, w, nullptr, y);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  state.SetLabel("weight split");
}
BENCHMARK(BM_QuantizedConvSplit)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_FloatConv(benchmark::State& state) {
  const int64_t n = state.range(0);
  Run(state, "Convolution", kConv,
      {Random({n, 64, 56, 56}, 1, DType::kFloat32), Random({64, 64, 3, 3}, 2, DType::kFloat32)},
      Backend::kOptimized);
}
BENCHMARK(BM_FloatConv)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();

const bool kContext = [] {
  benchmark::AddCustomContext("cpu_level", CpuIsaName(MaxCpuIsa()));
  benchmark::AddCustomContext("onednn_vnni", ops::quant_exact::OneDnnHasVnni() ? "yes" : "no");
  return true;
}();

}  // namespace
}  // namespace mxnet
