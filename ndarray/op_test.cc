#include "ndarray/op.h"

#include <atomic>
#include <cmath>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet {
namespace {

TEST(Registry, FindsOpsAndAliases) {
  EXPECT_EQ(&OpRegistry::Get("_Plus"), &OpRegistry::Get("elemwise_add"));
  EXPECT_EQ(OpRegistry::Find("no_such_op"), nullptr);
  try {
    OpRegistry::Get("no_such_op");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kNotFound);
    EXPECT_STREQ(e.what(), "unknown operator 'no_such_op'");
  }
  auto all = OpRegistry::List();
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end(),
                             [](const Op* a, const Op* b) { return a->name < b->name; }));
}

TEST(Invoke, ByNameWithStringAttributes) {
  NDArray x = NDArray::FromVector(std::vector<float>{1, 2}, Shape{2});
  NDArrayVec y = Invoke("_mul_scalar", std::vector<NDArray>{x}, {{"scalar", "3"}});
  EXPECT_EQ(y[0].ToVector<float>(), (std::vector<float>{3, 6}));
  EXPECT_THROW(Invoke("_mul_scalar", std::vector<NDArray>{x}, {{"scalar", "three"}}), Error);
  EXPECT_THROW(Invoke("_mul_scalar", std::vector<NDArray>{x, x}, {}), Error);
  EXPECT_THROW(Invoke("negative", std::vector<NDArray>{NDArray()}, {}), Error);
}

// acc += x in place (input 0 mutable), output = x * 2: a kernel that updates an input.
MX_REGISTER_OP(_test_version_accumulate)
    .set_num_inputs(2)
    .set_mutable_inputs({0})
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  float* acc = in[0].data<float>();
                  const float* x = in[1].data<float>();
                  float* y = out[0].data<float>();
                  for (int64_t i = 0; i < in[1].size(); ++i) acc[i] += x[i], y[i] = 2 * x[i];
                });

// Invoke and InvokeInto bump the write version of the outputs and of the inputs an op updates
// in place; inputs only read keep theirs.
TEST(Invoke, KernelWritesBumpStorageVersions) {
  NDArray acc = NDArray::Full(Shape{3}, 1.0), x = NDArray::Full(Shape{3}, 2.0);
  const uint64_t acc0 = acc.storage()->version(), x0 = x.storage()->version();
  const Op& op = OpRegistry::Get("_test_version_accumulate");
  NDArray y = Invoke(op, OpAttrs::Parse(op, {}), std::vector<NDArray>{acc, x})[0];
  EXPECT_EQ(acc.ToVector<float>(), std::vector<float>(3, 3.0f));
  EXPECT_EQ(acc.storage()->version(), acc0 + 1);
  EXPECT_EQ(x.storage()->version(), x0);
  EXPECT_GT(y.storage()->version(), 0u);
  // Into a caller's array (out=...), e.g. an in-place update y = y * 3.
  const uint64_t y0 = y.storage()->version();
  const Op& mul = OpRegistry::Get("_mul_scalar");
  InvokeInto(mul, OpAttrs::Parse(mul, {{"scalar", "3"}}), std::vector<NDArray>{y},
             std::vector<NDArray>{y});
  EXPECT_EQ(y.ToVector<float>(), std::vector<float>(3, 12.0f));
  EXPECT_EQ(y.storage()->version(), y0 + 1);
  EXPECT_EQ(acc.storage()->version(), acc0 + 1);
  // Shape-only dispatch writes nothing.
  CurrentDispatchState().infer_only = true;
  InvokeInto(mul, OpAttrs::Parse(mul, {{"scalar", "3"}}), std::vector<NDArray>{y},
             std::vector<NDArray>{y});
  CurrentDispatchState().infer_only = false;
  EXPECT_EQ(y.storage()->version(), y0 + 1);
}

TEST(Invoke, ErrorsNameOpAndShapes) {
  NDArray a(Shape{2, 3}), b(Shape{3, 2});
  try {
    nd::elemwise_add(a, b);
    FAIL();
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("elemwise_add"), std::string::npos) << m;
    EXPECT_NE(m.find("(2, 3)"), std::string::npos) << m;
    EXPECT_NE(m.find("(3, 2)"), std::string::npos) << m;
  }
}

class CountingObserver : public InvokeObserver {
 public:
  void OnInvoke(const Op& op, const OpAttrs&, std::span<const NDArray>,
                std::span<const NDArray>) override {
    names.push_back(op.name);
  }
  std::vector<std::string> names;
};

TEST(Invoke, TracerObservesEveryCallOnItsThreadOnly) {
  CountingObserver obs;
  NDArray x = NDArray::FromVector(std::vector<float>{1, 2}, Shape{2});
  CurrentDispatchState().tracer = &obs;
  nd::negative(nd::plus_scalar(x, 1));
  std::thread t([&] { nd::negative(x); });  // another thread: not traced
  t.join();
  CurrentDispatchState().tracer = nullptr;
  nd::negative(x);
  EXPECT_EQ(obs.names, (std::vector<std::string>{"_plus_scalar", "negative"}));
}

// broadcast_like with lhs_axes/rhs_axes (MXNet 1.9.1): only the named axes take rhs's sizes.
TEST(Invoke, BroadcastLikeAxes) {
  NDArray x = NDArray::FromVector(std::vector<float>{1, 2, 3}, Shape{1, 3, 1});
  NDArray like = NDArray::Full(Shape{2, 4}, 0.0);
  NDArray y = nd::broadcast_like(x, like, Shape{0, 2}, Shape{0, 1});
  ASSERT_EQ(y.shape(), (Shape{2, 3, 4}));
  std::vector<float> v = y.ToVector<float>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(v[(i * 3 + j) * 4 + k], j + 1);
  EXPECT_EQ(nd::broadcast_like(x, like, Shape{-1}, Shape{-2}).shape(), (Shape{1, 3, 2}));
  EXPECT_THROW(nd::broadcast_like(x, like, Shape{1}, Shape{1}), Error);     // size 3 -> 4
  EXPECT_THROW(nd::broadcast_like(x, like, Shape{0, 2}, Shape{0}), Error);  // lengths differ
  EXPECT_THROW(nd::broadcast_like(x, like, Shape{3}, Shape{0}), Error);     // out of range
}

// broadcast_to / broadcast_axis (MXNet 1.9.1: shapes (2, 3), (2, 4), (3, 2, 5) below).
TEST(Invoke, BroadcastToAndAxis) {
  NDArray x = NDArray::FromVector(std::vector<float>{1, 2}, Shape{2, 1});
  NDArray y = nd::broadcast_to(x, Shape{0, 3});
  ASSERT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(y.ToVector<float>(), (std::vector<float>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(nd::broadcast_axis(x, Shape{1}, Shape{4}).shape(), (Shape{2, 4}));
  NDArray z = Invoke(
      OpRegistry::Get("broadcast_axes"),
      OpAttrs::Parse(OpRegistry::Get("broadcast_axes"), {{"axis", "(0, 2)"}, {"size", "(3, 5)"}}),
      std::vector<NDArray>{NDArray::Full(Shape{1, 2, 1}, 7.0)})[0];
  EXPECT_EQ(z.shape(), (Shape{3, 2, 5}));
  EXPECT_EQ(z.ToVector<float>(), std::vector<float>(30, 7.0f));
  EXPECT_THROW(nd::broadcast_to(x, Shape{2}), Error);              // rank differs
  EXPECT_THROW(nd::broadcast_to(x, Shape{3, 3}), Error);           // 2 -> 3
  EXPECT_THROW(nd::broadcast_axis(x, Shape{0}, Shape{4}), Error);  // axis 0 has size 2
}

// _reduce_sum_like on random shapes (rank 0-4, size-1 and dropped leading axes, sizes large
// enough for the parallel paths) vs a naive sum written from the definition.
TEST(Invoke, ReduceSumLikeMatchesNaiveSum) {
  const Op& op = OpRegistry::Get("_reduce_sum_like");
  std::mt19937 rng(7);
  auto naive = [](const NDArray& x, const Shape& small) {
    const Shape& big = x.shape();
    std::vector<double> v = x.ToVector<double>(), out(small.Size(), 0.0);
    int off = big.ndim() - small.ndim();
    for (int64_t i = 0; i < big.Size(); ++i) {
      int64_t rem = i, o = 0, stride = 1;
      for (int d = big.ndim() - 1; d >= 0; --d) {
        int64_t c = rem % big[d];
        rem /= big[d];
        if (d >= off) {
          if (small[d - off] != 1) o += c * stride;
          stride *= small[d - off];
        }
      }
      out[o] += v[i];
    }
    return out;
  };
  using Dims = std::vector<int64_t>;
  std::vector<std::pair<Dims, Dims>> cases = {{{64, 16, 28, 28}, {16, 1, 1}},
                                              {{128, 700}, {700}},
                                              {{300001}, {1}},
                                              {{40, 3, 2000}, {40, 1, 2000}},
                                              {{5, 7}, {5, 7}},
                                              {{0, 3}, {1, 3}},
                                              {{2, 3, 4}, {}},
                                              {{3, 1, 4}, {1, 1, 4}}};
  for (int t = 0; t < 60; ++t) {
    int nd = static_cast<int>(rng() % 5);
    Dims b, s;
    for (int d = 0; d < nd; ++d) b.push_back(1 + rng() % 5);
    int drop = nd == 0 ? 0 : static_cast<int>(rng() % (nd + 1));
    for (int d = drop; d < nd; ++d) s.push_back(rng() % 2 ? b[d] : 1);
    cases.push_back({b, s});
  }
  for (DType dt : {DType::kFloat64, DType::kFloat32, DType::kInt32}) {
    for (const auto& [bd, sd] : cases) {
      Shape big(bd), small(sd);
      std::vector<double> xv =
          testing::RandomArray(big, -8, 8, 3, DType::kFloat64).ToVector<double>();
      if (dt == DType::kInt32)
        for (double& e : xv) e = std::round(e);
      NDArray x = NDArray::FromVector(xv, big, cpu(), dt);
      NDArray like = NDArray::Full(small, 0.0, cpu(), dt);
      NDArray y = Invoke(op, OpAttrs::Parse(op, {}), std::vector<NDArray>{x, like})[0];
      ASSERT_EQ(y.shape(), small);
      ASSERT_EQ(y.dtype(), dt);
      std::vector<double> want = naive(x, small), got = y.ToVector<double>();
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got[i], want[i], dt == DType::kFloat32 ? 1e-5 * (1 + std::abs(want[i])) : 1e-9)
            << big.ToString() << " -> " << small.ToString() << " at " << i;
    }
  }
}

TEST(GradBuilder, EagerSecondOrderThroughComposition) {
  // y = x * x; dy/dx = 2x (as elemwise_mul(og, x) twice); check on values.
  const Op& mul = OpRegistry::Get("elemwise_mul");
  NDArray x = NDArray::FromVector(std::vector<double>{1, -2, 3}, Shape{3});
  NDArray y = nd::elemwise_mul(x, x);
  NDArray og = NDArray::Full(Shape{3}, 1.0, cpu(), DType::kFloat64);
  auto g = EagerGradBuilder::Run(mul, OpAttrs::Parse(mul, {}), std::vector<NDArray>{x, x},
                                 std::vector<NDArray>{y}, std::vector<NDArray>{og});
  NDArray dx = nd::elemwise_add(g[0], g[1]);
  EXPECT_EQ(dx.ToVector<double>(), (std::vector<double>{2, -4, 6}));
}

TEST(OpTesting, FiniteDifferencesCatchAWrongGradient) {
  // A deliberately wrong gradient must fail the checker (the checker can fail).
  static Op& bad = OpRegistry::Register("_test_wrong_grad_square");
  bad.set_kernel({DeviceType::kCPU, Backend::kReference},
                 [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
                   ops::MapUnary("sq", in[0], out[0], [](auto v) { return v * v; });
                 })
      .set_gradient([](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
                       std::span<const GradValue>, std::span<const GradValue> og) {
        return std::vector<GradValue>{b.Mul(og[0], in[0])};  // should be 2x
      });
  testing::OpTestCase c{.op = "_test_wrong_grad_square", .shapes = {{4}}};
  EXPECT_FALSE(testing::CheckGradient(c));
}

// Find is safe while ops are registered late (a plugin library loading).
TEST(OpRegistry, LookupsRaceLateRegistration) {
  std::atomic<bool> done{false}, found{true};
  std::thread reader([&] {
    while (!done)
      if (!OpRegistry::Find("elemwise_add")) found = false;
  });
  for (int i = 0; i < 200; ++i) OpRegistry::Register("_test_late_op" + std::to_string(i));
  done = true;
  reader.join();
  EXPECT_TRUE(found);
  EXPECT_NE(OpRegistry::Find("_test_late_op199"), nullptr);
}

}  // namespace
}  // namespace mxnet
