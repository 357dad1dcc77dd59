// mxnet train on numerical faults: a learning rate of 1e30 makes the weights overflow after the
// first step. The run stops with exit 1 and one error line naming the epoch, batch and Trainer
// step and the first parameter with a non-finite gradient; with --check-nan, the first op that
// produced the non-finite values.
#include <filesystem>

#include <gtest/gtest.h>

#include "tools/mxnet/cli_testing.h"

namespace mxnet::cli {
namespace {

using testing::Result;
using testing::RunTool;
using testing::Tmp;

std::string Args() {
  const std::string data = Tmp("tiny_fashion_mnist");
  std::filesystem::create_directories(data);
  testing::WriteTinyFashionMnist(data, 32, 8);
  return "train --data " + data +
         " --epochs 1 --batch-size 8 --threads 1 --workers 0 --seed 1 --optimizer sgd "
         "--lr 1e30 --out " +
         Tmp("out");
}

TEST(TrainNumerics, NonFiniteGradientStopsTheRunNamingStepAndParameter) {
  Result r = RunTool(Args());
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("mxnet train: error: epoch 1, batch 2: Trainer step 2: the gradient of "
                          "Parameter "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("nothing was updated (--check-nan names the op that produced it)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;  // one line
}

TEST(TrainNumerics, CheckNanNamesTheOpThatProducedIt) {
  Result r = RunTool(Args() + " --check-nan");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("--check-nan: running without hybridization"), std::string::npos)
      << r.output;
  // After step 1 the weights are ~1e30: the second convolution's sums overflow to Inf.
  EXPECT_NE(r.output.find("mxnet train: error: epoch 1, batch 2: MXNET_CHECK_NAN: Convolution "
                          "output 0 (8, 32, 10, 10) has 0 NaN and "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("its inputs are finite: this op produced them"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace mxnet::cli
