// Typed attributes of the nn op family, with MXNet 1.9.1's names, C++ defaults and string forms
// (docs/formats.md §3.4). Shared by the registrations (nn_*.cc) and the nd:: free functions
// (nn_api.h), where they double as the options structs:
//   nd::BatchNorm(x, gamma, beta, mean, var, {.eps = 1e-5, .fix_gamma = false});
// Field order follows MXNet's declaration order, so designated initializers read like kwargs.
#pragma once

#include <optional>
#include <string>

#include "base/dtype.h"
#include "base/shape.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// BatchNorm (src/operator/nn/batch_norm.cc). Op-level defaults differ from Gluon's block:
// eps 1e-3 and fix_gamma True.
struct BatchNormParam {
  double eps = 1e-3;
  float momentum = 0.9f;
  bool fix_gamma = true;
  bool use_global_stats = false;
  bool output_mean_var = false;
  int axis = 1;
  bool cudnn_off = false;
  std::optional<float> min_calib_range;
  std::optional<float> max_calib_range;
  template <class D>
  static void Declare(D& d) {
    d.field("eps", &BatchNormParam::eps).describe("Epsilon added to the variance.");
    d.field("momentum", &BatchNormParam::momentum).describe("Momentum of the moving averages.");
    d.field("fix_gamma", &BatchNormParam::fix_gamma)
        .describe("Treat gamma as 1 (its gradient is 0).");
    d.field("use_global_stats", &BatchNormParam::use_global_stats)
        .describe("Normalize with the moving statistics, also in training.");
    d.field("output_mean_var", &BatchNormParam::output_mean_var)
        .describe("Also output the mean and the inverse standard deviation.");
    d.field("axis", &BatchNormParam::axis).describe("The channel axis.");
    d.field("cudnn_off", &BatchNormParam::cudnn_off).describe("Do not use cuDNN.");
    d.field("min_calib_range", &BatchNormParam::min_calib_range)
        .describe("Quantization calibration (unused).");
    d.field("max_calib_range", &BatchNormParam::max_calib_range)
        .describe("Quantization calibration (unused).");
  }
  std::string Validate() const;
};

// LayerNorm: normalizes along one axis.
struct LayerNormParam {
  int axis = -1;
  float eps = 1e-5f;
  bool output_mean_var = false;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &LayerNormParam::axis).describe("The axis to normalize along.");
    d.field("eps", &LayerNormParam::eps).describe("Epsilon added to the variance.");
    d.field("output_mean_var", &LayerNormParam::output_mean_var)
        .describe("Also output the mean and the standard deviation.");
  }
  std::string Validate() const;
};

// GroupNorm: data (N, C, ...), channels split into num_groups groups; gamma/beta (num_groups,).
struct GroupNormParam {
  int num_groups = 1;
  float eps = 1e-5f;
  bool output_mean_var = false;
  template <class D>
  static void Declare(D& d) {
    d.field("num_groups", &GroupNormParam::num_groups).describe("Number of channel groups.");
    d.field("eps", &GroupNormParam::eps).describe("Epsilon added to the variance.");
    d.field("output_mean_var", &GroupNormParam::output_mean_var)
        .describe("Also output the mean and the standard deviation.");
  }
  std::string Validate() const;
};

// InstanceNorm: data (N, C, spatial...), gamma/beta (C,).
struct InstanceNormParam {
  float eps = 1e-3f;
  template <class D>
  static void Declare(D& d) {
    d.field("eps", &InstanceNormParam::eps).describe("Epsilon added to the variance.");
  }
  std::string Validate() const;
};

struct ActivationParam {
  std::string act_type;  // required: relu, sigmoid, tanh, softrelu, softsign
  template <class D>
  static void Declare(D& d) {
    d.field("act_type", &ActivationParam::act_type)
        .required()
        .choices({"relu", "sigmoid", "softrelu", "softsign", "tanh"})
        .describe("Activation function.");
  }
};

struct LeakyReLUParam {
  std::string act_type = "leaky";
  float slope = 0.25f;
  float lower_bound = 0.125f;
  float upper_bound = 0.334f;
  template <class D>
  static void Declare(D& d) {
    d.field("act_type", &LeakyReLUParam::act_type)
        .choices({"elu", "gelu", "leaky", "prelu", "rrelu", "selu"})
        .describe("Activation function.");
    d.field("slope", &LeakyReLUParam::slope).describe("Slope (leaky) or scale (elu).");
    d.field("lower_bound", &LeakyReLUParam::lower_bound)
        .describe("Lower bound of rrelu's random slope.");
    d.field("upper_bound", &LeakyReLUParam::upper_bound)
        .describe("Upper bound of rrelu's random slope.");
  }
  std::string Validate() const;
};

// softmax, log_softmax, softmin (and their backward helpers).
struct SoftmaxParam {
  int axis = -1;
  std::optional<double> temperature;
  std::optional<DType> dtype;  // output dtype (float16/32/64); None: data's dtype
  std::optional<bool> use_length = false;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &SoftmaxParam::axis).describe("The axis along which to compute softmax.");
    d.field("temperature", &SoftmaxParam::temperature).describe("Temperature (None: 1).");
    d.field("dtype", &SoftmaxParam::dtype)
        .choices({"None", "float16", "float32", "float64"})
        .describe("Output dtype (None: the input's).");
    d.field("use_length", &SoftmaxParam::use_length)
        .describe("Use the length input as a mask along the axis.");
  }
  bool has_length() const { return use_length.value_or(false); }
  std::string Validate() const;
};

struct SoftmaxActivationParam {
  std::string mode = "instance";
  template <class D>
  static void Declare(D& d) {
    d.field("mode", &SoftmaxActivationParam::mode)
        .choices({"channel", "instance"})
        .describe("instance: softmax over the last axis; channel: over axis 1.");
  }
};

struct SoftmaxOutputParam {
  float grad_scale = 1.0f;
  float ignore_label = -1.0f;
  bool multi_output = false;
  bool use_ignore = false;
  bool preserve_shape = false;
  std::string normalization = "null";
  bool out_grad = false;
  float smooth_alpha = 0.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("grad_scale", &SoftmaxOutputParam::grad_scale).describe("Scales the gradient.");
    d.field("ignore_label", &SoftmaxOutputParam::ignore_label)
        .describe("Label ignored when use_ignore.");
    d.field("multi_output", &SoftmaxOutputParam::multi_output).describe("Softmax along axis 1.");
    d.field("use_ignore", &SoftmaxOutputParam::use_ignore)
        .describe("Zero the gradient of ignore_label rows.");
    d.field("preserve_shape", &SoftmaxOutputParam::preserve_shape)
        .describe("Softmax along the last axis.");
    d.field("normalization", &SoftmaxOutputParam::normalization)
        .choices({"batch", "null", "valid"})
        .describe("Gradient normalization.");
    d.field("out_grad", &SoftmaxOutputParam::out_grad)
        .describe("Multiply the gradient by the head gradient.");
    d.field("smooth_alpha", &SoftmaxOutputParam::smooth_alpha)
        .describe("Label smoothing constant.");
  }
  std::string Validate() const;
};

struct DropoutParam {
  float p = 0.5f;
  std::string mode = "training";
  Shape axes;  // () = no shared axes
  std::optional<bool> cudnn_off = false;
  template <class D>
  static void Declare(D& d) {
    d.field("p", &DropoutParam::p).describe("Fraction of the input that gets dropped.");
    d.field("mode", &DropoutParam::mode)
        .choices({"always", "training"})
        .describe("training: only in train mode; always: also in predict mode.");
    d.field("axes", &DropoutParam::axes).describe("Axes along which one mask value is shared.");
    d.field("cudnn_off", &DropoutParam::cudnn_off).describe("Do not use cuDNN.");
  }
  std::string Validate() const;
};

// LinearRegressionOutput, LogisticRegressionOutput, MAERegressionOutput.
struct RegressionOutputParam {
  float grad_scale = 1.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("grad_scale", &RegressionOutputParam::grad_scale).describe("Scales the gradient.");
  }
};

// ---- Attributes of internal helper ops. ----

// _nn_act_deriv / _nn_act_deriv2: an activation's derivative from its input (gelu) or output
// (softrelu, softsign), and that function's own derivative.
struct ActDerivParam {
  std::string act_type = "gelu";
  template <class D>
  static void Declare(D& d) {
    d.field("act_type", &ActDerivParam::act_type)
        .choices({"gelu", "softrelu", "softsign"})
        .describe("Activation.");
  }
};

// _nn_channel_bcast / _nn_channel_sum: a per-channel vector along `axis`.
struct ChannelParam {
  int axis = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &ChannelParam::axis).describe("The channel axis of the full array.");
  }
};

}  // namespace mxnet::ops
