// Runs the `mxnet` tool as a user would (subprocess) and checks its files and messages.
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "ndarray/io.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet {
namespace {

struct Result {
  int code;
  std::string output;  // stdout + stderr
};

Result RunTool(const std::string& args) {
  std::string cmd = "tools/mxnet/mxnet " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string SharedModels() {
  for (const char* base : std::initializer_list<const char*>{std::getenv("MXNET_SHARED_DIR"), "../shared", "/work/shared"}) {
    if (!base) continue;
    std::string d = std::string(base) + "/data/models/";
    if (FILE* f = std::fopen((d + "cifar_resnet20_v1-symbol.json").c_str(), "r")) {
      std::fclose(f);
      return d;
    }
  }
  return "";
}

std::string Tmp(const std::string& n) {
  const char* d = std::getenv("TEST_TMPDIR");
  return std::string(d ? d : "/tmp") + "/" + n;
}

TEST(Cli, HelpAndUnknownCommand) {
  Result r = RunTool("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.output.find("predict"), std::string::npos) << r.output;
  Result p = RunTool("predict --help");
  EXPECT_EQ(p.code, 0);
  EXPECT_NE(p.output.find("--symbol"), std::string::npos) << p.output;
  Result bad = RunTool("frobnicate");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("unknown command 'frobnicate'"), std::string::npos) << bad.output;
}

// The real GluonCV CIFAR-10 ResNet-20 export gives real MXNet 1.9.1's logits
// (tools/conformance/gen_cli_refs.py).
TEST(Cli, PredictMatchesMxnetOnTheRealCifarModel) {
  std::string m = SharedModels();
  if (m.empty()) GTEST_SKIP() << "../shared/data/models not found";
  std::string out = Tmp("logits.nd");
  Result r = RunTool("predict --symbol " + m + "cifar_resnet20_v1-symbol.json --params " + m +
                 "cifar_resnet20_v1-0000.params --input tools/mxnet/testdata/cifar_input.nd --output " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  auto got = nd::load(out);
  auto want = nd::load("tools/mxnet/testdata/cifar_logits.nd");
  ASSERT_TRUE(got.ok() && want.ok());
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ(got->names[0], "cifarresnetv10_dense0_fwd_output");
  EXPECT_TRUE(testing::AllClose(got->arrays[0], want->arrays[0], 1e-4, 1e-4));
}

// README's classify example: the real GluonCV CIFAR-10 model on the real photos.
TEST(Cli, ClassifyRealPhotosWithTheCifarModel) {
  std::string m = SharedModels();
  if (m.empty()) GTEST_SKIP() << "../shared/data/models not found";
  std::string images = m + "../images/";
  std::string labels = Tmp("cifar_labels.txt");
  FILE* f = std::fopen(labels.c_str(), "w");
  std::fputs("airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n", f);
  std::fclose(f);
  Result r = RunTool("classify --symbol " + m + "cifar_resnet20_v1-symbol.json --params " + m +
                     "cifar_resnet20_v1-0000.params --image " + images + "cat.jpg " + images +
                     "dog.jpg --labels " + labels +
                     " --input-size 32 --mean 0.4914,0.4822,0.4465 --std 0.2023,0.1994,0.2010 --topk 1");
  ASSERT_EQ(r.code, 0) << r.output;
  size_t cat = r.output.find("cat.jpg:\n  1. cat"), dog = r.output.find("dog.jpg:\n  1. dog");
  EXPECT_NE(cat, std::string::npos) << r.output;
  EXPECT_NE(dog, std::string::npos) << r.output;
  double p_cat = std::stod(r.output.substr(r.output.find_first_of("0123456789", cat + 15)));
  double p_dog = std::stod(r.output.substr(r.output.find_first_of("0123456789", dog + 15)));
  EXPECT_GT(p_cat, 0.9) << r.output;
  EXPECT_GT(p_dog, 0.9) << r.output;  // real MXNet on Pillow's identical 57x32 bilinear resize: 0.9934
}

// A short training run on a real Fashion-MNIST subset: exports loadable files.
TEST(Cli, TrainShortRunExportsAModel) {
  std::string out = Tmp("train_out");
  Result r = RunTool("train --epochs 1 --limit 1200 --batch-size 64 --workers 0 --out " + out);
  if (r.output.find("fashion-mnist") != std::string::npos && r.code != 0) GTEST_SKIP() << r.output;
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("test accuracy"), std::string::npos) << r.output;
  auto params = nd::load(out + "/model-0000.params");
  ASSERT_TRUE(params.ok()) << params.status();
  EXPECT_EQ(params->size(), 8u);  // 2 conv + 2 dense layers, weight and bias each
  double acc = std::stod(r.output.substr(r.output.find("test accuracy ") + 14));
  EXPECT_GT(acc, 0.5) << r.output;  // 1200 samples, one epoch: well above chance (0.1)
  Result bad = RunTool("train --model nosuchnet --out " + out);
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.output.find("unknown --model 'nosuchnet'"), std::string::npos) << bad.output;
}

TEST(Cli, BadInputGivesOneClearErrorLine) {
  std::string m = SharedModels();
  if (m.empty()) GTEST_SKIP() << "../shared/data/models not found";
  std::string sym = m + "cifar_resnet20_v1-symbol.json", params = m + "cifar_resnet20_v1-0000.params";
  struct Case {
    std::string args, needle;
  } cases[] = {
      {"predict --params x", "--symbol is required"},
      {"predict --symbol /nonexistent.json --params " + params + " --input x --output y", "/nonexistent.json"},
      {"predict --symbol " + sym + " --params " + sym + " --input x --output y", "magic"},
      {"predict --symbol " + sym + " --params " + params + " --input " + params + " --output " + Tmp("o.nd"),
       "data inputs"},
      {"predict --bogus 1", "unknown flag --bogus"},
      {"classify --symbol " + sym + " --params " + params + " --image /nonexistent.jpg", "/nonexistent.jpg"},
      {"classify --symbol " + sym + " --params " + params + " --image " + sym, "decode"},
  };
  for (const auto& c : cases) {
    Result r = RunTool(c.args);
    EXPECT_NE(r.code, 0) << c.args;
    EXPECT_NE(r.output.find(c.needle), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;  // one line
  }
}

}  // namespace
}  // namespace mxnet
