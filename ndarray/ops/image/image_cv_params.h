// Typed attributes of the OpenCV image ops of the shape family (MXNet 1.9.1's ResizeParam and
// MakeBorderParam in src/io/image_io.cc). Names, types and defaults as MXNet declares them.
#pragma once

#include <string>
#include <vector>

#include "ndarray/params.h"

namespace mxnet::ops {

// _cvimresize.
struct CvResizeParam {
  int w = 0;  // required, >= 1
  int h = 0;  // required, >= 1
  int interp = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("w", &CvResizeParam::w).required().describe("Width of resized image.");
    d.field("h", &CvResizeParam::h).required().describe("Height of resized image.");
    d.field("interp", &CvResizeParam::interp)
        .describe(
            "Interpolation method (OpenCV codes): 0 nearest, 1 bilinear, 2 bicubic, 3 area, "
            "4 Lanczos-4.");
  }
  std::string Validate() const {
    if (w < 1) return StrCat("w must be >= 1, got ", w);
    if (h < 1) return StrCat("h must be >= 1, got ", h);
    if (interp < 0 || interp > 4)
      return StrCat(
          "interp must be 0 (nearest), 1 (bilinear), 2 (bicubic), 3 (area) or 4 (lanczos4), got ",
          interp);
    return "";
  }
};

// _cvcopyMakeBorder. type: OpenCV's border codes 0 constant, 1 replicate, 2 reflect, 3 wrap,
// 4 reflect_101 (+16, BORDER_ISOLATED, is ignored as OpenCV does for a whole image).
struct MakeBorderParam {
  int top = 0, bot = 0, left = 0, right = 0;  // required, >= 0
  int type = 0;
  double value = 0.0;
  std::vector<double> values;  // up to 4; when given, replaces value
  template <class D>
  static void Declare(D& d) {
    d.field("top", &MakeBorderParam::top).required().describe("Top margin.");
    d.field("bot", &MakeBorderParam::bot).required().describe("Bottom margin.");
    d.field("left", &MakeBorderParam::left).required().describe("Left margin.");
    d.field("right", &MakeBorderParam::right).required().describe("Right margin.");
    d.field("type", &MakeBorderParam::type).describe("Filling type (default=cv2.BORDER_CONSTANT).");
    d.field("value", &MakeBorderParam::value)
        .describe("(Deprecated! Use ``values`` instead.) Fill with single value.");
    d.field("values", &MakeBorderParam::values)
        .describe("Fill with value(RGB[A] or gray), up to 4 channels.");
  }
  std::string Validate() const {
    if (top < 0 || bot < 0 || left < 0 || right < 0)
      return StrCat("margins must be >= 0, got top=", top, " bot=", bot, " left=", left,
                    " right=", right);
    if ((type & ~16) < 0 || (type & ~16) > 4)
      return StrCat(
          "type must be 0 (constant), 1 (replicate), 2 (reflect), 3 (wrap) or 4 (reflect_101), "
          "got ",
          type);
    if (values.size() > 4) return StrCat("values holds at most 4 values, got ", values.size());
    return "";
  }
};

}  // namespace mxnet::ops
