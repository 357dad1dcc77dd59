// Tests of the quantization ops (conv_quant*.cc): conformance with real MXNet 1.9.1
// (testdata/conv/quant.json from tools/conformance/refs_quant.py: integer outputs exactly,
// float ranges to float32 precision, MXNet's dtype rejections), hand-computed values and errors.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/ops/conv_api.h"
#include "ndarray/ops/conv_quant_api.h"
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
  NDArray want = nd::FullyConnected(x.astype(DType::kFloat64), w.astype(DType::kFloat64), NDArray(),
                                    {.num_hidden = 5});
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
      nd::Convolution(x, w, NDArray(), {.kernel = {3, 3}, .num_filter = 4}).ToVector<float>();
  ASSERT_EQ(got.size(), ref.size());
  float max_ref = 0;
  for (float v : ref) max_ref = std::max(max_ref, std::fabs(v));
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i] * (127.0f / 255.5f), ref[i], 0.03f * max_ref) << i;
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
