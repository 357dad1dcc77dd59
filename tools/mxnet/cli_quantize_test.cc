// `mxnet quantize` run as a user would (subprocess), like cli_test.cc, on the float ResNet of
// gluon/contrib/testdata/quantization/ (gen_quantization_refs.py) with its calibration batches.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tools/mxnet/cli_testing.h"

namespace mxnet {
namespace {

using cli::testing::Result;
using cli::testing::RunTool;
using cli::testing::Tmp;

const std::string kRef = "gluon/contrib/testdata/quantization/";
const std::string kModel =
    "--symbol " + kRef + "float-symbol.json --params " + kRef + "float-0000.params";

std::string Read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(Cli, QuantizeWritesAnInt8Export) {
  const std::string out = Tmp("quantized");
  Result r = RunTool("quantize " + kModel + " --input " + kRef + "calib.nd --calib-mode naive " +
                     "--out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("quantized (naive calibration, 2 batches)"), std::string::npos)
      << r.output;
  const std::string json = Read(out + "-symbol.json");
  for (const char* want : {"_contrib_quantize_v2", "_sg_mkldnn_conv", "_contrib_quantized_pooling",
                           "_sg_mkldnn_fully_connected", "min_calib_range", "with_sum"})
    EXPECT_NE(json.find(want), std::string::npos) << want;
  // The export runs: predict on one calibration batch.
  Result p = RunTool("predict --symbol " + out + "-symbol.json --params " + out +
                     "-0000.params --input " + kRef + "calib.nd --output " + Tmp("q_out.nd"));
  EXPECT_NE(p.code, 0);  // two arrays for one data input: a clear error
  EXPECT_NE(p.output.find("holds 2 arrays but the graph has 1 data inputs"), std::string::npos)
      << p.output;
  // Excluded operators stay float.
  r = RunTool("quantize " + kModel + " --input " + kRef +
              "calib.nd --exclude-operators Convolution --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(Read(out + "-symbol.json").find("_sg_mkldnn_conv"), std::string::npos);
}

TEST(Cli, QuantizeErrors) {
  Result r = RunTool("quantize " + kModel + " --input " + kRef + "calib.nd --calib-mode kl --out " +
                     Tmp("q_bad"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("unknown calib_mode 'kl'"), std::string::npos) << r.output;
  r = RunTool("quantize " + kModel + " --input " + kRef + "calib.nd");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.output.find("--out"), std::string::npos) << r.output;
  r = RunTool("quantize " + kModel + " --input /nonexistent.nd --out " + Tmp("q_bad"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("/nonexistent.nd"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mxnet
