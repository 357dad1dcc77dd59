// mxc/ctx.h: explicit runtime state (see ctx_scope.h).
#include "mxc/ctx.h"
#include "autograd/autograd.h"
#include "c_api/src/api.h"
#include "c_api/src/ctx_scope.h"
#include "c_api/src/handles.h"

namespace mxc {

CtxScope::CtxScope(CtxState* ctx) : ctx_(ctx) {
  if (ctx) {
    scope_.emplace(ctx->rt);
    return;
  }
  null_state_.emplace();
  mxnet::DispatchState& st = null_state_->state();
  st.is_recording = false;
  st.is_training = false;
  st.tracer = nullptr;
  st.infer_only = false;
}

}  // namespace mxc

extern "C" {

MXC_DEFINE_RETAIN_FREE(mxc_ctx)

MXC_STATUS mxc_ctx_create(const mxc_ctx_options* options, mxc_ctx** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxc_ctx_options o = mxc::ReadOptions(options, "options");
    mxnet::Device d = mxc::ToDevice(o.device, "options.device");
    auto st = std::make_shared<mxc::CtxState>();
    st->rt.default_device = d;
    if (o.has_seed) st->rt.seed(o.seed);
    *out = mxc::New<mxc_ctx>(std::move(st));
  });
}

MXC_STATUS mxc_ctx_device(mxc_ctx* ctx, mxc_device* out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::WithCtx(
        ctx, [](mxnet::RuntimeContext& rt) { return mxc::FromDevice(rt.default_device); });
  });
}

MXC_STATUS mxc_ctx_set_device(mxc_ctx* ctx, mxc_device device, mxc_device* previous) noexcept {
  return mxc::Call(__func__, [&] {
    mxnet::Device d = mxc::ToDevice(device, "device");
    mxc_device prev = mxc::WithCtx(ctx, [&](mxnet::RuntimeContext& rt) {
      return mxc::FromDevice(std::exchange(rt.default_device, d));
    });
    if (previous) *previous = prev;
  });
}

MXC_STATUS mxc_ctx_seed(mxc_ctx* ctx, uint64_t seed) noexcept {
  return mxc::Call(__func__,
                   [&] { mxc::WithCtx(ctx, [&](mxnet::RuntimeContext& rt) { rt.seed(seed); }); });
}

MXC_STATUS mxc_random_seed(uint64_t seed) noexcept {
  return mxc::Call(__func__, [&] { mxnet::random::seed(seed); });
}

}  // extern "C"

namespace mxc {
std::shared_ptr<CtxState> GetCtx(mxc_ctx* ctx) { return ctx ? Get(ctx, "ctx") : nullptr; }
std::shared_ptr<CtxState> GetCtxChecked(mxc_ctx* ctx) { return Get(ctx, "ctx"); }
}  // namespace mxc
