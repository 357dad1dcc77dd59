// CachedOp benchmarks: executor overhead per node, and hybridized (CachedOp, with and without
// graph passes) vs imperative (op-by-op dispatch, what nd:: calls do) for a small MLP, a small
// CNN and the real CIFAR-10 ResNet-20 at batch 1 and 64.
//
//   ./bazelw run -c opt --config=bench //symbol:executor_benchmark --
//       --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//
// Variants: Imperative (Invoke per node), Hybrid (CachedOp, backend none, static_alloc),
// HybridDefault (+ dead code/CSE/constant folding/BatchNorm folding), HybridOnednn (+ oneDNN
// post-op fusion), HybridOnednnNoVerify (the same without the per-call write-version check of
// folded inputs).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <unordered_map>

#include "base/strings.h"
#include "ndarray/io.h"
#include "symbol/executor.h"

namespace mxnet::sym {
namespace {

NDArray Random(const Shape& s, double lo, double hi, uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<float> v(s.Size());
  for (auto& x : v) x = static_cast<float>(d(gen));
  return NDArray::FromVector(v, s);
}

struct Net {
  Symbol symbol;
  std::map<std::string, NDArray> params;
  Shape data_shape;  // batch dim replaced per run
};

// Op-by-op evaluation through the imperative dispatch.
std::vector<NDArray> RunImperative(const Symbol& s, const std::map<std::string, NDArray>& values,
                                   const std::vector<std::shared_ptr<Node>>& order) {
  std::unordered_map<const Node*, NDArrayVec> out;
  for (const auto& n : order) {
    if (n->is_variable()) {
      out[n.get()] = {values.at(n->name)};
      continue;
    }
    NDArrayVec in;
    for (const auto& e : n->inputs) in.push_back(out.at(e.node.get())[e.index]);
    out[n.get()] = Invoke(*n->op, n->attrs, in);
  }
  std::vector<NDArray> r;
  for (const auto& e : s.outputs()) r.push_back(out.at(e.node.get())[e.index]);
  return r;
}

// ---- Nets. ----
Net Chain(int n) {
  Net net;
  Symbol s = var("data");
  for (int i = 0; i < n; ++i) s = s + 1.0;
  net.symbol = s;
  net.data_shape = Shape{1, 1};
  return net;
}

Net Mlp() {
  Net net;
  Symbol x = var("data");
  int in = 784, k = 0;
  for (int h : {256, 128, 10}) {
    std::string w = StrCat("fc", k, "_weight"), b = StrCat("fc", k, "_bias");
    net.params[w] = Random(Shape{h, in}, -0.05, 0.05, 2 * k + 1);
    net.params[b] = Random(Shape{h}, -0.1, 0.1, 2 * k + 2);
    x = Symbol::Create("FullyConnected", {x, var(w), var(b)}, {{"num_hidden", StrCat(h)}});
    if (h != 10) x = Symbol::Create("Activation", {x}, {{"act_type", "relu"}});
    in = h;
    ++k;
  }
  net.symbol = x;
  net.data_shape = Shape{1, 784};
  return net;
}

// conv-BN-relu x2, a residual block, global average pooling, FC.
Net Cnn() {
  Net net;
  int k = 0;
  auto conv_bn = [&](const Symbol& x, int cin, int cout, int stride, bool relu) {
    std::string p = StrCat("c", k++);
    net.params[p + "_w"] = Random(Shape{cout, cin, 3, 3}, -0.2, 0.2, 10 * k);
    net.params[p + "_gamma"] = Random(Shape{cout}, 0.5, 1.5, 10 * k + 1);
    net.params[p + "_beta"] = Random(Shape{cout}, -0.5, 0.5, 10 * k + 2);
    net.params[p + "_mean"] = Random(Shape{cout}, -0.2, 0.2, 10 * k + 3);
    net.params[p + "_var"] = Random(Shape{cout}, 0.5, 1.5, 10 * k + 4);
    Symbol c = Symbol::Create("Convolution", {x, var(p + "_w")},
                              {{"kernel", "(3, 3)"},
                               {"num_filter", StrCat(cout)},
                               {"pad", "(1, 1)"},
                               {"stride", StrCat("(", stride, ", ", stride, ")")},
                               {"no_bias", "True"}});
    Symbol b = Symbol::Create(
        "BatchNorm", {c, var(p + "_gamma"), var(p + "_beta"), var(p + "_mean"), var(p + "_var")},
        {{"fix_gamma", "False"}, {"eps", "1e-05"}});
    return relu ? Symbol::Create("Activation", {b}, {{"act_type", "relu"}}) : b;
  };
  Symbol x = conv_bn(var("data"), 3, 16, 1, true);
  x = conv_bn(x, 16, 32, 2, true);
  Symbol y = conv_bn(conv_bn(x, 32, 32, 1, true), 32, 32, 1, false);
  x = Symbol::Create("Activation", {y + x}, {{"act_type", "relu"}});
  x = Symbol::Create("Pooling", {x},
                     {{"global_pool", "True"}, {"pool_type", "avg"}, {"kernel", "(1, 1)"}});
  net.params["fc_w"] = Random(Shape{10, 32}, -0.2, 0.2, 99);
  net.params["fc_b"] = Random(Shape{10}, -0.1, 0.1, 98);
  net.symbol =
      Symbol::Create("FullyConnected", {x, var("fc_w"), var("fc_b")}, {{"num_hidden", "10"}});
  net.data_shape = Shape{1, 3, 32, 32};
  return net;
}

const Net* ResNet20() {
  static const Net* net = []() -> const Net* {
    std::vector<std::string> dirs;
    if (const char* e = std::getenv("MXNET_SHARED_DIR")) dirs.push_back(e);
    if (const char* w = std::getenv("BUILD_WORKSPACE_DIRECTORY"))
      dirs.push_back(StrCat(w, "/../shared"));
    dirs.push_back("/work/shared");
    for (const auto& d : dirs) {
      std::string prefix = d + "/data/models/cifar_resnet20_v1";
      if (!std::filesystem::exists(prefix + "-symbol.json")) continue;
      auto s = Symbol::load(prefix + "-symbol.json");
      auto f = nd::load(prefix + "-0000.params");
      if (!s.ok() || !f.ok()) return nullptr;
      auto* n = new Net;
      n->symbol = *s;
      for (size_t i = 0; i < f->names.size(); ++i) n->params[f->names[i].substr(4)] = f->arrays[i];
      n->data_shape = Shape{1, 3, 32, 32};
      return n;
    }
    return nullptr;
  }();
  return net;
}

enum Variant { kImperative, kHybrid, kHybridDefault, kHybridOnednn, kHybridOnednnNoVerify };

void RunNet(benchmark::State& state, const Net* net, Variant v, int batch) {
  if (!net) {
    state.SkipWithError("model files not found (set MXNET_SHARED_DIR)");
    return;
  }
  Shape ds = net->data_shape;
  ds[0] = batch;
  std::map<std::string, NDArray> values = net->params;
  values["data"] = Random(ds, -1, 1, 7);
  if (v == kImperative) {
    auto order = net->symbol.TopoNodes();
    for (auto _ : state) benchmark::DoNotOptimize(RunImperative(net->symbol, values, order));
    state.counters["nodes"] = 0;
    for (const auto& n : order) state.counters["nodes"] += !n->is_variable();
    return;
  }
  CachedOpOptions o{.static_alloc = true, .static_shape = true};
  if (v == kHybridDefault) o.backend = "default";
  if (v == kHybridOnednn || v == kHybridOnednnNoVerify) o.backend = "onednn";
  if (v == kHybridOnednnNoVerify) o.verify_folded_inputs = false;
  CachedOp op(net->symbol, o);
  std::vector<NDArray> in;
  for (const auto& n : op.input_names()) in.push_back(values.at(n));
  op(in);  // compile
  for (auto _ : state) benchmark::DoNotOptimize(op(in));
  CompileReport rep = op.last_report();
  state.counters["nodes"] = rep.nodes_after;
  state.counters["planned_KiB"] = static_cast<double>(op.memory_stats().planned_bytes) / 1024;
}

// ---- Executor overhead per node: a chain of 100 tiny ops. ----
void BM_Chain100(benchmark::State& state) {
  static const Net net = Chain(100);
  RunNet(state, &net, static_cast<Variant>(state.range(0)), 1);
  state.counters["per_node"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 100,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Chain100)->ArgName("variant")->Arg(kImperative)->Arg(kHybrid)->Arg(kHybridDefault);

void BM_Mlp(benchmark::State& state) {
  static const Net net = Mlp();
  RunNet(state, &net, static_cast<Variant>(state.range(0)), static_cast<int>(state.range(1)));
}
BENCHMARK(BM_Mlp)
    ->ArgNames({"variant", "batch"})
    ->ArgsProduct({{kImperative, kHybrid, kHybridDefault, kHybridOnednn}, {1, 64}});

void BM_Cnn(benchmark::State& state) {
  static const Net net = Cnn();
  RunNet(state, &net, static_cast<Variant>(state.range(0)), static_cast<int>(state.range(1)));
}
BENCHMARK(BM_Cnn)
    ->ArgNames({"variant", "batch"})
    ->ArgsProduct({{kImperative, kHybrid, kHybridDefault, kHybridOnednn, kHybridOnednnNoVerify},
                   {1, 64}});

void BM_ResNet20(benchmark::State& state) {
  RunNet(state, ResNet20(), static_cast<Variant>(state.range(0)), static_cast<int>(state.range(1)));
}
BENCHMARK(BM_ResNet20)
    ->ArgNames({"variant", "batch"})
    ->ArgsProduct({{kImperative, kHybrid, kHybridDefault, kHybridOnednn, kHybridOnednnNoVerify},
                   {1, 64}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace mxnet::sym
