// Shared building blocks for elementwise kernels (same-shape unary/binary maps with dtype
// dispatch and OpenMP parallelism).
#pragma once

#include <span>

#include "ndarray/kernel_util.h"
#include "ndarray/ndarray.h"
#include "ndarray/op.h"

namespace mxnet::ops {

// out[i] = f(in[i]) computed in AccType<T>; in and out share dtype. `numeric_only` rejects bool.
template <typename F>
void MapUnary(std::string_view opname, const NDArray& in, const NDArray& out, F f) {
  int64_t n = in.size();
  MX_NUMERIC_TYPE_SWITCH(in.dtype(), T, opname, {
    const T* x = static_cast<const T*>(in.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    ParallelForRange(n, 32768, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = static_cast<T>(f(static_cast<AccType<T>>(x[i])));
    });
  });
}

// out[i] = f(a[i], b[i]) for same-shape a, b, out of one dtype.
template <typename F>
void MapBinary(std::string_view opname, const NDArray& a, const NDArray& b, const NDArray& out,
               F f) {
  int64_t n = a.size();
  MX_NUMERIC_TYPE_SWITCH(a.dtype(), T, opname, {
    const T* x = static_cast<const T*>(a.data_ptr());
    const T* z = static_cast<const T*>(b.data_ptr());
    T* y = static_cast<T*>(out.data_ptr());
    ParallelForRange(n, 32768, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i)
        y[i] = static_cast<T>(f(static_cast<AccType<T>>(x[i]), static_cast<AccType<T>>(z[i])));
    });
  });
}

// MXNet's scalar-op attributes (_plus_scalar, _mul_scalar, ...).
struct ScalarParam {
  double scalar = 1.0;
  bool is_int = true;  // 1.9/2.x numpy front ends pass it; arithmetic follows the array dtype
  template <class D>
  static void Declare(D& d) {
    d.field("scalar", &ScalarParam::scalar).describe("The scalar operand.");
    d.field("is_int", &ScalarParam::is_int).describe("Whether the scalar was a Python int.");
  }
};

// Output dtype of MXNet 1.9.1's scalar ops (NumpyBinaryScalarType in
// src/operator/tensor/elemwise_binary_scalar_op.h): an integer input with is_int=False gives
// float64; a bool input gives int64 (is_int=True) or float64 (is_int=False); otherwise the input
// dtype. -1 (unknown) stays -1.
int ScalarOutType(int in_type, bool is_int);
// FInferType of the scalar ops (ScalarParam attributes) with that rule.
void ScalarOpType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out);

}  // namespace mxnet::ops
