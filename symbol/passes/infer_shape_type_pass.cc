// InferShapeTypePass: wraps symbol/graph.h's InferShapes/InferTypes for the pass pipeline.
#include "base/strings.h"
#include "symbol/passes/passes.h"

namespace mxnet::sym::passes {

PassResult InferShapeTypePass(Graph& g) {
  PassResult r;
  r.pass = "infer_shape_type";
  g.Invalidate();
  const Inferred& inf = g.inferred();
  const IndexedGraph& ig = inf.graph;
  int shapes = 0, types = 0;
  std::vector<std::string> unknown;
  for (int e = 0; e < ig.num_entries; ++e) {
    shapes += inf.shapes[e].is_known();
    types += inf.types[e] >= 0;
  }
  for (size_t n = 0; n < ig.nodes.size(); ++n)
    for (int k = 0; k < ig.nodes[n]->num_outputs(); ++k) {
      int e = ig.EntryId(static_cast<int>(n), k);
      if ((!inf.shapes[e].is_known() || inf.types[e] < 0) && unknown.size() < 4)
        unknown.push_back(StrCat(ig.nodes[n]->name, ":", k));
    }
  r.nodes_before = r.nodes_after = CountOpNodes(g.symbol);
  r.summary = StrCat(shapes, "/", ig.num_entries, " entry shapes and ", types, "/", ig.num_entries,
                     " dtypes known");
  if (!unknown.empty()) StrAppend(&r.summary, " (unknown: ", StrJoin(unknown, ", "), ", ...)");
  return r;
}

}  // namespace mxnet::sym::passes
