// Sparse NDArrays (ndarray/sparse.h): layout, checks, storage casts, NDArray methods on sparse
// arrays, and Invoke's storage dispatch (storage kernels, MXNet's dense fallback). Expected
// values are worked out by hand from MXNet's csr / row_sparse definitions (mxnet.ndarray.sparse
// docs); the casts are also compared with MXNet 1.9.1 through files in //ndarray:io_test.
#include "ndarray/sparse.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ndarray/op.h"

namespace mxnet {
namespace {

using testing::HasSubstr;

NDArray F32(std::vector<float> v, Shape s) { return NDArray::FromVector(v, s); }
NDArray I64(std::vector<int64_t> v) {
  return NDArray::FromVector(v, Shape({static_cast<int64_t>(v.size())}));
}
std::vector<int64_t> Ints(const NDArray& a) { return a.ToVector<int64_t>(); }

// [[1, 0, 2], [0, 0, 0], [0, 3, 0]]
NDArray SampleCsr() {
  return csr_matrix(F32({1, 2, 3}, Shape({3})), I64({0, 2, 1}), I64({0, 2, 2, 3}), Shape({3, 3}));
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Sparse, CsrFromPartsHasMXNetLayout) {
  NDArray a = SampleCsr();
  EXPECT_EQ(a.stype(), StorageType::kCSR);
  EXPECT_TRUE(a.is_sparse());
  EXPECT_EQ(a.shape(), Shape({3, 3}));  // the logical shape
  EXPECT_EQ(a.dtype(), DType::kFloat32);
  EXPECT_EQ(a.num_aux(), 2);
  EXPECT_EQ(a.aux_type(kCSRIndPtr), DType::kInt64);
  EXPECT_EQ(a.aux_shape(kCSRIndPtr), Shape({4}));
  EXPECT_EQ(a.aux_shape(kCSRIdx), Shape({3}));
  EXPECT_EQ(Ints(a.indptr()), (std::vector<int64_t>{0, 2, 2, 3}));
  EXPECT_EQ(Ints(a.indices()), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(a.data().ToVector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(a.ToVector<float>(), (std::vector<float>{1, 0, 2, 0, 0, 0, 0, 3, 0}));
  EXPECT_EQ(a.ToString(), "<CSRNDArray 3x3 @cpu(0)>");
  EXPECT_EQ(std::string(StorageTypeName(a.stype())), "csr");
  EXPECT_EQ(ValueOrThrow(ParseStorageType("row_sparse")), StorageType::kRowSparse);
  EXPECT_FALSE(ParseStorageType("coo").ok());
  // int32 indices are accepted and stored as int64 (MXNet's default aux type).
  NDArray b = csr_matrix(F32({5}, Shape({1})), NDArray::FromVector<int32_t>({1}, Shape({1})),
                         NDArray::FromVector<int32_t>({0, 0, 1}, Shape({3})), Shape({2, 2}));
  EXPECT_EQ(b.indices().dtype(), DType::kInt64);
  EXPECT_EQ(b.ToVector<float>(), (std::vector<float>{0, 0, 0, 5}));
}

TEST(Sparse, RowSparseFromPartsHasMXNetLayout) {
  // rows 1 and 3 of a (4, 2) array.
  NDArray a = row_sparse_array(F32({1, 2, 3, 4}, Shape({2, 2})), I64({1, 3}), Shape({4, 2}));
  EXPECT_EQ(a.stype(), StorageType::kRowSparse);
  EXPECT_EQ(a.num_aux(), 1);
  EXPECT_EQ(a.aux_shape(kRowSparseIdx), Shape({2}));
  EXPECT_EQ(Ints(a.indices()), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(a.data().shape(), Shape({2, 2}));
  EXPECT_EQ(a.ToVector<float>(), (std::vector<float>{0, 0, 1, 2, 0, 0, 3, 4}));
  EXPECT_EQ(a.ToString(), "<RowSparseNDArray 4x2 @cpu(0)>");
  EXPECT_THAT(ErrorOf([&] { a.indptr(); }), HasSubstr("only csr arrays have indptr"));
}

TEST(Sparse, BadPartsAreRefusedNamingWhatIsWrong) {
  auto csr = [](std::vector<int64_t> idx, std::vector<int64_t> ptr) {
    return ErrorOf([&] {
      csr_matrix(F32(std::vector<float>(idx.size(), 1), Shape({(int64_t)idx.size()})), I64(idx),
                 I64(ptr), Shape({2, 3}));
    });
  };
  EXPECT_THAT(csr({0, 1}, {0, 2, 1}), HasSubstr("indptr decreases at row 1"));
  EXPECT_THAT(csr({0, 3}, {0, 1, 2}), HasSubstr("column index 1 is 3, outside [0, 3)"));
  EXPECT_THAT(csr({0, 1}, {1, 1, 2}), HasSubstr("indptr[0] is 1, expected 0"));
  EXPECT_THAT(csr({0, 1}, {0, 1, 1}), HasSubstr("indptr[2] is 1, expected nnz = 2"));
  EXPECT_THAT(csr({0, 1}, {0, 2}), HasSubstr("indptr has 2 entries, expected rows + 1 = 3"));
  EXPECT_THAT(ErrorOf([] {
                csr_matrix(F32({1}, Shape({1})), F32({0}, Shape({1})), I64({0, 1}), Shape({1, 1}));
              }),
              HasSubstr("indices must have an integer dtype, got float32"));
  EXPECT_THAT(ErrorOf([] {
                csr_matrix(F32({1}, Shape({1})), I64({0}), I64({0, 1}), Shape({1}));
              }),
              HasSubstr("shape must be 2-d"));
  auto rsp = [](std::vector<int64_t> idx) {
    return ErrorOf([&] {
      row_sparse_array(F32(std::vector<float>(idx.size() * 2, 1), Shape({(int64_t)idx.size(), 2})),
                       I64(idx), Shape({4, 2}));
    });
  };
  EXPECT_THAT(rsp({2, 1}), HasSubstr("strictly ascending: index 1 is 1 after 2"));
  EXPECT_THAT(rsp({1, 1}), HasSubstr("strictly ascending"));
  EXPECT_THAT(rsp({4}), HasSubstr("row index 0 is 4, outside [0, 4)"));
  EXPECT_THAT(
      ErrorOf([] {
        row_sparse_array(F32({1, 2}, Shape({1, 2})), I64({0}), Shape({4, 3}));
      }),
      HasSubstr("data must be a dense array of shape (1, 3) (indices has 1 rows), got (1, 2)"));
}

TEST(Sparse, CastStorageAllWays) {
  const float nan = std::nanf("");
  // Zeros (also -0) are not stored; NaN is (it is not equal to 0).
  NDArray dense = F32({0, 1.5f, -0.0f, 0, 0, 0, -2, 0, nan}, Shape({3, 3}));
  NDArray c = dense.tostype(StorageType::kCSR);
  EXPECT_EQ(c.stype(), StorageType::kCSR);
  EXPECT_EQ(Ints(c.indptr()), (std::vector<int64_t>{0, 1, 1, 3}));
  EXPECT_EQ(Ints(c.indices()), (std::vector<int64_t>{1, 0, 2}));
  std::vector<float> cv = c.data().ToVector<float>();
  ASSERT_EQ(cv.size(), 3u);
  EXPECT_EQ(cv[0], 1.5f);
  EXPECT_EQ(cv[1], -2.0f);
  EXPECT_TRUE(std::isnan(cv[2]));
  // csr -> row_sparse (through dense): rows 0 and 2 hold non-zeros.
  NDArray r = c.tostype(StorageType::kRowSparse);
  EXPECT_EQ(r.stype(), StorageType::kRowSparse);
  EXPECT_EQ(Ints(r.indices()), (std::vector<int64_t>{0, 2}));
  std::vector<float> rv = r.data().ToVector<float>();
  EXPECT_EQ(rv[0], 0);
  EXPECT_EQ(rv[1], 1.5f);
  EXPECT_EQ(rv[3], -2.0f);
  // row_sparse -> csr -> default gives the dense values back (-0 becomes +0: not stored).
  NDArray back = r.tostype(StorageType::kCSR).tostype(StorageType::kDefault);
  EXPECT_EQ(back.stype(), StorageType::kDefault);
  std::vector<float> bv = back.ToVector<float>();
  EXPECT_EQ(bv[1], 1.5f);
  EXPECT_FALSE(std::signbit(bv[2]));
  EXPECT_TRUE(std::isnan(bv[8]));
  // Same stype: the same array.
  EXPECT_TRUE(c.tostype(StorageType::kCSR).is_same(c));
  // 3-d row_sparse keeps whole slices; csr needs 2-d.
  NDArray d3 = F32({0, 0, 0, 0, 0, 7, 0, 0}, Shape({4, 1, 2}));
  NDArray r3 = d3.tostype(StorageType::kRowSparse);
  EXPECT_EQ(Ints(r3.indices()), (std::vector<int64_t>{2}));
  EXPECT_EQ(r3.data().shape(), Shape({1, 1, 2}));
  EXPECT_EQ(r3.tostype(StorageType::kDefault).ToVector<float>(), d3.ToVector<float>());
  EXPECT_THAT(ErrorOf([&] { d3.tostype(StorageType::kCSR); }), HasSubstr("csr needs a 2-d array"));
  // All-zero: nnz 0.
  NDArray z = NDArray::Full(Shape({2, 3}), 0).tostype(StorageType::kCSR);
  EXPECT_EQ(z.data().size(), 0);
  EXPECT_EQ(Ints(z.indptr()), (std::vector<int64_t>{0, 0, 0}));
  NDArray zr = sparse_zeros(StorageType::kRowSparse, Shape({5, 2}));
  EXPECT_EQ(zr.data().shape(), Shape({0, 2}));
  EXPECT_EQ(zr.ToVector<float>(), std::vector<float>(10, 0));
  // Integer dtypes keep their values.
  NDArray di = NDArray::FromVector<int32_t>({0, 7, 0, -1}, Shape({2, 2}), cpu(), DType::kInt32);
  NDArray ci = di.tostype(StorageType::kCSR);
  EXPECT_EQ(ci.dtype(), DType::kInt32);
  EXPECT_EQ(ci.data().ToVector<int32_t>(), (std::vector<int32_t>{7, -1}));
}

TEST(Sparse, NDArrayMethodsOnSparseArrays) {
  NDArray a = SampleCsr();
  EXPECT_THAT(ErrorOf([&] { a.data_ptr(); }), HasSubstr("sparse arrays have no dense buffer"));
  EXPECT_THAT(ErrorOf([&] { a.reshape({9}); }), HasSubstr("views"));
  EXPECT_THAT(ErrorOf([&] { a.slice(0, 1); }), HasSubstr("of a csr array are not supported"));
  EXPECT_THAT(ErrorOf([] { NDArray(Shape({2})).indices(); }), HasSubstr("the array is dense"));
  NDArray x(Shape({2}));
  EXPECT_TRUE(x.data().is_same(x));  // a dense array's data() is itself
  NDArray d = a.detach();
  EXPECT_EQ(d.stype(), StorageType::kCSR);
  EXPECT_TRUE(d.shares_storage(a));
  NDArray c = a.copy();
  EXPECT_EQ(c.stype(), StorageType::kCSR);
  EXPECT_FALSE(c.shares_storage(a));
  EXPECT_EQ(c.ToVector<float>(), a.ToVector<float>());
  NDArray h = a.astype(DType::kFloat64);
  EXPECT_EQ(h.stype(), StorageType::kCSR);
  EXPECT_EQ(h.dtype(), DType::kFloat64);
  EXPECT_EQ(h.ToVector<double>(), (std::vector<double>{1, 0, 2, 0, 0, 0, 0, 3, 0}));
  // copyto casts to the destination's storage (MXNet's CopyFromTo).
  NDArray dst(Shape({3, 3}));
  a.copyto(dst);
  EXPECT_EQ(dst.stype(), StorageType::kDefault);
  EXPECT_EQ(dst.ToVector<float>(), a.ToVector<float>());
  NDArray rdst = sparse_zeros(StorageType::kRowSparse, Shape({3, 3}));
  a.copyto(rdst);
  EXPECT_EQ(rdst.stype(), StorageType::kRowSparse);
  EXPECT_EQ(Ints(rdst.indices()), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(rdst.ToVector<float>(), a.ToVector<float>());
  F32({0, 0, 0, 4, 0, 0, 0, 0, 0}, Shape({3, 3})).copyto(rdst);
  EXPECT_EQ(Ints(rdst.indices()), (std::vector<int64_t>{1}));
  EXPECT_THROW(a.asscalar<float>(), Error);  // 9 elements
  a.Fill(0);
  EXPECT_EQ(a.data().size(), 0);
  EXPECT_EQ(a.ToVector<float>(), std::vector<float>(9, 0));
  EXPECT_THAT(ErrorOf([&] { a.Fill(1); }), HasSubstr("only 0 keeps it sparse"));
}

// ---- Invoke's storage dispatch, on ops registered here. ----
void AddKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  const float* a = in[0].data<float>();
  const float* b = in[1].data<float>();
  float* o = out[0].data<float>();
  for (int64_t i = 0; i < out[0].size(); ++i) o[i] = a[i] + b[i];
}

MX_REGISTER_OP(_sparse_test_add)
    .set_num_inputs(2)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, AddKernel)
    .set_non_differentiable();

// In-place update of input 0 (like an optimizer's weight).
MX_REGISTER_OP(_sparse_test_update)
    .set_num_inputs(2)
    .set_mutable_inputs({0})
    .set_kernel({DeviceType::kCPU, Backend::kReference}, AddKernel)
    .set_non_differentiable();

// A storage kernel for csr input: doubles the stored values, output csr; dense input falls back
// to the dense kernel (which triples, so the tests can tell which one ran).
MX_REGISTER_OP(_sparse_test_scale)
    .set_num_inputs(1)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  for (int64_t i = 0; i < out[0].size(); ++i)
                    out[0].data<float>()[i] = 3 * in[0].data<float>()[i];
                })
    .set_storage_kernel(
        [](const OpAttrs&, std::span<const StorageType> in, std::span<StorageType> out) {
          if (in[0] != StorageType::kCSR) return false;
          out[0] = StorageType::kCSR;
          return true;
        },
        [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
           std::span<const NDArray> out) {
          std::vector<float> v = in[0].data().ToVector<float>();
          for (float& x : v) x *= 2;
          SetSparseParts(out[0], F32(v, in[0].data().shape()),
                         {in[0].indptr().copy(), in[0].indices().copy()});
        })
    .set_non_differentiable();

TEST(SparseDispatch, DenseOpsFallBackToDenseAndLogOnce) {
  const Op& op = OpRegistry::Get("_sparse_test_add");
  NDArray b = F32({10, 20, 30, 40, 50, 60, 70, 80, 90}, Shape({3, 3}));
  testing::internal::CaptureStderr();
  NDArrayVec r = Invoke(op, OpAttrs(), std::vector<NDArray>{SampleCsr(), b});
  std::string log1 = testing::internal::GetCapturedStderr();
  EXPECT_EQ(r[0].stype(), StorageType::kDefault);
  EXPECT_EQ(r[0].ToVector<float>(), (std::vector<float>{11, 20, 32, 40, 50, 60, 70, 83, 90}));
  EXPECT_THAT(log1, HasSubstr("storage fallback: operator _sparse_test_add"));
  EXPECT_THAT(log1, HasSubstr("[csr, default]"));
  testing::internal::CaptureStderr();
  Invoke(op, OpAttrs(), std::vector<NDArray>{SampleCsr(), b});
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");  // once per (op, storage types)
  // InvokeInto a sparse output: computed dense, cast into the output's storage.
  NDArray out = sparse_zeros(StorageType::kRowSparse, Shape({3, 3}));
  NDArray zeros = NDArray::Full(Shape({3, 3}), 0);
  InvokeInto(op, OpAttrs(), std::vector<NDArray>{SampleCsr(), zeros}, std::vector<NDArray>{out});
  EXPECT_EQ(out.stype(), StorageType::kRowSparse);
  EXPECT_EQ(Ints(out.indices()), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(out.ToVector<float>(), SampleCsr().ToVector<float>());
}

TEST(SparseDispatch, SparseInputUpdatedInPlaceIsRefused) {
  const Op& op = OpRegistry::Get("_sparse_test_update");
  NDArray w = SampleCsr();
  EXPECT_THAT(ErrorOf([&] {
                Invoke(op, OpAttrs(), std::vector<NDArray>{w, NDArray::Full({3, 3}, 1)});
              }),
              HasSubstr("is csr and updated in place, which needs a sparse kernel"));
}

TEST(SparseDispatch, StorageKernelRunsForItsStorageTypes) {
  const Op& op = OpRegistry::Get("_sparse_test_scale");
  NDArrayVec r = Invoke(op, OpAttrs(), std::vector<NDArray>{SampleCsr()});
  EXPECT_EQ(r[0].stype(), StorageType::kCSR);
  EXPECT_EQ(r[0].data().ToVector<float>(), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(r[0].ToVector<float>(), (std::vector<float>{2, 0, 4, 0, 0, 0, 0, 6, 0}));
  // Dense input: the dense kernel.
  NDArrayVec d = Invoke(op, OpAttrs(), std::vector<NDArray>{F32({1, 2}, Shape({1, 2}))});
  EXPECT_EQ(d[0].stype(), StorageType::kDefault);
  EXPECT_EQ(d[0].ToVector<float>(), (std::vector<float>{3, 6}));
  // row_sparse input: not taken by the storage kernel, so the dense fallback.
  NDArray rsp = SampleCsr().tostype(StorageType::kRowSparse);
  testing::internal::CaptureStderr();
  NDArrayVec f = Invoke(op, OpAttrs(), std::vector<NDArray>{rsp});
  EXPECT_THAT(testing::internal::GetCapturedStderr(), HasSubstr("[row_sparse]"));
  EXPECT_EQ(f[0].stype(), StorageType::kDefault);
  EXPECT_EQ(f[0].ToVector<float>(), (std::vector<float>{3, 0, 6, 0, 0, 0, 0, 9, 0}));
}

}  // namespace
}  // namespace mxnet
