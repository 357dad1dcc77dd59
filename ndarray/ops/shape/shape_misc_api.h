// nd:: free functions of the shape family's miscellaneous ops (shape_misc.cc), MXNet 1.9.1's
// mx.nd.diag, khatri_rao, fill_element_0index, amp_cast, amp_multicast and cast_storage.
// Errors (kInvalidArgument unless noted) name the op and what was wrong.
#pragma once

#include <string>
#include <vector>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/shape/shape_misc_params.h"

namespace mxnet::nd {

// 1-D data (n,): a (n+|k|, n+|k|) matrix with data on diagonal k, zeros elsewhere.
// N-D data (N >= 2): the diagonal k of the planes (axis1, axis2), as numpy.diagonal: those two
// axes are removed and the diagonal appended last, of length min(d1, d2 - k) for k >= 0 and
// min(d1 + k, d2) for k < 0 (d1 = shape[axis1], d2 = shape[axis2]); any dtype; a diagonal that
// does not exist (negative length), equal axes or an out-of-range axis is an error.
// Differentiable (the gradient puts the output gradient back on the diagonal).
NDArray diag(const NDArray& data, int k = 0, int axis1 = 0, int axis2 = 1);

// Column-wise Khatri-Rao product of 2-D matrices A_i of shape (M_i, N): shape
// (M_1*...*M_n, N), column j the Kronecker product of the columns j (row index
// i_1*M_2*...*M_n + ... + i_n). One floating dtype (MXNet rejects integers too) and one N.
// Not differentiable (as in MXNet).
NDArray khatri_rao(const std::vector<NDArray>& matrices);

// A copy of lhs (n, m) with lhs[i, rhs[i]] = mhs[i] for each row i; mhs and rhs have n
// elements; rhs holds 0-based column indices (truncated toward zero, must lie in [0, m)). One
// floating dtype for all three. Not differentiable (as in MXNet).
NDArray fill_element_0index(const NDArray& lhs, const NDArray& mhs, const NDArray& rhs);

// AMP's cast: float32/float16/bfloat16 data is converted to `dtype`; any other dtype is
// returned unchanged (a copy). Gradient: the output gradient cast back to data's dtype.
NDArray amp_cast(const NDArray& data, DType dtype);
// AMP's multi-cast: every float32/float16/bfloat16 input is converted to the widest floating
// type present (float32 if any input is float32, else the first input's dtype) or, with
// cast_narrow, the narrowest (the dtype of the last float16/bfloat16 input, float32 if none);
// other dtypes pass through unchanged.
std::vector<NDArray> amp_multicast(const std::vector<NDArray>& data, bool cast_narrow = false);

// MXNet's storage cast. Only stype "default" (dense) is supported: it returns a copy of data.
// "csr" and "row_sparse" are valid MXNet values but throw kUnimplemented here, since this
// library has no sparse storage.
NDArray cast_storage(const NDArray& data, const std::string& stype);

}  // namespace mxnet::nd
