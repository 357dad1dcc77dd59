#include "gluon/training/lr_scheduler.h"

#include <cmath>
#include <numbers>

#include "base/error.h"
#include "base/strings.h"

namespace mxnet::gluon::lr_scheduler {
namespace {
constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

double Get(const std::map<std::string, double>& m, const std::string& k, double def) {
  auto it = m.find(k);
  return it == m.end() ? def : it->second;
}
}  // namespace

LRScheduler::LRScheduler(double base_lr, int64_t warmup_steps, double warmup_begin_lr,
                         std::string warmup_mode)
    : base_lr_(base_lr),
      warmup_steps_(warmup_steps),
      warmup_final_lr_(base_lr),
      warmup_begin_lr_(warmup_begin_lr),
      warmup_mode_(std::move(warmup_mode)) {
  if (warmup_begin_lr_ > warmup_final_lr_)
    MX_THROW(kInvalid, "Base lr has to be higher than warmup_begin_lr");
  if (warmup_steps_ < 0) MX_THROW(kInvalid, "Warmup steps has to be positive or 0");
  if (warmup_mode_ != "linear" && warmup_mode_ != "constant")
    MX_THROW(kInvalid, "Supports only linear and constant modes of warmup (got '", warmup_mode_,
             "')");
}

double LRScheduler::get_warmup_lr(int64_t num_update) const {
  MX_CHECK(num_update < warmup_steps_, "get_warmup_lr(", num_update, ") past warmup_steps ",
           warmup_steps_);
  if (warmup_mode_ == "linear") {
    double increase = (warmup_final_lr_ - warmup_begin_lr_) * static_cast<double>(num_update) /
                      static_cast<double>(warmup_steps_);
    return warmup_begin_lr_ + increase;
  }
  return warmup_begin_lr_;
}

std::map<std::string, double> LRScheduler::GetState() const { return {{"base_lr", base_lr_}}; }
void LRScheduler::SetState(const std::map<std::string, double>& s) {
  base_lr_ = Get(s, "base_lr", base_lr_);
}

// ---- FactorScheduler ----
FactorScheduler::FactorScheduler(int64_t step, double factor, double stop_factor_lr, double base_lr,
                                 int64_t warmup_steps, double warmup_begin_lr,
                                 std::string warmup_mode)
    : LRScheduler(base_lr, warmup_steps, warmup_begin_lr, std::move(warmup_mode)),
      step_(step),
      factor_(factor),
      stop_factor_lr_(stop_factor_lr) {
  if (step < 1) MX_THROW(kInvalid, "Schedule step must be greater or equal than 1 round");
  if (factor > 1.0) MX_THROW(kInvalid, "Factor must be no more than 1 to make lr reduce");
}

double FactorScheduler::operator()(int64_t num_update) {
  if (num_update < warmup_steps_) return get_warmup_lr(num_update);
  // Update the rate once per completed step (MXNet's loop).
  while (num_update > count_ + step_) {
    count_ += step_;
    base_lr_ *= factor_;
    if (base_lr_ < stop_factor_lr_) base_lr_ = stop_factor_lr_;
  }
  return base_lr_;
}

std::map<std::string, double> FactorScheduler::GetState() const {
  return {{"base_lr", base_lr_}, {"count", static_cast<double>(count_)}};
}
void FactorScheduler::SetState(const std::map<std::string, double>& s) {
  LRScheduler::SetState(s);
  count_ = static_cast<int64_t>(Get(s, "count", static_cast<double>(count_)));
}

// ---- MultiFactorScheduler ----
MultiFactorScheduler::MultiFactorScheduler(std::vector<int64_t> step, double factor, double base_lr,
                                           int64_t warmup_steps, double warmup_begin_lr,
                                           std::string warmup_mode)
    : LRScheduler(base_lr, warmup_steps, warmup_begin_lr, std::move(warmup_mode)),
      step_(std::move(step)),
      factor_(factor) {
  if (step_.empty()) MX_THROW(kInvalid, "MultiFactorScheduler: step must be a non-empty list");
  for (size_t i = 0; i < step_.size(); ++i) {
    if (i != 0 && step_[i] <= step_[i - 1])
      MX_THROW(kInvalid, "Schedule step must be an increasing integer list");
    if (step_[i] < 1) MX_THROW(kInvalid, "Schedule step must be greater or equal than 1 round");
  }
  if (factor > 1.0) MX_THROW(kInvalid, "Factor must be no more than 1 to make lr reduce");
}

double MultiFactorScheduler::operator()(int64_t num_update) {
  if (num_update < warmup_steps_) return get_warmup_lr(num_update);
  while (cur_step_ind_ < step_.size()) {
    if (num_update <= step_[cur_step_ind_]) return base_lr_;
    count_ = step_[cur_step_ind_];
    ++cur_step_ind_;
    base_lr_ *= factor_;
  }
  return base_lr_;
}

std::map<std::string, double> MultiFactorScheduler::GetState() const {
  return {{"base_lr", base_lr_},
          {"count", static_cast<double>(count_)},
          {"cur_step_ind", static_cast<double>(cur_step_ind_)}};
}
void MultiFactorScheduler::SetState(const std::map<std::string, double>& s) {
  LRScheduler::SetState(s);
  count_ = static_cast<int64_t>(Get(s, "count", static_cast<double>(count_)));
  double ind = Get(s, "cur_step_ind", static_cast<double>(cur_step_ind_));
  if (ind < 0 || ind > static_cast<double>(step_.size()))
    MX_THROW(kInvalid, "MultiFactorScheduler: saved cur_step_ind ", ind, " is out of range for ",
             step_.size(), " steps");
  cur_step_ind_ = static_cast<size_t>(ind);
}

// ---- PolyScheduler ----
PolyScheduler::PolyScheduler(int64_t max_update, double base_lr, double pwr, double final_lr,
                             int64_t warmup_steps, double warmup_begin_lr, std::string warmup_mode)
    : LRScheduler(base_lr, warmup_steps, warmup_begin_lr, std::move(warmup_mode)),
      power_(pwr),
      base_lr_orig_(base_lr),
      max_update_(max_update),
      final_lr_(final_lr),
      max_steps_(max_update - warmup_steps) {
  if (max_update < 1) MX_THROW(kInvalid, "maximum number of updates must be strictly positive");
}

double PolyScheduler::operator()(int64_t num_update) {
  if (num_update < warmup_steps_) return get_warmup_lr(num_update);
  if (num_update <= max_update_) {
    base_lr_ = final_lr_ + (base_lr_orig_ - final_lr_) *
                               std::pow(1 - static_cast<double>(num_update - warmup_steps_) /
                                                static_cast<double>(max_steps_),
                                        power_);
  }
  return base_lr_;
}

// ---- CosineScheduler ----
CosineScheduler::CosineScheduler(int64_t max_update, double base_lr, double final_lr,
                                 int64_t warmup_steps, double warmup_begin_lr,
                                 std::string warmup_mode)
    : LRScheduler(base_lr, warmup_steps, warmup_begin_lr, std::move(warmup_mode)),
      base_lr_orig_(base_lr),
      max_update_(max_update),
      final_lr_(final_lr),
      max_steps_(max_update - warmup_steps) {
  if (max_update < 1) MX_THROW(kInvalid, "maximum number of updates must be strictly positive");
}

double CosineScheduler::operator()(int64_t num_update) {
  if (num_update < warmup_steps_) return get_warmup_lr(num_update);
  if (num_update <= max_update_) {
    base_lr_ = final_lr_ + (base_lr_orig_ - final_lr_) *
                               (1 + std::cos(std::numbers::pi *
                                             static_cast<double>(num_update - warmup_steps_) /
                                             static_cast<double>(max_steps_))) /
                               2;
  }
  return base_lr_;
}

}  // namespace mxnet::gluon::lr_scheduler
