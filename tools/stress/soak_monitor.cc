#include "tools/stress/soak_monitor.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "absl/strings/str_format.h"
#include "base/strings.h"
#include "ndarray/backends/backend.h"
#include "ndarray/storage.h"

namespace mxnet::stress {
namespace {

// Resident pages from /proc/self/statm (its second field) in bytes; 0 if unreadable.
size_t ResidentBytes() {
  char buf[128];
  const int fd = ::open("/proc/self/statm", O_RDONLY);
  if (fd < 0) return 0;
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  buf[n] = '\0';
  char* p = buf;
  std::strtoull(p, &p, 10);  // size
  const unsigned long long resident = std::strtoull(p, nullptr, 10);
  return static_cast<size_t>(resident) * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

double MiB(size_t b) { return static_cast<double>(b) / (1 << 20); }

}  // namespace

MemoryReading ReadMemory(double seconds) {
  MemoryReading r;
  r.rss = ResidentBytes();
  const Storage::Stats s = Storage::GetStats(cpu());
  r.in_use = s.bytes_in_use;
  r.cached = s.bytes_cached;
  for (const backends::BackendTable* t : backends::Backends()) {
    if (!t->stats) continue;
    const backends::BackendStats b = t->stats();
    r.scratch += b.scratch_bytes;
    r.primitives += b.primitives.entries;
    r.constants += b.constants;
  }
  r.seconds = seconds;
  return r;
}

PhaseMonitor::PhaseMonitor(std::string name, int64_t steps, PhaseOptions options)
    : name_(std::move(name)), steps_(std::max<int64_t>(steps, 1)), opt_(options) {
  warmup_ = std::clamp<int64_t>(
      static_cast<int64_t>(std::ceil(opt_.warmup_fraction * static_cast<double>(steps_))), 1,
      steps_);
  every_ = std::max<int64_t>(steps_ / std::max<int64_t>(opt_.rows, 1), 1);
  rows_.reserve(static_cast<size_t>(steps_ / every_ + 4));
}

void PhaseMonitor::Record(int64_t step, const MemoryReading& r) {
  last_step_ = step;
  if (step % every_ == 0 || step == warmup_ || step == steps_ || step == 1) {
    if (rows_.size() < rows_.capacity()) rows_.emplace_back(step, r);
    if (opt_.progress) {
      PrintRow(opt_.progress, step, r);
      std::fflush(opt_.progress);
    }
  }
  auto raise = [](MemoryReading& m, const MemoryReading& v) {
    m.rss = std::max(m.rss, v.rss);
    m.in_use = std::max(m.in_use, v.in_use);
    m.cached = std::max(m.cached, v.cached);
    m.scratch = std::max(m.scratch, v.scratch);
    m.primitives = std::max(m.primitives, v.primitives);
    m.constants = std::max(m.constants, v.constants);
  };
  if (step <= warmup_) {
    raise(warm_max_, r);
    if (step == warmup_) baseline_ = after_max_ = after_min_ = r;
    return;
  }
  if (r.rss > after_max_.rss) rss_max_step_ = step;
  if (r.in_use > after_max_.in_use) in_use_max_step_ = step;
  if (r.cached > after_max_.cached) cached_max_step_ = step;
  raise(after_max_, r);
  after_min_.rss = std::min(after_min_.rss, r.rss);
  after_min_.in_use = std::min(after_min_.in_use, r.in_use);
}

void PhaseMonitor::PrintCurve(std::FILE* out) const {
  std::fprintf(out, "%-8s %9s %9s %10s %10s %11s %10s %9s %9s\n", name_.c_str(), "step", "RSS MiB",
               "in use MiB", "cached MiB", "scratch MiB", "primitives", "constants", "seconds");
  for (const auto& [step, r] : rows_) PrintRow(out, step, r);
}

void PhaseMonitor::PrintRow(std::FILE* out, int64_t step, const MemoryReading& r) const {
  std::fprintf(out, "%-8s %9lld %9.2f %10.3f %10.3f %11.3f %10zu %9zu %9.1f%s\n", name_.c_str(),
               static_cast<long long>(step), MiB(r.rss), MiB(r.in_use), MiB(r.cached),
               MiB(r.scratch), r.primitives, r.constants, r.seconds,
               step == warmup_ ? "  <- end of warm-up (baseline)" : "");
}

std::string PhaseMonitor::Summary() const {
  const double drift =
      baseline_.rss
          ? 100.0 * (static_cast<double>(after_max_.rss) - static_cast<double>(after_min_.rss)) /
                static_cast<double>(after_min_.rss)
          : 0;
  return absl::StrFormat(
      "%s: %lld steps, warm-up %lld; RSS after warm-up %.2f-%.2f MiB (max-min %.3f%% of min; "
      "baseline %.2f, final %.2f); in use %.3f-%.3f MiB; cached max %.3f MiB (warm-up max "
      "%.3f); scratch max %.3f MiB (warm-up %.3f); primitives max %zu (warm-up %zu); "
      "constants max %zu (warm-up %zu)",
      name_.c_str(), static_cast<long long>(last_step_), static_cast<long long>(warmup_),
      MiB(after_min_.rss), MiB(after_max_.rss), drift, MiB(baseline_.rss),
      rows_.empty() ? 0.0 : MiB(rows_.back().second.rss), MiB(after_min_.in_use),
      MiB(after_max_.in_use), MiB(after_max_.cached), MiB(warm_max_.cached),
      MiB(after_max_.scratch), MiB(warm_max_.scratch), after_max_.primitives, warm_max_.primitives,
      after_max_.constants, warm_max_.constants);
}

std::vector<std::string> PhaseMonitor::Failures() const {
  std::vector<std::string> f;
  if (last_step_ <= warmup_) {
    f.push_back(StrCat(name_, ": ran ", last_step_, " steps, no more than the warm-up (", warmup_,
                       "): nothing measured"));
    return f;
  }
  if (static_cast<double>(after_max_.rss - after_min_.rss) >
      opt_.rss_tolerance * static_cast<double>(after_min_.rss))
    f.push_back(
        absl::StrFormat("%s: RSS after warm-up not flat within %.2f%%: %.2f to %.2f MiB (max "
                        "at step %lld)",
                        name_.c_str(), 100 * opt_.rss_tolerance, MiB(after_min_.rss),
                        MiB(after_max_.rss), static_cast<long long>(rss_max_step_)));
  if (after_max_.in_use - after_min_.in_use > opt_.in_use_slack)
    f.push_back(absl::StrFormat(
        "%s: live allocator bytes after warm-up vary by %zu (allowed %zu): "
        "%zu to %zu (max at step %lld; baseline %zu): buffers are kept",
        name_.c_str(), after_max_.in_use - after_min_.in_use, opt_.in_use_slack, after_min_.in_use,
        after_max_.in_use, static_cast<long long>(in_use_max_step_), baseline_.in_use));
  if (after_max_.cached > warm_max_.cached)
    f.push_back(
        absl::StrFormat("%s: the allocator's cache grew after warm-up: %zu bytes at step %lld, "
                        "warm-up max %zu",
                        name_.c_str(), after_max_.cached, static_cast<long long>(cached_max_step_),
                        warm_max_.cached));
  if (after_max_.scratch > warm_max_.scratch)
    f.push_back(
        absl::StrFormat("%s: backend scratch grew after warm-up: %zu bytes, warm-up max %zu",
                        name_.c_str(), after_max_.scratch, warm_max_.scratch));
  if (after_max_.primitives > warm_max_.primitives)
    f.push_back(absl::StrFormat("%s: cached primitives grew after warm-up: %zu, warm-up max %zu",
                                name_.c_str(), after_max_.primitives, warm_max_.primitives));
  if (after_max_.constants > warm_max_.constants)
    f.push_back(absl::StrFormat("%s: cached constants grew after warm-up: %zu, warm-up max %zu",
                                name_.c_str(), after_max_.constants, warm_max_.constants));
  return f;
}

}  // namespace mxnet::stress
