// Allreduce bandwidth of the MPI kvstore path, in the style of the OSU micro-benchmarks'
// osu_allreduce and nccl-tests (algbw = bytes / time, busbw = algbw * 2 (n - 1) / n):
//   mpirun --allow-run-as-root --oversubscribe -np 2 --mca btl self,tcp
//       --mca btl_tcp_if_include lo bazel-bin/gluon/kvstore/allreduce_benchmark   (loopback)
//   the same with --mca btl self,vader                                           (shared memory)
// For each message size: raw MPI_Allreduce (in place, float32) and KVStore::pushpull of one key
// (which adds the copies into and out of the store), then 256 keys of 4 KiB in one fused
// pushpull call vs. 256 separate calls (the bucketing). Times are medians over repetitions.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "gluon/kvstore/mpi_kvstore.h"

namespace {

using mxnet::NDArray;
using mxnet::Shape;
namespace kvs = mxnet::gluon::kvstore;

template <typename F>
double Median(int iters, F f) {
  std::vector<double> t;
  for (int i = 0; i < iters; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  // Every rank reports the slowest rank's time per repetition.
  std::vector<double> worst(t.size());
  MPI_Allreduce(t.data(), worst.data(), static_cast<int>(t.size()), MPI_DOUBLE, MPI_MAX,
                MPI_COMM_WORLD);
  std::sort(worst.begin(), worst.end());
  return worst[worst.size() / 2];
}

}  // namespace

int main() {
  auto kv = kvs::create("mpi");
  const int n = kv->num_workers(), rank = kv->rank();
  const double bus = n > 1 ? 2.0 * (n - 1) / n : 1.0;
  if (rank == 0) {
    std::printf("# %d processes; times: median of repetitions, slowest rank\n", n);
    std::printf("%12s %12s %12s %12s %12s %12s\n", "bytes", "mpi_us", "kv_us", "mpi_algbw",
                "mpi_busbw", "kv_busbw");
    std::printf("%12s %12s %12s %12s %12s %12s\n", "", "", "", "GB/s", "GB/s", "GB/s");
  }
  int key = 0;
  for (int64_t bytes = 4; bytes <= (int64_t{64} << 20); bytes *= 4) {
    const int64_t count = bytes / 4;
    const int iters = static_cast<int>(std::clamp<int64_t>((int64_t{256} << 20) / bytes, 5, 200));
    std::vector<float> buf(static_cast<size_t>(count), 1.0f);
    for (int w = 0; w < 3; ++w)  // warm-up (connections, buffers)
      MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
    const double t_mpi = Median(iters, [&] {
      MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
    });
    NDArray g = NDArray::Full(Shape{count}, 1.0);
    kv->init(key, g);
    for (int w = 0; w < 3; ++w) kv->pushpull(key, {g});
    const double t_kv = Median(iters, [&] { kv->pushpull(key, {g}); });
    ++key;
    if (rank == 0)
      std::printf("%12lld %12.1f %12.1f %12.3f %12.3f %12.3f\n", (long long)bytes, t_mpi * 1e6,
                  t_kv * 1e6, bytes / t_mpi / 1e9, bus * bytes / t_mpi / 1e9,
                  bus * bytes / t_kv / 1e9);
  }
  // Bucketing: 256 keys of 4 KiB (1 MiB in all), one fused call vs. one call per key.
  std::vector<int> keys;
  std::vector<std::vector<NDArray>> vals;
  for (int k = 0; k < 256; ++k) {
    keys.push_back(1000 + k);
    vals.push_back({NDArray::Full(Shape{1024}, 1.0)});
    kv->init(keys.back(), vals.back()[0]);
  }
  kv->pushpull(keys, vals);
  const double t_fused = Median(20, [&] { kv->pushpull(keys, vals); });
  const double t_each = Median(20, [&] {
    for (size_t k = 0; k < keys.size(); ++k) kv->pushpull(keys[k], vals[k]);
  });
  if (rank == 0)
    std::printf("# 256 keys x 4 KiB: fused pushpull %.1f us, one call per key %.1f us\n",
                t_fused * 1e6, t_each * 1e6);
  return 0;
}
