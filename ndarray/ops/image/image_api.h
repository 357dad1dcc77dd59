// nd::image:: free functions of the image ops (shape_image.cc), MXNet 1.9.1's mx.nd.image.*
// (registered as _image_* with _npx__image_* aliases).
//
// Layouts: images (H, W, C) or batches (N, H, W, C) ("HWC"); to_tensor turns them into float32
// (C, H, W) / (N, C, H, W) tensors, which normalize takes. Random ops draw from the global
// generator of the input's device (mxnet::random::seed makes single-threaded runs repeatable; the
// values differ from MXNet's, the distributions are the same). Errors: mxnet::Error
// (kInvalidArgument) naming the op and the bad shape, dtype or attribute.
#pragma once

#include <array>
#include <vector>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/image/image_params.h"

namespace mxnet::nd::image {

// (H, W, C) / (N, H, W, C) of any dtype with values in [0, 255] -> float32 (C, H, W) /
// (N, C, H, W), x / 255. Gradient: the adjoint (ograd transposed back, / 255); MXNet 1.9.1
// passes ograd through unchanged (its _copy), which has the wrong layout.
NDArray to_tensor(const NDArray& data);

// (x - mean[c]) / std[c] on a float32/float64 (C, H, W) / (N, C, H, W) tensor with C = 1 or 3;
// mean and std have 1 value or C values. Errors: other ranks, C, dtypes or sizes. Gradient:
// ograd / std[c] (MXNet's _backward_image_normalize).
NDArray normalize(const NDArray& data, const std::vector<double>& mean,
                  const std::vector<double>& std);

// Mirrors an (H, W, C) image (or an (N, H, W, C) batch, which MXNet 1.9.1 rejects) along the
// width / the height. Any dtype. Gradient: the same flip of ograd (MXNet's _copy ignores the flip).
NDArray flip_left_right(const NDArray& data);
NDArray flip_top_bottom(const NDArray& data);

// The (width x height) region with top-left corner (x, y) of an (H, W, C) or (N, H, W, C) image,
// C = 1 or 3, any dtype. Errors: width/height < 1, x/y < 0 or a box past the image. Gradient:
// ograd placed in the box of zeros (MXNet's _backward_image_crop).
NDArray crop(const NDArray& data, int x, int y, int width, int height);

// Resizes (H, W, C) / (N, H, W, C) uint8/float32/float64 images like MXNet (OpenCV 3.4's
// cv::resize, no antialiasing). size: {w, h}, or {s}: (s, s), or with keep_ratio the short side
// becomes s and the long side long * s / short (truncated). interp: 0 nearest, 1 bilinear,
// 2 bicubic, 3 area, 4 Lanczos-4 (uint8 and float32 values match MXNet's in the tests). Not
// differentiable (MXNet's gradient fails unless the size is unchanged).
NDArray resize(const NDArray& data, const std::vector<int64_t>& size, bool keep_ratio = false,
               int interp = 1);

// AlexNet PCA lighting with fixed alphas (R, G, B) on an (H, W, C) image, C = 1 (unchanged) or
// 3, uint8 (saturated) / float32 / float64. Gradient: ograd (exact for float images).
NDArray adjust_lighting(const NDArray& data, const std::array<double, 3>& alpha);

// ---- Random augmentations of one (H, W, C) image (C = 1 or 3; the flips also take NHWC
// batches, flipping all images or none). Gradient: ograd passed through unchanged, as MXNet
// (exact only where the op happened to be the identity). ----

// Flips with probability 0.5.
NDArray random_flip_left_right(const NDArray& data);
NDArray random_flip_top_bottom(const NDArray& data);
// A factor f ~ U[min_factor, max_factor) and: brightness x * f; contrast x * f + (1 - f) * mean
// luma; saturation per pixel x * f + (1 - f) * luma; hue rotated by f * 360 degrees in HLS.
// uint8/float32/float64 (uint8 saturated). Errors: a negative factor or min > max.
NDArray random_brightness(const NDArray& data, float min_factor, float max_factor);
NDArray random_contrast(const NDArray& data, float min_factor, float max_factor);
NDArray random_saturation(const NDArray& data, float min_factor, float max_factor);
NDArray random_hue(const NDArray& data, float min_factor, float max_factor);
// Brightness, contrast and saturation factors 1 + U(-b, b) etc. and a hue rotation U(-h, h),
// applied in a random order; a parameter <= 0 skips that change.
NDArray random_color_jitter(const NDArray& data, float brightness, float contrast, float saturation,
                            float hue);
// adjust_lighting with alphas drawn from N(0, alpha_std^2).
NDArray random_lighting(const NDArray& data, float alpha_std = 0.05f);

}  // namespace mxnet::nd::image
