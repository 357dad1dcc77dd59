// Reverse-mode automatic differentiation over NDArray operations (mxnet.autograd).
//
//   x.attach_grad();
//   {
//     auto rec = autograd::record();          // like `with autograd.record():`
//     y = nd::elemwise_mul(x, x);
//   }
//   autograd::backward({y});                  // x.grad() == 2 * x
//
// The recording and training flags belong to the current RuntimeContext
// (ndarray/runtime_context.h): per thread by default, or the context a ContextScope made current
// (the C ABI's mxc_ctx). The tape is not bound to a thread or a context: it is the graph of
// recorded nodes hanging off the output arrays, so independent computations never see each
// other's history, an array recorded under one context can be differentiated under another, and
// a node is freed when no array refers to it. Gradients come from each op's registered FGradient
// (ndarray/grad.h), so higher-order gradients work wherever those compositions are differentiable.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "ndarray/ndarray.h"
#include "ndarray/op.h"

namespace mxnet::autograd {

// ---- State (of the current RuntimeContext). ----
bool is_recording();
bool is_training();
// Set the flag and return its previous value (mx.autograd.set_recording / set_training).
bool set_recording(bool is_recording);
bool set_training(bool train_mode);

// Restores the recording and training flags it saw at construction when destroyed, on the
// context that was current at construction.
class [[nodiscard]] Scope {
 public:
  Scope(bool recording, bool training);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  Scope(Scope&& o) noexcept;

 private:
  DispatchState* state_;
  bool prev_recording_, prev_training_;
  bool active_ = true;
};

// `with autograd.record(train_mode)`: records operations for differentiation.
Scope record(bool train_mode = true);
// `with autograd.pause(train_mode)`: stops recording inside a record scope.
Scope pause(bool train_mode = false);
// Training / prediction behaviour (Dropout, BatchNorm) without changing recording.
Scope train_mode();
Scope predict_mode();

// Marks arrays as variables with the given gradient buffers and requests
// (mx.autograd.mark_variables). Sizes must match; grads[i] must have variables[i]'s shape.
void mark_variables(const std::vector<NDArray>& variables, const std::vector<NDArray>& gradients,
                    const std::vector<GradReq>& grad_reqs);

// Computes gradients of `heads` w.r.t. every variable they depend on and stores them in the
// variables' grad buffers (write: overwrite, add: accumulate, null: untouched) and marks each
// written buffer fresh (NDArray::fresh_grad, for gluon::Trainer's stale-gradient check).
// head_grads: one per head (none = ones); retain_graph keeps the recorded graph for another
// backward. Errors: a head that was not recorded; a second backward over a freed graph.
void backward(const std::vector<NDArray>& heads, const std::vector<NDArray>& head_grads = {},
              bool retain_graph = false, bool train_mode = true);

// Gradients of `heads` w.r.t. `variables` (mx.autograd.grad), returned without touching .grad.
// create_graph records the gradient computation itself (higher-order gradients); it implies
// retain_graph.
std::vector<NDArray> grad(const std::vector<NDArray>& heads, const std::vector<NDArray>& variables,
                          const std::vector<NDArray>& head_grads = {}, bool retain_graph = false,
                          bool create_graph = false, bool train_mode = true);

// True if `a` carries recorded history or is a variable (attach_grad).
bool is_tracked(const NDArray& a);

// A user-defined differentiable function (mx.autograd.Function):
//   class Sigmoid : public autograd::Function {
//     std::vector<NDArray> forward(const std::vector<NDArray>& in) override { ...
//     save_for_backward(y); } std::vector<NDArray> backward(const std::vector<NDArray>& out_grads)
//     override { ... }
//   };
//   auto y = std::make_shared<Sigmoid>()->operator()({x});
// forward runs with recording paused; backward receives one gradient per output and returns one
// per input (none for inputs without a gradient). One instance serves one call.
class Function : public std::enable_shared_from_this<Function> {
 public:
  virtual ~Function() = default;
  virtual std::vector<NDArray> forward(const std::vector<NDArray>& inputs) = 0;
  virtual std::vector<NDArray> backward(const std::vector<NDArray>& output_grads) = 0;
  // Runs forward and records one node whose backward calls backward(). The object must be owned
  // by a std::shared_ptr.
  std::vector<NDArray> operator()(const std::vector<NDArray>& inputs);

 protected:
  void save_for_backward(std::vector<NDArray> arrays) { saved_tensors_ = std::move(arrays); }
  const std::vector<NDArray>& saved_tensors() const { return saved_tensors_; }

 private:
  std::vector<NDArray> saved_tensors_;
};

// Number of live recorded nodes (tests and leak checks).
int64_t LiveNodeCount();

// ---- Internal: the recorded history as plain data. ----
// For autograd/get_symbol.h (mx.autograd.get_symbol), which builds a sym::Symbol from it; it
// lives in its own target because //symbol depends on //autograd. Not a user API.
namespace internal {

// One node of a recorded history.
struct HistoryNode {
  enum class Kind {
    kOp,        // a recorded operation
    kVariable,  // an array marked with attach_grad / mark_variables
    kConstant,  // an input without history (not a variable) read by a recorded operation
  };
  struct Input {
    int node = 0;   // position in History::nodes (always earlier than the consumer)
    int index = 0;  // output of that node
  };
  Kind kind = Kind::kOp;
  // Process-wide creation numbers, as MXNet names them: operations count "node_<id>" at
  // recording; variables (when first read by a recorded op) and constants (per reading op; one
  // array read several times keeps its smallest number) share the "var<id>" / "null<id>" counter.
  int64_t id = 0;
  const Op* op = nullptr;     // kOp
  OpAttrs attrs;              // kOp
  int num_outputs = 1;        // kOp: every output, hidden ones included
  std::vector<Input> inputs;  // kOp, in the op's input order
  // kVariable / kConstant: the array itself while it is alive (none once it was freed).
  NDArray array;
};

struct History {
  // Post-order DFS from the head (inputs in order before their consumers), like MXNet's
  // nnvm::DFSVisit; constants appear where they are first read.
  std::vector<HistoryNode> nodes;
  HistoryNode::Input head;
};

// The history of `x`: everything recorded that x depends on, down to variables and constants.
// A variable alone gives one kVariable node. Errors: kFailedPrecondition when x is none or has no
// history and is not a variable; kUnimplemented when the history passes through an
// autograd::Function (custom Functions and hybridized blocks' CachedOp calls), which has no
// operator to name; kFailedPrecondition for a node whose history was freed by backward.
History RecordedHistory(const NDArray& x);

}  // namespace internal

}  // namespace mxnet::autograd
