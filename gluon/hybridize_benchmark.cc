// The first call of a hybridized block (trace + graph compile + one graph run) against later
// calls (the cached graph) and the imperative call, for a 3-layer MLP (issue 21 item 6: hybridize
// traces without running, so the first call costs one run plus tracing, not two runs).
//   ./bazelw run -c opt //gluon:hybridize_benchmark
// BM_HybridFirstCall - BM_HybridLaterCall is the tracing and compile overhead.
#include <benchmark/benchmark.h>

#include "gluon/nn/basic_layers.h"
#include "ndarray/random.h"

namespace mxnet::gluon {
namespace {

constexpr int64_t kBatch = 64, kIn = 512, kHidden = 512, kOut = 10;

std::shared_ptr<nn::HybridSequential> Mlp() {
  auto net = std::make_shared<nn::HybridSequential>();
  net->add({std::make_shared<nn::Dense>(kHidden, nn::DenseOptions{.activation = "relu"}),
            std::make_shared<nn::Dense>(kHidden, nn::DenseOptions{.activation = "relu"}),
            std::make_shared<nn::Dense>(kOut)});
  random::seed(1);
  net->initialize();
  return net;
}

NDArray Input() { return NDArray::Full(Shape{kBatch, kIn}, 0.5); }

void BM_ImperativeCall(benchmark::State& state) {
  auto net = Mlp();
  NDArray x = Input();
  (*net)(x);  // deferred init
  for (auto _ : state) benchmark::DoNotOptimize((*net)(x));
}
BENCHMARK(BM_ImperativeCall)->Unit(benchmark::kMicrosecond);

void BM_HybridLaterCall(benchmark::State& state) {
  auto net = Mlp();
  NDArray x = Input();
  net->hybridize();
  (*net)(x);  // deferred init and the trace
  for (auto _ : state) benchmark::DoNotOptimize((*net)(x));
}
BENCHMARK(BM_HybridLaterCall)->Unit(benchmark::kMicrosecond);

// hybridize() drops the cached graph: every iteration is a first call.
void BM_HybridFirstCall(benchmark::State& state) {
  auto net = Mlp();
  NDArray x = Input();
  (*net)(x);  // deferred init
  for (auto _ : state) {
    net->hybridize();
    benchmark::DoNotOptimize((*net)(x));
  }
}
BENCHMARK(BM_HybridFirstCall)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mxnet::gluon
