// Export and import time of resnet50_v1 (random weights; 25.6 M parameters, 102 MB of
// initializers): gluon::export_onnx_to_string of the traced graph, and imports_onnx_from_string
// of the result (parse, map, load parameters). Neither includes a forward.
//   ./bazelw run -c opt --config=bench //gluon/onnx:onnx_benchmark
#include <benchmark/benchmark.h>

#include "gluon/onnx/onnx.h"
#include "modelzoo/vision.h"

namespace mxnet::gluon {
namespace {

struct Fixture {
  std::shared_ptr<HybridBlock> net;
  sym::Symbol graph;
  std::map<std::string, NDArray> params;
  std::string bytes;
  Fixture() {
    net = model_zoo::vision::get_model("resnet50_v1");
    net->initialize();
    net->hybridize();
    (*net)(NDArray::Full(Shape{1, 3, 224, 224}, 0.0)).wait_to_read();
    graph = net->cached_graph();
    for (const auto& [n, p] : net->collect_params()) params[n] = p->data();
    bytes = export_onnx_to_string(graph, params, {{"data", Shape{1, 3, 224, 224}}}).value();
  }
};

Fixture& F() {
  static Fixture* f = new Fixture();
  return *f;
}

void BM_ExportResnet50(benchmark::State& state) {
  Fixture& f = F();
  for (auto _ : state) {
    auto b = export_onnx_to_string(f.graph, f.params, {{"data", Shape{1, 3, 224, 224}}});
    benchmark::DoNotOptimize(b->size());
  }
  state.counters["MB"] = static_cast<double>(f.bytes.size()) / 1e6;
}
BENCHMARK(BM_ExportResnet50)->Unit(benchmark::kMillisecond)->Iterations(5);

void BM_ImportResnet50(benchmark::State& state) {
  Fixture& f = F();
  for (auto _ : state) {
    auto b = imports_onnx_from_string(f.bytes);
    benchmark::DoNotOptimize(b->get());
  }
}
BENCHMARK(BM_ImportResnet50)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
}  // namespace mxnet::gluon
