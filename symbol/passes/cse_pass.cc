// CommonSubexprPass: one node per (op, attributes, inputs).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "base/strings.h"
#include "symbol/control_flow.h"
#include "symbol/passes/passes.h"

namespace mxnet::sym::passes {
namespace {

// Ops whose result does not depend on the order of their two inputs (bitwise: IEEE addition and
// multiplication are commutative, max/min too).
bool IsCommutative(const Op& op) {
  static const std::unordered_set<std::string> kOps = {
      "elemwise_add",      "elemwise_mul",      "broadcast_add", "broadcast_mul",
      "broadcast_maximum", "broadcast_minimum", "_maximum",      "_minimum",
  };
  return kOps.count(op.name) > 0;
}

}  // namespace

PassResult CommonSubexprPass(Graph& g) {
  PassResult r;
  r.pass = "common_subexpression";
  r.nodes_before = CountOpNodes(g.symbol);
  std::unordered_map<const Node*, Node*> rep;  // merged node -> its representative
  std::unordered_map<std::string, std::shared_ptr<Node>> seen;
  std::map<std::string, int> merged_by_op;
  std::map<EntryKey, NodeEntry> repl;
  // In training, ops mutate their aux inputs (BatchNorm's moving statistics) while the graph
  // runs, so two reads of such a variable at different points may differ: never merge them.
  std::unordered_set<const Node*> mutated;
  if (!g.inference)
    for (const auto& n : g.symbol.TopoNodes())
      if (HasMutableInputs(*n))
        for (int k : n->op->mutable_inputs)
          if (k < static_cast<int>(n->inputs.size())) mutated.insert(n->inputs[k].node.get());
  for (const auto& n : g.symbol.TopoNodes()) {
    if (n->is_variable() || !n->control_deps.empty()) continue;
    if (IsStochastic(*n, g.inference) || HasMutableInputs(*n)) continue;
    if (IsControlFlowOp(*n->op) || NodeSubgraphs(*n)) continue;  // subgraphs: not in the key
    bool reads_mutated = false;
    for (const auto& e : n->inputs) reads_mutated |= mutated.count(e.node.get()) > 0;
    if (reads_mutated) continue;
    std::vector<std::pair<const Node*, int>> ins;
    for (const auto& e : n->inputs) {
      auto it = rep.find(e.node.get());
      ins.push_back({it == rep.end() ? e.node.get() : it->second, e.index});
    }
    if (IsCommutative(*n->op) && ins.size() == 2 && ins[1] < ins[0]) std::swap(ins[0], ins[1]);
    std::string key = StrCat(n->op->name, "|", n->attrs.Key(), "|");
    for (const auto& [p, k] : ins) StrAppend(&key, reinterpret_cast<uintptr_t>(p), ":", k, ",");
    auto [it, inserted] = seen.emplace(key, n);
    if (inserted) continue;
    rep[n.get()] = it->second.get();
    ++merged_by_op[n->op->name];
    for (int k = 0; k < n->num_outputs(); ++k) repl[{n.get(), k}] = NodeEntry{it->second, k, 0};
  }
  ReplaceEntries(&g.symbol, repl);
  if (!repl.empty()) g.Invalidate();
  r.nodes_after = CountOpNodes(g.symbol);
  r.removed = r.nodes_before - r.nodes_after;
  r.rewritten = static_cast<int>(rep.size());
  std::vector<std::string> parts;
  for (const auto& [op, c] : merged_by_op) parts.push_back(StrCat(c, " ", op));
  r.summary = rep.empty() ? "no duplicates" : StrCat("merged ", StrJoin(parts, ", "));
  return r;
}

}  // namespace mxnet::sym::passes
