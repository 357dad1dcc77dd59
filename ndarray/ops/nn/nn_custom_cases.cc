// Test cases of Custom / _backward_Custom (nn_custom.cc), enumerated by //ndarray:all_ops_test,
// with the custom ops they run (registered here, so every binary linking the nn cases has them;
// nn_custom_test.cc checks their values by hand and against MXNet):
//   _test_custom_sigmoid  data -> 1 / (1 + exp(-data)); backward dx = dy * y * (1 - y)
//   _test_custom_pair     (a, b; aux count) -> (scale * a * b, a - b^2), count += 1 per forward;
//                         kwarg scale (default 1); a and b must have one shape (infer_shape
//                         throws otherwise); backward da = scale * b * g0 + g1,
//                         db = scale * a * g0 - 2 b * g1
//   _test_custom_sqloss   need_top_grad = false: data -> data; backward dx = 2 * data (the
//                         gradient of sum(data^2), ignoring the head gradient)
#include <cmath>
#include <vector>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/nn/nn_custom_api.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::testing {
namespace {

using nd::CustomOp;
using nd::CustomOpProp;

NDArray Like(const NDArray& like, const std::vector<double>& v) {
  return NDArray::FromVector(v, like.shape(), like.device(), like.dtype());
}

class SigmoidOp : public CustomOp {
 public:
  void forward(bool, const ReqVec& req, const ArrayVec& in, const ArrayVec& out,
               const ArrayVec&) override {
    std::vector<double> x = in[0].ToVector<double>();
    for (auto& v : x) v = 1 / (1 + std::exp(-v));
    assign(out[0], req[0], Like(out[0], x));
  }
  void backward(const ReqVec& req, const ArrayVec& og, const ArrayVec&, const ArrayVec& out,
                const ArrayVec& ig, const ArrayVec&) override {
    const NDArray& y = out[0];
    NDArray one_minus = nd::elemwise_sub(nd::ones_like(y), y);
    assign(ig[0], req[0], nd::elemwise_mul(og[0], nd::elemwise_mul(y, one_minus)));
  }
};

class SigmoidProp : public CustomOpProp {
 public:
  explicit SigmoidProp(const AttrDict&) {}
  std::unique_ptr<CustomOp> create_operator(Device, const std::vector<Shape>&,
                                            const std::vector<DType>&) const override {
    return std::make_unique<SigmoidOp>();
  }
};

class PairOp : public CustomOp {
 public:
  explicit PairOp(double scale) : scale_(scale) {}
  void forward(bool, const ReqVec& req, const ArrayVec& in, const ArrayVec& out,
               const ArrayVec& aux) override {
    std::vector<double> a = in[0].ToVector<double>(), b = in[1].ToVector<double>();
    std::vector<double> p(a.size()), d(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      p[i] = scale_ * a[i] * b[i];
      d[i] = a[i] - b[i] * b[i];
    }
    assign(out[0], req[0], Like(out[0], p));
    assign(out[1], req[1], Like(out[1], d));
    assign(aux[0], "add", nd::ones_like(aux[0]));
  }
  void backward(const ReqVec& req, const ArrayVec& og, const ArrayVec& in, const ArrayVec&,
                const ArrayVec& ig, const ArrayVec&) override {
    std::vector<double> a = in[0].ToVector<double>(), b = in[1].ToVector<double>();
    std::vector<double> g0 = og[0].ToVector<double>(), g1 = og[1].ToVector<double>();
    std::vector<double> da(a.size()), db(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      da[i] = scale_ * b[i] * g0[i] + g1[i];
      db[i] = scale_ * a[i] * g0[i] - 2 * b[i] * g1[i];
    }
    assign(ig[0], req[0], Like(ig[0], da));
    assign(ig[1], req[1], Like(ig[1], db));
  }

 private:
  double scale_;
};

class PairProp : public CustomOpProp {
 public:
  explicit PairProp(const AttrDict& kwargs) {
    if (auto it = kwargs.find("scale"); it != kwargs.end() && !ParseAttrValue(it->second, &scale_))
      MX_THROW(absl::StatusCode::kInvalidArgument, "scale must be a number, got '", it->second,
               "'");
  }
  std::vector<std::string> list_arguments() const override { return {"a", "b"}; }
  std::vector<std::string> list_outputs() const override { return {"prod", "diff"}; }
  std::vector<std::string> list_auxiliary_states() const override { return {"count"}; }
  nd::CustomShapes infer_shape(const std::vector<Shape>& in) const override {
    if (in[0] != in[1])
      MX_THROW(absl::StatusCode::kInvalidArgument, "a and b must have one shape, got ",
               in[0].ToString(), " and ", in[1].ToString());
    return {in, {in[0], in[0]}, {Shape{1}}};
  }
  std::unique_ptr<CustomOp> create_operator(Device, const std::vector<Shape>&,
                                            const std::vector<DType>&) const override {
    return std::make_unique<PairOp>(scale_);
  }

 private:
  double scale_ = 1;
};

class SqLossOp : public CustomOp {
 public:
  void forward(bool, const ReqVec& req, const ArrayVec& in, const ArrayVec& out,
               const ArrayVec&) override {
    assign(out[0], req[0], in[0]);
  }
  void backward(const ReqVec& req, const ArrayVec&, const ArrayVec& in, const ArrayVec&,
                const ArrayVec& ig, const ArrayVec&) override {
    assign(ig[0], req[0], nd::elemwise_add(in[0], in[0]));
  }
};

class SqLossProp : public CustomOpProp {
 public:
  explicit SqLossProp(const AttrDict&) : CustomOpProp(/*need_top_grad=*/false) {}
  std::unique_ptr<CustomOp> create_operator(Device, const std::vector<Shape>&,
                                            const std::vector<DType>&) const override {
    return std::make_unique<SqLossOp>();
  }
};

const bool kRegistered = [] {
  nd::RegisterCustomOp<SigmoidProp>("_test_custom_sigmoid");
  nd::RegisterCustomOp<PairProp>("_test_custom_pair");
  nd::RegisterCustomOp<SqLossProp>("_test_custom_sqloss");
  return true;
}();

std::vector<NDArray> PairInputs(DType t, uint64_t seed) {
  return {RandomArray({2, 3}, -1, 1, seed, t), RandomArray({2, 3}, -1, 1, seed + 1, t),
          NDArray::Full({1}, 0, cpu(), t)};
}

MX_OP_TEST_CASE({.op = "Custom",
                 .attrs = {{"op_type", "_test_custom_sigmoid"}},
                 .shapes = {{3, 4}},
                 .lo = -3,
                 .hi = 3,
                 .label = "(sigmoid)"});
MX_OP_TEST_CASE({.op = "Custom",
                 .attrs = {{"op_type", "_test_custom_pair"}, {"scale", "0.5"}},
                 .make_inputs = PairInputs,
                 .grad_inputs = {0, 1},
                 .label = "(2 in, 2 out, aux)"});
// The gradient ignores the head gradient (need_top_grad = false): not the forward's derivative.
MX_OP_TEST_CASE({.op = "Custom",
                 .attrs = {{"op_type", "_test_custom_sqloss"}},
                 .shapes = {{4}},
                 .check_grad = false,
                 .label = "(need_top_grad false)"});
// Inputs: out_grad, data, output.
MX_OP_TEST_CASE({.op = "_backward_Custom",
                 .attrs = {{"op_type", "_test_custom_sigmoid"}},
                 .shapes = {{3, 4}, {3, 4}, {3, 4}},
                 .lo = 0.1,
                 .hi = 0.9,
                 .label = "(sigmoid)"});
// Inputs: data, output (no out_grad).
MX_OP_TEST_CASE({.op = "_backward_Custom",
                 .attrs = {{"op_type", "_test_custom_sqloss"}},
                 .shapes = {{4}, {4}},
                 .label = "(need_top_grad false)"});

}  // namespace
}  // namespace mxnet::testing
