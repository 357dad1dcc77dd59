// BatchNormFoldingPass: Convolution/FullyConnected followed by an inference BatchNorm becomes one
// Convolution/FullyConnected with rescaled weights and a new bias.
#include <cmath>

#include "base/strings.h"
#include "symbol/passes/passes.h"

namespace mxnet::sym::passes {
namespace {

// The value bound to a variable entry (a constant or a known input value), or nullptr.
const NDArray* ValueOf(const Graph& g, const NodeEntry& e) {
  if (!e.node->is_variable()) return nullptr;
  if (auto it = g.constants.find(e.node->name); it != g.constants.end()) return &it->second;
  if (auto it = g.input_values.find(e.node->name); it != g.input_values.end()) {
    if (it->second.is_none() || it->second.is_placeholder()) return nullptr;
    return &it->second;
  }
  return nullptr;
}

bool ParseBool(const std::string& s) {
  bool b = false;
  ParseAttrValue(s, &b);
  return b;
}

// Channel axis of the op's output (rank `ndim`), or -1 when the op cannot be folded.
int ChannelAxis(const Node& op, int ndim) {
  if (op.op->name == "Convolution") {
    std::string layout = AttrString(op, "layout");
    if (layout == "None" || layout == "NCW" || layout == "NCHW" || layout == "NCDHW") return 1;
    return ndim - 1;  // channels-last: the weight's output channel is still its first dim
  }
  return ParseBool(AttrString(op, "flatten")) ? 1 : ndim - 1;
}

}  // namespace

PassResult BatchNormFoldingPass(Graph& g) {
  PassResult r;
  r.pass = "batchnorm_folding";
  r.nodes_before = r.nodes_after = CountOpNodes(g.symbol);
  if (!g.inference) {
    r.skipped = true;
    r.summary = "training graph";
    return r;
  }
  const Inferred& inf = g.inferred();
  Uses uses = ComputeUses(g.symbol);
  std::map<EntryKey, NodeEntry> repl;
  std::map<std::string, int> why_not;  // reasons BatchNorms stayed, for the summary
  int bn_total = 0;
  for (const auto& n : g.symbol.TopoNodes()) {
    if (!n->op || n->op->name != "BatchNorm") continue;
    ++bn_total;
    const NodeEntry& in = n->inputs[0];
    Node* p = in.node.get();
    auto skip = [&](const char* reason) { ++why_not[reason]; };
    if (!p->op || (p->op->name != "Convolution" && p->op->name != "FullyConnected") ||
        in.index != 0) {
      skip("input not a Convolution/FullyConnected");
      continue;
    }
    if (uses.NumReads(p, 0) != 1) {
      skip("conv output read elsewhere");
      continue;
    }
    bool hidden_read = false;
    for (int k = 1; k < n->num_outputs(); ++k) hidden_read |= uses.NumReads(n.get(), k) > 0;
    if (hidden_read) {
      skip("mean/var outputs read");
      continue;
    }
    const Shape& out_shape = inf.shape(in);
    if (!out_shape.ndim_known() || out_shape.ndim() < 2) {
      skip("unknown output shape");
      continue;
    }
    int64_t bn_axis = 1;
    ParseInt64(AttrString(*n, "axis"), &bn_axis);
    if (bn_axis < 0) bn_axis += out_shape.ndim();
    if (bn_axis != ChannelAxis(*p, out_shape.ndim())) {
      skip("BatchNorm axis is not the channel axis");
      continue;
    }
    const bool no_bias = ParseBool(AttrString(*p, "no_bias"));
    const NDArray* w = ValueOf(g, p->inputs[1]);
    const NDArray* b = no_bias ? nullptr : ValueOf(g, p->inputs[2]);
    const NDArray* vals[4];
    bool have = w && (no_bias || b);
    for (int i = 0; i < 4; ++i) have &= (vals[i] = ValueOf(g, n->inputs[1 + i])) != nullptr;
    if (!have) {
      skip("parameter values unknown");
      continue;
    }
    const DType t = w->dtype();
    bool types_ok = t == DType::kFloat32 || t == DType::kFloat64;
    if (b) types_ok &= b->dtype() == t;
    for (const NDArray* v : vals) types_ok &= v->dtype() == t;
    const int64_t C = w->ndim() > 0 ? w->shape()[0] : -1;
    bool shapes_ok = C > 0 && out_shape[static_cast<int>(bn_axis)] == C && (!b || b->size() == C);
    for (const NDArray* v : vals) shapes_ok &= v->size() == C;
    if (!types_ok || !shapes_ok) {
      skip(types_ok ? "parameter shapes" : "dtype not float32/float64");
      continue;
    }
    // Fold in double.
    double eps = 1e-3;
    ParseDouble(AttrString(*n, "eps"), &eps);
    const bool fix_gamma = ParseBool(AttrString(*n, "fix_gamma"));
    std::vector<double> gamma = vals[0]->ToVector<double>(), beta = vals[1]->ToVector<double>();
    std::vector<double> mean = vals[2]->ToVector<double>(), var = vals[3]->ToVector<double>();
    std::vector<double> wv = w->ToVector<double>();
    std::vector<double> bv = b ? b->ToVector<double>() : std::vector<double>(C, 0.0);
    const int64_t K = w->size() / C;
    std::vector<double> nb(C);
    for (int64_t c = 0; c < C; ++c) {
      const double scale = (fix_gamma ? 1.0 : gamma[c]) / std::sqrt(var[c] + eps);
      for (int64_t j = 0; j < K; ++j) wv[c * K + j] *= scale;
      nb[c] = (bv[c] - mean[c]) * scale + beta[c];
    }
    NodeEntry nw = MakeConstant(g, StrCat(p->name, "_weight_bnfold"),
                                NDArray::FromVector(wv, w->shape(), cpu(), t));
    NodeEntry nbias = MakeConstant(g, StrCat(p->name, "_bias_bnfold"),
                                   NDArray::FromVector(nb, Shape{C}, cpu(), t));
    // Record the inputs whose values were baked in.
    std::vector<NodeEntry> sources{p->inputs[1]};
    if (b) sources.push_back(p->inputs[2]);
    for (int i = 1; i <= 4; ++i) sources.push_back(n->inputs[i]);
    for (const auto& s : sources)
      if (!IsConstant(g, *s.node)) g.value_deps.insert(s.node->name);
    p->inputs[1] = nw;
    if (no_bias) {
      SetParam(p, "no_bias", "False");
      p->inputs.push_back(nbias);
    } else {
      p->inputs[2] = nbias;
    }
    repl[{n.get(), 0}] = in;
  }
  ReplaceEntries(&g.symbol, repl);
  if (!repl.empty()) g.Invalidate();
  r.nodes_after = CountOpNodes(g.symbol);
  r.removed = r.nodes_before - r.nodes_after;
  r.rewritten = static_cast<int>(repl.size());
  r.summary = StrCat("folded ", repl.size(), "/", bn_total, " BatchNorm");
  if (!why_not.empty()) {
    std::vector<std::string> parts;
    for (const auto& [why, c] : why_not) parts.push_back(StrCat(c, " ", why));
    StrAppend(&r.summary, " (kept: ", StrJoin(parts, ", "), ")");
  }
  return r;
}

}  // namespace mxnet::sym::passes
