// A host-memory stand-in for a GPU's memory and streams, for testing CachingAllocator without a
// GPU. Streams are any distinct StreamHandle values; each has a count of events recorded on it
// ("work queued") and of events completed. An event completes only when the test says the stream
// has run (CompleteStream) or when the allocator waits for it (EventSynchronize), so a test
// controls exactly when a block freed across streams may be reused.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <map>
#include <memory>

#include "ndarray/backends/cuda/caching_allocator.h"

namespace mxnet::backends::cuda::testing {

struct FakeDeviceState {
  size_t capacity = size_t{1} << 40;  // Malloc returns nullptr beyond this many live bytes
  size_t live_bytes = 0;
  std::map<void*, size_t> live;  // device allocations
  int mallocs = 0, frees = 0, failed_mallocs = 0;
  int events_created = 0, events_destroyed = 0, event_syncs = 0;
  std::map<StreamHandle, long> recorded, completed;  // per stream
  // Marks every event recorded so far on `stream` as complete (the stream ran its work).
  void CompleteStream(StreamHandle stream) { completed[stream] = recorded[stream]; }
};

class FakeDeviceMemory final : public DeviceMemory {
 public:
  explicit FakeDeviceMemory(std::shared_ptr<FakeDeviceState> state) : s_(std::move(state)) {}
  ~FakeDeviceMemory() override {
    for (auto& [p, n] : s_->live) std::free(p);
  }
  void* Malloc(size_t bytes) override {
    if (s_->live_bytes + bytes > s_->capacity) {
      ++s_->failed_mallocs;
      return nullptr;
    }
    void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    s_->live[p] = bytes;
    s_->live_bytes += bytes;
    ++s_->mallocs;
    return p;
  }
  void Free(void* p) override {
    auto it = s_->live.find(p);
    if (it == s_->live.end()) std::abort();  // the allocator freed what it never got
    s_->live_bytes -= it->second;
    s_->live.erase(it);
    std::free(p);
    ++s_->frees;
  }
  EventHandle RecordEvent(StreamHandle stream) override {
    auto* e = new Event{stream, ++s_->recorded[stream]};
    ++s_->events_created;
    return e;
  }
  bool EventDone(EventHandle e) override {
    auto* ev = static_cast<Event*>(e);
    return s_->completed[ev->stream] >= ev->seq;
  }
  void EventSynchronize(EventHandle e) override {
    auto* ev = static_cast<Event*>(e);
    long& c = s_->completed[ev->stream];
    if (c < ev->seq) c = ev->seq;
    ++s_->event_syncs;
  }
  void DestroyEvent(EventHandle e) override {
    delete static_cast<Event*>(e);
    ++s_->events_destroyed;
  }

 private:
  struct Event {
    StreamHandle stream;
    long seq;
  };
  std::shared_ptr<FakeDeviceState> s_;
};

}  // namespace mxnet::backends::cuda::testing
