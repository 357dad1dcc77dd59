// The primitive cache every compute backend shares the shape of: oneDNN primitives today (see
// onednn/onednn.h), cuDNN execution plans and cuBLASLt algorithms beside them later.
//
// Keys are words (CacheKey): the op kind first, then geometry, dtypes and attributes as integers,
// so a lookup formats nothing. Values are immutable shared objects; a kernel keeps the one it got
// alive while it runs it, so eviction and Clear() never pull an entry from under a running kernel.
// Past `capacity` entries the least recently used one is evicted. A null value is an entry too:
// "this backend cannot run this configuration", so the caller falls back without asking again.
// All members are thread-safe.
#pragma once

#include <concepts>
#include <cstdint>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "absl/container/inlined_vector.h"

namespace mxnet::backends {

// A cache key: an ordered list of 64-bit words with an incrementally computed hash.
//   CacheKey("conv_fwd")(N, C, H, W)(channels_last)  // kind, then whatever identifies the entry
class CacheKey {
 public:
  explicit CacheKey(std::string_view kind) { Add(kind); }

  template <typename T>
  requires std::integral<T> || std::is_enum_v<T> CacheKey& Add(T v) {
    if constexpr (std::is_enum_v<T>)
      Push(static_cast<uint64_t>(static_cast<std::underlying_type_t<T>>(v)));
    else
      Push(static_cast<uint64_t>(v));
    return *this;
  }
  // Floating-point values by their bits (-0.0 and 0.0 differ; equal values match).
  CacheKey& Add(double v) { return AddBits(v); }
  CacheKey& Add(float v) { return AddBits(v); }
  // Length, then the bytes packed eight to a word.
  CacheKey& Add(std::string_view s);
  CacheKey& Add(const char* s) { return Add(std::string_view(s)); }
  CacheKey& Add(std::span<const int64_t> v);
  // Identity of an object (its address): only for objects the entry's lifetime is tied to.
  CacheKey& Add(const void* p) { return Push(reinterpret_cast<uintptr_t>(p)); }

  template <typename... T>
  CacheKey& operator()(const T&... v) {
    (Add(v), ...);
    return *this;
  }

  size_t hash() const { return static_cast<size_t>(hash_); }
  size_t size() const { return words_.size(); }  // words
  bool operator==(const CacheKey& o) const { return hash_ == o.hash_ && words_ == o.words_; }

 private:
  template <typename F>
  CacheKey& AddBits(F v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof v);
    return Push(bits);
  }
  CacheKey& Push(uint64_t w) {
    words_.push_back(w);
    hash_ = ((hash_ << 5 | hash_ >> 59) ^ w) * 0x9E3779B97F4A7C15ull;  // FxHash's step
    return *this;
  }
  absl::InlinedVector<uint64_t, 24> words_;
  uint64_t hash_ = 0;
};

struct CacheKeyHash {
  size_t operator()(const CacheKey& k) const { return k.hash(); }
};

// Counters of a PrimitiveCache. hits + misses = lookups; a miss creates an entry (unless the
// creator throws). entries counts null ("unsupported") entries too; unsupported counts only them.
struct CacheStats {
  uint64_t hits = 0, misses = 0, evictions = 0;
  size_t entries = 0, unsupported = 0, capacity = 0;
};

class PrimitiveCache {
 public:
  using Value = std::shared_ptr<const void>;

  explicit PrimitiveCache(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  // The value for `key`, made by `make()` (returning something convertible to Value) on a miss.
  // make runs outside the lock (creating a primitive can take milliseconds); when two threads
  // race on one key both may create, the first stored wins and both get it. A null result is
  // cached (unsupported). If make throws, nothing is cached and the exception propagates.
  template <typename Make>
  Value GetOrCreate(const CacheKey& key, Make&& make) {
    bool found = false;
    Value v = Lookup(key, &found);
    if (found) return v;
    return Insert(key, Value(make()));
  }

  // The value for `key` and found = true (a hit), or nullptr and found = false (a miss).
  Value Lookup(const CacheKey& key, bool* found);
  // Stores `v` under `key` unless another thread stored one first; returns the stored value.
  Value Insert(const CacheKey& key, Value v);
  // Drops every entry (values still held by callers live on until released). Counters stay.
  void Clear();
  // Changes the bound, evicting the least recently used entries past it (>= 1).
  void SetCapacity(size_t capacity);
  CacheStats Stats() const;

 private:
  struct Node {
    CacheKey key;
    Value value;
  };
  void EvictLocked();

  mutable std::mutex mu_;
  size_t capacity_;
  std::list<Node> lru_;  // most recently used first
  std::unordered_map<CacheKey, std::list<Node>::iterator, CacheKeyHash> map_;
  uint64_t hits_ = 0, misses_ = 0, evictions_ = 0;
  size_t unsupported_ = 0;
};

}  // namespace mxnet::backends
