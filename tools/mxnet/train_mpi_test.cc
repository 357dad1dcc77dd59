// `mpirun -np 2 mxnet train --kvstore mpi --batch-size 64` against one process with
// `--batch-size 128` (issue 25, item 4): the same final parameters within float tolerance, the
// same test accuracy, and only rank 0 prints and writes files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include "gluon/kvstore/mpi_testing.h"
#include "ndarray/io.h"
#include "tools/mxnet/cli_testing.h"

namespace mxnet::cli {
namespace {

using gluon::kvstore::testing::RunMpi;
using testing::RunTool;
using testing::Tmp;

// "test accuracy 0.7918 after 2 epochs" -> 0.7918 (-1 when absent).
double FinalAccuracy(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("test accuracy ([0-9.]+) after"))) return -1;
  return std::stod(m[1]);
}

int Count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// Runs one process with batch 128 and two with 64 each; returns their outputs.
std::pair<testing::Result, gluon::kvstore::testing::MpiResult> RunPair(const std::string& tag,
                                                                       const std::string& args) {
  auto r1 = RunTool("train --batch-size 128 --out " + Tmp(tag + "_one") + args);
  auto r2 = RunMpi(
      2, "tools/mxnet/mxnet train --kvstore mpi --batch-size 64 --out " + Tmp(tag + "_two") + args,
      "-x MXNET_KVSTORE_TIMEOUT=120");
  return {r1, r2};
}

TEST(TrainMpi, TwoProcessesEqualOneProcessWithTwiceTheBatch) {
  // 16 steps: long enough to exercise broadcast, sharding, allreduce and normalization, short
  // enough that float-order differences stay at rounding level (over hundreds of steps they
  // grow chaotically, as between --threads 1 and --threads 2 of one process).
  auto [r1, r2] = RunPair("short", " --epochs 1 --limit 2048 --threads 1 --workers 0 --seed 7");
  ASSERT_EQ(r1.code, 0) << r1.output;
  ASSERT_EQ(r2.code, 0) << r2.output;
  // Rank 0 alone reports (one line per epoch, one final line).
  EXPECT_EQ(Count(r2.output, "epoch 1/1: "), 1) << r2.output;
  EXPECT_EQ(Count(r2.output, "test accuracy "), 1) << r2.output;

  auto a = nd::load(Tmp("short_one") + "/model-0000.params"),
       b = nd::load(Tmp("short_two") + "/model-0000.params");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(a->size(), b->size());
  ASSERT_GT(a->size(), 0u);
  for (size_t i = 0; i < a->size(); ++i) {
    const std::string& name = a->names[i];
    const NDArray* other = b->find(name);
    ASSERT_NE(other, nullptr) << name;
    std::vector<float> x = a->arrays[i].ToVector<float>(), y = other->ToVector<float>();
    ASSERT_EQ(x.size(), y.size()) << name;
    // The largest difference relative to the tensor's largest value (measured ~5e-6; a missing
    // allreduce, a wrong normalization or unsynchronized data give > 1e-2).
    double diff = 0, scale = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      diff = std::max(diff, std::abs(double(x[k]) - y[k]));
      scale = std::max(scale, std::abs(double(x[k])));
    }
    EXPECT_LT(diff, 1e-4 * scale) << name;
  }
  EXPECT_NEAR(FinalAccuracy(r1.output), FinalAccuracy(r2.output), 0.003) << r2.output;
}

TEST(TrainMpi, TwoProcessesReachTheUsualAccuracy) {
  // LeNet on 4,096 samples for 2 epochs: 0.79 measured with one process and with two.
  auto [r1, r2] = RunPair("long", " --epochs 2 --limit 4096 --threads 1 --workers 0 --seed 7");
  ASSERT_EQ(r1.code, 0) << r1.output;
  ASSERT_EQ(r2.code, 0) << r2.output;
  EXPECT_EQ(Count(r2.output, "epoch 2/2: "), 1) << r2.output;
  const double acc1 = FinalAccuracy(r1.output), acc2 = FinalAccuracy(r2.output);
  EXPECT_GT(acc2, 0.75) << r2.output;
  EXPECT_NEAR(acc1, acc2, 0.02) << r1.output << r2.output;
}

// Resuming a multi-process run (issue 25): `mpirun -np 2 mxnet train --kvstore mpi` with
// checkpoints every 2 batches is killed (SIGKILL to its ranks) as soon as rank 0 wrote its
// first checkpoint, then `mpirun -np 2 mxnet train --resume DIR` (--kvstore comes from the
// checkpoint) finishes it: the parameters equal the uninterrupted run's (every rank loaded
// rank 0's checkpoint; the data order, the optimizer state and the schedule continue). One
// process cannot resume a two-process run.
TEST(TrainMpi, ResumedRunEqualsTheUninterruptedRun) {
  const std::string args =
      " --epochs 2 --limit 1024 --threads 1 --workers 0 --seed 5 --save-every 2 --batch-size 64";
  const std::string full = Tmp("resume_full"), cut = Tmp("resume_cut");
  auto u = RunMpi(2, "tools/mxnet/mxnet train --kvstore mpi --out " + full + args,
                  "-x MXNET_KVSTORE_TIMEOUT=120");
  ASSERT_EQ(u.code, 0) << u.output;

  const std::string run = gluon::kvstore::testing::MpiCommand(
      2, "tools/mxnet/mxnet train --kvstore mpi --out " + cut + args,
      "-x MXNET_KVSTORE_TIMEOUT=120");
  // `env` execs `timeout`, whose child is mpirun, whose children are the ranks: SIGKILL them
  // as soon as the first checkpoint appears (batch 2 of epoch 1), as a crash would.
  const std::string kill_script =
      run + " > " + cut + ".log 2>&1 & pid=$!; while [ ! -e " + cut +
      "/train-state.params ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done; " +
      "for m in $(pgrep -P $pid); do pkill -KILL -P $m; done; wait $pid";
  ASSERT_EQ(std::system(("sh -c '" + kill_script + "'").c_str()) == -1, false);
  ASSERT_TRUE(std::filesystem::exists(cut + "/train-state.params"));
  auto r = RunMpi(2, "tools/mxnet/mxnet train --resume " + cut, "-x MXNET_KVSTORE_TIMEOUT=120");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(r.output.find("resuming " + cut) != std::string::npos) << r.output;
  std::printf("%s\n", r.output.substr(0, r.output.find('\n', r.output.find("resuming "))).c_str());

  auto a = nd::load(full + "/model-0000.params"), b = nd::load(cut + "/model-0000.params");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(a->size(), b->size());
  double worst = 0;
  for (size_t i = 0; i < a->size(); ++i) {
    const NDArray* other = b->find(a->names[i]);
    ASSERT_NE(other, nullptr) << a->names[i];
    std::vector<float> x = a->arrays[i].ToVector<float>(), y = other->ToVector<float>();
    ASSERT_EQ(x.size(), y.size());
    double diff = 0, scale = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      diff = std::max(diff, std::abs(double(x[k]) - y[k]));
      scale = std::max(scale, std::abs(double(x[k])));
    }
    EXPECT_LE(diff, 1e-6 * scale) << a->names[i];
    worst = std::max(worst, diff / std::max(scale, 1e-30));
  }
  std::printf("largest difference / tensor's largest value: %g\n", worst);
  EXPECT_NEAR(FinalAccuracy(u.output), FinalAccuracy(r.output), 1e-4) << r.output;

  auto one = RunTool("train --resume " + full);
  EXPECT_EQ(one.code, 1) << one.output;
  EXPECT_THAT(one.output, ::testing::HasSubstr("the run was made by 2 process(es) (--kvstore mpi), "
                                               "this one has 1; resume it with `mpirun -np 2`"));
}

TEST(TrainMpi, BadKVStoreNames) {
  auto r = RunTool("train --kvstore bogus --out " + Tmp("bad"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.output, ::testing::HasSubstr("unknown kvstore type 'bogus'"));
  r = RunTool("train --kvstore nccl --out " + Tmp("bad"));
  EXPECT_EQ(r.code, 1);
  // Without CUDA the build lacks NCCL; a CUDA build without a GPU (CI's --config=cuda step) has
  // none to use.
  EXPECT_THAT(r.output,
              ::testing::AnyOf(::testing::HasSubstr("needs a CUDA build with NCCL"),
                               ::testing::HasSubstr("needs at least one GPU; none found")));
}

}  // namespace
}  // namespace mxnet::cli
