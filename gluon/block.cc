#include "gluon/block.h"

#include <cxxabi.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include <re2/re2.h>
#include <nlohmann/json.hpp>

#include "autograd/autograd.h"
#include "base/strings.h"
#include "gluon/param_names.h"
#include "ndarray/io.h"

namespace mxnet::gluon {

void HookHandle::detach() {
  if (auto owner = owner_.lock()) {
    auto it = owner->find(id_);
    if (it != owner->end()) {
      auto remove = it->second;
      owner->erase(it);
      remove();
    }
  }
  owner_.reset();
}

Block::Block() : hook_removers_(std::make_shared<std::map<int, std::function<void()>>>()) {}
Block::~Block() = default;

// ---- Registration. ----
void Block::RegisterChildImpl(BlockPtr child, std::string name) {
  if (!child)
    MX_THROW(absl::StatusCode::kInvalidArgument, class_name(), ": register_child got a null block");
  CheckChild(*child);
  if (name.empty()) name = StrCat(children_.size());
  for (auto& [n, c] : children_)
    if (n == name) {
      c = std::move(child);  // re-assignment replaces, like setting an attribute again
      return;
    }
  children_.push_back({std::move(name), std::move(child)});
}

ParameterPtr Block::register_parameter(const std::string& name, ParameterOptions options) {
  return register_parameter(name, std::make_shared<Parameter>(name, std::move(options)));
}

ParameterPtr Block::register_parameter(const std::string& name, ParameterPtr param) {
  for (auto& [n, p] : params_)
    if (n == name) {
      p = param;
      return param;
    }
  params_.push_back({name, param});
  return param;
}

void Block::CollectParams(const std::string& prefix, ParameterDict* out) const {
  for (const auto& [n, p] : params_) out->add(prefix + n, p);
  for (const auto& [n, c] : children_) c->CollectParams(prefix + n + ".", out);
}

ParameterDict Block::collect_params(const std::string& select) const {
  ParameterDict all;
  CollectParams("", &all);
  if (select.empty()) return all;
  RE2 re(select, RE2::Quiet);  // the error goes into the exception, not to stderr
  if (!re.ok())
    MX_THROW(absl::StatusCode::kInvalidArgument, "collect_params: invalid regular expression '",
             select, "': ", re.error());
  ParameterDict out;
  for (const auto& [n, p] : all)
    if (re.Match(n, 0, n.size(), RE2::ANCHOR_START, nullptr, 0)) out.add(n, p);
  return out;
}

void Block::initialize(InitializerPtr init, std::vector<Device> devices, bool verbose,
                       bool force_reinit) {
  collect_params().initialize(std::move(init), std::move(devices), verbose, force_reinit);
}

Block& Block::apply(const std::function<void(Block&)>& fn) {
  for (auto& [_, c] : children_) c->apply(fn);
  fn(*this);
  return *this;
}

HookHandle Block::register_forward_pre_hook(PreHook hook) {
  int id = next_hook_id_++;
  pre_hooks_[id] = std::move(hook);
  (*hook_removers_)[id] = [this, id] { pre_hooks_.erase(id); };
  return HookHandle(hook_removers_, id);
}

HookHandle Block::register_forward_hook(PostHook hook) {
  int id = next_hook_id_++;
  post_hooks_[id] = std::move(hook);
  (*hook_removers_)[id] = [this, id] { post_hooks_.erase(id); };
  return HookHandle(hook_removers_, id);
}

bool Block::has_hooks() const { return !pre_hooks_.empty() || !post_hooks_.empty(); }

// ---- Forward. ----
NDArray Block::operator()(const NDArray& x) {
  NDArrayVec out = (*this)(NDArrayVec{x});
  if (out.size() != 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, class_name(), ": forward returned ", out.size(),
             " outputs; call it with a vector to get them all");
  return out[0];
}

NDArrayVec Block::operator()(const NDArrayVec& inputs) {
  const DispatchState& st = CurrentDispatchState();
  // The shape pass of deferred initialization runs no hooks; a hybridize trace (shape-only too)
  // runs the children's hooks, with placeholder arrays, as MXNet runs them on symbols.
  bool infer_pass = st.infer_only && !st.tracer;
  if (!infer_pass) {
    for (auto& [_, h] : pre_hooks_) h(*this, inputs);
    // Deferred initialization completes at the first real forward of the outermost block. (No
    // parameter anywhere waiting for it, the common case after the first call: no scan.)
    if (!st.tracer && Parameter::num_deferred_inits() > 0) {
      bool deferred = false;
      for (const auto& [_, p] : collect_params()) deferred |= p->has_deferred_init();
      if (deferred) InferParameterShapes(inputs);
    }
  }
  NDArrayVec out = CallForward(inputs);
  if (!infer_pass)
    for (auto& [_, h] : post_hooks_) h(*this, inputs, out);
  return out;
}

NDArrayVec Block::CallForward(const NDArrayVec& inputs) { return forward(inputs); }

// ---- Nested arguments. ----
namespace {

// The call_nested call in progress on this thread: Block::forward(NDArrayVec) of
// `block` regroups its flat inputs with `in_format` and records what forward_nested returned.
struct NestedCall {
  const Block* block;
  const std::string* in_format;
  bool cached;             // a hybridized block: its trace records the output structure
  bool inside = false;     // forward_nested is running (its own forward calls pass through)
  std::string out_format;  // set when forward_nested ran
  NestedCall* outer;
};
thread_local NestedCall* t_nested_call = nullptr;

}  // namespace

Nested Block::call_nested(const std::vector<Nested>& args) {
  auto [flat, in_format] = Flatten(args);
  const auto* hybrid = dynamic_cast<const HybridBlock*>(this);
  bool cached = hybrid && hybrid->is_hybridized();
  if (cached) {
    std::lock_guard<std::mutex> l(nested_mu_);
    if (nested_in_format_.empty()) {
      nested_in_format_ = in_format;
      nested_out_format_.clear();
    } else if (nested_in_format_ != in_format) {
      MX_THROW(absl::StatusCode::kInvalidArgument, class_name(),
               ": the argument structure does not match the one the hybridized block was first "
               "called with (stored format ",
               nested_in_format_, ", input format ", in_format,
               "); call hybridize() again to change it");
    }
  }
  NestedCall call{this, &in_format, cached, false, {}, t_nested_call};
  t_nested_call = &call;
  struct Restore {
    NestedCall* outer;
    ~Restore() { t_nested_call = outer; }
  } restore{call.outer};
  NDArrayVec out = (*this)(flat);
  std::string out_format = call.out_format;
  if (cached && out_format.empty()) {
    // A cached graph's run calls no forward: the output structure is the one its trace recorded.
    std::lock_guard<std::mutex> l(nested_mu_);
    out_format = nested_out_format_;
  }
  if (!out_format.empty()) return Regroup(out, out_format);
  if (out.size() == 1) return Nested(out[0]);
  return Nested::List(std::vector<Nested>(out.begin(), out.end()));
}

Nested Block::forward_nested(const std::vector<Nested>& args) {
  auto [flat, format] = Flatten(args);
  for (const auto& a : args)
    if (!a.is_array())
      MX_THROW(absl::StatusCode::kInvalidArgument, class_name(),
               " got None or nested arguments (format ", format,
               "); override forward_nested to take them");
  NDArrayVec out = forward(flat);
  if (out.size() == 1) return Nested(out[0]);
  return Nested::List(std::vector<Nested>(out.begin(), out.end()));
}

NDArray Block::forward(const NDArray& x) {
  if (forward_depth_ > 0)
    MX_THROW(absl::StatusCode::kUnimplemented, class_name(), " does not implement forward()");
  ++forward_depth_;
  struct Guard {
    int& d;
    ~Guard() { --d; }
  } g{forward_depth_};
  NDArrayVec out = forward(NDArrayVec{x});
  if (out.size() != 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, class_name(), ": forward returned ", out.size(),
             " outputs");
  return out[0];
}

NDArrayVec Block::forward(const NDArrayVec& inputs) {
  // Reached from call_nested: forward_nested takes the structured arguments.
  // (The deferred-initialization shape pass and a hybridize trace come here as well.)
  if (NestedCall* call = t_nested_call;
      call && call->block == this && !call->inside && forward_depth_ == 0) {
    Nested args = Regroup(inputs, *call->in_format);
    call->inside = true;
    Nested out;
    try {
      out = forward_nested(args.list());
    } catch (...) {
      call->inside = false;
      throw;
    }
    call->inside = false;
    auto [flat, format] = Flatten({out});
    // Flatten wraps the output in a list: drop that outer level again.
    call->out_format = format.substr(1, format.size() - 2);
    if (call->cached) {  // stored before the graph this trace builds can be replayed
      std::lock_guard<std::mutex> l(nested_mu_);
      nested_out_format_ = call->out_format;
    }
    return flat;
  }
  if (forward_depth_ > 0)
    MX_THROW(absl::StatusCode::kUnimplemented, class_name(), " does not implement forward()");
  if (inputs.size() != 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, class_name(), ": forward takes one input, got ",
             inputs.size(), " (override forward(const NDArrayVec&) for several)");
  ++forward_depth_;
  struct Guard {
    int& d;
    ~Guard() { --d; }
  } g{forward_depth_};
  return {forward(inputs[0])};
}

void Block::InferParameterShapes(const NDArrayVec& inputs) {
  ParameterDict params = collect_params();
  NDArrayVec ph;
  for (const auto& x : inputs) ph.push_back(NDArray::Placeholder(x.shape(), x.device(), x.dtype()));
  {
    DispatchStateScope scope;
    scope.state().infer_only = true;
    CallForward(ph);
  }
  for (const auto& [name, p] : params) {
    if (!p->has_deferred_init()) continue;
    p->finish_deferred_init();  // throws naming the parameter if its shape is still unknown
  }
}

// ---- Parameters I/O. ----
absl::Status Block::save_parameters(const std::string& filename, bool deduplicate) const {
  return save_parameters(filename, SaveParametersOptions{.deduplicate = deduplicate});
}

absl::Status Block::save_params(const std::string& filename) const {
  return save_parameters(filename, SaveParametersOptions{.names = ParamNames::kMxnet1Stripped});
}

absl::Status Block::load_params(const std::string& filename, const LoadParametersOptions& o) {
  return load_parameters(filename, o);
}

absl::Status Block::save_parameters(const std::string& filename,
                                    const SaveParametersOptions& opts) const {
  const bool deduplicate = opts.deduplicate;
  std::map<std::string, std::string> rename;  // structured -> file name
  if (opts.names != ParamNames::kStructured) {
    const std::string root = Mxnet1RootPrefix(*this);
    for (const auto& [structured, mx1] : mxnet1_param_names())
      rename[structured] = opts.names == ParamNames::kMxnet1 ? mx1 : mx1.substr(root.size());
  }
  // Every (structured name, parameter), shared parameters under each of their names (MXNet < 1.6
  // files without deduplication).
  std::vector<std::pair<std::string, ParameterPtr>> entries;
  std::function<void(const Block&, const std::string&)> walk = [&](const Block& b,
                                                                   const std::string& prefix) {
    for (const auto& [n, p] : b.params_) entries.push_back({prefix + n, p});
    for (const auto& [n, c] : b.children_) walk(*c, prefix + n + ".");
  };
  walk(*this, "");
  if (deduplicate) {
    // As MXNet 1.6+: one entry per parameter, at its first position, under its last name.
    std::map<const Parameter*, std::string> last_name;
    for (const auto& [n, p] : entries) last_name[p.get()] = n;
    std::vector<std::pair<std::string, ParameterPtr>> unique;
    for (const auto& [n, p] : entries)
      if (auto it = last_name.find(p.get()); it != last_name.end()) {
        unique.push_back({it->second, p});
        last_name.erase(it);
      }
    entries = std::move(unique);
  }
  std::vector<std::pair<std::string, NDArray>> arrays;
  for (const auto& [n, p] : entries) {
    absl::Status st = StatusFromCall([&, &p = p] { arrays.push_back({n, p->data()}); });
    if (!st.ok())
      return absl::Status(st.code(), StrCat("save_parameters(", filename, "): ", st.message()));
  }
  if (!rename.empty())
    for (auto& [name, _] : arrays) name = rename.at(name);
  return nd::save(filename, arrays);
}

absl::Status Block::load_parameters(const std::string& filename, const LoadParametersOptions& o) {
  auto file = nd::load(filename);
  if (!file.ok()) return file.status();
  return load_dict(file->items(), o, filename);
}

absl::Status Block::load_dict(const std::vector<std::pair<std::string, NDArray>>& dict,
                              const LoadParametersOptions& o, const std::string& source) {
  std::vector<std::pair<std::string, ParameterPtr>> params;
  std::function<void(const Block&, const std::string&)> walk = [&](const Block& b,
                                                                   const std::string& prefix) {
    for (const auto& [n, p] : b.params_) params.push_back({prefix + n, p});
    for (const auto& [n, c] : b.children_) walk(*c, prefix + n + ".");
  };
  walk(*this, "");
  std::map<std::string, NDArray> loaded;
  for (const auto& [k, v] : dict) {
    std::string key = k;
    if (StartsWith(key, "arg:") || StartsWith(key, "aux:")) key = key.substr(4);
    loaded[key] = v;
  }
  // MXNet 1.x names ("resnetv10_conv0_weight", or "conv0_weight" from save_params): when no key
  // is a structured name and none has a '.', map them through mxnet1_param_names(). The file's
  // net prefix may differ from ours ("resnetv11_", GluonCV's): the prefix P that makes the most
  // keys "P + <1.x name without our root prefix>" wins.
  {
    bool structured = false, dotted = false;
    for (const auto& [n, _] : params) structured |= loaded.count(n) > 0;
    for (const auto& [k, _] : loaded) dotted |= k.find('.') != std::string::npos;
    if (!structured && !dotted && !loaded.empty() && !params.empty()) {
      const std::string root = Mxnet1RootPrefix(*this);
      std::map<std::string, std::string> by_stripped;  // 1.x name without root -> structured
      for (const auto& [structured_name, mx1] : mxnet1_param_names())
        by_stripped.emplace(mx1.substr(root.size()), structured_name);
      std::map<std::string, int> votes;
      for (const auto& [k, _] : loaded)
        for (size_t pos = 0; pos < k.size(); pos = k.find('_', pos) + 1) {
          if (by_stripped.count(k.substr(pos))) ++votes[k.substr(0, pos)];
          if (k.find('_', pos) == std::string::npos) break;
        }
      std::string best;
      int best_votes = 0;
      for (const auto& [prefix, n] : votes)
        if (n > best_votes) best = prefix, best_votes = n;
      if (best_votes > 0) {
        std::map<std::string, NDArray> mapped;
        for (auto& [k, v] : loaded) {
          auto it =
              StartsWith(k, best) ? by_stripped.find(k.substr(best.size())) : by_stripped.end();
          mapped[it == by_stripped.end() ? k : it->second] = v;
        }
        loaded = std::move(mapped);
      }
    }
  }
  auto brief = [](const std::vector<std::string>& names) {
    std::vector<std::string> head(names.begin(), names.begin() + std::min<size_t>(names.size(), 8));
    return StrJoin(head, ", ") +
           (names.size() > 8 ? StrCat(", ... (", names.size(), " in total)") : "");
  };
  std::vector<std::string> param_names, file_names;
  for (const auto& [n, _] : params) param_names.push_back(n);
  for (const auto& [n, _] : loaded) file_names.push_back(n);
  if (!o.allow_missing) {
    for (const auto& [n, p] : params) {
      bool found = loaded.count(n) > 0;
      for (const auto& [n2, p2] : params) found |= p2 == p && loaded.count(n2);  // shared
      if (!found)
        return absl::NotFoundError(
            StrCat("Parameter '", n, "' is missing in '", source, "', which contains parameters: ",
                   brief(file_names), ". Set allow_missing=true to ignore missing parameters."));
    }
  }
  std::map<std::string, ParameterPtr> by_name(params.begin(), params.end());
  for (const auto& entry : loaded) {
    // (Not a structured binding: clang 14 cannot capture those in the lambda below.)
    const auto& n = entry.first;
    const auto& arr = entry.second;
    auto it = by_name.find(n);
    if (it == by_name.end()) {
      if (o.ignore_extra) continue;
      return absl::InvalidArgumentError(
          StrCat("Parameter '", n, "' loaded from '", source,
                 "' is not present in the block, which contains parameters: ", brief(param_names),
                 ". Set ignore_extra=true to ignore."));
    }
    Parameter& p = *it->second;
    absl::Status st = StatusFromCall([&] {
      NDArray v = arr;
      if (o.cast_dtype) {
        if (o.dtype_source == "saved")
          p.cast(v.dtype());
        else
          v = v.astype(p.dtype(), false);
      } else if (v.dtype() != p.dtype()) {
        MX_THROW(absl::StatusCode::kInvalidArgument, "dtype ", DTypeName(v.dtype()),
                 " differs from the parameter's ", DTypeName(p.dtype()),
                 " (set cast_dtype=true to convert)");
      }
      if (p.shape().ndim_known()) {
        Shape s = p.shape();
        bool ok = s.ndim() == v.shape().ndim();
        for (int i = 0; ok && i < s.ndim(); ++i) ok = s[i] < 0 || s[i] == v.shape()[i];
        if (!ok)
          MX_THROW(absl::StatusCode::kInvalidArgument, "shape ", v.shape().ToString(),
                   " does not match the parameter's shape ", s.ToString());
      }
      if (!p.is_initialized()) {
        p.set_shape(v.shape());
        p.initialize(init::Zero(), o.devices, nullptr, true);
      }
      p.set_data(v);
    });
    if (!st.ok())
      return absl::Status(st.code(),
                          StrCat("Parameter '", n, "' from '", source, "': ", st.message()));
  }
  return absl::OkStatus();
}

void Block::share_parameters(const ParameterDict& shared) {
  std::function<void(Block&, const std::string&)> walk = [&](Block& b, const std::string& prefix) {
    for (auto& [n, p] : b.params_)
      if (ParameterPtr s = shared.get(prefix + n)) p = s;
    for (auto& [n, c] : b.children_) walk(*c, prefix + n + ".");
  };
  walk(*this, "");
}

void Block::setattr(const std::string& name, const std::string& value) {
  collect_params().setattr(name, value);
}
void Block::zero_grad() { collect_params().zero_grad(); }
void Block::cast(DType dtype) {
  for (auto& [_, c] : children_) c->cast(dtype);
  for (auto& [_, p] : params_) p->cast(dtype);
}
void Block::reset_device(const std::vector<Device>& devices) {
  collect_params().reset_device(devices);
}

void Block::hybridize(bool active, const HybridizeOptions& options) {
  {
    std::lock_guard<std::mutex> l(nested_mu_);
    nested_in_format_.clear();
    nested_out_format_.clear();
  }
  for (auto& [_, c] : children_) c->hybridize(active, options);
}

void Block::register_op_hook(sym::CachedOp::Monitor callback, bool monitor_all) {
  for (auto& [_, c] : children_) c->register_op_hook(callback, monitor_all);
}

// ---- Printing. ----
std::string Block::class_name() const {
  int status = 0;
  char* d = abi::__cxa_demangle(typeid(*this).name(), nullptr, nullptr, &status);
  std::string n = status == 0 && d ? d : typeid(*this).name();
  std::free(d);
  if (auto p = n.rfind("::"); p != std::string::npos) n = n.substr(p + 2);
  return n;
}

std::string Block::ToString() const {
  std::string args = repr_args();
  if (children_.empty()) return StrCat(class_name(), "(", args, ")");
  std::string s = class_name() + "(\n";
  for (const auto& [n, c] : children_) {
    std::string child = c->ToString();
    std::string indented;
    for (char ch : child) indented += ch == '\n' ? std::string("\n  ") : std::string(1, ch);
    StrAppend(&s, "  (", n, "): ", indented, "\n");
  }
  return s + ")";
}

// ---- summary. ----
std::string Block::summary(const NDArrayVec& inputs) {
  struct Row {
    std::string key, shape;
    int64_t params = 0, trainable = 0, shared = 0;
  };
  std::vector<Row> rows;
  std::vector<const Parameter*> seen;
  std::vector<HookHandle> handles;
  auto shape_str = [](const NDArrayVec& v) {
    std::vector<std::string> parts;
    for (const auto& a : v) parts.push_back(a.shape().ToString());
    return StrJoin(parts, ", ");
  };
  rows.push_back({"Input", shape_str(inputs)});
  apply([&](Block& b) {
    if (auto* h = dynamic_cast<HybridBlock*>(&b); h && h->is_hybridized())
      MX_THROW(absl::StatusCode::kFailedPrecondition, "\"", b.class_name(),
               "\" must not be hybridized to print summary");
    std::string cn = b.class_name();
    if (cn == "Sequential" || cn == "HybridSequential") return;
    handles.push_back(
        b.register_forward_hook([&](Block& blk, const NDArrayVec&, const NDArrayVec& out) {
          Row r{StrCat(blk.class_name(), "-", rows.size()), shape_str(out)};
          for (const auto& [_, p] : blk.params()) {
            int64_t n = p->shape().Size();
            r.params += n;
            r.trainable += p->grad_req() == GradReq::kNull ? 0 : n;
            if (std::find(seen.begin(), seen.end(), p.get()) != seen.end())
              r.shared += n;
            else
              seen.push_back(p.get());
          }
          rows.push_back(r);
        }));
  });
  try {
    (*this)(inputs);
  } catch (...) {
    for (auto& h : handles) h.detach();
    throw;
  }
  for (auto& h : handles) h.detach();
  auto line = [](const std::string& a, const std::string& b, const std::string& c) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%20s  %42s %15s\n", a.c_str(), b.c_str(), c.c_str());
    return std::string(buf);
  };
  std::string out = std::string(80, '-') + "\n" + line("Layer (type)", "Output Shape", "Param #") +
                    std::string(80, '=') + "\n";
  int64_t total = 0, trainable = 0, shared = 0;
  for (const auto& r : rows) {
    out += line(r.key, r.shape, StrCat(r.params));
    total += r.params, trainable += r.trainable, shared += r.shared;
  }
  out += std::string(80, '=') + "\n";
  StrAppend(&out, "Parameters in forward computation graph, duplicate included\n",
            "   Total params: ", total, "\n", "   Trainable params: ", trainable, "\n",
            "   Non-trainable params: ", total - trainable, "\n",
            "Shared params in forward computation graph: ", shared, "\n",
            "Unique parameters in model: ", total - shared, "\n", std::string(80, '-'), "\n");
  return out;
}

// ---- save / load (structure + parameters). ----
namespace {
nlohmann::json Structure(const Block& b) {
  nlohmann::json j;
  j["class"] = b.class_name();
  j["params"] = nlohmann::json::array();
  for (const auto& [n, p] : b.params())
    j["params"].push_back({{"name", n}, {"shape", p->shape().ToString()}});
  j["children"] = nlohmann::json::array();
  for (const auto& [n, c] : b.children()) {
    nlohmann::json cj = Structure(*c);
    cj["name"] = n;
    j["children"].push_back(cj);
  }
  if (auto* h = dynamic_cast<const HybridBlock*>(&b)) j["hybridized"] = h->is_hybridized();
  return j;
}
}  // namespace

absl::Status Block::save(const std::string& prefix) const {
  std::string path = prefix + "-model.json", tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    if (!f) return absl::PermissionDeniedError(StrCat("cannot write ", tmp));
    f << Structure(*this).dump(2);
    if (!f.flush()) return absl::DataLossError(StrCat("writing ", tmp, " failed"));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return absl::PermissionDeniedError(StrCat("cannot rename ", tmp, " to ", path));
  return save_parameters(prefix + "-model.params", true);
}

absl::Status Block::load(const std::string& prefix) {
  std::ifstream f(prefix + "-model.json");
  if (!f) return absl::NotFoundError(StrCat("cannot open ", prefix, "-model.json"));
  std::stringstream ss;
  ss << f.rdbuf();
  nlohmann::json saved = nlohmann::json::parse(ss.str(), nullptr, false);
  if (saved.is_discarded())
    return absl::DataLossError(StrCat(prefix, "-model.json is not valid JSON"));
  nlohmann::json mine = Structure(*this);
  // Shapes may be unknown before the first forward; compare classes and names only.
  std::function<bool(const nlohmann::json&, const nlohmann::json&, std::string*)> same =
      [&](const nlohmann::json& a, const nlohmann::json& b, std::string* where) {
        if (!a.contains("class") || a["class"] != b["class"]) {
          *where = StrCat("block class ", a.value("class", "?"), " vs ", b.value("class", "?"));
          return false;
        }
        if (a["params"].size() != b["params"].size() ||
            a["children"].size() != b["children"].size()) {
          *where = StrCat("block ", b["class"].get<std::string>(),
                          " has a different number of parameters or children");
          return false;
        }
        for (size_t i = 0; i < a["params"].size(); ++i)
          if (a["params"][i]["name"] != b["params"][i]["name"]) {
            *where = StrCat("parameter ", a["params"][i]["name"].dump(), " vs ",
                            b["params"][i]["name"].dump());
            return false;
          }
        for (size_t i = 0; i < a["children"].size(); ++i)
          if (!same(a["children"][i], b["children"][i], where)) return false;
        return true;
      };
  std::string where;
  if (!same(saved, mine, &where))
    return absl::InvalidArgumentError(
        StrCat(prefix, "-model.json describes a different model: ", where));
  absl::Status st = load_parameters(prefix + "-model.params");
  if (!st.ok()) return st;
  if (saved.value("hybridized", false)) hybridize(true);
  return absl::OkStatus();
}

}  // namespace mxnet::gluon
