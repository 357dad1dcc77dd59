// Sparse NDArrays: MXNet's storage types csr and row_sparse (mxnet.ndarray.sparse, MXNet 1.9.1
// "CSRNDArray" / "RowSparseNDArray"). A sparse array's shape() is its logical (dense) shape; the
// stored parts are, as in MXNet:
//   csr (2-d, rows x cols):  data (nnz,) values, in row-major order of their positions;
//                            indptr (rows + 1,) int64: row r's entries are [indptr[r],
//                            indptr[r+1]); indices (nnz,) int64 column of each value.
//   row_sparse (>= 1-d):     data (k, shape[1:]...) the stored rows; indices (k,) int64 their row
//                            numbers, strictly ascending.
// Aux arrays are always int64 here (MXNet's default). Values have the array's dtype.
//
// Dense ops given sparse inputs: Invoke (ndarray/op.h) runs an op's storage kernel when it has
// one for the input storage types (Op::set_storage_kernel); otherwise it falls back like MXNet:
// sparse inputs are densified, the dense kernel runs, outputs are dense, and a one-time line per
// (op, input storage types) goes to stderr (silenced by MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0, the
// variable MXNet reads). Raw access to a sparse array's dense buffer (data_ptr) throws; reading
// values (ToVector, SyncCopyToCPU, asscalar, printing) densifies.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ndarray/ndarray.h"

namespace mxnet {

// The stored parts of a sparse array (NDArray::Impl::sparse).
struct SparseAux {
  StorageType stype = StorageType::kCSR;
  NDArray data;              // values: csr (nnz,), row_sparse (k, shape[1:]...)
  std::vector<NDArray> aux;  // csr: {indptr, indices}; row_sparse: {indices}; int64
};

// Aux positions, MXNet's order (csr::kIndPtr, csr::kIdx, rowsparse::kIdx in MXNet's C++).
inline constexpr int kCSRIndPtr = 0, kCSRIdx = 1, kRowSparseIdx = 0;

// A csr array of `shape` (2-d) from its parts (mx.nd.sparse.csr_matrix((data, indices, indptr),
// shape)). data must be 1-d (nnz,); indices (nnz,) and indptr (rows + 1,) of any integer dtype
// (stored as int64). Checked: indptr[0] == 0, non-decreasing, indptr[rows] == nnz, every column
// in [0, cols); errors are kInvalidArgument naming the part and position. The parts are copied.
NDArray csr_matrix(const NDArray& data, const NDArray& indices, const NDArray& indptr,
                   const Shape& shape);
// A row_sparse array of `shape` (>= 1-d) from its parts (mx.nd.sparse.row_sparse_array((data,
// indices), shape)). data (k, shape[1:]...), indices (k,) of any integer dtype, strictly
// ascending in [0, shape[0]); errors kInvalidArgument. The parts are copied.
NDArray row_sparse_array(const NDArray& data, const NDArray& indices, const Shape& shape);
// An all-zero sparse array (nnz 0; mx.nd.sparse.zeros). kDefault gives a dense zero array.
NDArray sparse_zeros(StorageType stype, const Shape& shape, Device device = cpu(),
                     DType dtype = DType::kFloat32);

// Storage conversion (cast_storage): dense -> csr / row_sparse keeps the non-zero entries / rows
// that hold a non-zero (NaN counts as non-zero); sparse -> dense scatters; csr <-> row_sparse go
// through dense. Same device and dtype. kInvalidArgument: csr of a non-2-d array, row_sparse of
// a 0-d one.
NDArray CastStorage(const NDArray& x, StorageType to);

// attach_grad with a gradient buffer of storage `stype` (MXNet's NDArray.attach_grad(grad_req,
// stype)): kDefault is x.attach_grad(req); kRowSparse gives an empty row_sparse buffer that
// backward fills with the rows receiving gradient (Embedding with sparse_grad: the looked-up
// rows; a dense gradient is stored as its non-zero rows). kCSR: kInvalidArgument.
void attach_grad(const NDArray& x, GradReq req, StorageType stype);

// a + b of two row_sparse arrays of one shape and dtype (float): row_sparse storing the union of
// their rows, ascending (MXNet's elemwise_add on row_sparse pairs; autograd's accumulation of
// row_sparse gradients). Errors: kInvalidArgument for other storage types, shapes or dtypes.
NDArray RowSparseAdd(const NDArray& a, const NDArray& b);

// ---- For storage kernels (Op::set_storage_kernel). ----
// The all-zero sparse array (nnz 0) Invoke hands a storage kernel as a sparse output, for the
// kernel to fill with SetSparseParts (= sparse_zeros for sparse stypes).
NDArray EmptySparse(StorageType stype, const Shape& shape, Device device, DType dtype);
// Gives `out` (sparse) its stored parts, replacing any it had. Checks the parts' shapes and
// dtypes against out's stype, shape and dtype (kInvalidArgument), not the index values.
void SetSparseParts(const NDArray& out, NDArray data, std::vector<NDArray> aux);
// Used by NDArray's methods on sparse arrays: a deep copy on `device` (same stype), a copy with
// values converted to `dtype`, and a second handle sharing the stored parts (detach).
NDArray SparseCopyTo(const NDArray& x, Device device);
NDArray SparseAsType(const NDArray& x, DType dtype);
NDArray SparseShare(const NDArray& x);
// Checks a sparse array's index values (the rules of csr_matrix / row_sparse_array); "" when
// valid, else what is wrong.
std::string CheckSparseIndices(const NDArray& x);

}  // namespace mxnet
