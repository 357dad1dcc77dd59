// MXNet 1.9.1's quantized compute ops (src/operator/quantization/quantized_*.cc and their
// oneDNN kernels, which MXNet's CPU build runs): int8/uint8 inputs with (1,) float32 min/max
// ranges, integer outputs with ranges.
//   _contrib_quantized_conv / _contrib_quantized_fully_connected: int32 accumulators
//   _contrib_quantized_pooling, _contrib_quantized_act (relu), _contrib_quantized_flatten,
//   _contrib_quantized_concat, _contrib_quantized_elemwise_add
// Reference kernels are direct integer loops; rescaling (concat, add) rounds like oneDNN's
// reorders (half to even, saturated). Inference only: declared non-differentiable.
#include <cstring>

#include "ndarray/ops/conv/conv_kernels.h"
#include "ndarray/ops/conv/conv_shape.h"
#include "ndarray/ops/quantization/quant_kernels.h"
#include "ndarray/ops/quantization/quant_params.h"
#include "ndarray/ops/quantization/quant_util.h"

namespace mxnet::ops {
namespace {

using namespace quant;
constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
constexpr KernelKey kOpt{DeviceType::kCPU, Backend::kOptimized};

const std::vector<std::string> kOutNames{"output", "min_output", "max_output"};

// Outputs 1 and 2 float32; input ranges [first, last) float32.
void RangeTypes(std::string_view op, DTypeVec* in, int first, int last, DTypeVec* out) {
  for (int i = first; i < last; ++i)
    AssignDType(op, StrCat("range input ", i), &(*in)[i], DType::kFloat32);
  AssignDType(op, "min output", &(*out)[1], DType::kFloat32);
  AssignDType(op, "max output", &(*out)[2], DType::kFloat32);
}

// Integer element i of an int8/uint8 array.
inline int32_t At8(const NDArray& a, int64_t i) {
  return a.dtype() == DType::kUint8 ? static_cast<const uint8_t*>(a.data_ptr())[i]
                                    : static_cast<const int8_t*>(a.data_ptr())[i];
}

// ---- _contrib_quantized_conv ----
const char* const kConvNames[] = {"data",       "weight",     "bias",     "min_data", "max_data",
                                  "min_weight", "max_weight", "min_bias", "max_bias"};

std::vector<std::string> ConvInputNames(bool no_bias) {
  std::vector<std::string> v;
  for (int i = 0; i < 9; ++i)
    if (!(no_bias && (i == 2 || i >= 7))) v.push_back(kConvNames[i]);
  return v;
}

ConvGeom QConvGeom(const ConvolutionParam& p, const Shape& data) {
  const char* op = "_contrib_quantized_conv";
  if (p.num_group != 1)
    MX_THROW(kInvalid, op, ": num_group must be 1 (MXNet's quantized_conv), got ", p.num_group);
  if (p.kernel.ndim() != 2 && p.kernel.ndim() != 3)
    MX_THROW(kInvalid, op, ": kernel must be 2-D or 3-D, got ", p.kernel.ToString());
  if (p.layout && *p.layout != "NCHW" && *p.layout != "NCDHW")
    MX_THROW(kInvalid, op, ": layout must be NCHW or NCDHW, got ", *p.layout);
  return ConvGeomFromConv(op, p, data);
}

void QConvShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "_contrib_quantized_conv";
  const auto& p = attrs.get<ConvolutionParam>();
  const int nb = p.no_bias ? 2 : 3;
  RangeShapes(op, in, nb, nb + (p.no_bias ? 4 : 6), out);
  if (!p.no_bias) AssignShape(op, "bias", &(*in)[2], Shape{p.num_filter});
  const Shape& data = (*in)[0];
  if (!data.is_known()) return;
  ConvGeom g = QConvGeom(p, data);
  AssignShape(op, "weight", &(*in)[1], g.WShape());
  AssignShape(op, "output", &(*out)[0], g.YShape());
}

void QConvType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  const char* op = "_contrib_quantized_conv";
  const auto& p = attrs.get<ConvolutionParam>();
  const int nb = p.no_bias ? 2 : 3;
  CheckDType(op, "data", (*in)[0], {DType::kUint8, DType::kInt8});
  AssignDType(op, "weight", &(*in)[1], DType::kInt8);
  if (!p.no_bias) AssignDType(op, "bias", &(*in)[2], DType::kInt8);
  RangeTypes(op, in, nb, nb + 4 + (p.no_bias ? 0 : 2), out);
  AssignDType(op, "output", &(*out)[0], DType::kInt32);
}

// Output range: data and weight ranges over 127 each (MXNet's S8S8 rule, uint8 data too).
void QConvRange(const ConvolutionParam& p, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const int nb = p.no_bias ? 2 : 3;
  const float r = ProductRange(Scalar(in[nb]), Scalar(in[nb + 1]), 127.0f, Scalar(in[nb + 2]),
                               Scalar(in[nb + 3]), 127.0f);
  SetScalar(out[1], -r);
  SetScalar(out[2], r);
}

template <bool kOptimized>
void QConvKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const auto& p = attrs.get<ConvolutionParam>();
  ConvGeom g = QConvGeom(p, in[0].shape());
  const NDArray* bias = p.no_bias ? nullptr : &in[2];
  if (!(kOptimized && onednn::QuantizedConvForward(g, in[0], in[1], bias, out[0])))
    QuantizedConvRef(g, in[0], in[1], bias, out[0]);
  QConvRange(p, in, out);
}

MX_REGISTER_OP(_contrib_quantized_conv)
    .describe(
        "int8 Convolution (MXNet 1.9.1 _contrib_quantized_conv): data (N, C, H, W) or (N, C, D, "
        "H, W) uint8 (MXNet's CPU kernel) or int8, weight (num_filter, C, k...) int8, optional "
        "bias (num_filter,) int8 added unscaled, then min/max of data, weight (and bias), each "
        "(1,) float32. Output int32 sum(x * w) + bias, range +-(max|data|/127 * max|weight|/127 "
        "* 2^31). Attributes: Convolution's; num_group must be 1, layout NCHW/NCDHW.")
    .set_params<ConvolutionParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<ConvolutionParam>().no_bias ? 6 : 9; })
    .set_num_outputs(3)
    .set_input_names([](const OpAttrs& a) {
      return ConvInputNames(a.get<ConvolutionParam>().no_bias);
    })
    .set_output_names(kOutNames)
    .set_infer_shape(QConvShape)
    .set_infer_type(QConvType)
    .set_kernel(kRef, QConvKernel<false>)
    .set_kernel(kOpt, QConvKernel<true>)
    .set_non_differentiable();

// ---- _contrib_quantized_fully_connected ----
struct QFcDims {
  int64_t M, K;
};
QFcDims QFcDimsOf(const FullyConnectedParam& p, const Shape& d) {
  if (d.ndim() < 1)
    MX_THROW(kInvalid, "_contrib_quantized_fully_connected: data must have at least 1 dim");
  int64_t M = 1, K = 1;
  const int n = d.ndim();
  if (p.flatten) {
    M = d[0];
    for (int i = 1; i < n; ++i) K *= d[i];
  } else {
    for (int i = 0; i + 1 < n; ++i) M *= d[i];
    K = d[n - 1];
  }
  return {M, K};
}

void QFcShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "_contrib_quantized_fully_connected";
  const auto& p = attrs.get<FullyConnectedParam>();
  const int nb = p.no_bias ? 2 : 3;
  RangeShapes(op, in, nb, nb + (p.no_bias ? 4 : 6), out);
  if (!p.no_bias) AssignShape(op, "bias", &(*in)[2], Shape{p.num_hidden});
  const Shape& d = (*in)[0];
  if (!d.is_known()) return;
  QFcDims m = QFcDimsOf(p, d);
  AssignShape(op, "weight", &(*in)[1], Shape{p.num_hidden, m.K});
  Shape o = d;
  if (p.flatten)
    o = Shape{d[0], p.num_hidden};
  else
    o[o.ndim() - 1] = p.num_hidden;
  AssignShape(op, "output", &(*out)[0], o);
}

void QFcType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  const char* op = "_contrib_quantized_fully_connected";
  const auto& p = attrs.get<FullyConnectedParam>();
  const int nb = p.no_bias ? 2 : 3;
  CheckDType(op, "data", (*in)[0], {DType::kInt8, DType::kUint8});
  AssignDType(op, "weight", &(*in)[1], DType::kInt8);
  if (!p.no_bias) AssignDType(op, "bias", &(*in)[2], DType::kInt8);
  RangeTypes(op, in, nb, nb + 4 + (p.no_bias ? 0 : 2), out);
  AssignDType(op, "output", &(*out)[0], DType::kInt32);
}

void QFcKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  const auto& p = attrs.get<FullyConnectedParam>();
  const int nb = p.no_bias ? 2 : 3;
  QFcDims m = QFcDimsOf(p, in[0].shape());
  const int64_t H = p.num_hidden;
  const float min_d = Scalar(in[nb]), max_d = Scalar(in[nb + 1]);
  const float min_w = Scalar(in[nb + 2]), max_w = Scalar(in[nb + 3]);
  const bool u8 = in[0].dtype() == DType::kUint8;
  // MXNet rescales the int8 bias into the int32 accumulator scale (truncating).
  std::vector<int32_t> b(H, 0);
  if (!p.no_bias) {
    const float data_scale = (u8 ? kUint8Range : kInt8Range) / MaxAbs(min_d, max_d);
    const float weight_scale = kInt8Range / MaxAbs(min_w, max_w);
    const float rescale =
        data_scale * weight_scale * MaxAbs(Scalar(in[nb + 4]), Scalar(in[nb + 5])) / kInt8Range;
    const int8_t* bp = in[2].data<int8_t>();
    for (int64_t h = 0; h < H; ++h) b[h] = static_cast<int32_t>(bp[h] * rescale);
  }
  const int8_t* w = in[1].data<int8_t>();
  int32_t* y = out[0].data<int32_t>();
  for (int64_t i = 0; i < m.M; ++i)
    for (int64_t h = 0; h < H; ++h) {
      int32_t acc = b[h];
      for (int64_t k = 0; k < m.K; ++k) acc += At8(in[0], i * m.K + k) * w[h * m.K + k];
      y[i * H + h] = acc;
    }
  // int8 data: both ranges over 127; uint8 data: MXNet's S8U8 rule (data / 127, weight / 255).
  const float r = ProductRange(min_d, max_d, 127.0f, min_w, max_w, u8 ? 255.0f : 127.0f);
  SetScalar(out[1], -r);
  SetScalar(out[2], r);
}

MX_REGISTER_OP(_contrib_quantized_fully_connected)
    .describe(
        "int8 FullyConnected (MXNet 1.9.1 _contrib_quantized_fully_connected): data int8 or "
        "uint8 (flatten=True: (N, ...) -> (N, K); False: (..., K)), weight (num_hidden, K) int8, "
        "optional bias (num_hidden,) int8 rescaled to the accumulator scale (truncated), then "
        "min/max of data, weight (and bias), each (1,) float32. Output int32 x . w^T + bias with "
        "range +-(max|data|/127 * max|weight|/127 * 2^31) (uint8 data: weight over 255).")
    .set_params<FullyConnectedParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<FullyConnectedParam>().no_bias ? 6 : 9; })
    .set_num_outputs(3)
    .set_input_names([](const OpAttrs& a) {
      return ConvInputNames(a.get<FullyConnectedParam>().no_bias);
    })
    .set_output_names(kOutNames)
    .set_infer_shape(QFcShape)
    .set_infer_type(QFcType)
    .set_kernel(kRef, QFcKernel)
    .set_non_differentiable();

// ---- Single-input ops: data, min_data, max_data -> output, min_output, max_output. ----
const std::vector<std::string> kDataRange{"data", "min_data", "max_data"};

void PassRange(std::span<const NDArray> in, std::span<const NDArray> out) {
  SetScalar(out[1], Scalar(in[1]));
  SetScalar(out[2], Scalar(in[2]));
}

FInferType Q8Type(const char* op, bool out_int8) {
  return [op, out_int8](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
    CheckDType(op, "data", (*in)[0], {DType::kInt8, DType::kUint8});
    RangeTypes(op, in, 1, 3, out);
    if (out_int8)
      AssignDType(op, "output", &(*out)[0], DType::kInt8);
    else if ((*in)[0] >= 0)
      AssignDType(op, "output", &(*out)[0], static_cast<DType>((*in)[0]));
  };
}

// _contrib_quantized_flatten
MX_REGISTER_OP(_contrib_quantized_flatten)
    .describe(
        "Flatten of int8/uint8 data (MXNet 1.9.1 _contrib_quantized_flatten): (N, d1, ...) -> "
        "(N, d1*...), same dtype; min/max (1,) float32 pass through.")
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_input_names(kDataRange)
    .set_output_names(kOutNames)
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const char* op = "_contrib_quantized_flatten";
      RangeShapes(op, in, 1, 3, out);
      const Shape& d = (*in)[0];
      if (!d.ndim_known()) return;
      if (d.ndim() < 1) MX_THROW(kInvalid, op, ": data must have at least 1 dim");
      int64_t k = 1;
      for (int i = 1; i < d.ndim(); ++i) k = (k < 0 || d[i] < 0) ? -1 : k * d[i];
      AssignShape(op, "output", &(*out)[0], Shape{d[0], k});
    })
    .set_infer_type(Q8Type("_contrib_quantized_flatten", false))
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::memcpy(out[0].data_ptr(), in[0].data_ptr(), in[0].nbytes());
                  PassRange(in, out);
                })
    .set_non_differentiable();

// _contrib_quantized_act
MX_REGISTER_OP(_contrib_quantized_act)
    .describe(
        "ReLU of int8/uint8 data (MXNet 1.9.1 _contrib_quantized_act, act_type='relu' only): "
        "output int8 max(x, 0) (uint8 data: its bytes unchanged, typed int8 as MXNet does); "
        "min/max pass through. Errors: act_type other than relu, data not int8/uint8.")
    .set_params<QuantizedActParam>()
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_input_names(kDataRange)
    .set_output_names(kOutNames)
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      RangeShapes("_contrib_quantized_act", in, 1, 3, out);
      AssignShape("_contrib_quantized_act", "output", &(*out)[0], (*in)[0]);
    })
    .set_infer_type([](const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
      if (attrs.get<QuantizedActParam>().act_type != "relu")
        MX_THROW(kInvalid, "_contrib_quantized_act: only act_type=relu is supported, got ",
                 attrs.get<QuantizedActParam>().act_type);
      Q8Type("_contrib_quantized_act", true)(attrs, in, out);
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  if (in[0].dtype() == DType::kUint8) {
                    std::memcpy(out[0].data_ptr(), in[0].data_ptr(), in[0].nbytes());
                  } else {
                    const int8_t* x = in[0].data<int8_t>();
                    int8_t* y = out[0].data<int8_t>();
                    for (int64_t i = 0, n = in[0].size(); i < n; ++i) y[i] = x[i] > 0 ? x[i] : 0;
                  }
                  PassRange(in, out);
                })
    .set_non_differentiable();

// _contrib_quantized_pooling
void QPoolCheck(const PoolingParam& p) {
  if (p.pool_type != "max" && p.pool_type != "avg")
    MX_THROW(kInvalid, "_contrib_quantized_pooling: pool_type must be max or avg, got ",
             p.pool_type);
  if (p.layout && *p.layout != "NCHW" && *p.layout != "NCDHW")
    MX_THROW(kInvalid, "_contrib_quantized_pooling: layout must be NCHW or NCDHW, got ", *p.layout);
}

MX_REGISTER_OP(_contrib_quantized_pooling)
    .describe(
        "Max/avg Pooling of int8/uint8 data (MXNet 1.9.1 _contrib_quantized_pooling): data "
        "(N, C, H, W) or (N, C, D, H, W), Pooling's attributes and window rules; avg rounds the "
        "window mean half to even. Output same dtype; min/max pass through. Errors: pool_type "
        "other than max/avg, data rank other than 4/5.")
    .set_params<PoolingParam>()
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_input_names(kDataRange)
    .set_output_names(kOutNames)
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const char* op = "_contrib_quantized_pooling";
      const auto& p = attrs.get<PoolingParam>();
      QPoolCheck(p);
      RangeShapes(op, in, 1, 3, out);
      const Shape& d = (*in)[0];
      if (!d.ndim_known()) return;
      if (d.ndim() != 4 && d.ndim() != 5)
        MX_THROW(kInvalid, op, ": data must be 4-D or 5-D, got shape ", d.ToString());
      AssignShape(op, "output", &(*out)[0], PoolingOutputShape(op, p, d));
    })
    .set_infer_type(Q8Type("_contrib_quantized_pooling", false))
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const char* op = "_contrib_quantized_pooling";
                  const auto& p = attrs.get<PoolingParam>();
                  PoolGeom g = PoolGeomFrom(op, p, in[0].shape());
                  // Integers are exact in float32: max is exact, avg rounds sum / count.
                  NDArray xf = in[0].astype(DType::kFloat32);
                  NDArray yf = NDArray(out[0].shape(), cpu(), DType::kFloat32);
                  PoolForwardRef(op, g, GetPoolKind(p), p.count_include_pad.value_or(true), 1, xf,
                                 yf);
                  const float* y = yf.data<float>();
                  const int64_t n = yf.size();
                  if (out[0].dtype() == DType::kUint8)
                    for (int64_t i = 0; i < n; ++i)
                      out[0].data<uint8_t>()[i] = Saturate<uint8_t>(y[i]);
                  else
                    for (int64_t i = 0; i < n; ++i)
                      out[0].data<int8_t>()[i] = Saturate<int8_t>(y[i]);
                  PassRange(in, out);
                })
    .set_non_differentiable();

// ---- _contrib_quantized_concat ----
int ConcatAxis(const QuantizedConcatParam& p, int ndim) {
  const int axis = p.dim < 0 ? p.dim + ndim : p.dim;
  if (axis < 0 || axis >= ndim)
    MX_THROW(kInvalid, "_contrib_quantized_concat: dim ", p.dim, " out of range for ", ndim,
             "-D inputs");
  return axis;
}

void QConcatShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "_contrib_quantized_concat";
  const auto& p = attrs.get<QuantizedConcatParam>();
  const int n = p.num_args;
  RangeShapes(op, in, n, 3 * n, out);
  Shape first = (*in)[0];
  if (!first.ndim_known()) return;
  const int axis = ConcatAxis(p, first.ndim());
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const Shape& s = (*in)[i];
    if (!s.ndim_known()) return;
    if (s.ndim() != first.ndim())
      MX_THROW(kInvalid, op, ": input ", i, " has shape ", s.ToString(), ", input 0 ",
               first.ToString(), " (ranks differ)");
    for (int d = 0; d < s.ndim(); ++d)
      if (d != axis && s[d] >= 0 && first[d] >= 0 && s[d] != first[d])
        MX_THROW(kInvalid, op, ": input ", i, " has shape ", s.ToString(), ", input 0 ",
                 first.ToString(), " (dims other than dim=", p.dim, " must match)");
    total = (total < 0 || s[axis] < 0) ? -1 : total + s[axis];
  }
  first[axis] = total;
  AssignShape(op, "output", &(*out)[0], first);
}

void QConcatType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  const char* op = "_contrib_quantized_concat";
  const int n = attrs.get<QuantizedConcatParam>().num_args;
  DType t = DType::kUint8;
  for (int i = 0; i < n; ++i) {
    CheckDType(op, StrCat("data ", i), (*in)[i], {DType::kInt8, DType::kUint8});
    if ((*in)[i] == static_cast<int>(DType::kInt8)) t = DType::kInt8;
  }
  RangeTypes(op, in, n, 3 * n, out);
  AssignDType(op, "output", &(*out)[0], t);
}

float Q8Scale(DType t, float lo, float hi) {
  return (t == DType::kInt8 ? kInt8Range : kUint8Range) / MaxAbs(lo, hi);
}

void QConcatKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<QuantizedConcatParam>();
  const int n = p.num_args;
  float lo = 0, hi = 0;  // the output range always contains 0
  for (int i = 0; i < n; ++i) {
    lo = std::min(lo, Scalar(in[n + 2 * i]));
    hi = std::max(hi, Scalar(in[n + 2 * i + 1]));
  }
  SetScalar(out[1], lo);
  SetScalar(out[2], hi);
  const DType t = out[0].dtype();
  const float out_scale = Q8Scale(t, lo, hi);
  const Shape& os = out[0].shape();
  const int axis = ConcatAxis(p, os.ndim());
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= os[d];
  for (int d = axis + 1; d < os.ndim(); ++d) inner *= os[d];
  int64_t offset = 0;
  for (int i = 0; i < n; ++i) {
    const NDArray& x = in[i];
    const float s =
        out_scale / Q8Scale(x.dtype(), Scalar(in[n + 2 * i]), Scalar(in[n + 2 * i + 1]));
    const bool same = s == 1.0f && x.dtype() == t;
    const int64_t len = x.shape()[axis] * inner;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < len; ++j) {
        const int64_t src = o * len + j, dst = o * os[axis] * inner + offset + j;
        const int32_t v = At8(x, src);
        if (t == DType::kUint8)
          out[0].data<uint8_t>()[dst] =
              same ? static_cast<uint8_t>(v) : Saturate<uint8_t>(static_cast<float>(v) * s);
        else
          out[0].data<int8_t>()[dst] =
              same ? static_cast<int8_t>(v) : Saturate<int8_t>(static_cast<float>(v) * s);
      }
    offset += len;
  }
}

MX_REGISTER_OP(_contrib_quantized_concat)
    .describe(
        "Concat of int8/uint8 arrays (MXNet 1.9.1 _contrib_quantized_concat): inputs data_0.. "
        "data_{n-1}, then min_i, max_i per input ((1,) float32); attributes num_args "
        "(required), dim (default 1). Output int8 if any input is int8, else uint8, with range "
        "(min(0, min_i), max(0, max_i)); inputs with another scale are rescaled by out_scale / "
        "in_scale (scale = 127.5 or 255.5 over max(|min|, |max|)), rounded half to even.")
    .set_params<QuantizedConcatParam>()
    .set_num_inputs([](const OpAttrs& a) { return 3 * a.get<QuantizedConcatParam>().num_args; })
    .set_num_outputs(3)
    .set_input_names([](const OpAttrs& a) {
      const int n = a.get<QuantizedConcatParam>().num_args;
      std::vector<std::string> v;
      for (int i = 0; i < n; ++i) v.push_back(StrCat("arg", i));
      for (int i = 0; i < n; ++i) {
        v.push_back(StrCat("arg", i, "_min"));
        v.push_back(StrCat("arg", i, "_max"));
      }
      return v;
    })
    .set_output_names(kOutNames)
    .set_infer_shape(QConcatShape)
    .set_infer_type(QConcatType)
    .set_kernel(kRef, QConcatKernel)
    .set_non_differentiable();

// ---- _contrib_quantized_elemwise_add ----
template <typename T>
void AddInto(const NDArray& a, const NDArray& b, float sa, float sb, const NDArray& y) {
  T* out = y.data<T>();
  for (int64_t i = 0, n = y.size(); i < n; ++i) {
    // oneDNN's int8 sum accumulates sa * a + sb * b in float32, then rounds once.
    const float acc = static_cast<float>(At8(a, i)) * sa;
    out[i] = Saturate<T>(static_cast<float>(At8(b, i)) * sb + acc);
  }
}

void QAddKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<QuantizedElemwiseAddParam>();
  NDArray a = in[0], b = in[1];
  const float a_min = Scalar(in[2]), a_max = Scalar(in[3]);
  const float b_min = Scalar(in[4]), b_max = Scalar(in[5]);
  const float a_abs = MaxAbs(a_min, a_max), b_abs = MaxAbs(b_min, b_max);
  const bool a_s8 = a.dtype() == DType::kInt8;
  const float a_range = a_s8 ? kInt8Range : kUint8Range;
  const float a_scale = Q8Scale(a.dtype(), a_min, a_max),
              b_scale = Q8Scale(b.dtype(), b_min, b_max);
  const DType t = out[0].dtype();
  const float out_range = t == DType::kInt8 ? kInt8Range
                          : t == DType::kUint8
                              ? kUint8Range
                              : static_cast<float>(std::numeric_limits<int32_t>::max());
  float out_min, out_max, out_scale = 0;
  if (p.has_calib()) {
    out_min = *p.min_calib_range;
    out_max = *p.max_calib_range;
    out_scale = out_range / MaxAbs(out_min, out_max);
  } else {
    out_max = a_abs + b_abs;
    out_min = -out_max;
  }
  float sa = 1, sb = 1;
  if (a.dtype() != b.dtype()) {
    // The uint8 input is first reordered to int8 with its own scale, then summed with scale 1.
    float u8_scale;
    if (p.has_calib()) {
      u8_scale = out_scale / (a_s8 ? b_scale : a_scale);
      (a_s8 ? sa : sb) = out_scale / (a_s8 ? a_scale : b_scale);
    } else if (a_s8) {
      u8_scale = b_abs * out_range / ((a_abs + b_abs) * kUint8Range);
      sa = a_abs * out_range / ((a_abs + b_abs) * a_range);
    } else {
      u8_scale = a_abs * out_range / ((a_abs + b_abs) * a_range);
      sb = b_abs * out_range / ((a_abs + b_abs) * kInt8Range);
    }
    NDArray& u = a_s8 ? b : a;
    NDArray r = NDArray(u.shape(), cpu(), DType::kInt8);
    const uint8_t* src = u.data<uint8_t>();
    for (int64_t i = 0, n = u.size(); i < n; ++i)
      r.data<int8_t>()[i] = Saturate<int8_t>(static_cast<float>(src[i]) * u8_scale);
    u = r;
  } else if (p.has_calib()) {
    sa = out_scale / a_scale;
    sb = out_scale / b_scale;
  } else {
    sa = a_abs * out_range / ((a_abs + b_abs) * a_range);
    sb = b_abs * out_range / ((a_abs + b_abs) * a_range);
  }
  if (t == DType::kInt8)
    AddInto<int8_t>(a, b, sa, sb, out[0]);
  else if (t == DType::kUint8)
    AddInto<uint8_t>(a, b, sa, sb, out[0]);
  else
    AddInto<int32_t>(a, b, sa, sb, out[0]);
  SetScalar(out[1], out_min);
  SetScalar(out[2], out_max);
}

MX_REGISTER_OP(_contrib_quantized_elemwise_add)
    .describe(
        "Sum of two int8/uint8 arrays of one shape (MXNet 1.9.1 "
        "_contrib_quantized_elemwise_add): inputs lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max. "
        "Without calibration: int32 output with range +-(max|lhs| + max|rhs|), each input "
        "scaled by its share of 2^31; with min/max_calib_range: the inputs' dtype if equal, "
        "else int8, scaled to the calibrated range. Rounded half to even, saturated.")
    .set_params<QuantizedElemwiseAddParam>()
    .set_num_inputs(6)
    .set_num_outputs(3)
    .set_input_names(std::vector<std::string>{"lhs", "rhs", "lhs_min", "lhs_max", "rhs_min",
                                              "rhs_max"})
    .set_output_names(kOutNames)
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const char* op = "_contrib_quantized_elemwise_add";
      RangeShapes(op, in, 2, 6, out);
      AssignShape(op, "rhs", &(*in)[1], (*in)[0]);
      AssignShape(op, "lhs", &(*in)[0], (*in)[1]);
      AssignShape(op, "output", &(*out)[0], (*in)[0]);
    })
    .set_infer_type([](const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
      const char* op = "_contrib_quantized_elemwise_add";
      CheckDType(op, "lhs", (*in)[0], {DType::kInt8, DType::kUint8});
      CheckDType(op, "rhs", (*in)[1], {DType::kInt8, DType::kUint8});
      RangeTypes(op, in, 2, 6, out);
      if (!attrs.get<QuantizedElemwiseAddParam>().has_calib())
        AssignDType(op, "output", &(*out)[0], DType::kInt32);
      else if ((*in)[0] >= 0 && (*in)[1] >= 0)
        AssignDType(op, "output", &(*out)[0],
                    (*in)[0] == (*in)[1] ? static_cast<DType>((*in)[0]) : DType::kInt8);
    })
    .set_kernel(kRef, QAddKernel)
    .set_non_differentiable();

// ---- _contrib_quantized_elemwise_mul ----
void QMulKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<QuantizedElemwiseMulParam>();
  const float l_min = Scalar(in[2]), l_max = Scalar(in[3]);
  const float r_min = Scalar(in[4]), r_max = Scalar(in[5]);
  const float l_scale = kInt8Range / MaxAbs(l_min, l_max);
  const float r_scale = kInt8Range / MaxAbs(r_min, r_max);
  const int8_t* a = in[0].data<int8_t>();
  const int8_t* b = in[1].data<int8_t>();
  const int64_t n = out[0].size();
  if (p.enable_float_output) {
    const auto s = static_cast<float>(1.0 / l_scale / r_scale);  // in double, as MXNet
    float* y = out[0].data<float>();
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(a[i] * b[i]) * s;
    return;
  }
  if (p.has_calib()) {
    const float lo = *p.min_calib_range, hi = *p.max_calib_range;
    const float s = kInt8Range / MaxAbs(lo, hi) / l_scale / r_scale;
    int8_t* y = out[0].data<int8_t>();
    // MXNet truncates toward zero (saturated here where its cast would overflow).
    for (int64_t i = 0; i < n; ++i)
      y[i] = static_cast<int8_t>(
          std::clamp(std::trunc(static_cast<float>(a[i] * b[i]) * s), -128.0f, 127.0f));
    SetScalar(out[1], lo);
    SetScalar(out[2], hi);
    return;
  }
  int32_t* y = out[0].data<int32_t>();
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
  const float r = ProductRange(l_min, l_max, 127.0f, r_min, r_max, 127.0f);
  SetScalar(out[1], -r);
  SetScalar(out[2], r);
}

MX_REGISTER_OP(_contrib_quantized_elemwise_mul)
    .describe(
        "Product of two int8 arrays of one shape (MXNet 1.9.1 _contrib_quantized_elemwise_mul): "
        "inputs lhs, rhs, lhs_min, lhs_max, rhs_min, rhs_max. Default: int32 a * b with range "
        "+-(max|lhs|/127 * max|rhs|/127 * 2^31); with min/max_calib_range: int8 "
        "trunc(a * b * 127.5/r_out / (127.5/r_lhs) / (127.5/r_rhs)), range = the calib bounds; "
        "enable_float_output: one float32 output a * b * r_lhs/127.5 * r_rhs/127.5.")
    .set_params<QuantizedElemwiseMulParam>()
    .set_num_inputs(6)
    .set_num_outputs([](const OpAttrs& a) {
      return a.get<QuantizedElemwiseMulParam>().enable_float_output ? 1 : 3;
    })
    .set_input_names(std::vector<std::string>{"lhs", "rhs", "lhs_min", "lhs_max", "rhs_min",
                                              "rhs_max"})
    .set_output_names(kOutNames)
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const char* op = "_contrib_quantized_elemwise_mul";
      for (int i = 2; i < 6; ++i) AssignShape(op, StrCat("range input ", i), &(*in)[i], Shape{1});
      if (out->size() == 3) {
        AssignShape(op, "min output", &(*out)[1], Shape{1});
        AssignShape(op, "max output", &(*out)[2], Shape{1});
      }
      AssignShape(op, "rhs", &(*in)[1], (*in)[0]);
      AssignShape(op, "lhs", &(*in)[0], (*in)[1]);
      AssignShape(op, "output", &(*out)[0], (*in)[0]);
    })
    .set_infer_type([](const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
      const char* op = "_contrib_quantized_elemwise_mul";
      const auto& p = attrs.get<QuantizedElemwiseMulParam>();
      AssignDType(op, "lhs", &(*in)[0], DType::kInt8);
      AssignDType(op, "rhs", &(*in)[1], DType::kInt8);
      for (int i = 2; i < 6; ++i)
        AssignDType(op, StrCat("range input ", i), &(*in)[i], DType::kFloat32);
      if (p.enable_float_output) {
        AssignDType(op, "output", &(*out)[0], DType::kFloat32);
        return;
      }
      AssignDType(op, "output", &(*out)[0], p.has_calib() ? DType::kInt8 : DType::kInt32);
      AssignDType(op, "min output", &(*out)[1], DType::kFloat32);
      AssignDType(op, "max output", &(*out)[2], DType::kFloat32);
    })
    .set_kernel(kRef, QMulKernel)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
