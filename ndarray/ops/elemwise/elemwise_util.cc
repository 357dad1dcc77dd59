// Non-template parts of the elemwise kernel helpers: broadcasting shapes/plans, scalar-op dtype
// rules, and special functions (erfinv, digamma, trigamma).
#include "ndarray/ops/elemwise/elemwise_util.h"

#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <numbers>

#include "base/cpu_isa.h"
#include "ndarray/ops/core/basic_util.h"

namespace mxnet::ops::ew {

// ---- Special functions. ----

// Inverse error function: Winitzki's closed-form estimate (relative error ~2e-3), then Newton
// steps on erf(x) - y, which converge quadratically to double precision.
double ErfInvD(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1) return std::numeric_limits<double>::infinity();
  if (y == -1) return -std::numeric_limits<double>::infinity();
  if (y == 0) return y;
  constexpr double a = 0.147;
  const double pi = std::numbers::pi;
  double l = std::log((1 - y) * (1 + y));
  double t = 2 / (pi * a) + l / 2;
  double x = std::copysign(std::sqrt(std::sqrt(t * t - l / a) - t), y);
  const double k = 2 / std::sqrt(pi);
  for (int it = 0; it < 4; ++it) {
    double d = k * std::exp(-x * x);
    if (d == 0) break;
    double step = (std::erf(x) - y) / d;
    x -= step;
    if (std::fabs(step) <= 1e-17 * std::fabs(x)) break;
  }
  return x;
}

// psi(x) = d/dx log Gamma(x): reflection for x < 0, recurrence up to x >= 10, then the
// asymptotic series log x - 1/(2x) - sum B_2k / (2k x^2k).
double DigammaD(double x) {
  if (std::isnan(x)) return x;
  if (x <= 0 && std::floor(x) == x) return std::numeric_limits<double>::quiet_NaN();
  if (x < 0) return DigammaD(1 - x) - std::numbers::pi / std::tan(std::numbers::pi * x);
  double acc = 0;
  while (x < 10) {
    acc -= 1 / x;
    x += 1;
  }
  double f = 1 / (x * x);
  double series =
      f *
      (1.0 / 12 -
       f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132 - f * (691.0 / 32760))))));
  return acc + std::log(x) - 0.5 / x - series;
}

// psi'(x): reflection psi'(1-x) + psi'(x) = pi^2 / sin^2(pi x), recurrence, asymptotic series.
double TrigammaD(double x) {
  if (std::isnan(x)) return x;
  if (x <= 0 && std::floor(x) == x) return std::numeric_limits<double>::quiet_NaN();
  if (x < 0) {
    double s = std::sin(std::numbers::pi * x);
    return std::numbers::pi * std::numbers::pi / (s * s) - TrigammaD(1 - x);
  }
  double acc = 0;
  while (x < 10) {
    acc += 1 / (x * x);
    x += 1;
  }
  double f = 1 / (x * x);
  double series =
      1 / x + f / 2 +
      f / x *
          (1.0 / 6 -
           f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30 - f * (5.0 / 66 - f * (691.0 / 2730))))));
  return acc + series;
}

// ---- Broadcasting. ----
Shape BroadcastShapes(std::string_view op, const Shape& a, const Shape& b) {
  if (!a.ndim_known() || !b.ndim_known()) return Shape::Unknown();
  int n = std::max(a.ndim(), b.ndim());
  Shape out = Shape::Filled(n, Shape::kUnknownDim);
  for (int i = 0; i < n; ++i) {
    int ia = a.ndim() - n + i, ib = b.ndim() - n + i;
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    int64_t d;
    if (da < 0 || db < 0) {
      int64_t known = da < 0 ? db : da;
      d = known >= 0 && known != 1 ? known : Shape::kUnknownDim;
    } else if (da == db || db == 1) {
      d = da;
    } else if (da == 1) {
      d = db;
    } else {
      MX_THROW(absl::StatusCode::kInvalidArgument, op,
               ": operands could not be broadcast together with shapes ", a.ToString(), " and ",
               b.ToString());
    }
    out[i] = d;
  }
  return out;
}

void BroadcastBinaryShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  std::string_view op = attrs.op() ? std::string_view(attrs.op()->name) : "broadcast";
  Shape s = BroadcastShapes(op, (*in)[0], (*in)[1]);
  MergeShape(&s, (*out)[0], StrCat(op, ": output"));
  (*out)[0] = s;
}

absl::InlinedVector<int64_t, 6> BroadcastStrides(const Shape& in, const Shape& out) {
  int n = out.ndim(), m = in.ndim();
  absl::InlinedVector<int64_t, 6> s(n, 0);
  int64_t stride = 1;
  for (int i = m - 1; i >= 0; --i) {
    int o = n - m + i;
    s[o] = in[i] == 1 && out[o] != 1 ? 0 : stride;
    stride *= in[i];
  }
  return s;
}

BroadcastPlan::BroadcastPlan(const Shape& a, const Shape& b, const Shape& out) {
  auto fa = BroadcastStrides(a, out), fb = BroadcastStrides(b, out);
  for (int d = 0; d < out.ndim(); ++d) {
    int64_t n = out[d];
    if (n == 1) continue;  // contributes nothing to any index
    if (!dims.empty() && sa.back() == fa[d] * n && sb.back() == fb[d] * n) {
      // Merge into the previous axis: both inputs are contiguous (or both broadcast) across it.
      dims.back() *= n;
      sa.back() = fa[d];
      sb.back() = fb[d];
      continue;
    }
    dims.push_back(n);
    sa.push_back(fa[d]);
    sb.push_back(fb[d]);
  }
  if (dims.empty()) {  // every output axis has size 1
    dims.push_back(1);
    sa.push_back(0);
    sb.push_back(0);
  }
}

// ---- float16 conversion with F16C. ----
namespace {
__attribute__((target("avx,f16c"))) void FloatToHalfF16C(const float* x, uint16_t* y, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m128i h =
        _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y + i), h);
  }
  for (; i < n; ++i) y[i] = Half(x[i]).bits;
}
__attribute__((target("avx,f16c"))) void HalfToFloatF16C(const uint16_t* x, float* y, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i))));
  for (; i < n; ++i) y[i] = Half::ToFloat(x[i]);
}
// AVX and F16C (base/cpu_isa.h; MXNET_MAX_CPU_ISA=SSE41 tests the scalar conversion).
bool HasF16C() { return CpuIsaAtLeast(CpuIsa::kAvx); }
}  // namespace

bool FloatToHalf(const float* x, uint16_t* y, size_t n) {
  if (!HasF16C()) return false;
  FloatToHalfF16C(x, y, n);
  return true;
}

bool HalfToFloat(const uint16_t* x, float* y, size_t n) {
  if (!HasF16C()) return false;
  HalfToFloatF16C(x, y, n);
  return true;
}

}  // namespace mxnet::ops::ew
