// Tests of RNN and CTCLoss: conformance with real MXNet 1.9.1 (testdata/nn/rnn.json from
// tools/conformance/gen_nn_refs.py: outputs and gradients), variable sequence lengths against
// per-sample truncated runs (MXNet's CPU build cannot produce them), LSTM state clipping,
// dropout between layers, hand-computed CTC values, shape inference and errors.
#include <cmath>
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/nn/nn_rnn_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

using json = nlohmann::json;
using testing::AllClose;
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

// ---------------------------------------------------------------------------------------------
// Conformance with MXNet 1.9.1. (No rnn_relu float64 case: MXNet's CPU relu cell rounds to
// float32, so its float64 values are only float32-accurate; ours stay in float64.)

TEST(MxnetConformance, RnnAndCtcOutputsAndGradients) {
  const json doc = LoadRefJson("ndarray/ops/testdata/nn/rnn.json");
  int n_cases = 0, n_grads = 0;
  for (const json& c : doc["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    const Op& op = OpRegistry::Get(c["op"].get<std::string>());
    const OpAttrs attrs = OpAttrs::Parse(op, RefAttrs(c));
    std::vector<NDArray> in = RefInputs(c);
    const bool f64 = in[0].dtype() == DType::kFloat64;
    const double rtol = f64 ? 1e-9 : 1e-3, atol = f64 ? 1e-10 : 1e-5;
    ModeScope mode(c["train"].get<bool>(), false);
    NDArrayVec outs = Invoke(op, attrs, in);
    const int visible = op.NumVisibleOutputs(attrs);
    ASSERT_EQ(visible, static_cast<int>(c["outputs"].size()));
    for (int k = 0; k < visible; ++k) {
      EXPECT_TRUE(SameDTypeAllClose(outs[k], RefArray(c["outputs"][k]), rtol, atol))
          << "output " << k;
    }
    if (c.contains("grads")) {
      std::vector<NDArray> og = RefHeadGrads(c, outs, visible);
      std::vector<NDArray> ov(outs.begin(), outs.end());
      std::vector<NDArray> g = EagerGradBuilder::Run(op, attrs, in, ov, og);
      for (size_t i = 0; i < in.size(); ++i) {
        if (c["grads"][i].is_null()) continue;
        ASSERT_FALSE(g[i].is_none()) << "no gradient for input " << i;
        EXPECT_TRUE(AllClose(g[i], RefArray(c["grads"][i]), rtol * 5, atol * 5))
            << "grad of input " << i;
        ++n_grads;
      }
    }
    ++n_cases;
  }
  EXPECT_GE(n_cases, 25);
  EXPECT_GE(n_grads, 50);
}

// ---------------------------------------------------------------------------------------------
// RNN helpers.

struct Net {
  ops::RNNParam p;
  int64_t T, N, C;
  NDArray x, w, h0, c0;
};

Net MakeNet(const std::string& mode, int64_t T, int64_t N, int64_t C, int H, int L, bool bidir,
            uint64_t seed) {
  Net n;
  n.p.mode = mode, n.p.state_size = H, n.p.num_layers = L, n.p.bidirectional = bidir;
  n.p.state_outputs = true;
  n.T = T, n.N = N, n.C = C;
  const int64_t D = bidir ? 2 : 1;
  n.x = RandomArray({T, N, C}, -1, 1, seed);
  n.w = RandomArray({ops::RNNParamSize(n.p, C)}, -0.5, 0.5, seed + 1);
  n.h0 = RandomArray({L * D, N, H}, -1, 1, seed + 2);
  if (mode == "lstm") n.c0 = RandomArray({L * D, N, H}, -1, 1, seed + 3);
  return n;
}

// Rows [t0, t1) of sample n of a (T, N, X) array, as (t1 - t0, 1, X).
NDArray TakeSample(const NDArray& a, int64_t n, int64_t t1) {
  const Shape& s = a.shape();
  std::vector<double> v = a.ToVector<double>(), r;
  for (int64_t t = 0; t < t1; ++t)
    for (int64_t k = 0; k < s[2]; ++k) r.push_back(v[(t * s[1] + n) * s[2] + k]);
  return NDArray::FromVector(r, {t1, 1, s[2]}, cpu(), a.dtype());
}

std::vector<double> SampleVals(const NDArray& a, int64_t n, int64_t t0, int64_t t1) {
  const Shape& s = a.shape();
  std::vector<double> v = a.ToVector<double>(), r;
  for (int64_t t = t0; t < t1; ++t)
    for (int64_t k = 0; k < s[2]; ++k) r.push_back(v[(t * s[1] + n) * s[2] + k]);
  return r;
}

void ExpectNear(const std::vector<double>& a, const std::vector<double>& b, double tol,
                const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << what << " [" << i << "]";
}

// Outputs and gradients of RNN (all its inputs) for head gradients `og` (visible outputs).
struct Run {
  NDArrayVec out;
  std::vector<NDArray> grads;
};
Run RunWithGrads(const ops::RNNParam& p, std::vector<NDArray> in, const std::vector<NDArray>& og) {
  const Op& op = OpRegistry::Get("RNN");
  const OpAttrs attrs = OpAttrs::From(op, p);
  Run r;
  r.out = Invoke(op, attrs, in);
  std::vector<NDArray> ov(r.out.begin(), r.out.end());
  r.grads = EagerGradBuilder::Run(op, attrs, in, ov, og);
  return r;
}

// use_sequence_length == running each sample alone on its first len steps: outputs, zeros past
// the length, final states, and every gradient (parameter gradients summed over samples).
void CheckSequenceLengths(const std::string& mode, int L, bool bidir) {
  SCOPED_TRACE(mode + (bidir ? " bidirectional" : "") + " L=" + std::to_string(L));
  Net net = MakeNet(mode, 5, 3, 2, 3, L, bidir, 11);
  const std::vector<double> lens{5, 2, 3};
  const bool lstm = mode == "lstm";
  const int64_t D = bidir ? 2 : 1, LD = L * D, H = 3;
  ops::RNNParam pv = net.p;
  pv.use_sequence_length = true;
  std::vector<NDArray> in{net.x, net.w, net.h0};
  if (lstm) in.push_back(net.c0);
  in.push_back(NDArray::FromVector(lens, {3}, cpu(), DType::kInt64));
  std::vector<NDArray> og{RandomArray({5, 3, D * H}, -1, 1, 21),
                          RandomArray({LD, 3, H}, -1, 1, 22)};
  if (lstm) og.push_back(RandomArray({LD, 3, H}, -1, 1, 23));
  Run full = RunWithGrads(pv, in, og);
  std::vector<double> dw_sum(net.w.size(), 0.0);
  for (int64_t n = 0; n < 3; ++n) {
    const int64_t len = static_cast<int64_t>(lens[n]);
    auto state = [&](const NDArray& a) { return TakeSample(a.reshape({LD, 3, H}), n, LD); };
    std::vector<NDArray> sin{TakeSample(net.x, n, len), net.w, state(net.h0).reshape({LD, 1, H})};
    if (lstm) sin.push_back(state(net.c0).reshape({LD, 1, H}));
    std::vector<NDArray> sog{TakeSample(og[0], n, len), state(og[1]).reshape({LD, 1, H})};
    if (lstm) sog.push_back(state(og[2]).reshape({LD, 1, H}));
    Run one = RunWithGrads(net.p, sin, sog);
    const std::string s = "sample " + std::to_string(n);
    ExpectNear(SampleVals(full.out[0], n, 0, len), one.out[0].ToVector<double>(), 1e-12,
               s + " out");
    ExpectNear(SampleVals(full.out[0], n, len, 5), std::vector<double>((5 - len) * D * H, 0.0), 0,
               s + " out past length");
    ExpectNear(SampleVals(full.out[1], n, 0, LD), one.out[1].ToVector<double>(), 1e-12, s + " hy");
    if (lstm)
      ExpectNear(SampleVals(full.out[2], n, 0, LD), one.out[2].ToVector<double>(), 1e-12,
                 s + " cy");
    ExpectNear(SampleVals(full.grads[0], n, 0, len), one.grads[0].ToVector<double>(), 1e-12,
               s + " ddata");
    ExpectNear(SampleVals(full.grads[0], n, len, 5), std::vector<double>((5 - len) * 2, 0.0), 0,
               s + " ddata past length");
    ExpectNear(SampleVals(full.grads[2], n, 0, LD), one.grads[2].ToVector<double>(), 1e-12,
               s + " dstate");
    if (lstm)
      ExpectNear(SampleVals(full.grads[3], n, 0, LD), one.grads[3].ToVector<double>(), 1e-12,
                 s + " dstate_cell");
    std::vector<double> dw = one.grads[1].ToVector<double>();
    for (size_t i = 0; i < dw.size(); ++i) dw_sum[i] += dw[i];
  }
  ExpectNear(full.grads[1].ToVector<double>(), dw_sum, 1e-11, "dparameters");
  EXPECT_TRUE(full.grads.back().is_none()) << "sequence_length has no gradient";
}

TEST(RNN, SequenceLengthsMatchTruncatedRuns) {
  CheckSequenceLengths("gru", 1, true);
  CheckSequenceLengths("lstm", 2, true);
  CheckSequenceLengths("rnn_tanh", 2, false);
}

TEST(RNN, FullSequenceLengthsEqualNoLengths) {
  Net net = MakeNet("lstm", 4, 2, 3, 2, 2, true, 5);
  NDArrayVec a = nd::RNN(net.x, net.w, net.h0, net.c0, net.p);
  NDArrayVec b =
      nd::RNN(net.x, net.w, net.h0, net.c0,
              NDArray::FromVector(std::vector<double>{4, 4}, {2}, cpu(), DType::kInt32), net.p);
  ASSERT_EQ(a.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(AllClose(a[k], b[k], 0, 0)) << k;
}

TEST(RNN, LstmStateClipping) {
  Net net = MakeNet("lstm", 6, 2, 3, 4, 1, false, 9);
  net.w = RandomArray({net.w.size()}, -2, 2, 3);  // large weights: cell states beyond +-1
  NDArrayVec plain = nd::RNN(net.x, net.w, net.h0, net.c0, net.p);
  std::vector<double> c = plain[2].ToVector<double>();
  EXPECT_GT(*std::max_element(c.begin(), c.end(),
                              [](double a, double b) { return std::abs(a) < std::abs(b); }),
            0.5);
  ops::RNNParam wide = net.p;
  wide.lstm_state_clip_min = -1e6, wide.lstm_state_clip_max = 1e6;
  NDArrayVec same = nd::RNN(net.x, net.w, net.h0, net.c0, wide);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(AllClose(same[k], plain[k], 0, 0));
  ops::RNNParam tight = net.p;
  tight.lstm_state_clip_min = -0.25, tight.lstm_state_clip_max = 0.25;
  NDArrayVec clipped = nd::RNN(net.x, net.w, net.h0, net.c0, tight);
  for (double v : clipped[2].ToVector<double>()) {
    EXPECT_GE(v, -0.25);
    EXPECT_LE(v, 0.25);
  }
  // h = o * tanh(c) with |c| <= 0.25.
  for (double v : clipped[1].ToVector<double>()) EXPECT_LE(std::abs(v), std::tanh(0.25) + 1e-12);
  EXPECT_FALSE(AllClose(clipped[0], plain[0], 1e-3, 1e-3));
}

TEST(RNN, DropoutBetweenLayersOnlyInTraining) {
  Net net = MakeNet("gru", 8, 16, 4, 8, 2, false, 4);
  ops::RNNParam drop = net.p;
  drop.p = 0.5;
  NDArrayVec ref = nd::RNN(net.x, net.w, net.h0, net.p);
  {
    ModeScope predict(false, false);
    NDArrayVec pr = nd::RNN(net.x, net.w, net.h0, drop);
    for (int k = 0; k < 2; ++k) EXPECT_TRUE(AllClose(pr[k], ref[k], 0, 0));
  }
  ModeScope train(true, false);
  const Op& op = OpRegistry::Get("RNN");
  NDArrayVec all = Invoke(op, OpAttrs::From(op, drop), std::vector<NDArray>{net.x, net.w, net.h0});
  ASSERT_EQ(all.size(), 3u);  // output, state_output, hidden mask
  EXPECT_EQ(all[2].shape(), (Shape{1, 8, 16, 8}));
  int zeros = 0;
  for (double m : all[2].ToVector<double>()) {
    EXPECT_TRUE(m == 0.0 || m == 2.0) << m;
    zeros += m == 0.0;
  }
  EXPECT_NEAR(zeros / 1024.0, 0.5, 0.06);
  EXPECT_FALSE(AllClose(all[0], ref[0], 1e-3, 1e-3));
  // The first layer's final state does not see the dropout.
  std::vector<double> a = all[1].ToVector<double>(), b = ref[1].ToVector<double>();
  ExpectNear(std::vector<double>(a.begin(), a.begin() + 128),
             std::vector<double>(b.begin(), b.begin() + 128), 1e-12, "layer 0 hy");
}

TEST(RNN, Float32AndFloat16MatchFloat64) {
  Net net = MakeNet("lstm", 5, 3, 4, 6, 2, true, 12);
  NDArrayVec d = nd::RNN(net.x, net.w, net.h0, net.c0, net.p);
  for (DType t : {DType::kFloat32, DType::kFloat16}) {
    NDArrayVec f =
        nd::RNN(net.x.astype(t), net.w.astype(t), net.h0.astype(t), net.c0.astype(t), net.p);
    const double tol = t == DType::kFloat32 ? 1e-5 : 3e-3;
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(f[k].dtype(), t);
      EXPECT_TRUE(AllClose(f[k].astype(DType::kFloat64), d[k], tol, tol)) << k;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Inference and errors.

void Infer(const std::string& op_name, const AttrDict& attrs, ShapeVec* in, ShapeVec* out) {
  const Op& op = OpRegistry::Get(op_name);
  OpAttrs a = OpAttrs::Parse(op, attrs);
  DTypeVec tin(in->size(), DTypeFlag(DType::kFloat32)), tout;
  if (attrs.count("use_sequence_length")) tin.back() = DTypeFlag(DType::kInt32);
  InferOutputs(op, a, in, &tin, out, &tout);
}

TEST(Inference, RnnParameterAndStateShapesComeFromData) {
  ShapeVec in{Shape{7, 4, 5}, Shape::Unknown(), Shape::Unknown(), Shape::Unknown(),
              Shape::Unknown()},
      out;
  Infer("RNN",
        {{"state_size", "6"},
         {"num_layers", "2"},
         {"mode", "lstm"},
         {"bidirectional", "True"},
         {"state_outputs", "True"},
         {"use_sequence_length", "True"}},
        &in, &out);
  // (5 + 6 + 2) * 24 * 2 for layer 0, (12 + 6 + 2) * 24 * 2 for layer 1.
  EXPECT_EQ(in[1], (Shape{13 * 24 * 2 + 20 * 24 * 2}));
  EXPECT_EQ(in[2], (Shape{4, 4, 6}));
  EXPECT_EQ(in[3], (Shape{4, 4, 6}));
  EXPECT_EQ(in[4], (Shape{4}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0], (Shape{7, 4, 12}));
  EXPECT_EQ(out[1], (Shape{4, 4, 6}));
  in = {Shape{3, 2, 4}, Shape::Unknown(), Shape::Unknown()};
  Infer("_npx_rnn", {{"state_size", "5"}, {"num_layers", "1"}, {"mode", "gru"}}, &in, &out);
  EXPECT_EQ(in[1], (Shape{(4 + 5 + 2) * 15}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (Shape{3, 2, 5}));
  in = {Shape{3, 2, 4}, Shape::Unknown(), Shape::Unknown(), Shape::Unknown()};
  Infer("RNN",
        {{"state_size", "5"},
         {"num_layers", "2"},
         {"mode", "lstm"},
         {"projection_size", "3"},
         {"state_outputs", "True"}},
        &in, &out);
  EXPECT_EQ(in[1], (Shape{(4 + 3 + 2) * 20 + 15 + (3 + 3 + 2) * 20 + 15}));
  EXPECT_EQ(in[2], (Shape{2, 2, 3}));
  EXPECT_EQ(in[3], (Shape{2, 2, 5}));
  EXPECT_EQ(out[0], (Shape{3, 2, 3}));
  EXPECT_EQ(out[2], (Shape{2, 2, 5}));
  in = {Shape{6, 3, 5}, Shape{3, 4}, Shape::Unknown()};
  Infer("CTCLoss", {}, &in, &out);
  EXPECT_EQ(out[0], (Shape{3}));
  EXPECT_EQ(out[1], (Shape{6, 3, 5}));
}

TEST(Errors, RnnAndCtcNameOpInputAndShape) {
  Net net = MakeNet("gru", 3, 2, 4, 5, 1, false, 1);
  ExpectError([&] { nd::RNN(net.x, NDArray::Full({7}, 0), net.h0, net.p); },
              {"RNN", "parameters", "(7,)", "(165,)", "mode=gru"});
  ExpectError(
      [&] {
        nd::RNN(net.x, net.w, NDArray::Full({1, 3, 5}, 0), net.p);
      },
      {"RNN", "state", "(1, 3, 5)", "(1, 2, 5)"});
  ExpectError(
      [&] {
        Invoke("RNN", std::vector<NDArray>{net.x, net.w, net.h0},
               {{"state_size", "5"}, {"num_layers", "1"}, {"mode", "foo"}});
      },
      {"RNN", "mode", "foo", "lstm"});
  ExpectError(
      [&] {
        nd::RNN(NDArray::Full({3, 4}, 0), net.w, net.h0, net.p);
      },
      {"RNN", "3-D", "(3, 4)"});
  ExpectError([&] { nd::RNN(net.x, net.w, net.h0, net.h0, net.p); }, {"RNN", "state_cell", "gru"});
  ops::RNNParam bad = net.p;
  bad.projection_size = 2;
  ExpectError([&] { nd::RNN(net.x, net.w, net.h0, bad); }, {"RNN", "projection_size", "lstm"});
  bad = net.p;
  bad.p = 1.0f;
  ExpectError([&] { nd::RNN(net.x, net.w, net.h0, bad); }, {"RNN", "p", "[0, 1)"});
  Net lstm = MakeNet("lstm", 3, 2, 4, 5, 1, false, 1);
  bad = lstm.p;
  bad.lstm_state_clip_min = -1;
  ExpectError([&] { nd::RNN(lstm.x, lstm.w, lstm.h0, lstm.c0, bad); },
              {"RNN", "lstm_state_clip_max", "together"});
  ExpectError(
      [&] {
        nd::RNN(lstm.x, lstm.w, lstm.h0, NDArray::Full({1, 2, 4}, 0), lstm.p);
      },
      {"RNN", "state_cell", "(1, 2, 4)", "(1, 2, 5)"});
  ExpectError(
      [&] {
        nd::RNN(net.x, net.w, net.h0, NDArray(),
                NDArray::FromVector(std::vector<double>{3, 4}, {2}, cpu(), DType::kInt32), net.p);
      },
      {"RNN", "sequence_length[1]", "[0, 3]"});
  ExpectError([&] { nd::RNN(net.x.astype(DType::kInt32), net.w, net.h0, net.p); },
              {"RNN", "floating-point", "int32"});

  NDArray acts = RandomArray({4, 2, 3}, -1, 1, 2);
  ExpectError(
      [&] {
        nd::CTCLoss(acts, NDArray::Full({3, 2}, 1));
      },
      {"CTCLoss", "batch", "(3, 2)", "(4, 2, 3)"});
  ExpectError(
      [&] {
        nd::CTCLoss(acts, NDArray::Full({2, 5}, 1));
      },
      {"CTCLoss", "label length 5", "sequence length 4"});
  ExpectError(
      [&] {
        nd::CTCLoss(acts, NDArray::Full({2, 2}, 3));
      },
      {"CTCLoss", "label[0, 0] = 3", "alphabet size 3"});
  ExpectError(
      [&] {
        nd::CTCLoss(acts, NDArray::Full({2, 2}, 2), {.blank_label = "last"});
      },
      {"CTCLoss", "label[0, 0] = 2", "blank 2"});
  ExpectError(
      [&] {
        nd::CTCLoss(acts, NDArray::Full({2, 2}, 1), NDArray::Full({3}, 4), NDArray());
      },
      {"CTCLoss", "data_lengths", "(3,)", "(2,)"});
  ExpectError(
      [&] {
        nd::CTCLoss(acts, NDArray::Full({2, 2}, 1), NDArray::Full({2}, 5), NDArray());
      },
      {"CTCLoss", "data_lengths[0] = 5", "[0, 4]"});
  ExpectError(
      [&] {
        Invoke("CTCLoss", std::vector<NDArray>{acts, NDArray::Full({2, 2}, 1)},
               {{"blank_label", "middle"}});
      },
      {"CTCLoss", "blank_label", "middle", "first"});
}

// ---------------------------------------------------------------------------------------------
// CTC by hand.

TEST(CTCLoss, HandComputedTwoSteps) {
  // T = 2, alphabet {blank, a}: p(a) = y0(a) y1(b) + y0(b) y1(a) + y0(a) y1(a).
  const std::vector<double> acts{0.3, -0.2, 1.0, 0.5};
  NDArray data = NDArray::FromVector(acts, {2, 1, 2});
  auto sm = [&](int t, int k) {
    const double e0 = std::exp(acts[2 * t]), e1 = std::exp(acts[2 * t + 1]);
    return (k ? e1 : e0) / (e0 + e1);
  };
  const double pa = sm(0, 1) * sm(1, 0) + sm(0, 0) * sm(1, 1) + sm(0, 1) * sm(1, 1);
  NDArray loss = nd::CTCLoss(data, NDArray::FromVector(std::vector<double>{1}, {1, 1}));
  EXPECT_NEAR(loss.ToVector<double>()[0], -std::log(pa), 1e-12);
  // Empty label (all padding): the all-blank path.
  NDArray empty = nd::CTCLoss(data, NDArray::FromVector(std::vector<double>{0}, {1, 1}));
  EXPECT_NEAR(empty.ToVector<double>()[0], -std::log(sm(0, 0) * sm(1, 0)), 1e-12);
  // blank last: channel 1 is the blank, label 0 -> p = y0(0) y1(1) + y0(1) y1(0) + y0(0) y1(0).
  NDArray last = nd::CTCLoss(data, NDArray::FromVector(std::vector<double>{0}, {1, 1}),
                             {.blank_label = "last"});
  const double p0 = sm(0, 0) * sm(1, 1) + sm(0, 1) * sm(1, 0) + sm(0, 0) * sm(1, 0);
  EXPECT_NEAR(last.ToVector<double>()[0], -std::log(p0), 1e-12);
  // A data length of 1 uses only step 0: p(a) = y0(a).
  NDArray short_len = nd::CTCLoss(data, NDArray::FromVector(std::vector<double>{1}, {1, 1}),
                                  NDArray::FromVector(std::vector<double>{1}, {1}), NDArray());
  EXPECT_NEAR(short_len.ToVector<double>()[0], -std::log(sm(0, 1)), 1e-12);
}

TEST(CTCLoss, GradientIsScaledByTheHeadGradientAndZeroPastTheLength) {
  NDArray data = RandomArray({5, 2, 4}, -2, 2, 8);
  NDArray label = NDArray::FromVector(std::vector<double>{1, 2, 3, 0}, {2, 2});
  NDArray dlen = NDArray::FromVector(std::vector<double>{5, 3}, {2});
  const Op& op = OpRegistry::Get("CTCLoss");
  OpAttrs attrs = OpAttrs::Parse(op, {{"use_data_lengths", "True"}});
  std::vector<NDArray> in{data, label, dlen};
  NDArrayVec out = Invoke(op, attrs, in);
  std::vector<NDArray> ov(out.begin(), out.end());
  std::vector<NDArray> og{NDArray::FromVector(std::vector<double>{2.0, -0.5}, {2}),
                          NDArray::Full({5, 2, 4}, 0, cpu(), DType::kFloat64)};
  std::vector<NDArray> g = EagerGradBuilder::Run(op, attrs, in, ov, og);
  std::vector<double> gv = g[0].ToVector<double>(), hidden = out[1].ToVector<double>();
  for (int64_t t = 0; t < 5; ++t)
    for (int64_t n = 0; n < 2; ++n) {
      double row = 0;
      for (int64_t a = 0; a < 4; ++a) {
        const int64_t i = (t * 2 + n) * 4 + a;
        EXPECT_NEAR(gv[i], hidden[i] * (n ? -0.5 : 2.0), 1e-12);
        row += hidden[i];
        if (n == 1 && t >= 3) {
          EXPECT_EQ(hidden[i], 0.0);
        }
      }
      EXPECT_NEAR(row, 0.0, 1e-12);  // softmax minus a distribution over classes
    }
  EXPECT_TRUE(g[1].is_none());
  EXPECT_TRUE(g[2].is_none());
}

// A label that cannot be aligned (labels 1, 1 need 3 steps with the blank between the repeats;
// sample 1 has 2): loss 0 and a zero gradient for that sample (MXNet's loss; MXNet 1.9.1's
// gradient there is sometimes uninitialized memory, so gen_nn_refs.py records no gradient).
TEST(CTCLoss, InfeasibleLabelGivesZeroLossAndGradient) {
  NDArray data = RandomArray({4, 2, 3}, -2, 2, 9);
  NDArray label = NDArray::FromVector(std::vector<double>{1, 2, 1, 1}, {2, 2});
  NDArray dlen = NDArray::FromVector(std::vector<double>{4, 2}, {2});
  const Op& op = OpRegistry::Get("_contrib_CTCLoss");
  OpAttrs attrs = OpAttrs::Parse(op, {{"use_data_lengths", "True"}});
  std::vector<NDArray> in{data, label, dlen};
  NDArrayVec out = Invoke(op, attrs, in);
  std::vector<double> loss = out[0].ToVector<double>();
  EXPECT_GT(loss[0], 0.0);
  EXPECT_EQ(loss[1], 0.0);
  std::vector<NDArray> ov(out.begin(), out.end());
  std::vector<NDArray> og{NDArray::Full({2}, 1.0, cpu(), DType::kFloat64),
                          NDArray::Full({4, 2, 3}, 0, cpu(), DType::kFloat64)};
  std::vector<double> gv = EagerGradBuilder::Run(op, attrs, in, ov, og)[0].ToVector<double>();
  double sample0 = 0;
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t a = 0; a < 3; ++a) {
      EXPECT_EQ(gv[(t * 2 + 1) * 3 + a], 0.0) << "t " << t << " class " << a;
      sample0 += std::abs(gv[(t * 2) * 3 + a]);
    }
  EXPECT_GT(sample0, 0.1);  // the feasible sample still gets its gradient
}

}  // namespace
}  // namespace mxnet
