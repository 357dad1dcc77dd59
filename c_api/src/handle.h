// Typed, reference-counted, checked handles for every family of the C ABI.
//
// A handle is an opaque pointer-sized value encoding (slot index, generation, type tag) inside an
// address range the library reserves (PROT_NONE, never touched): it is never dereferenced, never
// aliases memory of the caller's runtime (Go's GC, JVM), and is never below 4096. Each handle type
// has its own table of slots; a slot holds the C++ value (an NDArray, a shared_ptr<...>), the
// handle reference count and the slot's generation, bumped on every free. Every call decodes its
// handles and checks the tag and the generation under the slot's lock, so NULL, wrong-type,
// stale (freed), double-freed and foreign pointers are errors, never a crash. Freed slots are
// reused in FIFO order after a delay, so a stale handle only aliases a new one after its slot went
// round 2^kGenBits times.
//
// Adding a handle type (see c_api/README.md "Adding a family"):
//   1. a tag in enum Tag and its C name in handle.cc's kTagNames;
//   2. in handles.h:  MXC_HANDLE_TYPE(mxc_block, std::shared_ptr<gluon::Block>, kBlock);
//   3. in the family's .cc:  MXC_DEFINE_RETAIN_FREE(mxc_block)  (mxc_block_retain / _free);
//   4. mxc::Get(h, "block") returns the value (copy), mxc::New<mxc_block>(value) a +1 handle.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>

#include "c_api/src/api.h"

namespace mxc {

// One per handle type; the value is part of the handle bits (not of the ABI), unique per type.
enum class Tag : uint8_t {
  kNone = 0,
  kCtx = 1,
  kNDArray = 2,
  kOp = 3,  // immortal (ops.cc): index = registry position, no table
  kSymbol = 4,
  kInferResult = 5,
  kBlock = 6,
  kParameter = 7,
  kTrainer = 8,
  kTransform = 9,
  kDataset = 10,
  kDataLoader = 11,
  // Further families take the next values, up to 63.
};
// The C type name of a tag ("mxc_ndarray"), "unknown handle type" for unused values.
const char* TagName(Tag tag);

// Handle bits, as an offset from the reserved range's base: [tag:6][generation:12][index:20].
inline constexpr int kTagBits = 6, kGenBits = 12, kIndexBits = 20;
inline constexpr uint32_t kGenMask = (1u << kGenBits) - 1;
inline constexpr uint32_t kMaxSlots = 1u << kIndexBits;

// Names an argument in error messages: "inputs" or "inputs[3]" (formatted only on errors).
struct Arg {
  Arg(const char* n) : name(n) {}  // NOLINT: implicit from a literal
  Arg(std::string_view n, int64_t i) : name(n), index(i) {}
  std::string_view name;
  int64_t index = -1;
  std::string str() const;
};

struct Decoded {
  uint32_t index;
  uint32_t gen;
};
// Decodes `h` expecting type `tag`. Throws kInvalidArgument naming `arg` when h is NULL, not an
// mxc handle, or a handle of another type.
Decoded Decode(const void* h, Tag tag, const Arg& arg);
// Decodes without throwing: false for NULL, foreign pointers and other types.
bool TryDecode(const void* h, Tag tag, Decoded* out) noexcept;
// The handle value for (tag, index, gen). Throws kResourceExhausted if the address range could
// not be reserved.
void* Encode(Tag tag, uint32_t index, uint32_t gen);

// Process-wide accounting (mxc_handle_stats_get).
std::atomic<uint64_t>& LiveHandles();
std::atomic<uint64_t>& BadFrees();
// Throws kInvalidArgument "argument '<arg>' is a freed <type> handle (used after its last _free,
// or freed twice)".
[[noreturn]] void ThrowStale(Tag tag, const Arg& arg);
// Throws kResourceExhausted "too many live <type> handles".
[[noreturn]] void ThrowTableFull(Tag tag);
// Throws kResourceExhausted: a reference count would overflow.
[[noreturn]] void ThrowRefOverflow(Tag tag, const Arg& arg);

// A tiny spin lock per slot (uncontended in the common case; held for a copy at most).
class SpinLock {
 public:
  void lock() noexcept {
    while (flag_.test_and_set(std::memory_order_acquire))
      while (flag_.test(std::memory_order_relaxed)) std::this_thread::yield();
  }
  void unlock() noexcept { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

// The slots of one handle type holding values of type V.
template <typename V>
class Table {
 public:
  explicit Table(Tag tag) : tag_(tag) {}

  // A new handle holding `v` with reference count 1.
  void* Add(V v) {
    uint32_t index = Acquire();
    Slot& s = SlotAt(index);
    uint32_t gen;
    {
      std::lock_guard<SpinLock> l(s.mu);
      s.value.emplace(std::move(v));
      s.refs = 1;
      gen = s.gen;
    }
    LiveHandles().fetch_add(1, std::memory_order_relaxed);
    return Encode(tag_, index, gen);
  }

  // A copy of the value. Throws on NULL, foreign, wrong-type and stale handles.
  V Get(const void* h, const Arg& arg) {
    Decoded d = Decode(h, tag_, arg);
    Slot& s = Existing(d, arg);
    std::lock_guard<SpinLock> l(s.mu);
    if (s.gen != d.gen || s.refs == 0) ThrowStale(tag_, arg);
    return *s.value;
  }

  // One more reference. Throws like Get.
  void Retain(const void* h, const Arg& arg) {
    Decoded d = Decode(h, tag_, arg);
    Slot& s = Existing(d, arg);
    std::lock_guard<SpinLock> l(s.mu);
    if (s.gen != d.gen || s.refs == 0) ThrowStale(tag_, arg);
    if (s.refs == UINT32_MAX) ThrowRefOverflow(tag_, arg);
    ++s.refs;
  }

  // Drops one reference; at zero the value is destroyed (outside the lock) and the slot recycled.
  // NULL is ignored; invalid handles are ignored and counted in BadFrees().
  // (GCC 12 at -O1, the sanitizer builds, wrongly warns that `dead`'s shared_ptr may be
  // uninitialized; std::optional is empty until the swap.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
  void Release(const void* h) noexcept {
    if (!h) return;
    Decoded d;
    if (!TryDecode(h, tag_, &d) || d.index >= next_.load(std::memory_order_acquire)) {
      BadFrees().fetch_add(1, std::memory_order_relaxed);
      return;
    }
    Slot& s = SlotAt(d.index);
    std::optional<V> dead;
    {
      std::lock_guard<SpinLock> l(s.mu);
      if (s.gen != d.gen || s.refs == 0) {
        BadFrees().fetch_add(1, std::memory_order_relaxed);
        return;
      }
      if (--s.refs > 0) return;
      dead.swap(s.value);
      s.gen = (s.gen + 1) & kGenMask;
    }
    LiveHandles().fetch_sub(1, std::memory_order_relaxed);
    try {
      std::lock_guard<std::mutex> l(free_mu_);
      free_.push_back(d.index);
    } catch (...) {  // out of memory: the slot is lost, nothing else
    }
    dead.reset();  // may run arbitrary destructors (external-memory deleters)
  }
#pragma GCC diagnostic pop

 private:
  static constexpr uint32_t kChunk = 1024;
  // A freed slot is reused only once this many others wait, so stale handles stay detectable.
  static constexpr size_t kReuseDelay = 4096;

  struct Slot {
    SpinLock mu;
    uint32_t gen = 0;
    uint32_t refs = 0;  // 0: free
    std::optional<V> value;
  };
  struct Chunk {
    Slot slots[kChunk];
  };

  Slot& SlotAt(uint32_t index) {
    return chunks_[index / kChunk].load(std::memory_order_acquire)->slots[index % kChunk];
  }
  // The slot of a decoded handle; throws if no such slot was ever handed out.
  Slot& Existing(Decoded d, const Arg& arg) {
    if (d.index >= next_.load(std::memory_order_acquire)) ThrowStale(tag_, arg);
    return SlotAt(d.index);
  }

  uint32_t Acquire() {
    std::lock_guard<std::mutex> l(free_mu_);
    uint32_t n = next_.load(std::memory_order_relaxed);
    if (free_.size() > kReuseDelay || (n == kMaxSlots && !free_.empty())) {
      uint32_t i = free_.front();
      free_.pop_front();
      return i;
    }
    if (n == kMaxSlots) ThrowTableFull(tag_);
    if (n % kChunk == 0) chunks_[n / kChunk].store(new Chunk(), std::memory_order_release);
    next_.store(n + 1, std::memory_order_release);
    return n;
  }

  const Tag tag_;
  std::mutex free_mu_;
  std::deque<uint32_t> free_;
  std::atomic<uint32_t> next_{0};  // slots [0, next_) exist
  std::atomic<Chunk*> chunks_[kMaxSlots / kChunk] = {};
};

// Binds a C handle type to its value type and tag: MXC_HANDLE_TYPE(mxc_ndarray, NDArray, kNDArray)
template <typename H>
struct HandleTraits;

#define MXC_HANDLE_TYPE(CType, ValueType, TagName_)                         \
  template <>                                                               \
  struct mxc::HandleTraits<CType> {                                         \
    using Value = ValueType;                                                \
    static constexpr ::mxc::Tag kTag = ::mxc::Tag::TagName_;                \
    static ::mxc::Table<Value>& table() {                                   \
      static auto* t = new ::mxc::Table<Value>(kTag); /* never destroyed */ \
      return *t;                                                            \
    }                                                                       \
  }

// The value behind handle `h` (a copy). Throws kInvalidArgument naming `arg` for NULL, foreign,
// wrong-type and stale handles.
template <typename H>
typename HandleTraits<H>::Value Get(const H* h, const Arg& arg) {
  return HandleTraits<H>::table().Get(h, arg);
}
// A new +1 handle of type H holding `v`.
template <typename H>
H* New(typename HandleTraits<H>::Value v) {
  return static_cast<H*>(HandleTraits<H>::table().Add(std::move(v)));
}
// Values of n handles (each checked), e.g. operator inputs.
template <typename H, typename Vec>
void GetAll(H* const* hs, size_t n, std::string_view arg, Vec* out) {
  Array(hs, n, arg);
  out->reserve(out->size() + n);
  for (size_t i = 0; i < n; ++i) out->push_back(Get(hs[i], Arg(arg, static_cast<int64_t>(i))));
}

// The whole body of a getter: checks `out`, looks `h` up and writes f(value) to *out.
//   return mxc::Getter(__func__, array, "array", out, [](const NDArray& a) { return a.size(); });
template <typename H, typename T, typename F>
mxc_status* Getter(const char* fn, H* h, const char* arg, T* out, F&& f) noexcept {
  return Call(fn, [&] {
    Out(out, "out");
    *out = f(Get(h, arg));
  });
}

// Defines `mxc_status* <prefix>_retain(H*)` and `void <prefix>_free(H*)` for handle type H.
#define MXC_DEFINE_RETAIN_FREE(CType)                                                     \
  extern "C" MXC_API mxc_status* CType##_retain(CType* h) noexcept {                      \
    return ::mxc::Call(#CType "_retain",                                                  \
                       [&] { ::mxc::HandleTraits<CType>::table().Retain(h, "handle"); }); \
  }                                                                                       \
  extern "C" MXC_API void CType##_free(CType* h) noexcept {                               \
    ::mxc::HandleTraits<CType>::table().Release(h);                                       \
  }

}  // namespace mxc
