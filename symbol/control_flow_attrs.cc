// Subgraph attributes of the control-flow nodes (symbol/control_flow.h): lookup and the checks
// JSON loading and the symbolic builders run before a node gets its subgraphs.
#include <map>
#include <set>

#include "base/strings.h"
#include "symbol/control_flow.h"

namespace mxnet::sym {
namespace {

absl::Status Bad(const Node& n, std::string_view msg) {
  return absl::InvalidArgumentError(
      StrCat("node '", n.name, "' (", n.op ? n.op->name : "?", "): ", msg));
}

// Every loc in [0, limit) and none repeated.
absl::Status CheckLocs(const Node& n, const char* what, const Shape& locs, int64_t limit,
                       bool unique = true) {
  std::set<int64_t> seen;
  for (int64_t l : locs) {
    if (l < 0 || l >= limit)
      return Bad(n,
                 StrCat(what, " ", locs.ToString(), ": ", l, " is out of range [0, ", limit, ")"));
    if (unique && !seen.insert(l).second)
      return Bad(n, StrCat(what, " ", locs.ToString(), ": ", l, " appears twice"));
  }
  return absl::OkStatus();
}

absl::Status CheckCount(const Node& n, const std::string& what, int64_t got, int64_t want) {
  if (got == want) return absl::OkStatus();
  return Bad(n, StrCat(what, ": ", got, " where the attributes need ", want));
}

template <typename P>
std::shared_ptr<Subgraphs> Make(std::vector<Symbol> graphs) {
  auto s = std::make_shared<Subgraphs>();
  for (const auto& g : graphs) s->input_names.push_back(g.list_inputs());
  s->graphs = std::move(graphs);
  return s;
}

std::map<std::string, SubgraphOpHooks>& Hooks() {
  static auto* h = new std::map<std::string, SubgraphOpHooks>();
  return *h;
}

const SubgraphOpHooks* FindHooks(const Node& n) {
  if (!n.op) return nullptr;
  auto it = Hooks().find(n.op->name);
  return it == Hooks().end() ? nullptr : &it->second;
}

}  // namespace

void RegisterSubgraphOp(const std::string& op_name, SubgraphOpHooks hooks) {
  Hooks()[op_name] = std::move(hooks);
}

bool IsControlFlowOp(const Op& op) {
  for (const char* name : {"_foreach", "_while_loop", "_cond"})
    if (op.name == name || op.name == StrCat("_backward", std::string_view(name))) return true;
  return false;
}

const Subgraphs* NodeSubgraphs(const Node& n) {
  if (const SubgraphOpHooks* h = FindHooks(n)) return h->get(n);
  if (!n.op || !IsControlFlowOp(*n.op) || StartsWith(n.op->name, "_backward")) return nullptr;
  if (n.op->name == "_foreach") return n.attrs.get<ForeachParam>().subgraphs.get();
  if (n.op->name == "_while_loop") return n.attrs.get<WhileLoopParam>().subgraphs.get();
  return n.attrs.get<CondParam>().subgraphs.get();
}

absl::Status AttachSubgraphs(Node* n, std::vector<Symbol> graphs) {
  if (const SubgraphOpHooks* h = FindHooks(*n)) return h->attach(n, std::move(graphs));
  if (!n->op || !IsControlFlowOp(*n->op) || StartsWith(n->op->name, "_backward"))
    return absl::InvalidArgumentError(StrCat("node '", n->name, "': operator ",
                                             n->op ? n->op->name : "null",
                                             " does not take subgraphs"));
  const std::string& op = n->op->name;
  std::vector<int64_t> nin, nout;
  for (const auto& g : graphs) {
    nin.push_back(static_cast<int64_t>(g.list_inputs().size()));
    nout.push_back(static_cast<int64_t>(g.num_outputs()));
  }
  const int64_t ninputs = static_cast<int64_t>(n->inputs.size());
  if (op == "_foreach") {
    ForeachParam p = n->attrs.get<ForeachParam>();
    MX_RETURN_IF_ERROR(CheckCount(*n, "subgraphs", static_cast<int64_t>(graphs.size()), 1));
    MX_RETURN_IF_ERROR(CheckCount(*n, "inputs (num_args - 1)", ninputs, p.num_args - 1));
    MX_RETURN_IF_ERROR(CheckCount(*n, "body outputs (num_outputs)", nout[0], p.num_outputs));
    if (p.num_out_data < 0 || p.num_out_data > p.num_outputs)
      return Bad(*n, StrCat("num_out_data ", p.num_out_data, " is not in [0, num_outputs ",
                            p.num_outputs, "]"));
    if (p.in_data_locs.ndim() == 0) return Bad(*n, "in_data_locs is empty (foreach needs data)");
    MX_RETURN_IF_ERROR(CheckCount(*n, "in_state_locs (one per body output state)",
                                  p.in_state_locs.ndim(), p.num_outputs - p.num_out_data));
    MX_RETURN_IF_ERROR(
        CheckCount(*n, "body inputs", nin[0],
                   p.in_data_locs.ndim() + p.in_state_locs.ndim() + p.remain_locs.ndim()));
    MX_RETURN_IF_ERROR(CheckCount(*n, "body inputs (num_args - 1)", nin[0], p.num_args - 1));
    Shape all = p.in_data_locs;
    for (int64_t l : p.in_state_locs) all.push_back(l);
    for (int64_t l : p.remain_locs) all.push_back(l);
    MX_RETURN_IF_ERROR(CheckLocs(*n, "in_data_locs + in_state_locs + remain_locs", all, nin[0]));
    p.subgraphs = Make<ForeachParam>(std::move(graphs));
    n->attrs = OpAttrs::From(*n->op, std::move(p));
    return absl::OkStatus();
  }
  if (op == "_while_loop") {
    WhileLoopParam p = n->attrs.get<WhileLoopParam>();
    MX_RETURN_IF_ERROR(
        CheckCount(*n, "subgraphs (cond, func)", static_cast<int64_t>(graphs.size()), 2));
    MX_RETURN_IF_ERROR(CheckCount(*n, "inputs (num_args - 2)", ninputs, p.num_args - 2));
    MX_RETURN_IF_ERROR(CheckCount(*n, "cond outputs", nout[0], 1));
    MX_RETURN_IF_ERROR(CheckCount(*n, "func outputs (num_outputs)", nout[1], p.num_outputs));
    if (p.num_out_data < 0 || p.num_out_data > p.num_outputs)
      return Bad(*n, StrCat("num_out_data ", p.num_out_data, " is not in [0, num_outputs ",
                            p.num_outputs, "]"));
    if (p.max_iterations < 1)
      return Bad(*n, StrCat("max_iterations ", p.max_iterations, " must be >= 1"));
    MX_RETURN_IF_ERROR(
        CheckCount(*n, "cond inputs (cond_input_locs)", nin[0], p.cond_input_locs.ndim()));
    MX_RETURN_IF_ERROR(
        CheckCount(*n, "func inputs (func_input_locs)", nin[1], p.func_input_locs.ndim()));
    MX_RETURN_IF_ERROR(CheckCount(*n, "func_var_locs (one per loop variable)",
                                  p.func_var_locs.ndim(), p.num_outputs - p.num_out_data));
    if (p.func_var_locs.ndim() == 0)
      return Bad(*n, "func_var_locs is empty (while_loop needs loop variables)");
    MX_RETURN_IF_ERROR(
        CheckLocs(*n, "cond_input_locs", p.cond_input_locs, ninputs, /*unique=*/false));
    MX_RETURN_IF_ERROR(
        CheckLocs(*n, "func_input_locs", p.func_input_locs, ninputs, /*unique=*/false));
    MX_RETURN_IF_ERROR(CheckLocs(*n, "func_var_locs", p.func_var_locs, nin[1]));
    p.subgraphs = Make<WhileLoopParam>(std::move(graphs));
    n->attrs = OpAttrs::From(*n->op, std::move(p));
    return absl::OkStatus();
  }
  CondParam p = n->attrs.get<CondParam>();
  MX_RETURN_IF_ERROR(
      CheckCount(*n, "subgraphs (cond, then, else)", static_cast<int64_t>(graphs.size()), 3));
  MX_RETURN_IF_ERROR(CheckCount(*n, "inputs (num_args - 3)", ninputs, p.num_args - 3));
  MX_RETURN_IF_ERROR(CheckCount(*n, "cond outputs", nout[0], 1));
  MX_RETURN_IF_ERROR(CheckCount(*n, "then outputs (num_outputs)", nout[1], p.num_outputs));
  MX_RETURN_IF_ERROR(CheckCount(*n, "else outputs (num_outputs)", nout[2], p.num_outputs));
  MX_RETURN_IF_ERROR(
      CheckCount(*n, "cond inputs (cond_input_locs)", nin[0], p.cond_input_locs.ndim()));
  MX_RETURN_IF_ERROR(
      CheckCount(*n, "then inputs (then_input_locs)", nin[1], p.then_input_locs.ndim()));
  MX_RETURN_IF_ERROR(
      CheckCount(*n, "else inputs (else_input_locs)", nin[2], p.else_input_locs.ndim()));
  MX_RETURN_IF_ERROR(
      CheckLocs(*n, "cond_input_locs", p.cond_input_locs, ninputs, /*unique=*/false));
  MX_RETURN_IF_ERROR(
      CheckLocs(*n, "then_input_locs", p.then_input_locs, ninputs, /*unique=*/false));
  MX_RETURN_IF_ERROR(
      CheckLocs(*n, "else_input_locs", p.else_input_locs, ninputs, /*unique=*/false));
  p.subgraphs = Make<CondParam>(std::move(graphs));
  n->attrs = OpAttrs::From(*n->op, std::move(p));
  return absl::OkStatus();
}

}  // namespace mxnet::sym
