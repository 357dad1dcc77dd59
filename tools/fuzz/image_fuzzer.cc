// Fuzz target: image decoding from memory (gluon::data::vision::imdecode: libjpeg-turbo and
// libpng behind our error handling) and the classify preprocessing of the model zoo
// (model_zoo::vision::preprocess_image: antialiased resize of the short side, center crop,
// normalization), on every decoded image.
//
// Invariants checked on every input:
//  - no crash, hang, escaping exception (decoding returns a Status), or allocation beyond what
//    the bytes justify (see imdecode's size bound in image.h);
//  - color RGB, color BGR and grayscale decoding agree: RGB succeeds exactly when BGR does, with
//    the channels reversed; a grayscale result has the color result's height and width;
//  - preprocess_image(image, 32) gives (1, 3, 32, 32) float32 without NaN/Inf.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "base/error.h"
#include "gluon/data/vision/image.h"
#include "modelzoo/preprocess.h"
#include "tools/fuzz/fuzz_check.h"

namespace vision = mxnet::gluon::data::vision;
using mxnet::NDArray;
using mxnet::Shape;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto rgb = vision::imdecode(bytes, 1, true);
  auto bgr = vision::imdecode(bytes, 1, false);
  auto gray = vision::imdecode(bytes, 0, true);
  FUZZ_CHECK(rgb.ok() == bgr.ok(), "RGB %s but BGR %s", rgb.status().ToString().c_str(),
             bgr.status().ToString().c_str());
  for (const auto* r : {&rgb, &bgr, &gray})
    if (!r->ok())
      FUZZ_CHECK(r->status().code() == absl::StatusCode::kInvalidArgument,
                 "unexpected error code: %s", r->status().ToString().c_str());
  if (!rgb.ok()) {
    FUZZ_CHECK(!gray.ok(), "grayscale decoded where color failed: %s",
               rgb.status().ToString().c_str());
    return 0;
  }
  const Shape& s = rgb->shape();
  FUZZ_CHECK(s.ndim() == 3 && s[2] == 3 && s[0] > 0 && s[1] > 0, "bad shape %s",
             s.ToString().c_str());
  FUZZ_CHECK(bgr->shape() == s, "BGR shape differs");
  const auto* a = static_cast<const uint8_t*>(rgb->data_ptr());
  const auto* b = static_cast<const uint8_t*>(bgr->data_ptr());
  for (int64_t p = 0; p < s[0] * s[1]; ++p)
    FUZZ_CHECK(a[3 * p] == b[3 * p + 2] && a[3 * p + 1] == b[3 * p + 1] && a[3 * p + 2] == b[3 * p],
               "BGR is not RGB reversed at pixel %lld", static_cast<long long>(p));
  if (gray.ok())
    FUZZ_CHECK(gray->shape() == Shape({s[0], s[1], 1}), "gray shape %s vs color %s",
               gray->shape().ToString().c_str(), s.ToString().c_str());

  NDArray x;
  absl::Status st = mxnet::StatusFromCall(
      [&] { x = mxnet::gluon::model_zoo::vision::preprocess_image(*rgb, 32); });
  FUZZ_CHECK(st.ok(), "preprocess_image failed on a decoded image %s: %s", s.ToString().c_str(),
             st.ToString().c_str());
  FUZZ_CHECK(x.shape() == Shape({1, 3, 32, 32}), "preprocessed shape %s",
             x.shape().ToString().c_str());
  const float* f = x.data<float>();
  for (int64_t i = 0; i < x.size(); ++i) FUZZ_CHECK(std::isfinite(f[i]), "non-finite output");
  return 0;
}
