// NDArray: a reference-counted, dense, C-contiguous tensor on a device (mxnet.ndarray.NDArray),
// or a sparse one (csr, row_sparse; ndarray/sparse.h) whose shape() is the logical dense shape.
//
// Copying an NDArray copies the handle, not the data (like MXNet's Python NDArray and
// torch::Tensor). Views (reshape, slice/at along axis 0, expand_dims, squeeze, detach) share
// storage. CPU work is synchronous; wait_to_read()/waitall() are MXNet's synchronisation points
// and matter for GPU arrays.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "base/device.h"
#include "base/dtype.h"
#include "base/error.h"
#include "base/shape.h"
#include "ndarray/storage.h"

namespace mxnet {

// Gradient request of a variable (MXNet's grad_req: "write", "add", "null").
enum class GradReq { kNull = 0, kWrite = 1, kAdd = 2 };
std::string_view GradReqName(GradReq r);
// Parses "write", "add", "null" (also "inplace" = write). Error: kInvalidArgument.
absl::StatusOr<GradReq> ParseGradReq(std::string_view s);

// Storage type (MXNet's stype; the values are the stype flags of .params records, docs/formats.md
// §2.5). Sparse arrays: ndarray/sparse.h.
enum class StorageType : int32_t { kDefault = 0, kRowSparse = 1, kCSR = 2 };
std::string_view StorageTypeName(StorageType s);  // "default", "row_sparse", "csr"
// Parses "default", "row_sparse", "csr". Error: kInvalidArgument listing the valid names.
absl::StatusOr<StorageType> ParseStorageType(std::string_view s);
struct SparseAux;  // the stored parts of a sparse array (ndarray/sparse.h)

// Per-array hook state owned by layers above ndarray (autograd's tape entry, the hybridize
// tracer's symbol). ndarray only stores and copies the pointers.
struct ArrayHookState {
  virtual ~ArrayHookState() = default;
};

class NDArray {
 public:
  // The array object's state: opaque outside //ndarray (defined in the private header
  // ndarray/ndarray_impl.h); the layers above use the hooks below.
  struct Impl;

  // An empty ("none") array: is_none() is true; most methods throw.
  NDArray() = default;
  // Uninitialized array of `shape` (must be known), `dtype` on `device`.
  explicit NDArray(const Shape& shape, Device device = cpu(), DType dtype = DType::kFloat32);

  // An array holding `values` (converted to `dtype`); values.size() must equal shape.Size().
  template <typename T>
  static NDArray FromVector(const std::vector<T>& values, const Shape& shape, Device device = cpu(),
                            DType dtype = CppToDType<T>());
  // An array without data whose shape may be partly unknown (-1 dims): the stand-in for
  // uninitialized parameters and values during shape-only dispatch (DispatchState::infer_only).
  static NDArray Placeholder(const Shape& shape, Device device = cpu(),
                             DType dtype = DType::kFloat32);
  // A scalar-filled array (like mx.nd.full).
  static NDArray Full(const Shape& shape, double value, Device device = cpu(),
                      DType dtype = DType::kFloat32);

  bool is_none() const { return impl_ == nullptr; }
  bool is_placeholder() const;
  const Shape& shape() const;
  DType dtype() const;
  Device device() const;
  Device ctx() const { return device(); }  // MXNet 1.x name
  int ndim() const { return shape().ndim(); }
  int64_t size() const { return shape().Size(); }
  size_t nbytes() const { return static_cast<size_t>(size()) * DTypeSize(dtype()); }

  // Raw pointer to the first element (device memory for GPU arrays). Throws kFailedPrecondition
  // for a sparse array (it has no dense buffer: use data()/aux_data() or tostype()).
  void* data_ptr() const;
  // Typed pointer; throws kInvalidArgument if T does not match dtype().
  template <typename T>
  T* data() const {
    if (CppToDType<T>() != dtype())
      MX_THROW(absl::StatusCode::kInvalidArgument, "NDArray::data<", DTypeName(CppToDType<T>()),
               ">() on an array of dtype ", DTypeName(dtype()));
    return static_cast<T*>(data_ptr());
  }

  // ---- Sparse storage (MXNet's CSRNDArray / RowSparseNDArray; defined in ndarray/sparse.cc,
  // constructors csr_matrix / row_sparse_array in ndarray/sparse.h). ----
  StorageType stype() const;  // kDefault for dense (and none) arrays
  bool is_sparse() const;
  // The stored values: csr (nnz,), row_sparse (k, shape[1:]...); a dense array returns itself.
  NDArray data() const;
  // csr: column indices (nnz,); row_sparse: stored row indices (k,), ascending. int64.
  // kInvalidArgument on a dense array.
  NDArray indices() const;
  // csr only: row pointers (shape[0] + 1,) int64. kInvalidArgument otherwise.
  NDArray indptr() const;
  // Aux arrays in MXNet's order (csr: 0 indptr, 1 indices; row_sparse: 0 indices); 0 for dense.
  int num_aux() const;
  NDArray aux_data(int i) const;
  DType aux_type(int i) const;
  Shape aux_shape(int i) const;
  // Same values in storage type `stype` (mx NDArray.tostype; cast_storage): *this if it already
  // is; csr needs 2-d, row_sparse >= 1-d; zeros are not stored.
  NDArray tostype(StorageType stype) const;

  // ---- Views (no copy). ----
  // MXNet Reshape codes: 0 copy dim, -1 infer, -2 copy rest, -3 merge two, -4 split
  // (next two give the factors, one may be -1). `reverse` applies the codes right to left.
  // Throws kInvalidArgument if the element count differs.
  NDArray reshape(const std::vector<int64_t>& spec, bool reverse = false) const;
  // Rows [begin, end) along axis 0 (negative indices count from the end).
  NDArray slice(int64_t begin, int64_t end) const;
  // Row `index` along axis 0, with that axis removed.
  NDArray at(int64_t index) const;
  NDArray expand_dims(int axis) const;
  // Removes size-1 axes (all, or the given ones; a listed axis that is not 1 is an error).
  NDArray squeeze(const std::vector<int>& axes = {}) const;
  // Same data, no autograd history (mx.nd.NDArray.detach).
  NDArray detach() const;

  // ---- Copies. ----
  NDArray copy() const;                   // deep copy on the same device
  NDArray copyto(Device device) const;    // deep copy to `device`
  void copyto(const NDArray& dst) const;  // into dst (same shape; dtype converted)
  // Same array if already on `device`, else a copy (mx.nd.NDArray.as_in_context).
  NDArray as_in_context(Device device) const;
  NDArray as_in_ctx(Device device) const { return as_in_context(device); }
  // New array with elements converted to `dtype` (astype; copy=false returns *this if equal).
  NDArray astype(DType dtype, bool copy = true) const;

  // Copies `bytes` of host data (exactly nbytes()) into the array / out of it.
  void SyncCopyFromCPU(const void* src, size_t bytes) const;
  void SyncCopyToCPU(void* dst, size_t bytes) const;
  // Host copy converted to T (any dtype).
  template <typename T>
  std::vector<T> ToVector() const;
  // The single element as T; throws kInvalidArgument unless size() == 1 (mx asscalar()).
  template <typename T = float>
  T asscalar() const;
  // Fills every element with `value` (converted to dtype()).
  void Fill(double value) const;

  // ---- Synchronisation. ----
  void wait_to_read() const;
  void wait_to_write() const { wait_to_read(); }

  // ---- Autograd (state kept here, driven by //autograd). ----
  // Allocates a zero gradient buffer and marks this array as a variable (attach_grad).
  void attach_grad(GradReq grad_req = GradReq::kWrite) const;
  // The gradient buffer; none if attach_grad was not called.
  NDArray grad() const;
  // grad() is not none (no handle copy: autograd asks this for every recorded op input).
  bool has_grad() const;
  GradReq grad_req() const;
  // Whether backward wrote the gradient buffer since the flag was last cleared (MXNet's
  // NDArray._fresh_grad): autograd::backward sets it for every variable whose gradient it
  // writes (grad_req write or add); gluon::Trainer clears it after updating the parameter and
  // reports stale gradients from it. The flag lives on the gradient buffer, so attach_grad (a
  // new buffer) starts it false. false without a gradient buffer; setting it then throws
  // kFailedPrecondition.
  bool fresh_grad() const;
  void set_fresh_grad(bool fresh) const;
  // Back-propagates from this array (mx NDArray.backward): autograd::backward({*this},
  // {out_grad}, retain_graph, train_mode). Needs //autograd linked (kFailedPrecondition if not).
  void backward(const NDArray& out_grad = NDArray(), bool retain_graph = false,
                bool train_mode = true) const;

  // MXNet-style text: values in NumPy layout then "<NDArray 2x3 @cpu(0)>".
  std::string ToString() const;

  // Identity: two handles to the same array object.
  bool is_same(const NDArray& o) const { return impl_ == o.impl_; }
  // True when both views share one storage block.
  bool shares_storage(const NDArray& o) const;

  // ---- Hooks for the layers above ndarray (autograd, symbol, gluon, the C ABI). ----
  // The array object's state is private (ndarray/ndarray_impl.h); these are the only ways in.
  // A weak reference to the array object (not its data): identity without keeping it alive.
  // std::owner_less orders it; Lock gives the array back, or a none array once it is freed.
  using WeakRef = std::weak_ptr<Impl>;
  WeakRef weak_ref() const { return impl_; }
  static NDArray Lock(const WeakRef& ref) { return NDArray(ref.lock()); }
  // Identity of the array object (equal iff is_same); nullptr for a none array. Valid as a map
  // key only while the array lives.
  const void* id() const { return impl_.get(); }
  // Per-array state of the layers above: autograd's tape entry and the hybridize tracer's
  // symbol. Views and copies start without either.
  enum class HookSlot { kAutograd, kTrace };
  ArrayHookState* hook_state(HookSlot slot) const;
  void set_hook_state(HookSlot slot, std::shared_ptr<ArrayHookState> state) const;
  // Makes `grad` (same shape, not copied) this variable's gradient buffer with `req`
  // (autograd::mark_variables); kInvalidArgument if the shapes differ.
  void set_grad_buffer(const NDArray& grad, GradReq req) const;
  // Drops the gradient buffer and marks the array a non-variable (grad_req null).
  void clear_grad() const;
  // The storage block viewed and the byte offset of element 0 in it (identity of the bytes, for
  // caches and aliasing checks). Errors: kFailedPrecondition on a none array.
  const std::shared_ptr<Storage>& storage() const;
  size_t storage_offset() const;
  // Declares a write of this array's bytes made through a raw pointer (data_ptr(), data<T>(),
  // storage()->data()): bumps the storage block's write version (Storage::version), so caches of
  // values derived from the bytes (folded inference graphs) see the change. Writes through
  // Invoke/InvokeInto, copyto, SyncCopyFromCPU, Fill and the optimizers do this themselves.
  // No-op on a none array.
  void mark_written() const;
  // A dense array viewing `storage` from byte `offset` as `shape` x `dtype` (no copy; the
  // C ABI's external buffers, executors' planned buffers). kInvalidArgument if the view does not
  // fit in the storage block.
  static NDArray FromStorage(std::shared_ptr<Storage> storage, size_t offset, const Shape& shape,
                             DType dtype);
  // A view with a new shape (same element count), sharing storage; no autograd state.
  NDArray ViewAs(const Shape& shape, size_t extra_offset_bytes = 0) const;

 private:
  friend struct NDArrayAccess;  // ndarray's own sources (ndarray/ndarray_impl.h)
  explicit NDArray(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  const Impl& checked() const;
  std::shared_ptr<Impl> impl_;
};

std::ostream& operator<<(std::ostream& os, const NDArray& a);

// Installed by //autograd so NDArray::backward can reach it without a dependency cycle.
using BackwardHook = void (*)(const NDArray& head, const NDArray& head_grad, bool retain_graph,
                              bool train_mode);
void SetBackwardHook(BackwardHook hook);

// Blocks until all pending work on every device is done (mx.nd.waitall).
void waitall();

// The shape a Reshape spec gives for `in` (MXNet codes as in NDArray::reshape). Throws
// kInvalidArgument naming `what`, the spec and the input shape on a bad spec.
Shape InferReshape(const Shape& in, const std::vector<int64_t>& spec, bool reverse,
                   std::string_view what = "reshape");

// Converts `n` elements between dtypes on the host (used by astype, files and tests).
void ConvertElements(const void* src, DType src_type, void* dst, DType dst_type, size_t n);

// ---- Template definitions. ----
template <typename T>
NDArray NDArray::FromVector(const std::vector<T>& values, const Shape& shape, Device device,
                            DType dtype) {
  NDArray a(shape, device, dtype);
  if (static_cast<int64_t>(values.size()) != a.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "NDArray::FromVector: ", values.size(),
             " values for shape ", shape.ToString());
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> b(values.begin(), values.end());
    std::vector<char> tmp(a.nbytes());
    ConvertElements(b.data(), DType::kBool, tmp.data(), dtype, b.size());
    a.SyncCopyFromCPU(tmp.data(), tmp.size());
  } else {
    std::vector<char> tmp(a.nbytes());
    ConvertElements(values.data(), CppToDType<T>(), tmp.data(), dtype, values.size());
    a.SyncCopyFromCPU(tmp.data(), tmp.size());
  }
  return a;
}

template <typename T>
std::vector<T> NDArray::ToVector() const {
  std::vector<char> raw(nbytes());
  SyncCopyToCPU(raw.data(), raw.size());
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> tmp(size());
    ConvertElements(raw.data(), dtype(), tmp.data(), DType::kBool, tmp.size());
    return std::vector<bool>(tmp.begin(), tmp.end());
  } else {
    std::vector<T> out(size());
    ConvertElements(raw.data(), dtype(), out.data(), CppToDType<T>(), out.size());
    return out;
  }
}

template <typename T>
T NDArray::asscalar() const {
  if (size() != 1)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "asscalar: the array must have exactly one element, got shape ", shape().ToString());
  return ToVector<T>()[0];
}

}  // namespace mxnet
