// Reference kernels vs Backend::kOptimized (oneDNN primitives; for NCHW BatchNorm our vectorized
// loops, since oneDNN 2.6's plain-nchw batch norm is its slow generic kernel) for the nn family:
//   ./bazelw run -c opt --config=bench //ndarray/ops/nn:nn_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Each benchmark runs exactly one kernel (Backend::kReference or kOptimized) on preallocated
// outputs, so dispatch and allocation are not measured.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ndarray/op.h"
#include "ndarray/ops/nn/nn_api.h"

namespace mxnet {
namespace {

NDArray Uniform(const Shape& s, float lo, float hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(s.Size());
  for (auto& x : v) x = d(gen);
  return NDArray::FromVector(v, s);
}

struct Prepared {
  const Op* op;
  OpAttrs attrs;
  const FCompute* kernel;
  std::vector<NDArray> in;
  NDArrayVec out;
};

Prepared Prepare(const std::string& name, const AttrDict& ad, std::vector<NDArray> in, Backend b) {
  const Op& op = OpRegistry::Get(name);
  Prepared p{&op, OpAttrs::Parse(op, ad), op.FindKernel({DeviceType::kCPU, b}), std::move(in), {}};
  ShapeVec is, os;
  DTypeVec it, ot;
  for (auto& x : p.in) is.push_back(x.shape()), it.push_back(DTypeFlag(x.dtype()));
  InferOutputs(op, p.attrs, &is, &it, &os, &ot);
  for (size_t i = 0; i < os.size(); ++i)
    p.out.emplace_back(os[i], cpu(), static_cast<DType>(ot[i]));
  return p;
}

void Run(benchmark::State& state, const Prepared& p, bool train, int64_t bytes) {
  if (!p.kernel) {
    state.SkipWithError("no such kernel");
    return;
  }
  OpContext ctx{train, false, cpu()};
  for (auto _ : state) (*p.kernel)(ctx, p.attrs, p.in, p.out);
  state.SetBytesProcessed(state.iterations() * bytes);
}

Backend Which(const benchmark::State& state) {
  return state.range(0) ? Backend::kOptimized : Backend::kReference;
}

std::vector<NDArray> BNInputs() {
  const int c = 64;
  return {Uniform({32, c, 56, 56}, -2, 2, 1), Uniform({c}, 0.5, 1.5, 2), Uniform({c}, -1, 1, 3),
          Uniform({c}, -0.5, 0.5, 4), Uniform({c}, 0.5, 1.5, 5)};
}

void BM_BatchNormTrain(benchmark::State& state) {
  static std::vector<NDArray> in = BNInputs();
  Prepared p = Prepare("BatchNorm", {{"fix_gamma", "False"}}, in, Which(state));
  Run(state, p, true, in[0].nbytes());
}
BENCHMARK(BM_BatchNormTrain)
    ->ArgName("optimized")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_BatchNormInfer(benchmark::State& state) {
  static std::vector<NDArray> in = BNInputs();
  Prepared p = Prepare("BatchNorm", {{"fix_gamma", "False"}}, in, Which(state));
  Run(state, p, false, in[0].nbytes());
}
BENCHMARK(BM_BatchNormInfer)
    ->ArgName("optimized")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Channels-last (NHWC, axis -1): the layout oneDNN's jit batch norm takes directly.
void BM_BatchNormTrainNHWC(benchmark::State& state) {
  static std::vector<NDArray> in = [] {
    std::vector<NDArray> bn = BNInputs();
    bn[0] = Uniform({32, 56, 56, 64}, -2, 2, 12);
    return bn;
  }();
  Prepared p = Prepare("BatchNorm", {{"fix_gamma", "False"}, {"axis", "-1"}}, in, Which(state));
  Run(state, p, true, in[0].nbytes());
}
BENCHMARK(BM_BatchNormTrainNHWC)
    ->ArgName("optimized")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_BatchNormBackward(benchmark::State& state) {
  static std::vector<NDArray> in = [] {
    std::vector<NDArray> bn = BNInputs();
    return std::vector<NDArray>{
        Uniform({32, 64, 56, 56}, -1, 1, 6), bn[0], bn[1], bn[3], bn[4], NDArray::Full({1}, 1)};
  }();
  Prepared p = Prepare("_backward_BatchNorm", {{"fix_gamma", "False"}}, in, Which(state));
  Run(state, p, true, in[0].nbytes());
}
BENCHMARK(BM_BatchNormBackward)
    ->ArgName("optimized")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Softmax(benchmark::State& state) {
  static std::vector<NDArray> in{Uniform({64, 1000}, -5, 5, 7)};
  Prepared p = Prepare("softmax", {}, in, Which(state));
  Run(state, p, false, in[0].nbytes());
}
BENCHMARK(BM_Softmax)
    ->ArgName("optimized")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_Relu(benchmark::State& state) {
  static std::vector<NDArray> in{Uniform({1 << 20}, -1, 1, 8)};
  Prepared p = Prepare("Activation", {{"act_type", "relu"}}, in, Which(state));
  Run(state, p, false, in[0].nbytes());
}
BENCHMARK(BM_Relu)
    ->ArgName("optimized")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

void BM_LayerNorm(benchmark::State& state) {
  static std::vector<NDArray> in{Uniform({512, 768}, -2, 2, 9), Uniform({768}, 0.5, 1.5, 10),
                                 Uniform({768}, -1, 1, 11)};
  Prepared p = Prepare("LayerNorm", {}, in, Which(state));
  Run(state, p, false, in[0].nbytes());
}
BENCHMARK(BM_LayerNorm)
    ->ArgName("optimized")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace mxnet
