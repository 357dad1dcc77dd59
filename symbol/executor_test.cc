#include "symbol/executor.h"

#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::sym {
namespace {

using testing::AllClose;
using testing::RandomArray;

// f(x, y) = ((x * y) + x / 2) * (x - y), both symbolically and imperatively.
Symbol Expr() {
  Symbol x = var("x"), y = var("y");
  return ((x * y) + x / 2.0) * (x - y);
}
NDArray ExprNd(const NDArray& x, const NDArray& y) {
  return nd::elemwise_mul(nd::elemwise_add(nd::elemwise_mul(x, y), nd::div_scalar(x, 2)),
                          nd::elemwise_sub(x, y));
}

TEST(CachedOp, ForwardMatchesImperative) {
  CachedOp op(Expr());
  EXPECT_EQ(op.input_names(), (std::vector<std::string>{"x", "y"}));
  NDArray x = RandomArray(Shape{3, 4}, -1, 1, 1, DType::kFloat32);
  NDArray y = RandomArray(Shape{3, 4}, -1, 1, 2, DType::kFloat32);
  NDArrayVec out = op(std::vector<NDArray>{x, y});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(AllClose(out[0], ExprNd(x, y), 0, 0));  // identical arithmetic
  // A new shape compiles a new plan; the old one is reused.
  op(std::vector<NDArray>{RandomArray(Shape{5}, -1, 1, 3, DType::kFloat32),
                          RandomArray(Shape{5}, -1, 1, 4, DType::kFloat32)});
  op(std::vector<NDArray>{x, y});
  EXPECT_EQ(op.num_compiled(), 2);
}

TEST(CachedOp, BadInputsAreClearErrors) {
  CachedOp op(Expr());
  NDArray x(Shape{2}), y(Shape{3});
  EXPECT_THROW(op(std::vector<NDArray>{x}), Error);
  try {
    op(std::vector<NDArray>{x, y});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("_mul"), std::string::npos) << e.what();
  }
}

TEST(CachedOp, GradientsMatchImperativeAutograd) {
  CachedOp op(Expr());
  NDArray x = RandomArray(Shape{2, 3}, -1, 1, 5), y = RandomArray(Shape{2, 3}, -1, 1, 6);
  NDArray hg = RandomArray(Shape{2, 3}, -1, 1, 7);
  // Imperative reference.
  NDArray xi = x.copy(), yi = y.copy();
  xi.attach_grad();
  yi.attach_grad();
  NDArray zi;
  {
    auto r = autograd::record();
    zi = ExprNd(xi, yi);
  }
  autograd::backward({zi}, {hg});
  // Through the CachedOp: one tape node.
  NDArray xs = x.copy(), ys = y.copy();
  xs.attach_grad();
  ys.attach_grad();
  NDArray zs;
  {
    auto r = autograd::record();
    zs = op(std::vector<NDArray>{xs, ys})[0];
  }
  autograd::backward({zs}, {hg});
  EXPECT_TRUE(AllClose(zs, zi, 1e-12, 0));
  EXPECT_TRUE(AllClose(xs.grad(), xi.grad(), 1e-12, 1e-14));
  EXPECT_TRUE(AllClose(ys.grad(), yi.grad(), 1e-12, 1e-14));
}

TEST(CachedOp, GradOnlyForTrackedInputs) {
  Symbol x = var("x"), w = var("w");
  CachedOp op(x * w + w);
  NDArray xv = RandomArray(Shape{4}, -1, 1, 1), wv = RandomArray(Shape{4}, -1, 1, 2);
  wv.attach_grad();
  NDArray z;
  {
    auto r = autograd::record();
    z = op(std::vector<NDArray>{xv, wv})[0];
  }
  autograd::backward({z});
  EXPECT_TRUE(AllClose(wv.grad(), nd::plus_scalar(xv, 1)));
}

TEST(CachedOp, MemoryPlanReusesBuffers) {
  // A chain of 8 same-size ops needs only two internal buffers (ping-pong) or in-place.
  Symbol s = var("x");
  for (int i = 0; i < 8; ++i) s = s * 1.5 + 1.0;
  CachedOp op(s);
  op(std::vector<NDArray>{NDArray::Full(Shape{256}, 1.0)});
  MemoryStats m = op.memory_stats();
  EXPECT_EQ(m.naive_bytes, 15 * 256 * 4);  // 16 values, the last is the output
  EXPECT_LE(m.planned_bytes, 2 * 256 * 4);
  EXPECT_GT(m.num_inplace, 0);
  CachedOp naive(s, {.plan_memory = false});
  naive(std::vector<NDArray>{NDArray::Full(Shape{256}, 1.0)});
  EXPECT_EQ(naive.memory_stats().planned_bytes, naive.memory_stats().naive_bytes);
}

// Random DAGs of basic ops: planned execution equals op-by-op imperative evaluation, so no two
// live values ever shared a buffer.
TEST(CachedOp, RandomGraphsMatchImperative) {
  std::mt19937 gen(11);
  for (int trial = 0; trial < 40; ++trial) {
    int nin = 1 + gen() % 3;
    std::vector<Symbol> syms;
    std::vector<NDArray> vals;
    std::vector<NDArray> inputs;
    for (int i = 0; i < nin; ++i) {
      syms.push_back(var("in" + std::to_string(i)));
      inputs.push_back(RandomArray(Shape{3, 2}, 0.5, 1.5, trial * 10 + i, DType::kFloat64));
      vals.push_back(inputs.back());
    }
    int nops = 3 + gen() % 12;
    for (int k = 0; k < nops; ++k) {
      int a = gen() % syms.size(), b = gen() % syms.size();
      switch (gen() % 5) {
        case 0:
          syms.push_back(syms[a] + syms[b]);
          vals.push_back(nd::elemwise_add(vals[a], vals[b]));
          break;
        case 1:
          syms.push_back(syms[a] * syms[b]);
          vals.push_back(nd::elemwise_mul(vals[a], vals[b]));
          break;
        case 2:
          syms.push_back(syms[a] - syms[b]);
          vals.push_back(nd::elemwise_sub(vals[a], vals[b]));
          break;
        case 3:
          syms.push_back(syms[a] * 0.5);
          vals.push_back(nd::mul_scalar(vals[a], 0.5));
          break;
        default:
          syms.push_back(-syms[a]);
          vals.push_back(nd::negative(vals[a]));
          break;
      }
    }
    // Outputs: the last value and one random earlier value.
    int other = nin + gen() % nops;
    Symbol out = Symbol::Group({syms.back(), syms[other]});
    CachedOp op(out, {.static_alloc = trial % 2 == 0});
    std::vector<std::string> names = op.input_names();
    std::vector<NDArray> ordered;
    for (const auto& n : names) ordered.push_back(inputs[std::stoi(n.substr(2))]);
    for (int rep = 0; rep < 2; ++rep) {
      NDArrayVec got = op(ordered);
      EXPECT_TRUE(AllClose(got[0], vals.back(), 0, 0)) << "trial " << trial;
      EXPECT_TRUE(AllClose(got[1], vals[other], 0, 0)) << "trial " << trial;
    }
  }
}

TEST(CachedOp, StaticAllocReusesBuffersAcrossCalls) {
  Symbol s = var("x");
  for (int i = 0; i < 6; ++i) s = s * 2.0 + 1.0;
  NDArray x = NDArray::Full(Shape{1024}, 1.0);
  auto allocs_per_call = [&](CachedOpOptions o) {
    CachedOp op(s, o);
    op(std::vector<NDArray>{x});
    uint64_t before = Storage::GetStats(cpu()).allocations;
    op(std::vector<NDArray>{x});
    return Storage::GetStats(cpu()).allocations - before;
  };
  uint64_t dynamic = allocs_per_call({});
  uint64_t fixed = allocs_per_call({.static_alloc = true, .static_shape = true});
  EXPECT_EQ(fixed, 1u);  // only the output
  EXPECT_GT(dynamic, fixed);
}

TEST(CachedOp, ConcurrentCallsFromThreads) {
  CachedOp op(Expr(), {.static_alloc = true});
  auto work = [&](int seed, bool* ok) {
    *ok = true;
    for (int i = 0; i < 50; ++i) {
      NDArray x = RandomArray(Shape{8}, -1, 1, seed * 100 + i),
              y = RandomArray(Shape{8}, -1, 1, seed);
      *ok &= static_cast<bool>(AllClose(op(std::vector<NDArray>{x, y})[0], ExprNd(x, y), 0, 0));
    }
  };
  bool a, b, c;
  std::thread t1(work, 1, &a), t2(work, 2, &b), t3(work, 3, &c);
  t1.join();
  t2.join();
  t3.join();
  EXPECT_TRUE(a && b && c);
}

TEST(CachedOp, MonitorSeesEveryNode) {
  CachedOp op(Expr());
  std::vector<std::string> seen;
  op.set_monitor([&](const std::string& name, const std::string& opname,
                     const NDArray&) { seen.push_back(name + ":" + opname); },
                 false);
  NameManager::Reset();
  op(std::vector<NDArray>{NDArray::Full(Shape{2}, 1.0), NDArray::Full(Shape{2}, 2.0)});
  EXPECT_EQ(seen.size(), 5u);
}

}  // namespace
}  // namespace mxnet::sym
