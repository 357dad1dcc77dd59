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
// lr_scheduler (None), begin_num_update (0), multi_precision (False). Each optimizer's own
// options and their defaults are listed with its spec in optimizers.cc; unknown keys are errors
// (kInvalidArgument).
//
// Semantics shared with MXNet:
//  - update(index, ...) first counts the update of `index` (per device, like one MXNet Updater
//    per context); num_update() is the largest count so far and drives the lr_scheduler;
//    the bias corrections of Adam/Adamax/Nadam/LAMB/AdamW use the index's own count t.
//  - learning rate of an index = (lr_scheduler(num_update) or learning_rate) * lr_mult, weight
//    decay = wd * wd_mult; the multipliers come from the Parameter registered for the index
//    (set_param_dict, as gluon.Trainer does), else from set_lr_mult/set_wd_mult, else 1.
//  - rescale_grad multiplies the gradient before clip_gradient clips it to [-c, c]; how wd
//    enters is optimizer specific (see ndarray/ops/optim/optim_params.h and each spec).
//  - multi_precision with float16 (or bfloat16) weights keeps a float32 master copy in
//    State::weight32: SGD, NAG, LAMB and AdamW use the fused mp_* kernels, the others update
//    the master copy with a float32 copy of the gradient and round it into the weight.
//  - the gradient is never modified (MXNet's AdaDelta and fused AdamW scale it in place).
// Nadam keeps MXNet's optimizer-wide m_schedule (the product of momentum_t over ALL updates of
// all indices), so with several parameters its results equal MXNet's, not the paper's.
//
// Every optimizer is one OptimizerSpec (below), registered once: its hyper-parameters (MXNet's
// keywords and defaults), state layout, multi-precision handling and update step, which calls
// the fused ops of ndarray/ops/optim*.cc; AdaGrad, AdaDelta, Adamax and Nadam (which MXNet
// composes from NDArray arithmetic) run fused loops with the same float32 arithmetic order. The
// built-in specs, with each optimizer's formulas, are in optimizers.cc; Register(spec) adds one.
// CPU only for now (kUnimplemented naming the optimizer on other devices).
// An optimizer is not thread-safe; one Trainer (or one thread) drives it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/device.h"
#include "gluon/parameter.h"
#include "gluon/training/kwargs.h"
#include "gluon/training/lr_scheduler.h"
#include "ndarray/ndarray.h"

namespace mxnet::gluon::optimizer {

// The per-weight state of an optimizer: `arrays` in the order of its spec's `states` (an entry
// may be none, e.g. SGD without momentum), plus the float32 master copy of a multi-precision
// weight (none otherwise).
struct State {
  std::vector<NDArray> arrays;
  NDArray weight32;
};

class Optimizer;
using OptimizerPtr = std::shared_ptr<Optimizer>;

// ---- Specs: one per optimizer. ----

// A hyper-parameter: MXNet's keyword and default. Values are doubles: a bool is 0/1, None NaN.
struct HyperParam {
  enum Kind : uint8_t { kDouble, kBool, kOptional };
  HyperParam(std::string n, double def) : name(std::move(n)), default_value(def) {}
  HyperParam(std::string n, bool def) : name(std::move(n)), kind(kBool), default_value(def) {}
  // An optional number whose default is None.
  HyperParam(std::string n, NoneType);
  std::string name;
  Kind kind = kDouble;
  double default_value = 0;
};

// One update as a spec's step sees it: `weight` (updated in place) with `grad` and `state`; for a
// multi-precision weight of a spec without fused_multi_precision, weight and grad are the float32
// master copy and a float32 copy of the gradient (the optimizer rounds the result into the
// float16 weight), while a fused spec gets the float16 weight and gradient and the master copy in
// weight32 (none otherwise). The update count of the index is already taken.
struct Step {
  Optimizer& opt;
  int index;
  const NDArray& weight;
  const NDArray& grad;
  std::vector<NDArray>& state;
  const NDArray& weight32;

  double lr() const;  // get_lr(index) (asks the lr_scheduler: call it once per step)
  double wd() const;  // get_wd(index)
  int64_t t() const;  // the update count of `index` on the weight's device
  double h(std::string_view hyper) const;      // a hyper-parameter (NaN for None)
  double& extra(std::string_view name) const;  // optimizer-wide state (Nadam's m_schedule)
  double rescale_grad() const;
  std::optional<double> clip_gradient() const;
  // The clip attribute of the fused ops: clip_gradient if set and non-zero, else -1 (MXNet's
  // `if self.clip_gradient:`).
  float fused_clip() const;
};

struct OptimizerSpec {
  std::string name;  // the registered name (lower case)
  // The class's learning_rate default (None: 0.01 unless an lr_scheduler is given). A given or
  // default learning rate overrides the scheduler's base_lr, unless lr_overrides_scheduler is
  // false (Ftrl keeps learning_rate to itself, as in MXNet).
  std::optional<double> default_lr;
  bool lr_overrides_scheduler = true;
  std::vector<HyperParam> hyper;     // read from the kwargs in this order
  std::vector<std::string> ignored;  // accepted keywords without effect (lazy_update)
  std::vector<std::string> states;   // names of the state arrays, in State::arrays order
  // The state arrays for a weight; default: zeros of its shape, dtype and device, one per name.
  std::vector<NDArray> (*create_states)(const Optimizer& opt, const NDArray& weight) = nullptr;
  // Whether step handles multi-precision weights itself (through mp_* kernels).
  bool fused_multi_precision = false;
  std::vector<std::string> ops;  // the update ops step calls (registry names)
  // Whether step takes row_sparse gradients (lazy updates: sgd, adam, adagrad); other specs get
  // the gradient densified.
  bool row_sparse_grad = false;
  std::vector<std::pair<std::string, double>> extra_state;  // optimizer-wide state, initial values
  void (*step)(const Step& s) = nullptr;
};
using OptimizerSpecPtr = std::shared_ptr<const OptimizerSpec>;

class Optimizer {
 public:
  // An optimizer of `spec` with Python-style keyword arguments: the common ones (below) and the
  // spec's hyper-parameters; unknown keys and bad values are errors (kInvalidArgument).
  Optimizer(OptimizerSpecPtr spec, const Kwargs& kwargs);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // The registered name ("sgd", "adam", ...) and the spec.
  const std::string& name() const { return spec_->name; }
  const OptimizerSpec& spec() const { return *spec_; }
  // A hyper-parameter of the spec (NaN for None); kInvalidArgument for an unknown name.
  double hyper(std::string_view name) const;

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
  // clip_gradient, multi_precision, the spec's hyper-parameters, update counts per device and
  // index, num_update, lr/wd multipliers set by index, the scheduler's state and the spec's
  // optimizer-wide state (Nadam's m_schedule). RestoreConfig applies such a text to this
  // optimizer, which must have the same name (kInvalidArgument otherwise, or for malformed
  // text); the scheduler state is applied when this optimizer has a scheduler of the same type.
  std::string SerializeConfig() const;
  void RestoreConfig(const std::string& json_text);

 protected:
  // Optimizer-wide state of the spec (kInvalidArgument for an unknown name).
  double extra(std::string_view name) const;

 private:
  friend struct Step;
  void UpdateCount(int index);
  void CheckArgs(int index, const NDArray& weight, const NDArray& grad, const State& state) const;
  size_t HyperIndex(std::string_view name) const;
  double& Extra(std::string_view name);

  OptimizerSpecPtr spec_;
  std::vector<double> hyper_;  // by spec_->hyper
  std::vector<double> extra_;  // by spec_->extra_state
  double wd_ = 0, rescale_grad_ = 1;
  std::optional<double> clip_gradient_;
  bool multi_precision_ = false;
  std::optional<double> lr_;
  LRSchedulerPtr lr_scheduler_;
  int64_t begin_num_update_ = 0, num_update_ = 0;
  // (device type, device id) -> index -> updates.
  std::map<std::pair<int, int>, std::map<int, int64_t>> counts_;
  Device current_device_ = cpu();
  std::map<int, ParameterPtr> param_dict_;
  std::map<int, double> lr_mult_, wd_mult_;
};

// ---- Registry (mx.optimizer.create / register). ----
using Factory = std::function<OptimizerPtr(const Kwargs&)>;
// Registers `factory` under `name` (lower-cased); an existing name is replaced (MXNet warns).
void Register(const std::string& name, Factory factory);
// Registers an optimizer by its spec (under spec->name): Create makes an Optimizer of it.
void Register(OptimizerSpecPtr spec);
// Creates the optimizer registered as `name` (case-insensitive, MXNet's names: "sgd", "nag",
// "adam", "adamw", "rmsprop", "adagrad", "adadelta", "adamax", "nadam", "lamb", "signum",
// "ftrl"). Errors: kNotFound "Cannot find optimizer X" (listing the registered names);
// kInvalidArgument for bad kwargs.
OptimizerPtr Create(const std::string& name, const Kwargs& kwargs = {});
// Registered names, sorted.
std::vector<std::string> List();

// ---- The built-in optimizers (specs, formulas and kwargs in optimizers.cc). ----
// The built-in optimizers: each spec with a factory making its class (below).
const std::vector<std::pair<OptimizerSpecPtr, Factory>>& Builtins();
// The spec of a built-in optimizer (kInternal for another name).
OptimizerSpecPtr BuiltinSpec(std::string_view name);

// A built-in optimizer as a class, so code can name it (std::make_shared<Adam>(kwargs),
// dynamic_cast<Nadam&>); Create makes these.
template <size_t N>
struct SpecName {
  constexpr SpecName(const char (&s)[N]) { std::copy_n(s, N, value); }  // NOLINT
  char value[N];
};
template <SpecName Name>
class Builtin : public Optimizer {
 public:
  explicit Builtin(const Kwargs& kwargs = {}) : Optimizer(BuiltinSpec(Name.value), kwargs) {}
};

// "sgd": SGD with momentum; momentum() is its momentum hyper-parameter.
class SGD : public Builtin<"sgd"> {
 public:
  using Builtin::Builtin;
  double momentum() const { return hyper("momentum"); }
};
using NAG = Builtin<"nag">;
using Adam = Builtin<"adam">;
using AdamW = Builtin<"adamw">;
using RMSProp = Builtin<"rmsprop">;
using AdaGrad = Builtin<"adagrad">;
using AdaDelta = Builtin<"adadelta">;
using Adamax = Builtin<"adamax">;
// "nadam": m_schedule() is MXNet's optimizer-wide momentum schedule (1 before any update).
class Nadam : public Builtin<"nadam"> {
 public:
  using Builtin::Builtin;
  double m_schedule() const { return extra("m_schedule"); }
};
using LAMB = Builtin<"lamb">;
using Signum = Builtin<"signum">;
using Ftrl = Builtin<"ftrl">;

}  // namespace mxnet::gluon::optimizer
