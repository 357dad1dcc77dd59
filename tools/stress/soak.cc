// Soak (issue 22 item 3; docs/reliability.md §8): trains the default LeNet of `mxnet train` for
// many steps, then calls a hybridized resnet18_v1 many times, and reads resident memory and the
// allocator's statistics after every step. Passes (exit 0) when, in each phase, after warm-up:
//   - RSS stays within 1 % (max - min <= 1 % of min; --rss_tolerance),
//   - the caching allocator's live bytes (Storage::Stats::bytes_in_use) do not change (a step
//     holds the same buffers at the same point every time: one leaked buffer per step shows),
//   - the allocator's cache, the backends' scratch, primitive and constant caches stay within
//     what warm-up reached,
//   - every resnet18_v1 output equals, bit for bit, the first output for the same input.
// Otherwise prints one line per violation and exits 1 (2 for bad flags).
//
// Flags (--name=value): lenet_steps (10000), resnet_calls (100000), image (32: resnet input
// (1, 3, S, S)), batch_size (128), samples (1024 synthetic Fashion-MNIST-shaped samples, random),
// workers (0: batches load on the training thread, so live bytes are exact; N > 0 adds 2N
// batches in flight, allowed as slack), threads (1: intra-op threads), warmup (0.1: fraction of
// each phase's steps), rss_tolerance (0.01), rows (20: curve rows per phase), progress (0; 1:
// also print each row to stderr as it is recorded).
// tools/stress/soak.sh runs the full size; //tools/stress:soak_test a short one.
//
// LeNet's step is `mxnet train`'s: hybridized with static_alloc/static_shape, Adam 0.003 with a
// cosine schedule over the run, softmax cross-entropy, loss and gradient NaN checks, the running
// loss read back and the accuracy metric updated, on batches from a shuffling DataLoader.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "base/threading.h"
#include "gluon/data/dataloader.h"
#include "gluon/data/dataset.h"
#include "gluon/loss/loss.h"
#include "gluon/training/lr_scheduler.h"
#include "gluon/training/metric.h"
#include "gluon/training/trainer.h"
#include "modelzoo/vision.h"
#include "ndarray/nd.h"
#include "ndarray/random.h"
#include "tools/mxnet/lenet.h"
#include "tools/stress/soak_monitor.h"

namespace mxnet::stress {
namespace {

struct Flags {
  std::map<std::string, double> v = {
      {"lenet_steps", 10000}, {"resnet_calls", 100000}, {"image", 32},
      {"batch_size", 128},    {"samples", 1024},        {"workers", 0},
      {"threads", 1},         {"warmup", 0.1},          {"rss_tolerance", 0.01},
      {"rows", 20},           {"progress", 0}};
  int64_t Int(const char* n) const { return static_cast<int64_t>(v.at(n)); }
};

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

PhaseOptions Options(const Flags& f) {
  return {.warmup_fraction = f.v.at("warmup"),
          .rss_tolerance = f.v.at("rss_tolerance"),
          .rows = f.Int("rows"),
          .progress = f.Int("progress") ? stderr : nullptr};
}

// Phase 1: `steps` training steps of mxnet train's LeNet. Returns the failures.
std::vector<std::string> SoakLeNet(const Flags& f) {
  const int64_t steps = f.Int("lenet_steps"), batch = f.Int("batch_size"), n = f.Int("samples");
  const int workers = static_cast<int>(f.Int("workers"));
  random::seed(42);
  auto data =
      std::make_shared<gluon::data::ArrayDataset>(std::vector<gluon::data::ArrayDataset::Column>{
          nd::random::normal(0, 1, Shape{n, 1, 28, 28}),
          nd::random::randint(0, 10, Shape{n}).astype(DType::kFloat32)});
  gluon::data::DataLoader loader(data,
                                 {.batch_size = batch, .shuffle = true, .num_workers = workers});
  auto net = cli::LeNet();
  net->initialize(gluon::init::Xavier());
  (*net)(NDArray::Full(Shape{1, 1, 28, 28}, 0.0));
  net->hybridize(true, {.static_alloc = true, .static_shape = true});
  gluon::Kwargs opt_kw{{"learning_rate", 0.003}};
  opt_kw.insert_or_assign("lr_scheduler",
                          std::make_shared<gluon::lr_scheduler::CosineScheduler>(steps, 0.003));
  gluon::Trainer trainer(net->collect_params(), "adam", opt_kw);
  trainer.set_check_finite(true);
  gluon::loss::SoftmaxCrossEntropyLoss loss_fn;
  gluon::metric::Accuracy acc;
  PhaseOptions opt = Options(f);
  // With workers, up to 2 * workers batches (x and y) are in flight when memory is read.
  if (workers > 0)
    opt.in_use_slack = static_cast<size_t>(2 * workers) *
                       static_cast<size_t>(batch * (28 * 28 + 1) * sizeof(float) + 2 * 4096);
  PhaseMonitor mon("lenet", steps, opt);
  const auto t0 = std::chrono::steady_clock::now();
  double loss_sum = 0;
  int64_t step = 0;
  while (step < steps) {
    for (auto it = loader.begin(); it != loader.end() && step < steps; ++it) {
      const gluon::data::Batch b = *it;
      NDArray out, l;
      {
        auto rec = autograd::record();
        out = (*net)(b[0]);
        l = loss_fn(out, b[1]);
      }
      trainer.check_loss(l);
      l.backward();
      trainer.step(static_cast<double>(b[0].shape()[0]));
      acc.update(b[1], out);
      loss_sum += nd::sum(l).asscalar<float>();
      mon.Record(++step, ReadMemory(Since(t0)));
    }
  }
  const auto [name, accuracy] = acc.get()[0];
  std::printf(
      "lenet: %lld steps of batch %lld in %.1f s (%.2f ms/step), loss per sample %.4f, "
      "train %s %.4f (random labels: chance is 0.1)\n",
      static_cast<long long>(steps), static_cast<long long>(batch), Since(t0),
      1e3 * Since(t0) / steps, loss_sum / static_cast<double>(steps * batch), name.c_str(),
      accuracy);
  mon.PrintCurve(stdout);
  std::printf("%s\n", mon.Summary().c_str());
  return mon.Failures();
}

// Phase 2: `calls` inference calls of a hybridized resnet18_v1 (1000 classes, Xavier) on four
// (1, 3, S, S) inputs in turn; each output must equal the first one for its input.
std::vector<std::string> SoakResNet(const Flags& f) {
  const int64_t calls = f.Int("resnet_calls"), s = f.Int("image");
  random::seed(7);
  auto net = gluon::model_zoo::vision::get_model("resnet18_v1");
  net->initialize(gluon::init::Xavier());
  net->hybridize(true, {.static_alloc = true, .static_shape = true});
  std::vector<NDArray> inputs;
  for (int k = 0; k < 4; ++k) inputs.push_back(nd::random::normal(0, 1, Shape{1, 3, s, s}));
  std::vector<std::vector<float>> expected(4);
  std::vector<float> got;
  PhaseMonitor mon("resnet", calls, Options(f));
  int64_t mismatches = 0, first_mismatch = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int64_t i = 1; i <= calls; ++i) {
    const size_t k = static_cast<size_t>(i % 4);
    {
      const NDArray y = (*net)(inputs[k]);
      y.wait_to_read();
      if (expected[k].empty()) {
        expected[k] = y.ToVector<float>();
      } else {
        got.resize(expected[k].size());
        std::memcpy(got.data(), y.data<float>(), got.size() * sizeof(float));
        if (got != expected[k] && mismatches++ == 0) first_mismatch = i;
      }
    }
    mon.Record(i, ReadMemory(Since(t0)));
  }
  std::printf("resnet: %lld calls of resnet18_v1 (1, 3, %lld, %lld) in %.1f s (%.2f ms/call)\n",
              static_cast<long long>(calls), static_cast<long long>(s), static_cast<long long>(s),
              Since(t0), 1e3 * Since(t0) / calls);
  mon.PrintCurve(stdout);
  std::printf("%s\n", mon.Summary().c_str());
  std::vector<std::string> failures = mon.Failures();
  if (mismatches > 0)
    failures.push_back(StrCat("resnet: ", mismatches,
                              " outputs differ from the first output for "
                              "the same input (first at call ",
                              first_mismatch, ")"));
  return failures;
}

int Main(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const size_t eq = a.find('=');
    auto it = a.rfind("--", 0) != 0 || eq == std::string::npos ? f.v.end()
                                                               : f.v.find(a.substr(2, eq - 2));
    char* end = nullptr;
    const double value = it == f.v.end() ? 0 : std::strtod(a.c_str() + eq + 1, &end);
    if (it == f.v.end() || end == a.c_str() + eq + 1 || *end != '\0' || value < 0) {
      std::fprintf(stderr, "soak: bad argument '%s' (--name=value with name one of:", a.c_str());
      for (const auto& [k, d] : f.v) std::fprintf(stderr, " %s", k.c_str());
      std::fprintf(stderr, "; values >= 0)\n");
      return 2;
    }
    it->second = value;
  }
  SetNumThreads(static_cast<int>(f.Int("threads")));
  std::printf(
      "soak: lenet_steps=%lld resnet_calls=%lld image=%lld threads=%d warmup=%.2f "
      "rss_tolerance=%.4f\n",
      static_cast<long long>(f.Int("lenet_steps")), static_cast<long long>(f.Int("resnet_calls")),
      static_cast<long long>(f.Int("image")), GetNumThreads(), f.v["warmup"], f.v["rss_tolerance"]);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> failures;
  if (f.Int("lenet_steps") > 0)
    for (auto& m : SoakLeNet(f)) failures.push_back(m);
  std::fflush(stdout);
  if (f.Int("resnet_calls") > 0)
    for (auto& m : SoakResNet(f)) failures.push_back(m);
  std::printf("soak: %s after %.1f s\n", failures.empty() ? "PASS" : "FAIL", Since(t0));
  for (const std::string& m : failures) std::printf("FAIL %s\n", m.c_str());
  return failures.empty() ? 0 : 1;
}

}  // namespace
}  // namespace mxnet::stress

int main(int argc, char** argv) { return mxnet::stress::Main(argc, argv); }
