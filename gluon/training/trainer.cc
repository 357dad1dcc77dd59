#include "gluon/training/trainer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "autograd/grad_hooks.h"
#include "base/error.h"
#include "base/strings.h"
#include "ndarray/io.h"
#include "ndarray/ops/core/basic_api.h"

namespace mxnet::gluon {
namespace {

using json = nlohmann::json;
constexpr char kMetaName[] = "__trainer_states__";
constexpr char kFormat[] = "mxnet-cc-trainer-states";

std::pair<int, int> Key(const Device& d) { return {static_cast<int>(d.type), d.id}; }

// A copy whose gradient backward wrote since that copy's last update (MXNet's _fresh_grad).
bool IsFresh(const NDArray& data) { return data.fresh_grad(); }

// After an update the gradient is stale until the next backward writes it.
void MarkConsumed(const NDArray& data) {
  if (!data.grad().is_none()) data.set_fresh_grad(false);
}

std::vector<ParameterPtr> SortedParams(const ParameterDict& dict) {
  std::vector<std::pair<std::string, ParameterPtr>> items(dict.items().begin(), dict.items().end());
  std::sort(items.begin(), items.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ParameterPtr> out;
  for (auto& [k, p] : items) out.push_back(p);
  return out;
}

optimizer::State CopyState(const optimizer::State& s, Device d) {
  optimizer::State out;
  for (const NDArray& a : s.arrays) out.arrays.push_back(a.is_none() ? NDArray() : a.copyto(d));
  if (!s.weight32.is_none()) out.weight32 = s.weight32.copyto(d);
  return out;
}

}  // namespace

Trainer::Trainer(const ParameterDict& params, const std::string& optimizer,
                 const Kwargs& optimizer_params, TrainerOptions options)
    : kv_options_(std::move(options)) {
  Init(SortedParams(params), optimizer::Create(optimizer, optimizer_params));
}
Trainer::Trainer(const ParameterDict& params, optimizer::OptimizerPtr optimizer,
                 TrainerOptions options)
    : kv_options_(std::move(options)) {
  Init(SortedParams(params), std::move(optimizer));
}
Trainer::Trainer(std::vector<ParameterPtr> params, const std::string& optimizer,
                 const Kwargs& optimizer_params, TrainerOptions options)
    : kv_options_(std::move(options)) {
  Init(std::move(params), optimizer::Create(optimizer, optimizer_params));
}
Trainer::Trainer(std::vector<ParameterPtr> params, optimizer::OptimizerPtr optimizer,
                 TrainerOptions options)
    : kv_options_(std::move(options)) {
  Init(std::move(params), std::move(optimizer));
}

void Trainer::Init(std::vector<ParameterPtr> params, optimizer::OptimizerPtr opt) {
  if (!opt) MX_THROW(absl::StatusCode::kInvalidArgument, "Trainer: the optimizer is null");
  std::set<const Parameter*> seen;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i])
      MX_THROW(absl::StatusCode::kInvalidArgument, "Trainer: parameter ", i, " is null");
    if (!seen.insert(params[i].get()).second)
      MX_THROW(absl::StatusCode::kInvalidArgument, "Trainer: parameter '", params[i]->name(),
               "' is listed twice");
  }
  params_ = std::move(params);
  optimizer_ = std::move(opt);
  std::map<int, ParameterPtr> dict;
  for (size_t i = 0; i < params_.size(); ++i) dict[static_cast<int>(i)] = params_[i];
  optimizer_->set_param_dict(std::move(dict));
  scale_ = optimizer_->rescale_grad();
}

std::vector<Device> Trainer::CheckDevices() const {
  std::vector<Device> devices;
  const Parameter* first = nullptr;
  for (const auto& p : params_) {
    if (!p->is_initialized()) continue;  // list_data() reports it if it is ever updated
    std::vector<Device> d = p->list_device();
    if (!first) {
      devices = d;
      first = p.get();
    } else if (d != devices) {
      MX_THROW(absl::StatusCode::kInvalidArgument,
               "All Parameters must be initialized on the same set of devices, but Parameter '",
               p->name(), "' is initialized on [", StrJoin(d, ", "), "] while '", first->name(),
               "' is on [", StrJoin(devices, ", "), "]");
    }
  }
  return devices;
}

void Trainer::step(double batch_size, bool ignore_stale_grad) {
  if (!(batch_size > 0))
    MX_THROW(absl::StatusCode::kInvalidArgument, "Trainer::step: batch_size must be positive, got ",
             batch_size);
  InitKVStore();
  optimizer_->set_rescale_grad(scale_ / GlobalBatch(batch_size));
  AllreduceGrads(ignore_stale_grad);
  Update(ignore_stale_grad);
}

void Trainer::update(double batch_size, bool ignore_stale_grad) {
  if (!(batch_size > 0))
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "Trainer::update: batch_size must be positive, got ", batch_size);
  InitKVStore();
  if (update_on_kvstore_)
    MX_THROW(absl::StatusCode::kFailedPrecondition,
             "update() when parameters are updated on kvstore is not supported. Try setting "
             "`update_on_kvstore` to False when creating trainer.");
  optimizer_->set_rescale_grad(scale_ / GlobalBatch(batch_size));
  Update(ignore_stale_grad);
}

void Trainer::allreduce_grads() {
  InitKVStore();
  if (update_on_kvstore_)
    MX_THROW(absl::StatusCode::kFailedPrecondition,
             "allreduce_grads() when parameters are updated on kvstore is not supported. Try "
             "setting `update_on_kvstore` to False when creating trainer.");
  AllreduceGrads(false);
}

void Trainer::CheckFresh() const {
  for (const auto& p : params_) {
    if (p->grad_req() == GradReq::kNull) continue;
    for (const NDArray& d : p->list_data())
      if (!IsFresh(d))
        MX_THROW(absl::StatusCode::kFailedPrecondition, "Gradient of Parameter `", p->name(),
                 "` on context ", d.device().ToString(),
                 " has not been updated by backward since last `step`. This could mean a bug "
                 "in your model that made it only use a subset of the Parameters (Blocks) for "
                 "this iteration. If you are intentionally only using a subset, call step with "
                 "ignore_stale_grad=True to suppress this warning and skip updating of "
                 "Parameters with stale gradient");
  }
}

namespace {
// (NaN count, Inf count, first flat index of either: -1 when all finite) of a float array.
struct NonFinite {
  int64_t nan = 0, inf = 0, first = -1;
};
template <typename T>
void Count(const std::vector<T>& v, NonFinite* r) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isfinite(v[i])) continue;
    (std::isnan(v[i]) ? r->nan : r->inf)++;
    if (r->first < 0) r->first = static_cast<int64_t>(i);
  }
}
NonFinite CountNonFinite(const NDArray& x) {
  NonFinite r;
  if (x.is_none() || !IsFloatingPoint(x.dtype())) return r;
  if (x.dtype() == DType::kFloat64)
    Count(x.ToVector<double>(), &r);
  else
    Count(x.ToVector<float>(), &r);  // float16/bfloat16 convert exactly
  return r;
}
}  // namespace

void Trainer::check_loss(const NDArray& loss) const {
  NonFinite n = CountNonFinite(loss);
  if (n.first >= 0)
    MX_THROW(absl::StatusCode::kOutOfRange, "Trainer step ", optimizer_->num_update() + 1,
             ": the loss ", loss.shape().ToString(), " has ", n.nan, " NaN and ", n.inf,
             " Inf values (first at flat index ", n.first, ")");
}

void Trainer::CheckFinite(const std::vector<std::pair<int, NDArray>>& grads) const {
  std::string first;
  std::set<int> affected;
  for (const auto& [i, g] : grads) {
    if (affected.count(i)) continue;
    NonFinite n = CountNonFinite(g);
    if (n.first < 0) continue;
    affected.insert(i);
    if (first.empty()) {
      const ParameterPtr& p = params_[i];
      first = StrCat("the gradient of Parameter ", i, " '", p->name(), "' ", p->shape().ToString(),
                     " on ", g.device().ToString(),
                     update_on_kvstore_ ? " (summed by the kvstore)" : "", " has ", n.nan,
                     " NaN and ", n.inf, " Inf values (first at flat index ", n.first, ")");
    }
  }
  if (!affected.empty())
    MX_THROW(absl::StatusCode::kOutOfRange, "Trainer step ", optimizer_->num_update() + 1, ": ",
             first, "; ", affected.size(), " of ", params_.size(),
             " parameters have non-finite gradients; nothing was updated");
}

void Trainer::Update(bool ignore_stale_grad) {
  CheckDevices();
  // Before anything is updated. With update_on_kvstore the store's push check did it on the
  // summed gradients before the store updated (InitKVStore).
  if (check_finite_ && !update_on_kvstore_) {
    std::vector<std::pair<int, NDArray>> grads;
    for (size_t i = 0; i < params_.size(); ++i) {
      const ParameterPtr& p = params_[i];
      if (p->grad_req() == GradReq::kNull || !p->is_initialized()) continue;
      for (const NDArray& w : p->list_data()) {
        if (ignore_stale_grad && !IsFresh(w)) continue;
        grads.emplace_back(static_cast<int>(i), w.grad());
      }
    }
    CheckFinite(grads);
  }
  // Check every parameter before updating any, so an error leaves the model untouched.
  if (!ignore_stale_grad) CheckFresh();
  if (update_on_kvstore_) {  // the store updated its weights at push: pull them
    for (size_t i = 0; i < params_.size(); ++i) {
      const ParameterPtr& p = params_[i];
      if (p->grad_req() == GradReq::kNull || !p->is_initialized()) continue;
      std::vector<NDArray> data = p->list_data();
      if (ignore_stale_grad && !IsFresh(data[0])) continue;
      kv_->pull(static_cast<int>(i), data, -static_cast<int>(i));
      for (const NDArray& w : data) MarkConsumed(w);
    }
    return;
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    const ParameterPtr& p = params_[i];
    if (p->grad_req() == GradReq::kNull) continue;
    int index = static_cast<int>(i);
    std::vector<NDArray> data = p->list_data();
    for (const NDArray& w : data) {
      if (ignore_stale_grad && !IsFresh(w)) continue;
      NDArray g = w.grad();
      auto& table = states_[Key(w.device())];
      auto it = table.find(index);
      if (it == table.end()) {
        auto pend = pending_.find(index);
        optimizer::State st = pend != pending_.end()
                                  ? CopyState(pend->second, w.device())
                                  : optimizer_->create_state_multi_precision(index, w);
        it = table.emplace(index, std::move(st)).first;
      }
      optimizer_->update_multi_precision(index, w, g, it->second);
      MarkConsumed(w);
    }
  }
}

// ---- KVStore ----

void Trainer::InitKVStore() {
  std::vector<Device> devices = CheckDevices();
  if (!kv_initialized_) {
    kv_initialized_ = true;
    if (auto* name = std::get_if<std::string>(&kv_options_.kvstore)) {
      const bool single_process = *name == "local" || *name == "device" || *name == "nccl";
      if (!name->empty() && !(single_process && devices.size() <= 1)) kv_ = kvstore::create(*name);
    } else {
      kv_ = std::get<kvstore::KVStorePtr>(kv_options_.kvstore);
    }
    const bool capable = kv_ && kv_->is_capable(kvstore::Capability::kOptimizer);
    if (kv_options_.update_on_kvstore.value_or(false) && !capable)
      MX_THROW(absl::StatusCode::kInvalidArgument,
               "Please set update_on_kvstore=False when training with kvstore ",
               kv_ ? "'" + kv_->type() + "'" : std::string("None"));
    update_on_kvstore_ = kv_ && kv_options_.update_on_kvstore.value_or(false);
    if (kv_ && !kv_options_.compression_params.empty())
      kv_->set_gradient_compression(kv_options_.compression_params);
    if (update_on_kvstore_) {
      // The store runs this Trainer's optimizer on its copy, with the states kept here.
      kv_->set_updater([this](int index, const NDArray& grad, const NDArray& weight) {
        auto& table = states_[Key(weight.device())];
        auto it = table.find(index);
        if (it == table.end()) {
          auto pend = pending_.find(index);
          optimizer::State st = pend != pending_.end()
                                    ? CopyState(pend->second, weight.device())
                                    : optimizer_->create_state_multi_precision(index, weight);
          it = table.emplace(index, std::move(st)).first;
        }
        optimizer_->update_multi_precision(index, weight, grad, it->second);
      });
      // The finite check on the summed gradients, before the store updates any weight.
      kv_->set_push_check([this](const std::vector<int>& keys, const std::vector<NDArray>& merged) {
        if (!check_finite_) return;
        std::vector<std::pair<int, NDArray>> grads;
        for (size_t k = 0; k < keys.size(); ++k) grads.emplace_back(keys[k], merged[k]);
        CheckFinite(grads);
      });
    }
    kv_has_key_.assign(params_.size(), false);
  }
  if (!kv_) return;
  // Parameters initialized since the last call: everyone takes the store's (rank 0's) value.
  for (size_t i = 0; i < params_.size(); ++i) {
    if (kv_has_key_[i] || !params_[i]->is_initialized()) continue;
    std::vector<NDArray> data = params_[i]->list_data();
    kv_->broadcast(static_cast<int>(i), data[0], data, -static_cast<int>(i));
    kv_has_key_[i] = true;
  }
}

double Trainer::GlobalBatch(double batch_size) {
  return kv_ && kv_->num_workers() > 1 ? kv_->sum_across_workers(batch_size) : batch_size;
}

void Trainer::AllreduceGrads(bool ignore_stale_grad) {
  if (!kv_) return;
  if (!overlap_ && kv_initialized_) InitOverlap();
  if (update_on_kvstore_ && !ignore_stale_grad) CheckFresh();  // before the store updates
  std::vector<int> keys;
  std::vector<std::vector<NDArray>> grads;
  for (size_t i = 0; i < params_.size(); ++i) {
    const ParameterPtr& p = params_[i];
    if (p->grad_req() == GradReq::kNull || !p->is_initialized()) continue;
    if (update_on_kvstore_ && ignore_stale_grad && !IsFresh(p->list_data()[0])) continue;
    keys.push_back(static_cast<int>(i));
    grads.push_back(p->list_grad());
  }
  if (keys.empty()) return;
  if (update_on_kvstore_) {
    kv_->push(keys, grads);  // all sums (and the finite check) before any update
  } else if (!OverlapAllreduce()) {
    kv_->pushpull(keys, grads);  // in place, all keys in one call (bucketed across processes)
  }
}

// ---- Overlapped allreduce (see trainer.h) ----

struct Trainer::Overlap {
  kvstore::KVStorePtr kv;
  int64_t hook = 0;
  // Layout: the keys pushpull would get, their gradients, and pushpull's buckets over them.
  std::vector<int> keys;
  std::vector<NDArray> grads;
  std::vector<const void*> grad_ids;  // to notice reallocated buffers (`grads` keeps them alive)
  std::vector<std::pair<size_t, size_t>> buckets;
  std::unordered_map<const void*, size_t> slot_of;  // parameter data (NDArray::id) -> slot
  std::vector<size_t> bucket_of;                    // per slot
  std::vector<char> accumulates;                    // per slot: grad_req add
  // This step's state.
  std::vector<char> ready;      // per slot
  std::vector<int> missing;     // per bucket: slots not ready yet
  std::vector<int64_t> ticket;  // per bucket: 0 = not started
  std::vector<char> dirty;      // per bucket: a gradient changed after the start
  size_t started = 0;           // buckets started, in start order (descending index)
  OverlapStats stats;

  ~Overlap() {
    if (hook) autograd::RemoveGradReadyHook(hook);
    // Buckets a backward started after the last step: complete them (every process does the
    // same) so that no collective is left pending.
    try {
      Abandon();
    } catch (...) {
    }
  }
  size_t StartOrder(size_t n) const { return buckets.size() - 1 - n; }
  void Reset() {
    ready.assign(keys.size(), 0);
    missing.assign(buckets.size(), 0);
    for (size_t b = 0; b < buckets.size(); ++b)
      for (size_t s = buckets[b].first; s < buckets[b].second; ++s)
        missing[b] += 1 + accumulates[s];  // grad_req add: never ready during backward
    ticket.assign(buckets.size(), 0);
    dirty.assign(buckets.size(), 0);
    started = 0;
  }
  void Start(size_t b) {
    std::vector<NDArray> arrays(grads.begin() + static_cast<std::ptrdiff_t>(buckets[b].first),
                                grads.begin() + static_cast<std::ptrdiff_t>(buckets[b].second));
    const size_t k = buckets[b].first, e = buckets[b].second;
    ticket[b] = kv->start_allreduce(
        arrays, e - k == 1 ? StrCat("allreduce of key ", keys[k])
                           : StrCat("allreduce of keys ", keys[k], "..", keys[e - 1]));
  }
  // The gradient-ready hook.
  void OnReady(const NDArray& v) {
    auto it = slot_of.find(v.id());
    if (it == slot_of.end()) return;
    const size_t s = it->second, b = bucket_of[s];
    if (ticket[b]) {
      dirty[b] = 1;  // written again after its allreduce started: redone at step
      return;
    }
    if (!ready[s] && !accumulates[s]) {
      ready[s] = 1;
      --missing[b];
    }
    while (started < buckets.size() && missing[StartOrder(started)] == 0) {
      Start(StartOrder(started++));
      ++stats.started_in_backward;
    }
    kv->progress();
  }
  // At step: starts what is left (in order), redoes dirty buckets, waits for all.
  void Finish() {
    for (size_t n = 0; n < buckets.size(); ++n) {
      const size_t b = StartOrder(n);
      if (ticket[b] && dirty[b]) {
        kv->wait_allreduce(ticket[b], /*write_back=*/false);
        Start(b);
        ++stats.redone;
      } else if (!ticket[b]) {
        Start(b);
        ++stats.started_at_step;
      }
    }
    for (size_t n = 0; n < buckets.size(); ++n) kv->wait_allreduce(ticket[StartOrder(n)]);
    Reset();
  }
  // Waits for in-flight buckets without using them (the layout changes).
  void Abandon() {
    for (size_t n = 0; n < buckets.size(); ++n)
      if (ticket[StartOrder(n)]) kv->wait_allreduce(ticket[StartOrder(n)], false);
    Reset();
  }
};

namespace {
bool OverlapWanted(const std::optional<bool>& option) {
  if (option.has_value()) return *option;
  const char* e = std::getenv("MXNET_KVSTORE_OVERLAP");
  return !(e && std::string(e) == "0");
}
}  // namespace

void Trainer::InitOverlap() {
  if (!kv_ || update_on_kvstore_ || !kv_->supports_async_allreduce() ||
      kv_->gradient_compression().active() || !OverlapWanted(kv_options_.overlap_allreduce))
    return;
  overlap_ = std::make_shared<Overlap>();
  overlap_->kv = kv_;
  Overlap* o = overlap_.get();
  overlap_->hook = autograd::AddGradReadyHook([o](const NDArray& v) { o->OnReady(v); });
}

Trainer::OverlapStats Trainer::overlap_stats() const {
  return overlap_ ? overlap_->stats : OverlapStats{};
}

// The overlapped path of AllreduceGrads; false when it does not apply (pushpull then).
bool Trainer::OverlapAllreduce() {
  if (!overlap_) return false;
  Overlap& o = *overlap_;
  // The current layout: as AllreduceGrads' keys (grad_req not null, initialized).
  std::vector<int> keys;
  std::vector<NDArray> grads;
  std::vector<const void*> ids;
  std::vector<char> accumulates;
  bool eligible = true;
  for (size_t i = 0; i < params_.size(); ++i) {
    const ParameterPtr& p = params_[i];
    if (p->grad_req() == GradReq::kNull || !p->is_initialized()) continue;
    std::vector<NDArray> g = p->list_grad();
    const NDArray w = p->list_data()[0];
    eligible = eligible && g.size() == 1 && g[0].device().is_cpu() && g[0].dtype() == w.dtype() &&
               (g[0].dtype() == DType::kFloat32 || g[0].dtype() == DType::kFloat64);
    keys.push_back(static_cast<int>(i));
    grads.push_back(g[0]);
    ids.push_back(g[0].id());
    accumulates.push_back(p->grad_req() == GradReq::kAdd);
  }
  if (keys != o.keys || ids != o.grad_ids || accumulates != o.accumulates) {
    // New layout (first step, deferred initialization, reallocated gradients): the same on every
    // process, as it is built from the same parameters at the same step.
    o.Abandon();
    o.keys = keys;
    o.grads = grads;
    o.grad_ids = ids;
    o.buckets = eligible ? kvstore::KVStore::buckets(grads, kvstore::KVStore::bucket_bytes())
                         : std::vector<std::pair<size_t, size_t>>{};
    o.slot_of.clear();
    o.bucket_of.assign(keys.size(), 0);
    o.accumulates = accumulates;
    for (size_t b = 0; b < o.buckets.size(); ++b)
      for (size_t s = o.buckets[b].first; s < o.buckets[b].second; ++s) {
        o.slot_of[params_[keys[s]]->list_data()[0].id()] = s;
        o.bucket_of[s] = b;
      }
    o.Reset();
  }
  if (o.buckets.empty()) return keys.empty();  // not eligible: pushpull
  o.Finish();
  return true;
}

double Trainer::learning_rate() { return optimizer_->learning_rate(); }

void Trainer::set_learning_rate(double lr) { optimizer_->set_learning_rate(lr); }

absl::Status Trainer::save_states(const std::string& fname) const {
  absl::StatusOr<std::vector<std::pair<std::string, NDArray>>> records = states_records();
  if (!records.ok()) return records.status();
  return nd::save(fname, *records);
}

absl::StatusOr<std::vector<std::pair<std::string, NDArray>>> Trainer::states_records() const {
  std::vector<std::pair<std::string, NDArray>> arrays;
  absl::Status st = StatusFromCall([&] {
    // The first device's states (MXNet saves updaters[0]); loaded-but-unused ones otherwise.
    std::vector<Device> devices = CheckDevices();
    const std::map<int, optimizer::State>* states = nullptr;
    if (!devices.empty()) {
      auto it = states_.find(Key(devices[0]));
      if (it != states_.end()) states = &it->second;
    }
    std::map<int, optimizer::State> merged = pending_;
    if (states)
      for (const auto& [i, s] : *states) merged[i] = s;
    json params = json::array();
    for (const auto& [i, s] : merged) {
      json entry = {{"index", i},
                    {"name", i < static_cast<int>(params_.size()) ? params_[i]->name() : ""},
                    {"num_arrays", s.arrays.size()},
                    {"weight32", !s.weight32.is_none()}};
      json present = json::array();
      for (size_t k = 0; k < s.arrays.size(); ++k) {
        if (s.arrays[k].is_none()) continue;
        arrays.emplace_back(StrCat(i, ":", k), s.arrays[k]);
        present.push_back(k);
      }
      entry["arrays"] = present;
      if (!s.weight32.is_none()) arrays.emplace_back(StrCat(i, ":weight32"), s.weight32);
      params.push_back(entry);
    }
    json meta = {{"format", kFormat},
                 {"version", 1},
                 {"optimizer", json::parse(optimizer_->SerializeConfig())},
                 {"params", params}};
    std::string text = meta.dump();
    std::vector<uint8_t> bytes(text.begin(), text.end());
    arrays.emplace_back(kMetaName,
                        NDArray::FromVector(bytes, Shape{static_cast<int64_t>(bytes.size())}, cpu(),
                                            DType::kUint8));
  });
  if (!st.ok()) return st;
  return arrays;
}

absl::Status Trainer::load_states(const std::string& fname) {
  auto file = nd::load(fname);
  if (!file.ok()) return file.status();
  return load_states_records(file->items(), fname);
}

absl::Status Trainer::load_states_records(
    const std::vector<std::pair<std::string, NDArray>>& records, const std::string& fname) {
  std::map<std::string, NDArray> by_name;
  for (const auto& [k, a] : records) by_name[k] = a;  // the last one wins, as NDArrayFile::find
  auto find = [&](const std::string& k) -> const NDArray* {
    auto it = by_name.find(k);
    return it == by_name.end() ? nullptr : &it->second;
  };
  return StatusFromCall([&] {
    const NDArray* meta_arr = find(kMetaName);
    if (!meta_arr || meta_arr->dtype() != DType::kUint8)
      MX_THROW(absl::StatusCode::kInvalidArgument, fname, ": not a Trainer states file (no '",
               kMetaName, "' record)");
    std::vector<uint8_t> bytes = meta_arr->ToVector<uint8_t>();
    json meta = json::parse(std::string(bytes.begin(), bytes.end()), nullptr, false);
    if (meta.is_discarded() || !meta.is_object() || meta.value("format", "") != kFormat)
      MX_THROW(absl::StatusCode::kInvalidArgument, fname, ": malformed Trainer states metadata");
    if (meta.value("version", 0) != 1)
      MX_THROW(absl::StatusCode::kUnimplemented, fname, ": Trainer states version ",
               meta.value("version", 0), " is not supported (expected 1)");
    std::map<int, optimizer::State> loaded;
    try {
      for (const json& e : meta.at("params")) {
        int i = e.at("index").get<int>();
        if (i < 0 || i >= static_cast<int>(params_.size()))
          MX_THROW(absl::StatusCode::kInvalidArgument, fname, ": states for parameter index ", i,
                   " but the Trainer has ", params_.size(), " parameters");
        const ParameterPtr& p = params_[i];
        optimizer::State s;
        s.arrays.resize(e.at("num_arrays").get<size_t>());
        for (const json& k : e.at("arrays")) {
          size_t slot = k.get<size_t>();
          const NDArray* a = find(StrCat(i, ":", slot));
          if (!a || slot >= s.arrays.size())
            MX_THROW(absl::StatusCode::kInvalidArgument, fname, ": state ", slot, " of parameter ",
                     i, " is missing");
          s.arrays[slot] = *a;
        }
        if (e.at("weight32").get<bool>()) {
          const NDArray* a = find(StrCat(i, ":weight32"));
          if (!a)
            MX_THROW(absl::StatusCode::kInvalidArgument, fname, ": master weight of parameter ", i,
                     " is missing");
          s.weight32 = *a;
        }
        std::vector<NDArray> check = s.arrays;
        check.push_back(s.weight32);
        for (const NDArray& a : check)
          if (!a.is_none() && p->shape().is_known() && a.shape() != p->shape())
            MX_THROW(absl::StatusCode::kInvalidArgument, fname, ": a state of parameter ", i, " ('",
                     p->name(), "') has shape ", a.shape().ToString(),
                     " but the parameter has shape ", p->shape().ToString());
        loaded[i] = std::move(s);
      }
    } catch (const json::exception& ex) {
      MX_THROW(absl::StatusCode::kInvalidArgument, fname,
               ": malformed Trainer states: ", ex.what());
    }
    optimizer_->RestoreConfig(meta.at("optimizer").dump());
    // Every device gets its own copy at its next update.
    states_.clear();
    pending_ = std::move(loaded);
  });
}

}  // namespace mxnet::gluon
