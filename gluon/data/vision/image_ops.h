// MXNet 1.9.1's image decoding operators (src/io/image_io.cc), registered in the op registry by
// image_ops.cc next to the decoder (//ndarray/ops cannot depend on //gluon/data/vision, which
// depends on it):
//   _cvimdecode (alias _npi_cvimdecode)  input buf: 1-D uint8 bytes of a JPEG/PNG file; output
//                                        (H, W, 3) uint8 (flag=1, RGB or BGR with to_rgb=False)
//                                        or (H, W, 1) (flag=0, grayscale)
//   _cvimread (alias _npi_cvimread)      no inputs; reads attribute `filename`, same output
// The output shape depends on the data (Op::set_dynamic_output_shape). Decoding is imdecode()'s
// (image.h): libjpeg-turbo/libpng, like MXNet's OpenCV build; JPEG pixels may differ by a few
// levels between libjpeg versions (image_ops_test.cc states the bound measured on real photos).
// Neither op is differentiable. Errors: mxnet::Error(kInvalidArgument) naming the op: a non-uint8
// or empty buffer, flag other than 0/1 (MXNet passes other OpenCV flags through), undecodable
// bytes; _cvimread: kNotFound/kPermissionDenied/kDataLoss naming the file.
//
// MXNet's legacy _imdecode (mx.nd.imdecode) is not registered: in 1.9.1 it takes the image bytes
// as a C-string attribute (str_img), so every JPEG/PNG is cut at its first zero byte and OpenCV
// fails ("OpenCV Failed to decode image"); without a mean array it fails earlier ("Shape is
// unknown"). It cannot decode any real file.
#pragma once

#include <string>

#include "ndarray/ndarray.h"

namespace mxnet::gluon::data::vision {

// _cvimdecode: `buf` is a 1-D uint8 array of encoded bytes.
NDArray cvimdecode(const NDArray& buf, int flag = 1, bool to_rgb = true);
// _cvimread.
NDArray cvimread(const std::string& filename, int flag = 1, bool to_rgb = true);

}  // namespace mxnet::gluon::data::vision
