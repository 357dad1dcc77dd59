#include "base/device.h"

#include <gtest/gtest.h>

namespace mxnet {
namespace {

TEST(Device, PrintsAndParsesLikeMxnet) {
  EXPECT_EQ(cpu().ToString(), "cpu(0)");
  EXPECT_EQ(gpu(1).ToString(), "gpu(1)");
  EXPECT_EQ(cpu_pinned().ToString(), "cpu_pinned(0)");
  EXPECT_EQ(*ParseDevice("gpu(2)"), gpu(2));
  EXPECT_EQ(*ParseDevice("cpu"), cpu(0));
  EXPECT_EQ(*ParseDevice(" CPU_PINNED(0) "), cpu_pinned(0));
  EXPECT_FALSE(ParseDevice("tpu(0)").ok());
  EXPECT_FALSE(ParseDevice("gpu(-1)").ok());
  EXPECT_FALSE(ParseDevice("gpu(x)").ok());
}

TEST(Device, StoredDeviceTypes) {
  EXPECT_EQ(*DeviceTypeFromInt(1), DeviceType::kCPU);
  EXPECT_EQ(*DeviceTypeFromInt(2), DeviceType::kGPU);
  EXPECT_EQ(*DeviceTypeFromInt(3), DeviceType::kCPUPinned);
  EXPECT_EQ(*DeviceTypeFromInt(5), DeviceType::kCPUShared);
  EXPECT_FALSE(DeviceTypeFromInt(4).ok());
  EXPECT_TRUE(cpu_pinned().is_cpu());
  EXPECT_TRUE(gpu().is_gpu());
  EXPECT_NE(cpu(0), cpu(1));
}

}  // namespace
}  // namespace mxnet
