// Module trees of the 34 nets vs real MXNet 1.9.1 (testdata/nets/<name>.json from
// tools/conformance/gen_modelzoo_refs.py): structured parameter names in save_parameters order,
// parameter shapes, parameter counts and output shapes at the canonical input size. Shape
// inference only: nothing is allocated.
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "modelzoo/testing/test_util.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

using testing::InferShapes;
using testing::ReadJson;
using testing::ShapeFromJson;

// The names of MXNet 1.9.1's get_model table (vision/__init__.py), in its order.
const std::vector<std::string> kMxnetNames = {
    "resnet18_v1",     "resnet34_v1",     "resnet50_v1",     "resnet101_v1",
    "resnet152_v1",    "resnet18_v2",     "resnet34_v2",     "resnet50_v2",
    "resnet101_v2",    "resnet152_v2",    "vgg11",           "vgg13",
    "vgg16",           "vgg19",           "vgg11_bn",        "vgg13_bn",
    "vgg16_bn",        "vgg19_bn",        "alexnet",         "densenet121",
    "densenet161",     "densenet169",     "densenet201",     "squeezenet1.0",
    "squeezenet1.1",   "inceptionv3",     "mobilenet1.0",    "mobilenet0.75",
    "mobilenet0.5",    "mobilenet0.25",   "mobilenetv2_1.0", "mobilenetv2_0.75",
    "mobilenetv2_0.5", "mobilenetv2_0.25"};

TEST(ModelTable, NamesAreMxnets) {
  std::set<std::string> expected(kMxnetNames.begin(), kMxnetNames.end());
  std::vector<std::string> names = model_names();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), expected);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(names.size(), 34u);
}

class NetStructure : public ::testing::TestWithParam<std::string> {};

TEST_P(NetStructure, MatchesMxnet) {
  const std::string& name = GetParam();
  nlohmann::json ref = ReadJson("modelzoo/testdata/nets/" + name + ".json");
  auto net = get_model(name);
  Shape out = InferShapes(*net, ShapeFromJson(ref["canonical_input"]));
  EXPECT_EQ(out, ShapeFromJson(ref["output_shape"]));
  ParameterDict params = net->collect_params();
  const auto& expected = ref["params"];
  ASSERT_EQ(params.size(), expected.size());
  int64_t count = 0;
  size_t i = 0;
  for (const auto& [pname, p] : params) {
    EXPECT_EQ(pname, expected[i][0].get<std::string>()) << "parameter #" << i;
    EXPECT_EQ(p->shape(), ShapeFromJson(expected[i][1])) << pname;
    count += p->shape().Size();
    ++i;
  }
  EXPECT_EQ(count, ref["param_count"].get<int64_t>());
  EXPECT_EQ(input_size(name), ref["canonical_input"][2].get<int64_t>());
}

INSTANTIATE_TEST_SUITE_P(AllNets, NetStructure, ::testing::ValuesIn(kMxnetNames),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s)
                             if (c == '.') c = '_';
                           return s;
                         });

TEST(GetModel, CaseInsensitiveAndClasses) {
  auto net = get_model("ResNet18_V1", {.classes = 10});
  EXPECT_EQ(InferShapes(*net, Shape{2, 3, 64, 64}), Shape({2, 10}));
  EXPECT_EQ(net->collect_params().get("output.weight")->shape(), Shape({10, 512}));
  auto sq = get_model("squeezenet1.1", {.classes = 7});
  EXPECT_EQ(InferShapes(*sq, Shape{1, 3, 224, 224}), Shape({1, 7}));
  auto mv2 = get_model("mobilenetv2_0.5", {.classes = 3});
  EXPECT_EQ(InferShapes(*mv2, Shape{1, 3, 64, 64}), Shape({1, 3}));
  EXPECT_EQ(mv2->collect_params().get("output.0.weight")->shape(), Shape({3, 1280, 1, 1}));
}

TEST(GetModel, UnknownNameListsTheValidOnes) {
  try {
    get_model("resnet19_v1");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    std::string msg = e.what();
    EXPECT_NE(msg.find("Model resnet19_v1 is not supported"), std::string::npos) << msg;
    for (const auto& n : kMxnetNames) EXPECT_NE(msg.find("\n\t" + n), std::string::npos) << n;
  }
}

TEST(Factories, InvalidArguments) {
  EXPECT_THROW(get_resnet(1, 20), Error);
  EXPECT_THROW(get_resnet(3, 18), Error);
  EXPECT_THROW(get_vgg(12), Error);
  EXPECT_THROW(get_densenet(100), Error);
  EXPECT_THROW(SqueezeNet("1.2"), Error);
  EXPECT_THROW(ResNetV1(residual_block<BasicBlockV1>(), {2, 2}, {64, 64}), Error);
  EXPECT_THROW(VGG({1, 1}, {64}), Error);
}

TEST(Factories, EquivalentSpellings) {
  // MXNet's factory functions and get_model build the same trees.
  auto names = [](const std::shared_ptr<HybridBlock>& n) { return n->collect_params().keys(); };
  EXPECT_EQ(names(resnet50_v2()), names(get_model("resnet50_v2")));
  EXPECT_EQ(names(get_resnet(1, 34)), names(resnet34_v1()));
  EXPECT_EQ(names(get_vgg(16, {}, true)), names(vgg16_bn()));
  EXPECT_EQ(names(get_mobilenet(0.75)), names(get_model("mobilenet0.75")));
  EXPECT_EQ(names(get_mobilenet_v2(0.25)), names(mobilenet_v2_0_25()));
  EXPECT_EQ(names(densenet169()), names(get_densenet(169)));
  EXPECT_EQ(names(inception_v3()), names(get_model("inceptionv3")));
  EXPECT_EQ(names(squeezenet1_0()), names(get_squeezenet("1.0")));
  EXPECT_EQ(names(alexnet()), names(std::make_shared<AlexNet>()));
}

// The factories' keyword arguments (ModelOptions' architecture options: thumbnail, batch_norm,
// bn_size, dropout) vs real MXNet 1.9.1 (testdata/kwargs.json from
// tools/conformance/gen_modelzoo_kwargs_refs.py): parameter names and shapes, output shape and
// Dropout blocks of the tree, or an error where MXNet's class does not take the argument.
TEST(Factories, KeywordArgumentsMatchMxnet) {
  using Factory = std::function<std::shared_ptr<HybridBlock>(const ModelOptions&)>;
  const std::map<std::string, Factory> factories = {
      {"resnet18_v1", resnet18_v1},   {"resnet50_v2", resnet50_v2},
      {"densenet121", densenet121},   {"vgg11", vgg11},
      {"vgg16_bn", vgg16_bn},         {"alexnet", alexnet},
      {"mobilenet1_0", mobilenet1_0}, {"squeezenet1_0", squeezenet1_0},
      {"inception_v3", inception_v3}};
  nlohmann::json cases = ReadJson("modelzoo/testdata/kwargs.json");
  ASSERT_EQ(cases.size(), 15u);
  for (const auto& c : cases) {
    const std::string fn = c["function"].get<std::string>();
    const nlohmann::json& kw = c["kwargs"];
    SCOPED_TRACE(fn + " " + kw.dump());
    ModelOptions o;
    std::string arch_option;
    for (auto it = kw.begin(); it != kw.end(); ++it) {
      if (it.key() == "classes") {
        o.classes = it.value().get<int64_t>();
        continue;
      }
      arch_option = it.key();
      if (it.key() == "thumbnail") o.thumbnail = it.value().get<bool>();
      if (it.key() == "batch_norm") o.batch_norm = it.value().get<bool>();
      if (it.key() == "bn_size") o.bn_size = it.value().get<int64_t>();
      if (it.key() == "dropout") o.dropout = it.value().get<double>();
    }
    auto build = [&] {
      if (fn.rfind("get_model:", 0) == 0) return get_model(fn.substr(10), o);
      return factories.at(fn)(o);
    };
    if (c.contains("error")) {
      try {
        build();
        ADD_FAILURE() << "no error; MXNet raises " << c["error"];
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
        EXPECT_NE(std::string(e.what()).find("unexpected option '" + arch_option + "'"),
                  std::string::npos)
            << e.what();
      }
      continue;
    }
    auto net = build();
    EXPECT_EQ(InferShapes(*net, ShapeFromJson(c["input"])), ShapeFromJson(c["output_shape"]));
    ParameterDict params = net->collect_params();
    const auto& expected = c["params"];
    ASSERT_EQ(params.size(), expected.size());
    size_t i = 0;
    for (const auto& [pname, p] : params) {
      EXPECT_EQ(pname, expected[i][0].get<std::string>()) << "parameter #" << i;
      EXPECT_EQ(p->shape(), ShapeFromJson(expected[i][1])) << pname;
      ++i;
    }
    std::string tree = net->ToString();
    int dropouts = 0;
    for (size_t pos = tree.find("Dropout("); pos != std::string::npos;
         pos = tree.find("Dropout(", pos + 1))
      ++dropouts;
    EXPECT_EQ(dropouts, c["dropouts"].get<int>());
  }
}

TEST(ResNet, ThumbnailStem) {
  // thumbnail: one 3x3 stride-1 conv instead of conv7x7/2-BN-relu-maxpool.
  auto net = get_resnet(1, 18, {.classes = 10}, true);
  EXPECT_EQ(InferShapes(*net, Shape{1, 3, 32, 32}), Shape({1, 10}));
  EXPECT_EQ(net->collect_params().get("features.0.weight")->shape(), Shape({64, 3, 3, 3}));
  EXPECT_EQ(net->collect_params().get("features.1.0.body.0.weight")->shape(),
            Shape({64, 64, 3, 3}));
  auto v2 = get_resnet(2, 50, {}, true);
  EXPECT_EQ(v2->collect_params().get("features.1.weight")->shape(),
            Shape({64, -1, 3, 3}));  // deferred
  EXPECT_EQ(InferShapes(*v2, Shape{1, 3, 32, 32}), Shape({1, 1000}));
  EXPECT_EQ(v2->collect_params().get("features.1.weight")->shape(), Shape({64, 3, 3, 3}));
}

TEST(MobileNetV2, ShortcutsWhereMxnetHasThem) {
  MobileNetV2 net(1.0);
  std::vector<bool> shortcut;
  // features: conv, BN, RELU6, then the 17 bottlenecks.
  for (size_t i = 3; i < 20; ++i) {
    auto b = std::dynamic_pointer_cast<LinearBottleneck>((*net.features)[i]);
    ASSERT_TRUE(b) << i;
    shortcut.push_back(b->use_shortcut());
  }
  // stride 1 and in == out channels: blocks 3, 5, 6, 8, 9, 10, 12, 13, 15, 16 (1-based).
  std::vector<bool> expected = {false, false, true, false, true,  true, false, true, true,
                                true,  false, true, true,  false, true, true,  false};
  EXPECT_EQ(shortcut, expected);
}

}  // namespace
}  // namespace mxnet::gluon::model_zoo::vision
