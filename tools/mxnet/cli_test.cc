// Runs the `mxnet` tool as a user would (subprocess) and checks its files and messages.
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
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

std::string SharedModels() {
  for (const char* base : std::initializer_list<const char*>{std::getenv("MXNET_SHARED_DIR"),
                                                             "../shared", "/work/shared"}) {
    if (!base) continue;
    std::string d = std::string(base) + "/data/models/";
    if (FILE* f = std::fopen((d + "cifar_resnet20_v1-symbol.json").c_str(), "r")) {
      std::fclose(f);
      return d;
    }
  }
  return "";
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
  Result r = RunTool(
      "predict --symbol " + m + "cifar_resnet20_v1-symbol.json --params " + m +
      "cifar_resnet20_v1-0000.params --input gluon/nn/testdata/cifar_input.nd --output " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  auto got = nd::load(out);
  auto want = nd::load("gluon/nn/testdata/cifar_logits.nd");
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
  Result r =
      RunTool("classify --symbol " + m + "cifar_resnet20_v1-symbol.json --params " + m +
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
  // Real MXNet on Pillow's identical 57x32 bilinear resize: 0.9934.
  EXPECT_GT(p_dog, 0.9) << r.output;
  // --image repeated, or images as plain arguments: the same images in the same order.
  Result again =
      RunTool("classify --symbol " + m + "cifar_resnet20_v1-symbol.json --params " + m +
              "cifar_resnet20_v1-0000.params --image " + images + "cat.jpg --labels " + labels +
              " --input-size 32 --mean 0.4914,0.4822,0.4465 --std 0.2023,0.1994,0.2010 --topk 1 "
              "--image " +
              images + "dog.jpg");
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_EQ(again.output, r.output);
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

// --model takes model-zoo names whose net accepts 28x28 input (resnet18_v1: 7x7/2 conv, 3x3/2 pool,
// global pooling); vgg11's 2x2 pools shrink 28x28 below 1x1 and are refused with the reason.
TEST(Cli, TrainModelZooNet) {
  std::string out = Tmp("train_zoo");
  Result r = RunTool("train --model resnet18_v1 --epochs 1 --limit 600 --workers 0 --out " + out);
  if (r.output.find("fashion-mnist") != std::string::npos && r.code != 0) GTEST_SKIP() << r.output;
  ASSERT_EQ(r.code, 0) << r.output;
  auto params = nd::load(out + "/model-0000.params");
  ASSERT_TRUE(params.ok()) << params.status();
  const NDArray* dense = params->find("arg:output.weight");
  const NDArray* conv = params->find("arg:features.0.weight");
  ASSERT_TRUE(dense && conv) << r.output;
  EXPECT_EQ(dense->shape(), (Shape{10, 512}));     // classes = 10
  EXPECT_EQ(conv->shape(), (Shape{64, 1, 7, 7}));  // one input channel
  Result bad = RunTool("train --model vgg11 --limit 100 --out " + out);
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.output.find("--model vgg11 does not fit Fashion-MNIST's 1x28x28 images: Pooling"),
            std::string::npos)
      << bad.output;
  EXPECT_EQ(std::count(bad.output.begin(), bad.output.end(), '\n'), 1) << bad.output;
}

TEST(Cli, BadInputGivesOneClearErrorLine) {
  std::string m = SharedModels();
  if (m.empty()) GTEST_SKIP() << "../shared/data/models not found";
  std::string sym = m + "cifar_resnet20_v1-symbol.json",
              params = m + "cifar_resnet20_v1-0000.params";
  struct Case {
    std::string args, needle;
  } cases[] = {
      {"predict --params x --input x --output y", "--symbol F-symbol.json with --params"},
      {"predict --symbol /nonexistent.json --params " + params + " --input x --output y",
       "/nonexistent.json"},
      {"predict --symbol " + sym + " --params " + sym + " --input x --output y", "magic"},
      {"predict --symbol " + sym + " --params " + params + " --input " + params + " --output " +
           Tmp("o.nd"),
       "data inputs"},
      {"predict --bogus 1", "unknown flag --bogus"},
      {"classify --symbol " + sym + " --params " + params + " --image /nonexistent.jpg",
       "/nonexistent.jpg"},
      {"classify --symbol " + sym + " --params " + params + " --image " + sym, "decode"},
  };
  for (const auto& c : cases) {
    Result r = RunTool(c.args);
    EXPECT_NE(r.code, 0) << c.args;
    EXPECT_NE(r.output.find(c.needle), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;  // one line
  }
}

// Flags are Abseil flags, each subcommand with its own set and defaults: --help lists exactly
// them; a flag of another subcommand, a bad value or a stray argument is one error line, exit 1.
TEST(Cli, EachSubcommandParsesItsOwnAbseilFlags) {
  Result t = RunTool("train --help");
  EXPECT_EQ(t.code, 0) << t.output;
  for (const char* want : {"--batch-size     samples per batch (default: 128)", "--[no]hybridize",
                           "--lr-schedule", "--seed           random seed (default: 42)"})
    EXPECT_NE(t.output.find(want), std::string::npos) << want << "\n" << t.output;
  EXPECT_EQ(t.output.find("--symbol"), std::string::npos) << t.output;
  Result b = RunTool("benchmark --help");
  EXPECT_NE(b.output.find("images per forward (default: 1)"), std::string::npos) << b.output;
  EXPECT_EQ(b.output.find("--epochs"), std::string::npos) << b.output;
  Result e = RunTool("export --model resnet18_v1 -h");
  EXPECT_EQ(e.code, 0) << e.output;
  EXPECT_NE(e.output.find("seed of the random initial weights (default: 0)"), std::string::npos)
      << e.output;
  EXPECT_NE(e.output.find("--out"), std::string::npos) << e.output;

  struct Case {
    std::string args, needle;
  } cases[] = {
      {"train --epochs abc", "mxnet train: error: --epochs must be an integer, got 'abc'"},
      {"train --lr=fast", "--lr must be a number, got 'fast'"},
      {"train --hybridize=maybe", "--hybridize must be true or false, got 'maybe'"},
      {"train --nohybridize=1", "--nohybridize takes no value"},
      {"train --nomodel", "--model is not a boolean flag"},
      {"train --batch-size", "flag --batch-size needs a value"},
      {"train stray", "unexpected argument 'stray'"},
      {"train --helpme", "unknown flag --helpme (mxnet train flags: --model, --epochs,"},
      {"predict --epochs 3", "flag --epochs belongs to mxnet train, not to mxnet predict"},
      {"summary --model resnet18_v1 --hybridize", "belongs to mxnet benchmark, mxnet train"},
      {"ops --filter", "flag --filter needs a value"},
  };
  for (const auto& c : cases) {
    Result r = RunTool(c.args);
    EXPECT_EQ(r.code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.needle), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;  // one line
  }

  // Abseil's spellings work too: --flag=value, underscores, --flag=false for booleans; the
  // subcommand's own default applies to a shared flag (benchmark's --batch-size is 1).
  Result f = RunTool(
      "benchmark --model=mobilenet0.25 --batch_size=2 --input-shape=2,3,32,32 --iters 1 "
      "--warmup=0 --hybridize=false");
  ASSERT_EQ(f.code, 0) << f.output;
  EXPECT_NE(f.output.find("input (2, 3, 32, 32), imperative"), std::string::npos) << f.output;
  Result d =
      RunTool("benchmark --model mobilenet0.25 --iters 1 --warmup 0 --input-shape 1,3,32,32");
  ASSERT_EQ(d.code, 0) << d.output;
  EXPECT_NE(d.output.find("hybridized"), std::string::npos) << d.output;
  EXPECT_NE(d.output.find("(batch 1 / median)"), std::string::npos) << d.output;
  Result o = RunTool("ops --filter broadcast_ --verbose --internal=false");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("broadcast_add"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("[differentiable]"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("\nrelu"), std::string::npos) << o.output;
}

// The text after each "IMAGE:" header line of classify's output (the ranked classes).
std::string RankedClasses(const std::string& out) {
  std::string s;
  size_t pos = 0;
  while ((pos = out.find(":\n", pos)) != std::string::npos) {
    size_t end = out.find(":\n", pos + 2);
    size_t body_end = end == std::string::npos ? out.size() : out.rfind('\n', end) + 1;
    s += out.substr(pos + 2, body_end - pos - 2);
    pos = body_end;
  }
  return s;
}

TEST(Cli, ModelZooCommandsHaveHelp) {
  Result r = RunTool("--help");
  for (const char* c : {"summary", "export", "benchmark"}) {
    EXPECT_NE(r.output.find(std::string("  ") + c), std::string::npos) << r.output;
    Result h = RunTool(std::string(c) + " --help");
    EXPECT_EQ(h.code, 0) << h.output;
    EXPECT_NE(h.output.find("--model NAME"), std::string::npos) << h.output;
  }
  Result c = RunTool("classify --help");
  EXPECT_NE(c.output.find("--model NAME"), std::string::npos) << c.output;
}

// MXNet 1.9.1 (vision.get_model('resnet18_v1'); initialize; summary(nd.zeros((1, 3, 32, 32))))
// prints these totals: 11,689,512 trainable + 9,600 BatchNorm running statistics (2 x 4,800
// channels), the same for any input size; with classes=10 the Dense layer has 512 * 10 + 10.
TEST(Cli, SummaryPrintsMxnetsTotals) {
  Result r = RunTool("summary --model resnet18_v1 --input-shape 1,3,32,32");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Layer (type)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(1, 1000)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("   Total params: 11699112\n   Trainable params: 11689512\n   "
                          "Non-trainable params: 9600\n"),
            std::string::npos)
      << r.output;
  Result ten = RunTool("summary --model ResNet18_v1 --input-shape 1,3,32,32 --classes 10");
  ASSERT_EQ(ten.code, 0) << ten.output;
  EXPECT_NE(ten.output.find("   Total params: 11191242\n   Trainable params: 11181642\n   "
                            "Non-trainable params: 9600\n"),
            std::string::npos)
      << ten.output;
}

// export's files run through `predict`; re-exporting from either weight file export wrote (its
// save_parameters copy, or the arg:/aux: -0000.params) gives the same logits; another --seed gives
// other weights. (Real MXNet 1.9.1 reproduces these logits exactly from both files:
// SymbolBlock.imports of the export and get_model + load_parameters of the save_parameters copy.)
TEST(Cli, ExportRoundTripsThroughPredict) {
  const std::string common =
      "export --model resnet18_v1 --classes 10 --input-shape 1,3,32,32 --out ";
  Result a = RunTool(common + Tmp("ex_a") + " --save-params " + Tmp("ex_a.params"));
  ASSERT_EQ(a.code, 0) << a.output;
  for (const std::string& f :
       {Tmp("ex_a") + "-symbol.json", Tmp("ex_a") + "-0000.params", Tmp("ex_a.params")})
    EXPECT_NE(a.output.find(f), std::string::npos) << a.output;
  auto exported = nd::load(Tmp("ex_a") + "-0000.params");
  ASSERT_TRUE(exported.ok()) << exported.status();
  // 20 convs (no bias) + dense weight and bias + 20 BatchNorms x (gamma, beta) as arg:, 20 x 2
  // running statistics as aux:.
  int args = 0, aux = 0;
  for (const auto& n : exported->names)
    args += n.rfind("arg:", 0) == 0, aux += n.rfind("aux:", 0) == 0;
  EXPECT_EQ(args, 62);
  EXPECT_EQ(aux, 40);
  Result b = RunTool(common + Tmp("ex_b") + " --params " + Tmp("ex_a.params"));
  ASSERT_EQ(b.code, 0) << b.output;
  Result c = RunTool(common + Tmp("ex_c") + " --params " + Tmp("ex_a") + "-0000.params");
  ASSERT_EQ(c.code, 0) << c.output;
  Result d = RunTool(common + Tmp("ex_d") + " --seed 7");
  ASSERT_EQ(d.code, 0) << d.output;
  auto reseeded = nd::load(Tmp("ex_d") + "-0000.params");
  ASSERT_TRUE(reseeded.ok()) << reseeded.status();
  ASSERT_EQ(reseeded->names, exported->names);
  EXPECT_FALSE(testing::AllClose(reseeded->arrays[0], exported->arrays[0], 1e-3, 1e-3));
  std::vector<NDArray> logits;
  for (const char* n : {"ex_a", "ex_b", "ex_c"}) {
    Result p =
        RunTool("predict --symbol " + Tmp(n) + "-symbol.json --params " + Tmp(n) +
                "-0000.params --input gluon/nn/testdata/cifar_input.nd --output " + Tmp(n) + ".nd");
    ASSERT_EQ(p.code, 0) << p.output;
    auto out = nd::load(Tmp(n) + ".nd");
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 1u);
    logits.push_back(out->arrays[0]);
  }
  EXPECT_EQ(logits[0].shape(), (Shape{2, 10}));
  EXPECT_TRUE(testing::AllClose(logits[0], logits[1], 1e-5, 1e-5));
  EXPECT_TRUE(testing::AllClose(logits[0], logits[2], 1e-5, 1e-5));
}

// export --format onnx writes one .onnx that `predict --onnx` runs to the same outputs as the
// MXNet-format export of the same weights (at batch 2; exported at batch 1), and classify --onnx
// reads it; bad opsets and mixed model flags are one-line errors.
TEST(Cli, ExportOnnxRoundTripsThroughPredict) {
  const std::string common = "export --model resnet18_v1 --classes 10 --input-shape 1,3,32,32 ";
  Result a = RunTool(common + "--out " + Tmp("onnx_a"));
  ASSERT_EQ(a.code, 0) << a.output;
  Result o = RunTool(common + "--format onnx --opset 17 --out " + Tmp("onnx_a.onnx"));
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("ONNX opset 17"), std::string::npos) << o.output;
  const std::string in = " --input gluon/nn/testdata/cifar_input.nd --output ";
  Result p1 = RunTool("predict --symbol " + Tmp("onnx_a") + "-symbol.json --params " +
                      Tmp("onnx_a") + "-0000.params" + in + Tmp("onnx_sym.nd"));
  ASSERT_EQ(p1.code, 0) << p1.output;
  Result p2 = RunTool("predict --onnx " + Tmp("onnx_a.onnx") + in + Tmp("onnx_onnx.nd"));
  ASSERT_EQ(p2.code, 0) << p2.output;
  auto y1 = nd::load(Tmp("onnx_sym.nd")), y2 = nd::load(Tmp("onnx_onnx.nd"));
  ASSERT_TRUE(y1.ok() && y2.ok());
  EXPECT_EQ(y2->arrays[0].shape(), (Shape{2, 10}));
  EXPECT_TRUE(testing::AllClose(y2->arrays[0], y1->arrays[0], 1e-4, 1e-5));
  Result bad = RunTool(common + "--format onnx --opset 12 --out " + Tmp("onnx_b.onnx"));
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.output.find("--opset must be in 13..17"), std::string::npos) << bad.output;
  Result both = RunTool("predict --onnx " + Tmp("onnx_a.onnx") + " --symbol x" + in + Tmp("z.nd"));
  EXPECT_EQ(both.code, 1);
  EXPECT_NE(both.output.find("not both"), std::string::npos) << both.output;
  const std::string m = SharedModels();  // the shared photos, when present
  if (!m.empty()) {
    Result cls = RunTool("classify --onnx " + Tmp("onnx_a.onnx") +
                         " --input-size 32 --topk 2 --image " + m + "../images/cat.jpg");
    EXPECT_EQ(cls.code, 0) << cls.output;
    EXPECT_NE(cls.output.find("cat.jpg"), std::string::npos) << cls.output;
  }
}

// The same weights give the same ranking through the export (classify --symbol) and through the
// model-zoo net (classify --model with export's save_parameters copy or its -0000.params).
TEST(Cli, ClassifyModelMatchesClassifySymbolOfTheExport) {
  std::string m = SharedModels();
  if (m.empty()) GTEST_SKIP() << "../shared/data/models not found";
  std::string image = m + "../images/cat.jpg";
  Result e = RunTool("export --model resnet18_v1 --classes 10 --input-shape 1,3,32,32 --out " +
                     Tmp("cl") + " --save-params " + Tmp("cl.params"));
  ASSERT_EQ(e.code, 0) << e.output;
  const std::string flags = " --image " + image + " --input-size 32 --topk 10";
  Result sym = RunTool("classify --symbol " + Tmp("cl") + "-symbol.json --params " + Tmp("cl") +
                       "-0000.params" + flags);
  ASSERT_EQ(sym.code, 0) << sym.output;
  Result zoo =
      RunTool("classify --model resnet18_v1 --classes 10 --params " + Tmp("cl.params") + flags);
  ASSERT_EQ(zoo.code, 0) << zoo.output;
  Result zoo2 = RunTool("classify --model resnet18_v1 --classes 10 --params " + Tmp("cl") +
                        "-0000.params" + flags);
  ASSERT_EQ(zoo2.code, 0) << zoo2.output;
  std::string ranked = RankedClasses(sym.output);
  EXPECT_EQ(std::count(ranked.begin(), ranked.end(), '\n'), 10) << sym.output;
  EXPECT_EQ(ranked, RankedClasses(zoo.output)) << sym.output << zoo.output;
  EXPECT_EQ(ranked, RankedClasses(zoo2.output)) << sym.output << zoo2.output;
  // Random weights, but not a uniform output: the ranking means something.
  double top1 =
      std::stod(ranked.substr(ranked.find_first_of("0123456789", ranked.find("1. class") + 8)));
  EXPECT_GT(top1, 0.11) << sym.output;
}

TEST(Cli, BenchmarkPrintsLatencyAndThroughput) {
  for (const char* mode : {"", " --nohybridize"}) {
    Result r = RunTool(
        std::string(
            "benchmark --model mobilenet0.25 --batch-size 2 --input-shape 2,3,32,32 --iters 3 "
            "--warmup 1") +
        mode);
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find(*mode ? "imperative" : "hybridized"), std::string::npos) << r.output;
    size_t med = r.output.find("median ");
    ASSERT_NE(med, std::string::npos) << r.output;
    EXPECT_GT(std::stod(r.output.substr(med + 7)), 0.0) << r.output;
    EXPECT_NE(r.output.find(" p10 "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(" p90 "), std::string::npos) << r.output;
    size_t ips = r.output.find("throughput: ");
    ASSERT_NE(ips, std::string::npos) << r.output;
    EXPECT_GT(std::stod(r.output.substr(ips + 12)), 0.0) << r.output;
    EXPECT_NE(r.output.find("images/s"), std::string::npos) << r.output;
  }
}

TEST(Cli, ModelZooBadInputGivesOneClearErrorLine) {
  struct Case {
    std::string args, needle;
  } cases[] = {
      {"summary --model nosuchnet", "unknown --model 'nosuchnet' (model-zoo names: alexnet, "},
      {"summary", "--model, --symbol or --onnx is required"},
      {"summary --model resnet18_v1 --input-shape 1,3,32",
       "--input-shape must be four positive integers"},
      {"summary --model resnet18_v1 --classes 0", "--classes must be >= 1"},
      {"classify --symbol x-symbol.json --model resnet18_v1 --params x.params --image x.jpg",
       "exactly one of --symbol"},
      {"classify --params x.params --image x.jpg", "exactly one of --symbol"},
      {"classify --model nosuchnet --params x.params --image x.jpg", "unknown --model 'nosuchnet'"},
      {"classify --model resnet18_v1 --params /nonexistent.params --image x.jpg",
       "/nonexistent.params"},
      {"export --model resnet18_v1 --out /nonexistent/dir/x", "/nonexistent/dir"},
      {"export --model resnet18_v1", "--out is required"},
      {"export --model resnet18_v1 --out " + Tmp("bad") + " --init bogus", "bogus"},
      {"export --model resnet18_v1 --out " + Tmp("bad") + " --params /nonexistent.params",
       "/nonexistent.params"},
      {"benchmark --model resnet18_v1 --batch-size 0", "--batch-size must be >= 1"},
      {"benchmark --model resnet18_v1 --iters 0", "--iters must be >= 1"},
      {"benchmark --model resnet18_v1 --batch-size 2 --input-shape 1,3,32,32",
       "differs from --batch-size"},
  };
  for (const auto& c : cases) {
    Result r = RunTool(c.args);
    EXPECT_EQ(r.code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.needle), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;  // one line
  }
}

// The default recipe (LeNet-5-style net, Adam 0.003 with a cosine schedule, batch 128) learns
// the real Fashion-MNIST: 2 epochs on the first 12,000 training images reach ~86% on the first
// 2,000 test images (seeds 42/1/7: 0.860/0.862/0.865; chance is 0.1, and the full 5-epoch run
// reaches ~91%). A few seconds of training on 2 cores.
TEST(Cli, TrainLearnsFashionMnistSubset) {
  std::string out = Tmp("train_subset");
  Result r = RunTool("train --epochs 2 --limit 12000 --out " + out);
  if (r.output.find("fashion-mnist") != std::string::npos && r.code != 0) GTEST_SKIP() << r.output;
  ASSERT_EQ(r.code, 0) << r.output;
  size_t at = r.output.find("test accuracy ");
  ASSERT_NE(at, std::string::npos) << r.output;
  double acc = std::stod(r.output.substr(at + 14));
  EXPECT_GT(acc, 0.83) << r.output;
  EXPECT_NE(r.output.find("epoch 2/2"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mxnet
