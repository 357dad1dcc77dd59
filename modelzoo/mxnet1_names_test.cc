// MXNet 1.x parameter names (Block::mxnet1_param_names, ParamNames::kMxnet1 /
// kMxnet1Stripped, and their detection in load_parameters) against real MXNet 1.9.1:
// testdata/mxnet1_names.json (every parameter's 1.x name for 12 model-zoo nets) and
// testdata/mxnet1/ (MXNet's export and save_params files of small nets), both from
// tools/conformance/gen_mxnet1_names.py.
#include <set>

#include "gluon/nn/basic_layers.h"
#include "gluon/nn/conv_layers.h"
#include "gluon/symbol_block.h"
#include "modelzoo/testing/test_util.h"
#include "ndarray/io.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

using testing::BuildLoadCase;
using testing::CloseTo;
using testing::DeterministicValues;
using testing::ReadJson;
using testing::ShapeFromJson;

const nlohmann::json& Names() {
  static const nlohmann::json j = ReadJson("modelzoo/testdata/mxnet1_names.json");
  return j;
}

TEST(Mxnet1Names, EveryParameterOfTwelveNetsAsMxnetNamesIt) {
  ASSERT_EQ(Names().size(), 12u);
  for (auto it = Names().begin(); it != Names().end(); ++it) {
    auto net = get_model(it.key());
    auto ours = net->mxnet1_param_names();
    const auto& theirs = it.value()["names"];
    ASSERT_EQ(ours.size(), theirs.size()) << it.key();
    int wrong = 0;
    for (size_t i = 0; i < ours.size(); ++i) {
      EXPECT_EQ(ours[i].first, theirs[i][0].get<std::string>()) << it.key();
      if (ours[i].second != theirs[i][1].get<std::string>() && ++wrong <= 3)
        ADD_FAILURE() << it.key() << ": " << ours[i].first << " is " << ours[i].second
                      << ", MXNet: " << theirs[i][1].get<std::string>();
    }
    EXPECT_EQ(wrong, 0) << it.key();
  }
}

class Mxnet1Files : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ref = ReadJson("modelzoo/testdata/load/cases.json")[GetParam()];
    mx1 = ReadJson("modelzoo/testdata/mxnet1/cases.json")[GetParam()];
    x = DeterministicValues("input", ShapeFromJson(ref["input_shape"]));
    want = testing::ArrayFromJson(ref["output_hybridized"], ShapeFromJson(ref["output_shape"]));
  }
  std::string Dir() const { return "modelzoo/testdata/mxnet1/" + GetParam(); }
  std::shared_ptr<HybridBlock> Loaded() {
    auto net = BuildLoadCase(GetParam());
    absl::Status st = net->load_parameters("modelzoo/testdata/load/" + GetParam() + ".params");
    EXPECT_TRUE(st.ok()) << st;
    return net;
  }
  static std::set<std::string> Keys(const std::string& file) {
    auto f = nd::load(file);
    EXPECT_TRUE(f.ok()) << f.status();
    std::set<std::string> keys;
    if (f.ok())
      for (const auto& [k, _] : f->items()) keys.insert(k);
    return keys;
  }
  // MXNet's 1.x name with its net prefix replaced by ours ("resnetv11_" -> "resnetv10_").
  std::string Ours(const std::string& name) const {
    std::string prefix = mx1["prefix"];
    std::string root = prefix.substr(0, prefix.size() - 2) + "0_";
    return name.rfind(prefix, 0) == 0 ? root + name.substr(prefix.size()) : name;
  }
  nlohmann::json ref, mx1;
  NDArray x, want;
};

// MXNet's export file (1.x names, any net prefix) and save_params file (prefix stripped) load
// into our net by name and give MXNet's outputs.
TEST_P(Mxnet1Files, MxnetsExportAndSaveParamsFilesLoad) {
  for (const char* file : {"-export.params", "-save_params.params"}) {
    auto net = BuildLoadCase(GetParam());
    absl::Status st = net->load_parameters(Dir() + file);
    ASSERT_TRUE(st.ok()) << file << ": " << st;
    net->hybridize();
    EXPECT_TRUE(CloseTo((*net)(x), want)) << file;
  }
  auto net = BuildLoadCase(GetParam());
  ASSERT_TRUE(net->load_params(Dir() + "-save_params.params").ok());
}

// export_model(kMxnet1) writes MXNet's variable names and arg:/aux: keys; the export imports
// and gives MXNet's outputs.
TEST_P(Mxnet1Files, ExportWritesMxnetsNames) {
  auto net = Loaded();
  net->hybridize();
  (*net)(x);
  std::string prefix = testing::MakeTempDir("mx1_export_" + GetParam()) + "/net";
  absl::Status st = net->export_model(prefix, 0, {.names = ParamNames::kMxnet1});
  ASSERT_TRUE(st.ok()) << st;
  std::set<std::string> theirs;
  for (const auto& k : Keys(Dir() + "-export.params"))
    theirs.insert(k.substr(0, 4) + Ours(k.substr(4)));
  EXPECT_EQ(Keys(prefix + "-0000.params"), theirs);
  auto graph = sym::Symbol::load(prefix + "-symbol.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<std::string> args, aux;
  for (const auto& a : mx1["arguments"]) args.push_back(Ours(a));
  for (const auto& a : mx1["aux_states"]) aux.push_back(Ours(a));
  EXPECT_EQ(graph->list_arguments(), args);
  EXPECT_EQ(graph->list_auxiliary_states(), aux);
  auto block = SymbolBlock::imports(prefix + "-symbol.json", {"data"}, prefix + "-0000.params");
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_TRUE(CloseTo((**block)(x), want));
}

// save_parameters in both 1.x namings (and save_params) reads back into a fresh net; the
// stripped keys equal MXNet's save_params keys.
TEST_P(Mxnet1Files, SaveParametersInMxnet1NamesRoundTrips) {
  auto net = Loaded();
  std::string dir = testing::MakeTempDir("mx1_save_" + GetParam());
  ASSERT_TRUE(net->save_parameters(dir + "/full.params", {.names = ParamNames::kMxnet1}).ok());
  ASSERT_TRUE(
      net->save_parameters(dir + "/stripped.params", {.names = ParamNames::kMxnet1Stripped}).ok());
  ASSERT_TRUE(net->save_params(dir + "/old.params").ok());
  EXPECT_EQ(Keys(dir + "/stripped.params"), Keys(Dir() + "-save_params.params"));
  EXPECT_EQ(Keys(dir + "/old.params"), Keys(dir + "/stripped.params"));
  std::set<std::string> full;
  for (const auto& k : Keys(Dir() + "-export.params")) full.insert(Ours(k.substr(4)));
  EXPECT_EQ(Keys(dir + "/full.params"), full);
  for (const char* f : {"/full.params", "/stripped.params", "/old.params"}) {
    auto fresh = BuildLoadCase(GetParam());
    absl::Status st = fresh->load_parameters(dir + f);
    ASSERT_TRUE(st.ok()) << f << ": " << st;
    fresh->hybridize();
    EXPECT_TRUE(CloseTo((*fresh)(x), want)) << f;
  }
}

INSTANTIATE_TEST_SUITE_P(Mxnet191, Mxnet1Files,
                         ::testing::Values("resnet_v1b_tiny", "resnet_v2b_tiny", "densenet_tiny"));

TEST(Mxnet1Names, ErrorsNameWhatIsWrong) {
  auto net = BuildLoadCase("densenet_tiny");
  ASSERT_TRUE(net->load_parameters("modelzoo/testdata/load/densenet_tiny.params").ok());
  net->hybridize();
  (*net)(DeterministicValues("input", Shape{1, 3, 56, 56}));
  std::string dir = testing::MakeTempDir("mx1_errors");
  absl::Status st = net->export_model(dir + "/n", 0, {.names = ParamNames::kMxnet1Stripped});
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("kMxnet1Stripped"), std::string::npos) << st;
  // A 1.x file of another net: the key that fits nothing is named.
  auto other = BuildLoadCase("resnet_v2b_tiny");
  st = other->load_parameters("modelzoo/testdata/mxnet1/densenet_tiny-save_params.params");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("Parameter 'batchnorm2_beta' loaded from"), std::string::npos) << st;
  // ... and with a 1.x file that lacks one of ours, the missing parameter (structured name).
  st = BuildLoadCase("densenet_tiny")
           ->load_parameters("modelzoo/testdata/mxnet1/resnet_v2b_tiny-save_params.params");
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_NE(st.message().find("Parameter 'features."), std::string::npos) << st;
  EXPECT_NE(st.message().find("is missing in"), std::string::npos) << st;
}

// A user's block: every block named "<hint><count>_" in its parent's scope, as a 1.x block
// built under `with self.name_scope()` (names printed by MXNet 1.9.1 for the same Python class).
class Model : public HybridBlock {
 public:
  Model() {
    dense0 = register_child(std::make_shared<nn::Dense>(20), "dense0");
    bn = register_child(std::make_shared<nn::BatchNorm>(), "bn");
    body = register_child(std::make_shared<nn::HybridSequential>(), "body");
    body->add(std::make_shared<nn::Conv2D>(3, Shape{3, 3}));
    body->add(std::make_shared<nn::Dense>(4));
    body->add(std::make_shared<nn::Conv2D>(2, Shape{1, 1}));
    dense1 = register_child(std::make_shared<nn::Dense>(20), "dense1");
  }
  NDArray forward(const NDArray& x) override { return x; }
  std::shared_ptr<nn::Dense> dense0, dense1;
  std::shared_ptr<nn::BatchNorm> bn;
  std::shared_ptr<nn::HybridSequential> body;
};

TEST(Mxnet1Names, UserBlocksNameLikeNameScopedMxnet1Blocks) {
  Model m;
  std::vector<std::pair<std::string, std::string>> want = {
      {"dense0.weight", "model0_dense0_weight"},
      {"dense0.bias", "model0_dense0_bias"},
      {"bn.gamma", "model0_batchnorm0_gamma"},
      {"bn.beta", "model0_batchnorm0_beta"},
      {"bn.running_mean", "model0_batchnorm0_running_mean"},
      {"bn.running_var", "model0_batchnorm0_running_var"},
      {"body.0.weight", "model0_hybridsequential0_conv0_weight"},
      {"body.0.bias", "model0_hybridsequential0_conv0_bias"},
      {"body.1.weight", "model0_hybridsequential0_dense0_weight"},
      {"body.1.bias", "model0_hybridsequential0_dense0_bias"},
      {"body.2.weight", "model0_hybridsequential0_conv1_weight"},
      {"body.2.bias", "model0_hybridsequential0_conv1_bias"},
      {"dense1.weight", "model0_dense1_weight"},
      {"dense1.bias", "model0_dense1_bias"}};
  EXPECT_EQ(m.mxnet1_param_names(), want);
}

// MXNet 1.x ParameterDict.save(strip_prefix) / load(restore_prefix), update.
TEST(ParameterDictFiles, SaveStripPrefixLoadRestorePrefix) {
  auto net = BuildLoadCase("resnet_v2b_tiny");
  ASSERT_TRUE(net->load_parameters("modelzoo/testdata/load/resnet_v2b_tiny.params").ok());
  ParameterDict features = net->collect_params("features\\..*");
  ASSERT_FALSE(features.empty());
  std::string dir = testing::MakeTempDir("pd_files");
  ASSERT_TRUE(features.save(dir + "/f.params", "features.").ok());
  auto file = nd::load(dir + "/f.params");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->names[0], features.keys()[0].substr(9));
  absl::Status st = net->collect_params().save(dir + "/x.params", "features.");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("does not start with it"), std::string::npos) << st;
  // Into a fresh net's features: restore_prefix puts the prefix back.
  auto fresh = BuildLoadCase("resnet_v2b_tiny");
  ParameterDict target = fresh->collect_params("features\\..*");
  st = target.load(dir + "/f.params", {cpu()}, false, false, "features.");
  ASSERT_TRUE(st.ok()) << st;
  for (const auto& [name, p] : target)
    EXPECT_TRUE(CloseTo(p->data(), features.get(name)->data(), 1e-12)) << name;
  // Without restore_prefix nothing matches: the first parameter is missing.
  st = fresh->collect_params("features\\..*").load(dir + "/f.params");
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  st = target.load(dir + "/f.params", {cpu()}, false, false, "output.");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
  // update: adds the other dict's items; a different parameter under a taken name is an error.
  ParameterDict all = net->collect_params("output.*");
  size_t n = all.size();
  all.update(features);
  EXPECT_EQ(all.size(), n + features.size());
  EXPECT_THROW(all.update(target), Error);
}

}  // namespace
}  // namespace mxnet::gluon::model_zoo::vision
