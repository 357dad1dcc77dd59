// `mpirun -np 2 mxnet train --kvstore mpi --batch-size 64` against one process with
// `--batch-size 128` (issue 25, item 4): the same final parameters within float tolerance, the
// same test accuracy, and only rank 0 prints and writes files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
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

TEST(TrainMpi, TwoProcessesEqualOneProcessWithTwiceTheBatch) {
  const std::string common = " --epochs 2 --limit 4096 --threads 1 --workers 0 --seed 7";
  const std::string one = Tmp("one"), two = Tmp("two");
  auto r1 = RunTool("train --batch-size 128 --out " + one + common);
  ASSERT_EQ(r1.code, 0) << r1.output;
  auto r2 = RunMpi(2, "tools/mxnet/mxnet train --kvstore mpi --batch-size 64 --out " + two + common,
                   "-x MXNET_KVSTORE_TIMEOUT=120");
  ASSERT_EQ(r2.code, 0) << r2.output;
  // Rank 0 alone reports (one line per epoch, one final line).
  EXPECT_EQ(Count(r2.output, "epoch 2/2: "), 1) << r2.output;
  EXPECT_EQ(Count(r2.output, "test accuracy "), 1) << r2.output;

  auto a = nd::load(one + "/model-0000.params"), b = nd::load(two + "/model-0000.params");
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
    // Only the order of float additions differs (half-batch sums, then the allreduce): the
    // largest difference relative to the tensor's largest value (a missing allreduce or a
    // wrong normalization gives > 1e-2).
    double diff = 0, scale = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      diff = std::max(diff, std::abs(double(x[k]) - y[k]));
      scale = std::max(scale, std::abs(double(x[k])));
    }
    EXPECT_LT(diff, 1e-4 * scale) << name;
  }
  const double acc1 = FinalAccuracy(r1.output), acc2 = FinalAccuracy(r2.output);
  EXPECT_NEAR(acc1, acc2, 0.003) << r2.output;
  // The usual accuracy of this short run (LeNet, 4,096 samples, 2 epochs: 0.79 measured).
  EXPECT_GT(acc2, 0.75) << r2.output;
}

TEST(TrainMpi, BadKVStoreNames) {
  auto r = RunTool("train --kvstore bogus --out " + Tmp("bad"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.output, ::testing::HasSubstr("unknown kvstore type 'bogus'"));
  r = RunTool("train --kvstore nccl --out " + Tmp("bad"));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.output, ::testing::HasSubstr("needs a CUDA build with NCCL"));
}

}  // namespace
}  // namespace mxnet::cli
