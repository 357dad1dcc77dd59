#include "symbol/graph.h"

#include "base/strings.h"

namespace mxnet::sym {

IndexedGraph::IndexedGraph(const Symbol& s) : nodes(s.TopoNodes()) {
  is_aux.assign(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    node_id[nodes[i].get()] = static_cast<int>(i);
    entry_start.push_back(num_entries);
    num_entries += nodes[i]->num_outputs();
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = *nodes[i];
    if (n.is_variable()) {
      input_nodes.push_back(static_cast<int>(i));
      continue;
    }
    for (int k : n.op->mutable_inputs)
      if (k < static_cast<int>(n.inputs.size()) && n.inputs[k].node->is_variable())
        is_aux[node_id.at(n.inputs[k].node.get())] = true;
  }
  for (const auto& e : s.outputs()) outputs.push_back(EntryId(e));
}

namespace {
std::string NodeDesc(const Node& n) {
  return n.is_variable() ? StrCat("variable '", n.name, "'")
                         : StrCat("node '", n.name, "' (", n.op->name, ")");
}
}  // namespace

void InferShapes(const IndexedGraph& g, std::vector<Shape>* shapes) {
  std::vector<Shape>& es = *shapes;
  es.resize(g.num_entries, Shape::Unknown());
  for (int v : g.input_nodes) {
    const Node& n = *g.nodes[v];
    if (auto it = n.user_attrs.find("__shape__"); it != n.user_attrs.end()) {
      auto s = ParseShape(it->second);
      if (s.ok()) MergeShape(&es[g.entry_start[v]], *s, StrCat(NodeDesc(n), " __shape__"));
    }
  }
  for (int pass = 0; pass < 8; ++pass) {
    bool changed = false;
    auto visit = [&](size_t i) {
      const Node& n = *g.nodes[i];
      if (n.is_variable()) return;
      ShapeVec in, out;
      for (const auto& e : n.inputs) in.push_back(es[g.EntryId(e)]);
      for (int k = 0; k < n.num_outputs(); ++k)
        out.push_back(es[g.EntryId(static_cast<int>(i), k)]);
      try {
        if (n.op->infer_shape)
          n.op->infer_shape(n.attrs, &in, &out);
        else
          ElemwiseShape(n.attrs, &in, &out);
      } catch (const Error& e) {
        MX_THROW(absl::StatusCode::kInvalidArgument, "shape inference failed at ", NodeDesc(n),
                 ": ", e.what());
      }
      for (size_t k = 0; k < n.inputs.size(); ++k) {
        Shape& dst = es[g.EntryId(n.inputs[k])];
        Shape before = dst;
        MergeShape(&dst, in[k], StrCat("shape inference at ", NodeDesc(n), ", input ", k));
        changed |= dst != before;
      }
      for (int k = 0; k < n.num_outputs(); ++k) {
        Shape& dst = es[g.EntryId(static_cast<int>(i), k)];
        Shape before = dst;
        MergeShape(&dst, out[k], StrCat("shape inference at ", NodeDesc(n), ", output ", k));
        changed |= dst != before;
      }
    };
    for (size_t i = 0; i < g.nodes.size(); ++i) visit(i);
    if (!changed) break;
    for (size_t i = g.nodes.size(); i-- > 0;) visit(i);  // backward sweep
  }
}

void InferTypes(const IndexedGraph& g, std::vector<int>* types) {
  std::vector<int>& et = *types;
  et.resize(g.num_entries, -1);
  for (int v : g.input_nodes) {
    const Node& n = *g.nodes[v];
    if (auto it = n.user_attrs.find("__dtype__"); it != n.user_attrs.end()) {
      int64_t flag;
      if (ParseInt64(it->second, &flag) && DTypeFromFlag(flag).ok() && et[g.entry_start[v]] < 0)
        et[g.entry_start[v]] = static_cast<int>(flag);
    }
  }
  for (int pass = 0; pass < 8; ++pass) {
    bool changed = false;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = *g.nodes[i];
      if (n.is_variable()) continue;
      DTypeVec in, out;
      for (const auto& e : n.inputs) in.push_back(et[g.EntryId(e)]);
      for (int k = 0; k < n.num_outputs(); ++k)
        out.push_back(et[g.EntryId(static_cast<int>(i), k)]);
      try {
        if (n.op->infer_type)
          n.op->infer_type(n.attrs, &in, &out);
        else
          ElemwiseType(n.attrs, &in, &out);
      } catch (const Error& e) {
        MX_THROW(absl::StatusCode::kInvalidArgument, "type inference failed at ", NodeDesc(n), ": ",
                 e.what());
      }
      for (size_t k = 0; k < n.inputs.size(); ++k) {
        int& dst = et[g.EntryId(n.inputs[k])];
        if (dst < 0 && in[k] >= 0) dst = in[k], changed = true;
      }
      for (int k = 0; k < n.num_outputs(); ++k) {
        int& dst = et[g.EntryId(static_cast<int>(i), k)];
        if (dst < 0 && out[k] >= 0) dst = out[k], changed = true;
      }
    }
    if (!changed) break;
  }
}

// ---- Symbol's inference API. ----
namespace {
template <typename T>
InferResult<T> Collect(const IndexedGraph& g, const std::vector<T>& es) {
  InferResult<T> r;
  for (int v : g.input_nodes) (g.is_aux[v] ? r.aux : r.arg).push_back(es[g.entry_start[v]]);
  for (int e : g.outputs) r.out.push_back(es[e]);
  return r;
}

std::vector<Shape> SeedShapes(const IndexedGraph& g, const std::map<std::string, Shape>& known) {
  std::vector<Shape> es(g.num_entries, Shape::Unknown());
  size_t used = 0;
  for (int v : g.input_nodes) {
    auto it = known.find(g.nodes[v]->name);
    if (it != known.end()) es[g.entry_start[v]] = it->second, ++used;
  }
  if (used != known.size()) {
    for (const auto& [name, _] : known) {
      bool found = false;
      for (int v : g.input_nodes) found |= g.nodes[v]->name == name;
      if (!found)
        MX_THROW(absl::StatusCode::kInvalidArgument, "infer_shape: the graph has no input named '",
                 name, "'");
    }
  }
  return es;
}
}  // namespace

InferResult<Shape> Symbol::infer_shape_partial(const std::map<std::string, Shape>& known) const {
  IndexedGraph g(*this);
  std::vector<Shape> es = SeedShapes(g, known);
  InferShapes(g, &es);
  return Collect(g, es);
}

InferResult<Shape> Symbol::infer_shape(const std::map<std::string, Shape>& known) const {
  IndexedGraph g(*this);
  std::vector<Shape> es = SeedShapes(g, known);
  InferShapes(g, &es);
  std::vector<std::string> unknown;
  for (int v : g.input_nodes)
    if (!es[g.entry_start[v]].is_known())
      unknown.push_back(StrCat(g.nodes[v]->name, " ", es[g.entry_start[v]].ToString()));
  if (!unknown.empty())
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "infer_shape: cannot infer the shapes of: ", StrJoin(unknown, ", "),
             " (give more input shapes)");
  return Collect(g, es);
}

InferResult<int> Symbol::infer_type(const std::map<std::string, DType>& known) const {
  IndexedGraph g(*this);
  std::vector<int> et(g.num_entries, -1);
  for (int v : g.input_nodes) {
    auto it = known.find(g.nodes[v]->name);
    if (it != known.end()) et[g.entry_start[v]] = DTypeFlag(it->second);
  }
  InferTypes(g, &et);
  return Collect(g, et);
}

}  // namespace mxnet::sym
