// Typed attributes of the optim op family (MXNet 1.9.1's src/operator/optimizer_op-inl.h and
// contrib/adamw-inl.h parameter structs): names, types (MXNet declares them float, so values are
// rounded to float32 exactly as MXNet parses them) and defaults as MXNet declares them. Fields
// are in MXNet's declaration order, so designated initializers read like Python kwargs:
//   nd::sgd_mom_update(w, g, mom, {.lr = 0.1f, .momentum = 0.9f, .wd = 1e-4f}, w);
// Shared semantics of lr / wd / rescale_grad / clip_gradient (as MXNet's kernels, which differ
// slightly from MXNet's docstrings):
//   - the gradient is first multiplied by rescale_grad, then clipped to [-c, c] when
//     clip_gradient c >= 0 (the docstrings say "> 0"; the kernels test ">= 0", so 0 clips to 0);
//   - SGD-style ops add wd * weight outside the clip (sgd, sgd_mom, nag, signum, ftrl's
//     denominator); Adam, RMSProp and RMSPropAlex add wd * weight to the gradient BEFORE the
//     clip; AdamW and LAMB decouple it (AdamW: eta * wd * weight; LAMB: + wd * weight in g).
#pragma once

#include "ndarray/params.h"

namespace mxnet::ops {

// sgd_update, mp_sgd_update, signsgd_update.
struct SGDParam {
  float lr = 0.0f;  // required
  float wd = 0.0f;
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  bool lazy_update = true;  // row_sparse only in MXNet; accepted and ignored (dense arrays)
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &SGDParam::lr).required().describe("Learning rate");
    d.field("wd", &SGDParam::wd).describe("Weight decay");
    d.field("rescale_grad", &SGDParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &SGDParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("lazy_update", &SGDParam::lazy_update)
        .describe("Lazy updates for row_sparse gradients (ignored: dense only)");
  }
};

// sgd_mom_update, mp_sgd_mom_update.
struct SGDMomParam {
  float lr = 0.0f;  // required
  float momentum = 0.0f;
  float wd = 0.0f;
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  bool lazy_update = true;
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &SGDMomParam::lr).required().describe("Learning rate");
    d.field("momentum", &SGDMomParam::momentum)
        .describe("The decay rate of momentum estimates at each epoch.");
    d.field("wd", &SGDMomParam::wd).describe("Weight decay");
    d.field("rescale_grad", &SGDMomParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &SGDMomParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("lazy_update", &SGDMomParam::lazy_update)
        .describe("Lazy updates for row_sparse gradients (ignored: dense only)");
  }
};

// nag_mom_update, mp_nag_mom_update.
struct NAGMomParam {
  float lr = 0.0f;  // required
  float momentum = 0.0f;
  float wd = 0.0f;
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &NAGMomParam::lr).required().describe("Learning rate");
    d.field("momentum", &NAGMomParam::momentum)
        .describe("The decay rate of momentum estimates at each epoch.");
    d.field("wd", &NAGMomParam::wd).describe("Weight decay");
    d.field("rescale_grad", &NAGMomParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &NAGMomParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
  }
};

// adam_update.
struct AdamParam {
  float lr = 0.0f;  // required
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float epsilon = 1e-8f;
  float wd = 0.0f;
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  bool lazy_update = true;
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &AdamParam::lr).required().describe("Learning rate");
    d.field("beta1", &AdamParam::beta1).describe("The decay rate for the 1st moment estimates.");
    d.field("beta2", &AdamParam::beta2).describe("The decay rate for the 2nd moment estimates.");
    d.field("epsilon", &AdamParam::epsilon).describe("A small constant for numerical stability.");
    d.field("wd", &AdamParam::wd).describe("Weight decay");
    d.field("rescale_grad", &AdamParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &AdamParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("lazy_update", &AdamParam::lazy_update)
        .describe("Lazy updates for row_sparse gradients (ignored: dense only)");
  }
};

// _adamw_update, _mp_adamw_update (rescale_grad is an input array there, not an attribute).
struct AdamWParam {
  float lr = 0.0f;  // required
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float epsilon = 1e-8f;
  float wd = 0.0f;
  float eta = 0.0f;  // required
  float clip_gradient = -1.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &AdamWParam::lr).required().describe("Learning rate");
    d.field("beta1", &AdamWParam::beta1).describe("The decay rate for the 1st moment estimates.");
    d.field("beta2", &AdamWParam::beta2).describe("The decay rate for the 2nd moment estimates.");
    d.field("epsilon", &AdamWParam::epsilon).describe("A small constant for numerical stability.");
    d.field("wd", &AdamWParam::wd).describe("Weight decay");
    d.field("eta", &AdamWParam::eta).required().describe("Learning rate schedule multiplier");
    d.field("clip_gradient", &AdamWParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
  }
};

// rmsprop_update.
struct RMSPropParam {
  float lr = 0.0f;  // required
  float gamma1 = 0.95f;
  float epsilon = 1e-8f;
  float wd = 0.0f;
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  float clip_weights = -1.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &RMSPropParam::lr).required().describe("Learning rate");
    d.field("gamma1", &RMSPropParam::gamma1).describe("The decay rate of momentum estimates.");
    d.field("epsilon", &RMSPropParam::epsilon)
        .describe("A small constant for numerical stability.");
    d.field("wd", &RMSPropParam::wd).describe("Weight decay");
    d.field("rescale_grad", &RMSPropParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &RMSPropParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("clip_weights", &RMSPropParam::clip_weights)
        .describe("Clip weights to [-clip_weights, clip_weights] when >= 0");
  }
};

// rmspropalex_update (centered RMSProp, Graves 2013).
struct RMSPropAlexParam {
  float lr = 0.0f;  // required
  float gamma1 = 0.95f;
  float gamma2 = 0.9f;
  float epsilon = 1e-8f;
  float wd = 0.0f;
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  float clip_weights = -1.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &RMSPropAlexParam::lr).required().describe("Learning rate");
    d.field("gamma1", &RMSPropAlexParam::gamma1).describe("Decay rate.");
    d.field("gamma2", &RMSPropAlexParam::gamma2).describe("Decay rate.");
    d.field("epsilon", &RMSPropAlexParam::epsilon)
        .describe("A small constant for numerical stability.");
    d.field("wd", &RMSPropAlexParam::wd).describe("Weight decay");
    d.field("rescale_grad", &RMSPropAlexParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &RMSPropAlexParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("clip_weights", &RMSPropAlexParam::clip_weights)
        .describe("Clip weights to [-clip_weights, clip_weights] when >= 0");
  }
};

// ftrl_update.
struct FtrlParam {
  float lr = 0.0f;  // required
  float lamda1 = 0.01f;
  float beta = 1.0f;
  float wd = 0.0f;
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &FtrlParam::lr).required().describe("Learning rate");
    d.field("lamda1", &FtrlParam::lamda1).describe("The L1 regularization coefficient.");
    d.field("beta", &FtrlParam::beta).describe("Per-Coordinate Learning Rate beta.");
    d.field("wd", &FtrlParam::wd).describe("Weight decay");
    d.field("rescale_grad", &FtrlParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &FtrlParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
  }
};

// signsgd_update (rescale_grad and clip_gradient are accepted and have no effect, as in MXNet).
struct SignSGDParam {
  float lr = 0.0f;  // required
  float wd = 0.0f;
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &SignSGDParam::lr).required().describe("Learning rate");
    d.field("wd", &SignSGDParam::wd).describe("Weight decay");
    d.field("rescale_grad", &SignSGDParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &SignSGDParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
  }
};

// signum_update.
struct SignumParam {
  float lr = 0.0f;  // required
  float momentum = 0.0f;
  float wd = 0.0f;
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  float wd_lh = 0.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &SignumParam::lr).required().describe("Learning rate");
    d.field("momentum", &SignumParam::momentum)
        .describe("The decay rate of momentum estimates at each epoch.");
    d.field("wd", &SignumParam::wd).describe("Weight decay");
    d.field("rescale_grad", &SignumParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &SignumParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
    d.field("wd_lh", &SignumParam::wd_lh)
        .describe("Decoupled weight decay (Loshchilov & Hutter) applied to the weight only.");
  }
};

// lamb_update_phase1, mp_lamb_update_phase1.
struct LambUpdatePhaseOneParam {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float epsilon = 1e-6f;
  int t = 0;  // required
  bool bias_correction = true;
  float wd = 0.0f;  // required
  float rescale_grad = 1.0f;
  float clip_gradient = -1.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("beta1", &LambUpdatePhaseOneParam::beta1)
        .describe("The decay rate for the 1st moment estimates.");
    d.field("beta2", &LambUpdatePhaseOneParam::beta2)
        .describe("The decay rate for the 2nd moment estimates.");
    d.field("epsilon", &LambUpdatePhaseOneParam::epsilon)
        .describe("A small constant for numerical stability.");
    d.field("t", &LambUpdatePhaseOneParam::t).required().describe("Index update count.");
    d.field("bias_correction", &LambUpdatePhaseOneParam::bias_correction)
        .describe("Whether to use bias correction.");
    d.field("wd", &LambUpdatePhaseOneParam::wd).required().describe("Weight decay");
    d.field("rescale_grad", &LambUpdatePhaseOneParam::rescale_grad)
        .describe("Rescale gradient to grad = rescale_grad*grad.");
    d.field("clip_gradient", &LambUpdatePhaseOneParam::clip_gradient)
        .describe("Clip gradient to [-clip_gradient, clip_gradient] when >= 0");
  }
};

// lamb_update_phase2, mp_lamb_update_phase2.
struct LambUpdatePhaseTwoParam {
  float lr = 0.0f;  // required
  float lower_bound = -1.0f;
  float upper_bound = -1.0f;
  template <class D>
  static void Declare(D& d) {
    d.field("lr", &LambUpdatePhaseTwoParam::lr).required().describe("Learning rate");
    d.field("lower_bound", &LambUpdatePhaseTwoParam::lower_bound)
        .describe("Lower limit of norm of weight (off when < 0)");
    d.field("upper_bound", &LambUpdatePhaseTwoParam::upper_bound)
        .describe("Upper limit of norm of weight (off when < 0)");
  }
};

}  // namespace mxnet::ops
