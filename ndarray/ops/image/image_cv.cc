// MXNet 1.9.1's OpenCV image ops without a codec (src/io/image_io.cc), with their names,
// aliases, inputs and attributes:
//   _cvimresize (alias _npi_cvimresize)  cv::resize of an (H, W, C) image: the OpenCV-exact
//                                        kernel of _image_resize (image_kernels.h)
//   _cvcopyMakeBorder                    cv::copyMakeBorder (constant/replicate/reflect/wrap/
//                                        reflect_101 borders)
// Neither is differentiable (MXNet registers no gradient).
//
// Deliberate differences from MXNet 1.9.1:
//  - interp must be 0..4 (MXNet passes any code to OpenCV: 5, INTER_LINEAR_EXACT, works there,
//    others fail inside OpenCV at run time);
//  - _cvimresize takes uint8/float32/float64 images (OpenCV's resize fails on int32 at run time);
//  - _cvcopyMakeBorder rejects int8/int64 (MXNet indexes past its dtype table) and float16 (as
//    MXNet), and a constant border on more than 4 channels (OpenCV's scalar has 4).
#include <cmath>
#include <cstring>
#include <limits>

#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/image/image_cv_api.h"
#include "ndarray/ops/image/image_kernels.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;  // NOLINT

// An (H, W, C) image (MXNet's ResizeShape / MakeBorderShape).
bool CheckHWC(const OpAttrs& a, const Shape& s) {
  if (!s.ndim_known()) return false;
  if (s.ndim() != 3) Fail(a, "expected an (H, W, C) image, got shape ", s.ToString());
  return true;
}

void CheckTypes(const OpAttrs& a, int t, std::initializer_list<DType> ok, const char* names) {
  if (t < 0) return;
  for (DType d : ok)
    if (t == DTypeFlag(d)) return;
  Fail(a, "expected a ", names, " image, got ", DTypeName(static_cast<DType>(t)));
}

// ---- _cvimresize ----
MX_REGISTER_OP(_cvimresize)
    .describe(
        "Resizes an (H, W, C) uint8/float32/float64 image to (h, w, C) like OpenCV's cv::resize "
        "(interp 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos-4; no antialiasing).")
    .add_alias("_npi_cvimresize")
    .set_params<CvResizeParam>()
    .set_input_names(std::vector<std::string>{"src"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& s = (*in)[0];
      if (!CheckHWC(a, s)) return;
      const auto& p = a.get<CvResizeParam>();
      MergeShape(&(*out)[0], Shape{p.h, p.w, s[2]}, "_cvimresize: output");
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      ElemwiseType(a, in, out);
      CheckTypes(a, (*in)[0], {DType::kUint8, DType::kFloat32, DType::kFloat64},
                 "uint8, float32 or float64");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  if (s[0] == 0 || s[1] == 0)
                    Fail(a, "cannot resize an empty image of shape ", s.ToString());
                  image::ResizeCv(in[0], out[0], a.get<CvResizeParam>().interp);
                })
    .set_non_differentiable();

// ---- _cvcopyMakeBorder ----
// The source index of position p (may be outside [0, n)) for border type `type` (OpenCV's
// borderInterpolate); -1 for a constant border.
int64_t BorderIndex(int64_t p, int64_t n, int type) {
  if (p >= 0 && p < n) return p;
  switch (type) {
    case 1:  // replicate: aaa|abc|ccc
      return p < 0 ? 0 : n - 1;
    case 2:    // reflect: cba|abc|cba
    case 4: {  // reflect_101: cb|abc|ba
      if (n == 1) return 0;
      const int64_t d = type == 4 ? 1 : 0;
      while (p < 0 || p >= n) p = p < 0 ? -p - 1 + d : 2 * n - 1 - p - d;
      return p;
    }
    case 3:  // wrap: bc|abc|ab
      return ((p % n) + n) % n;
    default:
      return -1;
  }
}

// One element of the fill colour in dtype T (OpenCV's saturate_cast: nearest, ties to even).
template <typename T>
T Saturate(double v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    const double r = std::nearbyint(v);
    if (!(r > std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (!(r < std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(r);
  }
}

void MakeBorderShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  const Shape& s = (*in)[0];
  if (!CheckHWC(a, s)) return;
  const auto& p = a.get<MakeBorderParam>();
  if ((p.type & ~16) == 0 && s[2] > 4)
    Fail(a, "a constant border fills at most 4 channels, got shape ", s.ToString());
  Shape o{s[0] < 0 ? -1 : s[0] + p.top + p.bot, s[1] < 0 ? -1 : s[1] + p.left + p.right, s[2]};
  MergeShape(&(*out)[0], o, "_cvcopyMakeBorder: output");
}

void MakeBorderKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const auto& p = a.get<MakeBorderParam>();
  const int type = p.type & ~16;
  const Shape& s = in[0].shape();
  const int64_t h = s[0], w = s[1], c = s[2], oh = out[0].shape()[0], ow = out[0].shape()[1];
  const size_t es = DTypeSize(in[0].dtype()), px = static_cast<size_t>(c) * es;
  // The fill pixel: values[k] (0 past its end), or value for the first 3 channels.
  std::vector<char> fill(px, 0);
  for (int64_t k = 0; k < c && k < 4; ++k) {
    const double v = !p.values.empty()
                         ? (k < static_cast<int64_t>(p.values.size()) ? p.values[k] : 0)
                         : (k < 3 ? p.value : 0);
    char* dst = fill.data() + k * es;
    switch (in[0].dtype()) {
      case DType::kUint8:
        *reinterpret_cast<uint8_t*>(dst) = Saturate<uint8_t>(v);
        break;
      case DType::kInt32:
        *reinterpret_cast<int32_t*>(dst) = Saturate<int32_t>(v);
        break;
      case DType::kFloat32:
        *reinterpret_cast<float*>(dst) = Saturate<float>(v);
        break;
      default:
        *reinterpret_cast<double*>(dst) = v;
        break;
    }
  }
  const char* x = static_cast<const char*>(in[0].data_ptr());
  char* y = static_cast<char*>(out[0].data_ptr());
  std::vector<int64_t> cols(ow);
  for (int64_t j = 0; j < ow; ++j) cols[j] = w == 0 ? -1 : BorderIndex(j - p.left, w, type);
  for (int64_t i = 0; i < oh; ++i) {
    const int64_t r = h == 0 ? -1 : BorderIndex(i - p.top, h, type);
    char* row = y + i * ow * px;
    for (int64_t j = 0; j < ow; ++j) {
      const char* src = (r < 0 || cols[j] < 0) ? fill.data() : x + (r * w + cols[j]) * px;
      std::memcpy(row + j * px, src, px);
    }
  }
}

MX_REGISTER_OP(_cvcopyMakeBorder)
    .describe(
        "Pads an (H, W, C) uint8/int32/float32/float64 image like OpenCV's cv::copyMakeBorder: "
        "(H + top + bot, W + left + right, C); type 0 constant (values, or value), 1 replicate, "
        "2 reflect, 3 wrap, 4 reflect_101.")
    .set_params<MakeBorderParam>()
    .set_input_names(std::vector<std::string>{"src"})
    .set_infer_shape(MakeBorderShape)
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      ElemwiseType(a, in, out);
      CheckTypes(a, (*in)[0], {DType::kUint8, DType::kInt32, DType::kFloat32, DType::kFloat64},
                 "uint8, int32, float32 or float64");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MakeBorderKernel)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops

// ---- nd:: API ----
namespace mxnet::nd::image {

NDArray cvimresize(const NDArray& src, int w, int h, int interp) {
  const Op& op = MX_ND_OP(_cvimresize);
  ops::CvResizeParam p;
  p.w = w;
  p.h = h;
  p.interp = interp;
  return Invoke(op, OpAttrs::From(op, p), std::vector<NDArray>{src})[0];
}

NDArray cvcopyMakeBorder(const NDArray& src, const ops::MakeBorderParam& p) {
  const Op& op = MX_ND_OP(_cvcopyMakeBorder);
  return Invoke(op, OpAttrs::From(op, p), std::vector<NDArray>{src})[0];
}

}  // namespace mxnet::nd::image
