#include "symbol/executor.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <unordered_map>

#include "autograd/autograd.h"
#include "base/strings.h"
#include "ndarray/grad.h"
#include "ndarray/op_writes.h"
#include "symbol/graph.h"
#include "symbol/passes/passes.h"

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
// gradients as variables "__head_grad_<k>". Inputs are found by name (the forward graph may
// lack some after the passes, or have extra constant variables).
Symbol BuildTrainingGraph(const Symbol& fwd, const std::vector<bool>& needs_grad,
                          const std::vector<std::string>& input_names) {
  IndexedGraph g(fwd);
  SymbolGradBuilder b;
  std::map<EntryKey, GradValue> grads;
  auto accumulate = [&](const NodeEntry& e, GradValue v) {
    EntryKey k{e.node.get(), e.index};
    auto it = grads.find(k);
    if (it == grads.end())
      grads.emplace(k, v);
    else
      it->second = b.Add(it->second, v);
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
      if (ig[k].valid() && !n->op->IsMutableInput(static_cast<int>(k)))
        accumulate(n->inputs[k], ig[k]);
  }
  std::unordered_map<std::string, std::shared_ptr<Node>> var_by_name;
  for (int v : g.input_nodes) var_by_name[g.nodes[v]->name] = g.nodes[v];
  std::vector<NodeEntry> outs = fwd.outputs();
  for (size_t i = 0; i < input_names.size(); ++i) {
    if (!needs_grad[i]) continue;
    auto vit = var_by_name.find(input_names[i]);
    NodeEntry var = vit != var_by_name.end() ? NodeEntry{vit->second, 0, 0}
                                             : Symbol::Variable(input_names[i]).outputs()[0];
    auto it = grads.find(EntryKey{var.node.get(), 0});
    outs.push_back(it != grads.end() ? b.Get(it->second) : b.Get(b.ZerosLike(b.Wrap(var))));
  }
  return Symbol(outs);
}

struct State {
  std::vector<NDArray> slots;
  std::vector<NDArray> values;  // per entry
  // Per entry: the view of its planned buffer made at the first run, reused by the next runs of
  // a pooled (static_alloc) state instead of a new array object per value per call. Only for
  // values the caller never sees (Plan::reuse_view).
  std::vector<NDArray> views;
};

struct Plan {
  std::vector<Shape> shapes;  // unknown for values shaped at run time (dynamic-shape ops)
  std::vector<int> types;
  bool dynamic = false;  // the graph has an op with data-dependent output shapes
  passes::MemoryPlan memory;
  // Per entry: its view may be kept across calls (a planned buffer of a fixed shape, not a graph
  // output, so no caller holds the array object).
  std::vector<char> reuse_view;
  // Reusable states for static_alloc.
  mutable std::mutex mu;
  mutable std::vector<std::unique_ptr<State>> pool;
};

// An executable graph: forward nodes first, then backward nodes.
struct Program {
  explicit Program(const Symbol& s) : symbol(s), graph(s) {}
  Symbol symbol;
  IndexedGraph graph;
  int num_forward_nodes = 0;
  int num_forward_outputs = 0;
  std::vector<int> input_node;      // per CachedOp input: node id (-1 if unused by this graph)
  std::vector<int> head_grad_node;  // per forward output: node id of its head-gradient variable
  std::vector<std::pair<int, NDArray>> constants;  // variables bound to pass-made values
  std::vector<bool> copy_output;  // per forward output: a constant or a repeated entry
  std::map<std::string, NDArray> constant_values;  // by name (reports)
  bool inference = false;
  std::vector<passes::PassResult> report;
  std::vector<std::string> folded_inputs;
  // Plans by input signature.
  mutable std::mutex mu;
  mutable std::map<std::string, std::shared_ptr<const Plan>> plans;
  mutable std::string last_sig;
  mutable std::shared_ptr<const Plan> last_plan;
};

NDArray ViewOf(const NDArray& buffer, const Shape& shape, DType dtype) {
  return NDArray::FromStorage(buffer.storage(), buffer.storage_offset(), shape, dtype);
}

// The plan/inference-graph cache key: per input its shape, dtype and device type as raw int64
// words (built on every call, so no number formatting).
std::string SignatureKey(std::span<const NDArray> in) {
  size_t words = 0;
  for (const auto& a : in) words += 3 + std::max(a.ndim(), 0);
  std::string k(words * sizeof(int64_t), '\0');
  char* out = k.data();
  auto put = [&out](int64_t v) {
    std::memcpy(out, &v, sizeof v);
    out += sizeof v;
  };
  for (const auto& a : in) {
    const Shape& s = a.shape();
    put(s.ndim());
    for (int d = 0; d < s.ndim(); ++d) put(s[d]);
    put(static_cast<int64_t>(a.dtype()));
    put(static_cast<int64_t>(a.device().type));
  }
  return k;
}

// A 64-bit fingerprint of an array's bytes (CPU arrays): per 64-bit word lane, the running sum
// and the sum of running sums (Fletcher-style, so a change anywhere and moved values both show),
// over 8 lanes the compiler vectorizes, mixed at the end. Near memory speed; any non-adversarial
// change of the contents changes it with overwhelming probability.
uint64_t Fingerprint(const NDArray& a) {
  constexpr int kLanes = 8;
  const auto* p = static_cast<const uint8_t*>(a.data_ptr());
  const size_t n = a.nbytes();
  uint64_t s1[kLanes] = {}, s2[kLanes] = {};
  size_t i = 0;
  for (; i + sizeof(uint64_t) * kLanes <= n; i += sizeof(uint64_t) * kLanes) {
    uint64_t w[kLanes];
    std::memcpy(w, p + i, sizeof w);
    for (int l = 0; l < kLanes; ++l) {
      s1[l] += w[l];
      s2[l] += s1[l];
    }
  }
  uint64_t tail[kLanes] = {};
  std::memcpy(tail, p + i, n - i);
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  uint64_t r = n * kMul;
  for (int l = 0; l < kLanes; ++l) {
    s1[l] += tail[l];
    s2[l] += s1[l];
    r = (r ^ s1[l]) * kMul;
    r ^= r >> 29;
    r = (r ^ s2[l]) * kMul;
    r ^= r >> 32;
  }
  return r;
}

// Fingerprints of several arrays, in parallel when there is enough to hash.
std::vector<uint64_t> Fingerprints(const std::vector<const NDArray*>& arrays) {
  std::vector<uint64_t> h(arrays.size());
  int64_t bytes = 0;
  for (const NDArray* a : arrays) bytes += static_cast<int64_t>(a->nbytes());
  const int64_t n = static_cast<int64_t>(arrays.size());
#pragma omp parallel for schedule(dynamic) if (bytes > (int64_t{1} << 18))
  for (int64_t i = 0; i < n; ++i) h[i] = Fingerprint(*arrays[i]);
  return h;
}

// The write version of an array's storage block (Storage::version); 0 without one.
uint64_t VersionOf(const NDArray& a) {
  const auto& s = a.storage();
  return s ? s->version() : 0;
}

// Identity of an array for folded-input checks: the array object and the bytes it views.
bool SameArray(const NDArray& a, const NDArray& b) {
  return a.is_same(b) && a.storage() == b.storage() && a.storage_offset() == b.storage_offset();
}

// Inputs folded into an inference graph that change again within kMinCallsPerFold calls, more
// than kMaxRefolds times in a row, are not folded any more for that signature (they change with
// nearly every call). Changes between longer runs of calls (training epochs with validation in
// between) keep folding.
constexpr int kMaxRefolds = 3;
constexpr int64_t kMinCallsPerFold = 8;

}  // namespace

std::string CompileReport::ToString() const {
  const char* kind = passes.size() <= 1 ? "graph as given"
                     : inference        ? "inference graph"
                                        : "training graph";
  std::string s = StrCat(kind, ": ", nodes_before, " -> ", nodes_after, " op nodes\n");
  for (const auto& r : passes) StrAppend(&s, "  ", r.ToString(), "\n");
  if (!folded_inputs.empty()) StrAppend(&s, "  folded inputs: ", folded_inputs.size(), "\n");
  return s;
}

struct CachedOp::Impl {
  CachedOpOptions options;
  std::vector<std::string> input_names;
  Symbol symbol;  // as given
  int original_nodes = 0;
  mutable std::mutex mu;
  std::shared_ptr<const Program> forward;  // the graph as given (input masks; backend none)
  std::shared_ptr<const Program> base;     // after the semantics-preserving passes
  std::map<std::vector<bool>, std::shared_ptr<const Program>> training;  // by grad mask
  // Inference graphs by input signature, with the inputs whose values they baked in.
  struct InferEntry {
    std::shared_ptr<const Program> program;
    std::vector<int> deps;  // CachedOp input indices
    std::vector<NDArray> dep_arrays;
    // Per dep: its storage block's write version when the values were folded, and (blocks with
    // untracked writes only, else 0) a fingerprint of its contents.
    std::vector<uint64_t> dep_versions;
    std::vector<uint64_t> dep_hashes;
    std::vector<char> dep_hashed;
    int refolds = 0;  // consecutive re-optimizations after few calls
    mutable std::atomic<int64_t> calls{1};
  };
  std::map<std::string, std::shared_ptr<const InferEntry>> inference;
  std::shared_ptr<const Program> last_program;
  std::shared_ptr<const Plan> last_plan;
  MemoryStats last_stats;
  CompileReport last_report;
  int num_plans = 0;
  Monitor monitor;
  bool monitor_all = false;

  bool has_passes() const { return !options.backend.empty() && options.backend != "none"; }

  std::shared_ptr<Program> MakeProgram(const Symbol& s, const Program* fwd, int num_fwd_outputs,
                                       const std::map<std::string, NDArray>& constants) const {
    auto p = std::make_shared<Program>(s);
    p->num_forward_nodes = fwd ? fwd->num_forward_nodes : static_cast<int>(p->graph.nodes.size());
    p->num_forward_outputs = num_fwd_outputs;
    std::unordered_map<std::string, int> by_name;
    for (int v : p->graph.input_nodes) by_name[p->graph.nodes[v]->name] = v;
    for (const auto& n : input_names) p->input_node.push_back(by_name.count(n) ? by_name[n] : -1);
    if (fwd)  // training graphs start with the forward graph's nodes, in the same order
      for (int i = 0; i < fwd->num_forward_nodes; ++i)
        MX_CHECK(p->graph.nodes[i].get() == fwd->graph.nodes[i].get(), "node ", i);
    for (int k = 0; k < num_fwd_outputs; ++k) {
      auto it = by_name.find(StrCat("__head_grad_", k));
      p->head_grad_node.push_back(it == by_name.end() ? -1 : it->second);
    }
    for (const auto& [name, value] : constants) {
      auto it = by_name.find(name);
      if (it == by_name.end()) continue;
      p->constants.push_back({it->second, value});
      p->constant_values[name] = value;
    }
    std::vector<int> seen;
    for (int k = 0; k < num_fwd_outputs; ++k) {
      int e = p->graph.outputs[k];
      const Node& n = *p->graph.nodes[p->graph.node_id.at(s.outputs()[k].node.get())];
      bool dup = std::find(seen.begin(), seen.end(), e) != seen.end();
      p->copy_output.push_back(dup || (n.is_variable() && constants.count(n.name)));
      seen.push_back(e);
    }
    return p;
  }

  // The graph after the semantics-preserving passes (training and is_train calls).
  std::shared_ptr<const Program> Base() {
    if (!has_passes()) return forward;
    {
      std::lock_guard<std::mutex> l(mu);
      if (base) return base;
    }
    passes::Graph g = passes::Graph::CopyOf(symbol);
    g.inference = false;
    std::vector<passes::PassResult> report = passes::RunPipeline(g, {.backend = options.backend});
    auto p = MakeProgram(g.symbol, nullptr, static_cast<int>(symbol.outputs().size()), g.constants);
    p->report = std::move(report);
    std::lock_guard<std::mutex> l(mu);
    if (!base) base = p;
    return base;
  }

  std::shared_ptr<const Program> CompileInference(std::span<const NDArray> inputs, bool fold) {
    passes::Graph g = passes::Graph::CopyOf(symbol);
    g.inference = true;
    g.declared_inputs = input_names;
    for (size_t i = 0; i < inputs.size(); ++i) {
      g.input_shapes[input_names[i]] = inputs[i].shape();
      g.input_types[input_names[i]] = inputs[i].dtype();
      if (fold) g.input_values[input_names[i]] = inputs[i];
    }
    std::vector<passes::PassResult> report =
        passes::RunPipeline(g, {.backend = options.backend, .fold_input_values = fold});
    auto p = MakeProgram(g.symbol, nullptr, static_cast<int>(symbol.outputs().size()), g.constants);
    p->inference = true;
    p->report = std::move(report);
    p->folded_inputs.assign(g.value_deps.begin(), g.value_deps.end());
    return p;
  }

  // Whether the folded inputs are the arrays the entry folded, unwritten since (write versions;
  // contents for blocks with untracked writes).
  bool DepsMatch(const InferEntry& e, std::span<const NDArray> inputs) const {
    for (size_t j = 0; j < e.deps.size(); ++j)
      if (!SameArray(inputs[e.deps[j]], e.dep_arrays[j])) return false;
    if (!options.verify_folded_inputs) return true;
    std::vector<const NDArray*> hashed;
    std::vector<uint64_t> want;
    for (size_t j = 0; j < e.deps.size(); ++j) {
      const NDArray& a = inputs[e.deps[j]];
      if (VersionOf(a) != e.dep_versions[j]) return false;
      if (e.dep_hashed[j]) hashed.push_back(&a), want.push_back(e.dep_hashes[j]);
    }
    return hashed.empty() || Fingerprints(hashed) == want;
  }

  // Records what DepsMatch compares for e's deps; `versions`: their write versions read before
  // the values were folded (so a write racing with the compile shows at the next call).
  static void RecordDeps(InferEntry* e, std::vector<uint64_t> versions) {
    std::vector<const NDArray*> hashed;
    e->dep_versions = std::move(versions);
    e->dep_hashed.clear();
    for (const NDArray& a : e->dep_arrays) {
      bool h = !a.storage() || a.storage()->untracked_writes();
      e->dep_hashed.push_back(h);
      if (h) hashed.push_back(&a);
    }
    std::vector<uint64_t> hs = Fingerprints(hashed);
    e->dep_hashes.assign(e->dep_arrays.size(), 0);
    for (size_t j = 0, k = 0; j < e->dep_arrays.size(); ++j)
      if (e->dep_hashed[j]) e->dep_hashes[j] = hs[k++];
  }

  // The inference graph for this call (compiled per signature; re-optimized when an input whose
  // value was folded in changed).
  std::shared_ptr<const Program> Inference(std::span<const NDArray> inputs,
                                           const std::string& sig) {
    if (!has_passes()) return forward;
    std::shared_ptr<const InferEntry> cur;
    {
      std::lock_guard<std::mutex> l(mu);
      auto it = inference.find(sig);
      if (it != inference.end()) cur = it->second;
    }
    if (cur && DepsMatch(*cur, inputs)) {
      cur->calls.fetch_add(1, std::memory_order_relaxed);
      return cur->program;
    }
    int refolds = !cur ? 0 : cur->calls.load() >= kMinCallsPerFold ? 1 : cur->refolds + 1;
    bool fold = refolds <= kMaxRefolds;
    for (const auto& a : inputs)
      fold &= a.device().type == DeviceType::kCPU || !options.verify_folded_inputs;
    std::vector<uint64_t> versions;
    if (fold && options.verify_folded_inputs)
      for (const auto& a : inputs) versions.push_back(VersionOf(a));
    auto e = std::make_shared<InferEntry>();
    e->program = CompileInference(inputs, fold);
    e->refolds = refolds;
    std::vector<uint64_t> dep_versions;
    for (const auto& name : e->program->folded_inputs) {
      auto it = std::find(input_names.begin(), input_names.end(), name);
      if (it == input_names.end()) continue;
      int i = static_cast<int>(it - input_names.begin());
      e->deps.push_back(i);
      e->dep_arrays.push_back(inputs[i]);
      if (!versions.empty()) dep_versions.push_back(versions[i]);
    }
    if (options.verify_folded_inputs) RecordDeps(e.get(), std::move(dep_versions));
    std::lock_guard<std::mutex> l(mu);
    inference[sig] = e;
    return e->program;
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
    for (const auto& [v, value] : p.constants) {
      plan->shapes[g.entry_start[v]] = value.shape();
      plan->types[g.entry_start[v]] = DTypeFlag(value.dtype());
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
    // Values downstream of an op with data-dependent output shapes (boolean_mask, nonzero) may
    // stay unknown here: Run infers their shapes from the actual inputs and allocates them.
    for (const auto& node : g.nodes)
      plan->dynamic |= !node->is_variable() && node->op->has_dynamic_output_shape();
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      for (int k = 0; k < g.nodes[n]->num_outputs(); ++k) {
        int e = g.EntryId(static_cast<int>(n), k);
        if (plan->types[e] < 0 || (!plan->dynamic && !plan->shapes[e].is_known()))
          MX_THROW(absl::StatusCode::kInvalidArgument,
                   "CachedOp: cannot infer the shape/dtype of '", g.nodes[n]->name, "' output ", k,
                   " (", plan->shapes[e].ToString(), ") from the input shapes");
      }
    }
    // (The planner leaves values of unknown shape out: Run allocates them.)
    plan->memory = passes::PlanMemory(g, plan->shapes, plan->types, {.reuse = options.plan_memory});
    plan->reuse_view.assign(g.num_entries, 0);
    for (int e = 0; e < g.num_entries; ++e)
      plan->reuse_view[e] = plan->memory.slot[e] >= 0 && plan->shapes[e].is_known();
    for (int e : g.outputs) plan->reuse_view[e] = 0;
    return plan;
  }

  std::shared_ptr<const Plan> GetPlan(const std::shared_ptr<const Program>& prog,
                                      std::span<const NDArray> inputs) {
    return GetPlan(prog, inputs, SignatureKey(inputs));
  }
  // The same with the inputs' SignatureKey.
  std::shared_ptr<const Plan> GetPlan(const std::shared_ptr<const Program>& prog,
                                      std::span<const NDArray> inputs, const std::string& sig) {
    const Program& p = *prog;
    {
      std::lock_guard<std::mutex> l(p.mu);
      if (options.static_shape && p.last_plan && p.last_sig == sig) return p.last_plan;
      auto it = p.plans.find(sig);
      if (it != p.plans.end()) {
        p.last_sig = sig, p.last_plan = it->second;
        return it->second;
      }
    }
    std::shared_ptr<const Plan> plan = MakePlan(p, inputs);
    {
      std::lock_guard<std::mutex> l(p.mu);
      p.plans[sig] = plan;
      p.last_sig = sig, p.last_plan = plan;
    }
    CompileReport rep;
    rep.inference = p.inference;
    rep.passes = p.report;
    passes::PassResult mr;
    mr.pass = "memory_plan";
    mr.nodes_before = mr.nodes_after = passes::CountOpNodes(p.symbol);
    const MemoryStats& m = plan->memory.stats;
    mr.summary = StrCat(m.num_values, " values in ", m.num_buffers, " buffers (", m.num_inplace,
                        " in place): ", passes::FormatBytes(m.planned_bytes), " planned vs ",
                        passes::FormatBytes(m.naive_bytes), " naive");
    rep.passes.push_back(mr);
    rep.nodes_before = original_nodes;
    rep.nodes_after = mr.nodes_after;
    rep.folded_inputs = p.folded_inputs;
    rep.memory = m;
    std::lock_guard<std::mutex> l(mu);
    ++num_plans;
    last_stats = m;
    last_report = std::move(rep);
    last_program = prog;
    last_plan = plan;
    return plan;
  }

  std::unique_ptr<State> AcquireState(const Plan& plan, Device dev) {
    if (options.static_alloc) {
      std::lock_guard<std::mutex> l(plan.mu);
      if (!plan.pool.empty()) {
        auto s = std::move(plan.pool.back());
        plan.pool.pop_back();
        return s;
      }
    }
    auto s = std::make_unique<State>();
    for (int64_t b : plan.memory.slot_bytes) s->slots.emplace_back(Shape{b}, dev, DType::kUint8);
    s->values.resize(plan.shapes.size());
    s->views.resize(plan.shapes.size());
    return s;
  }

  void ReleaseState(const Plan& plan, std::unique_ptr<State> s) {
    if (!options.static_alloc) return;
    for (auto& v : s->values) v = NDArray();
    std::lock_guard<std::mutex> l(plan.mu);
    plan.pool.push_back(std::move(s));
  }

  // Binds the inputs and the program's constants.
  static void Bind(const Program& p, State& st, std::span<const NDArray> inputs, Device dev) {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (p.input_node[i] >= 0) st.values[p.graph.entry_start[p.input_node[i]]] = inputs[i];
    for (const auto& [v, value] : p.constants)
      st.values[p.graph.entry_start[v]] = value.as_in_context(dev);
  }

  static NDArrayVec Outputs(const Program& p, const State& st) {
    NDArrayVec outs;
    for (int k = 0; k < p.num_forward_outputs; ++k) {
      const NDArray& v = st.values[p.graph.outputs[k]];
      outs.push_back(p.copy_output[k] ? v.copy() : v);
    }
    return outs;
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
      ShapeVec run_shapes;  // shapes inferred now from the actual inputs (dynamic plans)
      for (int k = 0; k < node.num_outputs(); ++k) {
        int e = g.EntryId(n, k);
        DType t = static_cast<DType>(plan.types[e]);
        int slot = plan.memory.slot[e];
        if (!plan.shapes[e].is_known() && run_shapes.empty()) {
          DTypeVec run_types;
          try {
            InferOutputsFromData(*node.op, node.attrs, in, &run_shapes, &run_types);
          } catch (const Error& err) {
            MX_THROW(err.code(), "node '", node.name, "' (", node.op->name, "): ", err.what());
          }
        }
        const Shape& shape = plan.shapes[e].is_known() ? plan.shapes[e] : run_shapes[k];
        if (plan.reuse_view[e]) {
          NDArray& view = st.views[e];
          if (view.is_none()) view = ViewOf(st.slots[slot], shape, t);
          st.values[e] = view;
        } else {
          st.values[e] = slot >= 0 ? ViewOf(st.slots[slot], shape, t) : NDArray(shape, dev, t);
        }
        out.push_back(st.values[e]);
      }
      try {
        node.op->SelectKernel(dev.type, node.attrs, in)(ctx, node.attrs, in, out);
      } catch (const Error& e) {
        MX_THROW(e.code(), "node '", node.name, "' (", node.op->name, "): ", e.what());
      }
      // New bytes (Storage::version): the outputs and what the op updates in place (aux states
      // of the caller's arrays in training calls).
      for (const NDArray& o : out) o.mark_written();
      if (MayWriteMutableInputs(*node.op, ctx))
        for (int i : node.op->mutable_inputs)
          if (i >= 0 && static_cast<size_t>(i) < in.size()) in[i].mark_written();
      if (monitor) {
        if (monitor_all) {
          auto names = node.op->InputNames(node.attrs);
          for (size_t i = 0; i < in.size(); ++i)
            monitor(node.name + "_" + names[i], node.op->name, in[i]);
        }
        auto names = node.op->OutputNames(node.attrs);
        for (size_t k = 0; k < out.size(); ++k)
          monitor(node.name + "_" + names[k], node.op->name, out[k]);
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
    : symbol_(std::move(symbol)),
      input_names_(symbol_.list_inputs()),
      impl_(std::make_shared<Impl>()) {
  passes::CheckBackendName(options.backend);
  impl_->options = options;
  impl_->input_names = input_names_;
  impl_->symbol = symbol_;
  impl_->forward =
      impl_->MakeProgram(symbol_, nullptr, static_cast<int>(symbol_.outputs().size()), {});
  impl_->original_nodes = passes::CountOpNodes(symbol_);
}

CachedOp::~CachedOp() = default;

NDArrayVec CachedOp::Forward(std::span<const NDArray> inputs, bool is_train) {
  return ForwardImpl(inputs, is_train, is_train);
}

NDArrayVec CachedOp::ForwardImpl(std::span<const NDArray> inputs, bool is_train, bool is_record) {
  CheckInputs(input_names_, inputs);
  const std::string sig = SignatureKey(inputs);  // built once per call
  std::shared_ptr<const Program> prog = is_train ? impl_->Base() : impl_->Inference(inputs, sig);
  const Program& p = *prog;
  std::shared_ptr<const Plan> plan = impl_->GetPlan(prog, inputs, sig);
  Device dev = inputs.empty() ? cpu() : inputs[0].device();
  std::unique_ptr<State> st = impl_->AcquireState(*plan, dev);
  Impl::Bind(p, *st, inputs, dev);
  impl_->Run(p, *plan, *st, 0, static_cast<int>(p.graph.nodes.size()), dev, is_train, is_record);
  NDArrayVec outs = Impl::Outputs(p, *st);
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
    plan_ = impl_->GetPlan(program_, inputs);
    dev_ = inputs.empty() ? cpu() : inputs[0].device();
    state_ = impl_->AcquireState(*plan_, dev_);
    CachedOp::Impl::Bind(p, *state_, inputs, dev_);
    impl_->Run(p, *plan_, *state_, 0, p.num_forward_nodes, dev_, autograd::is_training(), true);
    NDArrayVec outs = CachedOp::Impl::Outputs(p, *state_);
    return std::vector<NDArray>(outs.begin(), outs.end());
  }

  std::vector<NDArray> backward(const std::vector<NDArray>& og) override {
    const Program& p = *program_;
    if (!state_)
      MX_THROW(absl::StatusCode::kFailedPrecondition,
               "CachedOp backward ran twice without retain_graph");
    for (size_t k = 0; k < og.size(); ++k)
      if (p.head_grad_node[k] >= 0)
        state_->values[p.graph.entry_start[p.head_grad_node[k]]] = og[k];
    impl_->Run(p, *plan_, *state_, p.num_forward_nodes, static_cast<int>(p.graph.nodes.size()),
               dev_, autograd::is_training(), false);
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
    const IndexedGraph& g = impl_->forward->graph;
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
    std::shared_ptr<const Program> base = impl_->Base();
    Symbol train = BuildTrainingGraph(base->symbol, mask, input_names_);
    auto p = impl_->MakeProgram(train, base.get(), static_cast<int>(symbol_.outputs().size()),
                                base->constant_values);
    p->report = base->report;
    program = p;
    std::lock_guard<std::mutex> l(impl_->mu);
    impl_->training[mask] = program;
  }
  auto call = std::make_shared<CachedOpCall>(impl_, program, mask);
  std::vector<NDArray> outs = (*call)(std::vector<NDArray>(inputs.begin(), inputs.end()));
  return NDArrayVec(outs.begin(), outs.end());
}

Symbol GradientGraph(const Symbol& fwd, const std::vector<bool>& needs_grad,
                     const std::vector<std::string>& input_names) {
  return BuildTrainingGraph(fwd, needs_grad, input_names);
}

MemoryStats CachedOp::memory_stats() const {
  std::lock_guard<std::mutex> l(impl_->mu);
  return impl_->last_stats;
}

CompileReport CachedOp::last_report() const {
  std::lock_guard<std::mutex> l(impl_->mu);
  return impl_->last_report;
}

Symbol CachedOp::optimized_symbol() const {
  std::lock_guard<std::mutex> l(impl_->mu);
  return impl_->last_program ? impl_->last_program->symbol : Symbol();
}

std::map<std::string, NDArray> CachedOp::optimized_constants() const {
  std::lock_guard<std::mutex> l(impl_->mu);
  return impl_->last_program ? impl_->last_program->constant_values
                             : std::map<std::string, NDArray>{};
}

absl::Status CachedOp::verify_memory_plan() const {
  std::shared_ptr<const Program> prog;
  std::shared_ptr<const Plan> plan;
  {
    std::lock_guard<std::mutex> l(impl_->mu);
    prog = impl_->last_program;
    plan = impl_->last_plan;
  }
  if (!prog || !plan) return absl::OkStatus();
  return passes::VerifyMemoryPlan(prog->graph, plan->shapes, plan->types, plan->memory);
}

int CachedOp::num_compiled() const {
  std::lock_guard<std::mutex> l(impl_->mu);
  return impl_->num_plans;
}

void CachedOp::set_monitor(Monitor m, bool monitor_all) {
  std::lock_guard<std::mutex> l(impl_->mu);
  impl_->monitor = std::move(m);
  impl_->monitor_all = monitor_all;
}

}  // namespace mxnet::sym
