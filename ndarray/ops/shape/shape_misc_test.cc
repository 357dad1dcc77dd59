// Hand-checked tests of the shape family's miscellaneous ops (shape_misc.cc) through the nd::
// API: MXNet's documented examples, the dtype rules of amp_cast/amp_multicast, cast_storage's
// sparse stypes and error messages. MXNet 1.9.1's values for the same ops are checked in
// shape_test.cc (testdata/shape/refs.json).
#include <gtest/gtest.h>

#include "ndarray/grad.h"
#include "ndarray/ops/shape/shape_misc_api.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet {
namespace {

NDArray M(std::vector<double> v, Shape s, DType t = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), t);
}
std::vector<double> V(const NDArray& a) { return a.ToVector<double>(); }

template <typename F>
std::string ErrorOf(F f, absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  return "";
}

TEST(Diag, MatrixDiagonalsAndDiagonalMatrices) {
  NDArray x = M({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(V(nd::diag(x)), (std::vector<double>{1, 5}));
  EXPECT_EQ(V(nd::diag(x, 1)), (std::vector<double>{2, 6}));
  EXPECT_EQ(V(nd::diag(x, -1)), (std::vector<double>{4}));
  NDArray m = nd::diag(M({1, 2}, {2}), -1);
  EXPECT_EQ(m.shape(), (Shape{3, 3}));
  EXPECT_EQ(V(m), (std::vector<double>{0, 0, 0, 1, 0, 0, 0, 2, 0}));
  // 3-D: the (axis1, axis2) planes' diagonals, appended last: out[i, j] = x[j, i, j + 1].
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i) v[i] = i;
  NDArray y = nd::diag(M(v, {2, 3, 4}), 1, 0, 2);
  EXPECT_EQ(y.shape(), (Shape{3, 2}));
  EXPECT_EQ(V(y), (std::vector<double>{1, 14, 5, 18, 9, 22}));
  EXPECT_NE(ErrorOf([&] { nd::diag(x, 4); }).find("does not exist"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { nd::diag(x, 0, 1, -1); }).find("same axis"), std::string::npos);
}

TEST(Diag, GradientPutsTheOutputGradientOnTheDiagonal) {
  const Op& op = OpRegistry::Get("diag");
  OpAttrs a = OpAttrs::Parse(op, {{"k", "1"}});
  NDArray x = M({1, 2, 3, 4, 5, 6}, {2, 3});
  NDArray y = nd::diag(x, 1);
  std::vector<NDArray> in{x}, out{y}, og{M({10, 20}, {2})};
  std::vector<NDArray> g = EagerGradBuilder::Run(op, a, in, out, og);
  EXPECT_EQ(V(g[0]), (std::vector<double>{0, 10, 0, 0, 0, 20}));
}

TEST(KhatriRao, MxnetDocExample) {
  NDArray a = M({1, -1, 2, -3}, {2, 2});
  NDArray b = M({1, 4, 2, 5, 3, 6}, {3, 2});
  NDArray c = nd::khatri_rao({a, b});
  EXPECT_EQ(c.shape(), (Shape{6, 2}));
  EXPECT_EQ(V(c), (std::vector<double>{1, -4, 2, -5, 3, -6, 2, -12, 4, -15, 6, -18}));
  EXPECT_NE(ErrorOf([&] {
              nd::khatri_rao({a, M({1, 2, 3}, {1, 3})});
            }).find("columns"),
            std::string::npos);
}

TEST(FillElement0Index, SetsOneElementPerRow) {
  NDArray l = M(std::vector<double>(6, 0), {2, 3});
  NDArray r = nd::fill_element_0index(l, M({7, 8}, {2}), M({2, 0.9}, {2}));
  EXPECT_EQ(V(r), (std::vector<double>{0, 0, 7, 8, 0, 0}));
  EXPECT_EQ(V(l), std::vector<double>(6, 0)) << "lhs is not modified";
  EXPECT_NE(ErrorOf([&] {
              nd::fill_element_0index(l, M({7, 8}, {2}), M({3, 0}, {2}));
            }).find("rhs[0]"),
            std::string::npos);
}

TEST(AmpCast, CastsOnlyAmpFloatTypes) {
  NDArray f = M({1.5, -2}, {2});
  NDArray h = nd::amp_cast(f, DType::kFloat16);
  EXPECT_EQ(h.dtype(), DType::kFloat16);
  EXPECT_EQ(V(h), (std::vector<double>{1.5, -2}));
  EXPECT_EQ(nd::amp_cast(M({1, 2}, {2}, DType::kInt32), DType::kFloat16).dtype(), DType::kInt32);
  EXPECT_EQ(nd::amp_cast(M({1, 2}, {2}, DType::kFloat64), DType::kFloat16).dtype(),
            DType::kFloat64);
  EXPECT_EQ(nd::amp_cast(f, DType::kFloat64).dtype(), DType::kFloat64);
  // The gradient comes back in the input's dtype.
  const Op& op = OpRegistry::Get("amp_cast");
  std::vector<NDArray> in{f}, out{h}, og{M({1, 2}, {2}, DType::kFloat16)};
  std::vector<NDArray> g =
      EagerGradBuilder::Run(op, OpAttrs::Parse(op, {{"dtype", "float16"}}), in, out, og);
  EXPECT_EQ(g[0].dtype(), DType::kFloat32);
  EXPECT_EQ(V(g[0]), (std::vector<double>{1, 2}));
}

TEST(AmpMulticast, WidestOrNarrowestFloatType) {
  NDArray f = M({1}, {1}), h = M({2}, {1}, DType::kFloat16), d = M({3}, {1}, DType::kFloat64),
          i = M({4}, {1}, DType::kInt32);
  auto dtypes = [](const std::vector<NDArray>& v) {
    std::vector<DType> t;
    for (const auto& x : v) t.push_back(x.dtype());
    return t;
  };
  using D = DType;
  EXPECT_EQ(dtypes(nd::amp_multicast({h, f, i})),
            (std::vector<D>{D::kFloat32, D::kFloat32, D::kInt32}));
  EXPECT_EQ(dtypes(nd::amp_multicast({h, h})), (std::vector<D>{D::kFloat16, D::kFloat16}));
  EXPECT_EQ(dtypes(nd::amp_multicast({f, h}, true)), (std::vector<D>{D::kFloat16, D::kFloat16}));
  EXPECT_EQ(dtypes(nd::amp_multicast({f, f}, true)), (std::vector<D>{D::kFloat32, D::kFloat32}));
  // MXNet's rule takes the first input's dtype when no input is float32, even float64.
  EXPECT_EQ(dtypes(nd::amp_multicast({d, h})), (std::vector<D>{D::kFloat64, D::kFloat64}));
}

// Expected parts worked out from MXNet's csr / row_sparse definitions; the casts are compared
// with MXNet 1.9.1's own tostype output in //ndarray:io_test (MxFiles.CastStorageMatchesMXNets).
TEST(CastStorage, AllWaysBetweenDefaultCsrAndRowSparse) {
  NDArray x = M({0, 2, 0, 0, 0, 0, 3, 0, 4}, {3, 3});
  NDArray y = nd::cast_storage(x, "default");
  EXPECT_EQ(y.stype(), StorageType::kDefault);
  EXPECT_EQ(V(y), V(x));
  EXPECT_NE(y.data_ptr(), x.data_ptr());
  NDArray c = nd::cast_storage(x, "csr");
  ASSERT_EQ(c.stype(), StorageType::kCSR);
  EXPECT_EQ(c.indptr().ToVector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 3}));
  EXPECT_EQ(c.indices().ToVector<int64_t>(), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(V(c.data()), (std::vector<double>{2, 3, 4}));
  NDArray r = nd::cast_storage(c, "row_sparse");
  ASSERT_EQ(r.stype(), StorageType::kRowSparse);
  EXPECT_EQ(r.indices().ToVector<int64_t>(), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(V(r.data()), (std::vector<double>{0, 2, 0, 3, 0, 4}));
  NDArray c2 = nd::cast_storage(r, "csr");
  EXPECT_EQ(c2.indices().ToVector<int64_t>(), (std::vector<int64_t>{1, 0, 2}));
  NDArray d = nd::cast_storage(r, "default");
  EXPECT_EQ(d.stype(), StorageType::kDefault);
  EXPECT_EQ(V(d), V(x));
  NDArray same = nd::cast_storage(c, "csr");  // a copy
  EXPECT_EQ(same.stype(), StorageType::kCSR);
  EXPECT_FALSE(same.shares_storage(c));
  EXPECT_EQ(V(same), V(x));
  std::string e = ErrorOf(
      [&] {
        nd::cast_storage(M({1, 2, 3}, {3}), "csr");
      },
      absl::StatusCode::kInvalidArgument);
  EXPECT_NE(e.find("stype='csr' needs a 2-d input, got shape (3,)"), std::string::npos) << e;
  EXPECT_FALSE(ErrorOf([&] { nd::cast_storage(x, "dense"); }).empty());
}

}  // namespace
}  // namespace mxnet
