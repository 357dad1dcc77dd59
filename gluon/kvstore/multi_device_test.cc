// Data-parallel training in one process over two (fake) GPUs, as MXNet's Gluon multi-GPU recipe:
// parameters initialized on [gpu(0), gpu(1)], split_and_load of the batch, forward/backward per
// device, Trainer step through a kvstore. The reference is the same network on the CPU trained
// with the whole batch: after every step the weights on both devices must equal it (float
// tolerance), and after allreduce_grads every device's gradient must equal the whole-batch
// gradient (the per-device gradients summed). The GPUs are the host fake of
// ndarray/backends/cuda/testing/fake_gpu_backend.h (scrambled device bytes, so a CPU kernel that
// read device memory in place would compute garbage).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "base/error.h"
#include "gluon/kvstore/kvstore.h"
#include "gluon/kvstore/nccl_kvstore.h"
#include "gluon/kvstore/testing/host_communicator.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/training/trainer.h"
#include "gluon/utils/split.h"
#include "ndarray/backends/cuda/testing/fake_gpu_backend.h"
#include "ndarray/op.h"
#include "ndarray/testing/op_testing.h"

namespace mxnet::gluon {
namespace {

using backends::cuda::testing::FakeGpuBackend;
using backends::cuda::testing::FakeGpuCalls;
using ::mxnet::testing::AllClose;

FakeGpuCalls& Calls() {
  static FakeGpuCalls* calls = [] {
    auto* c = new FakeGpuCalls;
    FakeGpuBackend::Install(c, /*peer=*/true);
    return c;
  }();
  return *calls;
}

const std::vector<Device>& Gpus() {
  static const std::vector<Device> d{gpu(0), gpu(1)};
  return d;
}

NDArray Random(const Shape& shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(shape.Size()));
  for (float& e : v) e = u(gen);
  return NDArray::FromVector(v, shape);
}

NDArray Op1(const std::string& name, const NDArray& x, const AttrDict& attrs = {}) {
  const std::vector<NDArray> in{x};
  return Invoke(name, in, attrs)[0];
}

// Two Dense layers (4 -> 5 tanh -> 2), parameters on `devices`, the same values for every net
// built with the same seed.
std::shared_ptr<nn::HybridSequential> MakeNet(const std::vector<Device>& devices) {
  auto net = std::make_shared<nn::HybridSequential>();
  net->add({std::make_shared<nn::Dense>(5, nn::DenseOptions{.activation = "tanh", .in_units = 4}),
            std::make_shared<nn::Dense>(2, nn::DenseOptions{.in_units = 5})});
  net->initialize(nullptr, devices);
  uint32_t seed = 7;
  for (const auto& [name, p] : net->collect_params()) p->set_data(Random(p->shape(), seed++));
  return net;
}

// sum((net(x) - t)^2) on x's device.
NDArray Loss(nn::HybridSequential& net, const NDArray& x, const NDArray& t) {
  NDArray y = net(x);
  NDArray d = Invoke("elemwise_sub", std::vector<NDArray>{y, t})[0];
  return Op1("sum", Invoke("elemwise_mul", std::vector<NDArray>{d, d})[0]);
}

std::vector<ParameterPtr> Params(const nn::HybridSequential& net) {
  std::vector<ParameterPtr> out;
  for (const auto& [name, p] : net.collect_params()) out.push_back(p);
  return out;
}

struct Case {
  std::string kvstore;  // "device", or "nccl" (over the host fake of NCCL)
  bool update_on_kvstore;
};

class MultiDevice : public ::testing::TestWithParam<Case> {};

TEST_P(MultiDevice, MatchesOneDeviceWithTheWholeBatch) {
  Calls();
  const Case c = GetParam();
  auto net = MakeNet(Gpus());
  auto ref = MakeNet({cpu()});
  for (const ParameterPtr& p : Params(*net)) {
    ASSERT_EQ(p->list_device(), Gpus()) << p->name();
    ASSERT_EQ(p->grad(gpu(1)).device(), gpu(1));
  }
  const Kwargs opt{{"learning_rate", 0.05}, {"momentum", 0.9}, {"wd", 0.01}};
  kvstore::testing::HostCommCalls comm_calls;
  TrainerOptions to{.kvstore = c.kvstore};
  if (c.kvstore == "nccl")
    to.kvstore = kvstore::CreateNcclStore(kvstore::testing::HostCommunicator::Factory(&comm_calls));
  to.update_on_kvstore = c.update_on_kvstore;
  Trainer tr(net->collect_params(), "sgd", opt, to);
  Trainer tr_ref(ref->collect_params(), "sgd", opt, {.kvstore = ""});
  const int64_t batch = 8;
  for (int step = 0; step < 3; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    NDArray x = Random(Shape{batch, 4}, 100 + step), t = Random(Shape{batch, 2}, 200 + step);
    std::vector<NDArray> xs = utils::split_and_load(x, Gpus());
    std::vector<NDArray> ts = utils::split_and_load(t, Gpus());
    ASSERT_EQ(xs[1].device(), gpu(1));
    ASSERT_EQ(xs[1].shape(), (Shape{4, 4}));
    std::vector<NDArray> losses;
    {
      auto rec = autograd::record();
      for (size_t k = 0; k < xs.size(); ++k) losses.push_back(Loss(*net, xs[k], ts[k]));
    }
    EXPECT_EQ(losses[1].device(), gpu(1));
    autograd::backward(losses);
    NDArray ref_loss;
    {
      auto rec = autograd::record();
      ref_loss = Loss(*ref, x, t);
    }
    autograd::backward({ref_loss});
    const auto ps = Params(*net), rs = Params(*ref);
    if (step == 0 && !c.update_on_kvstore) {
      // Gradients summed across the devices: every copy holds the whole batch's gradient.
      tr.allreduce_grads();
      for (size_t i = 0; i < ps.size(); ++i)
        for (const Device& d : Gpus())
          EXPECT_TRUE(AllClose(ps[i]->grad(d).copyto(cpu()), rs[i]->grad(), 1e-5, 1e-6))
              << ps[i]->name() << " on " << d.ToString();
      tr.update(static_cast<double>(batch));
    } else {
      tr.step(static_cast<double>(batch));
    }
    tr_ref.step(static_cast<double>(batch));
    for (size_t i = 0; i < ps.size(); ++i)
      for (const Device& d : Gpus()) {
        NDArray w = ps[i]->data(d);
        EXPECT_EQ(w.device(), d);
        EXPECT_TRUE(AllClose(w.copyto(cpu()), rs[i]->data(), 1e-5, 1e-6))
            << ps[i]->name() << " on " << d.ToString();
      }
  }
  ASSERT_NE(tr.kvstore(), nullptr);
  EXPECT_EQ(tr.kvstore()->type(), c.kvstore);
  EXPECT_EQ(tr.update_on_kvstore(), c.update_on_kvstore);
  if (c.kvstore == "nccl") {
    // The collectives went through the communicator: one over [gpu(0), gpu(1)], an allreduce
    // per parameter and step, a broadcast per parameter at the start and (pulls) per step.
    const int n = static_cast<int>(Params(*net).size());
    EXPECT_EQ(comm_calls.created, 1);
    ASSERT_EQ(comm_calls.device_lists.size(), 1u);
    EXPECT_EQ(comm_calls.device_lists[0], Gpus());
    EXPECT_EQ(comm_calls.allreduce, 3 * n);
    EXPECT_GE(comm_calls.broadcast, n);
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, MultiDevice,
                         ::testing::Values(Case{"device", false}, Case{"device", true},
                                           Case{"nccl", false}, Case{"nccl", true}),
                         [](const auto& info) {
                           return info.param.kvstore +
                                  (info.param.update_on_kvstore ? "_update_on_kvstore" : "");
                         });

// The "device" store itself on two fake GPUs: push sums the copies, pull writes every device.
TEST(DeviceStore, PushPullAcrossFakeGpus) {
  Calls();
  auto kv = kvstore::create("device");
  kv->init(3, NDArray::FromVector(std::vector<float>{0, 0, 0}, Shape{3}));
  NDArray a = NDArray::FromVector(std::vector<float>{1, 2, 3}, Shape{3}, gpu(0));
  NDArray b = NDArray::FromVector(std::vector<float>{10, 20, 30}, Shape{3}, gpu(1));
  kv->push(3, {a, b});
  NDArray o0 = NDArray::FromVector(std::vector<float>{0, 0, 0}, Shape{3}, gpu(0));
  NDArray o1 = NDArray::FromVector(std::vector<float>{0, 0, 0}, Shape{3}, gpu(1));
  kv->pull(3, {o0, o1});
  EXPECT_EQ(o0.ToVector<float>(), (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(o1.ToVector<float>(), (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(o1.device(), gpu(1));
  kv->pushpull(3, {a, b});  // in place
  EXPECT_EQ(b.ToVector<float>(), (std::vector<float>{11, 22, 33}));
  NDArray w0 = NDArray::FromVector(std::vector<float>{0, 0}, Shape{2}, gpu(0));
  NDArray w1 = NDArray::FromVector(std::vector<float>{0, 0}, Shape{2}, gpu(1));
  kv->broadcast(4, NDArray::FromVector(std::vector<float>{5, 6}, Shape{2}), {w0, w1});
  EXPECT_EQ(w1.ToVector<float>(), (std::vector<float>{5, 6}));
}

}  // namespace
}  // namespace mxnet::gluon
