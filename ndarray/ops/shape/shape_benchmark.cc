// Kernels of the shape family on realistic sizes:
//   ./bazelw run -c opt --config=bench //ndarray/ops/shape:shape_benchmark
// Bytes/s counts the bytes read plus written.
#include <benchmark/benchmark.h>

#include "ndarray/ops/shape/shape_api.h"

namespace mxnet {
namespace {

NDArray Filled(const Shape& s) { return nd::full(s, 1.5); }

// NCHW -> NHWC of a ResNet-sized activation (32x64x56x56 float32, 25.7 MB).
void BM_TransposeNCHWtoNHWC(benchmark::State& state) {
  NDArray x = Filled({32, 64, 56, 56});
  for (auto _ : state) benchmark::DoNotOptimize(nd::transpose(x, {0, 2, 3, 1}));
  state.SetBytesProcessed(state.iterations() * 2 * static_cast<int64_t>(x.nbytes()));
}
BENCHMARK(BM_TransposeNCHWtoNHWC)->Unit(benchmark::kMillisecond)->UseRealTime();

// NHWC -> NCHW (the inverse permutation).
void BM_TransposeNHWCtoNCHW(benchmark::State& state) {
  NDArray x = Filled({32, 56, 56, 64});
  for (auto _ : state) benchmark::DoNotOptimize(nd::transpose(x, {0, 3, 1, 2}));
  state.SetBytesProcessed(state.iterations() * 2 * static_cast<int64_t>(x.nbytes()));
}
BENCHMARK(BM_TransposeNHWCtoNCHW)->Unit(benchmark::kMillisecond)->UseRealTime();

// A plain copy of the same bytes: the memory-bandwidth bound the transposes compare against.
void BM_CopySameBytes(benchmark::State& state) {
  NDArray x = Filled({32, 64, 56, 56});
  for (auto _ : state) benchmark::DoNotOptimize(nd::reshape(x, {-1}));
  state.SetBytesProcessed(state.iterations() * 2 * static_cast<int64_t>(x.nbytes()));
}
BENCHMARK(BM_CopySameBytes)->Unit(benchmark::kMillisecond)->UseRealTime();

// Channel concat of two DenseNet-style feature maps: (32,64,28,28) + (32,32,28,28) on dim 1.
void BM_ConcatChannels(benchmark::State& state) {
  NDArray a = Filled({32, 64, 28, 28}), b = Filled({32, 32, 28, 28});
  for (auto _ : state) benchmark::DoNotOptimize(nd::Concat({a, b}, 1));
  state.SetBytesProcessed(state.iterations() * 2 * static_cast<int64_t>(a.nbytes() + b.nbytes()));
}
BENCHMARK(BM_ConcatChannels)->Unit(benchmark::kMillisecond)->UseRealTime();

// Concat along the last axis (many short runs).
void BM_ConcatLastAxis(benchmark::State& state) {
  NDArray a = Filled({4096, 64}), b = Filled({4096, 64});
  for (auto _ : state) benchmark::DoNotOptimize(nd::Concat({a, b}, 1));
  state.SetBytesProcessed(state.iterations() * 2 * static_cast<int64_t>(a.nbytes() + b.nbytes()));
}
BENCHMARK(BM_ConcatLastAxis)->Unit(benchmark::kMicrosecond)->UseRealTime();

// tile of a (64, 56, 56) map 4x along a new leading axis and 2x along the last.
void BM_Tile(benchmark::State& state) {
  NDArray x = Filled({64, 56, 56});
  NDArray y = nd::tile(x, {4, 1, 1, 2});
  for (auto _ : state) benchmark::DoNotOptimize(nd::tile(x, {4, 1, 1, 2}));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(x.nbytes() + y.nbytes()));
}
BENCHMARK(BM_Tile)->Unit(benchmark::kMillisecond)->UseRealTime();

// Dispatch overhead of a tiny reshape (registry lookup, inference, allocation, copy).
void BM_DispatchReshape(benchmark::State& state) {
  NDArray x = Filled({2, 5});
  for (auto _ : state) benchmark::DoNotOptimize(nd::reshape(x, {-1}));
}
BENCHMARK(BM_DispatchReshape);

}  // namespace
}  // namespace mxnet
