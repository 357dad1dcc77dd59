// Inference of model-zoo nets at 224x224: latency at batch 1 and throughput at batch 32
// (items_per_second = images/s), imperative vs hybridized (static_alloc + static_shape). "Time"
// is wall time; "CPU" is the process's CPU time (all threads), the robust figure on a loaded
// machine.
//   ./bazelw run -c opt --config=bench //modelzoo:modelzoo_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Threads: OMP_NUM_THREADS / MXNET_OMP_MAX_THREADS (base/threading.h). MXNet 1.9.1's figures
// for the same nets: tools/conformance/modelzoo_bench_mxnet.py.
#include <benchmark/benchmark.h>

#include "modelzoo/testing/deterministic_weights.h"
#include "modelzoo/vision.h"
#include "symbol/executor.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

void BM_Inference(benchmark::State& state, const char* name, bool hybridized) {
  int64_t batch = state.range(0);
  auto net = get_model(name);
  net->initialize(init::Xavier());
  NDArray x = testing::DeterministicValues("input", Shape{batch, 3, 224, 224});
  (*net)(x).wait_to_read();  // completes deferred initialization
  if (hybridized) net->hybridize(true, {.static_alloc = true, .static_shape = true});
  (*net)(x).wait_to_read();  // warm-up (traces when hybridized)
  for (auto _ : state) (*net)(x).wait_to_read();
  state.SetItemsProcessed(state.iterations() * batch);
}

// The hybridized net's traced graph run by a CachedOp with the inference passes (BatchNorm
// folding, oneDNN conv/FC post-op fusion): what hybridize({.backend = "onednn"}) runs, without
// the Block call overhead.
void BM_InferencePasses(benchmark::State& state, const char* name) {
  int64_t batch = state.range(0);
  auto net = get_model(name);
  net->initialize(init::Xavier());
  NDArray x = testing::DeterministicValues("input", Shape{batch, 3, 224, 224});
  net->hybridize();
  (*net)(x).wait_to_read();
  sym::CachedOp op(net->cached_graph(),
                   {.static_alloc = true, .static_shape = true, .backend = "onednn"});
  ParameterDict params = net->collect_params();
  std::vector<NDArray> args;
  for (const auto& n : op.input_names()) args.push_back(n == "data" ? x : params.get(n)->data());
  op.Forward(args, false)[0].wait_to_read();
  for (auto _ : state) op.Forward(args, false)[0].wait_to_read();
  state.SetItemsProcessed(state.iterations() * batch);
}

#define MX_ZOO_BENCH(NAME, ID)                                  \
  BENCHMARK_CAPTURE(BM_Inference, ID##_imperative, NAME, false) \
      ->Arg(1)                                                  \
      ->Arg(32)                                                 \
      ->Unit(benchmark::kMillisecond)                           \
      ->UseRealTime()                                           \
      ->MeasureProcessCPUTime();                                \
  BENCHMARK_CAPTURE(BM_Inference, ID##_hybridized, NAME, true)  \
      ->Arg(1)                                                  \
      ->Arg(32)                                                 \
      ->Unit(benchmark::kMillisecond)                           \
      ->UseRealTime()                                           \
      ->MeasureProcessCPUTime();                                \
  BENCHMARK_CAPTURE(BM_InferencePasses, ID##_passes, NAME)      \
      ->Arg(1)                                                  \
      ->Arg(32)                                                 \
      ->Unit(benchmark::kMillisecond)                           \
      ->UseRealTime()                                           \
      ->MeasureProcessCPUTime();
MX_ZOO_BENCH("resnet18_v1", resnet18_v1)
MX_ZOO_BENCH("resnet50_v1", resnet50_v1)
MX_ZOO_BENCH("mobilenetv2_1.0", mobilenetv2_1_0)
#undef MX_ZOO_BENCH

}  // namespace
}  // namespace mxnet::gluon::model_zoo::vision
