// The recorded history of an NDArray as a Symbol (mx.autograd.get_symbol).
//
//   x.attach_grad();
//   NDArray y;
//   { auto rec = autograd::record(); y = nd::relu(nd::plus_scalar(nd::mul_scalar(x, 2), 1)); }
//   sym::Symbol s = autograd::get_symbol(y);
//   // var0 -> _mul_scalar node_0 -> _plus_scalar node_1 -> relu node_2
//
// Lives in //symbol (it builds a Symbol from autograd's history: the layering points down,
// symbol -> autograd); the namespace stays autograd, as in mx.autograd.get_symbol.
#pragma once

#include <map>
#include <string>

#include "ndarray/ndarray.h"
#include "symbol/symbol.h"

namespace mxnet::autograd {

// Every recorded operation that `x` depends on becomes an operator node with the op's MXNet
// name (the registered name, not an alias: split records SliceChannel) and its attributes in
// MXNet's string form (required ones and non-defaults, OpAttrs::ToDict). Arrays marked with
// attach_grad / mark_variables become variables "var<N>"; inputs without history that recorded
// ops read (constants) become variables "null<N>", one per array however often it is read.
// Operator nodes are named "node_<N>". As in MXNet the numbers are process-wide creation
// counters (operations at recording; variables when first read by a recorded op; constants at
// recording), so a name is stable across calls but depends on what ran before. Variables carry
// no __shape__/__dtype__ (as MXNet): pass the input shapes to infer_shape, or bind the symbol
// (sym::CachedOp, inputs in list_inputs() order) to recompute x. The head is x's output of its
// node (the right index for multi-output ops); x being a variable gives just that variable.
//
// Errors (mxnet::Error): kFailedPrecondition when x is none, was not recorded and is not a
// variable ("not part of a computation graph"), or its history was freed by a backward without
// retain_graph (MXNet clears it then too); kUnimplemented when the history passes through an
// autograd::Function (custom Functions, hybridized blocks' CachedOp calls), which has no operator
// to name (MXNet writes _CustomFunction / _CachedOp nodes that cannot be rebuilt from JSON).
//
// Source: mxnet.autograd.get_symbol (MXAutogradGetSymbol), MXNet 1.9.1.
sym::Symbol get_symbol(const NDArray& x);

// get_symbol plus the arrays the history read: for each variable name in
// symbol.list_inputs(), the variable or constant array as it is now (constants that no longer
// exist are absent). Binding the symbol to these values recomputes x while they are unchanged.
struct RecordedSymbol {
  sym::Symbol symbol;
  std::map<std::string, NDArray> inputs;
};
RecordedSymbol get_symbol_with_inputs(const NDArray& x);

}  // namespace mxnet::autograd
