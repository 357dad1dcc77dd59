// Probability densities (MXNet 1.9.1's _random_pdf_<distr>, src/operator/random/pdf_op.h) and
// their gradient ops _backward_pdf_<distr>. Inputs: sample, then the parameters (one shape P,
// the leading sub-shape of sample's shape; Dirichlet: alpha (P..., K) with sample (..., K)).
// sample[i, ...] is evaluated under the parameters at i; output shape = sample's (Dirichlet:
// sample's without the last axis, (1,) for 1-D sample). One float dtype; computed in double.
// is_log returns the log-density. No range checks, as MXNet (out-of-support samples give the
// formula's value). Gradients (MXNet's): scaling * d(log pdf), scaling = ograd (is_log) or
// ograd * pdf; parameter gradients summed over each distribution's samples; the sample gets
// none (zeros) for uniform, poisson and the negative binomials.
//   uniform(low, high)   1/(high-low)
//   normal(mu, sigma)    exp(-(x-mu)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma)
//   gamma(alpha, beta)   beta^alpha x^(alpha-1) exp(-beta x) / Gamma(alpha)   (beta: rate)
//   exponential(lam)     lam exp(-lam x)
//   poisson(lam)         lam^x exp(-lam) / Gamma(x+1)
//   negative_binomial(k, p)  Gamma(x+k) / (Gamma(x+1) Gamma(k)) p^k (1-p)^x
//   generalized_negative_binomial(mu, alpha)  negative_binomial(1/alpha, 1/(1+mu*alpha))
//   dirichlet(alpha)     Gamma(sum a) / prod Gamma(a_j) * prod x_j^(a_j-1)
// Differences from MXNet in float64 (ours are exact in double): MXNet's pi is a float (normal
// densities 1.4e-8 relative apart) and its digamma takes logf (gradients w.r.t. gamma's alpha,
// the negative binomials' k/mu/alpha and Dirichlet's alpha ~1e-7 apart).
#include <cmath>
#include <numbers>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/random/sample_api.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;
using GV = GradValue;
using GVs = std::vector<GradValue>;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};

// Digamma by recurrence up to x >= 6, then the asymptotic series; reflection for x < 0.
double Digamma(double x) {
  if (x <= 0 && x == std::floor(x)) return NAN;
  if (x < 0) return Digamma(1 - x) - std::numbers::pi / std::tan(std::numbers::pi * x);
  double r = 0;
  while (x < 6) r -= 1 / x, x += 1;
  double f = 1 / (x * x);
  return r + std::log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

// One distribution: Eval(is_log, x, p) and the partial derivatives of log pdf.
struct Uniform {
  static constexpr int kParams = 2;
  static double Eval(bool lg, double, const double* p) {
    return lg ? -std::log(p[1] - p[0]) : 1 / (p[1] - p[0]);
  }
  static void Grad(double, const double* p, double* dx, double* dp) {
    *dx = 0, dp[0] = 1 / (p[1] - p[0]), dp[1] = 1 / (p[0] - p[1]);
  }
};
struct Normal {
  static constexpr int kParams = 2;
  static double Eval(bool lg, double x, const double* p) {
    double e = -0.5 * (x - p[0]) * (x - p[0]) / (p[1] * p[1]);
    double norm = std::sqrt(2 * std::numbers::pi) * p[1];
    return lg ? e - std::log(norm) : std::exp(e) / norm;
  }
  static void Grad(double x, const double* p, double* dx, double* dp) {
    double u = p[0], s = p[1], s2 = s * s;
    dp[0] = (x - u) / s2, dp[1] = ((x - u) * (x - u) - s2) / (s2 * s), *dx = (u - x) / s2;
  }
};
struct Gamma {
  static constexpr int kParams = 2;
  static double Eval(bool lg, double x, const double* p) {
    double a = p[0], b = p[1];
    double l = a * std::log(b) + (a - 1) * std::log(x) - b * x - std::lgamma(a);
    return lg ? l : std::exp(l);
  }
  static void Grad(double x, const double* p, double* dx, double* dp) {
    double a = p[0], b = p[1];
    dp[0] = std::log(b) + std::log(x) - Digamma(a), dp[1] = a / b - x, *dx = (a - 1) / x - b;
  }
};
struct Exponential {
  static constexpr int kParams = 1;
  static double Eval(bool lg, double x, const double* p) {
    return lg ? std::log(p[0]) - p[0] * x : p[0] * std::exp(-p[0] * x);
  }
  static void Grad(double x, const double* p, double* dx, double* dp) {
    dp[0] = 1 / p[0] - x, *dx = -p[0];
  }
};
struct Poisson {
  static constexpr int kParams = 1;
  static double Eval(bool lg, double x, const double* p) {
    double l = x * std::log(p[0]) - std::lgamma(x + 1) - p[0];
    return lg ? l : std::exp(l);
  }
  static void Grad(double x, const double* p, double* dx, double* dp) {
    dp[0] = x / p[0] - 1, *dx = 0;
  }
};
struct NegBinomial {
  static constexpr int kParams = 2;
  static double LogPdf(double x, double k, double p) {
    return std::lgamma(x + k) - std::lgamma(x + 1) - std::lgamma(k) + k * std::log(p) +
           x * std::log(1 - p);
  }
  static double Eval(bool lg, double x, const double* p) {
    double l = LogPdf(x, p[0], p[1]);
    return lg ? l : std::exp(l);
  }
  static void Grad(double x, const double* p, double* dx, double* dp) {
    double k = p[0], q = p[1];
    dp[0] = Digamma(x + k) - Digamma(k) + std::log(q), dp[1] = k / q - x / (1 - q), *dx = 0;
  }
};
struct GenNegBinomial {
  static constexpr int kParams = 2;
  static double Eval(bool lg, double x, const double* p) {
    double l = NegBinomial::LogPdf(x, 1 / p[1], 1 / (p[0] * p[1] + 1));
    return lg ? l : std::exp(l);
  }
  static void Grad(double x, const double* p, double* dx, double* dp) {
    double mu = p[0], al = p[1], den = mu * al + 1;
    double nb[2] = {1 / al, 1 / den}, g[2];
    NegBinomial::Grad(x, nb, dx, g);
    dp[0] = -g[1] * al / (den * den), dp[1] = -g[0] / (al * al) - g[1] * mu / (den * den);
  }
};

// ---- shape and type inference ----
// Parameters share one shape; it must be sample's leading sub-shape (Dirichlet: with sample's
// last dim appended).
template <bool kVector>
void PdfShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  for (size_t i = 2; i < in->size(); ++i) {
    MergeShape(&(*in)[i], (*in)[1], StrCat(OpName(a), ": parameter ", i));
    MergeShape(&(*in)[1], (*in)[i], StrCat(OpName(a), ": parameter 1"));
  }
  const Shape& s = (*in)[0];
  const Shape& p = (*in)[1];
  if (!s.ndim_known()) return;
  if (kVector && s.ndim() == 0) Fail(a, "sample must have at least 1 dimension, got ()");
  if (kVector && p.ndim_known() && p.ndim() == 0)
    Fail(a, "alpha must have at least 1 dimension, got ()");
  Shape o;
  if (kVector && s.ndim() == 1) {
    o = Shape{1};
  } else {
    for (int i = 0; i < s.ndim() - (kVector ? 1 : 0); ++i) o.push_back(s[i]);
  }
  MergeShape(&(*out)[0], o, StrCat(OpName(a), ": output"));
  if (!p.ndim_known()) return;
  if (p.ndim() > s.ndim())
    Fail(a, "the parameters (shape ", p, ") have more dimensions than sample (shape ", s, ")");
  Shape want;
  for (int i = 0; i < p.ndim(); ++i) want.push_back(s[i]);
  if (kVector) want[p.ndim() - 1] = s[s.ndim() - 1];
  for (size_t i = 1; i < in->size(); ++i) {
    const Shape& q = (*in)[i];
    bool clash = false;
    for (int d = 0; d < q.ndim(); ++d)
      if (q[d] >= 0 && want[d] >= 0 && q[d] != want[d]) clash = true;
    if (clash)
      Fail(a, "parameter shape ", q, " must be the leading sub-shape ", want, " of sample shape ",
           s);
    MergeShape(&(*in)[i], want, StrCat(OpName(a), ": parameter ", i));
  }
}

void FloatTypes(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  int t = -1;
  for (int x : *in) MergeType(&t, x, StrCat(OpName(a), ": inputs"));
  for (int x : *out) MergeType(&t, x, StrCat(OpName(a), ": outputs"));
  for (auto& x : *in) x = t;
  for (auto& x : *out) x = t;
  if (t >= 0 && !IsFloatingPoint(static_cast<DType>(t)))
    Fail(a, "inputs must have a floating-point dtype (float16/32/64), got ",
         DTypeName(static_cast<DType>(t)));
}

void Store(const std::vector<double>& v, const NDArray& out) {
  if (!v.empty()) ConvertElements(v.data(), DType::kFloat64, out.data_ptr(), out.dtype(), v.size());
}

// ---- scalar-parameter distributions ----
template <typename D>
void PdfRef(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
            std::span<const NDArray> out) {
  bool lg = a.get<PdfParam>().is_log;
  std::vector<double> x = in[0].ToVector<double>(), y(x.size());
  std::vector<std::vector<double>> p;
  for (int k = 0; k < D::kParams; ++k) p.push_back(in[1 + k].ToVector<double>());
  int64_t np = static_cast<int64_t>(p[0].size());
  if (np == 0 || x.empty()) return Store(y, out[0]);
  int64_t per = static_cast<int64_t>(x.size()) / np;
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t j = static_cast<int64_t>(i) / per;
    double q[2] = {p[0][j], D::kParams > 1 ? p[1 % D::kParams][j] : 0};
    y[i] = D::Eval(lg, x[i], q);
  }
  Store(y, out[0]);
}

// Inputs (ograd, sample, params..., out); outputs (d sample, d params...).
template <typename D>
void PdfBwdRef(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  bool lg = a.get<PdfParam>().is_log;
  std::vector<double> og = in[0].ToVector<double>(), x = in[1].ToVector<double>(),
                      y = in[2 + D::kParams].template ToVector<double>(), dx(x.size());
  std::vector<std::vector<double>> p, dp;
  for (int k = 0; k < D::kParams; ++k) {
    p.push_back(in[2 + k].ToVector<double>());
    dp.emplace_back(p.back().size(), 0.0);
  }
  int64_t np = static_cast<int64_t>(p[0].size());
  if (np > 0 && !x.empty()) {
    int64_t per = static_cast<int64_t>(x.size()) / np;
    for (size_t i = 0; i < x.size(); ++i) {
      int64_t j = static_cast<int64_t>(i) / per;
      double q[2] = {p[0][j], D::kParams > 1 ? p[1 % D::kParams][j] : 0}, gx, gp[2];
      D::Grad(x[i], q, &gx, gp);
      double scale = og[i] * (lg ? 1 : y[i]);
      dx[i] = scale * gx;
      for (int k = 0; k < D::kParams; ++k) dp[k][j] += scale * gp[k];
    }
  }
  Store(dx, out[0]);
  for (int k = 0; k < D::kParams; ++k) Store(dp[k], out[1 + k]);
}

// ---- Dirichlet: sample (..., K), alpha (P..., K) ----
void DirichletRef(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  bool lg = a.get<PdfParam>().is_log;
  const NDArray& s = in[0];
  int64_t K = s.shape()[s.ndim() - 1];
  std::vector<double> y(out[0].size());
  if (K > 0 && s.size() > 0 && in[1].size() > 0) {
    std::vector<double> x = s.ToVector<double>(), al = in[1].ToVector<double>();
    int64_t n = s.size() / K, per = n / (in[1].size() / K);
    for (int64_t o = 0; o < n; ++o) {
      const double* xa = &x[o * K];
      const double* aa = &al[(o / per) * K];
      double sum = 0, lg_sum = 0, acc = 0;
      for (int64_t j = 0; j < K; ++j)
        sum += aa[j], lg_sum += std::lgamma(aa[j]), acc += (aa[j] - 1) * std::log(xa[j]);
      double l = acc + std::lgamma(sum) - lg_sum;
      y[o] = lg ? l : std::exp(l);
    }
  }
  Store(y, out[0]);
}

void DirichletBwdRef(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  bool lg = a.get<PdfParam>().is_log;
  const NDArray& s = in[1];
  int64_t K = s.shape()[s.ndim() - 1];
  std::vector<double> dx(s.size()), da(in[2].size());
  if (K > 0 && s.size() > 0 && in[2].size() > 0) {
    std::vector<double> og = in[0].ToVector<double>(), x = s.ToVector<double>(),
                        al = in[2].ToVector<double>(), y = in[3].ToVector<double>();
    int64_t n = s.size() / K, per = n / (in[2].size() / K);
    for (int64_t o = 0; o < n; ++o) {
      int64_t base = (o / per) * K;
      double sum = 0;
      for (int64_t j = 0; j < K; ++j) sum += al[base + j];
      double psi_sum = Digamma(sum), scale = og[o] * (lg ? 1 : y[o]);
      for (int64_t j = 0; j < K; ++j) {
        double xj = x[o * K + j], aj = al[base + j];
        da[base + j] += scale * (std::log(xj) + psi_sum - Digamma(aj));
        dx[o * K + j] = scale * (aj - 1) / xj;
      }
    }
  }
  Store(dx, out[0]);
  Store(da, out[1]);
}

// ---- registration ----
#define MX_PDF_OP(NAME, HELPER, ...)                                      \
  [[maybe_unused]] static ::mxnet::Op& MX_CONCAT_(pdf_op_, __COUNTER__) = \
      HELPER(::mxnet::OpRegistry::Register(#NAME), __VA_ARGS__)

// _random_pdf_<distr> (alias random_pdf_<distr>) with gradient op `bwd`.
Op& PdfOp(Op& op, const std::string& distr, std::vector<std::string> params, FCompute f,
          bool vector, const char* doc) {
  std::string bwd = "_backward_pdf_" + distr;
  std::vector<std::string> names{"sample"};
  names.insert(names.end(), params.begin(), params.end());
  int n = static_cast<int>(names.size());
  return op.describe(doc)
      .add_alias("random_pdf_" + distr)
      .set_params<PdfParam>()
      .set_num_inputs(n)
      .set_input_names(std::move(names))
      .set_infer_shape(vector ? PdfShape<true> : PdfShape<false>)
      .set_infer_type(FloatTypes)
      .set_kernel(kRef, std::move(f))
      .set_gradient([bwd](GradBuilder& b, const OpAttrs& a, std::span<const GV> in,
                          std::span<const GV> out, std::span<const GV> og) {
        const Op& op = OpRegistry::Get(bwd);
        std::vector<GV> args{og[0]};
        args.insert(args.end(), in.begin(), in.end());
        args.push_back(out[0]);
        return b.Apply(op, OpAttrs::From(op, a.get<PdfParam>()), args);
      });
}

// _backward_pdf_<distr>: (ograd, sample, params..., pdf) -> (d sample, d params...).
Op& PdfBwdOp(Op& op, int nparams, FCompute f, const char* doc) {
  std::vector<std::string> names{"ograd", "sample"};
  for (int k = 0; k < nparams; ++k) names.push_back(StrCat("param", k));
  names.push_back("pdf");
  return op.describe(doc)
      .set_params<PdfParam>()
      .set_num_inputs(nparams + 3)
      .set_num_outputs(nparams + 1)
      .set_input_names(std::move(names))
      .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
        MergeShape(&(*in)[0], in->back(), StrCat(OpName(a), ": ograd"));
        MergeShape(&in->back(), (*in)[0], StrCat(OpName(a), ": pdf"));
        for (size_t k = 0; k < out->size(); ++k) {
          MergeShape(&(*out)[k], (*in)[k + 1], StrCat(OpName(a), ": output ", k));
          MergeShape(&(*in)[k + 1], (*out)[k], StrCat(OpName(a), ": input ", k + 1));
        }
      })
      .set_infer_type(FloatTypes)
      .set_kernel(kRef, std::move(f))
      .set_non_differentiable();
}

MX_PDF_OP(_random_pdf_uniform, PdfOp, "uniform", {"low", "high"}, PdfRef<Uniform>, false,
          "PDF of sample under U[low, high): 1/(high-low) (the support is not checked).");
MX_PDF_OP(_random_pdf_normal, PdfOp, "normal", {"mu", "sigma"}, PdfRef<Normal>, false,
          "PDF of sample under N(mu, sigma^2).");
MX_PDF_OP(_random_pdf_gamma, PdfOp, "gamma", {"alpha", "beta"}, PdfRef<Gamma>, false,
          "PDF of sample under the gamma distribution with shape alpha and RATE beta.");
MX_PDF_OP(_random_pdf_exponential, PdfOp, "exponential", {"lam"}, PdfRef<Exponential>, false,
          "PDF of sample under the exponential distribution with rate lam.");
MX_PDF_OP(_random_pdf_poisson, PdfOp, "poisson", {"lam"}, PdfRef<Poisson>, false,
          "PMF of sample under the Poisson distribution with mean lam (via lgamma(x+1)).");
MX_PDF_OP(_random_pdf_negative_binomial, PdfOp, "negative_binomial", {"k", "p"},
          PdfRef<NegBinomial>, false,
          "PMF of sample (failures) under the negative binomial distribution with k successes "
          "of probability p.");
MX_PDF_OP(_random_pdf_generalized_negative_binomial, PdfOp, "generalized_negative_binomial",
          {"mu", "alpha"}, PdfRef<GenNegBinomial>, false,
          "PMF of sample under the generalized negative binomial distribution with mean mu and "
          "dispersion alpha.");
MX_PDF_OP(
    _random_pdf_dirichlet, PdfOp, "dirichlet", {"alpha"}, DirichletRef, true,
    "PDF of sample (..., K) under Dirichlet(alpha), alpha (P..., K); output sample.shape[:-1] "
    "((1,) for 1-D sample).");

MX_PDF_OP(_backward_pdf_uniform, PdfBwdOp, 2, PdfBwdRef<Uniform>,
          "Gradient of _random_pdf_uniform.");
MX_PDF_OP(_backward_pdf_normal, PdfBwdOp, 2, PdfBwdRef<Normal>, "Gradient of _random_pdf_normal.");
MX_PDF_OP(_backward_pdf_gamma, PdfBwdOp, 2, PdfBwdRef<Gamma>, "Gradient of _random_pdf_gamma.");
MX_PDF_OP(_backward_pdf_exponential, PdfBwdOp, 1, PdfBwdRef<Exponential>,
          "Gradient of _random_pdf_exponential.");
MX_PDF_OP(_backward_pdf_poisson, PdfBwdOp, 1, PdfBwdRef<Poisson>,
          "Gradient of _random_pdf_poisson.");
MX_PDF_OP(_backward_pdf_negative_binomial, PdfBwdOp, 2, PdfBwdRef<NegBinomial>,
          "Gradient of _random_pdf_negative_binomial.");
MX_PDF_OP(_backward_pdf_generalized_negative_binomial, PdfBwdOp, 2, PdfBwdRef<GenNegBinomial>,
          "Gradient of _random_pdf_generalized_negative_binomial.");
MX_PDF_OP(_backward_pdf_dirichlet, PdfBwdOp, 1, DirichletBwdRef,
          "Gradient of _random_pdf_dirichlet.");

}  // namespace
}  // namespace mxnet::ops

// ---- nd:: free functions (shape_sample_api.h) ----
namespace mxnet::nd::random {
namespace {
NDArray Pdf(const Op& op, std::initializer_list<NDArray> in, bool is_log) {
  ops::PdfParam p;
  p.is_log = is_log;
  return Call(op, OpAttrs::From(op, p), in)[0];
}
}  // namespace

NDArray pdf_uniform(const NDArray& sample, const NDArray& low, const NDArray& high, bool is_log) {
  return Pdf(MX_ND_OP(_random_pdf_uniform), {sample, low, high}, is_log);
}
NDArray pdf_normal(const NDArray& sample, const NDArray& mu, const NDArray& sigma, bool is_log) {
  return Pdf(MX_ND_OP(_random_pdf_normal), {sample, mu, sigma}, is_log);
}
NDArray pdf_gamma(const NDArray& sample, const NDArray& alpha, const NDArray& beta, bool is_log) {
  return Pdf(MX_ND_OP(_random_pdf_gamma), {sample, alpha, beta}, is_log);
}
NDArray pdf_exponential(const NDArray& sample, const NDArray& lam, bool is_log) {
  return Pdf(MX_ND_OP(_random_pdf_exponential), {sample, lam}, is_log);
}
NDArray pdf_poisson(const NDArray& sample, const NDArray& lam, bool is_log) {
  return Pdf(MX_ND_OP(_random_pdf_poisson), {sample, lam}, is_log);
}
NDArray pdf_negative_binomial(const NDArray& sample, const NDArray& k, const NDArray& p,
                              bool is_log) {
  return Pdf(MX_ND_OP(_random_pdf_negative_binomial), {sample, k, p}, is_log);
}
NDArray pdf_generalized_negative_binomial(const NDArray& sample, const NDArray& mu,
                                          const NDArray& alpha, bool is_log) {
  return Pdf(MX_ND_OP(_random_pdf_generalized_negative_binomial), {sample, mu, alpha}, is_log);
}
NDArray pdf_dirichlet(const NDArray& sample, const NDArray& alpha, bool is_log) {
  return Pdf(MX_ND_OP(_random_pdf_dirichlet), {sample, alpha}, is_log);
}

}  // namespace mxnet::nd::random
