// Cost of the caching allocator's bookkeeping per Malloc+Free (the path every GPU array takes),
// with device memory faked by host memory (no GPU needed), against aligned_alloc/free; and on a
// real GPU when there is one (skipped with "no GPU" otherwise). Run with
//   ./bazelw run -c opt --config=bench //ndarray/backends/cuda:caching_allocator_benchmark
//   ./bazelw run -c opt --config=bench --config=cuda
//   //ndarray/backends/cuda:caching_allocator_benchmark
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "ndarray/backends/cuda/caching_allocator.h"
#include "ndarray/backends/cuda/gpu.h"
#include "ndarray/backends/cuda/testing/fake_device_memory.h"

#ifdef MXNET_CUDA
#include <cuda_runtime_api.h>
#endif

namespace mxnet::backends::cuda {
namespace {

StreamHandle kStream = reinterpret_cast<StreamHandle>(0x100);

// One size allocated and freed again: the cache-hit path.
void BM_FakeMallocFree(benchmark::State& state) {
  auto a = std::make_unique<CachingAllocator>(
      std::make_unique<testing::FakeDeviceMemory>(std::make_shared<testing::FakeDeviceState>()),
      "fake");
  size_t n = state.range(0);
  for (auto _ : state) {
    void* p = a->Malloc(n, kStream);
    benchmark::DoNotOptimize(p);
    a->Free(p);
  }
}
BENCHMARK(BM_FakeMallocFree)->Arg(256)->Arg(64 << 10)->Arg(4 << 20)->Arg(64 << 20);

// 64 live arrays of mixed sizes (256 B .. 8 MiB, as in a small net's forward pass), then freed.
std::vector<size_t> MixedSizes() {
  std::mt19937 rng(1);
  std::vector<size_t> sizes(64);
  for (size_t& s : sizes) s = size_t{256} << (rng() % 16);
  return sizes;
}

void BM_FakeMixed64(benchmark::State& state) {
  auto a = std::make_unique<CachingAllocator>(
      std::make_unique<testing::FakeDeviceMemory>(std::make_shared<testing::FakeDeviceState>()),
      "fake");
  std::vector<size_t> sizes = MixedSizes();
  std::vector<void*> ptrs(sizes.size());
  for (auto _ : state) {
    for (size_t i = 0; i < sizes.size(); ++i) ptrs[i] = a->Malloc(sizes[i], kStream);
    for (void* p : ptrs) a->Free(p);
  }
  state.SetItemsProcessed(state.iterations() * sizes.size());
}
BENCHMARK(BM_FakeMixed64);

void BM_SystemAlignedAllocMixed64(benchmark::State& state) {
  std::vector<size_t> sizes = MixedSizes();
  std::vector<void*> ptrs(sizes.size());
  for (auto _ : state) {
    for (size_t i = 0; i < sizes.size(); ++i) ptrs[i] = std::aligned_alloc(256, sizes[i]);
    benchmark::DoNotOptimize(ptrs.data());
    for (void* p : ptrs) std::free(p);
  }
  state.SetItemsProcessed(state.iterations() * sizes.size());
}
BENCHMARK(BM_SystemAlignedAllocMixed64);

// The real allocator of gpu(0) (cudaMalloc behind it; warm after the first iteration).
void BM_GpuMixed64(benchmark::State& state) {
  if (GpuCount() == 0) {
    state.SkipWithError(("no GPU: " + DriverStatus()).c_str());
    return;
  }
  CachingAllocator& a = Allocator(0);
  StreamHandle s = Stream(0);
  std::vector<size_t> sizes = MixedSizes();
  std::vector<void*> ptrs(sizes.size());
  for (auto _ : state) {
    for (size_t i = 0; i < sizes.size(); ++i) ptrs[i] = a.Malloc(sizes[i], s);
    for (void* p : ptrs) a.Free(p);
  }
  state.SetItemsProcessed(state.iterations() * sizes.size());
}
BENCHMARK(BM_GpuMixed64);

// The same 64 sizes straight from cudaMalloc/cudaFree: what the cache saves.
void BM_CudaMallocMixed64(benchmark::State& state) {
#ifdef MXNET_CUDA
  if (GpuCount() == 0) {
    state.SkipWithError(("no GPU: " + DriverStatus()).c_str());
    return;
  }
  cudaSetDevice(0);
  std::vector<size_t> sizes = MixedSizes();
  std::vector<void*> ptrs(sizes.size());
  for (auto _ : state) {
    for (size_t i = 0; i < sizes.size(); ++i) cudaMalloc(&ptrs[i], sizes[i]);
    for (void* p : ptrs) cudaFree(p);
  }
  state.SetItemsProcessed(state.iterations() * sizes.size());
#else
  state.SkipWithError("no GPU: this build has no CUDA");
#endif
}
BENCHMARK(BM_CudaMallocMixed64);

}  // namespace
}  // namespace mxnet::backends::cuda
