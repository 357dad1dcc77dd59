// MXNet 1.9.1's linear-algebra operators (src/operator/tensor/la_op.{h,cc}): gemm, gemm2, potrf,
// potri, trmm, trsm, syrk, sumlogdiag, extractdiag, makediag, extracttrian, maketrian, inverse,
// det, slogdet, gelqf, syevd. Matrices are the trailing two axes (gemm/gemm2: `axis` and the last
// axis); leading axes are a batch and must agree between inputs. float32/float64 only.
//
// Reference kernels compute in double, per batch item: triangular products/solves by
// substitution, Cholesky (lower triangle read), LU with partial pivoting (inverse, det, slogdet),
// Householder LQ with LAPACK's reflector convention (gelqf), cyclic Jacobi (syevd) with MXNet's
// eigenvector signs (largest-magnitude entry of each row positive, first on ties).
//
// Gradients follow MXNet's backward definitions (Seeger et al., arXiv:1710.08717). They are
// compositions of these ops where the formula allows (gemm, gemm2, trmm, trsm, syrk, potrf,
// potri, gelqf, inverse, the diag/trian ops; two helpers _linalg_copyltu/_linalg_copyltu_adj
// symmetrize a lower triangle), else dedicated _backward_linalg_* ops (sumlogdiag, det,
// slogdet, syevd; declared non-differentiable).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/linalg/linalg_api.h"

namespace mxnet::ops {
namespace {

using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;
using reduce_internal::OpName;
using Vec = std::vector<double>;
constexpr auto kBad = absl::StatusCode::kInvalidArgument;

// ---------------------------------------------------------------------------------------------
// Shape and type helpers.

const char* kInputNames[] = {"A", "B", "C"};

void NeedMatrices(std::string_view op, const Shape& s, int i = 0) {
  if (s.ndim() < 2)
    MX_THROW(kBad, op, ": input ", kInputNames[i],
             " must have at least 2 dimensions (a matrix or a batch of matrices), got shape ",
             s.ToString());
}

void NeedSquare(std::string_view op, const Shape& s, int i = 0) {
  NeedMatrices(op, s, i);
  int n = s.ndim();
  if (s[n - 1] >= 0 && s[n - 2] >= 0 && s[n - 1] != s[n - 2])
    MX_THROW(kBad, op, ": input ", kInputNames[i],
             " must be square matrices on its last two axes, got shape ", s.ToString());
}

// Leading (batch) dims of A and B agree; both have the same ndim.
void SameBatch(std::string_view op, const Shape& a, const Shape& b, int ia, int ib) {
  bool ok = a.ndim() == b.ndim();
  for (int i = 0; ok && i < a.ndim() - 2; ++i)
    if (a[i] >= 0 && b[i] >= 0 && a[i] != b[i]) ok = false;
  if (!ok)
    MX_THROW(kBad, op, ": batch dimensions of ", kInputNames[ia], " ", a.ToString(), " and ",
             kInputNames[ib], " ", b.ToString(), " differ (all but the last two axes must match)");
}

// (...) of a (..., n, n) input, or (1,) for a single matrix.
Shape BatchShape(const Shape& s) {
  if (s.ndim() == 2) return Shape{1};
  Shape out;
  for (int i = 0; i < s.ndim() - 2; ++i) out.push_back(s[i]);
  return out;
}

// Every input and output shares one dtype, float32 or float64 (MXNet's linalg rule).
void LinalgType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  ElemwiseType(attrs, in, out);
  int t = in->empty() ? (*out)[0] : (*in)[0];
  if (t >= 0 && t != static_cast<int>(DType::kFloat32) && t != static_cast<int>(DType::kFloat64))
    MX_THROW(kBad, OpName(attrs), ": dtype ", DTypeName(static_cast<DType>(t)),
             " is not supported (float32 and float64 only)");
}

// ---------------------------------------------------------------------------------------------
// Data access: kernels compute in double.

Vec Load(const NDArray& a) {
  Vec v(a.size());
  if (a.dtype() == DType::kFloat64) {
    const double* p = static_cast<const double*>(a.data_ptr());
    std::copy(p, p + a.size(), v.begin());
  } else if (a.dtype() == DType::kFloat32) {
    const float* p = static_cast<const float*>(a.data_ptr());
    std::copy(p, p + a.size(), v.begin());
  } else {
    MX_THROW(kBad, "linalg: dtype ", DTypeName(a.dtype()), " is not supported");
  }
  return v;
}

void Store(const NDArray& a, const Vec& v) {
  if (a.dtype() == DType::kFloat64) {
    std::copy(v.begin(), v.end(), static_cast<double*>(a.data_ptr()));
  } else {
    float* p = static_cast<float*>(a.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<float>(v[i]);
  }
}

// Number of matrices in a batch of (r, c) matrices of `s`.
int64_t NumMatrices(const Shape& s) { return s.ProdRange(0, s.ndim() - 2); }

// ---------------------------------------------------------------------------------------------
// Dense routines on row-major double matrices.

// C (M x N) = alpha * op(A) * op(B) + beta * C. A is stored (M, K), or (K, M) if ta; B (K, N), or
// (N, K) if tb. beta == 0 ignores C's old values.
void Gemm(const double* A, const double* B, double* C, int64_t M, int64_t N, int64_t K, bool ta,
          bool tb, double alpha, double beta) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k)
        acc += (ta ? A[k * M + m] : A[m * K + k]) * (tb ? B[n * K + k] : B[k * N + n]);
      C[m * N + n] = alpha * acc + (beta == 0 ? 0.0 : beta * C[m * N + n]);
    }
}

// The lower (or upper) triangle of the n x n matrix a, zero elsewhere, optionally transposed.
Vec Triangle(const double* a, int64_t n, bool lower, bool transpose) {
  Vec t(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (lower ? i >= j : i <= j) (transpose ? t[j * n + i] : t[i * n + j]) = a[i * n + j];
  return t;
}

// Solves T X = B in place (X overwrites B, n x k) for triangular T (n x n, full storage).
void SolveLeft(const double* T, bool lower, int64_t n, double* X, int64_t k) {
  for (int64_t s = 0; s < n; ++s) {
    int64_t i = lower ? s : n - 1 - s;
    for (int64_t c = 0; c < k; ++c) {
      double v = X[i * k + c];
      if (lower)
        for (int64_t j = 0; j < i; ++j) v -= T[i * n + j] * X[j * k + c];
      else
        for (int64_t j = i + 1; j < n; ++j) v -= T[i * n + j] * X[j * k + c];
      X[i * k + c] = v / T[i * n + i];
    }
  }
}

Vec Transposed(const double* a, int64_t r, int64_t c) {
  Vec t(r * c);
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) t[j * r + i] = a[i * c + j];
  return t;
}

// LU with partial pivoting of the n x n matrix a, in place (unit lower L below the diagonal).
// A zero pivot column is skipped (LAPACK getrf). Returns the row swapped into each position.
std::vector<int64_t> Lu(double* a, int64_t n, int* swaps) {
  std::vector<int64_t> piv(n);
  *swaps = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::abs(a[i * n + k]) > std::abs(a[p * n + k])) p = i;
    piv[k] = p;
    if (a[p * n + k] == 0) continue;
    if (p != k) {
      ++*swaps;
      for (int64_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
    }
    for (int64_t i = k + 1; i < n; ++i) {
      double l = a[i * n + k] / a[k * n + k];
      a[i * n + k] = l;
      for (int64_t j = k + 1; j < n; ++j) a[i * n + j] -= l * a[k * n + j];
    }
  }
  return piv;
}

// The inverse of an LU-factored matrix (Lu's output and pivots).
Vec LuInverse(const double* lu, const std::vector<int64_t>& piv, int64_t n) {
  Vec x(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) x[i * n + i] = 1;
  for (int64_t k = 0; k < n; ++k)  // P applied to the identity, in factorization order
    if (piv[k] != k)
      for (int64_t j = 0; j < n; ++j) std::swap(x[k * n + j], x[piv[k] * n + j]);
  Vec l(n * n, 0.0), u(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      if (i > j)
        l[i * n + j] = lu[i * n + j];
      else
        u[i * n + j] = lu[i * n + j];
      if (i == j) l[i * n + j] = 1;
    }
  SolveLeft(l.data(), true, n, x.data(), n);
  SolveLeft(u.data(), false, n, x.data(), n);
  return x;
}

// sign(det) and log|det| from an LU factorization (MXNet: det = sign * exp(logabsdet)).
void LuSignLog(const double* lu, int64_t n, int swaps, double* sign, double* logabs) {
  double s = swaps % 2 ? -1.0 : 1.0, l = 0;
  for (int64_t i = 0; i < n; ++i) {
    double d = lu[i * n + i];
    s *= (d > 0) - (d < 0);
    l += std::log(std::abs(d));
  }
  *sign = s;
  *logabs = l;
}

// ---------------------------------------------------------------------------------------------
// gemm / gemm2: rows on `axis`, columns on the last axis.

struct AxisLayout {
  int64_t outer = 1, rows = 0, mid = 1, cols = 0;
  int64_t count() const { return outer * mid; }
  int64_t base(int64_t b) const { return (b / mid) * rows * mid * cols + (b % mid) * cols; }
};
AxisLayout LayoutOf(const Shape& s, int ax) {
  int nd = s.ndim();
  return {s.ProdRange(0, ax), s[ax], s.ProdRange(ax + 1, nd - 1), s[nd - 1]};
}
Vec Gather(const Vec& src, const AxisLayout& l, int64_t b) {
  Vec m(l.rows * l.cols);
  int64_t o = l.base(b);
  for (int64_t i = 0; i < l.rows; ++i)
    for (int64_t j = 0; j < l.cols; ++j) m[i * l.cols + j] = src[o + i * l.mid * l.cols + j];
  return m;
}
void Scatter(const Vec& m, const AxisLayout& l, int64_t b, Vec* dst) {
  int64_t o = l.base(b);
  for (int64_t i = 0; i < l.rows; ++i)
    for (int64_t j = 0; j < l.cols; ++j) (*dst)[o + i * l.mid * l.cols + j] = m[i * l.cols + j];
}

int GemmAxis(std::string_view op, int axis, const Shape& a) {
  int nd = a.ndim();
  int ax = axis < 0 ? axis + nd : axis;
  if (ax < 0 || ax >= nd - 1)
    MX_THROW(kBad, op, ": axis ", axis, " is not a row axis of input shape ", a.ToString(),
             " (it must come before the last axis, which holds the columns)");
  return ax;
}

// Output shape of alpha * op(A) * op(B) with rows on `axis`.
Shape GemmInfer(std::string_view op, const Shape& a, const Shape& b, bool ta, bool tb, int axis) {
  NeedMatrices(op, a, 0);
  NeedMatrices(op, b, 1);
  int ax = GemmAxis(op, axis, a);
  int nd = a.ndim(), last = nd - 1;
  bool ok = b.ndim() == nd;
  for (int i = 0; ok && i < nd; ++i)
    if (i != ax && i != last && a[i] >= 0 && b[i] >= 0 && a[i] != b[i]) ok = false;
  if (!ok)
    MX_THROW(kBad, op, ": shapes of A ", a.ToString(), " and B ", b.ToString(),
             " must agree except on the row axis ", ax, " and the last axis");
  int64_t ka = ta ? a[ax] : a[last], kb = tb ? b[last] : b[ax];
  if (ka >= 0 && kb >= 0 && ka != kb)
    MX_THROW(kBad, op, ": incompatible matrix sizes for multiplication: A ", a.ToString(), " x B ",
             b.ToString(), " (transpose_a=", ta ? "True" : "False",
             ", transpose_b=", tb ? "True" : "False", ", axis=", axis, ") contracts ", ka, " with ",
             kb);
  Shape out = a;
  for (int i = 0; i < nd; ++i)
    if (out[i] < 0) out[i] = b[i];
  out[ax] = ta ? a[last] : a[ax];
  out[last] = tb ? b[ax] : b[last];
  return out;
}

void GemmCompute(const NDArray& A, const NDArray& B, const NDArray* C, const NDArray& out, bool ta,
                 bool tb, double alpha, double beta, int axis) {
  int ax = axis < 0 ? axis + A.ndim() : axis;
  AxisLayout la = LayoutOf(A.shape(), ax), lb = LayoutOf(B.shape(), ax),
             lo = LayoutOf(out.shape(), ax);
  Vec a = Load(A), b = Load(B), o = C ? Load(*C) : Vec(out.size(), 0.0);
  int64_t M = lo.rows, N = lo.cols, K = ta ? la.rows : la.cols;
  for (int64_t i = 0; i < lo.count(); ++i) {
    Vec am = Gather(a, la, i), bm = Gather(b, lb, i), cm = Gather(o, lo, i);
    Gemm(am.data(), bm.data(), cm.data(), M, N, K, ta, tb, alpha, C ? beta : 0.0);
    Scatter(cm, lo, i, &o);
  }
  Store(out, o);
}

LinalgGemm2Param G2(bool ta, bool tb, double alpha, int axis) {
  LinalgGemm2Param p;
  p.transpose_a = ta, p.transpose_b = tb, p.alpha = alpha, p.axis = axis;
  return p;
}
LinalgGemmParam G3(bool ta, bool tb, double alpha, double beta, int axis) {
  LinalgGemmParam p;
  p.transpose_a = ta, p.transpose_b = tb, p.alpha = alpha, p.beta = beta, p.axis = axis;
  return p;
}

// d/dA and d/dB of alpha * op(A) * op(B) (MXNet's gemm2 backward), as gemm2 calls.
std::pair<GradValue, GradValue> GemmGrads(GradBuilder& b, GradValue A, GradValue B, GradValue og,
                                          bool ta, bool tb, double alpha, int axis) {
  GradValue da = ta ? b.CallP("_linalg_gemm2", {B, og}, G2(tb, true, alpha, axis))
                    : b.CallP("_linalg_gemm2", {og, B}, G2(false, !tb, alpha, axis));
  GradValue db = tb ? b.CallP("_linalg_gemm2", {og, A}, G2(true, ta, alpha, axis))
                    : b.CallP("_linalg_gemm2", {A, og}, G2(!ta, false, alpha, axis));
  return {da, db};
}

MX_REGISTER_OP(_linalg_gemm)
    .describe(
        "alpha * op(A) * op(B) + beta * C on matrices formed by `axis` (rows) and the last axis "
        "(MXNet's linalg.gemm); leading axes are a batch.")
    .add_alias("linalg_gemm")
    .set_params<LinalgGemmParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"A", "B", "C"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const auto& p = attrs.get<LinalgGemmParam>();
      if (!(*in)[0].ndim_known() || !(*in)[1].ndim_known()) return;
      Shape o = GemmInfer("_linalg_gemm", (*in)[0], (*in)[1], p.transpose_a, p.transpose_b, p.axis);
      if ((*in)[2].ndim_known() && (*in)[2].ndim() != o.ndim())
        MX_THROW(kBad, "_linalg_gemm: C ", (*in)[2].ToString(), " must have the shape ",
                 o.ToString(), " of op(A) * op(B)");
      MergeShape(&(*in)[2], o, "_linalg_gemm: input C (the shape of op(A) * op(B))");
      MergeShape(&(*out)[0], (*in)[2], "_linalg_gemm: output");
    })
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = attrs.get<LinalgGemmParam>();
                  GemmCompute(in[0], in[1], &in[2], out[0], p.transpose_a, p.transpose_b, p.alpha,
                              p.beta, p.axis);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, GV in, GV, GV og) {
          const auto& p = attrs.get<LinalgGemmParam>();
          auto [da, db] =
              GemmGrads(b, in[0], in[1], og[0], p.transpose_a, p.transpose_b, p.alpha, p.axis);
          return Grads{da, db, b.MulScalar(og[0], p.beta)};
        },
        true, false);

MX_REGISTER_OP(_linalg_gemm2)
    .describe(
        "alpha * op(A) * op(B) on matrices formed by `axis` (rows) and the last axis (MXNet's "
        "linalg.gemm2); leading axes are a batch.")
    .add_alias("linalg_gemm2")
    .set_params<LinalgGemm2Param>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"A", "B"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const auto& p = attrs.get<LinalgGemm2Param>();
      if (!(*in)[0].ndim_known() || !(*in)[1].ndim_known()) return;
      MergeShape(
          &(*out)[0],
          GemmInfer("_linalg_gemm2", (*in)[0], (*in)[1], p.transpose_a, p.transpose_b, p.axis),
          "_linalg_gemm2: output");
    })
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = attrs.get<LinalgGemm2Param>();
                  GemmCompute(in[0], in[1], nullptr, out[0], p.transpose_a, p.transpose_b, p.alpha,
                              0.0, p.axis);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, GV in, GV, GV og) {
          const auto& p = attrs.get<LinalgGemm2Param>();
          auto [da, db] =
              GemmGrads(b, in[0], in[1], og[0], p.transpose_a, p.transpose_b, p.alpha, p.axis);
          return Grads{da, db};
        },
        true, false);

// ---------------------------------------------------------------------------------------------
// Single-square-input ops: a loop over the batch with per-matrix functions.

void SquareSameShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  if (!(*in)[0].ndim_known()) return;
  NeedSquare(OpName(attrs), (*in)[0]);
  for (auto& o : *out) MergeShape(&o, (*in)[0], StrCat(OpName(attrs), ": output"));
}

void SquareToBatch(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  if (!(*in)[0].ndim_known()) return;
  NeedSquare(OpName(attrs), (*in)[0]);
  for (auto& o : *out) MergeShape(&o, BatchShape((*in)[0]), StrCat(OpName(attrs), ": output"));
}

// Tri(X): the lower (or upper) triangle of X, zero elsewhere, as a composition.
GradValue TriMask(GradBuilder& b, GradValue x, bool lower) {
  LinalgTrianParam p;
  p.lower = lower;
  return b.CallP("_linalg_maketrian", {b.CallP("_linalg_extracttrian", {x}, p)}, p);
}

LinalgTriangParam Tr(bool transpose, bool rightside, bool lower, double alpha) {
  LinalgTriangParam p;
  p.transpose = transpose, p.rightside = rightside, p.lower = lower, p.alpha = alpha;
  return p;
}

// potrf: A = L * L^T, lower triangle of A read.
MX_REGISTER_OP(_linalg_potrf)
    .describe(
        "Cholesky factor L (lower triangular, zero above the diagonal) of symmetric positive "
        "definite matrices A = L * L^T; reads A's lower triangle (MXNet's linalg.potrf).")
    .add_alias("linalg_potrf")
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape(SquareSameShape)
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s);
                  Vec a = Load(in[0]), l(a.size(), 0.0);
                  for (int64_t b = 0; b < nb; ++b) {
                    const double* x = a.data() + b * n * n;
                    double* y = l.data() + b * n * n;
                    for (int64_t j = 0; j < n; ++j) {
                      double d = x[j * n + j];
                      for (int64_t k = 0; k < j; ++k) d -= y[j * n + k] * y[j * n + k];
                      if (!(d > 0))
                        MX_THROW(kBad, "_linalg_potrf: matrix ", b, " of input A ", s.ToString(),
                                 " is not symmetric positive definite (Cholesky pivot ", j, " is ",
                                 d, "); potrf reads the lower triangle");
                      y[j * n + j] = std::sqrt(d);
                      for (int64_t i = j + 1; i < n; ++i) {
                        double v = x[i * n + j];
                        for (int64_t k = 0; k < j; ++k) v -= y[i * n + k] * y[j * n + k];
                        y[i * n + j] = v / y[j * n + j];
                      }
                    }
                  }
                  Store(out[0], l);
                })
    .set_gradient(
        // dA = 0.5 * L^-T * copyLTU(L^T * dL) * L^-1 (symmetric).
        [](GradBuilder& b, const OpAttrs&, GV, GV outs, GV og) {
          GradValue L = outs[0];
          GradValue m = b.CallP("_linalg_trmm", {L, og[0]}, Tr(true, false, true, 1.0));
          GradValue s = b.Call("_linalg_copyltu", {m});
          GradValue x = b.CallP("_linalg_trsm", {L, s}, Tr(true, false, true, 1.0));
          return Grads{b.CallP("_linalg_trsm", {L, x}, Tr(false, true, true, 0.5))};
        },
        false, true);

// potri: (L * L^T)^-1 from the lower Cholesky factor L.
MX_REGISTER_OP(_linalg_potri)
    .describe(
        "Inverse (L * L^T)^-1 of a matrix from its lower Cholesky factor L (lower triangle "
        "read) (MXNet's linalg.potri).")
    .add_alias("linalg_potri")
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape(SquareSameShape)
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s);
                  Vec a = Load(in[0]), r(a.size());
                  for (int64_t b = 0; b < nb; ++b) {
                    Vec l = Triangle(a.data() + b * n * n, n, true, false);
                    Vec inv(n * n, 0.0);
                    for (int64_t i = 0; i < n; ++i) inv[i * n + i] = 1;
                    SolveLeft(l.data(), true, n, inv.data(), n);
                    Gemm(inv.data(), inv.data(), r.data() + b * n * n, n, n, n, true, false, 1, 0);
                  }
                  Store(out[0], r);
                })
    .set_gradient(
        // dL = -tril(out * (dOut + dOut^T) * L^-T).
        [](GradBuilder& b, const OpAttrs&, GV in, GV outs, GV og) {
          GradValue a = outs[0];
          GradValue x = b.CallP("_linalg_gemm",
                                {a, og[0], b.CallP("_linalg_gemm2", {a, og[0]}, G2(0, 0, 1, -2))},
                                G3(false, true, 1, 1, -2));
          GradValue y = b.CallP("_linalg_trsm", {in[0], x}, Tr(true, true, true, -1.0));
          return Grads{TriMask(b, y, true)};
        },
        true, true);

// trmm / trsm: A (..., n, n) triangular, B (..., m, k) with n == m (left) or n == k (right).
void TriangShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  std::string_view op = OpName(attrs);
  const Shape &a = (*in)[0], &b = (*in)[1];
  if (a.ndim_known()) NeedSquare(op, a, 0);
  if (b.ndim_known()) NeedMatrices(op, b, 1);
  if (a.ndim_known() && b.ndim_known()) {
    SameBatch(op, a, b, 0, 1);
    const auto& p = attrs.get<LinalgTriangParam>();
    int nd = b.ndim();
    int64_t n = a[nd - 1], m = p.rightside ? b[nd - 1] : b[nd - 2];
    if (n >= 0 && m >= 0 && n != m)
      MX_THROW(kBad, op, ": incompatible matrix sizes: A ", a.ToString(), " and B ", b.ToString(),
               " (rightside=", p.rightside ? "True" : "False", ") need B's ",
               p.rightside ? "last" : "second-to-last", " axis to equal A's size ", n);
  }
  if (b.ndim_known()) MergeShape(&(*out)[0], b, StrCat(op, ": output"));
}

template <bool kSolve>
void TriangCompute(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<LinalgTriangParam>();
  const Shape& bs = in[1].shape();
  int nd = bs.ndim();
  int64_t r = bs[nd - 2], c = bs[nd - 1], n = p.rightside ? c : r, nb = NumMatrices(bs);
  Vec a = Load(in[0]), bv = Load(in[1]), o(bv.size());
  for (int64_t i = 0; i < nb; ++i) {
    Vec t = Triangle(a.data() + i * n * n, n, p.lower, p.transpose);  // op(tri(A))
    const double* bm = bv.data() + i * r * c;
    double* om = o.data() + i * r * c;
    if (!kSolve) {
      if (p.rightside)
        Gemm(bm, t.data(), om, r, c, n, false, false, p.alpha, 0);
      else
        Gemm(t.data(), bm, om, r, c, n, false, false, p.alpha, 0);
      continue;
    }
    bool t_lower = p.lower != p.transpose;
    if (!p.rightside) {  // op(A) X = alpha B
      for (int64_t j = 0; j < r * c; ++j) om[j] = p.alpha * bm[j];
      SolveLeft(t.data(), t_lower, n, om, c);
    } else {  // X op(A) = alpha B  <=>  op(A)^T X^T = alpha B^T
      Vec tt = Transposed(t.data(), n, n), xt = Transposed(bm, r, c);
      for (double& v : xt) v *= p.alpha;
      SolveLeft(tt.data(), !t_lower, n, xt.data(), r);
      Vec x = Transposed(xt.data(), c, r);
      std::copy(x.begin(), x.end(), om);
    }
  }
  Store(out[0], o);
}

MX_REGISTER_OP(_linalg_trmm)
    .describe(
        "alpha * op(A) * B, or alpha * B * op(A) with rightside, for triangular A (the lower or "
        "upper triangle is read) (MXNet's linalg.trmm).")
    .add_alias("linalg_trmm")
    .set_params<LinalgTriangParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"A", "B"})
    .set_infer_shape(TriangShape)
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, TriangCompute<false>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, GV in, GV, GV og) {
          const auto& p = attrs.get<LinalgTriangParam>();
          bool t = p.transpose;
          GradValue da = p.rightside == t
                             ? b.CallP("_linalg_gemm2", {og[0], in[1]}, G2(t, !t, p.alpha, -2))
                             : b.CallP("_linalg_gemm2", {in[1], og[0]}, G2(!t, t, p.alpha, -2));
          GradValue db =
              b.CallP("_linalg_trmm", {in[0], og[0]}, Tr(!t, p.rightside, p.lower, p.alpha));
          return Grads{TriMask(b, da, p.lower), db};
        },
        true, false);

MX_REGISTER_OP(_linalg_trsm)
    .describe(
        "X with op(A) * X = alpha * B, or X * op(A) = alpha * B with rightside, for triangular "
        "A (the lower or upper triangle is read) (MXNet's linalg.trsm).")
    .add_alias("linalg_trsm")
    .set_params<LinalgTriangParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"A", "B"})
    .set_infer_shape(TriangShape)
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, TriangCompute<true>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, GV in, GV outs, GV og) {
          const auto& p = attrs.get<LinalgTriangParam>();
          bool t = p.transpose;
          GradValue db =
              b.CallP("_linalg_trsm", {in[0], og[0]}, Tr(!t, p.rightside, p.lower, p.alpha));
          double s = -1.0 / p.alpha;
          GradValue da = p.rightside == t
                             ? b.CallP("_linalg_gemm2", {db, outs[0]}, G2(t, !t, s, -2))
                             : b.CallP("_linalg_gemm2", {outs[0], db}, G2(!t, t, s, -2));
          return Grads{TriMask(b, da, p.lower), db};
        },
        true, true);

MX_REGISTER_OP(_linalg_syrk)
    .describe(
        "alpha * A * A^T, or alpha * A^T * A with transpose, for A (..., m, k) (MXNet's "
        "linalg.syrk).")
    .add_alias("linalg_syrk")
    .set_params<LinalgSyrkParam>()
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& a = (*in)[0];
      if (!a.ndim_known()) return;
      NeedMatrices("_linalg_syrk", a);
      int nd = a.ndim();
      Shape o = a;
      int64_t k = attrs.get<LinalgSyrkParam>().transpose ? a[nd - 1] : a[nd - 2];
      o[nd - 2] = o[nd - 1] = k;
      MergeShape(&(*out)[0], o, "_linalg_syrk: output");
    })
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = attrs.get<LinalgSyrkParam>();
                  const Shape& s = in[0].shape();
                  int64_t r = s[s.ndim() - 2], c = s[s.ndim() - 1], nb = NumMatrices(s);
                  int64_t k = p.transpose ? c : r, inner = p.transpose ? r : c;
                  Vec a = Load(in[0]), o(nb * k * k);
                  for (int64_t b = 0; b < nb; ++b) {
                    const double* x = a.data() + b * r * c;
                    Gemm(x, x, o.data() + b * k * k, k, k, inner, p.transpose, !p.transpose,
                         p.alpha, 0);
                  }
                  Store(out[0], o);
                })
    .set_gradient(
        // dA = alpha * (dB + dB^T) * A, or alpha * A * (dB + dB^T) with transpose.
        [](GradBuilder& b, const OpAttrs& attrs, GV in, GV, GV og) {
          const auto& p = attrs.get<LinalgSyrkParam>();
          double al = p.alpha;
          if (p.transpose) {
            GradValue x = b.CallP("_linalg_gemm2", {in[0], og[0]}, G2(false, false, al, -2));
            return Grads{b.CallP("_linalg_gemm", {in[0], og[0], x}, G3(false, true, al, 1.0, -2))};
          }
          GradValue x = b.CallP("_linalg_gemm2", {og[0], in[0]}, G2(false, false, al, -2));
          return Grads{b.CallP("_linalg_gemm", {og[0], in[0], x}, G3(true, false, al, 1.0, -2))};
        },
        true, false);

// ---- sumlogdiag ----
MX_REGISTER_OP(_linalg_sumlogdiag)
    .describe(
        "Sum of the natural logarithms of the diagonal of square matrices: (..., n, n) -> (...), "
        "(1,) for one matrix (MXNet's linalg.sumlogdiag).")
    .add_alias("linalg_sumlogdiag")
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape(SquareToBatch)
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s);
                  Vec a = Load(in[0]), o(nb, 0.0);
                  for (int64_t b = 0; b < nb; ++b)
                    for (int64_t i = 0; i < n; ++i) o[b] += std::log(a[b * n * n + i * n + i]);
                  Store(out[0], o);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV, GV og) {
          return Grads{b.Call("_backward_linalg_sumlogdiag", {og[0], in[0]})};
        },
        true, false);

MX_REGISTER_OP(_backward_linalg_sumlogdiag)
    .describe("Gradient of _linalg_sumlogdiag: dA = diag(dOut / A_ii), zero off the diagonal.")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "A"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const char* op = "_backward_linalg_sumlogdiag";
      const Shape& a = (*in)[1];
      if (!a.ndim_known()) return;
      // The kernel indexes A as (..., n, n) and ograd as its batch shape: check both.
      int n = a.ndim();
      if (n < 2 || (a[n - 1] >= 0 && a[n - 2] >= 0 && a[n - 1] != a[n - 2]))
        MX_THROW(kBad, op, ": input A must be square matrices on its last two axes, got shape ",
                 a.ToString());
      MergeShape(&(*in)[0], BatchShape(a), StrCat(op, ": ograd"));
      MergeShape(&(*out)[0], a, op);
    })
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[1].shape();
                  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s);
                  Vec g = Load(in[0]), a = Load(in[1]), o(a.size(), 0.0);
                  for (int64_t b = 0; b < nb; ++b)
                    for (int64_t i = 0; i < n; ++i) {
                      int64_t k = b * n * n + i * n + i;
                      o[k] = g[b] / a[k];
                    }
                  Store(out[0], o);
                })
    .set_non_differentiable();

// ---- diagonals and triangles ----
int64_t DiagLen(std::string_view op, int64_t n, int offset) {
  if (n >= 0 && std::abs(static_cast<int64_t>(offset)) >= n)
    MX_THROW(kBad, op, ": offset ", offset, " is out of range for ", n, " x ", n,
             " matrices (needs |offset| < ", n, ")");
  return n < 0 ? -1 : n - std::abs(offset);
}

// Position in the packed triangle of element (r, c) of an n x n matrix, or -1 outside it.
int64_t TrianIndex(int64_t r, int64_t c, int offset, bool lower) {
  if (offset > 0 || (offset == 0 && !lower)) std::swap(r, c);
  r -= std::abs(offset);
  return r >= c ? r * (r + 1) / 2 + c : -1;
}

// Shape inference of extractdiag/extracttrian: the batch dims of square input A (..., n, n);
// sets *n (-1 if unknown).
Shape SquareBatchDims(std::string_view op, const Shape& a, int64_t* n) {
  NeedSquare(op, a);
  Shape o;
  for (int i = 0; i < a.ndim() - 2; ++i) o.push_back(a[i]);
  *n = a[a.ndim() - 1] >= 0 ? a[a.ndim() - 1] : a[a.ndim() - 2];
  return o;
}

// Shape inference of makediag/maketrian: the batch dims of input A (..., k), at least 1-d.
Shape VectorBatchDims(std::string_view op, const Shape& a) {
  if (a.ndim() < 1)
    MX_THROW(kBad, op, ": input A must have at least 1 dimension, got shape ", a.ToString());
  Shape o;
  for (int i = 0; i < a.ndim() - 1; ++i) o.push_back(a[i]);
  return o;
}

// extractdiag (kMake false): (..., n, n) -> (..., m); makediag (kMake true): the inverse,
// zero off the `offset` diagonal. m = n - |offset|.
template <bool kMake>
void DiagCompute(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  int k = attrs.get<LinalgDiagParam>().offset;
  const Shape& s = (kMake ? out : in)[0].shape();
  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s), m = n - std::abs(k);
  Vec a = Load(in[0]), o(kMake ? nb * n * n : nb * m, 0.0);
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t i = 0; i < m; ++i) {
      int64_t full = b * n * n + (i - std::min(k, 0)) * n + i + std::max(k, 0);
      if (kMake)
        o[full] = a[b * m + i];
      else
        o[b * m + i] = a[full];
    }
  Store(out[0], o);
}

// extracttrian (kMake false): (..., n, n) -> (..., len) packed row by row; maketrian (kMake
// true): the inverse, zero outside the triangle. len = m(m+1)/2, m = n - |offset|.
template <bool kMake>
void TrianCompute(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const auto& p = attrs.get<LinalgTrianParam>();
  const Shape& s = (kMake ? out : in)[0].shape();
  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s), m = n - std::abs(p.offset),
          len = m * (m + 1) / 2;
  Vec a = Load(in[0]), o(kMake ? nb * n * n : nb * len, 0.0);
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < n; ++c) {
        int64_t t = TrianIndex(r, c, p.offset, p.lower);
        if (t < 0) continue;
        if (kMake)
          o[b * n * n + r * n + c] = a[b * len + t];
        else
          o[b * len + t] = a[b * n * n + r * n + c];
      }
  Store(out[0], o);
}

// The gradient of a linear op whose adjoint is the op `adjoint` with the same parameters P.
template <typename P>
FGradient AdjointGrad(const char* adjoint) {
  return [adjoint](GradBuilder& b, const OpAttrs& attrs, GV, GV, GV og) {
    return Grads{b.CallP(adjoint, {og[0]}, attrs.get<P>())};
  };
}

MX_REGISTER_OP(_linalg_extractdiag)
    .describe(
        "The `offset` diagonal of square matrices: (..., n, n) -> (..., n - |offset|) (MXNet's "
        "linalg.extractdiag).")
    .add_alias("linalg_extractdiag")
    .set_params<LinalgDiagParam>()
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& a = (*in)[0];
      if (!a.ndim_known()) return;
      int64_t n;
      Shape o = SquareBatchDims("_linalg_extractdiag", a, &n);
      o.push_back(DiagLen("_linalg_extractdiag", n, attrs.get<LinalgDiagParam>().offset));
      MergeShape(&(*out)[0], o, "_linalg_extractdiag: output");
    })
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, DiagCompute<false>)
    .set_gradient(AdjointGrad<LinalgDiagParam>("_linalg_makediag"), false, false);

MX_REGISTER_OP(_linalg_makediag)
    .describe(
        "Square matrices with the input on the `offset` diagonal, zero elsewhere: (..., k) -> "
        "(..., k + |offset|, k + |offset|) (MXNet's linalg.makediag).")
    .add_alias("linalg_makediag")
    .set_params<LinalgDiagParam>()
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& a = (*in)[0];
      if (!a.ndim_known()) return;
      Shape o = VectorBatchDims("_linalg_makediag", a);
      int64_t k = a[a.ndim() - 1];
      int64_t n = k < 0 ? -1 : k + std::abs(attrs.get<LinalgDiagParam>().offset);
      o.push_back(n);
      o.push_back(n);
      MergeShape(&(*out)[0], o, "_linalg_makediag: output");
    })
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, DiagCompute<true>)
    .set_gradient(AdjointGrad<LinalgDiagParam>("_linalg_extractdiag"), false, false);

MX_REGISTER_OP(_linalg_extracttrian)
    .describe(
        "A triangle of square matrices, packed row by row: (..., n, n) -> (..., m(m+1)/2), "
        "m = n - |offset| (MXNet's linalg.extracttrian).")
    .add_alias("linalg_extracttrian")
    .set_params<LinalgTrianParam>()
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& a = (*in)[0];
      if (!a.ndim_known()) return;
      int64_t n;
      Shape o = SquareBatchDims("_linalg_extracttrian", a, &n);
      int64_t m = DiagLen("_linalg_extracttrian", n, attrs.get<LinalgTrianParam>().offset);
      o.push_back(m < 0 ? -1 : m * (m + 1) / 2);
      MergeShape(&(*out)[0], o, "_linalg_extracttrian: output");
    })
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, TrianCompute<false>)
    .set_gradient(AdjointGrad<LinalgTrianParam>("_linalg_maketrian"), false, false);

MX_REGISTER_OP(_linalg_maketrian)
    .describe(
        "Square matrices from packed triangles (the inverse of extracttrian): (..., m(m+1)/2) -> "
        "(..., m + |offset|, m + |offset|), zero outside the triangle (MXNet's "
        "linalg.maketrian).")
    .add_alias("linalg_maketrian")
    .set_params<LinalgTrianParam>()
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& a = (*in)[0];
      if (!a.ndim_known()) return;
      Shape o = VectorBatchDims("_linalg_maketrian", a);
      int64_t len = a[a.ndim() - 1], n = -1;
      if (len >= 0) {
        auto m = static_cast<int64_t>(std::floor((std::sqrt(8.0 * len + 1) - 1) / 2));
        if (m * (m + 1) / 2 != len)
          MX_THROW(kBad, "_linalg_maketrian: the last axis of A ", a.ToString(), " has ", len,
                   " entries, which is not a triangular number m(m+1)/2");
        n = m + std::abs(attrs.get<LinalgTrianParam>().offset);
      }
      o.push_back(n);
      o.push_back(n);
      MergeShape(&(*out)[0], o, "_linalg_maketrian: output");
    })
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, TrianCompute<true>)
    .set_gradient(AdjointGrad<LinalgTrianParam>("_linalg_extracttrian"), false, false);

// copyLTU(M): the symmetric matrix whose lower triangle (with the diagonal) is M's. Its adjoint
// maps G to tril(G) + triu(G, 1)^T. Each is the other's gradient.
template <bool kAdjoint>
void CopyLtuCompute(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const Shape& s = in[0].shape();
  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s);
  Vec a = Load(in[0]), o(a.size(), 0.0);
  for (int64_t b = 0; b < nb; ++b) {
    const double* x = a.data() + b * n * n;
    double* y = o.data() + b * n * n;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        if (kAdjoint) {
          y[i * n + j] = x[i * n + j] + (i == j ? 0.0 : x[j * n + i]);
        } else {
          y[i * n + j] = y[j * n + i] = x[i * n + j];
        }
      }
  }
  Store(out[0], o);
}

MX_REGISTER_OP(_linalg_copyltu)
    .describe(
        "Symmetric matrices from the lower triangles (with diagonals) of square matrices "
        "(MXNet's copyLTU in the potrf/gelqf gradients).")
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape(SquareSameShape)
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyLtuCompute<false>)
    .set_gradient([](GradBuilder& b, const OpAttrs&, GV, GV,
                     GV og) { return Grads{b.Call("_linalg_copyltu_adj", {og[0]})}; },
                  false, false);

MX_REGISTER_OP(_linalg_copyltu_adj)
    .describe("Adjoint of _linalg_copyltu: tril(G) + triu(G, 1)^T, zero above the diagonal.")
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape(SquareSameShape)
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyLtuCompute<true>)
    .set_gradient([](GradBuilder& b, const OpAttrs&, GV, GV,
                     GV og) { return Grads{b.Call("_linalg_copyltu", {og[0]})}; },
                  false, false);

// ---- inverse, det, slogdet (LU with partial pivoting) ----
MX_REGISTER_OP(_linalg_inverse)
    .describe(
        "Inverse of square matrices (LU with partial pivoting); an exactly singular matrix is an "
        "error (MXNet's linalg.inverse).")
    .add_alias("linalg_inverse")
    .add_alias("_npi_inv")
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape(SquareSameShape)
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s);
                  Vec a = Load(in[0]), o(a.size());
                  for (int64_t b = 0; b < nb; ++b) {
                    int swaps = 0;
                    double* m = a.data() + b * n * n;
                    std::vector<int64_t> piv = Lu(m, n, &swaps);
                    for (int64_t i = 0; i < n; ++i)
                      if (m[i * n + i] == 0)
                        MX_THROW(kBad, "_linalg_inverse: matrix ", b, " of input A ", s.ToString(),
                                 " is singular (zero pivot in column ", i, ")");
                    Vec inv = LuInverse(m, piv, n);
                    std::copy(inv.begin(), inv.end(), o.begin() + b * n * n);
                  }
                  Store(out[0], o);
                })
    .set_gradient(
        // dA = -out^T * dOut * out^T.
        [](GradBuilder& b, const OpAttrs&, GV, GV outs, GV og) {
          GradValue t = b.CallP("_linalg_gemm2", {og[0], outs[0]}, G2(false, true, 1, -2));
          return Grads{b.CallP("_linalg_gemm2", {outs[0], t}, G2(true, false, -1, -2))};
        },
        false, true);

// Per matrix: sign, log|det| and (if wanted) inv(A)^T.
void SignLogDet(const Vec& a, int64_t n, int64_t nb, Vec* sign, Vec* logabs) {
  for (int64_t b = 0; b < nb; ++b) {
    Vec m(a.begin() + b * n * n, a.begin() + (b + 1) * n * n);
    int swaps = 0;
    Lu(m.data(), n, &swaps);
    LuSignLog(m.data(), n, swaps, &(*sign)[b], &(*logabs)[b]);
  }
}

MX_REGISTER_OP(_linalg_det)
    .describe(
        "Determinant of square matrices: (..., n, n) -> (...), (1,) for one matrix (LU with "
        "partial pivoting; det = sign * exp(log|det|)) (MXNet's linalg.det).")
    .add_alias("linalg_det")
    .add_alias("_npi_det")
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape(SquareToBatch)
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s);
                  Vec sign(nb), logabs(nb), d(nb);
                  SignLogDet(Load(in[0]), n, nb, &sign, &logabs);
                  for (int64_t b = 0; b < nb; ++b) d[b] = sign[b] * std::exp(logabs[b]);
                  Store(out[0], d);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV outs, GV og) {
          return Grads{b.Call("_backward_linalg_det", {og[0], outs[0], in[0]})};
        },
        true, true);

MX_REGISTER_OP(_linalg_slogdet)
    .describe(
        "Sign and natural log of the absolute value of the determinant: (..., n, n) -> two "
        "arrays (...), (1,) for one matrix; a singular matrix gives sign 0 and -inf (MXNet's "
        "linalg.slogdet).")
    .add_alias("linalg_slogdet")
    .add_alias("_npi_slogdet")
    .set_input_names(std::vector<std::string>{"A"})
    .set_num_outputs(2)
    .set_output_names(std::vector<std::string>{"sign", "logabsdet"})
    .set_infer_shape(SquareToBatch)
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s);
                  Vec sign(nb), logabs(nb);
                  SignLogDet(Load(in[0]), n, nb, &sign, &logabs);
                  Store(out[0], sign);
                  Store(out[1], logabs);
                })
    .set_gradient(
        // The sign gets no gradient (MXNet).
        [](GradBuilder& b, const OpAttrs&, GV in, GV outs, GV og) {
          return Grads{b.Call("_backward_linalg_slogdet", {og[1], outs[1], in[0]})};
        },
        true, true);

// dA = scale * inv(A)^T per matrix, zero where `value` equals `zero_at` (det 0 / log|det| -inf),
// with scale = ograd * det (det) or ograd (slogdet).
template <bool kDet>
void DetBackward(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const Shape& s = in[2].shape();
  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s);
  Vec g = Load(in[0]), v = Load(in[1]), a = Load(in[2]), o(a.size(), 0.0);
  for (int64_t b = 0; b < nb; ++b) {
    if (kDet ? v[b] == 0 : v[b] == -INFINITY) continue;
    double* m = a.data() + b * n * n;
    int swaps = 0;
    std::vector<int64_t> piv = Lu(m, n, &swaps);
    Vec inv = LuInverse(m, piv, n);
    double scale = kDet ? g[b] * v[b] : g[b];
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) o[b * n * n + i * n + j] = scale * inv[j * n + i];
  }
  Store(out[0], o);
}

void DetBackwardShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  if ((*in)[2].ndim_known()) MergeShape(&(*out)[0], (*in)[2], OpName(attrs));
}

MX_REGISTER_OP(_backward_linalg_det)
    .describe("Gradient of _linalg_det: dA = dOut * det * inv(A)^T, zero where det is 0.")
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "det", "A"})
    .set_infer_shape(DetBackwardShape)
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, DetBackward<true>)
    .set_non_differentiable();

MX_REGISTER_OP(_backward_linalg_slogdet)
    .describe(
        "Gradient of _linalg_slogdet: dA = dlogabsdet * inv(A)^T, zero where log|det| is -inf.")
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "logabsdet", "A"})
    .set_infer_shape(DetBackwardShape)
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, DetBackward<false>)
    .set_non_differentiable();

// ---- gelqf: A = L * Q (Householder, LAPACK's gelqf + orglq conventions) ----
// row[i, n) times the reflector I - tau * v * v^T (v holds entries i..n-1).
void Reflect(double* row, const Vec& v, int64_t i, int64_t n, double tau) {
  double d = 0;
  for (int64_t j = i; j < n; ++j) d += row[j] * v[j - i];
  for (int64_t j = i; j < n; ++j) row[j] -= tau * d * v[j - i];
}

MX_REGISTER_OP(_linalg_gelqf)
    .describe(
        "LQ factorization A = L * Q of (..., m, n) matrices with m <= n: Q (..., m, n) "
        "row-orthonormal, L (..., m, m) lower triangular (MXNet's linalg.gelqf).")
    .add_alias("linalg_gelqf")
    .set_input_names(std::vector<std::string>{"A"})
    .set_num_outputs(2)
    .set_output_names(std::vector<std::string>{"Q", "L"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const Shape& a = (*in)[0];
      if (!a.ndim_known()) return;
      NeedMatrices("_linalg_gelqf", a);
      int nd = a.ndim();
      if (a[nd - 2] >= 0 && a[nd - 1] >= 0 && a[nd - 2] > a[nd - 1])
        MX_THROW(kBad, "_linalg_gelqf: input A ", a.ToString(),
                 " must have at most as many rows as columns (m <= n)");
      MergeShape(&(*out)[0], a, "_linalg_gelqf: output Q");
      Shape l = a;
      l[nd - 1] = a[nd - 2];
      MergeShape(&(*out)[1], l, "_linalg_gelqf: output L");
    })
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t m = s[s.ndim() - 2], n = s[s.ndim() - 1], nb = NumMatrices(s);
                  Vec a = Load(in[0]), q(nb * m * n), l(nb * m * m, 0.0);
                  for (int64_t b = 0; b < nb; ++b) {
                    double* w = a.data() + b * m * n;
                    std::vector<Vec> vs(m);
                    Vec tau(m, 0.0);
                    for (int64_t i = 0; i < m; ++i) {
                      double alpha = w[i * n + i], xn = 0;
                      for (int64_t j = i + 1; j < n; ++j) xn = std::hypot(xn, w[i * n + j]);
                      Vec v(n - i, 0.0);
                      v[0] = 1;
                      double beta = alpha;
                      if (xn != 0) {
                        beta = -std::copysign(std::hypot(alpha, xn), alpha);
                        tau[i] = (beta - alpha) / beta;
                        for (int64_t j = i + 1; j < n; ++j)
                          v[j - i] = w[i * n + j] / (alpha - beta);
                      }
                      w[i * n + i] = beta;
                      for (int64_t j = i + 1; j < n; ++j) w[i * n + j] = 0;
                      for (int64_t r = i + 1; r < m; ++r)  // rows below: times H_i
                        Reflect(w + r * n, v, i, n, tau[i]);
                      vs[i] = std::move(v);
                    }
                    for (int64_t r = 0; r < m; ++r)
                      for (int64_t c = 0; c <= r; ++c) l[b * m * m + r * m + c] = w[r * n + c];
                    double* qm = q.data() + b * m * n;  // rows of I_(m x n) * H_(m-1) ... H_0
                    for (int64_t r = 0; r < m; ++r)
                      for (int64_t c = 0; c < n; ++c) qm[r * n + c] = r == c;
                    for (int64_t i = m - 1; i >= 0; --i)
                      for (int64_t r = 0; r < m; ++r) Reflect(qm + r * n, vs[i], i, n, tau[i]);
                  }
                  Store(out[0], q);
                  Store(out[1], l);
                })
    .set_gradient(
        // dA = L^-T * (dQ + copyLTU(M) * Q), M = L^T * dL - dQ * Q^T.
        [](GradBuilder& b, const OpAttrs&, GV, GV outs, GV og) {
          GradValue Q = outs[0], L = outs[1];
          GradValue ltdl = b.CallP("_linalg_trmm", {L, og[1]}, Tr(true, false, true, 1.0));
          GradValue m = b.CallP("_linalg_gemm", {og[0], Q, ltdl}, G3(false, true, -1, 1, -2));
          GradValue s = b.Call("_linalg_copyltu", {m});
          GradValue y = b.CallP("_linalg_gemm", {s, Q, og[0]}, G3(false, false, 1, 1, -2));
          return Grads{b.CallP("_linalg_trsm", {L, y}, Tr(true, false, true, 1.0))};
        },
        false, true);

// ---- syevd: symmetric eigendecomposition by cyclic Jacobi rotations ----
// (x_k, y_k) -> (c x_k - sn y_k, sn x_k + c y_k) for the n pairs at x + k * step, y + k * step.
void Rotate(double* x, double* y, int64_t step, int64_t n, double c, double sn) {
  for (int64_t k = 0; k < n; ++k) {
    double xk = x[k * step], yk = y[k * step];
    x[k * step] = c * xk - sn * yk;
    y[k * step] = sn * xk + c * yk;
  }
}

void Jacobi(const double* a, int64_t n, double* u, double* lam) {
  Vec s(n * n), v(n * n, 0.0);
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    v[i * n + i] = 1;
    for (int64_t j = 0; j <= i; ++j) {
      s[i * n + j] = s[j * n + i] = a[i * n + j];  // lower triangle read
      total += (i == j ? 1 : 2) * a[i * n + j] * a[i * n + j];
    }
  }
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < i; ++j) off += 2 * s[i * n + j] * s[i * n + j];
    if (off == 0 || off <= 1e-30 * total) break;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double apq = s[p * n + q];
        if (apq == 0) continue;
        double theta = (s[q * n + q] - s[p * n + p]) / (2 * apq);
        double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        double c = 1 / std::sqrt(t * t + 1), sn = t * c;
        Rotate(&s[p], &s[q], n, n, c, sn);          // columns p, q of S
        Rotate(&s[p * n], &s[q * n], 1, n, c, sn);  // rows p, q of S
        Rotate(&v[p], &v[q], n, n, c, sn);          // columns p, q of V
      }
  }
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return s[x * n + x] < s[y * n + y]; });
  for (int64_t r = 0; r < n; ++r) {
    int64_t e = order[r];
    lam[r] = s[e * n + e];
    int64_t big = 0;  // MXNet: the largest-magnitude entry (first on ties) is positive
    for (int64_t k = 1; k < n; ++k)
      if (std::abs(v[k * n + e]) > std::abs(v[big * n + e])) big = k;
    double sg = v[big * n + e] < 0 ? -1.0 : 1.0;
    for (int64_t k = 0; k < n; ++k) u[r * n + k] = sg * v[k * n + e];
  }
}

MX_REGISTER_OP(_linalg_syevd)
    .describe(
        "Eigendecomposition of symmetric matrices (lower triangle read): U (..., n, n) with "
        "orthonormal eigenvector rows, L (..., n) ascending, U * A = diag(L) * U; each row's "
        "largest-magnitude entry is positive (MXNet's linalg.syevd).")
    .set_input_names(std::vector<std::string>{"A"})
    .set_num_outputs(2)
    .set_output_names(std::vector<std::string>{"U", "L"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const Shape& a = (*in)[0];
      if (!a.ndim_known()) return;
      NeedSquare("_linalg_syevd", a);
      MergeShape(&(*out)[0], a, "_linalg_syevd: output U");
      Shape l;
      for (int i = 0; i < a.ndim() - 1; ++i) l.push_back(a[i]);
      if (l[l.ndim() - 1] < 0) l[l.ndim() - 1] = a[a.ndim() - 1];
      MergeShape(&(*out)[1], l, "_linalg_syevd: output L");
    })
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s);
                  Vec a = Load(in[0]), u(a.size()), l(nb * n);
                  for (int64_t b = 0; b < nb; ++b)
                    Jacobi(a.data() + b * n * n, n, u.data() + b * n * n, l.data() + b * n);
                  Store(out[0], u);
                  Store(out[1], l);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV, GV outs, GV og) {
          return Grads{b.Call("_backward_linalg_syevd", {og[0], og[1], outs[0], outs[1]})};
        },
        false, true);

// dA = U^T * Y * U with X = dU * U^T, Y_ij = Y_ji = (X_ij - X_ji) / (2 max(L_i - L_j, eps)) for
// i > j, Y_ii = dL_i (MXNet's syevd backward; eps 1e-30 float32, 1e-100 float64).
MX_REGISTER_OP(_backward_linalg_syevd)
    .describe("Gradient of _linalg_syevd (MXNet's formula for distinct eigenvalues).")
    .set_num_inputs(4)
    .set_input_names(std::vector<std::string>{"dU", "dL", "U", "L"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      if ((*in)[2].ndim_known()) MergeShape(&(*out)[0], (*in)[2], "_backward_linalg_syevd");
    })
    .set_infer_type(LinalgType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[2].shape();
                  int64_t n = s[s.ndim() - 1], nb = NumMatrices(s);
                  double eps = in[2].dtype() == DType::kFloat32 ? 1e-30 : 1e-100;
                  Vec du = Load(in[0]), dl = Load(in[1]), u = Load(in[2]), l = Load(in[3]);
                  Vec o(u.size());
                  for (int64_t b = 0; b < nb; ++b) {
                    const double* U = u.data() + b * n * n;
                    const double* L = l.data() + b * n;
                    Vec x(n * n), y(n * n), t(n * n);
                    Gemm(du.data() + b * n * n, U, x.data(), n, n, n, false, true, 1, 0);
                    for (int64_t i = 0; i < n; ++i) {
                      y[i * n + i] = dl[b * n + i];
                      for (int64_t j = 0; j < i; ++j) {
                        double den = std::max(L[i] - L[j], eps) * 2;
                        y[i * n + j] = y[j * n + i] = (x[i * n + j] - x[j * n + i]) / den;
                      }
                    }
                    Gemm(U, y.data(), t.data(), n, n, n, true, false, 1, 0);
                    Gemm(t.data(), U, o.data() + b * n * n, n, n, n, false, false, 1, 0);
                  }
                  Store(out[0], o);
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops

// ---------------------------------------------------------------------------------------------
namespace mxnet::nd {
namespace {
NDArray Call0(const Op& op, std::initializer_list<NDArray> in) {
  return Call(op, NoAttrs(op), in)[0];
}
std::pair<NDArray, NDArray> Call2(const Op& op, const NDArray& a) {
  NDArrayVec o = Call(op, NoAttrs(op), {a});
  return {o[0], o[1]};
}
}  // namespace

NDArray linalg_gemm(const NDArray& A, const NDArray& B, const NDArray& C,
                    const LinalgGemmOptions& opts) {
  const Op& op = MX_ND_OP(_linalg_gemm);
  return Call(op, OpAttrs::From(op, opts), {A, B, C})[0];
}
NDArray linalg_gemm2(const NDArray& A, const NDArray& B, const LinalgGemm2Options& opts) {
  const Op& op = MX_ND_OP(_linalg_gemm2);
  return Call(op, OpAttrs::From(op, opts), {A, B})[0];
}
NDArray linalg_potrf(const NDArray& A) { return Call0(MX_ND_OP(_linalg_potrf), {A}); }
NDArray linalg_potri(const NDArray& A) { return Call0(MX_ND_OP(_linalg_potri), {A}); }
NDArray linalg_trmm(const NDArray& A, const NDArray& B, const LinalgTriangOptions& opts) {
  const Op& op = MX_ND_OP(_linalg_trmm);
  return Call(op, OpAttrs::From(op, opts), {A, B})[0];
}
NDArray linalg_trsm(const NDArray& A, const NDArray& B, const LinalgTriangOptions& opts) {
  const Op& op = MX_ND_OP(_linalg_trsm);
  return Call(op, OpAttrs::From(op, opts), {A, B})[0];
}
NDArray linalg_syrk(const NDArray& A, bool transpose, double alpha) {
  const Op& op = MX_ND_OP(_linalg_syrk);
  ops::LinalgSyrkParam p;
  p.transpose = transpose;
  p.alpha = alpha;
  return Call(op, OpAttrs::From(op, p), {A})[0];
}
NDArray linalg_sumlogdiag(const NDArray& A) { return Call0(MX_ND_OP(_linalg_sumlogdiag), {A}); }
NDArray linalg_extractdiag(const NDArray& A, int offset) {
  const Op& op = MX_ND_OP(_linalg_extractdiag);
  ops::LinalgDiagParam p;
  p.offset = offset;
  return Call(op, OpAttrs::From(op, p), {A})[0];
}
NDArray linalg_makediag(const NDArray& A, int offset) {
  const Op& op = MX_ND_OP(_linalg_makediag);
  ops::LinalgDiagParam p;
  p.offset = offset;
  return Call(op, OpAttrs::From(op, p), {A})[0];
}
NDArray linalg_extracttrian(const NDArray& A, int offset, bool lower) {
  const Op& op = MX_ND_OP(_linalg_extracttrian);
  ops::LinalgTrianParam p;
  p.offset = offset;
  p.lower = lower;
  return Call(op, OpAttrs::From(op, p), {A})[0];
}
NDArray linalg_maketrian(const NDArray& A, int offset, bool lower) {
  const Op& op = MX_ND_OP(_linalg_maketrian);
  ops::LinalgTrianParam p;
  p.offset = offset;
  p.lower = lower;
  return Call(op, OpAttrs::From(op, p), {A})[0];
}
NDArray linalg_inverse(const NDArray& A) { return Call0(MX_ND_OP(_linalg_inverse), {A}); }
NDArray linalg_det(const NDArray& A) { return Call0(MX_ND_OP(_linalg_det), {A}); }
std::pair<NDArray, NDArray> linalg_slogdet(const NDArray& A) {
  return Call2(MX_ND_OP(_linalg_slogdet), A);
}
std::pair<NDArray, NDArray> linalg_gelqf(const NDArray& A) {
  return Call2(MX_ND_OP(_linalg_gelqf), A);
}
std::pair<NDArray, NDArray> linalg_syevd(const NDArray& A) {
  return Call2(MX_ND_OP(_linalg_syevd), A);
}

}  // namespace mxnet::nd
