#include "ndarray/random.h"

#include <map>
#include <memory>

namespace mxnet::random {
namespace {
struct State {
  std::mutex mu;  // guards the map and every generator
  uint64_t seed = 0;
  std::map<std::pair<int, int>, std::unique_ptr<std::mt19937_64>> gens;
};
State& GetState() {
  static State* s = new State();
  return *s;
}
}  // namespace

void seed(uint64_t seed_state) {
  State& s = GetState();
  std::lock_guard<std::mutex> l(s.mu);
  s.seed = seed_state;
  s.gens.clear();
}

GeneratorGuard::GeneratorGuard(Device device) : lock_(GetState().mu) {
  State& s = GetState();
  auto key = std::make_pair(static_cast<int>(device.type), device.id);
  auto& g = s.gens[key];
  // Each device gets its own stream derived from the global seed.
  if (!g)
    g = std::make_unique<std::mt19937_64>(s.seed * 0x9E3779B97F4A7C15ULL +
                                          key.first * 1315423911ULL + key.second);
  gen_ = g.get();
}

}  // namespace mxnet::random
