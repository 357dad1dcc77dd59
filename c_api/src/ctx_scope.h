// The state behind an mxc_ctx and the scope that makes it current on the calling thread for the
// duration of one C call.
//
// Each mxc_ctx owns one mxnet::RuntimeContext (ndarray/runtime_context.h): its autograd
// recording/training flags, tracer state, symbol name counters, default device and, once seeded,
// its own random generators. CtxScope enters it with a ContextScope, so everything the C++
// libraries read from RuntimeContext::Current() during the call is the ctx's. A ctx entered by
// one thread while another thread is inside a call with it is an MXC_FAILED_PRECONDITION error
// (RuntimeContext's check), never a race. A NULL ctx keeps the thread's current context (its
// RNG: the process-wide generators on a plain thread; inside a callback, those of the call running
// it, e.g. a DataLoader worker's per-batch generators) with its dispatch state set to the defaults
// (not recording, predict mode, no tracer) for the call and restored afterwards; default device
// cpu(0).
#pragma once

#include <memory>
#include <optional>

#include "base/device.h"
#include "mxc/ctx.h"
#include "ndarray/runtime_context.h"

namespace mxc {

// What an mxc_ctx holds.
struct CtxState {
  mxnet::RuntimeContext rt;
};

// The state behind a ctx handle; nullptr for NULL (the default state). Throws on invalid handles.
std::shared_ptr<CtxState> GetCtx(mxc_ctx* ctx);
// The state behind a ctx handle. Throws on NULL and invalid handles (argument 'ctx').
std::shared_ptr<CtxState> GetCtxChecked(mxc_ctx* ctx);

// Makes `ctx` (nullptr: this thread's default state) current on this thread until destroyed.
// Throws kFailedPrecondition when another thread is inside a call with the same ctx.
class CtxScope {
 public:
  explicit CtxScope(CtxState* ctx);
  CtxScope(const CtxScope&) = delete;
  CtxScope& operator=(const CtxScope&) = delete;

  // The ctx's default device (cpu(0) for NULL).
  mxnet::Device device() const { return ctx_ ? ctx_->rt.default_device : mxnet::cpu(); }

 private:
  CtxState* ctx_;
  std::optional<mxnet::ContextScope> scope_;             // a ctx
  std::optional<mxnet::DispatchStateScope> null_state_;  // NULL
};

// Runs f(rt) with ctx's runtime context entered (for the ctx's own getters and setters).
// Errors: an invalid handle, another thread inside a call with the ctx.
template <typename F>
auto WithCtx(mxc_ctx* ctx, F&& f) {
  std::shared_ptr<CtxState> st = GetCtxChecked(ctx);
  CtxScope scope(st.get());
  return f(st->rt);
}

}  // namespace mxc
