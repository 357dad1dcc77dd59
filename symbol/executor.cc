#include "symbol/executor.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "autograd/autograd.h"
#include "base/strings.h"
#include "ndarray/grad.h"
#include "symbol/graph.h"

namespace mxnet::sym {
namespace {

// ---- Gradient graph construction with the registry's FGradient definitions. ----
class SymbolGradBuilder final : public GradBuilder {
 public:
  GradValue Wrap(const NodeEntry& e) {
    entries_.push_back(e);
    return GradValue{static_cast<int>(entries_.size()) - 1};
  }
  const NodeEntry& Get(GradValue v) const { return entries_.at(v.id); }
  std::vector<GradValue> Apply(const Op& op, const OpAttrs& attrs,
                               std::span<const GradValue> inputs) override {
    auto n = std::make_shared<Node>();
    n->op = &op;
    n->attrs = attrs;
    n->params = attrs.ToDict();
    n->name = StrCat(prefix_, "_", op.name, counter_++);
    for (GradValue v : inputs) n->inputs.push_back(Get(v));
    std::vector<GradValue> out;
    for (int k = 0; k < n->num_outputs(); ++k) out.push_back(Wrap(NodeEntry{n, k, 0}));
    return out;
  }
  void set_prefix(std::string p) { prefix_ = std::move(p); }

 private:
  std::vector<NodeEntry> entries_;
  std::string prefix_ = "backward";
  int counter_ = 0;
};

struct EntryKey {
  const Node* node;
  int index;
  bool operator<(const EntryKey& o) const {
    return node != o.node ? node < o.node : index < o.index;
  }
};

// Forward outputs followed by d(outputs)/d(inputs[i]) for every i in `needs_grad`, with head
// gradients as variables "__head_grad_<k>".
Symbol BuildTrainingGraph(const Symbol& fwd, const std::vector<bool>& needs_grad,
                          const std::vector<std::string>& input_names) {
  IndexedGraph g(fwd);
  SymbolGradBuilder b;
  std::map<EntryKey, GradValue> grads;
  auto accumulate = [&](const NodeEntry& e, GradValue v) {
    EntryKey k{e.node.get(), e.index};
    auto it = grads.find(k);
    if (it == grads.end()) grads.emplace(k, v);
    else it->second = b.Add(it->second, v);
  };
  for (size_t k = 0; k < fwd.outputs().size(); ++k) {
    Symbol hg = Symbol::Variable(StrCat("__head_grad_", k));
    accumulate(fwd.outputs()[k], b.Wrap(hg.outputs()[0]));
  }
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const std::shared_ptr<Node>& n = g.nodes[i];
    if (n->is_variable()) continue;
    int nout = n->num_outputs();
    std::vector<GradValue> og(nout), outs(nout), ins;
    bool any = false;
    for (int k = 0; k < nout; ++k) {
      outs[k] = b.Wrap(NodeEntry{n, k, 0});
      auto it = grads.find(EntryKey{n.get(), k});
      if (it != grads.end()) og[k] = it->second, any = true;
    }
    if (!any) continue;
    if (!n->op->gradient) {
      if (n->op->non_differentiable) continue;
      MX_THROW(absl::StatusCode::kUnimplemented, "backward: operator ", n->op->name, " (node '",
               n->name, "') has no gradient");
    }
    for (int k = 0; k < nout; ++k)
      if (!og[k].valid()) og[k] = b.ZerosLike(outs[k]);
    for (const auto& e : n->inputs) ins.push_back(b.Wrap(e));
    b.set_prefix(n->name + "_backward");
    std::vector<GradValue> ig = n->op->gradient(b, n->attrs, ins, outs, og);
    for (size_t k = 0; k < n->inputs.size() && k < ig.size(); ++k)
      if (ig[k].valid() && !n->op->IsMutableInput(static_cast<int>(k))) accumulate(n->inputs[k], ig[k]);
  }
  std::vector<NodeEntry> outs = fwd.outputs();
  for (size_t i = 0; i < input_names.size(); ++i) {
    if (!needs_grad[i]) continue;
    const NodeEntry var{g.nodes[g.input_nodes[i]], 0, 0};
    auto it = grads.find(EntryKey{var.node.get(), 0});
    outs.push_back(it != grads.end() ? b.Get(it->second) : b.Get(b.ZerosLike(b.Wrap(var))));
  }
  return Symbol(outs);
}

// An executable graph: forward nodes first, then backward nodes.
struct Program {
  explicit Program(const Symbol& s) : graph(s) {}
  IndexedGraph graph;
  int num_forward_nodes = 0;
  int num_forward_outputs = 0;
  std::vector<int> input_node;      // per CachedOp input: node id (-1 if unused by this graph)
  std::vector<int> head_grad_node;  // per forward output: node id of its head-gradient variable
  std::vector<int> grad_input;      // per gradient output: the CachedOp input index
};

struct Plan {
  std::vector<Shape> shapes;
  std::vector<int> types;
  std::vector<int> slot;        // per entry: buffer slot, -1 external (inputs) or fresh (outputs)
  std::vector<int64_t> slot_bytes;
  MemoryStats stats;
};

struct State {
  std::vector<NDArray> slots;
  std::vector<NDArray> values;  // per entry
};

NDArray ViewOf(const NDArray& buffer, const Shape& shape, DType dtype) {
  auto impl = std::make_shared<NDArray::Impl>();
  impl->storage = buffer.impl()->storage;
  impl->offset = buffer.impl()->offset;
  impl->shape = shape;
  impl->dtype = dtype;
  return NDArray(std::move(impl));
}

std::string SignatureKey(std::span<const NDArray> in) {
  std::string k;
  for (const auto& a : in) StrAppend(&k, a.shape().ToString(), ":", DTypeFlag(a.dtype()), ";");
  return k;
}

}  // namespace

struct CachedOp::Impl {
  CachedOpOptions options;
  mutable std::mutex mu;
  std::shared_ptr<const Program> forward;
  std::map<std::vector<bool>, std::shared_ptr<const Program>> training;  // by grad mask
  // Plans by (program, signature).
  std::map<std::pair<const Program*, std::string>, std::shared_ptr<const Plan>> plans;
  std::pair<const Program*, std::string> last_key;
  std::shared_ptr<const Plan> last_plan;
  // Reusable states for static_alloc, per plan.
  std::map<const Plan*, std::vector<std::unique_ptr<State>>> free_states;
  MemoryStats last_stats;
  Monitor monitor;
  bool monitor_all = false;

  std::shared_ptr<const Program> MakeProgram(const Symbol& s, const std::vector<std::string>& names,
                                             int num_fwd_nodes, int num_fwd_outputs) {
    auto p = std::make_shared<Program>(s);
    p->num_forward_nodes = num_fwd_nodes;
    p->num_forward_outputs = num_fwd_outputs;
    std::unordered_map<std::string, int> by_name;
    for (int v : p->graph.input_nodes) by_name[p->graph.nodes[v]->name] = v;
    for (const auto& n : names) p->input_node.push_back(by_name.count(n) ? by_name[n] : -1);
    if (forward)  // training graphs start with the forward graph's nodes, in the same order
      for (int i = 0; i < num_fwd_nodes; ++i)
        MX_CHECK(p->graph.nodes[i].get() == forward->graph.nodes[i].get(), "node ", i);
    for (int k = 0; k < num_fwd_outputs; ++k) {
      auto it = by_name.find(StrCat("__head_grad_", k));
      p->head_grad_node.push_back(it == by_name.end() ? -1 : it->second);
    }
    return p;
  }

  std::shared_ptr<const Plan> MakePlan(const Program& p, std::span<const NDArray> inputs) const {
    const IndexedGraph& g = p.graph;
    auto plan = std::make_shared<Plan>();
    plan->shapes.assign(g.num_entries, Shape::Unknown());
    plan->types.assign(g.num_entries, -1);
    for (size_t i = 0; i < inputs.size(); ++i) {
      int v = p.input_node[i];
      if (v < 0) continue;
      plan->shapes[g.entry_start[v]] = inputs[i].shape();
      plan->types[g.entry_start[v]] = DTypeFlag(inputs[i].dtype());
    }
    // Head gradients have their outputs' shapes/types (known once forward is inferred).
    InferShapes(g, &plan->shapes);
    InferTypes(g, &plan->types);
    for (size_t k = 0; k < p.head_grad_node.size(); ++k) {
      int hv = p.head_grad_node[k];
      if (hv < 0) continue;
      plan->shapes[g.entry_start[hv]] = plan->shapes[g.outputs[k]];
      plan->types[g.entry_start[hv]] = plan->types[g.outputs[k]];
    }
    if (!p.head_grad_node.empty()) {
      InferShapes(g, &plan->shapes);
      InferTypes(g, &plan->types);
    }
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      for (int k = 0; k < g.nodes[n]->num_outputs(); ++k) {
        int e = g.EntryId(static_cast<int>(n), k);
        if (!plan->shapes[e].is_known() || plan->types[e] < 0)
          MX_THROW(absl::StatusCode::kInvalidArgument, "CachedOp: cannot infer the shape/dtype of '",
                   g.nodes[n]->name, "' output ", k, " (", plan->shapes[e].ToString(),
                   ") from the input shapes");
      }
    }
    // ---- Memory plan: liveness-based reuse plus in-place. ----
    std::vector<int> last_use(g.num_entries, -1);
    for (size_t n = 0; n < g.nodes.size(); ++n)
      for (const auto& e : g.nodes[n]->inputs) last_use[g.EntryId(e)] = static_cast<int>(n);
    std::vector<bool> external(g.num_entries, false);
    for (int v : g.input_nodes) external[g.entry_start[v]] = true;
    for (int e : g.outputs) external[e] = true;
    plan->slot.assign(g.num_entries, -1);
    std::multimap<int64_t, int> free_slots;  // bytes -> slot
    auto bytes_of = [&](int e) {
      return plan->shapes[e].Size() * static_cast<int64_t>(DTypeSize(static_cast<DType>(plan->types[e])));
    };
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      const Node& node = *g.nodes[n];
      if (node.is_variable()) continue;
      std::vector<bool> taken_inplace(node.inputs.size(), false);
      for (int k = 0; k < node.num_outputs(); ++k) {
        int e = g.EntryId(static_cast<int>(n), k);
        int64_t bytes = bytes_of(e);
        plan->stats.naive_bytes += external[e] ? 0 : bytes;
        if (external[e]) continue;
        int chosen = -1;
        if (options.plan_memory) {
          for (auto [i, j] : node.op->inplace) {
            if (j != k || i >= static_cast<int>(node.inputs.size()) || taken_inplace[i]) continue;
            int ein = g.EntryId(node.inputs[i]);
            int uses = 0;
            for (const auto& x : node.inputs) uses += g.EntryId(x) == ein;
            if (plan->slot[ein] >= 0 && last_use[ein] == static_cast<int>(n) && uses == 1 &&
                plan->slot_bytes[plan->slot[ein]] >= bytes && plan->types[ein] == plan->types[e]) {
              chosen = plan->slot[ein];
              taken_inplace[i] = true;
              ++plan->stats.num_inplace;
              break;
            }
          }
          if (chosen < 0) {
            auto it = free_slots.lower_bound(bytes);
            if (it != free_slots.end()) {
              chosen = it->second;
              free_slots.erase(it);
            }
          }
        }
        if (chosen < 0) {
          chosen = static_cast<int>(plan->slot_bytes.size());
          plan->slot_bytes.push_back(std::max<int64_t>(bytes, 1));
        }
        plan->slot[e] = chosen;
      }
      if (!options.plan_memory) continue;
      // Release inputs that die here (unless their buffer continues as an in-place output).
      std::vector<int> released;
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        int ein = g.EntryId(node.inputs[i]);
        if (plan->slot[ein] < 0 || last_use[ein] != static_cast<int>(n) || taken_inplace[i]) continue;
        if (std::find(released.begin(), released.end(), ein) != released.end()) continue;
        released.push_back(ein);
        free_slots.emplace(plan->slot_bytes[plan->slot[ein]], plan->slot[ein]);
      }
      // Outputs nobody reads die immediately.
      for (int k = 0; k < node.num_outputs(); ++k) {
        int e = g.EntryId(static_cast<int>(n), k);
        if (plan->slot[e] >= 0 && last_use[e] < 0)
          free_slots.emplace(plan->slot_bytes[plan->slot[e]], plan->slot[e]);
      }
    }
    for (int64_t b : plan->slot_bytes) plan->stats.planned_bytes += b;
    plan->stats.num_buffers = static_cast<int>(plan->slot_bytes.size());
    return plan;
  }

  std::shared_ptr<const Plan> GetPlan(const Program& p, std::span<const NDArray> inputs) {
    std::string sig = SignatureKey(inputs);
    std::pair<const Program*, std::string> key{&p, sig};
    {
      std::lock_guard<std::mutex> l(mu);
      if (options.static_shape && last_plan && last_key == key) return last_plan;
      auto it = plans.find(key);
      if (it != plans.end()) {
        last_key = key, last_plan = it->second;
        return it->second;
      }
    }
    std::shared_ptr<const Plan> plan = MakePlan(p, inputs);
    std::lock_guard<std::mutex> l(mu);
    plans[key] = plan;
    last_key = key, last_plan = plan;
    last_stats = plan->stats;
    return plan;
  }

  std::unique_ptr<State> AcquireState(const Plan& plan, Device dev) {
    if (options.static_alloc) {
      std::lock_guard<std::mutex> l(mu);
      auto& pool = free_states[&plan];
      if (!pool.empty()) {
        auto s = std::move(pool.back());
        pool.pop_back();
        return s;
      }
    }
    auto s = std::make_unique<State>();
    for (int64_t b : plan.slot_bytes) s->slots.emplace_back(Shape{b}, dev, DType::kUint8);
    s->values.resize(plan.shapes.size());
    return s;
  }

  void ReleaseState(const Plan& plan, std::unique_ptr<State> s) {
    if (!options.static_alloc) return;
    for (auto& v : s->values) v = NDArray();
    std::lock_guard<std::mutex> l(mu);
    free_states[&plan].push_back(std::move(s));
  }

  // Runs nodes [begin, end) of `p`.
  void Run(const Program& p, const Plan& plan, State& st, int begin, int end, Device dev,
           bool is_train, bool is_record) const {
    const IndexedGraph& g = p.graph;
    OpContext ctx{is_train, is_record, dev};
    NDArrayVec in, out;
    for (int n = begin; n < end; ++n) {
      const Node& node = *g.nodes[n];
      if (node.is_variable()) continue;
      in.clear();
      out.clear();
      for (const auto& e : node.inputs) in.push_back(st.values[g.EntryId(e)]);
      for (int k = 0; k < node.num_outputs(); ++k) {
        int e = g.EntryId(n, k);
        DType t = static_cast<DType>(plan.types[e]);
        NDArray v = plan.slot[e] >= 0 ? ViewOf(st.slots[plan.slot[e]], plan.shapes[e], t)
                                      : NDArray(plan.shapes[e], dev, t);
        st.values[e] = v;
        out.push_back(v);
      }
      try {
        node.op->SelectKernel(dev.type, node.attrs, in)(ctx, node.attrs, in, out);
      } catch (const Error& e) {
        MX_THROW(e.code(), "node '", node.name, "' (", node.op->name, "): ", e.what());
      }
      if (monitor) {
        if (monitor_all) {
          auto names = node.op->InputNames(node.attrs);
          for (size_t i = 0; i < in.size(); ++i) monitor(node.name + "_" + names[i], node.op->name, in[i]);
        }
        auto names = node.op->OutputNames(node.attrs);
        for (size_t k = 0; k < out.size(); ++k) monitor(node.name + "_" + names[k], node.op->name, out[k]);
      }
    }
  }
};

namespace {
void CheckInputs(const std::vector<std::string>& names, std::span<const NDArray> inputs) {
  if (inputs.size() != names.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "CachedOp: expected ", names.size(), " inputs (",
             StrJoin(names, ", "), "), got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_none())
      MX_THROW(absl::StatusCode::kInvalidArgument, "CachedOp: input '", names[i], "' is empty");
    if (inputs[i].device() != inputs[0].device())
      MX_THROW(absl::StatusCode::kInvalidArgument, "CachedOp: inputs on different devices ('",
               names[0], "' on ", inputs[0].device().ToString(), ", '", names[i], "' on ",
               inputs[i].device().ToString(), ")");
  }
}
}  // namespace

CachedOp::CachedOp(Symbol symbol, CachedOpOptions options)
    : symbol_(std::move(symbol)), input_names_(symbol_.list_inputs()), impl_(std::make_shared<Impl>()) {
  impl_->options = options;
  IndexedGraph g(symbol_);
  impl_->forward = impl_->MakeProgram(symbol_, input_names_, static_cast<int>(g.nodes.size()),
                                      static_cast<int>(symbol_.outputs().size()));
}

CachedOp::~CachedOp() = default;

NDArrayVec CachedOp::Forward(std::span<const NDArray> inputs, bool is_train) {
  return ForwardImpl(inputs, is_train, is_train);
}

NDArrayVec CachedOp::ForwardImpl(std::span<const NDArray> inputs, bool is_train, bool is_record) {
  CheckInputs(input_names_, inputs);
  const Program& p = *impl_->forward;
  std::shared_ptr<const Plan> plan = impl_->GetPlan(p, inputs);
  Device dev = inputs.empty() ? cpu() : inputs[0].device();
  std::unique_ptr<State> st = impl_->AcquireState(*plan, dev);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (p.input_node[i] >= 0) st->values[p.graph.entry_start[p.input_node[i]]] = inputs[i];
  impl_->Run(p, *plan, *st, 0, static_cast<int>(p.graph.nodes.size()), dev, is_train, is_record);
  NDArrayVec outs;
  for (int e : p.graph.outputs) outs.push_back(st->values[e]);
  impl_->ReleaseState(*plan, std::move(st));
  return outs;
}

namespace {
// The autograd node of one training call: forward keeps the state, backward runs the rest.
class CachedOpCall final : public autograd::Function {
 public:
  CachedOpCall(std::shared_ptr<CachedOp::Impl> impl, std::shared_ptr<const Program> program,
               std::vector<bool> needs_grad)
      : impl_(std::move(impl)), program_(std::move(program)), needs_grad_(std::move(needs_grad)) {}

  std::vector<NDArray> forward(const std::vector<NDArray>& inputs) override {
    const Program& p = *program_;
    inputs_ = inputs;
    plan_ = impl_->GetPlan(p, inputs);
    dev_ = inputs.empty() ? cpu() : inputs[0].device();
    state_ = impl_->AcquireState(*plan_, dev_);
    for (size_t i = 0; i < inputs.size(); ++i)
      if (p.input_node[i] >= 0) state_->values[p.graph.entry_start[p.input_node[i]]] = inputs[i];
    impl_->Run(p, *plan_, *state_, 0, p.num_forward_nodes, dev_, autograd::is_training(), true);
    std::vector<NDArray> outs;
    for (int k = 0; k < p.num_forward_outputs; ++k) outs.push_back(state_->values[p.graph.outputs[k]]);
    return outs;
  }

  std::vector<NDArray> backward(const std::vector<NDArray>& og) override {
    const Program& p = *program_;
    if (!state_)
      MX_THROW(absl::StatusCode::kFailedPrecondition, "CachedOp backward ran twice without retain_graph");
    for (size_t k = 0; k < og.size(); ++k)
      if (p.head_grad_node[k] >= 0) state_->values[p.graph.entry_start[p.head_grad_node[k]]] = og[k];
    impl_->Run(p, *plan_, *state_, p.num_forward_nodes, static_cast<int>(p.graph.nodes.size()), dev_,
               autograd::is_training(), false);
    std::vector<NDArray> grads(inputs_.size());
    size_t g = p.num_forward_outputs;
    for (size_t i = 0; i < inputs_.size(); ++i)
      if (needs_grad_[i]) grads[i] = state_->values[p.graph.outputs[g++]];
    impl_->ReleaseState(*plan_, std::move(state_));
    return grads;
  }

 private:
  std::shared_ptr<CachedOp::Impl> impl_;
  std::shared_ptr<const Program> program_;
  std::vector<bool> needs_grad_;
  std::vector<NDArray> inputs_;
  std::shared_ptr<const Plan> plan_;
  std::unique_ptr<State> state_;
  Device dev_;
};
}  // namespace

NDArrayVec CachedOp::operator()(std::span<const NDArray> inputs) {
  CheckInputs(input_names_, inputs);
  std::vector<bool> mask(inputs.size(), false);
  bool any = false;
  if (autograd::is_recording()) {
    IndexedGraph& g = const_cast<IndexedGraph&>(impl_->forward->graph);
    for (size_t i = 0; i < inputs.size(); ++i) {
      int v = impl_->forward->input_node[i];
      mask[i] = autograd::is_tracked(inputs[i]) && IsFloatingPoint(inputs[i].dtype()) && v >= 0 &&
                !g.is_aux[v];
      any |= mask[i];
    }
  }
  if (!any) return ForwardImpl(inputs, autograd::is_training(), autograd::is_recording());
  std::shared_ptr<const Program> program;
  {
    std::lock_guard<std::mutex> l(impl_->mu);
    auto it = impl_->training.find(mask);
    if (it != impl_->training.end()) program = it->second;
  }
  if (!program) {
    Symbol train = BuildTrainingGraph(symbol_, mask, input_names_);
    program = impl_->MakeProgram(train, input_names_, static_cast<int>(impl_->forward->graph.nodes.size()),
                                 static_cast<int>(symbol_.outputs().size()));
    std::lock_guard<std::mutex> l(impl_->mu);
    impl_->training[mask] = program;
  }
  auto call = std::make_shared<CachedOpCall>(impl_, program, mask);
  std::vector<NDArray> outs = (*call)(std::vector<NDArray>(inputs.begin(), inputs.end()));
  return NDArrayVec(outs.begin(), outs.end());
}

MemoryStats CachedOp::memory_stats() const {
  std::lock_guard<std::mutex> l(impl_->mu);
  return impl_->last_stats;
}

int CachedOp::num_compiled() const {
  std::lock_guard<std::mutex> l(impl_->mu);
  return static_cast<int>(impl_->plans.size());
}

void CachedOp::set_monitor(Monitor m, bool monitor_all) {
  std::lock_guard<std::mutex> l(impl_->mu);
  impl_->monitor = std::move(m);
  impl_->monitor_all = monitor_all;
}

}  // namespace mxnet::sym
