// mxc/autograd.h: recording/training flags of a ctx, variables, backward and grad.
#include <vector>

#include "autograd/autograd.h"
#include "c_api/src/api.h"
#include "c_api/src/ctx_scope.h"
#include "c_api/src/handles.h"

namespace mxc {
namespace {

mxnet::GradReq ToGradReq(int32_t r, const Arg& arg) {
  if (r == MXC_GRAD_NULL) return mxnet::GradReq::kNull;
  if (r == MXC_GRAD_WRITE) return mxnet::GradReq::kWrite;
  if (r == MXC_GRAD_ADD) return mxnet::GradReq::kAdd;
  BadArgument(arg.str(), "unknown grad_req ", r,
              " (MXC_GRAD_NULL 0, MXC_GRAD_WRITE 1, MXC_GRAD_ADD 2)");
}

// Head gradients: NULL (all ones) or one entry per head, each NULL (ones) or an array.
std::vector<mxnet::NDArray> HeadGrads(mxc_ndarray* const* head_grads, size_t n) {
  std::vector<mxnet::NDArray> out;
  if (!head_grads) return out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(head_grads[i] ? Get(head_grads[i], Arg("head_grads", static_cast<int64_t>(i)))
                                : mxnet::NDArray());
  return out;
}

}  // namespace
}  // namespace mxc

using mxc::Arg;

extern "C" {

MXC_STATUS mxc_autograd_set_recording(mxc_ctx* ctx, int32_t recording, int32_t* previous) noexcept {
  return mxc::Call(__func__, [&] {
    bool prev = mxc::WithCtx(ctx, [&](mxnet::RuntimeContext&) {
      return mxnet::autograd::set_recording(recording != 0);
    });
    if (previous) *previous = prev;
  });
}

MXC_STATUS mxc_autograd_set_training(mxc_ctx* ctx, int32_t training, int32_t* previous) noexcept {
  return mxc::Call(__func__, [&] {
    bool prev = mxc::WithCtx(
        ctx, [&](mxnet::RuntimeContext&) { return mxnet::autograd::set_training(training != 0); });
    if (previous) *previous = prev;
  });
}

MXC_STATUS mxc_autograd_is_recording(mxc_ctx* ctx, int32_t* out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::WithCtx(ctx, [](mxnet::RuntimeContext& rt) {
      return static_cast<int32_t>(rt.dispatch.is_recording);
    });
  });
}

MXC_STATUS mxc_autograd_is_training(mxc_ctx* ctx, int32_t* out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    *out = mxc::WithCtx(ctx, [](mxnet::RuntimeContext& rt) {
      return static_cast<int32_t>(rt.dispatch.is_training);
    });
  });
}

MXC_STATUS mxc_ndarray_attach_grad(mxc_ndarray* array, int32_t grad_req) noexcept {
  return mxc::Call(__func__, [&] {
    mxnet::NDArray a = mxc::Get(array, "array");
    a.attach_grad(mxc::ToGradReq(grad_req, "grad_req"));
  });
}

MXC_STATUS mxc_ndarray_grad(mxc_ndarray* array, mxc_ndarray** out) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Out(out, "out");
    mxnet::NDArray g = mxc::Get(array, "array").grad();
    if (g.is_none())
      MX_THROW(absl::StatusCode::kFailedPrecondition,
               "the array has no gradient buffer (call mxc_ndarray_attach_grad first)");
    *out = mxc::New<mxc_ndarray>(std::move(g));
  });
}

MXC_STATUS mxc_autograd_mark_variables(mxc_ndarray* const* variables, mxc_ndarray* const* gradients,
                                       const int32_t* grad_reqs, size_t count) noexcept {
  return mxc::Call(__func__, [&] {
    std::vector<mxnet::NDArray> vars, grads;
    mxc::GetAll(variables, count, "variables", &vars);
    mxc::GetAll(gradients, count, "gradients", &grads);
    mxc::Array(grad_reqs, count, "grad_reqs");
    std::vector<mxnet::GradReq> reqs;
    for (size_t i = 0; i < count; ++i)
      reqs.push_back(mxc::ToGradReq(grad_reqs[i], Arg("grad_reqs", static_cast<int64_t>(i))));
    mxnet::autograd::mark_variables(vars, grads, reqs);
  });
}

MXC_STATUS mxc_autograd_backward(mxc_ctx* ctx, mxc_ndarray* const* heads, size_t num_heads,
                                 mxc_ndarray* const* head_grads, int32_t retain_graph,
                                 int32_t train_mode) noexcept {
  return mxc::Call(__func__, [&] {
    std::vector<mxnet::NDArray> hs;
    mxc::GetAll(heads, num_heads, "heads", &hs);
    std::vector<mxnet::NDArray> hg = mxc::HeadGrads(head_grads, num_heads);
    auto c = mxc::GetCtx(ctx);
    mxc::CtxScope scope(c.get());
    mxnet::autograd::backward(hs, hg, retain_graph != 0, train_mode != 0);
  });
}

MXC_STATUS mxc_autograd_grad(mxc_ctx* ctx, mxc_ndarray* const* heads, size_t num_heads,
                             mxc_ndarray* const* head_grads, mxc_ndarray* const* variables,
                             size_t num_variables, int32_t retain_graph, int32_t create_graph,
                             int32_t train_mode, mxc_ndarray** gradients) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::Array(gradients, num_variables, "gradients");
    std::vector<mxnet::NDArray> hs, vs;
    mxc::GetAll(heads, num_heads, "heads", &hs);
    mxc::GetAll(variables, num_variables, "variables", &vs);
    std::vector<mxnet::NDArray> hg = mxc::HeadGrads(head_grads, num_heads);
    auto c = mxc::GetCtx(ctx);
    std::vector<mxnet::NDArray> gs;
    {
      mxc::CtxScope scope(c.get());
      gs = mxnet::autograd::grad(hs, vs, hg, retain_graph != 0, create_graph != 0, train_mode != 0);
    }
    std::vector<mxc_ndarray*> made;
    try {
      for (auto& g : gs) made.push_back(mxc::New<mxc_ndarray>(std::move(g)));
    } catch (...) {
      for (auto* h : made) mxc_ndarray_free(h);
      throw;
    }
    for (size_t i = 0; i < made.size(); ++i) gradients[i] = made[i];
  });
}

}  // extern "C"
