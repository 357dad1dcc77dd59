// nd::image:: free functions of MXNet 1.9.1's OpenCV image ops that need no codec
// (shape_image_cv.cc; mx.nd._internal._cvimresize / _cvcopyMakeBorder, used by mx.image.imresize
// and mx.image.copyMakeBorder). Decoding ops (_cvimdecode, _cvimread) live with the decoder in
// //gluon/data/vision (image_ops.cc). Errors: mxnet::Error (kInvalidArgument) naming the op.
#pragma once

#include <vector>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/image/image_cv_params.h"

namespace mxnet::nd::image {

// OpenCV's cv::resize of an (H, W, C) uint8/float32/float64 image to (h, w, C) (no
// antialiasing; interp 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos-4): the kernel of
// _image_resize. Errors: other ranks/dtypes, w or h < 1, interp outside 0..4, an empty image.
NDArray cvimresize(const NDArray& src, int w, int h, int interp = 1);

// OpenCV's cv::copyMakeBorder of an (H, W, C) uint8/int32/float32/float64 image: (H + top + bot,
// W + left + right, C). type 0 constant (channel c gets values[c], or value for c < 3 when values
// is empty; missing entries 0; rounded half to even and saturated for integer images), 1
// replicate, 2 reflect (fedcba|abcdef), 3 wrap, 4 reflect_101 (fedcb|abcdef). Errors: negative
// margins, other types/ranks/dtypes, more than 4 channels with a constant border.
NDArray cvcopyMakeBorder(const NDArray& src, const ops::MakeBorderParam& p);

}  // namespace mxnet::nd::image
