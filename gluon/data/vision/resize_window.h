// A window of a resize, computed alone: what center/fixed crops of a resized image need, without
// the whole resized image (a 1 x 60000 image resized to short side 37 is 2.2 million pixels wide;
// its 32 x 32 center crop needs 1024 of them).
#pragma once

#include <cstdint>

#include "gluon/data/vision/image.h"
#include "ndarray/ndarray.h"

namespace mxnet::gluon::data::vision {

// Equals imresize(src, ow, oh, interp) cropped to the (cw x ch) window at (ox0, oy0), bit for bit
// (each output pixel's filter depends only on its own position), in time and memory
// proportional to the window. src: (H, W, C) uint8 or float32 on CPU. Throws kInvalidArgument
// for another rank/dtype or a window not inside the ow x oh result.
NDArray resize_window(const NDArray& src, int64_t ow, int64_t oh, int64_t ox0, int64_t oy0,
                      int64_t cw, int64_t ch, Interp interp = Interp::kBilinear);

}  // namespace mxnet::gluon::data::vision
