// The fused RNN's reference kernels: LSTM forward alone and forward + backward (_backward_RNN,
// which recomputes the forward with a tape and runs BPTT), float32, layout TNC:
//   ./bazelw run -c opt --config=bench //ndarray/ops/nn:nn_rnn_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Arguments: T, N, C, H, layers. Kernels run on preallocated outputs (no dispatch or output
// allocation measured). Items processed: time steps * batch.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ndarray/op.h"
#include "ndarray/ops/nn/nn_rnn_api.h"

namespace mxnet {
namespace {

NDArray Uniform(const Shape& s, float lo, float hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(s.Size());
  for (auto& x : v) x = d(gen);
  return NDArray::FromVector(v, s);
}

NDArrayVec Outputs(const Op& op, const OpAttrs& attrs, const std::vector<NDArray>& in) {
  ShapeVec is, os;
  DTypeVec it, ot;
  for (auto& x : in) is.push_back(x.shape()), it.push_back(DTypeFlag(x.dtype()));
  InferOutputs(op, attrs, &is, &it, &os, &ot);
  NDArrayVec out;
  for (size_t i = 0; i < os.size(); ++i) out.emplace_back(os[i], cpu(), static_cast<DType>(ot[i]));
  return out;
}

void BM_Lstm(benchmark::State& state, bool backward) {
  const int64_t T = state.range(0), N = state.range(1), C = state.range(2);
  const int H = static_cast<int>(state.range(3)), L = static_cast<int>(state.range(4));
  ops::RNNParam p;
  p.mode = "lstm", p.state_size = H, p.num_layers = L, p.state_outputs = true;
  const Op& fwd = OpRegistry::Get("RNN");
  const Op& bwd = OpRegistry::Get("_backward_RNN");
  const OpAttrs fa = OpAttrs::From(fwd, p), ba = OpAttrs::From(bwd, p);
  std::vector<NDArray> in{Uniform({T, N, C}, -1, 1, 1),
                          Uniform({ops::RNNParamSize(p, C)}, -0.1f, 0.1f, 2),
                          Uniform({L, N, H}, -1, 1, 3), Uniform({L, N, H}, -1, 1, 4)};
  NDArrayVec out = Outputs(fwd, fa, in);
  std::vector<NDArray> bin = in;
  bin.push_back(Uniform({T, N, H}, -1, 1, 5));
  bin.push_back(Uniform({L, N, H}, -1, 1, 6));
  bin.push_back(Uniform({L, N, H}, -1, 1, 7));
  NDArrayVec grads = Outputs(bwd, ba, bin);
  const FCompute* kf = fwd.FindKernel({DeviceType::kCPU, Backend::kReference});
  const FCompute* kb = bwd.FindKernel({DeviceType::kCPU, Backend::kReference});
  OpContext ctx{true, true, cpu()};
  for (auto _ : state) {
    (*kf)(ctx, fa, in, out);
    if (backward) (*kb)(ctx, ba, bin, grads);
  }
  state.SetItemsProcessed(state.iterations() * T * N);
}

void BM_LstmForward(benchmark::State& state) { BM_Lstm(state, false); }
void BM_LstmForwardBackward(benchmark::State& state) { BM_Lstm(state, true); }

// T, N, C, H, layers.
BENCHMARK(BM_LstmForward)
    ->Args({35, 32, 128, 128, 1})
    ->Args({35, 32, 128, 128, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_LstmForwardBackward)
    ->Args({35, 32, 128, 128, 1})
    ->Args({35, 32, 128, 128, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace mxnet
