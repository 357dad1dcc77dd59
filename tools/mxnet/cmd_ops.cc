// mxnet ops: lists the registered operators (MXNet names, aliases, inputs, attributes).
#include <iostream>

#include "base/strings.h"
#include "ndarray/op.h"
#include "tools/mxnet/cli.h"

ABSL_FLAG(std::string, filter, "", "show only operators whose name contains this text");
ABSL_FLAG(bool, verbose, false, "also print aliases, attribute names and differentiability");
ABSL_FLAG(bool, internal, false, "also list the _-prefixed helper ops gradients are made of");

namespace mxnet::cli {
namespace {

absl::Status RunOps(const std::vector<std::string>&) {
  const std::string filter = absl::GetFlag(FLAGS_filter);
  const bool verbose = absl::GetFlag(FLAGS_verbose), show_internal = absl::GetFlag(FLAGS_internal);
  int shown = 0, total = 0, public_ops = 0;
  for (const Op* op : OpRegistry::List()) {
    ++total;
    bool internal = StartsWith(op->name, "_");
    public_ops += !internal;
    if (internal && !show_internal) continue;
    if (!filter.empty() && op->name.find(filter) == std::string::npos) continue;
    ++shown;
    std::cout << op->name;
    if (verbose) {
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
  std::cout << shown << " shown; " << total << " registered (" << public_ops << " public, "
            << total - public_ops << " internal helpers)\n";
  return absl::OkStatus();
}

const int kRegistered = RegisterCommand(
    {"ops",
     "list the registered operators",
     "usage: mxnet ops [--filter TEXT] [--verbose] [--internal]\n\n"
     "Lists operator names (with aliases and attribute names when --verbose); --internal also "
     "shows\n"
     "the _-prefixed helper ops gradients are composed of.\n",
     {{.flag = Ref(FLAGS_filter)}, {.flag = Ref(FLAGS_verbose)}, {.flag = Ref(FLAGS_internal)}},
     "",
     RunOps});

}  // namespace
}  // namespace mxnet::cli
