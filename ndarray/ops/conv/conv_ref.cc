// Reference kernels of the conv op family: direct loops over the definitions, written for
// clarity. Both layouts are handled by strides (channels-first NC[D][H]W or channels-last
// N[D][H]WC; the weight follows the layout: (O, I, k...) or (O, k..., I)).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ndarray/kernel_util.h"
#include "ndarray/ops/conv/conv_kernels.h"

namespace mxnet::ops {
namespace {

// Element strides of an (N, C, S0, S1, S2) activation (spatial dims padded with 1s).
struct ActStrides {
  int64_t n, c, sp[3];
  ActStrides(int64_t C, const std::array<int64_t, 3>& sz, bool channels_last) {
    int64_t S = sz[0] * sz[1] * sz[2];
    int64_t inner = channels_last ? C : 1;
    sp[2] = inner;
    sp[1] = sz[2] * inner;
    sp[0] = sz[1] * sz[2] * inner;
    c = channels_last ? 1 : S;
    n = C * S;
  }
  int64_t At(int64_t in, int64_t ic, int64_t i0, int64_t i1, int64_t i2) const {
    return in * n + ic * c + i0 * sp[0] + i1 * sp[1] + i2 * sp[2];
  }
};

// Element strides of an (O, I, k0, k1, k2) weight in the layout of the op.
struct WStrides {
  int64_t o, i, sp[3];
  WStrides(int64_t I, const std::array<int64_t, 3>& k, bool channels_last) {
    int64_t K = k[0] * k[1] * k[2];
    int64_t inner = channels_last ? I : 1;
    sp[2] = inner;
    sp[1] = k[2] * inner;
    sp[0] = k[1] * k[2] * inner;
    i = channels_last ? 1 : K;
    o = I * K;
  }
  int64_t At(int64_t io, int64_t ii, int64_t k0, int64_t k1, int64_t k2) const {
    return io * o + ii * i + k0 * sp[0] + k1 * sp[1] + k2 * sp[2];
  }
};

template <typename T>
const T* Ptr(const NDArray& a) {
  return static_cast<const T*>(a.data_ptr());
}
template <typename T>
T* MutPtr(const NDArray& a) {
  return static_cast<T*>(a.data_ptr());
}

// Input position of output position o and kernel tap k along one dim, or -1 outside [0, n).
inline int64_t InPos(int64_t o, int64_t k, int64_t s, int64_t d, int64_t p, int64_t n) {
  int64_t i = o * s + k * d - p;
  return i >= 0 && i < n ? i : -1;
}

template <typename T>
void ConvForwardT(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y) {
  using A = AccType<T>;
  const int64_t cg = g.CX / g.G, fg = g.CY / g.G;
  ActStrides xs(g.CX, g.xs, g.channels_last), ys(g.CY, g.ys, g.channels_last);
  WStrides ws(cg, g.k, g.channels_last);
  ParallelFor(
      g.N * g.CY,
      [&](int64_t nf) {
        const int64_t n = nf / g.CY, f = nf % g.CY, c0 = (f / fg) * cg;
        for (int64_t o0 = 0; o0 < g.ys[0]; ++o0)
          for (int64_t o1 = 0; o1 < g.ys[1]; ++o1)
            for (int64_t o2 = 0; o2 < g.ys[2]; ++o2) {
              A acc = bias ? static_cast<A>(bias[f]) : A(0);
              for (int64_t c = 0; c < cg; ++c)
                for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
                  int64_t i0 = InPos(o0, k0, g.s[0], g.d[0], g.p[0], g.xs[0]);
                  if (i0 < 0) continue;
                  for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
                    int64_t i1 = InPos(o1, k1, g.s[1], g.d[1], g.p[1], g.xs[1]);
                    if (i1 < 0) continue;
                    for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
                      int64_t i2 = InPos(o2, k2, g.s[2], g.d[2], g.p[2], g.xs[2]);
                      if (i2 < 0) continue;
                      acc += static_cast<A>(x[xs.At(n, c0 + c, i0, i1, i2)]) *
                             static_cast<A>(w[ws.At(f, c, k0, k1, k2)]);
                    }
                  }
                }
              y[ys.At(n, f, o0, o1, o2)] = static_cast<T>(acc);
            }
      },
      1);
}

template <typename T>
void ConvBackwardDataT(const ConvGeom& g, const T* dy, const T* w, const T* bias, T* dx) {
  using A = AccType<T>;
  const int64_t cg = g.CX / g.G, fg = g.CY / g.G;
  ActStrides xs(g.CX, g.xs, g.channels_last), ys(g.CY, g.ys, g.channels_last);
  WStrides ws(cg, g.k, g.channels_last);
  // The output position feeding input position i through tap k, or -1.
  auto out_pos = [](int64_t i, int64_t k, int64_t s, int64_t d, int64_t p, int64_t n) -> int64_t {
    int64_t t = i + p - k * d;
    if (t < 0 || t % s != 0) return -1;
    return t / s < n ? t / s : -1;
  };
  ParallelFor(
      g.N * g.CX,
      [&](int64_t nc) {
        const int64_t n = nc / g.CX, c = nc % g.CX, grp = c / cg, cl = c % cg;
        for (int64_t i0 = 0; i0 < g.xs[0]; ++i0)
          for (int64_t i1 = 0; i1 < g.xs[1]; ++i1)
            for (int64_t i2 = 0; i2 < g.xs[2]; ++i2) {
              A acc = bias ? static_cast<A>(bias[c]) : A(0);
              for (int64_t fl = 0; fl < fg; ++fl) {
                const int64_t f = grp * fg + fl;
                for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
                  int64_t o0 = out_pos(i0, k0, g.s[0], g.d[0], g.p[0], g.ys[0]);
                  if (o0 < 0) continue;
                  for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
                    int64_t o1 = out_pos(i1, k1, g.s[1], g.d[1], g.p[1], g.ys[1]);
                    if (o1 < 0) continue;
                    for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
                      int64_t o2 = out_pos(i2, k2, g.s[2], g.d[2], g.p[2], g.ys[2]);
                      if (o2 < 0) continue;
                      acc += static_cast<A>(dy[ys.At(n, f, o0, o1, o2)]) *
                             static_cast<A>(w[ws.At(f, cl, k0, k1, k2)]);
                    }
                  }
                }
              }
              dx[xs.At(n, c, i0, i1, i2)] = static_cast<T>(acc);
            }
      },
      1);
}

template <typename T>
void ConvBackwardWeightT(const ConvGeom& g, const T* dy, const T* x, T* dw) {
  using A = AccType<T>;
  const int64_t cg = g.CX / g.G, fg = g.CY / g.G;
  ActStrides xs(g.CX, g.xs, g.channels_last), ys(g.CY, g.ys, g.channels_last);
  WStrides ws(cg, g.k, g.channels_last);
  ParallelFor(
      g.CY * cg,
      [&](int64_t fc) {
        const int64_t f = fc / cg, cl = fc % cg, c = (f / fg) * cg + cl;
        for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
          for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
            for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
              A acc = 0;
              for (int64_t n = 0; n < g.N; ++n)
                for (int64_t o0 = 0; o0 < g.ys[0]; ++o0) {
                  int64_t i0 = InPos(o0, k0, g.s[0], g.d[0], g.p[0], g.xs[0]);
                  if (i0 < 0) continue;
                  for (int64_t o1 = 0; o1 < g.ys[1]; ++o1) {
                    int64_t i1 = InPos(o1, k1, g.s[1], g.d[1], g.p[1], g.xs[1]);
                    if (i1 < 0) continue;
                    for (int64_t o2 = 0; o2 < g.ys[2]; ++o2) {
                      int64_t i2 = InPos(o2, k2, g.s[2], g.d[2], g.p[2], g.xs[2]);
                      if (i2 < 0) continue;
                      acc += static_cast<A>(dy[ys.At(n, f, o0, o1, o2)]) *
                             static_cast<A>(x[xs.At(n, c, i0, i1, i2)]);
                    }
                  }
                }
              dw[ws.At(f, cl, k0, k1, k2)] = static_cast<T>(acc);
            }
      },
      1);
}

// ---- Fully connected. ----
template <typename T>
void FcForwardT(int64_t M, int64_t K, int64_t H, const T* x, const T* w, const T* b, T* y) {
  using A = AccType<T>;
  ParallelFor(
      M * H,
      [&](int64_t mh) {
        const int64_t m = mh / H, h = mh % H;
        A acc = b ? static_cast<A>(b[h]) : A(0);
        for (int64_t k = 0; k < K; ++k)
          acc += static_cast<A>(x[m * K + k]) * static_cast<A>(w[h * K + k]);
        y[mh] = static_cast<T>(acc);
      },
      64);
}

template <typename T>
void FcBackwardDataT(int64_t M, int64_t K, int64_t H, const T* dy, const T* w, T* dx) {
  using A = AccType<T>;
  ParallelFor(
      M * K,
      [&](int64_t mk) {
        const int64_t m = mk / K, k = mk % K;
        A acc = 0;
        for (int64_t h = 0; h < H; ++h)
          acc += static_cast<A>(dy[m * H + h]) * static_cast<A>(w[h * K + k]);
        dx[mk] = static_cast<T>(acc);
      },
      64);
}

template <typename T>
void FcBackwardWeightT(int64_t M, int64_t K, int64_t H, const T* dy, const T* x, T* dw) {
  using A = AccType<T>;
  ParallelFor(
      H * K,
      [&](int64_t hk) {
        const int64_t h = hk / K, k = hk % K;
        A acc = 0;
        for (int64_t m = 0; m < M; ++m)
          acc += static_cast<A>(dy[m * H + h]) * static_cast<A>(x[m * K + k]);
        dw[hk] = static_cast<T>(acc);
      },
      64);
}

// ---- Pooling. ----

// One pooling window along the three (padded) spatial dims.
struct Window {
  int64_t begin[3], end[3];  // clipped to the input
  int64_t padded_size;       // avg with count_include_pad: clipped to the padded input
  int64_t size() const { return (end[0] - begin[0]) * (end[1] - begin[1]) * (end[2] - begin[2]); }
};

Window PoolWindow(const PoolGeom& g, int64_t o0, int64_t o1, int64_t o2, bool for_max) {
  Window w;
  const int64_t o[3] = {o0, o1, o2};
  w.padded_size = 1;
  for (int i = 0; i < 3; ++i) {
    int64_t start = o[i] * g.s[i] - g.p[i];
    // Max windows end at the input; sum/avg windows at the padded input (pool.h).
    int64_t end = std::min(start + g.k[i], for_max ? g.in[i] : g.in[i] + g.p[i]);
    w.padded_size *= end - start;
    w.begin[i] = std::max<int64_t>(start, 0);
    w.end[i] = std::min(end, g.in[i]);
  }
  return w;
}

template <typename A>
A PowP(A v, int p) {
  return p == 1 ? v : p == 2 ? v * v : v * v * v;
}
template <typename A>
A RootP(A v, int p) {
  return p == 1 ? v : p == 2 ? std::sqrt(v) : std::cbrt(v);
}

// Calls f(window, out_index, in_strides) for every output element of channel-plane (n, c).
template <typename F>
void ForEachWindow(const PoolGeom& g, bool for_max, F f) {
  ActStrides is(g.C, g.in, g.channels_last), os(g.C, g.out, g.channels_last);
  ParallelFor(
      g.N * g.C,
      [&](int64_t nc) {
        const int64_t n = nc / g.C, c = nc % g.C;
        for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
          for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
            for (int64_t o2 = 0; o2 < g.out[2]; ++o2) {
              Window w = PoolWindow(g, o0, o1, o2, for_max);
              f(w, os.At(n, c, o0, o1, o2),
                [&](int64_t i0, int64_t i1, int64_t i2) { return is.At(n, c, i0, i1, i2); });
            }
      },
      1);
}

template <typename T>
void PoolForwardT(const PoolGeom& g, PoolKind kind, bool include_pad, int pv, const T* x, T* y) {
  using A = AccType<T>;
  ForEachWindow(g, kind == PoolKind::kMax, [&](const Window& w, int64_t oi, auto in_index) {
    if (kind == PoolKind::kMax) {
      A m = std::numeric_limits<A>::lowest();
      for (int64_t i0 = w.begin[0]; i0 < w.end[0]; ++i0)
        for (int64_t i1 = w.begin[1]; i1 < w.end[1]; ++i1)
          for (int64_t i2 = w.begin[2]; i2 < w.end[2]; ++i2)
            m = std::max(m, static_cast<A>(x[in_index(i0, i1, i2)]));
      y[oi] = static_cast<T>(m);
      return;
    }
    const int p = kind == PoolKind::kLp ? pv : 1;
    A sum = 0;
    for (int64_t i0 = w.begin[0]; i0 < w.end[0]; ++i0)
      for (int64_t i1 = w.begin[1]; i1 < w.end[1]; ++i1)
        for (int64_t i2 = w.begin[2]; i2 < w.end[2]; ++i2)
          sum += PowP(static_cast<A>(x[in_index(i0, i1, i2)]), p);
    if (kind == PoolKind::kAvg) sum /= static_cast<A>(include_pad ? w.padded_size : w.size());
    y[oi] = static_cast<T>(RootP(sum, p));
  });
}

template <typename T>
void PoolBackwardT(const PoolGeom& g, PoolKind kind, bool include_pad, int pv, const T* dy,
                   const T* x, const T* y, T* dx) {
  using A = AccType<T>;
  // Windows overlap across output positions but never across (n, c) planes, which is what
  // ForEachWindow parallelizes over; accumulate into a zeroed dx.
  std::fill(dx, dx + g.N * g.C * g.in[0] * g.in[1] * g.in[2], T(0));
  ForEachWindow(g, kind == PoolKind::kMax, [&](const Window& w, int64_t oi, auto in_index) {
    const A go = static_cast<A>(dy[oi]);
    if (kind == PoolKind::kMax) {
      const A yo = static_cast<A>(y[oi]);
      for (int64_t i0 = w.begin[0]; i0 < w.end[0]; ++i0)
        for (int64_t i1 = w.begin[1]; i1 < w.end[1]; ++i1)
          for (int64_t i2 = w.begin[2]; i2 < w.end[2]; ++i2) {
            int64_t ii = in_index(i0, i1, i2);
            if (static_cast<A>(x[ii]) == yo) {
              dx[ii] = static_cast<T>(static_cast<A>(dx[ii]) + go);
              return;
            }
          }
      return;
    }
    A scale = 1;
    if (kind == PoolKind::kAvg)
      scale = A(1) / static_cast<A>(include_pad ? w.padded_size : w.size());
    const A yo = static_cast<A>(y[oi]);
    for (int64_t i0 = w.begin[0]; i0 < w.end[0]; ++i0)
      for (int64_t i1 = w.begin[1]; i1 < w.end[1]; ++i1)
        for (int64_t i2 = w.begin[2]; i2 < w.end[2]; ++i2) {
          int64_t ii = in_index(i0, i1, i2);
          A gi = go * scale;
          if (kind == PoolKind::kLp && pv > 1) {
            A r = static_cast<A>(x[ii]) / yo;
            gi = yo == A(0) ? A(0) : go * (pv == 2 ? r : r * r);
          }
          dx[ii] = static_cast<T>(static_cast<A>(dx[ii]) + gi);
        }
  });
}

template <typename T>
void PoolMaxGatherT(const PoolGeom& g, const T* grad, const T* x, const T* y, T* out) {
  using A = AccType<T>;
  ForEachWindow(g, true, [&](const Window& w, int64_t oi, auto in_index) {
    const A yo = static_cast<A>(y[oi]);
    out[oi] = T(0);
    for (int64_t i0 = w.begin[0]; i0 < w.end[0]; ++i0)
      for (int64_t i1 = w.begin[1]; i1 < w.end[1]; ++i1)
        for (int64_t i2 = w.begin[2]; i2 < w.end[2]; ++i2) {
          int64_t ii = in_index(i0, i1, i2);
          if (static_cast<A>(x[ii]) == yo) {
            out[oi] = grad[ii];
            return;
          }
        }
  });
}

}  // namespace

void ConvForwardRef(std::string_view op, const ConvGeom& g, const NDArray& x, const NDArray& w,
                    const NDArray* bias, const NDArray& y) {
  MX_FLOAT_TYPE_SWITCH(x.dtype(), T, op, {
    ConvForwardT<T>(g, Ptr<T>(x), Ptr<T>(w), bias ? Ptr<T>(*bias) : nullptr, MutPtr<T>(y));
  });
}

void ConvBackwardDataRef(std::string_view op, const ConvGeom& g, const NDArray& dy,
                         const NDArray& w, const NDArray* bias, const NDArray& dx) {
  MX_FLOAT_TYPE_SWITCH(dy.dtype(), T, op, {
    ConvBackwardDataT<T>(g, Ptr<T>(dy), Ptr<T>(w), bias ? Ptr<T>(*bias) : nullptr, MutPtr<T>(dx));
  });
}

void ConvBackwardWeightRef(std::string_view op, const ConvGeom& g, const NDArray& dy,
                           const NDArray& x, const NDArray& dw) {
  MX_FLOAT_TYPE_SWITCH(dy.dtype(), T, op,
                       { ConvBackwardWeightT<T>(g, Ptr<T>(dy), Ptr<T>(x), MutPtr<T>(dw)); });
}

void FcForwardRef(std::string_view op, int64_t M, int64_t K, int64_t H, const NDArray& x,
                  const NDArray& w, const NDArray* bias, const NDArray& y) {
  MX_FLOAT_TYPE_SWITCH(x.dtype(), T, op, {
    FcForwardT<T>(M, K, H, Ptr<T>(x), Ptr<T>(w), bias ? Ptr<T>(*bias) : nullptr, MutPtr<T>(y));
  });
}

void FcBackwardDataRef(std::string_view op, int64_t M, int64_t K, int64_t H, const NDArray& dy,
                       const NDArray& w, const NDArray& dx) {
  MX_FLOAT_TYPE_SWITCH(dy.dtype(), T, op,
                       { FcBackwardDataT<T>(M, K, H, Ptr<T>(dy), Ptr<T>(w), MutPtr<T>(dx)); });
}

void FcBackwardWeightRef(std::string_view op, int64_t M, int64_t K, int64_t H, const NDArray& dy,
                         const NDArray& x, const NDArray& dw) {
  MX_FLOAT_TYPE_SWITCH(dy.dtype(), T, op,
                       { FcBackwardWeightT<T>(M, K, H, Ptr<T>(dy), Ptr<T>(x), MutPtr<T>(dw)); });
}

void PoolForwardRef(std::string_view op, const PoolGeom& g, PoolKind kind, bool count_include_pad,
                    int p_value, const NDArray& x, const NDArray& y) {
  MX_FLOAT_TYPE_SWITCH(x.dtype(), T, op, {
    PoolForwardT<T>(g, kind, count_include_pad, p_value, Ptr<T>(x), MutPtr<T>(y));
  });
}

void PoolBackwardRef(std::string_view op, const PoolGeom& g, PoolKind kind, bool count_include_pad,
                     int p_value, const NDArray& dy, const NDArray& x, const NDArray& y,
                     const NDArray& dx) {
  MX_FLOAT_TYPE_SWITCH(dy.dtype(), T, op, {
    PoolBackwardT<T>(g, kind, count_include_pad, p_value, Ptr<T>(dy), Ptr<T>(x), Ptr<T>(y),
                     MutPtr<T>(dx));
  });
}

void PoolMaxGatherRef(std::string_view op, const PoolGeom& g, const NDArray& grad, const NDArray& x,
                      const NDArray& y, const NDArray& out) {
  MX_FLOAT_TYPE_SWITCH(grad.dtype(), T, op, {
    PoolMaxGatherT<T>(g, Ptr<T>(grad), Ptr<T>(x), Ptr<T>(y), MutPtr<T>(out));
  });
}

}  // namespace mxnet::ops
