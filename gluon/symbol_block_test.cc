// SymbolBlock on Module-era exports (MXNet 1.x Module API checkpoints ending in loss heads whose
// labels are not in the .params): inference with the data input alone gives real MXNet 1.9.1's
// predictions (testdata/module/, tools/conformance/gen_module_exports.py); training asks for the
// label; with the label named as an input the head's gradient is softmax - one_hot(label).
#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "gluon/symbol_block.h"
#include "ndarray/io.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon {
namespace {

const std::string kDir = "gluon/testdata/module/";

struct Case {
  std::string net, label;
};

class ModuleExport : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    auto io = nd::load(kDir + GetParam().net + "-io.nd");
    ASSERT_TRUE(io.ok()) << io.status();
    data = *io->find("data");
    want = *io->find("output");
  }
  absl::StatusOr<std::shared_ptr<SymbolBlock>> Import(const std::vector<std::string>& inputs) {
    const std::string p = kDir + GetParam().net;
    return SymbolBlock::imports(p + "-symbol.json", inputs, p + "-0000.params");
  }
  NDArray data, want;
};

TEST_P(ModuleExport, DataAloneGivesMxnetsPrediction) {
  auto block = Import({"data"});
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_EQ((*block)->implicit_labels(), std::vector<std::string>{GetParam().label});
  EXPECT_EQ(SymbolBlock::label_inputs((*block)->graph()),
            std::vector<std::string>{GetParam().label});
  EXPECT_EQ((*block)->collect_params().get(GetParam().label), nullptr);
  EXPECT_TRUE(testing::AllClose((**block)(data), want, 1e-5, 1e-6)) << "imperative";
  (*block)->hybridize(true, {.backend = "default"});
  EXPECT_TRUE(testing::AllClose((**block)(data), want, 1e-5, 1e-6)) << "hybridized";
  // Recording in predict mode is inference too.
  auto rec = autograd::record(/*train_mode=*/false);
  EXPECT_TRUE(testing::AllClose((**block)(data), want, 1e-5, 1e-6)) << "recording, predict mode";
}

TEST_P(ModuleExport, TrainingAsksForTheLabel) {
  auto block = Import({"data"});
  ASSERT_TRUE(block.ok()) << block.status();
  auto rec = autograd::record();
  try {
    (**block)(data);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kFailedPrecondition);
    std::string m = e.what();
    EXPECT_NE(m.find("needs its label '" + GetParam().label + "' for training"), std::string::npos)
        << m;
    EXPECT_NE(m.find("input_names: data, " + GetParam().label), std::string::npos) << m;
  }
}

INSTANTIATE_TEST_SUITE_P(Mxnet191, ModuleExport,
                         ::testing::Values(Case{"mlp_softmax", "softmax_label"},
                                           Case{"conv_softmax", "softmax_label"},
                                           Case{"linreg", "lro_label"}, Case{"logreg", "lgo_label"},
                                           Case{"maereg", "mae_label"}, Case{"svm", "svm_label"},
                                           Case{"lenet_gray", "softmax_label"}),
                         [](const auto& info) { return info.param.net; });

// With the label as an input the export trains: the loss head's gradient at fc2's output is
// softmax(z) - one_hot(label) (SoftmaxOutput, normalization null), so fc2_bias's gradient is its
// sum over the batch; the forward still equals MXNet's prediction.
TEST(ModuleExportTraining, LabelAsInputGivesTheSoftmaxGradient) {
  auto block = SymbolBlock::imports(kDir + "mlp_softmax-symbol.json", {"data", "softmax_label"},
                                    kDir + "mlp_softmax-0000.params");
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_TRUE((*block)->implicit_labels().empty());
  auto io = nd::load(kDir + "mlp_softmax-io.nd");
  ASSERT_TRUE(io.ok());
  NDArray x = *io->find("data"), p = *io->find("output");  // (4, 20), (4, 5)
  std::vector<float> labels = {0, 3, 1, 4};
  NDArray y;
  {
    auto rec = autograd::record();
    y = (**block)({x, NDArray::FromVector(labels, Shape{4})})[0];
  }
  autograd::backward({y});
  EXPECT_TRUE(testing::AllClose(y, p, 1e-5, 1e-6));
  std::vector<float> prob = p.ToVector<float>(), want(5, 0.f);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 5; ++c) want[c] += prob[r * 5 + c] - (c == labels[r] ? 1.f : 0.f);
  NDArray g = (*block)->collect_params().get("fc2_bias")->grad();
  EXPECT_TRUE(testing::AllClose(g, NDArray::FromVector(want, Shape{5}), 1e-5, 1e-6));
}

// A variable used as a label and as data elsewhere is no label; neither is a label given as a
// parameter.
TEST(ModuleExportLabels, OnlyPureLabelUsesCount) {
  sym::Symbol x = sym::Symbol::Variable("data"), l = sym::Symbol::Variable("lab");
  sym::Symbol head = sym::Symbol::Create("LinearRegressionOutput", {x, l}, {}, "lro");
  EXPECT_EQ(SymbolBlock::label_inputs(head), std::vector<std::string>{"lab"});
  sym::Symbol both = sym::Symbol::Create(
      "elemwise_add", {head, sym::Symbol::Create("identity", {l}, {}, "i")}, {}, "sum");
  EXPECT_TRUE(SymbolBlock::label_inputs(both).empty());
  SymbolBlock b(both, std::vector<std::string>{"data"});
  EXPECT_TRUE(b.implicit_labels().empty());
  EXPECT_NE(b.collect_params().get("lab"), nullptr);  // an ordinary (missing) parameter
}

// imports adopts the file's dtypes (MXNet 1.9's cast_dtype=True, dtype_source='saved').
TEST(ModuleExportLabels, ImportsAdoptsSavedDtypes) {
  auto file = nd::load(kDir + "logreg-0000.params");
  ASSERT_TRUE(file.ok());
  std::vector<std::pair<std::string, NDArray>> f64;
  for (const auto& [k, v] : file->items()) f64.push_back({k, v.astype(DType::kFloat64)});
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string path = std::string(tmp ? tmp : "/tmp") + "/logreg_f64.params";
  ASSERT_TRUE(nd::save(path, f64).ok());
  auto block = SymbolBlock::imports(kDir + "logreg-symbol.json", {"data"}, path);
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_EQ((*block)->collect_params().get("fc1_weight")->dtype(), DType::kFloat64);
  auto io = nd::load(kDir + "logreg-io.nd");
  ASSERT_TRUE(io.ok());
  NDArray y = (**block)(io->find("data")->astype(DType::kFloat64));
  EXPECT_EQ(y.dtype(), DType::kFloat64);
  EXPECT_TRUE(testing::AllClose(y, *io->find("output"), 1e-5, 1e-6));
}

// infer_type on a SymbolBlock gives its parameters the dtypes the graph infers from the data's:
// float64 data makes the float32 export float64 (values kept), and the forward runs in float64.
TEST(ModuleExportLabels, InferTypeSetsParameterDtypes) {
  auto block =
      SymbolBlock::imports(kDir + "logreg-symbol.json", {"data"}, kDir + "logreg-0000.params");
  ASSERT_TRUE(block.ok()) << block.status();
  auto io = nd::load(kDir + "logreg-io.nd");
  ASSERT_TRUE(io.ok());
  NDArray x = io->find("data")->astype(DType::kFloat64);
  (*block)->infer_type({x});
  EXPECT_EQ((*block)->collect_params().get("fc1_weight")->dtype(), DType::kFloat64);
  EXPECT_EQ((*block)->collect_params().get("fc1_bias")->dtype(), DType::kFloat64);
  NDArray y = (**block)(x);
  EXPECT_EQ(y.dtype(), DType::kFloat64);
  EXPECT_TRUE(testing::AllClose(y, *io->find("output"), 1e-5, 1e-6));
}

}  // namespace
}  // namespace mxnet::gluon
