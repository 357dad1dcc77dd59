// row_sparse gradient buffers (attach_grad with stype row_sparse, ndarray/sparse.h) under
// autograd: Embedding(sparse_grad=True) fills them with the looked-up rows; a layer used twice
// accumulates the union of rows; grad_req add keeps the union across backward passes (MXNet
// 1.9.1 refuses 'add' with sparse_grad; ours sums). Reference: the dense gradient of the same
// graph (attach_grad with a dense buffer).
#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "ndarray/sparse.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet {
namespace {

NDArray Embed(const NDArray& d, const NDArray& w, bool sparse) {
  AttrDict a{{"input_dim", "6"}, {"output_dim", "3"}};
  if (sparse) a["sparse_grad"] = "True";
  return Invoke("Embedding", std::vector<NDArray>{d, w}, a)[0];
}

// The weight gradient after `passes` backward passes of Embed(d1) + Embed(d2) (d2 none: one use).
NDArray Grad(StorageType st, GradReq req, const NDArray& d1, const NDArray& d2, int passes) {
  NDArray w = testing::RandomArray({6, 3}, -1, 1, 5, DType::kFloat32);
  attach_grad(w, req, st);
  NDArray og = testing::RandomArray({2, 2, 3}, -1, 1, 6, DType::kFloat32);
  for (int p = 0; p < passes; ++p) {
    NDArray y;
    {
      auto rec = autograd::record();
      y = Embed(d1, w, st == StorageType::kRowSparse);
      if (!d2.is_none())
        y = Invoke("elemwise_add",
                   std::vector<NDArray>{y, Embed(d2, w, st == StorageType::kRowSparse)})[0];
    }
    autograd::backward({y}, {og});
  }
  return w.grad();
}

TEST(SparseGrad, EmbeddingFillsRowSparseBuffer) {
  NDArray d1 = NDArray::FromVector<float>({1, 4, 4, 0}, Shape{2, 2});
  NDArray d2 = NDArray::FromVector<float>({5, 4, 5, 5}, Shape{2, 2});
  struct Case {
    NDArray d2;
    GradReq req;
    int passes;
    std::vector<int64_t> rows;
  };
  for (const Case& c :
       {Case{NDArray(), GradReq::kWrite, 1, {0, 1, 4}}, Case{d2, GradReq::kWrite, 1, {0, 1, 4, 5}},
        Case{NDArray(), GradReq::kWrite, 2, {0, 1, 4}}, Case{d2, GradReq::kAdd, 2, {0, 1, 4, 5}}}) {
    SCOPED_TRACE(c.rows.size() * 10 + c.passes);
    NDArray g = Grad(StorageType::kRowSparse, c.req, d1, c.d2, c.passes);
    ASSERT_EQ(g.stype(), StorageType::kRowSparse);
    EXPECT_EQ(g.indices().ToVector<int64_t>(), c.rows);
    NDArray dense = Grad(StorageType::kDefault, c.req, d1, c.d2, c.passes);
    EXPECT_TRUE(testing::AllClose(g.tostype(StorageType::kDefault), dense, 1e-6, 1e-7));
  }
}

TEST(SparseGrad, Errors) {
  NDArray w = NDArray::FromVector<float>({1, 2}, Shape{2});
  std::string err;
  try {
    attach_grad(w, GradReq::kWrite, StorageType::kCSR);
  } catch (const Error& e) {
    err = e.what();
  }
  EXPECT_NE(err.find("'csr' is not supported"), std::string::npos) << err;
  // A dense gradient into a row_sparse buffer keeps its non-zero rows (MXNet casts storage).
  attach_grad(w, GradReq::kWrite, StorageType::kRowSparse);
  {
    auto rec = autograd::record();
    NDArray y = Invoke("elemwise_mul", std::vector<NDArray>{w, w})[0];
    autograd::backward({y}, {NDArray::FromVector<float>({0, 1}, Shape{2})});
  }
  EXPECT_EQ(w.grad().stype(), StorageType::kRowSparse);
  EXPECT_EQ(w.grad().indices().ToVector<int64_t>(), (std::vector<int64_t>{1}));
  EXPECT_EQ(w.grad().ToVector<float>(), (std::vector<float>{0, 4}));
}

}  // namespace
}  // namespace mxnet
