// Memory readings of a soak run and the verdict on them (docs/reliability.md §8): resident memory
// flat after warm-up, the caching allocator's live bytes constant, caches bounded.
//
//   PhaseMonitor m("lenet", steps, {.warmup_fraction = 0.1, .rows = 20});
//   for (int64_t s = 1; s <= steps; ++s) { Step(); m.Record(s, ReadMemory()); }
//   m.PrintCurve(stdout); for (auto& f : m.Failures()) ...
//
// Record() neither allocates nor locks (it runs after every step and must not disturb what it
// measures): the curve rows are reserved up front.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace mxnet::stress {

// One reading, taken at the same point of every step.
struct MemoryReading {
  size_t rss = 0;         // resident set (bytes; /proc/self/statm)
  size_t in_use = 0;      // Storage::Stats::bytes_in_use (live NDArray buffers)
  size_t cached = 0;      // Storage::Stats::bytes_cached (free blocks kept for reuse)
  size_t scratch = 0;     // backends' kept scratch bytes (BackendStats::scratch_bytes)
  size_t primitives = 0;  // backends' cached primitives (BackendStats::primitives.entries)
  size_t constants = 0;   // backends' cached constant operands (BackendStats::constants)
  double seconds = 0;     // since the phase began
};

// RSS, Storage stats of cpu(0) and the registered backends' stats, now. Allocation-free.
MemoryReading ReadMemory(double seconds);

struct PhaseOptions {
  // The first ceil(warmup_fraction * steps) steps (at least 1) are warm-up: graphs are traced,
  // primitives created, caches filled, the allocator's arenas sized. The reading after the last
  // warm-up step is the baseline.
  double warmup_fraction = 0.1;
  // RSS after warm-up must stay within [min, min * (1 + rss_tolerance)] (max - min <= tol * min).
  double rss_tolerance = 0.01;
  // Live allocator bytes after warm-up may vary by this much (0: constant; a training step holds
  // the same buffers at the same point of every step).
  size_t in_use_slack = 0;
  // Curve rows printed (evenly spaced steps, plus the baseline and the last step).
  int64_t rows = 20;
  // When set, each curve row is also printed here as it is recorded (a long run shows progress).
  std::FILE* progress = nullptr;
};

class PhaseMonitor {
 public:
  PhaseMonitor(std::string name, int64_t steps, PhaseOptions options);
  int64_t warmup_steps() const { return warmup_; }
  // After step `step` (1-based, in order) with that step's reading.
  void Record(int64_t step, const MemoryReading& r);
  // "step  RSS MiB  in use MiB  cached MiB  scratch MiB  primitives  constants  seconds" rows.
  void PrintCurve(std::FILE* out) const;
  // One row (as PrintCurve prints it).
  void PrintRow(std::FILE* out, int64_t step, const MemoryReading& r) const;
  // One line: baseline, RSS min/max after warm-up and the drift in percent, in-use range, caches.
  std::string Summary() const;
  // Empty when the phase passed; else one message per violated rule (naming the phase, the
  // figures and the step where the worst value was seen).
  std::vector<std::string> Failures() const;

 private:
  std::string name_;
  int64_t steps_, warmup_, every_;
  PhaseOptions opt_;
  int64_t last_step_ = 0;
  MemoryReading baseline_{}, warm_max_{}, after_max_{}, after_min_{};
  int64_t rss_max_step_ = 0, in_use_max_step_ = 0, cached_max_step_ = 0;
  std::vector<std::pair<int64_t, MemoryReading>> rows_;
};

}  // namespace mxnet::stress
