// Graph passes over Symbol graphs (the optimizations hybridize() and CachedOp apply).
//
// A pass rewrites a passes::Graph in place and returns a PassResult saying what it changed. The
// graph is a Symbol plus the values passes bind to variables:
//
//  - constants: values of variables that passes create (constant folding results, BatchNorm-folded
//    weights). A constant is an ordinary variable node named in `constants`, with `__shape__`,
//    `__dtype__` and `__constant__` user attributes, so the graph stays a plain Symbol (it prints
//    as MXNet JSON; the values export as `arg:` arrays). The executor binds these values itself;
//    they are never CachedOp inputs.
//  - input_values: values of graph inputs known at optimization time (the parameters of the call
//    being compiled). A pass that bakes such a value into a constant (BatchNorm folding) lists the
//    input in `value_deps`: the result is only valid while those inputs keep their values, and
//    the executor re-optimizes when one changes.
//
// Passes mutate nodes in place, so a Graph must own its nodes: build it with Graph::CopyOf (a
// deep copy) unless nobody else holds the Symbol.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "symbol/graph.h"
#include "symbol/node_params.h"
#include "symbol/symbol.h"

namespace mxnet::sym::passes {

// Shapes and dtypes of every entry of a graph (partial: unknown stays unknown / -1).
struct Inferred {
  explicit Inferred(const Symbol& s) : graph(s) {}
  IndexedGraph graph;
  std::vector<Shape> shapes;
  std::vector<int> types;
  const Shape& shape(const NodeEntry& e) const { return shapes[graph.EntryId(e)]; }
  int type(const NodeEntry& e) const { return types[graph.EntryId(e)]; }
};

struct Graph {
  Symbol symbol;
  std::map<std::string, NDArray> constants;     // values of pass-made variables (see above)
  std::map<std::string, NDArray> input_values;  // known values of graph inputs (optional)
  std::set<std::string> value_deps;             // inputs whose values were baked in
  std::map<std::string, Shape> input_shapes;    // known input shapes, by variable name
  std::map<std::string, DType> input_types;     // known input dtypes, by variable name
  // Inference graphs may use inference-only rewrites (BatchNorm folding, fusion of
  // non-differentiable ops, Dropout removal); training graphs only semantics-preserving ones.
  bool inference = true;
  // The inputs the graph had when it was made (CopyOf), to report inputs no node reads any more.
  std::vector<std::string> declared_inputs;

  // Shape/type inference of the current symbol, cached until Invalidate().
  const Inferred& inferred();
  // Call after any structural change.
  void Invalidate() { inferred_.reset(); }

  // A graph over a deep copy of `s` (passes may then mutate nodes freely).
  static Graph CopyOf(const Symbol& s);

 private:
  std::shared_ptr<const Inferred> inferred_;
};

// What a pass did. Node counts are operator nodes (variables excluded).
struct PassResult {
  std::string pass;
  int nodes_before = 0;
  int nodes_after = 0;
  int removed = 0;    // operator nodes deleted (merged, bypassed, folded away, fused into another)
  int added = 0;      // operator nodes created (fused ops)
  int rewritten = 0;  // pass-specific: entries folded, BatchNorms folded, patterns fused, ...
  bool skipped = false;  // the pass did not apply (e.g. inference-only pass on a training graph)
  std::string summary;   // one human-readable line

  bool changed() const { return removed > 0 || added > 0 || rewritten > 0; }
  std::string ToString() const;
};

// ---- Helpers shared by the passes. ----

// Operator nodes reachable from the outputs.
int CountOpNodes(const Symbol& s);

// Consumers of every node output.
struct Uses {
  struct Use {
    Node* node;  // consumer
    int input;   // its input position
  };
  // (node, output) -> consumers; output_refs: how many graph outputs name the entry.
  std::unordered_map<const Node*, std::vector<std::vector<Use>>> consumers;
  std::unordered_map<const Node*, std::vector<int>> output_refs;

  const std::vector<Use>& Of(const Node* n, int k) const;
  int NumReads(const Node* n, int k) const;  // node inputs + graph outputs
  bool IsGraphOutput(const Node* n, int k) const;
};
Uses ComputeUses(const Symbol& s);

// Entry identity for maps.
using EntryKey = std::pair<const Node*, int>;
inline EntryKey KeyOf(const NodeEntry& e) { return {e.node.get(), e.index}; }

// Redirects every use of each key (node inputs and graph outputs) to its replacement; chains
// (a -> b, b -> c) are followed.
void ReplaceEntries(Symbol* s, const std::map<EntryKey, NodeEntry>& replacements);

// A new constant variable holding `value` (registered in g.constants under a name derived from
// `base`, made unique among the graph's variables and constants).
NodeEntry MakeConstant(Graph& g, const std::string& base, const NDArray& value);
bool IsConstant(const Graph& g, const Node& n);

// The value of an attribute of an op node in MXNet's string form (the default when not set).
// Passes change attributes with SetParam/SetParams/MakeOpNode (symbol/node_params.h), which keep
// a node's string form (params) and parsed form (attrs) in step.
std::string AttrString(const Node& n, const std::string& key);

// Ops whose results differ between calls with equal inputs: random sampling, and in training
// mode Dropout and rrelu (always for Dropout mode="always").
bool IsStochastic(const Node& n, bool inference);
// Ops that write their inputs (BatchNorm's moving statistics).
inline bool HasMutableInputs(const Node& n) { return n.op && !n.op->mutable_inputs.empty(); }

}  // namespace mxnet::sym::passes
