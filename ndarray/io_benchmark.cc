// Throughput of NDArray file IO on a ~100 MB params file (100 float32 arrays of 1 MiB plus 100
// small ones, named like a Gluon export). Reported as bytes_per_second (file bytes per wall-clock
// second).
//
//   ./bazelw run -c opt --config=bench //ndarray:io_benchmark
//   IO_BENCH_DIR=/some/disk ./bazelw run ...   # default: $TMPDIR or /tmp
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/strings.h"
#include "ndarray/io.h"

namespace mxnet::nd {
namespace {

const std::vector<std::pair<std::string, NDArray>>& Params() {
  static const auto* p = [] {
    auto* v = new std::vector<std::pair<std::string, NDArray>>();
    for (int i = 0; i < 100; ++i) {
      v->emplace_back(StrCat("arg:stage", i / 10, "_conv", i % 10, "_weight"),
                      NDArray::Full(Shape{256, 64, 4, 4}, 0.5 + i, cpu(), DType::kFloat32));
      v->emplace_back(StrCat("aux:stage", i / 10, "_batchnorm", i % 10, "_running_var"),
                      NDArray::Full(Shape{256}, 1.0, cpu(), DType::kFloat32));
    }
    return v;
  }();
  return *p;
}

std::string Dir() {
  for (const char* e : {"IO_BENCH_DIR", "TEST_TMPDIR", "TMPDIR"})
    if (const char* d = std::getenv(e)) return d;
  return "/tmp";
}

std::string PathFor(std::string_view what) {
  return StrCat(Dir(), "/io_benchmark_", ::getpid(), "_", what, ".params");
}

void BM_SaveToBuffer(benchmark::State& state) {
  size_t bytes = 0;
  for (auto _ : state) {
    auto b = save_to_buffer(Params());
    if (!b.ok()) state.SkipWithError("save_to_buffer failed");
    bytes = b->size();
    benchmark::DoNotOptimize(b->data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_SaveToBuffer)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SaveToFile(benchmark::State& state) {
  SaveOptions o;
  o.fsync = state.range(0) != 0;
  std::string path = PathFor(o.fsync ? "save_fsync" : "save");
  for (auto _ : state) {
    absl::Status s = save(path, Params(), o);
    if (!s.ok()) state.SkipWithError("save failed");
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  state.SetBytesProcessed(
      static_cast<int64_t>(state.iterations() * static_cast<int64_t>(in.tellg())));
  std::remove(path.c_str());
}
BENCHMARK(BM_SaveToFile)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("fsync")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_LoadFromFile(benchmark::State& state) {
  std::string path = PathFor("load");
  if (!save(path, Params()).ok()) {
    state.SkipWithError("save failed");
    return;
  }
  uint64_t bytes = 0;
  for (auto _ : state) {
    auto f = load(path);
    if (!f.ok()) state.SkipWithError("load failed");
    bytes = f->bytes_consumed;
    benchmark::DoNotOptimize(f->arrays.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  std::remove(path.c_str());
}
BENCHMARK(BM_LoadFromFile)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LoadFromBuffer(benchmark::State& state) {
  auto b = save_to_buffer(Params());
  for (auto _ : state) {
    auto f = load_from_buffer(*b);
    if (!f.ok()) state.SkipWithError("load failed");
    benchmark::DoNotOptimize(f->arrays.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * b->size()));
}
BENCHMARK(BM_LoadFromBuffer)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_NpzRoundTrip(benchmark::State& state) {
  SaveOptions o;
  o.format = FileFormat::kNpz;
  size_t bytes = 0;
  for (auto _ : state) {
    auto b = save_to_buffer(Params(), o);
    if (!b.ok()) state.SkipWithError("npz save failed");
    auto f = load_from_buffer(*b);
    if (!f.ok()) state.SkipWithError("npz load failed");
    bytes = b->size();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_NpzRoundTrip)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace mxnet::nd
