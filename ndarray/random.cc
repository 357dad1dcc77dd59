#include "ndarray/random.h"

namespace mxnet::random {
namespace {
GeneratorSet& GlobalSet() {
  static GeneratorSet* s = new GeneratorSet();
  return *s;
}
thread_local GeneratorSet* t_current = nullptr;  // nullptr: GlobalSet()
}  // namespace

void GeneratorSet::seed(uint64_t seed_state) {
  std::lock_guard<std::mutex> l(mu_);
  seed_ = seed_state;
  gens_.clear();
}

void seed(uint64_t seed_state) { GlobalSet().seed(seed_state); }

ScopedGeneratorSet::ScopedGeneratorSet(GeneratorSet* set) : saved_(t_current) { t_current = set; }
ScopedGeneratorSet::~ScopedGeneratorSet() { t_current = saved_; }

GeneratorGuard::GeneratorGuard(Device device) {
  GeneratorSet& s = t_current ? *t_current : GlobalSet();
  lock_ = std::unique_lock<std::mutex>(s.mu_);
  auto key = std::make_pair(static_cast<int>(device.type), device.id);
  auto& g = s.gens_[key];
  // Each device gets its own stream derived from the set's seed.
  if (!g)
    g = std::make_unique<std::mt19937_64>(s.seed_ * 0x9E3779B97F4A7C15ULL +
                                          key.first * 1315423911ULL + key.second);
  gen_ = g.get();
}

}  // namespace mxnet::random
