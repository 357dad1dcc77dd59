// MXNet 1.9.1's mx.np.linalg.svd, pinv and norm as ops; matrices in double, per matrix of the
// batch (one-sided Jacobi SVD):
//   _npi_svd (A (..., m, n), m <= n) -> UT (..., m, m), L (..., m) descending, V (..., m, n) with
//     A = UT diag(L) V, V's rows orthonormal; each row of V has its largest-magnitude entry
//     positive (the first on ties; UT's column flipped with it), MXNet's sign convention.
//     float32/float64 only. Gradient (_backward_npi_svd): the SVD derivative (Townsend,
//     "Differentiating the Singular Value Decomposition", 2016) for distinct singular values.
//   _npi_pinv (A (..., m, n), rcond (batch dims or ()); hermitian=False) and
//   _npi_pinv_scalar_rcond (A; rcond=1e-15, hermitian) -> (..., n, m): numpy.linalg.pinv, singular
//     values <= rcond * the largest dropped. float32 stays float32, other dtypes give float64
//     (float16 rejected). hermitian only selects MXNet's algorithm (same result here). MXNet gives
//     zero gradients: not differentiable here.
//   _npi_norm (data; ord=2, axis=None, keepdims=False, flag=-1): the op behind mx.np.linalg.norm.
//     flag -2 with axis None: the 2-norm of all elements. One or more than two axes (None: the
//     last axis of a 1-d x): the vector ord-norm (sum |x|^ord)^(1/ord) over them (ord 0: count of
//     nonzeros; +-inf: max/min |x|, which mx.np's front end does itself). Two axes (None: the last
//     two of an N-d x, N >= 2), rows then columns: flag 1 Frobenius; ord 2 / -2 the largest /
//     smallest singular value (flag 2: the nuclear norm, their sum); ord 1 / -1 the max / min
//     column sum of |x|; other ords (inf) max / min row sum. Empty input: zeros. Out dtype = in
//     dtype (integers: the norm truncated; MXNet warns its integer kernels are not NumPy's).
//     Gradient (_backward_npi_norm) for every form: subgradients at the max/min entry, row or
//     column (the first on ties), sign(0) = 0; u v^T of the singular value for +-2, U V^T nuclear.
// Source: src/operator/numpy/linalg/np_gesvd-inl.h, np_pinv-inl.h, np_norm-inl.h (MXNet
// 1.9.1); NumPy's documentation of svd, pinv and norm.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/params.h"

namespace mxnet::ops {
namespace {

using Vec = std::vector<double>;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;
constexpr auto kBad = absl::StatusCode::kInvalidArgument;
using reduce_internal::OpName;

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

// Thin SVD of the row-major m x n matrix a (m <= n): a = u diag(s) w, u m x m orthogonal,
// s descending, w m x n orthonormal rows; MXNet's signs.
void Svd(const double* a, int64_t m, int64_t n, double* u, double* s, double* w) {
  Vec r(a, a + m * n), q(m * m, 0.0);
  for (int64_t i = 0; i < m; ++i) q[i * m + i] = 1.0;
  for (int sweep = 0; sweep < 80; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < m; ++p)
      for (int64_t k = p + 1; k < m; ++k) {
        double al = 0, be = 0, ga = 0;
        for (int64_t j = 0; j < n; ++j) {
          al += r[p * n + j] * r[p * n + j];
          be += r[k * n + j] * r[k * n + j];
          ga += r[p * n + j] * r[k * n + j];
        }
        if (std::abs(ga) <= 1e-15 * std::sqrt(al * be) || ga == 0) continue;
        rotated = true;
        double zeta = (be - al) / (2 * ga);
        double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        double c = 1 / std::sqrt(1 + t * t), sn = c * t;
        for (int64_t j = 0; j < n; ++j) {
          double x = r[p * n + j], y = r[k * n + j];
          r[p * n + j] = c * x - sn * y, r[k * n + j] = sn * x + c * y;
        }
        for (int64_t j = 0; j < m; ++j) {  // a = q r: columns p, k of q
          double x = q[j * m + p], y = q[j * m + k];
          q[j * m + p] = c * x - sn * y, q[j * m + k] = sn * x + c * y;
        }
      }
    if (!rotated) break;
  }
  Vec norm(m);
  for (int64_t i = 0; i < m; ++i) {
    double acc = 0;
    for (int64_t j = 0; j < n; ++j) acc += r[i * n + j] * r[i * n + j];
    norm[i] = std::sqrt(acc);
  }
  std::vector<int64_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return norm[x] > norm[y]; });
  for (int64_t i = 0; i < m; ++i) {
    int64_t src = order[i];
    s[i] = norm[src];
    for (int64_t j = 0; j < n; ++j) w[i * n + j] = norm[src] > 0 ? r[src * n + j] / norm[src] : 0.0;
    for (int64_t j = 0; j < m; ++j) u[j * m + i] = q[j * m + src];
  }
  // Rows of w for zero singular values: an orthonormal completion (Gram-Schmidt of unit vectors).
  for (int64_t i = 0; i < m; ++i) {
    if (s[i] > 0) continue;
    for (int64_t e = 0; e < n; ++e) {
      Vec v(n, 0.0);
      v[e] = 1.0;
      for (int64_t k = 0; k < m; ++k) {
        if (k == i || (s[k] == 0 && k > i)) continue;
        double d = 0;
        for (int64_t j = 0; j < n; ++j) d += v[j] * w[k * n + j];
        for (int64_t j = 0; j < n; ++j) v[j] -= d * w[k * n + j];
      }
      double nv = 0;
      for (double x : v) nv += x * x;
      if (nv > 1e-6) {
        for (int64_t j = 0; j < n; ++j) w[i * n + j] = v[j] / std::sqrt(nv);
        break;
      }
    }
  }
  for (int64_t i = 0; i < m; ++i) {  // MXNet: largest |entry| of each row of w positive
    int64_t big = 0;
    for (int64_t j = 1; j < n; ++j)
      if (std::abs(w[i * n + j]) > std::abs(w[i * n + big])) big = j;
    if (w[i * n + big] < 0) {
      for (int64_t j = 0; j < n; ++j) w[i * n + j] = -w[i * n + j];
      for (int64_t j = 0; j < m; ++j) u[j * m + i] = -u[j * m + i];
    }
  }
}

// Singular values and (optionally) vectors of any m x n matrix: a = u diag(s) w with k = min(m, n)
// (u m x k, w k x n).
void SvdAny(const double* a, int64_t m, int64_t n, Vec* u, Vec* s, Vec* w) {
  int64_t k = std::min(m, n);
  s->assign(k, 0);
  if (m <= n) {
    u->assign(m * m, 0), w->assign(m * n, 0);
    Svd(a, m, n, u->data(), s->data(), w->data());
    return;
  }
  Vec at(n * m);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) at[j * m + i] = a[i * n + j];
  Vec uu(n * n), ww(n * m);
  Svd(at.data(), n, m, uu.data(), s->data(), ww.data());  // a^T = uu s ww -> a = ww^T s uu^T
  u->assign(m * k, 0), w->assign(k * n, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t c = 0; c < k; ++c) (*u)[i * k + c] = ww[c * m + i];
  for (int64_t c = 0; c < k; ++c)
    for (int64_t j = 0; j < n; ++j) (*w)[c * n + j] = uu[j * n + c];
}

void FloatOnly(const OpAttrs& a, int t) {
  auto d = static_cast<DType>(t);
  if (d != DType::kFloat32 && d != DType::kFloat64)
    MX_THROW(kBad, OpName(a), ": dtype ", DTypeName(d), " is not supported (float32, float64)");
}

// ---- svd ----
void SvdShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  const Shape& s = (*in)[0];
  if (!s.is_known()) return;
  if (s.ndim() < 2)
    MX_THROW(kBad, "_npi_svd: input A must be at least 2-D, got shape ", s.ToString());
  int64_t m = s[s.ndim() - 2], n = s[s.ndim() - 1];
  if (m > n)
    MX_THROW(kBad, "_npi_svd: input A of shape ", s.ToString(),
             " must not have more rows than columns (MXNet's requirement)");
  Shape ut = s, l;
  ut[s.ndim() - 1] = m;
  for (int i = 0; i < s.ndim() - 1; ++i) l.push_back(s[i]);
  MergeShape(&(*out)[0], ut, "_npi_svd: output UT");
  MergeShape(&(*out)[1], l, "_npi_svd: output L");
  MergeShape(&(*out)[2], s, "_npi_svd: output V");
}

void SvdKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  const Shape& s = in[0].shape();
  int64_t m = s[s.ndim() - 2], n = s[s.ndim() - 1];
  int64_t nb = m * n == 0 ? 0 : s.Size() / (m * n);
  Vec a = Load(in[0]), ut(nb * m * m), l(nb * m), v(nb * m * n);
  for (int64_t b = 0; b < nb; ++b)
    Svd(a.data() + b * m * n, m, n, ut.data() + b * m * m, l.data() + b * m, v.data() + b * m * n);
  Store(out[0], ut);
  Store(out[1], l);
  Store(out[2], v);
}

// dA of A = U S W (m <= n) from dU, dS, dW: Townsend's formula for A^T = W^T S U^T.
void SvdBackward(int64_t m, int64_t n, const double* du, const double* ds, const double* dw,
                 const double* u, const double* s, const double* w, double* da) {
  // Tall form: X = A^T (n x m) = P S Q^T with P = W^T (n x m), Q = U (m x m).
  // dX = P [ (F o (P^T dP - dP^T P)) S + diag(dS) + S (F o (Q^T dQ - dQ^T Q)) ] Q^T
  //      + (I - P P^T) dP S^-1 Q^T
  auto P = [&](int64_t i, int64_t j) { return w[j * n + i]; };
  auto dP = [&](int64_t i, int64_t j) { return dw[j * n + i]; };
  Vec ptdp(m * m, 0), qtdq(m * m, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double x = 0, y = 0;
      for (int64_t k = 0; k < n; ++k) x += P(k, i) * dP(k, j);
      for (int64_t k = 0; k < m; ++k) y += u[k * m + i] * du[k * m + j];
      ptdp[i * m + j] = x, qtdq[i * m + j] = y;
    }
  Vec mid(m * m, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < m; ++j) {
      if (i == j) {
        mid[i * m + j] = ds[i];
        continue;
      }
      double f = s[j] * s[j] - s[i] * s[i];
      f = f == 0 ? 0 : 1 / f;
      mid[i * m + j] = f * (ptdp[i * m + j] - ptdp[j * m + i]) * s[j] +
                       s[i] * f * (qtdq[i * m + j] - qtdq[j * m + i]);
    }
  // dX = P mid Q^T + (dP - P (P^T dP)) S^-1 Q^T
  Vec left(n * m, 0);  // P mid + (dP - P P^T dP) S^-1
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double x = 0, y = 0;
      for (int64_t k = 0; k < m; ++k) x += P(i, k) * mid[k * m + j], y += P(i, k) * ptdp[k * m + j];
      left[i * m + j] = x + (s[j] > 0 ? (dP(i, j) - y) / s[j] : 0.0);
    }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) {
      double x = 0;
      for (int64_t k = 0; k < m; ++k) x += left[i * m + k] * u[j * m + k];
      da[j * n + i] = x;  // dA = dX^T
    }
}

void SvdBackwardKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  const Shape& s = in[5].shape();
  int64_t m = s[s.ndim() - 2], n = s[s.ndim() - 1];
  int64_t nb = m * n == 0 ? 0 : s.Size() / (m * n);
  Vec du = Load(in[0]), dl = Load(in[1]), dv = Load(in[2]), ut = Load(in[3]), l = Load(in[4]),
      v = Load(in[5]), da(nb * m * n);
  for (int64_t b = 0; b < nb; ++b)
    SvdBackward(m, n, du.data() + b * m * m, dl.data() + b * m, dv.data() + b * m * n,
                ut.data() + b * m * m, l.data() + b * m, v.data() + b * m * n,
                da.data() + b * m * n);
  Store(out[0], da);
}

MX_REGISTER_OP(_npi_svd)
    .describe(
        "Thin SVD (mx.np.linalg.svd): A (..., m, n), m <= n -> UT (..., m, m), L (..., m) "
        "descending, V (..., m, n) with A = UT diag(L) V; rows of V have their largest entry "
        "positive.")
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"A"})
    .set_num_outputs(3)
    .set_output_names(std::vector<std::string>{"UT", "L", "V"})
    .set_infer_shape(SvdShape)
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      if ((*in)[0] < 0) return;
      FloatOnly(a, (*in)[0]);
      for (auto& t : *out) MergeType(&t, (*in)[0], "_npi_svd: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SvdKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV, GV out, GV og) {
          GradValue g[3];
          for (int i = 0; i < 3; ++i) g[i] = og[i].valid() ? og[i] : b.ZerosLike(out[i]);
          return Grads{b.Call("_backward_npi_svd", {g[0], g[1], g[2], out[0], out[1], out[2]})};
        },
        false, true);

MX_REGISTER_OP(_backward_npi_svd)
    .describe("Gradient of _npi_svd: (dUT, dL, dV, UT, L, V) -> dA.")
    .set_num_inputs(6)
    .set_input_names(std::vector<std::string>{"dUT", "dL", "dV", "UT", "L", "V"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[5], "_backward_npi_svd: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[5], "_backward_npi_svd: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, SvdBackwardKernel)
    .set_non_differentiable();

// ---- pinv ----
struct NpPinvParam {
  bool hermitian = false;
  template <class D>
  static void Declare(D& d) {
    d.field("hermitian", &NpPinvParam::hermitian).describe("A is symmetric (same result here).");
  }
};
struct NpPinvScalarParam {
  double rcond = 1e-15;
  bool hermitian = false;
  template <class D>
  static void Declare(D& d) {
    d.field("rcond", &NpPinvScalarParam::rcond)
        .describe("Cutoff relative to the largest singular value.");
    d.field("hermitian", &NpPinvScalarParam::hermitian)
        .describe("A is symmetric (same result here).");
  }
};

void PinvShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  const Shape& s = (*in)[0];
  if (!s.is_known()) return;
  if (s.ndim() < 2)
    MX_THROW(kBad, OpName(a), ": input A must be at least 2-D, got shape ", s.ToString());
  Shape o = s;
  std::swap(o[s.ndim() - 1], o[s.ndim() - 2]);
  MergeShape(&(*out)[0], o, StrCat(OpName(a), ": output"));
  if (in->size() > 1 && (*in)[1].is_known()) {
    const Shape& r = (*in)[1];
    bool ok = r.Size() == 1 || r.ndim() <= s.ndim() - 2;
    for (int i = 0; ok && i < r.ndim(); ++i) {
      int64_t d = s[s.ndim() - 2 - r.ndim() + i];
      ok = r[i] == d || r[i] == 1;
    }
    if (!ok)
      MX_THROW(kBad, OpName(a), ": rcond of shape ", r.ToString(),
               " does not broadcast to the batch dims of A ", s.ToString());
  }
}

void PinvType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  int t = (*in)[0];
  if (t < 0) return;
  auto d = static_cast<DType>(t);
  if (d == DType::kFloat16 || d == DType::kBFloat16 || d == DType::kBool)
    MX_THROW(kBad, OpName(a), ": dtype ", DTypeName(d), " is not supported");
  if (in->size() > 1 && (*in)[1] >= 0) FloatOnly(a, (*in)[1]);
  MergeType(&(*out)[0], static_cast<int>(d == DType::kFloat32 ? DType::kFloat32 : DType::kFloat64),
            StrCat(OpName(a), ": output"));
}

void PinvCompute(std::span<const NDArray> in, const NDArray& out, const Vec& rc) {
  const Shape& s = in[0].shape();
  int64_t m = s[s.ndim() - 2], n = s[s.ndim() - 1];
  int64_t nb = m * n == 0 ? 0 : s.Size() / (m * n);
  Vec a = Load(in[0]), o(nb * n * m, 0.0);
  // rcond broadcast over the batch (right-aligned to the batch dims).
  Shape batch;
  for (int i = 0; i < s.ndim() - 2; ++i) batch.push_back(s[i]);
  Shape rs = in.size() > 1 ? in[1].shape() : Shape{};
  for (int64_t b = 0; b < nb; ++b) {
    int64_t ri = 0, rem = b, stride = 1;
    for (int i = batch.ndim() - 1, j = rs.ndim() - 1; i >= 0; --i, --j) {
      int64_t c = rem % batch[i];
      rem /= batch[i];
      if (j >= 0) {
        if (rs[j] != 1) ri += c * stride;
        stride *= rs[j];
      }
    }
    double rcond = rc.size() == 1 ? rc[0] : rc[ri];
    Vec u, sv, w;
    SvdAny(a.data() + b * m * n, m, n, &u, &sv, &w);
    int64_t k = sv.size();
    double cut = rcond * (k ? *std::max_element(sv.begin(), sv.end()) : 0.0);
    double* p = o.data() + b * n * m;
    for (int64_t c = 0; c < k; ++c) {
      if (!(sv[c] > cut)) continue;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < m; ++j) p[i * m + j] += w[c * n + i] * u[j * k + c] / sv[c];
    }
  }
  Store(out, o);
}

MX_REGISTER_OP(_npi_pinv)
    .describe(
        "Pseudo-inverse (mx.np.linalg.pinv): A (..., m, n), rcond (batch dims or ()) -> "
        "(..., n, m); singular values <= rcond * the largest are dropped.")
    .set_params<NpPinvParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"A", "rcond"})
    .set_infer_shape(PinvShape)
    .set_infer_type(PinvType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) { PinvCompute(in, out[0], Load(in[1])); })
    .set_non_differentiable();

MX_REGISTER_OP(_npi_pinv_scalar_rcond)
    .describe("Pseudo-inverse with a scalar rcond: A (..., m, n) -> (..., n, m).")
    .set_params<NpPinvScalarParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape(PinvShape)
    .set_infer_type(PinvType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  PinvCompute(in, out[0], Vec{a.get<NpPinvScalarParam>().rcond});
                })
    .set_non_differentiable();

// ---- norm ----
struct NpNormParam {
  double ord = 2;
  std::optional<Shape> axis;
  bool keepdims = false;
  int flag = -1;
  template <class D>
  static void Declare(D& d) {
    d.field("ord", &NpNormParam::ord).describe("Order of the norm.");
    d.field("axis", &NpNormParam::axis)
        .describe("One or more axes (vector norm), two (matrix norm), None (by x's rank).");
    d.field("keepdims", &NpNormParam::keepdims).describe("Keep the reduced axes as 1.");
    d.field("flag", &NpNormParam::flag)
        .describe(
            "mx.np's code: -2 flattened 2-norm, -1 by ord, 0 spectral, 1 Frobenius, 2 nuclear.");
  }
};

// The reduced axes (in the given order) and whether it is a matrix norm.
struct NormPlan {
  std::vector<int> axes;
  bool matrix = false, flat = false;
};

NormPlan PlanNorm(const OpAttrs& a, const Shape& s) {
  const auto& p = a.get<NpNormParam>();
  NormPlan r;
  int nd = s.ndim();
  if (!p.axis) {
    if (p.flag == -2 || nd == 0) {
      r.flat = true;
      for (int i = 0; i < nd; ++i) r.axes.push_back(i);
      return r;
    }
    if (nd >= 2)
      r.axes = {nd - 2, nd - 1};
    else
      r.axes = {nd - 1};
  } else {
    for (int64_t ax : *p.axis) {
      int k = reduce_internal::CheckAxis("_npi_norm", ax, s, "axis");
      if (std::find(r.axes.begin(), r.axes.end(), k) != r.axes.end())
        MX_THROW(kBad, "_npi_norm: axis ", ax, " is repeated in ", p.axis->ToString());
      r.axes.push_back(k);
    }
  }
  r.matrix = r.axes.size() == 2 && !r.flat;
  if (r.matrix && p.flag != 1 && std::isinf(p.ord) == false && p.ord != 1 && p.ord != -1 &&
      p.ord != 2 && p.ord != -2)
    MX_THROW(kBad, "_npi_norm: invalid norm order ", p.ord, " for matrices");
  return r;
}

Shape NormShape(const OpAttrs& a, const Shape& s) {
  NormPlan pl = PlanNorm(a, s);
  std::vector<int64_t> o;
  for (int i = 0; i < s.ndim(); ++i) {
    bool red = std::find(pl.axes.begin(), pl.axes.end(), i) != pl.axes.end();
    if (!red)
      o.push_back(s[i]);
    else if (a.get<NpNormParam>().keepdims)
      o.push_back(1);
  }
  return Shape(o);
}

// Offsets of the reduced elements of every output element (row-major over pl.axes in order).
std::vector<std::vector<int64_t>> NormGroups(const Shape& s, const std::vector<int>& axes) {
  int nd = s.ndim();
  std::vector<int64_t> st(nd, 1);
  for (int i = nd - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  std::vector<int> kept;
  for (int i = 0; i < nd; ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) kept.push_back(i);
  int64_t nk = 1, nr = 1;
  for (int i : kept) nk *= s[i];
  for (int i : axes) nr *= s[i];
  std::vector<std::vector<int64_t>> g(nk, std::vector<int64_t>(nr));
  for (int64_t k = 0; k < nk; ++k) {
    int64_t base = 0, r = k;
    for (int j = static_cast<int>(kept.size()) - 1; j >= 0; --j) {
      base += (r % s[kept[j]]) * st[kept[j]];
      r /= s[kept[j]];
    }
    for (int64_t m = 0; m < nr; ++m) {
      int64_t off = base, rr = m;
      for (int j = static_cast<int>(axes.size()) - 1; j >= 0; --j) {
        off += (rr % s[axes[j]]) * st[axes[j]];
        rr /= s[axes[j]];
      }
      g[k][m] = off;
    }
  }
  return g;
}

double Sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }

// One norm of values v (nr elements; a rows x cols matrix for matrix norms) and, if dv, its
// gradient for head gradient 1.
double NormOf(const NpNormParam& p, const NormPlan& pl, const Vec& v, int64_t rows, int64_t cols,
              Vec* dv) {
  size_t n = v.size();
  if (dv) dv->assign(n, 0.0);
  auto l2 = [&]() {
    double acc = 0;
    for (double x : v) acc += x * x;
    double y = std::sqrt(acc);
    if (dv && y > 0)
      for (size_t i = 0; i < n; ++i) (*dv)[i] = v[i] / y;
    return y;
  };
  if (pl.flat || (pl.matrix && p.flag == 1)) return l2();
  if (!pl.matrix) {
    double q = p.ord;
    if (std::isinf(q)) {  // max / min |x| (mx.np's front end; accepted here too)
      size_t best = 0;
      for (size_t i = 1; i < n; ++i)
        if (q > 0 ? std::abs(v[i]) > std::abs(v[best]) : std::abs(v[i]) < std::abs(v[best]))
          best = i;
      if (dv && n) (*dv)[best] = Sign(v[best]);
      return n ? std::abs(v[best]) : 0.0;
    }
    if (q == 0) {
      double c = 0;
      for (double x : v) c += x != 0;
      return c;
    }
    if (q == 1) {
      double acc = 0;
      for (size_t i = 0; i < n; ++i) acc += std::abs(v[i]);
      if (dv)
        for (size_t i = 0; i < n; ++i) (*dv)[i] = Sign(v[i]);
      return acc;
    }
    if (q == 2) return l2();
    double acc = 0;
    for (double x : v) acc += std::pow(std::abs(x), q);
    double y = std::pow(acc, 1.0 / q);
    if (dv && y > 0)
      for (size_t i = 0; i < n; ++i)
        (*dv)[i] = v[i] == 0 ? 0.0 : Sign(v[i]) * std::pow(std::abs(v[i]) / y, q - 1);
    return y;
  }
  if (p.ord == 2 || p.ord == -2) {  // spectral (flag 2: nuclear)
    bool tr = rows > cols;
    int64_t m = tr ? cols : rows, k = tr ? rows : cols;
    Vec a(n);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) a[tr ? j * rows + i : i * cols + j] = v[i * cols + j];
    Vec u(m * m), s(m), w(m * k);
    Svd(a.data(), m, k, u.data(), s.data(), w.data());
    auto grad_of = [&](int64_t c, double scale) {  // scale * u_c w_c^T, back in (rows, cols)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < k; ++j) {
          double g = scale * u[i * m + c] * w[c * k + j];
          (*dv)[tr ? j * cols + i : i * cols + j] += g;
        }
    };
    if (p.flag == 2) {
      double acc = 0;
      for (int64_t c = 0; c < m; ++c) {
        acc += s[c];
        if (dv) grad_of(c, 1.0);
      }
      return acc;
    }
    int64_t c = p.ord > 0 ? 0 : m - 1;
    if (dv && m) grad_of(c, 1.0);
    return m ? s[c] : 0.0;
  }
  // ord +-1: column sums of |x|; others (inf): row sums; max for ord > 0, min else.
  bool by_col = p.ord == 1 || p.ord == -1;
  int64_t groups = by_col ? cols : rows, len = by_col ? rows : cols;
  int64_t best = -1;
  double bv = 0;
  for (int64_t g = 0; g < groups; ++g) {
    double acc = 0;
    for (int64_t t = 0; t < len; ++t) acc += std::abs(v[by_col ? t * cols + g : g * cols + t]);
    if (best < 0 || (p.ord > 0 ? acc > bv : acc < bv)) best = g, bv = acc;
  }
  if (dv && best >= 0)
    for (int64_t t = 0; t < len; ++t) {
      int64_t i = by_col ? t * cols + best : best * cols + t;
      (*dv)[i] = Sign(v[i]);
    }
  return best < 0 ? 0.0 : bv;
}

// Forward (dx == nullptr) or backward: y per output element, dx = ograd * dnorm/dx.
void NormRun(const OpAttrs& a, const NDArray& x, Vec* y, const Vec* og, Vec* dx) {
  const auto& p = a.get<NpNormParam>();
  const Shape& s = x.shape();
  NormPlan pl = PlanNorm(a, s);
  auto groups = NormGroups(s, pl.axes);
  int64_t rows = pl.matrix ? s[pl.axes[0]] : 0, cols = pl.matrix ? s[pl.axes[1]] : 0;
  Vec xv = Load(x);
  y->assign(groups.size(), 0.0);
  if (dx) dx->assign(xv.size(), 0.0);
  Vec v, dv;
  for (size_t k = 0; k < groups.size(); ++k) {
    v.resize(groups[k].size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = xv[groups[k][i]];
    (*y)[k] = NormOf(p, pl, v, rows, cols, dx ? &dv : nullptr);
    if (dx)
      for (size_t i = 0; i < v.size(); ++i) (*dx)[groups[k][i]] += (*og)[k] * dv[i];
  }
}

MX_REGISTER_OP(_npi_norm)
    .describe(
        "The op of mx.np.linalg.norm: vector ord-norms over one or more axes, matrix norms "
        "(Frobenius, +-1, +-2, nuclear, +-inf rows) over two, the flattened 2-norm (flag -2).")
    .set_params<NpNormParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].is_known()) return;
      MergeShape(&(*out)[0], NormShape(a, (*in)[0]), "_npi_norm: output");
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      if ((*in)[0] >= 0 && static_cast<DType>((*in)[0]) == DType::kBool)
        MX_THROW(kBad, "_npi_norm: dtype bool is not supported");
      MergeType(&(*out)[0], (*in)[0], "_npi_norm: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  Vec y;
                  NormRun(a, in[0], &y, nullptr, nullptr);
                  Store(out[0], y);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.CallP("_backward_npi_norm", {og[0], in[0]}, a.get<NpNormParam>())};
        },
        true, false);

MX_REGISTER_OP(_backward_npi_norm)
    .describe("Gradient of _npi_norm: (ograd, data) -> ograd * d norm / d data.")
    .set_params<NpNormParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[1], "_backward_npi_norm: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_backward_npi_norm: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  Vec y, dx, og = Load(in[0]);
                  NormRun(a, in[1], &y, &og, &dx);
                  Store(out[0], dx);
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
