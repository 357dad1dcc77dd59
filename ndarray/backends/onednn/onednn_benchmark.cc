// The oneDNN backend's per-call overhead: a primitive cache hit through Get<Exec> (key with
// thread count and type), a Scratch with three pooled buffers, and Exec::Run of a tiny eltwise
// primitive (16 floats: all overhead: stream, argument map, scratch, execute, wait). Run with
//   ./bazelw run -c opt --config=bench //ndarray/backends/onednn:onednn_benchmark
#include <benchmark/benchmark.h>

#include <vector>

#include "ndarray/backends/onednn/onednn.h"

namespace mxnet::backends::onednn {
namespace {

std::shared_ptr<Exec> MakeRelu(int64_t n) {
  const memory::desc md({n}, dt::f32, tag::a);
  dnnl::eltwise_forward::primitive_desc pd(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_relu,
                                  md, 0.f, 0.f),
      UserScratchpad(), Engine());
  auto e = std::make_shared<Exec>();
  e->prim = dnnl::eltwise_forward(pd);
  e->scratchpad = pd.scratchpad_desc();
  e->Add(DNNL_ARG_SRC, md);
  e->Add(DNNL_ARG_DST, md, Exec::Dir::kOut);
  return e;
}

CacheKey ConvSizedKey() {  // kind + 21 integers, like a 2-D convolution's
  CacheKey k("bench_conv");
  k(1, 2, 1, 64, 64, 1);
  for (int i = 0; i < 2; ++i) k(56, 56, 3, 1, 1, 1);
  return k(1, 2, 3);
}

void BM_GetHit(benchmark::State& state) {
  Get<Exec>(ConvSizedKey(), [] { return MakeRelu(16); });
  for (auto _ : state)
    benchmark::DoNotOptimize(Get<Exec>(ConvSizedKey(), [] { return MakeRelu(16); }));
}
BENCHMARK(BM_GetHit)->Threads(1)->Threads(2);

void BM_Scratch3(benchmark::State& state) {
  const memory::desc md({1 << 16}, dt::f32, tag::a);
  for (auto _ : state) {
    Scratch s;
    benchmark::DoNotOptimize(s.Memory(md));
    benchmark::DoNotOptimize(s.Memory(md));
    benchmark::DoNotOptimize(s.Memory(md));
  }
}
BENCHMARK(BM_Scratch3);

void BM_RunTinyRelu(benchmark::State& state) {
  auto e = MakeRelu(16);
  std::vector<float> x(16, -1.f), y(16);
  for (auto _ : state) {
    e->Run({x.data(), y.data()});
    benchmark::DoNotOptimize(y.data());
  }
}
BENCHMARK(BM_RunTinyRelu);

}  // namespace
}  // namespace mxnet::backends::onednn
