// Trainer::step on resnet18_v1's 62 parameters (11.7M floats, float32, CPU): what one training
// iteration spends in the optimizer (gradient rescale, per-parameter lr/wd, update count, one
// fused update op per parameter). Gradients are constants marked fresh before each step, so no
// forward/backward runs. items_per_second = steps/s.
//   ./bazelw run -c opt --config=bench //modelzoo:trainer_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "gluon/training/trainer.h"
#include "modelzoo/testing/deterministic_weights.h"
#include "modelzoo/vision.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

void BM_TrainerStep(benchmark::State& state, const char* optimizer, Kwargs kwargs) {
  auto net = get_model("resnet18_v1");
  net->initialize(init::Xavier());
  (*net)(testing::DeterministicValues("input", Shape{1, 3, 224, 224})).wait_to_read();
  ParameterDict params = net->collect_params();
  std::vector<NDArray> weights;
  for (const auto& [name, p] : params) {
    if (p->grad_req() == GradReq::kNull) continue;
    weights.push_back(p->data());
    NDArray g = p->grad();
    NDArray::Full(g.shape(), 1e-3, g.device(), g.dtype()).copyto(g);
  }
  Trainer trainer(params, optimizer, kwargs);
  for (auto _ : state) {
    for (const NDArray& w : weights) w.set_fresh_grad(true);
    trainer.step(32);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["params"] = static_cast<double>(weights.size());
}

BENCHMARK_CAPTURE(BM_TrainerStep, sgd_momentum, "sgd",
                  Kwargs{{"learning_rate", 0.1}, {"momentum", 0.9}, {"wd", 1e-4}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_TrainerStep, adam, "adam", Kwargs{{"learning_rate", 1e-3}, {"wd", 1e-4}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace mxnet::gluon::model_zoo::vision
