// The global random generator (mx.random.seed semantics): one seed sets every device's
// generator; random ops draw from the generator of their output device.
#pragma once

#include <cstdint>
#include <mutex>
#include <random>

#include "base/device.h"

namespace mxnet::random {

// Seeds the generators of all devices (mx.random.seed(seed)); a fixed seed gives repeatable
// sequences of random ops on one thread.
void seed(uint64_t seed_state);

// The generator of `device` with its lock held for the lifetime of the guard.
class GeneratorGuard {
 public:
  explicit GeneratorGuard(Device device);
  std::mt19937_64& gen() { return *gen_; }

 private:
  std::unique_lock<std::mutex> lock_;
  std::mt19937_64* gen_;
};

}  // namespace mxnet::random
