// Editing an operator node's attributes. A sym::Node keeps them twice: `params`, the string form
// as given (what JSON export writes, so a loaded graph saves back unchanged), and `attrs`, the
// same parsed into the op's parameter struct (what kernels and inference read). Code that makes
// or rewrites nodes (graph passes, quantization) goes through these functions, which change the
// string form and re-parse it in one step, so the two cannot drift apart.
//
//   SetParam(conv, "no_bias", "False");          // BatchNorm folding adds a bias input
//   NodePtr t = MakeOpNode(OpRegistry::Get("transpose"), "x_to_nhwc", {{"axes", "(0, 2, 3, 1)"}},
//                          {x});
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "symbol/symbol.h"

namespace mxnet::sym {

// Sets one attribute of op node `n` in string form (MXNet's text: "True", "(3, 3)", "1e-05") and
// re-parses all of them. Errors: kInvalidArgument naming the node, its op, the key and the value
// (unknown key, unparsable value, value outside the choices, a combination Validate refuses);
// `n` is then left unchanged. kInvalidArgument for a variable node.
void SetParam(Node* n, const std::string& key, const std::string& value);
// Replaces all attributes of op node `n` (n->op set) by `params`, parsed; errors as SetParam.
void SetParams(Node* n, AttrDict params);
// A new node of `op` named `name` on `inputs` with attributes `params` (string form); errors as
// SetParam.
std::shared_ptr<Node> MakeOpNode(const Op& op, std::string name, AttrDict params,
                                 std::vector<NodeEntry> inputs);

}  // namespace mxnet::sym
