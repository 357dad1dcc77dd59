// mxnet ops: lists the registered operators (MXNet names, aliases, inputs, attributes).
#include <iostream>

#include "base/strings.h"
#include "ndarray/op.h"
#include "tools/mxnet/cli.h"

namespace mxnet::cli {
namespace {

absl::Status RunOps(const std::vector<std::string>& argv) {
  MX_ASSIGN_OR_RETURN(Args a, Args::Parse(argv, {"filter"}, {"verbose", "internal"}));
  int shown = 0, total = 0, public_ops = 0;
  for (const Op* op : OpRegistry::List()) {
    ++total;
    bool internal = StartsWith(op->name, "_");
    public_ops += !internal;
    if (internal && !a.flag("internal")) continue;
    if (a.has("filter") && op->name.find(a.get("filter")) == std::string::npos) continue;
    ++shown;
    std::cout << op->name;
    if (a.flag("verbose")) {
      if (!op->aliases.empty()) std::cout << "  aliases: " << StrJoin(op->aliases, ", ");
      if (op->schema) {
        std::vector<std::string> f;
        for (const auto& x : op->schema->fields) f.push_back(x.name);
        std::cout << "  attrs: " << StrJoin(f, ", ");
      }
      std::cout << (op->differentiable() ? "  [differentiable]" : "  [non-differentiable]");
    }
    std::cout << "\n";
  }
  std::cout << shown << " shown; " << total << " registered (" << public_ops << " public, " << total - public_ops
            << " internal helpers)\n";
  return absl::OkStatus();
}

const int kRegistered = RegisterCommand(
    {"ops", "list the registered operators",
     "usage: mxnet ops [--filter TEXT] [--verbose] [--internal]\n\n"
     "Lists operator names (with aliases and attribute names when --verbose); --internal also shows\n"
     "the _-prefixed helper ops gradients are composed of.\n",
     RunOps});

}  // namespace
}  // namespace mxnet::cli
