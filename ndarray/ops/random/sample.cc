// Random ops (MXNet 1.9.1 names), next to shape_random.cc's uniform/normal/randint:
//   _random_{exponential,gamma,poisson,negative_binomial,generalized_negative_binomial}
//   _random_<distr>_like (also uniform, normal), _sample_<distr> (per-element parameters),
//   _sample_multinomial (+ _backward_sample_multinomial), _sample_unique_zipfian.
// They draw from the global generator of the output device (ndarray/random.h); values differ from
// MXNet's (another generator), distributions, shapes, dtypes and parameter checks are MXNet's
// (src/operator/random/sample_op.h, multisample_op.h, sampler.h, sample_multinomial_op.h,
// unique_sample_op.h). Discrete draws: negative binomial = Poisson(Gamma(k, (1-p)/p)),
// generalized = Poisson(Gamma(1/alpha, alpha*mu)), as MXNet samples them.
#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/random/sample_api.h"
#include "ndarray/random.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;
using Gen = std::mt19937_64;
using GV = GradValue;
using GVs = std::vector<GradValue>;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};

// ---- draws (double precision) ----
double Poisson(Gen& g, double lam) {
  if (!(lam > 0)) return 0;
  std::poisson_distribution<long long> d(lam);
  return static_cast<double>(d(g));
}
double GammaDraw(Gen& g, double shape, double scale) {
  std::gamma_distribution<double> d(shape, scale);
  return d(g);
}
double NegBinomial(Gen& g, double k, double p) {
  if (k == 0 || p == 1) return 0;
  return Poisson(g, GammaDraw(g, k, (1 - p) / p));
}
double GenNegBinomial(Gen& g, double mu, double alpha) {
  if (mu == 0) return 0;
  if (alpha == 0) return Poisson(g, mu);
  return Poisson(g, GammaDraw(g, 1 / alpha, alpha * mu));
}

// Per-distribution draw functors built once from the two parameters (p1 unused by the one-
// parameter distributions), and the parameter check of the _sample_ ops ("" when valid).
struct ExpDist {
  std::exponential_distribution<double> d;
  ExpDist(double lam, double) : d(lam) {}
  double operator()(Gen& g) { return d(g); }
  static std::string Check(double lam, double) {
    return lam > 0 ? "" : StrCat("lam must be > 0, got ", lam);
  }
};
struct GammaDist {
  std::gamma_distribution<double> d;
  GammaDist(double a, double b) : d(a, b) {}
  double operator()(Gen& g) { return d(g); }
  static std::string Check(double a, double b) {
    if (!(a > 0)) return StrCat("alpha must be > 0, got ", a);
    return b > 0 ? "" : StrCat("beta must be > 0, got ", b);
  }
};
struct PoissonDist {
  double lam;
  PoissonDist(double l, double) : lam(l) {}
  double operator()(Gen& g) { return Poisson(g, lam); }
  static std::string Check(double l, double) {
    return l >= 0 ? "" : StrCat("lam must be >= 0, got ", l);
  }
};
struct NegBinomialDist {
  double k, p;
  NegBinomialDist(double k_, double p_) : k(k_), p(p_) {}
  double operator()(Gen& g) { return NegBinomial(g, k, p); }
  static std::string Check(double k, double p) {
    if (!(k >= 0)) return StrCat("k must be >= 0, got ", k);
    return p > 0 && p <= 1 ? "" : StrCat("p must be in (0, 1], got ", p);
  }
};
struct GenNegBinomialDist {
  double mu, alpha;
  GenNegBinomialDist(double m, double a) : mu(m), alpha(a) {}
  double operator()(Gen& g) { return GenNegBinomial(g, mu, alpha); }
  static std::string Check(double m, double a) {
    if (!(m >= 0)) return StrCat("mu must be >= 0, got ", m);
    return a >= 0 ? "" : StrCat("alpha must be >= 0, got ", a);
  }
};
void FixUniformTop(const NDArray& out, double low, double high);
struct UniformDist {
  double lo, hi;
  std::uniform_real_distribution<double> d{0.0, 1.0};
  UniformDist(double l, double h) : lo(l), hi(h) {}
  double operator()(Gen& g) { return lo + (hi - lo) * d(g); }
  void Fix(const NDArray& out) const { FixUniformTop(out, lo, hi); }
};
struct NormalDist {
  std::normal_distribution<double> d;
  NormalDist(double m, double s) : d(m, s) {}
  double operator()(Gen& g) { return d(g); }
};

// Fills `out` (float dtype) with draws of `dist`.
template <typename Dist>
void FillFrom(const OpContext& ctx, const NDArray& out, Dist dist) {
  int64_t n = out.size();
  if (n == 0) return;
  std::vector<double> v(n);
  {
    random::GeneratorGuard g(ctx.device);
    for (auto& x : v) x = dist(g.gen());
  }
  ConvertElements(v.data(), DType::kFloat64, out.data_ptr(), out.dtype(), n);
  if constexpr (requires { dist.Fix(out); }) dist.Fix(out);
}

// Uniform draws rounded to the dtype can reach `high`; those become `low` (half-open range).
void FixUniformTop(const NDArray& out, double low, double high) {
  int64_t n = out.size();
  if (n == 0 || !(low < high)) return;
  std::vector<double> back = out.ToVector<double>();
  bool fix = false;
  for (auto& x : back)
    if (!(x < high)) x = low, fix = true;
  if (fix) ConvertElements(back.data(), DType::kFloat64, out.data_ptr(), out.dtype(), n);
}

// ---- _random_<distr>: no inputs, shape/ctx/dtype attributes ----
template <typename P>
void AttrShape(const OpAttrs& a, ShapeVec*, ShapeVec* out) {
  MergeShape(&(*out)[0], a.get<P>().shape, StrCat(OpName(a), ": output"));
}
template <typename P>
void AttrFloatType(const OpAttrs& a, DTypeVec*, DTypeVec* out) {
  const auto& dt = a.get<P>().dtype;
  MergeType(&(*out)[0], DTypeFlag(dt ? *dt : DType::kFloat32), StrCat(OpName(a), ": output"));
}

// Registration helpers: `static Op& x = Helper(OpRegistry::Register("name"), ...)`.
#define MX_SAMPLE_OP(NAME, HELPER, ...)                                      \
  [[maybe_unused]] static ::mxnet::Op& MX_CONCAT_(sample_op_, __COUNTER__) = \
      HELPER(::mxnet::OpRegistry::Register(#NAME), __VA_ARGS__)

// _random_<distr>: draws of make(params) in shape `shape`, float dtype.
template <typename P, typename MakeDist>
Op& RandomOp(Op& op, const char* doc, MakeDist make) {
  return op.describe(doc)
      .set_params<P>()
      .set_num_inputs(0)
      .set_random()
      .set_infer_shape(AttrShape<P>)
      .set_infer_type(AttrFloatType<P>)
      .set_kernel(kRef,
                  [make](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray>,
                         std::span<const NDArray> out) { FillFrom(ctx, out[0], make(a.get<P>())); })
      .set_non_differentiable();
}

// ---- _random_<distr>_like: shape and float dtype of `data` ----
void LikeType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  MergeType(&(*out)[0], (*in)[0], StrCat(OpName(a), ": output"));
  MergeType(&(*in)[0], (*out)[0], StrCat(OpName(a), ": input data"));
  int t = (*in)[0];
  if (t >= 0 && !IsFloatingPoint(static_cast<DType>(t)))
    Fail(a, "data must have a floating-point dtype (float16/32/64), got ",
         DTypeName(static_cast<DType>(t)));
}

template <typename P, typename MakeDist>
Op& LikeOp(Op& op, const char* doc, MakeDist make) {
  return op.describe(doc)
      .set_params<P>()
      .set_num_inputs(1)
      .set_input_names(std::vector<std::string>{"data"})
      .set_random()
      .set_infer_shape(ElemwiseShape)
      .set_infer_type(LikeType)
      .set_kernel(kRef,
                  [make](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray>,
                         std::span<const NDArray> out) { FillFrom(ctx, out[0], make(a.get<P>())); })
      .set_non_differentiable();  // MXNet: zero gradient for data
}

constexpr auto kExp = [](const auto& p) { return ExpDist(p.lam, 0); };
constexpr auto kGamma = [](const auto& p) { return GammaDist(p.alpha, p.beta); };
constexpr auto kPoisson = [](const auto& p) { return PoissonDist(p.lam, 0); };
constexpr auto kNB = [](const auto& p) { return NegBinomialDist(p.k, p.p); };
constexpr auto kGNB = [](const auto& p) { return GenNegBinomialDist(p.mu, p.alpha); };

MX_SAMPLE_OP(_random_exponential, RandomOp<ExponentialParam>,
             "Samples the exponential distribution with rate lam > 0 (mean 1/lam).", kExp)
    .add_alias("random_exponential");
MX_SAMPLE_OP(_random_gamma, RandomOp<GammaParam>,
             "Samples the gamma distribution with shape alpha > 0 and scale beta > 0 (mean "
             "alpha*beta).",
             kGamma)
    .add_alias("random_gamma");
MX_SAMPLE_OP(_random_poisson, RandomOp<PoissonParam>,
             "Samples the Poisson distribution with mean lam >= 0 (integer values, float dtype).",
             kPoisson)
    .add_alias("random_poisson");
MX_SAMPLE_OP(_random_negative_binomial, RandomOp<NegBinomialParam>,
             "Samples the negative binomial distribution: failures before the k-th success with "
             "success probability p (mean k(1-p)/p); integer values, float dtype.",
             kNB)
    .add_alias("random_negative_binomial");
MX_SAMPLE_OP(_random_generalized_negative_binomial, RandomOp<GenNegBinomialParam>,
             "Samples the generalized negative binomial distribution with mean mu and dispersion "
             "alpha (variance mu + alpha*mu^2); integer values, float dtype.",
             kGNB)
    .add_alias("random_generalized_negative_binomial");

// _random_uniform_like keeps the half-open range after rounding to data's dtype.
MX_SAMPLE_OP(_random_uniform_like, LikeOp<UniformLikeParam>,
             "Samples U[low, high) in the shape and dtype of data.",
             [](const UniformLikeParam& p) { return UniformDist(p.low, p.high); });
MX_SAMPLE_OP(_random_normal_like, LikeOp<NormalLikeParam>,
             "Samples N(loc, scale^2) in the shape and dtype of data.",
             [](const NormalLikeParam& p) { return NormalDist(p.loc, p.scale); });
MX_SAMPLE_OP(_random_exponential_like, LikeOp<ExponentialLikeParam>,
             "Samples the exponential distribution (rate lam) in the shape and dtype of data.",
             kExp);
MX_SAMPLE_OP(_random_gamma_like, LikeOp<GammaLikeParam>,
             "Samples the gamma distribution (shape alpha, scale beta) in the shape and dtype of "
             "data.",
             kGamma);
MX_SAMPLE_OP(_random_poisson_like, LikeOp<PoissonLikeParam>,
             "Samples the Poisson distribution (mean lam) in the shape and dtype of data.",
             kPoisson);
MX_SAMPLE_OP(_random_negative_binomial_like, LikeOp<NegBinomialLikeParam>,
             "Samples the negative binomial distribution (k, p) in the shape and dtype of data.",
             kNB);
MX_SAMPLE_OP(_random_generalized_negative_binomial_like, LikeOp<GenNegBinomialLikeParam>,
             "Samples the generalized negative binomial distribution (mu, alpha) in the shape and "
             "dtype of data.",
             kGNB);

// ---- _sample_<distr>: one distribution per element of the parameter arrays ----
void SampleShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  Shape p = Shape::Unknown();
  for (size_t i = 0; i < in->size(); ++i)
    MergeShape(&p, (*in)[i], StrCat(OpName(a), ": parameter ", i));
  for (auto& x : *in) x = p;
  if (!p.ndim_known()) return;
  Shape o = p;
  for (int64_t d : a.get<SampleParam>().shape) o.push_back(d);
  MergeShape(&(*out)[0], o, StrCat(OpName(a), ": output"));
}

void SampleType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i)
    MergeType(&t, (*in)[i], StrCat(OpName(a), ": parameter ", i));
  for (auto& x : *in) x = t;
  const auto& dt = a.get<SampleParam>().dtype;
  MergeType(&(*out)[0], DTypeFlag(dt ? *dt : DType::kFloat32), StrCat(OpName(a), ": output"));
}

// Checks every parameter element, then draws out.size() / n values from each of the n
// distributions, in order.
template <typename Dist>
void SampleKernel(const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  std::vector<double> p0 = in[0].ToVector<double>();
  std::vector<double> p1 =
      in.size() > 1 ? in[1].ToVector<double>() : std::vector<double>(p0.size());
  for (size_t i = 0; i < p0.size(); ++i) {
    std::string err = Dist::Check(p0[i], p1[i]);
    if (!err.empty()) Fail(a, "parameter element ", i, ": ", err);
  }
  if (out[0].size() == 0) return;
  int64_t k = out[0].size() / static_cast<int64_t>(p0.size());
  std::vector<double> v(out[0].size());
  {
    random::GeneratorGuard g(ctx.device);
    for (size_t i = 0; i < p0.size(); ++i) {
      Dist d(p0[i], p1[i]);
      for (int64_t j = 0; j < k; ++j) v[i * k + j] = d(g.gen());
    }
  }
  ConvertElements(v.data(), DType::kFloat64, out[0].data_ptr(), out[0].dtype(), v.size());
}

template <typename Dist>
Op& SampleOp(Op& op, const char* doc, std::vector<std::string> names) {
  int n = static_cast<int>(names.size());
  return op.describe(doc)
      .set_params<SampleParam>()
      .set_num_inputs(n)
      .set_input_names(std::move(names))
      .set_random()
      .set_infer_shape(SampleShape)
      .set_infer_type(SampleType)
      .set_kernel(kRef, SampleKernel<Dist>)
      .set_non_differentiable();
}

MX_SAMPLE_OP(_sample_exponential, SampleOp<ExpDist>,
             "For each element i of lam (rate, > 0), draws `shape` exponential samples; output "
             "lam.shape + shape.",
             {"lam"})
    .add_alias("sample_exponential");
MX_SAMPLE_OP(_sample_gamma, SampleOp<GammaDist>,
             "For each element i of alpha/beta (shape, scale; same shape, > 0), draws `shape` "
             "gamma samples; output alpha.shape + shape.",
             {"alpha", "beta"})
    .add_alias("sample_gamma");
MX_SAMPLE_OP(_sample_poisson, SampleOp<PoissonDist>,
             "For each element i of lam (mean, >= 0), draws `shape` Poisson samples; output "
             "lam.shape + shape.",
             {"lam"})
    .add_alias("sample_poisson");
MX_SAMPLE_OP(_sample_negative_binomial, SampleOp<NegBinomialDist>,
             "For each element i of k/p (same shape; k >= 0, p in (0, 1]), draws `shape` negative "
             "binomial samples; output k.shape + shape.",
             {"k", "p"})
    .add_alias("sample_negative_binomial");
MX_SAMPLE_OP(_sample_generalized_negative_binomial, SampleOp<GenNegBinomialDist>,
             "For each element i of mu/alpha (same shape, >= 0), draws `shape` generalized "
             "negative binomial samples; output mu.shape + shape.",
             {"mu", "alpha"})
    .add_alias("sample_generalized_negative_binomial");

// ---- _sample_multinomial ----
void MultinomialShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return;
  if (d.ndim() == 0) Fail(a, "data must have at least 1 dimension (the probabilities), got ()");
  const Shape& s = a.get<MultinomialParam>().shape;
  Shape o;
  if (d.ndim() == 1) {
    o = s.ndim() > 0 ? s : Shape{1};
  } else {
    for (int i = 0; i + 1 < d.ndim(); ++i) o.push_back(d[i]);
    for (int64_t x : s) o.push_back(x);
  }
  for (size_t k = 0; k < out->size(); ++k)
    MergeShape(&(*out)[k], o, StrCat(OpName(a), ": output ", k));
}

void MultinomialType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  const auto& p = a.get<MultinomialParam>();
  MergeType(&(*out)[0], DTypeFlag(p.dtype), StrCat(OpName(a), ": output 0"));
  if (p.get_prob) {
    MergeType(&(*out)[1], (*in)[0], StrCat(OpName(a), ": output 1"));
    MergeType(&(*in)[0], (*out)[1], StrCat(OpName(a), ": input data"));
  }
  int t = (*in)[0];
  if (t >= 0 && !IsFloatingPoint(static_cast<DType>(t)))
    Fail(a, "data must have a floating-point dtype (float16/32/64), got ",
         DTypeName(static_cast<DType>(t)));
}

void MultinomialRef(const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& prm = a.get<MultinomialParam>();
  const NDArray& data = in[0];
  int64_t K = data.shape()[data.ndim() - 1];
  if (out[0].size() == 0) return;
  if (K == 0) Fail(a, "data's last axis (the categories) is empty");
  if ((prm.dtype == DType::kUint8 && K > 256) || (prm.dtype == DType::kFloat16 && K > 2049))
    Fail(a, K, " categories do not fit dtype ", DTypeName(prm.dtype));
  int64_t N = data.size() / K, M = out[0].size() / N;
  std::vector<double> p = data.ToVector<double>(), cum(K);
  std::vector<double> idx(N * M), logp(prm.get_prob ? N * M : 0);
  random::GeneratorGuard g(ctx.device);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int64_t n = 0; n < N; ++n) {
    const double* row = p.data() + n * K;
    double acc = 0;
    int64_t last = -1;
    for (int64_t c = 0; c < K; ++c) {
      if (!(row[c] >= 0) || !std::isfinite(row[c]))
        Fail(a, "probabilities must be finite and >= 0, got ", row[c], " in row ", n);
      acc += row[c];
      cum[c] = acc;
      if (row[c] > 0) last = c;
    }
    if (last < 0) Fail(a, "row ", n, " of data has no positive probability");
    for (int64_t j = 0; j < M; ++j) {
      double t = u(g.gen()) * acc;
      int64_t c = std::upper_bound(cum.begin(), cum.end(), t) - cum.begin();
      if (c >= K) c = last;
      idx[n * M + j] = static_cast<double>(c);
      if (prm.get_prob) logp[n * M + j] = std::log(row[c]);
    }
  }
  ConvertElements(idx.data(), DType::kFloat64, out[0].data_ptr(), out[0].dtype(), idx.size());
  if (prm.get_prob)
    ConvertElements(logp.data(), DType::kFloat64, out[1].data_ptr(), out[1].dtype(), logp.size());
}

MX_REGISTER_OP(_sample_multinomial)
    .describe(
        "Draws `shape` category indices per row of data (..., K) (probabilities along the last "
        "axis; they should sum to 1): output data.shape[:-1] + shape ((1,) or shape for 1-D "
        "data), dtype int32 by default. get_prob=True adds log(p[index]) in data's dtype, "
        "differentiable w.r.t. data.")
    .add_alias("sample_multinomial")
    .set_params<MultinomialParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_num_outputs([](const OpAttrs& a) { return a.get<MultinomialParam>().get_prob ? 2 : 1; })
    .set_random()
    .set_infer_shape(MultinomialShape)
    .set_infer_type(MultinomialType)
    .set_kernel(kRef, MultinomialRef)
    .set_gradient([](GradBuilder& b, const OpAttrs& a, std::span<const GV> in,
                     std::span<const GV> out, std::span<const GV> og) {
      if (!a.get<MultinomialParam>().get_prob) return GVs{b.ZerosLike(in[0])};
      return GVs{b.Call("_backward_sample_multinomial", {og[1], in[0], out[0]})};
    });

// d/d data of sum(ograd * log(data[index])): ograd / data[index] added at each drawn index.
void MultinomialBwdRef(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  const NDArray& data = in[1];
  int64_t K = data.ndim() ? data.shape()[data.ndim() - 1] : 1;
  std::vector<double> g(data.size(), 0.0);
  if (K > 0 && data.size() > 0) {
    int64_t N = data.size() / K, M = in[2].size() / N;
    std::vector<double> og = in[0].ToVector<double>(), p = data.ToVector<double>(),
                        s = in[2].ToVector<double>();
    for (int64_t n = 0; n < N; ++n)
      for (int64_t j = 0; j < M; ++j) {
        double c = s[n * M + j];
        if (!(c >= 0 && c < K)) Fail(a, "sample index ", c, " is outside [0, ", K, ")");
        int64_t i = n * K + static_cast<int64_t>(c);
        g[i] += og[n * M + j] / p[i];
      }
  }
  ConvertElements(g.data(), DType::kFloat64, out[0].data_ptr(), out[0].dtype(), g.size());
}

MX_REGISTER_OP(_backward_sample_multinomial)
    .describe(
        "Gradient of _sample_multinomial's log-probabilities w.r.t. data from (ograd, data, "
        "sample): ograd / data[index] summed at each drawn index.")
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "data", "sample"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*in)[0], (*in)[2], "_backward_sample_multinomial: ograd");
      MergeShape(&(*in)[2], (*in)[0], "_backward_sample_multinomial: sample");
      MergeShape(&(*out)[0], (*in)[1], "_backward_sample_multinomial: output");
      MergeShape(&(*in)[1], (*out)[0], "_backward_sample_multinomial: data");
      const Shape& o = (*in)[0];
      const Shape& d = (*in)[1];
      if (o.is_known() && d.is_known() && d.ndim() > 0) {
        int64_t K = d[d.ndim() - 1], N = K ? d.Size() / K : 0;
        if (N > 0 && o.Size() % N != 0)
          Fail(a, "ograd shape ", o, " does not match data shape ", d);
      }
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_backward_sample_multinomial: output");
      MergeType(&(*in)[1], (*out)[0], "_backward_sample_multinomial: data");
      MergeType(&(*in)[0], (*in)[1], "_backward_sample_multinomial: ograd");
      (void)a;
    })
    .set_kernel(kRef, MultinomialBwdRef)
    .set_non_differentiable();

// ---- _sample_unique_zipfian ----
void ZipfianRef(const OpContext& ctx, const OpAttrs& a, std::span<const NDArray>,
                std::span<const NDArray> out) {
  const auto& p = a.get<UniqueZipfianParam>();
  int64_t rows = p.shape[0], n = p.shape[1];
  if (n > p.range_max)
    Fail(a, "shape[1] = ", n, " distinct samples exceed range_max = ", p.range_max);
  std::vector<int64_t> samples(rows * n), tries(rows, 0);
  const double log_range = std::log(static_cast<double>(p.range_max));
  random::GeneratorGuard g(ctx.device);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int64_t r = 0; r < rows; ++r) {
    std::set<int64_t> seen;
    while (static_cast<int64_t>(seen.size()) < n) {
      int64_t v = std::llround(std::exp(u(g.gen()) * log_range)) - 1;
      v = std::clamp<int64_t>(v, 0, p.range_max - 1);
      if (seen.insert(v).second) samples[r * n + static_cast<int64_t>(seen.size()) - 1] = v;
      ++tries[r];
    }
  }
  if (!samples.empty()) std::copy(samples.begin(), samples.end(), out[0].data<int64_t>());
  if (!tries.empty()) std::copy(tries.begin(), tries.end(), out[1].data<int64_t>());
}

MX_REGISTER_OP(_sample_unique_zipfian)
    .describe(
        "For each of shape[0] rows, shape[1] distinct int64 values in [0, range_max), drawn "
        "(without replacement) as round(range_max^u) - 1 with u ~ U[0, 1) (approximately "
        "log-uniform / Zipfian), and the int64 number of draws each row took, shape "
        "(shape[0],).")
    .set_params<UniqueZipfianParam>()
    .set_num_inputs(0)
    .set_num_outputs(2)
    .set_random()
    .set_infer_shape([](const OpAttrs& a, ShapeVec*, ShapeVec* out) {
      const Shape& s = a.get<UniqueZipfianParam>().shape;
      if (s.ndim() != 2) Fail(a, "shape must be 2-D (batch_size, num_sampled), got ", s);
      MergeShape(&(*out)[0], s, "_sample_unique_zipfian: output 0");
      MergeShape(&(*out)[1], Shape{s[0]}, "_sample_unique_zipfian: output 1");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec*, DTypeVec* out) {
      for (size_t k = 0; k < 2; ++k)
        MergeType(&(*out)[k], DTypeFlag(DType::kInt64), "_sample_unique_zipfian: output");
    })
    .set_kernel(kRef, ZipfianRef)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops

// ---- nd:: free functions (shape_sample_api.h) ----
namespace mxnet::nd::random {
namespace {

template <typename P>
NDArray Create(const Op& op, P p, const Shape& shape, Device device, DType dtype) {
  p.shape = shape, p.dtype = dtype;
  return Invoke(op, OpAttrs::From(op, std::move(p)), {}, device)[0];
}
template <typename P>
NDArray Like(const Op& op, P p, const NDArray& data) {
  return Call(op, OpAttrs::From(op, std::move(p)), {data})[0];
}
NDArray Sample(const Op& op, std::initializer_list<NDArray> params, const Shape& shape,
               std::optional<DType> dtype) {
  ops::SampleParam p;
  p.shape = shape, p.dtype = dtype;
  return Call(op, OpAttrs::From(op, p), params)[0];
}
float F(double x) { return static_cast<float>(x); }

}  // namespace

NDArray exponential(double lam, const Shape& shape, Device device, DType dtype) {
  ops::ExponentialParam p;
  p.lam = F(lam);
  return Create(MX_ND_OP(_random_exponential), p, shape, device, dtype);
}
NDArray gamma(double alpha, double beta, const Shape& shape, Device device, DType dtype) {
  ops::GammaParam p;
  p.alpha = F(alpha), p.beta = F(beta);
  return Create(MX_ND_OP(_random_gamma), p, shape, device, dtype);
}
NDArray poisson(double lam, const Shape& shape, Device device, DType dtype) {
  ops::PoissonParam p;
  p.lam = F(lam);
  return Create(MX_ND_OP(_random_poisson), p, shape, device, dtype);
}
NDArray negative_binomial(int k, double prob, const Shape& shape, Device device, DType dtype) {
  ops::NegBinomialParam p;
  p.k = k, p.p = F(prob);
  return Create(MX_ND_OP(_random_negative_binomial), p, shape, device, dtype);
}
NDArray generalized_negative_binomial(double mu, double alpha, const Shape& shape, Device device,
                                      DType dtype) {
  ops::GenNegBinomialParam p;
  p.mu = F(mu), p.alpha = F(alpha);
  return Create(MX_ND_OP(_random_generalized_negative_binomial), p, shape, device, dtype);
}

NDArray uniform_like(const NDArray& data, double low, double high) {
  return Like(MX_ND_OP(_random_uniform_like), ops::UniformLikeParam{F(low), F(high)}, data);
}
NDArray normal_like(const NDArray& data, double loc, double scale) {
  return Like(MX_ND_OP(_random_normal_like), ops::NormalLikeParam{F(loc), F(scale)}, data);
}
NDArray exponential_like(const NDArray& data, double lam) {
  ops::ExponentialLikeParam p;
  p.lam = F(lam);
  return Like(MX_ND_OP(_random_exponential_like), p, data);
}
NDArray gamma_like(const NDArray& data, double alpha, double beta) {
  ops::GammaLikeParam p;
  p.alpha = F(alpha), p.beta = F(beta);
  return Like(MX_ND_OP(_random_gamma_like), p, data);
}
NDArray poisson_like(const NDArray& data, double lam) {
  ops::PoissonLikeParam p;
  p.lam = F(lam);
  return Like(MX_ND_OP(_random_poisson_like), p, data);
}
NDArray negative_binomial_like(const NDArray& data, int k, double prob) {
  ops::NegBinomialLikeParam p;
  p.k = k, p.p = F(prob);
  return Like(MX_ND_OP(_random_negative_binomial_like), p, data);
}
NDArray generalized_negative_binomial_like(const NDArray& data, double mu, double alpha) {
  ops::GenNegBinomialLikeParam p;
  p.mu = F(mu), p.alpha = F(alpha);
  return Like(MX_ND_OP(_random_generalized_negative_binomial_like), p, data);
}

NDArray sample_exponential(const NDArray& lam, const Shape& shape, std::optional<DType> dtype) {
  return Sample(MX_ND_OP(_sample_exponential), {lam}, shape, dtype);
}
NDArray sample_gamma(const NDArray& alpha, const NDArray& beta, const Shape& shape,
                     std::optional<DType> dtype) {
  return Sample(MX_ND_OP(_sample_gamma), {alpha, beta}, shape, dtype);
}
NDArray sample_poisson(const NDArray& lam, const Shape& shape, std::optional<DType> dtype) {
  return Sample(MX_ND_OP(_sample_poisson), {lam}, shape, dtype);
}
NDArray sample_negative_binomial(const NDArray& k, const NDArray& p, const Shape& shape,
                                 std::optional<DType> dtype) {
  return Sample(MX_ND_OP(_sample_negative_binomial), {k, p}, shape, dtype);
}
NDArray sample_generalized_negative_binomial(const NDArray& mu, const NDArray& alpha,
                                             const Shape& shape, std::optional<DType> dtype) {
  return Sample(MX_ND_OP(_sample_generalized_negative_binomial), {mu, alpha}, shape, dtype);
}

std::vector<NDArray> sample_multinomial(const NDArray& data, const Shape& shape, bool get_prob,
                                        DType dtype) {
  const Op& op = MX_ND_OP(_sample_multinomial);
  ops::MultinomialParam p;
  p.shape = shape, p.get_prob = get_prob, p.dtype = dtype;
  NDArrayVec out = Call(op, OpAttrs::From(op, p), {data});
  return {out.begin(), out.end()};
}

std::pair<NDArray, NDArray> sample_unique_zipfian(int range_max, const Shape& shape) {
  const Op& op = MX_ND_OP(_sample_unique_zipfian);
  ops::UniqueZipfianParam p;
  p.range_max = range_max, p.shape = shape;
  NDArrayVec out = Invoke(op, OpAttrs::From(op, p), {});
  return {out[0], out[1]};
}

}  // namespace mxnet::nd::random
