// Sparse NDArrays (csr, row_sparse): construction, checks, storage conversion and the NDArray
// sparse accessors. Layout and rules: ndarray/sparse.h.
#include "ndarray/sparse.h"

#include <cstring>
#include <memory>
#include <utility>

#include "base/strings.h"
#include "ndarray/ndarray_impl.h"

namespace mxnet {

std::string_view StorageTypeName(StorageType s) {
  switch (s) {
    case StorageType::kDefault:
      return "default";
    case StorageType::kRowSparse:
      return "row_sparse";
    case StorageType::kCSR:
      return "csr";
  }
  return "unknown";
}

absl::StatusOr<StorageType> ParseStorageType(std::string_view s) {
  if (s == "default") return StorageType::kDefault;
  if (s == "row_sparse") return StorageType::kRowSparse;
  if (s == "csr") return StorageType::kCSR;
  return absl::InvalidArgumentError(
      StrCat("invalid storage type '", s, "' (expected 'default', 'row_sparse' or 'csr')"));
}

namespace {

const SparseAux& AuxOf(const NDArray& x, std::string_view what) {
  if (!x.is_sparse())
    MX_THROW(absl::StatusCode::kInvalidArgument, what, ": the array is dense (stype 'default'); ",
             "only csr and row_sparse arrays have ", what);
  return *NDArrayAccess::impl(x)->sparse;
}

int NumAuxOf(StorageType st) {
  return st == StorageType::kCSR ? 2 : st == StorageType::kRowSparse ? 1 : 0;
}

// A sparse array from parts that are already checked and owned.
NDArray MakeSparse(StorageType st, const Shape& shape, NDArray data, std::vector<NDArray> aux) {
  auto impl = NDArrayAccess::New();
  impl->shape = shape;
  impl->dtype = data.dtype();
  impl->storage = NDArrayAccess::impl(data)->storage;
  impl->offset = NDArrayAccess::impl(data)->offset;
  impl->sparse = std::make_shared<SparseAux>(SparseAux{st, std::move(data), std::move(aux)});
  return NDArrayAccess::Make(std::move(impl));
}

// An int64 copy of an integer index array (1-d).
NDArray IndexCopy(const NDArray& a, std::string_view fn, std::string_view part) {
  if (a.is_none()) MX_THROW(absl::StatusCode::kInvalidArgument, fn, ": ", part, " is empty");
  if (a.is_sparse())
    MX_THROW(absl::StatusCode::kInvalidArgument, fn, ": ", part, " must be a dense array");
  if (IsFloatingPoint(a.dtype()) || a.dtype() == DType::kBool)
    MX_THROW(absl::StatusCode::kInvalidArgument, fn, ": ", part,
             " must have an integer dtype, got ", DTypeName(a.dtype()));
  if (a.ndim() != 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, fn, ": ", part, " must be 1-d, got shape ",
             a.shape().ToString());
  return a.astype(DType::kInt64);
}

Shape RowShape(const Shape& s, int64_t rows) {
  std::vector<int64_t> d = s.ToVector();
  d[0] = rows;
  return Shape(d);
}

std::string CheckCsr(const Shape& shape, const std::vector<int64_t>& indptr,
                     const std::vector<int64_t>& idx) {
  int64_t rows = shape[0], cols = shape[1], nnz = static_cast<int64_t>(idx.size());
  if (static_cast<int64_t>(indptr.size()) != rows + 1)
    return StrCat("indptr has ", indptr.size(), " entries, expected rows + 1 = ", rows + 1);
  if (indptr[0] != 0) return StrCat("indptr[0] is ", indptr[0], ", expected 0");
  for (int64_t r = 0; r < rows; ++r)
    if (indptr[r + 1] < indptr[r]) return StrCat("indptr decreases at row ", r);
  if (indptr[rows] != nnz)
    return StrCat("indptr[", rows, "] is ", indptr[rows], ", expected nnz = ", nnz);
  for (int64_t k = 0; k < nnz; ++k)
    if (idx[k] < 0 || idx[k] >= cols)
      return StrCat("column index ", k, " is ", idx[k], ", outside [0, ", cols, ")");
  return "";
}

std::string CheckRowSparse(const Shape& shape, const std::vector<int64_t>& idx) {
  for (size_t k = 0; k < idx.size(); ++k) {
    if (idx[k] < 0 || idx[k] >= shape[0])
      return StrCat("row index ", k, " is ", idx[k], ", outside [0, ", shape[0], ")");
    if (k && idx[k] <= idx[k - 1])
      return StrCat("row indices must be strictly ascending: index ", k, " is ", idx[k], " after ",
                    idx[k - 1]);
  }
  return "";
}

// Host bytes of a dense array.
std::vector<char> HostBytes(const NDArray& a) {
  std::vector<char> b(a.nbytes());
  a.SyncCopyToCPU(b.data(), b.size());
  return b;
}

NDArray FromHost(const std::vector<char>& bytes, const Shape& shape, Device dev, DType t) {
  NDArray a(shape, dev, t);
  a.SyncCopyFromCPU(bytes.data(), bytes.size());
  return a;
}

NDArray I64(const std::vector<int64_t>& v, Device dev) {
  return NDArray::FromVector<int64_t>(v, Shape({static_cast<int64_t>(v.size())}), dev,
                                      DType::kInt64);
}

NDArray Densify(const NDArray& x) {
  const SparseAux& s = *NDArrayAccess::impl(x)->sparse;
  const Shape& shape = x.shape();
  size_t es = DTypeSize(x.dtype());
  std::vector<char> out(static_cast<size_t>(shape.Size()) * es, 0);
  std::vector<char> vals = HostBytes(s.data);
  if (s.stype == StorageType::kCSR) {
    std::vector<int64_t> indptr = s.aux[kCSRIndPtr].ToVector<int64_t>();
    std::vector<int64_t> idx = s.aux[kCSRIdx].ToVector<int64_t>();
    int64_t cols = shape[1];
    for (int64_t r = 0; r + 1 < static_cast<int64_t>(indptr.size()); ++r)
      for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k)
        std::memcpy(out.data() + (r * cols + idx[k]) * es, vals.data() + k * es, es);
  } else {
    std::vector<int64_t> idx = s.aux[kRowSparseIdx].ToVector<int64_t>();
    size_t row = static_cast<size_t>(shape.ProdRange(1, shape.ndim())) * es;
    for (size_t k = 0; k < idx.size(); ++k)
      std::memcpy(out.data() + idx[k] * row, vals.data() + k * row, row);
  }
  return FromHost(out, shape, x.device(), x.dtype());
}

// Which elements of a dense array are non-zero (NaN counts as non-zero, -0 as zero).
std::vector<bool> NonZero(const NDArray& x) {
  std::vector<double> v = x.ToVector<double>();
  std::vector<bool> nz(v.size());
  for (size_t i = 0; i < v.size(); ++i) nz[i] = v[i] != 0.0;  // NaN != 0 is true
  return nz;
}

NDArray DenseToCsr(const NDArray& x) {
  if (x.ndim() != 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, "cast_storage: csr needs a 2-d array, got shape ",
             x.shape().ToString());
  int64_t rows = x.shape()[0], cols = x.shape()[1];
  size_t es = DTypeSize(x.dtype());
  std::vector<char> bytes = HostBytes(x);
  std::vector<bool> nz = NonZero(x);
  std::vector<int64_t> indptr(rows + 1, 0), idx;
  std::vector<char> vals;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      if (!nz[r * cols + c]) continue;
      idx.push_back(c);
      const char* p = bytes.data() + (r * cols + c) * es;
      vals.insert(vals.end(), p, p + es);
    }
    indptr[r + 1] = static_cast<int64_t>(idx.size());
  }
  Device d = x.device();
  NDArray data = FromHost(vals, Shape({static_cast<int64_t>(idx.size())}), d, x.dtype());
  return MakeSparse(StorageType::kCSR, x.shape(), data, {I64(indptr, d), I64(idx, d)});
}

NDArray DenseToRowSparse(const NDArray& x) {
  if (x.ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "cast_storage: row_sparse needs an array of at least 1 dim, got a 0-d array");
  const Shape& s = x.shape();
  int64_t rows = s[0];
  size_t per_row = static_cast<size_t>(s.ProdRange(1, s.ndim()));
  size_t row_bytes = per_row * DTypeSize(x.dtype());
  std::vector<char> bytes = HostBytes(x);
  std::vector<bool> nz = NonZero(x);
  std::vector<int64_t> idx;
  std::vector<char> vals;
  for (int64_t r = 0; r < rows; ++r) {
    bool any = false;
    for (size_t j = 0; j < per_row && !any; ++j) any = nz[r * per_row + j];
    if (!any) continue;
    idx.push_back(r);
    const char* p = bytes.data() + r * row_bytes;
    vals.insert(vals.end(), p, p + row_bytes);
  }
  Device d = x.device();
  NDArray data = FromHost(vals, RowShape(s, static_cast<int64_t>(idx.size())), d, x.dtype());
  return MakeSparse(StorageType::kRowSparse, s, data, {I64(idx, d)});
}

}  // namespace

// ---- NDArray's sparse accessors. ----
StorageType NDArray::stype() const {
  return impl_ && impl_->sparse ? impl_->sparse->stype : StorageType::kDefault;
}

NDArray NDArray::data() const { return is_sparse() ? impl_->sparse->data : *this; }

NDArray NDArray::indices() const {
  const SparseAux& s = AuxOf(*this, "indices");
  return s.aux[s.stype == StorageType::kCSR ? kCSRIdx : kRowSparseIdx];
}

NDArray NDArray::indptr() const {
  const SparseAux& s = AuxOf(*this, "indptr");
  if (s.stype != StorageType::kCSR)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "indptr: only csr arrays have indptr, this one is ", StorageTypeName(s.stype));
  return s.aux[kCSRIndPtr];
}

int NDArray::num_aux() const { return NumAuxOf(stype()); }

NDArray NDArray::aux_data(int i) const {
  const SparseAux& s = AuxOf(*this, "aux_data");
  if (i < 0 || i >= static_cast<int>(s.aux.size()))
    MX_THROW(absl::StatusCode::kOutOfRange, "aux_data: index ", i, " out of range: a ",
             StorageTypeName(s.stype), " array has ", s.aux.size(), " aux arrays");
  return s.aux[i];
}

DType NDArray::aux_type(int i) const { return aux_data(i).dtype(); }
Shape NDArray::aux_shape(int i) const { return aux_data(i).shape(); }

NDArray NDArray::tostype(StorageType st) const { return CastStorage(*this, st); }

// ---- Construction. ----
NDArray csr_matrix(const NDArray& data, const NDArray& indices, const NDArray& indptr,
                   const Shape& shape) {
  constexpr std::string_view fn = "csr_matrix";
  if (shape.ndim() != 2 || !shape.is_known())
    MX_THROW(absl::StatusCode::kInvalidArgument, fn, ": shape must be 2-d and known, got ",
             shape.ToString());
  if (data.is_none() || data.is_sparse() || data.ndim() != 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, fn, ": data must be a dense 1-d array, got ",
             data.is_none() ? std::string("none") : data.shape().ToString());
  NDArray idx = IndexCopy(indices, fn, "indices");
  NDArray ptr = IndexCopy(indptr, fn, "indptr");
  if (idx.size() != data.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, fn, ": indices has ", idx.size(),
             " entries but data has ", data.size());
  std::string err = CheckCsr(shape, ptr.ToVector<int64_t>(), idx.ToVector<int64_t>());
  if (!err.empty()) MX_THROW(absl::StatusCode::kInvalidArgument, fn, ": ", err);
  Device d = data.device();
  return MakeSparse(StorageType::kCSR, shape, data.copy(), {ptr.copyto(d), idx.copyto(d)});
}

NDArray row_sparse_array(const NDArray& data, const NDArray& indices, const Shape& shape) {
  constexpr std::string_view fn = "row_sparse_array";
  if (shape.ndim() < 1 || !shape.is_known())
    MX_THROW(absl::StatusCode::kInvalidArgument, fn, ": shape must be known and at least 1-d, got ",
             shape.ToString());
  NDArray idx = IndexCopy(indices, fn, "indices");
  if (data.is_none() || data.is_sparse() || data.shape() != RowShape(shape, idx.shape()[0]))
    MX_THROW(absl::StatusCode::kInvalidArgument, fn, ": data must be a dense array of shape ",
             RowShape(shape, idx.shape()[0]).ToString(), " (indices has ", idx.size(),
             " rows), got ", data.is_none() ? std::string("none") : data.shape().ToString());
  std::string err = CheckRowSparse(shape, idx.ToVector<int64_t>());
  if (!err.empty()) MX_THROW(absl::StatusCode::kInvalidArgument, fn, ": ", err);
  return MakeSparse(StorageType::kRowSparse, shape, data.copy(), {idx.copyto(data.device())});
}

NDArray EmptySparse(StorageType st, const Shape& shape, Device d, DType t) {
  if (!shape.is_known())
    MX_THROW(absl::StatusCode::kInvalidArgument, "sparse array: shape ", shape.ToString(),
             " must be known");
  if (st == StorageType::kCSR) {
    if (shape.ndim() != 2)
      MX_THROW(absl::StatusCode::kInvalidArgument, "csr array: shape must be 2-d, got ",
               shape.ToString());
    return MakeSparse(st, shape, NDArray(Shape({0}), d, t),
                      {I64(std::vector<int64_t>(shape[0] + 1, 0), d), I64({}, d)});
  }
  if (st == StorageType::kRowSparse) {
    if (shape.ndim() < 1)
      MX_THROW(absl::StatusCode::kInvalidArgument, "row_sparse array: shape must be at least 1-d");
    return MakeSparse(st, shape, NDArray(RowShape(shape, 0), d, t), {I64({}, d)});
  }
  return NDArray::Full(shape, 0, d, t);
}

NDArray sparse_zeros(StorageType st, const Shape& shape, Device d, DType t) {
  return EmptySparse(st, shape, d, t);
}

void SetSparseParts(const NDArray& out, NDArray data, std::vector<NDArray> aux) {
  const SparseAux& s = AuxOf(out, "SetSparseParts");
  const Shape& shape = out.shape();
  auto fail = [&](auto&&... why) {
    MX_THROW(absl::StatusCode::kInvalidArgument, "SetSparseParts: ", StorageTypeName(s.stype),
             " array of shape ", shape.ToString(), ": ", why...);
  };
  if (data.is_none() || data.is_sparse()) fail("data must be a dense array");
  if (data.dtype() != out.dtype())
    fail("data dtype ", DTypeName(data.dtype()), " differs from ", DTypeName(out.dtype()));
  if (static_cast<int>(aux.size()) != NumAuxOf(s.stype))
    fail(aux.size(), " aux arrays, expected ", NumAuxOf(s.stype));
  for (const NDArray& a : aux)
    if (a.is_none() || a.dtype() != DType::kInt64 || a.ndim() != 1)
      fail("aux arrays must be 1-d int64");
  if (s.stype == StorageType::kCSR) {
    if (data.ndim() != 1 || aux[kCSRIdx].size() != data.size() ||
        aux[kCSRIndPtr].size() != shape[0] + 1)
      fail("data ", data.shape().ToString(), ", indptr ", aux[kCSRIndPtr].shape().ToString(),
           ", indices ", aux[kCSRIdx].shape().ToString(), " do not fit");
  } else if (data.shape() != RowShape(shape, aux[kRowSparseIdx].size())) {
    fail("data ", data.shape().ToString(), " does not fit ", aux[kRowSparseIdx].size(),
         " stored rows");
  }
  auto& impl = *NDArrayAccess::impl(out);
  impl.storage = NDArrayAccess::impl(data)->storage;
  impl.offset = NDArrayAccess::impl(data)->offset;
  impl.sparse = std::make_shared<SparseAux>(SparseAux{s.stype, std::move(data), std::move(aux)});
  if (impl.storage) impl.storage->bump_version();
}

std::string CheckSparseIndices(const NDArray& x) {
  if (!x.is_sparse()) return "";
  const SparseAux& s = *NDArrayAccess::impl(x)->sparse;
  if (s.stype == StorageType::kCSR)
    return CheckCsr(x.shape(), s.aux[kCSRIndPtr].ToVector<int64_t>(),
                    s.aux[kCSRIdx].ToVector<int64_t>());
  return CheckRowSparse(x.shape(), s.aux[kRowSparseIdx].ToVector<int64_t>());
}

NDArray CastStorage(const NDArray& x, StorageType to) {
  if (x.is_none())
    MX_THROW(absl::StatusCode::kInvalidArgument, "cast_storage: the array is empty (none)");
  StorageType from = x.stype();
  if (from == to) return x;
  if (from != StorageType::kDefault) {
    NDArray dense = Densify(x);
    return to == StorageType::kDefault ? dense : CastStorage(dense, to);
  }
  return to == StorageType::kCSR ? DenseToCsr(x) : DenseToRowSparse(x);
}

// Used by ndarray.cc for sparse arrays: copies keep the storage type.
NDArray SparseCopyTo(const NDArray& x, Device d) {
  const SparseAux& s = *NDArrayAccess::impl(x)->sparse;
  std::vector<NDArray> aux;
  for (const NDArray& a : s.aux) aux.push_back(a.copyto(d));
  return MakeSparse(s.stype, x.shape(), s.data.copyto(d), std::move(aux));
}

NDArray SparseAsType(const NDArray& x, DType t) {
  const SparseAux& s = *NDArrayAccess::impl(x)->sparse;
  std::vector<NDArray> aux;
  for (const NDArray& a : s.aux) aux.push_back(a.copy());
  return MakeSparse(s.stype, x.shape(), s.data.astype(t), std::move(aux));
}

void attach_grad(const NDArray& x, GradReq req, StorageType stype) {
  if (stype == StorageType::kDefault) return x.attach_grad(req);
  if (stype != StorageType::kRowSparse)
    MX_THROW(absl::StatusCode::kInvalidArgument, "attach_grad: gradient storage type '",
             StorageTypeName(stype), "' is not supported (use 'default' or 'row_sparse')");
  if (x.is_none() || x.ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "attach_grad: a row_sparse gradient needs an array of at least 1 dimension");
  NDArray g = EmptySparse(StorageType::kRowSparse, x.shape(), x.device(), x.dtype());
  x.set_grad_buffer(g, req);
  x.set_hook_state(NDArray::HookSlot::kAutograd, nullptr);  // a fresh variable: no history
}

NDArray RowSparseAdd(const NDArray& a, const NDArray& b) {
  if (a.stype() != StorageType::kRowSparse || b.stype() != StorageType::kRowSparse)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "RowSparseAdd: expected two row_sparse arrays, got ", StorageTypeName(a.stype()),
             " and ", StorageTypeName(b.stype()));
  if (a.shape() != b.shape() || a.dtype() != b.dtype())
    MX_THROW(absl::StatusCode::kInvalidArgument, "RowSparseAdd: ", a.shape().ToString(), " ",
             DTypeName(a.dtype()), " and ", b.shape().ToString(), " ", DTypeName(b.dtype()),
             " differ");
  const std::vector<int64_t> ia = a.indices().ToVector<int64_t>(),
                             ib = b.indices().ToVector<int64_t>();
  const std::vector<double> va = a.data().ToVector<double>(), vb = b.data().ToVector<double>();
  const int64_t row = a.shape().ProdRange(1, a.ndim());
  // Merge of two ascending lists; each sum is exact in double and rounded once to the dtype
  // (the dtype's own correctly rounded addition for float16/32).
  std::vector<int64_t> idx;
  std::vector<double> val;
  size_t p = 0, q = 0;
  while (p < ia.size() || q < ib.size()) {
    const bool take_a = q == ib.size() || (p < ia.size() && ia[p] <= ib[q]);
    const bool take_b = p == ia.size() || (q < ib.size() && ib[q] <= ia[p]);
    idx.push_back(take_a ? ia[p] : ib[q]);
    for (int64_t j = 0; j < row; ++j)
      val.push_back((take_a ? va[p * row + j] : 0.0) + (take_b ? vb[q * row + j] : 0.0));
    p += take_a;
    q += take_b;
  }
  const int64_t k = static_cast<int64_t>(idx.size());
  return MakeSparse(StorageType::kRowSparse, a.shape(),
                    NDArray::FromVector(val, RowShape(a.shape(), k), a.device(), a.dtype()),
                    {I64(idx, a.device())});
}

NDArray SparseShare(const NDArray& x) {
  const auto& i = *NDArrayAccess::impl(x);
  auto v = NDArrayAccess::New();
  v->storage = i.storage;
  v->offset = i.offset;
  v->shape = i.shape;
  v->dtype = i.dtype;
  v->sparse = i.sparse;
  return NDArrayAccess::Make(std::move(v));
}

}  // namespace mxnet
