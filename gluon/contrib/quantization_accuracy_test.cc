// int8 accuracy on a real labelled set: a small CNN (conv-bn-relu twice, a residual sum,
// pooling, Dense) trained briefly on Fashion-MNIST (Debian's dataset-fashion-mnist, which
// ./bazelw installs), quantized with naive and entropy calibration on 256 training images; its
// top-1 accuracy on 2,000 test images must stay within 1 % of the float net's.
#include <gtest/gtest.h>

#include <cstdio>

#include "autograd/autograd.h"
#include "gluon/contrib/quantization.h"
#include "gluon/data/dataloader.h"
#include "gluon/data/vision/datasets.h"
#include "gluon/data/vision/transforms.h"
#include "gluon/loss/loss.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/nn/conv_layers.h"
#include "gluon/training/metric.h"
#include "gluon/training/trainer.h"
#include "ndarray/nd.h"
#include "ndarray/random.h"

namespace mxnet::gluon::contrib::quantization {
namespace {

namespace tf = data::vision::transforms;

// conv-bn-relu -> conv-bn (+ the block input) -> relu, like a ResNet v1 basic block.
class Net : public HybridBlock {
 public:
  Net() {
    c0_ =
        register_child(std::make_shared<nn::Conv2D>(
                           16, Shape{3, 3}, nn::ConvOptions{.strides = {2, 2}, .padding = {1, 1}}),
                       "c0");
    b0_ = register_child(std::make_shared<nn::BatchNorm>(), "b0");
    c1_ =
        register_child(std::make_shared<nn::Conv2D>(
                           16, Shape{3, 3}, nn::ConvOptions{.padding = {1, 1}, .use_bias = false}),
                       "c1");
    b1_ = register_child(std::make_shared<nn::BatchNorm>(), "b1");
    pool_ = register_child(std::make_shared<nn::MaxPool2D>(Shape{2, 2}), "pool");
    fc_ = register_child(std::make_shared<nn::Dense>(10), "fc");
  }
  NDArrayVec forward(const NDArrayVec& in) override {
    NDArray a = nd::Activation(Call(b0_, Call(c0_, in[0])), "relu");
    NDArray b = nd::Activation(nd::elemwise_add(Call(b1_, Call(c1_, a)), a), "relu");
    return {Call(fc_, Call(pool_, b))};
  }

 private:
  static NDArray Call(const BlockPtr& b, const NDArray& x) { return (*b)(NDArrayVec{x})[0]; }
  BlockPtr c0_, b0_, c1_, b1_, pool_, fc_;
};

TEST(QuantizeNet, FashionMnistAccuracyWithinOnePercent) {
  const std::string root = "/usr/share/datasets/fashion-mnist";
  auto train_raw = data::vision::FashionMNIST::Create(root, true);
  ASSERT_TRUE(train_raw.ok()) << train_raw.status();
  auto test_raw = data::vision::FashionMNIST::Create(root, false);
  ASSERT_TRUE(test_raw.ok()) << test_raw.status();
  tf::Compose prep(
      {std::make_shared<tf::ToTensor>(),
       std::make_shared<tf::Normalize>(std::vector<float>{0.286f}, std::vector<float>{0.353f})});
  auto fn = [prep](const NDArray& x) { return prep.Forward(x); };
  auto train = (*train_raw)->transform_first(fn)->take(12000);
  auto test = (*test_raw)->transform_first(fn)->take(2000);

  random::seed(3);
  auto net = std::make_shared<Net>();
  net->initialize();
  net->hybridize(true);
  Trainer trainer(net->collect_params(), "adam", {{"learning_rate", 0.01}});
  loss::SoftmaxCrossEntropyLoss loss_fn;
  data::DataLoader loader(train, {.batch_size = 100, .shuffle = true});
  for (const auto& b : loader) {
    NDArray l;
    {
      auto rec = autograd::record();
      l = loss_fn((*net)(b[0]), b[1]);
    }
    l.backward();
    trainer.step(100);
  }
  std::vector<std::pair<NDArray, NDArray>> batches;
  for (const auto& b : data::DataLoader(test, {.batch_size = 500})) batches.push_back({b[0], b[1]});
  auto accuracy = [&](HybridBlock& n) {
    metric::Accuracy acc;
    for (const auto& [x, y] : batches) acc.update(y, n(x));
    return acc.get()[0].second;
  };
  const double acc_f = accuracy(*net);
  EXPECT_GT(acc_f, 0.75);  // a real model, not chance (0.1)
  std::vector<NDArrayVec> calib;
  for (const auto& b : data::DataLoader(train->take(256), {.batch_size = 64}))
    calib.push_back({b[0]});
  for (const std::string mode : {"naive", "entropy"}) {
    auto qnet = quantize_net(*net, {.calib_mode = mode, .calib_data = calib});
    int fused = 0;
    for (const auto& n : qnet->graph().TopoNodes())
      fused += n->op && n->op->name.starts_with("_sg_mkldnn_");
    EXPECT_EQ(fused, 3) << mode;  // conv-bn-relu, conv-bn-sum-relu, FC
    const double acc_q = accuracy(*qnet);
    std::printf("top-1 on 2000 test images: float32 %.4f, int8 (%s) %.4f\n", acc_f, mode.c_str(),
                acc_q);
    EXPECT_NEAR(acc_q, acc_f, 0.01) << mode << ": float32 " << acc_f << ", int8 " << acc_q;
  }
}

}  // namespace
}  // namespace mxnet::gluon::contrib::quantization
