// A hybridized block's inference graph folds BatchNorm and the convolution weights in (the
// default backend, "onednn"); every way training and user code change those parameters between
// calls (set_data, a Trainer step, an in-place op, load_parameters) must give the refolded
// result, which the test computes imperatively from the parameters' current values. The check
// compares the storage blocks' write versions (ndarray/storage.h), not the contents.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "gluon/block.h"
#include "gluon/training/trainer.h"
#include "ndarray/op.h"
#include "ndarray/ops/conv/conv_api.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/elemwise/elemwise_api.h"
#include "ndarray/ops/nn/nn_api.h"
#include "ndarray/ops/reduce/reduce_api.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon {
namespace {

using ::mxnet::testing::AllClose;
using ::mxnet::testing::RandomArray;

// relu(BatchNorm(Convolution(x))) from the parameters' values (imperative when called outside
// a hybridized forward).
NDArray ConvBnReluOf(const NDArray& x, const NDArray& w, const NDArray& b, const NDArray& gamma,
                     const NDArray& beta, const NDArray& mean, const NDArray& var) {
  NDArray c =
      nd::Convolution(x, w, b, {.kernel = Shape{3, 3}, .num_filter = 4, .pad = Shape{1, 1}});
  return nd::relu(nd::BatchNorm(c, gamma, beta, mean, var, {.eps = 1e-5, .fix_gamma = false}));
}

class ConvBnRelu : public HybridBlock {
 public:
  ConvBnRelu() {
    weight = register_parameter("weight", {.shape = Shape{4, 3, 3, 3}});
    bias = register_parameter("bias", {.shape = Shape{4}});
    gamma = register_parameter("gamma", {.shape = Shape{4}});
    beta = register_parameter("beta", {.shape = Shape{4}});
    mean = register_parameter("running_mean", {.shape = Shape{4}, .grad_req = GradReq::kNull});
    var = register_parameter("running_var", {.shape = Shape{4}, .grad_req = GradReq::kNull});
  }
  NDArray forward(const NDArray& x) override {
    Device d = x.device();
    return ConvBnReluOf(x, weight->data(d), bias->data(d), gamma->data(d), beta->data(d),
                        mean->data(d), var->data(d));
  }
  // The same from the current values, imperatively (the reference).
  NDArray Reference(const NDArray& x) const {
    return ConvBnReluOf(x, weight->data(), bias->data(), gamma->data(), beta->data(), mean->data(),
                        var->data());
  }
  std::string class_name() const override { return "ConvBnRelu"; }
  ParameterPtr weight, bias, gamma, beta, mean, var;
};

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

TEST(HybridRefold, ParameterChangesBetweenCallsGiveTheRefoldedResult) {
  const char* saved = std::getenv("MXNET_SUBGRAPH_BACKEND");
  const std::string saved_value = saved ? saved : "";
  unsetenv("MXNET_SUBGRAPH_BACKEND");  // hybridize()'s default: onednn fusion
  ConvBnRelu net;
  net.initialize(init::Uniform(1.0));
  net.var->set_data(RandomArray(Shape{4}, 0.5, 2.0, 5, DType::kFloat32));
  net.mean->set_data(RandomArray(Shape{4}, -0.5, 0.5, 6, DType::kFloat32));
  net.hybridize(true, {.static_alloc = true, .static_shape = true});
  const NDArray x = RandomArray(Shape{2, 3, 6, 6}, -1, 1, 7, DType::kFloat32);
  NDArray last;
  // Runs of 8 calls (the CachedOp keeps folding when changes are that far apart); each matches
  // the imperative result from the current values, which differs from the previous run's.
  auto calls = [&](const std::string& what) {
    NDArray want = net.Reference(x);
    for (int i = 0; i < 8; ++i) {
      ASSERT_TRUE(AllClose(net(x), want, 1e-5, 1e-5)) << what << ", call " << i;
    }
    if (!last.is_none()) {
      EXPECT_FALSE(AllClose(want, last, 1e-3, 1e-3)) << what << " changed nothing";
    }
    last = want;
    sym::CompileReport rep = net.compile_report();
    EXPECT_TRUE(rep.inference) << what;
    EXPECT_EQ(rep.folded_inputs.size(), 6u) << what << "\n" << rep.ToString();
    EXPECT_EQ(rep.nodes_after, 1) << what << "\n" << rep.ToString();
  };
  calls("first calls");
  std::string path = TempPath("hybrid_refold.params");
  ASSERT_TRUE(net.save_parameters(path).ok());

  net.weight->set_data(RandomArray(Shape{4, 3, 3, 3}, -1, 1, 8, DType::kFloat32));
  calls("set_data");

  // A training step: the recorded call updates the moving statistics (BatchNorm in training
  // mode), the SGD step the weights in place.
  Trainer trainer(net.collect_params(), "sgd", {{"learning_rate", 0.5}});
  NDArray loss;
  {
    auto rec = autograd::record();
    loss = nd::sum(net(x));
  }
  autograd::backward({loss});
  trainer.step(1);
  calls("trainer step");

  // An in-place op on a parameter's array (out = the array itself).
  const Op& mul = OpRegistry::Get("_mul_scalar");
  NDArray g = net.gamma->data();
  InvokeInto(mul, OpAttrs::Parse(mul, {{"scalar", "-0.5"}}), std::vector<NDArray>{g},
             std::vector<NDArray>{g});
  calls("in-place op");

  ASSERT_TRUE(net.load_parameters(path).ok());
  calls("load_parameters");
  std::remove(path.c_str());
  if (saved)
    setenv("MXNET_SUBGRAPH_BACKEND", saved_value.c_str(), 1);
  else
    unsetenv("MXNET_SUBGRAPH_BACKEND");
}

}  // namespace
}  // namespace mxnet::gluon
