// `mxnet predict` and `mxnet classify` on Module-era exports (MXNet 1.x Module API checkpoints
// ending in loss heads, their labels absent from the .params): they run with the data alone and
// give real MXNet 1.9.1's predictions (gluon/testdata/module/, from
// tools/conformance/gen_module_exports.py); a grayscale LeNet gets 1-channel input.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ndarray/io.h"
#include "ndarray/testing/op_testing.h"
#include "tools/mxnet/cli_testing.h"

namespace mxnet {
namespace {

using cli::testing::Result;
using cli::testing::RunTool;
using cli::testing::Tmp;

const std::string kDir = "gluon/testdata/module/";

TEST(ModuleExportCli, PredictWithDataAloneGivesMxnetsOutputs) {
  for (const char* net :
       {"mlp_softmax", "conv_softmax", "linreg", "logreg", "maereg", "svm", "lenet_gray"}) {
    auto io = nd::load(kDir + net + "-io.nd");
    ASSERT_TRUE(io.ok()) << io.status();
    const NDArray x = *io->find("data"), want = *io->find("output");
    // A named file with "data" only, and an unnamed list of one array.
    std::string named = Tmp(std::string(net) + "_named.nd"),
                list = Tmp(std::string(net) + "_list.nd");
    ASSERT_TRUE(nd::save(named, std::vector<std::pair<std::string, NDArray>>{{"data", x}}).ok());
    ASSERT_TRUE(nd::save(list, std::vector<NDArray>{x}).ok());
    for (const std::string& in : {named, list}) {
      std::string out = Tmp(std::string(net) + "_out.nd");
      Result r = RunTool("predict --symbol " + kDir + net + "-symbol.json --params " + kDir + net +
                         "-0000.params --input " + in + " --output " + out);
      ASSERT_EQ(r.code, 0) << net << ": " << r.output;
      auto got = nd::load(out);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(got->size(), 1u);
      EXPECT_TRUE(testing::AllClose(got->arrays[0], want, 1e-5, 1e-6)) << net << " " << in;
    }
  }
}

// A grayscale LeNet (1 x 28 x 28 input): classify decodes the PNG as 1 channel, feeds [0, 1]
// values and prints the SoftmaxOutput probabilities unchanged (MXNet: imread(flag=0) / 255).
TEST(ModuleExportCli, ClassifyGrayscaleLenet) {
  auto ref = nd::load(kDir + "lenet_gray-png.nd");
  ASSERT_TRUE(ref.ok()) << ref.status();
  std::vector<float> prob = ref->find("prob")->ToVector<float>();
  ASSERT_EQ(prob.size(), 10u);
  Result r =
      RunTool("classify --symbol " + kDir + "lenet_gray-symbol.json --params " + kDir +
              "lenet_gray-0000.params --image " + kDir + "digit.png --input-size 28 --topk 10");
  ASSERT_EQ(r.code, 0) << r.output;
  // Lines "  k. class c   0.1234": every class's probability to the printed 4 decimals.
  int found = 0;
  for (int c = 0; c < 10; ++c) {
    std::string key = "class " + std::to_string(c) + " ";
    size_t at = r.output.find(key);
    ASSERT_NE(at, std::string::npos) << r.output;
    double p = std::stod(r.output.substr(r.output.find_first_of("0123456789", at + key.size())));
    EXPECT_NEAR(p, prob[c], 6e-5) << "class " << c << "\n" << r.output;
    ++found;
  }
  EXPECT_EQ(found, 10);
  Result bad = RunTool("classify --symbol " + kDir + "lenet_gray-symbol.json --params " + kDir +
                       "lenet_gray-0000.params --image " + kDir +
                       "digit.png --input-size 28 --mean 0.5,0.5,0.5");
  EXPECT_NE(bad.code, 0) << bad.output;
  EXPECT_NE(bad.output.find("1-channel (grayscale) input: --mean and --std take one value"),
            std::string::npos)
      << bad.output;
}

}  // namespace
}  // namespace mxnet
