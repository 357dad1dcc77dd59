// The graph executor behind hybridize() and SymbolBlock (MXNet's CachedOp).
//
// A CachedOp binds a Symbol's inputs (list_inputs() order: arguments and auxiliary states) at
// call time, infers shapes/types for the input signature, plans memory (liveness-based buffer
// reuse plus in-place where the op allows), and runs every node's kernel. Under
// autograd::record() a call is one node on the tape whose backward runs a gradient graph built
// from the registry's gradient definitions. The compiled graph is immutable; each call uses its
// own state, so one CachedOp may be called from several threads at once.
//
// Graph passes (symbol/passes/passes.h), chosen by CachedOpOptions::backend:
//  - training calls (autograd train mode, or recording with inputs that need gradients) run the
//    graph after the semantics-preserving passes only: dead code, common subexpressions,
//    constant folding;
//  - inference calls run a graph optimized per input signature: the same passes plus
//    BatchNorm folding and, for "onednn", Convolution/FullyConnected post-op fusion.
// BatchNorm folding bakes the current values of the weights and BatchNorm parameters into the
// inference graph. Those inputs are checked on every inference call (identity, and the storage
// block's write version, ndarray/storage.h; contents for blocks whose writes cannot be tracked)
// and the graph is re-optimized when one changed, e.g. after training steps. When they
// change again after only a few calls, several times in a row, the CachedOp stops folding values
// for that signature (inputs that change with every call, like a weight computed by the caller,
// would otherwise recompile every time); changes between longer runs of inference calls (training
// epochs with validation in between) keep folding.
#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "ndarray/op.h"
#include "symbol/passes/memory_plan.h"
#include "symbol/passes/pass.h"
#include "symbol/symbol.h"

namespace mxnet::sym {

struct CachedOpOptions {
  // Allocate the internal buffers once per execution state and reuse them across calls.
  bool static_alloc = false;
  // Skip shape/type re-inference while the input shapes repeat (a new shape still works).
  bool static_shape = false;
  // Reuse buffers of dead values and run ops in place where they allow it.
  bool plan_memory = true;
  // Graph passes: "" or "none" (the graph as given), "default", or "onednn" (see above; MXNet's
  // optimize_for backend names "ONEDNN"/"MKLDNN" mean "onednn"). Unknown names throw.
  std::string backend;
  // Check on every call that inputs folded into the inference graph were not written since
  // (see above): their storage blocks' write versions (Storage::version, a few loads per input),
  // and a fingerprint of the contents for blocks marked Storage::untracked_writes (external
  // buffers, raw pointers handed out through the C ABI or DLPack). Writes through a raw pointer
  // of an ordinary array are seen only after NDArray::mark_written(). false: only their
  // identity (array object and buffer) is checked, and folding also applies on GPUs.
  bool verify_folded_inputs = true;
};

// What the passes did to the graph of the last compiled call, and its memory plan.
struct CompileReport {
  bool inference = false;                  // the inference pipeline (else the training one)
  std::vector<passes::PassResult> passes;  // in order, ending with memory_plan
  int nodes_before = 0;                    // operator nodes of the original graph
  int nodes_after = 0;                     // operator nodes that run
  std::vector<std::string> folded_inputs;  // inputs whose values were baked in
  MemoryStats memory;
  std::string ToString() const;
};

class CachedOp {
 public:
  explicit CachedOp(Symbol symbol, CachedOpOptions options = {});
  ~CachedOp();

  const Symbol& symbol() const { return symbol_; }
  const std::vector<std::string>& input_names() const { return input_names_; }

  // Runs the graph on `inputs` (one per input name; aux states are updated in place in
  // training mode) and returns the visible outputs. Honors the current RuntimeContext's
  // recording/training flags. Errors: wrong number of inputs, shapes/dtypes that do not infer
  // (naming the node), mixed devices.
  NDArrayVec operator()(std::span<const NDArray> inputs);

  // Forward without autograd, in the given mode (inference when is_train is false).
  NDArrayVec Forward(std::span<const NDArray> inputs, bool is_train);

  // Memory plan of the last compiled signature: planned (with reuse and in-place) vs naive bytes.
  MemoryStats memory_stats() const;
  // Passes and memory plan of the last compiled signature.
  CompileReport last_report() const;
  // The graph that ran for the last compiled signature (after the passes), with the values of
  // the constants the passes made (names of __constant__ variables -> values).
  Symbol optimized_symbol() const;
  std::map<std::string, NDArray> optimized_constants() const;
  // Checks the last compiled memory plan with passes::VerifyMemoryPlan (no two live values in
  // one buffer); OK before the first call.
  absl::Status verify_memory_plan() const;
  // Number of distinct input signatures compiled so far.
  int num_compiled() const;

  // Called after every node with (output name "<node>_<output>", op name, value) when set.
  // monitor_all also reports op inputs ("<node>_<input name>"). With passes the nodes are those
  // of the optimized graph (fused nodes are named "<conv>_fused").
  using Monitor = std::function<void(const std::string&, const std::string&, const NDArray&)>;
  void set_monitor(Monitor m, bool monitor_all);

  struct Impl;

 private:
  NDArrayVec ForwardImpl(std::span<const NDArray> inputs, bool is_train, bool is_record);
  Symbol symbol_;
  std::vector<std::string> input_names_;
  std::shared_ptr<Impl> impl_;
};

// The forward outputs of `fwd` followed by d(outputs)/d(inputs[i]) for every input named in
// `input_names` with needs_grad[i] (zeros where an output does not depend on it), built from the
// registry's gradient definitions. Head gradients are variables "__head_grad_<k>" (k = output).
// Used by ops that run subgraphs (symbol/control_flow.h).
Symbol GradientGraph(const Symbol& fwd, const std::vector<bool>& needs_grad,
                     const std::vector<std::string>& input_names);

}  // namespace mxnet::sym
