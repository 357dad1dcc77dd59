// Vision transforms (mxnet.gluon.data.vision.transforms): callable objects on image NDArrays.
//
//   using namespace mxnet::gluon::data::vision::transforms;
//   Compose train_tf({RandomResizedCrop(224), RandomFlipLeftRight(), ToTensor(),
//                     Normalize({0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f})});
//   auto ds = folder->transform_first(train_tf);   // any transform converts to ArrayFn
//
// Layouts: image transforms take HWC (H, W, C) images (C = 1 or 3), most also NHWC batches; after
// ToTensor the data is CHW (C, H, W) / NCHW float32. Every transform is a small copyable value with
// `NDArray operator()(const NDArray&) const`, derived from Transform so it can also be held
// polymorphically; all are thread-safe (DataLoader workers). Random transforms draw from the global
// generator (mxnet::random::seed makes single-threaded runs repeatable). Inputs are never
// modified; outputs are new CPU arrays.
//
// Errors: mxnet::Error(kInvalidArgument) naming the transform and the bad shape, dtype or
// parameter (constructors validate their parameters).
#pragma once

#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gluon/data/vision/image.h"
#include "ndarray/ndarray.h"

namespace mxnet::gluon::data::vision::transforms {

class Transform {
 public:
  virtual ~Transform() = default;
  virtual NDArray Forward(const NDArray& x) const = 0;
  NDArray operator()(const NDArray& x) const { return Forward(x); }
  // Like MXNet's block repr, e.g. "Resize(size=(224, 224), keep_ratio=False, interpolation=1)".
  virtual std::string ToString() const = 0;
};

// A (width, height) size; an int n means (n, n).
struct Size2 {
  Size2(int64_t n) : w(n), h(n), single(true) {}  // NOLINT: like MXNet's `int or (w, h)`
  Size2(int64_t width, int64_t height) : w(width), h(height), single(false) {}
  int64_t w, h;
  bool single;  // given as one int
};

// A plain function NDArray(const NDArray&) that is not a Transform.
template <typename F>
concept ArrayFunction = !std::derived_from<std::decay_t<F>, Transform> &&
                        std::is_invocable_r_v<NDArray, F, const NDArray&>;

// Chains transforms in order (Compose). A step is a copy of a transform object, a shared
// polymorphic transform, or any function NDArray(const NDArray&).
class Compose : public Transform {
 public:
  using Fn = std::function<NDArray(const NDArray&)>;
  struct Step {
    template <std::derived_from<Transform> T>
    Step(T t) : name(t.ToString()), fn(std::move(t)) {}  // NOLINT: implicit by design
    template <std::derived_from<Transform> T>
    Step(std::shared_ptr<T> t) : Step(Shared(std::move(t))) {}  // NOLINT
    template <ArrayFunction F>
    Step(F f) : name("<function>"), fn(std::move(f)) {}  // NOLINT
    std::string name;
    Fn fn;

   private:
    struct SharedTag {
      std::shared_ptr<const Transform> t;
    };
    static SharedTag Shared(std::shared_ptr<const Transform> t) { return {std::move(t)}; }
    explicit Step(SharedTag t);
  };
  // Errors: an empty function or a null transform.
  explicit Compose(std::vector<Step> steps);
  NDArray Forward(const NDArray& x) const override;
  std::string ToString() const override;
  size_t size() const { return steps_.size(); }

 private:
  std::vector<Step> steps_;
};

// Converts to dtype (Cast): astype. Default float32.
class Cast : public Transform {
 public:
  explicit Cast(DType dtype = DType::kFloat32) : dtype_(dtype) {}
  NDArray Forward(const NDArray& x) const override;
  std::string ToString() const override;

 private:
  DType dtype_;
};

// HWC image in [0, 255] -> CHW float32 in [0, 1] (x / 255); NHWC -> NCHW (ToTensor). Input dtype:
// uint8 or any floating/integer type (converted, then divided by 255 like MXNet's kernel).
// Errors: a rank other than 3 or 4.
class ToTensor : public Transform {
 public:
  NDArray Forward(const NDArray& x) const override;
  std::string ToString() const override { return "ToTensor()"; }
};

// (x - mean[c]) / std[c] per channel of a CHW or NCHW float32/float64 tensor (Normalize). mean and
// std have 1 element (all channels) or one per channel. Errors: a rank other than 3/4, a
// non-float dtype, a mean/std size that is neither 1 nor C, a zero std.
class Normalize : public Transform {
 public:
  explicit Normalize(std::vector<float> mean = {0.f}, std::vector<float> std = {1.f});
  NDArray Forward(const NDArray& x) const override;
  std::string ToString() const override;

 private:
  std::vector<float> mean_, std_;
};

// Resizes an HWC image or NHWC batch with antialiasing (image.h's imresize) (Resize). size (w, h)
// is the output size; an int size with keep_ratio resizes the short side to it keeping the aspect
// ratio (long side = floor(long * size / short), MXNet's rule); without keep_ratio gives
// (size, size). dtype uint8 or float32 (kept).
class Resize : public Transform {
 public:
  explicit Resize(Size2 size, Interp interpolation = Interp::kBilinear)
      : Resize(size, false, interpolation) {}
  // (keep_ratio must be a real bool, so that Resize({w, h}) is not read as Resize(w, bool(h)).)
  template <std::same_as<bool> Bool>
  Resize(Size2 size, Bool keep_ratio, Interp interpolation = Interp::kBilinear)
      : size_(size), keep_ratio_(keep_ratio), interp_(interpolation) {
    Validate();
  }
  NDArray Forward(const NDArray& x) const override;
  std::string ToString() const override;
  // The (w, h) output size for an input of height h and width w.
  std::pair<int64_t, int64_t> OutputSize(int64_t h, int64_t w) const;

 private:
  void Validate() const;
  Size2 size_;
  bool keep_ratio_;
  Interp interp_;
};

// The center (w, h) crop of an HWC image, resized up if the image is smaller (CenterCrop,
// mx.image.center_crop). Any dtype when no resize is needed, else uint8/float32.
class CenterCrop : public Transform {
 public:
  explicit CenterCrop(Size2 size, Interp interpolation = Interp::kBilinear);
  NDArray Forward(const NDArray& x) const override;
  std::string ToString() const override;

 private:
  Size2 size_;
  Interp interp_;
};

// A random crop of area fraction in `scale` and aspect ratio in `ratio` (log-uniform) of an HWC
// image, resized to size (RandomResizedCrop; falls back to a center crop after 10 draws).
class RandomResizedCrop : public Transform {
 public:
  explicit RandomResizedCrop(Size2 size, std::pair<double, double> scale = {0.08, 1.0},
                             std::pair<double, double> ratio = {3.0 / 4.0, 4.0 / 3.0},
                             Interp interpolation = Interp::kBilinear);
  NDArray Forward(const NDArray& x) const override;
  std::string ToString() const override;

 private:
  Size2 size_;
  std::pair<double, double> scale_, ratio_;
  Interp interp_;
};

// Mirrors an HWC image (or a whole NHWC batch) left-right with probability 0.5
// (RandomFlipLeftRight); the unflipped case returns the input array itself.
class RandomFlipLeftRight : public Transform {
 public:
  NDArray Forward(const NDArray& x) const override;
  std::string ToString() const override { return "RandomFlipLeftRight()"; }
};

// Same, top-bottom (RandomFlipTopBottom).
class RandomFlipTopBottom : public Transform {
 public:
  NDArray Forward(const NDArray& x) const override;
  std::string ToString() const override { return "RandomFlipTopBottom()"; }
};

// Random brightness, contrast, saturation and hue changes of an HWC uint8/float32 image, applied
// in a random order (RandomColorJitter, MXNet's kernel): factors 1 + U(-b, b), 1 + U(-c, c),
// 1 + U(-s, s) and a hue rotation of U(-h, h) turns; a 0 parameter skips that change.
// Errors: a negative parameter.
class RandomColorJitter : public Transform {
 public:
  explicit RandomColorJitter(float brightness = 0, float contrast = 0, float saturation = 0,
                             float hue = 0);
  NDArray Forward(const NDArray& x) const override;
  std::string ToString() const override;

 private:
  float brightness_, contrast_, saturation_, hue_;
};

// Single-effect jitters (RandomBrightness etc.): RandomColorJitter with one non-zero parameter.
class RandomBrightness : public RandomColorJitter {
 public:
  explicit RandomBrightness(float brightness) : RandomColorJitter(brightness, 0, 0, 0) {}
};
class RandomContrast : public RandomColorJitter {
 public:
  explicit RandomContrast(float contrast) : RandomColorJitter(0, contrast, 0, 0) {}
};
class RandomSaturation : public RandomColorJitter {
 public:
  explicit RandomSaturation(float saturation) : RandomColorJitter(0, 0, saturation, 0) {}
};
class RandomHue : public RandomColorJitter {
 public:
  explicit RandomHue(float hue) : RandomColorJitter(0, 0, 0, hue) {}
};

}  // namespace mxnet::gluon::data::vision::transforms
