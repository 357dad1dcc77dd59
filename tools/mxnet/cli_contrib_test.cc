// `mxnet train --logdir` (TensorBoard event files) and `mxnet summary --plot` (network pictures),
// run as a user would (subprocess), like cli_test.cc.
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gluon/contrib/record_io.h"
#include "gluon/contrib/tensorboard.pb.h"
#include "tools/mxnet/cli_testing.h"

namespace mxnet {
namespace {

using cli::testing::Result;
using cli::testing::RunTool;
using cli::testing::Tmp;

// --logdir: TensorBoard events per epoch, parsed back with our protos (the conformance report
// reads the same files with TensorBoard's own EventAccumulator). The scalars equal what the run
// prints; the histograms cover LeNet's 416 + 12,832 + 102,528 + 1,290 = 117,066 parameters
// (conv 16x1x5x5 + 16, conv 32x16x5x5 + 32, dense 128x800 + 128, dense 10x128 + 10).
TEST(Cli, TrainLogdirWritesTensorBoardEvents) {
  const std::string out = Tmp("train_tb"), logdir = Tmp("train_tb_logs");
  std::filesystem::remove_all(logdir);
  Result r = RunTool("train --epochs 2 --limit 600 --batch-size 64 --workers 0 --out " + out +
                     " --logdir " + logdir);
  if (r.output.find("fashion-mnist") != std::string::npos && r.code != 0) GTEST_SKIP() << r.output;
  ASSERT_EQ(r.code, 0) << r.output;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(logdir))
    files.push_back(e.path().filename().string());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].rfind("events.out.tfevents.", 0), 0u) << files[0];
  EXPECT_NE(r.output.find("TensorBoard events: " + logdir + "/" + files[0]), std::string::npos)
      << r.output;
  auto recs = gluon::contrib::ReadRecords(logdir + "/" + files[0]);
  ASSERT_TRUE(recs.ok()) << recs.status();
  std::map<std::pair<std::string, int64_t>, double> scalars;
  std::map<int64_t, double> hist_num;
  std::map<int64_t, int> hist_count;
  int graphs = 0;
  tensorboard::GraphDef graph;
  for (const auto& rec : *recs) {
    tensorboard::Event e;
    ASSERT_TRUE(e.ParseFromString(rec));
    if (e.what_case() == tensorboard::Event::kGraphDef) {
      ++graphs;
      ASSERT_TRUE(graph.ParseFromString(e.graph_def()));
    }
    for (const auto& v : e.summary().value()) {
      if (v.has_histo()) {
        hist_num[e.step()] += v.histo().num();
        ++hist_count[e.step()];
      } else {
        scalars[{v.tag(), e.step()}] = v.simple_value();
      }
    }
  }
  EXPECT_EQ(graphs, 1);
  int convs = 0, fcs = 0;
  for (const auto& n : graph.node())
    convs += n.op() == "Convolution", fcs += n.op() == "FullyConnected";
  EXPECT_EQ(convs, 2);
  EXPECT_EQ(fcs, 2);
  for (int64_t epoch : {1, 2}) {
    SCOPED_TRACE(epoch);
    EXPECT_EQ(hist_count[epoch], 8);
    EXPECT_EQ(hist_num[epoch], 117066);
    // "epoch 1/2: ... train loss 1.2345, train acc 0.5678, test acc 0.6543"
    const std::string key = "epoch " + std::to_string(epoch) + "/2: ";
    const size_t at = r.output.find(key);
    ASSERT_NE(at, std::string::npos) << r.output;
    const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
    auto num_after = [&](const std::string& word) {
      return std::stod(line.substr(line.find(word) + word.size()));
    };
    EXPECT_NEAR(scalars.at({"train/loss", epoch}), num_after("train loss "), 6e-5) << line;
    EXPECT_NEAR(scalars.at({"train/accuracy", epoch}), num_after("train acc "), 6e-5) << line;
    EXPECT_NEAR(scalars.at({"test/accuracy", epoch}), num_after("test acc "), 6e-5) << line;
  }
  // The cosine schedule from 0.003 down to 0 over the run: halfway after epoch 1, 0 at the end.
  EXPECT_NEAR(scalars.at({"learning_rate", 1}), 0.0015, 2e-4);
  EXPECT_NEAR(scalars.at({"learning_rate", 2}), 0.0, 1e-6);
  Result bad = RunTool("train --limit 100 --epochs 1 --out " + out + " --logdir /proc/nope");
  EXPECT_EQ(bad.code, 1) << bad.output;
  EXPECT_NE(bad.output.find("cannot create logdir /proc/nope"), std::string::npos) << bad.output;
}

// --plot: resnet18_v1 on 32x32 input drawn like mx.viz.plot_network. Hand-checked nodes: the
// stem convolution 7x7 stride 2 with 64 filters has 64*3*7*7 = 9,408 weights (no bias) and
// outputs 64x16x16; the 20 convolutions (1 stem + 16 in the blocks + 3 downsample); the classifier
// FullyConnected 1000 with 512*1000 + 1000 = 513,000 parameters. Graphviz renders it to SVG.
TEST(Cli, SummaryPlotDrawsTheNetwork) {
  const std::string dot = Tmp("r18.dot"), svg = Tmp("r18.svg");
  Result r = RunTool("summary --model resnet18_v1 --input-shape 1,3,32,32 --plot " + dot);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Total params: 11699112"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("wrote " + dot), std::string::npos) << r.output;
  std::ifstream f(dot);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  EXPECT_EQ(text.rfind("digraph \"resnet18_v1\" {", 0), 0u) << text.substr(0, 200);
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("[label=\"Convolution\\n7x7/2x2, 64\\n9,408 params\" fillcolor=\"#fb8072\""), 1u)
      << text.substr(0, 2000);
  EXPECT_EQ(count("[label=\"Convolution\\n"), 20u);
  EXPECT_EQ(count("[label=\"FullyConnected\\n1000\\n513,000 params\""), 1u);
  EXPECT_EQ(count("[label=\"data\" fillcolor=\"#8dd3c7\""), 1u);
  EXPECT_GE(count("[label=\"64x16x16\" arrowtail=open dir=back]"), 1u);
  EXPECT_EQ(count("weight\""), 0u);  // weights hidden
  Result s = RunTool("summary --model resnet18_v1 --input-shape 1,3,32,32 --plot " + svg);
  ASSERT_EQ(s.code, 0) << s.output;
  std::ifstream g(svg);
  std::stringstream gs;
  gs << g.rdbuf();
  EXPECT_NE(gs.str().find("<svg"), std::string::npos);
  EXPECT_NE(gs.str().find(">7x7/2x2, 64</text>"), std::string::npos);
}

std::string ReadText(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// summary --symbol: MXNet's print_summary of the real GluonCV CIFAR ResNet-20 export, byte for
// byte what MXNet 1.9.1 printed (gluon/contrib/testdata/print_summary, gen_print_summary_refs.py);
// --plot draws it. The same graph exported to ONNX (`mxnet export` cannot, so the real file goes
// through predict's path: an ONNX file of a model-zoo net) is summarised with --onnx.
TEST(Cli, SummaryOfSymbolFileEqualsMxnetPrintSummary) {
  const char* shared = std::getenv("MXNET_SHARED_DIR");
  if (!shared) GTEST_SKIP() << "MXNET_SHARED_DIR unset";
  const std::string sym = std::string(shared) + "/data/models/cifar_resnet20_v1-symbol.json";
  const std::string dot = Tmp("r20.dot");
  Result r = RunTool("summary --symbol " + sym + " --input-shape 1,3,32,32 --plot " + dot);
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string want = ReadText("gluon/contrib/testdata/print_summary/cifar_resnet20_v1.txt");
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(r.output.substr(0, want.size()), want) << r.output;
  EXPECT_NE(r.output.find("wrote " + dot), std::string::npos) << r.output;
  const std::string text = ReadText(dot);
  EXPECT_EQ(text.rfind("digraph \"cifar_resnet20_v1-symbol\" {", 0), 0u) << text.substr(0, 200);
  EXPECT_NE(text.find("[label=\"16x32x32\""), std::string::npos);
}

TEST(Cli, SummaryOfOnnxFile) {
  const std::string onnx = Tmp("m.onnx");
  Result e = RunTool(
      "export --format onnx --model mobilenetv2_0.25 --classes 10 --input-shape "
      "1,3,32,32 --out " +
      onnx);
  ASSERT_EQ(e.code, 0) << e.output;
  Result r = RunTool("summary --onnx " + onnx + " --input-shape 1,3,32,32");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Layer (type)"), std::string::npos) << r.output;
  // The first convolution: 3 -> 8 channels (width 0.25 of 32), 3x3, no bias: 216 weights.
  EXPECT_NE(r.output.find("(Convolution)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Total params: "), std::string::npos) << r.output;
  Result bad = RunTool("summary --onnx " + onnx + " --model resnet18_v1");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.output.find("give one of --model, --symbol or --onnx"), std::string::npos)
      << bad.output;
  Result missing = RunTool("summary --symbol /nonexistent-symbol.json");
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.output.find("/nonexistent-symbol.json"), std::string::npos) << missing.output;
}

TEST(Cli, PlotBadPathGivesOneClearErrorLine) {
  struct Case {
    std::string args, needle;
  } cases[] = {
      {"summary --model resnet18_v1 --plot net.jpg",
       "mxnet summary: error: cannot write net.jpg: unknown picture format '.jpg' (use .svg, .png, "
       ".pdf, .dot or .gv)"},
      {"summary --model resnet18_v1 --plot /nonexistent/net.svg",
       "cannot write /nonexistent/net.svg: directory /nonexistent does not exist"},
      {"summary --model resnet18_v1 --plot noext", "unknown picture format ''"},
  };
  for (const auto& c : cases) {
    Result r = RunTool(c.args);
    EXPECT_EQ(r.code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.needle), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;  // one line
  }
}

}  // namespace
}  // namespace mxnet
