// HybridBlock: tracing forward() into a Symbol through the ndarray dispatch observer (MXNet 2's
// deferred compute), the cached executor, export, and shape inference for deferred init.
//
// A trace runs forward once in shape-only dispatch (DispatchState::infer_only): no kernel runs,
// every array is a placeholder carrying its inferred shape, and the Tracer records each op as a
// graph node. The call's values then come from running the graph, so stateful ops (random
// draws, Custom ops' aux states) run once per call, the first call included.
#include <cctype>
#include <cstdlib>
#include <map>
#include <mutex>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "autograd/autograd.h"
#include "base/strings.h"
#include "gluon/block.h"
#include "gluon/symbol_block.h"
#include "ndarray/io.h"

namespace mxnet::gluon {
namespace {

struct TraceEntry final : ArrayHookState {
  explicit TraceEntry(sym::NodeEntry e) : entry(std::move(e)) {}
  sym::NodeEntry entry;
};

sym::NodeEntry* EntryOf(const NDArray& a) {
  auto* t = static_cast<TraceEntry*>(a.hook_state(NDArray::HookSlot::kTrace));
  return t ? &t->entry : nullptr;
}

// Records every op dispatched under the tracing context as a graph node.
class Tracer final : public InvokeObserver {
 public:
  void OnInvoke(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
                std::span<const NDArray> outputs) override {
    auto n = std::make_shared<sym::Node>();
    n->op = &op;
    n->attrs = attrs;
    n->params = attrs.ToDict();
    n->name = sym::NameManager::Get("", sym::OpNameHint(op));
    for (size_t i = 0; i < inputs.size(); ++i) {
      sym::NodeEntry* e = EntryOf(inputs[i]);
      if (!e)
        MX_THROW(absl::StatusCode::kFailedPrecondition, "hybridize: ", op.name, " (input ",
                 op.InputNames(attrs)[i],
                 ") uses an array that is neither a block input nor a "
                 "Parameter, nor computed from them by ops. Register constants as gluon::Constant, "
                 "create them with ops inside forward, or use nd:: ops instead of NDArray views");
      n->inputs.push_back(*e);
    }
    for (size_t k = 0; k < outputs.size(); ++k) {
      outputs[k].set_hook_state(
          NDArray::HookSlot::kTrace,
          std::make_shared<TraceEntry>(sym::NodeEntry{n, static_cast<int>(k), 0}));
      traced.push_back(outputs[k]);
    }
  }
  std::vector<NDArray> traced;  // arrays whose trace state must be cleared afterwards
};

std::string InputName(size_t i, size_t n) { return n == 1 ? "data" : StrCat("data", i); }

// Serializes traces: while a block is traced its parameters' arrays carry trace state, and blocks
// may share parameters. Recursive: a forward may trace another block under another context.
std::recursive_mutex& TraceMutex() {
  static auto* mu = new std::recursive_mutex();
  return *mu;
}

// What a trace depends on: per input the rank, dtype and device, as raw bytes (built every
// call, so no formatting; one input fits std::string's inline buffer).
std::string SignatureKey(const NDArrayVec& in) {
  std::string k;
  k.reserve(in.size() * 4 * sizeof(int16_t));
  for (const auto& a : in) {
    const int16_t v[4] = {static_cast<int16_t>(a.ndim()), static_cast<int16_t>(a.dtype()),
                          static_cast<int16_t>(a.device().type),
                          static_cast<int16_t>(a.device().id)};
    k.append(reinterpret_cast<const char*>(v), sizeof v);
  }
  return k;
}

}  // namespace

void HybridBlock::CheckChild(const Block& child) const {
  if (!dynamic_cast<const HybridBlock*>(&child))
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "Children of HybridBlock must also be HybridBlock, but ", child.class_name(),
             " has type Block. If you are using Sequential, please try "
             "HybridSequential instead.");
}

void HybridBlock::hybridize(bool active, const HybridizeOptions& options) {
  active_ = active;
  options_ = options;
  ClearCache();
  Block::hybridize(active, options);
}

void HybridBlock::ClearCache() {
  std::lock_guard<std::mutex> l(cache_mu_);
  cache_.reset();
}

void HybridBlock::cast(DType dtype) {
  ClearCache();
  Block::cast(dtype);
}

sym::Symbol HybridBlock::cached_graph() const {
  std::lock_guard<std::mutex> l(cache_mu_);
  return cache_ ? cache_->graph : sym::Symbol();
}

void HybridBlock::register_op_hook(sym::CachedOp::Monitor callback, bool monitor_all) {
  Block::register_op_hook(callback, monitor_all);
  std::lock_guard<std::mutex> l(cache_mu_);
  monitor_ = std::move(callback);
  monitor_all_ = monitor_all;
  if (cache_) cache_->op->set_monitor(monitor_, monitor_all_);
}

sym::Symbol HybridBlock::TraceGraph(const NDArrayVec& inputs) {
  std::lock_guard<std::recursive_mutex> trace_lock(TraceMutex());
  Tracer tracer;
  Device dev = inputs.empty() ? cpu() : inputs[0].device();
  std::vector<NDArray> tagged;
  struct Clear {  // the trace state on parameters and traced arrays goes when the trace ends
    std::vector<NDArray>& a;
    std::vector<NDArray>& b;
    ~Clear() {
      for (auto& x : a) x.set_hook_state(NDArray::HookSlot::kTrace, nullptr);
      for (auto& x : b) x.set_hook_state(NDArray::HookSlot::kTrace, nullptr);
    }
  } clear{tagged, tracer.traced};
  // Uninitialized parameters trace through their shape-only stand-ins; those are dropped again
  // afterwards, so the trace's input shapes do not become the parameters' shapes.
  std::vector<ParameterPtr> uninitialized;
  for (const auto& [_, p] : collect_params())
    if (!p->is_initialized()) uninitialized.push_back(p);
  struct ClearPlaceholders {
    std::vector<ParameterPtr>& params;
    ~ClearPlaceholders() {
      for (const auto& p : params) p->clear_placeholder();
    }
  } clear_placeholders{uninitialized};
  NDArrayVec outs;
  {
    auto paused = autograd::pause(autograd::is_training());
    DispatchStateScope scope;
    scope.state().tracer = &tracer;
    scope.state().infer_only = true;
    // Parameters and inputs become variables of the graph. (Inside the shape-only scope an
    // uninitialized parameter's data() is its placeholder, the array forward will use.)
    for (const auto& [name, p] : collect_params()) {
      NDArray d = p->data(p->is_initialized() ? std::optional<Device>(dev) : std::nullopt);
      if (d.hook_state(NDArray::HookSlot::kTrace)) continue;  // shared parameter already tagged
      sym::Symbol v = p->var(name);
      d.set_hook_state(NDArray::HookSlot::kTrace, std::make_shared<TraceEntry>(v.outputs()[0]));
      tagged.push_back(d);
    }
    NDArrayVec views;
    for (size_t i = 0; i < inputs.size(); ++i) {
      NDArray v = NDArray::Placeholder(inputs[i].shape(), inputs[i].device(), inputs[i].dtype());
      v.set_hook_state(NDArray::HookSlot::kTrace,
                       std::make_shared<TraceEntry>(
                           sym::Symbol::Variable(InputName(i, inputs.size())).outputs()[0]));
      views.push_back(v);
    }
    outs = forward(views);
  }
  std::vector<sym::NodeEntry> heads;
  for (size_t k = 0; k < outs.size(); ++k) {
    sym::NodeEntry* e = EntryOf(outs[k]);
    if (!e) {
      MX_THROW(absl::StatusCode::kFailedPrecondition, class_name(), ": output ", k,
               " of the hybridized forward is not computed by ops from the inputs and parameters");
    }
    heads.push_back(*e);
  }
  return sym::Symbol(heads);
}

void HybridBlock::Trace(const NDArrayVec& inputs) {
  std::lock_guard<std::recursive_mutex> trace_lock(TraceMutex());
  {
    std::lock_guard<std::mutex> l(cache_mu_);  // another thread may have traced it meanwhile
    if (cache_ && cache_->key == SignatureKey(inputs)) return;
  }
  auto cache = std::make_shared<Cache>();
  cache->key = SignatureKey(inputs);
  cache->graph = TraceGraph(inputs);
  cache->op = std::make_shared<sym::CachedOp>(
      cache->graph, sym::CachedOpOptions{.static_alloc = options_.static_alloc,
                                         .static_shape = options_.static_shape,
                                         .plan_memory = true,
                                         .backend = ResolveHybridizeBackend(options_.backend)});
  if (monitor_) cache->op->set_monitor(monitor_, monitor_all_);
  std::unordered_map<std::string, ParameterPtr> param_by_name;
  for (const auto& [name, p] : collect_params()) param_by_name[name] = p;
  for (const auto& name : cache->op->input_names()) {
    int idx = -1;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (name == InputName(i, inputs.size())) idx = static_cast<int>(i);
    cache->input_index.push_back(idx);
    cache->input_param.push_back(idx < 0 ? param_by_name.at(name) : nullptr);
  }
  std::lock_guard<std::mutex> l(cache_mu_);
  cache_ = cache;
}

std::string ResolveHybridizeBackend(const std::string& backend) {
  if (!backend.empty()) return backend;
  const char* env = std::getenv("MXNET_SUBGRAPH_BACKEND");
  std::string v = env ? env : "";
  std::string lower = v;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.empty() || lower == "mkldnn" || lower == "onednn") return "onednn";
  if (lower == "none") return "none";
  return v;
}

sym::Symbol HybridBlock::operator()(const sym::Symbol& x) {
  return CallSymbolic(std::vector<sym::Symbol>{x});
}

sym::Symbol HybridBlock::operator()(const std::vector<sym::Symbol>& inputs) {
  return CallSymbolic(inputs);
}

sym::Symbol HybridBlock::CallSymbolic(const std::vector<sym::Symbol>& inputs) {
  if (inputs.empty())
    MX_THROW(absl::StatusCode::kInvalidArgument, class_name(), ": called with no symbols");
  // The placeholders' device: where the parameters live.
  Device dev = cpu();
  for (const auto& [_, p] : collect_params())
    if (p->is_initialized()) {
      dev = p->list_device()[0];
      break;
    }
  NDArrayVec views;
  std::vector<std::string> unknown;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].num_outputs() != 1)
      MX_THROW(absl::StatusCode::kInvalidArgument, class_name(), ": input ", i, " has ",
               inputs[i].num_outputs(), " outputs; pass each output as its own input");
    Shape shape = inputs[i].infer_shape_partial({}).out.at(0);
    int dtype = inputs[i].infer_type({}).out.at(0);
    if (!shape.is_known()) {
      unknown.push_back(StrCat(inputs[i].name(), " ", shape.ToString()));
      continue;
    }
    views.push_back(
        NDArray::Placeholder(shape, dev, dtype >= 0 ? static_cast<DType>(dtype) : DType::kFloat32));
  }
  sym::Symbol graph;
  if (unknown.empty()) {
    graph = TraceGraph(views);
  } else {
    graph = cached_graph();
    std::vector<std::string> args = graph.list_arguments();
    bool fits = !graph.outputs().empty();
    for (size_t i = 0; fits && i < inputs.size(); ++i)
      fits = std::find(args.begin(), args.end(), InputName(i, inputs.size())) != args.end();
    if (!fits)
      MX_THROW(absl::StatusCode::kInvalidArgument, class_name(),
               ": called on symbols whose shapes cannot be inferred (", StrJoin(unknown, ", "),
               "); give the input variables a shape (sym::VarOptions::shape) or call the "
               "hybridized block once with arrays of as many inputs first");
  }
  std::map<std::string, sym::Symbol> substitutes;
  for (size_t i = 0; i < inputs.size(); ++i) substitutes[InputName(i, inputs.size())] = inputs[i];
  return graph.compose(substitutes);
}

NDArrayVec HybridBlock::CallForward(const NDArrayVec& inputs) {
  const DispatchState& st = CurrentDispatchState();
  if (!active_ || st.tracer || st.infer_only) return forward(inputs);
  std::shared_ptr<const Cache> cache;
  {
    std::lock_guard<std::mutex> l(cache_mu_);
    cache = cache_;
  }
  if (!cache || cache->key != SignatureKey(inputs)) {
    Trace(inputs);
    std::lock_guard<std::mutex> l(cache_mu_);
    cache = cache_;
  }
  Device dev = inputs.empty() ? cpu() : inputs[0].device();
  std::vector<NDArray> args;
  for (size_t i = 0; i < cache->input_index.size(); ++i)
    args.push_back(cache->input_index[i] >= 0 ? inputs[cache->input_index[i]]
                                              : cache->input_param[i]->data(dev));
  return (*cache->op)(args);
}

void HybridBlock::infer_shape(const NDArrayVec& inputs) { InferParameterShapes(inputs); }

void HybridBlock::infer_type(const NDArrayVec& inputs) {
  // A SymbolBlock's parameters take the dtypes its graph infers from the inputs' (MXNet's
  // _infer_attrs('infer_type', 'dtype')): float64 data makes float32 weights float64.
  if (auto* sb = dynamic_cast<SymbolBlock*>(this)) {
    std::map<std::string, DType> known;
    for (size_t i = 0; i < inputs.size() && i < sb->input_names().size(); ++i)
      known[sb->input_names()[i]] = inputs[i].dtype();
    sym::InferResult<int> t = sb->graph().infer_type(known);
    std::vector<std::string> names = sb->graph().list_arguments();
    for (const auto& a : sb->graph().list_auxiliary_states()) names.push_back(a);
    t.arg.insert(t.arg.end(), t.aux.begin(), t.aux.end());
    for (size_t i = 0; i < names.size() && i < t.arg.size(); ++i) {
      if (t.arg[i] < 0) continue;
      for (const auto& [name, p] : params_)
        if (name == names[i] && p->dtype() != static_cast<DType>(t.arg[i]))
          p->cast(static_cast<DType>(t.arg[i]));
    }
  }
  // Other blocks' parameters keep their declared dtypes; the shape pass checks that every op
  // accepts them.
  InferParameterShapes(inputs);
}

void HybridBlock::optimize_for(const NDArrayVec& inputs, const std::string& backend) {
  HybridizeOptions o = options_;
  o.backend = backend;
  hybridize(true, o);
  bool deferred = false;
  for (const auto& [_, p] : collect_params()) deferred |= p->has_deferred_init();
  if (deferred) InferParameterShapes(inputs);
  Trace(inputs);
}

sym::CompileReport HybridBlock::compile_report() const {
  std::lock_guard<std::mutex> l(cache_mu_);
  return cache_ ? cache_->op->last_report() : sym::CompileReport{};
}

absl::Status HybridBlock::export_model(const std::string& path, int epoch) const {
  return export_model(path, epoch, ExportOptions{});
}

namespace {
// The graph without amp_cast / amp_multicast nodes: their consumers read the cast's input (output
// k of amp_multicast is its input k), as MXNet's Symbol.save(remove_amp_cast=True).
sym::Symbol RemoveAmpCast(const sym::Symbol& graph) {
  auto is_cast = [](const sym::NodeEntry& e) {
    return !e.node->is_variable() &&
           (e.node->op->name == "amp_cast" || e.node->op->name == "amp_multicast");
  };
  auto resolve = [&](sym::NodeEntry e) {
    while (is_cast(e))
      e = e.node->op->name == "amp_cast" ? e.node->inputs[0] : e.node->inputs[e.index];
    return e;
  };
  bool any = false;
  for (const auto& n : graph.TopoNodes()) any |= !n->is_variable() && is_cast({n, 0, 0});
  if (!any) return graph;
  sym::Symbol g = graph.copy();  // the cached graph is shared with running calls
  for (const auto& n : g.TopoNodes())
    for (auto& e : n->inputs) e = resolve(e);
  std::vector<sym::NodeEntry> heads;
  for (const auto& e : g.outputs()) heads.push_back(resolve(e));
  return sym::Symbol(heads);
}
}  // namespace

absl::Status HybridBlock::export_model(const std::string& path, int epoch,
                                       const ExportOptions& opts) const {
  absl::StatusOr<ExportedModel> m = export_model(opts);
  if (!m.ok()) return m.status();
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "-%04d.params", epoch);
  MX_RETURN_IF_ERROR(m->symbol.save(path + "-symbol.json"));
  return nd::save(path + suffix, m->params);
}

absl::StatusOr<ExportedModel> HybridBlock::export_model(const ExportOptions& opts) const {
  if (opts.names == ParamNames::kMxnet1Stripped)
    return absl::InvalidArgumentError(
        "export_model: ParamNames::kMxnet1Stripped names a save_params file, not an export (use "
        "kStructured or kMxnet1)");
  // A SymbolBlock exports the graph it was made from (MXNet sets its _cached_graph at
  // construction); other blocks their last traced graph.
  const auto* symbol_block = dynamic_cast<const SymbolBlock*>(this);
  sym::Symbol graph = symbol_block ? symbol_block->graph() : cached_graph();
  if (graph.outputs().empty())
    return absl::FailedPreconditionError(
        "Please first call block.hybridize() and then run forward with this block at least once "
        "before calling export.");
  if (opts.remove_amp_cast) graph = RemoveAmpCast(graph);
  std::vector<std::string> args = graph.list_arguments(), aux = graph.list_auxiliary_states();
  std::vector<std::pair<std::string, NDArray>> arrays;
  absl::Status st = StatusFromCall([&] {
    for (const auto& [name, p] : collect_params()) {
      if (std::find(args.begin(), args.end(), name) != args.end())
        arrays.push_back({"arg:" + name, p->data()});
      else if (std::find(aux.begin(), aux.end(), name) != aux.end())
        arrays.push_back({"aux:" + name, p->data()});
    }
  });
  MX_RETURN_IF_ERROR(st);
  if (opts.names == ParamNames::kMxnet1) {
    // The graph's parameter variables and the file's keys take the 1.x names; the graph is
    // renamed on a JSON copy (the cached graph is shared with running calls).
    std::map<std::string, std::string> rename;
    for (const auto& [structured, mx1] : mxnet1_param_names()) rename[structured] = mx1;
    for (auto& [key, _] : arrays) key = key.substr(0, 4) + rename.at(key.substr(4));
    nlohmann::json j = nlohmann::json::parse(graph.tojson());
    for (auto& node : j["nodes"])
      if (node.value("op", "") == "null")
        if (auto it = rename.find(node.value("name", "")); it != rename.end())
          node["name"] = it->second;
    MX_ASSIGN_OR_RETURN(graph, sym::Symbol::fromjson(j.dump()));
  }
  return ExportedModel{std::move(graph), std::move(arrays)};
}

}  // namespace mxnet::gluon
