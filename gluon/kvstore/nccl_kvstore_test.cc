// kvstore "nccl" over the host fake of the NCCL communicator (testing/host_communicator.h) on two
// fake GPUs: push/pull/pushpull/broadcast against hand-computed sums, the collectives it makes,
// the CPU path for values it cannot hand to NCCL, no compression, and create("nccl")'s errors in
// a build without CUDA or without a GPU. The real NCCL runs in nccl_gpu_test (GPU machines).
#include "gluon/kvstore/nccl_kvstore.h"

#include <gtest/gtest.h>

#include "base/error.h"
#include "gluon/kvstore/testing/host_communicator.h"
#include "ndarray/backends/cuda/gpu.h"
#include "ndarray/backends/cuda/testing/fake_gpu_backend.h"

namespace mxnet::gluon::kvstore {
namespace {

using backends::cuda::testing::FakeGpuBackend;
using backends::cuda::testing::FakeGpuCalls;
using testing::HostCommCalls;
using testing::HostCommunicator;

void InstallFakeGpus() {
  static FakeGpuCalls* calls = [] {
    auto* c = new FakeGpuCalls;
    FakeGpuBackend::Install(c, /*peer=*/true);
    return c;
  }();
  (void)calls;
}

NDArray V(std::vector<float> v, Device d = cpu()) {
  return NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())}, d);
}

TEST(NcclStore, PushPullSumAcrossGpus) {
  InstallFakeGpus();
  HostCommCalls calls;
  KVStorePtr kv = CreateNcclStore(HostCommunicator::Factory(&calls));
  EXPECT_EQ(kv->type(), "nccl");
  kv->init(0, V({0, 0, 0}));
  NDArray a = V({1, 2, 3}, gpu(0)), b = V({10, 20, 30}, gpu(1));
  kv->push(0, {a, b});
  EXPECT_EQ(calls.allreduce, 1);
  // Inputs unchanged (the allreduce ran on copies).
  EXPECT_EQ(a.ToVector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(b.ToVector<float>(), (std::vector<float>{10, 20, 30}));
  NDArray o0 = V({0, 0, 0}, gpu(0)), o1 = V({0, 0, 0}, gpu(1));
  kv->pull(0, {o0, o1});
  EXPECT_EQ(calls.broadcast, 1);
  EXPECT_EQ(o0.ToVector<float>(), (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(o1.ToVector<float>(), (std::vector<float>{11, 22, 33}));
  // Outputs in the other order: another communicator (rank 0 = gpu(1)).
  kv->pull(0, {o1, o0});
  EXPECT_EQ(calls.created, 2);
  EXPECT_EQ(calls.device_lists[1], (std::vector<Device>{gpu(1), gpu(0)}));
  // pushpull in place, then with an updater: stored := stored + 2 * merged.
  kv->pushpull(0, {a, b});
  EXPECT_EQ(b.ToVector<float>(), (std::vector<float>{11, 22, 33}));
  kv->set_updater([](int, const NDArray& g, const NDArray& w) {
    std::vector<float> gv = g.ToVector<float>(), wv = w.ToVector<float>();
    for (size_t i = 0; i < wv.size(); ++i) wv[i] += 2 * gv[i];
    w.SyncCopyFromCPU(wv.data(), wv.size() * sizeof(float));
  });
  NDArray c = V({1, 1, 1}, gpu(0)), d = V({0, 1, 2}, gpu(1));
  kv->pushpull(0, {c, d}, {o0, o1});
  EXPECT_EQ(o1.ToVector<float>(),
            (std::vector<float>{13, 26, 39}));  // merged (1, 2, 3): 11+2, 22+4, 33+6
  EXPECT_EQ(o0.ToVector<float>(), (std::vector<float>{13, 26, 39}));
  // broadcast: init + pull.
  NDArray w0 = V({0, 0}, gpu(0)), w1 = V({0, 0}, gpu(1));
  kv->broadcast(5, V({4, 5}), {w0, w1});
  EXPECT_EQ(w1.ToVector<float>(), (std::vector<float>{4, 5}));
  EXPECT_EQ(w0.ToVector<float>(), (std::vector<float>{4, 5}));
}

TEST(NcclStore, DtypesAndTheCpuPath) {
  InstallFakeGpus();
  HostCommCalls calls;
  KVStorePtr kv = CreateNcclStore(HostCommunicator::Factory(&calls));
  // float64 on the GPUs: through the communicator, stored in the key's dtype.
  kv->init(1, NDArray::FromVector(std::vector<double>{0, 0}, Shape{2}));
  kv->push(1, {NDArray::FromVector(std::vector<double>{0.5, 1}, Shape{2}, gpu(0)),
               NDArray::FromVector(std::vector<double>{0.25, 2}, Shape{2}, gpu(1))});
  EXPECT_EQ(calls.allreduce, 1);
  NDArray out = NDArray::FromVector(std::vector<double>{0, 0}, Shape{2});
  kv->pull(1, {out});  // a CPU output: no broadcast
  EXPECT_EQ(calls.broadcast, 0);
  EXPECT_EQ(out.ToVector<double>(), (std::vector<double>{0.75, 3}));
  // CPU values, and two copies on one GPU: summed on the CPU, no collective.
  kv->init(2, V({0}));
  kv->push(2, {V({1}), V({2})});
  kv->push(2, {V({1}, gpu(0)), V({5}, gpu(0))});
  EXPECT_EQ(calls.allreduce, 1);
  NDArray o = V({0}, gpu(1));
  kv->pull(2, {o});  // one GPU: a one-rank broadcast
  EXPECT_EQ(o.ToVector<float>(), (std::vector<float>{6}));
  // Shape errors are the store's (before any collective).
  EXPECT_THROW(kv->push(2, {V({1, 2}, gpu(0)), V({1, 2}, gpu(1))}), Error);
  EXPECT_EQ(calls.allreduce, 1);
}

TEST(NcclStore, NoGradientCompression) {
  HostCommCalls calls;
  KVStorePtr kv = CreateNcclStore(HostCommunicator::Factory(&calls));
  try {
    kv->set_gradient_compression({{"type", "2bit"}});
    ADD_FAILURE() << "compression accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kUnimplemented);
  }
  EXPECT_THROW(CreateNcclStore(CommunicatorFactory{}), Error);
}

TEST(NcclStore, CreateNeedsCudaAndAGpu) {
  if (BuiltWithNccl() && backends::cuda::GpuCount() > 0) {
    EXPECT_EQ(create("nccl")->type(), "nccl");
    return;
  }
  try {
    create("nccl");
    ADD_FAILURE() << "create(\"nccl\") without NCCL or GPU";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(),
              BuiltWithNccl() ? absl::StatusCode::kUnavailable : absl::StatusCode::kUnimplemented)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("nccl"), std::string::npos) << e.what();
  }
}

TEST(DeviceCommunicator, CheckBuffers) {
  InstallFakeGpus();
  const std::vector<Device> devs{gpu(0), gpu(1)};
  EXPECT_NO_THROW(CheckBuffers({V({1}, gpu(0)), V({2}, gpu(1))}, devs, "allreduce"));
  EXPECT_THROW(CheckBuffers({V({1}, gpu(0))}, devs, "allreduce"), Error);
  EXPECT_THROW(CheckBuffers({V({1}, gpu(1)), V({2}, gpu(0))}, devs, "allreduce"), Error);
  EXPECT_THROW(CheckBuffers({V({1}, gpu(0)), V({2, 3}, gpu(1))}, devs, "allreduce"), Error);
  EXPECT_THROW(MakeNcclCommunicator({}), Error);
  EXPECT_THROW(MakeNcclCommunicator({cpu()}), Error);
  EXPECT_THROW(MakeNcclCommunicator({gpu(0), gpu(0)}), Error);
}

}  // namespace
}  // namespace mxnet::gluon::kvstore
