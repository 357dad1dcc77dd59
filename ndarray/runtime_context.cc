#include "ndarray/runtime_context.h"

#include "base/error.h"

namespace mxnet {
namespace {

// The current context of this thread (nullptr until first asked: then the thread's default).
thread_local RuntimeContext* t_current = nullptr;

RuntimeContext& ThreadDefault() {
  thread_local RuntimeContext ctx;
  return ctx;
}

// A non-zero token per live thread (the address of a thread_local).
uintptr_t ThreadToken() {
  thread_local char token;
  return reinterpret_cast<uintptr_t>(&token);
}

}  // namespace

RuntimeContext& RuntimeContext::Current() {
  RuntimeContext* c = t_current;
  if (c) [[likely]]
    return *c;
  return *(t_current = &ThreadDefault());  // one TLS read on later calls
}

DispatchState& CurrentDispatchState() { return RuntimeContext::Current().dispatch; }

ContextScope::ContextScope(RuntimeContext& ctx) : ctx_(&ctx), prev_(t_current) {
  const uintptr_t me = ThreadToken();
  uintptr_t owner = 0;
  if (!ctx.owner_.compare_exchange_strong(owner, me, std::memory_order_acquire) && owner != me)
    MX_THROW(absl::StatusCode::kFailedPrecondition,
             "RuntimeContext: the context is already in use by another thread (a context serves "
             "one thread at a time; create one per thread or goroutine)");
  ++ctx.depth_;
  t_current = &ctx;
}

ContextScope::~ContextScope() {
  t_current = prev_;
  if (--ctx_->depth_ == 0) ctx_->owner_.store(0, std::memory_order_release);
}

}  // namespace mxnet
