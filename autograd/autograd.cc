#include "autograd/autograd.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "autograd/grad_hooks.h"
#include "ndarray/grad.h"
#include "ndarray/sparse.h"

namespace mxnet::autograd {
namespace {

std::atomic<int64_t> g_live_nodes{0};
// Creation numbers for get_symbol's names (internal::HistoryNode::id): recorded operations, and
// variables and constants (one counter, as MXNet's variable_count_).
std::atomic<int64_t> g_node_count{0};
std::atomic<int64_t> g_variable_count{0};

struct Node;
// An input without history (a constant) of a recorded op, kept for get_symbol: its identity
// (not its value; the array may be freed) and creation number.
struct ConstInput {
  NDArray::WeakRef array;
  int64_t id = -1;  // -1: this input has history
};

struct Entry {
  std::shared_ptr<Node> node;  // null: a constant (no gradient flows)
  int index = 0;
};

// One recorded operation (or a leaf variable).
struct Node {
  const Op* op = nullptr;
  OpAttrs attrs;
  std::shared_ptr<Function> fn;  // custom Function node
  std::vector<Entry> inputs;
  std::vector<ConstInput> consts;            // per input if any input is a constant, else empty
  int64_t id = -1;                           // creation number (g_node_count or g_variable_count)
  std::vector<NDArray> saved_in, saved_out;  // detached views (no autograd state)
  std::vector<Shape> out_shapes;
  std::vector<DType> out_types;
  Device device;
  bool freed = false;
  // Leaf variables.
  bool is_leaf = false;
  NDArray::WeakRef var;

  Node() { ++g_live_nodes; }
  ~Node() { --g_live_nodes; }
};

struct AGEntry final : ArrayHookState {
  explicit AGEntry(Entry e) : entry(std::move(e)) {}
  Entry entry;
};

std::mutex g_leaf_mu;  // leaf creation for variables shared across threads

// The autograd entry of `a`: its recorded producer, a (new) leaf for a variable, or none.
Entry EntryOf(const NDArray& a) {
  std::lock_guard<std::mutex> l(g_leaf_mu);
  if (auto* s = a.hook_state(NDArray::HookSlot::kAutograd)) return static_cast<AGEntry*>(s)->entry;
  if (a.grad_req() == GradReq::kNull || !a.has_grad()) return {};
  auto leaf = std::make_shared<Node>();
  leaf->is_leaf = true;
  leaf->id = g_variable_count.fetch_add(1, std::memory_order_relaxed);
  leaf->var = a.weak_ref();
  leaf->out_shapes = {a.shape()};
  leaf->out_types = {a.dtype()};
  leaf->device = a.device();
  Entry e{leaf, 0};
  a.set_hook_state(NDArray::HookSlot::kAutograd, std::make_shared<AGEntry>(e));
  return e;
}

void SetEntry(const NDArray& a, Entry e) {
  a.set_hook_state(NDArray::HookSlot::kAutograd, std::make_shared<AGEntry>(std::move(e)));
}

// A view of `a` carrying entry `e` (so ops applied to it are recorded against e's history).
NDArray Tracked(const NDArray& a, const Entry& e) {
  if (a.is_none()) return a;
  NDArray v = a.ViewAs(a.shape());
  if (e.node) SetEntry(v, e);
  return v;
}

NDArray Detached(const NDArray& a) { return a.ViewAs(a.shape()); }

class Recorder final : public InvokeObserver {
 public:
  void OnInvoke(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
                std::span<const NDArray> outputs) override {
    if (op.non_differentiable || !op.gradient) return;  // outputs are constants
    std::vector<Entry> in(inputs.size());
    bool any = false;
    for (size_t i = 0; i < inputs.size(); ++i) {
      in[i] = EntryOf(inputs[i]);
      any |= in[i].node != nullptr;
    }
    if (!any) return;
    auto node = std::make_shared<Node>();
    node->op = &op;
    node->attrs = attrs;
    node->id = g_node_count.fetch_add(1, std::memory_order_relaxed);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (in[i].node) continue;
      if (node->consts.empty()) node->consts.resize(inputs.size());
      node->consts[i] = {inputs[i].weak_ref(),
                         g_variable_count.fetch_add(1, std::memory_order_relaxed)};
    }
    node->inputs = std::move(in);
    node->device = outputs.empty() ? cpu() : outputs[0].device();
    if (op.grad_uses_inputs)
      for (const auto& x : inputs) node->saved_in.push_back(Detached(x));
    else
      node->saved_in.resize(inputs.size());
    for (const auto& y : outputs) {
      node->out_shapes.push_back(y.shape());
      node->out_types.push_back(y.dtype());
      node->saved_out.push_back(op.grad_uses_outputs ? Detached(y) : NDArray());
    }
    for (size_t k = 0; k < outputs.size(); ++k)
      SetEntry(outputs[k], Entry{node, static_cast<int>(k)});
  }
};

void BackwardFromArray(const NDArray& head, const NDArray& head_grad, bool retain_graph,
                       bool train_mode) {
  backward({head}, {head_grad}, retain_graph, train_mode);
}

// NDArray::backward reaches autograd through this hook (alwayslink keeps it).
const bool kBackwardHookInstalled = [] {
  SetBackwardHook(&BackwardFromArray);
  return true;
}();

Recorder* GetRecorder() {
  static Recorder* r = [] {
    auto* rec = new Recorder();
    SetRecordObserver(rec);
    return rec;
  }();
  return r;
}

struct EntryKey {
  Node* node;
  int index;
  bool operator==(const EntryKey& o) const { return node == o.node && index == o.index; }
};
struct EntryKeyHash {
  size_t operator()(const EntryKey& k) const {
    return std::hash<Node*>()(k.node) * 31 + static_cast<size_t>(k.index);
  }
};

using GradMap = std::unordered_map<EntryKey, NDArray, EntryKeyHash>;

// Runs the backward pass; returns accumulated gradients per entry. on_leaf (optional) is called
// for each leaf as soon as its gradient is final: the reverse walk reaches a leaf only after
// every node that reads it.
GradMap RunBackward(const std::vector<NDArray>& heads, const std::vector<NDArray>& head_grads,
                    bool retain_graph, bool create_graph, bool train_mode,
                    std::vector<std::shared_ptr<Node>>* order_out,
                    const std::function<void(Node*, const GradMap&)>& on_leaf = {}) {
  GetRecorder();
  if (!head_grads.empty() && head_grads.size() != heads.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "backward: ", heads.size(), " heads but ",
             head_grads.size(), " head gradients");
  GradMap grads;
  DispatchStateScope restore;
  DispatchState& st = restore.state();
  st.is_recording = create_graph;
  st.is_training = train_mode;

  auto accumulate = [&](const Entry& e, const NDArray& g) {
    EntryKey k{e.node.get(), e.index};
    auto it = grads.find(k);
    if (it == grads.end()) {
      grads.emplace(k, g);
    } else if (it->second.stype() == StorageType::kRowSparse &&
               g.stype() == StorageType::kRowSparse && !create_graph) {
      it->second = RowSparseAdd(it->second, g);  // row_sparse gradients stay row_sparse
    } else {
      const Op& add = OpRegistry::Get("elemwise_add");
      it->second = Invoke(add, OpAttrs::Parse(add, {}), std::vector<NDArray>{it->second, g})[0];
    }
  };

  std::vector<std::shared_ptr<Node>> roots;
  for (size_t i = 0; i < heads.size(); ++i) {
    const NDArray& h = heads[i];
    Entry e = h.is_none() ? Entry{} : EntryOf(h);
    if (!e.node)
      MX_THROW(absl::StatusCode::kFailedPrecondition, "backward: head ", i,
               " was not recorded (compute it inside autograd::record() from arrays that called "
               "attach_grad())");
    NDArray g = head_grads.empty() || head_grads[i].is_none()
                    ? NDArray::Full(h.shape(), 1.0, h.device(), h.dtype())
                    : head_grads[i];
    if (g.shape() != h.shape())
      MX_THROW(absl::StatusCode::kInvalidArgument, "backward: head gradient ", i, " has shape ",
               g.shape().ToString(), " but the head has shape ", h.shape().ToString());
    accumulate(e, g);
    roots.push_back(e.node);
  }

  // Topological order (post-order DFS, iterative).
  std::vector<std::shared_ptr<Node>> order;
  std::unordered_set<Node*> seen;
  std::vector<std::pair<std::shared_ptr<Node>, size_t>> stack;
  for (auto& r : roots) {
    if (!seen.insert(r.get()).second) continue;
    stack.push_back({r, 0});
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      if (next < n->inputs.size()) {
        std::shared_ptr<Node> c = n->inputs[next++].node;
        if (c && seen.insert(c.get()).second) stack.push_back({c, 0});
      } else {
        order.push_back(n);
        stack.pop_back();
      }
    }
  }

  // on_leaf: a leaf's gradient is final once every node reading it ran (or was skipped), which
  // in a deep net is right after its layer's op, long before the leaf's own place in `order`.
  std::unordered_map<Node*, int> uses;
  if (on_leaf)
    for (const auto& n : order)
      for (const Entry& e : n->inputs)
        if (e.node && e.node->is_leaf) ++uses[e.node.get()];
  auto release = [&](Node* n) {
    if (!on_leaf) return;
    for (const Entry& e : n->inputs)
      if (e.node && e.node->is_leaf && --uses[e.node.get()] == 0) on_leaf(e.node.get(), grads);
  };
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* n = it->get();
    if (n->is_leaf) {
      // Leaves read by a node were reported by release(); a head that is a variable is not read.
      if (on_leaf && !uses.count(n)) on_leaf(n, grads);
      continue;
    }
    size_t nout = n->out_shapes.size();
    bool any = false;
    std::vector<NDArray> og(nout);
    for (size_t k = 0; k < nout; ++k) {
      auto g = grads.find(EntryKey{n, static_cast<int>(k)});
      if (g != grads.end()) {
        og[k] = g->second;
        any = true;
      }
    }
    if (!any) {
      release(n);
      continue;
    }
    if (n->freed)
      MX_THROW(absl::StatusCode::kFailedPrecondition, "backward: the graph through ",
               n->op ? n->op->name : std::string("a Function"),
               " has already been freed by a previous backward; pass retain_graph=true to the "
               "first backward to run it again");
    for (size_t k = 0; k < nout; ++k)
      if (og[k].is_none()) og[k] = NDArray::Full(n->out_shapes[k], 0.0, n->device, n->out_types[k]);
    std::vector<NDArray> in_grads;
    if (n->fn) {
      {
        DispatchStateScope inner;
        inner.state().is_recording = false;
        in_grads = n->fn->backward(og);
      }
      if (in_grads.size() != n->inputs.size())
        MX_THROW(absl::StatusCode::kInvalidArgument, "autograd::Function::backward returned ",
                 in_grads.size(), " gradients for ", n->inputs.size(), " inputs");
    } else {
      std::vector<NDArray> in(n->saved_in.size()), out(n->saved_out.size());
      for (size_t i = 0; i < in.size(); ++i)
        in[i] = create_graph ? Tracked(n->saved_in[i], n->inputs[i]) : n->saved_in[i];
      for (size_t k = 0; k < out.size(); ++k)
        out[k] = create_graph ? Tracked(n->saved_out[k], Entry{*it, static_cast<int>(k)})
                              : n->saved_out[k];
      in_grads = EagerGradBuilder::Run(*n->op, n->attrs, in, out, og);
    }
    for (size_t i = 0; i < n->inputs.size(); ++i)
      if (n->inputs[i].node && !in_grads[i].is_none()) accumulate(n->inputs[i], in_grads[i]);
    if (!retain_graph && !create_graph) {
      n->saved_in.clear();
      n->saved_out.clear();
      n->freed = true;
    }
    release(n);
  }
  if (order_out) *order_out = std::move(order);
  return grads;
}

}  // namespace

bool is_recording() { return CurrentDispatchState().is_recording; }
bool is_training() { return CurrentDispatchState().is_training; }

bool set_recording(bool v) {
  GetRecorder();
  DispatchState& st = CurrentDispatchState();
  return std::exchange(st.is_recording, v);
}

bool set_training(bool v) { return std::exchange(CurrentDispatchState().is_training, v); }

Scope::Scope(bool recording, bool training)
    : state_(&CurrentDispatchState()),
      prev_recording_(set_recording(recording)),
      prev_training_(set_training(training)) {}
Scope::Scope(Scope&& o) noexcept
    : state_(o.state_), prev_recording_(o.prev_recording_), prev_training_(o.prev_training_) {
  o.active_ = false;
}
Scope::~Scope() {
  if (!active_) return;
  state_->is_recording = prev_recording_;
  state_->is_training = prev_training_;
}

Scope record(bool train_mode) { return Scope(true, train_mode); }
Scope pause(bool train_mode) { return Scope(false, train_mode); }
Scope train_mode() { return Scope(is_recording(), true); }
Scope predict_mode() { return Scope(is_recording(), false); }

void mark_variables(const std::vector<NDArray>& variables, const std::vector<NDArray>& gradients,
                    const std::vector<GradReq>& grad_reqs) {
  if (variables.size() != gradients.size() || variables.size() != grad_reqs.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "mark_variables: ", variables.size(),
             " variables, ", gradients.size(), " gradients and ", grad_reqs.size(), " grad_reqs");
  for (size_t i = 0; i < variables.size(); ++i) {
    if (gradients[i].shape() != variables[i].shape())
      MX_THROW(absl::StatusCode::kInvalidArgument, "mark_variables: gradient ", i, " has shape ",
               gradients[i].shape().ToString(), ", variable has ", variables[i].shape().ToString());
    variables[i].set_grad_buffer(gradients[i], grad_reqs[i]);
    variables[i].set_hook_state(NDArray::HookSlot::kAutograd, nullptr);
  }
}

namespace {

std::mutex g_hooks_mu;
std::map<int64_t, GradReadyHook> g_hooks;
int64_t g_next_hook = 1;

// Writes leaf n's gradient into its variable's buffer; returns the variable if it wrote one.
NDArray WriteLeafGrad(Node* n, const GradMap& grads) {
  auto g = grads.find(EntryKey{n, 0});
  NDArray var = NDArray::Lock(n->var);
  if (var.is_none()) return {};
  const GradReq req = var.grad_req();
  NDArray buf = var.grad();
  if (buf.is_none() || req == GradReq::kNull) return {};
  if (g == grads.end()) {
    // Reachable from the heads but no gradient flows (e.g. through BlockGrad): like MXNet,
    // grad_req write stores zeros, add keeps the sum; both count as written.
    if (req == GradReq::kWrite) buf.Fill(0.0);
  } else if (req == GradReq::kAdd && buf.stype() == StorageType::kRowSparse) {
    // A row_sparse buffer keeps the union of its rows and the new ones (MXNet's add).
    RowSparseAdd(buf, g->second.astype(buf.dtype(), false).tostype(StorageType::kRowSparse))
        .copyto(buf);
  } else if (req == GradReq::kAdd) {
    const Op& add = OpRegistry::Get("elemwise_add");
    NDArray sum = Invoke(add, OpAttrs::Parse(add, {}),
                         std::vector<NDArray>{buf, g->second.astype(buf.dtype(), false)})[0];
    sum.copyto(buf);
  } else {
    g->second.copyto(buf);
  }
  var.set_fresh_grad(true);  // NDArray::fresh_grad (Trainer's stale-gradient check)
  return var;
}

}  // namespace

int64_t AddGradReadyHook(GradReadyHook hook) {
  if (!hook) MX_THROW(absl::StatusCode::kInvalidArgument, "AddGradReadyHook: empty hook");
  std::lock_guard<std::mutex> l(g_hooks_mu);
  const int64_t id = g_next_hook++;
  g_hooks.emplace(id, std::move(hook));
  return id;
}

void RemoveGradReadyHook(int64_t id) {
  std::lock_guard<std::mutex> l(g_hooks_mu);
  g_hooks.erase(id);
}

void backward(const std::vector<NDArray>& heads, const std::vector<NDArray>& head_grads,
              bool retain_graph, bool train_mode) {
  std::vector<GradReadyHook> hooks;
  {
    std::lock_guard<std::mutex> l(g_hooks_mu);
    for (const auto& [id, h] : g_hooks) hooks.push_back(h);
  }
  std::vector<std::shared_ptr<Node>> order;
  if (!hooks.empty()) {
    // Each buffer written (and reported) as soon as its gradient is final. RunBackward's
    // dispatch state (not recording, train_mode) covers the writes.
    RunBackward(heads, head_grads, retain_graph, false, train_mode, &order,
                [&](Node* n, const GradMap& grads) {
                  NDArray v = WriteLeafGrad(n, grads);
                  if (v.is_none()) return;
                  for (const auto& h : hooks) h(v);
                });
    return;
  }
  auto grads = RunBackward(heads, head_grads, retain_graph, false, train_mode, &order);
  auto paused = pause(train_mode);
  for (const auto& n : order)
    if (n->is_leaf) WriteLeafGrad(n.get(), grads);
}

std::vector<NDArray> grad(const std::vector<NDArray>& heads, const std::vector<NDArray>& variables,
                          const std::vector<NDArray>& head_grads, bool retain_graph,
                          bool create_graph, bool train_mode) {
  std::vector<Entry> var_entries;
  for (size_t i = 0; i < variables.size(); ++i) {
    Entry e = variables[i].is_none() ? Entry{} : EntryOf(variables[i]);
    if (!e.node)
      MX_THROW(absl::StatusCode::kFailedPrecondition, "grad: variable ", i,
               " is neither marked (attach_grad) nor computed while recording");
    var_entries.push_back(e);
  }
  auto grads = RunBackward(heads, head_grads, retain_graph, create_graph, train_mode, nullptr);
  std::vector<NDArray> out;
  for (size_t i = 0; i < variables.size(); ++i) {
    auto g = grads.find(EntryKey{var_entries[i].node.get(), var_entries[i].index});
    out.push_back(g != grads.end() ? g->second
                                   : NDArray::Full(variables[i].shape(), 0.0, variables[i].device(),
                                                   variables[i].dtype()));
  }
  return out;
}

bool is_tracked(const NDArray& a) {
  return !a.is_none() && (a.hook_state(NDArray::HookSlot::kAutograd) ||
                          (a.grad_req() != GradReq::kNull && a.has_grad()));
}

std::vector<NDArray> Function::operator()(const std::vector<NDArray>& inputs) {
  GetRecorder();
  std::vector<NDArray> outs;
  {
    auto paused = pause(is_training());
    outs = forward(inputs);
  }
  for (auto& o : outs) o = o.ViewAs(o.shape());  // fresh handles we may attach history to
  if (!is_recording()) return outs;
  std::vector<Entry> in(inputs.size());
  bool any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    in[i] = EntryOf(inputs[i]);
    any |= in[i].node != nullptr;
  }
  if (!any) return outs;
  auto node = std::make_shared<Node>();
  node->fn = shared_from_this();
  node->inputs = std::move(in);
  node->device = outs.empty() ? cpu() : outs[0].device();
  for (const auto& y : outs) {
    node->out_shapes.push_back(y.shape());
    node->out_types.push_back(y.dtype());
  }
  for (size_t k = 0; k < outs.size(); ++k) SetEntry(outs[k], Entry{node, static_cast<int>(k)});
  return outs;
}

int64_t LiveNodeCount() { return g_live_nodes.load(); }

namespace internal {

History RecordedHistory(const NDArray& x) {
  Entry head = x.is_none() ? Entry{} : EntryOf(x);
  if (!head.node)
    MX_THROW(absl::StatusCode::kFailedPrecondition,
             "get_symbol: the array is not part of a computation graph (it has no recorded "
             "history and is not a variable); compute it inside autograd::record() from arrays "
             "that called attach_grad()");
  auto check = [](const Node& n) {
    if (n.fn)
      MX_THROW(absl::StatusCode::kUnimplemented,
               "get_symbol: the history passes through an autograd::Function (a custom Function "
               "or a hybridized block's CachedOp call), which has no symbolic form");
    if (n.freed)
      MX_THROW(absl::StatusCode::kFailedPrecondition, "get_symbol: the history through ",
               n.op->name,
               " was freed by backward; record again, or pass retain_graph=true to "
               "backward to keep it");
  };
  History h;
  std::unordered_map<const Node*, int> pos;
  std::map<NDArray::WeakRef, int, std::owner_less<NDArray::WeakRef>> const_pos;
  auto emit = [&](const Node& n) {
    HistoryNode out;
    out.id = n.id;
    if (n.is_leaf) {
      out.kind = HistoryNode::Kind::kVariable;
      out.array = NDArray::Lock(n.var);
    } else {
      out.kind = HistoryNode::Kind::kOp;
      out.op = n.op;
      out.attrs = n.attrs;
      out.num_outputs = static_cast<int>(n.out_shapes.size());
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        const Entry& e = n.inputs[i];
        out.inputs.push_back(e.node ? HistoryNode::Input{pos.at(e.node.get()), e.index}
                                    : HistoryNode::Input{const_pos.at(n.consts.at(i).array), 0});
      }
    }
    pos[&n] = static_cast<int>(h.nodes.size());
    h.nodes.push_back(std::move(out));
  };
  // Iterative post-order DFS (tapes can be long); inputs in order, constants when first read.
  std::unordered_set<const Node*> seen{head.node.get()};
  std::vector<std::pair<const Node*, size_t>> stack{{head.node.get(), 0}};
  check(*head.node);
  while (!stack.empty()) {
    auto& [n, next] = stack.back();
    if (next < n->inputs.size()) {
      size_t i = next++;
      const Entry& e = n->inputs[i];
      if (e.node) {
        if (seen.insert(e.node.get()).second) {
          check(*e.node);
          stack.push_back({e.node.get(), 0});  // invalidates n and next
        }
        continue;
      }
      const ConstInput& c = n->consts.at(i);
      auto [it, fresh] = const_pos.emplace(c.array, static_cast<int>(h.nodes.size()));
      if (!fresh) {
        int64_t& id = h.nodes[it->second].id;
        id = std::min(id, c.id);
        continue;
      }
      HistoryNode cn;
      cn.kind = HistoryNode::Kind::kConstant;
      cn.id = c.id;
      cn.array = NDArray::Lock(c.array);
      h.nodes.push_back(std::move(cn));
    } else {
      emit(*n);
      stack.pop_back();
    }
  }
  h.head = {pos.at(head.node.get()), head.index};
  return h;
}

}  // namespace internal

}  // namespace mxnet::autograd
