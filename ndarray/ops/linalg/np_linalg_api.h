// NumPy-interface matrix products of the reduce family (MXNet 1.9.1's mx.np.dot, mx.np.matmul,
// mx.np.tensordot, mx.np.einsum; ops _np_dot, _npi_matmul, _npi_tensordot,
// _npi_tensordot_int_axes, _npi_einsum), mx.np.linalg.cholesky/solve/tensorinv/tensorsolve
// (_npi_cholesky, _npi_solve, _npi_tensorinv, _npi_tensorsolve; reduce_np_linalg_solve.cc) and
// eigh/eigvalsh (_npi_eigh, _npi_eigvalsh; reduce_np_linalg_eig.cc): attribute structs and the
// nd::np:: free functions.
//
//   NDArray v = nd::np::dot(a, b);                        // (2, 3) . (3,) -> (2,)
//   NDArray m = nd::np::matmul(x, y);                     // (2, 1, 3, 4) @ (5, 4, 6) -> (2, 5, 3,
//   6) NDArray t = nd::np::tensordot(a, b, {0, 1}, {1, 0});  // contract a's 0,1 with b's 1,0
//   NDArray e = nd::np::einsum("ij,jk->ik", {a, b});
//
// Rules (MXNet 1.9.1, checked against it): all inputs have one dtype (mixed dtypes are
// kInvalidArgument) and the output keeps it; dot/matmul/tensordot take float32/float64 only
// (MXNet's CPU kernels), einsum any dtype (bool, integers, float16 included). Values are
// accumulated in double (integers exact up to 2^53). Gradients for float inputs.
// Errors: kInvalidArgument naming the op and the shapes (contracted sizes differ, batch dims do
// not broadcast, 0-dim matmul operands, bad einsum subscripts, axes out of range).
// Source: MXNet 1.9.1 src/operator/numpy/np_dot.cc, np_matmul_op.cc, np_tensordot_op.cc,
// np_einsum_op.cc; NumPy's documentation of dot, matmul, tensordot, einsum.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ndarray/ndarray.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// _npi_tensordot (MXNet's TensordotParam): contracts a's axes a_axes_summed[i] with b's
// b_axes_summed[i] (same count; negative axes count from the end).
struct NpTensordotParam {
  Shape a_axes_summed;
  Shape b_axes_summed;
  template <class D>
  static void Declare(D& d) {
    d.field("a_axes_summed", &NpTensordotParam::a_axes_summed)
        .required()
        .describe("Axes of a to contract, in pairing order.");
    d.field("b_axes_summed", &NpTensordotParam::b_axes_summed)
        .required()
        .describe("Axes of b to contract, paired with a_axes_summed.");
  }
};

// _npi_tensordot_int_axes (MXNet's TensordotIntAxesParam): contracts a's last `axes` axes with
// b's first `axes` axes (0: outer product).
struct NpTensordotIntAxesParam {
  int axes = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("axes", &NpTensordotIntAxesParam::axes)
        .required()
        .describe("Number of trailing axes of a contracted with leading axes of b (>= 0).");
  }
};

// _npi_einsum (MXNet's NumpyEinsumParam). `optimize` chooses a contraction order in MXNet; the
// result does not depend on it (ours evaluates directly).
struct NpEinsumParam {
  int num_args = 1;
  std::string subscripts;
  int optimize = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &NpEinsumParam::num_args).required().describe("Number of operands.");
    d.field("subscripts", &NpEinsumParam::subscripts)
        .describe("NumPy einsum subscripts, e.g. 'ij,jk->ik', '...ij,...jk', 'ii->i'.");
    d.field("optimize", &NpEinsumParam::optimize)
        .describe("Contraction-order optimization flag (no effect on values).");
  }
};

// _npi_tensorinv (MXNet's TensorinvParam): the first `ind` axes are the "rows".
struct NpTensorinvParam {
  int ind = 2;
  template <class D>
  static void Declare(D& d) {
    d.field("ind", &NpTensorinvParam::ind)
        .describe("Number of leading axes forming the matrix rows (> 0).");
  }
};

// _npi_tensorsolve (MXNet's TensorsolveParam): axes of a moved to the end before solving.
struct NpTensorsolveParam {
  Shape a_axes;
  template <class D>
  static void Declare(D& d) {
    d.field("a_axes", &NpTensorsolveParam::a_axes)
        .describe("Axes of a moved to the end (in this order); () keeps a as it is.");
  }
};

// _npi_eigh / _npi_eigvalsh (MXNet's EighParam): which triangle of A is read.
struct NpEighParam {
  std::string UPLO = "L";
  template <class D>
  static void Declare(D& d) {
    d.field("UPLO", &NpEighParam::UPLO)
        .choices({"L", "U"})
        .describe("'L': read the lower triangle (default); 'U': the upper.");
  }
};

// _backward_np_linalg_contract: the gradient of every op above; inputs (head gradient,
// operands...), outputs one gradient per operand (summed over broadcast axes and repeated
// labels). `op` names the forward op; the other fields are its attributes.
struct NpContractGradParam {
  int num_args = 2;
  std::string op;
  std::string subscripts;
  Shape a_axes_summed;
  Shape b_axes_summed;
  int axes = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &NpContractGradParam::num_args).describe("Number of operands.");
    d.field("op", &NpContractGradParam::op).required().describe("The forward op.");
    d.field("subscripts", &NpContractGradParam::subscripts).describe("_npi_einsum's.");
    d.field("a_axes_summed", &NpContractGradParam::a_axes_summed).describe("_npi_tensordot's.");
    d.field("b_axes_summed", &NpContractGradParam::b_axes_summed).describe("_npi_tensordot's.");
    d.field("axes", &NpContractGradParam::axes).describe("_npi_tensordot_int_axes's.");
  }
};

}  // namespace mxnet::ops

namespace mxnet::nd::np {

// a . b with NumPy's dot rules: 0-dim operand -> elementwise product with the other;
// 1-D . 1-D -> 0-dim inner product; N-D . 1-D -> sum over a's last axis;
// N-D . M-D (M >= 2) -> a[..., :] contracted with b's second-to-last axis, shape
// a.shape[:-1] + b.shape[:-2] + b.shape[-1:].
NDArray dot(const NDArray& a, const NDArray& b);
// NumPy matmul: 1-D operands are promoted to a row (a) / column (b) and the added axis removed;
// batch axes (all but the last two) broadcast. 0-dim operands are errors.
NDArray matmul(const NDArray& a, const NDArray& b);
// Contracts a_axes[i] of a with b_axes[i] of b; out = a's free axes then b's free axes.
NDArray tensordot(const NDArray& a, const NDArray& b, const Shape& a_axes, const Shape& b_axes);
// a's last `axes` axes with b's first `axes` axes.
NDArray tensordot(const NDArray& a, const NDArray& b, int axes = 2);
// NumPy einsum over operands (explicit '->' or implicit output; '...' broadcasting).
NDArray einsum(const std::string& subscripts, const std::vector<NDArray>& operands,
               int optimize = 0);

}  // namespace mxnet::nd::np

namespace mxnet::nd::np::linalg {

// mx.np.linalg.cholesky: A (..., n, n) symmetric positive definite (lower triangle read) ->
// lower L with A = L L^T; float32/float64. Not positive definite -> kInvalidArgument.
NDArray cholesky(const NDArray& a);
// mx.np.linalg.solve: X with A X = B; A (..., n, n), B (..., n) or (..., n, k) with A's batch
// dims; float32 for two float32 inputs, else float64 (float16/bool rejected). Singular A ->
// kInvalidArgument.
NDArray solve(const NDArray& a, const NDArray& b);
// mx.np.linalg.tensorinv: a (front..., back...) with front = a.shape[:ind] and
// prod(front) == prod(back) -> (back..., front...) with tensordot(result, a, ind) the identity.
NDArray tensorinv(const NDArray& a, int ind = 2);
// mx.np.linalg.tensorsolve: x with tensordot(a', x, x.ndim) = b where a' is a with `a_axes`
// moved to the end; x has the shape of a's trailing axes after b.ndim. Dtypes as solve.
NDArray tensorsolve(const NDArray& a, const NDArray& b, const Shape& a_axes = Shape{});
// mx.np.linalg.eigvalsh: A (..., n, n) symmetric (UPLO "L"/"U" triangle read) -> eigenvalues
// (..., n) ascending. float32 stays float32; float64 and integers give float64.
NDArray eigvalsh(const NDArray& a, const std::string& UPLO = "L");
// mx.np.linalg.eigh: (w, v) with v's columns the eigenvectors, each column's largest-magnitude
// entry positive (MXNet's convention). Not differentiable (MXNet registers no gradient).
std::pair<NDArray, NDArray> eigh(const NDArray& a, const std::string& UPLO = "L");

}  // namespace mxnet::nd::np::linalg
