// Runs examples/classify_image: the real GluonCV CIFAR-10 ResNet-20 export on real photos, and a
// model-zoo net against its own export.
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "examples/testing.h"
#include "gluon/init.h"
#include "modelzoo/vision.h"
#include "ndarray/nd.h"

namespace mxnet::examples {
namespace {

struct Top {
  int cls;
  float prob;
};

// The "  N. class C  [label]  P" lines of the program's output, in order.
std::vector<Top> ParseTop(const std::string& output) {
  std::vector<Top> top;
  for (int rank = 1; rank <= 5; ++rank) {
    auto lines = LinesStartingWith(output, std::to_string(rank) + ". class ");
    if (lines.size() != 1) break;
    Top t{};
    std::sscanf(lines[0].c_str(), "%*d. class %d", &t.cls);
    t.prob = std::stof(lines[0].substr(lines[0].find_last_of(' ') + 1));
    top.push_back(t);
  }
  return top;
}

std::string CifarArgs(const std::string& m, const std::string& image) {
  return "--symbol " + m + "cifar_resnet20_v1-symbol.json --params " + m +
         "cifar_resnet20_v1-0000.params --image " + image +
         " --size 32 --mean 0.4914,0.4822,0.4465 --std 0.2023,0.1994,0.2010"
         " --labels examples/cifar10_labels.txt";
}

// Real MXNet 1.9.1 gives cat 0.9620 and dog 0.9934 on these photos with this preprocessing
// (README.md, "Measured").
TEST(ClassifyImage, RealCifarResnet20OnRealPhotos) {
  const std::string shared = SharedDir("data/models/cifar_resnet20_v1-symbol.json");
  if (shared.empty()) GTEST_SKIP() << "../shared/data/models not found";
  const std::string m = shared + "data/models/", img = shared + "data/images/";
  ProgramRun cat = RunProgram("classify_image", CifarArgs(m, img + "cat.jpg"));
  ASSERT_EQ(cat.code, 0) << cat.output;
  auto top = ParseTop(cat.output);
  ASSERT_EQ(top.size(), 5u) << cat.output;
  EXPECT_EQ(top[0].cls, 3) << cat.output;
  EXPECT_GT(top[0].prob, 0.9f) << cat.output;
  EXPECT_NEAR(top[0].prob, 0.9620f, 0.002f) << cat.output;
  EXPECT_NE(cat.output.find("1. class 3    cat"), std::string::npos) << cat.output;
  EXPECT_NE(cat.output.find("(input (1, 3, 32, 32))"), std::string::npos) << cat.output;

  ProgramRun dog = RunProgram("classify_image", CifarArgs(m, img + "dog.jpg"));
  ASSERT_EQ(dog.code, 0) << dog.output;
  top = ParseTop(dog.output);
  ASSERT_EQ(top.size(), 5u) << dog.output;
  EXPECT_EQ(top[0].cls, 5) << dog.output;
  EXPECT_NEAR(top[0].prob, 0.9934f, 0.002f) << dog.output;
}

// A model-zoo resnet18_v1 (10 classes, random weights) saved with save_parameters and
// classified imperatively (--model) must rank the classes as its hybridized export does
// (--symbol): two independent paths through the same weights.
TEST(ClassifyImage, ModelZooNetAgreesWithItsExport) {
  namespace zoo = gluon::model_zoo::vision;
  auto net = zoo::get_model("resnet18_v1", {.classes = 10});
  net->initialize(gluon::init::Xavier());
  const std::string params = TmpPath("r18.params"), prefix = TmpPath("r18");
  net->hybridize();
  (*net)(nd::zeros(Shape{1, 3, 64, 64}));  // traces the graph (and completes deferred shapes)
  ASSERT_TRUE(net->save_parameters(params).ok());
  ASSERT_TRUE(net->export_model(prefix).ok());

  const std::string common = " --image examples/testdata/pattern.png --size 64";
  ProgramRun zoo_run =
      RunProgram("classify_image", "--model resnet18_v1 --classes 10 --params " + params + common);
  ASSERT_EQ(zoo_run.code, 0) << zoo_run.output;
  ProgramRun sym_run =
      RunProgram("classify_image", "--symbol " + prefix + "-symbol.json --params " + prefix +
                                       "-0000.params" + common);
  ASSERT_EQ(sym_run.code, 0) << sym_run.output;
  auto a = ParseTop(zoo_run.output), b = ParseTop(sym_run.output);
  ASSERT_EQ(a.size(), 5u) << zoo_run.output;
  ASSERT_EQ(b.size(), 5u) << sym_run.output;
  std::set<int> classes;
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(a[i].prob, b[i].prob, 2e-4) << zoo_run.output << sym_run.output;
    // Same class at each rank, unless two probabilities are too close to order reliably.
    const bool separated = (i == 0 || a[i - 1].prob - a[i].prob > 1e-3) &&
                           (i == 4 || a[i].prob - a[i + 1].prob > 1e-3);
    if (separated) {
      EXPECT_EQ(a[i].cls, b[i].cls) << zoo_run.output << sym_run.output;
    }
    if (i > 0) {
      EXPECT_LE(a[i].prob, a[i - 1].prob);
    }
    classes.insert(a[i].cls);
  }
  EXPECT_EQ(classes.size(), 5u);  // five different classes
}

TEST(ClassifyImage, ErrorsAreOneLine) {
  ProgramRun usage = RunProgram("classify_image", "--image x.png");
  EXPECT_EQ(usage.code, 1);
  EXPECT_EQ(usage.output.rfind("usage: classify_image", 0), 0u) << usage.output;

  ProgramRun unknown =
      RunProgram("classify_image", "--model resnet18_v1 --params p --image i --sise 32");
  EXPECT_EQ(unknown.code, 1);
  EXPECT_EQ(unknown.output.rfind("usage: classify_image", 0), 0u) << unknown.output;

  ProgramRun bad_model = RunProgram(
      "classify_image", "--model resnet7 --params p --image examples/testdata/pattern.png");
  EXPECT_EQ(bad_model.code, 1);
  EXPECT_EQ(bad_model.output.rfind("classify_image: error: ", 0), 0u) << bad_model.output;
  EXPECT_NE(bad_model.output.find("resnet7"), std::string::npos) << bad_model.output;
  EXPECT_EQ(std::count(bad_model.output.begin(), bad_model.output.end(), '\n'), 1)
      << bad_model.output;

  ProgramRun bad_mean =
      RunProgram("classify_image", "--model resnet18_v1 --params p --image i --mean 0.5,x");
  EXPECT_EQ(bad_mean.code, 1);
  EXPECT_EQ(bad_mean.output,
            "classify_image: error: --mean expects numbers like 0.5,0.5,0.5, got '0.5,x'\n");

  ProgramRun no_file = RunProgram(
      "classify_image", "--model resnet18_v1 --classes 10 --params /no/such.params --image i");
  EXPECT_EQ(no_file.code, 1);
  EXPECT_NE(no_file.output.find("/no/such.params"), std::string::npos) << no_file.output;
}

}  // namespace
}  // namespace mxnet::examples
