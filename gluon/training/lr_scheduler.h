// Learning-rate schedules (mxnet.lr_scheduler): the learning rate as a function of the number of
// updates, with MXNet 1.9.1's formulas, defaults, errors and statefulness.
//
//   auto sched = std::make_shared<lr_scheduler::FactorScheduler>(/*step=*/100, /*factor=*/0.5);
//   auto opt = optimizer::Create("sgd", {{"lr_scheduler", sched}, {"momentum", 0.9}});
//
// Warmup (every scheduler): for num_update < warmup_steps the rate is warmup_begin_lr +
// (base_lr - warmup_begin_lr) * num_update / warmup_steps ("linear") or warmup_begin_lr
// ("constant"); base_lr here is the base_lr given at construction (as MXNet, changing base_lr
// later does not move the warmup target).
//
// Like MXNet's, the schedulers are stateful: FactorScheduler and MultiFactorScheduler decay
// base_lr as they are called with growing num_update and do not undo it for a smaller one;
// Poly/Cosine overwrite base_lr with the last value computed. An optimizer given
// learning_rate overwrites the scheduler's base_lr (MXNet prints a warning and does the same),
// which affects Factor/MultiFactor but not Poly/Cosine (those keep their constructor's base_lr).
// Not thread-safe: one scheduler belongs to one optimizer.
// Errors (bad arguments) throw mxnet::Error(kInvalidArgument) with MXNet's messages.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mxnet::gluon::lr_scheduler {

class LRScheduler {
 public:
  explicit LRScheduler(double base_lr = 0.01, int64_t warmup_steps = 0, double warmup_begin_lr = 0,
                       std::string warmup_mode = "linear");
  virtual ~LRScheduler() = default;

  // The learning rate for update number `num_update` (MXNet's __call__).
  virtual double operator()(int64_t num_update) = 0;
  // The warmup rate (num_update must be < warmup_steps).
  double get_warmup_lr(int64_t num_update) const;

  double base_lr() const { return base_lr_; }
  void set_base_lr(double lr) { base_lr_ = lr; }
  int64_t warmup_steps() const { return warmup_steps_; }
  double warmup_begin_lr() const { return warmup_begin_lr_; }
  double warmup_final_lr() const { return warmup_final_lr_; }
  const std::string& warmup_mode() const { return warmup_mode_; }
  // "factor", "multifactor", "poly", "cosine".
  virtual std::string type() const = 0;

  // The mutable state (base_lr and counters) by name, for Trainer::save_states.
  virtual std::map<std::string, double> GetState() const;
  virtual void SetState(const std::map<std::string, double>& state);

 protected:
  double base_lr_;
  int64_t warmup_steps_;
  double warmup_final_lr_;
  double warmup_begin_lr_;
  std::string warmup_mode_;
};

// base_lr * factor^k after every `step` updates (k = number of completed steps), never below
// stop_factor_lr.
class FactorScheduler : public LRScheduler {
 public:
  explicit FactorScheduler(int64_t step, double factor = 1, double stop_factor_lr = 1e-8,
                           double base_lr = 0.01, int64_t warmup_steps = 0,
                           double warmup_begin_lr = 0, std::string warmup_mode = "linear");
  double operator()(int64_t num_update) override;
  std::string type() const override { return "factor"; }
  std::map<std::string, double> GetState() const override;
  void SetState(const std::map<std::string, double>& state) override;
  int64_t step() const { return step_; }
  double factor() const { return factor_; }
  double stop_factor_lr() const { return stop_factor_lr_; }

 private:
  int64_t step_;
  double factor_, stop_factor_lr_;
  int64_t count_ = 0;
};

// Multiplies the rate by `factor` once num_update passes each entry of `step` (increasing,
// each >= 1).
class MultiFactorScheduler : public LRScheduler {
 public:
  explicit MultiFactorScheduler(std::vector<int64_t> step, double factor = 1, double base_lr = 0.01,
                                int64_t warmup_steps = 0, double warmup_begin_lr = 0,
                                std::string warmup_mode = "linear");
  double operator()(int64_t num_update) override;
  std::string type() const override { return "multifactor"; }
  std::map<std::string, double> GetState() const override;
  void SetState(const std::map<std::string, double>& state) override;
  const std::vector<int64_t>& step() const { return step_; }
  double factor() const { return factor_; }

 private:
  std::vector<int64_t> step_;
  double factor_;
  size_t cur_step_ind_ = 0;
  int64_t count_ = 0;
};

// final_lr + (base_lr - final_lr) * (1 - (n - warmup_steps) / (max_update - warmup_steps))^pwr
// for n <= max_update, then constant.
class PolyScheduler : public LRScheduler {
 public:
  explicit PolyScheduler(int64_t max_update, double base_lr = 0.01, double pwr = 2,
                         double final_lr = 0, int64_t warmup_steps = 0, double warmup_begin_lr = 0,
                         std::string warmup_mode = "linear");
  double operator()(int64_t num_update) override;
  std::string type() const override { return "poly"; }
  int64_t max_update() const { return max_update_; }
  double power() const { return power_; }
  double final_lr() const { return final_lr_; }
  double base_lr_orig() const { return base_lr_orig_; }

 private:
  double power_, base_lr_orig_;
  int64_t max_update_;
  double final_lr_;
  int64_t max_steps_;
};

// final_lr + (base_lr - final_lr) * (1 + cos(pi * (n - warmup_steps) / max_steps)) / 2 for
// n <= max_update, then constant.
class CosineScheduler : public LRScheduler {
 public:
  explicit CosineScheduler(int64_t max_update, double base_lr = 0.01, double final_lr = 0,
                           int64_t warmup_steps = 0, double warmup_begin_lr = 0,
                           std::string warmup_mode = "linear");
  double operator()(int64_t num_update) override;
  std::string type() const override { return "cosine"; }
  int64_t max_update() const { return max_update_; }
  double final_lr() const { return final_lr_; }
  double base_lr_orig() const { return base_lr_orig_; }

 private:
  double base_lr_orig_;
  int64_t max_update_;
  double final_lr_;
  int64_t max_steps_;
};

}  // namespace mxnet::gluon::lr_scheduler
