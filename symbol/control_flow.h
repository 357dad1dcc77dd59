// MXNet's control-flow operators _foreach, _while_loop and _cond (mx.sym.contrib.foreach /
// while_loop / cond; MXNet 1.9.1 src/operator/control_flow.cc): graph nodes that own subgraphs.
//
// A node's subgraphs live in its OpAttrs (the `subgraphs` member of the parameter structs below;
// not a string attribute). Symbol JSON reads and writes them as MXNet's "subgraphs" array. The
// locs attributes index a subgraph's inputs in list_inputs() order (MXNet's DFS order), or the
// node's inputs (while_loop/cond). Kernels (CPU) run the subgraphs with a CachedOp; gradients run
// the iterations backwards with the subgraphs' gradient graphs (recomputing the forward).
//
// Node inputs and outputs:
//  _foreach (1 subgraph, the body): inputs [data..., init states..., remaining...]; outputs
//    [stacked outputs (len, ...)..., final states...]; num_args = inputs + 1.
//  _while_loop (2 subgraphs: cond -> 1 scalar, func): inputs are the union of both subgraphs'
//    inputs; outputs [step outputs (max_iterations, ...)..., final loop vars...]; rows past the
//    number of steps taken are zeros here (MXNet leaves them undefined); num_args = inputs + 2.
//  _cond (3 subgraphs: pred -> 1 scalar, then, else): outputs of the branch taken;
//    num_args = inputs + 3.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ndarray/op.h"
#include "symbol/symbol.h"

namespace mxnet::sym {

// The subgraphs of one control-flow node plus their lazily built executors (shared by copies of
// the attributes).
struct Subgraphs {
  std::vector<Symbol> graphs;
  std::vector<std::vector<std::string>> input_names;  // list_inputs() of each graph
  mutable std::mutex mu;
  mutable std::shared_ptr<void> runtime;  // symbol/control_flow.cc
};

// _foreach attributes (MXNet ForeachParam). Locs are positions among the body's inputs.
struct ForeachParam {
  int num_args = 1;     // node inputs + 1
  int num_outputs = 0;  // body outputs: out data then states
  int num_out_data = 0;
  Shape in_state_locs, in_data_locs, remain_locs;
  std::shared_ptr<const Subgraphs> subgraphs;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &ForeachParam::num_args).required().describe("Number of inputs + 1.");
    d.field("num_outputs", &ForeachParam::num_outputs).required().describe("Outputs of the body.");
    d.field("num_out_data", &ForeachParam::num_out_data)
        .required()
        .describe("Output data of the body.");
    d.field("in_state_locs", &ForeachParam::in_state_locs)
        .required()
        .describe("Loop states among the body's inputs.");
    d.field("in_data_locs", &ForeachParam::in_data_locs)
        .required()
        .describe("Data among the body's inputs.");
    d.field("remain_locs", &ForeachParam::remain_locs).required().describe("Other body inputs.");
  }
};

// _while_loop attributes (MXNet WhileLoopParam). cond/func_input_locs: node input of each
// subgraph input; func_var_locs: loop variables among func's inputs.
struct WhileLoopParam {
  int num_args = 2;  // node inputs + 2
  int num_outputs = 1;
  int num_out_data = 0;
  int max_iterations = 1;
  Shape cond_input_locs, func_input_locs, func_var_locs;
  std::shared_ptr<const Subgraphs> subgraphs;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &WhileLoopParam::num_args).required().describe("Number of inputs + 2.");
    d.field("num_outputs", &WhileLoopParam::num_outputs).required().describe("Outputs of func.");
    d.field("num_out_data", &WhileLoopParam::num_out_data)
        .required()
        .describe("Step outputs of func.");
    d.field("max_iterations", &WhileLoopParam::max_iterations)
        .required()
        .describe("Maximum number of steps (>= 1).");
    d.field("cond_input_locs", &WhileLoopParam::cond_input_locs)
        .required()
        .describe("Node input of each cond input.");
    d.field("func_input_locs", &WhileLoopParam::func_input_locs)
        .required()
        .describe("Node input of each func input.");
    d.field("func_var_locs", &WhileLoopParam::func_var_locs)
        .required()
        .describe("Loop variables among func's inputs.");
  }
};

// _cond attributes (MXNet CondParam): node input of each input of the three subgraphs.
struct CondParam {
  int num_args = 3;  // node inputs + 3
  int num_outputs = 1;
  Shape cond_input_locs, then_input_locs, else_input_locs;
  std::shared_ptr<const Subgraphs> subgraphs;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &CondParam::num_args).required().describe("Number of inputs + 3.");
    d.field("num_outputs", &CondParam::num_outputs).required().describe("Outputs of each branch.");
    d.field("cond_input_locs", &CondParam::cond_input_locs)
        .required()
        .describe("Node input of each pred input.");
    d.field("then_input_locs", &CondParam::then_input_locs)
        .required()
        .describe("Node input of each then input.");
    d.field("else_input_locs", &CondParam::else_input_locs)
        .required()
        .describe("Node input of each else input.");
  }
};

// The subgraphs held by a node's attributes, or nullptr for other ops.
const Subgraphs* NodeSubgraphs(const Node& n);
// Whether `op` is one of the control-flow ops (or their _backward_ ops).
bool IsControlFlowOp(const Op& op);
// Attaches `graphs` to the control-flow node `n` (its attrs must be parsed) after checking them
// against the attributes: number of subgraphs, their inputs/outputs vs num_args/num_outputs, locs
// in range and not repeated. kInvalidArgument naming the node and what was wrong.
absl::Status AttachSubgraphs(Node* n, std::vector<Symbol> graphs);

// Other operators owning subgraphs (symbol/sg_ops.cc: MXNet's fused _sg_mkldnn_* ops) register
// how their attributes hold them; NodeSubgraphs and AttachSubgraphs consult these hooks. Register
// at static initialization only.
struct SubgraphOpHooks {
  std::function<const Subgraphs*(const Node&)> get;
  std::function<absl::Status(Node*, std::vector<Symbol>)> attach;
};
void RegisterSubgraphOp(const std::string& op_name, SubgraphOpHooks hooks);

// ---- Symbolic construction (mx.sym.contrib.*). Bodies receive new variables ("<name>-0")
// and return symbols; the variables of the outer graph a body uses become the node's remaining
// inputs. Nodes are named _foreachN / _while_loopN / _condN like MXNet's (`name` is accepted
// for parity; MXNet uses it only for the __subgraph_name__ attribute). Errors
// (kInvalidArgument): no data / loop variables, max_iterations < 1, bodies returning the wrong
// number of states, or not using one of their inputs (MXNet's node needs all). ----
namespace contrib {
using SymbolVec = std::vector<Symbol>;
// foreach(body, data, init_states): body(data slices, states) -> {outputs, new states}.
std::pair<SymbolVec, SymbolVec> foreach (
    const std::function<std::pair<SymbolVec, SymbolVec>(const SymbolVec&, const SymbolVec&)>& body,
    const SymbolVec& data, const SymbolVec& init_states, const std::string& name = "foreach");
// while_loop(cond, func, loop_vars, max_iterations): cond(vars) -> scalar,
// func(vars) -> {step outputs, new vars}.
std::pair<SymbolVec, SymbolVec> while_loop(
    const std::function<Symbol(const SymbolVec&)>& cond,
    const std::function<std::pair<SymbolVec, SymbolVec>(const SymbolVec&)>& func,
    const SymbolVec& loop_vars, int max_iterations, const std::string& name = "while_loop");
// cond(pred, then_func, else_func): the outputs of one branch.
SymbolVec cond(const Symbol& pred, const std::function<SymbolVec()>& then_func,
               const std::function<SymbolVec()>& else_func, const std::string& name = "cond");
}  // namespace contrib

}  // namespace mxnet::sym

// ---- Imperative (mx.nd.contrib.*): plain loops over recorded ops, so autograd differentiates
// them like any other computation. ----
namespace mxnet::nd::contrib {
// Slices every data array along axis 0 (all must have the same length > 0), runs body per slice
// and stacks the outputs on a new axis 0. Returns {stacked outputs, final states}.
std::pair<NDArrayVec, NDArrayVec> foreach (
    const std::function<std::pair<NDArrayVec, NDArrayVec>(const NDArrayVec&, const NDArrayVec&)>&
        body,
    const NDArrayVec& data, const NDArrayVec& init_states);
// Runs func while cond(vars) is true (a scalar), at most max_iterations (>= 1) times. Step
// outputs are stacked and padded with zeros to max_iterations rows (MXNet: undefined rows).
std::pair<NDArrayVec, NDArrayVec> while_loop(
    const std::function<NDArray(const NDArrayVec&)>& cond,
    const std::function<std::pair<NDArrayVec, NDArrayVec>(const NDArrayVec&)>& func,
    const NDArrayVec& loop_vars, int max_iterations);
// then_func() if pred (a one-element array) is non-zero, else else_func().
NDArrayVec cond(const NDArray& pred, const std::function<NDArrayVec()>& then_func,
                const std::function<NDArrayVec()>& else_func);
}  // namespace mxnet::nd::contrib
