// MXNet 1.9.1's quantize/dequantize ops (src/operator/quantization/quantize*.cc, dequantize.cc,
// requantize.cc and their oneDNN kernels, which MXNet's CPU build always runs). Values are
// scaled in float32 and rounded like oneDNN's scaled reorder: half to even, saturated.
//   _contrib_quantize(data f32, min_range (1,), max_range (1,)) -> (q, min, max)
//   _contrib_quantize_v2(data f32|int8|uint8) -> (q, min, max)
//   _contrib_dequantize(data int8|uint8, min_range, max_range) -> f32
//   _contrib_requantize(data int32, min_range, max_range) -> (q int8|uint8, min, max)
//   _contrib_quantize_asym(data f32) -> (q uint8, scale, shift)
// Inference only: declared non-differentiable.
#include <cstring>

#include "ndarray/ops/conv/conv_shape.h"
#include "ndarray/ops/quantization/quant_params.h"
#include "ndarray/ops/quantization/quant_util.h"

namespace mxnet::ops {
namespace quant {

void CheckDType(std::string_view op, std::string_view name, int t,
                std::initializer_list<DType> allowed) {
  if (t < 0) return;
  std::string names;
  for (DType d : allowed) {
    if (static_cast<int>(d) == t) return;
    names += StrCat(names.empty() ? "" : " or ", DTypeName(d));
  }
  MX_THROW(absl::StatusCode::kInvalidArgument, op, ": ", name, " must be ", names, ", got ",
           DTypeName(static_cast<DType>(t)));
}

void AssignDType(std::string_view op, std::string_view name, int* t, DType want) {
  CheckDType(op, name, *t, {want});
  *t = static_cast<int>(want);
}

void RangeShapes(std::string_view op, ShapeVec* in, int first, int last, ShapeVec* out) {
  for (int i = first; i < last; ++i)
    AssignShape(op, StrCat("range input ", i, " (a min or max)"), &(*in)[i], Shape{1});
  AssignShape(op, "min output", &(*out)[1], Shape{1});
  AssignShape(op, "max output", &(*out)[2], Shape{1});
}

}  // namespace quant

namespace {

using namespace quant;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};

// data -> output 0 of the same shape; inputs [1, n) and outputs 1, 2 are (1,).
FInferShape SameShapeWithRanges(const char* op, int num_range_inputs) {
  return [op, num_range_inputs](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
    for (int i = 1; i <= num_range_inputs; ++i)
      AssignShape(op, i == 1 ? "min_range" : "max_range", &(*in)[i], Shape{1});
    AssignShape(op, "output 1", &(*out)[1], Shape{1});
    AssignShape(op, "output 2", &(*out)[2], Shape{1});
    AssignShape(op, "output", &(*out)[0], (*in)[0]);
    AssignShape(op, "data", &(*in)[0], (*out)[0]);
  };
}

DType OutTypeOf(const std::string& out_type) {
  return out_type == "uint8" ? DType::kUint8 : DType::kInt8;
}
// MXNet's GetQuantizeOutputType: "auto" is uint8 only with calibration and min >= 0.
DType OutTypeOf(const QuantizeV2Param& p) {
  if (p.out_type == "auto")
    return p.has_calib() && *p.min_calib_range >= 0 ? DType::kUint8 : DType::kInt8;
  return OutTypeOf(p.out_type);
}

template <typename T>
void ScaleInto(const NDArray& x, float scale, const NDArray& y) {
  const float* src = x.data<float>();
  T* dst = y.data<T>();
  for (int64_t i = 0, n = x.size(); i < n; ++i) dst[i] = Saturate<T>(src[i] * scale);
}

// min and max of float data (MXNet's loop: +-FLT_MAX start values).
std::pair<float, float> MinMax(const NDArray& x) {
  float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
  const float* p = x.data<float>();
  for (int64_t i = 0, n = x.size(); i < n; ++i) {
    lo = std::min(lo, p[i]);
    hi = std::max(hi, p[i]);
  }
  return {lo, hi};
}

// ---- _contrib_quantize ----
void QuantizeKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& p = attrs.get<QuantizeParam>();
  const float lo = Scalar(in[1]), hi = Scalar(in[2]), real = MaxAbs(lo, hi);
  if (p.out_type == "uint8") {
    SetScalar(out[1], lo);
    SetScalar(out[2], hi);
    ScaleInto<uint8_t>(in[0], 255.0f / real, out[0]);
  } else {
    SetScalar(out[1], -real);
    SetScalar(out[2], real);
    ScaleInto<int8_t>(in[0], 127.0f / real, out[0]);
  }
}

MX_REGISTER_OP(_contrib_quantize)
    .describe(
        "Quantizes float32 data with the given range (MXNet 1.9.1 _contrib_quantize, oneDNN "
        "path). data any shape, min_range/max_range (1,) float32. out_type uint8 (default): "
        "q = sat(rne(x * 255 / max(|min|, |max|))), output range = the input range; int8: "
        "q = sat(rne(x * 127 / r)), r = max(|min|, |max|), output range (-r, r). Outputs "
        "(q, min_output (1,), max_output (1,)). Errors: data or ranges not float32.")
    .set_params<QuantizeParam>()
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_input_names(std::vector<std::string>{"data", "min_range", "max_range"})
    .set_infer_shape(SameShapeWithRanges("_contrib_quantize", 2))
    .set_infer_type([](const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
      const char* op = "_contrib_quantize";
      AssignDType(op, "data", &(*in)[0], DType::kFloat32);
      AssignDType(op, "min_range", &(*in)[1], DType::kFloat32);
      AssignDType(op, "max_range", &(*in)[2], DType::kFloat32);
      AssignDType(op, "output", &(*out)[0], OutTypeOf(attrs.get<QuantizeParam>().out_type));
      AssignDType(op, "min output", &(*out)[1], DType::kFloat32);
      AssignDType(op, "max output", &(*out)[2], DType::kFloat32);
    })
    .set_kernel(kRef, QuantizeKernel)
    .set_non_differentiable();

// ---- _contrib_quantize_v2 ----
void QuantizeV2Kernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const auto& p = attrs.get<QuantizeV2Param>();
  const DType t = in[0].dtype();
  if (t == DType::kInt8 || t == DType::kUint8) {
    // Already quantized: the bytes pass through (MXNet copies them even when out_type differs).
    std::memcpy(out[0].data_ptr(), in[0].data_ptr(), in[0].nbytes());
    if (p.has_calib()) {
      SetScalar(out[1], *p.min_calib_range);
      SetScalar(out[2], *p.max_calib_range);
    } else {
      const float r = t == DType::kUint8 ? kUint8Range : kInt8Range;
      SetScalar(out[1], t == DType::kUint8 ? 0.0f : -r);
      SetScalar(out[2], r);
    }
    return;
  }
  auto [lo, hi] = p.has_calib() ? std::pair{*p.min_calib_range, *p.max_calib_range} : MinMax(in[0]);
  const float real = MaxAbs(lo, hi);
  if (out[0].dtype() == DType::kUint8) {
    SetScalar(out[1], lo);
    SetScalar(out[2], hi);
    ScaleInto<uint8_t>(in[0], kUint8Range / real, out[0]);
  } else {
    SetScalar(out[1], -real);
    SetScalar(out[2], real);
    ScaleInto<int8_t>(in[0], kInt8Range / real, out[0]);
  }
}

MX_REGISTER_OP(_contrib_quantize_v2)
    .describe(
        "Quantizes float32 data with calibrated or data min/max (MXNet 1.9.1 "
        "_contrib_quantize_v2, oneDNN path). r = max(|min|, |max|); int8: q = sat(rne(x * 127.5 "
        "/ r)), output range (-r, r); uint8: q = sat(rne(x * 255.5 / r)), output range (min, "
        "max). out_type int8 (default), uint8, or auto (uint8 iff both calib bounds are set and "
        "min_calib_range >= 0). int8/uint8 data passes through unchanged with range = calib "
        "bounds or (-127.5, 127.5) / (0, 255.5). Outputs (q, min (1,), max (1,)). Errors: data "
        "not float32/int8/uint8.")
    .set_params<QuantizeV2Param>()
    .set_num_inputs(1)
    .set_num_outputs(3)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(SameShapeWithRanges("_contrib_quantize_v2", 0))
    .set_infer_type([](const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
      const char* op = "_contrib_quantize_v2";
      CheckDType(op, "data", (*in)[0], {DType::kFloat32, DType::kInt8, DType::kUint8});
      AssignDType(op, "output", &(*out)[0], OutTypeOf(attrs.get<QuantizeV2Param>()));
      AssignDType(op, "min output", &(*out)[1], DType::kFloat32);
      AssignDType(op, "max output", &(*out)[2], DType::kFloat32);
    })
    .set_kernel(kRef, QuantizeV2Kernel)
    .set_non_differentiable();

// ---- _contrib_dequantize ----
template <typename T>
void DequantizeAs(const NDArray& x, float scale, const NDArray& y) {
  const T* src = x.data<T>();
  float* dst = y.data<float>();
  for (int64_t i = 0, n = x.size(); i < n; ++i) dst[i] = static_cast<float>(src[i]) * scale;
}

void DequantizeKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const float real = MaxAbs(Scalar(in[1]), Scalar(in[2]));
  if (in[0].dtype() == DType::kUint8)
    DequantizeAs<uint8_t>(in[0], real / kUint8Range, out[0]);
  else
    DequantizeAs<int8_t>(in[0], real / kInt8Range, out[0]);
}

MX_REGISTER_OP(_contrib_dequantize)
    .describe(
        "Dequantizes int8/uint8 data to float32 (MXNet 1.9.1 _contrib_dequantize, oneDNN "
        "path): y = q * max(|min_range|, |max_range|) / 127.5 (int8) or / 255.5 (uint8). "
        "min_range/max_range (1,) float32. Errors: data not int8/uint8 (MXNet's CPU build has "
        "no int32 dequantize).")
    .set_params<DequantizeParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"data", "min_range", "max_range"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const char* op = "_contrib_dequantize";
      AssignShape(op, "min_range", &(*in)[1], Shape{1});
      AssignShape(op, "max_range", &(*in)[2], Shape{1});
      AssignShape(op, "output", &(*out)[0], (*in)[0]);
      AssignShape(op, "data", &(*in)[0], (*out)[0]);
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      const char* op = "_contrib_dequantize";
      CheckDType(op, "data", (*in)[0], {DType::kUint8, DType::kInt8});
      AssignDType(op, "min_range", &(*in)[1], DType::kFloat32);
      AssignDType(op, "max_range", &(*in)[2], DType::kFloat32);
      AssignDType(op, "output", &(*out)[0], DType::kFloat32);
    })
    .set_kernel(kRef, DequantizeKernel)
    .set_non_differentiable();

// ---- _contrib_requantize ----
void RequantizeKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const auto& p = attrs.get<QuantizeV2Param>();
  constexpr float kInt32Range = static_cast<float>(std::numeric_limits<int32_t>::max());
  const int32_t* x = in[0].data<int32_t>();
  const int64_t n = in[0].size();
  float real;
  if (p.has_calib()) {
    real = MaxAbs(*p.min_calib_range, *p.max_calib_range);
  } else {
    int32_t lo = std::numeric_limits<int32_t>::max(), hi = std::numeric_limits<int32_t>::min();
    for (int64_t i = 0; i < n; ++i) {
      lo = std::min(lo, x[i]);
      hi = std::max(hi, x[i]);
    }
    // MXNet keeps max(|lo|, |hi|) as an int32 (through float) before rescaling.
    const auto data_range =
        static_cast<int32_t>(MaxAbs(static_cast<float>(lo), static_cast<float>(hi)));
    real = static_cast<float>(data_range) * MaxAbs(Scalar(in[1]), Scalar(in[2])) / kInt32Range;
  }
  const float first = MaxAbs(Scalar(in[1]), Scalar(in[2])) / kInt32Range;
  const bool u8 = out[0].dtype() == DType::kUint8;
  SetScalar(out[1], u8 ? 0.0f : -real);
  SetScalar(out[2], real);
  const float scale = first * ((u8 ? 255.0f : 127.0f) / real);
  if (u8) {
    uint8_t* y = out[0].data<uint8_t>();
    for (int64_t i = 0; i < n; ++i) y[i] = Saturate<uint8_t>(static_cast<float>(x[i]) * scale);
  } else {
    int8_t* y = out[0].data<int8_t>();
    for (int64_t i = 0; i < n; ++i) y[i] = Saturate<int8_t>(static_cast<float>(x[i]) * scale);
  }
}

MX_REGISTER_OP(_contrib_requantize)
    .describe(
        "Requantizes int32 data (range max(|min_range|, |max_range|) over 2^31) to int8/uint8 "
        "(MXNet 1.9.1 _contrib_requantize, oneDNN path). The new range r is max(|min_calib|, "
        "|max_calib|) when both are set, else max|data| * range / 2^31; q = sat(rne(x * range / "
        "2^31 * 127 / r)) (uint8: 255), output range (-r, r) (uint8: (0, r)). out_type int8 "
        "(default), uint8, auto. Outputs (q, min (1,), max (1,)). Errors: data not int32.")
    .set_params<QuantizeV2Param>()
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_input_names(std::vector<std::string>{"data", "min_range", "max_range"})
    .set_infer_shape(SameShapeWithRanges("_contrib_requantize", 2))
    .set_infer_type([](const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
      const char* op = "_contrib_requantize";
      AssignDType(op, "data", &(*in)[0], DType::kInt32);
      AssignDType(op, "min_range", &(*in)[1], DType::kFloat32);
      AssignDType(op, "max_range", &(*in)[2], DType::kFloat32);
      AssignDType(op, "output", &(*out)[0], OutTypeOf(attrs.get<QuantizeV2Param>()));
      AssignDType(op, "min output", &(*out)[1], DType::kFloat32);
      AssignDType(op, "max output", &(*out)[2], DType::kFloat32);
    })
    .set_kernel(kRef, RequantizeKernel)
    .set_non_differentiable();

// ---- _contrib_quantize_asym ----
void QuantizeAsymKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                        std::span<const NDArray> out) {
  const auto& p = attrs.get<QuantizeAsymParam>();
  const bool calib = p.min_calib_range.has_value() && p.max_calib_range.has_value();
  auto [lo, hi] = calib ? std::pair{*p.min_calib_range, *p.max_calib_range} : MinMax(in[0]);
  const float scale = 255.0f / (hi - lo);
  const float shift = 255.0f - hi * scale;
  SetScalar(out[1], scale);
  SetScalar(out[2], shift);
  const float* x = in[0].data<float>();
  uint8_t* y = out[0].data<uint8_t>();
  for (int64_t i = 0, n = in[0].size(); i < n; ++i) y[i] = Saturate<uint8_t>(x[i] * scale + shift);
}

MX_REGISTER_OP(_contrib_quantize_asym)
    .describe(
        "Asymmetric uint8 quantization of float32 data (MXNet 1.9.1 _contrib_quantize_asym, "
        "oneDNN path): scale = 255 / (max - min), shift = 255 - max * scale with (min, max) the "
        "calib bounds when both are set, else the data's; q = sat(rne(x * scale + shift)). "
        "Outputs (q uint8, scale (1,), shift (1,)). Errors: data not float32. (MXNet runs this "
        "only for 3-D data; other ranks crash its native fallback.)")
    .set_params<QuantizeAsymParam>()
    .set_num_inputs(1)
    .set_num_outputs(3)
    .set_input_names(std::vector<std::string>{"data"})
    .set_output_names(std::vector<std::string>{"output", "scale", "shift"})
    .set_infer_shape(SameShapeWithRanges("_contrib_quantize_asym", 0))
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      const char* op = "_contrib_quantize_asym";
      AssignDType(op, "data", &(*in)[0], DType::kFloat32);
      AssignDType(op, "output", &(*out)[0], DType::kUint8);
      AssignDType(op, "scale", &(*out)[1], DType::kFloat32);
      AssignDType(op, "shift", &(*out)[2], DType::kFloat32);
    })
    .set_kernel(kRef, QuantizeAsymKernel)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
