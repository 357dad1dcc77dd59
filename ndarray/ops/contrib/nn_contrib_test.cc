// Tests of the nn family's contrib ops (nn_contrib*.cc): conformance with real MXNet 1.9.1
// (testdata/nn/contrib.json from tools/conformance/refs_nn_contrib.py: outputs, gradients, aux
// states), values worked by hand, shape inference, error messages and the nd:: API.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/contrib/nn_contrib_api.h"
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
constexpr auto& ExpectError = testing::ExpectInvalidArgument;

double Rtol(const json& c) {
  for (const auto& j : c["inputs"])
    if (j["dtype"] == "float32") return 2e-4;
  return 1e-9;
}
double Atol(const json& c) { return Rtol(c) > 1e-6 ? 2e-5 : 1e-10; }

// ---------------------------------------------------------------------------------------------
// Conformance with MXNet 1.9.1 (same case format and tolerances as nn_extra_test.cc).

TEST(MxnetConformance, ContribOutputsGradientsAndAuxStates) {
  const json doc = LoadRefJson("ndarray/ops/testdata/nn/contrib.json");
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
    std::vector<NDArray> cin = CopyAll(in);
    NDArrayVec out;
    {
      ModeScope mode(train, record);
      out = Invoke(op, attrs, cin);
    }
    for (int k = 0; k < visible; ++k) {
      if (c["outputs"][k].is_null()) continue;
      EXPECT_TRUE(SameDTypeAllClose(out[k], RefArray(c["outputs"][k]), Rtol(c) * 5, Atol(c) * 5))
          << "output " << k;
    }
    if (c.contains("aux_after")) {
      for (auto& [idx, a] : c["aux_after"].items()) {
        EXPECT_TRUE(AllClose(cin[std::stoi(idx)], RefArray(a), 1e-5, 1e-6)) << "aux input " << idx;
      }
    }
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
  EXPECT_GE(n_cases, 32);
  EXPECT_GE(n_grads, 55);
}

// ---------------------------------------------------------------------------------------------
// Interleaved attention matmuls, by hand.

// Element (t, b, h, j, d) of a (T, B, H*n*D) projection.
double At(const std::vector<double>& x, int64_t B, int64_t H, int64_t n, int64_t D, int64_t t,
          int64_t b, int64_t h, int64_t j, int64_t d) {
  return x[(((t * B + b) * H + h) * n + j) * D + d];
}

TEST(InterleavedMatmul, SelfAttentionByHand) {
  const int64_t T = 3, B = 2, H = 2, D = 4;
  NDArray qkv = RandomArray({T, B, H * 3 * D}, -1, 1, 3, DType::kFloat64);
  NDArray att = RandomArray({B * H, T, T}, -1, 1, 4, DType::kFloat64);
  const std::vector<double> x = qkv.ToVector<double>(), a = att.ToVector<double>();
  NDArray qk = nd::contrib::interleaved_matmul_selfatt_qk(qkv, H);
  NDArray val = nd::contrib::interleaved_matmul_selfatt_valatt(qkv, att, H);
  ASSERT_EQ(qk.shape(), (Shape{B * H, T, T}));
  ASSERT_EQ(val.shape(), (Shape{T, B, H * D}));
  const std::vector<double> s = qk.ToVector<double>(), v = val.ToVector<double>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t t = 0; t < T; ++t) {
        for (int64_t u = 0; u < T; ++u) {
          double e = 0;
          for (int64_t d = 0; d < D; ++d)
            e += At(x, B, H, 3, D, t, b, h, 0, d) * At(x, B, H, 3, D, u, b, h, 1, d);
          EXPECT_NEAR(s[((b * H + h) * T + t) * T + u], e / 2.0, 1e-12);  // sqrt(4) = 2
        }
        for (int64_t d = 0; d < D; ++d) {
          double e = 0;
          for (int64_t u = 0; u < T; ++u)
            e += a[((b * H + h) * T + t) * T + u] * At(x, B, H, 3, D, u, b, h, 2, d);
          EXPECT_NEAR(v[((t * B + b) * H + h) * D + d], e, 1e-12);
        }
      }
}

TEST(InterleavedMatmul, EncoderDecoderByHandAndFloat32MatchesFloat64) {
  const int64_t Tq = 2, Tk = 3, B = 2, H = 3, D = 2;
  NDArray q = RandomArray({Tq, B, H * D}, -1, 1, 5, DType::kFloat64);
  NDArray kv = RandomArray({Tk, B, H * 2 * D}, -1, 1, 6, DType::kFloat64);
  NDArray att = RandomArray({B * H, Tq, Tk}, -1, 1, 7, DType::kFloat64);
  const std::vector<double> xq = q.ToVector<double>(), xk = kv.ToVector<double>(),
                            a = att.ToVector<double>();
  const std::vector<double> s =
      nd::contrib::interleaved_matmul_encdec_qk(q, kv, H).ToVector<double>();
  const std::vector<double> v =
      nd::contrib::interleaved_matmul_encdec_valatt(kv, att, H).ToVector<double>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t t = 0; t < Tq; ++t) {
        for (int64_t u = 0; u < Tk; ++u) {
          double e = 0;
          for (int64_t d = 0; d < D; ++d)
            e += At(xq, B, H, 1, D, t, b, h, 0, d) * At(xk, B, H, 2, D, u, b, h, 0, d);
          EXPECT_NEAR(s[((b * H + h) * Tq + t) * Tk + u], e / std::sqrt(2.0), 1e-12);
        }
        for (int64_t d = 0; d < D; ++d) {
          double e = 0;
          for (int64_t u = 0; u < Tk; ++u)
            e += a[((b * H + h) * Tq + t) * Tk + u] * At(xk, B, H, 2, D, u, b, h, 1, d);
          EXPECT_NEAR(v[((t * B + b) * H + h) * D + d], e, 1e-12);
        }
      }
  // float32 (oneDNN) agrees with float64.
  NDArray s32 = nd::contrib::interleaved_matmul_encdec_qk(q.astype(DType::kFloat32),
                                                          kv.astype(DType::kFloat32), H);
  EXPECT_EQ(s32.dtype(), DType::kFloat32);
  EXPECT_TRUE(AllClose(s32.astype(DType::kFloat64),
                       nd::contrib::interleaved_matmul_encdec_qk(q, kv, H), 1e-5, 1e-6));
}

TEST(InterleavedMatmul, BertSizedFloat32MatchesFloat64) {
  // The benchmark's geometry, scaled down in seq length: oneDNN on strided views vs double loops.
  const int64_t T = 16, B = 4, H = 12, D = 64;
  NDArray qkv = RandomArray({T, B, H * 3 * D}, -1, 1, 8, DType::kFloat32);
  NDArray qk = nd::contrib::interleaved_matmul_selfatt_qk(qkv, H);
  NDArray qk64 = nd::contrib::interleaved_matmul_selfatt_qk(qkv.astype(DType::kFloat64), H);
  EXPECT_TRUE(AllClose(qk.astype(DType::kFloat64), qk64, 1e-4, 1e-5));
  NDArray val = nd::contrib::interleaved_matmul_selfatt_valatt(qkv, qk, H);
  NDArray val64 =
      nd::contrib::interleaved_matmul_selfatt_valatt(qkv.astype(DType::kFloat64), qk64, H);
  EXPECT_TRUE(AllClose(val.astype(DType::kFloat64), val64, 1e-4, 1e-4));
}

TEST(InterleavedMatmul, InferenceFillsTheAttentionShape) {
  const Op& op = OpRegistry::Get("_contrib_interleaved_matmul_selfatt_valatt");
  OpAttrs a = OpAttrs::Parse(op, {{"heads", "4"}});
  ShapeVec in{Shape{7, 3, 96}, Shape::Unknown()}, out{Shape::Unknown()};
  DTypeVec ti{0, -1}, to{-1};
  InferOutputs(op, a, &in, &ti, &out, &to);
  EXPECT_EQ(in[1], (Shape{12, 7, 7}));
  EXPECT_EQ(out[0], (Shape{7, 3, 32}));
  const Op& enc = OpRegistry::Get("_contrib_interleaved_matmul_encdec_valatt");
  ShapeVec ein{Shape{5, 2, 16}, Shape{4, 9, 5}}, eout{Shape::Unknown()};
  DTypeVec eti{0, -1}, eto{-1};
  InferOutputs(enc, OpAttrs::Parse(enc, {{"heads", "2"}}), &ein, &eti, &eout, &eto);
  EXPECT_EQ(eout[0], (Shape{9, 2, 8}));
}

TEST(InterleavedMatmul, Errors) {
  NDArray qkv = NDArray::Full({3, 2, 24}, 0.5);
  ExpectError([&] { nd::contrib::interleaved_matmul_selfatt_qk(qkv, 0); },
              {"_contrib_interleaved_matmul_selfatt_qk", "heads", "0"});
  ExpectError([&] { nd::contrib::interleaved_matmul_selfatt_qk(qkv, 5); },
              {"_contrib_interleaved_matmul_selfatt_qk", "queries_keys_values", "(3, 2, 24)",
               "multiple of heads * 3 = 15"});
  ExpectError(
      [&] {
        nd::contrib::interleaved_matmul_selfatt_qk(NDArray::Full({6, 24}, 1), 2);
      },
      {"_contrib_interleaved_matmul_selfatt_qk", "3-D", "(6, 24)"});
  ExpectError(
      [&] {
        nd::contrib::interleaved_matmul_selfatt_valatt(qkv, NDArray::Full({4, 3, 2}, 1), 2);
      },
      {"_contrib_interleaved_matmul_selfatt_valatt", "attention", "(4, 3, 2)", "(4, 3, 3)"});
  ExpectError(
      [&] {
        nd::contrib::interleaved_matmul_encdec_qk(NDArray::Full({3, 2, 8}, 1),
                                                  NDArray::Full({5, 3, 16}, 1), 2);
      },
      {"_contrib_interleaved_matmul_encdec_qk", "batch sizes"});
  ExpectError(
      [&] {
        nd::contrib::interleaved_matmul_encdec_qk(NDArray::Full({3, 2, 8}, 1),
                                                  NDArray::Full({5, 2, 8}, 1), 2);
      },
      {"_contrib_interleaved_matmul_encdec_qk", "head_dim 4", "head_dim 2"});
  ExpectError([&] { nd::contrib::interleaved_matmul_selfatt_qk(qkv.astype(DType::kInt32), 2); },
              {"_contrib_interleaved_matmul_selfatt_qk", "floating-point", "int32"});
  ExpectError(
      [&] { Invoke("_contrib_interleaved_matmul_selfatt_qk", std::vector<NDArray>{qkv}, {}); },
      {"_contrib_interleaved_matmul_selfatt_qk", "heads"});
}

TEST(Api, InterleavedNamesAndAttributes) {
  const Op& op = OpRegistry::Get("_contrib_interleaved_matmul_encdec_valatt");
  OpAttrs a = OpAttrs::Parse(op, {{"heads", "8"}});
  EXPECT_EQ(op.InputNames(a), (std::vector<std::string>{"keys_values", "attention"}));
  EXPECT_EQ(a.ToDict(), (AttrDict{{"heads", "8"}}));
}

// ---------------------------------------------------------------------------------------------
// BatchNormWithReLU, SyncBatchNorm.

std::vector<NDArray> BNInputs(Shape data, uint64_t seed) {
  const Shape c{data[1]};
  return {RandomArray(data, -2, 2, seed, DType::kFloat32),
          RandomArray(c, 0.5, 1.5, seed + 1, DType::kFloat32),
          RandomArray(c, -1, 1, seed + 2, DType::kFloat32),
          RandomArray(c, -0.5, 0.5, seed + 3, DType::kFloat32),
          RandomArray(c, 0.5, 1.5, seed + 4, DType::kFloat32)};
}

TEST(BatchNormWithReLU, IsReluOfBatchNormAndUpdatesTheMovingStats) {
  const std::vector<NDArray> in = BNInputs({4, 3, 5}, 20);
  const AttrDict attrs{{"fix_gamma", "False"}, {"output_mean_var", "True"}, {"momentum", "0.7"}};
  std::vector<NDArray> a = CopyAll(in), b = CopyAll(in);
  NDArrayVec fused, plain;
  {
    ModeScope mode(true, true);
    fused = Invoke("_contrib_BatchNormWithReLU", a, attrs);
    plain = Invoke("BatchNorm", b, attrs);
  }
  ASSERT_EQ(fused.size(), 4u);  // output, mean, invstd, hidden batch_stats
  std::vector<float> y = plain[0].ToVector<float>(), r = fused[0].ToVector<float>();
  for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(r[i], std::max(y[i], 0.f)) << i;
  EXPECT_TRUE(AllClose(fused[1], plain[1], 0, 0));
  EXPECT_TRUE(AllClose(fused[2], plain[2], 0, 0));
  EXPECT_TRUE(AllClose(a[3], b[3], 0, 0));  // moving stats updated like BatchNorm's
  EXPECT_TRUE(AllClose(a[4], b[4], 0, 0));
  EXPECT_FALSE(AllClose(a[3], in[3], 0, 0));
}

TEST(SyncBatchNorm, OneDeviceIsBatchNormAndOutputsTheVariance) {
  const std::vector<NDArray> in = BNInputs({5, 2, 3}, 30);
  std::vector<NDArray> a = CopyAll(in);
  NDArrayVec out;
  {
    ModeScope mode(true, true);
    out = Invoke("_contrib_SyncBatchNorm", a,
                 {{"fix_gamma", "False"}, {"output_mean_var", "True"}, {"key", "k"}});
  }
  ASSERT_EQ(out.size(), 5u);  // output, mean, var, hidden invstd and batch_stats
  const std::vector<double> x = in[0].ToVector<double>(), g = in[1].ToVector<double>(),
                            be = in[2].ToVector<double>(), y = out[0].ToVector<double>(),
                            mean = out[1].ToVector<double>(), var = out[2].ToVector<double>();
  for (int c = 0; c < 2; ++c) {
    double m = 0, v = 0;
    for (int n = 0; n < 5; ++n)
      for (int k = 0; k < 3; ++k) m += x[(n * 2 + c) * 3 + k] / 15;
    for (int n = 0; n < 5; ++n)
      for (int k = 0; k < 3; ++k) v += std::pow(x[(n * 2 + c) * 3 + k] - m, 2) / 15;
    EXPECT_NEAR(mean[c], m, 1e-6);
    EXPECT_NEAR(var[c], v, 1e-5);
    for (int n = 0; n < 5; ++n)
      for (int k = 0; k < 3; ++k) {
        const int i = (n * 2 + c) * 3 + k;
        EXPECT_NEAR(y[i], (x[i] - m) / std::sqrt(v + 1e-3) * g[c] + be[c], 1e-5);
      }
  }
  // Inference: the moving statistics, reported as mean and var.
  std::vector<NDArray> b = CopyAll(in);
  NDArrayVec inf = Invoke("_contrib_SyncBatchNorm", b, {{"output_mean_var", "True"}, {"key", "k"}});
  EXPECT_TRUE(AllClose(inf[1], in[3], 0, 0));
  EXPECT_TRUE(AllClose(inf[2], in[4], 1e-5, 1e-6));
}

TEST(ContribBatchNorm, Errors) {
  std::vector<NDArray> in = BNInputs({4, 3, 2}, 40);
  in[1] = NDArray::Full({4}, 1);
  ExpectError([&] { Invoke("_contrib_BatchNormWithReLU", in, {}); },
              {"_contrib_BatchNormWithReLU", "gamma", "(4,)", "3 channels"});
  ExpectError(
      [&] {
        Invoke("_contrib_SyncBatchNorm", in, {{"key", "k"}});
      },
      {"_contrib_SyncBatchNorm", "gamma", "(4,)"});
  in = BNInputs({4, 3, 2}, 40);
  ExpectError([&] { Invoke("_contrib_SyncBatchNorm", in, {}); }, {"_contrib_SyncBatchNorm", "key"});
  ExpectError(
      [&] {
        Invoke("_contrib_SyncBatchNorm", in, {{"key", "k"}, {"ndev", "0"}});
      },
      {"_contrib_SyncBatchNorm", "ndev", "0"});
  ExpectError(
      [&] {
        Invoke("_contrib_SyncBatchNorm",
               std::vector<NDArray>{NDArray::Full({3}, 1), in[1], in[2], in[3], in[4]},
               {{"key", "k"}});
      },
      {"_contrib_SyncBatchNorm", "2 dimensions", "(3,)"});
  in[0] = in[0].astype(DType::kInt32);
  ExpectError([&] { Invoke("_contrib_BatchNormWithReLU", in, {}); },
              {"_contrib_BatchNormWithReLU", "floating-point", "int32"});
}

TEST(Api, ContribBatchNormNamesAndAttributes) {
  const Op& op = OpRegistry::Get("_contrib_SyncBatchNorm");
  OpAttrs a = OpAttrs::Parse(op, {{"key", "bn0"}, {"ndev", "2"}});
  EXPECT_EQ(op.InputNames(a),
            (std::vector<std::string>{"data", "gamma", "beta", "moving_mean", "moving_var"}));
  EXPECT_EQ(a.ToDict(), (AttrDict{{"key", "bn0"}, {"ndev", "2"}}));
  EXPECT_EQ(op.NumVisibleOutputs(a), 1);
  EXPECT_TRUE(op.IsMutableInput(3) && op.IsMutableInput(4));
  const Op& r = OpRegistry::Get("_contrib_BatchNormWithReLU");
  EXPECT_EQ(r.NumVisibleOutputs(OpAttrs::Parse(r, {{"output_mean_var", "True"}})), 3);
}

// ---------------------------------------------------------------------------------------------
// fft, ifft, count_sketch (GPU-only in MXNet: no reference data; worked by hand), hawkesll.

NDArray F64(std::vector<double> v, Shape s) {
  return NDArray::FromVector(v, s, cpu(), DType::kFloat64);
}

TEST(FFT, KnownTransformsAndUnnormalizedRoundTrip) {
  // DFT of [1, 2, 3, 4] = [10, -2 + 2i, -2, -2 - 2i]; of [1, 0, 0] = [1, 1, 1].
  EXPECT_TRUE(AllClose(nd::contrib::fft(F64({1, 2, 3, 4}, {1, 4})),
                       F64({10, 0, -2, 2, -2, 0, -2, -2}, {1, 8}), 1e-12, 1e-12));
  EXPECT_TRUE(AllClose(nd::contrib::fft(F64({1, 0, 0}, {1, 3})), F64({1, 0, 1, 0, 1, 0}, {1, 6}),
                       1e-12, 1e-12));
  // ifft has no 1/d: ifft(fft(x)) = d * x, rows independent, any rank.
  NDArray x = RandomArray({2, 1, 3, 5}, -1, 1, 50, DType::kFloat64);
  NDArray y = nd::contrib::fft(x);
  EXPECT_EQ(y.shape(), (Shape{2, 1, 3, 10}));
  NDArray back = nd::contrib::ifft(y);
  EXPECT_EQ(back.shape(), (Shape{2, 1, 3, 5}));
  std::vector<double> xv = x.ToVector<double>(), bv = back.ToVector<double>();
  for (size_t i = 0; i < xv.size(); ++i) EXPECT_NEAR(bv[i], 5 * xv[i], 1e-12);
  // ifft keeps only the real part: z = [i, 0] -> Re(i * e^{0}, i * e^{i pi}) = [0, 0].
  EXPECT_TRUE(
      AllClose(nd::contrib::ifft(F64({0, 1, 0, 0}, {1, 4})), F64({0, 0}, {1, 2}), 0, 1e-15));
  // float32 keeps its dtype.
  EXPECT_EQ(nd::contrib::fft(x.astype(DType::kFloat32)).dtype(), DType::kFloat32);
}

TEST(FFT, GradientsAreTheOtherTransform) {
  NDArray x = RandomArray({2, 4}, -1, 1, 51, DType::kFloat64);
  NDArray g = RandomArray({2, 8}, -1, 1, 52, DType::kFloat64);
  const Op& op = OpRegistry::Get("_contrib_fft");
  OpAttrs a = OpAttrs::Parse(op, {});
  NDArrayVec out = Invoke(op, a, std::vector<NDArray>{x});
  std::vector<NDArray> gr = EagerGradBuilder::Run(
      op, a, std::vector<NDArray>{x}, std::vector<NDArray>{out[0]}, std::vector<NDArray>{g});
  EXPECT_TRUE(AllClose(gr[0], nd::contrib::ifft(g), 1e-12, 1e-12));
}

TEST(CountSketch, DocumentedExample) {
  NDArray x = NDArray::FromVector(std::vector<float>{1.2f, 2.5f, 3.4f, 3.2f, 5.7f, 6.6f}, {2, 3});
  NDArray h = NDArray::FromVector(std::vector<float>{0, 3, 4}, {1, 3});
  NDArray s = NDArray::FromVector(std::vector<float>{1, -1, 1}, {1, 3});
  NDArray y = nd::contrib::count_sketch(x, h, s, 5);
  EXPECT_TRUE(
      AllClose(y,
               NDArray::FromVector(
                   std::vector<float>{1.2f, 0, 0, -2.5f, 3.4f, 3.2f, 0, 0, -5.7f, 6.6f}, {2, 5}),
               1e-6, 1e-7));
  // Collisions add up; the gradient gathers s[i] * g[h[i]].
  NDArray h2 = NDArray::FromVector(std::vector<float>{1, 1, 0}, {1, 3});
  EXPECT_EQ(nd::contrib::count_sketch(x, h2, s, 2).ToVector<float>(),
            (std::vector<float>{3.4f, 1.2f - 2.5f, 6.6f, 3.2f - 5.7f}));
  const Op& op = OpRegistry::Get("_contrib_count_sketch");
  OpAttrs a = OpAttrs::Parse(op, {{"out_dim", "2"}});
  NDArray g = NDArray::FromVector(std::vector<float>{10, 20, 30, 40}, {2, 2});
  std::vector<NDArray> in{x, h2, s};
  NDArrayVec out = Invoke(op, a, in);
  std::vector<NDArray> gr =
      EagerGradBuilder::Run(op, a, in, std::vector<NDArray>{out[0]}, std::vector<NDArray>{g});
  EXPECT_EQ(gr[0].ToVector<float>(), (std::vector<float>{20, -20, 10, 40, -40, 30}));
  EXPECT_TRUE(gr[1].is_none() && gr[2].is_none());
}

NDArrayVec HawkesDoc() {
  NDArray lda = NDArray::FromVector(std::vector<float>(12, 1.5f), {4, 3});
  NDArray alpha = NDArray::FromVector(std::vector<float>{0.2f, 0.3f, 0.4f}, {3});
  NDArray beta = NDArray::FromVector(std::vector<float>{1, 2, 3}, {3});
  NDArray state = NDArray::Full({4, 3}, 0);
  NDArray lags = NDArray::FromVector(
      std::vector<float>{6, 7, 8, 9, 1, 2, 3, 4, 3, 4, 5, 6, 8, 9, 10, 11}, {4, 4});
  NDArray marks = NDArray::Full({4, 4}, 0, cpu(), DType::kInt32);
  NDArray vl = NDArray::FromVector(std::vector<float>{1, 2, 3, 4}, {4});
  NDArray mt = NDArray::Full({4}, 100);
  return nd::contrib::hawkesll(lda, alpha, beta, state, lags, marks, vl, mt);
}

TEST(Hawkesll, OnePointByHand) {
  // One sample, one mark, state 0, one point at t = 2, max_time 5:
  // ll = log(mu) - mu * 2 - (mu * 3 + alpha * 1 * (1 - e^{-3 beta})), out_state = e^{-3 beta}.
  const double mu = 0.7, al = 0.4, be = 1.3;
  NDArrayVec r = nd::contrib::hawkesll(
      F64({mu}, {1, 1}), F64({al}, {1}), F64({be}, {1}), F64({0}, {1, 1}), F64({2, 9}, {1, 2}),
      NDArray::Full({1, 2}, 0, cpu(), DType::kInt32), F64({1}, {1}), F64({5}, {1}));
  EXPECT_NEAR(r[0].ToVector<double>()[0],
              std::log(mu) - 2 * mu - (3 * mu + al * (1 - std::exp(-3 * be))), 1e-12);
  EXPECT_NEAR(r[1].ToVector<double>()[0], std::exp(-3 * be), 1e-12);
  // The documented example: all four samples have their points on mark 0.
  NDArrayVec d = HawkesDoc();
  EXPECT_EQ(d[0].shape(), (Shape{4}));
  EXPECT_EQ(d[1].shape(), (Shape{4, 3}));
}

TEST(Signal, Errors) {
  ExpectError(
      [&] {
        nd::contrib::ifft(F64({1, 2, 3}, {1, 3}));
      },
      {"_contrib_ifft", "odd last axis", "(1, 3)"});
  ExpectError([&] { nd::contrib::fft(F64({1}, {1}), {.compute_size = 0}); },
              {"_contrib_fft", "compute_size", "0"});
  NDArray x = F64({1, 2, 3, 4, 5, 6}, {2, 3});
  ExpectError(
      [&] {
        nd::contrib::count_sketch(x, F64({0, 1, 5}, {1, 3}), F64({1, 1, 1}, {1, 3}), 5);
      },
      {"_contrib_count_sketch", "h[2] = 5", "out_dim = 5"});
  ExpectError(
      [&] {
        nd::contrib::count_sketch(x, F64({0, 1}, {1, 2}), F64({1, 1, 1}, {1, 3}), 5);
      },
      {"_contrib_count_sketch", "h", "(1, 2)", "(1, 3)"});
  ExpectError(
      [&] {
        nd::contrib::count_sketch(F64({1, 2}, {2}), F64({0, 1}, {1, 2}), F64({1, 1}, {1, 2}), 5);
      },
      {"_contrib_count_sketch", "2 dimensions", "(2,)"});
  ExpectError(
      [&] {
        nd::contrib::count_sketch(x, F64({0, 1, 0}, {1, 3}), F64({1, 1, 1}, {1, 3}), 0);
      },
      {"_contrib_count_sketch", "out_dim", "0"});
  auto hawkes = [&](NDArray marks, NDArray vl, NDArray lda) {
    nd::contrib::hawkesll(lda, F64({0.3, 0.3}, {2}), F64({1, 1}, {2}), F64({0, 0}, {1, 2}),
                          F64({1, 1, 1}, {1, 3}), marks, vl, F64({5}, {1}));
  };
  NDArray m = NDArray::FromVector(std::vector<int>{0, 1, 2}, {1, 3}, cpu(), DType::kInt32);
  ExpectError(
      [&] {
        hawkes(m, F64({3}, {1}), F64({1, 1}, {1, 2}));
      },
      {"_contrib_hawkesll", "marks[0, 2] = 2", "K = 2"});
  ExpectError(
      [&] {
        hawkes(m, F64({4}, {1}), F64({1, 1}, {1, 2}));
      },
      {"_contrib_hawkesll", "valid_length[0] = 4", "T = 3"});
  ExpectError(
      [&] {
        hawkes(m.astype(DType::kFloat64), F64({2}, {1}), F64({1, 1}, {1, 2}));
      },
      {"_contrib_hawkesll", "marks", "int32", "float64"});
  ExpectError(
      [&] {
        hawkes(m, F64({2}, {1}), F64({1, 1, 1}, {1, 3}));
      },
      {"_contrib_hawkesll", "alpha", "(2,)", "(3,)"});
}

// ---------------------------------------------------------------------------------------------
// Proposal, MultiProposal.

TEST(Proposal, AnchorsByHandAndZeroGradients) {
  // Stride 16, ratios (0.5, 1, 2) x scale 8: Faster R-CNN's classic anchors [-84, -40, 99, 55],
  // [-56, -56, 71, 71], [-36, -80, 51, 95] at cell (0, 0), clipped to the 200 x 200 image; zero
  // deltas. Only cell (0, 0) scores (0.2, 0.9, 0.5); the best come first, NMS (threshold 0.99)
  // keeps all three, then the first score-0 box in anchor order: cell (0, 1)'s ratio-0.5 anchor.
  std::vector<float> c(6 * 13 * 13, 0.f);
  c[3 * 169] = 0.2f, c[4 * 169] = 0.9f, c[5 * 169] = 0.5f;
  NDArray cls = NDArray::FromVector(c, {1, 6, 13, 13});
  NDArray deltas = NDArray::Full({1, 12, 13, 13}, 0);
  NDArray info = NDArray::FromVector(std::vector<float>{200, 200, 1}, {1, 3});
  const Op& op = OpRegistry::Get("_contrib_Proposal");
  OpAttrs a = OpAttrs::Parse(op, {{"scales", "(8,)"},
                                  {"rpn_post_nms_top_n", "4"},
                                  {"threshold", "0.99"},
                                  {"rpn_min_size", "1"},
                                  {"output_score", "True"}});
  std::vector<NDArray> in{cls, deltas, info};
  NDArrayVec out = Invoke(op, a, in);
  EXPECT_EQ(out[0].ToVector<float>(), (std::vector<float>{0, 0, 0, 71,  71,     // ratio 1, 0.9
                                                          0, 0, 0, 51,  95,     // ratio 2, 0.5
                                                          0, 0, 0, 99,  55,     // ratio 0.5, 0.2
                                                          0, 0, 0, 115, 55}));  // cell (0, 1)
  EXPECT_EQ(out[1].ToVector<float>(), (std::vector<float>{0.9f, 0.5f, 0.2f, 0.f}));
  // rpn_post_nms_top_n beyond the survivors cycles through them.
  OpAttrs cyc = OpAttrs::Parse(op, {{"scales", "(8,)"},
                                    {"rpn_pre_nms_top_n", "2"},
                                    {"rpn_post_nms_top_n", "3"},
                                    {"rpn_min_size", "1"}});
  EXPECT_EQ(Invoke(op, cyc, std::vector<NDArray>{cls, deltas, info})[0].ToVector<float>(),
            (std::vector<float>{0, 0, 0, 71, 71, 0, 0, 0, 51, 95, 0, 0, 0, 71, 71}));
  std::vector<NDArray> g = EagerGradBuilder::Run(
      op, a, in, std::vector<NDArray>{out[0], out[1]},
      std::vector<NDArray>{NDArray::Full({4, 5}, 1), NDArray::Full({4, 1}, 1)});
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(g[i].ToVector<float>(), std::vector<float>(in[i].size(), 0));
}

TEST(Proposal, Errors) {
  NDArray cls = NDArray::Full({2, 6, 2, 2}, 0.5), deltas = NDArray::Full({2, 12, 2, 2}, 0);
  NDArray info = NDArray::Full({2, 3}, 1);
  const AttrDict one = {{"scales", "(8,)"}};
  ExpectError(
      [&] {
        Invoke("_contrib_Proposal", std::vector<NDArray>{cls, deltas, info}, one);
      },
      {"_contrib_Proposal", "batch 2", "MultiProposal"});
  ExpectError(
      [&] {
        Invoke("_contrib_MultiProposal", std::vector<NDArray>{cls, deltas, info}, {});
      },
      {"_contrib_MultiProposal", "cls_prob", "24"});
  ExpectError(
      [&] {
        Invoke("_contrib_MultiProposal",
               std::vector<NDArray>{cls, NDArray::Full({2, 8, 2, 2}, 0), info}, one);
      },
      {"_contrib_MultiProposal", "bbox_pred", "(2, 8, 2, 2)", "(2, 12, 2, 2)"});
  ExpectError(
      [&] {
        Invoke("_contrib_MultiProposal",
               std::vector<NDArray>{
                   cls, deltas, NDArray::FromVector(std::vector<float>{1, 1, 1, 64, 8, 1}, {2, 3})},
               one);
      },
      {"_contrib_MultiProposal", "im_info[1]", "height", "exceeds"});
  ExpectError(
      [&] {
        Invoke("_contrib_MultiProposal", std::vector<NDArray>{cls, deltas, info},
               {{"scales", "(8,)"}, {"rpn_post_nms_top_n", "0"}});
      },
      {"_contrib_MultiProposal", "rpn_post_nms_top_n", "0"});
}

TEST(Api, SignalNamesAndAttributes) {
  const Op& cs = OpRegistry::Get("_contrib_count_sketch");
  OpAttrs a = OpAttrs::Parse(cs, {{"out_dim", "7"}, {"processing_batch_size", "4"}});
  EXPECT_EQ(cs.InputNames(a), (std::vector<std::string>{"data", "h", "s"}));
  EXPECT_EQ(a.ToDict(), (AttrDict{{"out_dim", "7"}, {"processing_batch_size", "4"}}));
  const Op& hw = OpRegistry::Get("_contrib_hawkesll");
  EXPECT_EQ(hw.OutputNames(OpAttrs::Parse(hw, {})),
            (std::vector<std::string>{"output", "out_state"}));
  NDArray x = RandomArray({3, 2, 2}, -1, 1, 60, DType::kFloat32);
  NDArrayVec bn = nd::contrib::SyncBatchNorm(x, NDArray::Full({2}, 1), NDArray::Full({2}, 0),
                                             NDArray::Full({2}, 0), NDArray::Full({2}, 1),
                                             {.output_mean_var = true});
  EXPECT_EQ(bn.size(), 3u);
  EXPECT_EQ(nd::contrib::BatchNormWithReLU(x, NDArray::Full({2}, 1), NDArray::Full({2}, 0),
                                           NDArray::Full({2}, 0), NDArray::Full({2}, 1))
                .size(),
            1u);
}

}  // namespace
}  // namespace mxnet
