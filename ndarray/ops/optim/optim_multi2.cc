// Fused multi-tensor AdamW and LAMB updates and group AdaGrad of the optim family, with MXNet
// 1.9.1's names, inputs, attributes and arithmetic: _multi_adamw_update, _multi_mp_adamw_update
// (src/operator/contrib/adamw-inl.h), _multi_lamb_update, _multi_mp_lamb_update
// (contrib/multi_lamb*), _contrib_group_adagrad_update (contrib/optimizer_op-inl.h). None is
// differentiable.
//
// Inputs are interleaved per weight k: weight_k, grad_k, mean_k, var_k[, weight32_k]; the AdamW
// ops then take rescale_grad (an array, its first element is the scale). Output k is the new
// weight k (MXNet's optimizers pass out = the weights); mean_k, var_k, weight32_k are mutated.
//
// Deliberate differences from MXNet (none visible through its optimizers):
//  - fresh outputs are allowed (MXNet's shape inference never fills the outputs, so it requires
//    out=);
//  - non-mp_ AdamW with float16/float64 weights computes in float/double with the attribute
//    values (MXNet's kernel copies the float lrs/wds/etas bytes into half/double arrays: garbage);
//    float16 states are rounded once per step, not after every operation (half_t);
//  - when AdamW's rescale_grad is 0/NaN/Inf the outputs get the weights (MXNet leaves them
//    unwritten);
//  - no limit on the number of weights (MXNet stops at 50 / 45);
// (As MXNet, the mp_ ops on float32 weights update the weights and leave weight32 untouched.)
//  - group AdaGrad takes dense gradients (MXNet's CPU kernel only row_sparse ones; a dense
//    gradient gives the same values as a row_sparse one holding every row).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "ndarray/kernel_util.h"
#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/optim/optim_multi2_api.h"
#include "ndarray/ops/optim/optim_util.h"

namespace mxnet::ops {

std::string MultiAdamWParam::Validate() const {
  return optim::CheckPerWeight(num_weights, "num_weights",
                               {{"lrs", lrs.size()}, {"wds", wds.size()}, {"etas", etas.size()}});
}

std::string MultiLAMBParam::Validate() const {
  std::string e = optim::CheckPerWeight(num_tensors, "num_tensors",
                                        {{"learning_rates", learning_rates.size()},
                                         {"wds", wds.size()},
                                         {"step_count", static_cast<size_t>(step_count.ndim())}});
  if (!e.empty()) return e;
  for (int k = 0; k < num_tensors; ++k)
    if (step_count[k] < 1) return StrCat("step_count[", k, "] must be >= 1, got ", step_count[k]);
  return "";
}

namespace {

using namespace optim;  // NOLINT(build/namespaces): the family's building blocks

// ---- The AdamW / LAMB family: one description per op. ----
struct Spec {
  bool lamb, mp;
  int stride() const { return mp ? 5 : 4; }
};

// The inputs of weight k: weight, grad, mean, var[, weight32] (mp_: float32 states and master
// weight); the AdamW ops then take rescale_grad (at least one value; float32 for mp_, else the
// weights' dtype).
UpdateLayout LayoutOf(const Spec& s) {
  UpdateLayout l{{In("weight"), In("grad")}};
  for (const char* name : {"mean", "var"}) l.group.push_back(s.mp ? F32(name) : State(name));
  if (s.mp) l.group.push_back(F32("weight32"));
  if (!s.lamb) l.tail.push_back(Scalar("rescale_grad", s.mp, ShapeRule::kAtLeastOne));
  return l;
}

// The first element of AdamW's rescale_grad input, as float (MXNet's GetScaleFloat).
float ScaleOf(const NDArray& r, std::string_view op) {
  float v = 0;
  MX_FLOAT_TYPE_SWITCH(r.dtype(), T, op, { v = static_cast<float>(Ptr<T>(r)[0]); });
  return v;
}

std::vector<float> ToFloats(const std::vector<double>& v) {
  std::vector<float> f(v.size());
  for (size_t i = 0; i < v.size(); ++i) f[i] = static_cast<float>(v[i]);
  return f;
}

// One AdamW weight. M: the arithmetic type (float for mp_ and 16-bit weights, else T); S: the
// state type (float for mp_, else T).
template <typename T, typename M, typename S>
void AdamWOne(int64_t size, const T* w, const T* g, S* mean, S* var, float* w32, T* out, M lr, M wd,
              M eta, M b1, M b2, M eps, M rg, M cg) {
  ParallelForRange(size, kGrain, [=](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      M wi = w32 ? static_cast<M>(w32[i]) : static_cast<M>(w[i]);
      M gi = rg * static_cast<M>(g[i]);
      if (cg >= M(0)) gi = Clip(gi, cg);
      const M m = b1 * (static_cast<M>(mean[i]) - gi) + gi;
      const M adj = gi * gi;
      const M v = b2 * (static_cast<M>(var[i]) - adj) + adj;
      mean[i] = static_cast<S>(m);
      var[i] = static_cast<S>(v);
      wi = wi - eta * (lr * m / (std::sqrt(v) + eps) + wd * wi);
      if (w32) w32[i] = static_cast<float>(wi);
      out[i] = static_cast<T>(wi);
    }
  });
}

FCompute AdamWKernel(Spec s) {
  return [s](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
             std::span<const NDArray> out) {
    const auto& p = a.get<MultiAdamWParam>();
    const int n = p.num_weights, st = s.stride();
    const float rg = ScaleOf(in[n * st], OpName(a));
    if (!std::isfinite(rg) || rg == 0.0f) {
      // MXNet skips the update; the outputs keep (get) the weights.
      for (int k = 0; k < n; ++k)
        if (out[k].data_ptr() != in[k * st].data_ptr())
          std::memcpy(out[k].data_ptr(), in[k * st].data_ptr(), in[k * st].nbytes());
      return;
    }
    // MXNet keeps lrs/wds/etas as float: round them once, into memory (GCC 12 -O2 was seen to
    // drop a register-only double -> float -> double round trip here).
    const std::vector<float> lrs = ToFloats(p.lrs), wds = ToFloats(p.wds), etas = ToFloats(p.etas);
    MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, OpName(a), {
      for (int k = 0; k < n; ++k) {
        const T* w = Ptr<T>(in[k * st]);
        const T* g = Ptr<T>(in[k * st + 1]);
        T* o = Ptr<T>(out[k]);
        const int64_t size = in[k * st].size();
        const float lr = lrs[k], wd = wds[k], eta = etas[k];
        if (s.mp) {
          // float32 weights: MXNet's kernel reads the weights and leaves weight32 alone.
          float* w32 = std::is_same_v<T, float> ? nullptr : Ptr<float>(in[k * st + 4]);
          AdamWOne<T, float, float>(size, w, g, Ptr<float>(in[k * st + 2]),
                                    Ptr<float>(in[k * st + 3]), w32, o, lr, wd, eta, p.beta1,
                                    p.beta2, p.epsilon, rg, p.clip_gradient);
        } else {
          using A = AccType<T>;
          AdamWOne<T, A, T>(size, w, g, Ptr<T>(in[k * st + 2]), Ptr<T>(in[k * st + 3]), nullptr, o,
                            A(lr), A(wd), A(eta), A(p.beta1), A(p.beta2), A(p.epsilon), A(rg),
                            A(p.clip_gradient));
        }
      }
    });
  };
}

// Sum of squares as MXNet's multi_sum_sq CPU kernel: the square in the element type (rounded
// for 16-bit types), accumulated in float32.
template <typename T>
float SumSq(const T* x, int64_t n) {
  float sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    if constexpr (std::is_same_v<T, double>) {
      sum = static_cast<float>(static_cast<double>(sum) + x[j] * x[j]);
    } else {
      sum += static_cast<float>(static_cast<T>(AccType<T>(x[j]) * AccType<T>(x[j])));
    }
  }
  return sum;
}

// One LAMB tensor (M: arithmetic type, S: state type; w32 non-null for mp_).
template <typename T, typename M, typename S>
void LambOne(const MultiLAMBParam& p, int k, float lr_k, float wd_k, int64_t size, const T* w,
             const T* g, S* mean, S* var, float* w32, T* out) {
  std::vector<float> u(static_cast<size_t>(size));
  const M b1 = static_cast<M>(p.beta1), b2 = static_cast<M>(p.beta2),
          eps = static_cast<M>(p.epsilon), cg = static_cast<M>(p.clip_gradient),
          wd = static_cast<M>(wd_k), one = static_cast<M>(1.0f);
  const M t = static_cast<M>(p.step_count[k]);
  const M c1 = one - std::pow(b1, t), c2 = one - std::pow(b2, t);
  const bool clip = p.clip_gradient >= 0.0f;
  for (int64_t i = 0; i < size; ++i) {
    const M wi = w32 ? static_cast<M>(w32[i]) : static_cast<M>(w[i]);
    M gi = static_cast<M>(g[i]) * p.rescale_grad;
    if (clip) gi = Clip(gi, cg);
    const M m = b1 * static_cast<M>(mean[i]) + (one - b1) * gi;
    const M v = b2 * static_cast<M>(var[i]) + (one - b2) * gi * gi;
    mean[i] = static_cast<S>(m);
    var[i] = static_cast<S>(v);
    const M ui = p.bias_correction ? (m / c1) / (std::sqrt(v / c2) + eps) + wd * wi
                                   : m / (std::sqrt(v) + eps) + wd * wi;
    u[i] = static_cast<float>(ui);
  }
  float r1 = std::sqrt(SumSq(w, size));
  const float r2 = std::sqrt(SumSq(u.data(), size));
  if (p.lower_bound >= 0) r1 = std::max(r1, p.lower_bound);
  if (p.upper_bound >= 0) r1 = std::min(r1, p.upper_bound);
  const M r = (r1 == 0.0f || r2 == 0.0f) ? M(1.0f) : static_cast<M>(r1 / r2);
  const M lr = static_cast<M>(lr_k) * r;
  for (int64_t i = 0; i < size; ++i) {
    M wi = w32 ? static_cast<M>(w32[i]) : static_cast<M>(w[i]);
    wi -= lr * static_cast<M>(u[i]);
    if (w32) w32[i] = static_cast<float>(wi);
    out[i] = static_cast<T>(wi);
  }
}

FCompute LambKernel(Spec s) {
  return [s](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
             std::span<const NDArray> out) {
    const auto& p = a.get<MultiLAMBParam>();
    const int st = s.stride();
    const std::vector<float> lrs = ToFloats(p.learning_rates), wds = ToFloats(p.wds);
    MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, OpName(a), {
      for (int k = 0; k < p.num_tensors; ++k) {
        const T* w = Ptr<T>(in[k * st]);
        const T* g = Ptr<T>(in[k * st + 1]);
        T* o = Ptr<T>(out[k]);
        const int64_t size = in[k * st].size();
        if (s.mp)  // float32 weights: as MXNet, weight32 is neither read nor written
          LambOne<T, float, float>(p, k, lrs[k], wds[k], size, w, g, Ptr<float>(in[k * st + 2]),
                                   Ptr<float>(in[k * st + 3]),
                                   std::is_same_v<T, float> ? nullptr : Ptr<float>(in[k * st + 4]),
                                   o);
        else
          LambOne<T, AccType<T>, T>(p, k, lrs[k], wds[k], size, w, g, Ptr<T>(in[k * st + 2]),
                                    Ptr<T>(in[k * st + 3]), nullptr, o);
      }
    });
  };
}

template <typename P>
Op& Register(const char* name, int P::*count, Spec s, FCompute kernel, const char* doc) {
  return RegisterMultiUpdate<P>(name, count, LayoutOf(s), std::move(kernel), doc);
}

[[maybe_unused]] Op& kMultiAdamW = Register<MultiAdamWParam>(
    "_multi_adamw_update", &MultiAdamWParam::num_weights, {false, false},
    AdamWKernel({false, false}),
    "AdamW on num_weights weights: inputs weight_k, grad_k, mean_k, var_k (updated in place), "
    "then rescale_grad (array; 0/NaN/Inf skips the update). g = clip(rescale_grad*grad); "
    "mean = beta1*mean + (1-beta1)*g; var = beta2*var + (1-beta2)*g^2; w -= etas_k*(lrs_k*mean/"
    "(sqrt(var) + epsilon) + wds_k*w).");
[[maybe_unused]] Op& kMultiMPAdamW = Register<MultiAdamWParam>(
    "_multi_mp_adamw_update", &MultiAdamWParam::num_weights, {false, true},
    AdamWKernel({false, true}),
    "Multi-precision _multi_adamw_update: inputs weight_k, grad_k, mean_k, var_k, weight32_k "
    "(float32 states and master weights, updated in place), then float32 rescale_grad.");
[[maybe_unused]] Op& kMultiLamb = Register<MultiLAMBParam>(
    "_multi_lamb_update", &MultiLAMBParam::num_tensors, {true, false}, LambKernel({true, false}),
    "LAMB on num_tensors weights: inputs weight_k, grad_k, mean_k, var_k (updated in place). "
    "u = mean_hat/(sqrt(var_hat) + epsilon) + wds_k*w (bias-corrected with step_count_k); "
    "w -= learning_rates_k * (|w|/|u| if both > 0 else 1) * u, |w| clamped to "
    "[lower_bound, upper_bound].");
[[maybe_unused]] Op& kMultiMPLamb = Register<MultiLAMBParam>(
    "_multi_mp_lamb_update", &MultiLAMBParam::num_tensors, {true, true}, LambKernel({true, true}),
    "Multi-precision _multi_lamb_update: inputs weight_k, grad_k, mean_k, var_k, weight32_k "
    "(float32 states and master weights, updated in place).");

// ---- _contrib_group_adagrad_update ----
void GroupAdagradShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  constexpr const char* op = "_contrib_group_adagrad_update";
  Shape w = (*in)[0];
  MergeShape(&w, (*in)[1], StrCat(op, ": input grad"));
  MergeShape(&w, (*out)[0], StrCat(op, ": output"));
  (*in)[0] = (*in)[1] = (*out)[0] = w;
  if (!w.is_known()) return;
  if (w.ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": weight must have at least one axis, got ",
             w.ToString());
  Shape& h = (*in)[2];
  if (!h.is_known()) {
    h = Shape{w[0], 1};
  } else if (h.ndim() < 1 || h[0] != w[0] || h.Size() != w[0]) {
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input history must hold one value per ",
             "weight row, shape (", w[0], ",) or (", w[0], ", 1), got ", h.ToString());
  }
}

void GroupAdagradKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                        std::span<const NDArray> out) {
  const auto& p = a.get<GroupAdagradParam>();
  const Shape& s = in[0].shape();
  const int64_t rows = s[0], row = rows > 0 ? in[0].size() / rows : 0;
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_contrib_group_adagrad_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* h = Ptr<T>(in[2]);
    T* o = Ptr<T>(out[0]);
    const A rg = p.rescale_grad, cg = p.clip_gradient, lr = p.lr, eps = p.epsilon;
    const bool clip = p.clip_gradient >= 0.0f;
    auto grad = [&](int64_t j) {
      A x = static_cast<A>(g[j]) * rg;
      return clip ? Clip(x, cg) : x;
    };
    ParallelForRange(rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(row, 1)),
                     [&](int64_t b, int64_t e) {
                       for (int64_t r = b; r < e; ++r) {
                         A ssq = 0;
                         for (int64_t j = r * row; j < (r + 1) * row; ++j) ssq += grad(j) * grad(j);
                         const A hist = static_cast<A>(h[r]) + ssq / static_cast<A>(row);
                         h[r] = static_cast<T>(hist);
                         const A den = std::sqrt(static_cast<A>(h[r]) + eps);
                         for (int64_t j = r * row; j < (r + 1) * row; ++j)
                           o[j] = static_cast<T>(static_cast<A>(w[j]) - lr * grad(j) / den);
                       }
                     });
  });
}

[[maybe_unused]] Op& kGroupAdagrad =
    DeclareUpdate(OpRegistry::Register("_contrib_group_adagrad_update"),
                  {{In("weight"), In("grad"), State("history")}})
        .describe(
            "Group AdaGrad (one history value per weight row): g = clip(rescale_grad*grad); "
            "history += mean(g^2, row); weight - lr*g/sqrt(history + epsilon). Inputs weight, "
            "grad, history (shape (rows,) or (rows, 1), updated in place); one floating dtype.")
        .set_params<GroupAdagradParam>()
        .set_infer_shape(GroupAdagradShape)
        .set_kernel({DeviceType::kCPU, Backend::kReference}, GroupAdagradKernel);

}  // namespace
}  // namespace mxnet::ops

// ---- nd:: API ----
namespace mxnet::nd {
namespace {
std::vector<NDArray> AdamW(const Op& op, MultiAdamWOptions opts,
                           const std::vector<const std::vector<NDArray>*>& lists,
                           const NDArray& rescale_grad, const std::vector<NDArray>& out) {
  return optim::RunMulti(op, std::move(opts), &MultiAdamWOptions::num_weights, lists, out,
                         {rescale_grad});
}
std::vector<NDArray> Lamb(const Op& op, MultiLAMBOptions opts,
                          const std::vector<const std::vector<NDArray>*>& lists,
                          const std::vector<NDArray>& out) {
  return optim::RunMulti(op, std::move(opts), &MultiLAMBOptions::num_tensors, lists, out);
}
}  // namespace

std::vector<NDArray> multi_adamw_update(const std::vector<NDArray>& weights,
                                        const std::vector<NDArray>& grads,
                                        const std::vector<NDArray>& means,
                                        const std::vector<NDArray>& vars,
                                        const NDArray& rescale_grad, MultiAdamWOptions opts,
                                        const std::vector<NDArray>& out) {
  return AdamW(MX_ND_OP(_multi_adamw_update), std::move(opts), {&weights, &grads, &means, &vars},
               rescale_grad, out);
}

std::vector<NDArray> multi_mp_adamw_update(const std::vector<NDArray>& weights,
                                           const std::vector<NDArray>& grads,
                                           const std::vector<NDArray>& means,
                                           const std::vector<NDArray>& vars,
                                           const std::vector<NDArray>& weights32,
                                           const NDArray& rescale_grad, MultiAdamWOptions opts,
                                           const std::vector<NDArray>& out) {
  return AdamW(MX_ND_OP(_multi_mp_adamw_update), std::move(opts),
               {&weights, &grads, &means, &vars, &weights32}, rescale_grad, out);
}

std::vector<NDArray> multi_lamb_update(const std::vector<NDArray>& weights,
                                       const std::vector<NDArray>& grads,
                                       const std::vector<NDArray>& means,
                                       const std::vector<NDArray>& vars, MultiLAMBOptions opts,
                                       const std::vector<NDArray>& out) {
  return Lamb(MX_ND_OP(_multi_lamb_update), std::move(opts), {&weights, &grads, &means, &vars},
              out);
}

std::vector<NDArray> multi_mp_lamb_update(const std::vector<NDArray>& weights,
                                          const std::vector<NDArray>& grads,
                                          const std::vector<NDArray>& means,
                                          const std::vector<NDArray>& vars,
                                          const std::vector<NDArray>& weights32,
                                          MultiLAMBOptions opts, const std::vector<NDArray>& out) {
  return Lamb(MX_ND_OP(_multi_mp_lamb_update), std::move(opts),
              {&weights, &grads, &means, &vars, &weights32}, out);
}

NDArray group_adagrad_update(const NDArray& weight, const NDArray& grad, const NDArray& history,
                             const GroupAdagradOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(_contrib_group_adagrad_update), opts, {weight, grad, history}, out);
}

}  // namespace mxnet::nd
