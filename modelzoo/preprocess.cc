#include "modelzoo/preprocess.h"

#include <cmath>

#include "base/strings.h"
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
  NDArray x = data::vision::transforms::Resize(resize, true)(image);
  x = data::vision::transforms::CenterCrop(size)(x);
  return normalize_image(x);
}

}  // namespace mxnet::gluon::model_zoo::vision
