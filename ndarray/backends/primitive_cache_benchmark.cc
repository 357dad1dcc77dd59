// Cost of the primitive cache lookup every oneDNN kernel call makes (the hot path of small
// kernels): building a convolution-sized key (kind + 21 integers) and finding it, alone and from
// 2 threads; against the string keys (StrCat of the geometry, std::unordered_map<std::string>)
// the per-file caches used before ndarray/backends. Run with
//   ./bazelw run -c opt --config=bench //ndarray/backends:primitive_cache_benchmark
#include <benchmark/benchmark.h>

#include <array>
#include <mutex>
#include <string>
#include <unordered_map>

#include "base/strings.h"
#include "ndarray/backends/primitive_cache.h"

namespace mxnet::backends {
namespace {

struct Geom {  // ResNet's 3x3 64->64 convolution on 56x56
  int64_t nd = 2, N = 1, CX = 64, CY = 64, G = 1;
  std::array<int64_t, 3> xs{56, 56, 1}, ys{56, 56, 1}, k{3, 3, 1}, s{1, 1, 1}, d{1, 1, 1},
      p{1, 1, 0};
};

CacheKey Key(const Geom& g, int kind) {
  CacheKey key("conv");
  key(kind, g.nd, g.N, g.CX, g.CY, g.G);
  for (int i = 0; i < g.nd; ++i) key(g.xs[i], g.ys[i], g.k[i], g.s[i], g.d[i], g.p[i]);
  return key;
}

std::string StringKey(const Geom& g, int kind) {
  std::string key = StrCat("conv", kind, ":f32:", g.nd, "F", g.N, ",", g.CX, ",", g.CY, ",", g.G);
  for (int i = 0; i < g.nd; ++i)
    StrAppend(&key, "|", g.xs[i], ",", g.ys[i], ",", g.k[i], ",", g.s[i], ",", g.d[i], ",", g.p[i]);
  return key;
}

void BM_BuildKey(benchmark::State& state) {
  Geom g;
  for (auto _ : state) benchmark::DoNotOptimize(Key(g, 1).hash());
}
BENCHMARK(BM_BuildKey);

// A hit among 64 entries (the order of a ResNet's distinct primitives).
PrimitiveCache& Filled() {
  static PrimitiveCache* c = [] {
    auto* c = new PrimitiveCache(4096);
    Geom g;
    for (int i = 0; i < 64; ++i) c->GetOrCreate(Key(g, i), [] { return std::make_shared<int>(0); });
    return c;
  }();
  return *c;
}

void BM_LookupHit(benchmark::State& state) {
  PrimitiveCache& c = Filled();
  Geom g;
  for (auto _ : state) {
    bool found;
    benchmark::DoNotOptimize(c.Lookup(Key(g, 17), &found));
  }
}
BENCHMARK(BM_LookupHit)->Threads(1)->Threads(2);

// What the per-file caches did before: format the key, then find it under a mutex.
void BM_StringKeyLookupHit(benchmark::State& state) {
  static std::mutex mu;
  static auto* map = [] {
    auto* m = new std::unordered_map<std::string, std::shared_ptr<const void>>();
    Geom g;
    for (int i = 0; i < 64; ++i) m->emplace(StringKey(g, i), std::make_shared<int>(0));
    return m;
  }();
  Geom g;
  for (auto _ : state) {
    std::string key = StringKey(g, 17);
    std::shared_ptr<const void> v;
    {
      std::lock_guard<std::mutex> l(mu);
      v = map->find(key)->second;
    }
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(BM_StringKeyLookupHit)->Threads(1)->Threads(2);

}  // namespace
}  // namespace mxnet::backends
