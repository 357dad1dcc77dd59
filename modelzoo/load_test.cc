// Parameters saved by real MXNet 1.9.1 (save_parameters of small nets with Xavier weights and
// randomized BatchNorm statistics, testdata/load/) load by structured name and give MXNet's
// outputs, imperative and hybridized; our save_parameters writes MXNet's keys; export_model +
// SymbolBlock::imports round-trips.
#include <filesystem>

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

std::vector<std::string> Cases() {
  std::vector<std::string> out;
  nlohmann::json cases = ReadJson("modelzoo/testdata/load/cases.json");
  for (auto it = cases.begin(); it != cases.end(); ++it) out.push_back(it.key());
  return out;
}

class LoadMxnetParams : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ref = ReadJson("modelzoo/testdata/load/cases.json")[GetParam()];
    path = "modelzoo/testdata/load/" + GetParam() + ".params";
    in_shape = ShapeFromJson(ref["input_shape"]);
    out_shape = ShapeFromJson(ref["output_shape"]);
  }
  nlohmann::json ref;
  std::string path;
  Shape in_shape, out_shape;
};

TEST_P(LoadMxnetParams, ImperativeAndHybridizedOutputs) {
  auto net = BuildLoadCase(GetParam());
  absl::Status st = net->load_parameters(path);
  ASSERT_TRUE(st.ok()) << st;
  NDArray x = DeterministicValues("input", in_shape);
  EXPECT_TRUE(CloseTo((*net)(x), testing::ArrayFromJson(ref["output"], out_shape))) << "imperative";
  net->hybridize();
  EXPECT_TRUE(CloseTo((*net)(x), testing::ArrayFromJson(ref["output_hybridized"], out_shape)))
      << "hybridized";
}

TEST_P(LoadMxnetParams, SaveParametersWritesMxnetsKeys) {
  auto net = BuildLoadCase(GetParam());
  ASSERT_TRUE(net->load_parameters(path).ok());
  std::string out = testing::MakeTempDir("save_" + GetParam()) + "/net.params";
  ASSERT_TRUE(net->save_parameters(out).ok());
  auto ours = nd::load(out);
  auto theirs = nd::load(path);
  ASSERT_TRUE(ours.ok() && theirs.ok());
  std::vector<std::string> our_keys, their_keys;
  for (const auto& [k, _] : ours->items()) our_keys.push_back(k);
  for (const auto& [k, _] : theirs->items()) their_keys.push_back(k);
  EXPECT_EQ(our_keys, their_keys);
  EXPECT_EQ(our_keys, ref["params"].get<std::vector<std::string>>());
  for (size_t i = 0; i < our_keys.size(); ++i)
    EXPECT_TRUE(CloseTo(ours->items()[i].second, theirs->items()[i].second, 1e-7)) << our_keys[i];
}

TEST_P(LoadMxnetParams, ExportImportRoundTrip) {
  auto net = BuildLoadCase(GetParam());
  ASSERT_TRUE(net->load_parameters(path).ok());
  net->hybridize();
  NDArray x = DeterministicValues("input", in_shape);
  NDArray y = (*net)(x);
  std::string prefix = testing::MakeTempDir("export_" + GetParam()) + "/net";
  ASSERT_TRUE(net->export_model(prefix).ok());
  auto block = SymbolBlock::imports(prefix + "-symbol.json", {"data"}, prefix + "-0000.params");
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_TRUE(CloseTo((**block)(x), y, 1e-6));
}

INSTANTIATE_TEST_SUITE_P(Mxnet191, LoadMxnetParams, ::testing::ValuesIn(Cases()),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s)
                             if (c == '.') c = '_';
                           return s;
                         });

TEST(LoadErrors, WrongNetNamesTheMissingParameter) {
  auto net = get_model("mobilenet0.25", {.classes = 10});
  absl::Status st = net->load_parameters("modelzoo/testdata/load/resnet_v1_tiny.params");
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound) << st;
  EXPECT_NE(std::string(st.message())
                .find("is missing in 'modelzoo/testdata/load/resnet_v1_tiny.params'"),
            std::string::npos)
      << st;
}

TEST(LoadErrors, WrongClassesIsAShapeError) {
  auto net = get_model("mobilenet0.25", {.classes = 11});
  absl::Status st = net->load_parameters("modelzoo/testdata/load/mobilenet0.25_c10.params");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("does not match the parameter's shape (11,"),
            std::string::npos)
      << st;
}

// The seeds' SymbolBlock recipe (gluon-block-source-1x.txt, "extract the output from fc2 layer in
// AlexNet"): call a model-zoo net on a symbolic input, cut the graph at an internal output and
// build a SymbolBlock over it that shares the net's parameters. Here the cut is resnet18_v1's
// global average pool, the end of `features`, whose output a forward hook captures.
TEST(SeedsRecipe, FeatureExtractorFromInternalLayers) {
  auto net = std::dynamic_pointer_cast<ResNetV1>(resnet18_v1({.classes = 10}));
  ASSERT_TRUE(net);
  const Shape in{2, 3, 32, 32};
  testing::InferShapes(*net, in);
  testing::SetDeterministicWeights(*net);
  NDArray x = DeterministicValues("data", in);
  NDArray features;
  HookHandle hook = net->features->register_forward_hook(
      [&](Block&, const NDArrayVec&, const NDArrayVec& out) { features = out[0].copy(); });
  NDArray y = (*net)(x);
  hook.detach();  // (the symbolic call's trace would run it on placeholders)
  sym::Symbol out = (*net)(sym::Symbol::Variable("data", {.shape = in}));
  sym::Symbol internals = out.get_internals();
  std::string pool;  // the last Pooling node's output
  for (const auto& name : internals.list_outputs())
    if (name.rfind("pooling", 0) == 0) pool = name;
  ASSERT_FALSE(pool.empty());
  // The pool's output and the net's output as one two-output block.
  SymbolBlock both(sym::Symbol::Group({internals[pool], out}), std::vector<std::string>{"data"},
                   net->collect_params());
  NDArrayVec got = both(NDArrayVec{x});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].shape(), Shape({2, 512, 1, 1}));
  // (The SymbolBlock runs hybridize()'s default backend, which folds BatchNorm into the
  // convolutions: the same values up to rounding.)
  EXPECT_TRUE(CloseTo(got[0], features, 1e-5));
  EXPECT_TRUE(CloseTo(got[1], y, 1e-5));
  // Shared, not copied: a parameter change shows in the extractor.
  EXPECT_EQ(both.collect_params().get("output.bias"), net->collect_params().get("output.bias"));
  EXPECT_EQ(both.collect_params().size(), net->collect_params().size());
}

}  // namespace
}  // namespace mxnet::gluon::model_zoo::vision
