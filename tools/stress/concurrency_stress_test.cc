// Concurrency stress (issue 22 item 4), sized by environment variables so that the suite runs a
// small version and `:concurrency_stress_large` (or a manual run) the full one:
//   STRESS_THREADS (8), STRESS_CALLS (calls per thread; 25), STRESS_IMAGE (input H = W; 32),
//   STRESS_STEPS (Trainer steps per net; 20), STRESS_EPOCHS (DataLoader epochs abandoned; 40).
// 1. One hybridized resnet18_v1 (static_alloc, static_shape) called from STRESS_THREADS threads,
//    STRESS_CALLS calls each on 4 different inputs: every output equals (bit for bit) the
//    single-threaded output for its input.
// 2. Two Trainers stepping two different nets at once (one hybridized, one imperative, each
//    under autograd on its own thread): the final parameters equal those of the same training
//    run one after the other on one thread.
// 3. DataLoaders with worker threads under cancellation: epochs abandoned after a random number
//    of batches (iterator destroyed with loads in flight), a loader destroyed while its iterator
//    lives, two loaders on two threads at once: every batch consumed holds the right samples,
//    nothing hangs, and a full epoch afterwards is complete.
// Under --config=tsan (tools/fuzz/sanitizers.sh tsan) ThreadSanitizer checks the same runs.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "gluon/data/dataloader.h"
#include "gluon/loss/loss.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/nn/conv_layers.h"
#include "gluon/training/trainer.h"
#include "modelzoo/vision.h"
#include "ndarray/nd.h"
#include "ndarray/random.h"

namespace mxnet {
namespace {

int Env(const char* name, int def) {
  const char* v = std::getenv(name);
  return v && std::atoi(v) > 0 ? std::atoi(v) : def;
}

TEST(ConcurrencyStress, OneHybridizedResnet18FromManyThreadsGivesSingleThreadedOutputs) {
  const int threads = Env("STRESS_THREADS", 8), calls = Env("STRESS_CALLS", 25),
            image = Env("STRESS_IMAGE", 32);
  random::seed(1);
  auto net = gluon::model_zoo::vision::get_model("resnet18_v1", {.classes = 10});
  net->initialize(gluon::init::Xavier());
  net->hybridize(true, {.static_alloc = true, .static_shape = true});
  std::vector<NDArray> inputs;
  std::vector<std::vector<float>> expected;
  for (int k = 0; k < 4; ++k) inputs.push_back(nd::random::normal(0, 1, Shape{1, 3, image, image}));
  for (const NDArray& x : inputs) expected.push_back((*net)(x).ToVector<float>());
  ASSERT_NE(expected[0], expected[1]);  // the inputs give different outputs
  std::atomic<int> mismatches{0}, done{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < calls; ++i) {
        const int k = (t + i) % 4;
        if ((*net)(inputs[k]).ToVector<float>() != expected[k]) ++mismatches;
        ++done;
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(done.load(), threads * calls);
  EXPECT_EQ(mismatches.load(), 0) << "of " << threads * calls << " calls";
}

// A small conv net; `hybrid` selects the cached graph.
std::shared_ptr<gluon::nn::HybridSequential> SmallNet(uint64_t seed, bool hybrid) {
  random::seed(seed);
  auto net = std::make_shared<gluon::nn::HybridSequential>();
  net->add({std::make_shared<gluon::nn::Conv2D>(8, Shape{3, 3},
                                                gluon::nn::ConvOptions{.activation = "relu"}),
            std::make_shared<gluon::nn::BatchNorm>(), std::make_shared<gluon::nn::Flatten>(),
            std::make_shared<gluon::nn::Dense>(10)});
  net->initialize(gluon::init::Xavier());
  (*net)(NDArray::Full(Shape{1, 1, 12, 12}, 0.0));
  if (hybrid) net->hybridize(true, {.static_alloc = true});
  return net;
}

struct Job {
  std::shared_ptr<gluon::nn::HybridSequential> net;
  std::unique_ptr<gluon::Trainer> trainer;
  std::vector<NDArray> x, y;
};

// Data and nets are made on the calling thread (they draw from the global generators).
Job MakeJob(uint64_t seed, bool hybrid, int steps) {
  Job j;
  j.net = SmallNet(seed, hybrid);
  j.trainer = std::make_unique<gluon::Trainer>(j.net->collect_params(), "adam",
                                               gluon::Kwargs{{"learning_rate", 0.01}});
  for (int s = 0; s < steps; ++s) {
    j.x.push_back(nd::random::normal(0, 1, Shape{8, 1, 12, 12}));
    j.y.push_back(nd::random::randint(0, 10, Shape{8}).astype(DType::kFloat32));
  }
  return j;
}

void Train(Job& j) {
  gluon::loss::SoftmaxCrossEntropyLoss loss_fn;
  for (size_t s = 0; s < j.x.size(); ++s) {
    NDArray l;
    {
      auto rec = autograd::record();
      l = loss_fn((*j.net)(j.x[s]), j.y[s]);
    }
    l.backward();
    j.trainer->step(8);
  }
}

std::vector<std::vector<float>> Params(const Job& j) {
  std::vector<std::vector<float>> out;
  for (const auto& [n, p] : j.net->collect_params()) out.push_back(p->data().ToVector<float>());
  return out;
}

TEST(ConcurrencyStress, TwoTrainersSteppingDifferentNetsAtOnce) {
  const int steps = Env("STRESS_STEPS", 20);
  Job a = MakeJob(11, true, steps), b = MakeJob(12, false, steps);
  Job ra = MakeJob(11, true, steps), rb = MakeJob(12, false, steps);
  ASSERT_EQ(Params(a), Params(ra));
  Train(ra);  // the reference: one after the other on this thread
  Train(rb);
  std::thread ta([&] { Train(a); }), tb([&] { Train(b); });
  ta.join();
  tb.join();
  EXPECT_EQ(Params(a), Params(ra));
  EXPECT_EQ(Params(b), Params(rb));
  EXPECT_NE(Params(a), Params(MakeJob(11, true, 0)));  // training changed them
}

// Sample i = {x: (2,) float32 [i, -i], y: () int32 i}; loading sleeps up to 0.2 ms so that the
// workers run in parallel and out of order.
class SlowDataset : public gluon::data::Dataset {
 public:
  explicit SlowDataset(int64_t n) : n_(n) {}
  int64_t size() const override { return n_; }

 protected:
  gluon::data::Sample Get(int64_t i) const override {
    std::this_thread::sleep_for(std::chrono::microseconds(40 * (i % 6)));
    const float v = static_cast<float>(i);
    return {NDArray::FromVector(std::vector<float>{v, -v}, Shape{2}),
            NDArray::FromVector(std::vector<int32_t>{static_cast<int32_t>(i)}, Shape(), cpu(),
                                DType::kInt32)};
  }

 private:
  int64_t n_;
};

// Checks one batch: labels are the sampler's order; features match the labels.
bool BatchIsRight(const gluon::data::Batch& b, int64_t first) {
  std::vector<int> y = b[1].ToVector<int>();
  std::vector<float> x = b[0].ToVector<float>();
  for (size_t k = 0; k < y.size(); ++k)
    if (y[k] != first + static_cast<int64_t>(k) || x[2 * k] != y[k] || x[2 * k + 1] != -y[k])
      return false;
  return true;
}

// `epochs` epochs of a sequential loader, each abandoned after a random number of batches.
int AbandonEpochs(int epochs, uint32_t seed, int workers) {
  auto ds = std::make_shared<SlowDataset>(200);
  gluon::data::DataLoader loader(ds, {.batch_size = 4, .num_workers = workers, .prefetch = 8});
  std::mt19937 gen(seed);
  int wrong = 0;
  for (int e = 0; e < epochs; ++e) {
    const int stop = static_cast<int>(gen() % 12);
    int n = 0;
    for (auto it = loader.begin(); it != loader.end() && n < stop; ++it, ++n)
      wrong += !BatchIsRight(*it, 4 * n);
  }
  // A complete epoch afterwards.
  int n = 0;
  for (const auto& b : loader) wrong += !BatchIsRight(b, 4 * n++);
  wrong += n != 50;
  return wrong;
}

TEST(ConcurrencyStress, DataLoaderWorkersUnderCancellation) {
  const int epochs = Env("STRESS_EPOCHS", 40);
  // Two loaders with workers, on two threads at once.
  std::atomic<int> wrong{0};
  std::thread t1([&] { wrong += AbandonEpochs(epochs, 1, 3); });
  std::thread t2([&] { wrong += AbandonEpochs(epochs, 2, 2); });
  t1.join();
  t2.join();
  EXPECT_EQ(wrong.load(), 0);
  // Loaders destroyed while their iterators (with loads in flight) live on.
  auto ds = std::make_shared<SlowDataset>(200);
  for (int r = 0; r < epochs / 4; ++r) {
    std::optional<gluon::data::DataLoader::Iterator> it;
    {
      gluon::data::DataLoader loader(ds, {.batch_size = 4, .num_workers = 3, .prefetch = 6});
      it.emplace(loader.begin());
      ++*it;
    }
    EXPECT_TRUE(BatchIsRight(**it, 4));
  }
}

}  // namespace
}  // namespace mxnet
