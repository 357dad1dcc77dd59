// Overhead of the C ABI: a small op through mxc_invoke (handle checks, the ctx scope, string
// attributes, a +1 output handle and its free) vs the same op through the C++ API. Target: the C
// layer adds <= 0.3 us per call (median). Run:
//   ./bazelw run -c opt --config=bench //c_api:invoke_benchmark -- --benchmark_repetitions=10
//       --benchmark_report_aggregates_only=true
// This process holds two copies of the libraries (libmxc.so's own and the C++ ones linked here),
// each with its own registry; both run the same kernels.
#include <benchmark/benchmark.h>

#include "mxc/mxc.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/elemwise/elemwise_api.h"

namespace {

void Require(mxc_status* s) {
  if (s) {
    std::fprintf(stderr, "%s\n", mxc_status_message(s));
    std::abort();
  }
}

mxc_ndarray* Ones10() {
  float v[10];
  for (float& x : v) x = 1;
  int64_t shape[1] = {10};
  mxc_ndarray* a = nullptr;
  Require(mxc_ndarray_from_host(v, sizeof v, shape, 1, MXC_FLOAT32, {MXC_DEVICE_CPU, 0}, &a));
  return a;
}

mxc_op* Find(const char* name) {
  mxc_op* op = nullptr;
  Require(mxc_op_find(name, &op));
  return op;
}

// ---- relu on (10,): no attributes. ----
void BM_CxxRelu10(benchmark::State& state) {
  mxnet::NDArray x = mxnet::NDArray::Full(mxnet::Shape{10}, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(mxnet::nd::relu(x));
}
BENCHMARK(BM_CxxRelu10);

void BM_MxcRelu10(benchmark::State& state) {
  mxc_ndarray* x = Ones10();
  mxc_op* relu = Find("relu");
  mxc_ctx* ctx = nullptr;
  Require(mxc_ctx_create(nullptr, &ctx));
  for (auto _ : state) {
    mxc_ndarray* y = nullptr;
    size_t n = 0;
    Require(mxc_invoke(ctx, relu, &x, 1, nullptr, nullptr, 0, &y, 1, &n));
    mxc_ndarray_free(y);
  }
  mxc_ctx_free(ctx);
  mxc_ndarray_free(x);
}
BENCHMARK(BM_MxcRelu10);

// ---- elemwise_add on (10,): two inputs. ----
void BM_CxxElemwiseAdd10(benchmark::State& state) {
  mxnet::NDArray x = mxnet::NDArray::Full(mxnet::Shape{10}, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(mxnet::nd::elemwise_add(x, x));
}
BENCHMARK(BM_CxxElemwiseAdd10);

void BM_MxcElemwiseAdd10(benchmark::State& state) {
  mxc_ndarray* x = Ones10();
  mxc_ndarray* in[2] = {x, x};
  mxc_op* add = Find("elemwise_add");
  mxc_ctx* ctx = nullptr;
  Require(mxc_ctx_create(nullptr, &ctx));
  for (auto _ : state) {
    mxc_ndarray* y = nullptr;
    size_t n = 0;
    Require(mxc_invoke(ctx, add, in, 2, nullptr, nullptr, 0, &y, 1, &n));
    mxc_ndarray_free(y);
  }
  mxc_ctx_free(ctx);
  mxc_ndarray_free(x);
}
BENCHMARK(BM_MxcElemwiseAdd10);

// ---- _plus_scalar on (10,): one attribute, parsed from its string form by mxc_invoke (the
// C++ call passes the typed struct). ----
void BM_CxxPlusScalar10(benchmark::State& state) {
  mxnet::NDArray x = mxnet::NDArray::Full(mxnet::Shape{10}, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(mxnet::nd::plus_scalar(x, 2.0));
}
BENCHMARK(BM_CxxPlusScalar10);

// The C++ call by name with the same string attribute (what mxc_invoke does underneath).
void BM_CxxByNamePlusScalar10(benchmark::State& state) {
  mxnet::NDArray x = mxnet::NDArray::Full(mxnet::Shape{10}, 1.0);
  std::vector<mxnet::NDArray> in{x};
  for (auto _ : state)
    benchmark::DoNotOptimize(mxnet::Invoke("_plus_scalar", in, {{"scalar", "2"}}));
}
BENCHMARK(BM_CxxByNamePlusScalar10);

void BM_MxcPlusScalar10(benchmark::State& state) {
  mxc_ndarray* x = Ones10();
  mxc_op* op = Find("_plus_scalar");
  const char* keys[1] = {"scalar"};
  const char* values[1] = {"2"};
  mxc_ctx* ctx = nullptr;
  Require(mxc_ctx_create(nullptr, &ctx));
  for (auto _ : state) {
    mxc_ndarray* y = nullptr;
    size_t n = 0;
    Require(mxc_invoke(ctx, op, &x, 1, keys, values, 1, &y, 1, &n));
    mxc_ndarray_free(y);
  }
  mxc_ctx_free(ctx);
  mxc_ndarray_free(x);
}
BENCHMARK(BM_MxcPlusScalar10);

// ---- The handle layer alone: a getter (decode, check, copy, status NULL). ----
void BM_MxcGetterNdim(benchmark::State& state) {
  mxc_ndarray* x = Ones10();
  for (auto _ : state) {
    size_t ndim = 0;
    Require(mxc_ndarray_ndim(x, &ndim));
    benchmark::DoNotOptimize(ndim);
  }
  mxc_ndarray_free(x);
}
BENCHMARK(BM_MxcGetterNdim);

}  // namespace
