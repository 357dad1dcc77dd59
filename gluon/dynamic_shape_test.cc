// HybridBlocks using ops with data-dependent output shapes (boolean_mask, nonzero): the
// hybridized block (traced graph run by the executor) matches the imperative one for masks
// that keep different numbers of rows, deferred initialization sees the masked shape, and
// gradients flow back to the kept rows and to parameters after the mask.
#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "gluon/block.h"
#include "gluon/nn/basic_layers.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/reduce/reduce_api.h"
#include "ndarray/ops/reduce/reduce_mask_api.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon {
namespace {

using testing::AllClose;
using testing::RandomArray;

// dense(boolean_mask(x * 2, mask)): (N, 3) x (N,) -> (count, 4).
class MaskedDense : public HybridBlock {
 public:
  MaskedDense() { dense = register_child(std::make_shared<nn::Dense>(4), "dense"); }
  NDArrayVec forward(const NDArrayVec& in) override {
    NDArray kept = nd::contrib::boolean_mask(nd::mul_scalar(in[0], 2), in[1]);
    return {(*dense)(kept)};
  }
  std::shared_ptr<nn::Dense> dense;
};

NDArray Mask(std::vector<double> v) {
  return NDArray::FromVector(v, {static_cast<int64_t>(v.size())}, cpu(), DType::kFloat32);
}

TEST(DynamicShape, HybridizedBooleanMaskMatchesImperative) {
  for (std::string backend : {"", "default"}) {
    SCOPED_TRACE(backend);
    MaskedDense net;
    net.initialize();
    NDArray x = RandomArray({5, 3}, -1, 1, 1, DType::kFloat32);
    std::vector<std::vector<double>> masks = {
        {1, 0, 1, 1, 0}, {0, 0, 0, 1, 0}, {1, 1, 1, 1, 1}, {0, 0, 0, 0, 0}};
    std::vector<NDArray> want;
    for (const auto& m : masks) want.push_back(net({x, Mask(m)})[0]);
    EXPECT_EQ(net.dense->weight->data().shape(), (Shape{4, 3}));
    net.hybridize(true, {.backend = backend});
    for (size_t i = 0; i < masks.size(); ++i) {
      NDArray got = net({x, Mask(masks[i])})[0];
      EXPECT_EQ(got.shape(), want[i].shape()) << i;
      EXPECT_TRUE(AllClose(got, want[i])) << i;
    }
    EXPECT_FALSE(net.cached_graph().outputs().empty());
  }
}

TEST(DynamicShape, HybridizedGradientsThroughTheMask) {
  MaskedDense net;
  net.initialize();
  NDArray x = RandomArray({4, 3}, -1, 1, 2, DType::kFloat32);
  NDArray m = Mask({0, 1, 1, 0});
  std::vector<NDArray> grads;  // x grad, weight grad; imperative then hybridized
  for (bool hybrid : {false, true}) {
    net.hybridize(hybrid);
    NDArray xv = x.copy();
    xv.attach_grad();
    {
      auto rec = autograd::record();
      NDArray y = net({xv, m})[0];
      EXPECT_EQ(y.shape(), (Shape{2, 4}));
      autograd::backward({y});
    }
    grads.push_back(xv.grad().copy());
    grads.push_back(net.dense->weight->grad().copy());
  }
  EXPECT_TRUE(AllClose(grads[2], grads[0]));
  EXPECT_TRUE(AllClose(grads[3], grads[1]));
  // Rows the mask drops get no gradient.
  std::vector<double> gx = grads[2].ToVector<double>();
  for (int j = 0; j < 3; ++j) {
    EXPECT_EQ(gx[j], 0);
    EXPECT_EQ(gx[9 + j], 0);
    EXPECT_NE(gx[3 + j], 0);
  }
}

// Same with nonzero: the number of nonzero entries of each row.
class CountNonzero : public HybridBlock {
 public:
  NDArray forward(const NDArray& x) override {
    NDArray idx = nd::npx::nonzero(x);  // (count, 2) int64
    return nd::sum(nd::ones_like(idx), 0);
  }
};

TEST(DynamicShape, HybridizedNonzero) {
  CountNonzero net;
  NDArray x =
      NDArray::FromVector(std::vector<double>{0, 1, 2, 0, 0, 3}, {2, 3}, cpu(), DType::kFloat32);
  std::vector<double> want = net(x).ToVector<double>();
  net.hybridize();
  EXPECT_EQ(net(x).ToVector<double>(), want);
  EXPECT_EQ(want, (std::vector<double>{3, 3}));
}

}  // namespace
}  // namespace mxnet::gluon
