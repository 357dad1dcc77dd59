// _contrib_SparseEmbedding (MXNet 1.9.1's deprecated contrib name of Embedding, registered here
// as an alias of Embedding in reduce_indexing.cc): with dense storage it is Embedding, and its
// weight gradient (row_sparse in MXNet) is the dense scatter-add. Values from real MXNet 1.9.1
// (mx.nd.contrib.SparseEmbedding with a row_sparse weight gradient, densified).
// Embedding(sparse_grad=True): its weight gradient (_backward_SparseEmbedding) is row_sparse,
// checked against MXNet 1.9.1's indices and data (testdata/reduce/sparse_embedding.json from
// tools/conformance/gen_sparse_grad_refs.py) and against the dense gradient densified.
#include <gtest/gtest.h>

#include "base/strings.h"
#include "ndarray/grad.h"
#include "ndarray/sparse.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

NDArray Arr(std::vector<double> v, Shape s) {
  return NDArray::FromVector(v, std::move(s), cpu(), DType::kFloat32);
}

std::vector<double> Seq(int n, double scale, double offset) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = i * scale + offset;
  return v;
}

TEST(SparseEmbedding, IsEmbeddingWithMxnetValuesAndDenseGradient) {
  const Op& op = OpRegistry::Get("_contrib_SparseEmbedding");
  EXPECT_EQ(op.name, "Embedding");
  OpAttrs at = OpAttrs::Parse(op, {{"input_dim", "4"}, {"output_dim", "5"}});
  NDArray d = Arr({1, 3, 0, 2, 3, 3}, Shape{3, 2});
  NDArray w = Arr(Seq(20, 0.5, -3), Shape{4, 5});
  NDArray y = Invoke(op, at, std::vector<NDArray>{d, w})[0];
  EXPECT_EQ(y.shape(), (Shape{3, 2, 5}));
  const std::vector<double> want_y{-0.5, 0.0,  0.5,  1.0,  1.5,  4.5, 5.0, 5.5, 6.0, 6.5,
                                   -3.0, -2.5, -2.0, -1.5, -1.0, 2.0, 2.5, 3.0, 3.5, 4.0,
                                   4.5,  5.0,  5.5,  6.0,  6.5,  4.5, 5.0, 5.5, 6.0, 6.5};
  EXPECT_TRUE(AllClose(y, Arr(want_y, Shape{3, 2, 5}), 0, 0));
  NDArray og = Arr(Seq(30, 0.1, 0), Shape{3, 2, 5});
  std::vector<NDArray> g = EagerGradBuilder::Run(op, at, std::vector<NDArray>{d, w},
                                                 std::vector<NDArray>{y}, std::vector<NDArray>{og});
  EXPECT_TRUE(g[0].is_none());
  const std::vector<double> want_g{1.0, 1.1, 1.2, 1.3, 1.4, 0.0, 0.1, 0.2, 0.3, 0.4,
                                   1.5, 1.6, 1.7, 1.8, 1.9, 5.0, 5.3, 5.6, 5.9, 6.2};
  EXPECT_TRUE(AllClose(g[1], Arr(want_g, Shape{4, 5}), 1e-6, 1e-6));
}

// The weight gradient of Embedding over `data` (several arrays: the layer used on each, the
// gradients summed as autograd does: row_sparse pairs with RowSparseAdd).
NDArray WeightGrad(bool sparse, const std::vector<NDArray>& datas, const NDArray& w,
                   const NDArray& og, DType dt) {
  const Op& op = OpRegistry::Get("Embedding");
  const int64_t in_dim = w.shape()[0], out_dim = w.shape()[1];
  AttrDict ad{{"input_dim", StrCat(in_dim)},
              {"output_dim", StrCat(out_dim)},
              {"dtype", std::string(DTypeName(dt))}};
  if (sparse) ad["sparse_grad"] = "True";
  OpAttrs at = OpAttrs::Parse(op, ad);
  NDArray total;
  for (const NDArray& d : datas) {
    NDArray y = Invoke(op, at, std::vector<NDArray>{d, w})[0];
    NDArray g = EagerGradBuilder::Run(op, at, std::vector<NDArray>{d, w}, std::vector<NDArray>{y},
                                      std::vector<NDArray>{og})[1];
    total = total.is_none() ? g
            : sparse        ? RowSparseAdd(total, g)
                            : Invoke("elemwise_add", std::vector<NDArray>{total, g})[0];
  }
  return total;
}

TEST(EmbeddingSparseGrad, MatchesMXNet) {
  json doc = LoadRefJson("ndarray/ops/testdata/reduce/sparse_embedding.json");
  int n = 0;
  for (const json& c : doc["cases"]) {
    SCOPED_TRACE(n);
    const DType dt = ValueOrThrow(DTypeFromName(c["dtype"].get<std::string>()));
    const Shape ws{c["input_dim"].get<int64_t>(), c["output_dim"].get<int64_t>()};
    NDArray w = NDArray::FromVector(c["weight"].get<std::vector<double>>(), ws, cpu(), dt);
    std::vector<NDArray> datas;
    for (size_t k = 0; k < c["data"].size(); ++k)
      datas.push_back(NDArray::FromVector(c["data"][k].get<std::vector<double>>(),
                                          Shape(c["data_shapes"][k].get<std::vector<int64_t>>()),
                                          cpu(), DType::kFloat32));
    Shape os = datas[0].shape();
    os.push_back(ws[1]);
    NDArray og = NDArray::FromVector(c["ograd"].get<std::vector<double>>(), os, cpu(), dt);
    NDArray g = WeightGrad(true, datas, w, og, dt);
    const json& want = c["sparse"];
    EXPECT_EQ(want["stype"], "row_sparse");
    ASSERT_EQ(g.stype(), StorageType::kRowSparse);
    EXPECT_EQ(g.shape(), ws);
    EXPECT_EQ(g.indices().ToVector<int64_t>(), want["indices"].get<std::vector<int64_t>>());
    EXPECT_TRUE(AllClose(
        g.data(),
        NDArray::FromVector(want["data"].get<std::vector<double>>(), g.data().shape(), cpu(), dt),
        1e-6, 1e-7));
    // Densified, it is MXNet's dense gradient and ours.
    NDArray dense_want =
        NDArray::FromVector(c["dense"]["values"].get<std::vector<double>>(), ws, cpu(), dt);
    EXPECT_TRUE(AllClose(g.tostype(StorageType::kDefault), dense_want, 1e-6, 1e-7));
    EXPECT_TRUE(AllClose(g.tostype(StorageType::kDefault), WeightGrad(false, datas, w, og, dt),
                         1e-6, 1e-7));
    ++n;
  }
  EXPECT_EQ(n, 2);
}

// float64 and float16 weights, clipped indices (MXNet's lookup rule), an empty index array and
// the dense kernel (non-CPU fallback) agree with the dense gradient.
TEST(EmbeddingSparseGrad, DtypesClippingAndEmptyData) {
  for (DType dt : {DType::kFloat64, DType::kFloat16, DType::kFloat32}) {
    SCOPED_TRACE(DTypeName(dt));
    NDArray w = RandomArray({5, 3}, -1, 1, 11, dt);
    NDArray d = NDArray::FromVector(std::vector<double>{4, -2, 9, 2.7, 4, 0}, Shape{2, 3});
    NDArray og = RandomArray({2, 3, 3}, -1, 1, 12, dt);
    NDArray g = WeightGrad(true, {d}, w, og, dt);
    EXPECT_EQ(g.indices().ToVector<int64_t>(), (std::vector<int64_t>{0, 2, 4}));
    const double tol = dt == DType::kFloat16 ? 2e-3 : 1e-6;
    EXPECT_TRUE(
        AllClose(g.tostype(StorageType::kDefault), WeightGrad(false, {d}, w, og, dt), tol, tol));
    const Op& bw = OpRegistry::Get("_backward_SparseEmbedding");
    OpAttrs at = OpAttrs::Parse(bw, {{"input_dim", "5"}, {"output_dim", "3"}});
    NDArray dense(Shape{5, 3}, cpu(), dt);
    std::vector<NDArray> ins{og, d}, outs{dense};
    (*bw.FindKernel({DeviceType::kCPU, Backend::kReference}))(OpContext{}, at, ins, outs);
    EXPECT_TRUE(AllClose(dense, g.tostype(StorageType::kDefault), 0, 0));
  }
  NDArray w = RandomArray({4, 2}, -1, 1, 13, DType::kFloat32);
  NDArray g = WeightGrad(true, {NDArray(Shape{0}, cpu(), DType::kFloat32)}, w,
                         NDArray(Shape{0, 2}, cpu(), DType::kFloat32), DType::kFloat32);
  EXPECT_EQ(g.stype(), StorageType::kRowSparse);
  EXPECT_EQ(g.indices().size(), 0);
  EXPECT_EQ(g.ToVector<float>(), std::vector<float>(8, 0.0f));
}

}  // namespace
}  // namespace mxnet::testing
