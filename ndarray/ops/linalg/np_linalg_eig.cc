// MXNet 1.9.1's mx.np.linalg.eigh and eigvalsh (_npi_eigh, _npi_eigvalsh;
// src/operator/numpy/linalg/np_eigvals.cc, np_eig.cc). Symmetric eigendecomposition by cyclic
// Jacobi in double, per matrix of the batch.
//
//   A (..., n, n); only the UPLO triangle ('L' lower, default; 'U' upper) is read.
//   _npi_eigvalsh -> w (..., n) ascending.
//   _npi_eigh     -> w (..., n) ascending, v (..., n, n) with the eigenvectors as columns
//                    (A v[:, i] = w[i] v[:, i]); each column's largest-magnitude entry is
//                    positive (MXNet's sign convention; the first one on ties).
//   Dtypes: float32 -> float32, float64 and integers -> float64; float16 and bool rejected.
//   MXNet registers no gradient for these ops: non-differentiable here.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/linalg/np_linalg_api.h"

namespace mxnet::ops {
namespace {

using Vec = std::vector<double>;

Vec Load(const NDArray& a) {
  Vec v(a.size());
  MX_DTYPE_SWITCH(a.dtype(), T, {
    const T* p = static_cast<const T*>(a.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(p[i]);
  });
  return v;
}

void Store(const NDArray& a, const Vec& v) {
  MX_DTYPE_SWITCH(a.dtype(), T, {
    T* p = static_cast<T*>(a.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
  });
}

// Eigenvalues w (ascending) and eigenvectors (columns of v, row-major n x n) of the symmetric
// matrix whose `lower` (else upper) triangle is a's.
void Jacobi(const double* a, int64_t n, bool lower, double* w, double* v) {
  Vec m(n * n), u(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      bool from_lower = lower ? i >= j : i <= j;
      m[i * n + j] = from_lower ? a[i * n + j] : a[j * n + i];
    }
  for (int64_t i = 0; i < n; ++i) u[i * n + i] = 1.0;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, diag = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) (i == j ? diag : off) += m[i * n + j] * m[i * n + j];
    if (off <= 1e-30 * diag || off == 0) break;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double apq = m[p * n + q];
        if (apq == 0) continue;
        double theta = (m[q * n + q] - m[p * n + p]) / (2 * apq);
        double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // columns p, q of m
          double x = m[k * n + p], y = m[k * n + q];
          m[k * n + p] = c * x - s * y, m[k * n + q] = s * x + c * y;
        }
        for (int64_t k = 0; k < n; ++k) {  // rows p, q of m
          double x = m[p * n + k], y = m[q * n + k];
          m[p * n + k] = c * x - s * y, m[q * n + k] = s * x + c * y;
        }
        for (int64_t k = 0; k < n; ++k) {  // eigenvector columns
          double x = u[k * n + p], y = u[k * n + q];
          u[k * n + p] = c * x - s * y, u[k * n + q] = s * x + c * y;
        }
      }
  }
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return m[x * n + x] < m[y * n + y]; });
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = order[i];
    w[i] = m[src * n + src];
    if (!v) continue;
    int64_t big = 0;
    for (int64_t k = 1; k < n; ++k)
      if (std::abs(u[k * n + src]) > std::abs(u[big * n + src])) big = k;
    double sign = u[big * n + src] < 0 ? -1.0 : 1.0;
    for (int64_t k = 0; k < n; ++k) v[k * n + i] = sign * u[k * n + src];
  }
}

void EigCompute(const OpAttrs& attrs, std::span<const NDArray> in, std::span<const NDArray> out) {
  const Shape& s = in[0].shape();
  int64_t n = s[s.ndim() - 1];
  int64_t nb = n == 0 ? 0 : s.Size() / (n * n);
  bool lower = attrs.get<NpEighParam>().UPLO == "L";
  Vec a = Load(in[0]), w(nb * n), v(out.size() > 1 ? nb * n * n : 0);
  for (int64_t b = 0; b < nb; ++b)
    Jacobi(a.data() + b * n * n, n, lower, w.data() + b * n,
           out.size() > 1 ? v.data() + b * n * n : nullptr);
  Store(out[0], w);
  if (out.size() > 1) Store(out[1], v);
}

MX_REGISTER_OP(_npi_eigvalsh)
    .describe(
        "Eigenvalues, ascending, of symmetric matrices (mx.np.linalg.eigvalsh): A (..., n, n) "
        "-> (..., n); reads the UPLO triangle.")
    .set_params<NpEighParam>()
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].is_known()) return;
      MergeShape(&(*out)[0], reduce_internal::EigvalShape("_npi_eigvalsh", (*in)[0]),
                 "_npi_eigvalsh: output");
    })
    .set_infer_type(reduce_internal::NpEigType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) { EigCompute(attrs, in, out); })
    .set_non_differentiable();

MX_REGISTER_OP(_npi_eigh)
    .describe(
        "Eigendecomposition of symmetric matrices (mx.np.linalg.eigh): A (..., n, n) -> w "
        "(..., n) ascending, v (..., n, n) eigenvector columns, largest-magnitude entry "
        "positive; reads the UPLO triangle.")
    .set_params<NpEighParam>()
    .set_input_names(std::vector<std::string>{"A"})
    .set_num_outputs(2)
    .set_output_names(std::vector<std::string>{"w", "v"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].is_known()) return;
      MergeShape(&(*out)[0], reduce_internal::EigvalShape("_npi_eigh", (*in)[0]),
                 "_npi_eigh: output w");
      MergeShape(&(*out)[1], (*in)[0], "_npi_eigh: output v");
    })
    .set_infer_type(reduce_internal::NpEigType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) { EigCompute(attrs, in, out); })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops

// ---------------------------------------------------------------------------------------------
namespace mxnet::nd::np::linalg {

NDArray eigvalsh(const NDArray& a, const std::string& UPLO) {
  return Invoke("_npi_eigvalsh", std::vector<NDArray>{a}, {{"UPLO", UPLO}})[0];
}
std::pair<NDArray, NDArray> eigh(const NDArray& a, const std::string& UPLO) {
  NDArrayVec o = Invoke("_npi_eigh", std::vector<NDArray>{a}, {{"UPLO", UPLO}});
  return {o[0], o[1]};
}

}  // namespace mxnet::nd::np::linalg
