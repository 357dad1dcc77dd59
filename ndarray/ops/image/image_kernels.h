// Pixel kernels shared by the mx.nd.image ops (shape_image.cc) and gluon's vision transforms and
// image functions (gluon/data/vision/transforms.cc, image.cc), so both compute the same values.
//
// Contract for every function: CPU, C-contiguous arrays; the caller has checked shapes and
// dtypes and allocated `out`. Layouts: images (H, W, C) or batches (N, H, W, C) ("HWC");
// tensors (C, H, W) / (N, C, H, W) ("CHW"). uint8 results of the color kernels are clamped to
// [0, 255] and truncated toward zero (MXNet's saturate_cast in image_random-inl.h).
#pragma once

#include <array>
#include <span>

#include "ndarray/ndarray.h"

namespace mxnet::ops::image {

// to_tensor: in HWC/NHWC of any dtype -> out float32 CHW/NCHW, out = float(in) / 255.
void ToTensor(const NDArray& in, const NDArray& out);
// Its adjoint: og (floating) CHW/NCHW -> grad HWC/NHWC (floating dtype) = og / 255.
void ToTensorBackward(const NDArray& og, const NDArray& grad);

// normalize: CHW/NCHW float32/float64, out = (in - mean[c]) / std[c] computed in the dtype;
// mean and std hold 1 value (all channels) or one per channel.
void Normalize(const NDArray& in, const NDArray& out, std::span<const float> mean,
               std::span<const float> std);
// Its gradient: grad = og / std[c] (as MXNet's _backward_image_normalize).
void NormalizeBackward(const NDArray& og, const NDArray& grad, std::span<const float> std);

// Reverses axis `axis` of `in` (any dtype).
void Flip(const NDArray& in, const NDArray& out, int axis);

// ---- Color, on one (H, W, C) image, C = 1 or 3, uint8/float32/float64 (float64 computes in
// double, the others in float). ----
// in * alpha.
void AdjustBrightness(const NDArray& in, const NDArray& out, float alpha);
// in * alpha + (1 - alpha) * mean luma (0.299 R + 0.587 G + 0.114 B over the image; the mean
// of the values for C = 1), the mean summed in double.
void AdjustContrast(const NDArray& in, const NDArray& out, float alpha);
// Per pixel in * alpha + (1 - alpha) * luma. C = 1: a copy. (MXNet 1.9.1's kernel overwrites the
// luma sum and uses 0.114 * B alone; this uses the full luma.)
void AdjustSaturation(const NDArray& in, const NDArray& out, float alpha);
// Rotates the hue by alpha * 360 degrees in HLS space (MXNet's RGB2HLSConvert/HLS2RGBConvert).
// C = 1 or alpha == 0: a copy.
void AdjustHue(const NDArray& in, const NDArray& out, float alpha);
// AlexNet PCA lighting: adds eigvec * (eigval * alpha) (MXNet's AdjustLightingImpl constants) to
// the R, G, B values. C = 1: a copy (MXNet leaves the output unwritten).
void AdjustLighting(const NDArray& in, const NDArray& out, const std::array<float, 3>& alpha);

// OpenCV 3.4's cv::resize (what MXNet 1.9.1's _image_resize calls) of HWC/NHWC uint8/float32/
// float64 to out's height and width: no antialiasing; interp 0 nearest, 1 bilinear (an exact 2x
// shrink in both directions uses area), 2 bicubic (a = -0.75), 3 area (pixel-area averaging when
// shrinking in both directions, else OpenCV's area upscaling), 4 Lanczos-4; replicated borders.
// uint8 uses OpenCV's 11-bit fixed-point weights and the rounding of its vector loops.
void ResizeCv(const NDArray& in, const NDArray& out, int interp);

}  // namespace mxnet::ops::image
