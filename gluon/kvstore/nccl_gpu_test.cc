// kvstore "nccl" and its communicator with the real NCCL on the machine's GPUs (all of them; one
// GPU still runs NCCL with one rank). Run by tools/gpu/run_gpu_checks.sh with MXNET_REQUIRE_GPU
// set; elsewhere the tests print a "[no GPU]" line and skip, after checking create("nccl")'s
// error. References: hand-computed sums, and for the Trainer the same network trained on the
// CPU with the whole batch.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "base/error.h"
#include "gluon/kvstore/device_comm.h"
#include "gluon/kvstore/kvstore.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/training/trainer.h"
#include "gluon/utils/split.h"
#include "ndarray/backends/cuda/gpu.h"
#include "ndarray/op.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon::kvstore {
namespace {

using backends::cuda::DriverStatus;
using backends::cuda::GpuCount;

int RequiredGpus() {
  const char* v = std::getenv("MXNET_REQUIRE_GPU");
  return v ? std::atoi(v) : 0;
}
// Skips without a GPU (a visible "[no GPU]" line); fails instead under MXNET_REQUIRE_GPU.
#define MX_NEED_GPU()                                                                    \
  do {                                                                                   \
    if (GpuCount() < 1) {                                                                \
      if (RequiredGpus() >= 1) FAIL() << "MXNET_REQUIRE_GPU set but " << DriverStatus(); \
      std::printf("[no GPU] %s skipped: needs a GPU and NCCL (%s; %s)\n",                \
                  ::testing::UnitTest::GetInstance()->current_test_info()->name(),       \
                  BuiltWithNccl() ? "CUDA build" : "no CUDA in this build",              \
                  DriverStatus().c_str());                                               \
      GTEST_SKIP() << "no GPU";                                                          \
    }                                                                                    \
  } while (0)

std::vector<Device> AllGpus() {
  std::vector<Device> d;
  for (int i = 0; i < GpuCount(); ++i) d.push_back(gpu(i));
  return d;
}

TEST(NcclGpu, CreateOrItsError) {
  if (BuiltWithNccl() && GpuCount() > 0) {
    EXPECT_EQ(create("nccl")->type(), "nccl");
    return;
  }
  try {
    create("nccl");
    ADD_FAILURE() << "create(\"nccl\") without NCCL or GPU";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(),
              BuiltWithNccl() ? absl::StatusCode::kUnavailable : absl::StatusCode::kUnimplemented);
    std::printf("[no GPU] create(\"nccl\") refused as expected: %s\n", e.what());
  }
}

// Rank i holds (i + 1) * (1, 2, ..., n): the sum is T * (1, ..., n), T = R (R + 1) / 2.
template <typename T>
void CheckAllReduceAndBroadcast(DType dtype) {
  const std::vector<Device> gpus = AllGpus();
  CommunicatorPtr comm = MakeNcclCommunicator(gpus);
  EXPECT_EQ(comm->name(), "nccl");
  const int64_t n = 1000;
  std::vector<NDArray> bufs;
  for (size_t r = 0; r < gpus.size(); ++r) {
    std::vector<T> v(n);
    for (int64_t k = 0; k < n; ++k) v[k] = static_cast<T>((r + 1) * (k % 50 + 1));
    bufs.push_back(NDArray::FromVector(v, Shape{n}, gpus[r], dtype));
  }
  comm->AllReduce(bufs);
  const T tri = static_cast<T>(gpus.size() * (gpus.size() + 1) / 2);
  for (size_t r = 0; r < gpus.size(); ++r) {
    std::vector<T> got = bufs[r].copyto(cpu()).ToVector<T>();
    for (int64_t k = 0; k < n; ++k)
      ASSERT_EQ(got[k], static_cast<T>(tri * static_cast<T>(k % 50 + 1)))
          << "rank " << r << " k " << k;
  }
  // Broadcast from the last rank after changing it.
  const int root = static_cast<int>(gpus.size()) - 1;
  NDArray::FromVector(std::vector<T>(n, static_cast<T>(7)), Shape{n}, cpu(), dtype)
      .copyto(bufs[root]);
  comm->Broadcast(bufs, root);
  for (size_t r = 0; r < gpus.size(); ++r)
    EXPECT_EQ(bufs[r].copyto(cpu()).ToVector<T>(), std::vector<T>(n, static_cast<T>(7)));
}

TEST(NcclGpu, CommunicatorAllReduceAndBroadcast) {
  MX_NEED_GPU();
  std::printf("NCCL over %d GPU(s)\n", GpuCount());
  CheckAllReduceAndBroadcast<float>(DType::kFloat32);
  CheckAllReduceAndBroadcast<double>(DType::kFloat64);
  CheckAllReduceAndBroadcast<int32_t>(DType::kInt32);
}

TEST(NcclGpu, StorePushPull) {
  MX_NEED_GPU();
  const std::vector<Device> gpus = AllGpus();
  KVStorePtr kv = create("nccl");
  kv->init(0, NDArray::FromVector(std::vector<float>{0, 0, 0}, Shape{3}));
  std::vector<NDArray> vals, outs;
  for (size_t r = 0; r < gpus.size(); ++r) {
    const float s = static_cast<float>(r + 1);
    vals.push_back(NDArray::FromVector(std::vector<float>{s, 2 * s, -s}, Shape{3}, gpus[r]));
    outs.push_back(NDArray::FromVector(std::vector<float>{0, 0, 0}, Shape{3}, gpus[r]));
  }
  kv->push(0, vals);
  kv->pull(0, outs);
  const float t = static_cast<float>(gpus.size() * (gpus.size() + 1) / 2);
  for (const NDArray& o : outs)
    EXPECT_EQ(o.copyto(cpu()).ToVector<float>(), (std::vector<float>{t, 2 * t, -t}));
  kv->pushpull(0, vals);
  EXPECT_EQ(vals.back().copyto(cpu()).ToVector<float>(), (std::vector<float>{t, 2 * t, -t}));
}

NDArray Random(const Shape& shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(shape.Size()));
  for (float& e : v) e = u(gen);
  return NDArray::FromVector(v, shape);
}

std::shared_ptr<nn::HybridSequential> MakeNet(const std::vector<Device>& devices) {
  auto net = std::make_shared<nn::HybridSequential>();
  net->add({std::make_shared<nn::Dense>(5, nn::DenseOptions{.activation = "tanh", .in_units = 4}),
            std::make_shared<nn::Dense>(2, nn::DenseOptions{.in_units = 5})});
  net->initialize(nullptr, devices);
  uint32_t seed = 7;
  for (const auto& [name, p] : net->collect_params()) p->set_data(Random(p->shape(), seed++));
  return net;
}

NDArray Loss(nn::HybridSequential& net, const NDArray& x, const NDArray& t) {
  NDArray d = Invoke("elemwise_sub", std::vector<NDArray>{net(x), t})[0];
  return Invoke("sum",
                std::vector<NDArray>{Invoke("elemwise_mul", std::vector<NDArray>{d, d})[0]})[0];
}

// The Trainer over the store object (used even for one GPU) equals the CPU run with the whole
// batch. Ops without GPU kernels run through the CPU fallback (allowed in this test).
TEST(NcclGpu, TrainerMatchesTheWholeBatchOnTheCpu) {
  MX_NEED_GPU();
  struct QuietFallback {  // restores the check script's MXNET_GPU_FALLBACK=error at the end
    std::string old;
    QuietFallback() {
      const char* v = std::getenv("MXNET_GPU_FALLBACK");
      old = v ? v : "";
      setenv("MXNET_GPU_FALLBACK", "silent", 1);
    }
    ~QuietFallback() {
      if (old.empty())
        unsetenv("MXNET_GPU_FALLBACK");
      else
        setenv("MXNET_GPU_FALLBACK", old.c_str(), 1);
    }
  } quiet;
  const std::vector<Device> gpus = AllGpus();
  auto net = MakeNet(gpus);
  auto ref = MakeNet({cpu()});
  const Kwargs opt{{"learning_rate", 0.05}, {"momentum", 0.9}};
  Trainer tr(net->collect_params(), "sgd", opt, {.kvstore = create("nccl")});
  Trainer tr_ref(ref->collect_params(), "sgd", opt, {.kvstore = ""});
  const int64_t batch = 4 * static_cast<int64_t>(gpus.size());
  for (int step = 0; step < 3; ++step) {
    NDArray x = Random(Shape{batch, 4}, 100 + step), t = Random(Shape{batch, 2}, 200 + step);
    auto xs = utils::split_and_load(x, gpus), ts = utils::split_and_load(t, gpus);
    std::vector<NDArray> losses;
    {
      auto rec = autograd::record();
      for (size_t k = 0; k < xs.size(); ++k) losses.push_back(Loss(*net, xs[k], ts[k]));
    }
    autograd::backward(losses);
    NDArray l;
    {
      auto rec = autograd::record();
      l = Loss(*ref, x, t);
    }
    autograd::backward({l});
    tr.step(static_cast<double>(batch));
    tr_ref.step(static_cast<double>(batch));
  }
  std::vector<ParameterPtr> ps, rs;
  for (const auto& [n, p] : net->collect_params()) ps.push_back(p);
  for (const auto& [n, p] : ref->collect_params()) rs.push_back(p);
  for (size_t i = 0; i < ps.size(); ++i)
    for (const Device& d : gpus)
      EXPECT_TRUE(
          ::mxnet::testing::AllClose(ps[i]->data(d).copyto(cpu()), rs[i]->data(), 1e-4, 1e-5))
          << ps[i]->name() << " on " << d.ToString();
  ASSERT_NE(tr.kvstore(), nullptr);
  EXPECT_EQ(tr.kvstore()->type(), "nccl");
}

}  // namespace
}  // namespace mxnet::gluon::kvstore
