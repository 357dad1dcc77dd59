// Typed attributes of the optim op family: MXNet 1.9.1's parameter structs of
// src/operator/optimizer_op-inl.h (SGD, SGDMom, NAGMom, Adam, RMSProp, RMSPropAlex, Ftrl,
// SignSGD, Signum, LambUpdatePhaseOne/Two, MultiSGD, MultiSGDMom, FTML), contrib/adamw-inl.h
// (AdamW, MultiAdamW), contrib/multi_lamb-inl.h, contrib/preloaded_multi_sgd-inl.h,
// contrib/multi_sum_sq, contrib/multi_lars, contrib/all_finite, contrib/reset_arrays and
// contrib/optimizer_op-inl.h (GroupAdagrad). Names, types (MXNet declares them float, so values
// are rounded to float32 exactly as MXNet parses them) and defaults as MXNet declares them,
// fields in its declaration order, so designated initializers read like Python kwargs:
//   nd::sgd_mom_update(w, g, mom, {.lr = 0.1f, .momentum = 0.9f, .wd = 1e-4f}, w);
//
// Each struct is declared once, as a list of fields X(type, name, default, required, doc) from
// which MX_OPTIM_PARAMS makes both the members and Declare (ndarray/params.h); the fields most
// optimizers share (lr, wd, rescale_grad, clip_gradient, ...) are declared once below.
//
// Shared semantics of lr / wd / rescale_grad / clip_gradient (as MXNet's kernels, which differ
// slightly from MXNet's docstrings):
//   - the gradient is first multiplied by rescale_grad, then clipped to [-c, c] when
//     clip_gradient c >= 0 (the docstrings say "> 0"; the kernels test ">= 0", so 0 clips to 0);
//   - SGD-style ops add wd * weight outside the clip (sgd, sgd_mom, nag, signum, ftrl's
//     denominator); Adam, RMSProp and RMSPropAlex add wd * weight to the gradient BEFORE the
//     clip; AdamW and LAMB decouple it (AdamW: eta * wd * weight; LAMB: + wd * weight in g).
#pragma once

#include <string>
#include <vector>

#include "ndarray/params.h"

// ---- Field lists: X(type, name, default, required, doc). ----
// clang-format off
#define MX_OPTIM_MEMBER_(T, N, DEF, REQ, DOC) T N = DEF;
#define MX_OPTIM_DECLARE_(T, N, DEF, REQ, DOC) d.field(#N, &Self::N) REQ.describe(DOC);
// struct NAME with the fields of FIELDS (a field-list macro) and Declare; __VA_ARGS__ adds
// members (Validate).
#define MX_OPTIM_PARAMS(NAME, FIELDS, ...) \
  struct NAME {                            \
    FIELDS(MX_OPTIM_MEMBER_)               \
    template <class D>                     \
    static void Declare(D& d) {            \
      using Self = NAME;                   \
      FIELDS(MX_OPTIM_DECLARE_)            \
    }                                      \
    __VA_ARGS__                            \
  }
#define MX_OPTIM_REQ_ .required()

#define MX_OPTIM_LR_(X) X(float, lr, 0.0f, MX_OPTIM_REQ_, "Learning rate")
#define MX_OPTIM_WD_(X) X(float, wd, 0.0f, , "Weight decay")
#define MX_OPTIM_RESCALE_(X) \
  X(float, rescale_grad, 1.0f, , "Rescale gradient to grad = rescale_grad*grad.")
#define MX_OPTIM_CLIP_(X) \
  X(float, clip_gradient, -1.0f, , "Clip gradient to [-clip_gradient, clip_gradient] when >= 0")
#define MX_OPTIM_WD_RESCALE_CLIP_(X) MX_OPTIM_WD_(X) MX_OPTIM_RESCALE_(X) MX_OPTIM_CLIP_(X)
#define MX_OPTIM_LAZY_(X) \
  X(bool, lazy_update, true, , "Lazy updates for row_sparse gradients (ignored: dense only)")
#define MX_OPTIM_MOMENTUM_(X) \
  X(float, momentum, 0.0f, , "The decay rate of momentum estimates at each epoch.")
#define MX_OPTIM_BETAS_(X) \
  X(float, beta1, 0.9f, , "The decay rate for the 1st moment estimates.") \
  X(float, beta2, 0.999f, , "The decay rate for the 2nd moment estimates.")
#define MX_OPTIM_EPSILON_(X, DEF) \
  X(float, epsilon, DEF, , "A small constant for numerical stability.")
#define MX_OPTIM_CLIP_WEIGHTS_(X) \
  X(float, clip_weights, -1.0f, , "Clip weights to [-clip_weights, clip_weights] when >= 0")
#define MX_OPTIM_NUM_WEIGHTS_(X) X(int, num_weights, 1, , "Number of updated weights.")
#define MX_OPTIM_LRS_WDS_(X) \
  X(std::vector<double>, lrs, {}, MX_OPTIM_REQ_, "Learning rates.") \
  X(std::vector<double>, wds, {}, MX_OPTIM_REQ_, "Weight decays.")

namespace mxnet::ops {

// sgd_update, mp_sgd_update.
#define MX_SGD_FIELDS_(X) MX_OPTIM_LR_(X) MX_OPTIM_WD_RESCALE_CLIP_(X) MX_OPTIM_LAZY_(X)
MX_OPTIM_PARAMS(SGDParam, MX_SGD_FIELDS_);

// sgd_mom_update, mp_sgd_mom_update.
#define MX_SGD_MOM_FIELDS_(X) \
  MX_OPTIM_LR_(X) MX_OPTIM_MOMENTUM_(X) MX_OPTIM_WD_RESCALE_CLIP_(X) MX_OPTIM_LAZY_(X)
MX_OPTIM_PARAMS(SGDMomParam, MX_SGD_MOM_FIELDS_);

// nag_mom_update, mp_nag_mom_update.
#define MX_NAG_MOM_FIELDS_(X) MX_OPTIM_LR_(X) MX_OPTIM_MOMENTUM_(X) MX_OPTIM_WD_RESCALE_CLIP_(X)
MX_OPTIM_PARAMS(NAGMomParam, MX_NAG_MOM_FIELDS_);

// adam_update.
#define MX_ADAM_FIELDS_(X) \
  MX_OPTIM_LR_(X) MX_OPTIM_BETAS_(X) MX_OPTIM_EPSILON_(X, 1e-8f) \
  MX_OPTIM_WD_RESCALE_CLIP_(X) MX_OPTIM_LAZY_(X)
MX_OPTIM_PARAMS(AdamParam, MX_ADAM_FIELDS_);

// _adamw_update, _mp_adamw_update (rescale_grad is an input array there, not an attribute).
#define MX_ADAMW_FIELDS_(X) \
  MX_OPTIM_LR_(X) MX_OPTIM_BETAS_(X) MX_OPTIM_EPSILON_(X, 1e-8f) MX_OPTIM_WD_(X) \
  X(float, eta, 0.0f, MX_OPTIM_REQ_, "Learning rate schedule multiplier") \
  MX_OPTIM_CLIP_(X)
MX_OPTIM_PARAMS(AdamWParam, MX_ADAMW_FIELDS_);

// rmsprop_update.
#define MX_RMSPROP_FIELDS_(X) \
  MX_OPTIM_LR_(X) \
  X(float, gamma1, 0.95f, , "The decay rate of momentum estimates.") \
  MX_OPTIM_EPSILON_(X, 1e-8f) MX_OPTIM_WD_RESCALE_CLIP_(X) MX_OPTIM_CLIP_WEIGHTS_(X)
MX_OPTIM_PARAMS(RMSPropParam, MX_RMSPROP_FIELDS_);

// rmspropalex_update (centered RMSProp, Graves 2013).
#define MX_RMSPROPALEX_FIELDS_(X) \
  MX_OPTIM_LR_(X) \
  X(float, gamma1, 0.95f, , "Decay rate.") \
  X(float, gamma2, 0.9f, , "Decay rate.") \
  MX_OPTIM_EPSILON_(X, 1e-8f) MX_OPTIM_WD_RESCALE_CLIP_(X) MX_OPTIM_CLIP_WEIGHTS_(X)
MX_OPTIM_PARAMS(RMSPropAlexParam, MX_RMSPROPALEX_FIELDS_);

// ftrl_update.
#define MX_FTRL_FIELDS_(X) \
  MX_OPTIM_LR_(X) \
  X(float, lamda1, 0.01f, , "The L1 regularization coefficient.") \
  X(float, beta, 1.0f, , "Per-Coordinate Learning Rate beta.") \
  MX_OPTIM_WD_RESCALE_CLIP_(X)
MX_OPTIM_PARAMS(FtrlParam, MX_FTRL_FIELDS_);

// signsgd_update (rescale_grad and clip_gradient are accepted and have no effect, as in MXNet).
#define MX_SIGNSGD_FIELDS_(X) MX_OPTIM_LR_(X) MX_OPTIM_WD_RESCALE_CLIP_(X)
MX_OPTIM_PARAMS(SignSGDParam, MX_SIGNSGD_FIELDS_);

// signum_update.
#define MX_SIGNUM_FIELDS_(X) \
  MX_OPTIM_LR_(X) MX_OPTIM_MOMENTUM_(X) MX_OPTIM_WD_RESCALE_CLIP_(X) \
  X(float, wd_lh, 0.0f, , \
    "Decoupled weight decay (Loshchilov & Hutter) applied to the weight only.")
MX_OPTIM_PARAMS(SignumParam, MX_SIGNUM_FIELDS_);

// lamb_update_phase1, mp_lamb_update_phase1.
#define MX_LAMB1_FIELDS_(X) \
  MX_OPTIM_BETAS_(X) MX_OPTIM_EPSILON_(X, 1e-6f) \
  X(int, t, 0, MX_OPTIM_REQ_, "Index update count.") \
  X(bool, bias_correction, true, , "Whether to use bias correction.") \
  X(float, wd, 0.0f, MX_OPTIM_REQ_, "Weight decay") \
  MX_OPTIM_RESCALE_(X) MX_OPTIM_CLIP_(X)
MX_OPTIM_PARAMS(LambUpdatePhaseOneParam, MX_LAMB1_FIELDS_);

// lamb_update_phase2, mp_lamb_update_phase2.
#define MX_LAMB2_FIELDS_(X) \
  MX_OPTIM_LR_(X) \
  X(float, lower_bound, -1.0f, , "Lower limit of norm of weight (off when < 0)") \
  X(float, upper_bound, -1.0f, , "Upper limit of norm of weight (off when < 0)")
MX_OPTIM_PARAMS(LambUpdatePhaseTwoParam, MX_LAMB2_FIELDS_);

// multi_sgd_update, multi_mp_sgd_update: one lr and wd per weight ("(0.1, 0.1)"; MXNet stores
// them as float).
#define MX_MULTI_SGD_FIELDS_(X) \
  MX_OPTIM_LRS_WDS_(X) MX_OPTIM_RESCALE_(X) MX_OPTIM_CLIP_(X) MX_OPTIM_NUM_WEIGHTS_(X)
MX_OPTIM_PARAMS(MultiSGDParam, MX_MULTI_SGD_FIELDS_, std::string Validate() const;);

// multi_sgd_mom_update, multi_mp_sgd_mom_update.
#define MX_MULTI_SGD_MOM_FIELDS_(X) \
  MX_OPTIM_LRS_WDS_(X) MX_OPTIM_MOMENTUM_(X) MX_OPTIM_RESCALE_(X) MX_OPTIM_CLIP_(X) \
  MX_OPTIM_NUM_WEIGHTS_(X)
MX_OPTIM_PARAMS(MultiSGDMomParam, MX_MULTI_SGD_MOM_FIELDS_, std::string Validate() const;);

// preloaded_multi_sgd_update, preloaded_multi_mp_sgd_update (lrs/wds are input arrays).
#define MX_PRELOADED_SGD_FIELDS_(X) \
  MX_OPTIM_RESCALE_(X) MX_OPTIM_CLIP_(X) MX_OPTIM_NUM_WEIGHTS_(X)
MX_OPTIM_PARAMS(PreloadedMultiSGDParam, MX_PRELOADED_SGD_FIELDS_, std::string Validate() const;);

// preloaded_multi_sgd_mom_update, preloaded_multi_mp_sgd_mom_update.
#define MX_PRELOADED_SGD_MOM_FIELDS_(X) \
  MX_OPTIM_MOMENTUM_(X) MX_OPTIM_RESCALE_(X) MX_OPTIM_CLIP_(X) MX_OPTIM_NUM_WEIGHTS_(X)
MX_OPTIM_PARAMS(PreloadedMultiSGDMomParam, MX_PRELOADED_SGD_MOM_FIELDS_,
                std::string Validate() const;);

// ftml_update (Zheng & Kwok 2017). Note MXNet's name clip_grad (not clip_gradient) and the
// double epsilon whose default is float(1e-8) widened (9.9999999392252903e-09).
#define MX_FTML_FIELDS_(X) \
  X(float, lr, 0.0f, MX_OPTIM_REQ_, "Learning rate.") \
  X(float, beta1, 0.6f, , "Generally close to 0.5.") \
  X(float, beta2, 0.999f, , "Generally close to 1.") \
  X(double, epsilon, static_cast<double>(1e-8f), , "Epsilon to prevent div 0.") \
  X(int, t, 0, MX_OPTIM_REQ_, "Number of update.") \
  MX_OPTIM_WD_(X) MX_OPTIM_RESCALE_(X) \
  X(float, clip_grad, -1.0f, , "Clip gradient to [-clip_grad, clip_grad] when >= 0")
MX_OPTIM_PARAMS(FTMLParam, MX_FTML_FIELDS_, std::string Validate() const;);

// multi_sum_sq, reset_arrays: num_arrays is required.
#define MX_MULTI_SUM_SQ_FIELDS_(X) \
  X(int, num_arrays, 0, MX_OPTIM_REQ_, "number of input arrays.")
MX_OPTIM_PARAMS(MultiSumSqParam, MX_MULTI_SUM_SQ_FIELDS_, std::string Validate() const;);
using ResetArraysParam = MultiSumSqParam;

// multi_lars.
#define MX_LARS_FIELDS_(X) \
  X(float, eta, 0.0f, MX_OPTIM_REQ_, "LARS eta") \
  X(float, eps, 0.0f, MX_OPTIM_REQ_, "LARS eps") \
  X(float, rescale_grad, 1.0f, , "Gradient rescaling factor")
MX_OPTIM_PARAMS(LARSParam, MX_LARS_FIELDS_);

// all_finite.
#define MX_ALL_FINITE_FIELDS_(X) X(bool, init_output, true, , "Initialize output to 1.")
MX_OPTIM_PARAMS(AllFiniteParam, MX_ALL_FINITE_FIELDS_);

// multi_all_finite.
#define MX_MULTI_ALL_FINITE_FIELDS_(X) \
  X(int, num_arrays, 1, , "Number of arrays.") MX_ALL_FINITE_FIELDS_(X)
MX_OPTIM_PARAMS(MultiAllFiniteParam, MX_MULTI_ALL_FINITE_FIELDS_, std::string Validate() const;);

// _multi_adamw_update, _multi_mp_adamw_update: one lr, wd and eta per weight ("(0.1, 0.1)").
#define MX_MULTI_ADAMW_FIELDS_(X) \
  X(std::vector<double>, lrs, {}, MX_OPTIM_REQ_, "Learning rates") \
  MX_OPTIM_BETAS_(X) MX_OPTIM_EPSILON_(X, 1e-8f) \
  X(std::vector<double>, wds, {}, MX_OPTIM_REQ_, "Weight decays.") \
  X(std::vector<double>, etas, {}, MX_OPTIM_REQ_, "Learning rates schedule multiplier") \
  MX_OPTIM_CLIP_(X) MX_OPTIM_NUM_WEIGHTS_(X)
MX_OPTIM_PARAMS(MultiAdamWParam, MX_MULTI_ADAMW_FIELDS_, std::string Validate() const;);

// _multi_lamb_update, _multi_mp_lamb_update: one learning rate, wd and step count per tensor.
#define MX_MULTI_LAMB_FIELDS_(X) \
  X(std::vector<double>, learning_rates, {}, MX_OPTIM_REQ_, "List of learning rates") \
  X(float, beta1, 0.9f, , "Exponential decay rate for the first moment estimates.") \
  X(float, beta2, 0.999f, , "Exponential decay rate for the second moment estimates.") \
  X(float, epsilon, 1e-6f, , "Small value to avoid division by 0.") \
  X(std::vector<double>, wds, {}, MX_OPTIM_REQ_, "List of Weight decays.") \
  X(float, rescale_grad, 1.0f, , "Gradient rescaling factor") \
  X(float, lower_bound, -1.0f, , \
    "Lower limit of norm of weight. If lower_bound <= 0, Lower limit is not set") \
  X(float, upper_bound, -1.0f, , \
    "Upper limit of norm of weight. If upper_bound <= 0, Upper limit is not set") \
  MX_OPTIM_CLIP_(X) \
  X(bool, bias_correction, true, , "Whether to use bias correction.") \
  X(Shape, step_count, {}, MX_OPTIM_REQ_, "Step count for each tensor") \
  X(int, num_tensors, 1, , "Number of tensors")
MX_OPTIM_PARAMS(MultiLAMBParam, MX_MULTI_LAMB_FIELDS_, std::string Validate() const;);

// _contrib_group_adagrad_update.
#define MX_GROUP_ADAGRAD_FIELDS_(X) \
  MX_OPTIM_LR_(X) MX_OPTIM_RESCALE_(X) MX_OPTIM_CLIP_(X) \
  X(float, epsilon, 1.0e-5f, , "Epsilon for numerical stability")
MX_OPTIM_PARAMS(GroupAdagradParam, MX_GROUP_ADAGRAD_FIELDS_);

}  // namespace mxnet::ops
// clang-format on
