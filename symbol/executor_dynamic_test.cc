// Graphs with an op whose output shape depends on input values (Op::set_dynamic_output_shape:
// _contrib_boolean_mask, _npx_nonzero): symbolic shape inference reports those outputs (and
// what depends on them) as unknown instead of failing; the executor plans the rest, infers
// and allocates the run-time shaped values while it runs, and differentiates through them.
#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/reduce/reduce_mask_api.h"
#include "ndarray/testing/op_testing.h"
#include "symbol/executor.h"
#include "symbol/symbol.h"

namespace mxnet::sym {
namespace {

NDArray Arr(std::vector<double> v, Shape s) {
  return NDArray::FromVector(v, s, cpu(), DType::kFloat32);
}
std::vector<double> Vals(const NDArray& a) { return a.ToVector<double>(); }

// y = sum(boolean_mask(x * 2, m) + 1, axis=1), also returning the masked rows.
Symbol MaskGraph() {
  Symbol x = Symbol::Variable("x"), m = Symbol::Variable("m");
  Symbol x2 = Symbol::Create("_mul_scalar", {x}, {{"scalar", "2"}});
  Symbol bm = Symbol::Create("_contrib_boolean_mask", {x2, m});
  Symbol p = Symbol::Create("_plus_scalar", {bm}, {{"scalar", "1"}});
  Symbol s = Symbol::Create("sum", {p}, {{"axis", "1"}});
  return Symbol::Group({s, bm});
}

TEST(DynamicShape, InferShapeReportsUnknownOutputs) {
  Symbol g = MaskGraph();
  InferResult<Shape> r = g.infer_shape({{"x", Shape{4, 3}}, {"m", Shape{4}}});
  ASSERT_EQ(r.out.size(), 2u);
  EXPECT_FALSE(r.out[0].is_known());
  EXPECT_EQ(r.out[1], (Shape{-1, 3}));
  // Types are static.
  InferResult<int> t = g.infer_type({{"x", DType::kFloat32}, {"m", DType::kFloat32}});
  EXPECT_EQ(t.out[1], static_cast<int>(DType::kFloat32));
  // A wrong mask length is still an error at bind time.
  EXPECT_THROW(g.infer_shape({{"x", Shape{4, 3}}, {"m", Shape{5}}}), Error);
}

void ExpectRuns(CachedOp& op) {
  NDArray x = Arr({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  // Same input shapes, different masks: one plan, different run-time shapes.
  for (auto [mask, rows] : std::vector<std::pair<std::vector<double>, std::vector<double>>>{
           {{1, 0, 1, 0}, {2, 4, 10, 12}},
           {{0, 1, 1, 1}, {6, 8, 10, 12, 14, 16}},
           {{0, 0, 0, 0}, {}}}) {
    std::vector<NDArray> in = {x, Arr(mask, {4})};
    NDArrayVec out = op.Forward(in, false);
    int64_t n = static_cast<int64_t>(rows.size()) / 2;
    EXPECT_EQ(out[1].shape(), (Shape{n, 2}));
    EXPECT_EQ(Vals(out[1]), rows);
    std::vector<double> sums;
    for (int64_t i = 0; i < n; ++i) sums.push_back(rows[2 * i] + rows[2 * i + 1] + 2);
    EXPECT_EQ(out[0].shape(), (Shape{n}));
    EXPECT_EQ(Vals(out[0]), sums);
  }
}

TEST(DynamicShape, ExecutorInfersAndAllocatesAtRunTime) {
  for (std::string backend : {"", "default"})
    for (bool static_alloc : {false, true}) {
      SCOPED_TRACE(backend + (static_alloc ? " static_alloc" : ""));
      CachedOp op(MaskGraph(), {.static_alloc = static_alloc, .backend = backend});
      ExpectRuns(op);
      EXPECT_EQ(op.num_compiled(), 1);
      EXPECT_TRUE(op.verify_memory_plan().ok());
    }
}

TEST(DynamicShape, ExecutorGradientScattersBackToMaskedRows) {
  CachedOp op(MaskGraph());
  NDArray x = Arr({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  x.attach_grad();
  NDArray m = Arr({0, 1, 0, 1}, {4});
  NDArrayVec out;
  {
    auto rec = autograd::record();
    std::vector<NDArray> in = {x, m};
    out = op(in);
  }
  // d(sum(out0) + 3 * sum(out1)) / dx: 2 * (1 + 3) at the kept rows.
  autograd::backward({out[0], out[1]}, {nd::ones_like(out[0]),
                                        NDArray::Full(out[1].shape(), 3, cpu(), DType::kFloat32)});
  EXPECT_EQ(Vals(x.grad()), (std::vector<double>{0, 0, 8, 8, 0, 0, 8, 8}));
}

TEST(DynamicShape, NonzeroInAGraph) {
  Symbol x = Symbol::Variable("x");
  Symbol nz = Symbol::Create("_npx_nonzero", {x});
  Symbol s = Symbol::Create("sum", {nz}, {{"axis", "0"}});
  EXPECT_EQ(nz.infer_shape({{"x", Shape{2, 3}}}).out[0], (Shape{-1, 2}));
  CachedOp op(s);
  std::vector<NDArray> in = {Arr({0, 1, 0, 2, 0, 3}, {2, 3})};
  NDArrayVec out = op.Forward(in, false);
  // rows (0,1), (1,0), (1,2) -> column sums (2, 3).
  EXPECT_EQ(out[0].dtype(), DType::kInt64);
  EXPECT_EQ(Vals(out[0]), (std::vector<double>{2, 3}));
}

// A graph without dynamic-shape ops still reports shapes it cannot infer.
TEST(DynamicShape, StaticGraphsStillRequireKnownShapes) {
  Symbol x = Symbol::Variable("x");
  CachedOp op(Symbol::Create("_mul_scalar", {x}, {{"scalar", "2"}}));
  std::vector<NDArray> in = {Arr({1, 2}, {2})};
  EXPECT_EQ(Vals(op.Forward(in, false)[0]), (std::vector<double>{2, 4}));
}

}  // namespace
}  // namespace mxnet::sym
