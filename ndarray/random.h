// The global random generator (mx.random.seed semantics): one seed sets every device's
// generator; random ops draw from the generator of their output device.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <utility>

#include "base/device.h"

namespace mxnet::random {

// Seeds the generators of all devices (mx.random.seed(seed)); a fixed seed gives repeatable
// sequences of random ops on one thread.
void seed(uint64_t seed_state);

// One generator per device, all derived from one seed (device d's stream depends on the seed and
// d only). The process-wide set is what seed() resets; callers may own further sets (the C ABI's
// mxc_ctx RNG stream) and make one current on a thread with ScopedGeneratorSet. Thread-safe.
class GeneratorSet {
 public:
  explicit GeneratorSet(uint64_t seed_state = 0) : seed_(seed_state) {}
  // Restarts every device's stream from `seed_state`.
  void seed(uint64_t seed_state);

 private:
  friend class GeneratorGuard;
  std::mutex mu_;  // guards the map and every generator
  uint64_t seed_;
  std::map<std::pair<int, int>, std::unique_ptr<std::mt19937_64>> gens_;
};

// While alive, GeneratorGuard on this thread draws from `set` (nullptr: the process-wide
// generators) instead; restores the previous choice when destroyed. `set` must outlive the scope.
class [[nodiscard]] ScopedGeneratorSet {
 public:
  explicit ScopedGeneratorSet(GeneratorSet* set);
  ~ScopedGeneratorSet();
  ScopedGeneratorSet(const ScopedGeneratorSet&) = delete;
  ScopedGeneratorSet& operator=(const ScopedGeneratorSet&) = delete;

 private:
  GeneratorSet* saved_;
};

// The generator of `device` (from this thread's current GeneratorSet) with its lock held for the
// lifetime of the guard.
class GeneratorGuard {
 public:
  explicit GeneratorGuard(Device device);
  std::mt19937_64& gen() { return *gen_; }

 private:
  std::unique_lock<std::mutex> lock_;
  std::mt19937_64* gen_;
};

}  // namespace mxnet::random
