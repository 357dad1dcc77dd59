// TrainRun by trainer_mpi_test under `mpirun -np 2` (issue 25): the Trainer's overlapped gradient
// allreduce gives bit for bit the parameters of the non-overlapped path (pushpull) after several
// steps, in the plain case and with gradient accumulation (grad_req add), parameters left
// without a gradient in some steps, and two backward passes before a step; the buckets really
// start during backward; and the finite check with update_on_kvstore stops a NaN on one rank
// on every rank before any weight changes. Each rank checks its own results with GoogleTest.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "autograd/autograd.h"
#include "base/error.h"
#include "gluon/init.h"
#include "gluon/kvstore/mpi_kvstore.h"
#include "gluon/loss/loss.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/training/trainer.h"
#include "ndarray/random.h"

namespace mxnet::gluon {
namespace {

constexpr int kLayers = 6, kWidth = 48, kBatch = 8, kSteps = 5;

// A deterministic input per (rank, step, k): different data on each rank.
NDArray Data(int rank, int step, int k, int64_t rows, int64_t cols) {
  std::vector<float> v(static_cast<size_t>(rows * cols));
  uint32_t s = 2654435761u * static_cast<uint32_t>(1 + rank * 1000 + step * 10 + k);
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / 16777216.0f - 0.5f;
  }
  return NDArray::FromVector(v, Shape{rows, cols});
}

enum class Mode { kPlain, kAccumulate, kUnused, kTwice };

struct TrainRun {
  std::vector<std::vector<float>> params;
  Trainer::OverlapStats stats;
};

// kLayers Dense(kWidth, relu) layers and an L2 loss; kSteps steps of the chosen mode.
TrainRun Train(std::optional<bool> overlap, Mode mode) {
  random::seed(11);
  std::vector<std::shared_ptr<nn::Dense>> layers;
  std::vector<ParameterPtr> params;
  for (int i = 0; i < kLayers; ++i) {
    layers.push_back(std::make_shared<nn::Dense>(
        kWidth, nn::DenseOptions{.activation = i + 1 < kLayers ? "relu" : "", .in_units = kWidth}));
    layers.back()->initialize(init::Xavier());
    params.push_back(layers.back()->weight);
    params.push_back(layers.back()->bias);
  }
  if (mode == Mode::kAccumulate)
    for (auto& p : params) p->set_grad_req(GradReq::kAdd);
  Trainer trainer(params, "sgd", {{"learning_rate", 0.05}, {"momentum", 0.9}},
                  {.kvstore = std::string("mpi"), .overlap_allreduce = overlap});
  const int rank = kvstore::mpi::WorldRank();
  loss::L2Loss l2;
  for (int step = 0; step < kSteps; ++step) {
    const int passes = mode == Mode::kAccumulate || mode == Mode::kTwice ? 2 : 1;
    for (int k = 0; k < passes; ++k) {
      NDArray x = Data(rank, step, k, kBatch, kWidth), y = Data(rank, step, k + 7, kBatch, kWidth);
      NDArray loss;
      {
        auto rec = autograd::record();
        NDArray h = x;
        for (int i = 0; i < kLayers; ++i) {
          if (mode == Mode::kUnused && i == 2 && step % 2 == 1) continue;  // layer 2 skipped
          h = (*layers[i])(h);
        }
        loss = l2(h, y);
      }
      autograd::backward({loss});
    }
    trainer.step(kBatch * passes, /*ignore_stale_grad=*/mode == Mode::kUnused);
    if (mode == Mode::kAccumulate)
      for (auto& p : params) p->zero_grad();
  }
  TrainRun r;
  for (auto& p : params) r.params.push_back(p->data().ToVector<float>());
  r.stats = trainer.overlap_stats();
  return r;
}

void ExpectBitwiseEqual(const TrainRun& a, const TrainRun& b) {
  ASSERT_EQ(a.params.size(), b.params.size());
  for (size_t i = 0; i < a.params.size(); ++i) {
    ASSERT_EQ(a.params[i].size(), b.params[i].size());
    size_t differ = 0;
    for (size_t k = 0; k < a.params[i].size(); ++k)
      differ += std::memcmp(&a.params[i][k], &b.params[i][k], sizeof(float)) != 0;
    EXPECT_EQ(differ, 0u) << "parameter " << i;
  }
}

// The ranks really trained on different data and agree with each other.
void ExpectSameOnEveryRank(const TrainRun& r) {
  auto kv = kvstore::create("mpi");
  double sum = 0;
  for (const auto& p : r.params)
    for (float v : p) sum += v;
  EXPECT_EQ(kv->sum_across_workers(sum), 2 * sum);
}

TEST(TrainerOverlap, PlainStepsEqualPushpullBitwise) {
  TrainRun on = Train(true, Mode::kPlain), off = Train(false, Mode::kPlain);
  ExpectBitwiseEqual(on, off);
  ExpectSameOnEveryRank(on);
  // 6 layers * (9216 + 192 bytes) with MXNET_KVSTORE_BUCKET_BYTES=10000: 6 buckets; the first
  // step starts them at step, the 4 later ones during backward (bucket order = ready order).
  EXPECT_EQ(on.stats.started_at_step, 6);
  EXPECT_EQ(on.stats.started_in_backward, 6 * (kSteps - 1));
  EXPECT_EQ(on.stats.redone, 0);
  EXPECT_EQ(off.stats.started_in_backward + off.stats.started_at_step, 0);
}

TEST(TrainerOverlap, GradientAccumulationIsReducedAtStep) {
  TrainRun on = Train(true, Mode::kAccumulate), off = Train(false, Mode::kAccumulate);
  ExpectBitwiseEqual(on, off);
  ExpectSameOnEveryRank(on);
  EXPECT_EQ(on.stats.started_in_backward, 0);
  EXPECT_EQ(on.stats.started_at_step, 6 * kSteps);
}

TEST(TrainerOverlap, ParametersWithoutGradientWaitForStep) {
  TrainRun on = Train(true, Mode::kUnused), off = Train(false, Mode::kUnused);
  ExpectBitwiseEqual(on, off);
  ExpectSameOnEveryRank(on);
  // Steps 1 and 3 skip layer 2 (bucket 2 of 0..5): buckets 5, 4, 3 start in backward, 2 (no
  // gradient) and then 1, 0 (fixed order) at step.
  EXPECT_EQ(on.stats.started_in_backward, 6 + 3 + 6 + 3);
  EXPECT_EQ(on.stats.started_at_step, 6 + 3 + 3);
}

TEST(TrainerOverlap, SecondBackwardRedoesStartedBuckets) {
  TrainRun on = Train(true, Mode::kTwice), off = Train(false, Mode::kTwice);
  ExpectBitwiseEqual(on, off);
  ExpectSameOnEveryRank(on);
  EXPECT_EQ(on.stats.redone, 6 * (kSteps - 1));
}

// TrainerOptions::overlap_allreduce unset: MXNET_KVSTORE_OVERLAP decides (0 = off, else on).
TEST(TrainerOverlap, EnvironmentSwitchesOverlap) {
  setenv("MXNET_KVSTORE_OVERLAP", "0", 1);
  TrainRun off = Train(std::nullopt, Mode::kPlain);
  unsetenv("MXNET_KVSTORE_OVERLAP");
  TrainRun on = Train(std::nullopt, Mode::kPlain);
  EXPECT_EQ(off.stats.started_in_backward + off.stats.started_at_step, 0);
  EXPECT_EQ(on.stats.started_in_backward, 6 * (kSteps - 1));
  ExpectBitwiseEqual(on, off);
}

// update_on_kvstore: a NaN in rank 1's gradient reaches every rank's sum; the push check throws
// on both before the store updates, and the weights stay as they were.
TEST(TrainerOverlap, NonFiniteGradientOnOneRankStopsEveryRankBeforeTheUpdate) {
  random::seed(3);
  auto layer = std::make_shared<nn::Dense>(4, nn::DenseOptions{.in_units = 3});
  layer->initialize(init::Xavier());
  Trainer trainer({layer->weight, layer->bias}, "sgd", {{"learning_rate", 0.1}},
                  {.kvstore = std::string("mpi"), .update_on_kvstore = true});
  trainer.set_check_finite(true);
  const int rank = kvstore::mpi::WorldRank();
  auto backward = [&](bool poison) {
    NDArray loss;
    {
      auto rec = autograd::record();
      loss = loss::L2Loss()((*layer)(Data(rank, 0, 0, 2, 3)), Data(rank, 0, 1, 2, 4));
    }
    autograd::backward({loss});
    if (poison) {
      std::vector<float> g = layer->weight->grad().ToVector<float>();
      g[5] = std::numeric_limits<float>::quiet_NaN();
      NDArray::FromVector(g, layer->weight->grad().shape()).copyto(layer->weight->grad());
    }
  };
  backward(false);
  trainer.step(2);  // broadcast from rank 0, one clean update
  const std::vector<float> w0 = layer->weight->data().ToVector<float>();
  backward(rank == 1);
  try {
    trainer.step(2);
    ADD_FAILURE() << "rank " << rank << ": the NaN was applied";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kOutOfRange);
    EXPECT_NE(std::string(e.what()).find("Trainer step 2: the gradient of Parameter 0 "),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(layer->weight->data().ToVector<float>(), w0);
  // The store's weights were not touched either: a clean step continues from w0 on every rank.
  backward(false);
  trainer.step(2);
  std::vector<float> w1 = layer->weight->data().ToVector<float>();
  for (float v : w1) EXPECT_TRUE(std::isfinite(v));
  EXPECT_NE(w1, w0);
  auto kv = kvstore::create("mpi");
  EXPECT_EQ(kv->sum_across_workers(w1[0]), 2.0 * w1[0]);
}

}  // namespace
}  // namespace mxnet::gluon

int main(int argc, char** argv) {
  mxnet::gluon::kvstore::mpi::EnsureInitialized();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
