// Test cases of the quantization ops (conv_quant*.cc), enumerated by //ndarray:all_ops_test:
// attribute round trips and (where an op has more than the reference kernel) backends against
// the reference. The ops are inference-only (declared non-differentiable): no gradient checks.
// Inputs are built in the dtypes the ops require (float32 data, int8/uint8/int32 quantized
// data, (1,) float32 ranges).
#include <cmath>
#include <optional>

#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

using Make = std::function<std::vector<NDArray>(DType, uint64_t)>;

// Random integers in [lo, hi] of `dtype` (int8, uint8, int32).
NDArray RandomInts(const Shape& s, int lo, int hi, uint64_t seed, DType dtype) {
  std::vector<double> v = RandomArray(s, lo, hi + 1, seed).ToVector<double>();
  for (double& x : v) x = std::floor(x);
  return NDArray::FromVector(v, s, cpu(), dtype);
}
NDArray Range(double v) {
  return NDArray::FromVector(std::vector<double>{v}, {1}, cpu(), DType::kFloat32);
}
NDArray F32(const Shape& s, double lo, double hi, uint64_t seed) {
  return RandomArray(s, lo, hi, seed, DType::kFloat32);
}

// data followed by its range.
Make WithRange(std::function<NDArray(uint64_t)> data, double lo, double hi) {
  return [=](DType, uint64_t seed) {
    return std::vector<NDArray>{data(seed), Range(lo), Range(hi)};
  };
}

MX_OP_TEST_CASE({.op = "_contrib_quantize",
                 .make_inputs = WithRange(
                     [](uint64_t s) {
                       return F32({2, 3, 4}, -1, 2, s);
                     },
                     -1, 2),
                 .check_grad = false,
                 .label = "(uint8)"});
MX_OP_TEST_CASE({.op = "_contrib_quantize",
                 .attrs = {{"out_type", "int8"}},
                 .make_inputs = WithRange(
                     [](uint64_t s) {
                       return F32({5, 3}, -1, 1, s);
                     },
                     -1, 1),
                 .check_grad = false,
                 .label = "(int8)"});
MX_OP_TEST_CASE({.op = "_contrib_quantize_v2",
                 .make_inputs =
                     [](DType, uint64_t s) {
                       return std::vector<NDArray>{F32({2, 7}, -2, 1, s)};
                     },
                 .check_grad = false,
                 .label = "(int8, data range)"});
MX_OP_TEST_CASE(
    {.op = "_contrib_quantize_v2",
     .attrs = {{"out_type", "auto"}, {"min_calib_range", "0.0"}, {"max_calib_range", "0.8"}},
     .make_inputs =
         [](DType, uint64_t s) {
           return std::vector<NDArray>{F32({1, 2, 3, 3}, 0, 1, s)};
         },
     .check_grad = false,
     .label = "(auto -> uint8, calibrated)"});
MX_OP_TEST_CASE({.op = "_contrib_dequantize",
                 .make_inputs = WithRange(
                     [](uint64_t s) {
                       return RandomInts({3, 4}, -128, 127, s, DType::kInt8);
                     },
                     -1, 0.5),
                 .check_grad = false,
                 .label = "(int8)"});
MX_OP_TEST_CASE({.op = "_contrib_dequantize",
                 .make_inputs = WithRange(
                     [](uint64_t s) {
                       return RandomInts({2, 5}, 0, 255, s, DType::kUint8);
                     },
                     0, 3),
                 .check_grad = false,
                 .label = "(uint8)"});
MX_OP_TEST_CASE({.op = "_contrib_requantize",
                 .make_inputs = WithRange(
                     [](uint64_t s) {
                       return RandomInts({4, 6}, -100000, 100000, s, DType::kInt32);
                     },
                     -5, 5),
                 .check_grad = false,
                 .label = "(int8, data range)"});
MX_OP_TEST_CASE(
    {.op = "_contrib_requantize",
     .attrs = {{"out_type", "auto"}, {"min_calib_range", "0.0"}, {"max_calib_range", "0.0001"}},
     .make_inputs = WithRange(
         [](uint64_t s) { return RandomInts({7}, -100000, 100000, s, DType::kInt32); }, -5, 5),
     .check_grad = false,
     .label = "(auto -> uint8, calibrated)"});
MX_OP_TEST_CASE({.op = "_contrib_quantize_asym",
                 .make_inputs =
                     [](DType, uint64_t s) {
                       return std::vector<NDArray>{F32({2, 3, 4}, -1, 3, s)};
                     },
                 .check_grad = false,
                 .label = "(data range)"});
MX_OP_TEST_CASE({.op = "_contrib_quantize_asym",
                 .attrs = {{"min_calib_range", "-0.5"}, {"max_calib_range", "1.5"}},
                 .make_inputs =
                     [](DType, uint64_t s) {
                       return std::vector<NDArray>{F32({1, 4, 5}, -1, 2, s)};
                     },
                 .check_grad = false,
                 .label = "(calibrated)"});

// ---- Quantized compute ops. ----
NDArray I8(const Shape& s, uint64_t seed) { return RandomInts(s, -127, 127, seed, DType::kInt8); }
NDArray U8(const Shape& s, uint64_t seed) { return RandomInts(s, 0, 255, seed, DType::kUint8); }

// data, weight[, bias], then the ranges of each.
Make ConvLike(std::function<NDArray(uint64_t)> data, Shape w, std::optional<Shape> b) {
  return [=](DType, uint64_t seed) {
    std::vector<NDArray> v{data(seed), I8(w, seed + 1)};
    if (b) v.push_back(I8(*b, seed + 2));
    for (double r : {0.0, 2.0, -0.5, 0.4}) v.push_back(Range(r));
    if (b) {
      v.push_back(Range(-0.1));
      v.push_back(Range(0.2));
    }
    return v;
  };
}

MX_OP_TEST_CASE({.op = "_contrib_quantized_conv",
                 .attrs = {{"kernel", "(3, 3)"}, {"num_filter", "8"}, {"pad", "(1, 1)"}},
                 .make_inputs = ConvLike(
                     [](uint64_t s) {
                       return U8({2, 4, 6, 6}, s);
                     },
                     {8, 4, 3, 3}, Shape{8}),
                 .check_grad = false,
                 .label = "(uint8 data, bias, oneDNN vs reference)"});
MX_OP_TEST_CASE({.op = "_contrib_quantized_conv",
                 .attrs = {{"kernel", "(2, 3)"},
                           {"num_filter", "5"},
                           {"stride", "(2, 1)"},
                           {"dilate", "(1, 2)"},
                           {"no_bias", "True"}},
                 .make_inputs = ConvLike(
                     [](uint64_t s) {
                       return I8({1, 3, 7, 8}, s);
                     },
                     {5, 3, 2, 3}, std::nullopt),
                 .check_grad = false,
                 .label = "(int8 data, strided dilated, no bias)"});
MX_OP_TEST_CASE({.op = "_contrib_quantized_conv",
                 .attrs = {{"kernel", "(2, 2, 2)"}, {"num_filter", "4"}, {"pad", "(1, 0, 1)"}},
                 .make_inputs = ConvLike(
                     [](uint64_t s) {
                       return U8({1, 2, 3, 4, 4}, s);
                     },
                     {4, 2, 2, 2, 2}, Shape{4}),
                 .check_grad = false,
                 .label = "(3-D)"});
MX_OP_TEST_CASE({.op = "_contrib_quantized_fully_connected",
                 .attrs = {{"num_hidden", "4"}},
                 .make_inputs = ConvLike(
                     [](uint64_t s) {
                       return I8({3, 2, 5}, s);
                     },
                     {4, 10}, Shape{4}),
                 .check_grad = false,
                 .label = "(int8, flatten, bias)"});
MX_OP_TEST_CASE({.op = "_contrib_quantized_fully_connected",
                 .attrs = {{"num_hidden", "3"}, {"flatten", "False"}, {"no_bias", "True"}},
                 .make_inputs = ConvLike(
                     [](uint64_t s) {
                       return U8({2, 2, 6}, s);
                     },
                     {3, 6}, std::nullopt),
                 .check_grad = false,
                 .label = "(uint8, no flatten)"});
MX_OP_TEST_CASE({.op = "_contrib_quantized_flatten",
                 .make_inputs = WithRange(
                     [](uint64_t s) {
                       return I8({2, 3, 2}, s);
                     },
                     -1, 1),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_quantized_act",
                 .attrs = {{"act_type", "relu"}},
                 .make_inputs = WithRange(
                     [](uint64_t s) {
                       return I8({2, 3, 4}, s);
                     },
                     -1, 1),
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_quantized_pooling",
                 .attrs = {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}},
                 .make_inputs = WithRange(
                     [](uint64_t s) {
                       return I8({1, 2, 4, 5}, s);
                     },
                     -1, 1),
                 .check_grad = false,
                 .label = "(max)"});
MX_OP_TEST_CASE({.op = "_contrib_quantized_pooling",
                 .attrs = {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"pool_type", "avg"}},
                 .make_inputs = WithRange(
                     [](uint64_t s) {
                       return U8({1, 2, 4, 5}, s);
                     },
                     0, 1),
                 .check_grad = false,
                 .label = "(avg)"});
MX_OP_TEST_CASE({.op = "_contrib_quantized_concat",
                 .attrs = {{"num_args", "2"}},
                 .make_inputs =
                     [](DType, uint64_t s) {
                       return std::vector<NDArray>{I8({2, 2, 3}, s), U8({2, 1, 3}, s + 1),
                                                   Range(-1),        Range(1),
                                                   Range(0),         Range(2)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_quantized_elemwise_add",
                 .make_inputs =
                     [](DType, uint64_t s) {
                       return std::vector<NDArray>{I8({2, 5}, s), I8({2, 5}, s + 1), Range(-1),
                                                   Range(1),      Range(-2),         Range(0.5)};
                     },
                 .check_grad = false,
                 .label = "(int32 output)"});
MX_OP_TEST_CASE({.op = "_contrib_quantized_elemwise_add",
                 .attrs = {{"min_calib_range", "-2.0"}, {"max_calib_range", "2.0"}},
                 .make_inputs =
                     [](DType, uint64_t s) {
                       return std::vector<NDArray>{I8({2, 5}, s), U8({2, 5}, s + 1), Range(-1),
                                                   Range(1),      Range(0),          Range(1)};
                     },
                 .check_grad = false,
                 .label = "(mixed, calibrated)"});
MX_OP_TEST_CASE({.op = "_contrib_quantized_elemwise_mul",
                 .make_inputs =
                     [](DType, uint64_t s) {
                       return std::vector<NDArray>{I8({3, 4}, s), I8({3, 4}, s + 1), Range(-1),
                                                   Range(1),      Range(-2),         Range(0.5)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_quantized_elemwise_mul",
                 .attrs = {{"enable_float_output", "True"}},
                 .make_inputs =
                     [](DType, uint64_t s) {
                       return std::vector<NDArray>{I8({3, 4}, s), I8({3, 4}, s + 1), Range(-1),
                                                   Range(1),      Range(-2),         Range(0.5)};
                     },
                 .check_grad = false,
                 .label = "(float output)"});

// ---- Batch norm, embedding, calibration. ----
MX_OP_TEST_CASE({.op = "_contrib_quantized_batch_norm",
                 .attrs = {{"min_calib_range", "-2.0"}, {"max_calib_range", "2.0"}},
                 .make_inputs =
                     [](DType, uint64_t s) {
                       return std::vector<NDArray>{I8({2, 3, 2, 2}, s),
                                                   F32({3}, 0.5, 1.5, s + 1),
                                                   F32({3}, -0.2, 0.2, s + 2),
                                                   F32({3}, -0.1, 0.1, s + 3),
                                                   F32({3}, 0.5, 2.0, s + 4),
                                                   Range(-1),
                                                   Range(1)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_quantized_embedding",
                 .attrs = {{"input_dim", "5"}, {"output_dim", "3"}},
                 .make_inputs =
                     [](DType, uint64_t s) {
                       return std::vector<NDArray>{
                           NDArray::FromVector(std::vector<double>{0, 4, 2, 1}, {2, 2}, cpu(),
                                               DType::kFloat32),
                           I8({5, 3}, s), Range(-1), Range(1)};
                     },
                 .check_grad = false});
MX_OP_TEST_CASE({.op = "_contrib_calibrate_entropy",
                 .attrs = {{"num_quantized_bins", "5"}},
                 .make_inputs =
                     [](DType, uint64_t s) {
                       std::vector<double> h = RandomArray({21}, 0, 50, s).ToVector<double>();
                       std::vector<double> e(22);
                       for (int i = 0; i < 22; ++i) {
                         h[i < 21 ? i : 0] = std::floor(h[i < 21 ? i : 0]);
                         e[i] = -1.0 + i * 2.0 / 21;
                       }
                       return std::vector<NDArray>{
                           NDArray::FromVector(h, {21}, cpu(), DType::kFloat32),
                           NDArray::FromVector(e, {22}, cpu(), DType::kFloat32)};
                     },
                 .check_grad = false});

}  // namespace
}  // namespace mxnet::testing
