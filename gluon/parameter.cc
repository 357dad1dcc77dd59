#include "gluon/parameter.h"

#include <atomic>
#include <iostream>

#include "base/strings.h"
#include "ndarray/io.h"
#include "ndarray/op.h"
#include "ndarray/sparse.h"

namespace mxnet::gluon {

Parameter::Parameter(std::string name, ParameterOptions o)
    : name_(std::move(name)),
      shape_(o.shape),
      dtype_(o.dtype),
      init_(std::move(o.init)),
      grad_req_(o.differentiable ? o.grad_req : GradReq::kNull),
      lr_mult_(o.lr_mult),
      wd_mult_(o.wd_mult),
      allow_deferred_init_(o.allow_deferred_init),
      differentiable_(o.differentiable),
      grad_stype_(o.grad_stype) {
  if (grad_stype_ == StorageType::kCSR)
    MX_THROW(absl::StatusCode::kInvalidArgument, "Parameter '", name_,
             "': grad_stype 'csr' is not supported (use 'default' or 'row_sparse')");
}

void Parameter::set_shape(const Shape& shape) {
  Shape merged = shape_;
  try {
    MergeShape(&merged, shape, StrCat("Parameter '", name_, "'"));
  } catch (const Error&) {
    MX_THROW(absl::StatusCode::kInvalidArgument, "Parameter '", name_, "': cannot set shape ",
             shape.ToString(), ", it has shape ", shape_.ToString());
  }
  if (is_initialized() && merged != shape_)
    MX_THROW(absl::StatusCode::kInvalidArgument, "Parameter '", name_,
             "' is initialized with shape ", shape_.ToString(), "; cannot change it to ",
             shape.ToString());
  shape_ = merged;
}

void Parameter::set_grad_req(GradReq req) {
  if (!differentiable_) req = GradReq::kNull;
  grad_req_ = req;
  if (req == GradReq::kNull) {
    grad_.clear();
    for (auto& d : data_) d.clear_grad();
  } else if (is_initialized()) {
    AllocateGrads();
  }
}

void Parameter::AllocateGrads() {
  grad_.clear();
  for (auto& d : data_) {
    if (grad_req_ == GradReq::kNull) continue;
    attach_grad(d, grad_req_, grad_stype_);  // ndarray/sparse.h: dense or row_sparse buffer
    grad_.push_back(d.grad());
  }
}

namespace {
std::atomic<int64_t> g_deferred_inits{0};
}  // namespace

Parameter::~Parameter() { SetDeferred(std::nullopt); }

int64_t Parameter::num_deferred_inits() { return g_deferred_inits.load(std::memory_order_acquire); }

void Parameter::SetDeferred(std::optional<Deferred> d) {
  const int64_t delta = int64_t{d.has_value()} - int64_t{deferred_.has_value()};
  deferred_ = std::move(d);
  if (delta != 0) g_deferred_inits.fetch_add(delta, std::memory_order_acq_rel);
}

void Parameter::initialize(InitializerPtr init, std::vector<Device> devices,
                           InitializerPtr default_init, bool force_reinit) {
  if (devices.empty()) devices = {cpu()};
  if (is_initialized() && !force_reinit) return;
  if (!shape_.is_known()) {
    if (!allow_deferred_init_)
      MX_THROW(absl::StatusCode::kFailedPrecondition, "Parameter '", name_,
               "': cannot initialize with unknown shape ", shape_.ToString(),
               " and allow_deferred_init=false");
    SetDeferred(Deferred{std::move(init), std::move(default_init), std::move(devices)});
    return;
  }
  SetDeferred(std::nullopt);
  NDArray host(shape_, cpu(), dtype_);
  if (init_)
    init_->InitWeight(name_, host);  // the parameter's own initializer
  else if (init)
    (*init)(name_, host);
  else if (default_init)
    (*default_init)(name_, host);
  else
    (*init::Uniform())(name_, host);
  data_.clear();
  for (const Device& d : devices) data_.push_back(host.copyto(d));
  AllocateGrads();
}

void Parameter::finish_deferred_init() {
  if (!placeholder_.is_none()) {
    Shape inferred = placeholder_.shape();
    placeholder_ = NDArray();
    set_shape(inferred);
  }
  if (!deferred_) return;
  if (!shape_.is_known())
    MX_THROW(absl::StatusCode::kFailedPrecondition, "Parameter '", name_,
             "': deferred initialization cannot complete, the shape ", shape_.ToString(),
             " is still unknown after shape inference");
  Deferred d = *deferred_;
  SetDeferred(std::nullopt);
  initialize(d.init, d.devices, d.default_init, true);
}

NDArray Parameter::data(std::optional<Device> device) const {
  if (data_.empty() && CurrentDispatchState().infer_only) {
    if (placeholder_.is_none())
      placeholder_ = NDArray::Placeholder(shape_, device ? *device : cpu(), dtype_);
    return placeholder_;
  }
  if (data_.empty()) {
    if (deferred_)
      MX_THROW(absl::StatusCode::kFailedPrecondition, "Parameter '", name_,
               "' has not been initialized yet because initialization was deferred (shape ",
               shape_.ToString(), "); it completes at the first forward with real data");
    MX_THROW(absl::StatusCode::kFailedPrecondition, "Parameter '", name_,
             "' has not been initialized; call initialize() on the block or parameter first");
  }
  if (!device) return data_[0];
  for (const auto& a : data_)
    if (a.device() == *device) return a;
  MX_THROW(absl::StatusCode::kInvalidArgument, "Parameter '", name_, "' has no copy on ",
           device->ToString(), " (it lives on ", StrJoin(list_device(), ", "), ")");
}

std::vector<NDArray> Parameter::list_data() const {
  if (data_.empty()) data();  // throws the explanatory error
  return data_;
}

NDArray Parameter::grad(std::optional<Device> device) const {
  if (grad_req_ == GradReq::kNull)
    MX_THROW(absl::StatusCode::kFailedPrecondition, "Parameter '", name_,
             "' has no gradient because grad_req='null'");
  return data(device).grad();
}

std::vector<NDArray> Parameter::list_grad() const {
  std::vector<NDArray> out;
  for (const auto& d : list_data()) out.push_back(grad(d.device()));
  return out;
}

std::vector<Device> Parameter::list_device() const {
  std::vector<Device> out;
  for (const auto& d : data_) out.push_back(d.device());
  if (out.empty() && deferred_) return deferred_->devices;
  return out;
}

void Parameter::set_data(const NDArray& value) {
  set_shape(value.shape());
  if (!is_initialized()) {
    std::vector<Device> devices = deferred_ ? deferred_->devices : std::vector<Device>{cpu()};
    SetDeferred(std::nullopt);
    data_.clear();
    for (const Device& d : devices) data_.push_back(value.astype(dtype_).copyto(d));
    AllocateGrads();
    return;
  }
  for (auto& d : data_) value.copyto(d);
}

void Parameter::zero_grad() {
  for (auto& g : grad_) g.Fill(0);
}

void Parameter::cast(DType dtype) {
  dtype_ = dtype;
  for (auto& d : data_) d = d.astype(dtype);
  AllocateGrads();
}

void Parameter::reset_device(const std::vector<Device>& devices) {
  if (data_.empty()) {
    if (deferred_) deferred_->devices = devices;
    return;
  }
  NDArray src = data_[0];
  data_.clear();
  for (const Device& d : devices) data_.push_back(src.copyto(d));
  AllocateGrads();
}

sym::Symbol Parameter::var(const std::string& name) const {
  sym::VarOptions o;
  o.shape = shape_;
  o.dtype = dtype_;
  if (lr_mult_ != 1.0) o.lr_mult = lr_mult_;
  if (wd_mult_ != 1.0) o.wd_mult = wd_mult_;
  if (init_) o.init = init_->dumps();
  return sym::Symbol::Variable(name, o);
}

NDArray Parameter::placeholder() const {
  Device d = list_device().empty() ? cpu() : list_device()[0];
  return NDArray::Placeholder(shape_, d, dtype_);
}

Constant::Constant(std::string name, const NDArray& value)
    : Parameter(std::move(name), ParameterOptions{.shape = value.shape(),
                                                  .dtype = value.dtype(),
                                                  .grad_req = GradReq::kNull,
                                                  .differentiable = false}) {
  NDArray v = value.copy();
  data_.push_back(v);
}

// ---- ParameterDict. ----
void ParameterDict::add(const std::string& name, ParameterPtr p) {
  if (index_.count(name)) return;  // shared parameters keep their first name
  index_[name] = items_.size();
  items_.push_back({name, std::move(p)});
}

ParameterPtr ParameterDict::get(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : items_[it->second].second;
}

std::vector<std::string> ParameterDict::keys() const {
  std::vector<std::string> k;
  for (const auto& [n, _] : items_) k.push_back(n);
  return k;
}

void ParameterDict::initialize(InitializerPtr init, std::vector<Device> devices, bool verbose,
                               bool force_reinit) {
  if (!init) init = init::Uniform();
  for (const auto& [name, p] : items_) {
    if (verbose) std::cerr << "Initializing " << name << " " << p->shape() << "\n";
    p->initialize(nullptr, devices, init, force_reinit);
  }
}

void ParameterDict::zero_grad() {
  for (const auto& [_, p] : items_) p->zero_grad();
}

void ParameterDict::setattr(const std::string& name, const std::string& value) {
  for (const auto& [pname, p] : items_) {
    if (name == "grad_req") {
      p->set_grad_req(ValueOrThrow(ParseGradReq(value)));
    } else if (name == "lr_mult" || name == "wd_mult") {
      double v;
      if (!ParseDouble(value, &v))
        MX_THROW(absl::StatusCode::kInvalidArgument, "setattr: ", name, " must be a number, got '",
                 value, "'");
      name == "lr_mult" ? p->set_lr_mult(v) : p->set_wd_mult(v);
    } else {
      MX_THROW(absl::StatusCode::kInvalidArgument, "setattr: unknown parameter attribute '", name,
               "' (grad_req, lr_mult, wd_mult)");
    }
  }
}

void ParameterDict::reset_device(const std::vector<Device>& devices) {
  for (const auto& [_, p] : items_) p->reset_device(devices);
}

void ParameterDict::update(const ParameterDict& other) {
  for (const auto& [name, p] : other.items_) {
    ParameterPtr mine = get(name);
    if (mine && mine != p)
      MX_THROW(absl::StatusCode::kInvalidArgument, "ParameterDict.update: cannot update '", name,
               "': a different Parameter of that name is already present");
    add(name, p);
  }
}

absl::Status ParameterDict::save(const std::string& filename,
                                 const std::string& strip_prefix) const {
  std::vector<std::pair<std::string, NDArray>> arrays;
  for (const auto& [name, p] : items_) {
    if (!strip_prefix.empty() && !StartsWith(name, strip_prefix))
      return absl::InvalidArgumentError(StrCat(
          "ParameterDict.save(", filename, "): prefix '", strip_prefix,
          "' is to be stripped before saving, but Parameter '", name, "' does not start with it"));
    absl::Status st = StatusFromCall([&] {
      arrays.push_back({name.substr(strip_prefix.size()), p->data()});
    });
    if (!st.ok())
      return absl::Status(st.code(), StrCat("ParameterDict.save(", filename, "): ", st.message()));
  }
  return nd::save(filename, arrays);
}

absl::Status ParameterDict::load(const std::string& filename, const std::vector<Device>& devices,
                                 bool allow_missing, bool ignore_extra,
                                 const std::string& restore_prefix, bool cast_dtype,
                                 const std::string& dtype_source) {
  if (!restore_prefix.empty())
    for (const auto& [name, _] : items_)
      if (!StartsWith(name, restore_prefix))
        return absl::InvalidArgumentError(
            StrCat("ParameterDict.load(", filename, "): restore_prefix is '", restore_prefix,
                   "' but Parameter '", name, "' does not start with it"));
  auto file = nd::load(filename);
  if (!file.ok()) return file.status();
  std::map<std::string, NDArray> loaded;
  for (const auto& [k, v] : file->items()) {
    std::string key = StartsWith(k, "arg:") || StartsWith(k, "aux:") ? k.substr(4) : k;
    loaded[restore_prefix + key] = v;
  }
  if (!allow_missing)
    for (const auto& [name, _] : items_)
      if (!loaded.count(name))
        return absl::NotFoundError(StrCat("Parameter '", name, "' is missing in file '", filename,
                                          "' (restore_prefix '", restore_prefix,
                                          "'). Set allow_missing=true to ignore."));
  for (const auto& [key, v] : loaded) {
    ParameterPtr p = get(key);
    if (!p) {
      if (ignore_extra) continue;
      return absl::InvalidArgumentError(
          StrCat("Parameter '", key, "' loaded from file '", filename,
                 "' is not present in the ParameterDict. Set ignore_extra=true to ignore."));
    }
    absl::Status st = StatusFromCall([&] {
      NDArray value = v;
      if (value.dtype() != p->dtype()) {
        if (!cast_dtype)
          MX_THROW(absl::StatusCode::kInvalidArgument, "dtype ", DTypeName(value.dtype()),
                   " differs from the parameter's ", DTypeName(p->dtype()),
                   " (set cast_dtype=true to convert)");
        if (dtype_source == "saved")
          p->cast(value.dtype());
        else
          value = value.astype(p->dtype(), false);
      }
      if (p->shape().ndim_known()) {
        const Shape& s = p->shape();
        bool ok = s.ndim() == value.shape().ndim();
        for (int i = 0; ok && i < s.ndim(); ++i) ok = s[i] < 0 || s[i] == value.shape()[i];
        if (!ok)
          MX_THROW(absl::StatusCode::kInvalidArgument, "shape ", value.shape().ToString(),
                   " does not match the parameter's shape ", s.ToString());
      }
      if (!p->is_initialized()) {
        p->set_shape(value.shape());
        p->initialize(init::Zero(), devices, nullptr, true);
      }
      p->set_data(value);
    });
    if (!st.ok())
      return absl::Status(st.code(),
                          StrCat("Parameter '", key, "' from '", filename, "': ", st.message()));
  }
  return absl::OkStatus();
}

}  // namespace mxnet::gluon
