// Legacy and deformable convolutions (MXNet 1.9.1 src/operator/convolution_v1.cc, pooling_v1.cc,
// contrib/deformable_convolution.cc (Dai et al., "Deformable Convolutional Networks", ICCV 2017),
// contrib/modulated_deformable_convolution.cc (Zhu et al., "Deformable ConvNets v2", CVPR 2019)):
//   Convolution_v1(data, weight[, bias])   Convolution on 2-D/3-D NCHW/NCDHW data (same kernels)
//   Pooling_v1(data)                       max/avg/sum pooling, 2-D/3-D, 'valid'/'full'
//   _contrib_DeformableConvolution(data, offset, weight[, bias])
//   _contrib_ModulatedDeformableConvolution(data, offset, mask, weight[, bias])
// with gradient helpers
//   _backward_Pooling_v1(ograd, data, output)    -> d data (linear in ograd)
//   _Pooling_v1_max_gather(grad, data, output)   -> the adjoint of max pooling's backward
//   _backward_DeformableConvolution(ograd, data, offset, weight)         -> a gradient per input
//   _backward_ModulatedDeformableConvolution(ograd, data, offset, mask, weight)
// (the deformable ones non-differentiable, like MXNet's: no second-order gradients).
//
// As MXNet: Pooling_v1 pads with zeros (a max window touching the padding sees 0, as mshadow's
// pad()), avg divides by the whole kernel size even where a 'full' window hangs over the padded
// input, global_pool ignores pad.
// Differences from MXNet 1.9.1, all deliberate:
// - Pooling_v1's max gradient goes to the first maximum of a window (MXNet's v1 gives it to
//   every tied maximum).
// - Convolution_v1 and Pooling_v1 run 3-D on CPU (MXNet 1.9.1: "Volume convolution is not
//   implemented in mshadow", "3D kernel not implemented"); 1-D and NHWC/NDHWC stay errors.
// - DeformableConvolution's forward is MXNet's exactly: a sample at (h, w) reads 0 unless
//   0 <= h < H and 0 <= w < W, and rows/columns past H-1/W-1 clamp to the last one. MXNet's
//   backward treats those border samples as zero-padded bilinear reads, which is not the
//   derivative of its forward; ours is the exact derivative of the forward (the same away from
//   the last row/column and from (-1, 0)).
// - ModulatedDeformableConvolution samples zero-padded bilinear (h, w in (-1, H) x (-1, W)), as
//   MXNet; its backward runs on CPU (MXNet 1.9.1's is GPU-only: "only implemented in GPU").
#include <algorithm>
#include <cmath>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ops/conv/conv_extra_params.h"
#include "ndarray/ops/conv/conv_kernels.h"
#include "ndarray/ops/conv/conv_shape.h"

namespace mxnet::ops {

// ---- Validation (all ops of conv_extra_params.h). ----

namespace {

std::string CheckTuples(const Shape& kernel, int min_nd, int max_nd, const char* dims,
                        std::initializer_list<std::pair<const char*, const Shape*>> tuples) {
  if (kernel.ndim() < min_nd || kernel.ndim() > max_nd)
    return StrCat("attribute kernel=", kernel.ToString(), " must be ", dims);
  for (int64_t v : kernel)
    if (v < 1) return StrCat("attribute kernel=", kernel.ToString(), " must have entries >= 1");
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

std::string CheckFilters(int num_filter, int num_group) {
  if (num_filter < 1) return StrCat("attribute num_filter=", num_filter, " must be >= 1");
  if (num_group < 1) return StrCat("attribute num_group=", num_group, " must be >= 1");
  if (num_filter % num_group != 0)
    return StrCat("num_filter=", num_filter, " must be divisible by num_group=", num_group);
  return "";
}

}  // namespace

std::string ConvolutionV1Param::Validate() const {
  std::string e =
      CheckTuples(kernel, 2, 3, "(h, w) or (d, h, w) (1-D convolution is not supported)",
                  {{"stride", &stride}, {"dilate", &dilate}, {"pad", &pad}});
  if (e.empty()) e = CheckFilters(num_filter, num_group);
  if (!e.empty()) return e;
  if (workspace < 0) return StrCat("attribute workspace=", workspace, " must be >= 0");
  if (layout && *layout != (kernel.ndim() == 2 ? "NCHW" : "NCDHW"))
    return StrCat("attribute layout=", *layout, " is not supported for kernel=", kernel.ToString(),
                  " (only ", kernel.ndim() == 2 ? "NCHW" : "NCDHW", ")");
  return "";
}

std::string PoolingV1Param::Validate() const {
  if (kernel.ndim() == 0) return "";  // needed unless global_pool: checked with the data
  return CheckTuples(kernel, 2, 3, "(y, x) or (d, y, x)", {{"stride", &stride}, {"pad", &pad}});
}

template <bool kModulated>
std::string DeformableConvParamT<kModulated>::Validate() const {
  std::string e = CheckTuples(kernel, 2, 2, "(h, w) (only 2-D deformable convolution exists)",
                              {{"stride", &stride}, {"dilate", &dilate}, {"pad", &pad}});
  if (e.empty()) e = CheckFilters(num_filter, num_group);
  if (!e.empty()) return e;
  if (num_deformable_group < 1)
    return StrCat("attribute num_deformable_group=", num_deformable_group, " must be >= 1");
  if (workspace < 0) return StrCat("attribute workspace=", workspace, " must be >= 0");
  if (im2col_step < 1) return StrCat("attribute im2col_step=", im2col_step, " must be >= 1");
  if (layout && *layout != "NCHW")
    return StrCat("attribute layout=", *layout, " is not supported (only NCHW)");
  return "";
}
template std::string DeformableConvParamT<false>::Validate() const;
template std::string DeformableConvParamT<true>::Validate() const;

std::string PSROIPoolingParam::Validate() const {
  if (!(spatial_scale > 0))
    return StrCat("attribute spatial_scale=", PyFloatRepr(spatial_scale), " must be > 0");
  if (output_dim < 1) return StrCat("attribute output_dim=", output_dim, " must be >= 1");
  if (pooled_size < 1) return StrCat("attribute pooled_size=", pooled_size, " must be >= 1");
  if (group_size < 0) return StrCat("attribute group_size=", group_size, " must be >= 0");
  return "";
}

std::string DeformablePSROIPoolingParam::Validate() const {
  if (!(spatial_scale > 0))
    return StrCat("attribute spatial_scale=", PyFloatRepr(spatial_scale), " must be > 0");
  if (output_dim < 1) return StrCat("attribute output_dim=", output_dim, " must be >= 1");
  if (group_size < 1) return StrCat("attribute group_size=", group_size, " must be >= 1");
  if (pooled_size < 1) return StrCat("attribute pooled_size=", pooled_size, " must be >= 1");
  if (part_size < 0) return StrCat("attribute part_size=", part_size, " must be >= 0");
  if (sample_per_part < 1)
    return StrCat("attribute sample_per_part=", sample_per_part, " must be >= 1");
  return "";
}

std::string RROIAlignParam::Validate() const {
  if (pooled_size.ndim() != 2 || pooled_size[0] < 1 || pooled_size[1] < 1)
    return StrCat("attribute pooled_size=", pooled_size.ToString(),
                  " must be two positive sizes (h, w)");
  if (!(spatial_scale > 0))
    return StrCat("attribute spatial_scale=", PyFloatRepr(spatial_scale), " must be > 0");
  return "";
}

namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
constexpr KernelKey kOpt{DeviceType::kCPU, Backend::kOptimized};
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

bool AllFloat32(std::span<const NDArray> in) {
  for (const auto& a : in)
    if (a.dtype() != DType::kFloat32 || a.size() == 0) return false;
  return true;
}

// Runs f; an mxnet::Error whose message starts with "<from>:" is rethrown naming `to` instead.
template <typename F>
void Renamed(std::string_view from, std::string_view to, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    std::string m = e.what();
    if (StartsWith(m, StrCat(from, ":"))) m = StrCat(to, m.substr(from.size()));
    throw Error(e.code(), m);
  }
}

// ---- Convolution_v1. ----

ConvolutionParam ToConv(const ConvolutionV1Param& v) {
  ConvolutionParam p;
  p.kernel = v.kernel;
  p.stride = v.stride;
  p.dilate = v.dilate;
  p.pad = v.pad;
  p.num_filter = v.num_filter;
  p.num_group = v.num_group;
  p.workspace = v.workspace;
  p.no_bias = v.no_bias;
  return p;
}

void ConvV1Shape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Op& conv = OpRegistry::Get("Convolution");
  const OpAttrs a = OpAttrs::From(conv, ToConv(attrs.get<ConvolutionV1Param>()));
  Renamed("Convolution", "Convolution_v1", [&] { conv.infer_shape(a, in, out); });
}

template <bool kOptimized>
void ConvV1Kernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const ConvolutionParam p = ToConv(attrs.get<ConvolutionV1Param>());
  ConvGeom g = ConvGeomFromConv("Convolution_v1", p, in[0].shape());
  const NDArray* bias = p.no_bias ? nullptr : &in[2];
  if (kOptimized && onednn::ConvForward(g, in[0], in[1], bias, out[0])) return;
  ConvForwardRef("Convolution_v1", g, in[0], in[1], bias, out[0]);
}

// Convolution's gradient ops with the converted attributes.
GVs ConvV1Grad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
               std::span<const GV> og) {
  const ConvolutionParam p = ToConv(attrs.get<ConvolutionV1Param>());
  GVs g{b.CallP("_backward_Convolution_data", {og[0], in[1], in[0]}, p),
        b.CallP("_backward_Convolution_weight", {og[0], in[0]}, p)};
  if (!p.no_bias) g.push_back(b.CallP("_channel_sum", {og[0]}, ChannelAxisParam{}));
  return g;
}

MX_REGISTER_OP(Convolution_v1)
    .describe(
        "Deprecated convolution (MXNet's Convolution_v1): data (N, C, H, W) or (N, C, D, H, W), "
        "weight (num_filter, C/num_group, kernel...), optional bias (num_filter,); the same "
        "computation as Convolution. Only 2-D/3-D kernels and NCHW/NCDHW.")
    .set_params<ConvolutionV1Param>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<ConvolutionV1Param>().no_bias ? 2 : 3; })
    .set_input_names([](const OpAttrs& a) {
      return a.get<ConvolutionV1Param>().no_bias
                 ? std::vector<std::string>{"data", "weight"}
                 : std::vector<std::string>{"data", "weight", "bias"};
    })
    .set_infer_shape(ConvV1Shape)
    .set_kernel(kRef, ConvV1Kernel<false>)
    .set_kernel(kOpt, ConvV1Kernel<true>,
                [](const OpAttrs&, std::span<const NDArray> in) { return AllFloat32(in); })
    .set_gradient(ConvV1Grad, true, false);

// ---- Pooling_v1. ----

bool HasPad(const PoolingV1Param& p) {
  for (int64_t v : p.pad)
    if (v) return true;
  return false;
}

// The new Pooling's attributes for v1's shape (avg counts the padding, as v1).
PoolingParam ToPool(const PoolingV1Param& v, bool with_pad = true) {
  PoolingParam p;
  p.kernel = v.kernel;
  p.pool_type = v.pool_type;
  p.global_pool = v.global_pool;
  p.pooling_convention = v.pooling_convention;
  p.stride = v.stride;
  if (with_pad && !v.global_pool) p.pad = v.pad;
  return p;
}

// What v1 computes outside global_pool: max or sum pooling without padding of the zero-padded
// data (avg: the sum, divided by prod(kernel) afterwards).
PoolingParam ToUnpaddedPool(const PoolingV1Param& v) {
  PoolingParam p = ToPool(v, false);
  if (p.pool_type == "avg") p.pool_type = "sum";
  return p;
}

double KernelSize(const PoolingV1Param& p) {
  double k = 1;
  for (int64_t v : p.kernel) k *= static_cast<double>(v);
  return k;
}

void CheckPoolV1Data(const PoolingV1Param& p, const Shape& d) {
  if (!p.global_pool && p.kernel.ndim() == 0)
    MX_THROW(kInvalid, "Pooling_v1: attribute kernel is required unless global_pool=True");
  if (!d.ndim_known()) return;
  if (d.ndim() != 4 && d.ndim() != 5)
    MX_THROW(kInvalid,
             "Pooling_v1: data must be 4-D (N, C, H, W) or 5-D (N, C, D, H, W), got shape ",
             d.ToString());
  if (!p.global_pool && p.kernel.ndim() + 2 != d.ndim())
    MX_THROW(kInvalid, "Pooling_v1: data must be ", p.kernel.ndim() + 2,
             "-D for kernel=", p.kernel.ToString(), ", got shape ", d.ToString());
}

void PoolV1Shape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<PoolingV1Param>();
  const Shape& d = (*in)[0];
  CheckPoolV1Data(p, d);
  if (!d.ndim_known()) return;
  AssignShape("Pooling_v1", "output", &(*out)[0], PoolingOutputShape("Pooling_v1", ToPool(p), d));
}

// Copy of x zero-padded by p.pad (x itself without padding or with global_pool).
NDArray PadV1(const PoolingV1Param& p, const NDArray& x) {
  if (p.global_pool || !HasPad(p)) return x;
  const Shape& s = x.shape();
  const int nd = s.ndim() - 2;
  Shape ps = s;
  for (int i = 0; i < nd; ++i) ps[2 + i] += 2 * p.pad[i];
  NDArray out(ps, x.device(), x.dtype());
  const int64_t D = nd == 3 ? s[2] : 1, H = s[nd], W = s[nd + 1];
  const int64_t pd = nd == 3 ? p.pad[0] : 0, ph = p.pad[nd - 2], pw = p.pad[nd - 1];
  const int64_t PD = D + 2 * pd, PH = H + 2 * ph, PW = W + 2 * pw;
  MX_FLOAT_TYPE_SWITCH(x.dtype(), T, "Pooling_v1", {
    const T* src = In<T>(x);
    T* dst = Out<T>(out);
    std::fill(dst, dst + out.size(), T(0));
    for (int64_t nc = 0; nc < s[0] * s[1]; ++nc)
      for (int64_t dd = 0; dd < D; ++dd)
        for (int64_t h = 0; h < H; ++h)
          std::copy(src + ((nc * D + dd) * H + h) * W, src + ((nc * D + dd) * H + h + 1) * W,
                    dst + ((nc * PD + dd + pd) * PH + h + ph) * PW + pw);
  });
  return out;
}

// The interior of padded (PadV1's layout) into out (x's shape).
void CropV1(const PoolingV1Param& p, const NDArray& padded, const NDArray& out) {
  const Shape& s = out.shape();
  const int nd = s.ndim() - 2;
  const int64_t D = nd == 3 ? s[2] : 1, H = s[nd], W = s[nd + 1];
  const int64_t pd = nd == 3 ? p.pad[0] : 0, ph = p.pad[nd - 2], pw = p.pad[nd - 1];
  const int64_t PD = D + 2 * pd, PH = H + 2 * ph, PW = W + 2 * pw;
  MX_FLOAT_TYPE_SWITCH(out.dtype(), T, "Pooling_v1", {
    const T* src = In<T>(padded);
    T* dst = Out<T>(out);
    for (int64_t nc = 0; nc < s[0] * s[1]; ++nc)
      for (int64_t dd = 0; dd < D; ++dd)
        for (int64_t h = 0; h < H; ++h) {
          const T* row = src + ((nc * PD + dd + pd) * PH + h + ph) * PW + pw;
          std::copy(row, row + W, dst + ((nc * D + dd) * H + h) * W);
        }
  });
}

// The new Pooling's attributes that compute v1 on PadV1(data): global pooling as is, otherwise
// max/sum without padding (avg: the sum, divided by prod(kernel) afterwards).
PoolingParam PaddedPool(const PoolingV1Param& p) {
  return p.global_pool ? ToPool(p) : ToUnpaddedPool(p);
}

void ScaleBy(const NDArray& a, double k) {
  MX_FLOAT_TYPE_SWITCH(a.dtype(), T, "Pooling_v1", {
    T* y = Out<T>(a);
    for (int64_t i = 0; i < a.size(); ++i)
      y[i] = static_cast<T>(static_cast<AccType<T>>(y[i]) / static_cast<AccType<T>>(k));
  });
}

bool AvgDivides(const PoolingV1Param& p) { return p.pool_type == "avg" && !p.global_pool; }

void PoolV1Kernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const char* op = "Pooling_v1";
  const auto& p = attrs.get<PoolingV1Param>();
  CheckPoolV1Data(p, in[0].shape());
  const NDArray x = PadV1(p, in[0]);
  const PoolingParam pp = PaddedPool(p);
  PoolForwardRef(op, PoolGeomFrom(op, pp, x.shape()), GetPoolKind(pp), true, 1, x, out[0]);
  if (AvgDivides(p)) ScaleBy(out[0], KernelSize(p));
}

// _backward_Pooling_v1(ograd, data, output) -> d data: Pooling's backward on the padded data
// (max: each ograd to the first maximum of its window, dropped when that is padding; avg:
// ograd / prod(kernel) over the window), cropped.
void PoolV1BwdKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  const char* op = "_backward_Pooling_v1";
  const auto& p = attrs.get<PoolingV1Param>();
  const NDArray x = PadV1(p, in[1]);
  const PoolingParam pp = PaddedPool(p);
  const PoolGeom g = PoolGeomFrom(op, pp, x.shape());
  NDArray og = in[0];
  if (AvgDivides(p)) {
    og = NDArray(in[0].shape(), in[0].device(), in[0].dtype());
    std::copy_n(static_cast<const char*>(in[0].data_ptr()), in[0].size() * DTypeSize(in[0].dtype()),
                static_cast<char*>(og.data_ptr()));
    ScaleBy(og, KernelSize(p));
  }
  const bool padded = x.data_ptr() != in[1].data_ptr();
  NDArray dx = padded ? NDArray(x.shape(), x.device(), x.dtype()) : out[0];
  PoolBackwardRef(op, g, GetPoolKind(pp), true, 1, og, x, in[2], dx);
  if (padded) CropV1(p, dx, out[0]);
}

// _Pooling_v1_max_gather(grad, data, output) -> for each window, grad at the first maximum of
// the padded data (0 when that is padding): the adjoint of max's backward.
void PoolV1GatherKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                        std::span<const NDArray> out) {
  const char* op = "_Pooling_v1_max_gather";
  const auto& p = attrs.get<PoolingV1Param>();
  const NDArray x = PadV1(p, in[1]), grad = PadV1(p, in[0]);
  PoolingParam pp = PaddedPool(p);
  pp.pool_type = "max";
  PoolMaxGatherRef(op, PoolGeomFrom(op, pp, x.shape()), grad, x, in[2], out[0]);
}

PoolingV1Param AsMax(PoolingV1Param p) {
  p.pool_type = "max";
  return p;
}

GVs PoolV1Grad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in,
               std::span<const GV> out, std::span<const GV> og) {
  return {b.CallP("_backward_Pooling_v1", {og[0], in[0], out[0]}, attrs.get<PoolingV1Param>())};
}

// _backward_Pooling_v1 is linear in ograd: avg/sum's adjoint is Pooling_v1, max's the gather.
GVs PoolV1BwdGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
                  std::span<const GV> og) {
  const auto& p = attrs.get<PoolingV1Param>();
  GV d = p.pool_type == "max" ? b.CallP("_Pooling_v1_max_gather", {og[0], in[1], in[2]}, p)
                              : b.CallP("Pooling_v1", {og[0]}, p);
  return {d, b.ZerosLike(in[1]), b.ZerosLike(in[2])};
}

// (x-shaped grad or pooled ograd, data, output): data decides the other shapes.
FInferShape PoolV1HelperShape(const char* op, bool ograd_first) {
  return [op, ograd_first](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
    const auto& p = attrs.get<PoolingV1Param>();
    const Shape& data = (*in)[1];
    CheckPoolV1Data(p, data);
    if (!data.ndim_known()) return;
    Shape pooled;
    Renamed("Pooling_v1", op, [&] { pooled = PoolingOutputShape("Pooling_v1", ToPool(p), data); });
    AssignShape(op, ograd_first ? "ograd" : "grad", &(*in)[0], ograd_first ? pooled : data);
    AssignShape(op, "output", &(*in)[2], pooled);
    AssignShape(op, "result", &(*out)[0], ograd_first ? data : pooled);
  };
}

MX_REGISTER_OP(Pooling_v1)
    .describe(
        "Deprecated pooling (MXNet's Pooling_v1): max, avg or sum over 2-D or 3-D windows of "
        "data (N, C, H, W) or (N, C, D, H, W), zero padding (max sees the zeros), avg divides "
        "by prod(kernel); output size 1 + (in + 2*pad - kernel) / stride rounded down "
        "('valid') or up ('full'); global_pool pools each whole plane.")
    .set_params<PoolingV1Param>()
    .set_infer_shape(PoolV1Shape)
    .set_kernel(kRef, PoolV1Kernel)
    .set_gradient(PoolV1Grad, true, true);

MX_REGISTER_OP(_backward_Pooling_v1)
    .describe(
        "Gradient of Pooling_v1 w.r.t. data from (ograd, data, output): max routes each ograd "
        "to its window's first maximum (none when that is padding), avg/sum spread it.")
    .set_params<PoolingV1Param>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "data", "output"})
    .set_infer_shape(PoolV1HelperShape("_backward_Pooling_v1", true))
    .set_kernel(kRef, PoolV1BwdKernel)
    .set_gradient(PoolV1BwdGrad, true, false);

MX_REGISTER_OP(_Pooling_v1_max_gather)
    .describe(
        "For each Pooling_v1 max window, grad (shaped like data) at the window's first maximum "
        "of the zero-padded data (0 when that is padding): the adjoint of its max backward.")
    .set_params<PoolingV1Param>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"grad", "data", "output"})
    .set_infer_shape(PoolV1HelperShape("_Pooling_v1_max_gather", false))
    .set_kernel(kRef, PoolV1GatherKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{b.CallP("_backward_Pooling_v1", {og[0], in[1], in[2]},
                             AsMax(attrs.get<PoolingV1Param>())),
                     b.ZerosLike(in[1]), b.ZerosLike(in[2])};
        },
        true, false);

// ---- Deformable convolution (v1 and modulated v2). ----

struct DcnGeom {
  int64_t N = 0, C = 0, H = 0, W = 0, F = 0, G = 1, DG = 1, kh = 1, kw = 1;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1, ph = 0, pw = 0, OH = 0, OW = 0;
  int64_t K() const { return kh * kw; }
  int64_t P() const { return OH * OW; }
};

int64_t At(const Shape& t, int i, int64_t dflt) { return t.ndim() > i ? t[i] : dflt; }

template <bool M>
const char* DcnName() {
  return M ? "_contrib_ModulatedDeformableConvolution" : "_contrib_DeformableConvolution";
}

// Output size along dim i; throws when the dilated kernel exceeds the padded input.
template <bool M>
int64_t DcnOut(const DeformableConvParamT<M>& p, int i, int64_t in, const Shape& data) {
  const int64_t k = p.kernel[i], s = At(p.stride, i, 1), d = At(p.dilate, i, 1),
                pd = At(p.pad, i, 0);
  const int64_t dk = (k - 1) * d + 1;
  if (dk > in + 2 * pd)
    MX_THROW(kInvalid, DcnName<M>(), ": kernel=", p.kernel.ToString(), " (dilated size ", dk,
             " along spatial dim ", i, ") exceeds the padded input size ", in + 2 * pd,
             " (data shape ", data.ToString(), ", pad=", p.pad.ToString(), ")");
  return (in + 2 * pd - dk) / s + 1;
}

// Input indices: data 0, offset 1, [mask 2], weight, [bias].
template <bool M>
constexpr int kWeight = M ? 3 : 2;

template <bool M>
void DcnShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = DcnName<M>();
  const auto& p = attrs.get<DeformableConvParamT<M>>();
  Shape& data = (*in)[0];
  if (data.ndim_known() && data.ndim() != 4)
    MX_THROW(kInvalid, op, ": data must be 4-D (N, C, H, W), got shape ", data.ToString());
  Shape d = data.ndim_known() ? data : Shape{-1, -1, -1, -1};
  const int64_t F = p.num_filter, G = p.num_group, DG = p.num_deformable_group;
  const int64_t K = p.kernel[0] * p.kernel[1];
  Shape& wt = (*in)[kWeight<M>];
  if (d[1] < 0 && wt.ndim_known() && wt.ndim() == 4 && wt[1] >= 0) d[1] = wt[1] * G;
  if (d[1] >= 0 && d[1] % G != 0)
    MX_THROW(kInvalid, op, ": data channels ", d[1], " (data shape ", d.ToString(),
             ") must be divisible by num_group=", G);
  if (d[1] >= 0 && d[1] % DG != 0)
    MX_THROW(kInvalid, op, ": data channels ", d[1], " (data shape ", d.ToString(),
             ") must be divisible by num_deformable_group=", DG);
  if (d[0] < 0 && (*in)[1].ndim_known() && (*in)[1].ndim() == 4) d[0] = (*in)[1][0];
  const int64_t oh = d[2] >= 0 ? DcnOut(p, 0, d[2], d) : -1;
  const int64_t ow = d[3] >= 0 ? DcnOut(p, 1, d[3], d) : -1;
  AssignShape(
      op, "offset", &(*in)[1], Shape{d[0], DG * 2 * K, oh, ow},
      StrCat("(N, num_deformable_group*2*kh*kw, out_h, out_w) for data shape ", d.ToString()));
  if constexpr (M)
    AssignShape(
        op, "mask", &(*in)[2], Shape{d[0], DG * K, oh, ow},
        StrCat("(N, num_deformable_group*kh*kw, out_h, out_w) for data shape ", d.ToString()));
  AssignShape(op, "weight", &wt, Shape{F, d[1] >= 0 ? d[1] / G : -1, p.kernel[0], p.kernel[1]},
              StrCat("(num_filter, channels/num_group, kh, kw) for data shape ", d.ToString()));
  if (!p.no_bias) AssignShape(op, "bias", &(*in)[kWeight<M> + 1], Shape{F}, "(num_filter,)");
  AssignShape(op, "output", &(*out)[0], Shape{d[0], F, oh, ow});
  if (data.ndim_known() || d[0] >= 0 || d[1] >= 0) data = d;
}

template <bool M>
DcnGeom DcnGeomOf(const DeformableConvParamT<M>& p, const Shape& data) {
  DcnGeom g;
  g.N = data[0];
  g.C = data[1];
  g.H = data[2];
  g.W = data[3];
  g.F = p.num_filter;
  g.G = p.num_group;
  g.DG = p.num_deformable_group;
  g.kh = p.kernel[0];
  g.kw = p.kernel[1];
  g.sh = At(p.stride, 0, 1);
  g.sw = At(p.stride, 1, 1);
  g.dh = At(p.dilate, 0, 1);
  g.dw = At(p.dilate, 1, 1);
  g.ph = At(p.pad, 0, 0);
  g.pw = At(p.pad, 1, 0);
  g.OH = DcnOut(p, 0, g.H, data);
  g.OW = DcnOut(p, 1, g.W, data);
  return g;
}

// One bilinear sample of an H x W plane: up to 4 reads (idx -1: none) with their weights and
// the weights' derivatives in h and w.
template <typename A>
struct Sample {
  int64_t idx[4] = {-1, -1, -1, -1};
  A wt[4] = {0, 0, 0, 0}, gh[4] = {0, 0, 0, 0}, gw[4] = {0, 0, 0, 0};
};

// Modulated (v2): zero-padded bilinear inside (-1, H) x (-1, W). v1: MXNet's forward: inside
// [0, H) x [0, W) only, and positions past the last row/column clamp to it.
template <bool M, typename A>
Sample<A> MakeSample(A h, A w, int64_t H, int64_t W) {
  Sample<A> s;
  if (M ? !(h > -1 && w > -1 && h < H && w < W) : !(h >= 0 && w >= 0 && h < H && w < W)) return s;
  int64_t hl = static_cast<int64_t>(std::floor(h)), wl = static_cast<int64_t>(std::floor(w));
  int64_t hh = hl + 1, wh = wl + 1;
  A lh = h - static_cast<A>(hl), lw = w - static_cast<A>(wl);
  A sgh = 1, sgw = 1;  // 0 where clamped (v1)
  if (!M && hl >= H - 1) {
    hl = hh = H - 1;
    lh = 0;
    sgh = 0;
  }
  if (!M && wl >= W - 1) {
    wl = wh = W - 1;
    lw = 0;
    sgw = 0;
  }
  const int64_t ys[4] = {hl, hl, hh, hh}, xs[4] = {wl, wh, wl, wh};
  const A wy[4] = {1 - lh, 1 - lh, lh, lh}, wx[4] = {1 - lw, lw, 1 - lw, lw};
  const A dy[4] = {-sgh, -sgh, sgh, sgh}, dx[4] = {-sgw, sgw, -sgw, sgw};
  for (int k = 0; k < 4; ++k) {
    if (ys[k] < 0 || ys[k] >= H || xs[k] < 0 || xs[k] >= W) continue;
    s.idx[k] = ys[k] * W + xs[k];
    s.wt[k] = wy[k] * wx[k];
    s.gh[k] = dy[k] * wx[k];
    s.gw[k] = wy[k] * dx[k];
  }
  return s;
}

// Visits every (channel c, kernel tap t, output position q) of sample n with its sample.
template <bool M, typename A, typename T, typename F>
void ForEachTap(const DcnGeom& g, const T* offset, int64_t n, F&& f) {
  const int64_t K = g.K(), P = g.P(), cpg = g.C / g.DG;
  for (int64_t c = 0; c < g.C; ++c) {
    const int64_t dg = c / cpg;
    for (int64_t t = 0; t < K; ++t) {
      const int64_t i = t / g.kw, j = t % g.kw;
      const T* oh_ = offset + ((n * g.DG + dg) * 2 * K + 2 * t) * P;
      const T* ow_ = oh_ + P;
      for (int64_t q = 0; q < P; ++q) {
        const int64_t y = q / g.OW, x = q % g.OW;
        const A h = static_cast<A>(y * g.sh - g.ph + i * g.dh) + static_cast<A>(oh_[q]);
        const A w = static_cast<A>(x * g.sw - g.pw + j * g.dw) + static_cast<A>(ow_[q]);
        f(c, dg, t, q, MakeSample<M, A>(h, w, g.H, g.W));
      }
    }
  }
}

// Columns of sample n: col[(c*K + t)*P + q] = mask * bilinear(data[n, c], position).
template <bool M, typename A, typename T>
void DcnColumns(const DcnGeom& g, const T* data, const T* offset, const T* mask, int64_t n,
                A* col) {
  const int64_t K = g.K(), P = g.P();
  ForEachTap<M, A>(g, offset, n,
                   [&](int64_t c, int64_t dg, int64_t t, int64_t q, const Sample<A>& s) {
                     const T* x = data + (n * g.C + c) * g.H * g.W;
                     A v = 0;
                     for (int k = 0; k < 4; ++k)
                       if (s.idx[k] >= 0) v += s.wt[k] * static_cast<A>(x[s.idx[k]]);
                     if (M) v *= static_cast<A>(mask[((n * g.DG + dg) * K + t) * P + q]);
                     col[(c * K + t) * P + q] = v;
                   });
}

template <bool M, typename T>
void DcnForward(const DcnGeom& g, const T* data, const T* offset, const T* mask, const T* weight,
                const T* bias, T* out) {
  using A = AccType<T>;
  const int64_t K = g.K(), P = g.P(), cg = g.C / g.G, fg = g.F / g.G;
  ParallelFor(
      g.N,
      [&](int64_t n) {
        std::vector<A> col(g.C * K * P);
        DcnColumns<M, A>(g, data, offset, mask, n, col.data());
        std::vector<A> acc(P);
        for (int64_t f = 0; f < g.F; ++f) {
          std::fill(acc.begin(), acc.end(), bias ? static_cast<A>(bias[f]) : A(0));
          const int64_t c0 = (f / fg) * cg;
          for (int64_t ck = 0; ck < cg * K; ++ck) {
            const A wv = static_cast<A>(weight[f * cg * K + ck]);
            const A* cr = col.data() + (c0 * K + ck) * P;
            for (int64_t q = 0; q < P; ++q) acc[q] += wv * cr[q];
          }
          T* o = out + (n * g.F + f) * P;
          for (int64_t q = 0; q < P; ++q) o[q] = static_cast<T>(acc[q]);
        }
      },
      1);
}

// Gradients from ograd (N, F, OH, OW); any output pointer may be null.
template <bool M, typename T>
void DcnBackward(const DcnGeom& g, const T* og, const T* data, const T* offset, const T* mask,
                 const T* weight, T* ddata, T* doffset, T* dmask, T* dweight, T* dbias) {
  using A = AccType<T>;
  const int64_t K = g.K(), P = g.P(), cg = g.C / g.G, fg = g.F / g.G;
  std::vector<A> cols(g.N * g.C * K * P);
  ParallelFor(
      g.N,
      [&](int64_t n) {
        A* col = cols.data() + n * g.C * K * P;
        DcnColumns<M, A>(g, data, offset, mask, n, col);
        // dcol = W^T ograd, per group.
        std::vector<A> dcol(g.C * K * P, A(0));
        for (int64_t f = 0; f < g.F; ++f) {
          const int64_t c0 = (f / fg) * cg;
          const T* o = og + (n * g.F + f) * P;
          for (int64_t ck = 0; ck < cg * K; ++ck) {
            const A wv = static_cast<A>(weight[f * cg * K + ck]);
            A* dr = dcol.data() + (c0 * K + ck) * P;
            for (int64_t q = 0; q < P; ++q) dr[q] += wv * static_cast<A>(o[q]);
          }
        }
        const int64_t HW = g.H * g.W;
        std::vector<A> dx(ddata ? g.C * HW : 0, A(0));
        std::vector<A> doff(g.DG * 2 * K * P, A(0)), dm(M ? g.DG * K * P : 0, A(0));
        ForEachTap<M, A>(
            g, offset, n, [&](int64_t c, int64_t dg, int64_t t, int64_t q, const Sample<A>& s) {
              const A d = dcol[(c * K + t) * P + q];
              const T* x = data + (n * g.C + c) * HW;
              const A m = M ? static_cast<A>(mask[((n * g.DG + dg) * K + t) * P + q]) : A(1);
              A v = 0, vh = 0, vw = 0;
              for (int k = 0; k < 4; ++k) {
                if (s.idx[k] < 0) continue;
                const A xv = static_cast<A>(x[s.idx[k]]);
                v += s.wt[k] * xv;
                vh += s.gh[k] * xv;
                vw += s.gw[k] * xv;
                if (ddata) dx[c * HW + s.idx[k]] += d * m * s.wt[k];
              }
              doff[(dg * 2 * K + 2 * t) * P + q] += d * m * vh;
              doff[(dg * 2 * K + 2 * t + 1) * P + q] += d * m * vw;
              if (M) dm[(dg * K + t) * P + q] += d * v;
            });
        if (ddata)
          for (int64_t i = 0; i < g.C * HW; ++i) ddata[n * g.C * HW + i] = static_cast<T>(dx[i]);
        if (doffset)
          for (size_t i = 0; i < doff.size(); ++i)
            doffset[n * static_cast<int64_t>(doff.size()) + static_cast<int64_t>(i)] =
                static_cast<T>(doff[i]);
        if (M && dmask)
          for (size_t i = 0; i < dm.size(); ++i)
            dmask[n * static_cast<int64_t>(dm.size()) + static_cast<int64_t>(i)] =
                static_cast<T>(dm[i]);
      },
      1);
  if (dweight)
    ParallelFor(
        g.F,
        [&](int64_t f) {
          const int64_t c0 = (f / fg) * cg;
          for (int64_t ck = 0; ck < cg * K; ++ck) {
            A acc = 0;
            for (int64_t n = 0; n < g.N; ++n) {
              const T* o = og + (n * g.F + f) * P;
              const A* cr = cols.data() + (n * g.C + c0) * K * P + ck * P;
              for (int64_t q = 0; q < P; ++q) acc += static_cast<A>(o[q]) * cr[q];
            }
            dweight[f * cg * K + ck] = static_cast<T>(acc);
          }
        },
        1);
  if (dbias)
    for (int64_t f = 0; f < g.F; ++f) {
      A acc = 0;
      for (int64_t n = 0; n < g.N; ++n)
        for (int64_t q = 0; q < P; ++q) acc += static_cast<A>(og[(n * g.F + f) * P + q]);
      dbias[f] = static_cast<T>(acc);
    }
}

template <bool M>
void DcnKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  const auto& p = attrs.get<DeformableConvParamT<M>>();
  const DcnGeom g = DcnGeomOf(p, in[0].shape());
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, DcnName<M>(), {
    DcnForward<M, T>(g, In<T>(in[0]), In<T>(in[1]), M ? In<T>(in[2]) : nullptr,
                     In<T>(in[kWeight<M>]), p.no_bias ? nullptr : In<T>(in[kWeight<M> + 1]),
                     Out<T>(out[0]));
  });
}

// _backward_*: inputs (ograd, data, offset, [mask], weight), outputs one gradient per forward
// input (bias last unless no_bias).
template <bool M>
void DcnBwdKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const auto& p = attrs.get<DeformableConvParamT<M>>();
  const DcnGeom g = DcnGeomOf(p, in[1].shape());
  constexpr int w = kWeight<M>;
  MX_FLOAT_TYPE_SWITCH(
      in[0].dtype(), T,
      M ? "_backward_ModulatedDeformableConvolution" : "_backward_DeformableConvolution", {
        DcnBackward<M, T>(g, In<T>(in[0]), In<T>(in[1]), In<T>(in[2]), M ? In<T>(in[3]) : nullptr,
                          In<T>(in[w + 1]), Out<T>(out[0]), Out<T>(out[1]),
                          M ? Out<T>(out[2]) : nullptr, Out<T>(out[w]),
                          p.no_bias ? nullptr : Out<T>(out[w + 1]));
      });
}

template <bool M>
std::vector<std::string> DcnInputNames(const OpAttrs& a) {
  std::vector<std::string> v{"data", "offset"};
  if (M) v.push_back("mask");
  v.push_back("weight");
  if (!a.get<DeformableConvParamT<M>>().no_bias) v.push_back("bias");
  return v;
}

template <bool M>
int DcnNumInputs(const OpAttrs& a) {
  return kWeight<M> + 1 + (a.get<DeformableConvParamT<M>>().no_bias ? 0 : 1);
}

template <bool M>
GVs DcnGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
            std::span<const GV> og) {
  const Op& bwd = OpRegistry::Get(M ? "_backward_ModulatedDeformableConvolution"
                                    : "_backward_DeformableConvolution");
  std::vector<GV> args{og[0]};
  for (int i = 0; i <= kWeight<M>; ++i) args.push_back(in[i]);
  return b.Apply(bwd, OpAttrs::From(bwd, attrs.get<DeformableConvParamT<M>>()), args);
}

// Backward shapes: the forward's, with ograd like its output.
template <bool M>
void DcnBwdShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op =
      M ? "_backward_ModulatedDeformableConvolution" : "_backward_DeformableConvolution";
  ShapeVec fin(in->begin() + 1, in->end()), fout{(*in)[0]};
  if (!attrs.get<DeformableConvParamT<M>>().no_bias) fin.push_back(Shape::Unknown());
  Renamed(DcnName<M>(), op, [&] { DcnShape<M>(attrs, &fin, &fout); });
  AssignShape(op, "ograd", &(*in)[0], fout[0]);
  for (size_t i = 0; i < fin.size(); ++i) {
    if (i + 1 < in->size()) AssignShape(op, "input", &(*in)[i + 1], fin[i]);
    AssignShape(op, "gradient", &(*out)[i], fin[i]);
  }
}

MX_REGISTER_OP(_contrib_DeformableConvolution)
    .describe(
        "2-D deformable convolution (MXNet's contrib.DeformableConvolution, Dai et al. 2017): "
        "data (N, C, H, W), offset (N, num_deformable_group*2*kh*kw, OH, OW) with (dy, dx) per "
        "kernel tap, weight (num_filter, C/num_group, kh, kw), optional bias (num_filter,) -> "
        "(N, num_filter, OH, OW). Each tap reads data bilinearly at its shifted position "
        "(0 outside [0, H) x [0, W); the last row/column clamps, as MXNet).")
    .set_params<DeformableConvParam>()
    .set_num_inputs(DcnNumInputs<false>)
    .set_input_names(DcnInputNames<false>)
    .set_infer_shape(DcnShape<false>)
    .set_kernel(kRef, DcnKernel<false>)
    .set_gradient(DcnGrad<false>, true, false);

MX_REGISTER_OP(_backward_DeformableConvolution)
    .describe(
        "Gradients of DeformableConvolution from (ograd, data, offset, weight): d data, "
        "d offset, d weight and (unless no_bias) d bias.")
    .set_params<DeformableConvParam>()
    .set_num_inputs(4)
    .set_num_outputs(DcnNumInputs<false>)
    .set_input_names(std::vector<std::string>{"ograd", "data", "offset", "weight"})
    .set_infer_shape(DcnBwdShape<false>)
    .set_kernel(kRef, DcnBwdKernel<false>)
    .set_non_differentiable();

MX_REGISTER_OP(_contrib_ModulatedDeformableConvolution)
    .describe(
        "2-D modulated deformable convolution (MXNet's contrib.ModulatedDeformableConvolution, "
        "DCNv2, Zhu et al. 2018): like DeformableConvolution with a mask (N, "
        "num_deformable_group*kh*kw, OH, OW) multiplying each tap's sample; samples are "
        "zero-padded bilinear reads.")
    .set_params<ModulatedDeformableConvParam>()
    .set_num_inputs(DcnNumInputs<true>)
    .set_input_names(DcnInputNames<true>)
    .set_infer_shape(DcnShape<true>)
    .set_kernel(kRef, DcnKernel<true>)
    .set_gradient(DcnGrad<true>, true, false);

MX_REGISTER_OP(_backward_ModulatedDeformableConvolution)
    .describe(
        "Gradients of ModulatedDeformableConvolution from (ograd, data, offset, mask, weight): "
        "d data, d offset, d mask, d weight and (unless no_bias) d bias.")
    .set_params<ModulatedDeformableConvParam>()
    .set_num_inputs(5)
    .set_num_outputs(DcnNumInputs<true>)
    .set_input_names(std::vector<std::string>{"ograd", "data", "offset", "mask", "weight"})
    .set_infer_shape(DcnBwdShape<true>)
    .set_kernel(kRef, DcnBwdKernel<true>)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
