#include "tools/build_defs/cuda_smoke.h"

#include <cstdio>
#include <vector>

#include <gtest/gtest.h>

namespace mxnet::cuda_smoke {
namespace {

TEST(CudaSmoke, SaxpyMatchesHostWhenAGpuExists) {
  int devices = DeviceCount();
  if (devices <= 0) {
    std::printf("[no GPU] CudaSmoke skipped: no CUDA device here (cudaGetDeviceCount error %d)\n",
                -devices);
    GTEST_SKIP() << "no GPU";
  }
  std::vector<float> x(1000), y(1000);
  for (int i = 0; i < 1000; ++i) x[i] = i, y[i] = 1.0f;
  ASSERT_EQ(Saxpy(1000, 2.0f, x.data(), y.data()), 0);
  for (int i = 0; i < 1000; ++i) EXPECT_FLOAT_EQ(y[i], 2.0f * i + 1.0f) << i;
}

}  // namespace
}  // namespace mxnet::cuda_smoke
