// Random generators (mx.random.seed semantics): one seed sets every device's generator; random
// ops draw from the generator of their output device. The process-wide GeneratorSet is the
// default; a RuntimeContext (ndarray/runtime_context.h) may own a set of its own.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <utility>

#include "base/device.h"

namespace mxnet::random {

// One generator per device, each derived from one seed (device d's sequence depends on the seed
// and d only), all guarded by one mutex. Thread-safe.
class GeneratorSet {
 public:
  explicit GeneratorSet(uint64_t seed_state = 0) : seed_(seed_state) {}
  GeneratorSet(const GeneratorSet&) = delete;
  GeneratorSet& operator=(const GeneratorSet&) = delete;
  // Restarts every device's generator from `seed_state`.
  void seed(uint64_t seed_state);

 private:
  friend class GeneratorGuard;
  std::mutex mu_;  // guards the map and every generator
  uint64_t seed_;
  std::map<std::pair<int, int>, std::unique_ptr<std::mt19937_64>> gens_;
};

// The process-wide set (what seed() resets).
GeneratorSet& GlobalGeneratorSet();

// Seeds the process-wide generators of all devices (mx.random.seed(seed)); a fixed seed gives
// repeatable sequences of random ops on one thread. Contexts with their own set are unaffected.
void seed(uint64_t seed_state);

// Interim for the C ABI (c_api/src/ctx_scope.h, until each mxc_ctx holds a RuntimeContext):
// while alive, GeneratorGuard on this thread draws from `set` (nullptr: no override) ahead of the
// current RuntimeContext's generators; restores the previous override when destroyed. `set` must
// outlive the scope.
class [[nodiscard]] ScopedGeneratorSet {
 public:
  explicit ScopedGeneratorSet(GeneratorSet* set);
  ~ScopedGeneratorSet();
  ScopedGeneratorSet(const ScopedGeneratorSet&) = delete;
  ScopedGeneratorSet& operator=(const ScopedGeneratorSet&) = delete;

 private:
  GeneratorSet* saved_;
};

// The generator of `device` in this thread's ScopedGeneratorSet, else the current RuntimeContext's
// set (the process-wide one unless the context has its own), with the set's lock held for the
// lifetime of the guard.
class GeneratorGuard {
 public:
  explicit GeneratorGuard(Device device);
  // The generator of `device` in `set`.
  GeneratorGuard(GeneratorSet& set, Device device);
  std::mt19937_64& gen() { return *gen_; }

 private:
  std::unique_lock<std::mutex> lock_;
  std::mt19937_64* gen_;
};

}  // namespace mxnet::random
