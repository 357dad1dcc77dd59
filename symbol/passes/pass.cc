#include "symbol/passes/pass.h"

#include <unordered_set>

#include "base/strings.h"

namespace mxnet::sym::passes {

const Inferred& Graph::inferred() {
  if (inferred_) return *inferred_;
  auto inf = std::make_shared<Inferred>(symbol);
  const IndexedGraph& ig = inf->graph;
  inf->shapes.assign(ig.num_entries, Shape::Unknown());
  inf->types.assign(ig.num_entries, -1);
  for (int v : ig.input_nodes) {
    const std::string& name = ig.nodes[v]->name;
    int e = ig.entry_start[v];
    if (auto it = constants.find(name); it != constants.end()) {
      inf->shapes[e] = it->second.shape();
      inf->types[e] = DTypeFlag(it->second.dtype());
      continue;
    }
    if (auto it = input_shapes.find(name); it != input_shapes.end())
      inf->shapes[e] = it->second;
    else if (auto iv = input_values.find(name); iv != input_values.end())
      inf->shapes[e] = iv->second.shape();
    if (auto it = input_types.find(name); it != input_types.end())
      inf->types[e] = DTypeFlag(it->second);
    else if (auto iv = input_values.find(name); iv != input_values.end())
      inf->types[e] = DTypeFlag(iv->second.dtype());
  }
  InferShapes(ig, &inf->shapes);
  InferTypes(ig, &inf->types);
  inferred_ = std::move(inf);
  return *inferred_;
}

Graph Graph::CopyOf(const Symbol& s) {
  Graph g;
  g.symbol = s.copy();
  g.declared_inputs = s.list_inputs();
  return g;
}

std::string PassResult::ToString() const {
  std::string s = StrCat(pass, ": ");
  if (skipped) return StrCat(s, "skipped (", summary, ")");
  StrAppend(&s, nodes_before, " -> ", nodes_after, " op nodes");
  if (removed) StrAppend(&s, ", -", removed);
  if (added) StrAppend(&s, ", +", added);
  if (!summary.empty()) StrAppend(&s, "; ", summary);
  return s;
}

int CountOpNodes(const Symbol& s) {
  int n = 0;
  for (const auto& node : s.TopoNodes()) n += !node->is_variable();
  return n;
}

namespace {
const std::vector<Uses::Use> kNoUses;
}

const std::vector<Uses::Use>& Uses::Of(const Node* n, int k) const {
  auto it = consumers.find(n);
  if (it == consumers.end() || k >= static_cast<int>(it->second.size())) return kNoUses;
  return it->second[k];
}

bool Uses::IsGraphOutput(const Node* n, int k) const {
  auto it = output_refs.find(n);
  return it != output_refs.end() && k < static_cast<int>(it->second.size()) && it->second[k] > 0;
}

int Uses::NumReads(const Node* n, int k) const {
  int r = static_cast<int>(Of(n, k).size());
  auto it = output_refs.find(n);
  if (it != output_refs.end() && k < static_cast<int>(it->second.size())) r += it->second[k];
  return r;
}

Uses ComputeUses(const Symbol& s) {
  Uses u;
  for (const auto& n : s.TopoNodes()) {
    u.consumers[n.get()].resize(n->num_outputs());
    u.output_refs[n.get()].assign(n->num_outputs(), 0);
  }
  for (const auto& n : s.TopoNodes())
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const NodeEntry& e = n->inputs[i];
      u.consumers[e.node.get()][e.index].push_back({n.get(), static_cast<int>(i)});
    }
  for (const auto& e : s.outputs()) ++u.output_refs[e.node.get()][e.index];
  return u;
}

void ReplaceEntries(Symbol* s, const std::map<EntryKey, NodeEntry>& repl) {
  if (repl.empty()) return;
  auto resolve = [&](NodeEntry e) {
    for (int guard = 0; guard < 1 << 20; ++guard) {
      auto it = repl.find(KeyOf(e));
      if (it == repl.end()) return e;
      e = it->second;
    }
    MX_THROW(absl::StatusCode::kInternal, "ReplaceEntries: replacement cycle");
  };
  std::vector<NodeEntry> outs;
  for (const auto& e : s->outputs()) outs.push_back(resolve(e));
  *s = Symbol(std::move(outs));
  // Replacement nodes may read replaced entries themselves (a fused node reading the previous
  // fused chain): resolve over the new graph until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& n : s->TopoNodes())
      for (auto& e : n->inputs) {
        NodeEntry r = resolve(e);
        if (r.node != e.node || r.index != e.index) e = r, changed = true;
      }
  }
}

NodeEntry MakeConstant(Graph& g, const std::string& base, const NDArray& value) {
  std::unordered_set<std::string> taken;
  for (const auto& n : g.symbol.TopoNodes())
    if (n->is_variable()) taken.insert(n->name);
  std::string name = base;
  for (int k = 1; taken.count(name) || g.constants.count(name); ++k) name = StrCat(base, "_", k);
  auto n = std::make_shared<Node>();
  n->name = name;
  n->user_attrs["__shape__"] = value.shape().ToString();
  n->user_attrs["__dtype__"] = StrCat(DTypeFlag(value.dtype()));
  n->user_attrs["__constant__"] = "1";
  g.constants[name] = value;
  return NodeEntry{n, 0, 0};
}

bool IsConstant(const Graph& g, const Node& n) {
  return n.is_variable() && g.constants.count(n.name) > 0;
}

std::string AttrString(const Node& n, const std::string& key) {
  AttrDict d = n.attrs.ToDict();
  if (auto it = d.find(key); it != d.end()) return it->second;
  const ParamSchema* schema = n.op ? n.op->schema : nullptr;
  const FieldInfo* f = schema ? schema->Find(key) : nullptr;
  if (!f) return "";
  std::shared_ptr<void> def = schema->make_default();
  return f->print(def.get());
}

bool IsStochastic(const Node& n, bool inference) {
  if (!n.op) return false;
  if (n.op->is_random) return true;
  if (n.op->name == "Dropout") return !inference || AttrString(n, "mode") == "always";
  if (n.op->name == "LeakyReLU") return !inference && AttrString(n, "act_type") == "rrelu";
  return false;
}

}  // namespace mxnet::sym::passes
