#include "ndarray/backends/primitive_cache.h"

#include <algorithm>

namespace mxnet::backends {

CacheKey& CacheKey::Add(std::string_view s) {
  Push(s.size());
  for (size_t i = 0; i < s.size(); i += 8) {
    uint64_t w = 0;
    std::memcpy(&w, s.data() + i, std::min<size_t>(8, s.size() - i));
    Push(w);
  }
  return *this;
}

CacheKey& CacheKey::Add(std::span<const int64_t> v) {
  Push(v.size());
  for (int64_t x : v) Push(static_cast<uint64_t>(x));
  return *this;
}

PrimitiveCache::Value PrimitiveCache::Lookup(const CacheKey& key, bool* found) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = map_.find(key);
  *found = it != map_.end();
  if (!*found) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->value;
}

PrimitiveCache::Value PrimitiveCache::Insert(const CacheKey& key, Value v) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = map_.find(key);
  if (it != map_.end()) {  // another thread stored it first
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->value;
  }
  lru_.push_front(Node{key, std::move(v)});
  map_.emplace(key, lru_.begin());
  if (!lru_.front().value) ++unsupported_;
  EvictLocked();
  return lru_.front().value;
}

void PrimitiveCache::EvictLocked() {
  while (lru_.size() > capacity_) {
    if (!lru_.back().value) --unsupported_;
    map_.erase(lru_.back().key);
    lru_.pop_back();
    ++evictions_;
  }
}

void PrimitiveCache::Clear() {
  std::list<Node> dropped;  // values destroyed outside the lock
  std::lock_guard<std::mutex> l(mu_);
  map_.clear();
  dropped.swap(lru_);
  unsupported_ = 0;
}

void PrimitiveCache::SetCapacity(size_t capacity) {
  std::lock_guard<std::mutex> l(mu_);
  capacity_ = capacity < 1 ? 1 : capacity;
  EvictLocked();
}

CacheStats PrimitiveCache::Stats() const {
  std::lock_guard<std::mutex> l(mu_);
  return {hits_, misses_, evictions_, lru_.size(), unsupported_, capacity_};
}

}  // namespace mxnet::backends
