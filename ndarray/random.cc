#include "ndarray/random.h"

#include "ndarray/runtime_context.h"

namespace mxnet::random {

void GeneratorSet::seed(uint64_t seed_state) {
  std::lock_guard<std::mutex> l(mu_);
  seed_ = seed_state;
  gens_.clear();
}

GeneratorSet& GlobalGeneratorSet() {
  static GeneratorSet* s = new GeneratorSet();
  return *s;
}

void seed(uint64_t seed_state) { GlobalGeneratorSet().seed(seed_state); }

namespace {
thread_local GeneratorSet* t_override = nullptr;  // ScopedGeneratorSet's set, or nullptr

GeneratorSet& CurrentGeneratorSet() {
  if (t_override) return *t_override;
  GeneratorSet* own = RuntimeContext::Current().generators();
  return own ? *own : GlobalGeneratorSet();
}
}  // namespace

ScopedGeneratorSet::ScopedGeneratorSet(GeneratorSet* set) : saved_(t_override) { t_override = set; }
ScopedGeneratorSet::~ScopedGeneratorSet() { t_override = saved_; }

GeneratorGuard::GeneratorGuard(Device device) : GeneratorGuard(CurrentGeneratorSet(), device) {}

GeneratorGuard::GeneratorGuard(GeneratorSet& s, Device device) : lock_(s.mu_) {
  auto key = std::make_pair(static_cast<int>(device.type), device.id);
  auto& g = s.gens_[key];
  // Each device gets its own sequence derived from the seed.
  if (!g)
    g = std::make_unique<std::mt19937_64>(s.seed_ * 0x9E3779B97F4A7C15ULL +
                                          key.first * 1315423911ULL + key.second);
  gen_ = g.get();
}

}  // namespace mxnet::random
