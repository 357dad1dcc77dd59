// The built-in optimizers, one OptimizerSpec each (MXNet 1.9.1's python/mxnet/optimizer): the
// keywords and defaults (besides the common ones of Optimizer), the state layout in brackets, the
// update step and the ops it calls. Hyper-parameters reach the fused ops as float32, as MXNet's
// attributes do; lr, wd and the bias corrections are computed in double first.
#include <algorithm>
#include <cmath>
#include <mutex>

#include "base/error.h"
#include "gluon/training/optimizer.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ops/optim/optim_api.h"
#include "ndarray/ops/optim/optim_sparse.h"

namespace mxnet::gluon::optimizer {
namespace {

float F(double v) { return static_cast<float>(v); }

NDArray Zeros(const NDArray& w) { return NDArray::Full(w.shape(), 0.0, w.device(), w.dtype()); }

NDArray OneElement(double v, const NDArray& like, DType dtype) {
  return NDArray::FromVector(std::vector<double>{v}, Shape{1}, like.device(), dtype);
}

void RequireCPU(std::string_view who, const NDArray& a) {
  if (!a.device().is_cpu())
    MX_THROW(absl::StatusCode::kUnimplemented, who, ": only CPU arrays are supported, got ",
             a.device().ToString());
}

// [mom], none when the momentum hyper-parameter is 0 (SGD, NAG, Signum).
std::vector<NDArray> MomentumState(const Optimizer& opt, const NDArray& w) {
  return {opt.hyper("momentum") != 0.0 ? Zeros(w) : NDArray()};
}
// The momentum attribute of the fused ops (negative momenta pass 0).
float Momentum(const Step& s) {
  const double m = s.h("momentum");
  return m > 0 ? F(m) : 0.0f;
}

// SGD and NAG: `mom_update` (mp_mom_update for a master copy), sgd_update without momentum.
template <typename MomOptions, typename MomFn, typename MpMomFn>
void MomentumStep(const Step& s, MomFn mom_update, MpMomFn mp_mom_update) {
  const float lr = F(s.lr()), wd = F(s.wd()), rg = F(s.rescale_grad()), clip = s.fused_clip();
  const NDArray& m = s.state.at(0);
  // lazy_update (sgd only; NAG's updates are dense): a row_sparse grad then updates its rows.
  const bool lazy = s.opt.name() == "sgd" && s.h("lazy_update") != 0.0;
  if (m.is_none()) {
    nd::SGDOptions o{
        .lr = lr, .wd = wd, .rescale_grad = rg, .clip_gradient = clip, .lazy_update = lazy};
    if (s.weight32.is_none())
      nd::sgd_update(s.weight, s.grad, o, s.weight);
    else
      nd::mp_sgd_update(s.weight, s.grad, s.weight32, o, s.weight);
    return;
  }
  MomOptions o{
      .lr = lr, .momentum = Momentum(s), .wd = wd, .rescale_grad = rg, .clip_gradient = clip};
  if constexpr (requires { o.lazy_update; }) o.lazy_update = lazy;
  if (s.weight32.is_none())
    mom_update(s.weight, s.grad, m, o, s.weight);
  else
    mp_mom_update(s.weight, s.grad, m, s.weight32, o, s.weight);
}

// Sum of squares in double (LAMB's norms).
double SumSquares(const NDArray& a) {
  RequireCPU("lamb", a);
  double total = 0;
  std::mutex mu;
  MX_FLOAT_TYPE_SWITCH(a.dtype(), T, "lamb", {
    const T* x = static_cast<const T*>(a.data_ptr());
    ParallelForRange(a.size(), 1 << 16, [&](int64_t b, int64_t e) {
      double s = 0;
      for (int64_t i = b; i < e; ++i) {
        double v = static_cast<double>(static_cast<AccType<T>>(x[i]));
        s += v * v;
      }
      std::lock_guard<std::mutex> l(mu);
      total += s;
    });
  });
  return total;
}

// ---- The optimizers MXNet composes from NDArray arithmetic (AdaGrad, AdaDelta, Adamax, Nadam):
// one fused loop each, with MXNet's float arithmetic order. ----

// The step's scalars in the compute type A; clip(g) clips like NDArray.clip (not mshadow's).
template <typename A>
struct Scalars {
  A rg, lr, wd, c;
  bool clip;
  A Clip(A g) const { return clip ? std::max(std::min(g, c), -c) : g; }
};

// For the weight's dtype T: prep(w, g, state pointers, scalars) returns the element update f(i),
// run over every element.
template <typename Prep>
void ComposedUpdate(const char* who, const Step& s, double lr, double wd, Prep prep) {
  RequireCPU(who, s.weight);
  MX_FLOAT_TYPE_SWITCH(s.weight.dtype(), T, who, {
    using A = AccType<T>;
    std::vector<T*> st;
    for (const NDArray& x : s.state) st.push_back(static_cast<T*>(x.data_ptr()));
    const std::optional<double> c = s.clip_gradient();
    const Scalars<A> k{static_cast<A>(s.rescale_grad()), static_cast<A>(lr), static_cast<A>(wd),
                       static_cast<A>(c.value_or(0)), c.has_value()};
    auto f = prep(static_cast<T*>(s.weight.data_ptr()), static_cast<const T*>(s.grad.data_ptr()),
                  st.data(), k);
    ParallelForRange(s.weight.size(), 16384, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) f(i);
    });
  });
  s.weight.mark_written();  // written through raw pointers (Storage::version)
  for (const NDArray& x : s.state) x.mark_written();
}

// ---- The specs. ----

// "sgd": SGD with momentum (MXNet's formulation: mom = momentum*mom - lr*(rescaled grad +
// wd*w); w += mom). momentum (0.0), lazy_update (True: a row_sparse gradient updates only its
// rows, weight decay and momentum included; False: the dense update). [mom] (none when
// momentum == 0).
OptimizerSpec SGDSpec() {
  return {.name = "sgd",
          .hyper = {{"momentum", 0.0}, {"lazy_update", true}},
          .states = {"mom"},
          .create_states = MomentumState,
          .fused_multi_precision = true,
          .ops = {"sgd_update", "sgd_mom_update", "mp_sgd_update", "mp_sgd_mom_update"},
          .row_sparse_grad = true,
          .step = [](const Step& s) {
            MomentumStep<nd::SGDMomOptions>(s, nd::sgd_mom_update, nd::mp_sgd_mom_update);
          }};
}

// "nag": Nesterov accelerated gradient (nag_mom_update; sgd_update without momentum).
// momentum (0.0). [mom] (none when momentum == 0).
OptimizerSpec NAGSpec() {
  return {.name = "nag",
          .hyper = {{"momentum", 0.0}},
          .states = {"mom"},
          .create_states = MomentumState,
          .fused_multi_precision = true,
          .ops = {"sgd_update", "nag_mom_update", "mp_sgd_update", "mp_nag_mom_update"},
          .step = [](const Step& s) {
            MomentumStep<nd::NAGMomOptions>(s, nd::nag_mom_update, nd::mp_nag_mom_update);
          }};
}

// "adam": lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t), then adam_update (wd added to the
// gradient). learning_rate (0.001), beta1 (0.9), beta2 (0.999), epsilon (1e-8), lazy_update
// (True: a row_sparse gradient updates only its rows and their mean/var; False: the dense
// update). [mean, var].
OptimizerSpec AdamSpec() {
  return {.name = "adam",
          .default_lr = 0.001,
          .hyper = {{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-8}, {"lazy_update", true}},
          .states = {"mean", "var"},
          .ops = {"adam_update"},
          .row_sparse_grad = true,
          .step = [](const Step& s) {
            double lr = s.lr(), wd = s.wd();
            const double t = static_cast<double>(s.t()), b1 = s.h("beta1"), b2 = s.h("beta2");
            double coef1 = 1.0 - std::pow(b1, t), coef2 = 1.0 - std::pow(b2, t);
            lr *= std::sqrt(coef2) / coef1;
            nd::adam_update(s.weight, s.grad, s.state.at(0), s.state.at(1),
                            {.lr = F(lr),
                             .beta1 = F(b1),
                             .beta2 = F(b2),
                             .epsilon = F(s.h("epsilon")),
                             .wd = F(wd),
                             .rescale_grad = F(s.rescale_grad()),
                             .clip_gradient = s.fused_clip(),
                             .lazy_update = s.h("lazy_update") != 0.0},
                            s.weight);
          }};
}

// "adamw": Adam with decoupled weight decay (Loshchilov & Hutter) as MXNet 2.0's AdamW (1.9.1
// has the _adamw_update op but no optimizer class): with eta = lr * sqrt(1 - beta2^t) /
// (1 - beta1^t) (just lr when correct_bias is False), _adamw_update(lr = 1, eta, wd):
// w -= eta * (mean / (sqrt(var) + epsilon) + wd * w). learning_rate (0.001), beta1 (0.9),
// beta2 (0.999), epsilon (1e-6), correct_bias (True), use_fused_step (accepted). [mean, var].
OptimizerSpec AdamWSpec() {
  return {.name = "adamw",
          .default_lr = 0.001,
          .hyper = {{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-6}, {"correct_bias", true}},
          .ignored = {"use_fused_step"},
          .states = {"mean", "var"},
          .fused_multi_precision = true,
          .ops = {"_adamw_update", "_mp_adamw_update"},
          .step = [](const Step& s) {
            double lr = s.lr(), wd = s.wd();
            const double b1 = s.h("beta1"), b2 = s.h("beta2");
            if (s.h("correct_bias") != 0.0) {
              const double t = static_cast<double>(s.t());
              lr *= std::sqrt(1.0 - std::pow(b2, t)) / (1.0 - std::pow(b1, t));
            }
            nd::AdamWOptions o{.lr = 1.0f,
                               .beta1 = F(b1),
                               .beta2 = F(b2),
                               .epsilon = F(s.h("epsilon")),
                               .wd = F(wd),
                               .eta = F(lr),
                               .clip_gradient = s.fused_clip()};
            NDArray scale = OneElement(s.rescale_grad(), s.weight, DType::kFloat32);
            const NDArray &mean = s.state.at(0), &var = s.state.at(1);
            if (s.weight32.is_none())
              nd::adamw_update(s.weight, s.grad, mean, var, scale, o, s.weight);
            else
              nd::mp_adamw_update(s.weight, s.grad, mean, var, s.weight32, scale, o, s.weight);
          }};
}

// "rmsprop": rmsprop_update, or rmspropalex_update when centered. learning_rate (0.001),
// gamma1 (0.9), gamma2 (0.9, centered only), epsilon (1e-8), centered (False), clip_weights
// (None). [n] or, centered, [n, g, delta].
OptimizerSpec RMSPropSpec() {
  return {.name = "rmsprop",
          .default_lr = 0.001,
          .hyper = {{"gamma1", 0.9},
                    {"gamma2", 0.9},
                    {"epsilon", 1e-8},
                    {"centered", false},
                    {"clip_weights", None}},
          .states = {"n", "g", "delta"},
          .create_states =
              [](const Optimizer& opt, const NDArray& w) {
                std::vector<NDArray> st{Zeros(w)};
                if (opt.hyper("centered") != 0.0) st.insert(st.end(), {Zeros(w), Zeros(w)});
                return st;
              },
          .ops = {"rmsprop_update", "rmspropalex_update"},
          .step =
              [](const Step& s) {
                const float lr = F(s.lr()), wd = F(s.wd());
                const double cw_h = s.h("clip_weights");
                const float cw = !std::isnan(cw_h) && cw_h != 0 ? F(cw_h) : -1.0f;
                const float g1 = F(s.h("gamma1")), eps = F(s.h("epsilon")),
                            rg = F(s.rescale_grad());
                if (s.h("centered") == 0.0) {
                  nd::rmsprop_update(s.weight, s.grad, s.state.at(0),
                                     {.lr = lr,
                                      .gamma1 = g1,
                                      .epsilon = eps,
                                      .wd = wd,
                                      .rescale_grad = rg,
                                      .clip_gradient = s.fused_clip(),
                                      .clip_weights = cw},
                                     s.weight);
                  return;
                }
                if (s.state.size() < 3)
                  MX_THROW(absl::StatusCode::kInvalidArgument,
                           "rmsprop: a centered RMSProp needs states [n, g, delta]");
                nd::rmspropalex_update(s.weight, s.grad, s.state[0], s.state[1], s.state[2],
                                       {.lr = lr,
                                        .gamma1 = g1,
                                        .gamma2 = F(s.h("gamma2")),
                                        .epsilon = eps,
                                        .wd = wd,
                                        .rescale_grad = rg,
                                        .clip_gradient = s.fused_clip(),
                                        .clip_weights = cw},
                                       s.weight);
              }};
}

// "adagrad": g = clip(rescale_grad*grad); history += g^2;
// w -= lr * (g / sqrt(history + eps) + wd*w). eps (1e-7). [history]. A row_sparse gradient
// goes to _sparse_adagrad_update (only its rows change) when wd is 0; with wd != 0 (which MXNet
// refuses) the dense update of the densified gradient.
OptimizerSpec AdaGradSpec() {
  return {.name = "adagrad",
          .hyper = {{"eps", 1e-7}},
          .states = {"history"},
          .ops = {"_sparse_adagrad_update"},
          .row_sparse_grad = true,
          .step = [](const Step& s) {
            const double lr = s.lr(), wd = s.wd(), eps_h = s.h("eps");
            if (s.grad.is_sparse() && wd == 0.0) {
              nd::sparse_adagrad_update(s.weight, s.grad, s.state.at(0),
                                        {.lr = F(lr),
                                         .epsilon = F(eps_h),
                                         .rescale_grad = F(s.rescale_grad()),
                                         .clip_gradient = s.fused_clip()},
                                        s.weight);
              return;
            }
            const NDArray dense =
                s.grad.is_sparse() ? s.grad.tostype(StorageType::kDefault) : s.grad;
            ComposedUpdate("adagrad", Step{s.opt, s.index, s.weight, dense, s.state, s.weight32},
                           lr, wd, [&]<typename T>(T* w, const T* g, T** st, auto k) {
                             using A = AccType<T>;
                             const A eps = static_cast<A>(eps_h);
                             T* hist = st[0];
                             return [=](int64_t i) {
                               A gi = k.Clip(A(g[i]) * k.rg);
                               A h = A(hist[i]) + gi * gi;
                               hist[i] = static_cast<T>(h);
                               A div = gi / std::sqrt(A(hist[i]) + eps);
                               A wi = A(w[i]);
                               w[i] = static_cast<T>(wi + (div + wi * k.wd) * -k.lr);
                             };
                           });
          }};
}

// "adadelta" (learning-rate free, as MXNet: learning_rate is accepted and unused):
// acc_g = rho*acc_g + (1-rho)*g^2; d = sqrt(acc_delta + eps)/sqrt(acc_g + eps)*g;
// acc_delta = rho*acc_delta + (1-rho)*d^2; w -= d + wd*w. rho (0.9), epsilon (1e-5).
// [acc_g, acc_delta].
OptimizerSpec AdaDeltaSpec() {
  return {.name = "adadelta",
          .hyper = {{"rho", 0.9}, {"epsilon", 1e-5}},
          .states = {"acc_g", "acc_delta"},
          .step = [](const Step& s) {
            const double rho_h = s.h("rho"), eps_h = s.h("epsilon");
            ComposedUpdate(
                "adadelta", s, 0.0, s.wd(), [&]<typename T>(T* w, const T* g, T** st, auto k) {
                  using A = AccType<T>;
                  const A rho = static_cast<A>(rho_h), one_m_rho = static_cast<A>(1.0 - rho_h),
                          eps = static_cast<A>(eps_h);
                  T* acc_g = st[0];
                  T* acc_d = st[1];
                  return [=](int64_t i) {
                    A gi = k.Clip(A(g[i]) * k.rg);
                    A ag = A(acc_g[i]) * rho;
                    ag = ag + one_m_rho * gi * gi;
                    acc_g[i] = static_cast<T>(ag);
                    A delta = std::sqrt(A(acc_d[i]) + eps) / std::sqrt(A(acc_g[i]) + eps) * gi;
                    A ad = A(acc_d[i]) * rho;
                    ad = ad + one_m_rho * delta * delta;
                    acc_d[i] = static_cast<T>(ad);
                    A wi = A(w[i]);
                    w[i] = static_cast<T>(wi - (delta + k.wd * wi));
                  };
                });
          }};
}

// "adamax": g = clip(rescale_grad*grad + wd*w); m = beta1*m + (1-beta1)*g;
// u = max(beta2*u, |g|); w -= lr/(1 - beta1^t) * m/u. learning_rate (0.002), beta1 (0.9),
// beta2 (0.999). [m, u].
OptimizerSpec AdamaxSpec() {
  return {.name = "adamax",
          .default_lr = 0.002,
          .hyper = {{"beta1", 0.9}, {"beta2", 0.999}},
          .states = {"m", "u"},
          .step = [](const Step& s) {
            double lr = s.lr();
            const double wd = s.wd(), b1_h = s.h("beta1"), b2_h = s.h("beta2");
            lr /= 1.0 - std::pow(b1_h, static_cast<double>(s.t()));
            ComposedUpdate("adamax", s, lr, wd, [&]<typename T>(T* w, const T* g, T** st, auto k) {
              using A = AccType<T>;
              const A b1 = static_cast<A>(b1_h), one_m_b1 = static_cast<A>(1.0 - b1_h),
                      b2 = static_cast<A>(b2_h);
              T* m = st[0];
              T* u = st[1];
              return [=](int64_t i) {
                A wi = A(w[i]);
                A gi = k.Clip(A(g[i]) * k.rg + wi * k.wd);
                A mi = A(m[i]) * b1;
                mi = mi + one_m_b1 * gi;
                m[i] = static_cast<T>(mi);
                u[i] = static_cast<T>(std::max(A(u[i]) * b2, std::fabs(gi)));
                w[i] = static_cast<T>(wi - A(m[i]) * k.lr / A(u[i]));
              };
            });
          }};
}

// "nadam": Adam with Nesterov momentum and momentum schedule (Dozat 2016) as MXNet computes it,
// with its optimizer-wide m_schedule (the product of momentum_t over all updates of all
// indices). learning_rate (0.001), beta1 (0.9), beta2 (0.999), epsilon (1e-8),
// schedule_decay (0.004). [m, v].
OptimizerSpec NadamSpec() {
  return {.name = "nadam",
          .default_lr = 0.001,
          .hyper = {{"beta1", 0.9}, {"beta2", 0.999}, {"epsilon", 1e-8}, {"schedule_decay", 0.004}},
          .states = {"m", "v"},
          .extra_state = {{"m_schedule", 1.0}},
          .step = [](const Step& s) {
            const double lr = s.lr(), wd = s.wd(), t = static_cast<double>(s.t());
            const double b1_h = s.h("beta1"), b2_h = s.h("beta2"), decay = s.h("schedule_decay");
            const double eps_h = s.h("epsilon");
            const double momentum_t = b1_h * (1.0 - 0.5 * std::pow(0.96, t * decay));
            const double momentum_t_1 = b1_h * (1.0 - 0.5 * std::pow(0.96, (t + 1) * decay));
            double& m_schedule = s.extra("m_schedule");
            m_schedule = m_schedule * momentum_t;
            const double m_schedule_next = m_schedule * momentum_t_1, m_sched = m_schedule;
            ComposedUpdate("nadam", s, lr, wd, [&]<typename T>(T* w, const T* g, T** st, auto k) {
              using A = AccType<T>;
              const A eps = static_cast<A>(eps_h);
              const A b1 = static_cast<A>(b1_h), one_m_b1 = static_cast<A>(1.0 - b1_h);
              const A b2 = static_cast<A>(b2_h), one_m_b2 = static_cast<A>(1.0 - b2_h);
              const A d_grad = static_cast<A>(1.0 - m_sched),
                      d_m = static_cast<A>(1.0 - m_schedule_next);
              const A d_v = static_cast<A>(1.0 - std::pow(b2_h, t));
              const A c_grad = static_cast<A>(1.0 - momentum_t), c_m = static_cast<A>(momentum_t_1);
              T* m = st[0];
              T* v = st[1];
              return [=](int64_t i) {
                A wi = A(w[i]);
                A gi = k.Clip(A(g[i]) * k.rg + wi * k.wd);
                A mi = A(m[i]) * b1;
                mi = mi + one_m_b1 * gi;
                m[i] = static_cast<T>(mi);
                A vi = A(v[i]) * b2;
                vi = vi + one_m_b2 * gi * gi;
                v[i] = static_cast<T>(vi);
                A g_prime = gi / d_grad;
                A m_prime = A(m[i]) / d_m;
                A v_prime = A(v[i]) / d_v;
                A m_bar = c_grad * g_prime + c_m * m_prime;
                w[i] = static_cast<T>(wi - k.lr * m_bar / (std::sqrt(v_prime) + eps));
              };
            });
          }};
}

// "lamb": layer-wise adaptive moments (You et al. 2019): lamb_update_phase1 gives g, then
// w -= lr * (r1/r2) * g with r1 = ||w|| clamped to [lower_bound, upper_bound] (each if set),
// r2 = ||g|| (plain lr if either is 0). learning_rate (0.001), beta1 (0.9), beta2 (0.999),
// epsilon (1e-6), lower_bound (None), upper_bound (None), bias_correction (True). [mean, var].
OptimizerSpec LAMBSpec() {
  return {.name = "lamb",
          .default_lr = 0.001,
          .hyper = {{"beta1", 0.9},
                    {"beta2", 0.999},
                    {"epsilon", 1e-6},
                    {"lower_bound", None},
                    {"upper_bound", None},
                    {"bias_correction", true}},
          .states = {"mean", "var"},
          .fused_multi_precision = true,
          .ops = {"lamb_update_phase1", "lamb_update_phase2", "mp_lamb_update_phase1",
                  "mp_lamb_update_phase2"},
          .step = [](const Step& s) {
            const double lr = s.lr(), wd = s.wd();
            nd::LambPhase1Options p1{.beta1 = F(s.h("beta1")),
                                     .beta2 = F(s.h("beta2")),
                                     .epsilon = F(s.h("epsilon")),
                                     .t = static_cast<int>(s.t()),
                                     .bias_correction = s.h("bias_correction") != 0.0,
                                     .wd = F(wd),
                                     .rescale_grad = F(s.rescale_grad()),
                                     .clip_gradient = s.fused_clip()};
            // MXNet passes the bounds only when truthy (`if self.lower_bound:`).
            nd::LambPhase2Options p2{.lr = F(lr)};
            const double lower = s.h("lower_bound"), upper = s.h("upper_bound");
            if (!std::isnan(lower) && lower != 0) p2.lower_bound = F(lower);
            if (!std::isnan(upper) && upper != 0) p2.upper_bound = F(upper);
            const NDArray &w = s.weight, &mean = s.state.at(0), &var = s.state.at(1);
            if (s.weight32.is_none()) {
              NDArray g = nd::lamb_update_phase1(w, s.grad, mean, var, p1);
              NDArray r1 = OneElement(std::sqrt(SumSquares(w)), w, w.dtype());
              NDArray r2 = OneElement(std::sqrt(SumSquares(g)), w, w.dtype());
              nd::lamb_update_phase2(w, g, r1, r2, p2, w);
            } else {
              NDArray g = nd::mp_lamb_update_phase1(w, s.grad, mean, var, s.weight32, p1);
              NDArray r1 = OneElement(std::sqrt(SumSquares(s.weight32)), w, DType::kFloat32);
              NDArray r2 = OneElement(std::sqrt(SumSquares(g)), w, DType::kFloat32);
              nd::mp_lamb_update_phase2(w, g, r1, r2, s.weight32, p2, w);
            }
          }};
}

// "signum": signum_update (signsgd_update without momentum). learning_rate (0.01),
// momentum (0.9), wd_lh (0.0). [mom] (none when momentum == 0).
OptimizerSpec SignumSpec() {
  return {.name = "signum",
          .default_lr = 0.01,
          .hyper = {{"momentum", 0.9}, {"wd_lh", 0.0}},
          .states = {"mom"},
          .create_states = MomentumState,
          .ops = {"signsgd_update", "signum_update"},
          .step = [](const Step& s) {
            const float lr = F(s.lr()), wd = F(s.wd()), rg = F(s.rescale_grad());
            const NDArray& m = s.state.at(0);
            if (!m.is_none())
              nd::signum_update(s.weight, s.grad, m,
                                {.lr = lr,
                                 .momentum = Momentum(s),
                                 .wd = wd,
                                 .rescale_grad = rg,
                                 .clip_gradient = s.fused_clip(),
                                 .wd_lh = F(s.h("wd_lh"))},
                                s.weight);
            else
              nd::signsgd_update(
                  s.weight, s.grad,
                  {.lr = lr, .wd = wd, .rescale_grad = rg, .clip_gradient = s.fused_clip()},
                  s.weight);
          }};
}

// "ftrl": ftrl_update. lamda1 (0.01), learning_rate (0.1), beta (1). As in MXNet the
// learning_rate does not override an lr_scheduler's base_lr. [z, n].
OptimizerSpec FtrlSpec() {
  return {.name = "ftrl",
          .default_lr = 0.1,
          .lr_overrides_scheduler = false,
          .hyper = {{"lamda1", 0.01}, {"beta", 1.0}},
          .states = {"z", "n"},
          .ops = {"ftrl_update"},
          .step = [](const Step& s) {
            const float wd = F(s.wd()), lr = F(s.lr());
            nd::ftrl_update(s.weight, s.grad, s.state.at(0), s.state.at(1),
                            {.lr = lr,
                             .lamda1 = F(s.h("lamda1")),
                             .beta = F(s.h("beta")),
                             .wd = wd,
                             .rescale_grad = F(s.rescale_grad()),
                             .clip_gradient = s.fused_clip()},
                            s.weight);
          }};
}

template <typename C>
OptimizerPtr Make(const Kwargs& kw) {
  return std::make_shared<C>(kw);
}
}  // namespace

const std::vector<std::pair<OptimizerSpecPtr, Factory>>& Builtins() {
  auto spec = [](OptimizerSpec s) { return std::make_shared<const OptimizerSpec>(std::move(s)); };
  static const auto* builtins = new std::vector<std::pair<OptimizerSpecPtr, Factory>>{
      {spec(SGDSpec()), Make<SGD>},           {spec(NAGSpec()), Make<NAG>},
      {spec(AdamSpec()), Make<Adam>},         {spec(AdamWSpec()), Make<AdamW>},
      {spec(RMSPropSpec()), Make<RMSProp>},   {spec(AdaGradSpec()), Make<AdaGrad>},
      {spec(AdaDeltaSpec()), Make<AdaDelta>}, {spec(AdamaxSpec()), Make<Adamax>},
      {spec(NadamSpec()), Make<Nadam>},       {spec(LAMBSpec()), Make<LAMB>},
      {spec(SignumSpec()), Make<Signum>},     {spec(FtrlSpec()), Make<Ftrl>},
  };
  return *builtins;
}

OptimizerSpecPtr BuiltinSpec(std::string_view name) {
  for (const auto& [spec, factory] : Builtins())
    if (spec->name == name) return spec;
  MX_THROW(absl::StatusCode::kInternal, "no built-in optimizer '", name, "'");
}

}  // namespace mxnet::gluon::optimizer
