// Optimizer updates on 10M float32 parameters through optimizer::Optimizer (as Trainer::step
// drives them: update count, learning rate and bias correction, then the fused kernel in place).
// Depends on the optim op family only; the raw kernels are in
// //ndarray/ops/optim:optim_benchmark. Bytes per parameter as there: SGD momentum 5 x 4 B,
// Adam 7 x 4 B, multi-precision SGD momentum 3 x 2 B + 4 x 4 B.
//   ./bazelw run -c opt --config=bench //gluon/training:optimizer_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "gluon/training/optimizer.h"

namespace mxnet::gluon::optimizer {
namespace {

constexpr int64_t kN = 10'000'000;

void Run(benchmark::State& state, const std::string& name, const Kwargs& kw, DType dtype,
         int64_t bytes_per_param) {
  OptimizerPtr opt = Create(name, kw);
  NDArray w = NDArray::Full(Shape{kN}, 0.5, cpu(), dtype);
  NDArray g = NDArray::Full(Shape{kN}, 0.01, cpu(), dtype);
  State st = opt->create_state_multi_precision(0, w);
  for (auto _ : state) opt->update_multi_precision(0, w, g, st);
  state.SetItemsProcessed(state.iterations() * kN);  // parameters per second
  state.SetBytesProcessed(state.iterations() * kN * bytes_per_param);
}

void BM_SGDMomentum(benchmark::State& state) {
  Run(state, "sgd", {{"learning_rate", 0.01}, {"momentum", 0.9}, {"wd", 1e-4}}, DType::kFloat32,
      5 * 4);
}
BENCHMARK(BM_SGDMomentum)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Adam(benchmark::State& state) {
  Run(state, "adam", {{"learning_rate", 0.001}, {"wd", 1e-4}}, DType::kFloat32, 7 * 4);
}
BENCHMARK(BM_Adam)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SGDMomentumMultiPrecision(benchmark::State& state) {
  Run(state, "sgd", {{"learning_rate", 0.01}, {"momentum", 0.9}, {"multi_precision", true}},
      DType::kFloat16, 3 * 2 + 4 * 4);
}
BENCHMARK(BM_SGDMomentumMultiPrecision)->Unit(benchmark::kMillisecond)->UseRealTime();

// Memory bandwidth reference: a copy of 10M floats (read 4 B, write 4 B per element).
void BM_CopyReference(benchmark::State& state) {
  NDArray a = NDArray::Full(Shape{kN}, 0.5), b = NDArray::Full(Shape{kN}, 0.0);
  for (auto _ : state) a.copyto(b);
  state.SetItemsProcessed(state.iterations() * kN);
  state.SetBytesProcessed(state.iterations() * kN * 8);
}
BENCHMARK(BM_CopyReference)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace mxnet::gluon::optimizer
