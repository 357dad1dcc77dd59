// OneDnnFusionPass: Convolution / FullyConnected with a following activation and/or residual add
// become one op that oneDNN runs with post-ops (eltwise, sum, eltwise), MXNet's
// _sg_onednn_conv / _sg_onednn_fully_connected subgraph ops. The activation right after the op
// may also be clip(a_min <= a_max) (MobileNetV2's RELU6 is clip(0, 6); oneDNN's eltwise_clip), as
// MXNet's oneDNN subgraph property fuses it.
#include <optional>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>

#include "base/strings.h"
#include "symbol/passes/passes.h"

namespace mxnet::sym::passes {
namespace {

// act_type of an Activation (or relu/sigmoid/tanh) node oneDNN's eltwise post-op computes, or "".
std::string FusableActivation(const Node& n) {
  if (!n.op) return "";
  // The standalone ops (relu(x), sigmoid(x), tanh(x)) compute the same as Activation's act_types.
  if (n.op->name == "relu" || n.op->name == "sigmoid" || n.op->name == "tanh") return n.op->name;
  if (n.op->name != "Activation") return "";
  std::string t = AttrString(n, "act_type");
  if (t == "relu" || t == "sigmoid" || t == "tanh" || t == "softrelu") return t;
  return "";
}

// The bounds (a_min, a_max attribute text) of a clip node oneDNN's eltwise_clip post-op computes
// (a_min <= a_max; an inverted range has clip's own ordering rule), or nullopt.
std::optional<std::pair<std::string, std::string>> FusableClip(const Node& n) {
  if (!n.op || n.op->name != "clip") return std::nullopt;
  std::string lo = AttrString(n, "a_min"), hi = AttrString(n, "a_max");
  float a = 0, b = 0;
  if (!ParseAttrValue(lo, &a) || !ParseAttrValue(hi, &b) || !(a <= b)) return std::nullopt;
  return std::make_pair(lo, hi);
}

// The single op node reading entry (n, 0), if (n, 0) has exactly one reader and is not a graph
// output.
Node* SoleConsumer(const Uses& uses, const Node* n) {
  if (uses.IsGraphOutput(n, 0)) return nullptr;
  const auto& c = uses.Of(n, 0);
  if (c.size() != 1) return nullptr;
  return c[0].node;
}

}  // namespace

PassResult OneDnnFusionPass(Graph& g) {
  PassResult r;
  r.pass = "onednn_fusion";
  r.nodes_before = r.nodes_after = CountOpNodes(g.symbol);
  if (!g.inference) {
    r.skipped = true;
    r.summary = "training graph";
    return r;
  }
  const Op* conv_op = OpRegistry::Find("_sg_onednn_conv");
  const Op* fc_op = OpRegistry::Find("_sg_onednn_fully_connected");
  if (!conv_op || !fc_op) {
    r.skipped = true;
    r.summary = "fused ops not linked (//ndarray/ops/conv)";
    return r;
  }
  Uses uses = ComputeUses(g.symbol);
  std::map<EntryKey, NodeEntry> repl;
  std::map<std::string, int> patterns;
  int fused_away = 0;
  std::unordered_set<const Node*> taken;  // nodes already inside a fused chain
  auto next = [&](const Node* n) -> Node* {
    Node* c = SoleConsumer(uses, n);
    return c && !taken.count(c) ? c : nullptr;
  };
  for (const auto& n : g.symbol.TopoNodes()) {
    if (!n->op) continue;
    const bool is_conv = n->op->name == "Convolution";
    if (!is_conv && n->op->name != "FullyConnected") continue;
    Node* last = n.get();
    std::string act, post_act;
    NodeEntry sum;
    std::vector<Node*> chain;
    std::vector<std::string> pattern{is_conv ? "conv" : "fc"};  // "conv" alone: constant weight
    std::optional<std::pair<std::string, std::string>> clip;
    if (Node* c = next(last); c && !(act = FusableActivation(*c)).empty()) {
      last = c;
      chain.push_back(c);
      pattern.push_back(act);
    } else if (c && (clip = FusableClip(*c))) {
      act = "clip";
      last = c;
      chain.push_back(c);
      pattern.push_back(act);
    }
    if (Node* c = next(last); c && c->op && c->op->name == "elemwise_add") {
      const bool first = c->inputs[0].node.get() == last;
      const NodeEntry& other = c->inputs[first ? 1 : 0];
      if (other.node.get() != last) {
        sum = other;
        last = c;
        chain.push_back(c);
        pattern.push_back("add");
        if (Node* c2 = next(last); c2 && !(post_act = FusableActivation(*c2)).empty()) {
          last = c2;
          chain.push_back(c2);
          pattern.push_back(post_act);
        }
      }
    }
    // A convolution with nothing to fuse still becomes the fused op when its weight is a constant
    // (BatchNorm-folded): the fused kernel keeps the weight in oneDNN's layout across calls.
    const bool const_weight = is_conv && IsConstant(g, *n->inputs[1].node);
    if (last == n.get() && !const_weight) continue;
    for (Node* c : chain) taken.insert(c);
    // The fused node: the conv's attributes plus the post-ops.
    AttrDict params = n->attrs.ToDict();
    if (!act.empty()) params["act_type"] = act;
    if (clip) std::tie(params["act_min"], params["act_max"]) = *clip;
    if (!post_act.empty()) params["postsum_act_type"] = post_act;
    // A pass-made constant weight (BatchNorm folding) never changes: the kernel may cache its
    // oneDNN layout.
    if (const_weight) params["const_weight"] = "True";
    std::vector<NodeEntry> inputs = n->inputs;
    if (sum.node) {
      params["with_sum"] = "True";
      // A bias input keeps the sum input at a fixed position (3), where the op declares it
      // in-place with the output: add a zero bias when the op had none.
      bool no_bias = false;
      ParseAttrValue(AttrString(*n, "no_bias"), &no_bias);
      if (no_bias) {
        int64_t C = 0;
        ParseInt64(AttrString(*n, is_conv ? "num_filter" : "num_hidden"), &C);
        const Inferred& inf = g.inferred();
        int t = inf.type(NodeEntry{n, 0, 0});
        DType dt = t >= 0 ? static_cast<DType>(t) : DType::kFloat32;
        params["no_bias"] = "False";
        inputs.push_back(MakeConstant(g, StrCat(n->name, "_zero_bias"),
                                      NDArray::Full(Shape{C}, 0.0, cpu(), dt)));
      }
      inputs.push_back(sum);
    }
    auto f = MakeOpNode(is_conv ? *conv_op : *fc_op, StrCat(n->name, "_fused"), std::move(params),
                        std::move(inputs));
    f->user_attrs = n->user_attrs;
    repl[{last, 0}] = NodeEntry{f, 0, 0};
    fused_away += static_cast<int>(pattern.size());
    ++patterns[StrJoin(pattern, "+")];
  }
  ReplaceEntries(&g.symbol, repl);
  if (!repl.empty()) g.Invalidate();
  r.nodes_after = CountOpNodes(g.symbol);
  r.removed = fused_away;
  r.added = static_cast<int>(repl.size());
  r.rewritten = static_cast<int>(repl.size());
  std::vector<std::string> parts;
  for (const auto& [p, c] : patterns) parts.push_back(StrCat(c, " ", p));
  r.summary = repl.empty() ? "nothing to fuse" : StrCat("fused ", StrJoin(parts, ", "));
  return r;
}

}  // namespace mxnet::sym::passes
