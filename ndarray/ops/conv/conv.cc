// Convolution and Deconvolution (MXNet 1.9.1 src/operator/nn/convolution.cc, deconvolution.cc)
// with their gradient helper ops:
//   _backward_Convolution_data(ograd, weight, data)     -> d data   (a transposed convolution)
//   _backward_Convolution_weight(ograd, data)           -> d weight
//   _backward_Deconvolution_data(ograd, weight, data)   -> d data   (a convolution)
//   _backward_Deconvolution_weight(ograd, data)         -> d weight
//   _channel_sum(data; axis)                            -> bias gradient (sum over all but axis)
//   _channel_broadcast_like(bias, like; axis)           -> its adjoint
// Each helper is bilinear in its array inputs and its gradient is written with the same set of
// ops, so gradients of any order compose from the registry. `data` inputs of the *_data helpers
// only provide the shape (and, for Deconvolution's target_shape, the padding).
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

// ---- Shape inference. ----

// Data shape with a rank from the kernel when unknown; checks the rank.
Shape DataWithRank(std::string_view op, const Shape& data, int nd, bool cl, const Shape& kernel) {
  if (!data.ndim_known()) return Shape::Filled(nd + 2, -1);
  if (data.ndim() != nd + 2)
    MX_THROW(kInvalid, op, ": data must be ", nd + 2, "-D (", LayoutName(cl, nd),
             ") for kernel=", kernel.ToString(), ", got shape ", data.ToString());
  return data;
}

// Expected weight (CY, CX/G, k...) in the layout; -1 where unknown.
Shape WeightShape(int64_t cy, int64_t cx, int64_t G, const Shape& kernel, bool cl) {
  Shape w{cy, cx >= 0 ? cx / G : -1};
  for (int64_t k : kernel) w.push_back(k);
  return FromChannelsFirst(w, cl);
}

void CheckGroups(std::string_view op, int64_t c, int64_t G, const Shape& data) {
  if (c >= 0 && c % G != 0)
    MX_THROW(kInvalid, op, ": data channels ", c, " (data shape ", data.ToString(),
             ") must be divisible by num_group=", G);
}

std::string WeightWhy(std::string_view what, int64_t a, int64_t b, const Shape& kernel) {
  return StrCat("(", what, ": ", a, ", ", b, ", kernel=", kernel.ToString(), ")");
}

void ConvolutionShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "Convolution";
  const auto& p = attrs.get<ConvolutionParam>();
  const int nd = p.kernel.ndim();
  const bool cl = IsChannelsLast(op, p.layout, nd);
  const Shape data = DataWithRank(op, (*in)[0], nd, cl, p.kernel);
  Shape d = ToChannelsFirst(data, cl);
  const int64_t F = p.num_filter, G = p.num_group;
  // Data channels from a known weight (CY, C/G, ...).
  if (d[1] < 0 && (*in)[1].ndim() == nd + 2) {
    int64_t wc = ToChannelsFirst((*in)[1], cl)[1];
    if (wc >= 0) d[1] = wc * G;
  }
  CheckGroups(op, d[1], G, data);
  AssignShape(
      op, "weight", &(*in)[1], WeightShape(F, d[1], G, p.kernel, cl),
      StrCat(WeightWhy("num_filter, channels/num_group", F, d[1] >= 0 ? d[1] / G : -1, p.kernel),
             " for data shape ", data.ToString()));
  if (!p.no_bias) AssignShape(op, "bias", &(*in)[2], Shape{F}, "(num_filter,)");
  Shape o{d[0], F};
  for (int i = 0; i < nd; ++i)
    o.push_back(d[2 + i] >= 0 ? ConvOutDim(op, p, i, d[2 + i], data) : -1);
  AssignShape(op, "output", &(*out)[0], FromChannelsFirst(o, cl));
  // Back-fill the batch and, where the stride is 1, the spatial sizes (as MXNet does).
  Shape oc = ToChannelsFirst((*out)[0], cl);
  if (d[0] < 0) d[0] = oc[0];
  for (int i = 0; i < nd; ++i) {
    int64_t s = p.stride.ndim() ? p.stride[i] : 1, dl = p.dilate.ndim() ? p.dilate[i] : 1;
    int64_t pd = p.pad.ndim() ? p.pad[i] : 0;
    if (d[2 + i] < 0 && oc[2 + i] >= 0 && s == 1)
      d[2 + i] = oc[2 + i] + (p.kernel[i] - 1) * dl - 2 * pd;
  }
  (*in)[0] = FromChannelsFirst(d, cl);
}

void DeconvolutionShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "Deconvolution";
  const auto& p = attrs.get<DeconvolutionParam>();
  const int nd = p.kernel.ndim();
  const bool cl = IsChannelsLast(op, p.layout, nd);
  const Shape data = DataWithRank(op, (*in)[0], nd, cl, p.kernel);
  Shape d = ToChannelsFirst(data, cl);
  const int64_t F = p.num_filter, G = p.num_group;
  if (d[1] < 0 && (*in)[1].ndim() == nd + 2) d[1] = ToChannelsFirst((*in)[1], cl)[0];
  CheckGroups(op, d[1], G, data);
  // The weight of the corresponding convolution: (C_in, num_filter/G, k...).
  Shape w{d[1], F / G};
  for (int64_t k : p.kernel) w.push_back(k);
  AssignShape(op, "weight", &(*in)[1], FromChannelsFirst(w, cl),
              StrCat(WeightWhy("data channels, num_filter/num_group", d[1], F / G, p.kernel),
                     " for data shape ", data.ToString()));
  if (!p.no_bias) AssignShape(op, "bias", &(*in)[2], Shape{F}, "(num_filter,)");
  Shape o{d[0], F};
  for (int i = 0; i < nd; ++i)
    o.push_back(d[2 + i] >= 0 ? DeconvOutDim(op, p, i, d[2 + i], data).out : -1);
  AssignShape(op, "output", &(*out)[0], FromChannelsFirst(o, cl));
  if (d[0] < 0) d[0] = ToChannelsFirst((*out)[0], cl)[0];
  (*in)[0] = FromChannelsFirst(d, cl);
}

// Helpers: `data` (input `data_index`) must be known to check the others; the output is data's
// shape (*_data) or the weight's (*_weight).
template <typename P>
ConvGeom GeomOf(std::string_view op, const P& p, const Shape& data) {
  if constexpr (std::is_same_v<P, ConvolutionParam>)
    return ConvGeomFromConv(op, p, data);
  else
    return ConvGeomFromDeconv(op, p, data);
}

// Shapes of (ograd, weight) for a forward op (Convolution: ograd is y; Deconvolution: ograd is x).
template <typename P>
std::pair<Shape, Shape> OgradAndWeight(const ConvGeom& g) {
  if constexpr (std::is_same_v<P, ConvolutionParam>)
    return {g.YShape(), g.WShape()};
  else
    return {g.XShape(), g.WShape()};
}

template <typename P>
FInferShape BackwardDataShape(const char* op) {
  return [op](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
    const auto& p = attrs.get<P>();
    const Shape& data = (*in)[2];
    if (data.is_known()) {
      ConvGeom g = GeomOf(op, p, data);
      auto [og, w] = OgradAndWeight<P>(g);
      AssignShape(op, "ograd", &(*in)[0], og);
      AssignShape(op, "weight", &(*in)[1], w);
    }
    AssignShape(op, "output", &(*out)[0], data);
  };
}

template <typename P>
FInferShape BackwardWeightShape(const char* op) {
  return [op](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
    const auto& p = attrs.get<P>();
    const Shape& data = (*in)[1];
    if (data.is_known()) {
      ConvGeom g = GeomOf(op, p, data);
      auto [og, w] = OgradAndWeight<P>(g);
      AssignShape(op, "ograd", &(*in)[0], og);
      AssignShape(op, "output", &(*out)[0], w);
      return;
    }
    // Partial: the weight from the data channels only.
    const int nd = p.kernel.ndim();
    const bool cl = IsChannelsLast(op, p.layout, nd);
    Shape d = ToChannelsFirst(DataWithRank(op, data, nd, cl, p.kernel), cl);
    const int64_t G = p.num_group, F = p.num_filter;
    Shape w;
    if constexpr (std::is_same_v<P, ConvolutionParam>)
      w = WeightShape(F, d[1], G, p.kernel, cl);
    else {
      Shape wc{d[1], F / G};
      for (int64_t k : p.kernel) wc.push_back(k);
      w = FromChannelsFirst(wc, cl);
    }
    AssignShape(op, "output", &(*out)[0], w);
  };
}

// ---- Kernels. ----

const NDArray* BiasOf(bool no_bias, std::span<const NDArray> in) {
  return no_bias ? nullptr : &in[2];
}

template <bool kOptimized>
void ConvolutionKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  const auto& p = attrs.get<ConvolutionParam>();
  ConvGeom g = ConvGeomFromConv("Convolution", p, in[0].shape());
  const NDArray* bias = BiasOf(p.no_bias, in);
  if (kOptimized && onednn::ConvForward(g, in[0], in[1], bias, out[0])) return;
  ConvForwardRef("Convolution", g, in[0], in[1], bias, out[0]);
}

template <bool kOptimized>
void DeconvolutionKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                         std::span<const NDArray> out) {
  const auto& p = attrs.get<DeconvolutionParam>();
  ConvGeom g = ConvGeomFromDeconv("Deconvolution", p, in[0].shape());
  const NDArray* bias = BiasOf(p.no_bias, in);
  if (kOptimized && onednn::ConvBackwardData(g, in[0], in[1], bias, out[0])) return;
  ConvBackwardDataRef("Deconvolution", g, in[0], in[1], bias, out[0]);
}

// _backward_Convolution_data: dx = conv^T(dy, w).
template <bool kOptimized>
void ConvBwdDataKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  const char* op = "_backward_Convolution_data";
  ConvGeom g = ConvGeomFromConv(op, attrs.get<ConvolutionParam>(), in[2].shape());
  if (kOptimized && onednn::ConvBackwardData(g, in[0], in[1], nullptr, out[0])) return;
  ConvBackwardDataRef(op, g, in[0], in[1], nullptr, out[0]);
}

// _backward_Convolution_weight: dw from dy and x.
template <bool kOptimized>
void ConvBwdWeightKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                         std::span<const NDArray> out) {
  const char* op = "_backward_Convolution_weight";
  ConvGeom g = ConvGeomFromConv(op, attrs.get<ConvolutionParam>(), in[1].shape());
  if (kOptimized && onednn::ConvBackwardWeight(g, in[0], in[1], out[0])) return;
  ConvBackwardWeightRef(op, g, in[0], in[1], out[0]);
}

// _backward_Deconvolution_data: d data (the y tensor) = conv(d out (x tensor), w).
template <bool kOptimized>
void DeconvBwdDataKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                         std::span<const NDArray> out) {
  const char* op = "_backward_Deconvolution_data";
  ConvGeom g = ConvGeomFromDeconv(op, attrs.get<DeconvolutionParam>(), in[2].shape());
  if (kOptimized && onednn::ConvForward(g, in[0], in[1], nullptr, out[0])) return;
  ConvForwardRef(op, g, in[0], in[1], nullptr, out[0]);
}

// _backward_Deconvolution_weight: the weight gradient of the convolution from x = ograd to
// y = data.
template <bool kOptimized>
void DeconvBwdWeightKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                           std::span<const NDArray> out) {
  const char* op = "_backward_Deconvolution_weight";
  ConvGeom g = ConvGeomFromDeconv(op, attrs.get<DeconvolutionParam>(), in[1].shape());
  if (kOptimized && onednn::ConvBackwardWeight(g, in[1], in[0], out[0])) return;
  ConvBackwardWeightRef(op, g, in[1], in[0], out[0]);
}

// ---- Gradients. ----

int ChannelAxis(const std::optional<std::string>& layout, int nd) {
  return layout && layout->back() == 'C' ? nd + 1 : 1;
}

GV ChannelSum(GradBuilder& b, GV og, int axis) {
  ChannelAxisParam a;
  a.axis = axis;
  return b.CallP("_channel_sum", {og}, a);
}

template <typename P>
P NoBias(P p) {
  p.no_bias = true;
  return p;
}

GVs ConvolutionGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in,
                    std::span<const GV>, std::span<const GV> og) {
  const auto& p = attrs.get<ConvolutionParam>();
  GVs g{b.CallP("_backward_Convolution_data", {og[0], in[1], in[0]}, p),
        b.CallP("_backward_Convolution_weight", {og[0], in[0]}, p)};
  if (!p.no_bias) g.push_back(ChannelSum(b, og[0], ChannelAxis(p.layout, p.kernel.ndim())));
  return g;
}

GVs DeconvolutionGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in,
                      std::span<const GV>, std::span<const GV> og) {
  const auto& p = attrs.get<DeconvolutionParam>();
  GVs g{b.CallP("_backward_Deconvolution_data", {og[0], in[1], in[0]}, p),
        b.CallP("_backward_Deconvolution_weight", {og[0], in[0]}, p)};
  if (!p.no_bias) g.push_back(ChannelSum(b, og[0], ChannelAxis(p.layout, p.kernel.ndim())));
  return g;
}

// f(dy, w) = conv^T(dy, w): <g, f> = <conv(g, w), dy>.
GVs ConvBwdDataGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in,
                    std::span<const GV>, std::span<const GV> og) {
  const auto& p = attrs.get<ConvolutionParam>();
  return {b.CallP("Convolution", {og[0], in[1]}, NoBias(p)),
          b.CallP("_backward_Convolution_weight", {in[0], og[0]}, p), b.ZerosLike(in[2])};
}

// f(dy, x) = dw: <g, f> = <dy, conv(x, g)>.
GVs ConvBwdWeightGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in,
                      std::span<const GV>, std::span<const GV> og) {
  const auto& p = attrs.get<ConvolutionParam>();
  return {b.CallP("Convolution", {in[1], og[0]}, NoBias(p)),
          b.CallP("_backward_Convolution_data", {in[0], og[0], in[1]}, p)};
}

// f(dy, w) = conv(dy, w) (the adjoint of deconv in its data): <g, f> = <deconv(g, w), dy>.
GVs DeconvBwdDataGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in,
                      std::span<const GV>, std::span<const GV> og) {
  const auto& p = attrs.get<DeconvolutionParam>();
  return {b.CallP("Deconvolution", {og[0], in[1]}, NoBias(p)),
          b.CallP("_backward_Deconvolution_weight", {in[0], og[0]}, p), b.ZerosLike(in[2])};
}

// f(dy, x) = dw of deconv: <g, f> = <dy, deconv(x, g)>.
GVs DeconvBwdWeightGrad(GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in,
                        std::span<const GV>, std::span<const GV> og) {
  const auto& p = attrs.get<DeconvolutionParam>();
  return {b.CallP("Deconvolution", {in[1], og[0]}, NoBias(p)),
          b.CallP("_backward_Deconvolution_data", {in[0], og[0], in[1]}, p)};
}

template <typename P>
std::vector<std::string> ConvInputNames(const OpAttrs& a) {
  if (a.get<P>().no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

template <typename P>
int ConvNumInputs(const OpAttrs& a) {
  return a.get<P>().no_bias ? 2 : 3;
}

MX_REGISTER_OP(Convolution)
    .describe(
        "Compute N-D convolution on (N+2)-D input (MXNet's Convolution): data (N, C, [D,] "
        "[H,] W) in NCW/NCHW/NCDHW (or channels-last NWC/NHWC/NDHWC), weight (num_filter, "
        "C/num_group, kernel...) in the same layout, optional bias (num_filter,).")
    .set_params<ConvolutionParam>()
    .set_num_inputs(ConvNumInputs<ConvolutionParam>)
    .set_input_names(ConvInputNames<ConvolutionParam>)
    .set_infer_shape(ConvolutionShape)
    .set_kernel(kRef, ConvolutionKernel<false>)
    .set_kernel(kOpt, ConvolutionKernel<true>,
                [](const OpAttrs&, std::span<const NDArray> in) { return AllFloat32(in); })
    .set_gradient(ConvolutionGrad, true, false);

MX_REGISTER_OP(Deconvolution)
    .describe(
        "Transposed convolution (MXNet's Deconvolution): data (N, C_in, spatial...), weight "
        "(C_in, num_filter/num_group, kernel...) in the data layout, optional bias "
        "(num_filter,); output size stride*(in-1) + dilated kernel - 2*pad + adj, or "
        "target_shape.")
    .set_params<DeconvolutionParam>()
    .set_num_inputs(ConvNumInputs<DeconvolutionParam>)
    .set_input_names(ConvInputNames<DeconvolutionParam>)
    .set_infer_shape(DeconvolutionShape)
    .set_kernel(kRef, DeconvolutionKernel<false>)
    .set_kernel(kOpt, DeconvolutionKernel<true>,
                [](const OpAttrs&, std::span<const NDArray> in) { return AllFloat32(in); })
    .set_gradient(DeconvolutionGrad, true, false);

MX_REGISTER_OP(_backward_Convolution_data)
    .describe(
        "Gradient of Convolution with respect to data: the transposed convolution of "
        "ograd with weight; data provides the shape.")
    .set_params<ConvolutionParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "weight", "data"})
    .set_infer_shape(BackwardDataShape<ConvolutionParam>("_backward_Convolution_data"))
    .set_kernel(kRef, ConvBwdDataKernel<false>)
    .set_kernel(kOpt, ConvBwdDataKernel<true>,
                [](const OpAttrs&, std::span<const NDArray> in) { return AllFloat32(in); })
    .set_gradient(ConvBwdDataGrad, true, false);

MX_REGISTER_OP(_backward_Convolution_weight)
    .describe("Gradient of Convolution with respect to weight, from ograd and data.")
    .set_params<ConvolutionParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape(BackwardWeightShape<ConvolutionParam>("_backward_Convolution_weight"))
    .set_kernel(kRef, ConvBwdWeightKernel<false>)
    .set_kernel(kOpt, ConvBwdWeightKernel<true>,
                [](const OpAttrs&, std::span<const NDArray> in) { return AllFloat32(in); })
    .set_gradient(ConvBwdWeightGrad, true, false);

MX_REGISTER_OP(_backward_Deconvolution_data)
    .describe(
        "Gradient of Deconvolution with respect to data: the convolution of ograd with "
        "weight; data provides the shape (and the padding for target_shape).")
    .set_params<DeconvolutionParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"ograd", "weight", "data"})
    .set_infer_shape(BackwardDataShape<DeconvolutionParam>("_backward_Deconvolution_data"))
    .set_kernel(kRef, DeconvBwdDataKernel<false>)
    .set_kernel(kOpt, DeconvBwdDataKernel<true>,
                [](const OpAttrs&, std::span<const NDArray> in) { return AllFloat32(in); })
    .set_gradient(DeconvBwdDataGrad, true, false);

MX_REGISTER_OP(_backward_Deconvolution_weight)
    .describe("Gradient of Deconvolution with respect to weight, from ograd and data.")
    .set_params<DeconvolutionParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape(BackwardWeightShape<DeconvolutionParam>("_backward_Deconvolution_weight"))
    .set_kernel(kRef, DeconvBwdWeightKernel<false>)
    .set_kernel(kOpt, DeconvBwdWeightKernel<true>,
                [](const OpAttrs&, std::span<const NDArray> in) { return AllFloat32(in); })
    .set_gradient(DeconvBwdWeightGrad, true, false);

// ---- _channel_sum / _channel_broadcast_like. ----

// (outer, C, inner) view of `s` around `axis`.
struct AxisSplit {
  int64_t outer = 1, C = 1, inner = 1;
  AxisSplit(const Shape& s, int axis) {
    for (int i = 0; i < s.ndim(); ++i) (i < axis ? outer : i == axis ? C : inner) *= s[i];
  }
};

int ResolveAxis(std::string_view op, const OpAttrs& attrs, int ndim) {
  return NormalizeAxis(attrs.get<ChannelAxisParam>().axis, ndim, op);
}

// Optimized float32 _channel_sum: per-channel partial sums in SIMD lanes (the reference kernel's
// serial float accumulation is bound by the add latency: 2.4 ms for LeNet's 128x32x26x26 bias
// gradient). Channels-first (inner > 1) sums each channel's contiguous rows into 16 lanes;
// channels-last (inner == 1) adds whole rows of C channels at once.
void ChannelSumF32(const NDArray& in, const AxisSplit& s, const NDArray& out) {
  const float* x = static_cast<const float*>(in.data_ptr());
  float* y = static_cast<float*>(out.data_ptr());
  if (s.inner == 1) {
    constexpr int64_t kBlock = 256;  // channels per task
    ParallelForRange((s.C + kBlock - 1) / kBlock, 1, [&](int64_t b, int64_t e) {
      for (int64_t blk = b; blk < e; ++blk) {
        const int64_t c0 = blk * kBlock, c1 = std::min(s.C, c0 + kBlock);
        float acc[kBlock] = {};
        for (int64_t o = 0; o < s.outer; ++o) {
          const float* row = x + o * s.C;
#pragma omp simd
          for (int64_t c = c0; c < c1; ++c) acc[c - c0] += row[c];
        }
        for (int64_t c = c0; c < c1; ++c) y[c] = acc[c - c0];
      }
    });
    return;
  }
  ParallelForRange(s.C, std::max<int64_t>(1, 16384 / (s.outer * s.inner)),
                   [&](int64_t b, int64_t e) {
                     for (int64_t c = b; c < e; ++c) {
                       // 16 lanes: four independent SIMD accumulators hide the add latency.
                       float acc[16] = {};
                       for (int64_t o = 0; o < s.outer; ++o) {
                         const float* row = x + (o * s.C + c) * s.inner;
                         int64_t i = 0;
                         for (; i + 16 <= s.inner; i += 16) {
#pragma omp simd
                           for (int j = 0; j < 16; ++j) acc[j] += row[i + j];
                         }
                         for (; i < s.inner; ++i) acc[i % 16] += row[i];
                       }
                       float total = 0;
                       for (float a : acc) total += a;
                       y[c] = total;
                     }
                   });
}

MX_REGISTER_OP(_channel_sum)
    .describe(
        "Sums data over every axis except `axis`, giving a 1-D array (the bias gradient of "
        "Convolution/Deconvolution).")
    .set_params<ChannelAxisParam>()
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& d = (*in)[0];
      if (!d.ndim_known()) return;
      int axis = ResolveAxis("_channel_sum", attrs, d.ndim());
      AssignShape("_channel_sum", "output", &(*out)[0], Shape{d[axis]});
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  AxisSplit s(in[0].shape(), ResolveAxis("_channel_sum", attrs, in[0].ndim()));
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_channel_sum", {
                    using A = AccType<T>;
                    const T* x = static_cast<const T*>(in[0].data_ptr());
                    T* y = static_cast<T*>(out[0].data_ptr());
                    ParallelFor(
                        s.C,
                        [&](int64_t c) {
                          A acc = 0;
                          for (int64_t o = 0; o < s.outer; ++o)
                            for (int64_t i = 0; i < s.inner; ++i)
                              acc += static_cast<A>(x[(o * s.C + c) * s.inner + i]);
                          y[c] = static_cast<T>(acc);
                        },
                        1);
                  });
                })
    .set_kernel(
        kOpt,
        [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
           std::span<const NDArray> out) {
          ChannelSumF32(in[0],
                        AxisSplit(in[0].shape(), ResolveAxis("_channel_sum", attrs, in[0].ndim())),
                        out[0]);
        },
        [](const OpAttrs&, std::span<const NDArray> in) { return AllFloat32(in); })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{
              b.CallP("_channel_broadcast_like", {og[0], in[0]}, attrs.get<ChannelAxisParam>())};
        },
        true, false);

MX_REGISTER_OP(_channel_broadcast_like)
    .describe("Broadcasts a 1-D array along `axis` of like's shape (the adjoint of _channel_sum).")
    .set_params<ChannelAxisParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "like"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& like = (*in)[1];
      if (like.ndim_known()) {
        int axis = ResolveAxis("_channel_broadcast_like", attrs, like.ndim());
        AssignShape("_channel_broadcast_like", "data", &(*in)[0], Shape{like[axis]});
      }
      AssignShape("_channel_broadcast_like", "output", &(*out)[0], like);
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  AxisSplit s(out[0].shape(),
                              ResolveAxis("_channel_broadcast_like", attrs, out[0].ndim()));
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_channel_broadcast_like", {
                    const T* b = static_cast<const T*>(in[0].data_ptr());
                    T* y = static_cast<T*>(out[0].data_ptr());
                    ParallelFor(
                        s.outer * s.C,
                        [&](int64_t oc) {
                          const T v = b[oc % s.C];
                          for (int64_t i = 0; i < s.inner; ++i) y[oc * s.inner + i] = v;
                        },
                        16);
                  });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          return GVs{b.CallP("_channel_sum", {og[0]}, attrs.get<ChannelAxisParam>()),
                     b.ZerosLike(in[1])};
        },
        true, false);

}  // namespace
}  // namespace mxnet::ops
