// Every gluon::nn layer family against real MXNet 1.9.1 (testdata/layers/, written by
// tools/conformance/gen_layer_refs.py): parameter names and shapes from MXNet's save_parameters
// files, outputs, input and parameter gradients, BatchNorm's running statistics, printing, both
// imperative and hybridized. Plus Dropout's training statistics and constructor errors.
#include <cmath>
#include <fstream>
#include <functional>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "autograd/autograd.h"
#include "base/strings.h"
#include "gluon/nn/activations.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/nn/conv_layers.h"
#include "ndarray/nd.h"
#include "ndarray/random.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon::nn {
namespace {

using json = nlohmann::json;
using mxnet::testing::AllClose;

const char* kDir = "gluon/nn/testdata/layers/";

NDArray FromJson(const json& j) {
  return NDArray::FromVector(j["data"].get<std::vector<double>>(),
                             Shape(j["shape"].get<std::vector<int64_t>>()), cpu(), DType::kFloat32);
}

template <typename T, typename... Args>
std::function<BlockPtr()> Make(Args... args) {
  return [=] { return std::static_pointer_cast<Block>(std::make_shared<T>(args...)); };
}

// The C++ twin of every case in gen_layer_refs.py.
const std::map<std::string, std::function<BlockPtr()>>& Layers() {
  static const auto* m = new std::map<std::string, std::function<BlockPtr()>>{
      {"dense_flatten", Make<Dense>(5, DenseOptions{.activation = "tanh"})},
      {"dense_no_flatten", Make<Dense>(4, DenseOptions{.use_bias = false, .flatten = false})},
      {"dense_in_units", Make<Dense>(3, DenseOptions{.in_units = 4})},
      {"conv1d", Make<Conv1D>(4, Shape{3}, ConvOptions{.strides = Shape{2}, .padding = Shape{1}})},
      {"conv1d_dilation", Make<Conv1D>(2, Shape{3}, ConvOptions{.dilation = Shape{2}, .use_bias = false})},
      {"conv2d_relu", Make<Conv2D>(4, Shape{3, 3}, ConvOptions{.padding = Shape{1}, .activation = "relu"})},
      {"conv2d_groups_dilation",
       Make<Conv2D>(4, Shape{3}, ConvOptions{.strides = Shape{1, 2}, .dilation = Shape{2}, .groups = 2, .in_channels = 4})},
      {"conv2d_nhwc", Make<Conv2D>(3, Shape{2, 3}, ConvOptions{.padding = Shape{1, 0}, .layout = "NHWC"})},
      {"conv3d", Make<Conv3D>(2, Shape{2, 2, 2}, ConvOptions{.padding = Shape{1, 0, 0}})},
      {"conv2d_transpose",
       Make<Conv2DTranspose>(3, Shape{3}, ConvOptions{.strides = Shape{2}, .padding = Shape{1}, .output_padding = Shape{1}})},
      {"conv1d_transpose_groups",
       Make<Conv1DTranspose>(4, Shape{3}, ConvOptions{.strides = Shape{2}, .groups = 2, .in_channels = 4})},
      {"conv3d_transpose", Make<Conv3DTranspose>(2, Shape{2}, ConvOptions{.strides = Shape{2}})},
      {"maxpool1d", Make<MaxPool1D>(Shape{2}, PoolOptions{})},
      {"maxpool2d_ceil", Make<MaxPool2D>(Shape{3}, PoolOptions{.strides = Shape{2}, .ceil_mode = true})},
      {"maxpool2d_nhwc", Make<MaxPool2D>(Shape{2}, PoolOptions{.layout = "NHWC"})},
      {"maxpool3d", Make<MaxPool3D>(Shape{1, 2, 2}, PoolOptions{.padding = Shape{0, 1, 1}})},
      {"avgpool2d_exclude_pad",
       Make<AvgPool2D>(Shape{3}, PoolOptions{.strides = Shape{2}, .padding = Shape{1}, .count_include_pad = false})},
      {"avgpool2d_include_pad_ceil",
       Make<AvgPool2D>(Shape{3}, PoolOptions{.strides = Shape{2}, .padding = Shape{1}, .ceil_mode = true})},
      {"avgpool1d", Make<AvgPool1D>(Shape{3}, PoolOptions{.strides = Shape{1}, .padding = Shape{1}})},
      {"avgpool3d", Make<AvgPool3D>(Shape{2}, PoolOptions{})},
      {"global_maxpool2d", Make<GlobalMaxPool2D>("")},
      {"global_avgpool1d", Make<GlobalAvgPool1D>("")},
      {"global_avgpool3d", Make<GlobalAvgPool3D>("")},
      {"batchnorm_train", Make<BatchNorm>(BatchNormOptions{})},
      {"batchnorm_predict", Make<BatchNorm>(BatchNormOptions{.in_channels = 3})},
      {"batchnorm_axis_last_train", Make<BatchNorm>(BatchNormOptions{.axis = -1, .momentum = 0.8, .center = false})},
      {"batchnorm_no_scale_train", Make<BatchNorm>(BatchNormOptions{.epsilon = 1e-3, .scale = false})},
      {"layernorm", Make<LayerNorm>()},
      {"layernorm_axis1", Make<LayerNorm>(1, 1e-3, /*center=*/false)},
      {"groupnorm", Make<GroupNorm>(2)},
      {"instancenorm", Make<InstanceNorm>(1, 1e-5, true, /*scale=*/true)},
      {"instancenorm_axis2", Make<InstanceNorm>(2, 1e-3, true, /*scale=*/true)},
      {"embedding", Make<Embedding>(10, 4)},
      {"dropout_predict", Make<Dropout>(0.5)},
      {"dropout_axes_predict", Make<Dropout>(0.3, Shape{1})},
      {"flatten", Make<Flatten>()},
      {"activation_softrelu", Make<Activation>("softrelu")},
      {"leakyrelu", Make<LeakyReLU>(0.1)},
      {"prelu", Make<PReLU>()},
      {"prelu_channels", Make<PReLU>(nullptr, 3)},
      {"elu", Make<ELU>(0.7)},
      {"selu", Make<SELU>()},
      {"gelu", Make<GELU>()},
      {"swish", Make<Swish>(1.5)},
      {"hybrid_concurrent",
       [] {
         auto c = std::make_shared<HybridConcatenate>(1);
         c->add({std::make_shared<Dense>(3), std::make_shared<Dense>(2, DenseOptions{.activation = "relu"})});
         return std::static_pointer_cast<Block>(c);
       }},
      {"reflection_pad2d", Make<ReflectionPad2D>(2)},
      {"sequential_train",
       [] {
         auto s = std::make_shared<HybridSequential>();
         s->add({std::make_shared<Conv2D>(4, Shape{3}, ConvOptions{.padding = Shape{1}}),
                 std::make_shared<BatchNorm>(), std::make_shared<Activation>("relu"),
                 std::make_shared<MaxPool2D>(Shape{2}), std::make_shared<Flatten>(), std::make_shared<Dense>(3)});
         return std::static_pointer_cast<Block>(s);
       }},
  };
  return *m;
}

// MXNet 1.9.1's contrib.nn.HybridConcurrent is MXNet 2's nn.HybridConcatenate (our name).
std::string OurRepr(std::string s) {
  for (size_t p; (p = s.find("HybridConcurrent")) != std::string::npos;)
    s.replace(p, std::string("HybridConcurrent").size(), "HybridConcatenate");
  return s;
}

json Refs() {
  std::ifstream f(std::string(kDir) + "refs.json");
  EXPECT_TRUE(f.good()) << "missing " << kDir << "refs.json";
  return json::parse(f);
}

class MxnetLayer : public ::testing::TestWithParam<bool> {};

TEST_P(MxnetLayer, MatchesRealMxnet) {
  bool hybrid = GetParam();
  json refs = Refs();
  ASSERT_EQ(refs["cases"].size(), Layers().size()) << "gen_layer_refs.py and Layers() disagree";
  for (const json& c : refs["cases"]) {
    std::string name = c["name"];
    SCOPED_TRACE(name);
    auto it = Layers().find(name);
    ASSERT_NE(it, Layers().end()) << "no C++ layer for case " << name;
    BlockPtr block = it->second();
    EXPECT_EQ(block->ToString(), OurRepr(c["repr_init"]));

    // MXNet's parameter file loads by structured name; names, order and shapes agree.
    absl::Status st = block->load_parameters(StrCat(kDir, name, ".params"));
    ASSERT_TRUE(st.ok()) << st;
    ParameterDict params = block->collect_params();
    ASSERT_EQ(params.size(), c["params"].size());
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& [pname, p] = params.items()[i];
      const json& want = c["params"][i];
      EXPECT_EQ(pname, want["name"].get<std::string>());
      EXPECT_EQ(p->shape(), Shape(want["shape"].get<std::vector<int64_t>>())) << pname;
      EXPECT_EQ(p->grad_req() == GradReq::kNull, want["grad_req"] == "null") << pname;
    }
    if (hybrid) block->hybridize();

    // Where MXNet 1.9.1 is wrong, the generator records the right value and why ("expect").
    json want = c;
    if (c.contains("expect")) {
      for (const auto& [field, v] : c["expect"].items()) {
        if (field == "why") continue;
        json::json_pointer ptr("/" + field);
        if (auto dot = field.find('.'); dot != std::string::npos)
          ptr = json::json_pointer("/" + field.substr(0, dot) + "/" + field.substr(dot + 1));
        want[ptr] = v;
      }
    }
    NDArray x = FromJson(c["input"]);
    bool input_grad = !c["input_grad"].is_null();
    if (input_grad) x.attach_grad();
    NDArray y;
    {
      auto r = autograd::record(/*train_mode=*/c["train"].get<bool>());
      y = (*block)(x);
    }
    NDArray want_y = FromJson(c["output"]);
    ASSERT_EQ(y.shape(), want_y.shape());
    EXPECT_TRUE(AllClose(y, want_y, 1e-4, 1e-5)) << "output";
    bool train = c["train"].get<bool>();
    y.backward(FromJson(c["head_grad"]), /*retain_graph=*/false, /*train_mode=*/train);
    if (input_grad) {
      EXPECT_TRUE(AllClose(x.grad(), FromJson(want["input_grad"]), 1e-4, 1e-5)) << "input grad";
    }
    for (const auto& [pname, p] : params) {
      if (want["param_grads"].contains(pname)) {
        EXPECT_TRUE(AllClose(p->grad(), FromJson(want["param_grads"][pname]), 1e-4, 1e-5))
            << pname << " grad";
      } else if (want["params_after"].contains(pname)) {
        EXPECT_TRUE(AllClose(p->data(), FromJson(want["params_after"][pname]), 1e-5, 1e-6))
            << pname << " after";
      } else {
        ADD_FAILURE() << "no reference for " << pname;
      }
    }
    EXPECT_EQ(block->ToString(), OurRepr(c["repr"]));
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, MxnetLayer, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Hybridized" : "Imperative"; });

// ---- Dropout in training: the statistics of the mask. ----

TEST(Dropout, TrainingStatistics) {
  random::seed(42);
  const int64_t n = 200000;
  NDArray x = nd::ones(Shape{n});
  for (bool hybrid : {false, true}) {
    SCOPED_TRACE(hybrid ? "hybridized" : "imperative");
    Dropout d(0.3);
    if (hybrid) d.hybridize();
    NDArray y;
    {
      auto r = autograd::train_mode();
      y = d(x);
    }
    int64_t zeros = 0;
    for (float v : y.ToVector<float>()) {
      if (v == 0) {
        ++zeros;
      } else {
        EXPECT_FLOAT_EQ(v, 1 / 0.7f);  // kept values are scaled by 1 / (1 - rate)
      }
    }
    // Binomial(n, 0.3): standard deviation ~205; allow 5 of them.
    EXPECT_NEAR(double(zeros), 0.3 * n, 1100);
    // Predict mode: identity.
    EXPECT_TRUE(AllClose(d(x), x, 0, 0));
  }
}

TEST(Dropout, AxesShareOneMaskAlongThem) {
  random::seed(7);
  Dropout d(0.5, Shape{1});
  NDArray x = nd::ones(Shape{400, 8});
  NDArray y;
  {
    auto r = autograd::train_mode();
    y = d(x);
  }
  std::vector<float> v = y.ToVector<float>();
  int64_t dropped_rows = 0;
  for (int64_t i = 0; i < 400; ++i) {
    for (int64_t j = 1; j < 8; ++j) EXPECT_EQ(v[i * 8 + j], v[i * 8]) << "row " << i;
    if (v[i * 8] == 0) ++dropped_rows;
  }
  EXPECT_NEAR(double(dropped_rows), 200, 50);
  // Rate 0 copies, even in training.
  Dropout none(0);
  auto r = autograd::train_mode();
  EXPECT_TRUE(AllClose(none(x), x, 0, 0));
  EXPECT_EQ(none.ToString(), "Dropout(p = 0.0, axes=())");
}

// ---- BatchNorm modes. ----

TEST(BatchNorm, PredictModeKeepsRunningStatsTrainModeUpdatesThem) {
  BatchNorm bn({.in_channels = 2});
  bn.initialize();
  NDArray x = NDArray::FromVector(std::vector<float>{1, 10, 3, 20, 5, 30}, Shape{3, 2}, cpu(),
                                  DType::kFloat32);
  {
    auto r = autograd::record(/*train_mode=*/false);
    (void)bn(x);
  }
  EXPECT_TRUE(AllClose(bn.running_mean->data(), nd::zeros(Shape{2}), 0, 0));
  {
    auto r = autograd::record(/*train_mode=*/true);
    (void)bn(x);
  }
  // momentum 0.9: 0.1 * batch mean (3, 20); biased batch variance (8/3, 200/3).
  EXPECT_TRUE(AllClose(
      bn.running_mean->data(),
      NDArray::FromVector(std::vector<float>{0.3f, 2.0f}, Shape{2}, cpu(), DType::kFloat32)));
  EXPECT_TRUE(
      AllClose(bn.running_var->data(),
               NDArray::FromVector(std::vector<float>{0.9f + 0.1f * 8 / 3, 0.9f + 0.1f * 200 / 3},
                                   Shape{2}, cpu(), DType::kFloat32)));
  // cast(float16) keeps float32 statistics (MXNet's _BatchNorm.cast).
  bn.cast(DType::kFloat16);
  EXPECT_EQ(bn.gamma->dtype(), DType::kFloat32);
}

// ---- Printing of layers not covered by the reference cases. ----

TEST(Printing, MatchesMxnetFormats) {
  EXPECT_EQ(Dense(5).ToString(), "Dense(None -> 5, linear)");
  EXPECT_EQ(Conv2D(16, {3}, {.groups = 2, .activation = "relu", .in_channels = 4}).ToString(),
            "Conv2D(2 -> 16, kernel_size=(3, 3), stride=(1, 1), groups=2, Activation(relu))");
  EXPECT_EQ(
      Conv2DTranspose(8, {3}, {.strides = {2}, .output_padding = {1}, .in_channels = 4}).ToString(),
      "Conv2DTranspose(8 -> 4, kernel_size=(3, 3), stride=(2, 2))");
  EXPECT_EQ(GlobalAvgPool2D().ToString(),
            "GlobalAvgPool2D(size=(1, 1), stride=(1, 1), padding=(0, 0), ceil_mode=True, "
            "global_pool=True, "
            "pool_type=avg, layout=NCHW)");
  EXPECT_EQ(Embedding(10, 4).ToString(), "Embedding(10 -> 4, float32)");
  EXPECT_EQ(Identity().ToString(), "Identity(\n\n)");
  EXPECT_EQ(HybridLambda([](const NDArrayVec& x) { return x; }, "relu").ToString(),
            "HybridLambda(relu)");
  EXPECT_EQ(Lambda([](const NDArrayVec& x) { return x; }).ToString(), "Lambda(<lambda>)");
  HybridSequential s;
  s.add({std::make_shared<Dense>(3), std::make_shared<PReLU>()});
  EXPECT_EQ(s.ToString(),
            "HybridSequential(\n  (0): Dense(None -> 3, linear)\n  (1): PReLU(\n  \n  )\n)");
}

// ---- Constructor errors name the layer and the argument. ----

void ExpectError(const std::function<void()>& f, std::vector<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning " << parts[0];
  } catch (const Error& e) {
    for (const auto& p : parts) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
  }
}

TEST(Errors, BadConstructorArgumentsNameLayerAndArgument) {
  ExpectError([] { Dense(0); }, {"Dense", "units"});
  ExpectError([] { Conv2D(0, {3}); }, {"Conv2D", "channels"});
  ExpectError([] { Conv2D(4, {3, 3, 3}); }, {"Conv2D", "kernel_size", "(3, 3, 3)"});
  ExpectError([] { Conv2D(4, {0}); }, {"Conv2D", "kernel_size"});
  ExpectError([] { Conv3D(4, {3}, {.strides = {1, 2}}); }, {"Conv3D", "strides"});
  ExpectError([] { Conv1D(4, {3}, {.layout = "NWC"}); }, {"Conv1D", "layout", "NWC"});
  ExpectError([] { Conv2D(4, {3}, {.layout = "NCDHW"}); }, {"Conv2D", "layout"});
  ExpectError([] { Conv2D(4, {3}, {.groups = 3}); }, {"Conv2D", "groups"});
  ExpectError([] { Conv2D(4, {3}, {.groups = 2, .in_channels = 3}); },
              {"Conv2D", "in_channels", "groups"});
  ExpectError(
      [] {
        Conv2DTranspose(4, {3}, {.output_padding = {1, 1, 1}});
      },
      {"Conv2DTranspose", "output_padding"});
  ExpectError([] { MaxPool2D({2}, {.layout = "NCW"}); }, {"MaxPool2D", "layout"});
  ExpectError([] { AvgPool1D({2, 2}); }, {"AvgPool1D", "pool_size"});
  ExpectError([] { Dropout(1.5); }, {"Dropout", "rate"});
  ExpectError([] { LeakyReLU(-0.1); }, {"LeakyReLU", "alpha"});
  ExpectError([] { PReLU(nullptr, 0); }, {"PReLU", "in_channels"});
  ExpectError([] { GroupNorm(0); }, {"GroupNorm", "num_groups"});
  ExpectError([] { InstanceNorm(0); }, {"InstanceNorm", "axis"});
  ExpectError([] { Embedding(0, 4); }, {"Embedding", "input_dim"});
  ExpectError([] { ReflectionPad2D(-1); }, {"ReflectionPad2D", "padding"});
  ExpectError([] { Activation("swishy"); }, {"Activation", "act_type"});
}

}  // namespace
}  // namespace mxnet::gluon::nn
