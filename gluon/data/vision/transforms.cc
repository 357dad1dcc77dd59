#include "gluon/data/vision/transforms.h"

#include <algorithm>
#include <random>

#include "base/error.h"
#include "base/strings.h"
#include "ndarray/ops/image/image_kernels.h"
#include "ndarray/random.h"

namespace mxnet::gluon::data::vision::transforms {
namespace {

std::string FloatList(const std::vector<float>& v) {
  if (v.size() == 1) return StrCat(v[0]);
  return StrCat("(", StrJoin(v, ", "), ")");
}

std::string SizeString(const Size2& s) {
  return s.single ? StrCat(s.w) : StrCat("(", s.w, ", ", s.h, ")");
}

void CheckSize(const Size2& s, const char* fn) {
  MX_REQUIRE(s.w >= 1 && s.h >= 1, absl::StatusCode::kInvalidArgument, fn,
             ": size must be positive, got ", SizeString(s));
}

void CheckRank(const NDArray& x, const char* fn, const char* layouts) {
  MX_REQUIRE(!x.is_none(), absl::StatusCode::kInvalidArgument, fn, ": the input is a none array");
  MX_REQUIRE(x.ndim() == 3 || x.ndim() == 4, absl::StatusCode::kInvalidArgument, fn,
             ": expected an input of shape ", layouts, ", got ", x.shape().ToString());
}

bool Coin() {
  random::GeneratorGuard g(cpu());
  return std::bernoulli_distribution(0.5)(g.gen());
}

}  // namespace

// ---------------------------------------------------------------- Compose

Compose::Step::Step(SharedTag tag) {
  MX_REQUIRE(tag.t != nullptr, absl::StatusCode::kInvalidArgument, "Compose: a transform is null");
  name = tag.t->ToString();
  fn = [t = std::move(tag.t)](const NDArray& x) { return t->Forward(x); };
}

Compose::Compose(std::vector<Step> steps) : steps_(std::move(steps)) {
  for (size_t i = 0; i < steps_.size(); ++i)
    MX_REQUIRE(steps_[i].fn != nullptr, absl::StatusCode::kInvalidArgument, "Compose: step ", i,
               " is an empty function");
}

NDArray Compose::Forward(const NDArray& x) const {
  NDArray y = x;
  for (const Step& s : steps_) y = s.fn(y);
  return y;
}

std::string Compose::ToString() const {
  std::vector<std::string> names;
  for (const Step& s : steps_) names.push_back(s.name);
  return StrCat("Compose(", StrJoin(names, ", "), ")");
}

// ---------------------------------------------------------------- Cast

NDArray Cast::Forward(const NDArray& x) const {
  MX_REQUIRE(!x.is_none(), absl::StatusCode::kInvalidArgument, "Cast: the input is a none array");
  return x.astype(dtype_);
}

std::string Cast::ToString() const { return StrCat("Cast(", DTypeName(dtype_), ")"); }

// ---------------------------------------------------------------- ToTensor

NDArray ToTensor::Forward(const NDArray& x) const {
  CheckRank(x, "ToTensor", "(H, W, C) or (N, H, W, C)");
  const bool batch = x.ndim() == 4;
  const int64_t n = batch ? x.shape()[0] : 1;
  const int64_t h = x.shape()[batch ? 1 : 0], w = x.shape()[batch ? 2 : 1];
  const int64_t c = x.shape()[batch ? 3 : 2];
  NDArray out(batch ? Shape{n, c, h, w} : Shape{c, h, w}, cpu(), DType::kFloat32);
  ops::image::ToTensor(x.device().is_cpu() ? x : x.copyto(cpu()), out);
  return out;
}

// ---------------------------------------------------------------- Normalize

Normalize::Normalize(std::vector<float> mean, std::vector<float> std)
    : mean_(std::move(mean)), std_(std::move(std)) {
  MX_REQUIRE(!mean_.empty() && !std_.empty(), absl::StatusCode::kInvalidArgument,
             "Normalize: mean and std must not be empty");
  for (float s : std_)
    MX_REQUIRE(s != 0.f, absl::StatusCode::kInvalidArgument,
               "Normalize: std must not contain 0, got ", FloatList(std_));
}

NDArray Normalize::Forward(const NDArray& x) const {
  CheckRank(x, "Normalize", "(C, H, W) or (N, C, H, W)");
  const int64_t c = x.shape()[x.ndim() == 4 ? 1 : 0];
  MX_REQUIRE(mean_.size() == 1 || static_cast<int64_t>(mean_.size()) == c,
             absl::StatusCode::kInvalidArgument, "Normalize: invalid mean for input with shape ",
             x.shape().ToString(), ": mean must have either 1 or ", c, " elements, but got ",
             FloatList(mean_));
  MX_REQUIRE(std_.size() == 1 || static_cast<int64_t>(std_.size()) == c,
             absl::StatusCode::kInvalidArgument, "Normalize: invalid std for input with shape ",
             x.shape().ToString(), ": std must have either 1 or ", c, " elements, but got ",
             FloatList(std_));
  MX_REQUIRE(x.dtype() == DType::kFloat32 || x.dtype() == DType::kFloat64,
             absl::StatusCode::kInvalidArgument,
             "Normalize: expected a float32 or float64 tensor (apply ToTensor first), got ",
             DTypeName(x.dtype()));
  const NDArray host = x.device().is_cpu() ? x : x.copyto(cpu());
  NDArray out(x.shape(), cpu(), x.dtype());
  ops::image::Normalize(host, out, mean_, std_);
  return out;
}

std::string Normalize::ToString() const {
  return StrCat("Normalize(mean=", FloatList(mean_), ", std=", FloatList(std_), ")");
}

// ---------------------------------------------------------------- Resize

void Resize::Validate() const { CheckSize(size_, "Resize"); }

std::pair<int64_t, int64_t> Resize::OutputSize(int64_t h, int64_t w) const {
  if (!size_.single || !keep_ratio_) return {size_.w, size_.h};
  // MXNet's GetHeightAndWidth: the short side becomes size, the long side scales (floored).
  if (h > w) return {size_.w, std::max<int64_t>(1, h * size_.w / w)};
  return {std::max<int64_t>(1, w * size_.h / h), size_.h};
}

NDArray Resize::Forward(const NDArray& x) const {
  CheckRank(x, "Resize", "(H, W, C) or (N, H, W, C)");
  const bool batch = x.ndim() == 4;
  const int64_t h = x.shape()[batch ? 1 : 0], w = x.shape()[batch ? 2 : 1];
  MX_REQUIRE(h >= 1 && w >= 1, absl::StatusCode::kInvalidArgument,
             "Resize: cannot resize an empty image of shape ", x.shape().ToString());
  const auto [ow, oh] = OutputSize(h, w);
  return imresize(x, ow, oh, interp_);
}

std::string Resize::ToString() const {
  return StrCat("Resize(size=", SizeString(size_), ", keep_ratio=", keep_ratio_ ? "True" : "False",
                ", interpolation=", static_cast<int>(interp_), ")");
}

// ---------------------------------------------------------------- crops

CenterCrop::CenterCrop(Size2 size, Interp interpolation) : size_(size), interp_(interpolation) {
  CheckSize(size_, "CenterCrop");
}

NDArray CenterCrop::Forward(const NDArray& x) const {
  return center_crop(x, size_.w, size_.h, interp_);
}

std::string CenterCrop::ToString() const {
  return StrCat("CenterCrop(size=", SizeString(size_),
                ", interpolation=", static_cast<int>(interp_), ")");
}

RandomResizedCrop::RandomResizedCrop(Size2 size, std::pair<double, double> scale,
                                     std::pair<double, double> ratio, Interp interpolation)
    : size_(size), scale_(scale), ratio_(ratio), interp_(interpolation) {
  CheckSize(size_, "RandomResizedCrop");
  MX_REQUIRE(scale.first > 0 && scale.first <= scale.second && scale.second <= 1.0,
             absl::StatusCode::kInvalidArgument,
             "RandomResizedCrop: scale must satisfy 0 < min <= max <= 1, got (", scale.first, ", ",
             scale.second, ")");
  MX_REQUIRE(ratio.first > 0 && ratio.first <= ratio.second, absl::StatusCode::kInvalidArgument,
             "RandomResizedCrop: ratio must satisfy 0 < min <= max, got (", ratio.first, ", ",
             ratio.second, ")");
}

NDArray RandomResizedCrop::Forward(const NDArray& x) const {
  return random_size_crop(x, size_.w, size_.h, scale_, ratio_, interp_);
}

std::string RandomResizedCrop::ToString() const {
  return StrCat("RandomResizedCrop(size=", SizeString(size_), ", scale=(", scale_.first, ", ",
                scale_.second, "), ratio=(", ratio_.first, ", ", ratio_.second,
                "), interpolation=", static_cast<int>(interp_), ")");
}

// ---------------------------------------------------------------- flips

NDArray RandomFlipLeftRight::Forward(const NDArray& x) const {
  CheckRank(x, "RandomFlipLeftRight", "(H, W, C) or (N, H, W, C)");
  return Coin() ? flip_left_right(x) : x;
}

NDArray RandomFlipTopBottom::Forward(const NDArray& x) const {
  CheckRank(x, "RandomFlipTopBottom", "(H, W, C) or (N, H, W, C)");
  return Coin() ? flip_top_bottom(x) : x;
}

// ---------------------------------------------------------------- color

RandomColorJitter::RandomColorJitter(float brightness, float contrast, float saturation, float hue)
    : brightness_(brightness), contrast_(contrast), saturation_(saturation), hue_(hue) {
  MX_REQUIRE(brightness >= 0 && contrast >= 0 && saturation >= 0 && hue >= 0,
             absl::StatusCode::kInvalidArgument,
             "RandomColorJitter: brightness, contrast, saturation and hue must be >= 0, got (",
             brightness, ", ", contrast, ", ", saturation, ", ", hue, ")");
}

NDArray RandomColorJitter::Forward(const NDArray& x) const {
  std::array<int, 4> order = {0, 1, 2, 3};
  std::array<float, 4> factor = {1.f, 1.f, 1.f, 0.f};
  const std::array<float, 4> amount = {brightness_, contrast_, saturation_, hue_};
  {
    random::GeneratorGuard g(cpu());
    std::shuffle(order.begin(), order.end(), g.gen());
    for (int i : order) {
      if (amount[i] <= 0) continue;
      const float u = std::uniform_real_distribution<float>(-amount[i], amount[i])(g.gen());
      factor[i] = i == 3 ? u : 1.f + u;
    }
  }
  NDArray y = x;
  bool any = false;
  for (int i : order) {
    if (amount[i] <= 0) continue;
    any = true;
    switch (i) {
      case 0:
        y = adjust_brightness(y, factor[0]);
        break;
      case 1:
        y = adjust_contrast(y, factor[1]);
        break;
      case 2:
        y = adjust_saturation(y, factor[2]);
        break;
      default:
        y = adjust_hue(y, factor[3]);
        break;
    }
  }
  return any ? y : x;
}

std::string RandomColorJitter::ToString() const {
  return StrCat("RandomColorJitter(brightness=", brightness_, ", contrast=", contrast_,
                ", saturation=", saturation_, ", hue=", hue_, ")");
}

}  // namespace mxnet::gluon::data::vision::transforms
