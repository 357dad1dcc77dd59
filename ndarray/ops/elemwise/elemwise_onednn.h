// oneDNN eltwise primitives for the transcendental unary ops of the elemwise family (float32):
// JIT-vectorized exp/tanh/logistic/sqrt are 8-35x faster than scalar libm calls. (oneDNN's log
// is only accurate to ~4e-6 absolute and flushes subnormal inputs, so log is not offered.)
// Used by the optimized unary kernels for large contiguous float32 arrays only.
#pragma once

#include <cstdint>

namespace mxnet::ops::ew::onednn {

enum class Eltwise { kExp, kTanh, kLogistic, kSqrt };

// Arrays at least this long go to oneDNN (below it, primitive lookup costs more than it saves).
inline constexpr int64_t kMinElements = 16384;

// y = alg(x) on n contiguous float32 elements. Primitives are cached by (alg, n). NaN inputs
// give NaN (oneDNN's exp returns inf for NaN; that is corrected, so exp needs x != y).
// Returns false when oneDNN cannot run it (the caller falls back to its own loop).
bool Run(Eltwise alg, const float* x, float* y, int64_t n);

}  // namespace mxnet::ops::ew::onednn
