#include "symbol/get_symbol.h"

#include <memory>
#include <vector>

#include "autograd/autograd.h"
#include "base/strings.h"

namespace mxnet::autograd {

RecordedSymbol get_symbol_with_inputs(const NDArray& x) {
  using internal::HistoryNode;
  internal::History h = internal::RecordedHistory(x);
  RecordedSymbol out;
  std::vector<std::shared_ptr<sym::Node>> nodes;
  nodes.reserve(h.nodes.size());
  for (const HistoryNode& hn : h.nodes) {
    auto n = std::make_shared<sym::Node>();
    switch (hn.kind) {
      case HistoryNode::Kind::kOp:
        n->op = hn.op;
        n->name = StrCat("node_", hn.id);
        n->attrs = hn.attrs;
        n->params = hn.attrs.ToDict();
        for (const HistoryNode::Input& in : hn.inputs)
          n->inputs.push_back(sym::NodeEntry{nodes.at(in.node), in.index, 0});
        break;
      case HistoryNode::Kind::kVariable:
      case HistoryNode::Kind::kConstant:
        n->name = StrCat(hn.kind == HistoryNode::Kind::kVariable ? "var" : "null", hn.id);
        if (!hn.array.is_none()) out.inputs.emplace(n->name, hn.array);
        break;
    }
    nodes.push_back(std::move(n));
  }
  out.symbol = sym::Symbol({sym::NodeEntry{nodes.at(h.head.node), h.head.index, 0}});
  return out;
}

sym::Symbol get_symbol(const NDArray& x) { return get_symbol_with_inputs(x).symbol; }

}  // namespace mxnet::autograd
