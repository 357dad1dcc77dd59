// MXNet 1.9.1's NumPy-interface samplers (mx.np.random.*), float32 unless dtype says otherwise:
//   _npi_uniform(_n)(low, high): low + (high - low) * U[0, 1) (low > high is not rejected).
//   _npi_normal(_n)(loc, scale >= 0): N(loc, scale^2).
//   _npi_gamma(shape > 0, scale > 0): Gamma with density x^(k-1) e^(-x/scale).
//   _npi_gumbel(loc, scale >= 0): loc - scale * log(-log U).
//   _npi_logistic(loc, scale >= 0): loc + scale * log(U / (1 - U)).
//   _npi_exponential(scale >= 0, default 1): -scale * log(1 - U).
//   _npi_rayleigh(scale >= 0, default 1): scale * sqrt(-2 log(1 - U)).
//   _npi_pareto(a > 0): Lomax (NumPy's pareto): (1 - U)^(-1/a) - 1.
//   _npi_powerd(a > 0): U^(1/a).
//   _npi_weibull(a > 0): (-log(1 - U))^(1/a).
//   _npi_bernoulli(prob in [0, 1] or logit, is_logit): 1 with probability prob / sigmoid(logit);
//     dtype bool/float16/float32/float64/int32/uint8.
//   _npi_multinomial(n, pvals or tensor a): int64 counts, shape size + (k,); the last category
//     takes 1 - sum(pvals[:-1]) (must be >= 0).
// A parameter given as None is the next tensor input (broadcast with the others to the output;
// its dtype does not matter). Output shape: size (the inputs must broadcast to it), else the
// inputs' broadcast shape, () without inputs; the _n variants: size + broadcast shape. Draws
// come from the global generator of the output device (ndarray/random.h: seeded runs repeat);
// values differ from MXNet's (another generator), distributions are the same.
// Non-differentiable here (MXNet 1.9.1 has reparameterized gradients for normal/uniform's
// tensor loc/scale/low/high; not implemented).
// Sources: src/operator/numpy/random/np_*_op.{h,cc} (MXNet 1.9.1); NumPy random docs.
#include <cmath>
#include <limits>
#include <random>

#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/numpy/shape_np_create_api.h"
#include "ndarray/random.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;
constexpr float kNone = std::numeric_limits<float>::quiet_NaN();

// Number of tensor parameters (None attributes).
template <class S>
int NumTensors(const OpAttrs& a) {
  const auto& p = a.get<NpDistParam<S>>();
  return (p.a ? 0 : 1) + (S::kB != nullptr && !p.b ? 1 : 0);
}

template <class S>
std::vector<std::string> InputNames(const OpAttrs& a) {
  std::vector<std::string> n;
  for (int i = 0; i < NumTensors<S>(a); ++i) n.push_back(StrCat("input", i + 1));
  return n;
}

// NumPy broadcast of `x` into `acc` (right-aligned); fails naming both shapes.
void Broadcast(const OpAttrs& a, std::vector<int64_t>* acc, const Shape& x) {
  std::vector<int64_t> r(std::max<size_t>(acc->size(), x.ndim()), 1);
  for (size_t i = 0; i < r.size(); ++i) {
    int64_t u = i < acc->size() ? (*acc)[acc->size() - 1 - i] : 1;
    int64_t v = i < static_cast<size_t>(x.ndim()) ? x[x.ndim() - 1 - i] : 1;
    if (u != v && u != 1 && v != 1)
      Fail(a, "operands could not be broadcast together with shapes ", Shape(*acc).ToString(), " ",
           x.ToString());
    r[r.size() - 1 - i] = u == 1 ? v : u;
  }
  *acc = r;
}

template <class P, bool kN>
void DistShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  const auto& p = a.get<P>();
  std::vector<int64_t> b;
  for (const Shape& s : *in) {
    if (!s.ndim_known()) return;
    Broadcast(a, &b, s);
  }
  if (kN) {
    std::vector<int64_t> o;
    if (p.size)
      for (int i = 0; i < p.size->ndim(); ++i) o.push_back((*p.size)[i]);
    o.insert(o.end(), b.begin(), b.end());
    MergeShape(&(*out)[0], Shape(o), StrCat(OpName(a), ": output"));
    return;
  }
  if (p.size) {
    std::vector<int64_t> chk;
    for (int i = 0; i < p.size->ndim(); ++i) chk.push_back((*p.size)[i]);
    std::vector<int64_t> joined = chk;
    Broadcast(a, &joined, Shape(b));
    if (joined != chk)
      Fail(a, "parameters of shape ", Shape(b).ToString(), " do not broadcast to size ",
           p.size->ToString());
    MergeShape(&(*out)[0], *p.size, StrCat(OpName(a), ": output"));
    return;
  }
  MergeShape(&(*out)[0], Shape(b), StrCat(OpName(a), ": output"));
}

template <class S>
void DistType(const OpAttrs& a, DTypeVec*, DTypeVec* out) {
  MergeType(&(*out)[0], DTypeFlag(a.get<NpDistParam<S>>().dtype), StrCat(OpName(a), ": output"));
}

// One parameter over the output: a scalar, or a tensor with right-aligned broadcast strides.
struct ParamSource {
  double scalar = 0;
  std::vector<double> values;
  std::vector<int64_t> strides;  // per output dim; 0 where broadcast
};

ParamSource MakeSource(std::optional<float> attr, const NDArray* t, const Shape& os) {
  ParamSource s;
  if (attr) {
    s.scalar = *attr;
    return s;
  }
  s.values = t->ToVector<double>();
  const Shape& ts = t->shape();
  s.strides.assign(os.ndim(), 0);
  int64_t st = 1;
  for (int i = ts.ndim() - 1, j = os.ndim() - 1; i >= 0; --i, --j) {
    if (ts[i] != 1) s.strides[j] = st;
    st *= ts[i];
  }
  return s;
}

template <class S>
void DistKernel(const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = a.get<NpDistParam<S>>();
  const Shape& os = out[0].shape();
  int k = 0;
  ParamSource pa = MakeSource(p.a, p.a ? nullptr : &in[k], os);
  if (!p.a) ++k;
  ParamSource pb;
  if constexpr (S::kB != nullptr) pb = MakeSource(p.b, p.b ? nullptr : &in[k], os);
  auto check = [&](const ParamSource& s, bool first) {
    const char* name = first ? S::kA : S::kB;
    auto bad = [&](double v) {
      Fail(a, name, " must satisfy ", S::kRule, (first ? "" : " (second parameter)"), ", got ",
           PyFloatRepr(v));
    };
    if (s.values.empty()) {
      if (!S::Valid(first, s.scalar)) bad(s.scalar);
    } else {
      for (double v : s.values)
        if (!S::Valid(first, v)) bad(v);
    }
  };
  check(pa, true);
  if constexpr (S::kB != nullptr) check(pb, false);
  int64_t n = out[0].size();
  if (n == 0) return;
  std::vector<double> v(n);
  std::vector<int64_t> idx(os.ndim(), 0);
  int64_t oa = 0, ob = 0;
  random::GeneratorGuard g(ctx.device);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  for (int64_t i = 0; i < n; ++i) {
    double x = pa.values.empty() ? pa.scalar : pa.values[oa];
    double y = pb.values.empty() ? pb.scalar : pb.values[ob];
    v[i] = S::Draw(g.gen(), uni, x, y);
    for (int d = os.ndim() - 1; d >= 0; --d) {  // next multi-index, parameter offsets
      if (!pa.strides.empty()) oa += pa.strides[d];
      if (!pb.strides.empty()) ob += pb.strides[d];
      if (++idx[d] < os[d]) break;
      if (!pa.strides.empty()) oa -= pa.strides[d] * os[d];
      if (!pb.strides.empty()) ob -= pb.strides[d] * os[d];
      idx[d] = 0;
    }
  }
  ConvertElements(v.data(), DType::kFloat64, out[0].data_ptr(), out[0].dtype(), n);
}

using Gen = std::mt19937_64;
using Uni = std::uniform_real_distribution<double>;
// U in (0, 1) (no log(0)).
double OpenU(Gen& g, Uni& u) {
  double x;
  do x = u(g);
  while (x == 0.0);
  return x;
}

#define MX_NP_DIST_TRAITS(Name, A, ADef, AReq, B, Ctx, DT, Rule) \
  struct Name {                                                  \
    static constexpr const char* kA = A;                         \
    static constexpr float kADefault = ADef;                     \
    static constexpr bool kARequired = AReq;                     \
    static constexpr const char* kB = B;                         \
    static constexpr bool kHasCtx = Ctx, kHasDType = DT;         \
    static constexpr const char* kRule = Rule;                   \
    static bool Valid(bool first, double v);                     \
    static double Draw(Gen& g, Uni& u, double x, double y);      \
  };

MX_NP_DIST_TRAITS(UniformS, "low", kNone, true, "high", true, true, "finite values")
MX_NP_DIST_TRAITS(NormalS, "loc", kNone, true, "scale", true, true, "scale >= 0")
MX_NP_DIST_TRAITS(GammaS, "shape", kNone, true, "scale", true, true, "> 0")
MX_NP_DIST_TRAITS(GumbelS, "loc", kNone, true, "scale", true, false, "scale >= 0")
MX_NP_DIST_TRAITS(LogisticS, "loc", kNone, true, "scale", true, false, "scale >= 0")
MX_NP_DIST_TRAITS(ExponentialS, "scale", 1.0f, false, nullptr, true, false, ">= 0")
MX_NP_DIST_TRAITS(RayleighS, "scale", 1.0f, false, nullptr, true, false, ">= 0")
MX_NP_DIST_TRAITS(ParetoS, "a", kNone, false, nullptr, true, false, "> 0")
MX_NP_DIST_TRAITS(PowerdS, "a", kNone, false, nullptr, false, false, "> 0")
MX_NP_DIST_TRAITS(WeibullS, "a", kNone, false, nullptr, true, false, "> 0")
#undef MX_NP_DIST_TRAITS

bool UniformS::Valid(bool, double) { return true; }
double UniformS::Draw(Gen& g, Uni& u, double lo, double hi) { return lo + (hi - lo) * u(g); }
bool NormalS::Valid(bool first, double v) { return first || v >= 0; }
double NormalS::Draw(Gen& g, Uni&, double loc, double scale) {
  return loc + scale * std::normal_distribution<double>(0.0, 1.0)(g);
}
bool GammaS::Valid(bool, double v) { return v > 0; }
double GammaS::Draw(Gen& g, Uni&, double k, double scale) {
  return std::gamma_distribution<double>(k, scale)(g);
}
bool GumbelS::Valid(bool first, double v) { return first || v >= 0; }
double GumbelS::Draw(Gen& g, Uni& u, double loc, double scale) {
  return loc - scale * std::log(-std::log(OpenU(g, u)));
}
bool LogisticS::Valid(bool first, double v) { return first || v >= 0; }
double LogisticS::Draw(Gen& g, Uni& u, double loc, double scale) {
  double x = OpenU(g, u);
  return loc + scale * std::log(x / (1 - x));
}
bool ExponentialS::Valid(bool, double v) { return v >= 0; }
double ExponentialS::Draw(Gen& g, Uni& u, double scale, double) {
  return -scale * std::log(OpenU(g, u));
}
bool RayleighS::Valid(bool, double v) { return v >= 0; }
double RayleighS::Draw(Gen& g, Uni& u, double scale, double) {
  return scale * std::sqrt(-2 * std::log(OpenU(g, u)));
}
bool ParetoS::Valid(bool, double v) { return v > 0; }
double ParetoS::Draw(Gen& g, Uni& u, double a, double) {
  return std::exp(-std::log(OpenU(g, u)) / a) - 1;
}
bool PowerdS::Valid(bool, double v) { return v > 0; }
double PowerdS::Draw(Gen& g, Uni& u, double a, double) { return std::pow(OpenU(g, u), 1 / a); }
bool WeibullS::Valid(bool, double v) { return v > 0; }
double WeibullS::Draw(Gen& g, Uni& u, double a, double) {
  return std::pow(-std::log(OpenU(g, u)), 1 / a);
}

#define MX_NP_DIST(Name, S, kN, doc)                                      \
  MX_REGISTER_OP(Name)                                                    \
      .describe(doc)                                                      \
      .set_params<NpDistParam<S>>()                                       \
      .set_num_inputs(NumTensors<S>)                                      \
      .set_input_names(InputNames<S>)                                     \
      .set_random()                                                       \
      .set_infer_shape(DistShape<NpDistParam<S>, kN>)                     \
      .set_infer_type(DistType<S>)                                        \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, DistKernel<S>) \
      .set_non_differentiable()

MX_NP_DIST(_npi_uniform, UniformS, false, "Samples U[low, high) (mx.np.random.uniform).");
MX_NP_DIST(_npi_uniform_n, UniformS, true, "Samples U[low, high); shape size + broadcast.");
MX_NP_DIST(_npi_normal, NormalS, false, "Samples N(loc, scale^2) (mx.np.random.normal).");
MX_NP_DIST(_npi_normal_n, NormalS, true, "Samples N(loc, scale^2); shape size + broadcast.");
MX_NP_DIST(_npi_gamma, GammaS, false, "Samples Gamma(shape, scale) (mx.np.random.gamma).");
MX_NP_DIST(_npi_gumbel, GumbelS, false, "Samples Gumbel(loc, scale) (mx.np.random.gumbel).");
MX_NP_DIST(_npi_logistic, LogisticS, false, "Samples Logistic(loc, scale).");
MX_NP_DIST(_npi_exponential, ExponentialS, false, "Samples Exponential(scale).");
MX_NP_DIST(_npi_rayleigh, RayleighS, false, "Samples Rayleigh(scale).");
MX_NP_DIST(_npi_pareto, ParetoS, false, "Samples Lomax(a) (NumPy's pareto).");
MX_NP_DIST(_npi_powerd, PowerdS, false, "Samples the power distribution U^(1/a).");
MX_NP_DIST(_npi_weibull, WeibullS, false, "Samples Weibull(a) (scale 1).");

#undef MX_NP_DIST

// ---- _npi_bernoulli ----
bool BernoulliTensor(const NpBernoulliParam& p) { return !(p.is_logit ? p.logit : p.prob); }

MX_REGISTER_OP(_npi_bernoulli)
    .describe("Samples 1 with probability prob or sigmoid(logit), else 0 (mx.np.random.bernoulli).")
    .set_params<NpBernoulliParam>()
    .set_num_inputs([](const OpAttrs& a) {
      return BernoulliTensor(a.get<NpBernoulliParam>()) ? 1 : 0;
    })
    .set_input_names([](const OpAttrs& a) {
      return BernoulliTensor(a.get<NpBernoulliParam>()) ? std::vector<std::string>{"input1"}
                                                        : std::vector<std::string>{};
    })
    .set_random()
    .set_infer_shape(DistShape<NpBernoulliParam, false>)
    .set_infer_type([](const OpAttrs& a, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], DTypeFlag(a.get<NpBernoulliParam>().dtype), "_npi_bernoulli: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<NpBernoulliParam>();
                  const Shape& os = out[0].shape();
                  std::optional<float> attr = p.is_logit ? p.logit : p.prob;
                  ParamSource s = MakeSource(attr, attr ? nullptr : &in[0], os);
                  if (!p.is_logit) {
                    std::vector<double> all = s.values;
                    if (all.empty()) all.push_back(s.scalar);
                    for (double v : all)
                      if (!(v >= 0 && v <= 1))
                        Fail(a, "prob must lie in [0, 1], got ", PyFloatRepr(v));
                  }
                  int64_t n = out[0].size();
                  if (n == 0) return;
                  std::vector<double> v(n);
                  std::vector<int64_t> idx(os.ndim(), 0);
                  int64_t off = 0;
                  random::GeneratorGuard g(ctx.device);
                  std::uniform_real_distribution<double> uni(0.0, 1.0);
                  for (int64_t i = 0; i < n; ++i) {
                    double x = s.values.empty() ? s.scalar : s.values[off];
                    double pr = p.is_logit ? 1 / (1 + std::exp(-x)) : x;
                    v[i] = uni(g.gen()) < pr ? 1.0 : 0.0;
                    for (int d = os.ndim() - 1; d >= 0 && !s.strides.empty(); --d) {
                      off += s.strides[d];
                      if (++idx[d] < os[d]) break;
                      off -= s.strides[d] * os[d];
                      idx[d] = 0;
                    }
                  }
                  ConvertElements(v.data(), DType::kFloat64, out[0].data_ptr(), out[0].dtype(), n);
                })
    .set_non_differentiable();

// ---- _npi_multinomial ----
MX_REGISTER_OP(_npi_multinomial)
    .describe("Counts of n draws over the categories of pvals (mx.np.random.multinomial).")
    .set_params<NpMultinomialParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<NpMultinomialParam>().pvals ? 0 : 1; })
    .set_input_names([](const OpAttrs& a) {
      return a.get<NpMultinomialParam>().pvals ? std::vector<std::string>{}
                                               : std::vector<std::string>{"a"};
    })
    .set_random()
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const auto& p = a.get<NpMultinomialParam>();
      int64_t k;
      if (p.pvals) {
        k = static_cast<int64_t>(p.pvals->size());
      } else {
        const Shape& s = (*in)[0];
        if (!s.ndim_known()) return;
        if (s.ndim() != 1) Fail(a, "pvals (input a) must be 1-D, got shape ", s.ToString());
        k = s[0];
      }
      std::vector<int64_t> o;
      if (p.size)
        for (int i = 0; i < p.size->ndim(); ++i) o.push_back((*p.size)[i]);
      o.push_back(k);
      MergeShape(&(*out)[0], Shape(o), "_npi_multinomial: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], static_cast<int>(DType::kInt64), "_npi_multinomial: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<NpMultinomialParam>();
                  std::vector<double> pv = p.pvals ? *p.pvals : in[0].ToVector<double>();
                  double head = 0;
                  for (size_t i = 0; i < pv.size(); ++i) {
                    if (pv[i] < 0) Fail(a, "pvals must be >= 0, got ", PyFloatRepr(pv[i]));
                    if (i + 1 < pv.size()) head += pv[i];
                  }
                  if (head > 1 + 1e-12)
                    Fail(a, "sum(pvals[:-1]) must be <= 1, got ", PyFloatRepr(head));
                  int64_t k = pv.size(), n = out[0].size();
                  std::vector<int64_t> v(n, 0);
                  if (k > 0) {
                    random::GeneratorGuard g(ctx.device);
                    std::uniform_real_distribution<double> uni(0.0, 1.0);
                    for (int64_t r = 0; r < n / k; ++r)
                      for (int t = 0; t < p.n; ++t) {
                        double u = uni(g.gen()), c = 0;
                        int64_t j = 0;
                        for (; j < k - 1; ++j) {
                          c += pv[j];
                          if (u < c) break;
                        }
                        ++v[r * k + j];
                      }
                  }
                  if (n > 0)
                    ConvertElements(v.data(), DType::kInt64, out[0].data_ptr(), out[0].dtype(), n);
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
