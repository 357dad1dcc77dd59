// mxc/log.h: the process-wide progress/log sink.
#include "c_api/src/log.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "c_api/src/api.h"
#include "mxc/log.h"

namespace mxc {
namespace {

// One installed sink; user_data is freed with the last reference (the table's or a report's).
struct Sink {
  mxc_log_fn fn = nullptr;
  void* user_data = nullptr;
  mxc_user_data_free_fn free_user_data = nullptr;
  ~Sink() {
    if (free_user_data) free_user_data(user_data);
  }
};

struct SinkState {
  std::mutex mu;                 // guards `sink`
  std::shared_ptr<Sink> sink;    // nullptr: the default sink
  std::recursive_mutex call_mu;  // serializes calls into sinks (a sink may report again)
  std::atomic<int32_t> min_level{MXC_LOG_WARNING};
};
SinkState& State() {
  static auto* s = new SinkState();  // never destroyed: reports may run during exit
  return *s;
}

void CheckLevel(int32_t level, std::string_view arg) {
  if (level < MXC_LOG_PROGRESS || level > MXC_LOG_ERROR)
    BadArgument(arg, "unknown level ", level, " (MXC_LOG_PROGRESS 0 .. MXC_LOG_ERROR 3)");
}

}  // namespace

bool LogEnabled(int32_t level) noexcept {
  return level >= State().min_level.load(std::memory_order_relaxed);
}

void Log(int32_t level, std::string_view source, std::string_view message, int64_t done,
         int64_t total) noexcept {
  if (!LogEnabled(level)) return;
  try {
    SinkState& s = State();
    std::shared_ptr<Sink> sink;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      sink = s.sink;
    }
    std::string src(source), msg(message);
    std::lock_guard<std::recursive_mutex> lock(s.call_mu);
    if (!sink) {
      static constexpr const char* kNames[] = {"progress", "info", "warning", "error"};
      std::fprintf(stderr, "mxc %s: %s: %s\n", kNames[level], src.c_str(), msg.c_str());
      return;
    }
    if (mxc_status* st = sink->fn(sink->user_data, level, src.c_str(), msg.c_str(), done, total))
      mxc_status_free(st);
  } catch (...) {
    // Out of memory while reporting: the report is dropped.
  }
}

}  // namespace mxc

extern "C" {

MXC_STATUS mxc_log_set_sink(mxc_log_fn fn, void* user_data, mxc_user_data_free_fn free_user_data,
                            int32_t min_level) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::CheckLevel(min_level, "min_level");
    if (!fn && (user_data || free_user_data))
      mxc::BadArgument("fn", "is NULL but user_data or free_user_data is given");
    std::shared_ptr<mxc::Sink> next;
    if (fn) {
      next = std::make_shared<mxc::Sink>();
      next->fn = fn;
      next->user_data = user_data;
      next->free_user_data = free_user_data;  // owned from here on (nothing below throws)
    }
    mxc::SinkState& s = mxc::State();
    std::shared_ptr<mxc::Sink> prev;  // released outside the lock
    {
      std::lock_guard<std::mutex> lock(s.mu);
      prev = std::move(s.sink);
      s.sink = next;
      s.min_level.store(fn ? min_level : MXC_LOG_WARNING, std::memory_order_relaxed);
    }
  });
}

MXC_STATUS mxc_log_message(int32_t level, const char* source, const char* message, int64_t done,
                           int64_t total) noexcept {
  return mxc::Call(__func__, [&] {
    mxc::CheckLevel(level, "level");
    std::string_view src = mxc::Str(source, "source"), msg = mxc::Str(message, "message");
    mxc::Log(level, src, msg, done, total);
  });
}

}  // extern "C"
