// Runs examples/hybrid_export, then examples/import_finetune on its export, and checks that the
// loss went down and that the saved parameters are the fine-tuned ones.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "examples/testing.h"
#include "gluon/loss/loss.h"
#include "gluon/symbol_block.h"
#include "ndarray/io.h"
#include "ndarray/nd.h"
#include "ndarray/random.h"

namespace mxnet::examples {
namespace {

// The mean L2 loss of `block` on the program's synthetic task (same seed, same draws).
float TaskLoss(gluon::Block& block) {
  random::seed(7);
  NDArray x = nd::random::normal(0, 1, Shape{256, 10});
  NDArray teacher = nd::random::normal(0, 0.5, Shape{10, 20});
  NDArray y = nd::relu(nd::dot(x, teacher));
  gluon::loss::L2Loss l2;
  return nd::mean(l2(block(x), y)).asscalar<float>();
}

TEST(ImportFinetune, LossDropsAndSavedParametersAreTheTrainedOnes) {
  const std::string prefix = TmpPath("model");
  ProgramRun exported = RunProgram("hybrid_export", prefix);
  ASSERT_EQ(exported.code, 0) << exported.output;

  ProgramRun r = RunProgram("import_finetune", prefix + " --steps 100");
  ASSERT_EQ(r.code, 0) << r.output;
  // "step   0  loss ..." every 10 steps, then the summary line.
  EXPECT_EQ(LinesStartingWith(r.output, "step ").size(), 11u) << r.output;
  auto summary = LinesStartingWith(r.output, "loss: ");
  ASSERT_EQ(summary.size(), 1u) << r.output;
  float before = 0, after = 0;
  ASSERT_EQ(std::sscanf(summary[0].c_str(), "loss: %f -> %f", &before, &after), 2) << summary[0];
  EXPECT_GT(before, 0.1f);
  EXPECT_LT(after, before / 4) << r.output;  // a clear drop, not noise

  // The saved file loads into the imported graph and reproduces the final loss; the exported
  // (untrained) weights reproduce the first one.
  const std::string saved = prefix + "-finetuned.params";
  EXPECT_NE(r.output.find("saved " + saved), std::string::npos) << r.output;
  auto original =
      gluon::SymbolBlock::imports(prefix + "-symbol.json", {"data"}, prefix + "-0000.params");
  ASSERT_TRUE(original.ok()) << original.status();
  EXPECT_NEAR(TaskLoss(**original), before, 1e-4 * before);
  auto tuned = gluon::SymbolBlock::imports(prefix + "-symbol.json", {"data"});
  ASSERT_TRUE(tuned.ok()) << tuned.status();
  absl::Status st = (*tuned)->load_parameters(saved);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_NEAR(TaskLoss(**tuned), after, 1e-4 * before);
}

TEST(ImportFinetune, ExplicitPathsAndErrors) {
  const std::string prefix = TmpPath("model2");
  ASSERT_EQ(RunProgram("hybrid_export", prefix).code, 0);
  const std::string out = TmpPath("tuned.params");
  ProgramRun r = RunProgram(
      "import_finetune", prefix + "-symbol.json " + prefix + "-0000.params --steps 3 --out " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(nd::load(out).ok());

  ProgramRun missing = RunProgram("import_finetune", TmpPath("no-such-model"));
  EXPECT_EQ(missing.code, 1);
  EXPECT_EQ(missing.output.rfind("import_finetune: error: ", 0), 0u) << missing.output;
  EXPECT_NE(missing.output.find("no-such-model-symbol.json"), std::string::npos) << missing.output;

  ProgramRun bad_steps = RunProgram("import_finetune", prefix + " --steps zero");
  EXPECT_EQ(bad_steps.code, 1);
  EXPECT_EQ(bad_steps.output, "import_finetune: --steps needs a positive integer, got 'zero'\n");

  ProgramRun wrong_features =
      RunProgram("import_finetune", prefix + " --features 7");  // net wants 10
  EXPECT_EQ(wrong_features.code, 1);
  EXPECT_EQ(wrong_features.output.rfind("import_finetune: error: ", 0), 0u)
      << wrong_features.output;

  EXPECT_EQ(RunProgram("import_finetune", "").code, 1);
}

}  // namespace
}  // namespace mxnet::examples
