#include "symbol/node_params.h"

#include <utility>

#include "base/error.h"
#include "base/strings.h"

namespace mxnet::sym {
namespace {

// Parses `params` for n's op; on error names the node and what was being set.
OpAttrs ParseFor(const Node& n, const AttrDict& params, const std::string& what) {
  if (!n.op)
    MX_THROW(absl::StatusCode::kInvalidArgument, "node '", n.name,
             "' is a variable: it has no operator attributes to set (", what, ")");
  try {
    return OpAttrs::Parse(*n.op, params);
  } catch (const Error& e) {
    MX_THROW(e.code(), "node '", n.name, "' (", n.op->name, "): cannot set ", what, ": ", e.what());
  }
}

}  // namespace

void SetParam(Node* n, const std::string& key, const std::string& value) {
  AttrDict params = n->params;
  params[key] = value;
  n->attrs = ParseFor(*n, params, StrCat(key, "='", value, "'"));
  n->params = std::move(params);
}

void SetParams(Node* n, AttrDict params) {
  n->attrs = ParseFor(*n, params, "its attributes");
  n->params = std::move(params);
}

std::shared_ptr<Node> MakeOpNode(const Op& op, std::string name, AttrDict params,
                                 std::vector<NodeEntry> inputs) {
  auto n = std::make_shared<Node>();
  n->op = &op;
  n->name = std::move(name);
  SetParams(n.get(), std::move(params));
  n->inputs = std::move(inputs);
  return n;
}

}  // namespace mxnet::sym
