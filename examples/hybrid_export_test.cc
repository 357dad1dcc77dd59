// Runs examples/hybrid_export and checks what it prints and the files it exports.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "examples/testing.h"
#include "gluon/symbol_block.h"
#include "ndarray/io.h"
#include "ndarray/nd.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::examples {
namespace {

// The number after "= " on the one output line starting with `prefix`.
double ValueAfter(const std::string& output, const std::string& prefix) {
  auto lines = LinesStartingWith(output, prefix);
  EXPECT_EQ(lines.size(), 1u) << "no single line '" << prefix << "' in:\n" << output;
  if (lines.size() != 1) return 1e30;
  return std::stod(lines[0].substr(lines[0].find("= ") + 2));
}

TEST(HybridExport, SameNumbersImperativeHybridizedAndExported) {
  const std::string prefix = TmpPath("model");
  ProgramRun r = RunProgram("hybrid_export", prefix);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Model(\n  (dense0): Dense(10 -> 20, linear)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("output shape: imperative (4, 20), hybridized (4, 20), imported (4, 20)"),
            std::string::npos)
      << r.output;
  EXPECT_LE(ValueAfter(r.output, "max |imperative - hybridized|"), 1e-5);
  EXPECT_LE(ValueAfter(r.output, "max |imperative - traced call|"), 1e-5);
  EXPECT_LE(ValueAfter(r.output, "max |hybridized - imported|"), 1e-5);

  // The params file holds MXNet's arg: keys with the shapes of Dense(20) on 10 features.
  auto params = nd::load(prefix + "-0000.params");
  ASSERT_TRUE(params.ok()) << params.status();
  const NDArray* w0 = params->find("arg:dense0.weight");
  const NDArray* b0 = params->find("arg:dense0.bias");
  const NDArray* w1 = params->find("arg:dense1.weight");
  const NDArray* b1 = params->find("arg:dense1.bias");
  ASSERT_TRUE(w0 && b0 && w1 && b1) << "keys: " << ::testing::PrintToString(params->names);
  EXPECT_EQ(params->size(), 4u);
  EXPECT_EQ(w0->shape(), Shape({20, 10}));
  EXPECT_EQ(w1->shape(), Shape({20, 20}));
  // Xavier init, not the zeros or defaults: the weights are not all zero.
  EXPECT_GT(nd::sum(nd::abs(*w0)).asscalar<float>(), 1.0f);

  // The model's math done by hand from the exported weights, on the program's fixed input,
  // gives the output sum the program printed and what the imported SymbolBlock computes.
  NDArray x = (nd::arange(0, 40) / 100.0 - 0.2).reshape({4, 10});
  NDArray h = nd::relu(nd::dot(x, *w0, false, true) + *b0);
  NDArray want = nd::relu(nd::dot(h, *w1, false, true) + *b1);
  const double printed = ValueAfter(r.output, "output sum");
  EXPECT_NEAR(printed, nd::sum(want).asscalar<float>(), 1e-4 * std::max(1.0, std::abs(printed)));
  EXPECT_GT(printed, 0.0);  // relu outputs of a random net: some positive
  auto block =
      gluon::SymbolBlock::imports(prefix + "-symbol.json", {"data"}, prefix + "-0000.params");
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_TRUE(testing::AllClose((**block)(x), want, 1e-5, 1e-6));

  // The symbol file is MXNet's JSON graph with the two FullyConnected layers.
  std::ifstream f(prefix + "-symbol.json");
  std::stringstream json;
  json << f.rdbuf();
  EXPECT_NE(json.str().find("\"FullyConnected\""), std::string::npos);
  EXPECT_NE(json.str().find("\"nodes\""), std::string::npos);
}

TEST(HybridExport, BadArgumentsGiveOneErrorLine) {
  ProgramRun usage = RunProgram("hybrid_export", "");
  EXPECT_EQ(usage.code, 1);
  EXPECT_EQ(usage.output.rfind("usage: hybrid_export PREFIX", 0), 0u) << usage.output;

  ProgramRun bad = RunProgram("hybrid_export", "/nonexistent-dir/sub/model");
  EXPECT_EQ(bad.code, 1);
  EXPECT_EQ(bad.output.rfind("hybrid_export: error: ", 0), 0u) << bad.output;
  EXPECT_NE(bad.output.find("/nonexistent-dir/sub/model"), std::string::npos) << bad.output;
  EXPECT_EQ(std::count(bad.output.begin(), bad.output.end(), '\n'), 1) << bad.output;
}

}  // namespace
}  // namespace mxnet::examples
