// MXNet 1.9.1's contrib signal ops:
//   _contrib_fft(data (..., d)) -> (..., 2d): the unnormalized DFT X_k = sum_j x_j e^{-2 pi i jk/d}
//     of each row along the last axis, as [re0, im0, re1, im1, ...]
//     (src/operator/contrib/fft-inl.h).
//   _contrib_ifft(data (..., 2d)) -> (..., d): the real part of the unnormalized inverse DFT
//     sum_k z_k e^{+2 pi i jk/d} of interleaved complex rows (no 1/d factor: MXNet's ifft(fft(x))
//     is d * x). Gradients: fft's is ifft of the head gradient, ifft's is fft of it (exact).
//   _contrib_count_sketch(data (..., d), h (1, d), s (1, d), out_dim=k) -> (..., k):
//     out[r, h[i]] += s[i] * data[r, i] (src/operator/contrib/count_sketch-inl.h). Gradient:
//     data only, d data[r, i] = s[i] * ograd[r, h[i]].
//   _contrib_hawkesll(lda (N, K), alpha (K,), beta (K,), state (N, K), lags (N, T),
//     marks (N, T) int32, valid_length (N,), max_time (N,)) -> (loglike (N,), out_state (N, K)):
//     log-likelihood of a marked self-exciting Hawkes process with exponential kernels
//     (src/operator/contrib/hawkes_ll-inl.h). Per sample, points j < valid_length at times
//     t_j = sum of lags with marks c_j; for each mark k with state s_k (from `state`) and last
//     time l_k (from 0): at a point of mark k, d = t - l_k, e = exp(-beta_k d),
//     ll += log(lda_k + alpha_k beta_k s_k e) - lda_k d - alpha_k s_k (1 - e), s_k = 1 + s_k e,
//     l_k = t; finally d = max_time - l_k, e = exp(-beta_k d), ll -= lda_k d + alpha_k s_k (1 - e)
//     and out_state_k = e s_k. Gradients for lda, alpha, beta and state (forward-mode derivatives
//     per (sample, mark): the marks are independent processes).
//
// Differences from MXNet 1.9.1: fft, ifft and count_sketch run on CPU here (MXNet: GPU only) for
// any rank >= 1 (fft/ifft) or >= 2 (count_sketch) (MXNet: 2-D or 4-D); an odd last axis for
// ifft, an h value outside [0, out_dim), a hawkesll mark outside [0, K) or valid_length > T are
// errors (MXNet reads or writes out of bounds). hawkesll's gradient is exact for every input
// MXNet differentiates and also for `state` (MXNet leaves that gradient unwritten) and includes
// the head gradient of out_state (MXNet ignores it); lags, marks, valid_length and max_time get
// none (as MXNet).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <numbers>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/contrib/nn_contrib_params.h"
#include "ndarray/ops/nn/nn_util.h"

namespace mxnet::ops {

std::string FFTParam::Validate() const {
  if (compute_size < 1) return StrCat("attribute compute_size must be >= 1, got ", compute_size);
  return "";
}
std::string CountSketchParam::Validate() const {
  if (out_dim < 1) return StrCat("attribute out_dim must be >= 1, got ", out_dim);
  if (processing_batch_size < 1)
    return StrCat("attribute processing_batch_size must be >= 1, got ", processing_batch_size);
  return "";
}

namespace nn {
namespace {

std::vector<double> V(const NDArray& a) { return a.ToVector<double>(); }
void Store(const NDArray& out, const std::vector<double>& v) {
  NDArray::FromVector(v, out.shape(), cpu(), out.dtype()).copyto(out);
}

void FloatType(std::string_view op, const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  const std::vector<std::string> names = attrs.op()->InputNames(attrs);
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i) MergeType(&t, (*in)[i], StrCat(op, ": input ", names[i]));
  for (auto x : *out) MergeType(&t, x, StrCat(op, ": output"));
  if (t >= 0) RequireFloat(op, "input " + names[0], static_cast<DType>(t));
  for (auto& x : *in) x = t;
  for (auto& x : *out) x = t;
}

// ---- fft / ifft ----

constexpr const char* kFFT = "_contrib_fft";
constexpr const char* kIFFT = "_contrib_ifft";

// cos/sin(2 pi m / d), m < d.
void Twiddles(int64_t d, std::vector<double>* c, std::vector<double>* s) {
  c->resize(d);
  s->resize(d);
  for (int64_t m = 0; m < d; ++m) {
    const double a = 2 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(d);
    (*c)[m] = std::cos(a);
    (*s)[m] = std::sin(a);
  }
}

void FFTRef(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
            std::span<const NDArray> out) {
  const Shape& sh = in[0].shape();
  const int64_t d = sh[sh.ndim() - 1], rows = d ? in[0].size() / d : 0;
  std::vector<double> c, s;
  Twiddles(d, &c, &s);
  const std::vector<double> x = V(in[0]);
  std::vector<double> y(static_cast<size_t>(rows * 2 * d));
  ParallelFor(
      rows,
      [&](int64_t r) {
        for (int64_t k = 0; k < d; ++k) {
          double re = 0, im = 0;
          for (int64_t j = 0; j < d; ++j) {
            const int64_t m = (j * k) % d;
            re += x[r * d + j] * c[m];
            im -= x[r * d + j] * s[m];
          }
          y[(r * d + k) * 2] = re;
          y[(r * d + k) * 2 + 1] = im;
        }
      },
      1);
  Store(out[0], y);
}

void IFFTRef(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
             std::span<const NDArray> out) {
  const Shape& sh = in[0].shape();
  const int64_t d = sh[sh.ndim() - 1] / 2, rows = d ? in[0].size() / (2 * d) : 0;
  std::vector<double> c, s;
  Twiddles(d, &c, &s);
  const std::vector<double> z = V(in[0]);
  std::vector<double> y(static_cast<size_t>(rows * d));
  ParallelFor(
      rows,
      [&](int64_t r) {
        for (int64_t j = 0; j < d; ++j) {
          double re = 0;
          for (int64_t k = 0; k < d; ++k) {
            const int64_t m = (j * k) % d;
            re += z[(r * d + k) * 2] * c[m] - z[(r * d + k) * 2 + 1] * s[m];
          }
          y[r * d + j] = re;
        }
      },
      1);
  Store(out[0], y);
}

void FFTShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return;
  if (d.ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, kFFT,
             ": data must have at least 1 dimension (..., d), got ", d.ToString());
  Shape o = d;
  if (o[o.ndim() - 1] >= 0) o[o.ndim() - 1] *= 2;
  (*out)[0] = o;
}

void IFFTShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return;
  if (d.ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, kIFFT,
             ": data must have at least 1 dimension (..., 2 * d), got ", d.ToString());
  const int64_t last = d[d.ndim() - 1];
  if (last >= 0 && last % 2 != 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, kIFFT, ": data of shape ", d.ToString(),
             " has an odd last axis ", last, "; it must hold interleaved (real, imaginary) pairs");
  Shape o = d;
  if (last >= 0) o[o.ndim() - 1] = last / 2;
  (*out)[0] = o;
}

FGradient Through(std::string op) {
  return [op](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue>,
              std::span<const GradValue>, std::span<const GradValue> og) {
    return std::vector<GradValue>{b.Apply(OpRegistry::Get(op), MakeAttrs(op, attrs.get<FFTParam>()),
                                          std::vector<GradValue>{og[0]})[0]};
  };
}

MX_REGISTER_OP(_contrib_fft)
    .describe(
        "Unnormalized DFT of each row along the last axis of real data (..., d): (..., 2d) "
        "interleaved [re0, im0, re1, im1, ...].")
    .set_params<FFTParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(FFTShape)
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      FloatType(kFFT, a, in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, FFTRef)
    .set_gradient(Through(kIFFT), false, false);

MX_REGISTER_OP(_contrib_ifft)
    .describe(
        "Real part of the unnormalized inverse DFT of interleaved complex rows (..., 2d): "
        "(..., d) (no 1/d factor).")
    .set_params<FFTParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(IFFTShape)
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      FloatType(kIFFT, a, in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, IFFTRef)
    .set_gradient(Through(kFFT), false, false);

// ---- count_sketch ----

constexpr const char* kCS = "_contrib_count_sketch";

// h/s: d entries (MXNet: shape (1, d)); unknown ones become (1, d).
void HashShape(std::string_view op, std::string_view name, Shape* h, int64_t d) {
  if (h->ndim_known() && h->is_known() && d >= 0 && h->Size() != d)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": input ", name, " has shape ", h->ToString(),
             " but must hold one entry per input feature: (1, ", d, ")");
  if (!h->ndim_known()) *h = Shape{1, d};
}

void CSShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape& x = (*in)[0];
  if (!x.ndim_known()) return;
  if (x.ndim() < 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, kCS,
             ": data must have at least 2 dimensions (N, d), got ", x.ToString());
  const int64_t d = x[x.ndim() - 1];
  HashShape(kCS, "h", &(*in)[1], d);
  HashShape(kCS, "s", &(*in)[2], d);
  Shape o = x;
  o[o.ndim() - 1] = attrs.get<CountSketchParam>().out_dim;
  (*out)[0] = o;
}

// The bucket of every feature, checked against out_dim.
std::vector<int64_t> Buckets(std::string_view op, const NDArray& h, int out_dim) {
  const std::vector<double> hv = V(h);
  std::vector<int64_t> b(hv.size());
  for (size_t i = 0; i < hv.size(); ++i) {
    if (!(hv[i] >= 0 && hv[i] < out_dim) || hv[i] != std::floor(hv[i]))
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": h[", i, "] = ", hv[i],
               " is not an integer in [0, out_dim = ", out_dim, ")");
    b[i] = static_cast<int64_t>(hv[i]);
  }
  return b;
}

void CSRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
           std::span<const NDArray> out) {
  const int k = attrs.get<CountSketchParam>().out_dim;
  const int64_t d = in[0].shape()[in[0].ndim() - 1], rows = d ? in[0].size() / d : 0;
  const std::vector<int64_t> h = Buckets(kCS, in[1], k);
  const std::vector<double> x = V(in[0]), s = V(in[2]);
  std::vector<double> y(static_cast<size_t>(out[0].size()), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < d; ++i) y[r * k + h[i]] += s[i] * x[r * d + i];
  Store(out[0], y);
}

void CSBackwardRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const int k = attrs.get<CountSketchParam>().out_dim;
  const int64_t d = out[0].shape()[out[0].ndim() - 1], rows = d ? out[0].size() / d : 0;
  const std::vector<int64_t> h = Buckets("_backward_count_sketch", in[1], k);
  const std::vector<double> g = V(in[0]), s = V(in[2]);
  std::vector<double> dx(static_cast<size_t>(out[0].size()));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < d; ++i) dx[r * d + i] = s[i] * g[r * k + h[i]];
  Store(out[0], dx);
}

MX_REGISTER_OP(_contrib_count_sketch)
    .describe(
        "Count sketch of data (..., d) into (..., out_dim): out[r, h[i]] += s[i] * data[r, i] "
        "with buckets h and signs s of shape (1, d).")
    .set_params<CountSketchParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"data", "h", "s"})
    .set_infer_shape(CSShape)
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      FloatType(kCS, a, in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CSRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          GradValue dx = b.Apply(OpRegistry::Get("_backward_count_sketch"),
                                 MakeAttrs("_backward_count_sketch", attrs.get<CountSketchParam>()),
                                 std::vector<GradValue>{og[0], in[1], in[2]})[0];
          return std::vector<GradValue>{dx, GradValue{}, GradValue{}};
        },
        true, false);

MX_REGISTER_OP(_backward_count_sketch)
    .describe("Data gradient of _contrib_count_sketch from the head gradient, h and s (internal).")
    .set_params<CountSketchParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "h", "s"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape &g = (*in)[0], &h = (*in)[1];
      if (!g.ndim_known() || !h.ndim_known()) return;
      const int k = attrs.get<CountSketchParam>().out_dim;
      if (g.ndim() < 2 || (g[g.ndim() - 1] >= 0 && g[g.ndim() - 1] != k))
        MX_THROW(absl::StatusCode::kInvalidArgument,
                 "_backward_count_sketch: ograd must be (..., out_dim = ", k, "), got ",
                 g.ToString());
      Shape o = g;
      o[o.ndim() - 1] = h.is_known() ? h.Size() : -1;
      (*out)[0] = o;
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      FloatType("_backward_count_sketch", a, in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CSBackwardRef)
    .set_non_differentiable();

// ---- hawkesll ----

constexpr const char* kHawkes = "_contrib_hawkesll";

// A value and its derivatives with respect to (lda_k, alpha_k, beta_k, state_k).
struct Dual {
  double v = 0, d[4] = {0, 0, 0, 0};
};
Dual operator+(Dual a, const Dual& b) {
  a.v += b.v;
  for (int i = 0; i < 4; ++i) a.d[i] += b.d[i];
  return a;
}
Dual operator-(Dual a, const Dual& b) {
  a.v -= b.v;
  for (int i = 0; i < 4; ++i) a.d[i] -= b.d[i];
  return a;
}
Dual operator*(const Dual& a, const Dual& b) {
  Dual r;
  r.v = a.v * b.v;
  for (int i = 0; i < 4; ++i) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
  return r;
}
Dual Const(double v) { return Dual{v, {0, 0, 0, 0}}; }
Dual Var(double v, int i) {
  Dual r{v, {0, 0, 0, 0}};
  r.d[i] = 1;
  return r;
}
Dual Exp(const Dual& a) {
  Dual r;
  r.v = std::exp(a.v);
  for (int i = 0; i < 4; ++i) r.d[i] = r.v * a.d[i];
  return r;
}
Dual Log(const Dual& a) {
  Dual r;
  r.v = std::log(a.v);
  for (int i = 0; i < 4; ++i) r.d[i] = a.d[i] / a.v;
  return r;
}

struct HawkesGeom {
  int64_t N, K, T;
};

// Points of sample n: min(T, ceil(valid_length)) after the range check.
int64_t Points(double vl, int64_t T, int64_t n) {
  if (vl > static_cast<double>(T))
    MX_THROW(absl::StatusCode::kInvalidArgument, kHawkes, ": valid_length[", n, "] = ", vl,
             " exceeds the number of points per sample T = ", T);
  return vl > 0 ? static_cast<int64_t>(std::ceil(vl)) : 0;
}

// Log-likelihood share and final state of mark k of sample n, with derivatives.
void HawkesMark(const HawkesGeom& g, int64_t n, int64_t k, const std::vector<double>& lda,
                const std::vector<double>& alpha, const std::vector<double>& beta,
                const std::vector<double>& state, const std::vector<double>& lags,
                const std::vector<int64_t>& marks, int64_t points, double max_time, Dual* ll,
                Dual* st_out) {
  const Dual mu = Var(lda[n * g.K + k], 0), a = Var(alpha[k], 1), b = Var(beta[k], 2);
  Dual st = Var(state[n * g.K + k], 3), acc = Const(0);
  double t = 0, last = 0;
  for (int64_t j = 0; j < points; ++j) {
    t += lags[n * g.T + j];
    if (marks[n * g.T + j] != k) continue;
    const Dual d = Const(t - last);
    const Dual e = Exp(Const(0) - b * d);
    const Dual rate = mu + a * b * st * e;
    acc = acc + Log(rate) - mu * d - a * st * (Const(1) - e);
    st = Const(1) + st * e;
    last = t;
  }
  const Dual d = Const(max_time - last);
  const Dual e = Exp(Const(0) - b * d);
  *ll = acc - mu * d - a * st * (Const(1) - e);
  *st_out = e * st;
}

struct HawkesInputs {
  HawkesGeom g;
  std::vector<double> lda, alpha, beta, state, lags, vl, max_time;
  std::vector<int64_t> marks;
  std::vector<int64_t> points;
};

HawkesInputs ReadHawkes(std::span<const NDArray> in) {
  HawkesInputs h;
  h.g = {in[4].shape()[0], in[0].shape()[1], in[4].shape()[1]};
  h.lda = V(in[0]), h.alpha = V(in[1]), h.beta = V(in[2]), h.state = V(in[3]), h.lags = V(in[4]);
  h.vl = V(in[6]), h.max_time = V(in[7]);
  const std::vector<double> m = V(in[5]);
  h.marks.resize(m.size());
  for (int64_t n = 0; n < h.g.N; ++n) {
    h.points.push_back(Points(h.vl[n], h.g.T, n));
    for (int64_t j = 0; j < h.g.T; ++j) {
      const double c = m[n * h.g.T + j];
      if (j < h.points[n] && !(c >= 0 && c < static_cast<double>(h.g.K)))
        MX_THROW(absl::StatusCode::kInvalidArgument, kHawkes, ": marks[", n, ", ", j, "] = ", c,
                 " is outside [0, K = ", h.g.K, ")");
      h.marks[n * h.g.T + j] = static_cast<int64_t>(c);
    }
  }
  return h;
}

void HawkesRef(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  const HawkesInputs h = ReadHawkes(in);
  std::vector<double> ll(h.g.N, 0.0), st(h.g.N * h.g.K);
  for (int64_t n = 0; n < h.g.N; ++n)
    for (int64_t k = 0; k < h.g.K; ++k) {
      Dual l, s;
      HawkesMark(h.g, n, k, h.lda, h.alpha, h.beta, h.state, h.lags, h.marks, h.points[n],
                 h.max_time[n], &l, &s);
      ll[n] += l.v;
      st[n * h.g.K + k] = s.v;
    }
  Store(out[0], ll);
  Store(out[1], st);
}

// _backward_hawkesll(ograd_ll, ograd_state, lda, alpha, beta, state, lags, marks, valid_length,
// max_time) -> (d lda, d alpha, d beta, d state)
void HawkesBackwardRef(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  const HawkesInputs h = ReadHawkes(in.subspan(2));
  const std::vector<double> gl = V(in[0]), gs = V(in[1]);
  const int64_t N = h.g.N, K = h.g.K;
  std::vector<double> dmu(N * K), da(K, 0.0), db(K, 0.0), ds(N * K);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) {
      Dual l, s;
      HawkesMark(h.g, n, k, h.lda, h.alpha, h.beta, h.state, h.lags, h.marks, h.points[n],
                 h.max_time[n], &l, &s);
      const double wl = gl[n], ws = gs[n * K + k];
      auto grad = [&](int i) { return wl * l.d[i] + ws * s.d[i]; };
      dmu[n * K + k] = grad(0);
      da[k] += grad(1);
      db[k] += grad(2);
      ds[n * K + k] = grad(3);
    }
  Store(out[0], dmu);
  Store(out[1], da);
  Store(out[2], db);
  Store(out[3], ds);
}

const char* const kHawkesNames[] = {"lda",  "alpha", "beta",         "state",
                                    "lags", "marks", "valid_length", "max_time"};

void HawkesShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  static const int kNdim[] = {2, 1, 1, 2, 2, 2, 1, 1};
  for (int i = 0; i < 8; ++i)
    if ((*in)[i].ndim_known() && (*in)[i].ndim() != kNdim[i])
      MX_THROW(absl::StatusCode::kInvalidArgument, kHawkes, ": input ", kHawkesNames[i],
               " must be ", kNdim[i], "-D, got ", (*in)[i].ToString());
  const Shape &lda = (*in)[0], &lags = (*in)[4];
  const int64_t N = lags.ndim_known() ? lags[0] : (lda.ndim_known() ? lda[0] : -1);
  const int64_t T = lags.ndim_known() ? lags[1] : -1;
  const int64_t K = lda.ndim_known() ? lda[1] : -1;
  const Shape want[] = {{N, K}, {K}, {K}, {N, K}, {N, T}, {N, T}, {N}, {N}};
  for (int i = 0; i < 8; ++i) {
    Shape& s = (*in)[i];
    if (s.ndim_known())
      for (int a = 0; a < s.ndim(); ++a)
        if (s[a] >= 0 && want[i][a] >= 0 && s[a] != want[i][a])
          MX_THROW(absl::StatusCode::kInvalidArgument, kHawkes, ": input ", kHawkesNames[i],
                   " has shape ", s.ToString(), ", expected ", want[i].ToString(),
                   " (N samples, K marks, T points from lda ", lda.ToString(), " and lags ",
                   lags.ToString(), ")");
    AssignShape(kHawkes, kHawkesNames[i], &s, want[i]);
  }
  (*out)[0] = Shape{N};
  (*out)[1] = Shape{N, K};
}

void HawkesType(const OpAttrs&, DTypeVec* in, DTypeVec* out) {
  int t = -1;
  for (int i = 0; i < 8; ++i)
    if (i != 5) MergeType(&t, (*in)[i], StrCat(kHawkes, ": input ", kHawkesNames[i]));
  if (t >= 0) RequireFloat(kHawkes, "input lda", static_cast<DType>(t));
  if ((*in)[5] >= 0 && (*in)[5] != DTypeFlag(DType::kInt32))
    MX_THROW(absl::StatusCode::kInvalidArgument, kHawkes, ": input marks must be int32, got ",
             DTypeName(static_cast<DType>((*in)[5])));
  for (int i = 0; i < 8; ++i) (*in)[i] = i == 5 ? DTypeFlag(DType::kInt32) : t;
  (*out)[0] = (*out)[1] = t;
}

MX_REGISTER_OP(_contrib_hawkesll)
    .describe(
        "Log-likelihood (N,) of N marked Hawkes process samples with exponential kernels, and "
        "the final states (N, K).")
    .set_num_inputs(8)
    .set_input_names(std::vector<std::string>(std::begin(kHawkesNames), std::end(kHawkesNames)))
    .set_num_outputs(2)
    .set_output_names(std::vector<std::string>{"output", "out_state"})
    .set_infer_shape(HawkesShape)
    .set_infer_type(HawkesType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, HawkesRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue> out, std::span<const GradValue> og) {
          std::vector<GradValue> args{og[0].valid() ? og[0] : b.ZerosLike(out[0]),
                                      og[1].valid() ? og[1] : b.ZerosLike(out[1])};
          args.insert(args.end(), in.begin(), in.end());
          const Op& bw = OpRegistry::Get("_backward_hawkesll");
          auto g = b.Apply(bw, OpAttrs::Parse(bw, {}), args);
          return std::vector<GradValue>{g[0],        g[1],        g[2],        g[3],
                                        GradValue{}, GradValue{}, GradValue{}, GradValue{}};
        },
        true, true);

MX_REGISTER_OP(_backward_hawkesll)
    .describe(
        "Gradients of _contrib_hawkesll for lda, alpha, beta and state from both head "
        "gradients and the inputs (internal).")
    .set_num_inputs(10)
    .set_input_names(std::vector<std::string>{"ograd", "ograd_state", "lda", "alpha", "beta",
                                              "state", "lags", "marks", "valid_length", "max_time"})
    .set_num_outputs(4)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      ShapeVec fi(in->begin() + 2, in->end()), fo(2, Shape::Unknown());
      HawkesShape(a, &fi, &fo);
      std::copy(fi.begin(), fi.end(), in->begin() + 2);
      AssignShape("_backward_hawkesll", "ograd", &(*in)[0], fo[0]);
      AssignShape("_backward_hawkesll", "ograd_state", &(*in)[1], fo[1]);
      for (int i = 0; i < 4; ++i) (*out)[i] = (*in)[i + 2];
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      DTypeVec fi(in->begin() + 2, in->end()), fo(2, -1);
      HawkesType(a, &fi, &fo);
      std::copy(fi.begin(), fi.end(), in->begin() + 2);
      (*in)[0] = (*in)[1] = fo[0];
      for (auto& t : *out) t = fo[0];
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, HawkesBackwardRef)
    .set_non_differentiable();

}  // namespace
}  // namespace nn
}  // namespace mxnet::ops
