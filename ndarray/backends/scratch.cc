#include "ndarray/backends/scratch.h"

#include <cstdlib>
#include <new>
#include <utility>

namespace mxnet::backends {

struct ScratchPool::Arena {
  std::mutex mu;    // held by the owner thread through its outermost Scope, and by Release
  int depth = 0;    // open Scopes (owner thread only)
  size_t next = 0;  // next free slot (owner thread only)
  std::atomic<bool> release_requested{false};
  std::atomic<bool> exited{false};
  std::atomic<size_t> bytes{0}, buffers{0};
  struct Buf {
    void* p = nullptr;
    size_t size = 0;
  };
  Buf bufs[kSlots];  // guarded by mu

  void FreeAll() {
    for (Buf& b : bufs) {
      std::free(b.p);
      b = Buf{};
    }
    bytes = 0;
    buffers = 0;
  }
  ~Arena() { FreeAll(); }
};

namespace {

std::atomic<uint64_t> next_pool_id{1};

// This thread's arenas, by pool id; freed when the thread exits.
struct LocalArenas {
  std::vector<std::pair<uint64_t, std::shared_ptr<void>>> list;
  ~LocalArenas();
};

}  // namespace

// (Defined here, where Arena is complete.)
LocalArenas::~LocalArenas() {
  for (auto& [id, p] : list) {
    auto* a = static_cast<ScratchPool::Arena*>(p.get());
    std::lock_guard<std::mutex> l(a->mu);
    a->FreeAll();
    a->exited = true;
  }
}

thread_local LocalArenas t_arenas;

ScratchPool::ScratchPool() : id_(next_pool_id.fetch_add(1)) {}

ScratchPool::~ScratchPool() { Release(); }

ScratchPool::Arena* ScratchPool::LocalArena() {
  for (auto& [id, p] : t_arenas.list)
    if (id == id_) return static_cast<Arena*>(p.get());
  auto a = std::make_shared<Arena>();
  {
    std::lock_guard<std::mutex> l(mu_);
    std::erase_if(arenas_, [](const std::shared_ptr<Arena>& x) { return x->exited.load(); });
    arenas_.push_back(a);
  }
  t_arenas.list.emplace_back(id_, a);
  return a.get();
}

ScratchPool::Scope::Scope(ScratchPool& pool) : arena_(pool.LocalArena()) {
  if (arena_->depth++ == 0) {
    arena_->mu.lock();
    arena_->next = 0;
  }
  first_ = arena_->next;
}

ScratchPool::Scope::~Scope() {
  arena_->next = first_;
  if (--arena_->depth > 0) return;
  if (arena_->release_requested.exchange(false)) arena_->FreeAll();
  arena_->mu.unlock();
}

void* ScratchPool::Scope::Get(size_t bytes) {
  const size_t slot = arena_->next++;
  if (slot >= kSlots || bytes > kMaxKept) return nullptr;
  Arena::Buf& b = arena_->bufs[slot];
  if (b.size < bytes || !b.p) {
    const size_t rounded = std::max<size_t>((bytes + kAlignment - 1) / kAlignment, 1) * kAlignment;
    void* p = std::aligned_alloc(kAlignment, rounded);
    if (!p) throw std::bad_alloc();
    if (b.p) {
      std::free(b.p);
      arena_->bytes -= b.size;
      arena_->buffers -= 1;
    }
    b = {p, rounded};
    arena_->bytes += rounded;
    arena_->buffers += 1;
  }
  return b.p;
}

void ScratchPool::Release() {
  Arena* own = nullptr;  // this thread's arena when it is inside a Scope (its mu is held)
  for (auto& [id, p] : t_arenas.list)
    if (id == id_ && static_cast<Arena*>(p.get())->depth > 0) own = static_cast<Arena*>(p.get());
  std::lock_guard<std::mutex> l(mu_);
  std::erase_if(arenas_, [](const std::shared_ptr<Arena>& x) { return x->exited.load(); });
  for (const auto& a : arenas_) {
    if (a.get() != own && a->mu.try_lock()) {
      a->FreeAll();
      a->mu.unlock();
      continue;
    }
    a->release_requested = true;               // freed when the running Scope ends
    if (a.get() != own && a->mu.try_lock()) {  // it ended meanwhile
      if (a->release_requested.exchange(false)) a->FreeAll();
      a->mu.unlock();
    }
  }
}

ScratchPool::Stats ScratchPool::GetStats() const {
  std::lock_guard<std::mutex> l(mu_);
  Stats s;
  for (const auto& a : arenas_) {
    if (a->exited) continue;
    s.bytes += a->bytes;
    s.buffers += a->buffers;
    ++s.threads;
  }
  return s;
}

}  // namespace mxnet::backends
