// A sparse embedding update: Embedding forward on 128 indices, its weight gradient (row_sparse
// with sparse_grad, dense otherwise) and an in-place sgd_update / adam_update of the table
// (lazy with the row_sparse gradient, MXNet's default), for tables of 1e5 and 1e6 rows x 64
// float32. With sparse_grad the time follows the 128 touched rows, not the table; the dense
// gradient (contrast) allocates, fills and updates the whole table each step.
//   ./bazelw run -c opt --config=bench //ndarray/ops/optim:optim_sparse_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Arguments: table rows, sparse_grad (1/0), optimizer (0 sgd, 1 adam).
#include <benchmark/benchmark.h>

#include <random>

#include "ndarray/grad.h"
#include "ndarray/ops/optim/optim_api.h"

namespace mxnet {
namespace {

constexpr int64_t kDim = 64, kBatch = 128;

void BM_EmbeddingUpdate(benchmark::State& state) {
  const int64_t rows = state.range(0);
  const bool sparse = state.range(1) != 0, adam = state.range(2) != 0;
  NDArray w = NDArray::Full(Shape{rows, kDim}, 0.5, cpu(), DType::kFloat32);
  NDArray mean = NDArray::Full(Shape{rows, kDim}, 0.0, cpu(), DType::kFloat32);
  NDArray var = NDArray::Full(Shape{rows, kDim}, 0.0, cpu(), DType::kFloat32);
  std::mt19937_64 rng(5);
  std::vector<float> idx(kBatch);
  for (float& i : idx) i = static_cast<float>(rng() % static_cast<uint64_t>(rows));
  NDArray data = NDArray::FromVector(idx, Shape{kBatch});
  const Op& op = OpRegistry::Get("Embedding");
  AttrDict ad{{"input_dim", std::to_string(rows)}, {"output_dim", std::to_string(kDim)}};
  if (sparse) ad["sparse_grad"] = "True";
  const OpAttrs attrs = OpAttrs::Parse(op, ad);
  for (auto _ : state) {
    NDArray y = Invoke(op, attrs, std::vector<NDArray>{data, w})[0];
    NDArray og = NDArray::Full(y.shape(), 0.01, cpu(), DType::kFloat32);
    NDArray g = EagerGradBuilder::Run(op, attrs, std::vector<NDArray>{data, w},
                                      std::vector<NDArray>{y}, std::vector<NDArray>{og})[1];
    if (adam)
      nd::adam_update(w, g, mean, var, {.lr = 0.001f, .wd = 1e-4f}, w);
    else
      nd::sgd_update(w, g, {.lr = 0.1f, .wd = 1e-4f}, w);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);  // looked-up rows per second
}
BENCHMARK(BM_EmbeddingUpdate)
    ->ArgNames({"rows", "sparse", "adam"})
    ->ArgsProduct({{100'000, 1'000'000}, {1, 0}, {0, 1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace mxnet
