// Per-thread scratch buffers reused across kernel calls, with a process-wide release.
//
// A training step runs the same primitives every iteration; allocating and page-faulting fresh
// multi-megabyte buffers (reordered operands, scratchpads) on every call costs as much as a small
// kernel. A ScratchPool keeps, per thread, kSlots buffers of at most kMaxKept bytes each (so a
// thread never keeps more than kSlots * kMaxKept), handed out in order within a Scope:
//
//   ScratchPool::Scope scratch(pool);   // one kernel call on this thread
//   void* a = scratch.Get(bytes_a);     // slot 0 (nullptr: too large, allocate your own)
//   void* b = scratch.Get(bytes_b);     // slot 1, distinct from a
//
// Buffers are valid until the Scope ends. Scopes nest (an inner Scope continues after the outer
// one's slots), so a helper may open its own. Each call thread has its own buffers, which is what
// lets one cached primitive (in user-scratchpad mode) run on several threads at once.
//
// Release() frees every thread's buffers: at once for threads outside a Scope, at the end of the
// running Scope for the others. A thread's buffers are freed when it exits. The pool must outlive
// its Scopes; threads may outlive the pool.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace mxnet::backends {

class ScratchPool {
 public:
  struct Arena;  // one thread's buffers (opaque)
  static constexpr size_t kSlots = 8;
  static constexpr size_t kMaxKept = size_t{64} << 20;
  static constexpr size_t kAlignment = 4096;  // buffers are page-aligned, sizes page multiples

  struct Stats {
    size_t bytes = 0;    // kept, all threads
    size_t buffers = 0;  // kept, all threads
    size_t threads = 0;  // threads that have used the pool and not exited
  };

  ScratchPool();
  ~ScratchPool();
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;

  class Scope {
   public:
    explicit Scope(ScratchPool& pool);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    // A buffer of at least `bytes` (aligned to kAlignment), distinct from the others of this
    // thread's open Scopes, valid until this Scope ends; nullptr when bytes > kMaxKept or every
    // slot is taken (the caller allocates its own). Throws std::bad_alloc.
    void* Get(size_t bytes);

   private:
    Arena* arena_;
    size_t first_;  // the slot this Scope started at
  };

  // Frees the kept buffers of every thread (deferred to the end of a running Scope).
  void Release();
  Stats GetStats() const;

 private:
  friend class Scope;
  Arena* LocalArena();

  const uint64_t id_;  // never reused, unlike the address
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<Arena>> arenas_;  // guarded by mu_; exited threads' are pruned
};

}  // namespace mxnet::backends
