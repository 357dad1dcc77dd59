// An indexed view of a Symbol's graph for passes and the executor: nodes in topological order,
// a dense id for every node output ("entry"), and shape/type inference over entries.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "symbol/symbol.h"

namespace mxnet::sym {

struct IndexedGraph {
  explicit IndexedGraph(const Symbol& s);

  std::vector<std::shared_ptr<Node>> nodes;  // DFS post-order
  std::unordered_map<const Node*, int> node_id;
  std::vector<int> entry_start;  // entry id of (node n, output k) = entry_start[n] + k
  int num_entries = 0;
  std::vector<int> input_nodes;  // variables, DFS order (args and aux)
  std::vector<bool> is_aux;      // per node: variable mutated by an op
  std::vector<int> outputs;      // entry ids of the symbol's outputs

  int EntryId(const NodeEntry& e) const { return entry_start[node_id.at(e.node.get())] + e.index; }
  int EntryId(int node, int index) const { return entry_start[node] + index; }
};

// Fills unknown entry shapes by running every op's shape inference forwards (and backwards
// through ops that infer input shapes) until nothing changes. Variables start from `shapes`
// (entries of variables) or their __shape__ attribute. Throws kInvalidArgument naming the node
// and op on a contradiction.
void InferShapes(const IndexedGraph& g, std::vector<Shape>* entry_shapes);
// The same for dtype flags (-1 unknown); variables default to their __dtype__ attribute.
void InferTypes(const IndexedGraph& g, std::vector<int>* entry_types);

}  // namespace mxnet::sym
