// Storage kernels of the reduce family for sparse inputs (ndarray/sparse.h): dot with a csr lhs.
// _sparse_retain and _contrib_getnnz are registered in reduce_sparse.cc.
#pragma once

#include <span>

#include "ndarray/op.h"

namespace mxnet::ops {

// dot's storage types (MXNet 1.9.1, dot-inl.h): csr . default -> default; csr.T . default ->
// row_sparse (default when forward_stype='default'); float32/float64 values. Other combinations
// (transpose_b, a csr rhs, forward_stype='csr') fall back to dense.
bool DotInferStorage(const OpAttrs& attrs, std::span<const StorageType> in,
                     std::span<StorageType> out);
void DotCsrKernel(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out);

}  // namespace mxnet::ops
