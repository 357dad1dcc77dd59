// Image decoding and image-space operations (mxnet.image and the mx.nd.image ops that gluon's
// vision transforms use), on CPU NDArrays in HWC layout.
//
// Layouts: an image is (H, W, C) ("HWC", channels last, C = 3 RGB or 1 gray); a batch is
// (N, H, W, C). uint8 images hold 0..255; float32 images are accepted where noted.
//
// Decoding uses libjpeg-turbo and libpng. Resizing is antialiased: the filter's support is scaled
// by the downscale factor, exactly like Pillow's Image.resize (for uint8 the results equal
// Pillow's bit for bit: same coefficients, same 22-bit fixed point, same horizontal-then-vertical
// order with an 8-bit intermediate). MXNet's own mx.image.imresize calls OpenCV's cv::resize,
// whose bilinear/bicubic filters alias badly when shrinking by more than 2x; we deliberately do
// not reproduce that.
//
// Errors: decoding returns absl::Status (kInvalidArgument for undecodable data, kNotFound /
// kPermissionDenied / kDataLoss for files, each naming the file); the other functions throw
// mxnet::Error(kInvalidArgument) naming the function and the bad shape/dtype/argument.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "ndarray/ndarray.h"

namespace mxnet::gluon::data::vision {

// Interpolation, numbered like OpenCV's codes that MXNet's `interp`/`interpolation` arguments use.
// All but kNearest antialias when shrinking. kArea averages by exact pixel-area overlap (OpenCV's
// INTER_AREA when shrinking, which MXNet's interp=3 gives; Pillow's BOX counts whole pixels).
enum class Interp : int {
  kNearest = 0,
  kBilinear = 1,
  kBicubic = 2,  // Keys cubic, a = -0.5 (Pillow's BICUBIC)
  kArea = 3,
  kLanczos = 4,  // Lanczos-3 (Pillow's LANCZOS)
};
// Maps MXNet's integer codes 0..4 (also accepts 9 and 10, MXNet's "auto"/"random" choices, as
// kBilinear). Error: kInvalidArgument for others.
absl::StatusOr<Interp> InterpFromInt(int code);

// ---- Decoding. ----

// Decodes a JPEG or PNG file's bytes (mx.image.imdecode). flag 1: (H, W, 3) color; flag 0:
// (H, W, 1) grayscale (libjpeg's own luma for JPEG, BT.601 weights for color PNG, as OpenCV).
// to_rgb=false gives BGR channel order (OpenCV's). uint8 output; 16-bit PNGs keep their high
// byte; alpha channels are dropped; palettes and low bit depths are expanded; CMYK/YCCK JPEGs are
// converted to RGB. Truncated files are errors (libjpeg's "premature end" warning is treated as
// fatal). Errors: kInvalidArgument naming the format and libjpeg's/libpng's message, or
// "unknown image format" for other bytes.
absl::StatusOr<NDArray> imdecode(std::string_view bytes, int flag = 1, bool to_rgb = true);
// Reads and decodes a file (mx.image.imread); errors name the path.
absl::StatusOr<NDArray> imread(const std::string& path, int flag = 1, bool to_rgb = true);
// A whole file's bytes. Errors: kNotFound, kPermissionDenied, kDataLoss (read failure), each
// naming the path.
absl::StatusOr<std::string> ReadFileBytes(const std::string& path);

// ---- Geometry (HWC uint8 or float32; 4-D NHWC batches where noted). ----

// Resizes to width w and height h with antialiasing (see the file comment). src: (H, W, C) or
// (N, H, W, C), uint8 or float32; the result has the same dtype. Errors: bad rank/dtype, w or h
// < 1, an empty input.
NDArray imresize(const NDArray& src, int64_t w, int64_t h, Interp interp = Interp::kBilinear);
// Resizes an (H, W, C) image so its shorter side is `size`, keeping the aspect ratio
// (mx.image.resize_short). The long side is size * long / short truncated, as MXNet computes it,
// or rounded to the nearest pixel with round_long_side (the aspect ratio closest to the source's:
// a 1024x576 photo gives 56x32 truncated, 57x32 rounded). MXNet's default interp is 2 (bicubic).
// Errors: as imresize, and size < 1.
NDArray resize_short(const NDArray& src, int64_t size, Interp interp = Interp::kBicubic,
                     bool round_long_side = false);
// Crops the rectangle (x0, y0, w, h) of an (H, W, C) image and, if out_w/out_h > 0 differ from
// (w, h), resizes it to (out_w, out_h) in one pass (the filter only sees pixels inside the
// rectangle: equal to cropping then resizing) (mx.image.fixed_crop). Errors: a rectangle outside
// the image.
NDArray fixed_crop(const NDArray& src, int64_t x0, int64_t y0, int64_t w, int64_t h,
                   int64_t out_w = 0, int64_t out_h = 0, Interp interp = Interp::kBilinear);

// A crop rectangle in source pixels.
struct CropBox {
  int64_t x0 = 0, y0 = 0, w = 0, h = 0;
};
// The center (w, h) crop of an (H, W, C) image (mx.image.center_crop): if the image is smaller
// than the crop, the largest centered region of the crop's aspect ratio is taken and resized up
// to (w, h). `box` (optional) receives the source rectangle.
NDArray center_crop(const NDArray& src, int64_t w, int64_t h, Interp interp = Interp::kBilinear,
                    CropBox* box = nullptr);
// A random crop with area fraction in [min_area, max_area] of the source and aspect ratio w/h
// log-uniform in [min_ratio, max_ratio], resized to (w, h) (mx.image.random_size_crop, the
// Inception crop); after 10 failed draws, center_crop. Draws from the global generator.
NDArray random_size_crop(const NDArray& src, int64_t w, int64_t h, std::pair<double, double> area,
                         std::pair<double, double> ratio, Interp interp = Interp::kBilinear,
                         CropBox* box = nullptr);
// Mirrors along the width (HWC: axis 1; NHWC: axis 2) / the height axis. Any dtype.
NDArray flip_left_right(const NDArray& src);
NDArray flip_top_bottom(const NDArray& src);

// ---- Color (HWC, C = 1 or 3, uint8 or float32; mx.nd.image.random_* with a fixed factor). ----
// uint8 results are clamped to [0, 255] and truncated toward zero, as MXNet does.

// src * alpha.
NDArray adjust_brightness(const NDArray& src, float alpha);
// src * alpha + (1 - alpha) * mean luma (luma = 0.299 R + 0.587 G + 0.114 B over the image).
NDArray adjust_contrast(const NDArray& src, float alpha);
// Per pixel src * alpha + (1 - alpha) * luma. (MXNet 1.9's kernel has a bug that uses only
// 0.114 * B as the luma; we use the full luma.) 1-channel images are returned unchanged.
NDArray adjust_saturation(const NDArray& src, float alpha);
// Rotates the hue by alpha * 360 degrees in HLS space (MXNet's AdjustHue). 1-channel images are
// returned unchanged.
NDArray adjust_hue(const NDArray& src, float alpha);

}  // namespace mxnet::gluon::data::vision
