// Instruction-set levels of the CPU for our own run-time dispatched kernels (the build targets
// baseline x86-64: -O2, no -march; AVX2/F16C code paths are chosen per call with these checks).
// Read once per process. The environment variable MXNET_MAX_CPU_ISA caps the level like oneDNN's
// ONEDNN_MAX_CPU_ISA caps oneDNN's kernels, so a machine with AVX-512 also tests the paths an
// older CPU takes; unset, it follows ONEDNN_MAX_CPU_ISA (then DNNL_MAX_CPU_ISA), so one variable
// caps both. Values (case-insensitive): SCALAR, SSE41, AVX, AVX2, AVX512_CORE, AVX512_CORE_VNNI,
// ALL, and oneDNN's other names (AVX2_VNNI -> AVX2, AVX512_CORE_BF16/AMX -> ALL).
#pragma once

#include <string_view>

namespace mxnet {

// Ordered levels; each includes the ones before it.
enum class CpuIsa {
  kScalar = 0,      // baseline x86-64 (SSE2), or not x86-64
  kSse41,           // + SSE4.1, SSE4.2
  kAvx,             // + AVX, F16C
  kAvx2,            // + AVX2, FMA
  kAvx512Core,      // + AVX-512 F, BW, DQ, VL
  kAvx512CoreVnni,  // + AVX-512 VNNI
};

// The CPU's level, not capped.
CpuIsa HardwareCpuIsa();
// The level kernels may use: the CPU's, at most the cap. Throws kInvalidArgument (naming the
// variable and the accepted values) when MXNET_MAX_CPU_ISA holds an unknown name; unknown values
// of the oneDNN variables are ignored, as oneDNN does.
CpuIsa MaxCpuIsa();
inline bool CpuIsaAtLeast(CpuIsa isa) { return MaxCpuIsa() >= isa; }
// "SCALAR", "SSE41", "AVX", "AVX2", "AVX512_CORE", "AVX512_CORE_VNNI".
const char* CpuIsaName(CpuIsa isa);
// A cap name as above; false when unknown.
bool ParseCpuIsa(std::string_view name, CpuIsa* isa);

}  // namespace mxnet
