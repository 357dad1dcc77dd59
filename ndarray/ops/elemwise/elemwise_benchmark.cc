// Elemwise kernels on 1M float32 elements: reference vs optimized backend, called directly
// (no dispatch or allocation), plus one dispatched call for comparison.
//   ./bazelw run -c opt --config=bench //ndarray/ops/elemwise:elemwise_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "ndarray/op.h"
#include "ndarray/ops/elemwise/elemwise_api.h"
#include "ndarray/ops/elemwise/elemwise_util.h"

namespace mxnet {
namespace {

constexpr int64_t kN = 1 << 20;

NDArray Filled(const Shape& s, double lo, double hi, DType t = DType::kFloat32) {
  std::vector<float> v(s.Size());
  uint64_t x = 12345;
  for (auto& e : v) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    e = static_cast<float>(lo + (hi - lo) * static_cast<double>(x >> 11) / 9007199254740992.0);
  }
  return NDArray::FromVector(v, s).astype(t, false);
}

struct Spec {
  std::string label;
  std::string op;
  AttrDict attrs;
  std::vector<Shape> shapes;
  double lo = -2, hi = 2;
};

void RunKernel(benchmark::State& state, const Spec& s, Backend backend) {
  const Op& op = OpRegistry::Get(s.op);
  OpAttrs attrs = OpAttrs::Parse(op, s.attrs);
  std::vector<NDArray> in;
  for (size_t i = 0; i < s.shapes.size(); ++i) in.push_back(Filled(s.shapes[i], s.lo, s.hi));
  NDArrayVec out = Invoke(op, attrs, in);
  const FCompute* k = op.FindKernel({DeviceType::kCPU, backend});
  if (!k) {
    state.SkipWithError("no such kernel");
    return;
  }
  OpContext ctx;
  for (auto _ : state) {
    (*k)(ctx, attrs, in, out);
    benchmark::DoNotOptimize(out[0].data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * out[0].size());
  state.SetBytesProcessed(state.iterations() * (out[0].nbytes() + in[0].nbytes()));
}

const std::vector<Spec>& Specs() {
  static const std::vector<Spec> specs = {
      {"unary/exp", "exp", {}, {{kN}}},
      {"unary/log", "log", {}, {{kN}}, 0.1, 4},
      {"unary/tanh", "tanh", {}, {{kN}}},
      {"unary/sigmoid", "sigmoid", {}, {{kN}}},
      {"unary/sqrt", "sqrt", {}, {{kN}}, 0, 4},
      {"unary/relu", "relu", {}, {{kN}}},
      {"unary/abs", "abs", {}, {{kN}}},
      {"unary/square", "square", {}, {{kN}}},
      {"binary/add_same_shape", "broadcast_add", {}, {{1024, 1024}, {1024, 1024}}},
      {"binary/mul_same_shape", "broadcast_mul", {}, {{1024, 1024}, {1024, 1024}}},
      {"binary/maximum_same_shape", "broadcast_maximum", {}, {{1024, 1024}, {1024, 1024}}},
      {"binary/greater_same_shape", "broadcast_greater", {}, {{1024, 1024}, {1024, 1024}}},
      {"broadcast/add_row", "broadcast_add", {}, {{1024, 1024}, {1024}}},
      {"broadcast/add_column", "broadcast_add", {}, {{1024, 1024}, {1024, 1}}},
      {"broadcast/add_scalar_array", "broadcast_add", {}, {{1024, 1024}, {1}}},
      {"broadcast/mul_3d_mixed", "broadcast_mul", {}, {{64, 1, 1024}, {16, 1024}}},
      {"broadcast/div_outer", "broadcast_div", {}, {{1024, 1}, {1, 1024}}, 0.5, 2},
      {"scalar/power_2", "_power_scalar", {{"scalar", "2.0"}}, {{kN}}},
      {"scalar/maximum", "_maximum_scalar", {{"scalar", "0.0"}}, {{kN}}},
      {"scalar/greater", "_greater_scalar", {{"scalar", "0.0"}}, {{kN}}},
      {"misc/clip", "clip", {{"a_min", "-1"}, {"a_max", "1"}}, {{kN}}},
      {"misc/where", "where", {}, {{kN}, {kN}, {kN}}},
      {"misc/add_n_3", "add_n", {{"num_args", "3"}}, {{kN}, {kN}, {kN}}},
      {"misc/cast_f16", "cast", {{"dtype", "float16"}}, {{kN}}},
      {"misc/smooth_l1", "smooth_l1", {}, {{kN}}},
  };
  return specs;
}

[[maybe_unused]] const int kRegistered = [] {
  for (const Spec& s : Specs()) {
    benchmark::RegisterBenchmark(
        ("BM_Elemwise/" + s.label + "/reference").c_str(),
        [&s](benchmark::State& st) { RunKernel(st, s, Backend::kReference); })
        ->UseRealTime();
    benchmark::RegisterBenchmark(
        ("BM_Elemwise/" + s.label + "/optimized").c_str(),
        [&s](benchmark::State& st) { RunKernel(st, s, Backend::kOptimized); })
        ->UseRealTime();
  }
  return 0;
}();

// _reduce_sum_like (the un-broadcasting in broadcast ops' gradients; reference kernel only):
// same shape, a conv bias gradient, an FC bias gradient, a column sum and a full sum.
[[maybe_unused]] const int kSumLike = [] {
  static const std::vector<Spec> specs = {
      {"sum_like/same_shape", "_reduce_sum_like", {}, {{128, 16, 28, 28}, {128, 16, 28, 28}}},
      {"sum_like/nchw_to_c11", "_reduce_sum_like", {}, {{128, 16, 28, 28}, {16, 1, 1}}},
      {"sum_like/rows_to_row", "_reduce_sum_like", {}, {{1024, 1024}, {1024}}},
      {"sum_like/cols_to_col", "_reduce_sum_like", {}, {{1024, 1024}, {1024, 1}}},
      {"sum_like/all", "_reduce_sum_like", {}, {{1024, 1024}, {1}}},
  };
  for (const Spec& s : specs)
    benchmark::RegisterBenchmark(
        ("BM_Elemwise/" + s.label + "/reference").c_str(),
        [&s](benchmark::State& st) { RunKernel(st, s, Backend::kReference); })
        ->UseRealTime();
  return 0;
}();

// The optimized kernels' own parallel SIMD loop for the ops that use oneDNN on float32 (to show
// what oneDNN's JIT eltwise adds).
template <typename Fn>
void RunLoop(benchmark::State& state, double lo, double hi) {
  NDArray x = Filled({kN}, lo, hi), y(Shape{kN});
  for (auto _ : state) {
    ops::ew::UnaryLoop<Fn>("loop", x, y);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  state.SetItemsProcessed(state.iterations() * kN);
}
[[maybe_unused]] const int kLoops = [] {
  benchmark::RegisterBenchmark("BM_Elemwise/unary/exp/simd_loop", RunLoop<ops::ew::Exp>, -2.0, 2.0)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_Elemwise/unary/log/simd_loop", RunLoop<ops::ew::Log>, 0.1, 4.0)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_Elemwise/unary/tanh/simd_loop", RunLoop<ops::ew::Tanh>, -2.0,
                               2.0)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_Elemwise/unary/sigmoid/simd_loop", RunLoop<ops::ew::Sigmoid>,
                               -2.0, 2.0)
      ->UseRealTime();
  benchmark::RegisterBenchmark("BM_Elemwise/unary/sqrt/simd_loop", RunLoop<ops::ew::Sqrt>, 0.0, 4.0)
      ->UseRealTime();
  return 0;
}();

// The user-facing path: dispatch, shape inference, output allocation and the optimized kernel.
void BM_DispatchedBroadcastAddRow(benchmark::State& state) {
  NDArray a = Filled({1024, 1024}, -1, 1), b = Filled({1024}, -1, 1);
  for (auto _ : state) benchmark::DoNotOptimize(nd::broadcast_add(a, b));
  state.SetItemsProcessed(state.iterations() * a.size());
}
BENCHMARK(BM_DispatchedBroadcastAddRow)->UseRealTime();

// Dispatch overhead of a tiny op (dominated by registry lookup, inference and allocation).
void BM_DispatchedTinyExp(benchmark::State& state) {
  NDArray a = Filled({4}, -1, 1);
  for (auto _ : state) benchmark::DoNotOptimize(nd::exp(a));
}
BENCHMARK(BM_DispatchedTinyExp);

}  // namespace
}  // namespace mxnet
