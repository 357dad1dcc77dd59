// MXNet 1.9.1's mx.np.linalg.eig and eigvals (_npi_eig, _npi_eigvals; src/operator/numpy/linalg/
// np_eig.cc, np_eigvals.cc): eigenvalues (and right eigenvectors) of general real square matrices,
// per matrix of the batch, in double:
//   A (..., n, n) -> w (..., n) [, v (..., n, n) with A v[:, i] = w[i] v[:, i], unit columns].
//   The algorithm follows LAPACK dgeev: dgebal's scaling (not its permutations), Householder
//   reduction to Hessenberg form, Francis double-shift QR as dlahqr (real shift pairs replaced by
//   the one closer to the corner, Ahues-Tisseur deflation, 2 x 2 blocks standardized as dlanv2),
//   eigenvectors by back substitution on the triangular Schur form. The eigenvalues come in the
//   order of the Schur form's diagonal, which is LAPACK's for the matrices tested (MXNet does not
//   sort them; for some matrices LAPACK's order itself depends on rounding: MXNet's float32 sgeev
//   and NumPy's LAPACK disagree on one in tools/conformance/refs_np_eig.py). Each eigenvector's
//   sign is LAPACK's only up to -1 (it depends on the Householder vectors): ours makes the
//   largest-magnitude entry of each column positive (the first on ties); tools/conformance
//   compares MXNet's columns up to that sign.
//   Complex eigenvalues are rejected (MXNet: "Complex eigvals is unsupported"). Dtypes: float32
//   stays float32, float64 and integers give float64 (float16 and bool rejected). Not
//   differentiable (MXNet: zero gradients).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "ndarray/ops/core/reduce_internal.h"

namespace mxnet::ops {
namespace {

using Vec = std::vector<double>;
constexpr auto kBad = absl::StatusCode::kInvalidArgument;

Vec Load(const NDArray& a) {
  NDArray h = a.device().type == DeviceType::kCPU ? a : a.as_in_context(cpu());
  return h.ToVector<double>();
}
void Store(const NDArray& a, const Vec& v) {
  MX_DTYPE_SWITCH(a.dtype(), T, {
    T* p = static_cast<T*>(a.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
  });
}

// Row-major n x n matrix helpers.
struct Mat {
  int64_t n;
  Vec d;
  double& operator()(int64_t i, int64_t j) { return d[i * n + j]; }
};

// H = Q^T A Q upper Hessenberg (Householder); z accumulates Q.
void Hessenberg(Mat& h, Mat& z) {
  int64_t n = h.n;
  for (int64_t k = 0; k + 2 < n; ++k) {
    double alpha = h(k + 1, k), sigma = 0;
    for (int64_t i = k + 2; i < n; ++i) sigma += h(i, k) * h(i, k);
    if (sigma == 0) continue;
    double norm = std::sqrt(alpha * alpha + sigma);
    double beta = alpha >= 0 ? -norm : norm;  // LAPACK dlarfg: beta = -sign(alpha) * norm
    Vec v(n, 0.0);
    v[k + 1] = 1.0;
    for (int64_t i = k + 2; i < n; ++i) v[i] = h(i, k) / (alpha - beta);
    double tau = (beta - alpha) / beta;
    // H <- (I - tau v v^T) H (I - tau v v^T); z <- z (I - tau v v^T)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t i = k + 1; i < n; ++i) s += v[i] * h(i, j);
      for (int64_t i = k + 1; i < n; ++i) h(i, j) -= tau * v[i] * s;
    }
    for (int64_t i = 0; i < n; ++i) {
      double s = 0, t = 0;
      for (int64_t j = k + 1; j < n; ++j) s += h(i, j) * v[j], t += z(i, j) * v[j];
      for (int64_t j = k + 1; j < n; ++j) h(i, j) -= tau * s * v[j], z(i, j) -= tau * t * v[j];
    }
    h(k + 1, k) = beta;
    for (int64_t i = k + 2; i < n; ++i) h(i, k) = 0;
  }
}

// Applies the rotation (c, s) to rows and columns p, p + 1 of h and to columns p, p + 1 of z.
void Rotate(Mat& h, Mat& z, int64_t p, double c, double s) {
  int64_t n = h.n;
  for (int64_t j = 0; j < n; ++j) {
    double x = h(p, j), y = h(p + 1, j);
    h(p, j) = c * x + s * y, h(p + 1, j) = -s * x + c * y;
  }
  for (int64_t i = 0; i < n; ++i) {
    double x = h(i, p), y = h(i, p + 1);
    h(i, p) = c * x + s * y, h(i, p + 1) = -s * x + c * y;
    x = z(i, p), y = z(i, p + 1);
    z(i, p) = c * x + s * y, z(i, p + 1) = -s * x + c * y;
  }
}

// Standardizes the 2 x 2 block at (p, p) with real eigenvalues to upper triangular (LAPACK's
// dlanv2 rotation: the new (p, p) is d + z, z = q + sign(q) sqrt(q^2 + bc), q = (a - d) / 2).
// Returns false for complex eigenvalues.
bool Standardize(Mat& h, Mat& z, int64_t p) {
  double a = h(p, p), b = h(p, p + 1), c = h(p + 1, p), d = h(p + 1, p + 1);
  if (c == 0) return true;
  if (b == 0) {  // swap rows and columns
    Rotate(h, z, p, 0.0, 1.0);
    h(p + 1, p) = 0;
    return true;
  }
  double q = 0.5 * (a - d), disc = q * q + b * c;
  if (disc < 0) return false;
  double zz = q + std::copysign(std::sqrt(disc), q);
  double anew = d + zz;  // eigenvalue placed at (p, p)
  // Rotation taking the eigenvector of anew to e_p: (b, anew - a) direction.
  double x = b, y = anew - a;
  double r = std::hypot(x, y);
  double cs = x / r, sn = y / r;
  Rotate(h, z, p, cs, sn);
  h(p + 1, p) = 0;
  return true;
}

// Real Schur form by Francis double-shift QR (EISPACK hqr2 / LAPACK dlahqr structure).
bool Schur(Mat& h, Mat& z) {
  int64_t n = h.n;
  const double eps = std::numeric_limits<double>::epsilon();  // LAPACK's ulp
  const double tiny = std::numeric_limits<double>::min() * (static_cast<double>(n) / eps);
  int64_t hi = n - 1, iter = 0;
  while (hi >= 0) {
    // Find the active block [lo, hi]: deflate small subdiagonals.
    int64_t lo = hi;
    for (; lo > 0; --lo) {  // dlahqr's test (Ahues and Tisseur)
      double sub = std::abs(h(lo, lo - 1));
      if (sub <= tiny) break;
      double tst = std::abs(h(lo - 1, lo - 1)) + std::abs(h(lo, lo));
      if (tst == 0) {
        if (lo - 2 >= 0) tst += std::abs(h(lo - 1, lo - 2));
        if (lo + 1 <= n - 1) tst += std::abs(h(lo + 1, lo));
      }
      if (sub <= eps * tst) {
        double ab = std::max(sub, std::abs(h(lo - 1, lo))),
               ba = std::min(sub, std::abs(h(lo - 1, lo)));
        double dd = std::abs(h(lo - 1, lo - 1) - h(lo, lo));
        double aa = std::max(std::abs(h(lo, lo)), dd), bb = std::min(std::abs(h(lo, lo)), dd);
        double sc = aa + ab;
        if (ba * (ab / sc) <= std::max(tiny, eps * (bb * (aa / sc)))) break;
      }
    }
    if (lo > 0) h(lo, lo - 1) = 0;
    if (lo == hi) {  // one eigenvalue converged
      --hi;
      iter = 0;
      continue;
    }
    if (lo == hi - 1) {  // a 2 x 2 block
      if (!Standardize(h, z, hi - 1)) return false;
      hi -= 2;
      iter = 0;
      continue;
    }
    if (++iter > 60 * n) return false;
    // Double shift from the trailing 2 x 2 (exceptional shifts at iterations 10 and 20).
    double s, t;
    if (iter % 10 == 0) {
      double e = std::abs(h(hi, hi - 1)) + std::abs(h(hi - 1, hi - 2));
      s = 2 * (h(hi, hi) + 0.75 * e);
      t = (h(hi, hi) + 0.75 * e) * (h(hi, hi) + 0.75 * e) - 0.4375 * e * e;
    } else {
      // The trailing 2 x 2's eigenvalues; real ones: the one closer to h(hi, hi) twice (dlahqr).
      double a = h(hi - 1, hi - 1), b = h(hi - 1, hi), c = h(hi, hi - 1), d = h(hi, hi);
      double tr = (a + d) / 2, det = (a - tr) * (d - tr) - b * c, disc = -det;
      s = a + d;
      t = a * d - b * c;
      if (disc >= 0) {
        double r = std::sqrt(disc), r1 = tr + r, r2 = tr - r;
        double pick = std::abs(r1 - d) <= std::abs(r2 - d) ? r1 : r2;
        s = 2 * pick;
        t = pick * pick;
      }
    }
    // First column of (H - s1)(H - s2) restricted to [lo, ...].
    double x = h(lo, lo) * h(lo, lo) + h(lo, lo + 1) * h(lo + 1, lo) - s * h(lo, lo) + t;
    double y = h(lo + 1, lo) * (h(lo, lo) + h(lo + 1, lo + 1) - s);
    double w = h(lo + 1, lo) * h(lo + 2, lo + 1);
    for (int64_t k = lo; k <= hi - 1; ++k) {
      int64_t m = std::min<int64_t>(3, hi - k + 1);
      double v[3] = {x, y, m == 3 ? w : 0.0};
      double xnorm = std::sqrt(v[1] * v[1] + v[2] * v[2]);
      if (xnorm != 0) {  // dlarfg: no reflection when the tail is zero
        double norm = std::sqrt(v[0] * v[0] + xnorm * xnorm);
        double beta = v[0] >= 0 ? -norm : norm;
        double u[3] = {1.0, v[1] / (v[0] - beta), v[2] / (v[0] - beta)};
        double tau = (beta - v[0]) / beta;
        int64_t c0 = std::max<int64_t>(lo, k - 1);
        for (int64_t j = c0; j < n; ++j) {
          double sum = 0;
          for (int64_t r = 0; r < m; ++r) sum += u[r] * h(k + r, j);
          for (int64_t r = 0; r < m; ++r) h(k + r, j) -= tau * u[r] * sum;
        }
        int64_t r1 = std::min<int64_t>(hi, k + 3);
        for (int64_t i = 0; i <= r1; ++i) {
          double sum = 0;
          for (int64_t r = 0; r < m; ++r) sum += h(i, k + r) * u[r];
          for (int64_t r = 0; r < m; ++r) h(i, k + r) -= tau * sum * u[r];
        }
        for (int64_t i = 0; i < n; ++i) {
          double sum = 0;
          for (int64_t r = 0; r < m; ++r) sum += z(i, k + r) * u[r];
          for (int64_t r = 0; r < m; ++r) z(i, k + r) -= tau * sum * u[r];
        }
        if (k > lo) {
          h(k + 1, k - 1) = 0;
          if (m == 3) h(k + 2, k - 1) = 0;
        }
      }
      if (k + 1 <= hi - 1) {
        x = h(k + 1, k);
        y = h(k + 2, k);
        w = k + 3 <= hi ? h(k + 3, k) : 0.0;
      }
    }
  }
  return true;
}

// LAPACK dgebal's scaling (powers of 2 making row and column 2-norms comparable; its
// permutations are not done): a <- D^-1 a D, returns D.
Vec Balance(Mat& a) {
  int64_t n = a.n;
  Vec scale(n, 1.0);
  const double radix = 2, factor = 0.95;
  bool noconv = true;
  for (int sweep = 0; noconv && sweep < 1000; ++sweep) {
    noconv = false;
    for (int64_t i = 0; i < n; ++i) {
      double c = 0, r = 0;
      for (int64_t k = 0; k < n; ++k) c += a(k, i) * a(k, i), r += a(i, k) * a(i, k);
      c = std::sqrt(c), r = std::sqrt(r);
      if (c == 0 || r == 0) continue;
      double g = r / radix, f = 1, s = c + r;
      while (c < g) f *= radix, c *= radix, r /= radix, g /= radix;
      g = c / radix;
      while (g >= r) f /= radix, c /= radix, g /= radix, r *= radix;
      if (c + r >= factor * s) continue;
      scale[i] *= f;
      noconv = true;
      for (int64_t k = 0; k < n; ++k) a(i, k) /= f;
      for (int64_t k = 0; k < n; ++k) a(k, i) *= f;
    }
  }
  return scale;
}

// Eigenvalues (diagonal order) and, if v, unit right eigenvectors as columns of v.
void Geev(std::string_view op, const double* a, int64_t n, double* wr, double* v) {
  Mat h{n, Vec(a, a + n * n)}, z{n, Vec(n * n, 0.0)};
  for (int64_t i = 0; i < n; ++i) z(i, i) = 1;
  Vec scale = Balance(h);
  Hessenberg(h, z);
  if (!Schur(h, z))
    MX_THROW(kBad, op,
             ": the matrix has complex eigenvalues, which are not supported (as in MXNet)");
  for (int64_t i = 0; i < n; ++i) wr[i] = h(i, i);
  if (!v) return;
  const double small = std::numeric_limits<double>::epsilon() * [&] {
    double m = 0;
    for (double x : h.d) m = std::max(m, std::abs(x));
    return m > 0 ? m : 1.0;
  }();
  for (int64_t k = 0; k < n; ++k) {
    Vec y(n, 0.0);
    y[k] = 1;
    for (int64_t j = k - 1; j >= 0; --j) {
      double s = 0;
      for (int64_t l = j + 1; l <= k; ++l) s += h(j, l) * y[l];
      double den = h(j, j) - h(k, k);
      if (std::abs(den) < small) den = small;
      y[j] = -s / den;
    }
    Vec x(n, 0.0);
    double norm = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t l = 0; l <= k; ++l) x[i] += z(i, l) * y[l];
      x[i] *= scale[i];  // undo the balancing
      norm += x[i] * x[i];
    }
    norm = std::sqrt(norm);
    int64_t big = 0;
    for (int64_t i = 1; i < n; ++i)
      if (std::abs(x[i]) > std::abs(x[big])) big = i;
    double sign = x[big] < 0 ? -1.0 : 1.0;
    for (int64_t i = 0; i < n; ++i) v[i * n + k] = sign * x[i] / norm;
  }
}

void GeevCompute(const OpAttrs& attrs, std::span<const NDArray> in, std::span<const NDArray> out) {
  const Shape& s = in[0].shape();
  int64_t n = s[s.ndim() - 1];
  int64_t nb = n == 0 ? 0 : s.Size() / (n * n);
  bool vecs = out.size() > 1;
  Vec a = Load(in[0]), w(nb * n), v(vecs ? nb * n * n : 0);
  for (int64_t b = 0; b < nb; ++b)
    Geev(reduce_internal::OpName(attrs), a.data() + b * n * n, n, w.data() + b * n,
         vecs ? v.data() + b * n * n : nullptr);
  Store(out[0], w);
  if (vecs) Store(out[1], v);
}

MX_REGISTER_OP(_npi_eigvals)
    .describe(
        "Eigenvalues of general real matrices (mx.np.linalg.eigvals): A (..., n, n) -> (..., n), "
        "real eigenvalues only, LAPACK's order.")
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].is_known()) return;
      MergeShape(&(*out)[0], reduce_internal::EigvalShape("_npi_eigvals", (*in)[0]),
                 "_npi_eigvals: output");
    })
    .set_infer_type(reduce_internal::NpEigType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) { GeevCompute(attrs, in, out); })
    .set_non_differentiable();

MX_REGISTER_OP(_npi_eig)
    .describe(
        "Eigendecomposition of general real matrices (mx.np.linalg.eig): A (..., n, n) -> w "
        "(..., n), v (..., n, n) unit eigenvector columns (largest entry positive).")
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"A"})
    .set_num_outputs(2)
    .set_output_names(std::vector<std::string>{"w", "v"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].is_known()) return;
      MergeShape(&(*out)[0], reduce_internal::EigvalShape("_npi_eig", (*in)[0]),
                 "_npi_eig: output w");
      MergeShape(&(*out)[1], (*in)[0], "_npi_eig: output v");
    })
    .set_infer_type(reduce_internal::NpEigType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) { GeevCompute(attrs, in, out); })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
