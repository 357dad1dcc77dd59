// Normalization ops: BatchNorm, LayerNorm, GroupNorm, InstanceNorm and their fused backward
// helpers (_backward_BatchNorm, ...). Semantics follow MXNet 1.9.1 (src/operator/nn/batch_norm.cc,
// layer_norm.cc, group_norm.cc, src/operator/instance_norm.cc); see nn_api.h for the user-facing
// description.
//
// LayerNorm, GroupNorm and InstanceNorm share one reference engine: the data is split into S
// "statistics groups" (a row along `axis` for LayerNorm, an (instance, group) for GroupNorm, an
// (instance, channel) for InstanceNorm); each group is normalized with its own mean/variance and
// scaled/shifted by gamma/beta indexed per group (GroupNorm, InstanceNorm) or per position along
// the axis (LayerNorm). BatchNorm's reference streams through memory per channel (any axis).
// Statistics accumulate in double.
//
// BatchNorm modes. Batch statistics are used when ctx.is_train && !use_global_stats (MXNet's
// rule); otherwise moving_mean/moving_var. Moving statistics are updated
// (moving = moving * momentum + batch * (1 - momentum), biased batch variance) when batch
// statistics are used and the call is recorded (ctx.is_record). MXNet 1.9.1 performs this update
// in the backward pass of a train-mode forward; updating in a recorded train-mode forward gives
// the same values in every training loop (record + backward) and keeps the backward pure.
// BatchNorm has a fourth, hidden output `batch_stats` (1 when batch statistics were used, else 0)
// so the gradient is the gradient of what the forward computed, whatever mode autograd's
// backward runs in (MXNet instead picks the formula from the backward's train_mode).
#include <algorithm>
#include <cmath>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/nn/nn_onednn.h"
#include "ndarray/ops/nn/nn_params.h"
#include "ndarray/ops/nn/nn_util.h"

namespace mxnet::ops::nn {
namespace {

// ---------------------------------------------------------------------------------------------
// The shared reference engine.

enum class StatKind { kInvStd, kStd, kVar };  // what the second statistics output holds

struct NormPlan {
  int64_t S = 0;                       // statistics groups
  int64_t A = 1, stride_a = 0, B = 1;  // group s: Off(s) + a * stride_a + b
  int64_t s_div = 1, s_mul1 = 0,
          s_mul2 = 0;        // Off(s) = (s / s_div) * s_mul1 + (s % s_div) * s_mul2
  bool param_per_a = false;  // gamma index: a (LayerNorm) or s % param_mod
  int64_t param_mod = 1;
  int64_t num_params = 0;
  int64_t Off(int64_t s) const { return (s / s_div) * s_mul1 + (s % s_div) * s_mul2; }
  int64_t M() const { return A * B; }
  int64_t Grain() const { return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, M())); }
};

NormPlan LayerNormPlan(const Shape& s, int axis) {
  Split3 p = SplitAt(s, axis);
  NormPlan n;
  n.S = p.outer * p.inner;
  n.A = p.n;
  n.stride_a = p.inner;
  n.B = 1;
  n.s_div = std::max<int64_t>(1, p.inner);
  n.s_mul1 = p.n * p.inner;
  n.s_mul2 = 1;
  n.param_per_a = true;
  n.num_params = p.n;
  return n;
}

// Contiguous groups: `groups` per instance, instances along axis 0 (GroupNorm, InstanceNorm).
NormPlan ContiguousPlan(const Shape& s, int64_t groups) {
  int64_t n0 = s[0];
  int64_t per = groups ? s.ProdRange(1, s.ndim()) / groups : 0;
  NormPlan n;
  n.S = n0 * groups;
  n.A = 1;
  n.stride_a = 0;
  n.B = per;
  n.s_div = 1;
  n.s_mul1 = per;
  n.s_mul2 = 0;
  n.param_mod = std::max<int64_t>(1, groups);
  n.num_params = groups;
  return n;
}

template <typename T>
inline double D(T v) {
  return static_cast<double>(static_cast<AccType<T>>(v));
}
template <typename T>
inline T To(double v) {
  return static_cast<T>(static_cast<AccType<T>>(v));
}

inline double InvFromStat(StatKind k, double stat, double eps) {
  switch (k) {
    case StatKind::kInvStd:
      return stat;
    case StatKind::kStd:
      return 1.0 / stat;
    case StatKind::kVar:
      return 1.0 / std::sqrt(stat + eps);
  }
  return 0;
}

struct FwdArgs {
  bool fix_gamma = false;
  double eps = 0;
  StatKind kind = StatKind::kStd;
};

// y = (x - mean) / sqrt(var + eps) * gamma + beta per group. fixed_mean/fixed_var: use these
// statistics (BatchNorm inference) instead of the group's. Writes mean_out, stat_out (per `kind`)
// and, if not null, var_out (the variance used).
template <typename T, typename P>
void NormForward(const NormPlan& p, const FwdArgs& f, const T* x, T* y, const P* gamma,
                 const P* beta, const P* fixed_mean, const P* fixed_var, P* mean_out, P* stat_out,
                 P* var_out) {
  const int64_t M = p.M();
  ParallelFor(
      p.S,
      [&](int64_t s) {
        const int64_t off = p.Off(s);
        double mean, var;
        if (fixed_mean) {
          mean = D(fixed_mean[s]);
          var = D(fixed_var[s]);
        } else {
          double sum = 0;
          for (int64_t a = 0; a < p.A; ++a)
            for (int64_t b = 0; b < p.B; ++b) sum += D(x[off + a * p.stride_a + b]);
          mean = M ? sum / M : 0;
          double sq = 0;
          for (int64_t a = 0; a < p.A; ++a)
            for (int64_t b = 0; b < p.B; ++b) {
              double d = D(x[off + a * p.stride_a + b]) - mean;
              sq += d * d;
            }
          var = M ? sq / M : 0;
        }
        const double inv = 1.0 / std::sqrt(var + f.eps);
        mean_out[s] = To<P>(mean);
        stat_out[s] = To<P>(f.kind == StatKind::kInvStd ? inv
                            : f.kind == StatKind::kStd  ? std::sqrt(var + f.eps)
                                                        : var);
        if (var_out) var_out[s] = To<P>(var);
        for (int64_t a = 0; a < p.A; ++a) {
          const int64_t pi = p.param_per_a ? a : s % p.param_mod;
          const double g = f.fix_gamma ? 1.0 : D(gamma[pi]);
          const double bt = D(beta[pi]);
          for (int64_t b = 0; b < p.B; ++b) {
            const int64_t i = off + a * p.stride_a + b;
            y[i] = To<T>((D(x[i]) - mean) * inv * g + bt);
          }
        }
      },
      p.Grain());
}

struct BwdArgs {
  bool fix_gamma = false;
  double eps = 0;
  StatKind kind = StatKind::kStd;
  bool batch_stats = true;  // statistics depended on x (false: BatchNorm with moving stats)
};

// Gradients of NormForward w.r.t. x, gamma, beta given dy, plus (optional) head gradients of
// the mean/stat outputs (og_mean/og_stat, per group).
template <typename T, typename P>
void NormBackward(const NormPlan& p, const BwdArgs& f, const T* dy, const T* x, const P* gamma,
                  const P* mean, const P* stat, const P* og_mean, const P* og_stat, T* dx,
                  P* dgamma, P* dbeta) {
  const int64_t M = p.M();
  ParallelFor(
      p.S,
      [&](int64_t s) {
        const int64_t off = p.Off(s);
        const double m = D(mean[s]);
        const double inv = InvFromStat(f.kind, D(stat[s]), f.eps);
        auto g_at = [&](int64_t a) {
          return f.fix_gamma ? 1.0 : D(gamma[p.param_per_a ? a : s % p.param_mod]);
        };
        if (!f.batch_stats) {
          for (int64_t a = 0; a < p.A; ++a) {
            const double g = g_at(a);
            for (int64_t b = 0; b < p.B; ++b) {
              const int64_t i = off + a * p.stride_a + b;
              dx[i] = To<T>(D(dy[i]) * g * inv);
            }
          }
          return;
        }
        double sum_dyg = 0, sum_dyg_xhat = 0;
        for (int64_t a = 0; a < p.A; ++a) {
          const double g = g_at(a);
          for (int64_t b = 0; b < p.B; ++b) {
            const int64_t i = off + a * p.stride_a + b;
            const double dyg = D(dy[i]) * g;
            sum_dyg += dyg;
            sum_dyg_xhat += dyg * (D(x[i]) - m) * inv;
          }
        }
        const double c1 = M ? sum_dyg / M : 0, c2 = M ? sum_dyg_xhat / M : 0;
        // Head gradients of the statistics outputs: d mean/dx_i = 1/M; d stat/dx_i = coef * xhat_i
        // / M.
        const double e_mean = og_mean && M ? D(og_mean[s]) / M : 0;
        double coef = f.kind == StatKind::kInvStd ? -inv * inv
                      : f.kind == StatKind::kStd  ? 1.0
                                                  : 2.0 / inv;
        const double e_stat = og_stat && M ? D(og_stat[s]) * coef / M : 0;
        for (int64_t a = 0; a < p.A; ++a) {
          const double g = g_at(a);
          for (int64_t b = 0; b < p.B; ++b) {
            const int64_t i = off + a * p.stride_a + b;
            const double xhat = (D(x[i]) - m) * inv;
            dx[i] = To<T>(inv * (D(dy[i]) * g - c1 - xhat * c2) + e_mean + e_stat * xhat);
          }
        }
      },
      p.Grain());
  // Parameter gradients: sums of dy * xhat and dy per parameter index.
  std::vector<double> dg(p.num_params, 0.0), db(p.num_params, 0.0);
  for (int64_t s = 0; s < p.S; ++s) {
    const int64_t off = p.Off(s);
    const double m = D(mean[s]);
    const double inv = InvFromStat(f.kind, D(stat[s]), f.eps);
    for (int64_t a = 0; a < p.A; ++a) {
      const int64_t pi = p.param_per_a ? a : s % p.param_mod;
      double sg = 0, sb = 0;
      for (int64_t b = 0; b < p.B; ++b) {
        const int64_t i = off + a * p.stride_a + b;
        const double d = D(dy[i]);
        sg += d * (D(x[i]) - m) * inv;
        sb += d;
      }
      dg[pi] += sg;
      db[pi] += sb;
    }
  }
  for (int64_t k = 0; k < p.num_params; ++k) {
    dgamma[k] = To<P>(f.fix_gamma ? 0.0 : dg[k]);
    dbeta[k] = To<P>(db[k]);
  }
}

template <typename P>
const P* PtrOrNull(std::span<const NDArray> in, size_t i) {
  return i < in.size() ? static_cast<const P*>(in[i].data_ptr()) : nullptr;
}

// ---------------------------------------------------------------------------------------------
// BatchNorm

constexpr const char* kBN = "BatchNorm";

void BatchNormShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<BatchNormParam>();
  Shape& data = (*in)[0];
  Shape c = Shape::Unknown();
  int axis = -1;
  if (data.ndim_known()) {
    axis = NormalizeAxis(kBN, "axis", p.axis, data);
    c = Shape{data[axis]};
  }
  static const char* names[] = {"data", "gamma", "beta", "moving_mean", "moving_var"};
  for (int i = 1; i < 5; ++i) {
    if ((*in)[i].ndim_known() && (*in)[i].ndim() != 1)
      MX_THROW(absl::StatusCode::kInvalidArgument, kBN, ": input ", names[i],
               " must be 1-D (channels,), got ", (*in)[i].ToString(), " for data ",
               data.ToString());
    if (c.ndim_known() && (*in)[i].ndim_known() && c[0] >= 0 && (*in)[i][0] >= 0 &&
        c[0] != (*in)[i][0])
      MX_THROW(absl::StatusCode::kInvalidArgument, kBN, ": input ", names[i], " has shape ",
               (*in)[i].ToString(), " but data ", data.ToString(), " has ", c[0],
               " channels on axis ", p.axis);
    AssignShape(kBN, names[i], &c, (*in)[i]);
  }
  for (int i = 1; i < 5; ++i) (*in)[i] = c;
  if (axis >= 0 && c.ndim_known() && data[axis] < 0) data[axis] = c[0];
  (*out)[0] = data;
  (*out)[1] = c;
  (*out)[2] = c;
  (*out)[3] = Shape{1};
}

void BatchNormType(const OpAttrs&, DTypeVec* in, DTypeVec* out) {
  int t = (*in)[0];
  if (t < 0) t = (*out)[0];
  if (t >= 0) RequireFloat(kBN, "data", static_cast<DType>(t));
  int pt = t >= 0 ? ParamDType(t) : -1;
  static const char* names[] = {"data", "gamma", "beta", "moving_mean", "moving_var"};
  for (int i = 1; i < 5; ++i) MergeType(&pt, (*in)[i], StrCat(kBN, ": input ", names[i]));
  (*in)[0] = t;
  (*out)[0] = t;
  for (int i = 1; i < 5; ++i) (*in)[i] = pt;
  for (int i = 1; i < 4; ++i) (*out)[i] = pt;
}

// BatchNorm's reference works in memory order over data viewed as (outer, C, inner), so every
// layout (NCHW: inner > 1; channels-last: inner == 1) streams through memory.

// Per-channel sums (u, v) of f(element index, channel) -> {u, v}, in double. `outer` is cut into
// a fixed number of chunks summed in order, so results do not depend on the thread count.
template <typename F>
void ChannelSums(const Split3& s, F f, std::vector<double>* su, std::vector<double>* sv) {
  const int64_t C = s.n, nch = std::max<int64_t>(1, std::min<int64_t>(s.outer, 16));
  std::vector<double> pu(nch * C, 0.0), pv(nch * C, 0.0);
  ParallelFor(
      nch,
      [&](int64_t k) {
        for (int64_t o = s.outer * k / nch; o < s.outer * (k + 1) / nch; ++o)
          for (int64_t c = 0; c < C; ++c) {
            double u = 0, v = 0;
            const int64_t base = (o * C + c) * s.inner;
            for (int64_t i = 0; i < s.inner; ++i) {
              auto [a, b] = f(base + i, c);
              u += a;
              v += b;
            }
            pu[k * C + c] += u;
            pv[k * C + c] += v;
          }
      },
      1);
  su->assign(C, 0.0);
  sv->assign(C, 0.0);
  for (int64_t k = 0; k < nch; ++k)
    for (int64_t c = 0; c < C; ++c) (*su)[c] += pu[k * C + c], (*sv)[c] += pv[k * C + c];
}

// Calls f(element index, channel) for every element, planes in parallel.
template <typename F>
void ForEachPlane(const Split3& s, F f) {
  ParallelFor(
      s.outer * s.n,
      [&](int64_t pl) {
        const int64_t c = pl % s.n, base = pl * s.inner;
        for (int64_t i = 0; i < s.inner; ++i) f(base + i, c);
      },
      std::max<int64_t>(1, 16384 / std::max<int64_t>(1, s.inner)));
}

template <typename T, typename P>
void BatchNormRefImpl(const OpContext& ctx, const BatchNormParam& p, const Split3& s,
                      std::span<const NDArray> in, std::span<const NDArray> out) {
  const bool batch = ctx.is_train && !p.use_global_stats;
  const int64_t C = s.n;
  const T* x = in[0].data<T>();
  const P* gamma = in[1].data<P>();
  const P* beta = in[2].data<P>();
  P* mm = in[3].data<P>();
  P* mv = in[4].data<P>();
  std::vector<double> mean(C), var(C), unused;
  if (batch) {
    const double M = static_cast<double>(s.outer * s.inner);
    ChannelSums(
        s,
        [&](int64_t i, int64_t) {
          return std::pair<double, double>{D(x[i]), 0.0};
        },
        &mean, &unused);
    for (auto& m : mean) m = M > 0 ? m / M : 0.0;
    ChannelSums(
        s,
        [&](int64_t i, int64_t c) {
          const double d = D(x[i]) - mean[c];
          return std::pair<double, double>{d * d, 0.0};
        },
        &var, &unused);
    for (auto& v : var) v = M > 0 ? v / M : 0.0;
  } else {
    for (int64_t c = 0; c < C; ++c) mean[c] = D(mm[c]), var[c] = D(mv[c]);
  }
  std::vector<double> inv(C);
  for (int64_t c = 0; c < C; ++c) inv[c] = 1.0 / std::sqrt(var[c] + p.eps);
  T* y = out[0].data<T>();
  ForEachPlane(s, [&](int64_t i, int64_t c) {
    const double g = p.fix_gamma ? 1.0 : D(gamma[c]);
    y[i] = To<T>((D(x[i]) - mean[c]) * inv[c] * g + D(beta[c]));
  });
  P* mean_out = out[1].data<P>();
  P* invstd_out = out[2].data<P>();
  for (int64_t c = 0; c < C; ++c) mean_out[c] = To<P>(mean[c]), invstd_out[c] = To<P>(inv[c]);
  if (batch && ctx.is_record) {
    const double mom = p.momentum;
    for (int64_t c = 0; c < C; ++c) {
      mm[c] = To<P>(D(mm[c]) * mom + mean[c] * (1 - mom));
      mv[c] = To<P>(D(mv[c]) * mom + var[c] * (1 - mom));
    }
  }
  out[3].data<P>()[0] = batch ? P(1) : P(0);
}

void BatchNormRef(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const auto& p = attrs.get<BatchNormParam>();
  const Split3 s = SplitAt(in[0].shape(), NormalizeAxis(kBN, "axis", p.axis, in[0].shape()));
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, kBN,
                       { BatchNormRefImpl<T, AccType<T>>(ctx, p, s, in, out); });
}

// ---- Backend::kOptimized (float32): channels-last data (inner == 1, e.g. (N, C) or NHWC with
// axis -1) runs oneDNN's jit batch normalization; channel-planar data (NCHW, inner > 1) runs the
// vectorized loops below, because oneDNN 2.6 has only a slow generic kernel for plain nchw and
// its blocked layouts would cost two reorders (measured in nn_benchmark.cc).

// Per-channel batch mean and biased variance of planar data (outer, C, inner). Planes sum in
// float blocks of 1024 (vectorized) shifted by the channel's first value, then in double.
void PlanarStats(const float* x, const Split3& s, std::vector<double>* mean,
                 std::vector<double>* var) {
  const int64_t C = s.n, P = s.outer * s.n, L = s.inner;
  std::vector<double> ps(P), pq(P);
  ParallelFor(
      P,
      [&](int64_t pl) {
        const float* xp = x + pl * L;
        const float k = x[(pl % C) * L];
        double S = 0, Q = 0;
        for (int64_t b = 0; b < L; b += 1024) {
          const int64_t e = std::min<int64_t>(L, b + 1024);
          float sf = 0, qf = 0;
#pragma omp simd reduction(+ : sf, qf)
          for (int64_t i = b; i < e; ++i) {
            const float d = xp[i] - k;
            sf += d;
            qf += d * d;
          }
          S += sf;
          Q += qf;
        }
        ps[pl] = S;
        pq[pl] = Q;
      },
      std::max<int64_t>(1, 16384 / L));
  const double M = static_cast<double>(s.outer * L);
  mean->assign(C, 0.0);
  var->assign(C, 0.0);
  for (int64_t c = 0; c < C; ++c) {
    double S = 0, Q = 0;
    for (int64_t o = 0; o < s.outer; ++o) S += ps[o * C + c], Q += pq[o * C + c];
    const double ms = S / M;
    (*mean)[c] = x[c * L] + ms;
    (*var)[c] = std::max(0.0, Q / M - ms * ms);
  }
}

// y = x * a[c] + b[c] over planar data.
void PlanarAffine(const float* x, float* y, const Split3& s, const std::vector<float>& a,
                  const std::vector<float>& b) {
  const int64_t C = s.n, L = s.inner;
  ParallelFor(
      s.outer * C,
      [&](int64_t pl) {
        const float av = a[pl % C], bv = b[pl % C];
        const float* xp = x + pl * L;
        float* yp = y + pl * L;
#pragma omp simd
        for (int64_t i = 0; i < L; ++i) yp[i] = xp[i] * av + bv;
      },
      std::max<int64_t>(1, 16384 / L));
}

bool BatchNormOptSupports(const OpAttrs& attrs, std::span<const NDArray> in) {
  return in[0].dtype() == DType::kFloat32 && in[0].size() > 0;
}

void BatchNormOpt(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const auto& p = attrs.get<BatchNormParam>();
  const int axis = NormalizeAxis(kBN, "axis", p.axis, in[0].shape());
  const Split3 s = SplitAt(in[0].shape(), axis);
  const bool batch = ctx.is_train && !p.use_global_stats;
  const int64_t C = s.n;
  const float* x = in[0].data<float>();
  const float* gamma = in[1].data<float>();
  const float* beta = in[2].data<float>();
  float* mm = in[3].data<float>();
  float* mv = in[4].data<float>();
  float* mean = out[1].data<float>();
  float* stat = out[2].data<float>();
  std::vector<double> bm(C), bv(C);  // the statistics used, in double
  if (s.inner == 1) {
    std::vector<float> ones;
    const float* scale = gamma;
    if (p.fix_gamma) {
      ones.assign(C, 1.0f);
      scale = ones.data();
    }
    if (batch) {
      // oneDNN writes the batch mean and variance into mean/stat.
      onednn::BatchNormForward(x, out[0].data<float>(), scale, beta, mean, stat, s.outer, C,
                               static_cast<float>(p.eps), true);
      for (int64_t c = 0; c < C; ++c) bm[c] = mean[c], bv[c] = stat[c];
    } else {
      onednn::BatchNormForward(x, out[0].data<float>(), scale, beta, mm, mv, s.outer, C,
                               static_cast<float>(p.eps), false);
      for (int64_t c = 0; c < C; ++c) bm[c] = mm[c], bv[c] = mv[c];
    }
  } else {
    if (batch) {
      PlanarStats(x, s, &bm, &bv);
    } else {
      for (int64_t c = 0; c < C; ++c) bm[c] = mm[c], bv[c] = mv[c];
    }
    std::vector<float> a(C), b(C);
    for (int64_t c = 0; c < C; ++c) {
      const double inv = 1.0 / std::sqrt(bv[c] + p.eps);
      const double g = p.fix_gamma ? 1.0 : gamma[c];
      a[c] = static_cast<float>(g * inv);
      b[c] = static_cast<float>(beta[c] - bm[c] * g * inv);
    }
    PlanarAffine(x, out[0].data<float>(), s, a, b);
  }
  for (int64_t c = 0; c < C; ++c) {
    mean[c] = static_cast<float>(bm[c]);
    stat[c] =
        static_cast<float>(1.0 / std::sqrt(bv[c] + p.eps));  // MXNet outputs 1/sqrt(var + eps)
  }
  if (batch && ctx.is_record) {
    const double mom = p.momentum;
    for (int64_t c = 0; c < C; ++c) {
      mm[c] = static_cast<float>(mm[c] * mom + bm[c] * (1 - mom));
      mv[c] = static_cast<float>(mv[c] * mom + bv[c] * (1 - mom));
    }
  }
  out[3].data<float>()[0] = batch ? 1.f : 0.f;
}

std::vector<GradValue> BatchNormGrad(GradBuilder& b, const OpAttrs& attrs,
                                     std::span<const GradValue> in, std::span<const GradValue> out,
                                     std::span<const GradValue> og) {
  const auto& p = attrs.get<BatchNormParam>();
  std::vector<GradValue> args{og[0], in[0], in[1], out[1], out[2], out[3]};
  if (p.output_mean_var) {
    args.push_back(og[1].valid() ? og[1] : b.ZerosLike(out[1]));
    args.push_back(og[2].valid() ? og[2] : b.ZerosLike(out[2]));
  }
  auto g = b.Apply(OpRegistry::Get("_backward_BatchNorm"), attrs, args);
  return {g[0], g[1], g[2], GradValue{}, GradValue{}};
}

MX_REGISTER_OP(BatchNorm)
    .describe(
        "Batch normalization: normalizes each channel with batch statistics (training) or "
        "the moving statistics (inference / use_global_stats), then scales by gamma and "
        "shifts by beta.")
    .add_alias("_npx_batch_norm")
    .add_alias("BatchNorm_v1")  // legacy symbol files: same attributes (no axis, always 1)
    .set_params<BatchNormParam>()
    .set_num_inputs(5)
    .set_input_names(std::vector<std::string>{"data", "gamma", "beta", "moving_mean", "moving_var"})
    .set_num_outputs(4)
    .set_num_visible_outputs([](const OpAttrs& a) {
      return a.get<BatchNormParam>().output_mean_var ? 3 : 1;
    })
    .set_output_names(std::vector<std::string>{"output", "mean", "var", "batch_stats"})
    .set_mutable_inputs({3, 4})
    .set_infer_shape(BatchNormShape)
    .set_infer_type(BatchNormType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BatchNormRef)
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, BatchNormOpt, BatchNormOptSupports)
    .set_gradient(BatchNormGrad);

// _backward_BatchNorm(ograd, data, gamma, mean, invstd, batch_stats[, ograd_mean, ograd_var])
//   -> (data_grad, gamma_grad, beta_grad)
void BackwardBNShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  MergeShape(&(*in)[0], (*in)[1], "_backward_BatchNorm: ograd vs data");
  (*in)[1] = (*in)[0];
  (*out)[0] = (*in)[1];
  (*out)[1] = (*in)[2];
  (*out)[2] = (*in)[2];
}
void BackwardBNType(const OpAttrs&, DTypeVec* in, DTypeVec* out) {
  (*out)[0] = (*in)[1] >= 0 ? (*in)[1] : (*in)[0];
  (*out)[1] = (*in)[2];
  (*out)[2] = (*in)[2];
}

// Gradients of BatchNorm given (ograd, data, gamma, mean, invstd, batch_stats[, ograd_mean,
// ograd_var]): with batch statistics
//   dx = g * inv * (dy - mean(dy) - xhat * mean(dy * xhat)) + og_mean / M - og_var * inv^2 * xhat /
//   M
// (the last two terms: the mean and inverse-std outputs depend on x); with moving statistics
// dx = g * inv * dy. dgamma = sum(dy * xhat) (0 with fix_gamma), dbeta = sum(dy).
template <typename T, typename P>
void BackwardBNRefImpl(const BatchNormParam& p, const Split3& s, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  const int64_t C = s.n;
  const double M = static_cast<double>(s.outer * s.inner);
  const T* dy = in[0].data<T>();
  const T* x = in[1].data<T>();
  const P* gamma = in[2].data<P>();
  const P* mean = in[3].data<P>();
  const P* inv = in[4].data<P>();
  const bool batch = D(in[5].data<P>()[0]) != 0;
  const P* og_mean = PtrOrNull<P>(in, 6);
  const P* og_var = PtrOrNull<P>(in, 7);
  std::vector<double> sdy, sdyx;
  ChannelSums(
      s,
      [&](int64_t i, int64_t c) {
        const double d = D(dy[i]);
        return std::pair<double, double>{d, d * (D(x[i]) - D(mean[c])) * D(inv[c])};
      },
      &sdy, &sdyx);
  std::vector<double> a(C), b(C), c0(C);  // dx = a * dy + b * xhat + c0
  for (int64_t c = 0; c < C; ++c) {
    const double g = p.fix_gamma ? 1.0 : D(gamma[c]), iv = D(inv[c]);
    a[c] = g * iv;
    if (batch && M > 0) {
      b[c] = -g * iv * sdyx[c] / M - (og_var ? D(og_var[c]) * iv * iv / M : 0.0);
      c0[c] = -g * iv * sdy[c] / M + (og_mean ? D(og_mean[c]) / M : 0.0);
    }
  }
  T* dx = out[0].data<T>();
  ForEachPlane(s, [&](int64_t i, int64_t c) {
    const double xhat = (D(x[i]) - D(mean[c])) * D(inv[c]);
    dx[i] = To<T>(a[c] * D(dy[i]) + b[c] * xhat + c0[c]);
  });
  P* dgamma = out[1].data<P>();
  P* dbeta = out[2].data<P>();
  for (int64_t c = 0; c < C; ++c) {
    dgamma[c] = To<P>(p.fix_gamma ? 0.0 : sdyx[c]);
    dbeta[c] = To<P>(sdy[c]);
  }
}

void BackwardBNRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<BatchNormParam>();
  const Split3 s =
      SplitAt(in[1].shape(), NormalizeAxis("_backward_BatchNorm", "axis", p.axis, in[1].shape()));
  MX_FLOAT_TYPE_SWITCH(in[1].dtype(), T, "_backward_BatchNorm",
                       { BackwardBNRefImpl<T, AccType<T>>(p, s, in, out); });
}

bool BackwardBNOptSupports(const OpAttrs& attrs, std::span<const NDArray> in) {
  return in[1].dtype() == DType::kFloat32 && in.size() == 6 && in[1].size() > 0;
}

// Same layout split as BatchNormOpt: oneDNN for channels-last, vectorized loops for planar data.
void BackwardBNOpt(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<BatchNormParam>();
  const int axis = NormalizeAxis("_backward_BatchNorm", "axis", p.axis, in[1].shape());
  const Split3 s = SplitAt(in[1].shape(), axis);
  const int64_t C = s.n;
  const bool batch = in[5].data<float>()[0] != 0;
  const float* dy = in[0].data<float>();
  const float* x = in[1].data<float>();
  const float* mean = in[3].data<float>();
  const float* inv = in[4].data<float>();
  float* dx = out[0].data<float>();
  float* dgamma = out[1].data<float>();
  float* dbeta = out[2].data<float>();
  std::vector<float> g(C, 1.0f);
  if (!p.fix_gamma) std::copy_n(in[2].data<float>(), C, g.data());
  if (s.inner == 1) {
    std::vector<float> var(C);
    for (int64_t c = 0; c < C; ++c) {
      const double iv = inv[c];
      var[c] = static_cast<float>(1.0 / (iv * iv) - p.eps);
    }
    onednn::BatchNormBackward(x, dy, g.data(), mean, var.data(), dx, dgamma, dbeta, s.outer, C,
                              static_cast<float>(p.eps), !batch);
  } else {
    const int64_t P = s.outer * C, L = s.inner;
    std::vector<double> pdy(P), pdyx(P);
    ParallelFor(
        P,
        [&](int64_t pl) {
          const float m = mean[pl % C];
          const float* dyp = dy + pl * L;
          const float* xp = x + pl * L;
          double S = 0, Q = 0;
          for (int64_t b = 0; b < L; b += 1024) {
            const int64_t e = std::min<int64_t>(L, b + 1024);
            float sf = 0, qf = 0;
#pragma omp simd reduction(+ : sf, qf)
            for (int64_t i = b; i < e; ++i) {
              sf += dyp[i];
              qf += dyp[i] * (xp[i] - m);
            }
            S += sf;
            Q += qf;
          }
          pdy[pl] = S;
          pdyx[pl] = Q;
        },
        std::max<int64_t>(1, 16384 / L));
    const double M = static_cast<double>(s.outer * L);
    // dx = A * dy + B * (x - mean) + C0 per channel.
    std::vector<float> A(C), B(C), C0(C);
    for (int64_t c = 0; c < C; ++c) {
      double sdy = 0, sdyx = 0;
      for (int64_t o = 0; o < s.outer; ++o) sdy += pdy[o * C + c], sdyx += pdyx[o * C + c];
      const double iv = inv[c], dg = sdyx * iv;
      dbeta[c] = static_cast<float>(sdy);
      dgamma[c] = static_cast<float>(dg);
      A[c] = static_cast<float>(g[c] * iv);
      B[c] = batch ? static_cast<float>(-g[c] * iv * iv * dg / M) : 0.f;
      C0[c] = batch ? static_cast<float>(-g[c] * iv * sdy / M) : 0.f;
    }
    ParallelFor(
        P,
        [&](int64_t pl) {
          const int64_t c = pl % C;
          const float a = A[c], b = B[c], c0 = C0[c], m = mean[c];
          const float* dyp = dy + pl * L;
          const float* xp = x + pl * L;
          float* dxp = dx + pl * L;
#pragma omp simd
          for (int64_t i = 0; i < L; ++i) dxp[i] = a * dyp[i] + b * (xp[i] - m) + c0;
        },
        std::max<int64_t>(1, 16384 / L));
  }
  if (p.fix_gamma) std::fill_n(dgamma, C, 0.0f);
}

MX_REGISTER_OP(_backward_BatchNorm)
    .describe("Gradient of BatchNorm w.r.t. data, gamma and beta (internal).")
    .set_params<BatchNormParam>()
    .set_num_inputs([](const OpAttrs& a) {
      return a.get<BatchNormParam>().output_mean_var ? 8 : 6;
    })
    .set_input_names([](const OpAttrs& a) {
      std::vector<std::string> n{"ograd", "data", "gamma", "mean", "invstd", "batch_stats"};
      if (a.get<BatchNormParam>().output_mean_var) n.insert(n.end(), {"ograd_mean", "ograd_var"});
      return n;
    })
    .set_num_outputs(3)
    .set_infer_shape(BackwardBNShape)
    .set_infer_type(BackwardBNType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BackwardBNRef)
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, BackwardBNOpt, BackwardBNOptSupports)
    .set_non_differentiable();

// ---------------------------------------------------------------------------------------------
// LayerNorm, GroupNorm, InstanceNorm: inputs (data, gamma, beta), outputs (out, mean, std|var).

constexpr const char* kLN = "LayerNorm";
constexpr const char* kGN = "GroupNorm";
constexpr const char* kIN = "InstanceNorm";

// Shared inference: gamma/beta get `param` (merged both ways), outputs 1/2 get `stat`.
void NormParamShapes(std::string_view op, ShapeVec* in, ShapeVec* out, Shape param,
                     const Shape& stat) {
  for (int i = 1; i < 3; ++i) {
    if ((*in)[i].ndim_known() && (*in)[i].ndim() != 1)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input ", i == 1 ? "gamma" : "beta",
               " must be 1-D, got ", (*in)[i].ToString(), " for data ", (*in)[0].ToString());
    if (param.ndim_known() && (*in)[i].ndim_known() && param[0] >= 0 && (*in)[i][0] >= 0 &&
        param[0] != (*in)[i][0])
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input ", i == 1 ? "gamma" : "beta",
               " has shape ", (*in)[i].ToString(), ", expected ", param.ToString(), " for data ",
               (*in)[0].ToString());
    AssignShape(op, i == 1 ? "gamma" : "beta", &param, (*in)[i]);
  }
  (*in)[1] = param;
  (*in)[2] = param;
  (*out)[0] = (*in)[0];
  (*out)[1] = stat;
  (*out)[2] = stat;
}

void LayerNormShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<LayerNormParam>();
  Shape& data = (*in)[0];
  if (!data.ndim_known()) {
    NormParamShapes(kLN, in, out, Shape::Unknown(), Shape::Unknown());
    return;
  }
  const int axis = NormalizeAxis(kLN, "axis", p.axis, data);
  Shape param{data[axis]};
  NormParamShapes(kLN, in, out, param, Shape::Unknown());
  if (data[axis] < 0) data[axis] = (*in)[1][0];
  Shape stat = data;
  stat[axis] = 1;
  (*out)[0] = data;
  (*out)[1] = stat;
  (*out)[2] = stat;
}

void RequireNdim(std::string_view op, const Shape& data, int min_ndim, std::string_view layout) {
  if (data.ndim_known() && data.ndim() < min_ndim)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": data must have at least ", min_ndim,
             " dimensions ", layout, ", got ", data.ToString());
}

void GroupNormShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<GroupNormParam>();
  const Shape& data = (*in)[0];
  RequireNdim(kGN, data, 2, "(N, C, ...)");
  Shape param{p.num_groups};
  Shape stat = Shape::Unknown();
  if (data.ndim_known()) {
    if (data[1] >= 0 && data[1] % p.num_groups != 0)
      MX_THROW(absl::StatusCode::kInvalidArgument, kGN, ": the number of channels (", data[1],
               " in data ", data.ToString(), ") must be divisible by num_groups=", p.num_groups);
    stat = Shape{data[0], p.num_groups};
  }
  NormParamShapes(kGN, in, out, param, stat);
}

void InstanceNormShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  Shape& data = (*in)[0];
  RequireNdim(kIN, data, 3, "(N, C, spatial...)");
  Shape param = data.ndim_known() ? Shape{data[1]} : Shape::Unknown();
  NormParamShapes(kIN, in, out, param, Shape::Unknown());
  if (data.ndim_known()) {
    if (data[1] < 0) data[1] = (*in)[1][0];
    (*out)[0] = data;
    (*out)[1] = Shape{data[0], data[1]};
    (*out)[2] = Shape{data[0], data[1]};
  }
}

void NormType(std::string_view op, DTypeVec* in, DTypeVec* out) {
  int t = -1;
  static const char* names[] = {"data", "gamma", "beta"};
  for (int i = 0; i < 3; ++i) MergeType(&t, (*in)[i], StrCat(op, ": input ", names[i]));
  for (int t2 : *out) MergeType(&t, t2, StrCat(op, ": output"));
  if (t >= 0) RequireFloat(op, "data", static_cast<DType>(t));
  for (auto& x : *in) x = t;
  for (auto& x : *out) x = t;
}

struct RowNorm {
  NormPlan plan;
  double eps;
  StatKind kind;
};

RowNorm LayerNormSpec(const OpAttrs& attrs, const Shape& s) {
  const auto& p = attrs.get<LayerNormParam>();
  return {LayerNormPlan(s, NormalizeAxis(kLN, "axis", p.axis, s)), p.eps, StatKind::kStd};
}
RowNorm GroupNormSpec(const OpAttrs& attrs, const Shape& s) {
  const auto& p = attrs.get<GroupNormParam>();
  return {ContiguousPlan(s, p.num_groups), p.eps, StatKind::kStd};
}
RowNorm InstanceNormSpec(const OpAttrs& attrs, const Shape& s) {
  const auto& p = attrs.get<InstanceNormParam>();
  return {ContiguousPlan(s, s[1]), p.eps, StatKind::kVar};
}

template <RowNorm (*Spec)(const OpAttrs&, const Shape&)>
void RowNormRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const RowNorm r = Spec(attrs, in[0].shape());
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, attrs.op()->name, {
    NormForward<T, T>(r.plan, {false, r.eps, r.kind}, in[0].data<T>(), out[0].data<T>(),
                      in[1].data<T>(), in[2].data<T>(), nullptr, nullptr, out[1].data<T>(),
                      out[2].data<T>(), nullptr);
  });
}

// _backward_X(ograd, data, gamma, mean, stat[, ograd_mean, ograd_stat]) -> (dx, dgamma, dbeta)
template <RowNorm (*Spec)(const OpAttrs&, const Shape&)>
void RowNormBackwardRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                        std::span<const NDArray> out) {
  const RowNorm r = Spec(attrs, in[1].shape());
  MX_FLOAT_TYPE_SWITCH(in[1].dtype(), T, attrs.op()->name, {
    NormBackward<T, T>(r.plan, {false, r.eps, r.kind, true}, in[0].data<T>(), in[1].data<T>(),
                       in[2].data<T>(), in[3].data<T>(), in[4].data<T>(), PtrOrNull<T>(in, 5),
                       PtrOrNull<T>(in, 6), out[0].data<T>(), out[1].data<T>(), out[2].data<T>());
  });
}

void RowNormBackwardShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  MergeShape(&(*in)[0], (*in)[1], "norm backward: ograd vs data");
  (*in)[1] = (*in)[0];
  (*out)[0] = (*in)[1];
  (*out)[1] = (*in)[2];
  (*out)[2] = (*in)[2];
}

FGradient RowNormGrad(std::string backward_op, bool (*has_stat_grads)(const OpAttrs&)) {
  return [backward_op, has_stat_grads](
             GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
             std::span<const GradValue> out, std::span<const GradValue> og) {
    std::vector<GradValue> args{og[0], in[0], in[1], out[1], out[2]};
    if (has_stat_grads(attrs)) {
      args.push_back(og[1].valid() ? og[1] : b.ZerosLike(out[1]));
      args.push_back(og[2].valid() ? og[2] : b.ZerosLike(out[2]));
    }
    auto g = b.Apply(OpRegistry::Get(backward_op), attrs, args);
    return std::vector<GradValue>{g[0], g[1], g[2]};
  };
}

bool LNStatGrads(const OpAttrs& a) { return a.get<LayerNormParam>().output_mean_var; }
bool GNStatGrads(const OpAttrs& a) { return a.get<GroupNormParam>().output_mean_var; }
bool INStatGrads(const OpAttrs&) { return false; }

std::vector<std::string> BackwardNames(bool stat_grads) {
  std::vector<std::string> n{"ograd", "data", "gamma", "mean", "std"};
  if (stat_grads) n.insert(n.end(), {"ograd_mean", "ograd_std"});
  return n;
}

// oneDNN layer norm: float32, normalizing the last axis.
bool LayerNormDnnlSupports(const OpAttrs& attrs, std::span<const NDArray> in) {
  const auto& p = attrs.get<LayerNormParam>();
  const Shape& s = in[0].shape();
  return in[0].dtype() == DType::kFloat32 && s.ndim() >= 1 && s.Size() > 0 &&
         (p.axis == -1 || p.axis == s.ndim() - 1);
}

void LayerNormDnnl(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<LayerNormParam>();
  const Shape& s = in[0].shape();
  const int64_t c = s[s.ndim() - 1], rows = s.Size() / c;
  float* stdv = out[2].data<float>();
  onednn::LayerNormForward(in[0].data<float>(), out[0].data<float>(), in[1].data<float>(),
                           in[2].data<float>(), out[1].data<float>(), stdv, rows, c, p.eps);
  for (int64_t r = 0; r < rows; ++r)
    stdv[r] = static_cast<float>(std::sqrt(static_cast<double>(stdv[r]) + p.eps));
}

MX_REGISTER_OP(LayerNorm)
    .describe("Layer normalization along `axis`: (x - mean) / sqrt(var + eps) * gamma + beta.")
    .add_alias("_npx_layer_norm")
    .set_params<LayerNormParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"data", "gamma", "beta"})
    .set_num_outputs(3)
    .set_num_visible_outputs([](const OpAttrs& a) {
      return a.get<LayerNormParam>().output_mean_var ? 3 : 1;
    })
    .set_output_names(std::vector<std::string>{"output", "mean", "std"})
    .set_infer_shape(LayerNormShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) { NormType(kLN, in, out); })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RowNormRef<LayerNormSpec>)
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, LayerNormDnnl, LayerNormDnnlSupports)
    .set_gradient(RowNormGrad("_backward_LayerNorm", LNStatGrads));

MX_REGISTER_OP(_backward_LayerNorm)
    .describe("Gradient of LayerNorm w.r.t. data, gamma and beta (internal).")
    .set_params<LayerNormParam>()
    .set_num_inputs([](const OpAttrs& a) { return LNStatGrads(a) ? 7 : 5; })
    .set_input_names([](const OpAttrs& a) { return BackwardNames(LNStatGrads(a)); })
    .set_num_outputs(3)
    .set_infer_shape(RowNormBackwardShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RowNormBackwardRef<LayerNormSpec>)
    .set_non_differentiable();

MX_REGISTER_OP(GroupNorm)
    .describe(
        "Group normalization: channels of data (N, C, ...) split into num_groups groups, "
        "each (instance, group) normalized; gamma/beta are per group.")
    .set_params<GroupNormParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"data", "gamma", "beta"})
    .set_num_outputs(3)
    .set_num_visible_outputs([](const OpAttrs& a) {
      return a.get<GroupNormParam>().output_mean_var ? 3 : 1;
    })
    .set_output_names(std::vector<std::string>{"output", "mean", "std"})
    .set_infer_shape(GroupNormShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) { NormType(kGN, in, out); })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RowNormRef<GroupNormSpec>)
    .set_gradient(RowNormGrad("_backward_GroupNorm", GNStatGrads));

MX_REGISTER_OP(_backward_GroupNorm)
    .describe("Gradient of GroupNorm w.r.t. data, gamma and beta (internal).")
    .set_params<GroupNormParam>()
    .set_num_inputs([](const OpAttrs& a) { return GNStatGrads(a) ? 7 : 5; })
    .set_input_names([](const OpAttrs& a) { return BackwardNames(GNStatGrads(a)); })
    .set_num_outputs(3)
    .set_infer_shape(RowNormBackwardShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RowNormBackwardRef<GroupNormSpec>)
    .set_non_differentiable();

MX_REGISTER_OP(InstanceNorm)
    .describe(
        "Instance normalization: each (instance, channel) of data (N, C, spatial...) "
        "normalized over its spatial positions; gamma/beta are per channel.")
    .set_params<InstanceNormParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"data", "gamma", "beta"})
    .set_num_outputs(3)
    .set_num_visible_outputs([](const OpAttrs&) { return 1; })
    .set_output_names(std::vector<std::string>{"output", "mean", "var"})
    .set_infer_shape(InstanceNormShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) { NormType(kIN, in, out); })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RowNormRef<InstanceNormSpec>)
    .set_gradient(RowNormGrad("_backward_InstanceNorm", INStatGrads));

MX_REGISTER_OP(_backward_InstanceNorm)
    .describe("Gradient of InstanceNorm w.r.t. data, gamma and beta (internal).")
    .set_params<InstanceNormParam>()
    .set_num_inputs(5)
    .set_input_names(std::vector<std::string>{"ograd", "data", "gamma", "mean", "var"})
    .set_num_outputs(3)
    .set_infer_shape(RowNormBackwardShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RowNormBackwardRef<InstanceNormSpec>)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops::nn
