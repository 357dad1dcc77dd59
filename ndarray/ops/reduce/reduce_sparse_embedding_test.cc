// _contrib_SparseEmbedding (MXNet 1.9.1's deprecated contrib name of Embedding, registered here
// as an alias of Embedding in reduce_indexing.cc): with dense storage it is Embedding, and its
// weight gradient (row_sparse in MXNet) is the dense scatter-add. Values from real MXNet 1.9.1
// (mx.nd.contrib.SparseEmbedding with a row_sparse weight gradient, densified).
#include <gtest/gtest.h>

#include "ndarray/grad.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

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

}  // namespace
}  // namespace mxnet::testing
