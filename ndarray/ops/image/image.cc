// MXNet 1.9.1's image ops (mx.nd.image.*; src/operator/image/image_random.cc, crop.cc,
// resize.cc), with their names, _npx__image_* aliases, inputs and attributes:
//   _image_to_tensor        HWC/NHWC [0, 255] -> float32 CHW/NCHW [0, 1]
//   _image_normalize        (x - mean[c]) / std[c] on CHW/NCHW
//   _image_flip_left_right, _image_flip_top_bottom, _image_crop, _image_resize (OpenCV's)
//   _image_adjust_lighting  AlexNet PCA lighting with fixed alphas
//   _image_random_*         flips (p = 0.5), brightness, contrast, saturation, hue,
//                           color_jitter, lighting: global generator (ndarray/random.h)
// plus gradient ops _backward_image_normalize, _backward_image_crop (MXNet's names, here with
// inputs (ograd, data)) and _backward_image_to_tensor (not an MXNet op).
// The pixel kernels are shared with gluon's vision transforms (image_kernels.h).
//
// Deliberate differences from MXNet 1.9.1:
//  - gradients: to_tensor's is its adjoint and the flips' flip ograd (MXNet copies ograd
//    unchanged); resize is not differentiable (MXNet's copy fails unless the size is unchanged);
//  - flips and random flips also accept NHWC batches and any channel count;
//  - crop rejects negative x/y (MXNet reads outside the image); adjust_lighting's alpha must
//    have 3 values and 1-channel images come back unchanged (MXNet leaves them unwritten);
//  - random_saturation (and color_jitter) use the full luma (MXNet's kernel keeps 0.114 * B
//    only); random_* factors need min_factor <= max_factor;
//  - the odd middle column/row of a flip is copied (MXNet's kernel leaves it unwritten).
#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <utility>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/image/image_api.h"
#include "ndarray/ops/image/image_kernels.h"
#include "ndarray/random.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;  // NOLINT

// ---- inference helpers ----

// Image rank 3 (HWC) or, with batch, 4 (NHWC); the channel count must be 1 or 3 if rgb_only.
bool CheckImage(const OpAttrs& a, const Shape& s, bool batch, bool rgb_only, const char* layout) {
  if (!s.ndim_known()) return false;
  if (s.ndim() != 3 && !(batch && s.ndim() == 4))
    Fail(a, "expected an input of shape ", layout, ", got ", s.ToString());
  const int64_t c = s[s.ndim() - 1];
  if (rgb_only && c >= 0 && c != 1 && c != 3)
    Fail(a, "the last dimension must be the channel dimension with 1 or 3 elements, got shape ",
         s.ToString());
  return true;
}

void CheckPixelType(const OpAttrs& a, int t) {
  if (t < 0) return;
  if (t != DTypeFlag(DType::kUint8) && t != DTypeFlag(DType::kFloat32) &&
      t != DTypeFlag(DType::kFloat64))
    Fail(a, "expected a uint8, float32 or float64 image, got ", DTypeName(static_cast<DType>(t)));
}

// Same-shape image ops: (H, W, C) with C = 1 or 3 (MXNet's ImageShape).
void ImageShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  CheckImage(a, (*in)[0], false, true, "(H, W, C)");
  ElemwiseShape(a, in, out);
}

void FlipShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  CheckImage(a, (*in)[0], true, false, "(H, W, C) or (N, H, W, C)");
  ElemwiseShape(a, in, out);
}

void PixelType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  ElemwiseType(a, in, out);
  CheckPixelType(a, (*in)[0]);
}

// Gradient ops (ograd, data) -> like data.
void LikeDataShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  MergeShape(&(*out)[0], (*in)[1], StrCat(OpName(a), ": output"));
  (*in)[1] = (*out)[0];
}
void LikeDataType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  MergeType(&(*out)[0], (*in)[1], StrCat(OpName(a), ": output"));
  (*in)[1] = (*out)[0];
}

// The straight-through gradient of the augmentation ops (MXNet's ElemwiseGradUseNone{_copy}).
std::vector<GradValue> PassGrad(GradBuilder&, const OpAttrs&, std::span<const GradValue>,
                                std::span<const GradValue>, std::span<const GradValue> og) {
  return {og[0]};
}

std::vector<float> Floats(const std::vector<double>& v) { return {v.begin(), v.end()}; }

// ---- to_tensor ----
Shape ToTensorOut(const Shape& s) {
  if (s.ndim() == 3) return Shape{s[2], s[0], s[1]};
  return Shape{s[0], s[3], s[1], s[2]};
}

MX_REGISTER_OP(_image_to_tensor)
    .describe(
        "Converts an (H, W, C) or (N, H, W, C) image with values in [0, 255] to a float32 (C, H, "
        "W) or (N, C, H, W) tensor with values in [0, 1] (x / 255).")
    .add_alias("_npx__image_to_tensor")
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      if (!CheckImage(a, (*in)[0], true, false, "(H, W, C) or (N, H, W, C)")) return;
      MergeShape(&(*out)[0], ToTensorOut((*in)[0]), "_image_to_tensor: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], DTypeFlag(DType::kFloat32), "_image_to_tensor: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) { image::ToTensor(in[0], out[0]); })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.Call("_backward_image_to_tensor", {og[0], in[0]})};
        },
        true, false);

MX_REGISTER_OP(_backward_image_to_tensor)
    .describe(
        "The gradient of _image_to_tensor (not an MXNet op): ograd (C, H, W) / (N, C, H, W) "
        "transposed back to data's (H, W, C) / (N, H, W, C) layout and dtype, divided by 255.")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      LikeDataShape(a, in, out);
      if (CheckImage(a, (*in)[1], true, false, "(H, W, C) or (N, H, W, C)"))
        MergeShape(&(*in)[0], ToTensorOut((*in)[1]), "_backward_image_to_tensor: ograd");
    })
    .set_infer_type(LikeDataType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) { image::ToTensorBackward(in[0], out[0]); })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          GradValue t = b.Call("_image_to_tensor", {og[0]});
          return std::vector<GradValue>{b.Call("_amp_cast_grad", {t, in[0]}), b.ZerosLike(in[1])};
        },
        true, false);

// ---- normalize ----
void NormalizeShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out, int data) {
  const Shape& s = (*in)[data];
  if (s.ndim_known()) {
    if (s.ndim() != 3 && s.ndim() != 4)
      Fail(a, "expected a tensor of shape (C, H, W) or (N, C, H, W), got ", s.ToString());
    const int64_t c = s[s.ndim() == 3 ? 0 : 1];
    if (c >= 0) {
      if (c != 1 && c != 3)
        Fail(a, "the channel dimension (", s.ndim() == 3 ? "first" : "second",
             ") must have 1 or 3 elements, got shape ", s.ToString());
      const auto& p = a.get<ImageNormalizeParam>();
      for (const auto* v : {&p.mean, &p.std})
        if (v->size() != 1 && static_cast<int64_t>(v->size()) != c)
          Fail(a, "invalid ", v == &p.mean ? "mean" : "std", " for input with shape ", s.ToString(),
               ": it must have 1 or ", c, " elements, got ", PrintAttrValue(*v));
    }
  }
  MergeShape(&(*out)[0], s, StrCat(OpName(a), ": output"));
  for (auto& x : *in) MergeShape(&x, (*out)[0], StrCat(OpName(a), ": input"));
}

void FloatOnly(const OpAttrs& a, int t) {
  if (t >= 0 && t != DTypeFlag(DType::kFloat32) && t != DTypeFlag(DType::kFloat64))
    Fail(a, "expected a float32 or float64 tensor, got ", DTypeName(static_cast<DType>(t)));
}

MX_REGISTER_OP(_image_normalize)
    .describe(
        "Normalizes a (C, H, W) or (N, C, H, W) tensor (C = 1 or 3): (x - mean[c]) / std[c]; "
        "mean and std have 1 or C values.")
    .add_alias("_npx__image_normalize")
    .set_params<ImageNormalizeParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      NormalizeShape(a, in, out, 0);
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      ElemwiseType(a, in, out);
      FloatOnly(a, (*in)[0]);
    })
    .add_inplace(0, 0)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<ImageNormalizeParam>();
                  image::Normalize(in[0], out[0], Floats(p.mean), Floats(p.std));
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              b.CallP("_backward_image_normalize", {og[0], in[0]}, a.get<ImageNormalizeParam>())};
        },
        true, false);

MX_REGISTER_OP(_backward_image_normalize)
    .describe("The gradient of _image_normalize: ograd / std[c] (inputs ograd, data).")
    .set_params<ImageNormalizeParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      NormalizeShape(a, in, out, 1);
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      ElemwiseType(a, in, out);
      FloatOnly(a, (*in)[0]);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  image::NormalizeBackward(in[0], out[0], Floats(a.get<ImageNormalizeParam>().std));
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              b.CallP("_backward_image_normalize", {og[0], in[1]}, a.get<ImageNormalizeParam>()),
              b.ZerosLike(in[1])};
        },
        true, false);

// ---- flips ----
int FlipAxis(const NDArray& x, bool left_right) {
  const int batch = x.ndim() == 4 ? 1 : 0;
  return (left_right ? 1 : 0) + batch;
}

template <bool kLeftRight>
void FlipKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  image::Flip(in[0], out[0], FlipAxis(in[0], kLeftRight));
}

MX_REGISTER_OP(_image_flip_left_right)
    .describe("Mirrors an (H, W, C) image or (N, H, W, C) batch along the width.")
    .add_alias("_npx__image_flip_left_right")
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(FlipShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, FlipKernel<true>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          return std::vector<GradValue>{b.Call("_image_flip_left_right", {og[0]})};
        },
        false, false);

MX_REGISTER_OP(_image_flip_top_bottom)
    .describe("Mirrors an (H, W, C) image or (N, H, W, C) batch along the height.")
    .add_alias("_npx__image_flip_top_bottom")
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(FlipShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, FlipKernel<false>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          return std::vector<GradValue>{b.Call("_image_flip_top_bottom", {og[0]})};
        },
        false, false);

// A fair coin from the generator of `dev` (MXNet flips when bernoulli(0.5) is false).
bool Coin(Device dev) {
  random::GeneratorGuard g(dev);
  return std::bernoulli_distribution(0.5)(g.gen());
}

template <bool kLeftRight>
void RandomFlipKernel(const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  if (Coin(ctx.device)) {
    if (out[0].data_ptr() != in[0].data_ptr())
      std::memcpy(out[0].data_ptr(), in[0].data_ptr(), in[0].nbytes());
  } else {
    FlipKernel<kLeftRight>(ctx, a, in, out);
  }
}

MX_REGISTER_OP(_image_random_flip_left_right)
    .describe("Mirrors an (H, W, C) image (or a whole NHWC batch) along the width with p = 0.5.")
    .add_alias("_npx__image_random_flip_left_right")
    .set_input_names(std::vector<std::string>{"data"})
    .set_random()
    .set_infer_shape(FlipShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RandomFlipKernel<true>)
    .set_gradient(PassGrad, false, false);

MX_REGISTER_OP(_image_random_flip_top_bottom)
    .describe("Mirrors an (H, W, C) image (or a whole NHWC batch) along the height with p = 0.5.")
    .add_alias("_npx__image_random_flip_top_bottom")
    .set_input_names(std::vector<std::string>{"data"})
    .set_random()
    .set_infer_shape(FlipShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RandomFlipKernel<false>)
    .set_gradient(PassGrad, false, false);

// ---- crop ----
void CropShapeOf(const OpAttrs& a, const Shape& s, Shape* out) {
  if (!CheckImage(a, s, true, true, "(H, W, C) or (N, H, W, C)")) return;
  const auto& p = a.get<ImageCropParam>();
  if (p.width <= 0 || p.height <= 0)
    Fail(a, "width and height must be > 0, got width=", p.width, ", height=", p.height);
  if (p.x < 0 || p.y < 0) Fail(a, "x and y must be >= 0, got x=", p.x, ", y=", p.y);
  const int nd = s.ndim();
  const int64_t h = s[nd - 3], w = s[nd - 2];
  if (w >= 0 && p.x + p.width > w)
    Fail(a, "x + width = ", p.x + p.width, " exceeds the input width ", w, " (shape ", s.ToString(),
         ")");
  if (h >= 0 && p.y + p.height > h)
    Fail(a, "y + height = ", p.y + p.height, " exceeds the input height ", h, " (shape ",
         s.ToString(), ")");
  Shape o = s;
  o[nd - 3] = p.height;
  o[nd - 2] = p.width;
  MergeShape(out, o, StrCat(OpName(a), ": output"));
}

// Strided view of the crop box inside the full image (dims/strides in elements).
void CropCopy(const OpAttrs& a, const NDArray& full, const NDArray& box, bool to_box) {
  const auto& p = a.get<ImageCropParam>();
  const Shape& s = full.shape();
  const int nd = s.ndim();
  std::vector<int64_t> fs = Strides(s), bs = Strides(box.shape());
  const int64_t off = p.y * fs[nd - 3] + p.x * fs[nd - 2];
  const size_t es = DTypeSize(full.dtype());
  std::vector<int64_t> dims = box.shape().ToVector();
  if (to_box)
    StridedCopy(box.data_ptr(), ElemPtr(full.data_ptr(), off, es), es, dims, bs, fs);
  else
    StridedCopy(ElemPtr(full.data_ptr(), off, es), box.data_ptr(), es, dims, fs, bs);
}

MX_REGISTER_OP(_image_crop)
    .describe(
        "Crops the (width x height) box at (x, y) of an (H, W, C) or (N, H, W, C) image "
        "(C = 1 or 3).")
    .add_alias("_npx__image_crop")
    .set_params<ImageCropParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      CropShapeOf(a, (*in)[0], &(*out)[0]);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) { CropCopy(a, in[0], out[0], true); })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{
              b.CallP("_backward_image_crop", {og[0], in[0]}, a.get<ImageCropParam>())};
        },
        true, false);

MX_REGISTER_OP(_backward_image_crop)
    .describe(
        "The gradient of _image_crop: zeros shaped like data with ograd in the crop box (inputs "
        "ograd, data).")
    .set_params<ImageCropParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      LikeDataShape(a, in, out);
      CropShapeOf(a, (*in)[1], &(*in)[0]);
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) { ElemwiseType(a, in, out); })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  out[0].Fill(0);
                  CropCopy(a, out[0], in[0], false);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.CallP("_image_crop", {og[0]}, a.get<ImageCropParam>()),
                                        b.ZerosLike(in[1])};
        },
        true, false);

// ---- resize ----
// MXNet's GetHeightAndWidth: (h, w) of the output for an input of height h and width w.
std::pair<int64_t, int64_t> ResizeHW(const OpAttrs& a, int64_t h, int64_t w) {
  const auto& p = a.get<ImageResizeParam>();
  const Shape& s = p.size;
  if (s.ndim() != 1 && s.ndim() != 2)
    Fail(a, "size must have 1 or 2 elements (size or (width, height)), got ", s.ToString());
  for (int64_t d : s)
    if (d <= 0) Fail(a, "size must be positive, got ", s.ToString());
  if (s.ndim() == 2) return {s[1], s[0]};
  if (!p.keep_ratio) return {s[0], s[0]};
  if (h < 0 || w < 0) return {-1, -1};
  if (h == 0 || w == 0) Fail(a, "cannot keep the aspect ratio of an empty image");
  if (h > w) return {h * s[0] / w, s[0]};
  return {s[0], w * s[0] / h};
}

MX_REGISTER_OP(_image_resize)
    .describe(
        "Resizes an (H, W, C) or (N, H, W, C) uint8/float32/float64 image to size (w, h) or "
        "(s, s) (keep_ratio: short side s) like OpenCV's cv::resize with interp 0-4.")
    .add_alias("_npx__image_resize")
    .set_params<ImageResizeParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& s = (*in)[0];
      if (!CheckImage(a, s, true, false, "(H, W, C) or (N, H, W, C)")) return;
      const int nd = s.ndim();
      const auto [h, w] = ResizeHW(a, s[nd - 3], s[nd - 2]);
      Shape o = s;
      o[nd - 3] = h;
      o[nd - 2] = w;
      MergeShape(&(*out)[0], o, "_image_resize: output");
    })
    .set_infer_type(PixelType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  if (s[s.ndim() - 3] == 0 || s[s.ndim() - 2] == 0)
                    Fail(a, "cannot resize an empty image of shape ", s.ToString());
                  image::ResizeCv(in[0], out[0], a.get<ImageResizeParam>().interp);
                })
    .set_non_differentiable();

// ---- lighting ----
MX_REGISTER_OP(_image_adjust_lighting)
    .describe(
        "AlexNet-style PCA lighting: adds eigvec * (eigval * alpha) to the R, G, B values of an "
        "(H, W, C) image (C = 1: unchanged).")
    .add_alias("_npx__image_adjust_lighting")
    .set_params<ImageAdjustLightingParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(ImageShape)
    .set_infer_type(PixelType)
    .add_inplace(0, 0)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& al = a.get<ImageAdjustLightingParam>().alpha;
                  image::AdjustLighting(in[0], out[0],
                                        {static_cast<float>(al[0]), static_cast<float>(al[1]),
                                         static_cast<float>(al[2])});
                })
    .set_gradient(PassGrad, false, false);

MX_REGISTER_OP(_image_random_lighting)
    .describe(
        "adjust_lighting with alphas drawn from N(0, alpha_std^2) (AlexNet's PCA noise) on an "
        "(H, W, C) image.")
    .add_alias("_npx__image_random_lighting")
    .set_params<ImageRandomLightingParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_random()
    .set_infer_shape(ImageShape)
    .set_infer_type(PixelType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const float sd = a.get<ImageRandomLightingParam>().alpha_std;
                  std::array<float, 3> al = {0.f, 0.f, 0.f};
                  if (sd > 0) {
                    random::GeneratorGuard g(ctx.device);
                    std::normal_distribution<float> dist(0.f, sd);
                    for (float& v : al) v = dist(g.gen());
                  }
                  image::AdjustLighting(in[0], out[0], al);
                })
    .set_gradient(PassGrad, false, false);

// ---- random color ----
float DrawFactor(Device dev, float lo, float hi) {
  random::GeneratorGuard g(dev);
  return std::uniform_real_distribution<float>(lo, hi)(g.gen());
}

template <void (*kAdjust)(const NDArray&, const NDArray&, float)>
void RandomEnhanceKernel(const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                         std::span<const NDArray> out) {
  const auto& p = a.get<ImageRandomEnhanceParam>();
  kAdjust(in[0], out[0], DrawFactor(ctx.device, p.min_factor, p.max_factor));
}

#define MX_IMAGE_RANDOM_ENHANCE_OP(NAME, FN, DOC)                                           \
  MX_REGISTER_OP(_image_random_##NAME)                                                      \
      .describe(DOC)                                                                        \
      .add_alias("_npx__image_random_" #NAME)                                               \
      .set_params<ImageRandomEnhanceParam>()                                                \
      .set_input_names(std::vector<std::string>{"data"})                                    \
      .set_random()                                                                         \
      .set_infer_shape(ImageShape)                                                          \
      .set_infer_type(PixelType)                                                            \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, RandomEnhanceKernel<&image::FN>) \
      .set_gradient(PassGrad, false, false)

MX_IMAGE_RANDOM_ENHANCE_OP(brightness, AdjustBrightness,
                           "x * f with f ~ U[min_factor, max_factor) on an (H, W, C) image.");
MX_IMAGE_RANDOM_ENHANCE_OP(
    contrast, AdjustContrast,
    "x * f + (1 - f) * mean luma with f ~ U[min_factor, max_factor) on an (H, W, C) image.");
MX_IMAGE_RANDOM_ENHANCE_OP(
    saturation, AdjustSaturation,
    "Per pixel x * f + (1 - f) * luma with f ~ U[min_factor, max_factor) on an (H, W, C) image.");
MX_IMAGE_RANDOM_ENHANCE_OP(
    hue, AdjustHue,
    "Rotates the hue by f * 360 degrees, f ~ U[min_factor, max_factor), of an (H, W, C) image.");

MX_REGISTER_OP(_image_random_color_jitter)
    .describe(
        "Random brightness, contrast, saturation (factors 1 + U(-v, v)) and hue (U(-hue, hue) "
        "turns) changes of an (H, W, C) image in a random order; a value <= 0 skips that change.")
    .add_alias("_npx__image_random_color_jitter")
    .set_params<ImageRandomColorJitterParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_random()
    .set_infer_shape(ImageShape)
    .set_infer_type(PixelType)
    .set_kernel(
        {DeviceType::kCPU, Backend::kReference},
        [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
           std::span<const NDArray> out) {
          const auto& p = a.get<ImageRandomColorJitterParam>();
          const std::array<float, 4> amount = {p.brightness, p.contrast, p.saturation, p.hue};
          std::array<int, 4> order = {0, 1, 2, 3};
          std::array<float, 4> factor = {1.f, 1.f, 1.f, 0.f};
          {
            random::GeneratorGuard g(ctx.device);
            std::shuffle(order.begin(), order.end(), g.gen());
            for (int i : order) {
              if (!(amount[i] > 0)) continue;
              const float u = std::uniform_real_distribution<float>(-amount[i], amount[i])(g.gen());
              factor[i] = i == 3 ? u : 1.f + u;
            }
          }
          static constexpr void (*kAdjust[4])(const NDArray&, const NDArray&, float) = {
              image::AdjustBrightness, image::AdjustContrast, image::AdjustSaturation,
              image::AdjustHue};
          // Ping-pong between out and a scratch array (saturation/hue read whole pixels).
          NDArray cur = in[0];
          NDArray scratch;
          bool any = false;
          for (int i : order) {
            if (!(amount[i] > 0)) continue;
            NDArray dst = out[0];
            if (any && cur.data_ptr() == out[0].data_ptr()) {
              if (scratch.is_none())
                scratch = NDArray(out[0].shape(), out[0].device(), out[0].dtype());
              dst = scratch;
            }
            kAdjust[i](cur, dst, factor[i]);
            cur = dst;
            any = true;
          }
          if (cur.data_ptr() != out[0].data_ptr())
            std::memcpy(out[0].data_ptr(), cur.data_ptr(), out[0].nbytes());
        })
    .set_gradient(PassGrad, false, false);

}  // namespace
}  // namespace mxnet::ops

// ---- nd:: API ----
namespace mxnet::nd::image {

namespace {
NDArray Unary(const Op& op, const NDArray& data) { return Call(op, NoAttrs(op), {data})[0]; }
template <typename P>
NDArray Unary(const Op& op, const NDArray& data, P p) {
  return Call(op, OpAttrs::From(op, std::move(p)), {data})[0];
}
}  // namespace

NDArray to_tensor(const NDArray& data) { return Unary(MX_ND_OP(_image_to_tensor), data); }

NDArray normalize(const NDArray& data, const std::vector<double>& mean,
                  const std::vector<double>& std) {
  ops::ImageNormalizeParam p;
  p.mean = mean;
  p.std = std;
  return Unary(MX_ND_OP(_image_normalize), data, p);
}

NDArray flip_left_right(const NDArray& data) {
  return Unary(MX_ND_OP(_image_flip_left_right), data);
}
NDArray flip_top_bottom(const NDArray& data) {
  return Unary(MX_ND_OP(_image_flip_top_bottom), data);
}

NDArray crop(const NDArray& data, int x, int y, int width, int height) {
  return Unary(MX_ND_OP(_image_crop), data, ops::ImageCropParam{x, y, width, height});
}

NDArray resize(const NDArray& data, const std::vector<int64_t>& size, bool keep_ratio, int interp) {
  ops::ImageResizeParam p;
  p.size = Shape(size);
  p.keep_ratio = keep_ratio;
  p.interp = interp;
  return Unary(MX_ND_OP(_image_resize), data, p);
}

NDArray adjust_lighting(const NDArray& data, const std::array<double, 3>& alpha) {
  ops::ImageAdjustLightingParam p;
  p.alpha.assign(alpha.begin(), alpha.end());
  return Unary(MX_ND_OP(_image_adjust_lighting), data, p);
}

NDArray random_flip_left_right(const NDArray& data) {
  return Unary(MX_ND_OP(_image_random_flip_left_right), data);
}
NDArray random_flip_top_bottom(const NDArray& data) {
  return Unary(MX_ND_OP(_image_random_flip_top_bottom), data);
}

NDArray random_brightness(const NDArray& data, float min_factor, float max_factor) {
  return Unary(MX_ND_OP(_image_random_brightness), data,
               ops::ImageRandomEnhanceParam{min_factor, max_factor});
}
NDArray random_contrast(const NDArray& data, float min_factor, float max_factor) {
  return Unary(MX_ND_OP(_image_random_contrast), data,
               ops::ImageRandomEnhanceParam{min_factor, max_factor});
}
NDArray random_saturation(const NDArray& data, float min_factor, float max_factor) {
  return Unary(MX_ND_OP(_image_random_saturation), data,
               ops::ImageRandomEnhanceParam{min_factor, max_factor});
}
NDArray random_hue(const NDArray& data, float min_factor, float max_factor) {
  return Unary(MX_ND_OP(_image_random_hue), data,
               ops::ImageRandomEnhanceParam{min_factor, max_factor});
}

NDArray random_color_jitter(const NDArray& data, float brightness, float contrast, float saturation,
                            float hue) {
  return Unary(MX_ND_OP(_image_random_color_jitter), data,
               ops::ImageRandomColorJitterParam{brightness, contrast, saturation, hue});
}

NDArray random_lighting(const NDArray& data, float alpha_std) {
  return Unary(MX_ND_OP(_image_random_lighting), data, ops::ImageRandomLightingParam{alpha_std});
}

}  // namespace mxnet::nd::image
