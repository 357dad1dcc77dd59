// The graph executor behind hybridize() and SymbolBlock (MXNet's CachedOp).
//
// A CachedOp binds a Symbol's inputs (list_inputs() order: arguments and auxiliary states) at
// call time, infers shapes/types for the input signature, plans memory (liveness-based buffer
// reuse plus in-place where the op allows), and runs every node's kernel. Under
// autograd::record() a call is one node on the tape whose backward runs a gradient graph built
// from the registry's gradient definitions. The compiled graph is immutable; each call uses its
// own state, so one CachedOp may be called from several threads at once.
#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "ndarray/op.h"
#include "symbol/symbol.h"

namespace mxnet::sym {

struct CachedOpOptions {
  // Allocate the internal buffers once per execution state and reuse them across calls.
  bool static_alloc = false;
  // Skip shape/type re-inference while the input shapes repeat (a new shape still works).
  bool static_shape = false;
  // Reuse buffers of dead values and run ops in place where they allow it.
  bool plan_memory = true;
};

// Memory plan figures of the last compiled signature (bytes of internal values).
struct MemoryStats {
  int64_t planned_bytes = 0;  // peak with buffer reuse and in-place (what is allocated)
  int64_t naive_bytes = 0;    // one buffer per internal value
  int num_buffers = 0;
  int num_inplace = 0;
};

class CachedOp {
 public:
  explicit CachedOp(Symbol symbol, CachedOpOptions options = {});
  ~CachedOp();

  const Symbol& symbol() const { return symbol_; }
  const std::vector<std::string>& input_names() const { return input_names_; }

  // Runs the graph on `inputs` (one per input name; aux states are updated in place in
  // training mode) and returns the visible outputs. Honors autograd's thread-local
  // recording/training flags. Errors: wrong number of inputs, shapes/dtypes that do not infer
  // (naming the node), mixed devices.
  NDArrayVec operator()(std::span<const NDArray> inputs);

  // Forward without autograd, in the given mode (inference when is_train is false).
  NDArrayVec Forward(std::span<const NDArray> inputs, bool is_train);

  MemoryStats memory_stats() const;
  // Number of distinct input signatures compiled so far.
  int num_compiled() const;

  // Called after every node with (output name "<node>_<output>", op name, value) when set.
  // monitor_all also reports op inputs ("<node>_<input name>").
  using Monitor = std::function<void(const std::string&, const std::string&, const NDArray&)>;
  void set_monitor(Monitor m, bool monitor_all);

  struct Impl;

 private:
  NDArrayVec ForwardImpl(std::span<const NDArray> inputs, bool is_train, bool is_record);
  Symbol symbol_;
  std::vector<std::string> input_names_;
  std::shared_ptr<Impl> impl_;
};

}  // namespace mxnet::sym
