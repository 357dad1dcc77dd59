// The GPU runtime in whichever build and machine this runs on: without CUDA in the build, with
// CUDA but no driver or device (this repository's CI machine), and with GPUs (the GPU check
// script, tools/gpu/run_gpu_checks.sh). Tests that need a GPU print a "[no GPU]" line and skip.
#include "ndarray/backends/cuda/gpu.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "ndarray/backends/backend.h"
#include "ndarray/ndarray.h"
#include "ndarray/op.h"
#include "ndarray/storage.h"

#ifdef MXNET_CUDA
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstring>
#include <random>

#include "base/strings.h"
#include "ndarray/backends/cuda/elemwise_gpu.h"
#include "ndarray/backends/cuda/elemwise_kernels.h"
#endif

namespace mxnet::backends::cuda {
namespace {

// Skips a test that needs `n` GPUs when there are fewer, with a visible "[no GPU]" line; fails
// instead when $MXNET_REQUIRE_GPU (the GPU check script sets it to the machine's GPU count) is at
// least `n`, so a GPU machine cannot pass by skipping.
int RequiredGpus() {
  const char* v = std::getenv("MXNET_REQUIRE_GPU");
  return v ? std::atoi(v) : 0;
}
#define MX_NEED_GPU(n)                                                                  \
  do {                                                                                  \
    if (GpuCount() < (n)) {                                                             \
      if (RequiredGpus() >= (n))                                                        \
        FAIL() << "MXNET_REQUIRE_GPU=" << RequiredGpus() << " but " << DriverStatus();  \
      std::printf("[no GPU] %s skipped: needs %d GPU(s); %s\n",                         \
                  ::testing::UnitTest::GetInstance()->current_test_info()->name(), (n), \
                  DriverStatus().c_str());                                              \
      GTEST_SKIP() << "no GPU";                                                         \
    }                                                                                   \
  } while (0)

std::string ErrorOf(const std::function<void()>& f, absl::StatusCode* code = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "(no error)";
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Gpu, DeviceParsing) {
  EXPECT_EQ(ParseDevice("gpu(1)").value(), gpu(1));
  EXPECT_EQ(ParseDevice(" GPU(0) ").value(), gpu(0));
  EXPECT_EQ(ParseDevice("gpu").value(), gpu(0));
  EXPECT_FALSE(ParseDevice("gpu(-1)").ok());
  EXPECT_FALSE(ParseDevice("cuda(0)").ok());
  EXPECT_EQ(gpu(3).ToString(), "gpu(3)");
}

TEST(Gpu, BuildFlagMatchesTheBuild) {
#ifdef MXNET_CUDA
  EXPECT_TRUE(BuiltWithCuda());
  EXPECT_TRUE(HasDeviceBackend(DeviceType::kGPU));  // gpu_storage registered it
  EXPECT_NE(FindBackend("cuda"), nullptr);
#else
  EXPECT_FALSE(BuiltWithCuda());
  EXPECT_EQ(GpuCount(), 0);
  EXPECT_EQ(DriverStatus(), "this build has no CUDA");
  EXPECT_FALSE(HasDeviceBackend(DeviceType::kGPU));
  EXPECT_EQ(FindBackend("cuda"), nullptr);
#endif
  std::printf("GPU runtime: built with CUDA: %s; %d GPU(s); %s\n", BuiltWithCuda() ? "yes" : "no",
              GpuCount(), DriverStatus().c_str());
}

TEST(Gpu, NonGpuDeviceIsInvalid) {
  absl::StatusCode code{};
  EXPECT_TRUE(
      Contains(ErrorOf([] { CheckGpu(cpu()); }, &code), "expected a GPU device, got cpu(0)"));
  EXPECT_EQ(code, absl::StatusCode::kInvalidArgument);
}

// Asking for a GPU beyond those present: the error names the device and why.
TEST(Gpu, MissingGpuErrorNamesDeviceAndReason) {
  int n = GpuCount();
  Device missing = gpu(n);  // one past the last
  std::string want;
  if (!BuiltWithCuda())
    want = missing.ToString() + " requested but this build has no CUDA";
  else if (n == 0)
    want = missing.ToString() + " requested but no CUDA device found (driver: " + DriverStatus();
  else
    want = missing.ToString() + " requested but only " + std::to_string(n) + " CUDA device";
  for (auto f : std::vector<std::function<void()>>{
           [&] { CheckGpu(missing); },
           [&] { Stream(missing.id); },
           [&] { Allocator(missing.id); },
           [&] { GetGpuProperties(missing.id); },
           [&] { Storage::Alloc(16, missing); },
           [&] {
             NDArray(Shape{2, 3}, missing);
           },
           [&] {
             NDArray::FromVector<float>({1, 2}, Shape{2}).copyto(missing);
           },
           [&] {
             NDArray::FromVector<float>({1, 2}, Shape{2}).as_in_context(missing);
           },
       }) {
    absl::StatusCode code{};
    std::string m = ErrorOf(f, &code);
    EXPECT_TRUE(Contains(m, want)) << m << "\nwanted: " << want;
    EXPECT_EQ(code, absl::StatusCode::kUnavailable) << m;
  }
  EXPECT_TRUE(Contains(ErrorOf([] { CheckGpu(gpu(-1)); }), "gpu(-1) requested")) << BuiltWithCuda();
}

TEST(Gpu, EmptyCacheAndSynchronizeWithoutGpusAreNoOps) {
  if (GpuCount() > 0) GTEST_SKIP() << "has GPUs";
  EXPECT_EQ(num_gpus(), 0);
  EXPECT_TRUE(Contains(ErrorOf([] { gpu_memory_info(0); }), "gpu(0) requested"));
  EXPECT_TRUE(Contains(ErrorOf([] { MemoryStats(0); }), "gpu(0) requested"));
  EXPECT_TRUE(Contains(ErrorOf([] { EmptyCache(0); }), "gpu(0) requested"));
  EXPECT_EQ(EmptyCache(), 0u);
  Synchronize(-1);
  waitall();
  ReleaseCaches();
}

TEST(Gpu, PropertiesAndStreams) {
  MX_NEED_GPU(1);
  for (int i = 0; i < GpuCount(); ++i) {
    GpuProperties p = GetGpuProperties(i);
    std::printf("gpu(%d): %s, %.1f GiB, compute capability %d.%d, %d SMs\n", i, p.name.c_str(),
                p.total_memory / 1073741824.0, p.major, p.minor, p.multiprocessors);
    EXPECT_FALSE(p.name.empty());
    EXPECT_GT(p.total_memory, size_t{1} << 30);
    EXPECT_GE(p.major, 3);
    EXPECT_GT(p.multiprocessors, 0);
    auto [free, total] = gpu_memory_info(i);
    EXPECT_EQ(total, p.total_memory);
    EXPECT_GT(free, 0u);
    EXPECT_LE(free, total);
    EXPECT_NE(Stream(i), nullptr);  // a stream of our own, not the legacy default stream
    EXPECT_EQ(Stream(i), Stream(i));
    Synchronize(i);
  }
}

TEST(Gpu, CopyToAndFromGpuRoundTrips) {
  MX_NEED_GPU(1);
  std::vector<float> v(1000);
  std::iota(v.begin(), v.end(), -3.5f);
  NDArray a = NDArray::FromVector(v, Shape{10, 100});
  NDArray g = a.copyto(gpu(0));
  EXPECT_EQ(g.device(), gpu(0));
  EXPECT_EQ(g.shape(), a.shape());
  EXPECT_TRUE(g.as_in_context(gpu(0)).is_same(g));
  NDArray g2 = g.copy();  // device to device, asynchronous on gpu(0)'s stream
  NDArray back = g2.as_in_context(cpu());
  EXPECT_EQ(back.device(), cpu());
  EXPECT_EQ(back.ToVector<float>(), v);
  EXPECT_EQ(g.ToVector<float>(), v);  // host read of a GPU array
  NDArray h(Shape{10, 100}, cpu());
  g.copyto(h);
  EXPECT_EQ(h.ToVector<float>(), v);
  g.wait_to_read();
  waitall();
}

TEST(Gpu, CopyBetweenGpus) {
  MX_NEED_GPU(2);
  std::vector<int32_t> v{1, -2, 3, 1 << 30};
  NDArray g0 = NDArray::FromVector(v, Shape{4}, gpu(0));
  NDArray g1 = g0.copyto(gpu(1));
  EXPECT_EQ(g1.device(), gpu(1));
  EXPECT_EQ(g1.ToVector<int32_t>(), v);
  // Direct peer copies (ndarray/device_copy.h), queued on the streams: there and back, into an
  // existing array right after it was written on its own device, and between views.
  std::vector<float> big(1 << 20);
  std::iota(big.begin(), big.end(), 0.5f);
  NDArray a0 = NDArray::FromVector(big, Shape{1024, 1024}, gpu(0));
  NDArray a1 = a0.copyto(gpu(1));
  NDArray b0(Shape{1024, 1024}, gpu(0));
  b0.SyncCopyFromCPU(std::vector<float>(big.size(), -1.f).data(), big.size() * sizeof(float));
  a1.as_in_context(gpu(0)).copy().copyto(b0);
  EXPECT_EQ(b0.ToVector<float>(), big);
  NDArray part(Shape{2, 1024}, gpu(1));
  a0.slice(5, 7).copyto(part);
  EXPECT_EQ(part.ToVector<float>(),
            std::vector<float>(big.begin() + 5 * 1024, big.begin() + 7 * 1024));
}

// An op without a GPU kernel runs on the CPU (ndarray/op.cc's GPU fallback) and gives the CPU's
// values on the GPU, also in place. The op is registered here (CPU kernel only), so the GPU
// check binaries need not link the operator libraries.
TEST(Gpu, OpsWithoutAGpuKernelFallBackToTheCpu) {
  static const Op& op =
      OpRegistry::Register("_gpu_test_two_x_plus_one")
          .set_num_inputs(1)
          .set_kernel({DeviceType::kCPU, Backend::kReference},
                      [](const OpContext& ctx, const OpAttrs&, std::span<const NDArray> in,
                         std::span<const NDArray> out) {
                        EXPECT_EQ(ctx.device, cpu());
                        const float* x = in[0].data<float>();
                        float* y = out[0].data<float>();
                        for (int64_t i = 0; i < in[0].size(); ++i) y[i] = 2 * x[i] + 1;
                      })
          .set_non_differentiable();
  MX_NEED_GPU(1);
  const char* env = std::getenv("MXNET_GPU_FALLBACK");
  std::optional<std::string> mode;
  if (env) mode = env;
  setenv("MXNET_GPU_FALLBACK", "silent", 1);  // the check script runs with =error
  std::vector<float> v(1000), want(1000);
  std::iota(v.begin(), v.end(), -10.f);
  for (size_t i = 0; i < v.size(); ++i) want[i] = 2 * v[i] + 1;
  NDArray g = NDArray::FromVector(v, Shape{10, 100}, gpu(0));
  NDArrayVec y = Invoke(op, OpAttrs::Parse(op, {}), std::vector<NDArray>{g});
  EXPECT_EQ(y[0].device(), gpu(0));
  EXPECT_EQ(y[0].ToVector<float>(), want);
  InvokeInto(op, OpAttrs::Parse(op, {}), std::vector<NDArray>{g}, std::vector<NDArray>{g});
  EXPECT_EQ(g.ToVector<float>(), want);
  if (mode)
    setenv("MXNET_GPU_FALLBACK", mode->c_str(), 1);
  else
    unsetenv("MXNET_GPU_FALLBACK");
}

TEST(Gpu, StorageUsesTheCachingAllocator) {
  MX_NEED_GPU(1);
  EmptyCache(0);
  AllocatorStats before = MemoryStats(0);
  void* first = nullptr;
  {
    auto s = Storage::Alloc(1000, gpu(0));
    first = s->data();
    AllocatorStats st = MemoryStats(0);
    EXPECT_EQ(st.bytes_in_use, before.bytes_in_use + 1024);  // rounded to 512-byte blocks
    EXPECT_EQ(Allocator(0).BlockSize(first), 1024u);
    EXPECT_GE(Storage::GetStats(gpu(0)).bytes_in_use, 1000u);  // Storage counts requested bytes
  }
  EXPECT_EQ(MemoryStats(0).bytes_in_use, before.bytes_in_use);
  auto again = Storage::Alloc(900, gpu(0));
  EXPECT_EQ(again->data(), first);  // reused on the same stream
  EXPECT_GT(MemoryStats(0).cache_hits, before.cache_hits);
  again.reset();
  EXPECT_GE(EmptyCache(0), CachingAllocator::kSmallSegment);
  EXPECT_EQ(MemoryStats(0).bytes_reserved, before.bytes_reserved);
  EXPECT_GT(FindBackend("cuda")->stats().scratch_bytes + 1, 0u);
}

// cpu_pinned(0) arrays work in every build; on a GPU machine of a CUDA build their memory is
// page-locked (CUDA reports it as host memory it knows).
TEST(Gpu, PinnedHostArrays) {
  std::vector<float> v{1.5f, -2.f, 3.25f, 0.f, 8.f};
  NDArray p = NDArray::FromVector(v, Shape{5}, cpu_pinned(0));
  EXPECT_EQ(p.device(), cpu_pinned(0));
  EXPECT_EQ(p.ToVector<float>(), v);
  EXPECT_EQ(p.copyto(cpu()).ToVector<float>(), v);
  NDArray q(Shape{5}, cpu_pinned(0));
  NDArray::FromVector(v, Shape{5}).copyto(q);
  EXPECT_EQ(q.ToVector<float>(), v);
#ifdef MXNET_CUDA
  cudaPointerAttributes attr{};
  cudaError_t e = cudaPointerGetAttributes(&attr, p.data_ptr());
  if (GpuCount() > 0) {
    ASSERT_EQ(e, cudaSuccess) << cudaGetErrorString(e);
    EXPECT_EQ(attr.type, cudaMemoryTypeHost) << "cpu_pinned memory is not page-locked";
    NDArray g = p.copyto(gpu(0));
    EXPECT_EQ(g.copyto(cpu_pinned(0)).ToVector<float>(), v);
  } else {
    cudaGetLastError();
    std::printf("[no GPU] PinnedHostArrays: pageable host memory (no GPU to pin for)\n");
  }
#endif
}

#ifdef MXNET_CUDA
// A block used by a second stream is held back until that stream's work is done: stream 2 is
// kept busy by a host function that waits for the test's signal, so the timing is deterministic.
TEST(Gpu, BlockUsedOnAnotherStreamWaitsForItsEvent) {
  MX_NEED_GPU(1);
  CachingAllocator& a = Allocator(0);
  cudaSetDevice(0);
  cudaStream_t s2 = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
  // Allocated before stream 2 blocks: q below comes from the rest of p's segment, so no
  // cudaMalloc/cudaFree (which may synchronize the device) runs while stream 2 waits.
  void* p = a.Malloc(4096, Stream(0));
  static std::atomic<bool> go{false};
  go = false;
  ASSERT_EQ(cudaLaunchHostFunc(
                s2,
                [](void*) {
                  while (!go.load()) std::this_thread::yield();
                },
                nullptr),
            cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(p, 0, 4096, s2), cudaSuccess);  // queued behind the wait
  a.RecordStream(p, s2);
  size_t pending_before = a.Stats().bytes_pending;
  a.Free(p);
  EXPECT_EQ(a.Stats().bytes_pending, pending_before + 4096);
  void* q = a.Malloc(4096, Stream(0));
  EXPECT_NE(q, p);  // p is not reused while stream 2 may still write it
  go = true;
  ASSERT_EQ(cudaStreamSynchronize(s2), cudaSuccess);
  EXPECT_EQ(a.Stats().bytes_pending, pending_before);  // its event completed: p is free again
  a.Free(q);
  cudaStreamDestroy(s2);
}
#endif

#ifdef MXNET_CUDA
// The generic elementwise kernel (elemwise_kernels.cu) against its own per-thread body run on the
// host (elemwise_plan_test checks that body against the registry's CPU reference kernels), for
// every op, float32, float64 and float16, vectorized and misaligned (scalar) plans, with a tail and
// with a grid-stride loop: the same bits for the exact ops (float16 conversions included: CUDA's
// __float2half_rn against base/half.h's), a few ulp for CUDA's math functions.
TEST(Gpu, ElementwiseKernelMatchesTheHostRunOfItsBody) {
  MX_NEED_GPU(1);
  const int sms = GetGpuProperties(0).multiprocessors;
  // The body on the host, element by element, over host copies of the inputs.
  auto host_run = [](EwOp op, double scalar, const NDArray& a, const NDArray& b) {
    NDArray ha = a.copyto(cpu()), hb = b.copyto(cpu()), out(a.shape(), cpu(), a.dtype());
    const int64_t n = a.size();
    EwDispatch(op, *EwDTypeOf(a.dtype()), 1, [&]<EwOp OP, typename S, int VEC>() {
      const auto s = static_cast<typename EwType<S>::Acc>(EwScalarFor(a.dtype(), scalar));
      for (int64_t i = 0; i < n; ++i)
        ElemwiseThread<OP, S, 1>(i, n, static_cast<S*>(out.data_ptr()),
                                 static_cast<const S*>(ha.data_ptr()),
                                 static_cast<const S*>(hb.data_ptr()), s, 0, n);
    });
    return out.ToVector<double>();
  };
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-25, 25);
  for (int k = 0; k < static_cast<int>(EwOp::kCount); ++k) {
    const EwOp op = static_cast<EwOp>(k);
    const bool exact = op != EwOp::kSqrt && op != EwOp::kExp && op != EwOp::kLog &&
                       op != EwOp::kTanh && op != EwOp::kSigmoid && op != EwOp::kSoftrelu &&
                       op != EwOp::kSoftsign;
    for (DType t : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
      for (int64_t n : {int64_t{1}, int64_t{1003}, (int64_t{1} << 18) + 3}) {
        for (int64_t off : {0, 1}) {
          SCOPED_TRACE(StrCat("op ", k, " ", DTypeName(t), " n=", n, " offset=", off));
          std::vector<double> a(n + off), b(n + off);
          for (auto& v : a) v = u(gen);
          for (auto& v : b) v = u(gen);
          if (op == EwOp::kSqrt || op == EwOp::kLog)
            for (auto& v : a) v = std::fabs(v);
          a[off] = 0.0;  // a few special values
          if (n > 2) a[off + 1] = -0.0, a[off + 2] = NAN;
          NDArray ga = NDArray::FromVector(a, Shape{n + off}, gpu(0), t).slice(off, n + off);
          NDArray gb = NDArray::FromVector(b, Shape{n + off}, gpu(0), t).slice(off, n + off);
          NDArray go(Shape{n}, gpu(0), t);
          EwCall call{op, 0.37};
          // The large case on a grid of 32 blocks (as if the GPU had one multiprocessor), so the
          // grid-stride loop runs many times.
          const bool large = n > 10000;
          ElemwisePlan plan = PlanFor(call, go, std::vector<NDArray>{ga, gb}, large ? 1 : sms);
          if (off == 0) {
            EXPECT_EQ(plan.vec, 16 / static_cast<int>(DTypeSize(t))) << plan.ToString();
          }
          if (large) {
            EXPECT_EQ(plan.grid, kBlocksPerSm);
          }
          cudaSetDevice(0);
          const char* err = LaunchElemwise(op, *EwDTypeOf(t), plan, go.data_ptr(), ga.data_ptr(),
                                           EwArity(op) == 2 ? gb.data_ptr() : nullptr,
                                           EwScalarFor(t, call.scalar), Stream(0));
          ASSERT_EQ(err, nullptr) << err;
          std::vector<double> want = host_run(op, call.scalar, ga, gb);
          std::vector<double> got = go.ToVector<double>();
          int bad = 0;
          for (int64_t i = 0; i < n && bad < 5; ++i) {
            double g = got[i], w = want[i];
            if (std::isnan(g) && std::isnan(w)) continue;
            // float16: one half ulp (2^-10 relative; 2^-24 absolute for subnormals).
            const double rel = t == DType::kFloat64   ? 4e-15
                               : t == DType::kFloat32 ? 8e-7
                                                      : 1.0 / 1024;
            bool ok = exact ? std::memcmp(&g, &w, sizeof g) == 0
                            : g == w || std::fabs(g - w) <= rel * std::fabs(w) + 6e-8;
            if (!ok) {
              ++bad;
              ADD_FAILURE() << "element " << i << ": GPU " << g << ", host " << w;
            }
          }
        }
      }
    }
  }
}

// Registered ops reach the kernel by name through dispatch, with no CPU fallback. The operator
// libraries are not linked here, so the test registers a stand-in elemwise_add (CPU kernel only).
TEST(Gpu, ElementwiseOpsDispatchToTheirGpuKernel) {
  static const Op* add = [] {
    if (const Op* op = OpRegistry::Find("elemwise_add")) return op;
    return static_cast<const Op*>(
        &OpRegistry::Register("elemwise_add")
             .set_num_inputs(2)
             .set_kernel({DeviceType::kCPU, Backend::kReference},
                         [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                            std::span<const NDArray> out) {
                           for (int64_t i = 0; i < in[0].size(); ++i)
                             out[0].data<float>()[i] =
                                 in[0].data<float>()[i] + in[1].data<float>()[i];
                         })
             .set_non_differentiable());
  }();
  ASSERT_NE(add->FindKernel({DeviceType::kGPU, Backend::kCuda}), nullptr);
  MX_NEED_GPU(1);
  const char* env = std::getenv("MXNET_GPU_FALLBACK");
  std::optional<std::string> mode;
  if (env) mode = env;
  setenv("MXNET_GPU_FALLBACK", "error", 1);  // a fallback would throw
  std::vector<float> x(1000), y(1000), want(1000);
  for (int i = 0; i < 1000; ++i) x[i] = 0.5f * i, y[i] = 1.0f / (i + 1), want[i] = x[i] + y[i];
  NDArrayVec z = Invoke(*add, OpAttrs::Parse(*add, {}),
                        std::vector<NDArray>{NDArray::FromVector(x, Shape{1000}, gpu(0)),
                                             NDArray::FromVector(y, Shape{1000}, gpu(0))});
  EXPECT_EQ(z[0].device(), gpu(0));
  EXPECT_EQ(z[0].ToVector<float>(), want);
  if (mode)
    setenv("MXNET_GPU_FALLBACK", mode->c_str(), 1);
  else
    unsetenv("MXNET_GPU_FALLBACK");
}
#endif  // MXNET_CUDA

TEST(Gpu, OutOfMemoryIsResourceExhausted) {
  MX_NEED_GPU(1);
  size_t too_much = GetGpuProperties(0).total_memory * 2;
  absl::StatusCode code{};
  std::string m = ErrorOf([&] { Storage::Alloc(too_much, gpu(0)); }, &code);
  EXPECT_EQ(code, absl::StatusCode::kResourceExhausted) << m;
  EXPECT_TRUE(Contains(m, "gpu(0): out of memory allocating")) << m;
  // The device is still usable afterwards.
  EXPECT_EQ(NDArray::FromVector<float>({2, 4}, Shape{2}, gpu(0)).ToVector<float>(),
            (std::vector<float>{2, 4}));
}

}  // namespace
}  // namespace mxnet::backends::cuda
