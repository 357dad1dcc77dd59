// HybridBlocks whose forward loops with nd::contrib::foreach / while_loop / cond: hybridize()
// traces one _foreach / _while_loop / _cond node with subgraphs (not an unrolled loop), with the
// values and parameter gradients of the imperative run and of MXNet 1.9.1 running our export;
// deferred initialization through the loops. (The ops themselves: symbol/control_flow_test.cc.)
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "base/strings.h"
#include "gluon/block.h"
#include "gluon/parameter.h"
#include "ndarray/op.h"
#include "symbol/control_flow.h"
#include "symbol/symbol.h"

namespace mxnet::gluon {
namespace {

using sym::NodeSubgraphs;
using sym::Symbol;

// A HybridBlock whose forward loops with nd::contrib: hybridize() traces one _foreach /
// _while_loop / _cond node with subgraphs (not an unrolled loop), with the same values and
// parameter gradients as the imperative run.
class LoopBlock : public HybridBlock {
 public:
  explicit LoopBlock(int kind, Shape w_shape = Shape{3}) : kind_(kind) {
    w = register_parameter("w", {.shape = w_shape});
  }
  NDArrayVec forward(const NDArrayVec& in) override {
    NDArray wd = w->data(in[0].device());
    auto mul = [](const NDArray& a, const NDArray& b) {
      return Invoke("elemwise_mul", std::vector<NDArray>{a, b})[0];
    };
    auto add = [](const NDArray& a, const NDArray& b) {
      return Invoke("elemwise_add", std::vector<NDArray>{a, b})[0];
    };
    if (kind_ == 0) {
      auto [o, st] = nd::contrib::foreach (
          [&](const NDArrayVec& x, const NDArrayVec& h) {
            NDArray n = Invoke("tanh", std::vector<NDArray>{add(mul(x[0], wd), h[0])})[0];
            return std::pair<NDArrayVec, NDArrayVec>{{n}, {n}};
          },
          {in[0]}, {in[1]});
      return {o[0], st[0]};
    }
    if (kind_ == 1) {
      NDArray i0 =
          Invoke("zeros_like", std::vector<NDArray>{Invoke("sum", std::vector<NDArray>{in[1]},
                                                           {{"keepdims", "True"}})[0]})[0];
      auto [o, v] = nd::contrib::while_loop(
          [&](const NDArrayVec& v) {
            return Invoke("_lesser_scalar", std::vector<NDArray>{v[0]}, {{"scalar", "2"}})[0];
          },
          [&](const NDArrayVec& v) {
            NDArray s = Invoke("tanh", std::vector<NDArray>{add(mul(v[1], wd), in[1])})[0];
            return std::pair<NDArrayVec, NDArrayVec>{
                {s}, {Invoke("_plus_scalar", std::vector<NDArray>{v[0]}, {{"scalar", "1"}})[0], s}};
          },
          {i0, in[1]}, 4);
      return {o[0], v[1]};
    }
    NDArray pred = Invoke("_greater_scalar",
                          std::vector<NDArray>{Invoke("sum", std::vector<NDArray>{in[1]})[0]},
                          {{"scalar", "0"}})[0];
    return nd::contrib::cond(
        pred, [&] { return NDArrayVec{mul(in[1], wd)}; },
        [&] { return NDArrayVec{add(in[1], wd)}; });
  }
  ParameterPtr w;

 private:
  int kind_;
};

TEST(ControlFlow, HybridizeTracesOneControlFlowNode) {
  const char* ops[] = {"_foreach", "_while_loop", "_cond"};
  for (int kind = 0; kind < 3; ++kind) {
    for (float sign : {1.f, -1.f}) {
      NDArray x =
          NDArray::FromVector(std::vector<float>{0.1f, 0.2f, 0.3f, -0.4f, 0.5f, 0.6f}, Shape{2, 3});
      NDArray h =
          NDArray::FromVector(std::vector<float>{0.3f * sign, -0.2f * sign, 0.5f * sign}, Shape{3});
      std::vector<std::vector<float>> want, got;
      std::vector<float> want_grad, got_grad;
      for (bool hybrid : {false, true}) {
        auto net = std::make_shared<LoopBlock>(kind);
        net->initialize();
        net->w->set_data(NDArray::FromVector(std::vector<float>{0.7f, -1.1f, 0.4f}, Shape{3}));
        if (hybrid) net->hybridize();
        NDArrayVec out;
        {
          auto rec = autograd::record();
          out = (*net)({x, h});
        }
        autograd::backward(std::vector<NDArray>(out.begin(), out.end()));
        auto& vals = hybrid ? got : want;
        for (const auto& o : out) vals.push_back(o.ToVector<float>());
        (hybrid ? got_grad : want_grad) = net->w->grad().ToVector<float>();
        if (hybrid) {
          int nodes = 0, subgraphs = 0;
          for (const auto& n : net->cached_graph().TopoNodes()) {
            if (n->op && n->op->name == ops[kind])
              ++nodes, subgraphs += NodeSubgraphs(*n) != nullptr;
            EXPECT_FALSE(n->op && (n->op->name == "stack" || n->op->name == "slice_axis"))
                << "unrolled";
          }
          EXPECT_EQ(nodes, 1) << ops[kind];
          EXPECT_EQ(subgraphs, 1) << ops[kind];
          auto back = Symbol::fromjson(net->cached_graph().tojson());
          EXPECT_TRUE(back.ok()) << back.status();
          // For a manual check in MXNet (gen_control_flow_refs.py --check FILE INPUTS).
          if (const char* dir = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR"); dir && sign > 0) {
            EXPECT_TRUE(net->cached_graph().save(StrCat(dir, "/hybrid_", ops[kind], ".json")).ok());
          }
        }
      }
      ASSERT_EQ(want.size(), got.size());
      if (sign > 0) {
        // MXNet 1.9.1 running our hybridized export (the hybrid_*.json this test writes) on the
        // same inputs: gen_control_flow_refs.py --check.
        const std::vector<std::vector<float>> mx = {
            {0.3539917f, -0.3969305f, 0.5511280f, 0.0738570f, -0.7383903f, 0.6590475f},
            {0.5573368f, -0.2184207f, 0.6301996f},
            {0.21f, 0.22f, 0.2f}};
        const std::vector<float>& g = got[kind == 1 ? 1 : 0];
        ASSERT_EQ(g.size(), mx[kind].size());
        for (size_t e = 0; e < g.size(); ++e) EXPECT_NEAR(g[e], mx[kind][e], 1e-5) << ops[kind];
      }
      for (size_t k = 0; k < want.size(); ++k)
        for (size_t e = 0; e < want[k].size(); ++e)
          EXPECT_NEAR(got[k][e], want[k][e], 1e-6) << ops[kind] << " output " << k;
      for (size_t e = 0; e < want_grad.size(); ++e)
        EXPECT_NEAR(got_grad[e], want_grad[e], 1e-5) << ops[kind] << " grad";
    }
  }
}

// Deferred initialization infers the parameter's shape through the loops (shape-only dispatch
// cannot read while_loop's and cond's conditions: one step / the then branch give the shapes).
TEST(ControlFlow, DeferredInitThroughLoops) {
  for (int kind = 0; kind < 3; ++kind) {
    for (bool hybrid : {false, true}) {
      auto net = std::make_shared<LoopBlock>(kind, Shape::Unknown());
      net->initialize();
      if (hybrid) net->hybridize();
      NDArray x =
          NDArray::FromVector(std::vector<float>{0.1f, 0.2f, 0.3f, -0.4f, 0.5f, 0.6f}, Shape{2, 3});
      NDArray h = NDArray::FromVector(std::vector<float>{0.3f, -0.2f, 0.5f}, Shape{3});
      NDArrayVec out = (*net)({x, h});
      EXPECT_EQ(net->w->data().shape(), (Shape{3})) << kind << " hybrid " << hybrid;
      EXPECT_EQ(out.back().shape(), (Shape{3})) << kind;
    }
  }
}

}  // namespace
}  // namespace mxnet::gluon
