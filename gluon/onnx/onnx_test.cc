// ONNX export and import. References: ONNX's own checker and strict shape inference (Debian's
// libonnx, linked here), the outputs ONNX Runtime computed for the committed exports
// (testdata/*_ort*.npy, gluon/onnx/testdata/gen_ort_refs.py), and our forward of the same graph.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "autograd/autograd.h"
#include "gluon/loss/loss.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/nn/conv_layers.h"
#include "gluon/onnx/onnx.h"
#include "gluon/onnx/testing/cases.h"
#include "gluon/training/trainer.h"
#include "gtest/gtest.h"
#include "ndarray/io.h"
#include "ndarray/nd.h"
#include "onnx/checker.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

namespace mxnet::gluon {
namespace {

using onnx_testing::AllCases;
using onnx_testing::Case;
using onnx_testing::CaseInputs;
using onnx_testing::Forward;

std::string Tmp(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

// max |a - b| / max |b| (the error relative to the reference's scale), shapes must agree.
void ExpectClose(const NDArray& got, const NDArray& want, double rel, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  std::vector<double> a = got.ToVector<double>(), b = want.ToVector<double>();
  double max_abs = 0, scale = 1e-6;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(std::isnan(a[i]), std::isnan(b[i])) << what << " element " << i;
    if (std::isnan(a[i])) continue;
    max_abs = std::max(max_abs, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  EXPECT_LE(max_abs / scale, rel) << what << ": max abs err " << max_abs << ", scale " << scale;
}

// ONNX's checker (full: with strict shape inference, as onnx.checker.check_model(full_check)).
void Check(const std::string& bytes, const std::string& what) {
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes)) << what;
  try {
    ::onnx::checker::check_model(m);
    ::onnx::ShapeInferenceOptions opts(/*check_type=*/true, /*strict_mode=*/1, /*data_prop=*/false);
    ::onnx::shape_inference::InferShapes(m, ::onnx::OpSchemaRegistry::Instance(), opts);
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": onnx checker: " << e.what();
  }
}

NDArray LoadNpy(const std::string& path) {
  auto f = nd::load(path);
  EXPECT_TRUE(f.ok()) << path << ": " << f.status();
  return f.ok() ? f->arrays.at(0) : NDArray();
}

TEST(OnnxExport, EveryCaseAtEveryOpsetPassesTheCheckerAndRoundTrips) {
  for (const Case& c : AllCases()) {
    const auto in = CaseInputs(c, 3);  // batch 3: exported at batch 2 with a dynamic batch
    const auto ours = Forward(c, in);
    for (int opset = kOnnxMinExportOpset; opset <= kOnnxMaxExportOpset; ++opset) {
      const std::string what = c.name + " opset " + std::to_string(opset);
      auto bytes = export_onnx_to_string(c.graph, c.params, c.inputs, {.opset = opset});
      ASSERT_TRUE(bytes.ok()) << what << ": " << bytes.status();
      Check(*bytes, what);
      auto block = imports_onnx_from_string(*bytes);
      ASSERT_TRUE(block.ok()) << what << ": " << block.status();
      auto theirs = (**block)(in);
      ASSERT_EQ(theirs.size(), ours.size()) << what;
      for (size_t k = 0; k < ours.size(); ++k)
        ExpectClose(theirs[k], ours[k], 1e-5, what + " output " + std::to_string(k));
    }
  }
}

// The committed exports are what the exporter writes today, and ONNX Runtime's outputs on them
// equal our forward (export semantics) and our import of the file (import semantics).
TEST(OnnxExport, MatchesOnnxRuntimeOnCommittedExports) {
  for (const Case& c : AllCases()) {
    const std::string base = "gluon/onnx/testdata/" + c.name;
    std::ifstream f(base + ".onnx", std::ios::binary);
    ASSERT_TRUE(f.good()) << "missing " << base << ".onnx (gluon/onnx/testdata/gen_ort_refs.py)";
    std::string committed((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto bytes = export_onnx_to_string(c.graph, c.params, c.inputs);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_TRUE(*bytes == committed)
        << c.name << ": the exporter's output changed; rerun gluon/onnx/testdata/gen_ort_refs.py";
    NDArrayVec in;
    for (size_t k = 0; k < c.inputs.size(); ++k)
      in.push_back(LoadNpy(base + "_in" + std::to_string(k) + ".npy"));
    const auto ours = Forward(c, in);
    auto block = imports_onnx(base + ".onnx");
    ASSERT_TRUE(block.ok()) << block.status();
    const auto imported = (**block)(in);
    for (size_t k = 0; k < ours.size(); ++k) {
      NDArray ort = LoadNpy(base + "_ort" + std::to_string(k) + ".npy");
      ExpectClose(ours[k], ort, 1e-4, c.name + " ours vs onnxruntime, output " + std::to_string(k));
      ExpectClose(imported[k], ort, 1e-4,
                  c.name + " imported vs onnxruntime, output " + std::to_string(k));
    }
  }
}

// A Gluon net through the HybridBlock API: written atomically, loads back with its batch free.
TEST(OnnxExport, HybridBlockExportsAndImports) {
  auto net = std::make_shared<nn::HybridSequential>();
  net->add(std::make_shared<nn::Conv2D>(4, Shape{3, 3}, nn::ConvOptions{.padding = {1, 1}}));
  net->add(std::make_shared<nn::BatchNorm>());
  net->add(std::make_shared<nn::Activation>("relu"));
  net->add(std::make_shared<nn::MaxPool2D>(Shape{2, 2}));
  net->add(std::make_shared<nn::Dense>(3));
  net->initialize();
  const std::string path = Tmp("hybrid.onnx");
  ASSERT_TRUE(export_onnx(*net, {Shape{2, 3, 8, 8}}, path, 15).ok());
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  NDArray x = onnx_testing::Lcg(Shape{5, 3, 8, 8}, 7);
  NDArray want = (*net)(x);
  auto block = imports_onnx(path);
  ASSERT_TRUE(block.ok()) << block.status();
  ExpectClose((**block)(x), want, 1e-5, "hybrid");
  // The imported net hybridizes too.
  (*block)->hybridize();
  ExpectClose((**block)(x), want, 1e-5, "hybrid, imported and hybridized");
}

// An imported net fine-tunes: its gradients equal those of the graph it was exported from.
TEST(OnnxImport, GradientsMatchTheOriginalGraph) {
  for (const Case& c : AllCases()) {
    if (c.name != "cnn" && c.name != "mobile" && c.name != "dense") continue;
    auto bytes = export_onnx_to_string(c.graph, c.params, c.inputs);
    ASSERT_TRUE(bytes.ok());
    auto imported = imports_onnx_from_string(*bytes);
    ASSERT_TRUE(imported.ok()) << imported.status();
    std::vector<std::string> names = {"data"};
    auto original = std::make_shared<SymbolBlock>(c.graph, names);
    std::vector<std::pair<std::string, NDArray>> dict(c.params.begin(), c.params.end());
    ASSERT_TRUE(original->load_dict(dict).ok());
    NDArray x = CaseInputs(c, 2)[0];
    auto grads = [&](SymbolBlock& b) {
      std::map<std::string, NDArray> g;
      {
        auto rec = autograd::record(false);  // inference-mode BatchNorm/Dropout on both sides
        NDArray y = b(x);
        autograd::backward({y}, {onnx_testing::Lcg(y.shape(), 99)});  // a random head gradient
      }
      for (const auto& [n, p] : b.collect_params())
        if (p->grad_req() != GradReq::kNull) g[n] = p->grad();
      return g;
    };
    auto g0 = grads(*original), g1 = grads(**imported);
    for (const auto& [n, g] : g0) {
      if (!g1.count(n)) {  // only fix_gamma's gamma (unused, zero gradient) is not exported
        std::vector<float> v = g.ToVector<float>();
        EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](float e) { return e == 0; }))
            << c.name << ": imported net lacks parameter " << n;
        continue;
      }
      ExpectClose(g1[n], g, 1e-4, c.name + " gradient of " + n);
    }
  }
}

// A foreign exporter's file: PyTorch's torch.onnx (TorchScript exporter, opset 17, eval mode, so
// BatchNorm is folded into the convolutions as PyTorch does) of a small torchvision-style ResNet
// (testdata/torch/gen_torch_refs.py). Our import equals PyTorch's output, its gradients equal
// central finite differences, and it fine-tunes: Adam on a fixed batch drives the loss down.
TEST(OnnxImport, TorchExportEqualsPyTorchAndFineTunes) {
  const std::string dir = "gluon/onnx/testdata/torch/";
  auto block = imports_onnx(dir + "tiny_resnet.onnx");
  ASSERT_TRUE(block.ok()) << block.status();
  SymbolBlock& net = **block;
  NDArray x = LoadNpy(dir + "tiny_resnet_in.npy"), want = LoadNpy(dir + "tiny_resnet_out.npy");
  ExpectClose(net(x), want, 1e-5, "torch export vs PyTorch");

  // d sum(out * head) / d w for a few elements of the first convolution's (folded) weight.
  ParameterPtr w = net.collect_params().get("onnx::Conv_36");
  ASSERT_NE(w, nullptr);
  NDArray head = onnx_testing::Lcg(want.shape(), 5);
  auto objective = [&] { return nd::sum(nd::elemwise_mul(net(x), head)).asscalar<float>(); };
  {
    auto rec = autograd::record(false);
    NDArray y = net(x);
    autograd::backward({y}, {head});
  }
  std::vector<float> g = w->grad().ToVector<float>(), v = w->data().ToVector<float>();
  for (size_t i : {size_t{0}, size_t{17}, v.size() - 1}) {
    const float eps = 1e-2f, keep = v[i];
    v[i] = keep + eps;
    w->set_data(NDArray::FromVector(v, w->shape()));
    const double up = objective();
    v[i] = keep - eps;
    w->set_data(NDArray::FromVector(v, w->shape()));
    const double down = objective();
    v[i] = keep;
    w->set_data(NDArray::FromVector(v, w->shape()));
    EXPECT_NEAR(g[i], (up - down) / (2 * eps), 2e-2 * std::max(1.0, std::abs(double(g[i]))))
        << "element " << i;
  }

  // Fine-tuning: 60 Adam steps on the batch with fixed labels.
  NDArray label = NDArray::FromVector(std::vector<float>{0, 3, 1, 4}, Shape{4});
  loss::SoftmaxCrossEntropyLoss ce;
  Trainer trainer(net.collect_params(), "adam", {{"learning_rate", 0.02}});
  double first = 0, last = 0;
  for (int step = 0; step < 60; ++step) {
    NDArray l;
    {
      auto rec = autograd::record();
      l = ce(net(x), label);
    }
    l.backward();
    trainer.step(4);
    last = nd::mean(l).asscalar<float>();
    if (step == 0) first = last;
  }
  EXPECT_LT(last, 0.3 * first) << "loss " << first << " -> " << last;
}

TEST(OnnxExport, ErrorsNameTheOpAndNode) {
  sym::Symbol x = sym::var("data");
  // No ONNX mapping.
  sym::Symbol t = sym::Symbol::Create("topk", {x}, {{"k", "2"}}, "my_topk");
  auto r = export_onnx_to_string(t, {}, {{"data", Shape{2, 5}}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("my_topk"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("topk"), std::string::npos) << r.status();
  // A channels-last convolution.
  sym::Symbol c = sym::Symbol::Create(
      "Convolution", {x}, {{"kernel", "(3, 3)"}, {"num_filter", "2"}, {"layout", "NHWC"}},
      "conv_nhwc");
  std::map<std::string, NDArray> p = {{"conv_nhwc_weight", NDArray::Full(Shape{2, 3, 3, 3}, 0.1)},
                                      {"conv_nhwc_bias", NDArray::Full(Shape{2}, 0.0)}};
  r = export_onnx_to_string(c, p, {{"data", Shape{1, 8, 8, 3}}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("NHWC"), std::string::npos) << r.status();
  // Opsets outside 13..17, a missing parameter, an unknown input.
  sym::Symbol relu = sym::Symbol::Create("relu", {x});
  EXPECT_FALSE(export_onnx_to_string(relu, {}, {{"data", Shape{2}}}, {.opset = 12}).ok());
  EXPECT_FALSE(export_onnx_to_string(relu, {}, {{"data", Shape{2}}}, {.opset = 18}).ok());
  r = export_onnx_to_string(c, {}, {{"data", Shape{1, 3, 8, 8}}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("conv_nhwc_weight"), std::string::npos) << r.status();
  EXPECT_FALSE(export_onnx_to_string(relu, {}, {{"x", Shape{2}}}).ok());
  // A path in a missing directory fails without leaving files.
  EXPECT_FALSE(export_onnx(relu, {}, {{"data", Shape{2}}}, Tmp("no/such/dir/m.onnx")).ok());
}

TEST(OnnxExport, ListsOps) {
  auto ops = onnx_exportable_ops();
  for (const char* op : {"Convolution", "BatchNorm", "Pooling", "FullyConnected", "Concat",
                         "elemwise_add", "clip", "Dropout", "Flatten", "Activation", "LeakyReLU",
                         "softmax", "Reshape", "slice", "broadcast_add"})
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
  auto in = onnx_importable_ops();
  for (const char* op : {"Conv", "Gemm", "BatchNormalization", "MaxPool", "GlobalAveragePool",
                         "Concat", "Add", "Clip", "Flatten", "Reshape"})
    EXPECT_NE(std::find(in.begin(), in.end(), op), in.end()) << op;
}

}  // namespace
}  // namespace mxnet::gluon
