#include "gluon/loss/loss.h"

#include <cmath>
#include <fstream>
#include <memory>
#include <numbers>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "autograd/autograd.h"
#include "ndarray/nd.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon::loss {
namespace {

using mxnet::testing::AllClose;
using json = nlohmann::json;

NDArray A(std::vector<float> v, Shape s) {
  return NDArray::FromVector(v, s, cpu(), DType::kFloat32);
}

NDArray FromJson(const json& j) {
  std::vector<int64_t> dims = j["shape"].get<std::vector<int64_t>>();
  return NDArray::FromVector(j["data"].get<std::vector<double>>(), Shape(dims), cpu(),
                             DType::kFloat32);
}

// ---- Closed forms, computed by hand. ----

TEST(L1L2Loss, ClosedForm) {
  NDArray pred = A({1, 2, 3, 4}, Shape{2, 2}), label = A({0, 0, 5, 4}, Shape{2, 2});
  EXPECT_TRUE(AllClose(L1Loss()(pred, label), A({1.5f, 1.0f}, Shape{2})));
  EXPECT_TRUE(AllClose(L2Loss()(pred, label), A({1.25f, 1.0f}, Shape{2})));  // 0.5 * mean(d^2)
  // sample_weight (2, 1) broadcasts over the row, then weight multiplies.
  NDArray sw = A({2, 0}, Shape{2, 1});
  EXPECT_TRUE(AllClose(L1Loss(3.0)(pred, label, sw), A({9.0f, 0.0f}, Shape{2})));
  EXPECT_TRUE(AllClose(L2Loss(4.0)(pred, label, sw), A({10.0f, 0.0f}, Shape{2})));
  // The label is reshaped to the prediction's shape (MXNet's _reshape_like).
  EXPECT_TRUE(AllClose(L1Loss()(pred, A({0, 0, 5, 4}, Shape{4})), A({1.5f, 1.0f}, Shape{2})));
  // batch_axis 1: one loss per column.
  NDArray label2 = A({0, 0, 0, 4}, Shape{2, 2});  // |d| = [[1, 2], [3, 0]]
  EXPECT_TRUE(AllClose(L1Loss()(pred, label2), A({1.5f, 1.5f}, Shape{2})));
  EXPECT_TRUE(AllClose(L1Loss(std::nullopt, 1)(pred, label2), A({2.0f, 1.0f}, Shape{2})));
}

TEST(L2Loss, GradientIsScaledResidual) {
  NDArray pred = A({1, 2, 3, 4}, Shape{2, 2}), label = A({0, 0, 5, 4}, Shape{2, 2});
  pred.attach_grad();
  {
    auto r = autograd::record();
    NDArray l = L2Loss()(pred, label);
    l.backward();
  }
  // d/dpred 0.5 * mean_j (pred - label)^2 = (pred - label) / 2.
  EXPECT_TRUE(AllClose(pred.grad(), A({0.5f, 1.0f, -1.0f, 0.0f}, Shape{2, 2})));
}

TEST(SigmoidBinaryCrossEntropyLoss, ClosedForm) {
  auto sp = [](double x) { return std::log1p(std::exp(x)); };  // softplus
  NDArray pred = A({0, 2, -1, 3}, Shape{2, 2}), label = A({1, 0, 1, 1}, Shape{2, 2});
  // -log(sigmoid(x)) = softplus(-x) for z = 1, -log(1 - sigmoid(x)) = softplus(x) for z = 0.
  std::vector<float> want = {float((sp(0) + sp(2)) / 2), float((sp(1) + sp(-3)) / 2)};
  SigmoidBCELoss bce;
  EXPECT_TRUE(AllClose(bce(pred, label), A(want, Shape{2}), 1e-5, 1e-6));
  // pos_weight scales the positive term; without sample weights through the typed call.
  NDArray pw = A({2, 3}, Shape{1, 2});
  std::vector<float> want_pw = {float((2 * sp(0) + sp(2)) / 2),
                                float((2 * sp(1) + 3 * sp(-3)) / 2)};
  EXPECT_TRUE(AllClose(bce(pred, label, NDArray(), pw), A(want_pw, Shape{2}), 1e-5, 1e-6));
  // from_sigmoid: the same loss from probabilities.
  SigmoidBCELoss bce_p(/*from_sigmoid=*/true);
  EXPECT_TRUE(AllClose(bce_p(nd::sigmoid(pred), label), A(want, Shape{2}), 1e-4, 1e-6));
  EXPECT_TRUE(
      AllClose(bce_p(nd::sigmoid(pred), label, NDArray(), pw), A(want_pw, Shape{2}), 1e-4, 1e-6));
  // Numerically stable for large logits (no inf/NaN).
  NDArray big = bce(A({100, -100}, Shape{1, 2}), A({0, 1}, Shape{1, 2}));
  EXPECT_TRUE(AllClose(big, A({100.0f}, Shape{1}), 1e-5, 1e-4));
}

TEST(SoftmaxCrossEntropyLoss, ClosedForm) {
  NDArray pred = A({0, 0, 0, 0, 1, 2, 3, 4}, Shape{2, 4});
  double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0) + std::exp(4.0));
  SoftmaxCELoss ce;
  NDArray l = ce(pred, A({2, 0}, Shape{2}));
  EXPECT_TRUE(AllClose(l, A({float(std::log(4.0)), float(lse - 1)}, Shape{2})));
  // Dense labels: -sum(label * log_softmax).
  SoftmaxCELoss dense(-1, /*sparse_label=*/false);
  NDArray soft = A({0, 0, 0.5, 0.5, 1, 0, 0, 0}, Shape{2, 4});
  EXPECT_TRUE(AllClose(dense(pred, soft), A({float(std::log(4.0)), float(lse - 1)}, Shape{2})));
  // Gradient: softmax - onehot.
  NDArray p = A({0, 0, 0, 0}, Shape{1, 4});
  p.attach_grad();
  {
    auto r = autograd::record();
    ce(p, A({1}, Shape{1})).backward();
  }
  EXPECT_TRUE(AllClose(p.grad(), A({0.25f, -0.75f, 0.25f, 0.25f}, Shape{1, 4})));
}

TEST(KLDivLoss, ClosedForm) {
  NDArray label = A({0.5f, 0.5f}, Shape{1, 2});
  NDArray logq = A({float(std::log(0.25)), float(std::log(0.75))}, Shape{1, 2});
  double want = 0.5 * std::log(0.5 / 0.25) + 0.5 * std::log(0.5 / 0.75);
  EXPECT_TRUE(AllClose(KLDivLoss()(logq, label), A({float(want)}, Shape{1})));
  // from_logits=false applies log_softmax first: logits log(1), log(3) give the same q.
  NDArray logits = A({0, float(std::log(3.0))}, Shape{1, 2});
  EXPECT_TRUE(AllClose(KLDivLoss(false)(logits, label), A({float(want)}, Shape{1})));
}

TEST(HuberLoss, ClosedForm) {
  NDArray pred = A({0, 0}, Shape{2, 1}), label = A({0.5f, 2}, Shape{2, 1});
  // |d| <= rho: d^2 / (2 rho); else |d| - rho / 2.
  EXPECT_TRUE(AllClose(HuberLoss()(pred, label), A({0.125f, 1.5f}, Shape{2})));
  EXPECT_TRUE(AllClose(HuberLoss(0.25)(pred, label), A({0.375f, 1.875f}, Shape{2})));
  EXPECT_THROW(HuberLoss(0), Error);
}

TEST(HingeLosses, ClosedForm) {
  NDArray pred = A({0.5f, -2, 2}, Shape{3, 1}), label = A({1, -1, -1}, Shape{3, 1});
  EXPECT_TRUE(AllClose(HingeLoss()(pred, label), A({0.5f, 0, 3}, Shape{3})));
  EXPECT_TRUE(AllClose(SquaredHingeLoss()(pred, label), A({0.25f, 0, 9}, Shape{3})));
  EXPECT_TRUE(AllClose(HingeLoss(2)(pred, label), A({1.5f, 0, 4}, Shape{3})));
}

TEST(LogisticLoss, ClosedForm) {
  NDArray pred = A({1, -2}, Shape{2, 1});
  // log(1 + exp(-y x)).
  std::vector<float> want = {float(std::log1p(std::exp(1.0))), float(std::log1p(std::exp(-2.0)))};
  EXPECT_TRUE(AllClose(LogisticLoss()(pred, A({-1, -1}, Shape{2, 1})), A(want, Shape{2})));
  EXPECT_TRUE(AllClose(LogisticLoss(std::nullopt, 0, "binary")(pred, A({0, 0}, Shape{2, 1})),
                       A(want, Shape{2})));
  try {
    LogisticLoss(std::nullopt, 0, "onehot");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("label_format"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("onehot"), std::string::npos) << e.what();
  }
}

TEST(TripletLoss, ClosedForm) {
  NDArray pred = A({0, 0, 0, 0}, Shape{2, 2});
  NDArray pos = A({1, 0, 2, 0}, Shape{2, 2}), neg = A({0, 2, 1, 0}, Shape{2, 2});
  // relu(|pos - pred|^2 - |neg - pred|^2 + margin): relu(1 - 4 + 1), relu(4 - 1 + 1).
  TripletLoss t;
  EXPECT_TRUE(AllClose(t(NDArrayVec{pred, pos, neg})[0], A({0, 4}, Shape{2})));
  EXPECT_THROW(t(NDArrayVec{pred, pos}), Error);
}

TEST(PoissonNLLLoss, ClosedForm) {
  NDArray pred = A({0, 1}, Shape{2, 1}), target = A({1, 2}, Shape{2, 1});
  double e = std::exp(1.0);
  // exp(x) - t x, averaged over every element: output (1,).
  EXPECT_TRUE(AllClose(PoissonNLLLoss()(pred, target), A({float((1 + e - 2) / 2)}, Shape{1})));
  // On rates: x - t log(x + eps).
  NDArray rate = A({1, 2}, Shape{2, 1});
  EXPECT_TRUE(AllClose(PoissonNLLLoss(std::nullopt, false)(rate, target),
                       A({float((1 + 2 - 2 * std::log(2.0)) / 2)}, Shape{1}), 1e-5, 1e-6));
  // compute_full adds Stirling's term only where target > 1; target 0 stays finite (MXNet 1.9.1
  // gives NaN there, see loss.h).
  PoissonNLLLoss full(std::nullopt, true, 0, /*compute_full=*/true);
  NDArray t3 = A({0, 3}, Shape{2, 1});
  double stirling = 3 * std::log(3.0) - 3 + 0.5 * std::log(2 * std::numbers::pi * 3);
  double want = ((1 - 0) + (e - 3) + stirling) / 2;
  EXPECT_TRUE(AllClose(full(pred, t3), A({float(want)}, Shape{1}), 1e-5, 1e-6));
}

TEST(CosineEmbeddingLoss, ClosedForm) {
  NDArray x1 = A({1, 0, 1, 1, 3, 4}, Shape{3, 2}), x2 = A({0, 1, 1, 1, 3, 4}, Shape{3, 2});
  NDArray label = A({1, -1, 1}, Shape{3});
  // label 1: 1 - cos; label -1: max(0, cos - margin). Output (batch, 1).
  CosineEmbeddingLoss c;
  EXPECT_TRUE(AllClose(c(x1, x2, label), A({1, 1, 0}, Shape{3, 1}), 1e-5, 1e-6));
  CosineEmbeddingLoss cm(2.0, 0, /*margin=*/0.25);
  EXPECT_TRUE(AllClose(cm(x1, x2, label, A({1, 1, 1}, Shape{3, 1})), A({2, 1.5f, 0}, Shape{3, 1}),
                       1e-5, 1e-6));
}

TEST(Loss, SampleWeightGetsGradient) {
  NDArray pred = A({1, 2, 3, 4}, Shape{2, 2}), label = A({0, 0, 5, 4}, Shape{2, 2});
  NDArray sw = A({2, 3}, Shape{2, 1});
  sw.attach_grad();
  {
    auto r = autograd::record();
    L1Loss()(pred, label, sw).backward();
  }
  // d/dsw mean_j(|d| * sw) = mean_j |d|.
  EXPECT_TRUE(AllClose(sw.grad(), A({1.5f, 1.0f}, Shape{2, 1})));
}

TEST(Loss, ErrorsNameTheLossAndInputs) {
  L2Loss l2;
  try {
    l2(NDArrayVec{A({1}, Shape{1, 1})});
    FAIL() << "no error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("L2Loss"), std::string::npos) << m;
    EXPECT_NE(m.find("(pred, label[, sample_weight])"), std::string::npos) << m;
  }
  EXPECT_THROW(l2(NDArrayVec(4, A({1}, Shape{1, 1}))), Error);
  // Mismatched element counts fail in reshape_like.
  EXPECT_THROW(l2(A({1, 2}, Shape{1, 2}), A({1, 2, 3}, Shape{1, 3})), Error);
}

TEST(Loss, Printing) {
  EXPECT_EQ(L2Loss().ToString(), "L2Loss(batch_axis=0, w=1.0)");
  EXPECT_EQ(L1Loss().ToString(), "L1Loss(batch_axis=0, w=None)");
  EXPECT_EQ(SoftmaxCELoss(-1, true, false, 0.5, 1).ToString(),
            "SoftmaxCrossEntropyLoss(batch_axis=1, w=0.5)");
}

// ---- Real MXNet 1.9.1 (testdata/losses.json). ----

std::shared_ptr<Loss> MakeLoss(const std::string& cls, const json& kw) {
  auto num = [&](const char* k, double d) { return kw.contains(k) ? kw[k].get<double>() : d; };
  auto flag = [&](const char* k, bool d) { return kw.contains(k) ? kw[k].get<bool>() : d; };
  auto integer = [&](const char* k, int d) { return kw.contains(k) ? kw[k].get<int>() : d; };
  std::optional<double> w;
  if (kw.contains("weight")) w = kw["weight"].get<double>();
  int ba = integer("batch_axis", 0);
  if (cls == "L1Loss") return std::make_shared<L1Loss>(w, ba);
  if (cls == "L2Loss") return std::make_shared<L2Loss>(w.value_or(1.0), ba);
  if (cls == "SigmoidBinaryCrossEntropyLoss")
    return std::make_shared<SigmoidBCELoss>(flag("from_sigmoid", false), w, ba);
  if (cls == "SoftmaxCrossEntropyLoss")
    return std::make_shared<SoftmaxCELoss>(integer("axis", -1), flag("sparse_label", true),
                                           flag("from_logits", false), w, ba);
  if (cls == "KLDivLoss")
    return std::make_shared<KLDivLoss>(flag("from_logits", true), integer("axis", -1), w, ba);
  if (cls == "HuberLoss") return std::make_shared<HuberLoss>(num("rho", 1), w, ba);
  if (cls == "HingeLoss") return std::make_shared<HingeLoss>(num("margin", 1), w, ba);
  if (cls == "SquaredHingeLoss") return std::make_shared<SquaredHingeLoss>(num("margin", 1), w, ba);
  if (cls == "LogisticLoss")
    return std::make_shared<LogisticLoss>(w, ba, kw.value("label_format", std::string("signed")));
  if (cls == "TripletLoss") return std::make_shared<TripletLoss>(num("margin", 1), w, ba);
  if (cls == "PoissonNLLLoss")
    return std::make_shared<PoissonNLLLoss>(w, flag("from_logits", true), ba,
                                            flag("compute_full", false));
  if (cls == "CosineEmbeddingLoss")
    return std::make_shared<CosineEmbeddingLoss>(w, ba, num("margin", 0));
  ADD_FAILURE() << "unknown loss " << cls;
  return nullptr;
}

json Refs() {
  std::ifstream f("gluon/loss/testdata/losses.json");
  EXPECT_TRUE(f.good()) << "missing gluon/loss/testdata/losses.json";
  return json::parse(f);
}

TEST(MxnetConformance, ValuesAndGradients) {
  json refs = Refs();
  ASSERT_GE(refs["cases"].size(), 30u);
  for (const json& c : refs["cases"]) {
    for (bool hybrid : {false, true}) {
      SCOPED_TRACE(c["name"].get<std::string>() + (hybrid ? " (hybridized)" : " (imperative)"));
      auto loss = MakeLoss(c["loss"], c["kwargs"]);
      ASSERT_TRUE(loss);
      EXPECT_EQ(loss->ToString(), c["repr"].get<std::string>());
      if (hybrid) loss->hybridize();
      NDArrayVec in;
      for (size_t i = 0; i < c["inputs"].size(); ++i) {
        in.push_back(FromJson(c["inputs"][i]));
        if (c["grad"][i].get<bool>()) in.back().attach_grad();
      }
      NDArray out;
      bool with_grad = !c["head_grad"].is_null();
      if (with_grad) {
        auto r = autograd::record();
        out = (*loss)(in)[0];
      } else {
        out = (*loss)(in)[0];
      }
      NDArray want = FromJson(c["output"]);
      ASSERT_EQ(out.shape(), want.shape());
      EXPECT_TRUE(AllClose(out, want, 1e-5, 1e-6));
      if (!with_grad) continue;
      out.backward(FromJson(c["head_grad"]));
      for (size_t i = 0; i < in.size(); ++i) {
        if (c["grads"][i].is_null()) continue;
        EXPECT_TRUE(AllClose(in[i].grad(), FromJson(c["grads"][i]), 1e-4, 1e-6)) << "input " << i;
      }
    }
  }
}

// A hybridized loss keeps working when the batch size changes (the graph is shape-agnostic:
// labels are reshaped with reshape_like, not to a traced shape).
TEST(Loss, HybridizedAcrossBatchSizes) {
  SoftmaxCELoss ce;
  ce.hybridize();
  NDArray a = ce(A({0, 0, 0, 0}, Shape{1, 4}), A({1}, Shape{1}));
  EXPECT_TRUE(AllClose(a, A({float(std::log(4.0))}, Shape{1})));
  NDArray b = ce(A({0, 0, 0, 0, 0, 0, 0, 0}, Shape{2, 4}), A({1, 3}, Shape{2}));
  EXPECT_TRUE(AllClose(b, A({float(std::log(4.0)), float(std::log(4.0))}, Shape{2})));
  L1Loss l1;
  l1.hybridize();
  EXPECT_TRUE(AllClose(l1(A({1, 2}, Shape{2, 1}), A({0, 0}, Shape{2})), A({1, 2}, Shape{2})));
  EXPECT_TRUE(
      AllClose(l1(A({1, 2, 3}, Shape{3, 1}), A({0, 0, 0}, Shape{3})), A({1, 2, 3}, Shape{3})));
}

}  // namespace
}  // namespace mxnet::gluon::loss
