// Run by mpi_kvstore_test under `mpirun -np 2`: the multi-process kvstore's semantics with
// hand-computed values (each rank checks its own results with GoogleTest), and the failure
// scenarios (argv[1]: "hang" or "crash").
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "base/error.h"
#include "gluon/kvstore/mpi_kvstore.h"

namespace mxnet::gluon::kvstore {
namespace {

using ::testing::FloatNear;
using ::testing::Pointwise;

NDArray Vec(std::vector<float> v) {
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())});
}

TEST(MpiKVStore, RankAndSize) {
  auto kv = create("mpi");
  EXPECT_EQ(kv->num_workers(), 2);
  EXPECT_EQ(kv->rank(), mpi::WorldRank());
  EXPECT_TRUE(kv->is_capable(Capability::kOptimizer));
  EXPECT_FALSE(create("horovod")->is_capable(Capability::kOptimizer));
  EXPECT_EQ(kv->sum_across_workers(kv->rank() + 1.5), 1.5 + 2.5);
  kv->barrier();
}

TEST(MpiKVStore, InitTakesRankZerosValuePushSumsOverProcesses) {
  auto kv = create("mpi");
  const float r = static_cast<float>(kv->rank());
  kv->init(7, Vec({1 + 10 * r, 2, 3}));  // rank 1's (11, 2, 3) is ignored
  NDArray out = Vec({0, 0, 0});
  kv->pull(7, {out});
  EXPECT_EQ(out.ToVector<float>(), (std::vector<float>{1, 2, 3}));
  // Two devices per process: rank 0 sums (0+1, 1+1, 2+1), rank 1 (1+1, 2+1, 3+1); total.
  kv->push(7, {Vec({r, r + 1, r + 2}), Vec({1, 1, 1})});
  kv->pull(7, {out});
  EXPECT_EQ(out.ToVector<float>(), (std::vector<float>{3, 5, 7}));
  // broadcast: rank 0's value into every output.
  NDArray b0 = Vec({0, 0}), b1 = Vec({0, 0});
  kv->broadcast(8, Vec({5 + r, 6}), {b0, b1});
  EXPECT_EQ(b1.ToVector<float>(), (std::vector<float>{5, 6}));
}

TEST(MpiKVStore, FusedPushPullAcrossBuckets) {
  // MXNET_KVSTORE_BUCKET_BYTES=16 (set by the test): keys of 3 floats each fill one bucket.
  auto kv = create("dist_sync");
  const float r = static_cast<float>(kv->rank());
  std::vector<int> keys;
  std::vector<std::vector<NDArray>> vals;
  for (int k = 0; k < 5; ++k) {
    kv->init(k, Vec({0, 0, 0}));
    keys.push_back(k);
    vals.push_back({Vec({k + r, 1, -r})});
  }
  kv->init(100, NDArray::Full(Shape{2}, 0.0, cpu(), DType::kFloat64));
  keys.push_back(100);
  vals.push_back({NDArray::Full(Shape{2}, 0.25 + r, cpu(), DType::kFloat64)});
  kv->pushpull(keys, vals);
  for (int k = 0; k < 5; ++k)
    EXPECT_EQ(vals[k][0].ToVector<float>(), (std::vector<float>{2.0f * k + 1, 2, -1})) << k;
  EXPECT_EQ(vals[5][0].ToVector<double>(), (std::vector<double>{1.5, 1.5}));
}

TEST(MpiKVStore, OptimizerOnTheStoreKeepsReplicasEqual) {
  auto kv = create("mpi");
  kv->set_optimizer(optimizer::Create("sgd", {{"learning_rate", 0.1}}));
  kv->init(0, Vec({1, 1}));
  NDArray w = Vec({0, 0});
  const float r = static_cast<float>(kv->rank());
  kv->pushpull(0, {Vec({1 + r, 2})}, {w});  // grad (1+2, 4): w = 1 - 0.1 g
  EXPECT_THAT(w.ToVector<float>(), Pointwise(FloatNear(1e-6), std::vector<float>{0.7f, 0.6f}));
}

TEST(MpiKVStore, TwoBitCompressionAcrossProcesses) {
  auto kv = create("mpi");
  kv->set_gradient_compression({{"type", "2bit"}, {"threshold", 0.5}});
  kv->init(0, Vec({0, 0, 0}));
  NDArray out = Vec({0, 0, 0});
  // rank 0 sends (0.6, 0.2, -0.7) -> (.5, 0, -.5), residual (.1, .2, -.2);
  // rank 1 sends (0.6, 0.4, 0.1) -> (.5, 0, 0), residual (.1, .4, .1). Sum (1, 0, -.5).
  const bool r0 = kv->rank() == 0;
  kv->pushpull(0, {r0 ? Vec({0.6f, 0.2f, -0.7f}) : Vec({0.6f, 0.4f, 0.1f})}, {out});
  EXPECT_THAT(out.ToVector<float>(), Pointwise(FloatNear(1e-6), std::vector<float>{1, 0, -0.5f}));
  // Again with (0, 0.3, 0) on both: rank 0 (.1, .5, -.2) -> (0, .5, 0); rank 1 (.1, .7, .1)
  // -> (0, .5, 0). Sum (0, 1, 0).
  kv->pushpull(0, {Vec({0, 0.3f, 0})}, {out});
  EXPECT_THAT(out.ToVector<float>(), Pointwise(FloatNear(1e-6), std::vector<float>{0, 1, 0}));
}

}  // namespace
}  // namespace mxnet::gluon::kvstore

int main(int argc, char** argv) {
  using namespace mxnet::gluon::kvstore;  // NOLINT
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "hang" || mode == "crash") {
    auto kv = create("mpi");
    kv->init(0, mxnet::NDArray::Full(mxnet::Shape{4}, 1.0));
    if (kv->rank() == 1) {
      if (mode == "crash") std::abort();
      sleep(60);  // hangs: rank 0's pushpull must time out
    }
    kv->pushpull(0, {mxnet::NDArray::Full(mxnet::Shape{4}, 1.0)});
    std::printf("rank %d: pushpull returned\n", kv->rank());
    return 0;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
