// Multi-tensor optimizer ops of the optim family, with MXNet 1.9.1's names, inputs, attributes
// and arithmetic: multi_sgd_update, multi_sgd_mom_update, multi_mp_sgd_update,
// multi_mp_sgd_mom_update (src/operator/optimizer_op-inl.h), their preloaded_ variants that read
// lrs/wds from float32 arrays (contrib/preloaded_multi_sgd-inl.h), ftml_update, multi_sum_sq
// (contrib/multi_sum_sq), multi_lars (contrib/multi_lars), all_finite / multi_all_finite
// (contrib/all_finite) and reset_arrays (contrib/reset_arrays). None is differentiable.
//
// Inputs of the multi SGD ops are interleaved per weight k: weight_k, grad_k[, mom_k][,
// weight32_k] (then lrs, wds for preloaded_*); output k is the new weight k (MXNet's optimizers
// call them with out = the weights: an in-place update). mom_k and weight32_k are mutated.
// Arithmetic as MXNet's kernels, in the same order: with w the weight (the float32 master copy
// for mp_), mom = momentum*mom - lr*wd*w - lr*clip(rescale_grad*grad) (momentum and mom 0
// without momentum), then w + mom. float32/float64 weights compute in their own type (preloaded:
// lr*wd in float32 as MXNet's float arrays give it); float16/bfloat16 compute in float32 and
// round once (MXNet's half_t rounds after every operation).
//
// Deliberate differences from MXNet (none visible through its optimizers):
//  - the weights of all groups must share one dtype (MXNet's mp_ type inference allows one
//    per group but its kernel then reads every group as the first group's dtype);
//  - multi_all_finite reads every array in its own dtype (MXNet reads all as the first's);
//  - no limit on the number of weights (MXNet's kernels stop at 60 / 200 arrays).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ndarray/kernel_util.h"
#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/optim/optim_multi_api.h"
#include "ndarray/ops/optim/optim_util.h"

namespace mxnet::ops {

using optim::CheckPerWeight;

std::string MultiSGDParam::Validate() const {
  return CheckPerWeight(num_weights, "num_weights", {{"lrs", lrs.size()}, {"wds", wds.size()}});
}
std::string MultiSGDMomParam::Validate() const {
  return CheckPerWeight(num_weights, "num_weights", {{"lrs", lrs.size()}, {"wds", wds.size()}});
}
std::string PreloadedMultiSGDParam::Validate() const {
  return CheckPerWeight(num_weights, "num_weights", {});
}
std::string PreloadedMultiSGDMomParam::Validate() const {
  return CheckPerWeight(num_weights, "num_weights", {});
}
std::string FTMLParam::Validate() const {
  if (!(beta1 >= 0.0f && beta1 <= 1.0f)) return StrCat("beta1 must be in [0, 1], got ", beta1);
  if (!(beta2 >= 0.0f && beta2 <= 1.0f)) return StrCat("beta2 must be in [0, 1], got ", beta2);
  return "";
}
std::string MultiSumSqParam::Validate() const {
  return CheckPerWeight(num_arrays, "num_arrays", {});
}
std::string MultiAllFiniteParam::Validate() const {
  return CheckPerWeight(num_arrays, "num_arrays", {});
}

namespace {

using namespace optim;  // NOLINT(build/namespaces): the family's building blocks

// ---- The multi SGD family: one description per op. ----
struct MultiSpec {
  bool mom, mp, preloaded;
  int stride() const { return 2 + (mom ? 1 : 0) + (mp ? 1 : 0); }
};

struct MultiScalars {
  int n = 1;
  float momentum = 0, rescale_grad = 1, clip = -1;
  const std::vector<double>* lrs = nullptr;  // non-preloaded
  const std::vector<double>* wds = nullptr;
};

MultiScalars ScalarsOf(const OpAttrs& a, const MultiSpec& s) {
  MultiScalars r;
  if (s.preloaded) {
    if (s.mom) {
      const auto& p = a.get<PreloadedMultiSGDMomParam>();
      r = {p.num_weights, p.momentum, p.rescale_grad, p.clip_gradient};
    } else {
      const auto& p = a.get<PreloadedMultiSGDParam>();
      r = {p.num_weights, 0.0f, p.rescale_grad, p.clip_gradient};
    }
  } else if (s.mom) {
    const auto& p = a.get<MultiSGDMomParam>();
    r = {p.num_weights, p.momentum, p.rescale_grad, p.clip_gradient, &p.lrs, &p.wds};
  } else {
    const auto& p = a.get<MultiSGDParam>();
    r = {p.num_weights, 0.0f, p.rescale_grad, p.clip_gradient, &p.lrs, &p.wds};
  }
  return r;
}

// The inputs of weight k: weight, grad[, mom][, weight32] (mp_: float32 mom and weight32); the
// preloaded_ ops then take lrs and wds (float32, num_weights values).
UpdateLayout LayoutOf(const MultiSpec& s) {
  UpdateLayout l{{In("weight"), In("grad")}};
  if (s.mom) l.group.push_back(s.mp ? F32("mom") : State("mom"));
  if (s.mp) l.group.push_back(F32("weight32"));
  if (s.preloaded)
    for (const char* name : {"lrs", "wds"})
      l.tail.push_back(Scalar(name, true, ShapeRule::kPerWeight));
  return l;
}

// One weight's update. M: MXNet's MPDType (the master type: float for mp_, else the weight
// type; float for 16-bit weights). L: the type of lr and wd (float for preloaded_).
template <typename T, typename M, typename L>
void MultiUpdateOne(int64_t size, const T* w, const T* g, M* mom, M* w32, T* out, L lr, L wd, M mu,
                    M rg, M cg) {
  const bool clip = cg >= M(0);
  ParallelForRange(size, kGrain, [=](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      M wi = w32 ? w32[i] : static_cast<M>(w[i]);
      M m = mom ? mom[i] : M(0);
      M gi = static_cast<M>(g[i]);
      if (clip) {
        m = mu * m - lr * wd * wi - lr * Clip(rg * gi, cg);
      } else {
        m = mu * m - lr * wd * wi - lr * rg * gi;
      }
      if (mom) mom[i] = m;
      wi = wi + m;
      if (w32) w32[i] = wi;
      out[i] = static_cast<T>(wi);
    }
  });
}

// Momentum stored in the weight type (non-mp_): for 16-bit weights the state is T while the
// arithmetic is float; store/reload through T like MXNet's half_t state.
template <typename T, typename L>
void MultiUpdateOneTypedMom(int64_t size, const T* w, const T* g, T* mom, T* out, L lr, L wd,
                            AccType<T> mu, AccType<T> rg, AccType<T> cg) {
  using A = AccType<T>;
  const bool clip = cg >= A(0);
  ParallelForRange(size, kGrain, [=](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      A wi = static_cast<A>(w[i]);
      A m = mom ? static_cast<A>(mom[i]) : A(0);
      A gi = static_cast<A>(g[i]);
      if (clip) {
        m = mu * m - lr * wd * wi - lr * Clip(rg * gi, cg);
      } else {
        m = mu * m - lr * wd * wi - lr * rg * gi;
      }
      if (mom) mom[i] = static_cast<T>(m);
      out[i] = static_cast<T>(wi + m);
    }
  });
}

FCompute MultiKernel(MultiSpec s) {
  return [s](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
             std::span<const NDArray> out) {
    const MultiScalars p = ScalarsOf(a, s);
    const int st = s.stride();
    std::vector<float> lrs, wds;
    if (s.preloaded) {
      lrs = in[p.n * st].ToVector<float>();
      wds = in[p.n * st + 1].ToVector<float>();
    }
    MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, OpName(a), {
      using A = AccType<T>;
      for (int k = 0; k < p.n; ++k) {
        const NDArray& w = in[k * st];
        const T* wp = Ptr<T>(w);
        const T* gp = Ptr<T>(in[k * st + 1]);
        T* op = Ptr<T>(out[k]);
        const int64_t size = w.size();
        if (s.mp) {
          float* mom = s.mom ? Ptr<float>(in[k * st + 2]) : nullptr;
          float* w32 = Ptr<float>(in[k * st + st - 1]);
          if (s.preloaded)
            MultiUpdateOne<T, float, float>(size, wp, gp, mom, w32, op, lrs[k], wds[k], p.momentum,
                                            p.rescale_grad, p.clip);
          else
            MultiUpdateOne<T, float, float>(
                size, wp, gp, mom, w32, op, static_cast<float>((*p.lrs)[k]),
                static_cast<float>((*p.wds)[k]), p.momentum, p.rescale_grad, p.clip);
        } else {
          T* mom = s.mom ? Ptr<T>(in[k * st + 2]) : nullptr;
          // Non-preloaded: lr, wd are MPDType (A here): float values widened for float64.
          // Preloaded: float array elements, so lr*wd is a float product.
          if (s.preloaded)
            MultiUpdateOneTypedMom<T, float>(size, wp, gp, mom, op, lrs[k], wds[k], A(p.momentum),
                                             A(p.rescale_grad), A(p.clip));
          else
            MultiUpdateOneTypedMom<T, A>(size, wp, gp, mom, op, A(static_cast<float>((*p.lrs)[k])),
                                         A(static_cast<float>((*p.wds)[k])), A(p.momentum),
                                         A(p.rescale_grad), A(p.clip));
        }
      }
    });
  };
}

template <typename P>
Op& RegisterMulti(const char* name, MultiSpec s, const char* doc) {
  return RegisterMultiUpdate<P>(name, &P::num_weights, LayoutOf(s), MultiKernel(s), doc);
}

[[maybe_unused]] Op& kMultiSGD = RegisterMulti<MultiSGDParam>(
    "multi_sgd_update", {false, false, false},
    "SGD on num_weights weights at once: inputs weight_k, grad_k; output k = "
    "(w - lr_k*wd_k*w - lr_k*clip(rescale_grad*grad_k)).");
[[maybe_unused]] Op& kMultiSGDMom = RegisterMulti<MultiSGDMomParam>(
    "multi_sgd_mom_update", {true, false, false},
    "SGD with momentum on num_weights weights: inputs weight_k, grad_k, mom_k (updated in "
    "place); mom = momentum*mom - lr_k*wd_k*w - lr_k*clip(rescale_grad*grad); w += mom.");
[[maybe_unused]] Op& kMultiMPSGD = RegisterMulti<MultiSGDParam>(
    "multi_mp_sgd_update", {false, true, false},
    "Multi-precision multi_sgd_update: inputs weight_k, grad_k, weight32_k (float32 master "
    "weights, updated in place).");
[[maybe_unused]] Op& kMultiMPSGDMom = RegisterMulti<MultiSGDMomParam>(
    "multi_mp_sgd_mom_update", {true, true, false},
    "Multi-precision multi_sgd_mom_update: inputs weight_k, grad_k, mom_k, weight32_k (float32 "
    "momentum and master weights, updated in place).");
[[maybe_unused]] Op& kPMultiSGD = RegisterMulti<PreloadedMultiSGDParam>(
    "preloaded_multi_sgd_update", {false, false, true},
    "multi_sgd_update with lrs and wds as the last two inputs (float32, num_weights values).");
[[maybe_unused]] Op& kPMultiSGDMom = RegisterMulti<PreloadedMultiSGDMomParam>(
    "preloaded_multi_sgd_mom_update", {true, false, true},
    "multi_sgd_mom_update with lrs and wds as the last two inputs (float32 arrays).");
[[maybe_unused]] Op& kPMultiMPSGD = RegisterMulti<PreloadedMultiSGDParam>(
    "preloaded_multi_mp_sgd_update", {false, true, true},
    "multi_mp_sgd_update with lrs and wds as the last two inputs (float32 arrays).");
[[maybe_unused]] Op& kPMultiMPSGDMom = RegisterMulti<PreloadedMultiSGDMomParam>(
    "preloaded_multi_mp_sgd_mom_update", {true, true, true},
    "multi_mp_sgd_mom_update with lrs and wds as the last two inputs (float32 arrays).");

// ---- ftml_update ----
// MXNet casts every attribute to the weight type and uses math::pow / sqrt of that type
// (powf / sqrtf for float32).
void FTMLKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<FTMLParam>();
  const int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "ftml_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* d = Ptr<T>(in[2]);
    T* v = Ptr<T>(in[3]);
    T* z = Ptr<T>(in[4]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, b1 = p.beta1, b2 = p.beta2, eps = static_cast<A>(p.epsilon);
    const A t = static_cast<A>(p.t), wd = p.wd, rg = p.rescale_grad, cg = p.clip_grad;
    const A c1 = A(1) - std::pow(b1, t), c2 = A(1) - std::pow(b2, t);
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const A wi = static_cast<A>(w[i]);
        A gi = rg * static_cast<A>(g[i]) + wd * wi;
        if (cg >= A(0)) gi = Clip(gi, cg);
        v[i] = static_cast<T>(b2 * static_cast<A>(v[i]) + (A(1) - b2) * (gi * gi));
        const A dt = c1 / lr * (std::sqrt(static_cast<A>(v[i]) / c2) + eps);
        z[i] = static_cast<T>(b1 * static_cast<A>(z[i]) + (A(1) - b1) * gi -
                              (dt - b1 * static_cast<A>(d[i])) * wi);
        d[i] = static_cast<T>(dt);
        o[i] = static_cast<T>(-static_cast<A>(z[i]) / dt);
      }
    });
  });
}

[[maybe_unused]] Op& kFTML =
    DeclareUpdate(OpRegistry::Register("ftml_update"),
                  {{In("weight"), In("grad"), State("d"), State("v"), State("z")}})
        .describe(
            "FTML (Zheng & Kwok 2017): g = clip(rescale_grad*grad + wd*weight, clip_grad); "
            "v = beta2*v + (1-beta2)*g^2; d_t = (1-beta1^t)/lr*(sqrt(v/(1-beta2^t)) + epsilon); "
            "z = beta1*z + (1-beta1)*g - (d_t - beta1*d)*weight; d = d_t; weight = -z/d_t.")
        .set_params<FTMLParam>()
        .set_kernel({DeviceType::kCPU, Backend::kReference}, FTMLKernel);

// ---- multi_sum_sq ----
std::vector<std::string> ArrayNames(int n) {
  std::vector<std::string> v;
  for (int i = 0; i < n; ++i) v.push_back(StrCat("array_", i));
  return v;
}

void MultiSumSqKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  float* o = Ptr<float>(out[0]);
  for (size_t k = 0; k < in.size(); ++k) {
    MX_FLOAT_TYPE_SWITCH(in[k].dtype(), T, "multi_sum_sq", {
      const T* x = Ptr<T>(in[k]);
      float sum = 0;
      // As MXNet: the square in the element type (rounded for float16), summed in float32.
      for (int64_t j = 0, n = in[k].size(); j < n; ++j) {
        if constexpr (std::is_same_v<T, double>) {
          sum = static_cast<float>(static_cast<double>(sum) + x[j] * x[j]);
        } else {
          sum += static_cast<float>(static_cast<T>(AccType<T>(x[j]) * AccType<T>(x[j])));
        }
      }
      o[k] = sum;
    });
  }
}

MX_REGISTER_OP(multi_sum_sq)
    .describe(
        "Sums of squares of num_arrays arrays (one floating dtype): float32 output of shape "
        "(num_arrays,), accumulated in float32.")
    .set_params<MultiSumSqParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<MultiSumSqParam>().num_arrays; })
    .set_input_names([](const OpAttrs& a) {
      return ArrayNames(a.get<MultiSumSqParam>().num_arrays);
    })
    .set_infer_shape([](const OpAttrs& a, ShapeVec*, ShapeVec* out) {
      MergeShape(&(*out)[0], Shape{a.get<MultiSumSqParam>().num_arrays}, "multi_sum_sq: output");
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      int t = -1;
      for (size_t i = 0; i < in->size(); ++i)
        MergeType(&t, (*in)[i], StrCat("multi_sum_sq: input array_", i));
      for (auto& x : *in) x = t;
      (*out)[0] = static_cast<int>(DType::kFloat32);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MultiSumSqKernel)
    .set_non_differentiable();

// ---- multi_lars ----
void MultiLarsKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  const auto& p = attrs.get<LARSParam>();
  if (in[0].dtype() != DType::kFloat32)
    MX_THROW(absl::StatusCode::kInvalidArgument, "multi_lars: inputs must be float32, got ",
             DTypeName(in[0].dtype()));
  const float *lrs = Ptr<float>(in[0]), *wss = Ptr<float>(in[1]), *gss = Ptr<float>(in[2]),
              *wds = Ptr<float>(in[3]);
  float* o = Ptr<float>(out[0]);
  const float eta = p.eta, eps = p.eps, rg = p.rescale_grad;
  for (int64_t i = 0, n = in[0].size(); i < n; ++i) {
    const float w_norm = std::sqrt(wss[i]);
    const bool valid = w_norm > 0. && gss[i] > 0.;
    o[i] =
        valid ? lrs[i] * eta * w_norm / (std::sqrt(gss[i]) * rg + wds[i] * w_norm + eps) : lrs[i];
  }
}

MX_REGISTER_OP(multi_lars)
    .describe(
        "LARS learning rates from sums of squares: lrs*eta*|w| / (|g|*rescale_grad + wds*|w| + "
        "eps) where |w| = sqrt(weights_sum_sq) and |g| = sqrt(grads_sum_sq) are > 0, else lrs "
        "(float32, all inputs of one shape).")
    .set_params<LARSParam>()
    .set_num_inputs(4)
    .set_input_names(std::vector<std::string>{"lrs", "weights_sum_sq", "grads_sum_sq", "wds"})
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MultiLarsKernel)
    .set_non_differentiable();

// ---- all_finite / multi_all_finite ----
// Whether every element of `a`, converted to float32 as MXNet does, is finite.
bool AllFinite(const NDArray& a, std::string_view op) {
  bool ok = true;
  MX_FLOAT_TYPE_SWITCH(a.dtype(), T, op, {
    const T* x = Ptr<T>(a);
    for (int64_t i = 0, n = a.size(); i < n && ok; ++i)
      ok = std::isfinite(static_cast<float>(x[i]));
  });
  return ok;
}

void FiniteShape(ShapeVec* out) { MergeShape(&(*out)[0], Shape{1}, "all_finite: output"); }

MX_REGISTER_OP(all_finite)
    .describe(
        "1 if every element of data (read as float32) is finite, else 0: float32 of shape (1,). "
        "With init_output=False the output is only written (0) when a non-finite element is "
        "found (AMP's loss scaler chains calls on one output).")
    .set_params<AllFiniteParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs&, ShapeVec*, ShapeVec* out) { FiniteShape(out); })
    .set_infer_type([](const OpAttrs&, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], static_cast<int>(DType::kFloat32), "all_finite: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  float* o = Ptr<float>(out[0]);
                  if (a.get<AllFiniteParam>().init_output) o[0] = 1.0f;
                  if (!AllFinite(in[0], "all_finite")) o[0] = 0.0f;
                })
    .set_non_differentiable();

MX_REGISTER_OP(multi_all_finite)
    .describe(
        "1 if every element of all num_arrays arrays is finite, else 0 (float32, shape (1,)); "
        "init_output as all_finite.")
    .set_params<MultiAllFiniteParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<MultiAllFiniteParam>().num_arrays; })
    .set_input_names([](const OpAttrs& a) {
      return ArrayNames(a.get<MultiAllFiniteParam>().num_arrays);
    })
    .set_infer_shape([](const OpAttrs&, ShapeVec*, ShapeVec* out) { FiniteShape(out); })
    .set_infer_type([](const OpAttrs&, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], static_cast<int>(DType::kFloat32), "multi_all_finite: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  float* o = Ptr<float>(out[0]);
                  if (a.get<MultiAllFiniteParam>().init_output) o[0] = 1.0f;
                  for (const NDArray& x : in)
                    if (!AllFinite(x, "multi_all_finite")) o[0] = 0.0f;
                })
    .set_non_differentiable();

// ---- reset_arrays ----
std::vector<int> FirstN(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

MX_REGISTER_OP(reset_arrays)
    .describe("Sets every element of num_arrays arrays to zero, in place (no outputs).")
    .set_params<ResetArraysParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<ResetArraysParam>().num_arrays; })
    .set_num_outputs(0)
    .set_input_names([](const OpAttrs& a) {
      return ArrayNames(a.get<ResetArraysParam>().num_arrays);
    })
    .set_mutable_inputs(FirstN(1024))
    .set_infer_shape([](const OpAttrs&, ShapeVec*, ShapeVec*) {})
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec*) {
      for (size_t i = 0; i < in->size(); ++i)
        if ((*in)[i] < 0)
          MX_THROW(absl::StatusCode::kInvalidArgument, "reset_arrays: the dtype of array_", i,
                   " is unknown");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray>) {
                  for (const NDArray& x : in) std::memset(x.data_ptr(), 0, x.nbytes());
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops

// ---- nd:: API ----
namespace mxnet::nd {
namespace {
template <typename P>
std::vector<NDArray> Multi(const Op& op, P opts,
                           const std::vector<const std::vector<NDArray>*>& lists,
                           const std::vector<NDArray>& out,
                           std::initializer_list<NDArray> tail = {}) {
  return optim::RunMulti(op, std::move(opts), &P::num_weights, lists, out, tail);
}
}  // namespace

std::vector<NDArray> multi_sgd_update(const std::vector<NDArray>& weights,
                                      const std::vector<NDArray>& grads, MultiSGDOptions opts,
                                      const std::vector<NDArray>& out) {
  return Multi(MX_ND_OP(multi_sgd_update), std::move(opts), {&weights, &grads}, out);
}
std::vector<NDArray> multi_sgd_mom_update(const std::vector<NDArray>& weights,
                                          const std::vector<NDArray>& grads,
                                          const std::vector<NDArray>& moms, MultiSGDMomOptions opts,
                                          const std::vector<NDArray>& out) {
  return Multi(MX_ND_OP(multi_sgd_mom_update), std::move(opts), {&weights, &grads, &moms}, out);
}
std::vector<NDArray> multi_mp_sgd_update(const std::vector<NDArray>& weights,
                                         const std::vector<NDArray>& grads,
                                         const std::vector<NDArray>& weights32,
                                         MultiSGDOptions opts, const std::vector<NDArray>& out) {
  return Multi(MX_ND_OP(multi_mp_sgd_update), std::move(opts), {&weights, &grads, &weights32}, out);
}
std::vector<NDArray> multi_mp_sgd_mom_update(const std::vector<NDArray>& weights,
                                             const std::vector<NDArray>& grads,
                                             const std::vector<NDArray>& moms,
                                             const std::vector<NDArray>& weights32,
                                             MultiSGDMomOptions opts,
                                             const std::vector<NDArray>& out) {
  return Multi(MX_ND_OP(multi_mp_sgd_mom_update), std::move(opts),
               {&weights, &grads, &moms, &weights32}, out);
}
std::vector<NDArray> preloaded_multi_sgd_update(const std::vector<NDArray>& weights,
                                                const std::vector<NDArray>& grads,
                                                const NDArray& lrs, const NDArray& wds,
                                                PreloadedMultiSGDOptions opts,
                                                const std::vector<NDArray>& out) {
  return Multi(MX_ND_OP(preloaded_multi_sgd_update), opts, {&weights, &grads}, out, {lrs, wds});
}
std::vector<NDArray> preloaded_multi_sgd_mom_update(const std::vector<NDArray>& weights,
                                                    const std::vector<NDArray>& grads,
                                                    const std::vector<NDArray>& moms,
                                                    const NDArray& lrs, const NDArray& wds,
                                                    PreloadedMultiSGDMomOptions opts,
                                                    const std::vector<NDArray>& out) {
  return Multi(MX_ND_OP(preloaded_multi_sgd_mom_update), opts, {&weights, &grads, &moms}, out,
               {lrs, wds});
}
std::vector<NDArray> preloaded_multi_mp_sgd_update(const std::vector<NDArray>& weights,
                                                   const std::vector<NDArray>& grads,
                                                   const std::vector<NDArray>& weights32,
                                                   const NDArray& lrs, const NDArray& wds,
                                                   PreloadedMultiSGDOptions opts,
                                                   const std::vector<NDArray>& out) {
  return Multi(MX_ND_OP(preloaded_multi_mp_sgd_update), opts, {&weights, &grads, &weights32}, out,
               {lrs, wds});
}
std::vector<NDArray> preloaded_multi_mp_sgd_mom_update(
    const std::vector<NDArray>& weights, const std::vector<NDArray>& grads,
    const std::vector<NDArray>& moms, const std::vector<NDArray>& weights32, const NDArray& lrs,
    const NDArray& wds, PreloadedMultiSGDMomOptions opts, const std::vector<NDArray>& out) {
  return Multi(MX_ND_OP(preloaded_multi_mp_sgd_mom_update), opts,
               {&weights, &grads, &moms, &weights32}, out, {lrs, wds});
}

NDArray ftml_update(const NDArray& weight, const NDArray& grad, const NDArray& d, const NDArray& v,
                    const NDArray& z, const FTMLOptions& opts, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(ftml_update), opts, {weight, grad, d, v, z}, out);
}

NDArray multi_sum_sq(const std::vector<NDArray>& arrays) {
  const Op& op = MX_ND_OP(multi_sum_sq);
  return optim::Run(op, OpAttrs::From(op, ops::MultiSumSqParam{static_cast<int>(arrays.size())}),
                    arrays, {})[0];
}

NDArray multi_lars(const NDArray& lrs, const NDArray& weights_sum_sq, const NDArray& grads_sum_sq,
                   const NDArray& wds, const LARSOptions& opts) {
  return optim::RunOne(MX_ND_OP(multi_lars), opts, {lrs, weights_sum_sq, grads_sum_sq, wds},
                       NDArray());
}

NDArray all_finite(const NDArray& data, bool init_output, const NDArray& out) {
  return optim::RunOne(MX_ND_OP(all_finite), ops::AllFiniteParam{init_output}, {data}, out);
}

NDArray multi_all_finite(const std::vector<NDArray>& arrays, bool init_output, const NDArray& out) {
  const Op& op = MX_ND_OP(multi_all_finite);
  std::vector<NDArray> o;
  if (!out.is_none()) o.push_back(out);
  ops::MultiAllFiniteParam p{static_cast<int>(arrays.size()), init_output};
  return optim::Run(op, OpAttrs::From(op, p), arrays, o)[0];
}

void reset_arrays(const std::vector<NDArray>& arrays) {
  const Op& op = MX_ND_OP(reset_arrays);
  optim::Run(op, OpAttrs::From(op, ops::ResetArraysParam{static_cast<int>(arrays.size())}), arrays,
             {});
}

}  // namespace mxnet::nd
