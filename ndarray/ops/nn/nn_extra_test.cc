// Tests of the nn family's legacy extras (nn_sequence.cc, nn_extra.cc): conformance with real
// MXNet 1.9.1 (testdata/nn/extra.json from tools/conformance/gen_nn_refs.py: outputs, gradients,
// aux states), MXNet's documented examples worked by hand, shape inference with unknown dims,
// the aux update of IdentityAttachKLSparseReg, error messages and the nd:: API.
#include <cmath>
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/nn/nn_extra_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

using json = nlohmann::json;
using testing::AllClose;
using testing::CopyAll;
using testing::LoadRefJson;
using testing::ModeScope;
using testing::RandomArray;
using testing::RefArray;
using testing::RefAttrs;
using testing::RefHeadGrads;
using testing::RefInputs;
using testing::SameDTypeAllClose;
// Throws an invalid-argument error naming each of the parts.
constexpr auto& ExpectError = testing::ExpectInvalidArgument;

NDArray F32(std::vector<float> v, Shape s) { return NDArray::FromVector(v, s); }

// float32 inputs: MXNet computes in float32.
double Rtol(const json& c) {
  for (const auto& j : c["inputs"])
    if (j["dtype"] == "float32") return 2e-4;
  return 1e-9;
}
double Atol(const json& c) { return Rtol(c) > 1e-6 ? 2e-5 : 1e-10; }

// ---------------------------------------------------------------------------------------------
// Conformance with MXNet 1.9.1 (same case format and tolerances as nn_test.cc).

TEST(MxnetConformance, ExtraOutputsGradientsAndAuxStates) {
  const json doc = LoadRefJson("ndarray/ops/testdata/nn/extra.json");
  int n_cases = 0, n_grads = 0;
  for (const json& c : doc["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    const Op& op = OpRegistry::Get(c["op"].get<std::string>());
    OpAttrs attrs = OpAttrs::Parse(op, RefAttrs(c));
    std::vector<NDArray> in = RefInputs(c);
    const bool train = c["train"], record = c["record"];
    const int visible = op.NumVisibleOutputs(attrs);
    ASSERT_EQ(visible, static_cast<int>(c["outputs"].size()));

    // Forward with the case's autograd flags: outputs and aux states after the call.
    std::vector<NDArray> cin = CopyAll(in);
    NDArrayVec out;
    {
      ModeScope mode(train, record);
      out = Invoke(op, attrs, cin);
    }
    for (int k = 0; k < visible; ++k) {
      EXPECT_TRUE(SameDTypeAllClose(out[k], RefArray(c["outputs"][k]), Rtol(c) * 5, Atol(c) * 5))
          << "output " << k;
    }
    if (c.contains("aux_after")) {
      for (auto& [idx, a] : c["aux_after"].items()) {
        EXPECT_TRUE(AllClose(cin[std::stoi(idx)], RefArray(a), 1e-5, 1e-6)) << "aux input " << idx;
      }
    }

    // Gradients (the op's FGradient, evaluated eagerly) match MXNet's backward.
    if (c.contains("grads")) {
      ModeScope mode(train, false);
      std::vector<NDArray> gin = CopyAll(in);
      NDArrayVec outs = Invoke(op, attrs, gin);
      std::vector<NDArray> og = RefHeadGrads(c, outs, visible);
      std::vector<NDArray> ov(outs.begin(), outs.end());
      std::vector<NDArray> g = EagerGradBuilder::Run(op, attrs, gin, ov, og);
      for (size_t i = 0; i < in.size(); ++i) {
        if (c["grads"][i].is_null()) continue;
        ASSERT_FALSE(g[i].is_none()) << "no gradient for input " << i;
        EXPECT_TRUE(AllClose(g[i], RefArray(c["grads"][i]), Rtol(c) * 10, Atol(c) * 10))
            << "grad of input " << i;
        ++n_grads;
      }
    }
    ++n_cases;
  }
  EXPECT_GE(n_cases, 40);
  EXPECT_GE(n_grads, 30);
}

// ---------------------------------------------------------------------------------------------
// MXNet's documented examples, by hand.

NDArray Arange(int64_t n, Shape s) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  return F32(v, s);
}

TEST(Sequence, DocumentedExamples) {
  // x = [[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]], [[13, 14, 15], [16, 17, 18]]]
  NDArray x = Arange(18, {3, 2, 3});
  EXPECT_TRUE(AllClose(nd::SequenceMask(x), x, 0, 0));
  NDArray m = nd::SequenceMask(x, F32({2, 3}, {2}), {.value = 1});
  EXPECT_EQ(m.ToVector<float>(),
            (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1, 1, 1, 16, 17, 18}));
  NDArray m1 = nd::SequenceMask(x, F32({1, 1}, {2}));
  EXPECT_EQ(m1.ToVector<float>(),
            (std::vector<float>{1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  NDArray r = nd::SequenceReverse(x, F32({2, 3}, {2}));
  EXPECT_EQ(r.ToVector<float>(),
            (std::vector<float>{7, 8, 9, 16, 17, 18, 1, 2, 3, 10, 11, 12, 13, 14, 15, 4, 5, 6}));
  EXPECT_EQ(nd::SequenceReverse(x).ToVector<float>(),
            (std::vector<float>{13, 14, 15, 16, 17, 18, 7, 8, 9, 10, 11, 12, 1, 2, 3, 4, 5, 6}));
  // SequenceLast on a (3, 3, 3) x = 1..27.
  NDArray y = Arange(27, {3, 3, 3});
  EXPECT_EQ(nd::SequenceLast(y).ToVector<float>(),
            (std::vector<float>{19, 20, 21, 22, 23, 24, 25, 26, 27}));
  NDArray l = nd::SequenceLast(
      y, NDArray::FromVector(std::vector<int>{1, 2, 3}, {3}, cpu(), DType::kInt32));
  EXPECT_EQ(l.ToVector<float>(), (std::vector<float>{1, 2, 3, 13, 14, 15, 25, 26, 27}));
  EXPECT_EQ(l.shape(), (Shape{3, 3}));
  // axis 1: (B, T) with float lengths truncated (1.9 -> 1).
  NDArray b = Arange(6, {2, 3});
  EXPECT_EQ(nd::SequenceLast(b, F32({1.9f, 3}, {2}), {.axis = 1}).ToVector<float>(),
            (std::vector<float>{1, 6}));
  EXPECT_EQ(nd::SequenceMask(b, F32({1.9f, 0}, {2}), {.value = -1, .axis = 1}).ToVector<float>(),
            (std::vector<float>{1, -1, -1, -1, -1, -1}));
  // Integer data keeps its dtype.
  NDArray xi = x.astype(DType::kInt32);
  NDArray mi = nd::SequenceMask(xi, F32({1, 3}, {2}), {.value = -7});
  EXPECT_EQ(mi.dtype(), DType::kInt32);
  EXPECT_EQ(mi.ToVector<int>()[6], -7);
  EXPECT_EQ(mi.ToVector<int>()[9], 10);
}

TEST(Sequence, GradientsScatterMaskAndReverse) {
  NDArray x = RandomArray({3, 2, 2}, -1, 1, 1, DType::kFloat64);
  NDArray len = F32({2, 1}, {2});
  NDArray g = RandomArray({2, 2}, -1, 1, 2, DType::kFloat64);
  const Op& op = OpRegistry::Get("SequenceLast");
  OpAttrs a = OpAttrs::Parse(op, {{"use_sequence_length", "True"}});
  NDArrayVec out = Invoke(op, a, std::vector<NDArray>{x, len});
  std::vector<NDArray> gr = EagerGradBuilder::Run(
      op, a, std::vector<NDArray>{x, len}, std::vector<NDArray>{out[0]}, std::vector<NDArray>{g});
  std::vector<double> d = gr[0].ToVector<double>(), gv = g.ToVector<double>();
  // Example 0 picks t = 1, example 1 picks t = 0; everything else is 0.
  EXPECT_EQ(d, (std::vector<double>{0, 0, gv[2], gv[3], gv[0], gv[1], 0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(gr[1].is_none());  // no gradient for sequence_length
}

TEST(L2Normalization, DocumentedExamples) {
  NDArray x = F32({1, 2, 3, 4, 2, 2, 5, 6}, {2, 2, 2});
  EXPECT_TRUE(AllClose(nd::L2Normalization(x),
                       F32({0.18257418f, 0.36514837f, 0.54772252f, 0.73029673f, 0.24077171f,
                            0.24077171f, 0.60192931f, 0.72231513f},
                           {2, 2, 2}),
                       1e-6, 1e-7));
  EXPECT_TRUE(AllClose(nd::L2Normalization(x, {.mode = "channel"}),
                       F32({0.31622776f, 0.44721359f, 0.94868326f, 0.89442718f, 0.37139067f,
                            0.31622776f, 0.92847669f, 0.94868326f},
                           {2, 2, 2}),
                       1e-6, 1e-7));
  EXPECT_TRUE(AllClose(
      nd::L2Normalization(x, {.mode = "spatial"}),
      F32({0.44721359f, 0.89442718f, 0.6f, 0.8f, 0.70710677f, 0.70710677f, 0.6401844f, 0.76822126f},
          {2, 2, 2}),
      1e-6, 1e-7));
  // eps sits under the square root: [3, 4] / sqrt(25 + 11).
  EXPECT_TRUE(AllClose(nd::L2Normalization(F32({3, 4}, {1, 2}), {.eps = 11}),
                       F32({0.5f, 4.f / 6}, {1, 2}), 1e-6, 1e-7));
}

TEST(LRN, ByHand) {
  // One position, 5 channels: window [c - 1, c + 1], alpha / nsize scaling.
  std::vector<float> a{-1.5f, 0.5f, 2.f, -0.25f, 1.f};
  NDArray x = F32(a, {1, 5, 1, 1});
  std::vector<float> y =
      nd::LRN(x, 3, {.alpha = 0.5f, .beta = 0.75f, .knorm = 2}).ToVector<float>();
  for (int c = 0; c < 5; ++c) {
    double s = 0;
    for (int j = std::max(0, c - 1); j <= std::min(4, c + 1); ++j) s += a[j] * a[j];
    EXPECT_NEAR(y[c], a[c] * std::pow(2 + 0.5 / 3 * s, -0.75), 1e-6) << c;
  }
  // Even nsize 2: the window is the channel itself (MXNet's oneDNN kernel), alpha / 2.
  std::vector<float> e = nd::LRN(x, 2, {.alpha = 1, .beta = 1, .knorm = 1}).ToVector<float>();
  for (int c = 0; c < 5; ++c) EXPECT_NEAR(e[c], a[c] / (1 + a[c] * a[c] / 2), 1e-6) << c;
}

TEST(HardSigmoid, ClipsAndGradientIsStrictlyInside) {
  NDArray x = F32({-2.5f, 2.5f, -3, 3, 0, 1, -2.4999f}, {7});
  EXPECT_TRUE(AllClose(nd::hard_sigmoid(x), F32({0, 1, 0, 1, 0.5f, 0.7f, 1.9967556e-05f}, {7}),
                       1e-5, 1e-7));
  const Op& op = OpRegistry::Get("hard_sigmoid");
  OpAttrs a = OpAttrs::Parse(op, {});
  NDArray y = nd::hard_sigmoid(x);
  std::vector<NDArray> g =
      EagerGradBuilder::Run(op, a, std::vector<NDArray>{x}, std::vector<NDArray>{y},
                            std::vector<NDArray>{NDArray::Full({7}, 1)});
  // MXNet 1.9.1: 0 at the clipping boundaries +-2.5.
  EXPECT_TRUE(AllClose(g[0], F32({0, 0, 0, 0, 0.2f, 0.2f, 0.2f}, {7}), 0, 1e-7));
}

std::vector<NDArray> LossGrad(const std::string& name, const AttrDict& ad,
                              std::vector<NDArray> in) {
  const Op& op = OpRegistry::Get(name);
  OpAttrs a = OpAttrs::Parse(op, ad);
  NDArrayVec out = Invoke(op, a, in);
  std::vector<NDArray> og;  // head gradients of 5: ignored by the loss layers
  for (const auto& o : out) og.push_back(NDArray::Full(o.shape(), 5, cpu(), o.dtype()));
  return EagerGradBuilder::Run(op, a, in, std::vector<NDArray>(out.begin(), out.end()), og);
}

TEST(MakeLoss, GradientIgnoresTheHeadGradient) {
  NDArray x = F32({0.5f, -1, 2, 0, 3, 0.1f}, {2, 3});
  EXPECT_TRUE(AllClose(nd::MakeLoss(x), x, 0, 0));
  EXPECT_TRUE(AllClose(LossGrad("MakeLoss", {}, {x})[0], NDArray::Full({2, 3}, 1), 0, 0));
  EXPECT_TRUE(
      AllClose(LossGrad("MakeLoss", {{"normalization", "batch"}, {"grad_scale", "2"}}, {x})[0],
               NDArray::Full({2, 3}, 1), 0, 0));
  // valid: 3 elements exceed 0.1 (0.1 itself does not).
  EXPECT_TRUE(
      AllClose(LossGrad("MakeLoss", {{"normalization", "valid"}, {"valid_thresh", "0.1"}}, {x})[0],
               NDArray::Full({2, 3}, 1.0 / 3), 1e-6, 0));
  // None valid: divided by 1. batch on (2, 3, 4): 6 rows of MXNet's 2-D view.
  EXPECT_TRUE(
      AllClose(LossGrad("MakeLoss", {{"normalization", "valid"}, {"valid_thresh", "100"}}, {x})[0],
               NDArray::Full({2, 3}, 1), 0, 0));
  EXPECT_TRUE(
      AllClose(LossGrad("MakeLoss", {{"normalization", "batch"}}, {NDArray::Full({2, 3, 4}, 1)})[0],
               NDArray::Full({2, 3, 4}, 1.0 / 6), 1e-6, 0));
}

TEST(SVMOutput, HingeGradientsByHand) {
  NDArray x = F32({0.5f, -1, 2, 0, 3, -0.1f}, {2, 3});
  NDArray l = F32({2, 0}, {2});
  EXPECT_TRUE(AllClose(nd::SVMOutput(x, l), x, 0, 0));
  auto g = LossGrad("SVMOutput", {}, {x, l});
  EXPECT_TRUE(AllClose(g[0], F32({3, 0, 0, -2, 8, 1.8f}, {2, 3}), 1e-6, 1e-7));
  EXPECT_TRUE(AllClose(g[1], NDArray::Full({2}, 0), 0, 0));
  g = LossGrad("SVMOutput", {{"use_linear", "True"}}, {x, l});
  EXPECT_TRUE(AllClose(g[0], F32({1, 0, 0, -1, 1, 1}, {2, 3}), 0, 0));
  g = LossGrad("SVMOutput", {{"margin", "0.5"}, {"regularization_coefficient", "2"}}, {x, l});
  EXPECT_TRUE(AllClose(g[0], F32({4, 0, 0, -2, 14, 1.6f}, {2, 3}), 1e-6, 1e-7));
}

TEST(Moments, DocumentedExamples) {
  NDArray x = F32({1, 2, 3, 4, 5, 6}, {2, 3});
  auto [m0, v0] = nd::moments(x, {.axes = Shape{0}});
  EXPECT_TRUE(AllClose(m0, F32({2.5f, 3.5f, 4.5f}, {3}), 1e-6, 0));
  EXPECT_TRUE(AllClose(v0, F32({2.25f, 2.25f, 2.25f}, {3}), 1e-6, 0));
  auto [m1, v1] = nd::moments(x, {.axes = Shape{1}});
  EXPECT_TRUE(AllClose(m1, F32({2, 5}, {2}), 1e-6, 0));
  EXPECT_TRUE(AllClose(v1, F32({0.66666667f, 0.66666667f}, {2}), 1e-6, 0));
  auto [m2, v2] = nd::moments(x, {.axes = Shape{0, 1}});
  EXPECT_EQ(m2.shape(), (Shape{1}));
  EXPECT_TRUE(AllClose(v2, F32({2.9166667f}, {1}), 1e-6, 0));
  auto [mk, vk] = nd::moments(x, {.axes = Shape{-1}, .keepdims = true});
  EXPECT_EQ(vk.shape(), (Shape{2, 1}));
  // Integer data: truncated integer mean and variance (MXNet's): [0, 4, 8] -> 4, 32 / 3 -> 10.
  NDArray xi = NDArray::FromVector(std::vector<int>{0, 4, 8}, {1, 3}, cpu(), DType::kInt32);
  auto [mi, vi] = nd::moments(xi, {.axes = Shape{1}});
  EXPECT_EQ(mi.dtype(), DType::kInt32);
  EXPECT_EQ(mi.ToVector<int>(), (std::vector<int>{4}));
  EXPECT_EQ(vi.ToVector<int>(), (std::vector<int>{10}));
}

// ---------------------------------------------------------------------------------------------
// IdentityAttachKLSparseReg's aux state.

TEST(IdentityAttachKLSparseReg, MovingAverageUpdatesOnlyWhenRecorded) {
  NDArray x = RandomArray({3, 4}, 0.1, 0.9, 5, DType::kFloat32);
  NDArray mv = NDArray::Full({4}, 0.3);
  {
    ModeScope mode(true, false);
    EXPECT_TRUE(AllClose(nd::IdentityAttachKLSparseReg(x, mv), x, 0, 0));
  }
  EXPECT_TRUE(AllClose(mv, NDArray::Full({4}, 0.3), 0, 0));
  std::vector<float> xv = x.ToVector<float>();
  std::vector<float> want(4);
  for (int c = 0; c < 4; ++c) want[c] = 0.9f * 0.3f + 0.1f * (xv[c] + xv[4 + c] + xv[8 + c]) / 3;
  {
    ModeScope mode(false, true);  // recorded, predict mode: MXNet updates in backward anyway
    nd::IdentityAttachKLSparseReg(x, mv);
  }
  EXPECT_TRUE(AllClose(mv, F32(want, {4}), 1e-6, 1e-7));
  // The gradient uses the updated average: g + penalty * (-t / m + (1 - t) / (1 - m)).
  const Op& op = OpRegistry::Get("IdentityAttachKLSparseReg");
  OpAttrs a = OpAttrs::Parse(op, {{"penalty", "0.01"}});
  NDArray mv2 = NDArray::Full({4}, 0.3);
  NDArrayVec out = Invoke(op, a, std::vector<NDArray>{x, mv2});
  std::vector<NDArray> g = EagerGradBuilder::Run(
      op, a, std::vector<NDArray>{x, mv2}, std::vector<NDArray>(out.begin(), out.end()),
      std::vector<NDArray>{NDArray::Full({3, 4}, 2), NDArray::Full({4}, 0)});
  std::vector<float> gv = g[0].ToVector<float>();
  for (int c = 0; c < 4; ++c)
    EXPECT_NEAR(gv[4 + c], 2 + 0.01 * (-0.1 / want[c] + 0.9 / (1 - want[c])), 1e-5);
  EXPECT_TRUE(g[1].is_none());
  EXPECT_TRUE(op.IsMutableInput(1));
}

// ---------------------------------------------------------------------------------------------
// Shape inference with unknown inputs.

TEST(Inference, LengthLabelAndAuxShapesComeFromData) {
  auto infer = [](const std::string& name, const AttrDict& ad, ShapeVec in) {
    const Op& op = OpRegistry::Get(name);
    OpAttrs a = OpAttrs::Parse(op, ad);
    DTypeVec tin(in.size(), DTypeFlag(DType::kFloat32)), tout;
    ShapeVec out;
    InferOutputs(op, a, &in, &tin, &out, &tout);
    return std::make_pair(in, out);
  };
  auto [i1, o1] = infer("SequenceMask", {{"use_sequence_length", "True"}, {"axis", "1"}},
                        {Shape{4, 7, 2}, Shape::Unknown()});
  EXPECT_EQ(i1[1], (Shape{4}));
  auto [i2, o2] =
      infer("SequenceLast", {{"use_sequence_length", "True"}}, {Shape{5, 3, 2}, Shape::Unknown()});
  EXPECT_EQ(i2[1], (Shape{3}));
  EXPECT_EQ(o2[0], (Shape{3, 2}));
  auto [i3, o3] = infer("SVMOutput", {}, {Shape{2, 3, 4}, Shape::Unknown()});
  EXPECT_EQ(i3[1], (Shape{2, 3}));
  auto [i4, o4] = infer("IdentityAttachKLSparseReg", {}, {Shape{8, 5}, Shape::Unknown()});
  EXPECT_EQ(i4[1], (Shape{5}));
  auto [i5, o5] = infer("L2Normalization", {{"mode", "channel"}}, {Shape{2, 3, 4, 5}});
  EXPECT_EQ(o5[1], (Shape{2, 1, 4, 5}));
  auto [i6, o6] = infer("moments", {{"axes", "(0, 2)"}, {"keepdims", "True"}}, {Shape{2, 3, 4}});
  EXPECT_EQ(o6[0], (Shape{1, 3, 1}));
  EXPECT_EQ(o6[1], (Shape{1, 3, 1}));
}

// ---------------------------------------------------------------------------------------------
// Errors name the op, the input or attribute, and the shapes.

TEST(Errors, NameOpAttributeAndShape) {
  NDArray x = RandomArray({4, 3, 2}, -1, 1, 1, DType::kFloat32);
  // Wrong sequence_length shapes.
  ExpectError(
      [&] {
        nd::SequenceMask(x, F32({1, 2}, {2}));
      },
      {"SequenceMask", "sequence_length", "(2,)", "(3,)", "(4, 3, 2)"});
  ExpectError(
      [&] {
        nd::SequenceLast(x, F32({1, 2, 3}, {1, 3}));
      },
      {"SequenceLast", "sequence_length", "(1, 3)", "(3,)"});
  ExpectError(
      [&] {
        nd::SequenceMask(x, F32({1, 2, 3}, {3}), {.axis = 1});
      },
      {"SequenceMask", "sequence_length", "(3,)", "(4,)", "axis=1"});
  // Missing / extra inputs, axis, rank, out-of-range lengths.
  ExpectError(
      [&] {
        Invoke("SequenceMask", std::vector<NDArray>{x}, {{"use_sequence_length", "True"}});
      },
      {"SequenceMask", "sequence_length"});
  ExpectError([&] { nd::SequenceReverse(x, {.axis = 1}); }, {"SequenceReverse", "axis", "1"});
  ExpectError([&] { nd::SequenceLast(x, {.axis = 2}); }, {"SequenceLast", "axis", "2"});
  ExpectError(
      [&] {
        nd::SequenceMask(F32({1, 2, 3}, {3}));
      },
      {"SequenceMask", "2 dimensions", "(3,)"});
  ExpectError(
      [&] {
        nd::SequenceLast(x, F32({1, 0, 2}, {3}));
      },
      {"SequenceLast", "sequence_length[1]", "[1, 4]"});
  ExpectError(
      [&] {
        nd::SequenceReverse(x, F32({1, 5, 2}, {3}));
      },
      {"SequenceReverse", "sequence_length[1]", "5", "[0, 4]"});
  // Bad mode strings, through the options struct and the string form.
  ExpectError([&] { nd::L2Normalization(x, {.mode = "batch"}); },
              {"L2Normalization", "mode", "batch", "instance"});
  ExpectError(
      [&] {
        Invoke("L2Normalization", std::vector<NDArray>{x}, {{"mode", "bad"}});
      },
      {"L2Normalization", "mode", "bad", "spatial"});
  ExpectError(
      [&] {
        nd::L2Normalization(F32({1, 2}, {1, 2}), {.mode = "channel"});
      },
      {"L2Normalization", "channel", "3 dimensions", "(1, 2)"});
  ExpectError([&] { nd::L2Normalization(x.astype(DType::kInt32)); },
              {"L2Normalization", "floating-point", "int32"});
  ExpectError([&] { nd::MakeLoss(x, {.normalization = "mean"}); },
              {"MakeLoss", "normalization", "mean"});
  ExpectError([&] { nd::LRN(x, 3); }, {"LRN", "4-D", "(4, 3, 2)"});
  ExpectError([&] { nd::LRN(x.reshape({1, 4, 3, 2}), 0); }, {"LRN", "nsize", "0"});
  ExpectError(
      [&] {
        Invoke("LRN", std::vector<NDArray>{x.reshape({1, 4, 3, 2})}, {});
      },
      {"LRN", "nsize"});
  ExpectError([&] { nd::hard_sigmoid(x.astype(DType::kInt32)); },
              {"hard_sigmoid", "floating-point", "int32"});
  ExpectError(
      [&] {
        nd::SVMOutput(x, F32({1, 2, 3}, {3}));
      },
      {"SVMOutput", "label", "(3,)", "(4, 3)"});
  ExpectError(
      [&] {
        nd::SVMOutput(x, NDArray::Full({4, 3}, 0, cpu(), DType::kFloat64));
      },
      {"SVMOutput", "label", "float64"});
  ExpectError([&] { nd::moments(x, {}); }, {"moments", "axes"});
  ExpectError([&] { nd::moments(x, {.axes = Shape{0, -3}}); }, {"moments", "axes", "twice"});
  ExpectError([&] { nd::moments(x, {.axes = Shape{3}}); }, {"moments", "axis 3", "(4, 3, 2)"});
  ExpectError([&] { nd::IdentityAttachKLSparseReg(x, NDArray::Full({3}, 0.5)); },
              {"IdentityAttachKLSparseReg", "2-D", "(4, 3, 2)"});
  ExpectError(
      [&] {
        nd::IdentityAttachKLSparseReg(NDArray::Full({4, 3}, 0.5), NDArray::Full({4}, 0.5));
      },
      {"IdentityAttachKLSparseReg", "moving_avg", "(4,)", "(3,)"});
  ExpectError(
      [&] {
        nd::IdentityAttachKLSparseReg(NDArray::Full({4, 3}, 0.5), NDArray::Full({3}, 0.5),
                                      {.sparseness_target = 1.5f});
      },
      {"IdentityAttachKLSparseReg", "sparseness_target", "1.5"});
}

// ---------------------------------------------------------------------------------------------
// Names and attribute strings.

TEST(Api, InputNamesAndAttributeStrings) {
  const Op& mask = OpRegistry::Get("SequenceMask");
  OpAttrs a = OpAttrs::Parse(mask, {{"use_sequence_length", "True"}, {"value", "-1"}});
  EXPECT_EQ(mask.InputNames(a), (std::vector<std::string>{"data", "sequence_length"}));
  EXPECT_EQ(mask.InputNames(OpAttrs::Parse(mask, {})), (std::vector<std::string>{"data"}));
  EXPECT_EQ(a.ToDict(), (AttrDict{{"use_sequence_length", "True"}, {"value", "-1.0"}}));
  const Op& l2 = OpRegistry::Get("L2Normalization");
  OpAttrs l2a = OpAttrs::Parse(l2, {});
  EXPECT_EQ(l2.NumVisibleOutputs(l2a), 1);
  EXPECT_EQ(l2.OutputNames(l2a), (std::vector<std::string>{"output", "norm"}));
  EXPECT_EQ(
      OpRegistry::Get("SVMOutput").InputNames(OpAttrs::Parse(OpRegistry::Get("SVMOutput"), {})),
      (std::vector<std::string>{"data", "label"}));
  const Op& kl = OpRegistry::Get("IdentityAttachKLSparseReg");
  EXPECT_EQ(kl.InputNames(OpAttrs::Parse(kl, {})),
            (std::vector<std::string>{"data", "moving_avg"}));
  const Op& mom = OpRegistry::Get("moments");
  OpAttrs ma = OpAttrs::From(mom, ops::MomentsParam{.axes = Shape{0, 2}, .keepdims = true});
  EXPECT_EQ(ma.ToDict(), (AttrDict{{"axes", "(0, 2)"}, {"keepdims", "True"}}));
  EXPECT_EQ(mom.NumVisibleOutputs(ma), 2);
  const Op& lrn = OpRegistry::Get("LRN");
  EXPECT_EQ(OpAttrs::From(lrn, ops::LRNParam{.nsize = 5}).ToDict(), (AttrDict{{"nsize", "5"}}));
}

}  // namespace
}  // namespace mxnet
