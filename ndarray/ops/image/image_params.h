// Typed attributes of the image ops (shape_image.cc): MXNet 1.9.1's NormalizeParam,
// RandomEnhanceParam, AdjustLightingParam, RandomLightingParam, RandomColorJitterParam
// (src/operator/image/image_random-inl.h), CropParam (image/crop-inl.h) and ResizeParam
// (image/resize-inl.h): names, types and defaults as MXNet declares them.
#pragma once

#include <string>
#include <vector>

#include "ndarray/params.h"

namespace mxnet::ops {

// _image_normalize / _backward_image_normalize. MXNet's defaults have 4 values, which a 1- or
// 3-channel input rejects (as in MXNet): pass mean and std explicitly.
struct ImageNormalizeParam {
  std::vector<double> mean = {0.0, 0.0, 0.0, 0.0};
  std::vector<double> std = {1.0, 1.0, 1.0, 1.0};
  template <class D>
  static void Declare(D& d) {
    d.field("mean", &ImageNormalizeParam::mean)
        .describe("Sequence of means for each channel. Default value is 0.");
    d.field("std", &ImageNormalizeParam::std)
        .describe("Sequence of standard deviations for each channel. Default value is 1.");
  }
  std::string Validate() const {
    if (mean.empty() || std.empty()) return "mean and std must not be empty";
    return "";
  }
};

// _image_crop / _backward_image_crop.
struct ImageCropParam {
  int x = 0, y = 0, width = 0, height = 0;  // all required
  template <class D>
  static void Declare(D& d) {
    d.field("x", &ImageCropParam::x).required().describe("Left boundary of the cropping area.");
    d.field("y", &ImageCropParam::y).required().describe("Top boundary of the cropping area.");
    d.field("width", &ImageCropParam::width).required().describe("Width of the cropping area.");
    d.field("height", &ImageCropParam::height).required().describe("Height of the cropping area.");
  }
};

// _image_resize.
struct ImageResizeParam {
  Shape size;  // () by default, which shape inference rejects (as MXNet)
  bool keep_ratio = false;
  int interp = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("size", &ImageResizeParam::size)
        .describe("Size of new image. Could be (width, height) or (size)");
    d.field("keep_ratio", &ImageResizeParam::keep_ratio)
        .describe(
            "Whether to resize the short edge or both edges to `size`, if size is give as an "
            "integer.");
    d.field("interp", &ImageResizeParam::interp)
        .describe(
            "Interpolation method (OpenCV codes): 0 nearest, 1 bilinear, 2 bicubic, 3 area, "
            "4 Lanczos-4.");
  }
  std::string Validate() const {
    if (interp < 0 || interp > 4)
      return StrCat(
          "interp must be 0 (nearest), 1 (bilinear), 2 (bicubic), 3 (area) or 4 "
          "(lanczos4), got ",
          interp);
    return "";
  }
};

// _image_adjust_lighting.
struct ImageAdjustLightingParam {
  std::vector<double> alpha;  // required
  template <class D>
  static void Declare(D& d) {
    d.field("alpha", &ImageAdjustLightingParam::alpha)
        .required()
        .describe("The lighting alphas for the R, G, B channels.");
  }
  std::string Validate() const {
    return alpha.size() == 3 ? ""
                             : StrCat("alpha must have 3 values (R, G, B), got ", alpha.size());
  }
};

// _image_random_brightness, _contrast, _saturation, _hue.
struct ImageRandomEnhanceParam {
  float min_factor = 0.f, max_factor = 0.f;  // required
  template <class D>
  static void Declare(D& d) {
    d.field("min_factor", &ImageRandomEnhanceParam::min_factor)
        .required()
        .describe("Minimum factor.");
    d.field("max_factor", &ImageRandomEnhanceParam::max_factor)
        .required()
        .describe("Maximum factor.");
  }
  std::string Validate() const {
    if (!(min_factor >= 0) || !(max_factor >= 0))
      return StrCat("min_factor and max_factor must be >= 0, got ", min_factor, " and ",
                    max_factor);
    if (min_factor > max_factor)
      return StrCat("min_factor ", min_factor, " is greater than max_factor ", max_factor);
    return "";
  }
};

// _image_random_color_jitter.
struct ImageRandomColorJitterParam {
  float brightness = 0.f, contrast = 0.f, saturation = 0.f, hue = 0.f;  // required
  template <class D>
  static void Declare(D& d) {
    d.field("brightness", &ImageRandomColorJitterParam::brightness)
        .required()
        .describe("How much to jitter brightness.");
    d.field("contrast", &ImageRandomColorJitterParam::contrast)
        .required()
        .describe("How much to jitter contrast.");
    d.field("saturation", &ImageRandomColorJitterParam::saturation)
        .required()
        .describe("How much to jitter saturation.");
    d.field("hue", &ImageRandomColorJitterParam::hue)
        .required()
        .describe("How much to jitter hue.");
  }
};

// _image_random_lighting.
struct ImageRandomLightingParam {
  float alpha_std = 0.05f;
  template <class D>
  static void Declare(D& d) {
    d.field("alpha_std", &ImageRandomLightingParam::alpha_std)
        .describe("Level of the lighting noise.");
  }
  std::string Validate() const {
    return alpha_std >= 0 ? "" : StrCat("alpha_std must be >= 0, got ", alpha_std);
  }
};

}  // namespace mxnet::ops
