#include "modelzoo/preprocess.h"

#include <cmath>

#include "base/strings.h"
#include "gluon/data/vision/resize_window.h"
#include "gluon/data/vision/transforms.h"
#include "ndarray/nd.h"

namespace mxnet::gluon::model_zoo::vision {

NDArray normalize_image(const NDArray& image, const std::array<float, 3>& mean,
                        const std::array<float, 3>& std) {
  int rank = image.ndim();
  MX_REQUIRE((rank == 3 || rank == 4) && image.shape()[rank - 1] == 3,
             absl::StatusCode::kInvalidArgument,
             "normalize_image: expected an (H, W, 3) image or an (N, H, W, 3) batch, got shape ",
             image.shape().ToString());
  NDArray x = image.astype(DType::kFloat32, false) / 255.0;
  NDArray m =
      NDArray::FromVector(std::vector<float>(mean.begin(), mean.end()), Shape{3}, image.device());
  NDArray s =
      NDArray::FromVector(std::vector<float>(std.begin(), std.end()), Shape{3}, image.device());
  x = (x - m) / s;  // broadcasts over the trailing channel axis
  if (rank == 3) return nd::expand_dims(nd::transpose(x, Shape{2, 0, 1}), 0);
  return nd::transpose(x, Shape{0, 3, 1, 2});
}

NDArray preprocess_image(const NDArray& image, int64_t size) {
  MX_REQUIRE(image.ndim() == 3 && image.shape()[2] == 3, absl::StatusCode::kInvalidArgument,
             "preprocess_image: expected an (H, W, 3) image, got shape ", image.shape().ToString());
  MX_REQUIRE(size > 0, absl::StatusCode::kInvalidArgument,
             "preprocess_image: size must be positive, got ", size);
  auto resize = static_cast<int64_t>(std::ceil(static_cast<double>(size) / 0.875));
  // transforms::Resize(resize, keep_ratio=true) then CenterCrop(size), computing only the crop:
  // the same pixels (resize_window is exact), but an extreme aspect ratio (1 x 60000) no longer
  // makes a 2-million-pixel intermediate (found by //tools/fuzz:image_fuzzer, 12 s, 300 MB).
  const int64_t h = image.shape()[0], w = image.shape()[1];
  MX_REQUIRE(h >= 1 && w >= 1, absl::StatusCode::kInvalidArgument,
             "preprocess_image: empty image of shape ", image.shape().ToString());
  // Both sides are >= resize >= size, so CenterCrop is a plain crop of the middle.
  const auto [ow, oh] = data::vision::transforms::Resize(resize, true).OutputSize(h, w);
  return normalize_image(
      data::vision::resize_window(image, ow, oh, (ow - size) / 2, (oh - size) / 2, size, size));
}

}  // namespace mxnet::gluon::model_zoo::vision
