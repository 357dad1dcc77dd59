// Overhead of recording one op for autograd vs not recording (issue 4).
#include <benchmark/benchmark.h>

#include "autograd/autograd.h"
#include "ndarray/ops/core/basic_api.h"

namespace mxnet {
namespace {

void BM_NegativeNotRecording(benchmark::State& state) {
  NDArray x = NDArray::Full(Shape{10}, 1.0);
  x.attach_grad();
  for (auto _ : state) benchmark::DoNotOptimize(nd::negative(x));
}
BENCHMARK(BM_NegativeNotRecording);

void BM_NegativeRecording(benchmark::State& state) {
  NDArray x = NDArray::Full(Shape{10}, 1.0);
  x.attach_grad();
  auto r = autograd::record();
  for (auto _ : state) benchmark::DoNotOptimize(nd::negative(x));
}
BENCHMARK(BM_NegativeRecording);

void BM_RecordAndBackward(benchmark::State& state) {
  NDArray x = NDArray::Full(Shape{10}, 1.0);
  x.attach_grad();
  for (auto _ : state) {
    NDArray y;
    {
      auto r = autograd::record();
      y = nd::elemwise_mul(x, x);
    }
    autograd::backward({y});
  }
}
BENCHMARK(BM_RecordAndBackward);

}  // namespace
}  // namespace mxnet
