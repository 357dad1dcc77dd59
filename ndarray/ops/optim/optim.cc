// The optim op family: fused optimizer updates with MXNet 1.9.1's names, inputs, attributes and
// arithmetic (src/operator/optimizer_op-inl.h, contrib/adamw-inl.h). Every op writes the new
// weight to its output (call it with out = weight, as MXNet's optimizers do, for an in-place
// update) and updates its state inputs (momentum, mean, var, ...) in place; those are declared
// with set_mutable_inputs. The ops are not differentiable.
//
// Arithmetic: float32 and float64 weights compute in their own type with the attributes cast to
// it, in the order MXNet's kernels use: on the reference cases (testdata/optim/ops.json) every
// output and state is bit-identical to MXNet 1.9.1's CPU kernels. float16/bfloat16 weights
// compute each element in float32 and round once (MXNet's half_t rounds after every operation;
// the difference is within a float16 ulp or two). The mp_* ops keep float32 master weights and
// states, read float16 gradients as float32 and write the rounded master weight to the output.
//
// Deliberate differences from MXNet (each a bug there, none visible through MXNet's optimizers):
//  - _adamw_update does not overwrite its grad input with rescale_grad * grad;
//  - when _adamw_update skips (rescale_grad NaN, Inf or 0) and out is not weight, out receives a
//    copy of weight instead of staying uninitialized;
//  - mp_lamb_update_phase2 also stores the new master weight in weight32 (MXNet declares that
//    input mutable but never writes it, so its master weight never moves).
#include <algorithm>
#include <cmath>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "ndarray/kernel_util.h"
#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/optim/optim_api.h"
#include "ndarray/ops/optim/optim_sparse.h"
#include "ndarray/ops/optim/optim_util.h"

// The element loops carry `omp simd`: they are elementwise (out may alias weight only at the
// same index), so vectorizing them is always valid.
namespace mxnet::ops {
namespace {

using namespace optim;  // NOLINT(build/namespaces): the family's building blocks

// Square roots of a block in place: SSE sqrtps/sqrtpd (IEEE, bit-identical to std::sqrt) where
// available. std::sqrt itself keeps a call for errno on negative arguments, which stops the
// compiler from vectorizing any loop containing it (the build has no -fno-math-errno).
inline void SqrtInPlace(float* x, int64_t n) {
  int64_t i = 0;
#if defined(__SSE2__)
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(x + i, _mm_sqrt_ps(_mm_loadu_ps(x + i)));
#endif
  for (; i < n; ++i) x[i] = std::sqrt(x[i]);
}
inline void SqrtInPlace(double* x, int64_t n) {
  int64_t i = 0;
#if defined(__SSE2__)
  for (; i + 2 <= n; i += 2) _mm_storeu_pd(x + i, _mm_sqrt_pd(_mm_loadu_pd(x + i)));
#endif
  for (; i < n; ++i) x[i] = std::sqrt(x[i]);
}

// An element loop with one square root per element, in L1-sized blocks: head(i) returns the
// sqrt argument of element i (vectorized loop), the roots are taken with SqrtInPlace, and
// tail(i, root) finishes element i (vectorized loop). Bit-identical to the fused loop.
constexpr int64_t kSqrtBlock = 256;
template <typename A, typename Head, typename Tail>
void SqrtBlocked(int64_t b, int64_t e, Head head, Tail tail) {
  A buf[kSqrtBlock];
  for (int64_t s = b; s < e; s += kSqrtBlock) {
    const int64_t m = std::min(kSqrtBlock, e - s);
    _Pragma("omp simd") for (int64_t k = 0; k < m; ++k) buf[k] = head(s + k);
    SqrtInPlace(buf, m);
    _Pragma("omp simd") for (int64_t k = 0; k < m; ++k) tail(s + k, buf[k]);
  }
}

template <typename A>
inline A Sign(A x) {
  return static_cast<A>((x > A(0)) - (x < A(0)));
}

// ---- Registration: the inputs (MXNet's argument names) with their roles give the input names,
// mutated inputs and shape/type inference (optim_util.h); output 0 may share input 0's buffer.
#define MX_OPTIM_OP(NAME, ...)                                       \
  [[maybe_unused]] ::mxnet::Op& MX_CONCAT_(optim_op_, __COUNTER__) = \
      DeclareUpdate(::mxnet::OpRegistry::Register(#NAME), UpdateLayout{__VA_ARGS__})

// ---- sgd_update ----
void SGDKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  const auto& p = attrs.get<SGDParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "sgd_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient;
    const A decay = A(1.f) - lr * wd;
    const A lrg = lr * rg;
    const bool clip = cg >= A(0);
    // One loop with a per-element select between MXNet's two formulas: loops guarded by
    // `if (clip)` do not vectorize with GCC 12.
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        A step = clip ? lr * Clip(rg * A(g[i]), cg) : lrg * A(g[i]);
        o[i] = static_cast<T>(decay * A(w[i]) - step);
      }
    });
  });
}

MX_OPTIM_OP(sgd_update, {In("weight"), In("grad")})
    .describe(
        "SGD update: weight = (1 - lr*wd)*weight - lr*clip(rescale_grad*grad, clip_gradient).")
    .add_alias("_sparse_sgd_update")
    .set_params<SGDParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SGDKernel)
    .set_storage_kernel(SGDLazyStorage, SGDLazyKernel);  // lazy_update (optim_sparse.cc)

// ---- sgd_mom_update ----
void SGDMomKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const auto& p = attrs.get<SGDMomParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "sgd_mom_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* mom = Ptr<T>(in[2]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient, mu = p.momentum;
    const A lrwd = lr * wd, lrrg = lr * rg;
    const bool clip = cg >= A(0);
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        A wi = A(w[i]);
        A step = clip ? lr * Clip(rg * A(g[i]), cg) : lrrg * A(g[i]);
        A m = mu * A(mom[i]) - lrwd * wi - step;
        mom[i] = static_cast<T>(m);
        o[i] = static_cast<T>(wi + A(mom[i]));
      }
    });
  });
}

MX_OPTIM_OP(sgd_mom_update, {In("weight"), In("grad"), State("mom")})
    .describe(
        "SGD with momentum: mom = momentum*mom - lr*wd*weight - lr*clip(rescale_grad*grad); "
        "weight += mom.")
    .add_alias("_sparse_sgd_mom_update")
    .set_params<SGDMomParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SGDMomKernel)
    .set_storage_kernel(SGDMomLazyStorage, SGDMomLazyKernel);  // lazy_update (optim_sparse.cc)

// ---- mp_sgd_update / mp_sgd_mom_update (float32 master weight and momentum) ----
void MPSGDKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const auto& p = attrs.get<SGDParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "mp_sgd_update", {
    const T* g = Ptr<T>(in[1]);
    float* w32 = Ptr<float>(in[2]);
    T* o = Ptr<T>(out[0]);
    const float lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient;
    const float decay = 1.f - lr * wd;
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        float gi = static_cast<float>(g[i]);
        float w =
            cg >= 0.f ? decay * w32[i] - lr * Clip(rg * gi, cg) : decay * w32[i] - (lr * rg) * gi;
        w32[i] = w;
        o[i] = static_cast<T>(w);
      }
    });
  });
}

MX_OPTIM_OP(mp_sgd_update, {In("weight"), In("grad"), F32("weight32")})
    .describe("Multi-precision sgd_update: updates the float32 master weight32, writes it to out.")
    .set_params<SGDParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MPSGDKernel);

void MPSGDMomKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& p = attrs.get<SGDMomParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "mp_sgd_mom_update", {
    const T* g = Ptr<T>(in[1]);
    float* mom = Ptr<float>(in[2]);
    float* w32 = Ptr<float>(in[3]);
    T* o = Ptr<T>(out[0]);
    const float lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient, mu = p.momentum;
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        float w = w32[i];
        float gi = static_cast<float>(g[i]);
        float m = cg >= 0.f ? mu * mom[i] - lr * wd * w - lr * Clip(rg * gi, cg)
                            : mu * mom[i] - lr * wd * w - lr * rg * gi;
        mom[i] = m;
        w = w + m;
        w32[i] = w;
        o[i] = static_cast<T>(w);
      }
    });
  });
}

MX_OPTIM_OP(mp_sgd_mom_update, {In("weight"), In("grad"), F32("mom"), F32("weight32")})
    .describe("Multi-precision sgd_mom_update: float32 momentum and master weight32.")
    .set_params<SGDMomParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MPSGDMomKernel);

// ---- nag_mom_update / mp_nag_mom_update ----
// MXNet's kernel writes out[i] before it updates mom[i] with wd * weight[i]; called in place
// (out = weight, as its optimizer does) that reads the NEW weight. We reproduce both cases.
void NAGMomKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const auto& p = attrs.get<NAGMomParam>();
  int64_t n = in[0].size();
  bool in_place = out[0].data_ptr() == in[0].data_ptr();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "nag_mom_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* mom = Ptr<T>(in[2]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient, mu = p.momentum;
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        A wi = A(w[i]);
        A gi = cg >= A(0) ? Clip(rg * A(g[i]), cg) : rg * A(g[i]);
        A m = static_cast<A>(static_cast<T>(mu * A(mom[i])));
        T wn = static_cast<T>(wi - m + (mu + A(1)) * (m - lr * (gi + wd * wi)));
        o[i] = wn;
        A wr = in_place ? A(wn) : wi;
        mom[i] = static_cast<T>(m - lr * (gi + wd * wr));
      }
    });
  });
}

MX_OPTIM_OP(nag_mom_update, {In("weight"), In("grad"), State("mom")})
    .describe("Nesterov momentum update (MXNet's NAG).")
    .set_params<NAGMomParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, NAGMomKernel);

void MPNAGMomKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& p = attrs.get<NAGMomParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "mp_nag_mom_update", {
    const T* g = Ptr<T>(in[1]);
    float* mom = Ptr<float>(in[2]);
    float* w32 = Ptr<float>(in[3]);
    T* o = Ptr<T>(out[0]);
    const float lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient, mu = p.momentum;
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        float w = w32[i];
        float gi = static_cast<float>(g[i]);
        gi = cg >= 0.f ? Clip(rg * gi, cg) : rg * gi;
        float m = mu * mom[i];
        w = w - m + (mu + 1) * (m - lr * (gi + wd * w));
        mom[i] = m - lr * (gi + wd * w);
        w32[i] = w;
        o[i] = static_cast<T>(w);
      }
    });
  });
}

MX_OPTIM_OP(mp_nag_mom_update, {In("weight"), In("grad"), F32("mom"), F32("weight32")})
    .describe("Multi-precision nag_mom_update: float32 momentum and master weight32.")
    .set_params<NAGMomParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MPNAGMomKernel);

// ---- adam_update ----
void AdamKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<AdamParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "adam_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* mean = Ptr<T>(in[2]);
    T* var = Ptr<T>(in[3]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient;
    const A b1 = p.beta1, b2 = p.beta2, eps = p.epsilon;
    const A c1 = A(1.f) - b1, c2 = A(1.f) - b2;
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      SqrtBlocked<A>(
          b, e,
          [&](int64_t i) {
            A wi = A(w[i]);
            A gr = A(g[i]) * rg + wi * wd;
            gr = cg >= A(0) ? Clip(gr, cg) : gr;
            A m = b1 * A(mean[i]) + c1 * gr;
            A v = b2 * A(var[i]) + c2 * gr * gr;
            mean[i] = static_cast<T>(m);
            var[i] = static_cast<T>(v);
            return A(var[i]);
          },
          [&](int64_t i, A root) {
            o[i] = static_cast<T>(A(w[i]) - lr * A(mean[i]) / (root + eps));
          });
    });
  });
}

MX_OPTIM_OP(adam_update, {In("weight"), In("grad"), State("mean"), State("var")})
    .describe(
        "Adam update: g = rescale_grad*grad + wd*weight (then clipped); mean, var moving "
        "averages; weight -= lr*mean/(sqrt(var) + epsilon). Bias correction is the caller's "
        "(folded into lr).")
    .add_alias("_sparse_adam_update")
    .set_params<AdamParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, AdamKernel)
    .set_storage_kernel(AdamLazyStorage, AdamLazyKernel);  // lazy_update (optim_sparse.cc)

// ---- _adamw_update / _mp_adamw_update (rescale_grad is a one-element float32 input) ----
// Returns false (and copies weight to out if distinct) when the update must be skipped.
bool AdamWScale(std::span<const NDArray> in, std::span<const NDArray> out, float* scale) {
  const NDArray& s = in.back();
  *scale = s.ToVector<float>()[0];
  if (std::isfinite(*scale) && *scale != 0.f) return true;
  if (out[0].data_ptr() != in[0].data_ptr()) in[0].copyto(out[0]);
  return false;
}

void AdamWKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const auto& p = attrs.get<AdamWParam>();
  float scale;
  if (!AdamWScale(in, out, &scale)) return;
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_adamw_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* mean = Ptr<T>(in[2]);
    T* var = Ptr<T>(in[3]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, wd = p.wd, rg = scale, cg = p.clip_gradient, eta = p.eta;
    const A b1 = p.beta1, b2 = p.beta2, eps = p.epsilon;
    const A c1 = static_cast<A>(1.f - p.beta1), c2 = static_cast<A>(1.f - p.beta2);
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      SqrtBlocked<A>(
          b, e,
          [&](int64_t i) {
            A gr = static_cast<A>(static_cast<T>(rg * A(g[i])));
            gr = cg >= A(0) ? Clip(gr, cg) : gr;
            A m = b1 * A(mean[i]) + c1 * gr;
            A v = b2 * A(var[i]) + c2 * (gr * gr);
            mean[i] = static_cast<T>(m);
            var[i] = static_cast<T>(v);
            return A(var[i]);
          },
          [&](int64_t i, A root) {
            A wi = A(w[i]);
            o[i] = static_cast<T>(wi - eta * (lr * A(mean[i]) / (root + eps) + wd * wi));
          });
    });
  });
}

MX_OPTIM_OP(_adamw_update,
            {In("weight"), In("grad"), State("mean"), State("var"), Scalar("rescale_grad", true)})
    .describe(
        "AdamW update (decoupled weight decay): weight -= eta*(lr*mean/(sqrt(var) + epsilon) "
        "+ wd*weight), with grad scaled by the one-element rescale_grad input; skipped when "
        "rescale_grad is NaN, Inf or 0.")
    .set_params<AdamWParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, AdamWKernel);

void MPAdamWKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<AdamWParam>();
  float scale;
  if (!AdamWScale(in, out, &scale)) return;
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_mp_adamw_update", {
    const T* g = Ptr<T>(in[1]);
    float* mean = Ptr<float>(in[2]);
    float* var = Ptr<float>(in[3]);
    float* w32 = Ptr<float>(in[4]);
    T* o = Ptr<T>(out[0]);
    const float lr = p.lr, wd = p.wd, cg = p.clip_gradient, eta = p.eta;
    const float b1 = p.beta1, b2 = p.beta2, eps = p.epsilon;
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        float w = w32[i];
        float gr = scale * static_cast<float>(g[i]);
        gr = cg >= 0.f ? Clip(gr, cg) : gr;
        float m = mean[i] = b1 * mean[i] + (1.0f - b1) * gr;
        float v = var[i] = b2 * var[i] + (1.0f - b2) * (gr * gr);
        w = w - eta * (lr * m / (std::sqrt(v) + eps) + wd * w);
        w32[i] = w;
        o[i] = static_cast<T>(w);
      }
    });
  });
}

MX_OPTIM_OP(_mp_adamw_update, {In("weight"), In("grad"), F32("mean"), F32("var"), F32("weight32"),
                               Scalar("rescale_grad", true)})
    .describe("Multi-precision _adamw_update: float32 mean, var and master weight32.")
    .set_params<AdamWParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MPAdamWKernel);

// ---- rmsprop_update / rmspropalex_update ----
void RMSPropKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<RMSPropParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "rmsprop_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* st = Ptr<T>(in[2]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient;
    const A g1 = p.gamma1, eps = p.epsilon, cw = p.clip_weights, c1 = A(1.f) - g1;
    auto grad_of = [&](int64_t i) {
      A gr = rg * A(g[i]) + wd * A(w[i]);
      return cg >= A(0) ? Clip(gr, cg) : gr;
    };
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      SqrtBlocked<A>(
          b, e,
          [&](int64_t i) {
            A gr = grad_of(i);
            st[i] = static_cast<T>(c1 * (gr * gr) + g1 * A(st[i]));
            return A(st[i]) + eps;
          },
          [&](int64_t i, A root) {
            A wn = A(w[i]) - lr * (grad_of(i) / root);
            if (cw >= A(0)) wn = Clip(wn, cw);
            o[i] = static_cast<T>(wn);
          });
    });
  });
}

MX_OPTIM_OP(rmsprop_update, {In("weight"), In("grad"), State("n")})
    .describe(
        "RMSProp (Tieleman & Hinton): n = (1-gamma1)*g^2 + gamma1*n; "
        "weight -= lr*g/sqrt(n + epsilon), g = clip(rescale_grad*grad + wd*weight).")
    .set_params<RMSPropParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RMSPropKernel);

void RMSPropAlexKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  const auto& p = attrs.get<RMSPropAlexParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "rmspropalex_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* sn = Ptr<T>(in[2]);
    T* sg = Ptr<T>(in[3]);
    T* delta = Ptr<T>(in[4]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient;
    const A g1 = p.gamma1, g2 = p.gamma2, eps = p.epsilon, cw = p.clip_weights;
    const A c1 = A(1.f) - g1;
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        A wi = A(w[i]);
        A gr = rg * A(g[i]) + wd * wi;
        gr = cg >= A(0) ? Clip(gr, cg) : gr;
        sn[i] = static_cast<T>(c1 * gr * gr + g1 * A(sn[i]));
        sg[i] = static_cast<T>(c1 * gr + g1 * A(sg[i]));
        A sgi = A(sg[i]);
        delta[i] =
            static_cast<T>(g2 * A(delta[i]) - (lr * gr / std::sqrt(A(sn[i]) - sgi * sgi + eps)));
        A wn = wi + A(delta[i]);
        if (cw >= A(0)) wn = Clip(wn, cw);
        o[i] = static_cast<T>(wn);
      }
    });
  });
}

MX_OPTIM_OP(rmspropalex_update, {In("weight"), In("grad"), State("n"), State("g"), State("delta")})
    .describe(
        "Centered RMSProp (Graves 2013): n, g moving averages of grad^2 and grad; "
        "delta = gamma2*delta - lr*grad/sqrt(n - g^2 + epsilon); weight += delta.")
    .set_params<RMSPropAlexParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RMSPropAlexKernel);

// ---- ftrl_update ----
void FtrlKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<FtrlParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "ftrl_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* z = Ptr<T>(in[2]);
    T* nn = Ptr<T>(in[3]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient;
    const A l1 = p.lamda1, beta = p.beta;
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        A gr = A(g[i]) * rg;
        gr = cg >= A(0) ? Clip(gr, cg) : gr;
        A ni = A(nn[i]);
        z[i] = static_cast<T>(A(z[i]) +
                              (gr - (std::sqrt(ni + gr * gr) - std::sqrt(ni)) * A(w[i]) / lr));
        nn[i] = static_cast<T>(ni + gr * gr);
        A zi = A(z[i]);
        o[i] = static_cast<T>((Sign(zi) * l1 - zi) / ((beta + std::sqrt(A(nn[i]))) / lr + wd) *
                              A(std::fabs(zi) > l1 ? 1 : 0));
      }
    });
  });
}

MX_OPTIM_OP(ftrl_update, {In("weight"), In("grad"), State("z"), State("n")})
    .describe("FTRL-Proximal update (McMahan et al. 2013) with L1 lamda1 and L2 wd.")
    .add_alias("_sparse_ftrl_update")
    .set_params<FtrlParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, FtrlKernel);

// ---- signsgd_update / signum_update ----
void SignSGDKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<SignSGDParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "signsgd_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, decay = A(1.f) - A(p.lr) * A(p.wd);
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        o[i] = static_cast<T>(decay * A(w[i]) - lr * Sign(A(g[i])));
      }
    });
  });
}

MX_OPTIM_OP(signsgd_update, {In("weight"), In("grad")})
    .describe(
        "signSGD: weight = (1 - lr*wd)*weight - lr*sign(grad) (rescale_grad and clip_gradient "
        "have no effect, as in MXNet).")
    .set_params<SignSGDParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SignSGDKernel);

void SignumKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const auto& p = attrs.get<SignumParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "signum_update", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    T* mom = Ptr<T>(in[2]);
    T* o = Ptr<T>(out[0]);
    const A lr = p.lr, wd = p.wd, rg = p.rescale_grad, cg = p.clip_gradient, mu = p.momentum;
    const A c = A(1) - mu, decay = A(1.f) - lr * A(p.wd_lh);
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        A wi = A(w[i]);
        A gi = cg >= A(0) ? Clip(rg * A(g[i]), cg) : rg * A(g[i]);
        mom[i] = static_cast<T>(mu * A(mom[i]) - c * wd * wi - c * gi);
        o[i] = static_cast<T>(decay * wi + lr * Sign(A(mom[i])));
      }
    });
  });
}

MX_OPTIM_OP(signum_update, {In("weight"), In("grad"), State("mom")})
    .describe(
        "Signum: mom = momentum*mom - (1-momentum)*(wd*weight + clip(rescale_grad*grad)); "
        "weight = (1 - lr*wd_lh)*weight + lr*sign(mom).")
    .set_params<SignumParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SignumKernel);

// ---- lamb_update_phase1 / phase2 and their mp_ variants ----
// Phase 1 returns g = mean_hat/(sqrt(var_hat) + epsilon) + wd*weight (updating mean and var);
// the caller computes r1 = ||weight||, r2 = ||g|| and phase 2 applies weight -= lr*(r1/r2)*g.
template <typename T, typename S, typename O>
void LambPhase1(const LambUpdatePhaseOneParam& p, int64_t n, const T* g, S* mean, S* var,
                const S* wref, O* o) {
  using A = AccType<S>;
  const A rg = p.rescale_grad, cg = p.clip_gradient, wd = p.wd, eps = p.epsilon;
  const A b1 = p.beta1, b2 = p.beta2;
  // As MXNet: beta^t via std::pow(float, int) (in double); mean / (1. - beta1^t) divides in
  // double, var / (1 - beta2^t) in the compute type.
  const A b1t = static_cast<A>(std::pow(p.beta1, p.t));
  const A b2t = static_cast<A>(std::pow(p.beta2, p.t));
  ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
    _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
      A gr = A(g[i]) * rg;
      gr = cg >= A(0) ? Clip(gr, cg) : gr;
      mean[i] = static_cast<S>(b1 * A(mean[i]) + (A(1.f) - b1) * gr);
      var[i] = static_cast<S>(b2 * A(var[i]) + (A(1.f) - b2) * gr * gr);
      A m = A(mean[i]), v = A(var[i]);
      A r;
      if (p.bias_correction) {
        A mh = static_cast<A>(static_cast<double>(m) / (1. - static_cast<double>(b1t)));
        A vh = v / (A(1) - b2t);
        r = mh / (std::sqrt(vh) + eps) + wd * A(wref[i]);
      } else {
        r = m / (std::sqrt(v) + eps) + wd * A(wref[i]);
      }
      o[i] = static_cast<O>(r);
    }
  });
}

void LambPhase1Kernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const auto& p = attrs.get<LambUpdatePhaseOneParam>();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "lamb_update_phase1", {
    LambPhase1<T, T, T>(p, in[0].size(), Ptr<T>(in[1]), Ptr<T>(in[2]), Ptr<T>(in[3]), Ptr<T>(in[0]),
                        Ptr<T>(out[0]));
  });
}

MX_OPTIM_OP(lamb_update_phase1, {In("weight"), In("grad"), State("mean"), State("var")})
    .describe("LAMB phase 1: updates mean/var and returns the layer's update direction g.")
    .set_params<LambUpdatePhaseOneParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, LambPhase1Kernel);

void MPLambPhase1Kernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                        std::span<const NDArray> out) {
  const auto& p = attrs.get<LambUpdatePhaseOneParam>();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "mp_lamb_update_phase1", {
    LambPhase1<T, float, float>(p, in[0].size(), Ptr<T>(in[1]), Ptr<float>(in[2]),
                                Ptr<float>(in[3]), Ptr<float>(in[4]), Ptr<float>(out[0]));
  });
}

MX_OPTIM_OP(mp_lamb_update_phase1,
            {In("weight"), In("grad"), F32("mean"), F32("var"), F32("weight32", false)},
            /*out_f32=*/true)
    .describe("Multi-precision lamb_update_phase1: float32 mean, var, weight32 and g.")
    .set_params<LambUpdatePhaseOneParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MPLambPhase1Kernel);

template <typename A>
A LambRatioLr(const LambUpdatePhaseTwoParam& p, A r1, A r2) {
  A lr = p.lr;
  if (A(p.lower_bound) >= A(0)) r1 = std::max(r1, A(p.lower_bound));
  if (A(p.upper_bound) >= A(0)) r1 = std::min(r1, A(p.upper_bound));
  return (r1 == A(0) || r2 == A(0)) ? lr : lr * r1 / r2;
}

void LambPhase2Kernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const auto& p = attrs.get<LambUpdatePhaseTwoParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "lamb_update_phase2", {
    using A = AccType<T>;
    const T* w = Ptr<T>(in[0]);
    const T* g = Ptr<T>(in[1]);
    const A lr = LambRatioLr<A>(p, A(in[2].ToVector<T>()[0]), A(in[3].ToVector<T>()[0]));
    T* o = Ptr<T>(out[0]);
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        o[i] = static_cast<T>(A(w[i]) - lr * A(g[i]));
      }
    });
  });
}

MX_OPTIM_OP(lamb_update_phase2, {In("weight"), In("g"), Scalar("r1", false), Scalar("r2", false)})
    .describe(
        "LAMB phase 2: weight -= lr*(r1/r2)*g with r1 = ||weight|| (clamped to "
        "[lower_bound, upper_bound] when those are >= 0) and r2 = ||g|| (plain lr if either "
        "is 0).")
    .set_params<LambUpdatePhaseTwoParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, LambPhase2Kernel);

void MPLambPhase2Kernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                        std::span<const NDArray> out) {
  const auto& p = attrs.get<LambUpdatePhaseTwoParam>();
  int64_t n = in[0].size();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "mp_lamb_update_phase2", {
    const float* g = Ptr<float>(in[1]);
    float* w32 = Ptr<float>(in[4]);
    const float lr = LambRatioLr<float>(p, in[2].ToVector<float>()[0], in[3].ToVector<float>()[0]);
    T* o = Ptr<T>(out[0]);
    ParallelForRange(n, kGrain, [=](int64_t b, int64_t e) {
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        float w = w32[i] - lr * g[i];
        w32[i] = w;
        o[i] = static_cast<T>(w);
      }
    });
  });
}

MX_OPTIM_OP(mp_lamb_update_phase2, {In("weight"), F32("g", false), Scalar("r1", true),
                                    Scalar("r2", true), F32("weight32")})
    .describe("Multi-precision lamb_update_phase2: updates the float32 master weight32.")
    .set_params<LambUpdatePhaseTwoParam>()
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MPLambPhase2Kernel);

}  // namespace
}  // namespace mxnet::ops
