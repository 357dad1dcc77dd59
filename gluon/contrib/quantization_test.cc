#include "gluon/contrib/quantization.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "gluon/nn/basic_layers.h"
#include "gluon/nn/conv_layers.h"
#include "ndarray/io.h"
#include "ndarray/nd.h"

namespace mxnet::gluon::contrib::quantization {
namespace {

const std::string kDir = "gluon/contrib/testdata/quantization/";

std::vector<std::shared_ptr<sym::Node>> Ops(const sym::Symbol& s) {
  std::vector<std::shared_ptr<sym::Node>> out;
  for (const auto& n : s.TopoNodes())
    if (!n->is_variable()) out.push_back(n);
  return out;
}

std::string Param(const sym::Node& n, const std::string& key) {
  auto it = n.params.find(key);
  return it == n.params.end() ? "" : it->second;
}

float MaxAbsDiff(const NDArray& a, const NDArray& b) {
  auto x = a.ToVector<float>(), y = b.ToVector<float>();
  EXPECT_EQ(x.size(), y.size());
  float m = 0;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) m = std::max(m, std::abs(x[i] - y[i]));
  return m;
}

float MaxAbs(const NDArray& a) {
  float m = 0;
  for (float v : a.ToVector<float>()) m = std::max(m, std::abs(v));
  return m;
}

// MXNet 1.9.1's quantize_net on a small ResNet v1 (gen_quantization_refs.py): the same graph,
// node by node, with the same calibrated ranges; outputs close to MXNet's int8 net.
void CheckAgainstMxnet(const std::string& mode, double range_tol) {
  auto fnet =
      SymbolBlock::imports(kDir + "float-symbol.json", {"data"}, kDir + "float-0000.params");
  ASSERT_TRUE(fnet.ok()) << fnet.status();
  auto io = nd::load(kDir + "io.params");
  ASSERT_TRUE(io.ok()) << io.status();
  QuantizeNetOptions o;
  o.calib_mode = mode;
  o.calib_data = {{*io->find("calib0")}, {*io->find("calib1")}};
  o.num_calib_examples = 8;
  auto qnet = quantize_net(**fnet, o);
  auto mx = sym::Symbol::load(kDir + mode + "-symbol.json");
  ASSERT_TRUE(mx.ok()) << mx.status();
  auto ours = Ops(qnet->graph()), theirs = Ops(*mx);
  ASSERT_EQ(ours.size(), theirs.size()) << qnet->graph().tojson();
  for (size_t i = 0; i < ours.size(); ++i) {
    const sym::Node &a = *ours[i], &b = *theirs[i];
    SCOPED_TRACE(mode + " node " + b.name);
    EXPECT_EQ(a.op->name, b.op->name);
    EXPECT_EQ(a.inputs.size(), b.inputs.size());
    for (const char* flag : {"with_bn", "with_act", "with_sum", "with_postsum_act"})
      EXPECT_EQ(Param(a, flag), Param(b, flag)) << flag;
    const std::string lo = Param(b, "min_calib_range"), hi = Param(b, "max_calib_range");
    ASSERT_EQ(lo.empty(), Param(a, "min_calib_range").empty());
    if (lo.empty()) continue;
    const double mlo = std::stod(lo), mhi = std::stod(hi);
    const double olo = std::stod(Param(a, "min_calib_range"));
    const double ohi = std::stod(Param(a, "max_calib_range"));
    const double tol = range_tol * std::max(std::abs(mlo), std::abs(mhi)) + 1e-6;
    EXPECT_NEAR(olo, mlo, tol);
    EXPECT_NEAR(ohi, mhi, tol);
  }
  NDArray x = *io->find("x"), yf = *io->find("float"), ymx = *io->find(mode);
  NDArray y = qnet->forward(NDArrayVec{x})[0];
  const float scale = MaxAbs(yf);
  EXPECT_LT(MaxAbsDiff(y, yf), 0.1 * scale) << mode << ": int8 vs float";
  EXPECT_LT(MaxAbsDiff(y, ymx), 0.05 * scale) << mode << ": ours vs MXNet's int8 net";
  // The float emulation of the fused int8 nodes (symbol/sg_ops.cc) agrees as closely; the two
  // paths differ (the oneDNN int8 path ran).
  setenv("MXNET_SG_INT8_EMULATE", "1", 1);
  NDArray ye = qnet->forward(NDArrayVec{x})[0];
  unsetenv("MXNET_SG_INT8_EMULATE");
  EXPECT_LT(MaxAbsDiff(ye, ymx), 0.05 * scale) << mode << ": emulated vs MXNet's int8 net";
  EXPECT_GT(MaxAbsDiff(ye, y), 0.f) << mode;
}

// naive: min/max of the same float values (MXNet's fused oneDNN nodes vs our graph: float
// rounding only), printed by MXNet with 6 decimals.
TEST(QuantizeNet, NaiveMatchesMxnet) { CheckAgainstMxnet("naive", 1e-5); }

// entropy: MXNet's KL-divergence thresholds (its own _get_optimal_thresholds). On an AVX-512
// Xeon they agree to MXNet's 6 printed decimals; float rounding of the layer outputs on other
// CPUs may move a value across a histogram edge, so the bound is 0.1 % (4 of the 8001 bins).
TEST(QuantizeNet, EntropyMatchesMxnet) { CheckAgainstMxnet("entropy", 1e-3); }

std::shared_ptr<nn::HybridSequential> SmallNet() {
  auto net = std::make_shared<nn::HybridSequential>();
  net->add({std::make_shared<nn::Conv2D>(4, Shape{3, 3},
                                         nn::ConvOptions{.padding = {1, 1}, .activation = "relu"}),
            std::make_shared<nn::Dense>(3)});
  net->initialize();
  return net;
}

std::vector<NDArrayVec> Batches() {
  std::vector<NDArrayVec> b;
  for (int k = 0; k < 2; ++k) {
    std::vector<float> v(2 * 2 * 5 * 5);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = std::sin(0.37f * static_cast<float>(i) + static_cast<float>(k)) * (1.f + k);
    b.push_back({NDArray::FromVector(v, Shape{2, 2, 5, 5})});
  }
  return b;
}

// Naive thresholds by hand: the data's min/max over both batches, and the conv+relu output's
// min/max computed imperatively with the float layers; int8 FC weights by hand.
TEST(QuantizeNet, NaiveThresholdsByHand) {
  auto net = SmallNet();
  auto batches = Batches();
  net->forward(batches[0]);
  float dlo = 1e30f, dhi = -1e30f, clo = 1e30f, chi = -1e30f;
  for (const auto& b : batches) {
    for (float v : b[0].ToVector<float>()) dlo = std::min(dlo, v), dhi = std::max(dhi, v);
    NDArray c = (*net)[0]->forward(b)[0];  // Conv2D with its relu, not hybridized
    for (float v : c.ToVector<float>()) clo = std::min(clo, v), chi = std::max(chi, v);
  }
  NDArray yf = net->forward(batches[1])[0];
  auto qnet = quantize_net(*net, {.calib_mode = "naive", .calib_data = batches});
  auto ops = Ops(qnet->graph());
  ASSERT_EQ(ops.size(), 3u) << qnet->graph().tojson();
  EXPECT_EQ(ops[0]->op->name, "_contrib_quantize_v2");
  EXPECT_EQ(ops[0]->name, "data_quantize");
  EXPECT_EQ(Param(*ops[0], "out_type"), "auto");
  EXPECT_FLOAT_EQ(std::stof(Param(*ops[0], "min_calib_range")), dlo);
  EXPECT_FLOAT_EQ(std::stof(Param(*ops[0], "max_calib_range")), dhi);
  EXPECT_EQ(ops[1]->op->name, "_sg_mkldnn_conv");
  EXPECT_EQ(Param(*ops[1], "with_act"), "true");
  EXPECT_EQ(Param(*ops[1], "quantized"), "true");
  EXPECT_FLOAT_EQ(std::stof(Param(*ops[1], "min_calib_range")), clo);
  EXPECT_FLOAT_EQ(std::stof(Param(*ops[1], "max_calib_range")), chi);
  EXPECT_EQ(clo, 0.f);  // after relu
  EXPECT_EQ(ops[2]->op->name, "_sg_mkldnn_fully_connected");
  EXPECT_EQ(Param(*ops[2], "enable_float_output"), "true");
  // The FC reads the conv node's uint8 output directly (no dequantize/quantize between).
  EXPECT_EQ(ops[2]->inputs[0].node.get(), ops[1].get());
  // int8 weight: round(w * 127 / max(|min w|, |max w|)), range (min w, max w).
  ParameterPtr w = nullptr, wq = nullptr, wmin = nullptr, wmax = nullptr;
  const ParameterDict fparams = net->collect_params(), qparams = qnet->collect_params();
  for (const auto& [name, p] : fparams.items())
    if (name.find("weight") != std::string::npos && p->data().shape().ndim() == 2) w = p;
  ASSERT_NE(w, nullptr);
  for (const auto& [name, p] : qparams.items()) {
    if (name.ends_with("weight_quantize")) wq = p;
    if (name.ends_with("weight_quantize_min")) wmin = p;
    if (name.ends_with("weight_quantize_max")) wmax = p;
  }
  ASSERT_TRUE(wq && wmin && wmax);
  auto wv = w->data().ToVector<float>();
  const float lo = *std::min_element(wv.begin(), wv.end());
  const float hi = *std::max_element(wv.begin(), wv.end());
  EXPECT_EQ(wq->data().dtype(), DType::kInt8);
  auto qv = wq->data().ToVector<int8_t>();
  ASSERT_EQ(qv.size(), wv.size());
  for (size_t i = 0; i < wv.size(); ++i)
    EXPECT_EQ(qv[i], static_cast<int8_t>(std::nearbyint(wv[i] * 127 / std::max(-lo, hi)))) << i;
  EXPECT_FLOAT_EQ(wmin->data().ToVector<float>()[0], -std::max(-lo, hi));
  EXPECT_FLOAT_EQ(wmax->data().ToVector<float>()[0], std::max(-lo, hi));
  // Close to float on a calibration batch.
  NDArray y = qnet->forward(batches[1])[0];
  EXPECT_LT(MaxAbsDiff(y, yf), 0.05 * MaxAbs(yf));
}

TEST(QuantizeNet, ExcludedLayersStayFloat) {
  auto net = SmallNet();
  auto batches = Batches();
  net->forward(batches[0]);
  for (QuantizeNetOptions o : {QuantizeNetOptions{.exclude_operators = {"Convolution"}},
                               QuantizeNetOptions{.exclude_layers_match = {"conv"}}}) {
    o.calib_mode = "naive";
    o.calib_data = batches;
    auto qnet = quantize_net(*net, o);
    std::vector<std::string> names;
    for (const auto& n : Ops(qnet->graph())) names.push_back(n->op->name);
    EXPECT_EQ(names, (std::vector<std::string>{"Convolution", "Activation", "_contrib_quantize_v2",
                                               "_sg_mkldnn_fully_connected"}))
        << qnet->graph().tojson();
  }
}

TEST(QuantizeNet, ClearErrors) {
  auto net = SmallNet();
  auto batches = Batches();
  auto code = [&](QuantizeNetOptions o) {
    try {
      quantize_net(*net, o);
    } catch (const Error& e) {
      return std::pair{e.code(), std::string(e.what())};
    }
    return std::pair{absl::StatusCode::kOk, std::string()};
  };
  auto [c1, m1] = code({.quantized_dtype = "int4", .calib_mode = "naive", .calib_data = batches});
  EXPECT_EQ(c1, absl::StatusCode::kInvalidArgument);
  EXPECT_NE(m1.find("quantized_dtype 'int4'"), std::string::npos) << m1;
  auto [c2, m2] = code({.calib_mode = "kl", .calib_data = batches});
  EXPECT_NE(m2.find("calib_mode 'kl'"), std::string::npos) << m2;
  auto [c3, m3] = code({.calib_mode = "entropy", .data_shapes = {Shape{2, 2, 5, 5}}});
  EXPECT_NE(m3.find("calib_data must be provided"), std::string::npos) << m3;
  auto [c4, m4] = code({});
  EXPECT_NE(m4.find("data_shapes required"), std::string::npos) << m4;
  auto [c5, m5] = code({.data_shapes = {Shape{2, 2, 5, 5}}});  // none with a quantized conv
  EXPECT_EQ(c5, absl::StatusCode::kUnimplemented) << m5;
  auto bad = batches;
  bad[1].push_back(bad[1][0]);
  auto [c6, m6] = code({.calib_mode = "naive", .calib_data = bad});
  EXPECT_NE(m6.find("batch 1 has 2 arrays, expected 1"), std::string::npos) << m6;
}

// calib_mode none (no convolution quantized): quantize_v2 without a calibrated range.
TEST(QuantizeNet, NoneModeUsesRuntimeRanges) {
  auto net = SmallNet();
  auto batches = Batches();
  NDArray yf = net->forward(batches[0])[0];
  auto qnet = quantize_net(
      *net, {.exclude_operators = {"Convolution"}, .data_shapes = {Shape{2, 2, 5, 5}}});
  auto ops = Ops(qnet->graph());
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[2]->op->name, "_contrib_quantize_v2");
  EXPECT_EQ(Param(*ops[2], "min_calib_range"), "");
  NDArray y = qnet->forward(batches[0])[0];
  EXPECT_LT(MaxAbsDiff(y, yf), 0.05 * MaxAbs(yf));
}

// numpy.histogram(x, bins, range=(-th, th)): half-open bins, the last one closed.
TEST(Histogram, LikeNumpy) {
  EXPECT_EQ(Histogram({-1.f, -0.5f, 0.f, 0.49f, 0.5f, 1.f, 1.5f, -2.f}, 4, 1.f),
            (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(Histogram({0.f, 0.f}, 3, 0.f), (std::vector<int64_t>{0, 2, 0}));  // range (-0.5, 0.5)
}

}  // namespace
}  // namespace mxnet::gluon::contrib::quantization
