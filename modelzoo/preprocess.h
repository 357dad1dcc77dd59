// Input preprocessing for the model zoo's pretrained weights (the recipe of MXNet's
// gluon.model_zoo.vision docs): RGB scaled to [0, 1], normalized per channel with ImageNet's
// mean (0.485, 0.456, 0.406) and std (0.229, 0.224, 0.225), NCHW float32, 224x224 (299x299 for
// inceptionv3).
#pragma once

#include <array>
#include <cstdint>

#include "ndarray/ndarray.h"

namespace mxnet::gluon::model_zoo::vision {

inline constexpr std::array<float, 3> kImageNetMean = {0.485f, 0.456f, 0.406f};
inline constexpr std::array<float, 3> kImageNetStd = {0.229f, 0.224f, 0.225f};

// (H, W, 3) image or (N, H, W, 3) batch with values in [0, 255] (uint8 or any numeric dtype) ->
// (1, 3, H, W) / (N, 3, H, W) float32: (x / 255 - mean[c]) / std[c] (ToTensor then Normalize,
// i.e. image/255 followed by mx.image.color_normalize). Throws kInvalidArgument for another rank
// or channel count.
NDArray normalize_image(const NDArray& image, const std::array<float, 3>& mean = kImageNetMean,
                        const std::array<float, 3>& std = kImageNetStd);

// The evaluation transform for a single (H, W, 3) uint8 image: resize the shorter side to
// ceil(size / 0.875) (256 for 224, 342 for 299) keeping the aspect ratio (antialiased
// bilinear), center-crop size x size, normalize_image -> (1, 3, size, size) float32.
NDArray preprocess_image(const NDArray& image, int64_t size = 224);

}  // namespace mxnet::gluon::model_zoo::vision
