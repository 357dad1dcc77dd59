// kvstore "local"/"device" semantics and gradient compression against hand-computed values
// (MXNet 1.9.1's KVStoreLocal, CommDevice::ReduceCompressed and quantize_2bit / MXNet 2.0's
// quantize_1bit rules, worked by hand in the comments).
#include "gluon/kvstore/kvstore.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/error.h"
#include "gluon/kvstore/device_comm.h"
#include "gluon/training/optimizer.h"
#include "ndarray/backends/cuda/gpu.h"

namespace mxnet::gluon::kvstore {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;
using ::testing::Pointwise;

NDArray Vec(std::vector<float> v) {
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())});
}

template <typename F>
void ExpectError(F f, absl::StatusCode code, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_THAT(e.what(), HasSubstr(text));
  }
}

TEST(KVStore, LocalPushSumsPullBroadcasts) {
  auto kv = create("local");
  EXPECT_EQ(kv->type(), "local");
  EXPECT_EQ(kv->rank(), 0);
  EXPECT_EQ(kv->num_workers(), 1);
  kv->init(3, Vec({1, 2, 3}));
  NDArray a = Vec({0, 0, 0}), b = Vec({0, 0, 0});
  kv->pull(3, {a, b});
  EXPECT_EQ(a.ToVector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(b.ToVector<float>(), (std::vector<float>{1, 2, 3}));
  // No updater: stored := sum of the pushed values.
  kv->push(3, {Vec({1, 1, 1}), Vec({2, 3, 4}), Vec({0.5, 0, 0})});
  kv->pull(3, {a});
  EXPECT_EQ(a.ToVector<float>(), (std::vector<float>{3.5, 4, 5}));
  // pushpull in place: every copy gets the sum.
  NDArray g0 = Vec({1, 2, 3}), g1 = Vec({10, 20, 30});
  kv->pushpull(3, {g0, g1});
  EXPECT_EQ(g0.ToVector<float>(), (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(g1.ToVector<float>(), (std::vector<float>{11, 22, 33}));
  // The stored value is a copy, not the pushed array.
  g0.Fill(7);
  kv->pull(3, {a});
  EXPECT_EQ(a.ToVector<float>(), (std::vector<float>{11, 22, 33}));
}

TEST(KVStore, BroadcastAndMultiKeyPushPull) {
  auto kv = create("device");
  NDArray o1 = Vec({0, 0}), o2 = Vec({0, 0});
  kv->broadcast(0, Vec({4, 5}), {o1, o2});
  EXPECT_EQ(o2.ToVector<float>(), (std::vector<float>{4, 5}));
  kv->init(1, Vec({0}));
  NDArray out0 = Vec({0, 0}), out1 = Vec({0});
  kv->pushpull({0, 1}, {{Vec({1, 2}), Vec({3, 4})}, {Vec({5})}}, {{out0}, {out1}});
  EXPECT_EQ(out0.ToVector<float>(), (std::vector<float>{4, 6}));
  EXPECT_EQ(out1.ToVector<float>(), (std::vector<float>{5}));
}

TEST(KVStore, Errors) {
  auto kv = create("local");
  kv->init(0, Vec({1, 2}));
  ExpectError(
      [&] {
        kv->init(0, Vec({1, 2}));
      },
      absl::StatusCode::kInvalidArgument, "duplicate init of key 0");
  ExpectError([&] { kv->push(9, {Vec({1})}); }, absl::StatusCode::kInvalidArgument,
              "key 9 has not been inited");
  ExpectError([&] { kv->pull(9, {Vec({1})}); }, absl::StatusCode::kInvalidArgument,
              "key 9 has not been inited");
  ExpectError(
      [&] {
        kv->push(0, {Vec({1, 2, 3})});
      },
      absl::StatusCode::kInvalidArgument, "holds shape (2,)");
  ExpectError(
      [&] {
        kv->push(0, {Vec({1, 2}), Vec({1})});
      },
      absl::StatusCode::kInvalidArgument, "have shapes");
  ExpectError([&] { kv->pull(0, {Vec({1})}); }, absl::StatusCode::kInvalidArgument,
              "holds shape (2,)");
  ExpectError(
      [&] {
        kv->set_gradient_compression({{"type", "2bit"}});
      },
      absl::StatusCode::kUnimplemented, "not supported for this type of kvstore");
  ExpectError([] { create("bogus"); }, absl::StatusCode::kInvalidArgument,
              "unknown kvstore type 'bogus'");
  // "nccl": no CUDA here (kUnimplemented), or a CUDA build without a GPU (kUnavailable);
  // nccl_kvstore_test and nccl_gpu_test cover the store itself.
  if (!BuiltWithNccl())
    ExpectError([] { create("nccl"); }, absl::StatusCode::kUnimplemented, "NCCL");
  else if (backends::cuda::GpuCount() == 0)
    ExpectError([] { create("nccl"); }, absl::StatusCode::kUnavailable, "at least one GPU");
  // This test does not link //gluon/kvstore:mpi.
  ExpectError([] { create("mpi"); }, absl::StatusCode::kUnimplemented, "//gluon/kvstore:mpi");
  ExpectError([] { create("dist_async"); }, absl::StatusCode::kUnimplemented, "parameter server");
  auto dev = create("device");
  ExpectError(
      [&] {
        dev->set_gradient_compression({{"type", "3bit"}});
      },
      absl::StatusCode::kInvalidArgument, "unknown type for gradient compression '3bit'");
  ExpectError(
      [&] {
        dev->set_gradient_compression({{"type", "2bit"}, {"threshold", 0}});
      },
      absl::StatusCode::kInvalidArgument, "threshold must be greater than 0");
  ExpectError(
      [&] {
        dev->set_gradient_compression({{"type", "2bit"}, {"thresh", 1}});
      },
      absl::StatusCode::kInvalidArgument, "thresh");
  dev->init(0, Vec({1}));
  dev->push(0, {Vec({1})});
  ExpectError(
      [&] {
        dev->set_gradient_compression({{"type", "2bit"}});
      },
      absl::StatusCode::kFailedPrecondition, "before the first push");
}

TEST(KVStore, UpdaterAndOptimizerRunOnTheStore) {
  auto kv = create("local");
  kv->init(0, Vec({1, 1}));
  kv->set_updater([](int key, const NDArray& grad, const NDArray& weight) {
    // weight -= 0.5 * grad (by hand, through host vectors).
    auto w = weight.ToVector<float>(), g = grad.ToVector<float>();
    for (size_t i = 0; i < w.size(); ++i) w[i] -= 0.5f * g[i];
    weight.SyncCopyFromCPU(w.data(), w.size() * sizeof(float));
  });
  NDArray out = Vec({0, 0});
  kv->pushpull(0, {Vec({1, 2}), Vec({1, 0})}, {out});  // sum (2, 2): w = 1 - 1 = 0
  EXPECT_EQ(out.ToVector<float>(), (std::vector<float>{0, 0}));

  // SGD with momentum 0.9 on the store (state per key): lr 0.1, rescale 1.
  auto kv2 = create("device");
  kv2->set_optimizer(optimizer::Create("sgd", {{"learning_rate", 0.1}, {"momentum", 0.9}}));
  kv2->init(2, Vec({1}));
  NDArray w = Vec({0});
  kv2->push(2, {Vec({1}), Vec({1})});  // g = 2: mom = -0.2, w = 0.8
  kv2->push(2, {Vec({1}), Vec({1})});  // mom = 0.9 * -0.2 - 0.2 = -0.38, w = 0.42
  kv2->pull(2, {w});
  EXPECT_NEAR(w.ToVector<float>()[0], 0.42f, 1e-6);
  EXPECT_TRUE(kv2->is_capable(Capability::kOptimizer));
}

TEST(GradientCompression, TwoBitCodesAndSizes) {
  auto gc = GradientCompression::FromParams({{"type", "2bit"}, {"threshold", 0.5}});
  EXPECT_EQ(gc.factor(), 16);
  EXPECT_EQ(gc.compressed_size(16), 1);
  EXPECT_EQ(gc.compressed_size(17), 2);
  // +0.6 -> 11, -0.6 -> 10, 0.1 -> 00, 0.5 (>= t) -> 11: first byte 11 10 00 11 = 0xE3.
  std::vector<float> g{0.6f, -0.6f, 0.1f, 0.5f, -0.5f}, r(5, 0.0f);
  std::vector<uint32_t> codes(1);
  gc.Quantize(g.data(), r.data(), 5, codes.data());
  const auto* bytes = reinterpret_cast<const uint8_t*>(codes.data());
  EXPECT_EQ(bytes[0], 0xE3);
  EXPECT_EQ(bytes[1], 0x80);  // -0.5 (<= -t) -> 10 in the top bits of the second byte
  EXPECT_THAT(r, Pointwise(FloatNear(1e-6), std::vector<float>{0.1f, -0.1f, 0.1f, 0, 0}));
  std::vector<float> d(5, 0.0f);
  gc.Dequantize(codes.data(), 5, d.data(), false);
  EXPECT_THAT(d, ElementsAre(0.5f, -0.5f, 0.0f, 0.5f, -0.5f));
}

TEST(GradientCompression, DeviceStoreTwoBitKeepsResidualsPerDevice) {
  auto kv = create("device");
  kv->set_gradient_compression({{"type", "2bit"}, {"threshold", 0.5}});
  kv->init(0, Vec({0, 0, 0, 0, 0}));
  const NDArray g = Vec({0.3f, 0.6f, -0.7f, 1.2f, -0.2f});
  NDArray out = Vec({0, 0, 0, 0, 0});
  // Round 1: residual + g = g -> (0, .5, -.5, .5, 0), residual (.3, .1, -.2, .7, -.2).
  kv->pushpull(0, {g}, {out});
  EXPECT_THAT(out.ToVector<float>(),
              Pointwise(FloatNear(1e-6), std::vector<float>{0, 0.5f, -0.5f, 0.5f, 0}));
  // Round 2: (.6, .7, -.9, 1.9, -.4) -> (.5, .5, -.5, .5, 0).
  kv->pushpull(0, {g}, {out});
  EXPECT_THAT(out.ToVector<float>(),
              Pointwise(FloatNear(1e-6), std::vector<float>{0.5f, 0.5f, -0.5f, 0.5f, 0}));
  // Two devices on a fresh key: each quantized on its own, decoded values summed.
  kv->init(1, Vec({0, 0}));
  NDArray o = Vec({0, 0});
  kv->pushpull(1, {Vec({0.6f, 0.2f}), Vec({0.6f, -0.9f})}, {o});  // (.5+.5, 0-.5)
  EXPECT_THAT(o.ToVector<float>(), Pointwise(FloatNear(1e-6), std::vector<float>{1.0f, -0.5f}));
  kv->pushpull(1, {Vec({0.0f, 0.2f}), Vec({0.0f, 0.0f})}, {o});  // residuals (.1,.2),(.1,-.4)
  EXPECT_THAT(o.ToVector<float>(), Pointwise(FloatNear(1e-6), std::vector<float>{0.0f, 0.0f}));
  // Device 0: (.1, .4) -> 0; device 1: (.1, -.6) -> (0, -.5).
  kv->pushpull(1, {Vec({0.0f, 0.0f}), Vec({0.0f, -0.2f})}, {o});
  EXPECT_THAT(o.ToVector<float>(), Pointwise(FloatNear(1e-6), std::vector<float>{0.0f, -0.5f}));
}

TEST(GradientCompression, OneBit) {
  auto kv = create("device");
  kv->set_gradient_compression({{"type", "1bit"}});
  kv->init(0, Vec({0, 0, 0}));
  NDArray out = Vec({0, 0, 0});
  // 0.3 (not > .5) -> -1, residual 1.3; 0.6 -> +1, residual -0.4; -1 -> -1, residual 0.
  kv->pushpull(0, {Vec({0.3f, 0.6f, -1.0f})}, {out});
  EXPECT_THAT(out.ToVector<float>(), ElementsAre(-1.0f, 1.0f, -1.0f));
  // 1.3 + 0 -> +1; -0.4 + 0 -> -1; 0 + 0 -> -1.
  kv->pushpull(0, {Vec({0, 0, 0})}, {out});
  EXPECT_THAT(out.ToVector<float>(), ElementsAre(1.0f, -1.0f, -1.0f));
}

}  // namespace
}  // namespace mxnet::gluon::kvstore
