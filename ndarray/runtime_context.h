// RuntimeContext: the explicit state of one caller's thread of control (issue 21 item 5):
// autograd's recording/training flags, the hybridize tracer and shape-only dispatch, the symbol
// name manager's counters and prefix, an optional random GeneratorSet of its own, and the default
// device of ops without inputs. Nothing here is MXNet's `Context` (that is the device,
// base/device.h).
//
// Every thread has a current context: its own per-thread default context unless a ContextScope
// made another one current. C++ users never need to create one: the default behaves exactly as
// the former thread-local state did.
//
//   RuntimeContext ctx;
//   ctx.seed(7);                        // this context draws from its own generators
//   {
//     ContextScope scope(ctx);          // ctx is this thread's current context
//     auto rec = autograd::record();    // sets ctx's recording flag, restores it at scope end
//     y = nd::random::uniform(...);     // from ctx's generators
//   }
//
// The C ABI (c_api/src/ctx_scope.h) keeps each mxc_ctx's state (recording/training flags,
// default device, own RNG seed) in the mxc_ctx and, for the duration of each entry point, copies
// the flags into the calling thread's current context and makes the ctx's generators current
// with random::ScopedGeneratorSet; the state therefore follows a goroutine or JVM task that
// migrates between OS threads. Holding one RuntimeContext per mxc_ctx, entered with
// ContextScope, is the intended next step.
//
// Threading contract:
// - A context is used by one thread at a time. A ContextScope entering a context that another
//   thread has current throws kFailedPrecondition; handing a context from one thread to another
//   between scopes (a migrating goroutine) is fine and well-ordered (release/acquire).
// - Distinct contexts may be used concurrently from different threads.
// - Objects are not owned by a context: arrays, autograd history (it hangs off the arrays, see
//   autograd.h), parameters and blocks may be shared across contexts under their own contracts;
//   a hybridized block may be called from many threads (and contexts) at once.
// - The per-thread default context lives as long as its thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "base/device.h"
#include "ndarray/random.h"

namespace mxnet {

class InvokeObserver;  // ndarray/op.h

// The state every op dispatch reads (ndarray/op.h Invoke): plain data, copyable so scopes can
// save and restore it whole.
struct DispatchState {
  bool is_recording = false;         // autograd records ops (autograd::record)
  bool is_training = false;          // train mode (Dropout, BatchNorm; autograd::train_mode)
  InvokeObserver* tracer = nullptr;  // set while a HybridBlock or control-flow body is traced
  // Shape-only dispatch (deferred initialization, hybridize tracing): kernels do not run, outputs
  // are placeholders (NDArray::Placeholder) with inferred shapes, and shapes an op infers for
  // placeholder inputs (e.g. a weight of unknown shape) are written back into them.
  bool infer_only = false;
};

// Automatic symbol names (mxnet.name.NameManager, kept by symbol/symbol.h's NameManager):
// "<hint><counter>" with one counter per hint, and the prefix of the enclosing Prefix scopes.
struct NameState {
  std::unordered_map<std::string, int> counters;
  std::string prefix;
};

class RuntimeContext {
 public:
  // Not recording, predict mode, no tracer, fresh name counters, the global random generators,
  // default device cpu(0).
  RuntimeContext() = default;
  RuntimeContext(const RuntimeContext&) = delete;
  RuntimeContext& operator=(const RuntimeContext&) = delete;

  // The calling thread's current context (its default context unless a ContextScope is active).
  static RuntimeContext& Current();

  DispatchState dispatch;
  NameState names;
  // The device of ops without inputs dispatched without one (Invoke, and the C ABI's default).
  Device default_device = cpu();

  // Gives this context its own random generators (one per device, seeded like
  // mxnet::random::seed): random ops and initializers run under this context draw from them, so
  // concurrent contexts get repeatable sequences independent of each other.
  void seed(uint64_t seed_state) { rng_ = std::make_shared<random::GeneratorSet>(seed_state); }
  // Back to the process-wide generators (mxnet::random::seed), the default.
  void use_global_random() { rng_.reset(); }
  // The context's own generators, or nullptr for the process-wide ones.
  random::GeneratorSet* generators() const { return rng_.get(); }

 private:
  friend class ContextScope;
  std::shared_ptr<random::GeneratorSet> rng_;
  std::atomic<uintptr_t> owner_{0};  // token of the thread inside a ContextScope of it, or 0
  int depth_ = 0;                    // nested ContextScopes of the owner thread
};

// Makes `ctx` the calling thread's current context for the scope's lifetime (nestable; the
// previous context is current again afterwards). Throws kFailedPrecondition if another thread is
// inside a ContextScope of `ctx`.
class [[nodiscard]] ContextScope {
 public:
  explicit ContextScope(RuntimeContext& ctx);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

 private:
  RuntimeContext* ctx_;
  RuntimeContext* prev_;
};

// RuntimeContext::Current().dispatch (the hot path of every op call).
DispatchState& CurrentDispatchState();

// Saves the current context's dispatch state and restores it, on that context, when destroyed;
// state() is the live state to change meanwhile.
class [[nodiscard]] DispatchStateScope {
 public:
  DispatchStateScope() : state_(&CurrentDispatchState()), saved_(*state_) {}
  ~DispatchStateScope() { *state_ = saved_; }
  DispatchStateScope(const DispatchStateScope&) = delete;
  DispatchStateScope& operator=(const DispatchStateScope&) = delete;
  DispatchState& state() { return *state_; }
  const DispatchState& saved() const { return saved_; }

 private:
  DispatchState* state_;
  DispatchState saved_;
};

// Ops dispatched during its lifetime are neither recorded by autograd nor traced: kernels that
// run subgraphs or helper ops, where the enclosing node is what gets recorded.
class [[nodiscard]] QuietDispatchScope : public DispatchStateScope {
 public:
  QuietDispatchScope() {
    state().is_recording = false;
    state().tracer = nullptr;
  }
};

}  // namespace mxnet
