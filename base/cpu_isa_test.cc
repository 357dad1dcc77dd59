#include "base/cpu_isa.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "base/error.h"

namespace mxnet {
namespace {

TEST(CpuIsa, ParsesOneDnnNames) {
  CpuIsa isa;
  ASSERT_TRUE(ParseCpuIsa("avx2", &isa));
  EXPECT_EQ(isa, CpuIsa::kAvx2);
  ASSERT_TRUE(ParseCpuIsa("SSE41", &isa));
  EXPECT_EQ(isa, CpuIsa::kSse41);
  ASSERT_TRUE(ParseCpuIsa("Scalar", &isa));
  EXPECT_EQ(isa, CpuIsa::kScalar);
  ASSERT_TRUE(ParseCpuIsa("AVX512_CORE", &isa));
  EXPECT_EQ(isa, CpuIsa::kAvx512Core);
  ASSERT_TRUE(ParseCpuIsa("AVX2_VNNI", &isa));
  EXPECT_EQ(isa, CpuIsa::kAvx2);
  ASSERT_TRUE(ParseCpuIsa("all", &isa));
  EXPECT_EQ(isa, CpuIsa::kAvx512CoreVnni);
  EXPECT_FALSE(ParseCpuIsa("AVX3", &isa));
  EXPECT_FALSE(ParseCpuIsa("", &isa));
  for (CpuIsa i : {CpuIsa::kScalar, CpuIsa::kSse41, CpuIsa::kAvx, CpuIsa::kAvx2,
                   CpuIsa::kAvx512Core, CpuIsa::kAvx512CoreVnni}) {
    ASSERT_TRUE(ParseCpuIsa(CpuIsaName(i), &isa)) << CpuIsaName(i);
    EXPECT_EQ(isa, i);
  }
}

// The CPU's flags as the kernel reports them (an independent reading of CPUID).
std::string CpuFlags() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("flags", 0) == 0) return line + " ";
  return "";
}

TEST(CpuIsa, HardwareLevelMatchesProcCpuinfo) {
  const std::string flags = CpuFlags();
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo";
  auto has = [&](const char* f) {
    return flags.find(std::string(" ") + f + " ") != std::string::npos;
  };
  CpuIsa want = CpuIsa::kScalar;
  if (has("sse4_1") && has("sse4_2")) {
    want = CpuIsa::kSse41;
    if (has("avx") && has("f16c")) {
      want = CpuIsa::kAvx;
      if (has("avx2") && has("fma")) {
        want = CpuIsa::kAvx2;
        if (has("avx512f") && has("avx512bw") && has("avx512dq") && has("avx512vl")) {
          want = CpuIsa::kAvx512Core;
          if (has("avx512_vnni")) want = CpuIsa::kAvx512CoreVnni;
        }
      }
    }
  }
  EXPECT_EQ(HardwareCpuIsa(), want) << CpuIsaName(HardwareCpuIsa()) << " vs " << CpuIsaName(want);
}

TEST(CpuIsa, CapFromTheEnvironment) {
  // The cpu_isa_test_* targets set MXNET_MAX_CPU_ISA (and ONEDNN_MAX_CPU_ISA) to a level or to
  // an unknown name.
  const char* v = std::getenv("MXNET_MAX_CPU_ISA");
  if (!v) v = std::getenv("ONEDNN_MAX_CPU_ISA");
  CpuIsa cap;
  if (v && *v && !ParseCpuIsa(v, &cap)) {
    try {
      MaxCpuIsa();
      ADD_FAILURE() << "accepted MXNET_MAX_CPU_ISA=" << v;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("MXNET_MAX_CPU_ISA"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(v), std::string::npos) << e.what();
    }
    return;
  }
  const CpuIsa want = v && *v ? std::min(cap, HardwareCpuIsa()) : HardwareCpuIsa();
  EXPECT_EQ(MaxCpuIsa(), want);
  EXPECT_EQ(CpuIsaAtLeast(CpuIsa::kAvx2), want >= CpuIsa::kAvx2);
  EXPECT_TRUE(CpuIsaAtLeast(CpuIsa::kScalar));
}

}  // namespace
}  // namespace mxnet
