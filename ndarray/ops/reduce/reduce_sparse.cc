// Sparse operators of the reduce family (ndarray/sparse.h), with MXNet 1.9.1's names and rules:
//   dot with a csr lhs (tensor/dot-inl.h)   storage kernel attached to dot in reduce_dot.cc
//   _sparse_retain (tensor/sparse_retain.cc) the rows of a row_sparse array listed in indices
//   _contrib_getnnz (contrib/nnz.cc)         stored-value count of a csr array (all, or per row)
//   _backward_SparseEmbedding (indexing_op)  Embedding's weight gradient when sparse_grad=True:
//                                            row_sparse, the looked-up rows (repeats summed)
// Deliberate differences from MXNet:
//  - _sparse_retain sorts and deduplicates `indices` and refuses ones outside [0, rows) (MXNet
//    copies them as given, making an unsorted or out-of-range row_sparse array); a dense `data`
//    gives the dense array with the other rows zeroed (MXNet: "operator not implemented").
//  - _contrib_getnnz of a dense array counts its non-zeros (MXNet: "operator not implemented").
//  - dot sums csr products in float64 and rounds once (MXNet sums in the value dtype).
#include "ndarray/ops/reduce/reduce_sparse.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "ndarray/grad.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ops/reduce/reduce_params.h"
#include "ndarray/sparse.h"

namespace mxnet::ops {

// ---- dot with a csr lhs ----
bool DotInferStorage(const OpAttrs& attrs, std::span<const StorageType> in,
                     std::span<StorageType> out) {
  const DotParam& p = attrs.get<DotParam>();
  if (in[0] != StorageType::kCSR || in[1] != StorageType::kDefault || p.transpose_b) return false;
  std::string want = p.forward_stype.value_or("None");
  if (want == "csr" || (!p.transpose_a && want == "row_sparse")) return false;
  out[0] = p.transpose_a && want != "default" ? StorageType::kRowSparse : StorageType::kDefault;
  return true;
}

void DotCsrKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const NDArray& lhs = in[0];
  if (!IsFloatingPoint(lhs.dtype()))
    MX_THROW(absl::StatusCode::kInvalidArgument, "dot: a csr lhs needs floating-point values, got ",
             DTypeName(lhs.dtype()));
  const bool ta = attrs.get<DotParam>().transpose_a;
  const int64_t rows = lhs.shape()[0], cols = lhs.shape()[1];
  const int64_t n = in[1].shape().ProdRange(1, in[1].ndim());  // rhs as (k, n)
  std::vector<int64_t> ptr = lhs.indptr().ToVector<int64_t>();
  std::vector<int64_t> idx = lhs.indices().ToVector<int64_t>();
  std::vector<double> val = lhs.data().ToVector<double>();
  std::vector<double> rhs = in[1].ToVector<double>();
  const Shape& os = out[0].shape();
  if (!ta) {  // out (rows, n): row r = sum_k lhs[r, idx[k]] * rhs[idx[k], :]
    std::vector<double> o(static_cast<size_t>(rows * n), 0.0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = ptr[r]; k < ptr[r + 1]; ++k)
        for (int64_t j = 0; j < n; ++j) o[r * n + j] += val[k] * rhs[idx[k] * n + j];
    NDArray::FromVector(o, os, out[0].device(), out[0].dtype()).copyto(out[0]);
    return;
  }
  // out (cols, n): row c = sum over stored (r, c) of lhs[r, c] * rhs[r, :]; the stored rows are
  // the columns that hold values (MXNet's rule), ascending.
  std::vector<double> o(static_cast<size_t>(cols * n), 0.0);
  std::vector<bool> used(static_cast<size_t>(cols), false);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = ptr[r]; k < ptr[r + 1]; ++k) {
      used[idx[k]] = true;
      for (int64_t j = 0; j < n; ++j) o[idx[k] * n + j] += val[k] * rhs[r * n + j];
    }
  NDArray dense = NDArray::FromVector(o, os, out[0].device(), out[0].dtype());
  if (!out[0].is_sparse()) {
    dense.copyto(out[0]);
    return;
  }
  std::vector<int64_t> stored;
  std::vector<double> data;
  for (int64_t c = 0; c < cols; ++c) {
    if (!used[c]) continue;
    stored.push_back(c);
    data.insert(data.end(), o.begin() + c * n, o.begin() + (c + 1) * n);
  }
  std::vector<int64_t> ds = os.ToVector();
  ds[0] = static_cast<int64_t>(stored.size());
  SetSparseParts(out[0], NDArray::FromVector(data, Shape(ds), out[0].device(), out[0].dtype()),
                 {NDArray::FromVector(stored, Shape({static_cast<int64_t>(stored.size())}),
                                      out[0].device(), DType::kInt64)});
}

namespace {

// ---- _sparse_retain ----
// Sorted, unique row numbers from an index array of any dtype; kInvalidArgument outside [0, rows).
std::vector<int64_t> RetainRows(const NDArray& indices, int64_t rows) {
  std::vector<double> v = indices.ToVector<double>();
  std::vector<int64_t> r;
  for (double x : v) {
    int64_t i = static_cast<int64_t>(x);
    if (i < 0 || i >= rows)
      MX_THROW(absl::StatusCode::kInvalidArgument, "_sparse_retain: index ", x, " is outside [0, ",
               rows, ")");
    r.push_back(i);
  }
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

void RetainShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  if ((*in)[1].ndim_known() && (*in)[1].ndim() != 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, "_sparse_retain: indices must be 1-d, got ",
             (*in)[1].ToString());
  if ((*in)[0].ndim_known() && (*in)[0].ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, "_sparse_retain: data must be at least 1-d");
  MergeShape(&(*out)[0], (*in)[0], "_sparse_retain: output");
  MergeShape(&(*in)[0], (*out)[0], "_sparse_retain: data");
}

void RetainType(const OpAttrs&, DTypeVec* in, DTypeVec* out) {
  MergeType(&(*out)[0], (*in)[0], "_sparse_retain: output");
  MergeType(&(*in)[0], (*out)[0], "_sparse_retain: data");
}

// Dense data: the rows not listed become zero.
void RetainDense(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const NDArray& x = in[0];
  std::vector<int64_t> keep = RetainRows(in[1], x.shape()[0]);
  size_t row =
      static_cast<size_t>(x.size() / std::max<int64_t>(x.shape()[0], 1)) * DTypeSize(x.dtype());
  std::vector<char> src(x.nbytes()), dst(x.nbytes(), 0);
  x.SyncCopyToCPU(src.data(), src.size());
  for (int64_t r : keep) std::copy_n(src.data() + r * row, row, dst.data() + r * row);
  out[0].SyncCopyFromCPU(dst.data(), dst.size());
}

// row_sparse data: output stores exactly the listed rows (zeros for rows data does not store).
void RetainRsp(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  const NDArray& x = in[0];
  std::vector<int64_t> keep = RetainRows(in[1], x.shape()[0]);
  std::vector<int64_t> have = x.indices().ToVector<int64_t>();
  const NDArray xd = x.data();
  size_t row = static_cast<size_t>(x.shape().ProdRange(1, x.ndim())) * DTypeSize(x.dtype());
  std::vector<char> src(xd.nbytes()), dst(keep.size() * row, 0);
  xd.SyncCopyToCPU(src.data(), src.size());
  for (size_t k = 0; k < keep.size(); ++k) {
    auto it = std::lower_bound(have.begin(), have.end(), keep[k]);
    if (it != have.end() && *it == keep[k])
      std::copy_n(src.data() + (it - have.begin()) * row, row, dst.data() + k * row);
  }
  std::vector<int64_t> ds = x.shape().ToVector();
  ds[0] = static_cast<int64_t>(keep.size());
  NDArray data(Shape(ds), out[0].device(), x.dtype());
  data.SyncCopyFromCPU(dst.data(), dst.size());
  SetSparseParts(out[0], data,
                 {NDArray::FromVector(keep, Shape({static_cast<int64_t>(keep.size())}),
                                      out[0].device(), DType::kInt64)});
}

MX_REGISTER_OP(_sparse_retain)
    .describe(
        "Keeps the rows of a row_sparse array whose numbers are listed in indices (any order, "
        "any dtype; duplicates ignored); the result is row_sparse storing exactly those rows. "
        "A dense data array gives the dense result.")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "indices"})
    .set_infer_shape(RetainShape)
    .set_infer_type(RetainType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RetainDense)
    .set_storage_kernel(
        [](const OpAttrs&, std::span<const StorageType> in, std::span<StorageType> out) {
          if (in[0] != StorageType::kRowSparse || in[1] != StorageType::kDefault) return false;
          out[0] = StorageType::kRowSparse;
          return true;
        },
        RetainRsp)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.Call("_sparse_retain", {og[0], in[1]}), GradValue()};
        },
        true, false);

// ---- _backward_SparseEmbedding ----
// The weight gradient of Embedding(sparse_grad=True): for each distinct (clipped) index r of
// data, in ascending order, the sum of the ograd rows looked up at r, summed in the order they
// occur (float16/bfloat16 in float32). Calls out(rows, values) with the ascending rows and the
// (k, output_dim) sums in the ograd's dtype as raw bytes.
template <typename Out>
void EmbeddingGradRows(const OpAttrs& attrs, std::span<const NDArray> in, Out out) {
  const auto& p = attrs.get<EmbeddingParam>();
  const NDArray& og = in[0];
  const int64_t n = p.input_dim, dim = p.output_dim;
  std::vector<double> idx = in[1].ToVector<double>();
  if (og.size() != static_cast<int64_t>(idx.size()) * dim)
    MX_THROW(absl::StatusCode::kInvalidArgument, "_backward_SparseEmbedding: ograd ",
             og.shape().ToString(), " does not hold ", idx.size(), " rows of ", dim);
  std::vector<int64_t> rows(idx.size());
  for (size_t j = 0; j < idx.size(); ++j) {  // truncated, clipped like Embedding's lookup
    double v = std::isnan(idx[j]) ? 0.0 : std::trunc(idx[j]);
    rows[j] = v < 0 ? 0 : v >= static_cast<double>(n) ? n - 1 : static_cast<int64_t>(v);
  }
  std::vector<int64_t> uniq = rows;
  std::sort(uniq.begin(), uniq.end());
  uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
  std::vector<char> bytes(uniq.size() * static_cast<size_t>(dim) * DTypeSize(og.dtype()));
  MX_FLOAT_TYPE_SWITCH(og.dtype(), T, "_backward_SparseEmbedding", {
    using A = AccType<T>;
    std::vector<A> acc(uniq.size() * static_cast<size_t>(dim), A(0));
    const T* g = static_cast<const T*>(og.data_ptr());
    for (size_t j = 0; j < rows.size(); ++j) {
      const int64_t k = std::lower_bound(uniq.begin(), uniq.end(), rows[j]) - uniq.begin();
      A* d = acc.data() + k * dim;
      const T* s = g + static_cast<int64_t>(j) * dim;
      for (int64_t c = 0; c < dim; ++c) d[c] += A(s[c]);
    }
    T* o = reinterpret_cast<T*>(bytes.data());
    for (size_t i = 0; i < acc.size(); ++i) o[i] = static_cast<T>(acc[i]);
  });
  out(uniq, bytes);
}

void EmbeddingGradShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<EmbeddingParam>();
  MergeShape(&(*out)[0], Shape{p.input_dim, p.output_dim}, "_backward_SparseEmbedding: output");
  const Shape& d = (*in)[1];
  if (!d.ndim_known()) return;
  Shape o = d;
  o.push_back(p.output_dim);
  MergeShape(&(*in)[0], o, "_backward_SparseEmbedding: ograd");
}

MX_REGISTER_OP(_backward_SparseEmbedding)
    .describe(
        "Weight gradient of Embedding with sparse_grad=True: (input_dim, output_dim), "
        "row_sparse storing the distinct looked-up rows (indices clipped to [0, input_dim-1]) "
        "with the ograd rows summed over repeats. Dense where no sparse kernel runs (non-CPU).")
    .set_params<EmbeddingParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape(EmbeddingGradShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "_backward_SparseEmbedding: output");
      MergeType(&(*in)[0], (*out)[0], "_backward_SparseEmbedding: ograd");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  EmbeddingGradRows(
                      attrs, in,
                      [&](const std::vector<int64_t>& rows, const std::vector<char>& bytes) {
                        const size_t row = bytes.size() / std::max<size_t>(rows.size(), 1);
                        std::vector<char> dense(out[0].nbytes(), 0);
                        for (size_t k = 0; k < rows.size(); ++k)
                          std::memcpy(dense.data() + rows[k] * row, bytes.data() + k * row, row);
                        out[0].SyncCopyFromCPU(dense.data(), dense.size());
                      });
                })
    .set_storage_kernel(
        [](const OpAttrs&, std::span<const StorageType> in, std::span<StorageType> out) {
          if (in[0] != StorageType::kDefault || in[1] != StorageType::kDefault) return false;
          out[0] = StorageType::kRowSparse;
          return true;
        },
        [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
           std::span<const NDArray> out) {
          EmbeddingGradRows(
              attrs, in, [&](const std::vector<int64_t>& rows, const std::vector<char>& bytes) {
                const int64_t k = static_cast<int64_t>(rows.size());
                NDArray data(Shape{k, attrs.get<EmbeddingParam>().output_dim}, out[0].device(),
                             out[0].dtype());
                if (!bytes.empty()) data.SyncCopyFromCPU(bytes.data(), bytes.size());
                SetSparseParts(
                    out[0], data,
                    {NDArray::FromVector(rows, Shape{k}, out[0].device(), DType::kInt64)});
              });
        })
    .set_non_differentiable();

// ---- _contrib_getnnz ----
struct GetNnzParam {
  std::optional<int> axis;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &GetNnzParam::axis).describe("None: all stored values; 1: per row.");
  }
};

void GetNnzShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  const std::optional<int>& axis = a.get<GetNnzParam>().axis;
  if (axis && *axis != 1)
    MX_THROW(absl::StatusCode::kUnimplemented, "_contrib_getnnz: axis = ", *axis,
             " is not supported (MXNet supports axis None and 1)");
  const Shape& s = (*in)[0];
  if (s.ndim_known() && s.ndim() != 2)
    MX_THROW(absl::StatusCode::kInvalidArgument, "_contrib_getnnz: data must be 2-d (csr), got ",
             s.ToString());
  MergeShape(&(*out)[0], axis ? Shape({s.ndim_known() ? s[0] : -1}) : Shape({1}),
             "_contrib_getnnz: output");
}

void GetNnzType(const OpAttrs&, DTypeVec*, DTypeVec* out) {
  MergeType(&(*out)[0], static_cast<int>(DType::kInt64), "_contrib_getnnz: output");
}

void WriteCounts(const std::vector<int64_t>& per_row, bool by_row, const NDArray& out) {
  int64_t total = 0;
  for (int64_t c : per_row) total += c;
  std::vector<int64_t> v = by_row ? per_row : std::vector<int64_t>{total};
  out.SyncCopyFromCPU(v.data(), v.size() * sizeof(int64_t));
}

void GetNnzDense(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  std::vector<double> v = in[0].ToVector<double>();
  int64_t rows = in[0].shape()[0], cols = in[0].shape()[1];
  std::vector<int64_t> per_row(static_cast<size_t>(rows), 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) per_row[r] += v[r * cols + c] != 0.0;
  WriteCounts(per_row, a.get<GetNnzParam>().axis.has_value(), out[0]);
}

void GetNnzCsr(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  std::vector<int64_t> ptr = in[0].indptr().ToVector<int64_t>();
  std::vector<int64_t> per_row(ptr.size() - 1);
  for (size_t r = 0; r + 1 < ptr.size(); ++r) per_row[r] = ptr[r + 1] - ptr[r];
  WriteCounts(per_row, a.get<GetNnzParam>().axis.has_value(), out[0]);
}

MX_REGISTER_OP(_contrib_getnnz)
    .describe(
        "Number of stored values of a csr array: all of them (axis None, shape (1,)) or per row "
        "(axis 1); int64. A dense array counts its non-zeros.")
    .set_params<GetNnzParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(GetNnzShape)
    .set_infer_type(GetNnzType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, GetNnzDense)
    .set_storage_kernel(
        [](const OpAttrs&, std::span<const StorageType> in, std::span<StorageType>) {
          return in[0] == StorageType::kCSR;  // dense output
        },
        GetNnzCsr)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
