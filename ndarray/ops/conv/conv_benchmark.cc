// Benchmarks of the conv family: reference kernels vs optimized ones (float32), kernel time only
// (outputs allocated once). Run with
//   ./bazelw run -c opt --config=bench //ndarray/ops/conv:conv_benchmark --
//   --benchmark_repetitions=3
// Cases: ResNet 3x3 conv 64->64 on 56x56 (batch 1 and 32), forward and both backward passes;
// FullyConnected 512 -> 1000 (batch 1 and 64); max pooling 3x3 stride 2 pad 1 on 64x112x112
// (ResNet's stem pool, batch 1 and 8); the convolution, bias gradient and pooling ops of a LeNet
// training step on Fashion-MNIST (batch 128; `mxnet train`'s previous and current default nets);
// MobileNetV2's classifier conv and its fused conv+RELU6 (1x1 and depthwise) NCHW vs NHWC.
// On a shared machine compare the CPU column with OMP_NUM_THREADS=1.
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "ndarray/op.h"

namespace mxnet {
namespace {

NDArray Random(const Shape& s, uint64_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(s.Size());
  for (auto& x : v) x = d(gen);
  return NDArray::FromVector(v, s);
}

// Runs `op` with the kernel of `backend` on fresh random inputs of `shapes`.
void RunOp(benchmark::State& state, const char* name, const AttrDict& attrs,
           std::vector<Shape> shapes, Backend backend) {
  const Op& op = OpRegistry::Get(name);
  OpAttrs a = OpAttrs::Parse(op, attrs);
  std::vector<NDArray> in;
  for (size_t i = 0; i < shapes.size(); ++i) in.push_back(Random(shapes[i], i + 1));
  ShapeVec in_s, out_s;
  DTypeVec in_t, out_t;
  for (auto& x : in) in_s.push_back(x.shape()), in_t.push_back(0);
  InferOutputs(op, a, &in_s, &in_t, &out_s, &out_t);
  NDArrayVec out;
  for (auto& s : out_s) out.emplace_back(s);
  const FCompute* k = op.FindKernel({DeviceType::kCPU, backend});
  if (!k) {
    state.SkipWithError("no such kernel");
    return;
  }
  OpContext ctx;
  (*k)(ctx, a, in, out);  // warm-up (creates and caches the oneDNN primitive)
  for (auto _ : state) {
    (*k)(ctx, a, in, out);
    benchmark::DoNotOptimize(out[0].data_ptr());
  }
  state.SetLabel(backend == Backend::kReference ? "reference" : "optimized");
}

const AttrDict kConv{
    {"kernel", "(3, 3)"}, {"num_filter", "64"}, {"pad", "(1, 1)"}, {"no_bias", "True"}};
const AttrDict kFc{{"num_hidden", "1000"}};
const AttrDict kPool{{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}};

Backend B(const benchmark::State& s) {
  return s.range(1) ? Backend::kOptimized : Backend::kReference;
}

void BM_Conv3x3_64(benchmark::State& s) {
  int64_t n = s.range(0);
  RunOp(s, "Convolution", kConv, {{n, 64, 56, 56}, {64, 64, 3, 3}}, B(s));
}
void BM_Conv3x3_64_BackwardData(benchmark::State& s) {
  int64_t n = s.range(0);
  RunOp(s, "_backward_Convolution_data", kConv, {{n, 64, 56, 56}, {64, 64, 3, 3}, {n, 64, 56, 56}},
        B(s));
}
void BM_Conv3x3_64_BackwardWeight(benchmark::State& s) {
  int64_t n = s.range(0);
  RunOp(s, "_backward_Convolution_weight", kConv, {{n, 64, 56, 56}, {n, 64, 56, 56}}, B(s));
}
void BM_FullyConnected_512x1000(benchmark::State& s) {
  int64_t n = s.range(0);
  RunOp(s, "FullyConnected", kFc, {{n, 512}, {1000, 512}, {1000}}, B(s));
}
void BM_MaxPool3x3s2(benchmark::State& s) {
  int64_t n = s.range(0);
  RunOp(s, "Pooling", kPool, {{n, 64, 112, 112}}, B(s));
}

// The ops of a LeNet training step on Fashion-MNIST, batch 128, for two nets (the first
// argument): 0 = `mxnet train`'s previous default (conv 3x3 1->32 on 28x28, max pool 2, conv 3x3
// 32->64 on 13x13, max pool 2), 1 = its current default (conv 5x5 1->16 pad 2 on 28x28, max pool
// 2, conv 5x5 16->32 on 14x14, max pool 2). The second argument picks the kernel (B()).
struct LeNetShapes {
  AttrDict conv1, conv2;
  Shape x1, w1, b1, y1;  // conv1: data, weight, bias, output
  Shape x2, w2, b2, y2;  // conv2 (x2 = pool(y1))
};
const LeNetShapes& LeNet(const benchmark::State& s) {
  static const LeNetShapes kNets[2] = {
      {{{"kernel", "(3, 3)"}, {"num_filter", "32"}},
       {{"kernel", "(3, 3)"}, {"num_filter", "64"}},
       {128, 1, 28, 28},
       {32, 1, 3, 3},
       {32},
       {128, 32, 26, 26},
       {128, 32, 13, 13},
       {64, 32, 3, 3},
       {64},
       {128, 64, 11, 11}},
      {{{"kernel", "(5, 5)"}, {"num_filter", "16"}, {"pad", "(2, 2)"}},
       {{"kernel", "(5, 5)"}, {"num_filter", "32"}},
       {128, 1, 28, 28},
       {16, 1, 5, 5},
       {16},
       {128, 16, 28, 28},
       {128, 16, 14, 14},
       {32, 16, 5, 5},
       {32},
       {128, 32, 10, 10}}};
  return kNets[s.range(0)];
}
const AttrDict kPool2{{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "max"}};
Shape Pooled(const Shape& y) { return {y[0], y[1], y[2] / 2, y[3] / 2}; }

void BM_LeNetConv1(benchmark::State& s) {
  const LeNetShapes& n = LeNet(s);
  RunOp(s, "Convolution", n.conv1, {n.x1, n.w1, n.b1}, B(s));
}
void BM_LeNetConv1_BackwardWeight(benchmark::State& s) {
  const LeNetShapes& n = LeNet(s);
  RunOp(s, "_backward_Convolution_weight", n.conv1, {n.y1, n.x1}, B(s));
}
void BM_LeNetConv1_BiasGrad(benchmark::State& s) {
  RunOp(s, "_channel_sum", {{"axis", "1"}}, {LeNet(s).y1}, B(s));
}
void BM_LeNetConv2(benchmark::State& s) {
  const LeNetShapes& n = LeNet(s);
  RunOp(s, "Convolution", n.conv2, {n.x2, n.w2, n.b2}, B(s));
}
void BM_LeNetConv2_BackwardData(benchmark::State& s) {
  const LeNetShapes& n = LeNet(s);
  RunOp(s, "_backward_Convolution_data", n.conv2, {n.y2, n.w2, n.x2}, B(s));
}
void BM_LeNetConv2_BackwardWeight(benchmark::State& s) {
  const LeNetShapes& n = LeNet(s);
  RunOp(s, "_backward_Convolution_weight", n.conv2, {n.y2, n.x2}, B(s));
}
void BM_LeNetMaxPool(benchmark::State& s) { RunOp(s, "Pooling", kPool2, {LeNet(s).y1}, B(s)); }
// _backward_Pooling(ograd, data, output) of the first pool, output = Pooling(data) as in training.
void BM_LeNetMaxPool_Backward(benchmark::State& s) {
  const Shape& xs = LeNet(s).y1;
  const Op& pool = OpRegistry::Get("Pooling");
  NDArray x = Random(xs, 1), y(Pooled(xs));
  OpContext ctx;
  NDArray px[] = {x}, py[] = {y};
  (*pool.FindKernel({DeviceType::kCPU, Backend::kReference}))(ctx, OpAttrs::Parse(pool, kPool2), px,
                                                              py);
  const Op& op = OpRegistry::Get("_backward_Pooling");
  OpAttrs a = OpAttrs::Parse(op, kPool2);
  NDArray in[] = {Random(Pooled(xs), 2), x, y}, out[] = {NDArray(xs)};
  const FCompute* k = op.FindKernel({DeviceType::kCPU, B(s)});
  (*k)(ctx, a, in, out);
  for (auto _ : s) {
    (*k)(ctx, a, in, out);
    benchmark::DoNotOptimize(out[0].data_ptr());
  }
  s.SetLabel(B(s) == Backend::kReference ? "reference" : "optimized");
}

// MobileNetV2's classifier: a 1x1 convolution 1280 -> 1000 on 1x1 (one output position: oneDNN's
// kernel on the plain layouts, no weight reorder per call).
void BM_Conv1x1Classifier(benchmark::State& s) {
  int64_t n = s.range(0);
  RunOp(s, "Convolution", {{"kernel", "(1, 1)"}, {"num_filter", "1000"}, {"no_bias", "True"}},
        {{n, 1280, 1, 1}, {1000, 1280, 1, 1}}, B(s));
}

// MobileNetV2's fused convolutions at 14x14 (BatchNorm folded, RELU6 = clip(0, 6) as the oneDNN
// post-op; constant weight), channels-first (reorders to and from oneDNN's layout around each
// call) vs channels-last (what OneDnnLayoutPass makes of chains: no reorder). Arguments: {batch,
// NHWC?}; optimized kernel only.
AttrDict FusedAttrs(const char* kernel, int64_t filters, int64_t groups, bool nhwc) {
  AttrDict a{{"kernel", kernel},
             {"num_filter", std::to_string(filters)},
             {"num_group", std::to_string(groups)},
             {"act_type", "clip"},
             {"act_min", "0"},
             {"act_max", "6"},
             {"const_weight", "True"}};
  if (std::string(kernel) == "(3, 3)") a["pad"] = "(1, 1)";
  if (nhwc) a["layout"] = "NHWC";
  return a;
}
Shape Act(int64_t n, int64_t c, int64_t hw, bool nhwc) {
  return nhwc ? Shape{n, hw, hw, c} : Shape{n, c, hw, hw};
}
void BM_FusedConv1x1Relu6_96x576(benchmark::State& s) {
  const int64_t n = s.range(0);
  const bool nhwc = s.range(1);
  RunOp(s, "_sg_onednn_conv", FusedAttrs("(1, 1)", 576, 1, nhwc),
        {Act(n, 96, 14, nhwc), nhwc ? Shape{576, 1, 1, 96} : Shape{576, 96, 1, 1}, {576}},
        Backend::kOptimized);
  s.SetLabel(nhwc ? "NHWC" : "NCHW");
}
void BM_FusedDepthwise3x3Relu6_576(benchmark::State& s) {
  const int64_t n = s.range(0);
  const bool nhwc = s.range(1);
  RunOp(s, "_sg_onednn_conv", FusedAttrs("(3, 3)", 576, 576, nhwc),
        {Act(n, 576, 14, nhwc), nhwc ? Shape{576, 3, 3, 1} : Shape{576, 1, 3, 3}, {576}},
        Backend::kOptimized);
  s.SetLabel(nhwc ? "NHWC" : "NCHW");
}

// {batch, oneDNN?}; the batch-32 reference convolutions take seconds per iteration.
BENCHMARK(BM_Conv3x3_64)->ArgsProduct({{1}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv3x3_64)->Args({32, 0})->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv3x3_64)->Args({32, 1})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv3x3_64_BackwardData)->ArgsProduct({{1}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv3x3_64_BackwardWeight)->ArgsProduct({{1}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FullyConnected_512x1000)
    ->ArgsProduct({{1, 64}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MaxPool3x3s2)->ArgsProduct({{1, 8}, {0, 1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Conv1x1Classifier)->ArgsProduct({{1, 32}, {0, 1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FusedConv1x1Relu6_96x576)
    ->ArgsProduct({{1, 32}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FusedDepthwise3x3Relu6_576)
    ->ArgsProduct({{1, 32}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);
// {net, optimized?}: the optimized conv kernels only (the reference ones take seconds).
BENCHMARK(BM_LeNetConv1)->ArgsProduct({{0, 1}, {1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LeNetConv1_BackwardWeight)->ArgsProduct({{0, 1}, {1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LeNetConv1_BiasGrad)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LeNetConv2)->ArgsProduct({{0, 1}, {1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LeNetConv2_BackwardData)->ArgsProduct({{0, 1}, {1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LeNetConv2_BackwardWeight)->ArgsProduct({{0, 1}, {1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LeNetMaxPool)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LeNetMaxPool_Backward)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mxnet
