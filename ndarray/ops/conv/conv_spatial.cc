// Spatial-transformer ops (MXNet 1.9.1 src/operator/grid_generator-inl.h, bilinear_sampler.cc,
// spatial_transformer.cc; Jaderberg et al., "Spatial Transformer Networks", NIPS 2015):
//   GridGenerator(data)            affine (N, 6) -> (N, 2, H, W) sampling grid in [-1, 1];
//                                  warp flow (N, 2, H, W) -> (N, 2, H, W) normalized grid
//   BilinearSampler(data, grid)    data (N, C, H, W) sampled at grid (N, 2, Ho, Wo) (x, y in
//                                  [-1, 1]; outside the image reads 0) -> (N, C, Ho, Wo)
//   SpatialTransformer(data, loc)  BilinearSampler(data, GridGenerator(loc, affine))
// with gradient helpers:
//   _backward_GridGenerator(ograd)                -> d data (linear in ograd)
//   _backward_BilinearSampler(ograd, data, grid)  -> (d data, d grid), MXNet's exact derivative
//                                                    of the piecewise bilinear interpolation
// Also the attribute validation of every op of conv_spatial_params.h.
#include <algorithm>
#include <cmath>

#include "ndarray/grad.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ops/conv/conv_shape.h"
#include "ndarray/ops/conv/conv_spatial_params.h"

namespace mxnet::ops {

// ---- Validation (all ops of conv_spatial_params.h). ----

namespace {

std::string CheckPositivePair(std::string_view name, const Shape& s) {
  if (s.ndim() != 2 || s[0] < 1 || s[1] < 1)
    return StrCat("attribute ", name, "=", s.ToString(), " must be two positive sizes (h, w)");
  return "";
}

std::string CheckSlidingTuples(const Shape& kernel, const Shape& stride, const Shape& dilate,
                               const Shape& pad) {
  if (kernel.ndim() < 1 || kernel.ndim() > 3)
    return StrCat("attribute kernel=", kernel.ToString(),
                  " must have 1, 2 or 3 entries ((w,), (h, w) or (d, h, w))");
  for (int64_t v : kernel)
    if (v < 1) return StrCat("attribute kernel=", kernel.ToString(), " must have entries >= 1");
  const std::pair<const char*, const Shape*> tuples[] = {
      {"stride", &stride}, {"dilate", &dilate}, {"pad", &pad}};
  for (const auto& [name, t] : tuples) {
    if (t->ndim() == 0) continue;
    if (t->ndim() != kernel.ndim())
      return StrCat("attribute ", name, "=", t->ToString(), " must have ", kernel.ndim(),
                    " entries like kernel=", kernel.ToString());
    const int64_t lo = std::string_view(name) == "pad" ? 0 : 1;
    for (int64_t v : *t)
      if (v < lo)
        return StrCat("attribute ", name, "=", t->ToString(), " must have entries >= ", lo);
  }
  return "";
}

}  // namespace

std::string GridGeneratorParam::Validate() const {
  if (target_shape.ndim() != 2)
    return StrCat("attribute target_shape=", target_shape.ToString(), " must be (H, W)");
  if (transform_type == "affine") return CheckPositivePair("target_shape", target_shape);
  return "";
}

std::string SpatialTransformerParam::Validate() const {
  return CheckPositivePair("target_shape", target_shape);
}

std::string ROIPoolingParam::Validate() const {
  std::string e = CheckPositivePair("pooled_size", pooled_size);
  if (e.empty() && !(spatial_scale > 0))
    e = StrCat("attribute spatial_scale=", PyFloatRepr(spatial_scale), " must be > 0");
  return e;
}

std::string ROIAlignParam::Validate() const {
  std::string e = CheckPositivePair("pooled_size", pooled_size);
  if (e.empty() && !(spatial_scale > 0))
    e = StrCat("attribute spatial_scale=", PyFloatRepr(spatial_scale), " must be > 0");
  return e;
}

std::string CropParam::Validate() const {
  if (num_args != 1 && num_args != 2)
    return StrCat("attribute num_args=", num_args, " must be 1 (data) or 2 (data, crop_like)");
  if (offset.ndim() != 2 || offset[0] < 0 || offset[1] < 0)
    return StrCat("attribute offset=", offset.ToString(), " must be two sizes >= 0 (y, x)");
  if (h_w.ndim() != 2) return StrCat("attribute h_w=", h_w.ToString(), " must be (h, w)");
  if (num_args == 1 && (h_w[0] < 1 || h_w[1] < 1))
    return StrCat("num_args=1 needs h_w with entries >= 1, got h_w=", h_w.ToString());
  return "";
}

std::string AdaptiveAvgPoolingParam::Validate() const {
  if (output_size.ndim() > 2)
    return StrCat("attribute output_size=", output_size.ToString(),
                  " must be (), (size,) or (height, width)");
  for (int64_t v : output_size)
    if (v < 1)
      return StrCat("attribute output_size=", output_size.ToString(), " must have entries >= 1");
  return "";
}

std::string BilinearResizeParam::Validate() const {
  if (height < 1) return StrCat("attribute height=", height, " must be >= 1");
  if (width < 1) return StrCat("attribute width=", width, " must be >= 1");
  if (mode == "odd_scale" && (!scale_height || !scale_width))
    return "mode='odd_scale' needs scale_height and scale_width";
  // MXNet 1.9.1 takes both scales once scale_height is given (its width branch tests
  // scale_height), so scale_height alone is an error.
  if (mode == "size" && scale_height && !scale_width)
    return "scale_height needs scale_width too (MXNet 1.9.1 reads both when scale_height is set)";
  for (const auto& s : {scale_height, scale_width})
    if (s && !(*s > 0)) return StrCat("scales must be > 0, got ", PyFloatRepr(*s));
  return "";
}

std::string Im2colParam::Validate() const {
  return CheckSlidingTuples(kernel, stride, dilate, pad);
}

std::string Col2imParam::Validate() const {
  std::string e = CheckSlidingTuples(kernel, stride, dilate, pad);
  if (!e.empty()) return e;
  if (output_size.ndim() != kernel.ndim())
    return StrCat("attribute output_size=", output_size.ToString(), " must have ", kernel.ndim(),
                  " entries like kernel=", kernel.ToString());
  for (int64_t v : output_size)
    if (v < 1)
      return StrCat("attribute output_size=", output_size.ToString(), " must have entries >= 1");
  return "";
}

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

void CheckRank(std::string_view op, std::string_view name, const Shape& s, int ndim,
               std::string_view layout) {
  if (s.ndim_known() && s.ndim() != ndim)
    MX_THROW(kInvalid, op, ": ", name, " must be ", ndim, "-D ", layout, ", got shape ",
             s.ToString());
}

// ---- GridGenerator. ----

bool IsAffine(const GridGeneratorParam& p) { return p.transform_type == "affine"; }

// Affine: data (N, 6) -> (N, 2, H, W). Warp: flow (N, 2, H, W) -> same shape.
Shape GridOutShape(std::string_view op, const GridGeneratorParam& p, const Shape& data) {
  if (IsAffine(p)) {
    CheckRank(op, "data", data, 2, "(N, 6) for transform_type='affine'");
    if (!data.ndim_known()) return Shape{-1, 2, p.target_shape[0], p.target_shape[1]};
    if (data[1] >= 0 && data[1] != 6)
      MX_THROW(kInvalid, op, ": transform_type='affine' needs data (N, 6), got shape ",
               data.ToString());
    return Shape{data[0], 2, p.target_shape[0], p.target_shape[1]};
  }
  CheckRank(op, "data", data, 4, "(N, 2, H, W) for transform_type='warp'");
  if (!data.ndim_known()) return Shape::Unknown();
  if (data[1] >= 0 && data[1] != 2)
    MX_THROW(kInvalid, op, ": transform_type='warp' needs a flow (N, 2, H, W), got shape ",
             data.ToString());
  return Shape{data[0], 2, data[2], data[3]};
}

// Normalized target coordinates of affine grids: x_w = -1 + w * 2/(W-1), y_h likewise
// (MXNet computes the step in double and rounds it to the dtype).
template <typename A>
A AffineStep(int64_t n) {
  return static_cast<A>(2.0 / static_cast<double>(n - 1));
}

template <typename T>
void GridGenerate(const GridGeneratorParam& p, const T* d, int64_t N, int64_t H, int64_t W, T* o) {
  using A = AccType<T>;
  if (IsAffine(p)) {
    const A sx = AffineStep<A>(W), sy = AffineStep<A>(H);
    ParallelFor(
        N,
        [&](int64_t n) {
          const T* t = d + n * 6;
          A a[6];
          for (int i = 0; i < 6; ++i) a[i] = static_cast<A>(t[i]);
          T* ox = o + n * 2 * H * W;
          T* oy = ox + H * W;
          for (int64_t h = 0; h < H; ++h) {
            const A y = A(-1) + static_cast<A>(h) * sy;
            for (int64_t w = 0; w < W; ++w) {
              const A x = A(-1) + static_cast<A>(w) * sx;
              ox[h * W + w] = static_cast<T>(a[0] * x + a[1] * y + a[2]);
              oy[h * W + w] = static_cast<T>(a[3] * x + a[4] * y + a[5]);
            }
          }
        },
        1);
    return;
  }
  const A hx = static_cast<A>((static_cast<double>(W) - 1.0) / 2.0);
  const A hy = static_cast<A>((static_cast<double>(H) - 1.0) / 2.0);
  ParallelFor(
      N,
      [&](int64_t n) {
        for (int64_t h = 0; h < H; ++h)
          for (int64_t w = 0; w < W; ++w) {
            const int64_t i = (n * 2 * H + h) * W + w, j = i + H * W;
            o[i] = static_cast<T>((static_cast<A>(d[i]) + static_cast<A>(w)) / hx - A(1));
            o[j] = static_cast<T>((static_cast<A>(d[j]) + static_cast<A>(h)) / hy - A(1));
          }
      },
      1);
}

void GridGeneratorRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const auto& p = attrs.get<GridGeneratorParam>();
  const Shape& os = out[0].shape();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "GridGenerator",
                       { GridGenerate<T>(p, In<T>(in[0]), os[0], os[2], os[3], Out<T>(out[0])); });
}

// d data from ograd (N, 2, H, W): affine sums ograd * (x, y, 1) per row of the 2x3 matrix; warp
// divides each channel by its half-size.
void GridGeneratorBwdRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                         std::span<const NDArray> out) {
  const auto& p = attrs.get<GridGeneratorParam>();
  const Shape& gs = in[0].shape();
  const int64_t N = gs[0], H = gs[2], W = gs[3];
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_backward_GridGenerator", {
    using A = AccType<T>;
    const T* g = In<T>(in[0]);
    T* d = Out<T>(out[0]);
    if (IsAffine(p)) {
      const A sx = AffineStep<A>(W), sy = AffineStep<A>(H);
      ParallelFor(
          N,
          [&](int64_t n) {
            for (int r = 0; r < 2; ++r) {
              const T* gr = g + (n * 2 + r) * H * W;
              A sum[3] = {0, 0, 0};
              for (int64_t h = 0; h < H; ++h) {
                const A y = A(-1) + static_cast<A>(h) * sy;
                for (int64_t w = 0; w < W; ++w) {
                  const A x = A(-1) + static_cast<A>(w) * sx, v = static_cast<A>(gr[h * W + w]);
                  sum[0] += v * x;
                  sum[1] += v * y;
                  sum[2] += v;
                }
              }
              for (int i = 0; i < 3; ++i) d[n * 6 + r * 3 + i] = static_cast<T>(sum[i]);
            }
          },
          1);
      return;
    }
    const A hx = static_cast<A>((static_cast<double>(W) - 1.0) / 2.0);
    const A hy = static_cast<A>((static_cast<double>(H) - 1.0) / 2.0);
    ParallelFor(N * 2 * H * W, [&](int64_t i) {
      const int64_t c = (i / (H * W)) % 2;
      d[i] = static_cast<T>(static_cast<A>(g[i]) / (c == 0 ? hx : hy));
    });
  });
}

// ---- Bilinear sampling (BilinearSampler, SpatialTransformer). ----

// MXNet's sampling: x = (gx + 1) * (W - 1) / 2, y likewise; the four neighbours of (x, y) with
// weights from the fractional parts; neighbours outside the image read 0.
template <typename T>
void BilinearSample(const T* data, const T* grid, int64_t N, int64_t C, int64_t H, int64_t W,
                    int64_t OH, int64_t OW, T* out) {
  using A = AccType<T>;
  ParallelFor(
      N * C,
      [&](int64_t nc) {
        const int64_t n = nc / C;
        const T* gx = grid + n * 2 * OH * OW;
        const T* gy = gx + OH * OW;
        const T* x = data + nc * H * W;
        T* y = out + nc * OH * OW;
        for (int64_t i = 0; i < OH * OW; ++i) {
          const A xr = (static_cast<A>(gx[i]) + A(1)) * static_cast<A>(W - 1) / A(2);
          const A yr = (static_cast<A>(gy[i]) + A(1)) * static_cast<A>(H - 1) / A(2);
          const int64_t x0 = static_cast<int64_t>(std::floor(xr));
          const int64_t y0 = static_cast<int64_t>(std::floor(yr));
          const A wx = A(1) - (xr - static_cast<A>(x0)), wy = A(1) - (yr - static_cast<A>(y0));
          auto at = [&](int64_t yy, int64_t xx) -> A {
            return yy >= 0 && yy < H && xx >= 0 && xx < W ? static_cast<A>(x[yy * W + xx]) : A(0);
          };
          y[i] = static_cast<T>(at(y0, x0) * wy * wx + at(y0, x0 + 1) * wy * (A(1) - wx) +
                                at(y0 + 1, x0) * (A(1) - wy) * wx +
                                at(y0 + 1, x0 + 1) * (A(1) - wy) * (A(1) - wx));
        }
      },
      1);
}

// d data (scattered bilinear weights) and d grid (the derivative of the interpolation in x and
// y, times (W-1)/2 and (H-1)/2), summed over channels. Either output may be null.
template <typename T>
void BilinearSampleBackward(const T* og, const T* data, const T* grid, int64_t N, int64_t C,
                            int64_t H, int64_t W, int64_t OH, int64_t OW, T* ddata, T* dgrid) {
  using A = AccType<T>;
  if (ddata) std::fill(ddata, ddata + N * C * H * W, T(0));
  ParallelFor(
      N,
      [&](int64_t n) {
        const T* gx = grid + n * 2 * OH * OW;
        const T* gy = gx + OH * OW;
        for (int64_t i = 0; i < OH * OW; ++i) {
          const A xr = (static_cast<A>(gx[i]) + A(1)) * static_cast<A>(W - 1) / A(2);
          const A yr = (static_cast<A>(gy[i]) + A(1)) * static_cast<A>(H - 1) / A(2);
          const int64_t x0 = static_cast<int64_t>(std::floor(xr));
          const int64_t y0 = static_cast<int64_t>(std::floor(yr));
          const A wx = A(1) - (xr - static_cast<A>(x0)), wy = A(1) - (yr - static_cast<A>(y0));
          const bool in_x0 = x0 >= 0 && x0 < W, in_x1 = x0 + 1 >= 0 && x0 + 1 < W;
          const bool in_y0 = y0 >= 0 && y0 < H, in_y1 = y0 + 1 >= 0 && y0 + 1 < H;
          A dwy = 0, dwx = 0;  // d out / d wy and d out / d wx, weighted by ograd
          for (int64_t c = 0; c < C; ++c) {
            const A g = static_cast<A>(og[((n * C + c) * OH * OW) + i]);
            const T* x = data + (n * C + c) * H * W;
            T* dx = ddata ? ddata + (n * C + c) * H * W : nullptr;
            A v00 = 0, v01 = 0, v10 = 0, v11 = 0;
            auto visit = [&](bool ok, int64_t yy, int64_t xx, A w, A* v) {
              if (!ok) return;
              *v = static_cast<A>(x[yy * W + xx]);
              if (dx) dx[yy * W + xx] = static_cast<T>(static_cast<A>(dx[yy * W + xx]) + g * w);
            };
            visit(in_y0 && in_x0, y0, x0, wy * wx, &v00);
            visit(in_y0 && in_x1, y0, x0 + 1, wy * (A(1) - wx), &v01);
            visit(in_y1 && in_x0, y0 + 1, x0, (A(1) - wy) * wx, &v10);
            visit(in_y1 && in_x1, y0 + 1, x0 + 1, (A(1) - wy) * (A(1) - wx), &v11);
            dwy += g * (v01 - v11 + (v00 - v01 - v10 + v11) * wx);
            dwx += g * (v10 - v11 + (v00 - v01 - v10 + v11) * wy);
          }
          if (dgrid) {  // d wx / d gx = -(W-1)/2
            T* dgx = dgrid + n * 2 * OH * OW;
            dgx[i] = static_cast<T>(-dwx * static_cast<A>(W - 1) / A(2));
            dgx[i + OH * OW] = static_cast<T>(-dwy * static_cast<A>(H - 1) / A(2));
          }
        }
      },
      1);
}

// data (N, C, H, W), grid (N, 2, OH, OW) -> (N, C, OH, OW).
void SamplerShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  const char* op = "BilinearSampler";
  Shape& d = (*in)[0];
  Shape& g = (*in)[1];
  CheckRank(op, "data", d, 4, "(N, C, H, W)");
  CheckRank(op, "grid", g, 4, "(N, 2, OH, OW)");
  if (g.ndim_known() && g[1] >= 0 && g[1] != 2)
    MX_THROW(kInvalid, op, ": grid must have 2 channels (x, y), got shape ", g.ToString(),
             " for data shape ", d.ToString());
  if (d.ndim_known() && g.ndim_known() && d[0] >= 0 && g[0] >= 0 && d[0] != g[0])
    MX_THROW(kInvalid, op, ": data shape ", d.ToString(), " and grid shape ", g.ToString(),
             " have different batch sizes");
  if (!d.ndim_known() && !g.ndim_known()) return;
  const Shape dd = d.ndim_known() ? d : Shape{-1, -1, -1, -1};
  const Shape gg = g.ndim_known() ? g : Shape{-1, 2, -1, -1};
  const int64_t n = dd[0] >= 0 ? dd[0] : gg[0];
  AssignShape(op, "output", &(*out)[0], Shape{n, dd[1], gg[2], gg[3]});
}

void SamplerRef(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const Shape& d = in[0].shape();
  const Shape& g = in[1].shape();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "BilinearSampler", {
    BilinearSample<T>(In<T>(in[0]), In<T>(in[1]), d[0], d[1], d[2], d[3], g[2], g[3],
                      Out<T>(out[0]));
  });
}

void SamplerBwdRef(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const Shape& d = in[1].shape();
  const Shape& g = in[2].shape();
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_backward_BilinearSampler", {
    BilinearSampleBackward<T>(In<T>(in[0]), In<T>(in[1]), In<T>(in[2]), d[0], d[1], d[2], d[3],
                              g[2], g[3], Out<T>(out[0]), Out<T>(out[1]));
  });
}

GVs SamplerGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
                std::span<const GV> og) {
  const Op& bwd = OpRegistry::Get("_backward_BilinearSampler");
  GVs r = b.Apply(bwd, OpAttrs::From(bwd, attrs.get<BilinearSamplerParam>()),
                  std::vector<GV>{og[0], in[0], in[1]});
  return {r[0], r[1]};
}

// ---- SpatialTransformer. ----

GridGeneratorParam AffineGrid(const Shape& target_shape) {
  GridGeneratorParam g;
  g.transform_type = "affine";
  g.target_shape = target_shape;
  return g;
}

void TransformerShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "SpatialTransformer";
  const auto& p = attrs.get<SpatialTransformerParam>();
  Shape& d = (*in)[0];
  CheckRank(op, "data", d, 4, "(N, C, H, W)");
  CheckRank(op, "loc", (*in)[1], 2, "(N, 6)");
  const int64_t n = d.ndim_known() ? d[0] : -1;
  AssignShape(op, "loc", &(*in)[1], Shape{n, 6}, "(the 6 affine parameters per sample)");
  const int64_t nn = n >= 0 ? n : (*in)[1][0];
  if (d.ndim_known() && nn >= 0 && d[0] < 0) d[0] = nn;
  AssignShape(op, "output", &(*out)[0],
              Shape{nn, d.ndim_known() ? d[1] : -1, p.target_shape[0], p.target_shape[1]});
}

void TransformerRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& p = attrs.get<SpatialTransformerParam>();
  const Shape& d = in[0].shape();
  const int64_t OH = p.target_shape[0], OW = p.target_shape[1];
  NDArray grid(Shape{d[0], 2, OH, OW}, in[0].device(), in[0].dtype());
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "SpatialTransformer", {
    GridGenerate<T>(AffineGrid(p.target_shape), In<T>(in[1]), d[0], OH, OW, Out<T>(grid));
    BilinearSample<T>(In<T>(in[0]), In<T>(grid), d[0], d[1], d[2], d[3], OH, OW, Out<T>(out[0]));
  });
}

// Composed: grid = GridGenerator(loc), (dd, dgrid) = _backward_BilinearSampler(og, data, grid),
// dloc = _backward_GridGenerator(dgrid).
GVs TransformerGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in,
                    std::span<const GV>, std::span<const GV> og) {
  const GridGeneratorParam gp = AffineGrid(attrs.get<SpatialTransformerParam>().target_shape);
  GV grid = b.CallP("GridGenerator", {in[1]}, gp);
  const Op& bwd = OpRegistry::Get("_backward_BilinearSampler");
  GVs r =
      b.Apply(bwd, OpAttrs::From(bwd, BilinearSamplerParam{}), std::vector<GV>{og[0], in[0], grid});
  return {r[0], b.CallP("_backward_GridGenerator", {r[1]}, gp)};
}

MX_REGISTER_OP(GridGenerator)
    .describe(
        "Generates a sampling grid for BilinearSampler (MXNet's GridGenerator). "
        "transform_type='affine': data (N, 6), each row a 2x3 matrix A, output (N, 2, H, W) "
        "with (x, y) = A (x_t, y_t, 1), x_t = -1 + 2w/(W-1), y_t = -1 + 2h/(H-1), "
        "(H, W) = target_shape. transform_type='warp': data is an optical flow (N, 2, H, W); "
        "output ((flow_x + w) / ((W-1)/2) - 1, (flow_y + h) / ((H-1)/2) - 1).")
    .set_params<GridGeneratorParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const auto& p = attrs.get<GridGeneratorParam>();
      AssignShape("GridGenerator", "output", &(*out)[0],
                  GridOutShape("GridGenerator", p, (*in)[0]));
      if (!IsAffine(p)) AssignShape("GridGenerator", "data", &(*in)[0], (*out)[0]);
    })
    .set_kernel(kRef, GridGeneratorRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV>, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{b.CallP("_backward_GridGenerator", {og[0]}, attrs.get<GridGeneratorParam>())};
        },
        false, false);

MX_REGISTER_OP(_backward_GridGenerator)
    .describe(
        "Gradient of GridGenerator w.r.t. data from ograd (N, 2, H, W): (N, 6) for affine "
        "(ograd times the target coordinates (x_t, y_t, 1)), ograd / ((W-1)/2, (H-1)/2) per "
        "channel for warp.")
    .set_params<GridGeneratorParam>()
    .set_input_names(std::vector<std::string>{"ograd"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const char* op = "_backward_GridGenerator";
      const auto& p = attrs.get<GridGeneratorParam>();
      Shape& g = (*in)[0];
      CheckRank(op, "ograd", g, 4, "(N, 2, H, W)");
      if (IsAffine(p)) {
        const int64_t n = g.ndim_known() ? g[0] : ((*out)[0].ndim_known() ? (*out)[0][0] : -1);
        AssignShape(op, "ograd", &g, Shape{n, 2, p.target_shape[0], p.target_shape[1]});
        AssignShape(op, "output", &(*out)[0], Shape{n, 6});
      } else {
        AssignShape(op, "ograd", &g, (*out)[0]);
        if (g.ndim_known() && g[1] >= 0 && g[1] != 2)
          MX_THROW(kInvalid, op, ": ograd must be (N, 2, H, W), got shape ", g.ToString());
        AssignShape(op, "output", &(*out)[0], g);
      }
    })
    .set_kernel(kRef, GridGeneratorBwdRef)
    .set_gradient(
        // Linear in ograd: the adjoint of the affine backward is GridGenerator itself; the warp
        // backward is diagonal, its own adjoint.
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV>, std::span<const GV>,
           std::span<const GV> og) {
          const auto& p = attrs.get<GridGeneratorParam>();
          return GVs{
              b.CallP(IsAffine(p) ? "GridGenerator" : "_backward_GridGenerator", {og[0]}, p)};
        },
        false, false);

MX_REGISTER_OP(BilinearSampler)
    .describe(
        "Samples data (N, C, H, W) at grid (N, 2, OH, OW) by bilinear interpolation (MXNet's "
        "BilinearSampler): grid channel 0 is x, 1 is y, both normalized to [-1, 1] "
        "(x_src = (x + 1) * (W - 1) / 2); points outside the image read 0. Output "
        "(N, C, OH, OW). cudnn_off is accepted and ignored.")
    .set_params<BilinearSamplerParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "grid"})
    .set_infer_shape(SamplerShape)
    .set_kernel(kRef, SamplerRef)
    .set_gradient(SamplerGrad, true, false);

MX_REGISTER_OP(_backward_BilinearSampler)
    .describe(
        "Gradient of BilinearSampler: (d data, d grid) from (ograd, data, grid), the exact "
        "derivative of the piecewise bilinear interpolation (MXNet's).")
    .set_params<BilinearSamplerParam>()
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data", "grid"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      ShapeVec fin{(*in)[1], (*in)[2]}, fout{(*in)[0]};
      SamplerShape(attrs, &fin, &fout);
      AssignShape("_backward_BilinearSampler", "ograd", &(*in)[0], fout[0]);
      AssignShape("_backward_BilinearSampler", "data", &(*in)[1], fin[0]);
      AssignShape("_backward_BilinearSampler", "grid", &(*in)[2], fin[1]);
      AssignShape("_backward_BilinearSampler", "data gradient", &(*out)[0], fin[0]);
      AssignShape("_backward_BilinearSampler", "grid gradient", &(*out)[1], fin[1]);
    })
    .set_kernel(kRef, SamplerBwdRef)
    .set_non_differentiable();

MX_REGISTER_OP(SpatialTransformer)
    .describe(
        "Spatial transformer (MXNet's SpatialTransformer): BilinearSampler(data, "
        "GridGenerator(loc, transform_type='affine', target_shape)). data (N, C, H, W), loc "
        "(N, 6) (a 2x3 affine matrix per sample), output (N, C, target_shape[0], "
        "target_shape[1]). Only transform_type='affine' and sampler_type='bilinear' exist.")
    .set_params<SpatialTransformerParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "loc"})
    .set_infer_shape(TransformerShape)
    .set_kernel(kRef, TransformerRef)
    .set_gradient(TransformerGrad, true, false);

}  // namespace
}  // namespace mxnet::ops
