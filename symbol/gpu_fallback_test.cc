// The GPU fallback of ops without a GPU kernel (ndarray/op.cc, Op::SelectKernel), without a GPU:
// gpu(0) arrays live on the fake GPU backend (testing/fake_gpu_backend.h), whose stored bytes are
// scrambled, so a CPU kernel that read them in place would compute garbage. Every result is
// compared bit for bit with the same call on the CPU: imperative Invoke, InvokeInto in place,
// aux states updated in place, autograd's gradients and a hybridized graph (the executor).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "base/error.h"
#include "ndarray/backends/cuda/testing/fake_gpu_backend.h"
#include "ndarray/device_kernels.h"
#include "ndarray/ndarray.h"
#include "ndarray/op.h"
#include "symbol/executor.h"
#include "symbol/symbol.h"

namespace mxnet::backends::cuda {
namespace {

using testing::FakeGpuBackend;
using testing::FakeGpuCalls;

// Uniform values in [lo, hi) from a fixed seed (float32).
NDArray RandomArray(const Shape& shape, double lo, double hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(static_cast<float>(lo), static_cast<float>(hi));
  std::vector<float> v(static_cast<size_t>(shape.Size()));
  for (float& e : v) e = u(gen);
  return NDArray::FromVector(v, shape);
}

FakeGpuCalls& Calls() {
  static FakeGpuCalls* calls = [] {
    auto* c = new FakeGpuCalls;
    FakeGpuBackend::Install(c, /*peer=*/true);
    return c;
  }();
  return *calls;
}

NDArrayVec Call(const std::string& name, const std::vector<NDArray>& in,
                const AttrDict& attrs = {}) {
  return Invoke(name, in, attrs);
}

std::vector<char> Bytes(const NDArray& x) {
  std::vector<char> b(x.nbytes());
  x.SyncCopyToCPU(b.data(), b.size());
  return b;
}

std::vector<NDArray> ToDevice(const std::vector<NDArray>& xs, Device d) {
  std::vector<NDArray> out;
  for (const NDArray& x : xs) out.push_back(x.copyto(d));
  return out;
}

// Runs op `name` on `in` on the CPU and on gpu(0) and checks the outputs are identical.
void ExpectSameOnGpu(const std::string& name, const std::vector<NDArray>& in,
                     const AttrDict& attrs = {}) {
  SCOPED_TRACE(name);
  NDArrayVec c = Invoke(name, in, attrs);
  std::vector<NDArray> gin = ToDevice(in, gpu(0));
  int to_host = Calls().to_host;
  NDArrayVec g = Invoke(name, gin, attrs);
  EXPECT_GT(Calls().to_host, to_host);  // the inputs went to the host
  ASSERT_EQ(g.size(), c.size());
  for (size_t k = 0; k < c.size(); ++k) {
    EXPECT_EQ(g[k].device(), gpu(0));
    EXPECT_EQ(g[k].shape(), c[k].shape());
    EXPECT_EQ(g[k].dtype(), c[k].dtype());
    EXPECT_EQ(Bytes(g[k]), Bytes(c[k])) << "output " << k;
  }
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST(GpuFallback, ImperativeOpsMatchTheCpuBitForBit) {
  Calls();
  ScopedEnv quiet("MXNET_GPU_FALLBACK", "silent");
  NDArray a = RandomArray(Shape{4, 6}, -1, 1, 1), b = RandomArray(Shape{4, 6}, -1, 1, 2);
  ExpectSameOnGpu("elemwise_add", {a, b});
  ExpectSameOnGpu("elemwise_mul", {a, a});  // one array passed twice
  ExpectSameOnGpu("broadcast_mul", {a, RandomArray(Shape{1, 6}, -1, 1, 3)});
  ExpectSameOnGpu("sum", {a}, {{"axis", "1"}, {"keepdims", "True"}});
  ExpectSameOnGpu("softmax", {a}, {{"axis", "-1"}});
  ExpectSameOnGpu("topk", {a}, {{"k", "2"}, {"ret_typ", "both"}});  // two outputs
  ExpectSameOnGpu("FullyConnected",
                  {a, RandomArray(Shape{3, 6}, -1, 1, 4), RandomArray(Shape{3}, -1, 1, 5)},
                  {{"num_hidden", "3"}});
  ExpectSameOnGpu("Convolution",
                  {RandomArray(Shape{2, 3, 7, 7}, -1, 1, 6),
                   RandomArray(Shape{4, 3, 3, 3}, -1, 1, 7), RandomArray(Shape{4}, -1, 1, 8)},
                  {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"pad", "(1, 1)"}});
  ExpectSameOnGpu("cast", {a}, {{"dtype", "float16"}});
  // Output shape from the values (boolean_mask reads its index on the host).
  ExpectSameOnGpu("_contrib_boolean_mask", {a, NDArray::FromVector<float>({1, 0, 1, 1}, Shape{4})});
  // No inputs: the device comes from "ctx".
  NDArrayVec z = Call("_ones", {}, {{"shape", "(2, 3)"}, {"ctx", "gpu(0)"}});
  EXPECT_EQ(z[0].device(), gpu(0));
  EXPECT_EQ(z[0].ToVector<float>(), std::vector<float>(6, 1.0f));
}

TEST(GpuFallback, InPlaceOutputsAndAuxStatesAreWrittenBack) {
  Calls();
  ScopedEnv quiet("MXNET_GPU_FALLBACK", "silent");
  // An optimizer update into its weight (InvokeInto, output == input 0) with a state updated in
  // place (mom).
  const Op& sgd = OpRegistry::Get("sgd_mom_update");
  OpAttrs sa = OpAttrs::Parse(
      sgd, {{"lr", "0.1"}, {"momentum", "0.9"}, {"wd", "0.01"}, {"rescale_grad", "0.5"}});
  std::vector<NDArray> c = {RandomArray(Shape{5, 3}, -1, 1, 10),
                            RandomArray(Shape{5, 3}, -1, 1, 11),
                            RandomArray(Shape{5, 3}, -1, 1, 12)};
  std::vector<NDArray> g = ToDevice(c, gpu(0));
  for (int step = 0; step < 2; ++step) {
    InvokeInto(sgd, sa, c, std::vector<NDArray>{c[0]});
    InvokeInto(sgd, sa, g, std::vector<NDArray>{g[0]});
  }
  EXPECT_EQ(Bytes(g[0]), Bytes(c[0]));
  EXPECT_EQ(Bytes(g[2]), Bytes(c[2]));                                 // mom
  EXPECT_NE(Bytes(g[2]), Bytes(RandomArray(Shape{5, 3}, -1, 1, 12)));  // it did change
  // An elementwise op in place.
  const Op& add = OpRegistry::Get("elemwise_add");
  NDArray x = RandomArray(Shape{7}, -1, 1, 13), y = RandomArray(Shape{7}, -1, 1, 14);
  NDArray gx = x.copyto(gpu(0)), gy = y.copyto(gpu(0));
  InvokeInto(add, OpAttrs::Parse(add, {}), std::vector<NDArray>{x, y}, std::vector<NDArray>{x});
  InvokeInto(add, OpAttrs::Parse(add, {}), std::vector<NDArray>{gx, gy}, std::vector<NDArray>{gx});
  EXPECT_EQ(Bytes(gx), Bytes(x));
  EXPECT_EQ(Bytes(gy), Bytes(y));
  // BatchNorm in training updates its moving mean/var (mutable inputs 3, 4).
  std::vector<NDArray> bc = {RandomArray(Shape{4, 3, 2, 2}, -1, 1, 15),
                             RandomArray(Shape{3}, 0.5, 1, 16), RandomArray(Shape{3}, -1, 1, 17),
                             RandomArray(Shape{3}, -1, 1, 18), RandomArray(Shape{3}, 0.5, 1, 19)};
  std::vector<NDArray> bg = ToDevice(bc, gpu(0));
  NDArrayVec oc, og;
  {
    auto r = autograd::record();
    oc = Call("BatchNorm", bc, {{"momentum", "0.8"}});
    og = Call("BatchNorm", bg, {{"momentum", "0.8"}});
  }
  ASSERT_EQ(og.size(), oc.size());
  for (size_t k = 0; k < oc.size(); ++k) EXPECT_EQ(Bytes(og[k]), Bytes(oc[k])) << k;
  EXPECT_EQ(Bytes(bg[3]), Bytes(bc[3]));
  EXPECT_EQ(Bytes(bg[4]), Bytes(bc[4]));
  EXPECT_NE(Bytes(bg[3]), Bytes(RandomArray(Shape{3}, -1, 1, 18)));
}

TEST(GpuFallback, WarnsOncePerOpNamingIt) {
  Calls();
  NDArray x = RandomArray(Shape{3}, -0.5, 0.5, 20).copyto(gpu(0));
  ::testing::internal::CaptureStderr();
  Call("arccos", {x});
  Call("arccos", {x});
  Call("arcsin", {x});
  std::string err = ::testing::internal::GetCapturedStderr();
  auto count = [&](const std::string& s) {
    int n = 0;
    for (size_t p = err.find(s); p != std::string::npos; p = err.find(s, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("GPU fallback: operator arccos has no GPU kernel"), 1) << err;
  EXPECT_EQ(count("GPU fallback: operator arcsin has no GPU kernel"), 1) << err;
  EXPECT_EQ(count("MXNET_GPU_FALLBACK=error"), 2) << err;
  // MXNet's log line: "[hh:mm:ss] file: message".
  ASSERT_GE(err.size(), 11u);
  EXPECT_EQ(err[0], '[');
  EXPECT_EQ(err[3], ':');
  EXPECT_EQ(err.substr(9, 15), "] ndarray/op.cc") << err;
}

TEST(GpuFallback, TheSwitchMakesItAnErrorOrSilent) {
  Calls();
  NDArray c = RandomArray(Shape{3}, -1, 1, 21);
  NDArray x = c.copyto(gpu(0));
  {
    ScopedEnv e("MXNET_GPU_FALLBACK", "error");
    try {
      Call("tanh", {x});
      ADD_FAILURE() << "no error";
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), absl::StatusCode::kUnimplemented);
      EXPECT_NE(std::string(err.what()).find("tanh: no GPU kernel"), std::string::npos)
          << err.what();
      EXPECT_NE(std::string(err.what()).find("MXNET_GPU_FALLBACK=error"), std::string::npos);
    }
    EXPECT_NO_THROW(Call("tanh", {c}));  // CPU arrays are not concerned
  }
  {
    ScopedEnv e("MXNET_GPU_FALLBACK", "silent");
    ::testing::internal::CaptureStderr();
    NDArrayVec y = Call("tanh", {x});
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
    EXPECT_EQ(Bytes(y[0]), Bytes(Call("tanh", {c})[0]));
  }
  {
    ScopedEnv e("MXNET_GPU_FALLBACK", "eror");
    try {
      Call("cosh", {x});
      ADD_FAILURE() << "no error";
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), absl::StatusCode::kInvalidArgument);
      EXPECT_NE(std::string(err.what()).find("MXNET_GPU_FALLBACK='eror'"), std::string::npos)
          << err.what();
    }
  }
}

// A GPU kernel, where registered and taking the call, runs instead of the fallback.
const Op& TestOp() {
  static Op& op = [&]() -> Op& {
    Op& o = OpRegistry::Register("_test_gpu_fallback_double");
    o.set_num_inputs(1)
        .set_kernel({DeviceType::kCPU, Backend::kReference},
                    [](const OpContext& ctx, const OpAttrs&, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
                      EXPECT_EQ(ctx.device, cpu());
                      std::vector<double> v = in[0].ToVector<double>();
                      for (double& e : v) e *= 2;
                      NDArray::FromVector(v, in[0].shape(), cpu(), out[0].dtype()).copyto(out[0]);
                    })
        // "GPU kernel": copies x within the device (a result the CPU kernel does not give).
        .set_kernel(
            {DeviceType::kGPU, Backend::kCuda},
            [](const OpContext& ctx, const OpAttrs&, std::span<const NDArray> in,
               std::span<const NDArray> out) {
              EXPECT_EQ(ctx.device, gpu(0));
              in[0].copyto(out[0]);
            },
            [](const OpAttrs&, std::span<const NDArray> in) {
              return in[0].dtype() == DType::kFloat32;
            })
        .set_non_differentiable();
    return o;
  }();
  return op;
}

TEST(GpuFallback, RegisteredGpuKernelsRunWithoutFallback) {
  Calls();
  const Op& op = TestOp();
  ScopedEnv e("MXNET_GPU_FALLBACK", "error");
  NDArray x = NDArray::FromVector<float>({1, 2, 3}, Shape{3}, gpu(0));
  int to_host = Calls().to_host;
  NDArrayVec y = Invoke(op, OpAttrs::Parse(op, {}), std::vector<NDArray>{x});
  EXPECT_EQ(Calls().to_host, to_host);  // nothing went through the host
  EXPECT_EQ(y[0].ToVector<float>(), (std::vector<float>{1, 2, 3}));
  // float64 is not taken by the GPU kernel (FSupports): the CPU one runs, when allowed.
  NDArray x64 = NDArray::FromVector<float>({1, 2, 3}, Shape{3}, gpu(0), DType::kFloat64);
  EXPECT_THROW(Invoke(op, OpAttrs::Parse(op, {}), std::vector<NDArray>{x64}), Error);
  setenv("MXNET_GPU_FALLBACK", "silent", 1);
  NDArrayVec y64 = Invoke(op, OpAttrs::Parse(op, {}), std::vector<NDArray>{x64});
  EXPECT_EQ(y64[0].device(), gpu(0));
  EXPECT_EQ(y64[0].ToVector<double>(), (std::vector<double>{2, 4, 6}));
}

// Kernels registered by op name from a device library (ndarray/device_kernels.h), here before
// the op itself exists.
TEST(GpuFallback, DeviceKernelsRegisteredByNameAreSelected) {
  Calls();
  int gpu_calls = 0;
  RegisterDeviceKernel(
      "_test_late_op", {DeviceType::kGPU, Backend::kCuda},
      [&gpu_calls](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
        ++gpu_calls;
        in[0].copyto(out[0]);  // within gpu(0)
      },
      [](const OpAttrs&, std::span<const NDArray> in) { return in[0].size() < 100; });
  EXPECT_THROW(RegisterDeviceKernel("_test_late_op", {DeviceType::kGPU, Backend::kCuda},
                                    [](const OpContext&, const OpAttrs&, std::span<const NDArray>,
                                       std::span<const NDArray>) {}),
               Error);  // twice
  EXPECT_THROW(RegisterDeviceKernel("_test_late_op", {DeviceType::kCPU, Backend::kOptimized},
                                    [](const OpContext&, const OpAttrs&, std::span<const NDArray>,
                                       std::span<const NDArray>) {}),
               Error);  // CPU kernels belong to the op
  Op& op = OpRegistry::Register("_test_late_op");
  op.set_num_inputs(1)
      .set_kernel({DeviceType::kCPU, Backend::kReference},
                  [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
                    std::vector<double> v = in[0].ToVector<double>();
                    for (double& e : v) e = -e;
                    NDArray::FromVector(v, in[0].shape(), cpu(), out[0].dtype()).copyto(out[0]);
                  })
      .set_non_differentiable();
  ASSERT_NE(op.FindKernel({DeviceType::kGPU, Backend::kCuda}), nullptr);
  EXPECT_EQ(op.Kernels().size(), 2u);
  ScopedEnv quiet("MXNET_GPU_FALLBACK", "silent");
  NDArray x = NDArray::FromVector<float>({1, 2, 3}, Shape{3}, gpu(0));
  int to_host = Calls().to_host;
  NDArrayVec y = Invoke(op, OpAttrs::Parse(op, {}), std::vector<NDArray>{x});
  EXPECT_EQ(gpu_calls, 1);
  EXPECT_EQ(Calls().to_host, to_host);
  EXPECT_EQ(y[0].ToVector<float>(), (std::vector<float>{1, 2, 3}));
  // Not taken (FSupports): the CPU fallback; CPU arrays: the CPU kernel.
  NDArray big = NDArray::Full(Shape{200}, 2.0, gpu(0));
  EXPECT_EQ(Invoke(op, OpAttrs::Parse(op, {}), std::vector<NDArray>{big})[0].ToVector<float>(),
            std::vector<float>(200, -2.0f));
  EXPECT_EQ(Invoke(op, OpAttrs::Parse(op, {}), std::vector<NDArray>{x.copyto(cpu())})[0]
                .ToVector<float>(),
            (std::vector<float>{-1, -2, -3}));
  EXPECT_EQ(gpu_calls, 1);
}

TEST(GpuFallback, AutogradGradientsFlowBackToGpuArrays) {
  Calls();
  ScopedEnv quiet("MXNET_GPU_FALLBACK", "silent");
  std::vector<NDArray> c = {RandomArray(Shape{4, 5}, -1, 1, 30),
                            RandomArray(Shape{3, 5}, -1, 1, 31), RandomArray(Shape{3}, -1, 1, 32)};
  std::vector<NDArray> g = ToDevice(c, gpu(0));
  auto run = [](const std::vector<NDArray>& p) {
    for (const NDArray& x : p) x.attach_grad();
    NDArray loss;
    {
      auto r = autograd::record();
      NDArray h = Call("FullyConnected", p, {{"num_hidden", "3"}})[0];
      h = Call("tanh", {h})[0];
      h = Call("elemwise_mul", {h, h})[0];
      loss = Call("sum", {h})[0];
    }
    loss.backward();
    return loss;
  };
  NDArray lc = run(c), lg = run(g);
  EXPECT_EQ(lg.device(), gpu(0));
  EXPECT_EQ(Bytes(lg), Bytes(lc));
  for (size_t i = 0; i < c.size(); ++i) {
    ASSERT_FALSE(g[i].grad().is_none());
    EXPECT_EQ(g[i].grad().device(), gpu(0));
    EXPECT_EQ(Bytes(g[i].grad()), Bytes(c[i].grad())) << "input " << i;
  }
}

TEST(GpuFallback, HybridizedGraphsRunOnGpuArrays) {
  Calls();
  ScopedEnv quiet("MXNET_GPU_FALLBACK", "silent");
  using sym::Symbol;
  Symbol x = sym::var("x"), w = sym::var("w"), b = sym::var("b");
  Symbol h = Symbol::Create("FullyConnected", {x, w, b}, {{"num_hidden", "4"}}, "fc");
  h = Symbol::Create("Activation", {h}, {{"act_type", "relu"}}, "relu");
  h = Symbol::Create("softmax", {h}, {{"axis", "-1"}}, "sm");
  std::vector<NDArray> c = {RandomArray(Shape{3, 6}, -1, 1, 40),
                            RandomArray(Shape{4, 6}, -1, 1, 41), RandomArray(Shape{4}, -1, 1, 42)};
  std::vector<NDArray> g = ToDevice(c, gpu(0));
  sym::CachedOpOptions o;
  o.static_alloc = true;
  sym::CachedOp oc(h, o), og(h, o);
  // Inference (memory plan: relu in place).
  NDArrayVec yc = oc.Forward(c, false), yg = og.Forward(g, false);
  EXPECT_EQ(yg[0].device(), gpu(0));
  EXPECT_EQ(Bytes(yg[0]), Bytes(yc[0]));
  // Training: forward and the gradient graph both in the executor.
  NDArray hg = RandomArray(Shape{3, 4}, -1, 1, 43);
  auto train = [&](sym::CachedOp& op, const std::vector<NDArray>& p, Device d) {
    for (const NDArray& v : p) v.attach_grad();
    NDArray y;
    {
      auto r = autograd::record();
      y = op(p)[0];
    }
    autograd::backward({y}, {hg.copyto(d)});
    return y;
  };
  NDArray tc = train(oc, c, cpu()), tg = train(og, g, gpu(0));
  EXPECT_EQ(Bytes(tg), Bytes(tc));
  for (size_t i = 0; i < c.size(); ++i) {
    EXPECT_EQ(g[i].grad().device(), gpu(0));
    EXPECT_EQ(Bytes(g[i].grad()), Bytes(c[i].grad())) << "input " << i;
  }
}

}  // namespace
}  // namespace mxnet::backends::cuda
