// Issue 27 item 4, "hybridize pays": imperative vs hybridized calls of small nets at batch 1, where
// per-op overhead, not arithmetic, is the cost. Nets: the seeds' Model (gluon-hybridblock-api:
// Dense(20) -> relu -> Dense(20) -> relu on a (1, 10) input) and the `mxnet train` LeNet
// (tools/mxnet/lenet.h, on (1, 1, 28, 28)). Hybridized = static_alloc + static_shape with the given
// backend
// ("none" = the traced graph, "default", "onednn" = hybridize()'s default).
//   ./bazelw run -c opt //tools/bench:hybridize_small_benchmark -- --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true      (OMP_NUM_THREADS=1 or 2)
#include <benchmark/benchmark.h>

#include "gluon/nn/basic_layers.h"
#include "ndarray/random.h"
#include "tools/mxnet/lenet.h"

namespace mxnet::gluon {
namespace {

std::shared_ptr<nn::HybridSequential> SeedsModel() {
  auto net = std::make_shared<nn::HybridSequential>();
  net->add({std::make_shared<nn::Dense>(20, nn::DenseOptions{.activation = "relu"}),
            std::make_shared<nn::Dense>(20, nn::DenseOptions{.activation = "relu"})});
  return net;
}

// mode 0: imperative; 1: hybridized, backend "none"; 2: "default"; 3: "onednn".
void Run(benchmark::State& state, std::shared_ptr<nn::HybridSequential> net, Shape in) {
  random::seed(1);
  net->initialize();
  const int mode = static_cast<int>(state.range(0));
  if (mode > 0) {
    const char* backends[] = {"", "none", "default", "onednn"};
    net->hybridize(true, {.static_alloc = true, .static_shape = true, .backend = backends[mode]});
  }
  NDArray x = NDArray::Full(in, 0.5);
  for (int i = 0; i < 3; ++i) (*net)(x).wait_to_read();  // deferred init, trace, warm caches
  for (auto _ : state) (*net)(x).wait_to_read();
  state.SetLabel(mode == 0 ? "imperative"
                           : std::string("hybridized ") + (mode == 1   ? "none"
                                                           : mode == 2 ? "default"
                                                                       : "onednn"));
}

void BM_SeedsModelBatch1(benchmark::State& state) { Run(state, SeedsModel(), Shape{1, 10}); }
BENCHMARK(BM_SeedsModelBatch1)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

void BM_LeNetBatch1(benchmark::State& state) { Run(state, cli::LeNet(), Shape{1, 1, 28, 28}); }
BENCHMARK(BM_LeNetBatch1)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mxnet::gluon
