// Typed attributes of MXNet 1.9.1's int8/uint8 quantization ops (src/operator/quantization/),
// registered in conv_quant.cc and conv_quant_nn.cc. Defaults and choices as MXNet's.
#pragma once

#include <optional>
#include <string>

#include "ndarray/params.h"

namespace mxnet::ops {

// _contrib_quantize: out_type "uint8" (default) or "int8".
struct QuantizeParam {
  std::string out_type = "uint8";
  template <class D>
  static void Declare(D& d) {
    d.field("out_type", &QuantizeParam::out_type)
        .choices({"int8", "uint8"})
        .describe("Output data type.");
  }
};

// _contrib_quantize_v2 / _contrib_requantize: out_type "int8" (default), "uint8" or "auto"
// (uint8 when both calibration bounds are given and min_calib_range >= 0, else int8).
struct QuantizeV2Param {
  std::string out_type = "int8";
  std::optional<float> min_calib_range, max_calib_range;
  template <class D>
  static void Declare(D& d) {
    d.field("out_type", &QuantizeV2Param::out_type)
        .choices({"auto", "int8", "uint8"})
        .describe("Output data type; auto: from min_calib_range.");
    d.field("min_calib_range", &QuantizeV2Param::min_calib_range)
        .describe("Calibrated minimum (float32); with max_calib_range replaces the data range.");
    d.field("max_calib_range", &QuantizeV2Param::max_calib_range)
        .describe("Calibrated maximum (float32); with min_calib_range replaces the data range.");
  }
  bool has_calib() const { return min_calib_range.has_value() && max_calib_range.has_value(); }
};

// _contrib_dequantize: out_type "float32" (the only choice).
struct DequantizeParam {
  std::string out_type = "float32";
  template <class D>
  static void Declare(D& d) {
    d.field("out_type", &DequantizeParam::out_type).choices({"float32"}).describe("Output type.");
  }
};

// _contrib_quantize_asym: optional calibration bounds.
struct QuantizeAsymParam {
  std::optional<float> min_calib_range, max_calib_range;
  template <class D>
  static void Declare(D& d) {
    d.field("min_calib_range", &QuantizeAsymParam::min_calib_range)
        .describe("Calibrated minimum (float32); with max_calib_range replaces the data range.");
    d.field("max_calib_range", &QuantizeAsymParam::max_calib_range)
        .describe("Calibrated maximum (float32); with min_calib_range replaces the data range.");
  }
};

}  // namespace mxnet::ops

namespace mxnet::ops {

// _contrib_quantized_concat: num_args data inputs (then their min/max pairs), dim (default 1).
struct QuantizedConcatParam {
  int num_args = 0;  // required
  int dim = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &QuantizedConcatParam::num_args)
        .required()
        .describe("Number of inputs to be concated.");
    d.field("dim", &QuantizedConcatParam::dim).describe("the dimension to be concated.");
  }
  std::string Validate() const { return num_args < 1 ? "num_args must be at least 1" : ""; }
};

// _contrib_quantized_act: act_type (required; only relu runs, as in MXNet).
struct QuantizedActParam {
  std::string act_type;
  template <class D>
  static void Declare(D& d) {
    d.field("act_type", &QuantizedActParam::act_type)
        .required()
        .choices({"relu", "sigmoid", "softrelu", "softsign", "tanh"})
        .describe("Activation function to be applied (only relu is supported).");
  }
};

// _contrib_quantized_elemwise_add: optional calibrated output range.
struct QuantizedElemwiseAddParam {
  std::optional<float> min_calib_range, max_calib_range;
  template <class D>
  static void Declare(D& d) {
    d.field("min_calib_range", &QuantizedElemwiseAddParam::min_calib_range)
        .describe("Calibrated output minimum; with max_calib_range requantizes to 8 bits.");
    d.field("max_calib_range", &QuantizedElemwiseAddParam::max_calib_range)
        .describe("Calibrated output maximum; with min_calib_range requantizes to 8 bits.");
  }
  bool has_calib() const { return min_calib_range.has_value() && max_calib_range.has_value(); }
};

}  // namespace mxnet::ops

namespace mxnet::ops {

// _contrib_quantized_elemwise_mul: optional calibrated output range, float output switch.
struct QuantizedElemwiseMulParam {
  std::optional<float> min_calib_range, max_calib_range;
  bool enable_float_output = false;
  template <class D>
  static void Declare(D& d) {
    d.field("min_calib_range", &QuantizedElemwiseMulParam::min_calib_range)
        .describe("Calibrated output minimum; with max_calib_range requantizes to int8.");
    d.field("max_calib_range", &QuantizedElemwiseMulParam::max_calib_range)
        .describe("Calibrated output maximum; with min_calib_range requantizes to int8.");
    d.field("enable_float_output", &QuantizedElemwiseMulParam::enable_float_output)
        .describe("Whether to enable float32 output");
  }
  bool has_calib() const { return min_calib_range.has_value() && max_calib_range.has_value(); }
};

}  // namespace mxnet::ops

namespace mxnet::ops {

// _contrib_quantized_batch_norm: BatchNorm's attributes plus the (required at run time)
// calibrated output range. eps defaults to MXNet's float 1e-3 widened to double.
struct QuantizedBatchNormParam {
  double eps = static_cast<double>(1e-3f);
  float momentum = 0.9f;
  bool fix_gamma = true;
  bool use_global_stats = false;
  bool output_mean_var = false;
  int axis = 1;
  bool cudnn_off = false;
  std::optional<float> min_calib_range, max_calib_range;
  template <class D>
  static void Declare(D& d) {
    using P = QuantizedBatchNormParam;
    d.field("eps", &P::eps).describe("Epsilon to prevent div 0.");
    d.field("momentum", &P::momentum).describe("Momentum for moving average (unused).");
    d.field("fix_gamma", &P::fix_gamma).describe("Accepted; MXNet's int8 kernel uses gamma.");
    d.field("use_global_stats", &P::use_global_stats).describe("Accepted (always global).");
    d.field("output_mean_var", &P::output_mean_var).describe("Accepted, unused.");
    d.field("axis", &P::axis).describe("Specify which shape axis the channel is specified");
    d.field("cudnn_off", &P::cudnn_off).describe("Accepted, unused.");
    d.field("min_calib_range", &P::min_calib_range).describe("Calibrated output minimum.");
    d.field("max_calib_range", &P::max_calib_range).describe("Calibrated output maximum.");
  }
};

// _contrib_quantized_embedding: Embedding's attributes.
struct QuantizedEmbeddingParam {
  int input_dim = 0;   // required
  int output_dim = 0;  // required
  std::string dtype = "float32";
  bool sparse_grad = false;
  template <class D>
  static void Declare(D& d) {
    using P = QuantizedEmbeddingParam;
    d.field("input_dim", &P::input_dim)
        .required()
        .describe("Vocabulary size of the input indices.");
    d.field("output_dim", &P::output_dim)
        .required()
        .describe("Dimension of the embedding vectors.");
    d.field("dtype", &P::dtype)
        .choices({"bfloat16", "float16", "float32", "float64", "int32", "int64", "int8", "uint8"})
        .describe("Data type of weight (accepted; the weight is int8).");
    d.field("sparse_grad", &P::sparse_grad).describe("Accepted, unused.");
  }
  std::string Validate() const {
    return input_dim < 1 || output_dim < 1 ? "input_dim and output_dim must be positive" : "";
  }
};

// _contrib_calibrate_entropy: num_quantized_bins (default 255).
struct CalibrateEntropyParam {
  int num_quantized_bins = 255;
  template <class D>
  static void Declare(D& d) {
    d.field("num_quantized_bins", &CalibrateEntropyParam::num_quantized_bins)
        .describe("The number of quantized bins.");
  }
  std::string Validate() const {
    return num_quantized_bins < 1 ? "num_quantized_bins must be positive" : "";
  }
};

}  // namespace mxnet::ops
