#include "gluon/training/optimizer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/strings.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ops/optim_api.h"

namespace mxnet::gluon::optimizer {
namespace {

using json = nlohmann::json;
constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

NDArray ZerosLike(const NDArray& w) { return NDArray::Full(w.shape(), 0.0, w.device(), w.dtype()); }

bool IsHalf(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

double OptOrNaN(const std::optional<double>& v) { return v ? *v : kNaN; }
std::optional<double> NaNToOpt(double v) {
  return std::isnan(v) ? std::nullopt : std::optional<double>(v);
}
double Lookup(const std::map<std::string, double>& m, const std::string& k, double def) {
  auto it = m.find(k);
  return it == m.end() ? def : it->second;
}

void RequireCPU(std::string_view who, const NDArray& a) {
  if (!a.device().is_cpu())
    MX_THROW(absl::StatusCode::kUnimplemented, who, ": only CPU arrays are supported, got ",
             a.device().ToString());
}

// Sum of squares in double (LAMB's norms).
double SumSquares(const NDArray& a) {
  RequireCPU("lamb", a);
  double total = 0;
  std::mutex mu;
  MX_FLOAT_TYPE_SWITCH(a.dtype(), T, "lamb", {
    const T* x = static_cast<const T*>(a.data_ptr());
    ParallelForRange(a.size(), 1 << 16, [&](int64_t b, int64_t e) {
      double s = 0;
      for (int64_t i = b; i < e; ++i) {
        double v = static_cast<double>(static_cast<AccType<T>>(x[i]));
        s += v * v;
      }
      std::lock_guard<std::mutex> l(mu);
      total += s;
    });
  });
  return total;
}

// Runs f.template operator()<T>(n, weight ptr, grad ptr, state ptrs...) for the weight's dtype.
// Used by the optimizers MXNet composes from NDArray arithmetic.
template <typename F>
void ElementLoop(std::string_view who, const NDArray& weight, const NDArray& grad,
                 std::vector<NDArray>& state, F f) {
  RequireCPU(who, weight);
  MX_FLOAT_TYPE_SWITCH(weight.dtype(), T, who, {
    std::vector<T*> st;
    for (auto& s : state) st.push_back(static_cast<T*>(s.data_ptr()));
    f(static_cast<T*>(weight.data_ptr()), static_cast<const T*>(grad.data_ptr()), st.data(),
      weight.size());
  });
}

template <typename A>
inline A ClipTo(A x, A c) {
  return std::max(std::min(x, c), -c);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Optimizer
// ---------------------------------------------------------------------------------------------
Optimizer::Optimizer(std::string name, KwargReader& kw, std::optional<double> default_lr,
                     bool lr_to_base)
    : name_(std::move(name)) {
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
  std::optional<double> lr = lr_to_base ? kw.OptDouble("learning_rate", default_lr) : default_lr;
  if (!lr_scheduler_ && !lr) lr = 0.01;
  lr_ = lr;
  // As MXNet: an explicit (or class default) learning rate overrides the scheduler's base_lr.
  if (lr_scheduler_ && lr && lr_scheduler_->base_lr() != *lr) lr_scheduler_->set_base_lr(*lr);
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

int64_t Optimizer::Count(int index) const { return index_update_count(index, current_device_); }

void Optimizer::UpdateCount(int index) {
  auto& table = counts_[{static_cast<int>(current_device_.type), current_device_.id}];
  auto it = table.find(index);
  if (it == table.end()) it = table.emplace(index, begin_num_update_).first;
  ++it->second;
  num_update_ = std::max(num_update_, it->second);
}

float Optimizer::FusedClip() const {
  return clip_gradient_ && *clip_gradient_ != 0 ? static_cast<float>(*clip_gradient_) : -1.0f;
}

State Optimizer::create_state(int index, const NDArray& weight) {
  if (weight.is_none()) MX_THROW(kInvalid, name_, ": create_state of an empty weight");
  return State{CreateStateArrays(index, weight), NDArray()};
}

State Optimizer::create_state_multi_precision(int index, const NDArray& weight) {
  if (weight.is_none()) MX_THROW(kInvalid, name_, ": create_state of an empty weight");
  if (multi_precision_ && IsHalf(weight.dtype())) {
    NDArray w32 = weight.astype(DType::kFloat32);
    return State{CreateStateArrays(index, w32), w32};
  }
  return create_state(index, weight);
}

void Optimizer::CheckArgs(int index, const NDArray& weight, const NDArray& grad,
                          const State& state) const {
  if (weight.is_none() || grad.is_none())
    MX_THROW(kInvalid, name_, ": update of index ", index, " with an empty weight or gradient");
  if (grad.shape() != weight.shape())
    MX_THROW(kInvalid, name_, ": gradient of index ", index, " has shape ", grad.shape().ToString(),
             " but the weight has shape ", weight.shape().ToString());
  if (grad.dtype() != weight.dtype())
    MX_THROW(kInvalid, name_, ": gradient of index ", index, " is ", DTypeName(grad.dtype()),
             " but the weight is ", DTypeName(weight.dtype()));
  if (!IsFloatingPoint(weight.dtype()))
    MX_THROW(kInvalid, name_, ": weight of index ", index, " must be floating point, got ",
             DTypeName(weight.dtype()));
  const NDArray& ref = state.weight32.is_none() ? weight : state.weight32;
  if (!state.weight32.is_none() && state.weight32.shape() != weight.shape())
    MX_THROW(kInvalid, name_, ": master weight of index ", index, " has shape ",
             state.weight32.shape().ToString(), ", weight ", weight.shape().ToString());
  for (const NDArray& s : state.arrays)
    if (!s.is_none() && s.shape() != ref.shape())
      MX_THROW(kInvalid, name_, ": state of index ", index, " has shape ", s.shape().ToString(),
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
  if (state.weight32.is_none()) {
    UpdateCount(index);
    Step(index, weight, grad, state.arrays, NDArray());
  } else if (FusedMultiPrecision()) {
    UpdateCount(index);
    Step(index, weight, grad, state.arrays, state.weight32);
  } else {
    NDArray grad32 = grad.astype(DType::kFloat32);
    UpdateCount(index);
    Step(index, state.weight32, grad32, state.arrays, NDArray());
    state.weight32.copyto(weight);
  }
}

std::string Optimizer::SerializeConfig() const {
  json j;
  j["optimizer"] = name_;
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
  for (const auto& [k, v] : HyperParams()) hyper[k] = std::isnan(v) ? json(nullptr) : json(v);
  j["hyper"] = hyper;
  j["extra"] = ExtraState();
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
    MX_THROW(kInvalid, name_, ": optimizer state is not a JSON object");
  try {
    std::string saved = j.at("optimizer").get<std::string>();
    if (saved != name_)
      MX_THROW(kInvalid, "the saved optimizer state is for '", saved, "', this optimizer is '",
               name_, "'");
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
    SetHyperParams(hyper);
    SetExtraState(extra);
    if (!sched.is_null() && lr_scheduler_ &&
        sched.at("type").get<std::string>() == lr_scheduler_->type())
      lr_scheduler_->SetState(sched.at("state").get<std::map<std::string, double>>());
  } catch (const json::exception& e) {
    MX_THROW(kInvalid, name_, ": malformed optimizer state: ", e.what());
  } catch (const std::invalid_argument& e) {
    MX_THROW(kInvalid, name_, ": malformed optimizer state: ", e.what());
  } catch (const std::out_of_range& e) {
    MX_THROW(kInvalid, name_, ": malformed optimizer state: ", e.what());
  }
}

// ---------------------------------------------------------------------------------------------
// The optimizers. Each public constructor delegates to a private one that receives the kwargs
// reader (alive until the delegating call completes), reads the common options in Optimizer's
// constructor and its own in the member initializers, then checks for unknown keys.
// ---------------------------------------------------------------------------------------------
namespace {
std::vector<NDArray> Zeros(const NDArray& w, int n) {
  std::vector<NDArray> v;
  for (int i = 0; i < n; ++i) v.push_back(ZerosLike(w));
  return v;
}
NDArray OneElement(double v, const NDArray& like, DType dtype) {
  return NDArray::FromVector(std::vector<double>{v}, Shape{1}, like.device(), dtype);
}
}  // namespace

// ---- SGD ----
SGD::SGD(const Kwargs& kwargs) : SGD(KwargReader("sgd", kwargs)) {}
SGD::SGD(KwargReader&& kw)
    : Optimizer("sgd", kw, std::nullopt), momentum_(kw.Double("momentum", 0.0)) {
  kw.Ignore("lazy_update");
  kw.Finish();
}
std::vector<NDArray> SGD::CreateStateArrays(int, const NDArray& w) {
  return {momentum_ != 0.0 ? ZerosLike(w) : NDArray()};
}
void SGD::Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
               const NDArray& weight32) {
  float lr = static_cast<float>(get_lr(index)), wd = static_cast<float>(get_wd(index));
  float rg = static_cast<float>(rescale_grad_), clip = FusedClip();
  float mom = momentum_ > 0 ? static_cast<float>(momentum_) : 0.0f;
  const NDArray& m = state.at(0);
  if (weight32.is_none()) {
    if (!m.is_none())
      nd::sgd_mom_update(
          weight, grad, m,
          {.lr = lr, .momentum = mom, .wd = wd, .rescale_grad = rg, .clip_gradient = clip}, weight);
    else
      nd::sgd_update(weight, grad, {.lr = lr, .wd = wd, .rescale_grad = rg, .clip_gradient = clip},
                     weight);
  } else if (!m.is_none()) {
    nd::mp_sgd_mom_update(
        weight, grad, m, weight32,
        {.lr = lr, .momentum = mom, .wd = wd, .rescale_grad = rg, .clip_gradient = clip}, weight);
  } else {
    nd::mp_sgd_update(weight, grad, weight32,
                      {.lr = lr, .wd = wd, .rescale_grad = rg, .clip_gradient = clip}, weight);
  }
}
std::map<std::string, double> SGD::HyperParams() const { return {{"momentum", momentum_}}; }
void SGD::SetHyperParams(const std::map<std::string, double>& h) {
  momentum_ = Lookup(h, "momentum", momentum_);
}

// ---- NAG ----
NAG::NAG(const Kwargs& kwargs) : NAG(KwargReader("nag", kwargs)) {}
NAG::NAG(KwargReader&& kw)
    : Optimizer("nag", kw, std::nullopt), momentum_(kw.Double("momentum", 0.0)) {
  kw.Finish();
}
std::vector<NDArray> NAG::CreateStateArrays(int, const NDArray& w) {
  return {momentum_ != 0.0 ? ZerosLike(w) : NDArray()};
}
void NAG::Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
               const NDArray& weight32) {
  float lr = static_cast<float>(get_lr(index)), wd = static_cast<float>(get_wd(index));
  float rg = static_cast<float>(rescale_grad_), clip = FusedClip();
  float mom = momentum_ > 0 ? static_cast<float>(momentum_) : 0.0f;
  const NDArray& m = state.at(0);
  nd::NAGMomOptions o{
      .lr = lr, .momentum = mom, .wd = wd, .rescale_grad = rg, .clip_gradient = clip};
  nd::SGDOptions s{.lr = lr, .wd = wd, .rescale_grad = rg, .clip_gradient = clip};
  if (weight32.is_none()) {
    if (!m.is_none())
      nd::nag_mom_update(weight, grad, m, o, weight);
    else
      nd::sgd_update(weight, grad, s, weight);
  } else if (!m.is_none()) {
    nd::mp_nag_mom_update(weight, grad, m, weight32, o, weight);
  } else {
    nd::mp_sgd_update(weight, grad, weight32, s, weight);
  }
}
std::map<std::string, double> NAG::HyperParams() const { return {{"momentum", momentum_}}; }
void NAG::SetHyperParams(const std::map<std::string, double>& h) {
  momentum_ = Lookup(h, "momentum", momentum_);
}

// ---- Adam ----
Adam::Adam(const Kwargs& kwargs) : Adam(KwargReader("adam", kwargs)) {}
Adam::Adam(KwargReader&& kw)
    : Optimizer("adam", kw, 0.001),
      beta1_(kw.Double("beta1", 0.9)),
      beta2_(kw.Double("beta2", 0.999)),
      epsilon_(kw.Double("epsilon", 1e-8)) {
  kw.Ignore("lazy_update");
  kw.Finish();
}
std::vector<NDArray> Adam::CreateStateArrays(int, const NDArray& w) { return Zeros(w, 2); }
void Adam::Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
                const NDArray&) {
  double lr = get_lr(index), wd = get_wd(index);
  double t = static_cast<double>(Count(index));
  double coef1 = 1.0 - std::pow(beta1_, t), coef2 = 1.0 - std::pow(beta2_, t);
  lr *= std::sqrt(coef2) / coef1;
  nd::adam_update(weight, grad, state.at(0), state.at(1),
                  {.lr = static_cast<float>(lr),
                   .beta1 = static_cast<float>(beta1_),
                   .beta2 = static_cast<float>(beta2_),
                   .epsilon = static_cast<float>(epsilon_),
                   .wd = static_cast<float>(wd),
                   .rescale_grad = static_cast<float>(rescale_grad_),
                   .clip_gradient = FusedClip()},
                  weight);
}
std::map<std::string, double> Adam::HyperParams() const {
  return {{"beta1", beta1_}, {"beta2", beta2_}, {"epsilon", epsilon_}};
}
void Adam::SetHyperParams(const std::map<std::string, double>& h) {
  beta1_ = Lookup(h, "beta1", beta1_);
  beta2_ = Lookup(h, "beta2", beta2_);
  epsilon_ = Lookup(h, "epsilon", epsilon_);
}

// ---- AdamW ----
AdamW::AdamW(const Kwargs& kwargs) : AdamW(KwargReader("adamw", kwargs)) {}
AdamW::AdamW(KwargReader&& kw)
    : Optimizer("adamw", kw, 0.001),
      beta1_(kw.Double("beta1", 0.9)),
      beta2_(kw.Double("beta2", 0.999)),
      epsilon_(kw.Double("epsilon", 1e-6)),
      correct_bias_(kw.Bool("correct_bias", true)) {
  kw.Ignore("use_fused_step");
  kw.Finish();
}
std::vector<NDArray> AdamW::CreateStateArrays(int, const NDArray& w) { return Zeros(w, 2); }
void AdamW::Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
                 const NDArray& weight32) {
  double lr = get_lr(index), wd = get_wd(index);
  if (correct_bias_) {
    double t = static_cast<double>(Count(index));
    lr *= std::sqrt(1.0 - std::pow(beta2_, t)) / (1.0 - std::pow(beta1_, t));
  }
  nd::AdamWOptions o{.lr = 1.0f,
                     .beta1 = static_cast<float>(beta1_),
                     .beta2 = static_cast<float>(beta2_),
                     .epsilon = static_cast<float>(epsilon_),
                     .wd = static_cast<float>(wd),
                     .eta = static_cast<float>(lr),
                     .clip_gradient = FusedClip()};
  NDArray scale = OneElement(rescale_grad_, weight, DType::kFloat32);
  if (weight32.is_none())
    nd::adamw_update(weight, grad, state.at(0), state.at(1), scale, o, weight);
  else
    nd::mp_adamw_update(weight, grad, state.at(0), state.at(1), weight32, scale, o, weight);
}
std::map<std::string, double> AdamW::HyperParams() const {
  return {{"beta1", beta1_},
          {"beta2", beta2_},
          {"epsilon", epsilon_},
          {"correct_bias", correct_bias_ ? 1.0 : 0.0}};
}
void AdamW::SetHyperParams(const std::map<std::string, double>& h) {
  beta1_ = Lookup(h, "beta1", beta1_);
  beta2_ = Lookup(h, "beta2", beta2_);
  epsilon_ = Lookup(h, "epsilon", epsilon_);
  correct_bias_ = Lookup(h, "correct_bias", correct_bias_ ? 1.0 : 0.0) != 0.0;
}

// ---- RMSProp ----
RMSProp::RMSProp(const Kwargs& kwargs) : RMSProp(KwargReader("rmsprop", kwargs)) {}
RMSProp::RMSProp(KwargReader&& kw)
    : Optimizer("rmsprop", kw, 0.001),
      gamma1_(kw.Double("gamma1", 0.9)),
      gamma2_(kw.Double("gamma2", 0.9)),
      epsilon_(kw.Double("epsilon", 1e-8)),
      centered_(kw.Bool("centered", false)),
      clip_weights_(kw.OptDouble("clip_weights")) {
  kw.Finish();
}
std::vector<NDArray> RMSProp::CreateStateArrays(int, const NDArray& w) {
  return Zeros(w, centered_ ? 3 : 1);
}
void RMSProp::Step(int index, const NDArray& weight, const NDArray& grad,
                   std::vector<NDArray>& state, const NDArray&) {
  float lr = static_cast<float>(get_lr(index)), wd = static_cast<float>(get_wd(index));
  float cw = clip_weights_ && *clip_weights_ != 0 ? static_cast<float>(*clip_weights_) : -1.0f;
  if (!centered_) {
    nd::rmsprop_update(weight, grad, state.at(0),
                       {.lr = lr,
                        .gamma1 = static_cast<float>(gamma1_),
                        .epsilon = static_cast<float>(epsilon_),
                        .wd = wd,
                        .rescale_grad = static_cast<float>(rescale_grad_),
                        .clip_gradient = FusedClip(),
                        .clip_weights = cw},
                       weight);
  } else {
    if (state.size() < 3)
      MX_THROW(kInvalid, "rmsprop: a centered RMSProp needs states [n, g, delta]");
    nd::rmspropalex_update(weight, grad, state[0], state[1], state[2],
                           {.lr = lr,
                            .gamma1 = static_cast<float>(gamma1_),
                            .gamma2 = static_cast<float>(gamma2_),
                            .epsilon = static_cast<float>(epsilon_),
                            .wd = wd,
                            .rescale_grad = static_cast<float>(rescale_grad_),
                            .clip_gradient = FusedClip(),
                            .clip_weights = cw},
                           weight);
  }
}
std::map<std::string, double> RMSProp::HyperParams() const {
  return {{"gamma1", gamma1_},
          {"gamma2", gamma2_},
          {"epsilon", epsilon_},
          {"centered", centered_ ? 1.0 : 0.0},
          {"clip_weights", OptOrNaN(clip_weights_)}};
}
void RMSProp::SetHyperParams(const std::map<std::string, double>& h) {
  gamma1_ = Lookup(h, "gamma1", gamma1_);
  gamma2_ = Lookup(h, "gamma2", gamma2_);
  epsilon_ = Lookup(h, "epsilon", epsilon_);
  centered_ = Lookup(h, "centered", centered_ ? 1.0 : 0.0) != 0.0;
  clip_weights_ = NaNToOpt(Lookup(h, "clip_weights", OptOrNaN(clip_weights_)));
}

// ---- AdaGrad (MXNet composes it from NDArray ops; same float arithmetic order here) ----
AdaGrad::AdaGrad(const Kwargs& kwargs) : AdaGrad(KwargReader("adagrad", kwargs)) {}
AdaGrad::AdaGrad(KwargReader&& kw)
    : Optimizer("adagrad", kw, std::nullopt), eps_(kw.Double("eps", 1e-7)) {
  kw.Finish();
}
std::vector<NDArray> AdaGrad::CreateStateArrays(int, const NDArray& w) { return Zeros(w, 1); }
void AdaGrad::Step(int index, const NDArray& weight, const NDArray& grad,
                   std::vector<NDArray>& state, const NDArray&) {
  double lr_d = get_lr(index), wd_d = get_wd(index);
  ElementLoop("adagrad", weight, grad, state, [&](auto* w, const auto* g, auto** st, int64_t n) {
    using T = std::remove_pointer_t<decltype(w)>;
    using A = AccType<T>;
    const A rg = static_cast<A>(rescale_grad_), lr = static_cast<A>(lr_d),
            wd = static_cast<A>(wd_d), eps = static_cast<A>(eps_);
    const bool clip = clip_gradient_.has_value();
    const A c = static_cast<A>(clip_gradient_.value_or(0));
    T* hist = st[0];
    ParallelForRange(n, 16384, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        A gi = A(g[i]) * rg;
        if (clip) gi = ClipTo(gi, c);
        A h = A(hist[i]) + gi * gi;
        hist[i] = static_cast<T>(h);
        A div = gi / std::sqrt(A(hist[i]) + eps);
        A wi = A(w[i]);
        w[i] = static_cast<T>(wi + (div + wi * wd) * -lr);
      }
    });
  });
}
std::map<std::string, double> AdaGrad::HyperParams() const { return {{"eps", eps_}}; }
void AdaGrad::SetHyperParams(const std::map<std::string, double>& h) {
  eps_ = Lookup(h, "eps", eps_);
}

// ---- AdaDelta ----
AdaDelta::AdaDelta(const Kwargs& kwargs) : AdaDelta(KwargReader("adadelta", kwargs)) {}
AdaDelta::AdaDelta(KwargReader&& kw)
    : Optimizer("adadelta", kw, std::nullopt),
      rho_(kw.Double("rho", 0.9)),
      epsilon_(kw.Double("epsilon", 1e-5)) {
  kw.Finish();
}
std::vector<NDArray> AdaDelta::CreateStateArrays(int, const NDArray& w) { return Zeros(w, 2); }
void AdaDelta::Step(int index, const NDArray& weight, const NDArray& grad,
                    std::vector<NDArray>& state, const NDArray&) {
  double wd_d = get_wd(index);
  ElementLoop("adadelta", weight, grad, state, [&](auto* w, const auto* g, auto** st, int64_t n) {
    using T = std::remove_pointer_t<decltype(w)>;
    using A = AccType<T>;
    const A rg = static_cast<A>(rescale_grad_), wd = static_cast<A>(wd_d);
    const A rho = static_cast<A>(rho_), one_m_rho = static_cast<A>(1.0 - rho_),
            eps = static_cast<A>(epsilon_);
    const bool clip = clip_gradient_.has_value();
    const A c = static_cast<A>(clip_gradient_.value_or(0));
    T* acc_g = st[0];
    T* acc_d = st[1];
    ParallelForRange(n, 16384, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        A gi = A(g[i]) * rg;
        if (clip) gi = ClipTo(gi, c);
        A ag = A(acc_g[i]) * rho;
        ag = ag + one_m_rho * gi * gi;
        acc_g[i] = static_cast<T>(ag);
        A delta = std::sqrt(A(acc_d[i]) + eps) / std::sqrt(A(acc_g[i]) + eps) * gi;
        A ad = A(acc_d[i]) * rho;
        ad = ad + one_m_rho * delta * delta;
        acc_d[i] = static_cast<T>(ad);
        A wi = A(w[i]);
        w[i] = static_cast<T>(wi - (delta + wd * wi));
      }
    });
  });
}
std::map<std::string, double> AdaDelta::HyperParams() const {
  return {{"rho", rho_}, {"epsilon", epsilon_}};
}
void AdaDelta::SetHyperParams(const std::map<std::string, double>& h) {
  rho_ = Lookup(h, "rho", rho_);
  epsilon_ = Lookup(h, "epsilon", epsilon_);
}

// ---- Adamax ----
Adamax::Adamax(const Kwargs& kwargs) : Adamax(KwargReader("adamax", kwargs)) {}
Adamax::Adamax(KwargReader&& kw)
    : Optimizer("adamax", kw, 0.002),
      beta1_(kw.Double("beta1", 0.9)),
      beta2_(kw.Double("beta2", 0.999)) {
  kw.Finish();
}
std::vector<NDArray> Adamax::CreateStateArrays(int, const NDArray& w) { return Zeros(w, 2); }
void Adamax::Step(int index, const NDArray& weight, const NDArray& grad,
                  std::vector<NDArray>& state, const NDArray&) {
  double lr_d = get_lr(index), wd_d = get_wd(index);
  double t = static_cast<double>(Count(index));
  lr_d /= 1.0 - std::pow(beta1_, t);
  ElementLoop("adamax", weight, grad, state, [&](auto* w, const auto* g, auto** st, int64_t n) {
    using T = std::remove_pointer_t<decltype(w)>;
    using A = AccType<T>;
    const A rg = static_cast<A>(rescale_grad_), wd = static_cast<A>(wd_d),
            lr = static_cast<A>(lr_d);
    const A b1 = static_cast<A>(beta1_), one_m_b1 = static_cast<A>(1.0 - beta1_),
            b2 = static_cast<A>(beta2_);
    const bool clip = clip_gradient_.has_value();
    const A c = static_cast<A>(clip_gradient_.value_or(0));
    T* m = st[0];
    T* u = st[1];
    ParallelForRange(n, 16384, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        A wi = A(w[i]);
        A gi = A(g[i]) * rg + wi * wd;
        if (clip) gi = ClipTo(gi, c);
        A mi = A(m[i]) * b1;
        mi = mi + one_m_b1 * gi;
        m[i] = static_cast<T>(mi);
        u[i] = static_cast<T>(std::max(A(u[i]) * b2, std::fabs(gi)));
        w[i] = static_cast<T>(wi - A(m[i]) * lr / A(u[i]));
      }
    });
  });
}
std::map<std::string, double> Adamax::HyperParams() const {
  return {{"beta1", beta1_}, {"beta2", beta2_}};
}
void Adamax::SetHyperParams(const std::map<std::string, double>& h) {
  beta1_ = Lookup(h, "beta1", beta1_);
  beta2_ = Lookup(h, "beta2", beta2_);
}

// ---- Nadam ----
Nadam::Nadam(const Kwargs& kwargs) : Nadam(KwargReader("nadam", kwargs)) {}
Nadam::Nadam(KwargReader&& kw)
    : Optimizer("nadam", kw, 0.001),
      beta1_(kw.Double("beta1", 0.9)),
      beta2_(kw.Double("beta2", 0.999)),
      epsilon_(kw.Double("epsilon", 1e-8)),
      schedule_decay_(kw.Double("schedule_decay", 0.004)) {
  kw.Finish();
}
std::vector<NDArray> Nadam::CreateStateArrays(int, const NDArray& w) { return Zeros(w, 2); }
void Nadam::Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
                 const NDArray&) {
  double lr_d = get_lr(index), wd_d = get_wd(index);
  double t = static_cast<double>(Count(index));
  double momentum_t = beta1_ * (1.0 - 0.5 * std::pow(0.96, t * schedule_decay_));
  double momentum_t_1 = beta1_ * (1.0 - 0.5 * std::pow(0.96, (t + 1) * schedule_decay_));
  m_schedule_ = m_schedule_ * momentum_t;
  double m_schedule_next = m_schedule_ * momentum_t_1;
  double m_sched = m_schedule_;
  ElementLoop("nadam", weight, grad, state, [&](auto* w, const auto* g, auto** st, int64_t n) {
    using T = std::remove_pointer_t<decltype(w)>;
    using A = AccType<T>;
    const A rg = static_cast<A>(rescale_grad_), wd = static_cast<A>(wd_d),
            lr = static_cast<A>(lr_d), eps = static_cast<A>(epsilon_);
    const A b1 = static_cast<A>(beta1_), one_m_b1 = static_cast<A>(1.0 - beta1_);
    const A b2 = static_cast<A>(beta2_), one_m_b2 = static_cast<A>(1.0 - beta2_);
    const A d_grad = static_cast<A>(1.0 - m_sched), d_m = static_cast<A>(1.0 - m_schedule_next);
    const A d_v = static_cast<A>(1.0 - std::pow(beta2_, t));
    const A c_grad = static_cast<A>(1.0 - momentum_t), c_m = static_cast<A>(momentum_t_1);
    const bool clip = clip_gradient_.has_value();
    const A c = static_cast<A>(clip_gradient_.value_or(0));
    T* m = st[0];
    T* v = st[1];
    ParallelForRange(n, 16384, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        A wi = A(w[i]);
        A gi = A(g[i]) * rg + wi * wd;
        if (clip) gi = ClipTo(gi, c);
        A mi = A(m[i]) * b1;
        mi = mi + one_m_b1 * gi;
        m[i] = static_cast<T>(mi);
        A vi = A(v[i]) * b2;
        vi = vi + one_m_b2 * gi * gi;
        v[i] = static_cast<T>(vi);
        A g_prime = gi / d_grad;
        A m_prime = A(m[i]) / d_m;
        A v_prime = A(v[i]) / d_v;
        A m_bar = c_grad * g_prime + c_m * m_prime;
        w[i] = static_cast<T>(wi - lr * m_bar / (std::sqrt(v_prime) + eps));
      }
    });
  });
}
void Nadam::SetExtraState(const std::map<std::string, double>& s) {
  m_schedule_ = Lookup(s, "m_schedule", m_schedule_);
}
std::map<std::string, double> Nadam::HyperParams() const {
  return {{"beta1", beta1_},
          {"beta2", beta2_},
          {"epsilon", epsilon_},
          {"schedule_decay", schedule_decay_}};
}
void Nadam::SetHyperParams(const std::map<std::string, double>& h) {
  beta1_ = Lookup(h, "beta1", beta1_);
  beta2_ = Lookup(h, "beta2", beta2_);
  epsilon_ = Lookup(h, "epsilon", epsilon_);
  schedule_decay_ = Lookup(h, "schedule_decay", schedule_decay_);
}

// ---- LAMB ----
LAMB::LAMB(const Kwargs& kwargs) : LAMB(KwargReader("lamb", kwargs)) {}
LAMB::LAMB(KwargReader&& kw)
    : Optimizer("lamb", kw, 0.001),
      beta1_(kw.Double("beta1", 0.9)),
      beta2_(kw.Double("beta2", 0.999)),
      epsilon_(kw.Double("epsilon", 1e-6)),
      lower_bound_(kw.OptDouble("lower_bound")),
      upper_bound_(kw.OptDouble("upper_bound")),
      bias_correction_(kw.Bool("bias_correction", true)) {
  kw.Finish();
}
std::vector<NDArray> LAMB::CreateStateArrays(int, const NDArray& w) { return Zeros(w, 2); }
void LAMB::Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
                const NDArray& weight32) {
  double lr = get_lr(index), wd = get_wd(index);
  nd::LambPhase1Options p1{.beta1 = static_cast<float>(beta1_),
                           .beta2 = static_cast<float>(beta2_),
                           .epsilon = static_cast<float>(epsilon_),
                           .t = static_cast<int>(Count(index)),
                           .bias_correction = bias_correction_,
                           .wd = static_cast<float>(wd),
                           .rescale_grad = static_cast<float>(rescale_grad_),
                           .clip_gradient = FusedClip()};
  // MXNet passes the bounds only when truthy (`if self.lower_bound:`).
  nd::LambPhase2Options p2{.lr = static_cast<float>(lr)};
  if (lower_bound_ && *lower_bound_ != 0) p2.lower_bound = static_cast<float>(*lower_bound_);
  if (upper_bound_ && *upper_bound_ != 0) p2.upper_bound = static_cast<float>(*upper_bound_);
  if (weight32.is_none()) {
    NDArray g = nd::lamb_update_phase1(weight, grad, state.at(0), state.at(1), p1);
    NDArray r1 = OneElement(std::sqrt(SumSquares(weight)), weight, weight.dtype());
    NDArray r2 = OneElement(std::sqrt(SumSquares(g)), weight, weight.dtype());
    nd::lamb_update_phase2(weight, g, r1, r2, p2, weight);
  } else {
    NDArray g = nd::mp_lamb_update_phase1(weight, grad, state.at(0), state.at(1), weight32, p1);
    NDArray r1 = OneElement(std::sqrt(SumSquares(weight32)), weight, DType::kFloat32);
    NDArray r2 = OneElement(std::sqrt(SumSquares(g)), weight, DType::kFloat32);
    nd::mp_lamb_update_phase2(weight, g, r1, r2, weight32, p2, weight);
  }
}
std::map<std::string, double> LAMB::HyperParams() const {
  return {{"beta1", beta1_},
          {"beta2", beta2_},
          {"epsilon", epsilon_},
          {"lower_bound", OptOrNaN(lower_bound_)},
          {"upper_bound", OptOrNaN(upper_bound_)},
          {"bias_correction", bias_correction_ ? 1.0 : 0.0}};
}
void LAMB::SetHyperParams(const std::map<std::string, double>& h) {
  beta1_ = Lookup(h, "beta1", beta1_);
  beta2_ = Lookup(h, "beta2", beta2_);
  epsilon_ = Lookup(h, "epsilon", epsilon_);
  lower_bound_ = NaNToOpt(Lookup(h, "lower_bound", OptOrNaN(lower_bound_)));
  upper_bound_ = NaNToOpt(Lookup(h, "upper_bound", OptOrNaN(upper_bound_)));
  bias_correction_ = Lookup(h, "bias_correction", bias_correction_ ? 1.0 : 0.0) != 0.0;
}

// ---- Signum ----
Signum::Signum(const Kwargs& kwargs) : Signum(KwargReader("signum", kwargs)) {}
Signum::Signum(KwargReader&& kw)
    : Optimizer("signum", kw, 0.01),
      momentum_(kw.Double("momentum", 0.9)),
      wd_lh_(kw.Double("wd_lh", 0.0)) {
  kw.Finish();
}
std::vector<NDArray> Signum::CreateStateArrays(int, const NDArray& w) {
  return {momentum_ != 0.0 ? ZerosLike(w) : NDArray()};
}
void Signum::Step(int index, const NDArray& weight, const NDArray& grad,
                  std::vector<NDArray>& state, const NDArray&) {
  float lr = static_cast<float>(get_lr(index)), wd = static_cast<float>(get_wd(index));
  const NDArray& m = state.at(0);
  if (!m.is_none())
    nd::signum_update(weight, grad, m,
                      {.lr = lr,
                       .momentum = momentum_ > 0 ? static_cast<float>(momentum_) : 0.0f,
                       .wd = wd,
                       .rescale_grad = static_cast<float>(rescale_grad_),
                       .clip_gradient = FusedClip(),
                       .wd_lh = static_cast<float>(wd_lh_)},
                      weight);
  else
    nd::signsgd_update(weight, grad,
                       {.lr = lr,
                        .wd = wd,
                        .rescale_grad = static_cast<float>(rescale_grad_),
                        .clip_gradient = FusedClip()},
                       weight);
}
std::map<std::string, double> Signum::HyperParams() const {
  return {{"momentum", momentum_}, {"wd_lh", wd_lh_}};
}
void Signum::SetHyperParams(const std::map<std::string, double>& h) {
  momentum_ = Lookup(h, "momentum", momentum_);
  wd_lh_ = Lookup(h, "wd_lh", wd_lh_);
}

// ---- Ftrl ----
// Ftrl captures learning_rate itself (default 0.1), so Optimizer's constructor sees None and a
// scheduler keeps its base_lr, as in MXNet.
Ftrl::Ftrl(const Kwargs& kwargs) : Ftrl(KwargReader("ftrl", kwargs)) {}
Ftrl::Ftrl(KwargReader&& kw)
    : Optimizer("ftrl", kw, std::nullopt, /*lr_to_base=*/false),
      lamda1_(kw.Double("lamda1", 0.01)),
      beta_(kw.Double("beta", 1.0)) {
  OverrideLr(kw.OptDouble("learning_rate", 0.1));
  kw.Finish();
}
std::vector<NDArray> Ftrl::CreateStateArrays(int, const NDArray& w) { return Zeros(w, 2); }
void Ftrl::Step(int index, const NDArray& weight, const NDArray& grad, std::vector<NDArray>& state,
                const NDArray&) {
  float wd = static_cast<float>(get_wd(index)), lr = static_cast<float>(get_lr(index));
  nd::ftrl_update(weight, grad, state.at(0), state.at(1),
                  {.lr = lr,
                   .lamda1 = static_cast<float>(lamda1_),
                   .beta = static_cast<float>(beta_),
                   .wd = wd,
                   .rescale_grad = static_cast<float>(rescale_grad_),
                   .clip_gradient = FusedClip()},
                  weight);
}
std::map<std::string, double> Ftrl::HyperParams() const {
  return {{"lamda1", lamda1_}, {"beta", beta_}};
}
void Ftrl::SetHyperParams(const std::map<std::string, double>& h) {
  lamda1_ = Lookup(h, "lamda1", lamda1_);
  beta_ = Lookup(h, "beta", beta_);
}

// ---------------------------------------------------------------------------------------------
// Registry
// ---------------------------------------------------------------------------------------------
namespace {
template <typename C>
OptimizerPtr Make(const Kwargs& kw) {
  return std::make_shared<C>(kw);
}
struct Registry {
  std::mutex mu;
  std::map<std::string, Factory> factories;
};
Registry& GetRegistry() {
  static Registry* r = [] {
    auto* reg = new Registry();
    reg->factories = {
        {"sgd", Make<SGD>},           {"nag", Make<NAG>},         {"adam", Make<Adam>},
        {"adamw", Make<AdamW>},       {"rmsprop", Make<RMSProp>}, {"adagrad", Make<AdaGrad>},
        {"adadelta", Make<AdaDelta>}, {"adamax", Make<Adamax>},   {"nadam", Make<Nadam>},
        {"lamb", Make<LAMB>},         {"signum", Make<Signum>},   {"ftrl", Make<Ftrl>},
    };
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
