// Tests of the quantization ops (conv_quant*.cc): conformance with real MXNet 1.9.1
// (testdata/conv/quant.json from tools/conformance/refs_quant.py: integer outputs exactly,
// float ranges to float32 precision, MXNet's dtype rejections), hand-computed values and errors.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/cpu_isa.h"
#include "ndarray/ops/conv/conv_api.h"
#include "ndarray/ops/quantization/quant_api.h"
#include "ndarray/ops/quantization/quant_exact.h"
#include "ndarray/ops/quantization/quant_kernels.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using nlohmann::json;

NDArray Arr(std::vector<double> v, Shape s, DType dt = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), dt);
}
NDArray R(double v) { return Arr({v}, {1}); }

bool IsInt(DType t) { return t != DType::kFloat32 && t != DType::kFloat64; }

// ---- MXNet conformance. ----

TEST(ConvQuantMxnet, OutputsMatch) {
  const json doc = LoadRefJson("ndarray/ops/testdata/conv/quant.json");
  ASSERT_GE(doc["cases"].size(), 20u);
  int n = 0, errors = 0;
  std::set<std::string> ops;
  for (const json& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    if (c.contains("error")) {
      ++errors;
      const Op& op = OpRegistry::Get(c["op"].get<std::string>());
      std::vector<NDArray> in = RefInputs(c);
      EXPECT_NE(ErrorOf([&] { Invoke(op, OpAttrs::Parse(op, RefAttrs(c)), in); }), "")
          << "accepted; MXNet: " << c["error"].get<std::string>();
      continue;
    }
    CheckRefCase(
        c,
        [](const NDArray& got, const NDArray& want) -> ::testing::AssertionResult {
          // Integers exactly, floats to float32 precision.
          return IsInt(want.dtype()) ? SameDTypeAllClose(got, want, 0, 0)
                                     : SameDTypeAllClose(got, want, 1e-6, 1e-7);
        },
        &n, nullptr, &ops);
  }
  EXPECT_GE(n, 45);
  EXPECT_GE(errors, 8);
  for (const char* op :
       {"_contrib_quantize", "_contrib_quantize_v2", "_contrib_dequantize", "_contrib_requantize",
        "_contrib_quantize_asym", "_contrib_quantized_conv", "_contrib_quantized_fully_connected",
        "_contrib_quantized_pooling", "_contrib_quantized_act", "_contrib_quantized_flatten",
        "_contrib_quantized_concat", "_contrib_quantized_elemwise_add",
        "_contrib_quantized_elemwise_mul", "_contrib_quantized_batch_norm",
        "_contrib_quantized_embedding", "_contrib_calibrate_entropy"})
    EXPECT_TRUE(ops.count(op)) << op << " has no MXNet reference case";
}

// ---- Hand-computed values. ----

TEST(ConvQuantValues, QuantizeRoundsHalfToEvenAndSaturates) {
  // int8: scale 127 / 1; 0.5 * 127 = 63.5 -> 64, -1 -> -127, 2 -> 127 (saturated).
  NDArray x = Arr({-1, -0.5, 0.3, 0.5, 2}, {5});
  NDArrayVec q = nd::contrib::quantize(x, R(-1), R(1), {.out_type = "int8"});
  EXPECT_EQ(q[0].dtype(), DType::kInt8);
  EXPECT_EQ(q[0].ToVector<int>(), (std::vector<int>{-127, -64, 38, 64, 127}));
  // uint8: scale 255 / 1: 0.3 * 255 = 76.5 -> 76 (even), 0.5 -> 127.5 -> 128, negatives -> 0.
  q = nd::contrib::quantize(x, R(-1), R(1));
  EXPECT_EQ(q[0].dtype(), DType::kUint8);
  EXPECT_EQ(q[0].ToVector<int>(), (std::vector<int>{0, 0, 76, 128, 255}));
  EXPECT_EQ(q[1].asscalar<float>(), -1.0f);
  // quantize_v2: data range (-1, 2) -> r = 2, scale 127.5 / 2.
  NDArrayVec v2 = nd::contrib::quantize_v2(x);
  EXPECT_EQ(v2[0].ToVector<int>(), (std::vector<int>{-64, -32, 19, 32, 127}));
  EXPECT_EQ(v2[1].asscalar<float>(), -2.0f);
  EXPECT_EQ(v2[2].asscalar<float>(), 2.0f);
}

TEST(ConvQuantValues, DequantizeAndRequantize) {
  NDArray q = Arr({-128, -1, 0, 51, 127}, {5}, DType::kInt8);
  NDArray y = nd::contrib::dequantize(q, R(-2.55), R(1));
  const float s = 2.55f / 127.5f;
  EXPECT_EQ(y.ToVector<float>(), (std::vector<float>{-128 * s, -s, 0, 51 * s, 127 * s}));
  // int32 range 2^31 * 1 -> calib range 1: scale 1 / 2^31 * 127 / 1.
  NDArray acc = Arr({-2147483520.0, 0, 1073741824, 8388608}, {4}, DType::kInt32);
  NDArrayVec r = nd::contrib::requantize(acc, R(-1), R(1),
                                         {.min_calib_range = -1.0f, .max_calib_range = 1.0f});
  EXPECT_EQ(r[0].ToVector<int>(), (std::vector<int>{-127, 0, 64, 0}));
}

TEST(ConvQuantValues, QuantizeAsym) {
  // min -1, max 2: scale 85, shift 85; -0.5 -> 42.5 -> 42, 0.3 -> 110.5 -> 110.
  NDArrayVec q = nd::contrib::quantize_asym(Arr({-1, -0.5, 0.3, 2}, {1, 2, 2}));
  EXPECT_EQ(q[0].ToVector<int>(), (std::vector<int>{0, 42, 110, 255}));
  EXPECT_EQ(q[1].asscalar<float>(), 85.0f);
  EXPECT_EQ(q[2].asscalar<float>(), 85.0f);
}

// Random integers in [lo, hi] as `dt`.
NDArray Ints(const Shape& s, int lo, int hi, uint64_t seed, DType dt) {
  std::vector<double> v = RandomArray(s, lo, hi + 1, seed).ToVector<double>();
  for (double& x : v) x = std::floor(x);
  return Arr(v, s, dt);
}

NDArrayVec RunOp(const std::string& name, std::vector<NDArray> in, const AttrDict& attrs) {
  return Invoke(name, in, attrs);
}

TEST(ConvQuantValues, QuantizedConvEqualsFloatConvolution) {
  // Integer products are exact in float64: the int32 output equals Convolution on the values,
  // for int8 data (MXNet's GPU kernel; its CPU kernel takes uint8 only) and uint8 data, with
  // the oneDNN kernel (default dispatch) and the reference.
  for (DType dt : {DType::kInt8, DType::kUint8}) {
    SCOPED_TRACE(DTypeName(dt));
    NDArray x = dt == DType::kInt8 ? Ints({2, 8, 9, 7}, -128, 127, 1, dt)
                                   : Ints({2, 8, 9, 7}, 0, 255, 1, dt);
    NDArray w = Ints({16, 8, 3, 3}, -127, 127, 2, DType::kInt8);
    NDArray b = Ints({16}, -127, 127, 3, DType::kInt8);
    AttrDict attrs{
        {"kernel", "(3, 3)"}, {"num_filter", "16"}, {"pad", "(1, 2)"}, {"stride", "(2, 1)"}};
    NDArrayVec q = RunOp("_contrib_quantized_conv",
                         {x, w, b, R(-1), R(1), R(-0.5), R(0.5), R(-0.1), R(0.1)}, attrs);
    NDArray want = nd::Convolution(
        x.astype(DType::kFloat64), w.astype(DType::kFloat64), b.astype(DType::kFloat64),
        {.kernel = {3, 3}, .num_filter = 16, .stride = {2, 1}, .pad = {1, 2}});
    EXPECT_EQ(q[0].dtype(), DType::kInt32);
    EXPECT_TRUE(AllClose(q[0].astype(DType::kFloat64), want, 0, 0));
    const Op& op = OpRegistry::Get("_contrib_quantized_conv");
    OpTestCase c{.op = "_contrib_quantized_conv", .attrs = attrs};
    std::vector<NDArray> in{x, w, b, R(-1), R(1), R(-0.5), R(0.5), R(-0.1), R(0.1)};
    NDArrayVec ref = RunWithKernel(c, {DeviceType::kCPU, Backend::kReference}, in);
    EXPECT_TRUE(AllClose(ref[0].astype(DType::kFloat64), want, 0, 0));
    // Range: 1/127 * 0.5/127 * 2^31.
    EXPECT_FLOAT_EQ(q[2].asscalar<float>(), 1.0f / 127 * (0.5f / 127) * 2147483648.0f);
    EXPECT_EQ(op.NumOutputs(OpAttrs::Parse(op, attrs)), 3);
  }
}

TEST(ConvQuantValues, QuantizedFullyConnectedAndElementwise) {
  // No bias: int32 x . w^T exactly.
  NDArray x = Ints({3, 7}, -128, 127, 4, DType::kInt8);
  NDArray w = Ints({5, 7}, -127, 127, 5, DType::kInt8);
  NDArrayVec q = RunOp("_contrib_quantized_fully_connected", {x, w, R(-1), R(1), R(-1), R(1)},
                       {{"num_hidden", "5"}, {"no_bias", "True"}});
  NDArray want =
      nd::FullyConnected(x.astype(DType::kFloat64), w.astype(DType::kFloat64), {.num_hidden = 5});
  EXPECT_TRUE(AllClose(q[0].astype(DType::kFloat64), want, 0, 0));
  // elemwise_mul: int32 products; relu; flatten keeps bytes.
  NDArray a = Arr({-3, 4, 127, -128}, {2, 2}, DType::kInt8);
  NDArray m = RunOp("_contrib_quantized_elemwise_mul", {a, a, R(-1), R(1), R(-1), R(1)}, {})[0];
  EXPECT_EQ(m.ToVector<int>(), (std::vector<int>{9, 16, 16129, 16384}));
  NDArray r = RunOp("_contrib_quantized_act", {a, R(-1), R(1)}, {{"act_type", "relu"}})[0];
  EXPECT_EQ(r.ToVector<int>(), (std::vector<int>{0, 4, 127, 0}));
  NDArray f = RunOp("_contrib_quantized_flatten", {a.reshape({1, 2, 2}), R(-1), R(1)}, {})[0];
  EXPECT_EQ(f.shape(), (Shape{1, 4}));
  // concat: int8 (-1, 1) and int8 (-2, 2) -> range (-2, 2); the first is halved (rne).
  NDArrayVec c = nd::contrib::quantized_concat(
      {Arr({3, -5}, {1, 2}, DType::kInt8), Arr({7, 8}, {1, 2}, DType::kInt8)}, {R(-1), R(-2)},
      {R(1), R(2)});
  EXPECT_EQ(c[0].ToVector<int>(), (std::vector<int>{2, -2, 7, 8}));
  EXPECT_EQ(c[1].asscalar<float>(), -2.0f);
}

TEST(ConvQuantValues, Int8PipelineApproximatesFloatConvolution) {
  // quantize_v2 (uint8 data, int8 weight) -> quantized_conv -> requantize -> dequantize stays
  // within a few quantization steps of the float convolution. MXNet's ranges are not
  // self-consistent here: data is scaled by 255.5 / r_x and the weight by 127.5 / r_w, while the
  // int32 range assumes 127 for both and dequantize divides by 127.5, so the real value is the
  // dequantized one times 127 / 255.5.
  NDArray x = RandomArray({1, 3, 6, 6}, 0, 1, 7, DType::kFloat32);
  NDArray w = RandomArray({4, 3, 3, 3}, -0.5, 0.5, 8, DType::kFloat32);
  NDArrayVec qx = nd::contrib::quantize_v2(x, {.out_type = "uint8"});
  NDArrayVec qw = nd::contrib::quantize_v2(w);
  NDArrayVec acc =
      nd::contrib::quantized_conv(qx[0], qw[0], NDArray(), qx[1], qx[2], qw[1], qw[2], NDArray(),
                                  NDArray(), {.kernel = {3, 3}, .num_filter = 4, .no_bias = true});
  NDArrayVec r = nd::contrib::requantize(acc[0], acc[1], acc[2]);
  EXPECT_EQ(r[0].dtype(), DType::kInt8);
  NDArray y = nd::contrib::dequantize(r[0], r[1], r[2]);
  EXPECT_EQ(y.dtype(), DType::kFloat32);
  std::vector<float> got = y.ToVector<float>();
  std::vector<float> ref =
      nd::Convolution(x, w, {.kernel = {3, 3}, .num_filter = 4}).ToVector<float>();
  ASSERT_EQ(got.size(), ref.size());
  float max_ref = 0;
  for (float v : ref) max_ref = std::max(max_ref, std::fabs(v));
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i] * (127.0f / 255.5f), ref[i], 0.03f * max_ref) << i;
}

// ---- Exact int8 convolution on every ISA (conv_quant_exact.h). Run again with oneDNN capped
// to AVX2, AVX-512 without VNNI and SSE4.1 by the conv_quant_test_* targets. ----

// Values mostly at the dtype's extremes (x 255 or -128/127, w -128/127): adjacent products add
// beyond int16, which oneDNN's kernels without VNNI saturate.
NDArray Extremes(const Shape& s, DType dt, uint64_t seed) {
  std::mt19937 gen(seed);
  std::vector<double> v(s.Size());
  const int lo = dt == DType::kUint8 ? 0 : -128, hi = dt == DType::kUint8 ? 255 : 127;
  for (double& x : v) {
    const int r = static_cast<int>(gen() % 8);
    x = r < 3   ? hi
        : r < 5 ? (dt == DType::kUint8 ? 254 : lo)
                : lo + static_cast<int>(gen() % (hi - lo + 1));
  }
  return Arr(v, s, dt);
}

// _contrib_quantized_conv's geometry for `attrs` on data of shape x.
ops::ConvGeom QConvGeom(const AttrDict& attrs, const Shape& x) {
  const Op& op = OpRegistry::Get("_contrib_quantized_conv");
  return ops::ConvGeomFromConv("test", OpAttrs::Parse(op, attrs).get<ops::ConvolutionParam>(), x);
}

struct QConvShape {
  Shape x, w;
  AttrDict attrs;
};

std::vector<QConvShape> ExactCases() {
  return {
      {{2, 8, 9, 7},
       {16, 8, 3, 3},
       {{"kernel", "(3, 3)"}, {"pad", "(1, 2)"}, {"stride", "(2, 1)"}}},
      {{1, 5, 10, 10},
       {4, 5, 3, 3},
       {{"kernel", "(3, 3)"}, {"pad", "(2, 2)"}, {"dilate", "(2, 2)"}}},
      {{2, 32, 5, 5}, {8, 32, 1, 1}, {{"kernel", "(1, 1)"}}},
      {{1, 3, 8, 8}, {5, 3, 3, 3}, {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}}},
      {{1, 4, 5, 6, 6}, {6, 4, 3, 3, 3}, {{"kernel", "(3, 3, 3)"}, {"pad", "(1, 1, 1)"}}},
  };
}

TEST(ConvQuantExact, EveryPathEqualsTheIntegerReference) {
  // The op's oneDNN kernel (plain where exact, else the weight split) and the split path called
  // directly both equal the int32 reference loops on inputs that saturate int16 pair sums.
  SCOPED_TRACE(StrCat("CPU level ", CpuIsaName(MaxCpuIsa()),
                      ", oneDNN VNNI: ", ops::quant_exact::OneDnnHasVnni()));
  int n = 0;
  for (const QConvShape& c : ExactCases())
    for (DType dt : {DType::kUint8, DType::kInt8})
      for (bool with_bias : {false, true}) {
        SCOPED_TRACE(StrCat(c.x.ToString(), " ", DTypeName(dt), with_bias ? " bias" : ""));
        NDArray x = Extremes(c.x, dt, 11 + n), w = Extremes(c.w, DType::kInt8, 12 + n);
        NDArray b = Extremes({c.w[0]}, DType::kInt8, 13 + n);
        ++n;
        AttrDict attrs = c.attrs;
        attrs["num_filter"] = std::to_string(c.w[0]);
        attrs["no_bias"] = with_bias ? "False" : "True";
        std::vector<NDArray> in{x, w};
        if (with_bias) in.push_back(b);
        for (double r : {-1.0, 1.0, -1.0, 1.0}) in.push_back(R(r));
        if (with_bias) in.insert(in.end(), {R(-1), R(1)});
        OpTestCase tc{.op = "_contrib_quantized_conv", .attrs = attrs};
        NDArray ref = RunWithKernel(tc, {DeviceType::kCPU, Backend::kReference}, in)[0];
        NDArray opt = RunWithKernel(tc, {DeviceType::kCPU, Backend::kOptimized}, in)[0];
        EXPECT_TRUE(SameDTypeAllClose(opt, ref, 0, 0)) << "op's oneDNN kernel";
        ops::ConvGeom g = QConvGeom(attrs, x.shape());
        NDArray y = NDArray::Full(ref.shape(), 0, cpu(), DType::kInt32);
        ASSERT_TRUE(ops::onednn::QuantizedConvForwardSplit(g, x, w, with_bias ? &b : nullptr, y));
        EXPECT_TRUE(SameDTypeAllClose(y, ref, 0, 0)) << "weight split";
      }
}

TEST(ConvQuantExact, SplitRoundsTheBiasLikeOneDnn) {
  // Sums beyond 2^24: oneDNN adds the float32 bias in float32 (rounded to nearest even); the
  // split path does the same, so both paths agree bit for bit, within 2 of the exact integer.
  NDArray x = Arr(std::vector<double>(64 * 6 * 6, 255), {1, 64, 6, 6}, DType::kUint8);
  std::vector<double> wv(4 * 64 * 9, 127);
  NDArray w = Arr(wv, {4, 64, 3, 3}, DType::kInt8);
  NDArray b = Arr({1, -3, 5, 127}, {4}, DType::kInt8);
  ops::ConvGeom g = QConvGeom({{"kernel", "(3, 3)"}, {"num_filter", "4"}}, x.shape());
  NDArray plain = NDArray::Full({1, 4, 4, 4}, 0, cpu(), DType::kInt32);
  NDArray split = NDArray::Full({1, 4, 4, 4}, 0, cpu(), DType::kInt32);
  ASSERT_TRUE(ops::onednn::QuantizedConvForward(g, x, w, &b, plain));
  ASSERT_TRUE(ops::onednn::QuantizedConvForwardSplit(g, x, w, &b, split));
  EXPECT_TRUE(SameDTypeAllClose(split, plain, 0, 0));
  const int64_t sum = 64 * 9 * 255 * 127;  // 18,651,840 > 2^24
  std::vector<int> got = split.ToVector<int>();
  const int bias[] = {1, -3, 5, 127};
  for (int f = 0; f < 4; ++f) {
    const float want = static_cast<float>(sum) + static_cast<float>(bias[f]);
    EXPECT_EQ(got[f * 16], static_cast<int64_t>(want)) << f;
    EXPECT_LE(std::abs(got[f * 16] - (sum + bias[f])), 2) << f;
  }
}

TEST(ConvQuantExact, KernelExactness) {
  using ops::quant_exact::Int8KernelIsExact;
  EXPECT_TRUE(Int8KernelIsExact("brgconv:avx512_core_vnni"));
  EXPECT_TRUE(Int8KernelIsExact("jit_uni_int8:avx2_vnni"));
  EXPECT_TRUE(Int8KernelIsExact("brg:avx512_core_amx"));
  EXPECT_TRUE(Int8KernelIsExact("ref:any"));
  EXPECT_FALSE(Int8KernelIsExact("jit_uni_int8:sse41"));
  EXPECT_FALSE(Int8KernelIsExact("jit_uni_int8:avx2"));
  EXPECT_FALSE(Int8KernelIsExact("jit_int8:avx512_core"));
  EXPECT_FALSE(Int8KernelIsExact("jit_int8_1x1:avx512_core"));
  EXPECT_EQ(Int8KernelIsExact("gemm:jit"), ops::quant_exact::OneDnnHasVnni());
  // oneDNN's effective ISA follows the cap the test targets set (ONEDNN_MAX_CPU_ISA).
  const char* cap = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (cap && (std::string(cap) == "AVX2" || std::string(cap) == "AVX512_CORE" ||
              std::string(cap) == "SSE41")) {
    EXPECT_FALSE(ops::quant_exact::OneDnnHasVnni()) << cap;
  }
  if (!cap && HardwareCpuIsa() == CpuIsa::kAvx512CoreVnni) {
    EXPECT_TRUE(ops::quant_exact::OneDnnHasVnni());
  }
  // |w| <= 64 cannot saturate: 2 * 255 * 64 <= 32767.
  const int8_t safe[] = {64, -64, 0, 3}, unsafe[] = {1, -65};
  EXPECT_TRUE(ops::quant_exact::WeightsPairSafe(safe, 4));
  EXPECT_FALSE(ops::quant_exact::WeightsPairSafe(unsafe, 2));
}

TEST(ConvQuantExact, CappedRunsTakeTheKernelsOfOlderCpus) {
  // Under an ISA cap below VNNI (the conv_quant_test_* targets) oneDNN picks a kernel that is not
  // exact, so EveryPathEqualsTheIntegerReference ran the weight split; without a cap on a VNNI
  // CPU the 3x3 conv 64->64 runs a VNNI kernel directly.
  ops::ConvGeom g = QConvGeom({{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "64"}},
                              Shape{1, 64, 14, 14});
  for (DType dt : {DType::kUint8, DType::kInt8}) {
    const std::string name = ops::onednn::QuantizedConvKernelName(g, dt, false);
    SCOPED_TRACE(StrCat(DTypeName(dt), " kernel ", name));
    ASSERT_FALSE(name.empty());
    const char* cap = std::getenv("ONEDNN_MAX_CPU_ISA");
    const std::string want = cap ? AsciiToLower(cap) : "";
    if (want == "avx2" || want == "avx512_core" || want == "sse41") {
      EXPECT_NE(name.find(want), std::string::npos);
      EXPECT_EQ(name.find("vnni"), std::string::npos);
      EXPECT_FALSE(ops::quant_exact::Int8KernelIsExact(name));
    } else if (!cap && HardwareCpuIsa() == CpuIsa::kAvx512CoreVnni) {
      EXPECT_NE(name.find("vnni"), std::string::npos);
      EXPECT_TRUE(ops::quant_exact::Int8KernelIsExact(name));
    }
  }
}

TEST(ConvQuantExact, SevenBitWeightsAreExact) {
  // uint8 data and |w| <= 64 (no pair can saturate) run the plain oneDNN kernel on any CPU.
  NDArray x = Extremes({2, 16, 6, 6}, DType::kUint8, 21);
  std::vector<double> wv = Extremes({8, 16, 3, 3}, DType::kInt8, 22).ToVector<double>();
  for (double& v : wv) v = std::clamp(v, -64.0, 64.0);
  NDArray w = Arr(wv, {8, 16, 3, 3}, DType::kInt8);
  std::vector<NDArray> in{x, w, R(0), R(1), R(-1), R(1)};
  OpTestCase tc{.op = "_contrib_quantized_conv",
                .attrs = {{"kernel", "(3, 3)"}, {"num_filter", "8"}, {"no_bias", "True"}}};
  NDArray ref = RunWithKernel(tc, {DeviceType::kCPU, Backend::kReference}, in)[0];
  NDArray opt = RunWithKernel(tc, {DeviceType::kCPU, Backend::kOptimized}, in)[0];
  EXPECT_TRUE(SameDTypeAllClose(opt, ref, 0, 0));
}

TEST(ConvQuantExact, WeightSplitRecombines) {
  std::vector<int8_t> w(256), parts(512);
  for (int i = 0; i < 256; ++i) w[i] = static_cast<int8_t>(i - 128);
  ops::quant_exact::SplitWeights(w.data(), 2, 128, parts.data());
  for (int i = 0; i < 256; ++i) {
    EXPECT_GE(parts[i], -8);
    EXPECT_LE(parts[i], 7);
    EXPECT_GE(parts[256 + i], 0);
    EXPECT_LE(parts[256 + i], 15);
    EXPECT_EQ(16 * parts[i] + parts[256 + i], w[i]) << i;
  }
  // t (1, 2F = 4, S = 2): y = 16 hi + lo - 128 tap_sums, + bias.
  const int32_t t[] = {1, -2, 3, 100, 5, 6, 7, 8};
  int32_t y[4];
  const int8_t bias[] = {-1, 2};
  ops::quant_exact::Recombine(t, 1, 2, 2, nullptr, bias, y);
  EXPECT_EQ(std::vector<int32_t>(y, y + 4),
            (std::vector<int32_t>{16 + 5 - 1, -32 + 6 - 1, 48 + 7 + 2, 1600 + 8 + 2}));
  const int32_t sums[] = {1, 0, -2, 3};
  ops::quant_exact::Recombine(t, 1, 2, 2, sums, nullptr, y);
  EXPECT_EQ(std::vector<int32_t>(y, y + 4),
            (std::vector<int32_t>{16 + 5 - 128, -32 + 6, 48 + 7 + 256, 1600 + 8 - 384}));
}

TEST(ConvQuantExact, TapSumsCountOnlyTapsInsideTheImage) {
  // 1-D in a 2-D geometry: x width 3, kernel 3, pad 1 -> 3 outputs; w (1, 2, 1, 3) = channel 0
  // {1, 2, 3}, channel 1 {10, 20, 30}: per tap 11, 22, 33. Output 0 misses tap 0, output 2
  // misses tap 2.
  ops::ConvGeom g =
      QConvGeom({{"kernel", "(1, 3)"}, {"pad", "(0, 1)"}, {"num_filter", "1"}}, Shape{1, 2, 1, 3});
  const int8_t w[] = {1, 2, 3, 10, 20, 30};
  int32_t m[3];
  ops::quant_exact::TapSums(g, w, m);
  EXPECT_EQ(std::vector<int32_t>(m, m + 3), (std::vector<int32_t>{55, 66, 33}));
}

// ---- Errors. ----

TEST(ConvQuantErrors, WrongDTypesAndShapes) {
  ExpectInvalidArgument([] { nd::contrib::quantize(Arr({1}, {1}, DType::kFloat64), R(0), R(1)); },
                        {"_contrib_quantize", "data", "float32", "float64"});
  ExpectInvalidArgument([] { nd::contrib::dequantize(Arr({1}, {1}, DType::kInt32), R(0), R(1)); },
                        {"_contrib_dequantize", "data", "uint8 or int8", "int32"});
  ExpectInvalidArgument([] { nd::contrib::requantize(Arr({1}, {1}, DType::kInt8), R(0), R(1)); },
                        {"_contrib_requantize", "data", "int32", "int8"});
  ExpectInvalidArgument(
      [] {
        nd::contrib::quantize(Arr({1, 2}, {2}), Arr({0, 1}, {2}), R(1));
      },
      {"_contrib_quantize", "min_range", "(1,)"});
  ExpectInvalidArgument(
      [] {
        const Op& op = OpRegistry::Get("_contrib_quantize_v2");
        OpAttrs::Parse(op, {{"out_type", "int4"}});
      },
      {"_contrib_quantize_v2", "out_type", "int4"});
  NDArray w = Arr(std::vector<double>(4 * 2 * 9, 1), {4, 2, 3, 3}, DType::kInt8);
  ExpectInvalidArgument(
      [&] {
        RunOp("_contrib_quantized_conv",
              {Arr(std::vector<double>(50, 0), {1, 2, 5, 5}), w, R(-1), R(1), R(-1), R(1)},
              {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"no_bias", "True"}});
      },
      {"_contrib_quantized_conv", "data", "uint8 or int8", "float32"});
  ExpectInvalidArgument(
      [&] {
        RunOp("_contrib_quantized_conv",
              {Arr(std::vector<double>(100, 0), {1, 4, 5, 5}, DType::kUint8), w, R(-1), R(1), R(-1),
               R(1)},
              {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"no_bias", "True"}, {"num_group", "2"}});
      },
      {"_contrib_quantized_conv", "num_group must be 1"});
  NDArray q8 = Arr({1, 2}, {1, 2}, DType::kInt8);
  ExpectInvalidArgument(
      [&] {
        RunOp("_contrib_quantized_act", {q8, R(-1), R(1)}, {{"act_type", "tanh"}});
      },
      {"_contrib_quantized_act", "relu", "tanh"});
  ExpectInvalidArgument(
      [&] {
        RunOp("_contrib_quantized_pooling", {q8.reshape({1, 1, 1, 2}), R(-1), R(1)},
              {{"kernel", "(1, 1)"}, {"pool_type", "sum"}});
      },
      {"_contrib_quantized_pooling", "pool_type", "sum"});
  ExpectInvalidArgument(
      [&] {
        RunOp("_contrib_quantized_concat",
              {q8, Arr({1, 2, 3}, {3, 1}, DType::kInt8), R(-1), R(1), R(-1), R(1)},
              {{"num_args", "2"}});
      },
      {"_contrib_quantized_concat", "input 1", "(3, 1)"});
  ExpectInvalidArgument(
      [&] {
        RunOp("_contrib_quantized_elemwise_mul",
              {Arr({1, 2}, {2}, DType::kUint8), Arr({1, 2}, {2}, DType::kInt8), R(-1), R(1), R(-1),
               R(1)},
              {});
      },
      {"_contrib_quantized_elemwise_mul", "lhs", "int8", "uint8"});
}

}  // namespace
}  // namespace mxnet::testing
