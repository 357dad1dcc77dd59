#include "modelzoo/testing/deterministic_weights.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "base/strings.h"

namespace mxnet::gluon::model_zoo::testing {
namespace {

uint64_t Fnv1a64(const std::string& s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001B3ull;
  }
  return h;
}

uint64_t SplitMix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

NDArray DeterministicValues(const std::string& name, const Shape& shape) {
  MX_REQUIRE(shape.is_known(), absl::StatusCode::kFailedPrecondition,
             "DeterministicValues: shape of '", name, "' is not known: ", shape.ToString());
  int64_t n = shape.Size();
  uint64_t seed = Fnv1a64(name);
  enum { kWeight, kSmall, kGamma, kVar, kRaw } role = kRaw;
  if (EndsWith(name, "weight"))
    role = kWeight;
  else if (EndsWith(name, "bias") || EndsWith(name, "beta") || EndsWith(name, "running_mean"))
    role = kSmall;
  else if (EndsWith(name, "gamma"))
    role = kGamma;
  else if (EndsWith(name, "running_var"))
    role = kVar;
  double scale = 1;
  if (role == kWeight) {
    int64_t fan_in = shape.ndim() > 1 ? shape.ProdRange(1, shape.ndim()) : 1;
    scale = std::sqrt(3.0 / static_cast<double>(fan_in));
  }
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) {
    double k = static_cast<double>(SplitMix64(seed + static_cast<uint64_t>(i)) >> 40);
    double u = k / static_cast<double>(1 << 23) - 1.0;
    double x = u;
    switch (role) {
      case kWeight:
        x = u * scale;
        break;
      case kSmall:
        x = 0.1 * u;
        break;
      case kGamma:
        x = 1.0 + 0.2 * u;
        break;
      case kVar:
        x = 1.0 + 0.5 * u;
        break;
      case kRaw:
        break;
    }
    v[i] = static_cast<float>(x);
  }
  return NDArray::FromVector(v, shape, cpu(), DType::kFloat32);
}

void SetDeterministicWeights(Block& net) {
  for (const auto& [name, p] : net.collect_params())
    p->set_data(DeterministicValues(name, p->shape()));
}

}  // namespace mxnet::gluon::model_zoo::testing
