// The state behind an mxc_ctx and the scope that makes it current on the calling thread for the
// duration of one C call.
//
// Interim: the C++ libraries keep this state thread-local (ndarray/op.h ThreadDispatchState,
// ndarray/random.h's current GeneratorSet). Until they take an explicit RuntimeContext, CtxScope
// swaps the ctx's flags and RNG stream into the thread's state and restores the thread's own state
// afterwards. Switching to the explicit context later changes this file (and ctx.cc) only.
#pragma once

#include <atomic>
#include <memory>
#include <optional>

#include "base/device.h"
#include "mxc/ctx.h"
#include "ndarray/op.h"
#include "ndarray/random.h"

namespace mxc {

// What an mxc_ctx holds. Fields are atomics so that a ctx misused from two threads at once is
// only racy in meaning, never undefined behaviour.
struct CtxState {
  std::atomic<bool> recording{false};
  std::atomic<bool> training{false};
  std::atomic<int32_t> device_type{static_cast<int32_t>(mxnet::DeviceType::kCPU)};
  std::atomic<int32_t> device_id{0};
  std::atomic<bool> own_rng{false};  // false: the process-wide generators
  mxnet::random::GeneratorSet rng;

  mxnet::Device device() const {
    return {static_cast<mxnet::DeviceType>(device_type.load()), device_id.load()};
  }
};

// The state behind a ctx handle; nullptr for NULL (the default state). Throws on invalid handles.
std::shared_ptr<CtxState> GetCtx(mxc_ctx* ctx);

// Makes `ctx` (nullptr: the default state) current on this thread until destroyed.
class CtxScope {
 public:
  explicit CtxScope(CtxState* ctx);
  ~CtxScope();
  CtxScope(const CtxScope&) = delete;
  CtxScope& operator=(const CtxScope&) = delete;

  // The ctx's default device (cpu(0) for the default state).
  mxnet::Device device() const { return device_; }

 private:
  mxnet::DispatchState* state_;  // this thread's
  mxnet::DispatchState saved_;
  mxnet::Device device_;
  std::optional<mxnet::random::ScopedGeneratorSet> rng_;
};

}  // namespace mxc
