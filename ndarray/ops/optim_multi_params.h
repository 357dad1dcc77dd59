// Typed attributes of the multi-tensor optimizer ops and helpers of the optim family (MXNet
// 1.9.1's MultiSGDParam / MultiSGDMomParam in src/operator/optimizer_op-inl.h,
// PreloadedMultiSGD*Param in contrib/preloaded_multi_sgd-inl.h, FTMLParam, MultiSumSqParam,
// LARSParam, AllFiniteParam, MultiAllFiniteParam, ResetArraysParam). Names, types and defaults
// as MXNet declares them, fields in its declaration order.
#pragma once

#include <string>
#include <vector>

#include "ndarray/params.h"

namespace mxnet::ops {

// multi_sgd_update, multi_mp_sgd_update: one lr and wd per weight ("(0.1, 0.1)").
struct MultiSGDParam {
  std::vector<double> lrs;  // required; num_weights values (MXNet stores them as float)
  std::vector<double> wds;  // required; num_weights values
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  int num_weights = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("lrs", &MultiSGDParam::lrs).required().describe("Learning rates.");
    d.field("wds", &MultiSGDParam::wds).required().describe("Weight decays.");
    d.field("rescale_grad", &MultiSGDParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &MultiSGDParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("num_weights", &MultiSGDParam::num_weights).describe("Number of updated weights.");
  }
  std::string Validate() const;
};

// multi_sgd_mom_update, multi_mp_sgd_mom_update.
struct MultiSGDMomParam {
  std::vector<double> lrs;  // required
  std::vector<double> wds;  // required
  float momentum = 0.0f;
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  int num_weights = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("lrs", &MultiSGDMomParam::lrs).required().describe("Learning rates.");
    d.field("wds", &MultiSGDMomParam::wds).required().describe("Weight decays.");
    d.field("momentum", &MultiSGDMomParam::momentum)
        .describe("The decay rate of momentum estimates at each epoch.");
    d.field("rescale_grad", &MultiSGDMomParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &MultiSGDMomParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("num_weights", &MultiSGDMomParam::num_weights).describe("Number of updated weights.");
  }
  std::string Validate() const;
};

// preloaded_multi_sgd_update, preloaded_multi_mp_sgd_update (lrs/wds are input arrays).
struct PreloadedMultiSGDParam {
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  int num_weights = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("rescale_grad", &PreloadedMultiSGDParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &PreloadedMultiSGDParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("num_weights", &PreloadedMultiSGDParam::num_weights)
        .describe("Number of updated weights.");
  }
  std::string Validate() const;
};

// preloaded_multi_sgd_mom_update, preloaded_multi_mp_sgd_mom_update.
struct PreloadedMultiSGDMomParam {
  float momentum = 0.0f;
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  int num_weights = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("momentum", &PreloadedMultiSGDMomParam::momentum)
        .describe("The decay rate of momentum estimates at each epoch.");
    d.field("rescale_grad", &PreloadedMultiSGDMomParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &PreloadedMultiSGDMomParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("num_weights", &PreloadedMultiSGDMomParam::num_weights)
        .describe("Number of updated weights.");
  }
  std::string Validate() const;
};

// ftml_update (Zheng & Kwok 2017). Note MXNet's name clip_grad (not clip_gradient) and the
// double epsilon whose default is float(1e-8) widened (9.9999999392252903e-09).
struct FTMLParam {
  float lr = 0.0f;  // required
  float beta1 = 0.6f;
  float beta2 = 0.999f;
  double epsilon = static_cast<double>(1e-8f);
  int t = 0;  // required
  float wd = 0.0f;
  float rescale_grad = 1.0f;
  float clip_grad = -1.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &FTMLParam::lr).required().describe("Learning rate.");
    d.field("beta1", &FTMLParam::beta1).describe("Generally close to 0.5.");
    d.field("beta2", &FTMLParam::beta2).describe("Generally close to 1.");
    d.field("epsilon", &FTMLParam::epsilon).describe("Epsilon to prevent div 0.");
    d.field("t", &FTMLParam::t).required().describe("Number of update.");
    d.field("wd", &FTMLParam::wd).describe("Weight decay");
    d.field("rescale_grad", &FTMLParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_grad", &FTMLParam::clip_grad)
        .describe("Clip gradient to [-clip_grad, clip_grad] when >= 0");
  }
  std::string Validate() const;
};

// multi_sum_sq, reset_arrays: num_arrays is required.
struct MultiSumSqParam {
  int num_arrays = 0;  // required
  template <class D>
  static void Declare(D& d) {
    d.field("num_arrays", &MultiSumSqParam::num_arrays)
        .required()
        .describe("number of input arrays.");
  }
  std::string Validate() const;
};
using ResetArraysParam = MultiSumSqParam;

// multi_lars.
struct LARSParam {
  float eta = 0.0f;  // required
  float eps = 0.0f;  // required
  float rescale_grad = 1.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("eta", &LARSParam::eta).required().describe("LARS eta");
    d.field("eps", &LARSParam::eps).required().describe("LARS eps");
    d.field("rescale_grad", &LARSParam::rescale_grad).describe("Gradient rescaling factor");
  }
};

// all_finite.
struct AllFiniteParam {
  bool init_output = true;
  template <class D>
  static void Declare(D& d) {
    d.field("init_output", &AllFiniteParam::init_output).describe("Initialize output to 1.");
  }
};

// multi_all_finite.
struct MultiAllFiniteParam {
  int num_arrays = 1;
  bool init_output = true;
  template <class D>
  static void Declare(D& d) {
    d.field("num_arrays", &MultiAllFiniteParam::num_arrays).describe("Number of arrays.");
    d.field("init_output", &MultiAllFiniteParam::init_output).describe("Initialize output to 1.");
  }
  std::string Validate() const;
};

}  // namespace mxnet::ops
