// OneDnnLayoutPass: chains of fused 2-D convolutions (_sg_onednn_conv, made by OneDnnFusionPass)
// run channels-last between each other, so oneDNN reads and writes every intermediate activation
// in the layout its inference kernels use (NHWC: brgconv / depthwise jit on AVX-512 and the NHWC
// jit kernels on AVX2) instead of reordering NCHW -> oneDNN layout -> NCHW around every
// convolution. The rewrite uses only existing ops, so it keeps the graph's results:
//
//   * a convolution in a chain gets layout=NHWC (its data, sum and output are (N, H, W, C));
//   * its weight (O, I/g, kh, kw), a constant (BatchNorm-folded), becomes the transposed constant
//     (O, kh, kw, I/g);
//   * where a chain reads an NCHW value (the image) a transpose(0, 2, 3, 1) node converts it, once
//     per value; where anything else reads a chain's value (pooling, a graph output) a
//     transpose(0, 3, 1, 2) node converts it back, once per value.
//
// A chain is the set of candidate convolutions (NCHW float32 4-D data, constant float32 weight on
// the CPU: a weight that can change would need a transpose on every call) connected
// through their data or sum inputs; a candidate connected to no other candidate stays as it is
// (its transposes would cost more than they save).
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "symbol/passes/passes.h"

namespace mxnet::sym::passes {
namespace {

constexpr const char* kConv = "_sg_onednn_conv";

bool IsNchwLayout(const std::string& layout) {
  return layout.empty() || layout == "None" || layout == "NCHW";
}

// The positions of the activation inputs of a fused conv: data (0) and, with with_sum, the sum
// (the last input).
std::vector<int> ActivationInputs(const Node& n) {
  std::vector<int> pos{0};
  bool with_sum = false;
  ParseAttrValue(AttrString(n, "with_sum"), &with_sum);
  if (with_sum) pos.push_back(static_cast<int>(n.inputs.size()) - 1);
  return pos;
}

// (O, I, kh, kw) float32 on the CPU -> (O, kh, kw, I).
NDArray WeightToOhwi(const NDArray& w) {
  const Shape& s = w.shape();
  const int64_t O = s[0], I = s[1], H = s[2], W = s[3];
  NDArray out(Shape{O, H, W, I}, w.device(), w.dtype());
  const auto* src = static_cast<const float*>(w.data_ptr());
  auto* dst = static_cast<float*>(out.data_ptr());
  for (int64_t o = 0; o < O; ++o)
    for (int64_t i = 0; i < I; ++i)
      for (int64_t y = 0; y < H; ++y)
        for (int64_t x = 0; x < W; ++x)
          dst[((o * H + y) * W + x) * I + i] = src[((o * I + i) * H + y) * W + x];
  return out;
}

}  // namespace

PassResult OneDnnLayoutPass(Graph& g) {
  PassResult r;
  r.pass = "onednn_layout";
  r.nodes_before = r.nodes_after = CountOpNodes(g.symbol);
  if (!g.inference) {
    r.skipped = true;
    r.summary = "training graph";
    return r;
  }
  const Op* transpose = OpRegistry::Find("transpose");
  if (!transpose || !OpRegistry::Find(kConv)) {
    r.skipped = true;
    r.summary = "transpose or fused conv not linked";
    return r;
  }
  const Inferred& inf = g.inferred();
  const int f32 = DTypeFlag(DType::kFloat32);
  // Candidates: fused 2-D channels-first float32 convolutions.
  std::set<const Node*> cand;
  for (const auto& n : g.symbol.TopoNodes()) {
    if (!n->op || n->op->name != kConv || !IsNchwLayout(AttrString(*n, "layout"))) continue;
    const NodeEntry x = n->inputs[0], w = n->inputs[1];
    if (inf.shape(x).ndim() != 4 || !inf.shape(x).is_known() || inf.type(x) != f32) continue;
    if (inf.shape(w).ndim() != 4 || !inf.shape(w).is_known() || inf.type(w) != f32) continue;
    // Only constant (BatchNorm-folded) weights: another weight would need a transpose per call.
    if (!IsConstant(g, *w.node) || g.constants.at(w.node->name).device().type != DeviceType::kCPU)
      continue;
    bool ok = true;
    for (int p : ActivationInputs(*n)) ok &= inf.type(n->inputs[p]) == f32;
    if (ok) cand.insert(n.get());
  }
  // Keep the candidates linked to another one (through a data or sum input).
  std::set<const Node*> region;
  for (const auto& n : g.symbol.TopoNodes()) {
    if (!cand.count(n.get())) continue;
    for (int p : ActivationInputs(*n)) {
      const NodeEntry& e = n->inputs[p];
      if (e.index == 0 && cand.count(e.node.get())) {
        region.insert(n.get());
        region.insert(e.node.get());
      }
    }
  }
  if (region.empty()) {
    r.summary = "no chain of fused convolutions";
    return r;
  }
  auto make_transpose = [&](const NodeEntry& in, const std::string& name, const char* axes) {
    ++r.added;
    return NodeEntry{MakeOpNode(*transpose, name, {{"axes", axes}}, {in}), 0, 0};
  };
  Uses uses = ComputeUses(g.symbol);
  std::map<EntryKey, NodeEntry> to_nhwc;  // NCHW value -> its transpose node
  int converted = 0, weights = 0;
  // The outputs of chain nodes read outside the chain: converted back once each.
  std::map<EntryKey, NodeEntry> to_nchw;
  for (const auto& n : g.symbol.TopoNodes()) {
    if (!region.count(n.get())) continue;
    const NodeEntry self{n, 0, 0};
    for (const auto& u : uses.Of(n.get(), 0)) {
      const bool internal = region.count(u.node) > 0 && [&] {
        for (int p : ActivationInputs(*u.node))
          if (p == u.input) return true;
        return false;
      }();
      if (internal) continue;
      auto [it, fresh] = to_nchw.try_emplace(KeyOf(self));
      if (fresh) it->second = make_transpose(self, StrCat(n->name, "_to_nchw"), "(0, 3, 1, 2)");
      u.node->inputs[u.input] = it->second;
    }
    if (uses.IsGraphOutput(n.get(), 0)) {
      auto [it, fresh] = to_nchw.try_emplace(KeyOf(self));
      if (fresh) it->second = make_transpose(self, StrCat(n->name, "_to_nchw"), "(0, 3, 1, 2)");
      std::vector<NodeEntry> outs = g.symbol.outputs();
      for (auto& o : outs)
        if (o.node == n && o.index == 0) o = it->second;
      g.symbol = Symbol(std::move(outs));
    }
  }
  for (const auto& n : g.symbol.TopoNodes()) {
    if (!region.count(n.get())) continue;
    for (int p : ActivationInputs(*n)) {
      NodeEntry& e = n->inputs[p];
      if (e.index == 0 && region.count(e.node.get())) continue;  // already NHWC
      auto [it, fresh] = to_nhwc.try_emplace(KeyOf(e));
      if (fresh)
        it->second = make_transpose(e, StrCat(n->name, "_in", p, "_to_nhwc"), "(0, 2, 3, 1)");
      e = it->second;
    }
    NodeEntry& w = n->inputs[1];
    w = MakeConstant(g, StrCat(w.node->name, "_ohwi"), WeightToOhwi(g.constants.at(w.node->name)));
    ++weights;
    SetParam(n.get(), "layout", "NHWC");
    ++converted;
  }
  g.Invalidate();
  r.nodes_after = CountOpNodes(g.symbol);
  r.rewritten = converted;
  r.summary = StrCat(converted, " convolutions channels-last (", weights,
                     " constant weights transposed), ", r.added, " transposes at the edges");
  return r;
}

}  // namespace mxnet::sym::passes
