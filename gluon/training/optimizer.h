// Optimizers (mxnet.optimizer, MXNet 1.9.1): SGD, NAG, Adam, AdamW, RMSProp, AdaGrad, AdaDelta,
// Adamax, Nadam, LAMB, Signum, Ftrl, with MXNet's registered names, keyword arguments, defaults
// and update formulas.
//
//   auto opt = optimizer::Create("sgd", {{"learning_rate", 0.1}, {"momentum", 0.9},
//                                        {"wd", 1e-4}});
//   optimizer::State st = opt->create_state_multi_precision(0, weight);
//   opt->update_multi_precision(0, weight, grad, st);   // weight and st updated in place
//
// Common keyword arguments (Optimizer's): learning_rate (None: the class default, or 0.01, or
// the lr_scheduler's), wd (0), rescale_grad (1), clip_gradient (None = no clipping),
// lr_scheduler (None), begin_num_update (0), multi_precision (False). Class options and their
// defaults are listed with each class below; unknown keys are errors (kInvalidArgument).
//
// Semantics shared with MXNet:
//  - update(index, ...) first counts the update of `index` (per device, like one MXNet Updater
//    per context); num_update() is the largest count so far and drives the lr_scheduler;
//    the bias corrections of Adam/Adamax/Nadam/LAMB/AdamW use the index's own count t.
//  - learning rate of an index = (lr_scheduler(num_update) or learning_rate) * lr_mult, weight
//    decay = wd * wd_mult; the multipliers come from the Parameter registered for the index
//    (set_param_dict, as gluon.Trainer does), else from set_lr_mult/set_wd_mult, else 1.
//  - rescale_grad multiplies the gradient before clip_gradient clips it to [-c, c]; how wd
//    enters is optimizer specific (see ndarray/ops/optim_params.h and each class).
//  - multi_precision with float16 (or bfloat16) weights keeps a float32 master copy in
//    State::weight32: SGD, NAG, LAMB and AdamW use the fused mp_* kernels, the others update
//    the master copy with a float32 copy of the gradient and round it into the weight.
//  - the gradient is never modified (MXNet's AdaDelta and fused AdamW scale it in place).
// Nadam keeps MXNet's optimizer-wide m_schedule (the product of momentum_t over ALL updates of
// all indices), so with several parameters its results equal MXNet's, not the paper's.
//
// Kernels: the fused ops of ndarray/ops/optim*.cc; AdaGrad, AdaDelta, Adamax and Nadam (which
// MXNet composes from NDArray arithmetic) run fused loops here with the same float32 arithmetic
// order. CPU only for now (kUnimplemented naming the optimizer on other devices).
// An optimizer is not thread-safe; one Trainer (or one thread) drives it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/device.h"
#include "gluon/parameter.h"
#include "gluon/training/kwargs.h"
#include "gluon/training/lr_scheduler.h"
#include "ndarray/ndarray.h"

namespace mxnet::gluon::optimizer {

// The per-weight state of an optimizer: `arrays` in the order documented by each class (an entry
// may be none, e.g. SGD without momentum), plus the float32 master copy of a multi-precision
// weight (none otherwise).
struct State {
  std::vector<NDArray> arrays;
  NDArray weight32;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // The registered name ("sgd", "adam", ...).
  const std::string& name() const { return name_; }

  // ---- Learning rate. ----
  // lr_scheduler(num_update) if there is a scheduler (which may change its state, as in MXNet),
  // else the learning rate.
  double learning_rate();
  // kFailedPrecondition when an lr_scheduler is set (MXNet raises UserWarning).
  void set_learning_rate(double lr);
  const LRSchedulerPtr& lr_scheduler() const { return lr_scheduler_; }

  // ---- Hyper-parameters shared by every optimizer. ----
  double wd() const { return wd_; }
  void set_wd(double wd) { wd_ = wd; }
  double rescale_grad() const { return rescale_grad_; }
  void set_rescale_grad(double r) { rescale_grad_ = r; }
  std::optional<double> clip_gradient() const { return clip_gradient_; }
  void set_clip_gradient(std::optional<double> c) { clip_gradient_ = c; }
  bool multi_precision() const { return multi_precision_; }

  // ---- Per-index multipliers. ----
  // Parameters by index: lr_mult()/wd_mult() are read from them at every update (gluon.Trainer).
  void set_param_dict(std::map<int, ParameterPtr> params) { param_dict_ = std::move(params); }
  const std::map<int, ParameterPtr>& param_dict() const { return param_dict_; }
  // Multipliers by index for indices without a Parameter (MXNet's set_lr_mult/set_wd_mult with
  // integer keys; they replace earlier calls).
  void set_lr_mult(std::map<int, double> m) { lr_mult_ = std::move(m); }
  void set_wd_mult(std::map<int, double> m) { wd_mult_ = std::move(m); }
  // Effective rate and decay of `index` at the current num_update.
  double get_lr(int index);
  double get_wd(int index) const;

  // ---- Update counts. ----
  int64_t num_update() const { return num_update_; }
  int64_t begin_num_update() const { return begin_num_update_; }
  // Updates of `index` counted on `device` (begin_num_update before the first).
  int64_t index_update_count(int index, Device device = cpu()) const;

  // ---- States and updates. ----
  // The optimizer's own state for `weight` (zeros of weight's shape, dtype and device).
  State create_state(int index, const NDArray& weight);
  // create_state, plus a float32 master copy when multi_precision and weight is float16/bfloat16.
  State create_state_multi_precision(int index, const NDArray& weight);
  // One update of `weight` (in place) with `grad` (same shape and dtype; not modified) and
  // `state`; a state with a master copy (State::weight32) is updated through it.
  // Errors (kInvalidArgument): shape/dtype mismatches, a state from another optimizer.
  void update(int index, const NDArray& weight, const NDArray& grad, State& state);
  // MXNet's name for the same (Updater calls it); identical to update().
  void update_multi_precision(int index, const NDArray& weight, const NDArray& grad, State& state);

  // ---- Serialization (Trainer::save_states). ----
  // Everything but the per-weight states as JSON text: name, learning rate, wd, rescale_grad,
  // clip_gradient, multi_precision, class hyper-parameters, update counts per device and
  // index, num_update, lr/wd multipliers set by index, the scheduler's state and class state
  // (Nadam's m_schedule). RestoreConfig applies such a text to this optimizer, which must be of
  // the same class (kInvalidArgument otherwise, or for malformed text); the scheduler state is
  // applied when this optimizer has a scheduler of the same type.
  std::string SerializeConfig() const;
  void RestoreConfig(const std::string& json_text);

 protected:
  // `name`: the registered name; `default_lr`: the class's learning_rate default (None: 0.01
  // unless a scheduler is given). Reads the common kwargs from `kw` (learning_rate only when
  // lr_to_base; a class that keeps it to itself calls OverrideLr).
  Optimizer(std::string name, KwargReader& kw, std::optional<double> default_lr,
            bool lr_to_base = true);
  void OverrideLr(std::optional<double> lr) { lr_ = lr; }

  // The class's state arrays for `weight` (called by create_state).
  virtual std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) = 0;
  // One update (the count is already taken). `weight32` is the master copy when the update goes
  // through a fused multi-precision kernel (FusedMultiPrecision), else none.
  virtual void Step(int index, const NDArray& weight, const NDArray& grad,
                    std::vector<NDArray>& state, const NDArray& weight32) = 0;
  // True for classes whose Step handles weight32 itself (SGD, NAG, LAMB, AdamW).
  virtual bool FusedMultiPrecision() const { return false; }
  // Extra class state for SerializeConfig (e.g. Nadam's m_schedule), as name -> number.
  virtual std::map<std::string, double> ExtraState() const { return {}; }
  virtual void SetExtraState(const std::map<std::string, double>&) {}
  // Class hyper-parameters (momentum, betas, ...; NaN for None) for SerializeConfig and
  // RestoreConfig.
  virtual std::map<std::string, double> HyperParams() const { return {}; }
  virtual void SetHyperParams(const std::map<std::string, double>&) {}

  // The update count t of `index` on the current device.
  int64_t Count(int index) const;
  // The clip attribute of the fused ops: clip_gradient if set and non-zero, else -1 (MXNet's
  // `if self.clip_gradient:`).
  float FusedClip() const;

  double wd_ = 0, rescale_grad_ = 1;
  std::optional<double> clip_gradient_;
  bool multi_precision_ = false;

 private:
  void UpdateCount(int index);
  void CheckArgs(int index, const NDArray& weight, const NDArray& grad, const State& state) const;

  std::string name_;
  std::optional<double> lr_;
  LRSchedulerPtr lr_scheduler_;
  int64_t begin_num_update_ = 0, num_update_ = 0;
  // (device type, device id) -> index -> updates.
  std::map<std::pair<int, int>, std::map<int, int64_t>> counts_;
  Device current_device_ = cpu();
  std::map<int, ParameterPtr> param_dict_;
  std::map<int, double> lr_mult_, wd_mult_;
};
using OptimizerPtr = std::shared_ptr<Optimizer>;

// ---- The optimizers. State layouts in brackets. ----

// "sgd": SGD with momentum (MXNet's formulation: mom = momentum*mom - lr*(rescaled grad + wd*w);
// w += mom). kwargs: momentum (0.0), lazy_update (True; accepted, no effect on dense arrays).
// State: [mom] (none when momentum == 0).
class SGD : public Optimizer {
 public:
  explicit SGD(const Kwargs& kwargs = {});
  double momentum() const { return momentum_; }

 protected:
  std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) override;
  void Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
            const NDArray& weight32) override;
  bool FusedMultiPrecision() const override { return true; }
  std::map<std::string, double> HyperParams() const override;
  void SetHyperParams(const std::map<std::string, double>& h) override;

 private:
  explicit SGD(KwargReader&& kw);
  double momentum_;
};

// "nag": Nesterov accelerated gradient (nag_mom_update; sgd_update without momentum).
// kwargs: momentum (0.0). State: [mom] (none when momentum == 0).
class NAG : public Optimizer {
 public:
  explicit NAG(const Kwargs& kwargs = {});

 protected:
  std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) override;
  void Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
            const NDArray& weight32) override;
  bool FusedMultiPrecision() const override { return true; }
  std::map<std::string, double> HyperParams() const override;
  void SetHyperParams(const std::map<std::string, double>& h) override;

 private:
  explicit NAG(KwargReader&& kw);
  double momentum_;
};

// "adam": lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t), then adam_update (wd added to the
// gradient). kwargs: learning_rate (0.001), beta1 (0.9), beta2 (0.999), epsilon (1e-8),
// lazy_update (True; no effect). State: [mean, var].
class Adam : public Optimizer {
 public:
  explicit Adam(const Kwargs& kwargs = {});

 protected:
  std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) override;
  void Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
            const NDArray& weight32) override;
  std::map<std::string, double> HyperParams() const override;
  void SetHyperParams(const std::map<std::string, double>& h) override;

 private:
  explicit Adam(KwargReader&& kw);
  double beta1_, beta2_, epsilon_;
};

// "adamw": Adam with decoupled weight decay (Loshchilov & Hutter) as MXNet 2.0's AdamW (1.9.1
// has the _adamw_update op but no optimizer class): with eta = lr * sqrt(1 - beta2^t) /
// (1 - beta1^t) (just lr when correct_bias is False), _adamw_update(lr = 1, eta, wd):
// w -= eta * (mean / (sqrt(var) + epsilon) + wd * w). kwargs: learning_rate (0.001),
// beta1 (0.9), beta2 (0.999), epsilon (1e-6), correct_bias (True), use_fused_step (accepted).
// State: [mean, var].
class AdamW : public Optimizer {
 public:
  explicit AdamW(const Kwargs& kwargs = {});

 protected:
  std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) override;
  void Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
            const NDArray& weight32) override;
  bool FusedMultiPrecision() const override { return true; }
  std::map<std::string, double> HyperParams() const override;
  void SetHyperParams(const std::map<std::string, double>& h) override;

 private:
  explicit AdamW(KwargReader&& kw);
  double beta1_, beta2_, epsilon_;
  bool correct_bias_;
};

// "rmsprop": rmsprop_update, or rmspropalex_update when centered. kwargs: learning_rate
// (0.001), gamma1 (0.9), gamma2 (0.9, centered only), epsilon (1e-8), centered (False),
// clip_weights (None). State: [n] or, centered, [n, g, delta].
class RMSProp : public Optimizer {
 public:
  explicit RMSProp(const Kwargs& kwargs = {});

 protected:
  std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) override;
  void Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
            const NDArray& weight32) override;
  std::map<std::string, double> HyperParams() const override;
  void SetHyperParams(const std::map<std::string, double>& h) override;

 private:
  explicit RMSProp(KwargReader&& kw);
  double gamma1_, gamma2_, epsilon_;
  bool centered_;
  std::optional<double> clip_weights_;
};

// "adagrad": g = clip(rescale_grad*grad); history += g^2;
// w -= lr * (g / sqrt(history + eps) + wd*w). kwargs: eps (1e-7). State: [history].
class AdaGrad : public Optimizer {
 public:
  explicit AdaGrad(const Kwargs& kwargs = {});

 protected:
  std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) override;
  void Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
            const NDArray& weight32) override;
  std::map<std::string, double> HyperParams() const override;
  void SetHyperParams(const std::map<std::string, double>& h) override;

 private:
  explicit AdaGrad(KwargReader&& kw);
  double eps_;
};

// "adadelta" (learning-rate free, as MXNet: learning_rate is accepted and unused):
// acc_g = rho*acc_g + (1-rho)*g^2; d = sqrt(acc_delta + eps)/sqrt(acc_g + eps)*g;
// acc_delta = rho*acc_delta + (1-rho)*d^2; w -= d + wd*w. kwargs: rho (0.9), epsilon (1e-5).
// State: [acc_g, acc_delta].
class AdaDelta : public Optimizer {
 public:
  explicit AdaDelta(const Kwargs& kwargs = {});

 protected:
  std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) override;
  void Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
            const NDArray& weight32) override;
  std::map<std::string, double> HyperParams() const override;
  void SetHyperParams(const std::map<std::string, double>& h) override;

 private:
  explicit AdaDelta(KwargReader&& kw);
  double rho_, epsilon_;
};

// "adamax": g = clip(rescale_grad*grad + wd*w); m = beta1*m + (1-beta1)*g;
// u = max(beta2*u, |g|); w -= lr/(1 - beta1^t) * m/u. kwargs: learning_rate (0.002),
// beta1 (0.9), beta2 (0.999). State: [m, u].
class Adamax : public Optimizer {
 public:
  explicit Adamax(const Kwargs& kwargs = {});

 protected:
  std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) override;
  void Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
            const NDArray& weight32) override;
  std::map<std::string, double> HyperParams() const override;
  void SetHyperParams(const std::map<std::string, double>& h) override;

 private:
  explicit Adamax(KwargReader&& kw);
  double beta1_, beta2_;
};

// "nadam": Adam with Nesterov momentum and momentum schedule (Dozat 2016) as MXNet computes it.
// kwargs: learning_rate (0.001), beta1 (0.9), beta2 (0.999), epsilon (1e-8),
// schedule_decay (0.004). State: [m, v].
class Nadam : public Optimizer {
 public:
  explicit Nadam(const Kwargs& kwargs = {});
  double m_schedule() const { return m_schedule_; }

 protected:
  std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) override;
  void Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
            const NDArray& weight32) override;
  std::map<std::string, double> ExtraState() const override {
    return {{"m_schedule", m_schedule_}};
  }
  void SetExtraState(const std::map<std::string, double>& s) override;
  std::map<std::string, double> HyperParams() const override;
  void SetHyperParams(const std::map<std::string, double>& h) override;

 private:
  explicit Nadam(KwargReader&& kw);
  double beta1_, beta2_, epsilon_, schedule_decay_;
  double m_schedule_ = 1.0;
};

// "lamb": layer-wise adaptive moments (You et al. 2019): lamb_update_phase1 gives g, then
// w -= lr * (r1/r2) * g with r1 = ||w|| clamped to [lower_bound, upper_bound] (each if set),
// r2 = ||g|| (plain lr if either is 0). kwargs: learning_rate (0.001), beta1 (0.9),
// beta2 (0.999), epsilon (1e-6), lower_bound (None), upper_bound (None),
// bias_correction (True). State: [mean, var].
class LAMB : public Optimizer {
 public:
  explicit LAMB(const Kwargs& kwargs = {});

 protected:
  std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) override;
  void Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
            const NDArray& weight32) override;
  bool FusedMultiPrecision() const override { return true; }
  std::map<std::string, double> HyperParams() const override;
  void SetHyperParams(const std::map<std::string, double>& h) override;

 private:
  explicit LAMB(KwargReader&& kw);
  double beta1_, beta2_, epsilon_;
  std::optional<double> lower_bound_, upper_bound_;
  bool bias_correction_;
};

// "signum": signum_update (signsgd_update without momentum). kwargs: learning_rate (0.01),
// momentum (0.9), wd_lh (0.0). State: [mom] (none when momentum == 0).
class Signum : public Optimizer {
 public:
  explicit Signum(const Kwargs& kwargs = {});

 protected:
  std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) override;
  void Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
            const NDArray& weight32) override;
  std::map<std::string, double> HyperParams() const override;
  void SetHyperParams(const std::map<std::string, double>& h) override;

 private:
  explicit Signum(KwargReader&& kw);
  double momentum_, wd_lh_;
};

// "ftrl": ftrl_update. kwargs: lamda1 (0.01), learning_rate (0.1), beta (1). As in MXNet the
// learning_rate does not override an lr_scheduler's base_lr. State: [z, n].
class Ftrl : public Optimizer {
 public:
  explicit Ftrl(const Kwargs& kwargs = {});

 protected:
  std::vector<NDArray> CreateStateArrays(int index, const NDArray& weight) override;
  void Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
            const NDArray& weight32) override;
  std::map<std::string, double> HyperParams() const override;
  void SetHyperParams(const std::map<std::string, double>& h) override;

 private:
  explicit Ftrl(KwargReader&& kw);
  double lamda1_, beta_;
};

// ---- Registry (mx.optimizer.create / register). ----
using Factory = std::function<OptimizerPtr(const Kwargs&)>;
// Registers `factory` under `name` (lower-cased); an existing name is replaced (MXNet warns).
void Register(const std::string& name, Factory factory);
// Creates the optimizer registered as `name` (case-insensitive, MXNet's names: "sgd", "nag",
// "adam", "adamw", "rmsprop", "adagrad", "adadelta", "adamax", "nadam", "lamb", "signum",
// "ftrl"). Errors: kNotFound "Cannot find optimizer X" (listing the registered names);
// kInvalidArgument for bad kwargs.
OptimizerPtr Create(const std::string& name, const Kwargs& kwargs = {});
// Registered names, sorted.
std::vector<std::string> List();

}  // namespace mxnet::gluon::optimizer
