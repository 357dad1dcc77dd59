// DataLoader throughput over the real Fashion-MNIST training set with ToTensor + Normalize at
// batch 128, on the calling thread (0 workers) and with 2 worker threads. Reports images/s.
//   ./bazelw run -c opt --config=bench //gluon/data:dataloader_benchmark
#include <benchmark/benchmark.h>

#include "gluon/data/dataloader.h"
#include "gluon/data/vision/datasets.h"
#include "gluon/data/vision/transforms.h"

namespace mxnet::gluon::data {
namespace {

DatasetPtr FashionTrain() {
  static const DatasetPtr ds = [] {
    using namespace vision::transforms;
    auto fm = ValueOrThrow(vision::FashionMNIST::Create("/usr/share/datasets/fashion-mnist", true));
    return fm->transform_first(Compose({ToTensor(), Normalize({0.286f}, {0.353f})}));
  }();
  return ds;
}

// One iteration = one full epoch (469 batches of 128).
void BM_FashionMnistEpoch(benchmark::State& state) {
  DatasetPtr ds = FashionTrain();
  DataLoader loader(
      ds, {.batch_size = 128, .shuffle = true, .num_workers = static_cast<int>(state.range(0))});
  int64_t images = 0;
  for (auto _ : state) {
    for (const Batch& b : loader) {
      images += b[0].shape()[0];
      benchmark::DoNotOptimize(b[0].data_ptr());
    }
  }
  state.counters["images/s"] =
      benchmark::Counter(static_cast<double>(images), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FashionMnistEpoch)
    ->Arg(0)
    ->Arg(2)
    ->ArgName("workers")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace mxnet::gluon::data
