// Typed attributes of the fused multi-tensor AdamW / LAMB ops and group AdaGrad of the optim
// family (MXNet 1.9.1's MultiAdamWParam in src/operator/contrib/adamw-inl.h, MultiLAMBParam in
// contrib/multi_lamb-inl.h, GroupAdagradParam in contrib/optimizer_op-inl.h). Names, types and
// defaults as MXNet declares them, fields in its declaration order.
#pragma once

#include <string>
#include <vector>

#include "ndarray/params.h"

namespace mxnet::ops {

// _multi_adamw_update, _multi_mp_adamw_update: one lr, wd and eta per weight ("(0.1, 0.1)").
struct MultiAdamWParam {
  std::vector<double> lrs;  // required; num_weights values (MXNet stores them as float)
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float epsilon = 1e-8f;
  std::vector<double> wds;   // required
  std::vector<double> etas;  // required
  float clip_gradient = -1.0f;
  int num_weights = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("lrs", &MultiAdamWParam::lrs).required().describe("Learning rates");
    d.field("beta1", &MultiAdamWParam::beta1)
        .describe("The decay rate for the 1st moment estimates.");
    d.field("beta2", &MultiAdamWParam::beta2)
        .describe("The decay rate for the 2nd moment estimates.");
    d.field("epsilon", &MultiAdamWParam::epsilon)
        .describe("A small constant for numerical stability.");
    d.field("wds", &MultiAdamWParam::wds).required().describe("Weight decays.");
    d.field("etas", &MultiAdamWParam::etas)
        .required()
        .describe("Learning rates schedule multiplier");
    d.field("clip_gradient", &MultiAdamWParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("num_weights", &MultiAdamWParam::num_weights).describe("Number of updated weights.");
  }
  std::string Validate() const;
};

// _multi_lamb_update, _multi_mp_lamb_update.
struct MultiLAMBParam {
  std::vector<double> learning_rates;  // required; num_tensors values
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float epsilon = 1e-6f;
  std::vector<double> wds;  // required
  float rescale_grad = 1.0f;
  float lower_bound = -1.0f;
  float upper_bound = -1.0f;
  float clip_gradient = -1.0f;
  bool bias_correction = true;
  Shape step_count;  // required; num_tensors values
  int num_tensors = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("learning_rates", &MultiLAMBParam::learning_rates)
        .required()
        .describe("List of learning rates");
    d.field("beta1", &MultiLAMBParam::beta1)
        .describe("Exponential decay rate for the first moment estimates.");
    d.field("beta2", &MultiLAMBParam::beta2)
        .describe("Exponential decay rate for the second moment estimates.");
    d.field("epsilon", &MultiLAMBParam::epsilon).describe("Small value to avoid division by 0.");
    d.field("wds", &MultiLAMBParam::wds).required().describe("List of Weight decays.");
    d.field("rescale_grad", &MultiLAMBParam::rescale_grad).describe("Gradient rescaling factor");
    d.field("lower_bound", &MultiLAMBParam::lower_bound)
        .describe("Lower limit of norm of weight. If lower_bound <= 0, Lower limit is not set");
    d.field("upper_bound", &MultiLAMBParam::upper_bound)
        .describe("Upper limit of norm of weight. If upper_bound <= 0, Upper limit is not set");
    d.field("clip_gradient", &MultiLAMBParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("bias_correction", &MultiLAMBParam::bias_correction)
        .describe("Whether to use bias correction.");
    d.field("step_count", &MultiLAMBParam::step_count)
        .required()
        .describe("Step count for each tensor");
    d.field("num_tensors", &MultiLAMBParam::num_tensors).describe("Number of tensors");
  }
  std::string Validate() const;
};

// _contrib_group_adagrad_update.
struct GroupAdagradParam {
  float lr = 0.0f;  // required
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  float epsilon = 1.0e-5f;
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &GroupAdagradParam::lr).required().describe("Learning rate");
    d.field("rescale_grad", &GroupAdagradParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &GroupAdagradParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("epsilon", &GroupAdagradParam::epsilon).describe("Epsilon for numerical stability");
  }
};

}  // namespace mxnet::ops
