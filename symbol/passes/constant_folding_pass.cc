// ConstantFoldingPass: subgraphs that read no graph input are evaluated once (CPU reference
// kernels) and replaced by constants the executor binds.
#include <unordered_map>

#include "base/strings.h"
#include "symbol/passes/passes.h"

namespace mxnet::sym::passes {

PassResult ConstantFoldingPass(Graph& g, const ConstantFoldingOptions& options) {
  PassResult r;
  r.pass = "constant_folding";
  r.nodes_before = CountOpNodes(g.symbol);
  const std::vector<std::shared_ptr<Node>> nodes = g.symbol.TopoNodes();
  // Values of constant nodes (variables in g.constants and foldable op nodes), by node.
  std::unordered_map<const Node*, std::vector<NDArray>> values;
  const KernelKey ref{DeviceType::kCPU, Backend::kReference};
  const OpContext ctx{!g.inference, false, cpu()};
  int evaluated = 0;
  for (const auto& n : nodes) {
    if (n->is_variable()) {
      if (auto it = g.constants.find(n->name); it != g.constants.end())
        values[n.get()] = {it->second};
      continue;
    }
    bool all_const = true;
    for (const auto& e : n->inputs) all_const &= values.count(e.node.get()) > 0;
    if (!all_const || IsStochastic(*n, g.inference) || HasMutableInputs(*n)) continue;
    const FCompute* fn = n->op->FindKernel(ref);
    if (!fn) continue;
    NDArrayVec in;
    ShapeVec in_shapes, out_shapes;
    DTypeVec in_types, out_types;
    for (const auto& e : n->inputs) {
      in.push_back(values[e.node.get()][e.index]);
      in_shapes.push_back(in.back().shape());
      in_types.push_back(DTypeFlag(in.back().dtype()));
    }
    std::vector<NDArray> outs;
    try {
      if (n->op->has_dynamic_output_shape())  // shapes from the constant values
        InferOutputsFromData(*n->op, n->attrs, in, &out_shapes, &out_types);
      else
        InferOutputs(*n->op, n->attrs, &in_shapes, &in_types, &out_shapes, &out_types);
      int64_t bytes = 0;
      for (size_t k = 0; k < out_shapes.size(); ++k)
        bytes += out_shapes[k].Size() *
                 static_cast<int64_t>(DTypeSize(static_cast<DType>(out_types[k])));
      if (bytes > options.max_bytes) continue;
      for (size_t k = 0; k < out_shapes.size(); ++k)
        outs.emplace_back(out_shapes[k], cpu(), static_cast<DType>(out_types[k]));
      NDArrayVec out_span(outs.begin(), outs.end());
      (*fn)(ctx, n->attrs, in, out_span);
    } catch (const Error& e) {
      MX_THROW(e.code(), "constant folding: node '", n->name, "' (", n->op->name, "): ", e.what());
    }
    values[n.get()] = std::move(outs);
    ++evaluated;
  }
  // Replace the constant entries that something non-constant (or a graph output) reads.
  Uses uses = ComputeUses(g.symbol);
  std::map<EntryKey, NodeEntry> repl;
  for (const auto& n : nodes) {
    if (n->is_variable() || !values.count(n.get())) continue;
    for (int k = 0; k < n->num_outputs(); ++k) {
      bool needed = uses.IsGraphOutput(n.get(), k);
      for (const auto& u : uses.Of(n.get(), k)) needed |= !values.count(u.node);
      if (!needed) continue;
      std::string base = StrCat(n->name, k == 0 ? "" : StrCat("_", k), "_const");
      repl[{n.get(), k}] = MakeConstant(g, base, values[n.get()][k]);
    }
  }
  ReplaceEntries(&g.symbol, repl);
  if (!repl.empty()) g.Invalidate();
  r.nodes_after = CountOpNodes(g.symbol);
  r.removed = r.nodes_before - r.nodes_after;
  r.rewritten = static_cast<int>(repl.size());
  int64_t bytes = 0;
  for (const auto& [key, e] : repl) bytes += g.constants[e.node->name].nbytes();
  r.summary = StrCat("evaluated ", evaluated, " constant nodes, ", repl.size(),
                     " constants bound (", bytes, " bytes)");
  return r;
}

}  // namespace mxnet::sym::passes
