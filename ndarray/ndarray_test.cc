#include "ndarray/ndarray.h"

#include <gtest/gtest.h>

#include "ndarray/ops/core/basic_api.h"

namespace mxnet {
namespace {

NDArray Iota(const Shape& s, DType t = DType::kFloat32) {
  std::vector<double> v(s.Size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return NDArray::FromVector(v, s, cpu(), t);
}

TEST(NDArray, BasicProperties) {
  NDArray a(Shape{2, 3});
  EXPECT_EQ(a.shape(), Shape({2, 3}));
  EXPECT_EQ(a.dtype(), DType::kFloat32);
  EXPECT_EQ(a.device(), cpu());
  EXPECT_EQ(a.size(), 6);
  EXPECT_EQ(a.nbytes(), 24u);
  EXPECT_FALSE(a.is_none());
  EXPECT_TRUE(NDArray().is_none());
  EXPECT_THROW(NDArray().shape(), Error);
  EXPECT_THROW(NDArray(Shape{-1, 2}), Error);
  EXPECT_THROW(a.data<double>(), Error);
}

TEST(NDArray, EveryRequiredDtypeRoundTripsThroughHost) {
  for (DType t : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
                  DType::kUint8, DType::kInt8, DType::kInt32, DType::kInt64, DType::kBool,
                  DType::kInt16, DType::kUint16, DType::kUint32, DType::kUint64}) {
    std::vector<double> v = {0, 1, 2, 3, 4, 100};
    if (t == DType::kBool) v = {0, 1, 0, 1, 1, 0};
    NDArray a = NDArray::FromVector(v, Shape{2, 3}, cpu(), t);
    EXPECT_EQ(a.dtype(), t);
    EXPECT_EQ(a.ToVector<double>(), v) << DTypeName(t);
  }
  NDArray h = NDArray::FromVector(std::vector<float>{0.1f}, Shape{1}, cpu(), DType::kFloat16);
  EXPECT_EQ(h.data<Half>()[0].bits, Half(0.1f).bits);
}

TEST(NDArray, ReshapeSpecialCodes) {
  NDArray a = Iota(Shape{2, 3, 4});
  EXPECT_EQ(a.reshape({4, 0, 2}).shape(), Shape({4, 3, 2}));          // 0 copies dim 1
  EXPECT_EQ(a.reshape({6, 1, -1}).shape(), Shape({6, 1, 4}));         // -1 inferred
  EXPECT_EQ(a.reshape({-2}).shape(), Shape({2, 3, 4}));               // -2 copies the rest
  EXPECT_EQ(a.reshape({-3, 4}).shape(), Shape({6, 4}));               // -3 merges two
  EXPECT_EQ(a.reshape({-4, 1, 2, -2}).shape(), Shape({1, 2, 3, 4}));  // -4 splits
  EXPECT_EQ(a.reshape({-4, -1, 1, -2}).shape(), Shape({2, 1, 3, 4}));
  EXPECT_EQ(a.reshape({2, -1}).shape(), Shape({2, 12}));
  // MXNet docs: reverse=True, (10, 5, 4) with (-1, 0) -> (50, 4).
  EXPECT_EQ(Iota(Shape{10, 5, 4}).reshape({-1, 0}, true).shape(), Shape({50, 4}));
  EXPECT_EQ(Iota(Shape{10, 5, 4}).reshape({-1, 0}).shape(), Shape({40, 5}));
  EXPECT_THROW(a.reshape({5, -1}), Error);
  EXPECT_THROW(a.reshape({-1, -1}), Error);
  EXPECT_THROW(a.reshape({7}), Error);
  // Views share storage and see writes.
  NDArray r = a.reshape({24});
  EXPECT_TRUE(r.shares_storage(a));
  r.data<float>()[5] = 42;
  EXPECT_EQ(a.ToVector<float>()[5], 42);
}

TEST(NDArray, SliceAtExpandSqueeze) {
  NDArray a = Iota(Shape{4, 2});
  NDArray s = a.slice(1, 3);
  EXPECT_EQ(s.shape(), Shape({2, 2}));
  EXPECT_EQ(s.ToVector<float>(), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_EQ(a.slice(-2, 4).ToVector<float>(), (std::vector<float>{4, 5, 6, 7}));
  EXPECT_EQ(a.at(3).ToVector<float>(), (std::vector<float>{6, 7}));
  EXPECT_EQ(a.at(-1).shape(), Shape({2}));
  EXPECT_THROW(a.slice(2, 5), Error);
  EXPECT_THROW(a.at(4), Error);
  EXPECT_EQ(a.expand_dims(1).shape(), Shape({4, 1, 2}));
  EXPECT_EQ(a.expand_dims(-1).shape(), Shape({4, 2, 1}));
  EXPECT_EQ(Iota(Shape{1, 3, 1}).squeeze().shape(), Shape({3}));
  EXPECT_EQ(Iota(Shape{1, 3, 1}).squeeze({0}).shape(), Shape({3, 1}));
  EXPECT_THROW(Iota(Shape{1, 3, 1}).squeeze({1}), Error);
  s.data<float>()[0] = -1;
  EXPECT_EQ(a.ToVector<float>()[2], -1);
}

TEST(NDArray, CopiesAndAstype) {
  NDArray a = Iota(Shape{3});
  NDArray b = a.copy();
  b.data<float>()[0] = 9;
  EXPECT_EQ(a.ToVector<float>()[0], 0);
  EXPECT_TRUE(a.as_in_context(cpu()).is_same(a));
  NDArray d = a.astype(DType::kInt32);
  EXPECT_EQ(d.dtype(), DType::kInt32);
  EXPECT_EQ(d.ToVector<int32_t>(), (std::vector<int32_t>{0, 1, 2}));
  NDArray dst(Shape{3}, cpu(), DType::kFloat64);
  a.copyto(dst);
  EXPECT_EQ(dst.ToVector<double>(), (std::vector<double>{0, 1, 2}));
  EXPECT_THROW(a.copyto(NDArray(Shape{4})), Error);
  EXPECT_FLOAT_EQ(a.at(2).asscalar<float>(), 2.0f);
  EXPECT_THROW(a.asscalar<float>(), Error);
  EXPECT_THROW(a.copyto(gpu(0)), Error);  // no GPU backend in this build
}

TEST(NDArray, AttachGradAndDetach) {
  NDArray a = Iota(Shape{2});
  EXPECT_TRUE(a.grad().is_none());
  a.attach_grad();
  EXPECT_EQ(a.grad_req(), GradReq::kWrite);
  EXPECT_EQ(a.grad().ToVector<float>(), (std::vector<float>{0, 0}));
  NDArray d = a.detach();
  EXPECT_TRUE(d.shares_storage(a));
  EXPECT_TRUE(d.grad().is_none());
  EXPECT_EQ(*ParseGradReq("add"), GradReq::kAdd);
  EXPECT_FALSE(ParseGradReq("sometimes").ok());
}

TEST(NDArray, HooksForTheLayersAbove) {
  // Identity and weak references: Lock gives the same object back until it is freed.
  NDArray a = Iota(Shape{2, 3});
  NDArray::WeakRef ref = a.weak_ref();
  EXPECT_TRUE(NDArray::Lock(ref).is_same(a));
  EXPECT_EQ(NDArray::Lock(ref).id(), a.id());
  EXPECT_NE(a.reshape({3, 2}).id(), a.id());  // a view is another object
  EXPECT_EQ(NDArray().id(), nullptr);
  {
    NDArray b = Iota(Shape{2});
    ref = b.weak_ref();
  }
  EXPECT_TRUE(NDArray::Lock(ref).is_none());

  // Hook state: per object, not inherited by views.
  struct State : ArrayHookState {
    int v = 7;
  };
  auto st = std::make_shared<State>();
  a.set_hook_state(NDArray::HookSlot::kTrace, st);
  EXPECT_EQ(a.hook_state(NDArray::HookSlot::kTrace), st.get());
  EXPECT_EQ(a.hook_state(NDArray::HookSlot::kAutograd), nullptr);
  EXPECT_EQ(a.reshape({6}).hook_state(NDArray::HookSlot::kTrace), nullptr);
  a.set_hook_state(NDArray::HookSlot::kTrace, nullptr);
  EXPECT_EQ(a.hook_state(NDArray::HookSlot::kTrace), nullptr);
  EXPECT_THROW(NDArray().hook_state(NDArray::HookSlot::kTrace), Error);

  // Gradient buffers: adopted as given (no copy), checked against the shape, and dropped.
  NDArray g = NDArray::Full(Shape{2, 3}, 5.0);
  a.set_grad_buffer(g, GradReq::kAdd);
  EXPECT_TRUE(a.grad().is_same(g));
  EXPECT_EQ(a.grad_req(), GradReq::kAdd);
  EXPECT_THROW(a.set_grad_buffer(NDArray::Full(Shape{3, 2}, 0.0), GradReq::kWrite), Error);
  EXPECT_THROW(a.set_grad_buffer(NDArray(), GradReq::kWrite), Error);
  a.set_fresh_grad(true);
  EXPECT_TRUE(a.fresh_grad());
  a.clear_grad();
  EXPECT_TRUE(a.grad().is_none());
  EXPECT_EQ(a.grad_req(), GradReq::kNull);
  EXPECT_FALSE(a.fresh_grad());
  EXPECT_THROW(a.set_fresh_grad(true), Error);
}

TEST(NDArray, FromStorageViewsTheBytesGiven) {
  NDArray a = Iota(Shape{2, 4});  // 0..7 as float32
  EXPECT_EQ(a.storage_offset(), 0u);
  NDArray row1 = a.at(1);
  EXPECT_EQ(row1.storage(), a.storage());
  EXPECT_EQ(row1.storage_offset(), 16u);
  // Elements 2..5 as (2, 2), no copy: writes show through.
  NDArray v = NDArray::FromStorage(a.storage(), 8, Shape{2, 2}, DType::kFloat32);
  EXPECT_EQ(v.ToVector<float>(), (std::vector<float>{2, 3, 4, 5}));
  v.Fill(-1);
  EXPECT_EQ(a.ToVector<float>(), (std::vector<float>{0, 1, -1, -1, -1, -1, 6, 7}));
  // The same 8 bytes as one float64, another dtype over the same block.
  EXPECT_EQ(NDArray::FromStorage(a.storage(), 0, Shape{1}, DType::kFloat64).nbytes(), 8u);
  // Views that do not fit, a null block, an unknown shape.
  EXPECT_THROW(NDArray::FromStorage(a.storage(), 24, Shape{3}, DType::kFloat32), Error);
  EXPECT_THROW(NDArray::FromStorage(a.storage(), 40, Shape{0}, DType::kFloat32), Error);
  EXPECT_THROW(NDArray::FromStorage(nullptr, 0, Shape{1}, DType::kFloat32), Error);
  EXPECT_THROW(NDArray::FromStorage(a.storage(), 0, Shape{-1}, DType::kFloat32), Error);
  EXPECT_NO_THROW(NDArray::FromStorage(a.storage(), 32, Shape{0}, DType::kFloat32));
  EXPECT_THROW(NDArray().storage(), Error);
}

// Every write path of ndarray bumps the storage block's write version (Storage::version), which
// views share; reads do not.
TEST(NDArray, WritesBumpTheStorageVersion) {
  NDArray a = NDArray::FromVector(std::vector<float>{1, 2, 3, 4}, Shape{2, 2});
  NDArray view = a.reshape({4});
  auto v = [&] { return a.storage()->version(); };
  uint64_t last = v();
  auto bumped = [&] {
    bool b = v() > last;
    last = v();
    return b;
  };
  a.ToVector<float>();
  a.copy();
  a.copyto(cpu());
  a.wait_to_read();
  EXPECT_FALSE(bumped());  // reads
  std::vector<float> host = {5, 6, 7, 8};
  a.SyncCopyFromCPU(host.data(), host.size() * sizeof(float));
  EXPECT_TRUE(bumped());
  a.Fill(3.0);
  EXPECT_TRUE(bumped());
  NDArray::Full(Shape{4}, 9.0).copyto(view);  // through a view: the same block
  EXPECT_TRUE(bumped());
  EXPECT_EQ(a.ToVector<float>(), std::vector<float>(4, 9.0f));
  NDArray::Full(Shape{2, 2}, 1.0, cpu(), DType::kFloat64).copyto(a);  // converting copy
  EXPECT_TRUE(bumped());
  nd::plus_scalar(a, 1.0);  // a new output, a is only read
  EXPECT_FALSE(bumped());
  a.mark_written();  // a write through a raw pointer, declared
  EXPECT_TRUE(bumped());
  NDArray().mark_written();  // none: nothing to mark
  // A fresh copy's block counts its own writes.
  EXPECT_GT(a.copy().storage()->version(), 0u);
}

TEST(NDArray, HasGrad) {
  NDArray a(Shape{2});
  EXPECT_FALSE(a.has_grad());
  a.attach_grad();
  EXPECT_TRUE(a.has_grad());
  EXPECT_EQ(a.has_grad(), !a.grad().is_none());
  a.clear_grad();
  EXPECT_FALSE(a.has_grad());
  EXPECT_THROW(NDArray().has_grad(), Error);  // like grad() on a none array
}

TEST(NDArray, PrintsLikeMxnet) {
  EXPECT_EQ(Iota(Shape{2, 2}).ToString(), "[[0. 1.]\n [2. 3.]]\n<NDArray 2x2 @cpu(0)>");
  EXPECT_EQ(NDArray::FromVector(std::vector<float>{0.5f, 1.25f}, Shape{2}).ToString(),
            "[0.5  1.25]\n<NDArray 2 @cpu(0)>");
  EXPECT_EQ(Iota(Shape{3}, DType::kInt32).ToString(), "[0 1 2]\n<NDArray 3 @cpu(0)>");
  std::string big = Iota(Shape{2000}).ToString();
  EXPECT_NE(big.find("..."), std::string::npos);
  EXPECT_NE(big.find("1999."), std::string::npos);
}

TEST(NDArray, ScalarArithmeticThroughTheRegistry) {
  NDArray a = Iota(Shape{3});
  EXPECT_EQ(nd::plus_scalar(a, 1).ToVector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(nd::rminus_scalar(a, 1).ToVector<float>(), (std::vector<float>{1, 0, -1}));
  EXPECT_EQ(nd::mul_scalar(a, 2).ToVector<float>(), (std::vector<float>{0, 2, 4}));
  EXPECT_EQ(nd::elemwise_add(a, a).ToVector<float>(), (std::vector<float>{0, 2, 4}));
  EXPECT_THROW(nd::elemwise_add(a, Iota(Shape{4})), Error);
  EXPECT_EQ(nd::broadcast_like(Iota(Shape{2, 1}), Iota(Shape{2, 3})).ToVector<float>(),
            (std::vector<float>{0, 0, 0, 1, 1, 1}));
}

}  // namespace
}  // namespace mxnet
