// Pooling and UpSampling (MXNet 1.9.1 src/operator/nn/pooling.cc, upsampling.cc) with their
// gradient helper ops:
//   _backward_Pooling(ograd, data, output)     -> d data (MXNet's inputs; max routes each ograd
//                                                 to the first window position equal to output)
//   _Pooling_max_gather(grad, data, output)    -> grad at each window's max position (the
//                                                 adjoint of max pooling's backward)
//   _backward_UpSampling(ograd, arg0, ...)     -> one gradient per input (nearest: block sums)
// Lp pooling's second-order gradient is composed from sum pooling and elementwise ops.
#include <algorithm>
#include <bit>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ndarray/grad.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ops/conv/conv_kernels.h"
#include "ndarray/ops/conv/conv_shape.h"

namespace mxnet::ops {
namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
constexpr KernelKey kOpt{DeviceType::kCPU, Backend::kOptimized};
using GV = GradValue;
using GVs = std::vector<GradValue>;

bool AllFloat32(std::span<const NDArray> in) {
  for (const auto& a : in)
    if (a.dtype() != DType::kFloat32 || a.size() == 0) return false;
  return true;
}

bool IncludePad(const PoolingParam& p) { return p.count_include_pad.value_or(true); }

// ---- Pooling. ----

bool PoolOptSupported(const OpAttrs& attrs, std::span<const NDArray> in) {
  if (!AllFloat32(in)) return false;
  const auto& p = attrs.get<PoolingParam>();
  PoolGeom g = PoolGeomFrom("Pooling", p, in[0].shape());
  return onednn::PoolSupported(g, GetPoolKind(p), IncludePad(p));
}

template <bool kOptimized>
void PoolingKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<PoolingParam>();
  PoolGeom g = PoolGeomFrom("Pooling", p, in[0].shape());
  const PoolKind kind = GetPoolKind(p);
  if (kOptimized && onednn::PoolForward(g, kind, IncludePad(p), in[0], out[0])) return;
  PoolForwardRef("Pooling", g, kind, IncludePad(p), p.p_value.value_or(1), in[0], out[0]);
}

// Max pooling backward of float32 channels-first 1-D/2-D data with windows that do not overlap
// (stride >= kernel, LeNet's 2x2/2), straight from (dy, x, y) with MXNet's routing: each ograd
// goes to the first window position whose value equals the output, as PoolBackwardRef. No
// forward recomputation and no workspace, unlike oneDNN's max pooling backward. Every window
// position is written once (the ograd or 0) without branches: the routing is data-dependent and
// a branch per window mispredicts on most windows. Returns false for overlapping windows.
template <int KH, int KW>
void MaxPoolBackwardRows(const PoolGeom& g, const float* X, const float* Y, const float* G,
                         float* D) {
  const int64_t H = g.in[0], W = g.in[1], OH = g.out[0], OW = g.out[1];
  const int64_t kh = KH > 0 ? KH : g.k[0], kw = KW > 0 ? KW : g.k[1];
  const int64_t sh = g.s[0], sw = g.s[1], ph = g.p[0], pw = g.p[1];
  const int64_t plane = H * W, oplane = OH * OW;
  // Input positions outside every window keep 0.
  const bool covered = ph == 0 && pw == 0 && sh == kh && sw == kw && OH * kh == H && OW * kw == W;
  ParallelForRange(
      g.N * g.C, std::max<int64_t>(1, 16384 / std::max<int64_t>(plane, 1)),
      [&](int64_t b, int64_t e) {
        for (int64_t nc = b; nc < e; ++nc) {
          const float* xp = X + nc * plane;
          float* dp = D + nc * plane;
          const float* yp = Y + nc * oplane;
          const float* gp = G + nc * oplane;
          if (!covered) std::fill(dp, dp + plane, 0.0f);
          for (int64_t oh = 0; oh < OH; ++oh) {
            const int64_t hs = oh * sh - ph;
            const int64_t h0 = std::max<int64_t>(hs, 0), h1 = std::min(hs + kh, H);
            const float* yr = yp + oh * OW;
            const float* gr = gp + oh * OW;
            if (pw == 0 && KH > 0 && KW > 0 && h1 - h0 == KH && (OW - 1) * sw + KW <= W) {
              // Whole windows along the row (the common case): fixed trip counts.
              int64_t ow = 0;
#if defined(__SSE2__)
              if constexpr (KH == 2 && KW == 2) {
                if (sw == 2) {
                  // Four windows at a time: deinterleave even/odd columns, route, interleave back.
                  const float* r0 = xp + h0 * W;
                  const float* r1 = r0 + W;
                  float* d0 = dp + h0 * W;
                  float* d1 = d0 + W;
                  for (; ow + 4 <= OW; ow += 4) {
                    const __m128 y4 = _mm_loadu_ps(yr + ow), g4 = _mm_loadu_ps(gr + ow);
                    const __m128 a0 = _mm_loadu_ps(r0 + 2 * ow), a1 = _mm_loadu_ps(r0 + 2 * ow + 4);
                    const __m128 b0 = _mm_loadu_ps(r1 + 2 * ow), b1 = _mm_loadu_ps(r1 + 2 * ow + 4);
                    const __m128 e00 = _mm_cmpeq_ps(_mm_shuffle_ps(a0, a1, 0x88), y4);
                    const __m128 e01 = _mm_cmpeq_ps(_mm_shuffle_ps(a0, a1, 0xDD), y4);
                    const __m128 e10 = _mm_cmpeq_ps(_mm_shuffle_ps(b0, b1, 0x88), y4);
                    const __m128 e11 = _mm_cmpeq_ps(_mm_shuffle_ps(b0, b1, 0xDD), y4);
                    __m128 found = e00;
                    const __m128 h01 = _mm_andnot_ps(found, e01);
                    found = _mm_or_ps(found, e01);
                    const __m128 h10 = _mm_andnot_ps(found, e10);
                    found = _mm_or_ps(found, e10);
                    const __m128 h11 = _mm_andnot_ps(found, e11);
                    const __m128 v00 = _mm_and_ps(e00, g4), v01 = _mm_and_ps(h01, g4);
                    const __m128 v10 = _mm_and_ps(h10, g4), v11 = _mm_and_ps(h11, g4);
                    _mm_storeu_ps(d0 + 2 * ow, _mm_unpacklo_ps(v00, v01));
                    _mm_storeu_ps(d0 + 2 * ow + 4, _mm_unpackhi_ps(v00, v01));
                    _mm_storeu_ps(d1 + 2 * ow, _mm_unpacklo_ps(v10, v11));
                    _mm_storeu_ps(d1 + 2 * ow + 4, _mm_unpackhi_ps(v10, v11));
                  }
                }
              }
#endif
              for (; ow < OW; ++ow) {
                const float yo = yr[ow];
                const uint32_t gbits = std::bit_cast<uint32_t>(gr[ow]);
                uint32_t found = 0;
                for (int dh = 0; dh < KH; ++dh)
                  for (int dw = 0; dw < KW; ++dw) {
                    const int64_t i = (h0 + dh) * W + ow * sw + dw;
                    const uint32_t eq = 0u - static_cast<uint32_t>(xp[i] == yo);
                    dp[i] = std::bit_cast<float>(gbits & eq & ~found);
                    found |= eq;
                  }
              }
              continue;
            }
            for (int64_t ow = 0; ow < OW; ++ow) {
              const int64_t ws = ow * sw - pw;
              const int64_t w0 = std::max<int64_t>(ws, 0), w1 = std::min(ws + kw, W);
              const float yo = yr[ow];
              const uint32_t gbits = std::bit_cast<uint32_t>(gr[ow]);
              uint32_t found = 0;
              for (int64_t h = h0; h < h1; ++h)
                for (int64_t w = w0; w < w1; ++w) {
                  const uint32_t eq = 0u - static_cast<uint32_t>(xp[h * W + w] == yo);
                  dp[h * W + w] = std::bit_cast<float>(gbits & eq & ~found);
                  found |= eq;
                }
            }
          }
        }
      });
}

bool MaxPoolBackwardFast(const PoolGeom& g, const NDArray& dy, const NDArray& x, const NDArray& y,
                         const NDArray& dx) {
  if (g.channels_last || g.nd > 2 || g.s[0] < g.k[0] || g.s[1] < g.k[1]) return false;
  const float* X = static_cast<const float*>(x.data_ptr());
  const float* Y = static_cast<const float*>(y.data_ptr());
  const float* G = static_cast<const float*>(dy.data_ptr());
  float* D = static_cast<float*>(dx.data_ptr());
  if (g.k[0] == 2 && g.k[1] == 2)
    MaxPoolBackwardRows<2, 2>(g, X, Y, G, D);
  else if (g.k[0] == 3 && g.k[1] == 3)
    MaxPoolBackwardRows<3, 3>(g, X, Y, G, D);
  else
    MaxPoolBackwardRows<0, 0>(g, X, Y, G, D);
  return true;
}

template <bool kOptimized>
void PoolingBwdKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const char* op = "_backward_Pooling";
  const auto& p = attrs.get<PoolingParam>();
  PoolGeom g = PoolGeomFrom(op, p, in[1].shape());
  const PoolKind kind = GetPoolKind(p);
  if (kOptimized && kind == PoolKind::kMax && MaxPoolBackwardFast(g, in[0], in[1], in[2], out[0]))
    return;
  if (kOptimized && onednn::PoolBackward(g, kind, IncludePad(p), in[0], in[1], out[0])) return;
  PoolBackwardRef(op, g, kind, IncludePad(p), p.p_value.value_or(1), in[0], in[1], in[2], out[0]);
}

// (x-shaped grad, data, output) or (ograd, data, output): data decides the other shapes.
FInferShape PoolHelperShape(const char* op, bool output_like_data) {
  return [op, output_like_data](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
    const Shape& data = (*in)[1];
    if (!data.ndim_known()) return;
    Shape pooled = PoolingOutputShape(op, attrs.get<PoolingParam>(), data);
    AssignShape(op, output_like_data ? "ograd" : "grad", &(*in)[0],
                output_like_data ? pooled : data);
    AssignShape(op, "output", &(*in)[2], pooled);
    AssignShape(op, "result", &(*out)[0], output_like_data ? data : pooled);
  };
}

PoolingParam AsSum(PoolingParam p) {
  p.pool_type = "sum";
  p.p_value.reset();
  return p;
}

// Pooling's gradient: _backward_Pooling (MXNet's rules for every pool_type).
GVs PoolingGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in,
                std::span<const GV> out, std::span<const GV> og) {
  return {b.CallP("_backward_Pooling", {og[0], in[0], out[0]}, attrs.get<PoolingParam>())};
}

// Gradient of _backward_Pooling(dy, x, y) = dx.
GVs PoolingBwdGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in,
                   std::span<const GV>, std::span<const GV> og) {
  const auto& p = attrs.get<PoolingParam>();
  const GV g = og[0], dy = in[0], x = in[1], y = in[2];
  PoolKind kind = GetPoolKind(p);
  if (kind == PoolKind::kMax)  // dx is linear in dy with a piecewise-constant routing
    return {b.CallP("_Pooling_max_gather", {g, x, y}, p), b.ZerosLike(x), b.ZerosLike(y)};
  const int pv = p.p_value.value_or(1);
  if (kind != PoolKind::kLp || pv == 1)  // the adjoint of a linear spread is the pooling itself
    return {b.CallP("Pooling", {g}, p), b.ZerosLike(x), b.ZerosLike(y)};
  // Lp, a = p - 1: dx = x^a * S^T(dy / y^a) with S = sum pooling (where y != 0).
  const PoolingParam sum = AsSum(p);
  const double a = pv - 1;
  GV xa = pv == 2 ? x : b.Mul(x, x);
  GV ya = pv == 2 ? y : b.Mul(y, y);
  GV s_gxa = b.CallP("Pooling", {b.Mul(g, xa)}, sum);  // S(g * x^a)
  GV d_dy = b.Div(s_gxa, ya);
  GV st = b.CallP("_backward_Pooling", {b.Div(dy, ya), x, y}, sum);  // S^T(dy / y^a)
  GV xa1 = pv == 2 ? b.OnesLike(x) : x;                              // x^(a-1)
  GV d_x = b.MulScalar(b.Mul(b.Mul(xa1, g), st), a);
  GV d_y = b.MulScalar(b.Mul(b.Div(dy, b.Mul(ya, y)), s_gxa), -a);
  return {d_dy, d_x, d_y};
}

MX_REGISTER_OP(Pooling)
    .describe(
        "Performs pooling on the input (MXNet's Pooling): max, avg, sum or lp over 1-D, 2-D "
        "or 3-D windows of data (N, C, [D,] [H,] W) or channels-last (N, [D,] [H,] W, C); "
        "output size per dim 1 + (in + 2*pad - kernel) / stride rounded down ('valid') or up "
        "('full'), or ceil(in / stride) ('same', 1-D); global_pool pools each whole plane.")
    .set_params<PoolingParam>()
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].ndim_known()) return;
      AssignShape("Pooling", "output", &(*out)[0],
                  PoolingOutputShape("Pooling", attrs.get<PoolingParam>(), (*in)[0]));
    })
    .set_kernel(kRef, PoolingKernel<false>)
    .set_kernel(kOpt, PoolingKernel<true>, PoolOptSupported)
    .set_gradient(PoolingGrad, true, true);

MX_REGISTER_OP(_backward_Pooling)
    .describe("Gradient of Pooling with respect to data, from ograd, data and Pooling's output.")
    .set_params<PoolingParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "data", "output"})
    .set_infer_shape(PoolHelperShape("_backward_Pooling", true))
    .set_kernel(kRef, PoolingBwdKernel<false>)
    .set_kernel(kOpt, PoolingBwdKernel<true>,
                [](const OpAttrs& attrs, std::span<const NDArray> in) {
                  return PoolOptSupported(attrs, in.subspan(1, 1)) && AllFloat32(in);
                })
    .set_gradient(PoolingBwdGrad, true, false);

MX_REGISTER_OP(_Pooling_max_gather)
    .describe(
        "For each max-pooling window, the value of grad (shaped like data) at the first "
        "position where data equals output: the adjoint of max pooling's backward.")
    .set_params<PoolingParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"grad", "data", "output"})
    .set_infer_shape(PoolHelperShape("_Pooling_max_gather", false))
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const char* op = "_Pooling_max_gather";
                  PoolGeom g = PoolGeomFrom(op, attrs.get<PoolingParam>(), in[1].shape());
                  PoolMaxGatherRef(op, g, in[0], in[1], in[2], out[0]);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          PoolingParam p = attrs.get<PoolingParam>();
          p.pool_type = "max";
          return GVs{b.CallP("_backward_Pooling", {og[0], in[1], in[2]}, p), b.ZerosLike(in[1]),
                     b.ZerosLike(in[2])};
        },
        true, false);

// ---- UpSampling. ----

bool IsNearest(const UpSamplingParam& p) { return p.sample_type == "nearest"; }

int UpNumInputs(const OpAttrs& a) {
  const auto& p = a.get<UpSamplingParam>();
  return IsNearest(p) ? p.num_args : 2;
}

std::vector<std::string> UpInputNames(const OpAttrs& a) {
  const auto& p = a.get<UpSamplingParam>();
  if (!IsNearest(p)) return {"data", "weight"};
  std::vector<std::string> names;
  for (int i = 0; i < p.num_args; ++i) names.push_back(StrCat("arg", i));
  return names;
}

void Check4D(std::string_view op, std::string_view name, const Shape& s) {
  if (s.ndim_known() && s.ndim() != 4)
    MX_THROW(kInvalid, op, ": ", name, " must be 4-D (N, C, H, W), got shape ", s.ToString());
}

// Output shape of nearest UpSampling; -1 where unknown.
Shape NearestOutShape(std::string_view op, const UpSamplingParam& p, std::span<const Shape> in) {
  for (size_t i = 0; i < in.size(); ++i) Check4D(op, StrCat("arg", i), in[i]);
  const Shape& d0 = in[0];
  if (!d0.ndim_known()) return Shape::Unknown();
  const int64_t oh = d0[2] >= 0 ? d0[2] * p.scale : -1, ow = d0[3] >= 0 ? d0[3] * p.scale : -1;
  int64_t channels = p.multi_input_mode == "sum" ? -1 : 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const Shape& s = in[i];
    if (!s.ndim_known()) {
      if (p.multi_input_mode != "sum") channels = -1;
      continue;
    }
    if (s[0] >= 0 && d0[0] >= 0 && s[0] != d0[0])
      MX_THROW(kInvalid, op, ": arg", i, " shape ", s.ToString(), " has batch size ", s[0],
               ", arg0 shape ", d0.ToString(), " has ", d0[0]);
    for (int a : {2, 3}) {
      int64_t o = a == 2 ? oh : ow;
      if (o >= 0 && s[a] > 0 && o % s[a] != 0)
        MX_THROW(kInvalid, op, ": arg", i, " shape ", s.ToString(), ": ",
                 a == 2 ? "height " : "width ", s[a], " does not divide the output ",
                 a == 2 ? "height " : "width ", o, " (arg0 shape ", d0.ToString(), " x scale ",
                 p.scale, ")");
    }
    if (p.multi_input_mode == "sum") {
      if (channels >= 0 && s[1] >= 0 && channels != s[1])
        MX_THROW(kInvalid, op, ": multi_input_mode='sum' needs equal channels, got ", channels,
                 " and ", s[1], " (arg", i, " shape ", s.ToString(), ")");
      if (s[1] >= 0) channels = s[1];
    } else if (channels >= 0) {
      channels = s[1] >= 0 ? channels + s[1] : -1;
    }
  }
  return Shape{d0[0], channels, oh, ow};
}

void UpSamplingShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "UpSampling";
  const auto& p = attrs.get<UpSamplingParam>();
  if (IsNearest(p)) {
    AssignShape(op, "output", &(*out)[0],
                NearestOutShape(op, p, std::span<const Shape>(in->data(), in->size())));
    return;
  }
  const Shape& d = (*in)[0];
  Check4D(op, "data", d);
  if (!d.ndim_known()) return;
  if (d[1] >= 0 && d[1] != p.num_filter)
    MX_THROW(kInvalid, op,
             ": sample_type='bilinear' needs num_filter equal to the data channels, "
             "got num_filter=",
             p.num_filter, " for data shape ", d.ToString());
  const int64_t k = 2 * p.scale - p.scale % 2;
  AssignShape(op, "weight", &(*in)[1], Shape{p.num_filter, 1, k, k},
              "(channels, 1, 2*scale - scale%2, same)");
  AssignShape(
      op, "output", &(*out)[0],
      Shape{d[0], p.num_filter, d[2] >= 0 ? d[2] * p.scale : -1, d[3] >= 0 ? d[3] * p.scale : -1});
}

// Calls f(input index, channel offset in the output, scale) for each input of nearest UpSampling.
template <typename F>
void ForEachUpInput(const UpSamplingParam& p, std::span<const NDArray> inputs, const Shape& out,
                    F f) {
  int64_t offset = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = inputs[i].shape();
    f(i, offset, out[2] / s[2], out[3] / s[3]);
    if (p.multi_input_mode != "sum") offset += s[1];
  }
}

void UpSamplingNearestRef(const UpSamplingParam& p, std::span<const NDArray> in,
                          const NDArray& out) {
  const Shape& os = out.shape();
  const int64_t N = os[0], OC = os[1], OH = os[2], OW = os[3];
  MX_FLOAT_TYPE_SWITCH(out.dtype(), T, "UpSampling", {
    using A = AccType<T>;
    T* y = static_cast<T*>(out.data_ptr());
    std::fill(y, y + out.size(), T(0));
    ForEachUpInput(p, in, os, [&](size_t i, int64_t off, int64_t sh, int64_t sw) {
      const Shape& s = in[i].shape();
      const T* x = static_cast<const T*>(in[i].data_ptr());
      const int64_t C = s[1], H = s[2], W = s[3];
      ParallelFor(
          N * C,
          [&](int64_t nc) {
            const int64_t n = nc / C, c = nc % C;
            for (int64_t oh = 0; oh < OH; ++oh)
              for (int64_t ow = 0; ow < OW; ++ow) {
                T& dst = y[((n * OC + off + c) * OH + oh) * OW + ow];
                dst = static_cast<T>(static_cast<A>(dst) +
                                     static_cast<A>(x[((n * C + c) * H + oh / sh) * W + ow / sw]));
              }
          },
          1);
    });
  });
}

// d arg_i[n, c, h, w] = sum of ograd over the (sh, sw) block that copied it.
void UpSamplingNearestBwdRef(const UpSamplingParam& p, const NDArray& dy,
                             std::span<const NDArray> args, std::span<const NDArray> dx) {
  const Shape& os = dy.shape();
  const int64_t OC = os[1], OH = os[2], OW = os[3];
  MX_FLOAT_TYPE_SWITCH(dy.dtype(), T, "_backward_UpSampling", {
    using A = AccType<T>;
    const T* g = static_cast<const T*>(dy.data_ptr());
    ForEachUpInput(p, args, os, [&](size_t i, int64_t off, int64_t sh, int64_t sw) {
      const Shape& s = args[i].shape();
      T* d = static_cast<T*>(dx[i].data_ptr());
      const int64_t C = s[1], H = s[2], W = s[3];
      ParallelFor(
          s[0] * C,
          [&](int64_t nc) {
            const int64_t n = nc / C, c = nc % C;
            for (int64_t h = 0; h < H; ++h)
              for (int64_t w = 0; w < W; ++w) {
                A acc = 0;
                for (int64_t a = 0; a < sh; ++a)
                  for (int64_t bb = 0; bb < sw; ++bb)
                    acc += static_cast<A>(
                        g[((n * OC + off + c) * OH + h * sh + a) * OW + w * sw + bb]);
                d[((n * C + c) * H + h) * W + w] = static_cast<T>(acc);
              }
          },
          1);
    });
  });
}

template <bool kOptimized>
void UpSamplingKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const auto& p = attrs.get<UpSamplingParam>();
  if (IsNearest(p)) return UpSamplingNearestRef(p, in, out[0]);
  ConvGeom g = ConvGeomFromDeconv("UpSampling", BilinearDeconvParam(p), in[0].shape());
  if (kOptimized && onednn::ConvBackwardData(g, in[0], in[1], nullptr, out[0])) return;
  ConvBackwardDataRef("UpSampling", g, in[0], in[1], nullptr, out[0]);
}

MX_REGISTER_OP(UpSampling)
    .describe(
        "Upsamples 4-D (N, C, H, W) inputs by an integer scale (MXNet's UpSampling): "
        "'nearest' repeats each pixel scale x scale times (several inputs are upsampled to "
        "(scale*H0, scale*W0) and concatenated along channels or summed); 'bilinear' is "
        "Deconvolution with the given weight (C, 1, 2s - s%2, 2s - s%2), stride s, "
        "pad ceil((s-1)/2), num_group C.")
    .set_params<UpSamplingParam>()
    .set_num_inputs(UpNumInputs)
    .set_input_names(UpInputNames)
    .set_infer_shape(UpSamplingShape)
    .set_kernel(kRef, UpSamplingKernel<false>)
    .set_kernel(kOpt, UpSamplingKernel<true>,
                [](const OpAttrs& attrs, std::span<const NDArray> in) {
                  return !IsNearest(attrs.get<UpSamplingParam>()) && AllFloat32(in);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          const auto& p = attrs.get<UpSamplingParam>();
          if (!IsNearest(p)) {
            DeconvolutionParam q = BilinearDeconvParam(p);
            return GVs{b.CallP("_backward_Deconvolution_data", {og[0], in[1], in[0]}, q),
                       b.CallP("_backward_Deconvolution_weight", {og[0], in[0]}, q)};
          }
          const Op& op = OpRegistry::Get("_backward_UpSampling");
          GVs args{og[0]};
          args.insert(args.end(), in.begin(), in.end());
          return b.Apply(op, OpAttrs::From(op, p), args);
        },
        true, false);

MX_REGISTER_OP(_backward_UpSampling)
    .describe(
        "Gradient of nearest UpSampling: for each input argI, the sums of ograd over the "
        "blocks that copied its pixels (inputs: ograd, arg0, ...; the args give the shapes).")
    .set_params<UpSamplingParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<UpSamplingParam>().num_args + 1; })
    .set_num_outputs([](const OpAttrs& a) { return a.get<UpSamplingParam>().num_args; })
    .set_input_names([](const OpAttrs& a) {
      std::vector<std::string> names{"ograd"};
      for (int i = 0; i < a.get<UpSamplingParam>().num_args; ++i) names.push_back(StrCat("arg", i));
      return names;
    })
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const char* op = "_backward_UpSampling";
      const auto& p = attrs.get<UpSamplingParam>();
      if (!IsNearest(p))
        MX_THROW(kInvalid, op,
                 ": only sample_type='nearest' (bilinear differentiates through "
                 "Deconvolution's gradient ops)");
      std::span<const Shape> args(in->data() + 1, in->size() - 1);
      AssignShape(op, "ograd", &(*in)[0], NearestOutShape(op, p, args));
      for (size_t i = 0; i < out->size(); ++i) AssignShape(op, "output", &(*out)[i], (*in)[i + 1]);
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  UpSamplingNearestBwdRef(attrs.get<UpSamplingParam>(), in[0], in.subspan(1), out);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          const Op& up = OpRegistry::Get("UpSampling");
          GVs g{b.Apply(up, OpAttrs::From(up, attrs.get<UpSamplingParam>()), og)[0]};
          for (size_t i = 1; i < in.size(); ++i) g.push_back(b.ZerosLike(in[i]));
          return g;
        },
        true, false);

}  // namespace
}  // namespace mxnet::ops
