#include "gluon/training/optimizer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/strings.h"

namespace mxnet::gluon::optimizer {
namespace {

using json = nlohmann::json;
constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool IsHalf(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

double Lookup(const std::map<std::string, double>& m, const std::string& k, double def) {
  auto it = m.find(k);
  return it == m.end() ? def : it->second;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Optimizer
// ---------------------------------------------------------------------------------------------
HyperParam::HyperParam(std::string n, NoneType)
    : name(std::move(n)), kind(kOptional), default_value(kNaN) {}

double Step::lr() const { return opt.get_lr(index); }
double Step::wd() const { return opt.get_wd(index); }
int64_t Step::t() const { return opt.index_update_count(index, opt.current_device_); }
double Step::h(std::string_view hyper) const { return opt.hyper_[opt.HyperIndex(hyper)]; }
double& Step::extra(std::string_view name) const { return opt.Extra(name); }
double Step::rescale_grad() const { return opt.rescale_grad_; }
std::optional<double> Step::clip_gradient() const { return opt.clip_gradient_; }
float Step::fused_clip() const {
  const std::optional<double>& c = opt.clip_gradient_;
  return c && *c != 0 ? static_cast<float>(*c) : -1.0f;
}

Optimizer::Optimizer(OptimizerSpecPtr spec, const Kwargs& kwargs) : spec_(std::move(spec)) {
  if (!spec_ || !spec_->step)
    MX_THROW(kInvalid, "optimizer spec '", spec_ ? spec_->name : "", "' has no step function");
  KwargReader kw(spec_->name, kwargs);
  rescale_grad_ = kw.Double("rescale_grad", 1.0);
  wd_ = kw.Double("wd", 0.0);
  clip_gradient_ = kw.OptDouble("clip_gradient");
  lr_scheduler_ = kw.Scheduler("lr_scheduler");
  begin_num_update_ = kw.Int("begin_num_update", 0);
  num_update_ = begin_num_update_;
  multi_precision_ = kw.Bool("multi_precision", false);
  kw.Ignore("param_idx2name");
  kw.Ignore("param_dict");
  kw.Ignore("sym");
  const bool to_base = spec_->lr_overrides_scheduler;
  std::optional<double> lr =
      to_base ? kw.OptDouble("learning_rate", spec_->default_lr) : std::nullopt;
  if (!lr_scheduler_ && !lr) lr = 0.01;
  lr_ = lr;
  // As MXNet: an explicit (or class default) learning rate overrides the scheduler's base_lr.
  if (lr_scheduler_ && lr && lr_scheduler_->base_lr() != *lr) lr_scheduler_->set_base_lr(*lr);
  for (const HyperParam& h : spec_->hyper) {
    if (h.kind == HyperParam::kBool)
      hyper_.push_back(kw.Bool(h.name, h.default_value != 0) ? 1.0 : 0.0);
    else if (h.kind == HyperParam::kOptional)
      hyper_.push_back(kw.OptDouble(h.name).value_or(kNaN));
    else
      hyper_.push_back(kw.Double(h.name, h.default_value));
  }
  for (const std::string& k : spec_->ignored) kw.Ignore(k);
  // Ftrl: the learning rate is the class's own, the scheduler keeps its base_lr.
  if (!to_base) lr_ = kw.OptDouble("learning_rate", spec_->default_lr);
  for (const auto& [k, v] : spec_->extra_state) extra_.push_back(v);
  kw.Finish();
}

size_t Optimizer::HyperIndex(std::string_view name) const {
  for (size_t i = 0; i < spec_->hyper.size(); ++i)
    if (spec_->hyper[i].name == name) return i;
  MX_THROW(kInvalid, spec_->name, ": no hyper-parameter '", name, "'");
}

double Optimizer::hyper(std::string_view name) const { return hyper_[HyperIndex(name)]; }

double& Optimizer::Extra(std::string_view name) {
  for (size_t i = 0; i < extra_.size(); ++i)
    if (spec_->extra_state[i].first == name) return extra_[i];
  MX_THROW(kInvalid, spec_->name, ": no optimizer state '", name, "'");
}

double Optimizer::extra(std::string_view name) const {
  return const_cast<Optimizer*>(this)->Extra(name);
}

double Optimizer::learning_rate() {
  if (lr_scheduler_) return (*lr_scheduler_)(num_update_);
  return lr_.value_or(0.01);
}

void Optimizer::set_learning_rate(double lr) {
  if (lr_scheduler_)
    MX_THROW(absl::StatusCode::kFailedPrecondition,
             "LRScheduler of the optimizer has already been defined. Note that set_learning_rate "
             "can mutate the value of the learning rate of the optimizer only when the "
             "LRScheduler of the optimizer is undefined.");
  lr_ = lr;
}

double Optimizer::get_lr(int index) {
  double lr = lr_scheduler_ ? (*lr_scheduler_)(num_update_) : lr_.value_or(0.01);
  if (auto it = param_dict_.find(index); it != param_dict_.end() && it->second)
    return lr * it->second->lr_mult();
  if (auto it = lr_mult_.find(index); it != lr_mult_.end()) return lr * it->second;
  return lr;
}

double Optimizer::get_wd(int index) const {
  if (auto it = param_dict_.find(index); it != param_dict_.end() && it->second)
    return wd_ * it->second->wd_mult();
  if (auto it = wd_mult_.find(index); it != wd_mult_.end()) return wd_ * it->second;
  return wd_;
}

int64_t Optimizer::index_update_count(int index, Device device) const {
  auto d = counts_.find({static_cast<int>(device.type), device.id});
  if (d == counts_.end()) return begin_num_update_;
  auto it = d->second.find(index);
  return it == d->second.end() ? begin_num_update_ : it->second;
}

void Optimizer::UpdateCount(int index) {
  auto& table = counts_[{static_cast<int>(current_device_.type), current_device_.id}];
  auto it = table.find(index);
  if (it == table.end()) it = table.emplace(index, begin_num_update_).first;
  ++it->second;
  num_update_ = std::max(num_update_, it->second);
}

State Optimizer::create_state(int index, const NDArray& weight) {
  if (weight.is_none()) MX_THROW(kInvalid, name(), ": create_state of an empty weight");
  if (spec_->create_states) return State{spec_->create_states(*this, weight), NDArray()};
  State st;
  for (size_t i = 0; i < spec_->states.size(); ++i)
    st.arrays.push_back(NDArray::Full(weight.shape(), 0.0, weight.device(), weight.dtype()));
  return st;
}

State Optimizer::create_state_multi_precision(int index, const NDArray& weight) {
  if (weight.is_none()) MX_THROW(kInvalid, name(), ": create_state of an empty weight");
  if (multi_precision_ && IsHalf(weight.dtype())) {
    NDArray w32 = weight.astype(DType::kFloat32);
    State st = create_state(index, w32);
    st.weight32 = w32;
    return st;
  }
  return create_state(index, weight);
}

void Optimizer::CheckArgs(int index, const NDArray& weight, const NDArray& grad,
                          const State& state) const {
  if (weight.is_none() || grad.is_none())
    MX_THROW(kInvalid, name(), ": update of index ", index, " with an empty weight or gradient");
  if (grad.shape() != weight.shape())
    MX_THROW(kInvalid, name(), ": gradient of index ", index, " has shape ",
             grad.shape().ToString(), " but the weight has shape ", weight.shape().ToString());
  if (grad.dtype() != weight.dtype())
    MX_THROW(kInvalid, name(), ": gradient of index ", index, " is ", DTypeName(grad.dtype()),
             " but the weight is ", DTypeName(weight.dtype()));
  if (!IsFloatingPoint(weight.dtype()))
    MX_THROW(kInvalid, name(), ": weight of index ", index, " must be floating point, got ",
             DTypeName(weight.dtype()));
  const NDArray& ref = state.weight32.is_none() ? weight : state.weight32;
  if (!state.weight32.is_none() && state.weight32.shape() != weight.shape())
    MX_THROW(kInvalid, name(), ": master weight of index ", index, " has shape ",
             state.weight32.shape().ToString(), ", weight ", weight.shape().ToString());
  for (const NDArray& s : state.arrays)
    if (!s.is_none() && s.shape() != ref.shape())
      MX_THROW(kInvalid, name(), ": state of index ", index, " has shape ", s.shape().ToString(),
               " but the weight has shape ", weight.shape().ToString(),
               " (a state created for another weight or optimizer?)");
}

void Optimizer::update(int index, const NDArray& weight, const NDArray& grad, State& state) {
  update_multi_precision(index, weight, grad, state);
}

void Optimizer::update_multi_precision(int index, const NDArray& weight, const NDArray& grad,
                                       State& state) {
  CheckArgs(index, weight, grad, state);
  current_device_ = weight.device();
  const NDArray none;
  if (grad.is_sparse() && !(spec_->row_sparse_grad && state.weight32.is_none())) {
    // Dense update of the densified gradient (MXNet's storage fallback).
    update_multi_precision(index, weight, grad.tostype(StorageType::kDefault), state);
    return;
  }
  if (state.weight32.is_none()) {
    UpdateCount(index);
    spec_->step(Step{*this, index, weight, grad, state.arrays, none});
  } else if (spec_->fused_multi_precision) {
    UpdateCount(index);
    spec_->step(Step{*this, index, weight, grad, state.arrays, state.weight32});
  } else {
    NDArray grad32 = grad.astype(DType::kFloat32);
    UpdateCount(index);
    spec_->step(Step{*this, index, state.weight32, grad32, state.arrays, none});
    state.weight32.copyto(weight);
  }
}

std::string Optimizer::SerializeConfig() const {
  json j;
  j["optimizer"] = name();
  j["lr"] = lr_ ? json(*lr_) : json(nullptr);
  j["wd"] = wd_;
  j["rescale_grad"] = rescale_grad_;
  j["clip_gradient"] = clip_gradient_ ? json(*clip_gradient_) : json(nullptr);
  j["multi_precision"] = multi_precision_;
  j["begin_num_update"] = begin_num_update_;
  j["num_update"] = num_update_;
  json counts = json::array();
  for (const auto& [dev, table] : counts_)
    for (const auto& [index, count] : table)
      counts.push_back(
          {{"dev_type", dev.first}, {"dev_id", dev.second}, {"index", index}, {"count", count}});
  j["counts"] = counts;
  json lm = json::object(), wm = json::object();
  for (const auto& [k, v] : lr_mult_) lm[std::to_string(k)] = v;
  for (const auto& [k, v] : wd_mult_) wm[std::to_string(k)] = v;
  j["lr_mult"] = lm;
  j["wd_mult"] = wm;
  json hyper = json::object();
  for (size_t i = 0; i < hyper_.size(); ++i)
    hyper[spec_->hyper[i].name] = std::isnan(hyper_[i]) ? json(nullptr) : json(hyper_[i]);
  j["hyper"] = hyper;
  json extra = json::object();
  for (size_t i = 0; i < extra_.size(); ++i) extra[spec_->extra_state[i].first] = extra_[i];
  j["extra"] = extra;
  if (lr_scheduler_) {
    j["lr_scheduler"] = {{"type", lr_scheduler_->type()}, {"state", lr_scheduler_->GetState()}};
  } else {
    j["lr_scheduler"] = nullptr;
  }
  return j.dump();
}

void Optimizer::RestoreConfig(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    MX_THROW(kInvalid, name(), ": optimizer state is not a JSON object");
  try {
    std::string saved = j.at("optimizer").get<std::string>();
    if (saved != name())
      MX_THROW(kInvalid, "the saved optimizer state is for '", saved, "', this optimizer is '",
               name(), "'");
    auto opt_num = [](const json& v) {
      return v.is_null() ? std::nullopt : std::optional<double>(v.get<double>());
    };
    std::optional<double> lr = opt_num(j.at("lr"));
    double wd = j.at("wd").get<double>(), rescale = j.at("rescale_grad").get<double>();
    std::optional<double> clip = opt_num(j.at("clip_gradient"));
    bool mp = j.at("multi_precision").get<bool>();
    int64_t begin = j.at("begin_num_update").get<int64_t>();
    int64_t num = j.at("num_update").get<int64_t>();
    std::map<std::pair<int, int>, std::map<int, int64_t>> counts;
    for (const auto& c : j.at("counts"))
      counts[{c.at("dev_type").get<int>(), c.at("dev_id").get<int>()}][c.at("index").get<int>()] =
          c.at("count").get<int64_t>();
    std::map<int, double> lm, wm;
    for (const auto& [k, v] : j.at("lr_mult").items()) lm[std::stoi(k)] = v.get<double>();
    for (const auto& [k, v] : j.at("wd_mult").items()) wm[std::stoi(k)] = v.get<double>();
    std::map<std::string, double> hyper;
    for (const auto& [k, v] : j.at("hyper").items())
      hyper[k] = v.is_null() ? kNaN : v.get<double>();
    std::map<std::string, double> extra = j.at("extra").get<std::map<std::string, double>>();
    const json& sched = j.at("lr_scheduler");
    // Everything parsed: apply.
    lr_ = lr;
    wd_ = wd;
    rescale_grad_ = rescale;
    clip_gradient_ = clip;
    multi_precision_ = mp;
    begin_num_update_ = begin;
    num_update_ = num;
    counts_ = std::move(counts);
    lr_mult_ = std::move(lm);
    wd_mult_ = std::move(wm);
    for (size_t i = 0; i < hyper_.size(); ++i) {
      hyper_[i] = Lookup(hyper, spec_->hyper[i].name, hyper_[i]);
      if (spec_->hyper[i].kind == HyperParam::kBool) hyper_[i] = hyper_[i] != 0.0 ? 1.0 : 0.0;
    }
    for (size_t i = 0; i < extra_.size(); ++i)
      extra_[i] = Lookup(extra, spec_->extra_state[i].first, extra_[i]);
    if (!sched.is_null() && lr_scheduler_ &&
        sched.at("type").get<std::string>() == lr_scheduler_->type())
      lr_scheduler_->SetState(sched.at("state").get<std::map<std::string, double>>());
  } catch (const json::exception& e) {
    MX_THROW(kInvalid, name(), ": malformed optimizer state: ", e.what());
  } catch (const std::invalid_argument& e) {
    MX_THROW(kInvalid, name(), ": malformed optimizer state: ", e.what());
  } catch (const std::out_of_range& e) {
    MX_THROW(kInvalid, name(), ": malformed optimizer state: ", e.what());
  }
}

// ---------------------------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------------------------
namespace {
struct Registry {
  std::mutex mu;
  std::map<std::string, Factory> factories;
};
Registry& GetRegistry() {
  static Registry* r = [] {
    auto* reg = new Registry();
    for (const auto& [spec, factory] : Builtins()) reg->factories[spec->name] = factory;
    return reg;
  }();
  return *r;
}
}  // namespace

void Register(const std::string& name, Factory factory) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> l(r.mu);
  r.factories[AsciiToLower(name)] = std::move(factory);
}

void Register(OptimizerSpecPtr spec) {
  if (!spec || !spec->step) MX_THROW(kInvalid, "Register: an optimizer spec needs a step function");
  const std::string name = spec->name;
  Register(name, [spec = std::move(spec)](const Kwargs& kw) {
    return std::make_shared<Optimizer>(spec, kw);
  });
}

OptimizerPtr Create(const std::string& name, const Kwargs& kwargs) {
  Factory f;
  {
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> l(r.mu);
    auto it = r.factories.find(AsciiToLower(name));
    if (it == r.factories.end()) {
      std::vector<std::string> names;
      for (const auto& [k, v] : r.factories) names.push_back(k);
      MX_THROW(absl::StatusCode::kNotFound, "Cannot find optimizer ", name,
               " (registered: ", StrJoin(names, ", "), ")");
    }
    f = it->second;
  }
  return f(kwargs);
}

std::vector<std::string> List() {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> l(r.mu);
  std::vector<std::string> names;
  for (const auto& [k, v] : r.factories) names.push_back(k);
  return names;
}

}  // namespace mxnet::gluon::optimizer
