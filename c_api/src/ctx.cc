// mxc/ctx.h: explicit runtime state (see ctx_scope.h).
#include "mxc/ctx.h"
#include "autograd/autograd.h"
#include "c_api/src/api.h"
#include "c_api/src/ctx_scope.h"
#include "c_api/src/handles.h"

namespace mxc {

CtxScope::CtxScope(CtxState* ctx) : state_(&mxnet::ThreadDispatchState()), saved_(*state_) {
  const bool recording = ctx && ctx->recording.load(std::memory_order_relaxed);
  // autograd::set_recording installs autograd's recorder on first use; plain stores otherwise
  // (this runs on every call: one thread-local lookup).
  if (recording && !state_->is_recording) mxnet::autograd::set_recording(true);
  state_->is_recording = recording;
  state_->is_training = ctx && ctx->training.load(std::memory_order_relaxed);
  device_ = ctx ? ctx->device() : mxnet::cpu();
  if (ctx && ctx->own_rng.load(std::memory_order_relaxed)) rng_.emplace(&ctx->rng);
}

CtxScope::~CtxScope() { *state_ = saved_; }

}  // namespace mxc

extern "C" {

MXC_DEFINE_RETAIN_FREE(mxc_ctx)

MXC_STATUS mxc_ctx_create(const mxc_ctx_options* options, mxc_ctx** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxc_ctx_options o = mxc::ReadOptions(options, "options");
    mxnet::Device d = mxc::ToDevice(o.device, "options.device");
    auto st = std::make_shared<mxc::CtxState>();
    st->device_type = static_cast<int32_t>(d.type);
    st->device_id = d.id;
    if (o.has_seed) {
      st->rng.seed(o.seed);
      st->own_rng = true;
    }
    *out = mxc::New<mxc_ctx>(std::move(st));
  });
}

MXC_STATUS mxc_ctx_device(mxc_ctx* ctx, mxc_device* out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::FromDevice(mxc::Get(ctx, "ctx")->device());
  });
}

MXC_STATUS mxc_ctx_set_device(mxc_ctx* ctx, mxc_device device, mxc_device* previous) noexcept {
  return mxc::Call(__func__, [&] {
    auto st = mxc::Get(ctx, "ctx");
    mxnet::Device d = mxc::ToDevice(device, "device");
    mxc_device prev = mxc::FromDevice(st->device());
    st->device_type = static_cast<int32_t>(d.type);
    st->device_id = d.id;
    if (previous) *previous = prev;
  });
}

MXC_STATUS mxc_ctx_seed(mxc_ctx* ctx, uint64_t seed) noexcept {
  return mxc::Call(__func__, [&] {
    auto st = mxc::Get(ctx, "ctx");
    st->rng.seed(seed);
    st->own_rng = true;
  });
}

MXC_STATUS mxc_random_seed(uint64_t seed) noexcept {
  return mxc::Call(__func__, [&] { mxnet::random::seed(seed); });
}

}  // extern "C"

namespace mxc {
std::shared_ptr<CtxState> GetCtx(mxc_ctx* ctx) { return ctx ? Get(ctx, "ctx") : nullptr; }
}  // namespace mxc
