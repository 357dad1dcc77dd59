#include "base/cpu_isa.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>

#include "base/error.h"
#include "base/strings.h"

namespace mxnet {
namespace {

constexpr const char* kNames[] = {"SCALAR", "SSE41",       "AVX",
                                  "AVX2",   "AVX512_CORE", "AVX512_CORE_VNNI"};

#if defined(__x86_64__) && defined(__GNUC__)
// F16C from CPUID leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports has no "f16c".
bool HasF16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & (1u << 29)) != 0;
}
#endif

CpuIsa Detect() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
#define MX_HAS(f) (__builtin_cpu_supports(f) != 0)
  if (!(MX_HAS("sse4.1") && MX_HAS("sse4.2"))) return CpuIsa::kScalar;
  if (!(MX_HAS("avx") && HasF16c())) return CpuIsa::kSse41;
  if (!(MX_HAS("avx2") && MX_HAS("fma"))) return CpuIsa::kAvx;
  if (!(MX_HAS("avx512f") && MX_HAS("avx512bw") && MX_HAS("avx512dq") && MX_HAS("avx512vl")))
    return CpuIsa::kAvx2;
  if (!MX_HAS("avx512vnni")) return CpuIsa::kAvx512Core;
#undef MX_HAS
  return CpuIsa::kAvx512CoreVnni;
#else
  return CpuIsa::kScalar;
#endif
}

// The cap from the environment; the hardware level when none.
CpuIsa Cap(CpuIsa hw) {
  if (const char* v = std::getenv("MXNET_MAX_CPU_ISA"); v && *v) {
    CpuIsa cap;
    if (!ParseCpuIsa(v, &cap))
      MX_THROW(absl::StatusCode::kInvalidArgument, "MXNET_MAX_CPU_ISA: unknown value '", v,
               "'; expected SCALAR, SSE41, AVX, AVX2, AVX512_CORE, AVX512_CORE_VNNI or ALL");
    return cap;
  }
  for (const char* var : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"}) {
    CpuIsa cap;
    if (const char* v = std::getenv(var); v && *v && ParseCpuIsa(v, &cap)) return cap;
  }
  return hw;
}

}  // namespace

CpuIsa HardwareCpuIsa() {
  static const CpuIsa hw = Detect();
  return hw;
}

CpuIsa MaxCpuIsa() {
  static const CpuIsa isa = [] {
    const CpuIsa hw = HardwareCpuIsa();
    return std::min(hw, Cap(hw));
  }();
  return isa;
}

const char* CpuIsaName(CpuIsa isa) { return kNames[static_cast<int>(isa)]; }

bool ParseCpuIsa(std::string_view name, CpuIsa* isa) {
  const std::string lower = AsciiToLower(name);
  for (int i = 0; i < 6; ++i)
    if (lower == AsciiToLower(kNames[i])) {
      *isa = static_cast<CpuIsa>(i);
      return true;
    }
  // oneDNN's other names, mapped to the level below them that ours has.
  static const std::pair<const char*, CpuIsa> kOneDnn[] = {
      {"AVX2_VNNI", CpuIsa::kAvx2},
      {"AVX512_MIC", CpuIsa::kAvx2},
      {"AVX512_MIC_4OPS", CpuIsa::kAvx2},
      {"AVX512_CORE_BF16", CpuIsa::kAvx512CoreVnni},
      {"AVX512_CORE_AMX", CpuIsa::kAvx512CoreVnni},
      {"ALL", CpuIsa::kAvx512CoreVnni}};
  for (const auto& [n, v] : kOneDnn)
    if (lower == AsciiToLower(n)) {
      *isa = v;
      return true;
    }
  return false;
}

}  // namespace mxnet
