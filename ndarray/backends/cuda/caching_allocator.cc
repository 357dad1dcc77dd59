#include "ndarray/backends/cuda/caching_allocator.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <tuple>
#include <unordered_set>

#include "base/error.h"
#include "base/strings.h"

namespace mxnet::backends::cuda {

bool CachingAllocator::BlockLess::operator()(const Block* a, const Block* b) const {
  auto key = [](const Block* x) {
    return std::make_tuple(reinterpret_cast<uintptr_t>(x->stream), x->size,
                           reinterpret_cast<uintptr_t>(x->ptr));
  };
  return key(a) < key(b);
}

CachingAllocator::CachingAllocator(std::unique_ptr<DeviceMemory> device, std::string name,
                                   bool cache)
    : device_(std::move(device)), name_(std::move(name)), cache_(cache) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> l(mu_);
  SynchronizeAndProcessEvents();
  ReleaseFreeSegments();
  // Every block is now free in a bin or in use; segments with blocks in use keep their device
  // memory, the bookkeeping goes.
  std::unordered_set<Block*> left(live_.size() + small_bin_.size() + large_bin_.size());
  for (Bin* bin : {&small_bin_, &large_bin_}) left.insert(bin->begin(), bin->end());
  for (auto& [ptr, b] : live_) left.insert(b);
  for (Block* b : left) delete b;
}

size_t CachingAllocator::RoundSize(size_t bytes) {
  if (bytes < kMinBlock) return kMinBlock;
  return (bytes + kMinBlock - 1) / kMinBlock * kMinBlock;
}

size_t CachingAllocator::SegmentSize(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallSegment;
  if (rounded < kLargeSize) return kMidSegment;
  return (rounded + kSegmentRound - 1) / kSegmentRound * kSegmentRound;
}

CachingAllocator::Block* CachingAllocator::FindCached(size_t size, StreamHandle stream,
                                                      bool small) {
  Bin& bin = BinFor(small);
  Block key;
  key.stream = stream;
  key.size = size;
  key.ptr = nullptr;
  auto it = bin.lower_bound(&key);
  if (it == bin.end() || (*it)->stream != stream) return nullptr;
  Block* b = *it;
  bin.erase(it);
  return b;
}

CachingAllocator::Block* CachingAllocator::NewSegment(size_t size, StreamHandle stream,
                                                      bool small) {
  void* p = device_->Malloc(size);
  if (!p) return nullptr;
  auto* b = new Block;
  b->ptr = static_cast<char*>(p);
  b->size = size;
  b->stream = stream;
  b->small = small;
  ++stats_.device_mallocs;
  ++stats_.segments;
  stats_.bytes_reserved += size;
  stats_.peak_reserved = std::max(stats_.peak_reserved, stats_.bytes_reserved);
  return b;
}

CachingAllocator::Block* CachingAllocator::Split(Block* b, size_t size) {
  size_t rest = b->size - size;
  bool split = b->small ? rest >= kMinBlock : rest > kSmallSize;
  if (!split) return b;
  auto* r = new Block;
  r->ptr = b->ptr + size;
  r->size = rest;
  r->stream = b->stream;
  r->small = b->small;
  r->prev = b;
  r->next = b->next;
  if (b->next) b->next->prev = r;
  b->next = r;
  b->size = size;
  InsertFree(r);
  return b;
}

void CachingAllocator::InsertFree(Block* b) {
  Bin& bin = BinFor(b->small);
  auto is_free = [](const Block* x) { return x && !x->allocated && x->pending == 0; };
  if (is_free(b->prev)) {
    Block* p = b->prev;
    bin.erase(p);
    p->size += b->size;
    p->next = b->next;
    if (b->next) b->next->prev = p;
    delete b;
    b = p;
  }
  if (is_free(b->next)) {
    Block* n = b->next;
    bin.erase(n);
    b->size += n->size;
    b->next = n->next;
    if (n->next) n->next->prev = b;
    delete n;
  }
  bin.insert(b);
  if (!cache_ && !b->prev && !b->next) ReleaseFreeSegments();  // unpooled: back at once
}

void CachingAllocator::ProcessEvents() {
  if (events_.empty()) return;
  std::vector<PendingEvent> left;
  for (PendingEvent& e : events_) {
    if (!device_->EventDone(e.event)) {
      left.push_back(e);
      continue;
    }
    device_->DestroyEvent(e.event);
    if (--e.block->pending == 0) {
      stats_.bytes_pending -= e.block->size;
      InsertFree(e.block);
    }
  }
  events_.swap(left);
}

void CachingAllocator::SynchronizeAndProcessEvents() {
  for (PendingEvent& e : events_) device_->EventSynchronize(e.event);
  ProcessEvents();
}

size_t CachingAllocator::ReleaseFreeSegments() {
  size_t released = 0;
  for (Bin* bin : {&small_bin_, &large_bin_}) {
    for (auto it = bin->begin(); it != bin->end();) {
      Block* b = *it;
      if (b->prev || b->next) {  // part of a segment with other blocks in use
        ++it;
        continue;
      }
      it = bin->erase(it);
      device_->Free(b->ptr);
      released += b->size;
      stats_.bytes_reserved -= b->size;
      --stats_.segments;
      ++stats_.device_frees;
      delete b;
    }
  }
  return released;
}

void* CachingAllocator::Malloc(size_t bytes, StreamHandle stream) {
  MX_REQUIRE(bytes > 0, absl::StatusCode::kInvalidArgument, name_,
             ": cannot allocate 0 bytes from the caching allocator");
  std::lock_guard<std::mutex> l(mu_);
  ProcessEvents();
  size_t size = RoundSize(bytes);
  bool small = size <= kSmallSize;
  Block* b = cache_ ? FindCached(size, stream, small) : nullptr;
  if (b) {
    ++stats_.cache_hits;
  } else {
    size_t seg = cache_ ? SegmentSize(size) : size;
    b = NewSegment(seg, stream, small);
    if (!b) {  // out of memory: give the cache back, then wait for pending blocks too
      ReleaseFreeSegments();
      b = NewSegment(seg, stream, small);
    }
    if (!b) {
      SynchronizeAndProcessEvents();
      ReleaseFreeSegments();
      b = NewSegment(seg, stream, small);
    }
    if (!b) {
      ++stats_.ooms;
      MX_THROW(absl::StatusCode::kResourceExhausted, name_, ": out of memory allocating ", bytes,
               " bytes (a segment of ", seg, " bytes was refused; in use ", stats_.bytes_in_use,
               " bytes, reserved ", stats_.bytes_reserved, " bytes after emptying the cache)");
    }
  }
  b->allocated = true;
  Split(b, size);
  live_[b->ptr] = b;
  ++stats_.allocations;
  stats_.bytes_in_use += b->size;
  stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.bytes_in_use);
  return b->ptr;
}

CachingAllocator::Block* CachingAllocator::Lookup(void* ptr, const char* what) {
  auto it = live_.find(ptr);
  MX_REQUIRE(it != live_.end(), absl::StatusCode::kInvalidArgument, name_, ": ", what,
             " of a pointer this allocator did not hand out or that was already freed");
  return it->second;
}

void CachingAllocator::Free(void* ptr) {
  if (!ptr) return;
  std::lock_guard<std::mutex> l(mu_);
  Block* b = Lookup(ptr, "Free");
  live_.erase(ptr);
  b->allocated = false;
  stats_.bytes_in_use -= b->size;
  if (b->used_on.empty()) {
    InsertFree(b);
    return;
  }
  for (StreamHandle s : b->used_on) {
    events_.push_back({device_->RecordEvent(s), b});
    ++b->pending;
  }
  b->used_on.clear();
  stats_.bytes_pending += b->size;
}

void CachingAllocator::RecordStream(void* ptr, StreamHandle stream) {
  std::lock_guard<std::mutex> l(mu_);
  Block* b = Lookup(ptr, "RecordStream");
  if (stream == b->stream) return;
  if (std::find(b->used_on.begin(), b->used_on.end(), stream) == b->used_on.end())
    b->used_on.push_back(stream);
}

size_t CachingAllocator::EmptyCache() {
  std::lock_guard<std::mutex> l(mu_);
  SynchronizeAndProcessEvents();
  return ReleaseFreeSegments();
}

AllocatorStats CachingAllocator::Stats() {
  std::lock_guard<std::mutex> l(mu_);
  ProcessEvents();
  AllocatorStats s = stats_;
  s.bytes_cached = s.bytes_reserved - s.bytes_in_use;
  return s;
}

void CachingAllocator::ResetPeak() {
  std::lock_guard<std::mutex> l(mu_);
  stats_.peak_in_use = stats_.bytes_in_use;
  stats_.peak_reserved = stats_.bytes_reserved;
}

size_t CachingAllocator::BlockSize(void* ptr) {
  std::lock_guard<std::mutex> l(mu_);
  return Lookup(ptr, "BlockSize")->size;
}

}  // namespace mxnet::backends::cuda
