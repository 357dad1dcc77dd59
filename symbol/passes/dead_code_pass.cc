// DeadCodePass: identity ops, unused hidden outputs, inputs no node reads.
//
// The IR is rooted at the outputs (Symbol::TopoNodes walks back from them), so a node nothing
// depends on is gone as soon as its last reader is rewired; this pass removes the remaining dead
// weight an inference graph carries and reports what the executor will not compute or bind.
#include <set>

#include "base/strings.h"
#include "symbol/passes/passes.h"

namespace mxnet::sym::passes {
namespace {

// Whether output 0 of `n` is its input 0 in inference (and nothing reads its other outputs).
bool IsInferenceIdentity(const Node& n, const Uses& uses) {
  if (!n.op || n.inputs.empty()) return false;
  const std::string& name = n.op->name;
  if (name == "_copy" || name == "BlockGrad") return true;
  if (name == "Dropout") {
    if (AttrString(n, "mode") == "always") return false;
    return uses.NumReads(&n, 1) == 0;  // the mask output must be unused
  }
  return false;
}

}  // namespace

PassResult DeadCodePass(Graph& g) {
  PassResult r;
  r.pass = "dead_code";
  r.nodes_before = CountOpNodes(g.symbol);
  std::vector<std::string> bypassed;
  if (g.inference) {
    Uses uses = ComputeUses(g.symbol);
    std::map<EntryKey, NodeEntry> repl;
    for (const auto& n : g.symbol.TopoNodes()) {
      if (!IsInferenceIdentity(*n, uses)) continue;
      const NodeEntry& in = n->inputs[0];
      // Never let a graph output become an input array (the caller would get its own array).
      if (uses.IsGraphOutput(n.get(), 0) && in.node->is_variable()) continue;
      repl[{n.get(), 0}] = in;
      bypassed.push_back(n->op->name);
    }
    ReplaceEntries(&g.symbol, repl);
    if (!repl.empty()) g.Invalidate();
  }
  r.nodes_after = CountOpNodes(g.symbol);
  r.removed = r.nodes_before - r.nodes_after;
  r.rewritten = static_cast<int>(bypassed.size());

  // Bookkeeping: hidden outputs nobody reads, inputs nobody reads.
  Uses uses = ComputeUses(g.symbol);
  int hidden_unused = 0, nodes_with_hidden = 0;
  std::set<std::string> live_inputs;
  for (const auto& n : g.symbol.TopoNodes()) {
    if (n->is_variable()) {
      live_inputs.insert(n->name);
      continue;
    }
    int vis = n->num_visible_outputs(), all = n->num_outputs();
    if (all > vis) ++nodes_with_hidden;
    for (int k = vis; k < all; ++k) hidden_unused += uses.NumReads(n.get(), k) == 0;
  }
  std::vector<std::string> unused_inputs;
  for (const auto& name : g.declared_inputs)
    if (!live_inputs.count(name)) unused_inputs.push_back(name);

  std::map<std::string, int> by_op;
  for (const auto& b : bypassed) ++by_op[b];
  std::vector<std::string> parts;
  for (const auto& [op, c] : by_op) parts.push_back(StrCat(c, " ", op));
  r.summary =
      StrCat(bypassed.empty() ? "no identity ops" : StrCat("bypassed ", StrJoin(parts, ", ")), "; ",
             hidden_unused, " unused hidden outputs on ", nodes_with_hidden,
             " nodes (scratch in the plan)");
  if (!unused_inputs.empty()) {
    StrAppend(&r.summary, "; ", unused_inputs.size(), " inputs no longer read (",
              StrJoin(std::vector<std::string>(
                          unused_inputs.begin(),
                          unused_inputs.begin() + std::min<size_t>(3, unused_inputs.size())),
                      ", "),
              unused_inputs.size() > 3 ? ", ..." : "", ")");
  }
  return r;
}

}  // namespace mxnet::sym::passes
