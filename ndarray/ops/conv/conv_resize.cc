// Resampling and patch ops of the conv family (MXNet 1.9.1 src/operator/nn/im2col.cc,
// contrib/adaptive_avg_pooling.cc, contrib/bilinear_resize.cc, crop-inl.h):
//   im2col(data)   (N, C, spatial...) -> (N, C * prod(kernel), prod(out spatial)) sliding blocks
//   col2im(data)   the adjoint: sums blocks back into (N, C, output_size...)
//   _contrib_AdaptiveAvgPooling2D(data)          (N, C, H, W) -> (N, C, OH, OW) bin averages
//   _contrib_BilinearResize2D(data[, like])      (N, C, H, W) -> (N, C, OH, OW) bilinear
//   Crop(data[, crop_like])                      (N, C, H, W) -> (N, C, h, w) window
// with gradient helpers (each linear in ograd, so its own gradient is the forward op):
//   _backward_contrib_AdaptiveAvgPooling2D(ograd, data), _backward_contrib_BilinearResize2D(ograd,
//   data), _backward_Crop(ograd, data).
#include <algorithm>
#include <array>
#include <cmath>

#include "ndarray/grad.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ops/conv/conv_shape.h"
#include "ndarray/ops/conv/conv_spatial_params.h"

namespace mxnet::ops {
namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
using GV = GradValue;
using GVs = std::vector<GradValue>;

template <typename T>
const T* In(const NDArray& a) {
  return static_cast<const T*>(a.data_ptr());
}
template <typename T>
T* Out(const NDArray& a) {
  return static_cast<T*>(a.data_ptr());
}

void Check4D(std::string_view op, std::string_view name, const Shape& s) {
  if (s.ndim_known() && s.ndim() != 4)
    MX_THROW(kInvalid, op, ": ", name, " must be 4-D (N, C, H, W), got shape ", s.ToString());
}

// ---- im2col / col2im. ----

// Sliding-block geometry; spatial arrays hold the nd real dims first, then 1s.
struct Blocks {
  int nd = 0;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, d{1, 1, 1}, p{0, 0, 0};
  int64_t K() const { return k[0] * k[1] * k[2]; }
  int64_t L() const { return out[0] * out[1] * out[2]; }
  int64_t InSize() const { return in[0] * in[1] * in[2]; }
};

int64_t At(const Shape& t, int i, int64_t dflt) { return t.ndim() > i ? t[i] : dflt; }

// Geometry for image spatial dims `img` (entries may be -1: out is then -1). Throws when the
// dilated kernel exceeds a padded input.
Blocks MakeBlocks(std::string_view op, const Shape& kernel, const Shape& stride,
                  const Shape& dilate, const Shape& pad, std::span<const int64_t> img,
                  const Shape& shown) {
  Blocks g;
  g.nd = kernel.ndim();
  for (int i = 0; i < g.nd; ++i) {
    g.k[i] = kernel[i];
    g.s[i] = At(stride, i, 1);
    g.d[i] = At(dilate, i, 1);
    g.p[i] = At(pad, i, 0);
    g.in[i] = img[i];
    if (img[i] < 0) {
      g.out[i] = -1;
      continue;
    }
    const int64_t dk = (g.k[i] - 1) * g.d[i] + 1, padded = img[i] + 2 * g.p[i];
    if (dk > padded)
      MX_THROW(kInvalid, op, ": kernel=", kernel.ToString(), " (dilated ", dk, ") exceeds the ",
               padded, " padded input along spatial dim ", i, " (pad=", pad.ToString(), ", shape ",
               shown.ToString(), ")");
    g.out[i] = (padded - dk) / g.s[i] + 1;
  }
  return g;
}

// Calls f(col index within a channel's K*L block, image offset or -1 for padding) for every
// entry of one channel's columns.
template <typename F>
void ForEachColumn(const Blocks& g, F f) {
  const int64_t L = g.L();
  int64_t kidx = 0;
  for (int64_t k0 = 0; k0 < g.k[0]; ++k0)
    for (int64_t k1 = 0; k1 < g.k[1]; ++k1)
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2, ++kidx) {
        int64_t l = 0;
        for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
          const int64_t i0 = o0 * g.s[0] - g.p[0] + k0 * g.d[0];
          for (int64_t o1 = 0; o1 < g.out[1]; ++o1) {
            const int64_t i1 = o1 * g.s[1] - g.p[1] + k1 * g.d[1];
            for (int64_t o2 = 0; o2 < g.out[2]; ++o2, ++l) {
              const int64_t i2 = o2 * g.s[2] - g.p[2] + k2 * g.d[2];
              const bool inside =
                  i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 && i2 < g.in[2];
              f(kidx * L + l, inside ? (i0 * g.in[1] + i1) * g.in[2] + i2 : -1);
            }
          }
        }
      }
}

// Image (N*C planes) -> columns.
template <typename T>
void Im2col(const Blocks& g, int64_t NC, const T* x, T* col) {
  const int64_t plane = g.InSize(), block = g.K() * g.L();
  ParallelFor(
      NC,
      [&](int64_t nc) {
        const T* xp = x + nc * plane;
        T* cp = col + nc * block;
        ForEachColumn(g, [&](int64_t j, int64_t i) { cp[j] = i >= 0 ? xp[i] : T(0); });
      },
      1);
}

// Columns -> image, overlapping blocks summed.
template <typename T>
void Col2im(const Blocks& g, int64_t NC, const T* col, T* x) {
  using A = AccType<T>;
  const int64_t plane = g.InSize(), block = g.K() * g.L();
  ParallelFor(
      NC,
      [&](int64_t nc) {
        T* xp = x + nc * plane;
        const T* cp = col + nc * block;
        std::fill(xp, xp + plane, T(0));
        ForEachColumn(g, [&](int64_t j, int64_t i) {
          if (i >= 0) xp[i] = static_cast<T>(static_cast<A>(xp[i]) + static_cast<A>(cp[j]));
        });
      },
      1);
}

void Im2colShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "im2col";
  const auto& p = attrs.get<Im2colParam>();
  const Shape& d = (*in)[0];
  const int nd = p.kernel.ndim();
  if (!d.ndim_known()) return;
  if (d.ndim() != nd + 2)
    MX_THROW(kInvalid, op, ": data must be ", nd + 2,
             "-D (N, C, spatial...) for kernel=", p.kernel.ToString(), ", got shape ",
             d.ToString());
  std::vector<int64_t> img(d.begin() + 2, d.end());
  Blocks g = MakeBlocks(op, p.kernel, p.stride, p.dilate, p.pad, img, d);
  const int64_t L = std::find(img.begin(), img.end(), -1) != img.end() ? -1 : g.L();
  AssignShape(op, "output", &(*out)[0], Shape{d[0], d[1] >= 0 ? d[1] * g.K() : -1, L});
}

void Col2imShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "col2im";
  const auto& p = attrs.get<Col2imParam>();
  Shape& d = (*in)[0];
  if (d.ndim_known() && d.ndim() != 3)
    MX_THROW(kInvalid, op, ": data must be 3-D (N, C * prod(kernel), L), got shape ", d.ToString());
  std::vector<int64_t> img(p.output_size.begin(), p.output_size.end());
  Blocks g = MakeBlocks(op, p.kernel, p.stride, p.dilate, p.pad, img, p.output_size);
  AssignShape(op, "data", &d, Shape{-1, -1, g.L()},
              StrCat("(the number of blocks for output_size=", p.output_size.ToString(), ")"));
  if (d[1] >= 0 && d[1] % g.K() != 0)
    MX_THROW(kInvalid, op, ": data shape ", d.ToString(), ": dim 1 must be a multiple of ", g.K(),
             " (prod of kernel=", p.kernel.ToString(), ")");
  Shape o{d[0], d[1] >= 0 ? d[1] / g.K() : -1};
  for (int64_t v : p.output_size) o.push_back(v);
  AssignShape(op, "output", &(*out)[0], o);
}

void Im2colRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  const auto& p = attrs.get<Im2colParam>();
  const Shape& d = in[0].shape();
  std::vector<int64_t> img(d.begin() + 2, d.end());
  Blocks g = MakeBlocks("im2col", p.kernel, p.stride, p.dilate, p.pad, img, d);
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "im2col",
                       { Im2col<T>(g, d[0] * d[1], In<T>(in[0]), Out<T>(out[0])); });
}

void Col2imRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  const auto& p = attrs.get<Col2imParam>();
  const Shape& o = out[0].shape();
  std::vector<int64_t> img(p.output_size.begin(), p.output_size.end());
  Blocks g = MakeBlocks("col2im", p.kernel, p.stride, p.dilate, p.pad, img, p.output_size);
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "col2im",
                       { Col2im<T>(g, o[0] * o[1], In<T>(in[0]), Out<T>(out[0])); });
}

Im2colParam ToIm2col(const Col2imParam& p) {
  Im2colParam c;
  c.kernel = p.kernel;
  c.stride = p.stride;
  c.dilate = p.dilate;
  c.pad = p.pad;
  return c;
}

// ---- _contrib_AdaptiveAvgPooling2D. ----

std::pair<int64_t, int64_t> AdaptiveOut(const AdaptiveAvgPoolingParam& p) {
  if (p.output_size.ndim() == 0) return {1, 1};
  if (p.output_size.ndim() == 1) return {p.output_size[0], p.output_size[0]};
  return {p.output_size[0], p.output_size[1]};
}

// Bin o of `osize` over `isize` inputs: [floor(o*I/O), ceil((o+1)*I/O)) (MXNet's START_IND /
// END_IND, computed in float).
int64_t BinStart(int64_t o, int64_t osize, int64_t isize) {
  return static_cast<int64_t>(std::floor(static_cast<float>(o * isize) / osize));
}
int64_t BinEnd(int64_t o, int64_t osize, int64_t isize) {
  return static_cast<int64_t>(std::ceil(static_cast<float>((o + 1) * isize) / osize));
}

// Forward (backward=false: x -> y) or its adjoint (backward=true: dy -> dx, zeroed first).
template <typename T>
void AdaptivePool(bool backward, int64_t NC, int64_t H, int64_t W, int64_t OH, int64_t OW,
                  const T* src, T* dst) {
  using A = AccType<T>;
  ParallelFor(
      NC,
      [&](int64_t nc) {
        if (backward) std::fill(dst + nc * H * W, dst + (nc + 1) * H * W, T(0));
        for (int64_t oh = 0; oh < OH; ++oh) {
          const int64_t h0 = BinStart(oh, OH, H), h1 = BinEnd(oh, OH, H);
          for (int64_t ow = 0; ow < OW; ++ow) {
            const int64_t w0 = BinStart(ow, OW, W), w1 = BinEnd(ow, OW, W);
            const A cnt = static_cast<A>((h1 - h0) * (w1 - w0));
            if (!backward) {
              A sum = 0;
              for (int64_t h = h0; h < h1; ++h)
                for (int64_t w = w0; w < w1; ++w) sum += static_cast<A>(src[(nc * H + h) * W + w]);
              dst[(nc * OH + oh) * OW + ow] = static_cast<T>(sum / cnt);
            } else {
              const A g = static_cast<A>(src[(nc * OH + oh) * OW + ow]) / cnt;
              for (int64_t h = h0; h < h1; ++h)
                for (int64_t w = w0; w < w1; ++w) {
                  T& v = dst[(nc * H + h) * W + w];
                  v = static_cast<T>(static_cast<A>(v) + g);
                }
            }
          }
        }
      },
      1);
}

Shape AdaptiveShape(const AdaptiveAvgPoolingParam& p, const Shape& d) {
  auto [oh, ow] = AdaptiveOut(p);
  return Shape{d[0], d[1], oh, ow};
}

// ---- _contrib_BilinearResize2D. ----

bool IsLike(const BilinearResizeParam& p) { return p.mode == "like"; }

// Output (OH, OW) of MXNet's BilinearSampleOpInferShape; -1 where unknown.
std::pair<int64_t, int64_t> ResizeOut(const BilinearResizeParam& p, const Shape& d,
                                      const Shape* like) {
  const int64_t H = d[2], W = d[3];
  auto scaled = [](int64_t n, float s) {
    return n < 0 ? int64_t{-1} : static_cast<int64_t>(s * static_cast<float>(n));
  };
  auto odd_scaled = [](int64_t n, float s) -> int64_t {
    if (n < 0) return -1;
    return n % 2 == 0 ? static_cast<int64_t>(static_cast<float>(n) * s)
                      : static_cast<int64_t>(static_cast<float>(n - 1) * s) + 1;
  };
  auto adjust = [](int64_t n, int parity, int step) -> int64_t {
    return n < 0 ? -1 : (n % 2 == parity ? n : n + step);
  };
  const std::string& m = p.mode;
  if (m == "size") {
    if (p.scale_height) return {scaled(H, *p.scale_height), scaled(W, *p.scale_width)};
    return {p.height, p.width};
  }
  if (m == "odd_scale") return {odd_scaled(H, *p.scale_height), odd_scaled(W, *p.scale_width)};
  if (m == "like") {
    if (!like || !like->ndim_known()) return {-1, -1};
    return {(*like)[2], (*like)[3]};
  }
  if (m == "to_even_down") return {adjust(H, 0, -1), adjust(W, 0, -1)};
  if (m == "to_even_up") return {adjust(H, 0, 1), adjust(W, 0, 1)};
  if (m == "to_odd_down") return {adjust(H, 1, -1), adjust(W, 1, -1)};
  return {adjust(H, 1, 1), adjust(W, 1, 1)};  // to_odd_up
}

// MXNet's area_pixel_compute_scale / _source_index (in float, as MXNet).
float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  if (out <= 1) return 0.f;
  return align_corners ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                       : static_cast<float>(in) / static_cast<float>(out);
}
float SourceIndex(float scale, int64_t dst, bool align_corners) {
  if (align_corners) return scale * static_cast<float>(dst);
  const float src = scale * (static_cast<float>(dst) + 0.5f) - 0.5f;
  return src < 0 ? 0.f : src;
}

// Calls f(out index in plane, in index (low, low), step right (0/1), step down (0/W), weights
// h0, h1, w0, w1) for each output position of one plane.
template <typename A, typename F>
void ForEachResizeTap(int64_t H, int64_t W, int64_t OH, int64_t OW, bool ac, F f) {
  const float rh = ResizeScale(H, OH, ac), rw = ResizeScale(W, OW, ac);
  for (int64_t oh = 0; oh < OH; ++oh) {
    const float hr = SourceIndex(rh, oh, ac);
    const int64_t h = static_cast<int64_t>(hr);
    const int64_t hp = h < H - 1 ? W : 0;
    const A l1 = static_cast<A>(hr - static_cast<float>(h)), l0 = A(1) - l1;
    for (int64_t ow = 0; ow < OW; ++ow) {
      const float wr = SourceIndex(rw, ow, ac);
      const int64_t w = static_cast<int64_t>(wr);
      const int64_t wp = w < W - 1 ? 1 : 0;
      const A m1 = static_cast<A>(wr - static_cast<float>(w)), m0 = A(1) - m1;
      f(oh * OW + ow, h * W + w, wp, hp, l0, l1, m0, m1);
    }
  }
}

template <typename T>
void Resize(bool backward, bool ac, int64_t NC, int64_t H, int64_t W, int64_t OH, int64_t OW,
            const T* src, T* dst) {
  using A = AccType<T>;
  ParallelFor(
      NC,
      [&](int64_t nc) {
        if (!backward) {
          const T* x = src + nc * H * W;
          T* y = dst + nc * OH * OW;
          ForEachResizeTap<A>(
              H, W, OH, OW, ac,
              [&](int64_t o, int64_t i, int64_t wp, int64_t hp, A l0, A l1, A m0, A m1) {
                auto v = [&](int64_t k) { return static_cast<A>(x[k]); };
                y[o] = static_cast<T>(l0 * (m0 * v(i) + m1 * v(i + wp)) +
                                      l1 * (m0 * v(i + hp) + m1 * v(i + hp + wp)));
              });
          return;
        }
        const T* g = src + nc * OH * OW;
        T* dx = dst + nc * H * W;
        std::fill(dx, dx + H * W, T(0));
        ForEachResizeTap<A>(
            H, W, OH, OW, ac,
            [&](int64_t o, int64_t i, int64_t wp, int64_t hp, A l0, A l1, A m0, A m1) {
              const A gv = static_cast<A>(g[o]);
              auto add = [&](int64_t k, A w) {
                dx[k] = static_cast<T>(static_cast<A>(dx[k]) + w * gv);
              };
              add(i, l0 * m0);
              add(i + wp, l0 * m1);
              add(i + hp, l1 * m0);
              add(i + hp + wp, l1 * m1);
            });
      },
      1);
}

void ResizeShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "_contrib_BilinearResize2D";
  const auto& p = attrs.get<BilinearResizeParam>();
  const Shape& d = (*in)[0];
  Check4D(op, "data", d);
  if (IsLike(p)) Check4D(op, "like", (*in)[1]);
  if (!d.ndim_known()) return;
  auto [oh, ow] = ResizeOut(p, d, IsLike(p) ? &(*in)[1] : nullptr);
  if ((oh == 0 || ow == 0) || oh < -1 || ow < -1)
    MX_THROW(kInvalid, op, ": output size (", oh, ", ", ow, ") for data shape ", d.ToString(),
             " and mode='", p.mode, "' must be positive");
  AssignShape(op, "output", &(*out)[0], Shape{d[0], d[1], oh, ow});
}

// ---- Crop. ----

// Offset (y, x) of Crop's window of size (h, w) in data (H, W); throws if it does not fit.
std::pair<int64_t, int64_t> CropOffset(std::string_view op, const CropParam& p, const Shape& d,
                                       int64_t h, int64_t w) {
  if (h > d[2] || w > d[3])
    MX_THROW(kInvalid, op, ": crop size (", h, ", ", w, ") exceeds data shape ", d.ToString());
  if (p.center_crop) return {(d[2] - h) / 2, (d[3] - w) / 2};
  if (p.offset[0] > d[2] - h || p.offset[1] > d[3] - w)
    MX_THROW(kInvalid, op, ": offset=", p.offset.ToString(), " with crop size (", h, ", ", w,
             ") exceeds data shape ", d.ToString());
  return {p.offset[0], p.offset[1]};
}

void CropShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "Crop";
  const auto& p = attrs.get<CropParam>();
  const Shape& d = (*in)[0];
  Check4D(op, "arg0", d);
  int64_t h = p.h_w[0], w = p.h_w[1];
  if (p.num_args == 2) {
    const Shape& like = (*in)[1];
    if (like.ndim_known() && like.ndim() < 4)
      MX_THROW(kInvalid, op, ": crop_like (arg1) must be 4-D (N, C, h, w), got shape ",
               like.ToString());
    h = like.ndim_known() ? like[2] : -1;
    w = like.ndim_known() ? like[3] : -1;
  }
  if (!d.ndim_known()) return;
  if (h >= 0 && w >= 0 && d[2] >= 0 && d[3] >= 0) CropOffset(op, p, d, h, w);
  AssignShape(op, "output", &(*out)[0], Shape{d[0], d[1], h, w});
}

// Copies the window (forward) or writes ograd into a zeroed data-shaped array (backward).
template <typename T>
void CropCopy(bool backward, const Shape& d, int64_t h, int64_t w, int64_t y0, int64_t x0,
              const T* src, T* dst) {
  const int64_t H = d[2], W = d[3];
  if (backward) std::fill(dst, dst + d.Size(), T(0));
  ParallelFor(
      d[0] * d[1],
      [&](int64_t nc) {
        for (int64_t r = 0; r < h; ++r) {
          const int64_t big = (nc * H + y0 + r) * W + x0, small = (nc * h + r) * w;
          if (backward)
            std::copy(src + small, src + small + w, dst + big);
          else
            std::copy(src + big, src + big + w, dst + small);
        }
      },
      1);
}

// ---- Registrations. ----

MX_REGISTER_OP(im2col)
    .describe(
        "Extracts sliding blocks (MXNet's im2col): data (N, C, spatial...) -> (N, C * "
        "prod(kernel), L), L = prod over dims of (in + 2*pad - dilate*(kernel-1) - 1) / stride "
        "+ 1; row c*prod(kernel) + kernel offset (row-major) holds that kernel tap of every "
        "block (0 in the padding).")
    .set_params<Im2colParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(Im2colShape)
    .set_kernel(kRef, Im2colRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{b.CallP("_backward_im2col", {og[0], in[0]}, attrs.get<Im2colParam>())};
        },
        true, false);

MX_REGISTER_OP(_backward_im2col)
    .describe(
        "Gradient of im2col w.r.t. data from (ograd (N, C*prod(kernel), L), data): col2im of "
        "ograd to data's shape (data gives the image size).")
    .set_params<Im2colParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      ShapeVec fin{(*in)[1]}, fout{(*in)[0]};
      Im2colShape(attrs, &fin, &fout);
      AssignShape("_backward_im2col", "ograd", &(*in)[0], fout[0]);
      AssignShape("_backward_im2col", "output", &(*out)[0], (*in)[1]);
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = attrs.get<Im2colParam>();
                  const Shape& d = in[1].shape();
                  std::vector<int64_t> img(d.begin() + 2, d.end());
                  Blocks g =
                      MakeBlocks("_backward_im2col", p.kernel, p.stride, p.dilate, p.pad, img, d);
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_backward_im2col", {
                    Col2im<T>(g, d[0] * d[1], In<T>(in[0]), Out<T>(out[0]));
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{b.CallP("im2col", {og[0]}, attrs.get<Im2colParam>()), b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(col2im)
    .describe(
        "Combines sliding blocks into an image (MXNet's col2im), the adjoint of im2col: data "
        "(N, C*prod(kernel), L) -> (N, C, output_size...), overlapping taps summed.")
    .set_params<Col2imParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(Col2imShape)
    .set_kernel(kRef, Col2imRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV>, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{b.CallP("im2col", {og[0]}, ToIm2col(attrs.get<Col2imParam>()))};
        },
        false, false);

MX_REGISTER_OP(_contrib_AdaptiveAvgPooling2D)
    .describe(
        "Adaptive average pooling (MXNet's contrib.AdaptiveAvgPooling2D): data (N, C, H, W) -> "
        "(N, C, OH, OW) with output_size () = (1, 1), (s,) = (s, s) or (OH, OW); output (oh, ow) "
        "averages rows [floor(oh*H/OH), ceil((oh+1)*H/OH)) and the same for columns.")
    .set_params<AdaptiveAvgPoolingParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& d = (*in)[0];
      Check4D("_contrib_AdaptiveAvgPooling2D", "data", d);
      if (!d.ndim_known()) return;
      AssignShape("_contrib_AdaptiveAvgPooling2D", "output", &(*out)[0],
                  AdaptiveShape(attrs.get<AdaptiveAvgPoolingParam>(), d));
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& d = in[0].shape();
                  const Shape& o = out[0].shape();
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_contrib_AdaptiveAvgPooling2D", {
                    AdaptivePool<T>(false, d[0] * d[1], d[2], d[3], o[2], o[3], In<T>(in[0]),
                                    Out<T>(out[0]));
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{b.CallP("_backward_contrib_AdaptiveAvgPooling2D", {og[0], in[0]},
                             attrs.get<AdaptiveAvgPoolingParam>())};
        },
        true, false);

MX_REGISTER_OP(_backward_contrib_AdaptiveAvgPooling2D)
    .describe(
        "Gradient of _contrib_AdaptiveAvgPooling2D w.r.t. data from (ograd, data): each ograd "
        "spread evenly over its bin.")
    .set_params<AdaptiveAvgPoolingParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const char* op = "_backward_contrib_AdaptiveAvgPooling2D";
      const Shape& d = (*in)[1];
      Check4D(op, "data", d);
      if (!d.ndim_known()) return;
      AssignShape(op, "ograd", &(*in)[0], AdaptiveShape(attrs.get<AdaptiveAvgPoolingParam>(), d));
      AssignShape(op, "output", &(*out)[0], d);
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& d = in[1].shape();
                  const Shape& o = in[0].shape();
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_backward_contrib_AdaptiveAvgPooling2D", {
                    AdaptivePool<T>(true, d[0] * d[1], d[2], d[3], o[2], o[3], In<T>(in[0]),
                                    Out<T>(out[0]));
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{b.CallP("_contrib_AdaptiveAvgPooling2D", {og[0]},
                             attrs.get<AdaptiveAvgPoolingParam>()),
                     b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(_contrib_BilinearResize2D)
    .describe(
        "Bilinear resize (MXNet's contrib.BilinearResize2D) of data (N, C, H, W) to (N, C, OH, "
        "OW). mode 'size': (height, width), or (int(scale_height*H), int(scale_width*W)) when "
        "scale_height is set; 'like': the H, W of the second input; 'odd_scale', 'to_even_down', "
        "'to_even_up', 'to_odd_down', 'to_odd_up' as MXNet. align_corners=True maps corner "
        "pixel centers onto each other (scale (H-1)/(OH-1)); False scales H/OH about pixel "
        "centers (negative source indices clamp to 0).")
    .set_params<BilinearResizeParam>()
    .set_num_inputs([](const OpAttrs& a) { return IsLike(a.get<BilinearResizeParam>()) ? 2 : 1; })
    .set_input_names([](const OpAttrs& a) {
      return IsLike(a.get<BilinearResizeParam>()) ? std::vector<std::string>{"data", "like"}
                                                  : std::vector<std::string>{"data"};
    })
    .set_infer_shape(ResizeShape)
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& d = in[0].shape();
                  const Shape& o = out[0].shape();
                  const bool ac = attrs.get<BilinearResizeParam>().align_corners;
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_contrib_BilinearResize2D", {
                    Resize<T>(false, ac, d[0] * d[1], d[2], d[3], o[2], o[3], In<T>(in[0]),
                              Out<T>(out[0]));
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          const auto& p = attrs.get<BilinearResizeParam>();
          GVs g{b.CallP("_backward_contrib_BilinearResize2D", {og[0], in[0]}, p)};
          if (IsLike(p)) g.push_back(b.ZerosLike(in[1]));
          return g;
        },
        true, false);

MX_REGISTER_OP(_backward_contrib_BilinearResize2D)
    .describe(
        "Gradient of _contrib_BilinearResize2D w.r.t. data from (ograd, data): each ograd "
        "scattered to its four source pixels with the bilinear weights.")
    .set_params<BilinearResizeParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const char* op = "_backward_contrib_BilinearResize2D";
      Check4D(op, "ograd", (*in)[0]);
      Check4D(op, "data", (*in)[1]);
      const Shape& g = (*in)[0];
      const Shape& d = (*in)[1];
      if (g.ndim_known() && d.ndim_known())
        for (int i : {0, 1})
          if (g[i] >= 0 && d[i] >= 0 && g[i] != d[i])
            MX_THROW(kInvalid, op, ": ograd shape ", g.ToString(), " and data shape ", d.ToString(),
                     " differ in dim ", i);
      AssignShape(op, "output", &(*out)[0], d);
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& d = in[1].shape();
                  const Shape& o = in[0].shape();
                  const bool ac = attrs.get<BilinearResizeParam>().align_corners;
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_backward_contrib_BilinearResize2D", {
                    Resize<T>(true, ac, d[0] * d[1], d[2], d[3], o[2], o[3], In<T>(in[0]),
                              Out<T>(out[0]));
                  });
                })
    .set_gradient(
        // Linear in ograd: the adjoint is the forward resize to ograd's size ('like' ograd).
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          BilinearResizeParam p = attrs.get<BilinearResizeParam>();
          p.mode = "like";
          return GVs{b.CallP("_contrib_BilinearResize2D", {og[0], in[0]}, p), b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(Crop)
    .describe(
        "Crops a window of 4-D data (N, C, H, W) (MXNet's Crop): num_args=1 crops (h, w) = h_w, "
        "num_args=2 crops to the (h, w) of crop_like (N', C', h, w); the window starts at "
        "offset (y, x), or is centered ((H-h)/2, (W-w)/2 rounded down) with center_crop. "
        "crop_like gets no gradient.")
    .set_params<CropParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<CropParam>().num_args; })
    .set_input_names([](const OpAttrs& a) {
      return a.get<CropParam>().num_args == 2 ? std::vector<std::string>{"arg0", "arg1"}
                                              : std::vector<std::string>{"arg0"};
    })
    .set_infer_shape(CropShape)
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& d = in[0].shape();
                  const Shape& o = out[0].shape();
                  auto [y0, x0] = CropOffset("Crop", attrs.get<CropParam>(), d, o[2], o[3]);
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "Crop", {
                    CropCopy<T>(false, d, o[2], o[3], y0, x0, In<T>(in[0]), Out<T>(out[0]));
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          const auto& p = attrs.get<CropParam>();
          GVs g{b.CallP("_backward_Crop", {og[0], in[0]}, p)};
          if (p.num_args == 2) g.push_back(b.ZerosLike(in[1]));
          return g;
        },
        true, false);

MX_REGISTER_OP(_backward_Crop)
    .describe(
        "Gradient of Crop w.r.t. data from (ograd (N, C, h, w), data): zeros with ograd "
        "written at the crop window (offset or center_crop as Crop).")
    .set_params<CropParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const char* op = "_backward_Crop";
      Check4D(op, "ograd", (*in)[0]);
      Check4D(op, "data", (*in)[1]);
      const Shape& g = (*in)[0];
      const Shape& d = (*in)[1];
      if (g.is_known() && d.is_known()) CropOffset(op, attrs.get<CropParam>(), d, g[2], g[3]);
      AssignShape(op, "output", &(*out)[0], d);
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& d = in[1].shape();
                  const Shape& g = in[0].shape();
                  auto [y0, x0] =
                      CropOffset("_backward_Crop", attrs.get<CropParam>(), d, g[2], g[3]);
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_backward_Crop", {
                    CropCopy<T>(true, d, g[2], g[3], y0, x0, In<T>(in[0]), Out<T>(out[0]));
                  });
                })
    .set_gradient(
        // Linear in ograd: the adjoint crops the same window (crop_like = ograd).
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          CropParam p = attrs.get<CropParam>();
          p.num_args = 2;
          return GVs{b.CallP("Crop", {og[0], in[0]}, p), b.ZerosLike(in[1])};
        },
        true, false);

}  // namespace
}  // namespace mxnet::ops
