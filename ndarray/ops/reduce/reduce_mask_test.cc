// Tests of the data-dependent-shape ops (reduce_mask.cc): reference values and gradients from
// real MXNet 1.9.1 (testdata/reduce/mask.json, tools/conformance/refs_reduce_mask.py), MXNet's
// registry entries and errors, hand-computed values, static shape inference leaving the
// data-dependent dimension unknown, and the dispatch paths of Op::set_dynamic_output_shape
// (Invoke, InvokeInto, shape-only dispatch, InferOutputsFromData).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/reduce/reduce_mask_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

NDArray Arr(std::vector<double> v, Shape s, DType t = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), t);
}
std::vector<double> Vals(const NDArray& a) { return a.ToVector<double>(); }

json LoadJson() { return LoadRefJson("ndarray/ops/testdata/reduce/mask.json"); }

TEST(MXNetRefs, ValuesAndGradientsMatch) {
  RefFileCounts r = CheckRefFile(LoadJson(), DTypeTolerance(1e-6, 1e-7));
  EXPECT_GE(r.cases, 12);
  EXPECT_GE(r.with_grads, 4);
  EXPECT_TRUE(r.ops.count("_contrib_boolean_mask"));
  EXPECT_TRUE(r.ops.count("_npx_nonzero"));
}

TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["ops"].size(), 2u);
  for (auto& [name, info] : doc["ops"].items()) CheckRegistryEntry(name, info, {});
}

// Every call MXNet rejects is rejected, with an invalid-argument error naming the op.
TEST(MXNetErrors, RejectedLikeMXNet) { EXPECT_EQ(CheckRefErrors(LoadJson()), 3u); }

TEST(BooleanMask, ByHand) {
  NDArray x = Arr({0, 1, 2, 3, 4, 5, 6, 7}, {4, 2});
  NDArray y = nd::contrib::boolean_mask(x, Arr({0, 1, 0, 1}, {4}, DType::kInt32));
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(Vals(y), (std::vector<double>{2, 3, 6, 7}));
  NDArray none = nd::contrib::boolean_mask(x, Arr({0, 0, 0, 0}, {4}));
  EXPECT_EQ(none.shape(), (Shape{0, 2}));
  // Gradient: ograd rows back at the kept rows, zeros elsewhere; none for the index.
  const Op& op = OpRegistry::Get("_contrib_boolean_mask");
  std::vector<NDArray> in = {x, Arr({1, 0, 0, 1}, {4})};
  NDArray out = nd::contrib::boolean_mask(in[0], in[1]);
  std::vector<NDArray> outs = {out}, og = {Arr({1, 2, 3, 4}, {2, 2})};
  auto g = EagerGradBuilder::Run(op, OpAttrs::Parse(op, {}), in, outs, og);
  EXPECT_EQ(Vals(g[0]), (std::vector<double>{1, 2, 0, 0, 0, 0, 3, 4}));
  EXPECT_TRUE(g[1].is_none());
}

TEST(Nonzero, ByHand) {
  NDArray r = nd::npx::nonzero(Arr({0, 1, 0, 2, 0, 3}, {2, 3}));
  EXPECT_EQ(r.dtype(), DType::kInt64);
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(Vals(r), (std::vector<double>{0, 1, 1, 0, 1, 2}));
  EXPECT_EQ(nd::npx::nonzero(Arr({0, 0}, {2})).shape(), (Shape{0, 1}));
  EXPECT_EQ(nd::npx::nonzero(Arr({}, {2, 0, 3})).shape(), (Shape{0, 3}));
}

// Static inference leaves the data-dependent dimension unknown instead of failing.
TEST(DynamicShape, StaticInferenceLeavesOutputUnknown) {
  const Op& op = OpRegistry::Get("_contrib_boolean_mask");
  EXPECT_TRUE(op.has_dynamic_output_shape());
  ShapeVec in = {Shape{4, 3}, Shape{4}}, out;
  DTypeVec it = {0, 0}, ot;
  InferOutputs(op, OpAttrs::Parse(op, {}), &in, &it, &out, &ot);
  EXPECT_EQ(out[0], (Shape{-1, 3}));
  EXPECT_FALSE(out[0].is_known());
  EXPECT_EQ(ot[0], 0);
  const Op& nz = OpRegistry::Get("_npx_nonzero");
  ShapeVec in2 = {Shape{2, 5, 1}}, out2;
  DTypeVec it2 = {0}, ot2;
  InferOutputs(nz, OpAttrs::Parse(nz, {}), &in2, &it2, &out2, &ot2);
  EXPECT_EQ(out2[0], (Shape{-1, 3}));
  EXPECT_EQ(ot2[0], static_cast<int>(DType::kInt64));
  // Unknown input shapes: nothing to say yet, no error.
  ShapeVec in3 = {Shape::Unknown(), Shape::Unknown()}, out3;
  DTypeVec it3 = {-1, -1}, ot3;
  InferOutputs(op, OpAttrs::Parse(op, {}), &in3, &it3, &out3, &ot3);
  EXPECT_FALSE(out3[0].ndim_known());
  // From data: the count.
  ShapeVec s;
  DTypeVec t;
  InferOutputsFromData(op, OpAttrs::Parse(op, {}),
                       std::vector<NDArray>{Arr({1, 2, 3, 4, 5, 6}, {3, 2}), Arr({1, 0, 1}, {3})},
                       &s, &t);
  EXPECT_EQ(s[0], (Shape{2, 2}));
}

TEST(DynamicShape, InvokeIntoChecksTheDataDependentShape) {
  const Op& op = OpRegistry::Get("_contrib_boolean_mask");
  std::vector<NDArray> in = {Arr({1, 2, 3, 4, 5, 6}, {3, 2}), Arr({1, 0, 1}, {3})};
  NDArray ok(Shape{2, 2}, cpu(), DType::kFloat32);
  InvokeInto(op, OpAttrs::Parse(op, {}), in, std::vector<NDArray>{ok});
  EXPECT_EQ(Vals(ok), (std::vector<double>{1, 2, 5, 6}));
  NDArray bad(Shape{3, 2}, cpu(), DType::kFloat32);
  ExpectInvalidArgument(
      [&] { InvokeInto(op, OpAttrs::Parse(op, {}), in, std::vector<NDArray>{bad}); },
      {"_contrib_boolean_mask", "output 0"});
}

// Shape-only dispatch (deferred initialization): concrete inputs give the real shape,
// placeholder inputs an unknown one.
TEST(DynamicShape, ShapeOnlyDispatch) {
  DispatchState& st = CurrentDispatchState();
  st.infer_only = true;
  NDArrayVec a = Invoke("_contrib_boolean_mask",
                        std::vector<NDArray>{Arr({1, 2, 3, 4}, {2, 2}), Arr({0, 1}, {2})});
  NDArrayVec b = Invoke("_contrib_boolean_mask",
                        std::vector<NDArray>{NDArray::Placeholder(Shape{2, 2}), Arr({0, 1}, {2})});
  st.infer_only = false;
  EXPECT_EQ(a[0].shape(), (Shape{1, 2}));
  EXPECT_EQ(b[0].shape(), (Shape{-1, 2}));
}

TEST(Errors, Messages) {
  ExpectInvalidArgument(
      [] {
        nd::contrib::boolean_mask(Arr({1, 2, 3}, {3}), Arr({1, 0}, {2}));
      },
      {"_contrib_boolean_mask", "index length 2", "data.shape[0] = 3"});
  ExpectInvalidArgument(
      [] {
        nd::contrib::boolean_mask(Arr({1, 2, 3, 4}, {2, 2}), Arr({1, 0}, {2}), 1);
      },
      {"_contrib_boolean_mask", "axis=1"});
  ExpectInvalidArgument([] { nd::contrib::boolean_mask(Arr({1}, {}), Arr({1}, {1})); },
                        {"_contrib_boolean_mask", "at least 1 dimension"});
  ExpectInvalidArgument(
      [] {
        Invoke(
            "_backward_contrib_boolean_mask",
            std::vector<NDArray>{Arr({1, 2}, {1, 2}), Arr({1, 2, 3, 4}, {2, 2}), Arr({1, 1}, {2})});
      },
      {"_backward_contrib_boolean_mask", "ograd has 1 rows", "keeps 2"});
}

}  // namespace
}  // namespace mxnet::testing
