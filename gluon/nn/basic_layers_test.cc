#include "gluon/nn/basic_layers.h"

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "autograd/autograd.h"
#include "gluon/symbol_block.h"
#include "ndarray/io.h"
#include "ndarray/nd.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon {
namespace {

using testing::AllClose;

// The Model of ../shared/seeds/gluon-hybridblock-api.txt, in C++.
class Model : public HybridBlock {
 public:
  Model() {
    dense0 = register_child(std::make_shared<nn::Dense>(20), "dense0");
    dense1 = register_child(std::make_shared<nn::Dense>(20), "dense1");
  }
  NDArray forward(const NDArray& x) override {
    NDArray h = nd::relu((*dense0)(x));
    return nd::relu((*dense1)(h));
  }
  std::string class_name() const override { return "Model"; }
  std::shared_ptr<nn::Dense> dense0, dense1;
};

TEST(Model, SeedExampleRuns) {
  auto model = std::make_shared<Model>();
  model->initialize(nullptr, {cpu(0)});
  model->hybridize();
  NDArray y = (*model)(nd::zeros(Shape{10, 10}, cpu(0)));
  EXPECT_EQ(y.shape(), Shape({10, 20}));
  EXPECT_EQ(model->dense0->weight->shape(), Shape({20, 10}));
  EXPECT_EQ(model->ToString(),
            "Model(\n  (dense0): Dense(10 -> 20, linear)\n  (dense1): Dense(20 -> 20, linear)\n)");
  // zeros in, zero biases: every output is relu(0) = 0.
  for (float v : y.ToVector<float>()) EXPECT_EQ(v, 0.0f);
}

nlohmann::json Ref() {
  std::ifstream f("gluon/nn/testdata/model.json");
  EXPECT_TRUE(f.good());
  return nlohmann::json::parse(f);
}

NDArray Arr(const nlohmann::json& v, Shape s) {
  return NDArray::FromVector(v.get<std::vector<float>>(), s, cpu(), DType::kFloat32);
}

// Parameters saved by real MXNet's save_parameters load by structured name and give MXNet's
// outputs and gradients, imperative and hybridized.
TEST(Model, MatchesRealMxnet) {
  nlohmann::json ref = Ref();
  for (bool hybrid : {false, true}) {
    SCOPED_TRACE(hybrid ? "hybridized" : "imperative");
    Model model;
    absl::Status st = model.load_parameters("gluon/nn/testdata/model.params");
    ASSERT_TRUE(st.ok()) << st;
    if (hybrid) model.hybridize();
    NDArray x = Arr(ref["input"], Shape{10, 10});
    x.attach_grad();
    NDArray y;
    {
      auto r = autograd::record();
      y = model(x);
    }
    y.backward(Arr(ref["head_grad"], Shape{10, 20}));
    EXPECT_TRUE(AllClose(y, Arr(ref["output"], Shape{10, 20}), 1e-5, 1e-6));
    EXPECT_TRUE(AllClose(x.grad(), Arr(ref["input_grad"], Shape{10, 10}), 1e-5, 1e-6));
    for (const auto& [name, p] : model.collect_params())
      EXPECT_TRUE(AllClose(p->grad(), Arr(ref["param_grads"][name], p->shape()), 1e-5, 1e-6))
          << name;
  }
}

// The export real MXNet 1.9.1 wrote (prefixed 1.x names) imports as a SymbolBlock.
TEST(Model, ImportsMxnetExport) {
  nlohmann::json ref = Ref();
  auto block = SymbolBlock::imports("gluon/nn/testdata/model-symbol.json", {"data"},
                                    "gluon/nn/testdata/model-0000.params");
  ASSERT_TRUE(block.ok()) << block.status();
  NDArray y = (**block)(Arr(ref["input"], Shape{10, 10}));
  EXPECT_TRUE(AllClose(y, Arr(ref["output_hybridized"], Shape{10, 20}), 1e-5, 1e-6));
  EXPECT_EQ((*block)->collect_params().keys(),
            (std::vector<std::string>{"model0_dense0_weight", "model0_dense0_bias",
                                      "model0_dense1_weight", "model0_dense1_bias"}));
}

// The real GluonCV CIFAR-10 ResNet-20 export (../shared/data/models) imports as a SymbolBlock
// and gives real MXNet 1.9.1's logits (tools/conformance/gen_cli_refs.py), imperative and
// under autograd; its parameters are ordinary trainable Parameters.
TEST(SymbolBlock, RealCifarResnet20MatchesMxnet) {
  std::string dir;
  for (const char* base :
       std::initializer_list<const char*>{std::getenv("MXNET_SHARED_DIR"), "/work/shared"}) {
    if (!base) continue;
    std::ifstream probe(std::string(base) + "/data/models/cifar_resnet20_v1-symbol.json");
    if (probe.good()) {
      dir = std::string(base) + "/data/models/";
      break;
    }
  }
  if (dir.empty()) GTEST_SKIP() << "../shared/data/models not found";
  auto block = SymbolBlock::imports(dir + "cifar_resnet20_v1-symbol.json", {"data"},
                                    dir + "cifar_resnet20_v1-0000.params");
  ASSERT_TRUE(block.ok()) << block.status();
  auto in = nd::load("gluon/nn/testdata/cifar_input.nd");
  auto want = nd::load("gluon/nn/testdata/cifar_logits.nd");
  ASSERT_TRUE(in.ok() && want.ok());
  NDArray y = (**block)(in->arrays[0]);
  EXPECT_TRUE(AllClose(y, want->arrays[0], 1e-4, 1e-4));
  EXPECT_EQ((*block)->collect_params().size(), 107u);
  // Training through it: gradients reach the parameters.
  NDArray w = (*block)->collect_params().get("cifarresnetv10_dense0_weight")->data();
  {
    auto r = autograd::record();
    y = (**block)(in->arrays[0]);
  }
  y.backward();
  EXPECT_GT(nd::sum(nd::abs((*block)->collect_params().get("cifarresnetv10_dense0_weight")->grad()))
                .asscalar<float>(),
            0);
  EXPECT_EQ(w.shape(), Shape({10, 64}));
}

TEST(Sequential, ChainsAndNamesChildrenByIndex) {
  auto net = std::make_shared<nn::HybridSequential>();
  net->add({std::make_shared<nn::Dense>(8, nn::DenseOptions{.activation = "relu"}),
            std::make_shared<nn::Dense>(3)});
  net->initialize();
  NDArray y = (*net)(nd::ones(Shape{4, 5}));
  EXPECT_EQ(y.shape(), Shape({4, 3}));
  EXPECT_EQ(net->collect_params().keys(),
            (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias"}));
  nn::Sequential plain;
  EXPECT_THROW(net->add(std::make_shared<nn::Sequential>()), Error);  // non-hybrid child
  EXPECT_THROW(nn::Dense(0), Error);
}

}  // namespace
}  // namespace mxnet::gluon
