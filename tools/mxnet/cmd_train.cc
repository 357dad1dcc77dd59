// mxnet train: trains a Gluon network on the real Fashion-MNIST (Debian's dataset-fashion-mnist),
// validates each epoch, checkpoints atomically and exports the model.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "autograd/autograd.h"
#include "base/strings.h"
#include "base/threading.h"
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
#include "tools/mxnet/cli.h"

namespace mxnet::cli {
namespace {

namespace nn = gluon::nn;
namespace tf = gluon::data::vision::transforms;

const char* kClasses[] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                          "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

// A LeNet-style CNN for 28x28x1 inputs.
std::shared_ptr<nn::HybridSequential> LeNet() {
  auto net = std::make_shared<nn::HybridSequential>();
  net->add({std::make_shared<nn::Conv2D>(32, Shape{3, 3}, nn::ConvOptions{.activation = "relu"}),
            std::make_shared<nn::MaxPool2D>(),
            std::make_shared<nn::Conv2D>(64, Shape{3, 3}, nn::ConvOptions{.activation = "relu"}),
            std::make_shared<nn::MaxPool2D>(), std::make_shared<nn::Flatten>(),
            std::make_shared<nn::Dense>(128, nn::DenseOptions{.activation = "relu"}),
            std::make_shared<nn::Dense>(10)});
  return net;
}

// CIFAR-style ResNet-20 v1 (He et al. 2016, 3 stages of 3 basic blocks) for 28x28x1 inputs.
class BasicBlock : public gluon::HybridBlock {
 public:
  BasicBlock(int64_t channels, int64_t stride, bool downsample) {
    body = register_child(std::make_shared<nn::HybridSequential>(), "body");
    body->add({std::make_shared<nn::Conv2D>(channels, Shape{3, 3},
                                            nn::ConvOptions{.strides = {stride, stride}, .padding = {1, 1}, .use_bias = false}),
               std::make_shared<nn::BatchNorm>(), std::make_shared<nn::Activation>("relu"),
               std::make_shared<nn::Conv2D>(channels, Shape{3, 3}, nn::ConvOptions{.padding = {1, 1}, .use_bias = false}),
               std::make_shared<nn::BatchNorm>()});
    if (downsample) {
      ds = register_child(std::make_shared<nn::HybridSequential>(), "downsample");
      ds->add({std::make_shared<nn::Conv2D>(channels, Shape{1, 1},
                                            nn::ConvOptions{.strides = {stride, stride}, .use_bias = false}),
               std::make_shared<nn::BatchNorm>()});
    }
  }
  NDArray forward(const NDArray& x) override {
    NDArray r = ds ? (*ds)(x) : x;
    return nd::relu(nd::broadcast_add((*body)(x), r));
  }
  std::string class_name() const override { return "BasicBlockV1"; }
  std::shared_ptr<nn::HybridSequential> body, ds;
};

std::shared_ptr<nn::HybridSequential> ResNet20() {
  auto net = std::make_shared<nn::HybridSequential>();
  net->add({std::make_shared<nn::Conv2D>(16, Shape{3, 3}, nn::ConvOptions{.padding = {1, 1}, .use_bias = false}),
            std::make_shared<nn::BatchNorm>(), std::make_shared<nn::Activation>("relu")});
  int64_t in = 16;
  for (int64_t channels : {16, 32, 64})
    for (int i = 0; i < 3; ++i) {
      int64_t stride = (i == 0 && channels != 16) ? 2 : 1;
      net->add(std::make_shared<BasicBlock>(channels, stride, channels != in));
      in = channels;
    }
  net->add({std::make_shared<nn::GlobalAvgPool2D>(), std::make_shared<nn::Flatten>(), std::make_shared<nn::Dense>(10)});
  return net;
}

std::string Bar(double frac) {
  int n = static_cast<int>(frac * 30);
  return "[" + std::string(n, '=') + std::string(30 - n, ' ') + "]";
}

absl::Status RunTrain(const std::vector<std::string>& argv) {
  MX_ASSIGN_OR_RETURN(Args a, Args::Parse(argv, {"model", "epochs", "batch-size", "optimizer", "lr", "wd", "device",
                                                 "seed", "workers", "out", "data", "limit"},
                                          {"hybridize"}));
  MX_ASSIGN_OR_RETURN(int64_t epochs, a.get_int("epochs", 3));
  MX_ASSIGN_OR_RETURN(int64_t batch, a.get_int("batch-size", 128));
  MX_ASSIGN_OR_RETURN(double lr, a.get_double("lr", a.get("optimizer", "adam") == "sgd" ? 0.1 : 0.001));
  MX_ASSIGN_OR_RETURN(double wd, a.get_double("wd", 0.0));
  MX_ASSIGN_OR_RETURN(int64_t seed, a.get_int("seed", 42));
  MX_ASSIGN_OR_RETURN(int64_t workers, a.get_int("workers", 1));
  MX_ASSIGN_OR_RETURN(int64_t limit, a.get_int("limit", 0));
  MX_ASSIGN_OR_RETURN(Device dev, ParseDevice(a.get("device", "cpu")));
  if (epochs < 1 || batch < 1) return absl::InvalidArgumentError("--epochs and --batch-size must be >= 1");
  std::string out = a.get("out", "mxnet-train-out"), model = a.get("model", "lenet");
  std::string root = a.get("data", "/usr/share/datasets/fashion-mnist");
  bool hybrid = a.get("hybridize", "true") != "false";
  random::seed(static_cast<uint64_t>(seed));

  MX_ASSIGN_OR_RETURN(auto train_raw, gluon::data::vision::FashionMNIST::Create(root, true));
  MX_ASSIGN_OR_RETURN(auto test_raw, gluon::data::vision::FashionMNIST::Create(root, false));
  tf::Compose prep({std::make_shared<tf::ToTensor>(), std::make_shared<tf::Normalize>(std::vector<float>{0.286f},
                                                                                       std::vector<float>{0.353f})});
  auto fn = [prep](const NDArray& x) { return prep.Forward(x); };
  gluon::data::DatasetPtr train = train_raw->transform_first(fn), test = test_raw->transform_first(fn);
  if (limit > 0) train = train->take(limit), test = test->take(std::max<int64_t>(limit / 6, 1));

  std::shared_ptr<nn::HybridSequential> net;
  if (model == "lenet") net = LeNet();
  else if (model == "resnet20") net = ResNet20();
  else return absl::InvalidArgumentError(StrCat("unknown --model '", model, "' (lenet, resnet20)"));
  net->initialize(gluon::init::Xavier(), {dev});
  if (hybrid) net->hybridize(true, {.static_alloc = true, .static_shape = true});
  gluon::Trainer trainer(net->collect_params(), a.get("optimizer", "adam"),
                         {{"learning_rate", lr}, {"wd", wd}});
  gluon::loss::SoftmaxCrossEntropyLoss loss_fn;
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) return absl::PermissionDeniedError(StrCat("cannot create --out directory ", out, ": ", ec.message()));

  gluon::data::DataLoader train_loader(train, {.batch_size = batch, .shuffle = true,
                                               .num_workers = static_cast<int>(workers)});
  gluon::data::DataLoader test_loader(test, {.batch_size = 256, .num_workers = static_cast<int>(workers)});
  bool tty = isatty(fileno(stdout));
  auto evaluate = [&] {
    gluon::metric::Accuracy acc;
    for (const auto& b : test_loader) acc.update(b[1], (*net)(b[0].as_in_context(dev)));
    return acc.get()[0].second;
  };
  double test_acc = 0;
  auto t_all = std::chrono::steady_clock::now();
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    gluon::metric::Accuracy acc;
    double loss_sum = 0;
    int64_t seen = 0, nb = 0, total = train_loader.size();
    auto t0 = std::chrono::steady_clock::now();
    for (const auto& b : train_loader) {
      NDArray x = b[0].as_in_context(dev), y = b[1].as_in_context(dev);
      NDArray out_, l;
      {
        auto rec = autograd::record();
        out_ = (*net)(x);
        l = loss_fn(out_, y);
      }
      l.backward();
      trainer.step(static_cast<double>(x.shape()[0]));
      acc.update(y, out_);
      loss_sum += nd::sum(l).asscalar<float>();
      seen += x.shape()[0];
      ++nb;
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (tty && (nb % 10 == 0 || nb == total)) {
        std::printf("\repoch %lld/%lld %s %5.1f%% %7.0f samples/s loss %.4f acc %.4f", (long long)epoch,
                    (long long)epochs, Bar(double(nb) / total).c_str(), 100.0 * nb / total, seen / secs,
                    loss_sum / seen, acc.get()[0].second);
        std::fflush(stdout);
      }
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    test_acc = evaluate();
    std::printf("%sepoch %lld/%lld: %.1f s, %.0f samples/s, train loss %.4f, train acc %.4f, test acc %.4f\n",
                tty ? "\r\033[K" : "", (long long)epoch, (long long)epochs, secs, seen / secs, loss_sum / seen,
                acc.get()[0].second, test_acc);
    // Checkpoint (written to a temporary name and renamed: a killed run keeps the last good one).
    MX_RETURN_IF_ERROR(net->save_parameters(out + "/checkpoint.params"));
  }
  MX_RETURN_IF_ERROR(net->export_model(out + "/model", 0));
  double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_all).count();
  std::printf("test accuracy %.4f after %lld epochs (%.1f s); exported %s/model-symbol.json and %s/model-0000.params\n",
              test_acc, (long long)epochs, total_s, out.c_str(), out.c_str());
  // A few test images with predicted vs true labels.
  for (int i = 0; i < 5; ++i) {
    gluon::data::Sample s = test->at(i);
    NDArray p = (*net)(s[0].expand_dims(0).as_in_context(dev));
    int pred = static_cast<int>(nd::argmax(p, 1).asscalar<float>());
    int truth = s[1].asscalar<int>();
    std::printf("  test image %d: predicted %-12s true %-12s%s\n", i, kClasses[pred], kClasses[truth],
                pred == truth ? "" : "  (wrong)");
  }
  return absl::OkStatus();
}

const int kRegistered = RegisterCommand(
    {"train", "train a CNN on the real Fashion-MNIST and export it",
     "usage: mxnet train [--model lenet|resnet20] [--epochs 3] [--batch-size 128] [--optimizer adam|sgd|...]\n"
     "                   [--lr 0.001] [--wd 0] [--hybridize|--nohybridize] [--device cpu] [--seed 42]\n"
     "                   [--workers 1] [--out DIR] [--data /usr/share/datasets/fashion-mnist] [--limit N]\n\n"
     "Trains on Fashion-MNIST (Debian's dataset-fashion-mnist), validates on the test set every epoch,\n"
     "writes DIR/checkpoint.params atomically after each epoch and finally exports DIR/model-symbol.json\n"
     "and DIR/model-0000.params (loadable by MXNet's SymbolBlock.imports and `mxnet classify`).\n"
     "--limit N trains on the first N samples (quick runs).\n",
     RunTrain});

}  // namespace
}  // namespace mxnet::cli
