// Linear-algebra operators of the reduce family (MXNet 1.9.1's `mx.nd.linalg.*`, registered as
// _linalg_gemm, ... with aliases linalg_gemm, ...; _linalg_inverse/_det/_slogdet also as
// _npi_inv/_npi_det/_npi_slogdet): attribute structs and the nd:: free functions.
//
//   NDArray c = nd::linalg_gemm2(a, b, {.transpose_b = true, .alpha = 2.0});
//   NDArray l = nd::linalg_potrf(spd);                   // lower Cholesky factor
//   auto [q, l2] = nd::linalg_gelqf(a);                  // a = l2 * q
//
// Every op works on the trailing two axes (gemm/gemm2: the `axis` axis and the last one) and
// batches over the leading ones, which must agree between inputs. float32 and float64 only
// (MXNet's rule). Reference kernels compute in double. Errors: mxnet::Error(kInvalidArgument)
// naming the op, the input and the shapes (non-square, batch mismatch, incompatible sizes, bad
// offset, other dtypes); potrf of a matrix that is not positive definite and inverse of an
// exactly singular matrix are kInvalidArgument at run time, naming the batch item.
// Source: MXNet 1.9.1 src/operator/tensor/la_op.{h,cc} docs; Seeger et al., "Auto-Differentiating
// Linear Algebra" (arXiv:1710.08717) for the gradients.
#pragma once

#include <utility>

#include "ndarray/ndarray.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// _linalg_gemm (MXNet's LaMatrixMacParam): out = alpha * op(A) * op(B) + beta * C.
struct LinalgGemmParam {
  bool transpose_a = false;
  bool transpose_b = false;
  double alpha = 1.0;
  double beta = 1.0;
  int axis = -2;  // the row axis; columns are the last axis
  template <class D>
  static void Declare(D& d) {
    d.field("transpose_a", &LinalgGemmParam::transpose_a).describe("Use A transposed.");
    d.field("transpose_b", &LinalgGemmParam::transpose_b).describe("Use B transposed.");
    d.field("alpha", &LinalgGemmParam::alpha).describe("Scalar factor of op(A) * op(B).");
    d.field("beta", &LinalgGemmParam::beta).describe("Scalar factor of C.");
    d.field("axis", &LinalgGemmParam::axis)
        .describe("Axis of the matrix rows (columns: the last axis); negative from the end.");
  }
};

// _linalg_gemm2 (MXNet's LaMatrixMultParam): out = alpha * op(A) * op(B).
struct LinalgGemm2Param {
  bool transpose_a = false;
  bool transpose_b = false;
  double alpha = 1.0;
  int axis = -2;
  template <class D>
  static void Declare(D& d) {
    d.field("transpose_a", &LinalgGemm2Param::transpose_a).describe("Use A transposed.");
    d.field("transpose_b", &LinalgGemm2Param::transpose_b).describe("Use B transposed.");
    d.field("alpha", &LinalgGemm2Param::alpha).describe("Scalar factor of the product.");
    d.field("axis", &LinalgGemm2Param::axis)
        .describe("Axis of the matrix rows (columns: the last axis); negative from the end.");
  }
};

// _linalg_trmm / _linalg_trsm (MXNet's LaTriangMatrixMultParam). Only the `lower` (or upper)
// triangle of A is read.
struct LinalgTriangParam {
  bool transpose = false;
  bool rightside = false;
  bool lower = true;
  double alpha = 1.0;
  template <class D>
  static void Declare(D& d) {
    d.field("transpose", &LinalgTriangParam::transpose).describe("Use A transposed.");
    d.field("rightside", &LinalgTriangParam::rightside)
        .describe("Multiply/solve from the right: B * op(A) instead of op(A) * B.");
    d.field("lower", &LinalgTriangParam::lower)
        .describe("A is lower triangular (else upper); the other triangle is ignored.");
    d.field("alpha", &LinalgTriangParam::alpha).describe("Scalar factor.");
  }
};

// _linalg_syrk (MXNet's LaSyrkParam): alpha * A * A^T, or alpha * A^T * A with transpose.
struct LinalgSyrkParam {
  bool transpose = false;
  double alpha = 1.0;
  template <class D>
  static void Declare(D& d) {
    d.field("transpose", &LinalgSyrkParam::transpose).describe("Compute A^T * A.");
    d.field("alpha", &LinalgSyrkParam::alpha).describe("Scalar factor.");
  }
};

// _linalg_extractdiag / _linalg_makediag (MXNet's LaDiagParam).
struct LinalgDiagParam {
  int offset = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("offset", &LinalgDiagParam::offset)
        .describe("Diagonal: 0 main, > 0 above, < 0 below the main diagonal.");
  }
};

// _linalg_extracttrian / _linalg_maketrian (MXNet's LaTrianParam).
struct LinalgTrianParam {
  int offset = 0;
  bool lower = true;
  template <class D>
  static void Declare(D& d) {
    d.field("offset", &LinalgTrianParam::offset)
        .describe(
            "0: the lower (or upper, lower=False) triangle with the diagonal; k > 0: the upper "
            "triangle above the k-th superdiagonal; k < 0: the lower one below the k-th "
            "subdiagonal.");
    d.field("lower", &LinalgTrianParam::lower)
        .describe("With offset 0: the lower triangle (else the upper).");
  }
};

}  // namespace mxnet::ops

namespace mxnet::nd {

using LinalgGemmOptions = ops::LinalgGemmParam;
using LinalgGemm2Options = ops::LinalgGemm2Param;
using LinalgTriangOptions = ops::LinalgTriangParam;

// A (..., m, k) [op: transposed (..., k, m)], B (..., k, n), C (..., m, n) -> (..., m, n):
// alpha * op(A) * op(B) + beta * C. With axis != -2 the rows sit on `axis` instead.
NDArray linalg_gemm(const NDArray& A, const NDArray& B, const NDArray& C,
                    const LinalgGemmOptions& opts = {});
// alpha * op(A) * op(B).
NDArray linalg_gemm2(const NDArray& A, const NDArray& B, const LinalgGemm2Options& opts = {});
// A (..., n, n) symmetric positive definite (lower triangle read) -> lower L with A = L * L^T.
NDArray linalg_potrf(const NDArray& A);
// A (..., n, n) lower Cholesky factor L (lower triangle read) -> (L * L^T)^-1.
NDArray linalg_potri(const NDArray& A);
// alpha * op(tri(A)) * B, or alpha * B * op(tri(A)) with rightside; B's shape.
NDArray linalg_trmm(const NDArray& A, const NDArray& B, const LinalgTriangOptions& opts = {});
// X with op(tri(A)) * X = alpha * B (or X * op(tri(A)) = alpha * B with rightside).
NDArray linalg_trsm(const NDArray& A, const NDArray& B, const LinalgTriangOptions& opts = {});
// A (..., m, k) -> alpha * A * A^T (..., m, m), or alpha * A^T * A (..., k, k) with transpose.
NDArray linalg_syrk(const NDArray& A, bool transpose = false, double alpha = 1.0);
// A (..., n, n) -> sum_i log(A_ii), shape (...) or (1,) for one matrix.
NDArray linalg_sumlogdiag(const NDArray& A);
// A (..., n, n) -> the offset diagonal (..., n - |offset|); |offset| < n.
NDArray linalg_extractdiag(const NDArray& A, int offset = 0);
// A (..., k) -> (..., k + |offset|, k + |offset|) with A on the offset diagonal.
NDArray linalg_makediag(const NDArray& A, int offset = 0);
// A (..., n, n) -> the triangle's entries row by row (..., m(m+1)/2), m = n - |offset|.
NDArray linalg_extracttrian(const NDArray& A, int offset = 0, bool lower = true);
// Inverse of extracttrian: (..., m(m+1)/2) -> (..., m + |offset|, m + |offset|).
NDArray linalg_maketrian(const NDArray& A, int offset = 0, bool lower = true);
// A (..., n, n) -> A^-1 (LU with partial pivoting).
NDArray linalg_inverse(const NDArray& A);
// A (..., n, n) -> det(A), shape (...) or (1,).
NDArray linalg_det(const NDArray& A);
// A (..., n, n) -> {sign(det A), log|det A|}, each (...) or (1,).
std::pair<NDArray, NDArray> linalg_slogdet(const NDArray& A);
// A (..., m, n), m <= n -> {Q (..., m, n) row-orthonormal, L (..., m, m) lower} with A = L * Q
// (Householder LQ; LAPACK's sign convention).
std::pair<NDArray, NDArray> linalg_gelqf(const NDArray& A);
// A (..., n, n) symmetric (lower triangle read) -> {U (..., n, n), L (..., n)} with
// U * A = diag(L) * U, L ascending, rows of U orthonormal eigenvectors whose largest-magnitude
// entry (first on ties) is positive.
std::pair<NDArray, NDArray> linalg_syevd(const NDArray& A);

}  // namespace mxnet::nd
