// Fused optimizer updates on 10M (and, for Adam, 1M) float32 parameters, in place (out = weight)
// through the nd:: API (one dispatch per update, as an optimizer calls them). Bytes counted per
// parameter: sgd_mom_update reads weight, grad, mom and writes mom, weight (5 x 4 B); adam_update
// reads weight, grad, mean, var and writes mean, var, weight (7 x 4 B); mp_sgd_mom_update moves
// float16 weight/grad (2 B each read or written) and float32 mom/weight32 (4 x 4 B).
//   ./bazelw run -c opt --config=bench //ndarray/ops/optim:optim_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "ndarray/ops/optim/optim_api.h"

namespace mxnet {
namespace {

constexpr int64_t kN = 10'000'000;

NDArray Full(double v, DType t = DType::kFloat32) { return NDArray::Full(Shape{kN}, v, cpu(), t); }

void Report(benchmark::State& state, int64_t bytes_per_param) {
  state.SetItemsProcessed(state.iterations() * kN);  // parameters per second
  state.SetBytesProcessed(state.iterations() * kN * bytes_per_param);
}

void BM_SgdMomUpdate(benchmark::State& state) {
  NDArray w = Full(0.5), g = Full(0.01), mom = Full(0.0);
  nd::SGDMomOptions o{.lr = 0.01f, .momentum = 0.9f, .wd = 1e-4f};
  for (auto _ : state) nd::sgd_mom_update(w, g, mom, o, w);
  Report(state, 5 * 4);
}
BENCHMARK(BM_SgdMomUpdate)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SgdMomUpdateClip(benchmark::State& state) {
  NDArray w = Full(0.5), g = Full(0.01), mom = Full(0.0);
  nd::SGDMomOptions o{.lr = 0.01f, .momentum = 0.9f, .wd = 1e-4f, .clip_gradient = 1.0f};
  for (auto _ : state) nd::sgd_mom_update(w, g, mom, o, w);
  Report(state, 5 * 4);
}
BENCHMARK(BM_SgdMomUpdateClip)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_AdamUpdate(benchmark::State& state) {
  NDArray w = Full(0.5), g = Full(0.01), mean = Full(0.0), var = Full(0.0);
  nd::AdamOptions o{.lr = 0.001f, .wd = 1e-4f};
  for (auto _ : state) nd::adam_update(w, g, mean, var, o, w);
  Report(state, 7 * 4);
}
BENCHMARK(BM_AdamUpdate)->Unit(benchmark::kMillisecond)->UseRealTime();

// adam_update on 1M floats (12 MB of weight, grad and states: mostly cache-resident).
void BM_AdamUpdate1M(benchmark::State& state) {
  constexpr int64_t n = 1'000'000;
  auto full = [](double v) { return NDArray::Full(Shape{n}, v, cpu(), DType::kFloat32); };
  NDArray w = full(0.5), g = full(0.01), mean = full(0.0), var = full(0.0);
  nd::AdamOptions o{.lr = 0.001f, .wd = 1e-4f};
  for (auto _ : state) nd::adam_update(w, g, mean, var, o, w);
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * 7 * 4);
}
BENCHMARK(BM_AdamUpdate1M)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_MpSgdMomUpdate(benchmark::State& state) {
  NDArray w = Full(0.5, DType::kFloat16), g = Full(0.01, DType::kFloat16), mom = Full(0.0),
          w32 = Full(0.5);
  nd::SGDMomOptions o{.lr = 0.01f, .momentum = 0.9f, .wd = 1e-4f};
  for (auto _ : state) nd::mp_sgd_mom_update(w, g, mom, w32, o, w);
  Report(state, 3 * 2 + 4 * 4);
}
BENCHMARK(BM_MpSgdMomUpdate)->Unit(benchmark::kMillisecond)->UseRealTime();

// Memory bandwidth reference: a plain copy of 10M floats (read 4 B, write 4 B).
void BM_CopyReference(benchmark::State& state) {
  NDArray a = Full(0.5), b = Full(0.0);
  for (auto _ : state) a.copyto(b);
  Report(state, 2 * 4);
}
BENCHMARK(BM_CopyReference)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace mxnet
