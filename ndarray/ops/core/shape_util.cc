#include "ndarray/ops/core/shape_util.h"

#include <algorithm>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/container/inlined_vector.h"

namespace mxnet::ops::shape_internal {
namespace {

using Vec = absl::InlinedVector<int64_t, 8>;

// Iterates the multi-index of `dims` from linear position `begin`, keeping two offsets.
struct OuterIter {
  const Vec& dims;
  const Vec& ds;
  const Vec& ss;
  Vec idx;
  int64_t d = 0, s = 0;
  OuterIter(const Vec& dims_, const Vec& ds_, const Vec& ss_, int64_t begin)
      : dims(dims_), ds(ds_), ss(ss_), idx(dims_.size(), 0) {
    for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
      idx[k] = begin % dims[k];
      begin /= dims[k];
      d += idx[k] * ds[k];
      s += idx[k] * ss[k];
    }
  }
  void Next() {
    for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
      if (++idx[k] < dims[k]) {
        d += ds[k];
        s += ss[k];
        return;
      }
      d -= (dims[k] - 1) * ds[k];
      s -= (dims[k] - 1) * ss[k];
      idx[k] = 0;
    }
  }
};

// One tile of a transpose: dst[a * dsj + c] = src[a + c * ssi] for a in [a0, a1), c in [c0, c1).
template <typename E>
inline void TransposeTile(E* dst, const E* src, int64_t dsj, int64_t ssi, int64_t a0, int64_t a1,
                          int64_t c0, int64_t c1) {
  int64_t a = a0;
#if defined(__SSE2__)
  if constexpr (sizeof(E) == 4) {
    // 4x4 blocks through SSE registers: four loads along a, a 4x4 shuffle, four stores along c.
    for (; a + 4 <= a1; a += 4) {
      int64_t c = c0;
      for (; c + 4 <= c1; c += 4) {
        const float* s = reinterpret_cast<const float*>(src + a + c * ssi);
        __m128 r0 = _mm_loadu_ps(s), r1 = _mm_loadu_ps(s + ssi), r2 = _mm_loadu_ps(s + 2 * ssi),
               r3 = _mm_loadu_ps(s + 3 * ssi);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        float* d = reinterpret_cast<float*>(dst + a * dsj + c);
        _mm_storeu_ps(d, r0);
        _mm_storeu_ps(d + dsj, r1);
        _mm_storeu_ps(d + 2 * dsj, r2);
        _mm_storeu_ps(d + 3 * dsj, r3);
      }
      for (; c < c1; ++c)
        for (int64_t k = 0; k < 4; ++k) dst[(a + k) * dsj + c] = src[a + k + c * ssi];
    }
  }
#endif
  for (; a < a1; ++a) {
    E* drow = dst + a * dsj;
    const E* scol = src + a;
    for (int64_t c = c0; c < c1; ++c) drow[c] = scol[c * ssi];
  }
}

template <typename E>
void CopyTyped(E* dst, const E* src, const Vec& dims, const Vec& ds, const Vec& ss) {
  const int n = static_cast<int>(dims.size());
  const int inner = n - 1;
  const int64_t len = dims[inner], dsi = ds[inner], ssi = ss[inner];
  // Outer dims (all but the innermost).
  Vec odims(dims.begin(), dims.end() - 1), ods(ds.begin(), ds.end() - 1),
      oss(ss.begin(), ss.end() - 1);
  int64_t outer = 1;
  for (int64_t x : odims) outer *= x;

  // Case 1: contiguous runs on both sides.
  if (dsi == 1 && ssi == 1) {
    int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, len * sizeof(E)));
    ParallelForRange(outer, grain, [&](int64_t b, int64_t e) {
      OuterIter it(odims, ods, oss, b);
      for (int64_t i = b; i < e; ++i, it.Next())
        std::memcpy(dst + it.d, src + it.s, len * sizeof(E));
    });
    return;
  }

  // Case 2: a transpose: dst contiguous along `inner`, src contiguous along another dim j.
  int j = -1;
  if (dsi == 1)
    for (int k = n - 2; k >= 0; --k)
      if (ss[k] == 1) {
        j = k;
        break;
      }
  if (j >= 0 && len >= 4 && dims[j] >= 4) {
    constexpr int64_t kTile = 64;
    const int64_t lj = dims[j], dsj = ds[j];
    Vec rdims, rds, rss;  // the dims other than j and inner
    for (int k = 0; k < n - 1; ++k)
      if (k != j) rdims.push_back(dims[k]), rds.push_back(ds[k]), rss.push_back(ss[k]);
    int64_t rest = 1;
    for (int64_t x : rdims) rest *= x;
    const int64_t tj = (lj + kTile - 1) / kTile, ti = (len + kTile - 1) / kTile;
    const int64_t total = rest * tj * ti;
    ParallelForRange(total, 4, [&](int64_t b, int64_t e) {
      for (int64_t t = b; t < e; ++t) {
        int64_t r = t / (tj * ti), tt = t % (tj * ti);
        int64_t bj = (tt / ti) * kTile, bi = (tt % ti) * kTile;
        OuterIter it(rdims, rds, rss, r);
        TransposeTile(dst + it.d, src + it.s, dsj, ssi, bj, std::min(lj, bj + kTile), bi,
                      std::min(len, bi + kTile));
      }
    });
    return;
  }

  // Case 3: general strided loop.
  int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, len));
  ParallelForRange(outer, grain, [&](int64_t b, int64_t e) {
    OuterIter it(odims, ods, oss, b);
    for (int64_t i = b; i < e; ++i, it.Next()) {
      E* dp = dst + it.d;
      const E* sp = src + it.s;
      for (int64_t c = 0; c < len; ++c) dp[c * dsi] = sp[c * ssi];
    }
  });
}

}  // namespace

std::vector<int64_t> Strides(const Shape& s) {
  std::vector<int64_t> st(s.ndim());
  int64_t acc = 1;
  for (int i = s.ndim() - 1; i >= 0; --i) {
    st[i] = acc;
    acc *= s[i];
  }
  return st;
}

void StridedCopy(void* dst, const void* src, size_t esize, std::span<const int64_t> dims,
                 std::span<const int64_t> dst_strides, std::span<const int64_t> src_strides) {
  MX_CHECK(dims.size() == dst_strides.size() && dims.size() == src_strides.size());
  Vec d, ds, ss;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 0) return;
    if (dims[k] == 1) continue;
    // Merge with the previous (outer) dim when both sides are contiguous across the boundary.
    if (!d.empty() && ds.back() == dst_strides[k] * dims[k] &&
        ss.back() == src_strides[k] * dims[k]) {
      d.back() *= dims[k];
      ds.back() = dst_strides[k];
      ss.back() = src_strides[k];
      continue;
    }
    d.push_back(dims[k]);
    ds.push_back(dst_strides[k]);
    ss.push_back(src_strides[k]);
  }
  if (d.empty()) {
    std::memcpy(dst, src, esize);
    return;
  }
  switch (esize) {
    case 1:
      CopyTyped(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), d, ds, ss);
      break;
    case 2:
      CopyTyped(static_cast<uint16_t*>(dst), static_cast<const uint16_t*>(src), d, ds, ss);
      break;
    case 4:
      CopyTyped(static_cast<uint32_t*>(dst), static_cast<const uint32_t*>(src), d, ds, ss);
      break;
    case 8:
      CopyTyped(static_cast<uint64_t*>(dst), static_cast<const uint64_t*>(src), d, ds, ss);
      break;
    default:
      MX_CHECK(false, "StridedCopy: element size ", esize);
  }
}

void FillValue(void* dst, DType t, int64_t n, double value) {
  std::vector<int64_t> dims{n}, ds{1}, ss{0};
  FillStrided(dst, t, value, dims, ds);
}

void FillStrided(void* dst, DType t, double value, std::span<const int64_t> dims,
                 std::span<const int64_t> dst_strides) {
  alignas(8) unsigned char one[8];
  ConvertElements(&value, DType::kFloat64, one, t, 1);
  std::vector<int64_t> zeros(dims.size(), 0);
  StridedCopy(dst, one, DTypeSize(t), dims, dst_strides, zeros);
}

int CheckAxis(const OpAttrs& a, int64_t axis, int ndim, std::string_view what, const Shape& shape) {
  if (axis < -ndim || axis >= ndim)
    Fail(a, what, " ", axis, " is out of range for input shape ", shape.ToString(), " (ndim ", ndim,
         ")");
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

}  // namespace mxnet::ops::shape_internal
