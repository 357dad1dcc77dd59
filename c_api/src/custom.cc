// mxc/custom.h: custom operators written in C, as a C++ CustomOpProp/CustomOp pair
// (ndarray/ops/nn/nn_custom_api.h) that calls the registered C callbacks.
//
// The C++ registry has no removal, so the name is registered there once with a creator that looks
// the C registration up in this file's table on every prop it makes; mxc_custom_op_unregister
// removes the table entry (the C++ name stays, failing with "was unregistered"), and registering
// the name again refills it. A registration (callbacks, names, user_data) is shared by the table
// and every prop made from it; user_data is freed with the last of them.
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "c_api/src/api.h"
#include "c_api/src/handles.h"
#include "mxc/custom.h"
#include "ndarray/ops/nn/nn_custom_api.h"

namespace mxc {
namespace {

namespace nd = mxnet::nd;

// One mxc_custom_op_register call.
struct Registration {
  std::string op_type;
  std::vector<std::string> args, outs, aux;
  bool no_top_grad = false;
  mxc_custom_forward_fn forward = nullptr;
  mxc_custom_backward_fn backward = nullptr;
  mxc_custom_infer_shape_fn infer_shape = nullptr;
  mxc_custom_infer_type_fn infer_type = nullptr;
  void* user_data = nullptr;
  mxc_user_data_free_fn free_user_data = nullptr;  // set once the registration has succeeded

  ~Registration() {
    if (free_user_data) free_user_data(user_data);
  }
};

// C registrations by op_type; `known` holds every name registered with the C++ registry from
// here (those stay there after mxc_custom_op_unregister).
struct CustomTable {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const Registration>, std::less<>> live;
  std::set<std::string, std::less<>> known;
};
CustomTable& Registrations() {
  static auto* t = new CustomTable();  // never destroyed: props may outlive static destruction
  return *t;
}

// Takes the callback's status (non-NULL) and throws it as mxnet::Error with its code; the C++
// Custom op prefixes "Custom: error in <op_type>.<method>: ".
[[noreturn]] void ThrowCallbackStatus(mxc_status* st) {
  auto code = static_cast<absl::StatusCode>(mxc_status_code(st));
  std::string msg = mxc_status_message(st);
  mxc_status_free(st);
  if (code == absl::StatusCode::kOk) code = absl::StatusCode::kUnknown;
  throw mxnet::Error(code, msg);
}

// The attributes as two C string arrays (pointing into the prop's strings).
struct CAttrs {
  std::vector<std::string> keys, values;
  std::vector<const char*> k, v;
  explicit CAttrs(const mxnet::AttrDict& kwargs) {
    for (const auto& [key, value] : kwargs) {
      keys.push_back(key);
      values.push_back(value);
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      k.push_back(keys[i].c_str());
      v.push_back(values[i].c_str());
    }
  }
  size_t size() const { return k.size(); }
};

// Borrowed handles for the duration of one callback (freed afterwards; the callback retains
// what it keeps).
class Handles {
 public:
  explicit Handles(const std::vector<mxnet::NDArray>& arrays) {
    h_.reserve(arrays.size());
    try {
      for (const auto& a : arrays) h_.push_back(New<mxc_ndarray>(a));
    } catch (...) {
      Release();
      throw;
    }
  }
  ~Handles() { Release(); }
  Handles(const Handles&) = delete;
  Handles& operator=(const Handles&) = delete;
  mxc_ndarray* const* data() const { return h_.data(); }
  size_t size() const { return h_.size(); }

 private:
  void Release() noexcept {
    for (auto* h : h_) mxc_ndarray_free(h);
    h_.clear();
  }
  std::vector<mxc_ndarray*> h_;
};

class COp : public nd::CustomOp {
 public:
  COp(std::shared_ptr<const Registration> reg, std::shared_ptr<const CAttrs> attrs)
      : reg_(std::move(reg)), attrs_(std::move(attrs)) {}

  void forward(bool is_train, const ReqVec&, const ArrayVec& in_data, const ArrayVec& out_data,
               const ArrayVec& aux) override {
    Handles in(in_data), out(out_data), ax(aux);
    mxc_status* st = reg_->forward(reg_->user_data, attrs_->k.data(), attrs_->v.data(),
                                   attrs_->size(), is_train ? 1 : 0, in.data(), in.size(),
                                   out.data(), out.size(), ax.data(), ax.size());
    if (st) ThrowCallbackStatus(st);
  }

  void backward(const ReqVec&, const ArrayVec& out_grad, const ArrayVec& in_data,
                const ArrayVec& out_data, const ArrayVec& in_grad, const ArrayVec& aux) override {
    if (!reg_->backward)
      MX_THROW(absl::StatusCode::kUnimplemented, "no backward callback was registered");
    Handles og(out_grad), od(out_data), in(in_data), ig(in_grad), ax(aux);
    mxc_status* st = reg_->backward(reg_->user_data, attrs_->k.data(), attrs_->v.data(),
                                    attrs_->size(), og.data(), od.data(), od.size(), in.data(),
                                    ig.data(), in.size(), ax.data(), ax.size());
    if (st) ThrowCallbackStatus(st);
  }

 private:
  std::shared_ptr<const Registration> reg_;
  std::shared_ptr<const CAttrs> attrs_;
};

class CProp : public nd::CustomOpProp {
 public:
  CProp(std::shared_ptr<const Registration> reg, const mxnet::AttrDict& kwargs)
      : nd::CustomOpProp(!reg->no_top_grad),
        reg_(std::move(reg)),
        attrs_(std::make_shared<const CAttrs>(kwargs)) {}

  std::vector<std::string> list_arguments() const override { return reg_->args; }
  std::vector<std::string> list_outputs() const override { return reg_->outs; }
  std::vector<std::string> list_auxiliary_states() const override { return reg_->aux; }

  nd::CustomShapes infer_shape(const std::vector<mxnet::Shape>& in_shape) const override {
    if (!reg_->infer_shape) return nd::CustomOpProp::infer_shape(in_shape);
    const size_t ni = in_shape.size(), no = reg_->outs.size(), na = reg_->aux.size();
    std::vector<int64_t> in_dims(ni * MXC_MAX_NDIM), out_dims(no * MXC_MAX_NDIM),
        aux_dims(na * MXC_MAX_NDIM);
    std::vector<size_t> in_nd(ni), out_nd(no), aux_nd(na);
    for (size_t i = 0; i < ni; ++i) {
      const mxnet::Shape& s = in_shape[i];
      if (s.ndim() > MXC_MAX_NDIM)
        MX_THROW(absl::StatusCode::kInvalidArgument, "argument ", i, " has rank ", s.ndim(),
                 " > MXC_MAX_NDIM");
      in_nd[i] = static_cast<size_t>(s.ndim());
      for (int d = 0; d < s.ndim(); ++d) in_dims[i * MXC_MAX_NDIM + d] = s[d];
    }
    auto prefill = [&](std::vector<int64_t>& dims, std::vector<size_t>& nds) {
      for (size_t j = 0; j < nds.size() && ni; ++j) {
        nds[j] = in_nd[0];
        std::copy(in_dims.begin(), in_dims.begin() + MXC_MAX_NDIM, dims.begin() + j * MXC_MAX_NDIM);
      }
    };
    prefill(out_dims, out_nd);
    prefill(aux_dims, aux_nd);
    mxc_status* st = reg_->infer_shape(
        reg_->user_data, attrs_->k.data(), attrs_->v.data(), attrs_->size(), in_dims.data(),
        in_nd.data(), ni, out_dims.data(), out_nd.data(), no, aux_dims.data(), aux_nd.data(), na);
    if (st) ThrowCallbackStatus(st);
    nd::CustomShapes r;
    r.in = in_shape;
    auto read = [](const std::vector<int64_t>& dims, const std::vector<size_t>& nds,
                   const char* what, std::vector<mxnet::Shape>* out) {
      for (size_t j = 0; j < nds.size(); ++j) {
        if (nds[j] > MXC_MAX_NDIM)
          MX_THROW(absl::StatusCode::kInvalidArgument, "the callback set ", what, " ", j,
                   " to rank ", nds[j], " > MXC_MAX_NDIM");
        std::vector<int64_t> d(dims.begin() + j * MXC_MAX_NDIM,
                               dims.begin() + j * MXC_MAX_NDIM + nds[j]);
        for (int64_t v : d)
          if (v < 0)
            MX_THROW(absl::StatusCode::kInvalidArgument, "the callback gave ", what, " ", j,
                     " a negative dimension ", v);
        out->push_back(mxnet::Shape(d));
      }
    };
    read(out_dims, out_nd, "output", &r.out);
    read(aux_dims, aux_nd, "aux state", &r.aux);
    return r;
  }

  nd::CustomTypes infer_type(const std::vector<mxnet::DType>& in_type) const override {
    if (!reg_->infer_type) return nd::CustomOpProp::infer_type(in_type);
    const size_t ni = in_type.size(), no = reg_->outs.size(), na = reg_->aux.size();
    std::vector<int32_t> in(ni), out(no), aux(na);
    for (size_t i = 0; i < ni; ++i) in[i] = mxnet::DTypeFlag(in_type[i]);
    if (ni) {
      std::fill(out.begin(), out.end(), in[0]);
      std::fill(aux.begin(), aux.end(), in[0]);
    }
    mxc_status* st =
        reg_->infer_type(reg_->user_data, attrs_->k.data(), attrs_->v.data(), attrs_->size(),
                         in.data(), ni, out.data(), no, aux.data(), na);
    if (st) ThrowCallbackStatus(st);
    nd::CustomTypes r;
    r.in = in_type;
    for (size_t j = 0; j < no; ++j) r.out.push_back(ToDType(out[j], "output type"));
    for (size_t j = 0; j < na; ++j) r.aux.push_back(ToDType(aux[j], "aux state type"));
    return r;
  }

  std::unique_ptr<nd::CustomOp> create_operator(mxnet::Device, const std::vector<mxnet::Shape>&,
                                                const std::vector<mxnet::DType>&) const override {
    return std::make_unique<COp>(reg_, attrs_);
  }

 private:
  std::shared_ptr<const Registration> reg_;
  std::shared_ptr<const CAttrs> attrs_;
};

// Names from a (pointer, count) pair; `dflt` when empty. Errors: NULL entries, bad UTF-8, empty
// or duplicate names.
std::vector<std::string> Names(const char* const* names, size_t n, std::string_view arg,
                               std::vector<std::string> dflt, std::set<std::string>* seen) {
  std::vector<std::string> out = n ? Strs(names, n, arg) : std::move(dflt);
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].empty()) BadArgument(arg, "name ", i, " is empty");
    if (!seen->insert(out[i]).second)
      BadArgument(arg, "name '", out[i],
                  "' is used twice (arguments, outputs and aux states "
                  "need distinct names)");
  }
  return out;
}

}  // namespace
}  // namespace mxc

extern "C" {

MXC_STATUS mxc_custom_op_register(const char* op_type, const mxc_custom_op_def* def,
                                  void* user_data, mxc_user_data_free_fn free_user_data) noexcept {
  return mxc::Call(__func__, [&] {
    std::string name(mxc::Str(op_type, "op_type"));
    if (name.empty()) mxc::BadArgument("op_type", "is empty");
    if (!def) mxc::BadArgument("def", "is NULL");
    mxc_custom_op_def d = mxc::ReadOptions(def, "def");
    if (!d.forward) mxc::BadArgument("def.forward", "is NULL (a forward callback is required)");
    auto reg = std::make_shared<mxc::Registration>();
    reg->op_type = name;
    std::set<std::string> seen;
    reg->args = mxc::Names(d.arguments, d.num_arguments, "def.arguments", {"data"}, &seen);
    reg->outs = mxc::Names(d.outputs, d.num_outputs, "def.outputs", {"output"}, &seen);
    reg->aux = mxc::Names(d.aux_states, d.num_aux_states, "def.aux_states", {}, &seen);
    if (!reg->aux.empty() && !d.infer_shape)
      mxc::BadArgument("def.infer_shape",
                       "is NULL but the op has aux states (their shapes must be inferred)");
    reg->no_top_grad = d.no_top_grad != 0;
    reg->forward = d.forward;
    reg->backward = d.backward;
    reg->infer_shape = d.infer_shape;
    reg->infer_type = d.infer_type;
    reg->user_data = user_data;

    mxc::CustomTable& t = mxc::Registrations();
    std::lock_guard<std::mutex> lock(t.mu);
    if (t.live.count(name))
      MX_THROW(absl::StatusCode::kAlreadyExists, "custom operator '", name,
               "' is registered already (mxc_custom_op_unregister it first)");
    if (!t.known.count(name)) {
      // Throws kAlreadyExists for a name registered from C++.
      mxnet::nd::RegisterCustomOp(
          name, [name](const mxnet::AttrDict& kwargs) -> std::unique_ptr<mxnet::nd::CustomOpProp> {
            std::shared_ptr<const mxc::Registration> r;
            {
              mxc::CustomTable& tt = mxc::Registrations();
              std::lock_guard<std::mutex> l(tt.mu);
              auto it = tt.live.find(name);
              if (it != tt.live.end()) r = it->second;
            }
            if (!r)
              MX_THROW(absl::StatusCode::kNotFound, "custom operator '", name,
                       "' was unregistered (mxc_custom_op_unregister)");
            return std::make_unique<mxc::CProp>(std::move(r), kwargs);
          });
      t.known.insert(name);
    }
    mxc::Registration* raw = reg.get();
    t.live.emplace(name, std::move(reg));
    raw->free_user_data = free_user_data;  // owned from here on (nothing below throws)
  });
}

MXC_STATUS mxc_custom_op_unregister(const char* op_type) noexcept {
  return mxc::Call(__func__, [&] {
    std::string_view name = mxc::Str(op_type, "op_type");
    std::shared_ptr<const mxc::Registration> dropped;  // released outside the lock
    mxc::CustomTable& t = mxc::Registrations();
    {
      std::lock_guard<std::mutex> lock(t.mu);
      auto it = t.live.find(name);
      if (it == t.live.end())
        MX_THROW(absl::StatusCode::kNotFound, "custom operator '", name,
                 "' is not registered through mxc_custom_op_register");
      dropped = std::move(it->second);
      t.live.erase(it);
    }
  });
}

}  // extern "C"
