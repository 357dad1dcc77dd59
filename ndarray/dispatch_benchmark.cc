// Imperative dispatch overhead of a small op, including output allocation
// (issue target: under 2 us per call). Compare: real MXNet 1.9.1's Python NDArray, about
// 10.5 us per mx.nd.relu call on (10,) (tools/conformance/README.md).
#include <benchmark/benchmark.h>

#include "ndarray/ops/core/basic_api.h"

namespace mxnet {
namespace {

void BM_DispatchNegative10(benchmark::State& state) {
  NDArray x = NDArray::Full(Shape{10}, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(nd::negative(x));
}
BENCHMARK(BM_DispatchNegative10);

void BM_DispatchElemwiseAdd10(benchmark::State& state) {
  NDArray x = NDArray::Full(Shape{10}, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(nd::elemwise_add(x, x));
}
BENCHMARK(BM_DispatchElemwiseAdd10);

void BM_DispatchScalarOp10(benchmark::State& state) {
  NDArray x = NDArray::Full(Shape{10}, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(nd::plus_scalar(x, 2.0));
}
BENCHMARK(BM_DispatchScalarOp10);

void BM_DispatchByName10(benchmark::State& state) {
  NDArray x = NDArray::Full(Shape{10}, 1.0);
  std::vector<NDArray> in{x};
  for (auto _ : state) benchmark::DoNotOptimize(Invoke("_plus_scalar", in, {{"scalar", "2"}}));
}
BENCHMARK(BM_DispatchByName10);

}  // namespace
}  // namespace mxnet
