// The oneDNN (2.6, CPU) backend: the one engine, streams, primitive cache, layouts, scratch memory
// and constant operands that every oneDNN kernel of ndarray/ops uses (the Backend::kOptimized
// kernels of ndarray/op.h). Its backends::BackendTable is registered as "onednn".
//
//  - Engine() is the one CPU engine; Stream() this thread's stream.
//  - Get<T>() / GetOrNull<T>(): the process-wide primitive cache. An entry is keyed by the
//    caller's CacheKey (op kind, geometry, dtypes, attributes) plus the intra-op thread count
//    (oneDNN splits the work for the thread count when it creates a primitive, so SetNumThreads
//    gives new primitives) and the entry's C++ type.
//  - Exec: a primitive with its arguments' user (plain) and primitive-chosen layouts and the
//    reorders between them. Immutable once made; Run() executes it on this thread's stream.
//  - Every primitive is made with UserScratchpad() and run with a scratchpad from this thread's
//    Scratch buffers (backends::ScratchPool), so one cached primitive can run on several threads
//    at once.
//  - ActDesc/AnyDesc/WeightDims/WeightDesc/ConvDims: layouts of activations and (grouped, 1-3-D)
//    convolution weights; Reordered(): an operand in a wanted layout, reordered when it differs.
//  - ReorderedConstant(): operands that never change while their buffer lives (folded weights)
//    kept in a primitive's layout across calls.
//  - Stats() / Release(): what the backend holds, and freeing it (ReleaseScratch(): only the
//    scratch buffers). backends::ReleaseCaches() calls Release().
//
// This header brings in dnnl.hpp: include it only from kernel sources, never from a header that
// others include (ndarray/backends/backend.h is the library-free interface).
#pragma once

#include <dnnl.hpp>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "base/threading.h"
#include "ndarray/backends/backend.h"
#include "ndarray/backends/primitive_cache.h"
#include "ndarray/backends/scratch.h"

namespace mxnet::backends::onednn {

using memory = dnnl::memory;
using dims = memory::dims;
using dt = memory::data_type;
using tag = memory::format_tag;

// ---- Engine and streams. ----

// The CPU engine (index 0) all primitives and memories of the process use.
dnnl::engine& Engine();
// This thread's in-order stream on Engine().
dnnl::stream& Stream();
// Attributes with a user-managed scratchpad (scratchpad_mode::user): what makes a cached
// primitive safe to run on several threads at once (each run brings its own scratchpad).
dnnl::primitive_attr UserScratchpad();

// ---- Primitive cache. ----

// Capacity of the cache (least recently used entries are evicted past it).
inline constexpr size_t kCacheCapacity = 4096;
PrimitiveCache& Cache();

template <typename T>
const void* TypeTag() {
  static const char tag = 0;
  return &tag;
}

// The cached T for `key`, made by `make()` (returning std::shared_ptr<T>) on the first call with
// this key, thread count and T. If make throws (a dnnl::error for a configuration oneDNN
// rejects), nothing is cached and the exception propagates.
template <typename T, typename Make>
std::shared_ptr<const T> Get(CacheKey key, Make&& make) {
  key(GetNumThreads(), TypeTag<T>());
  return std::static_pointer_cast<const T>(
      Cache().GetOrCreate(key, [&]() -> PrimitiveCache::Value { return make(); }));
}
// Same, but a configuration oneDNN rejects (dnnl::error from make) is cached as unsupported:
// nullptr now and on every later call (the caller runs another kernel).
template <typename T, typename Make>
std::shared_ptr<const T> GetOrNull(CacheKey key, Make&& make) {
  return Get<T>(std::move(key), [&]() -> std::shared_ptr<const T> {
    try {
      return make();
    } catch (const dnnl::error&) {
      return nullptr;
    }
  });
}

// ---- Scratch memory. ----

// This thread's pooled buffers for one kernel call (see backends::ScratchPool).
class Scratch {
 public:
  Scratch();
  // A memory of `md` in the next pooled buffer (or its own allocation when the pool declines),
  // valid until this Scratch ends.
  memory Memory(const memory::desc& md);
  // A pooled buffer of `bytes` (nullptr when the pool declines), valid until this Scratch ends.
  void* Get(size_t bytes) { return scope_.Get(bytes); }

 private:
  ScratchPool::Scope scope_;
};

// ---- Layouts. ----

// Plain (N, C, spatial...) activation (1-3 spatial dims) in the op's layout: strides of
// channels-first (N, C, d...) or channels-last (N, d..., C) data on the logical (N, C, d...) dims.
memory::desc ActDesc(int64_t N, int64_t C, std::span<const int64_t> spatial, bool channels_last,
                     dt type = dt::f32);
// The same dims with format_tag::any: the primitive picks the layout.
memory::desc AnyDesc(int64_t N, int64_t C, std::span<const int64_t> spatial, dt type = dt::f32);
// Convolution weight dims for O output and I input channels in G groups and kernel k:
// (O, I/G, k...), or (G, O/G, I/G, k...) when G > 1.
dims WeightDims(int64_t G, int64_t O, int64_t I, std::span<const int64_t> k);
// The plain weight in the op's layout on WeightDims: (O, I/G, k...) or channels-last
// (O, k..., I/G) in memory.
memory::desc WeightDesc(int64_t G, int64_t O, int64_t I, std::span<const int64_t> k,
                        bool channels_last, dt type = dt::f32);
// oneDNN's convolution strides, dilations (the gaps: MXNet's dilate - 1) and padding (symmetric:
// the output size rounds down, as oneDNN's check does) from MXNet's stride, dilate, pad.
struct ConvDims {
  dims strides, dilates, pad_l, pad_r;
  ConvDims(std::span<const int64_t> stride, std::span<const int64_t> dilate,
           std::span<const int64_t> pad);
};

// `ptr` (layout `user`) as a memory in layout `want`: the user memory itself when they match,
// else a copy reordered on stream `s` (not waited for) into a buffer of `scratch` (or, without
// one, a new allocation).
memory Reordered(dnnl::stream& s, const memory::desc& user, const void* ptr,
                 const memory::desc& want, Scratch* scratch = nullptr);

// ---- Executing primitives. ----

// A primitive with its arguments' user (caller) and inner (primitive-chosen) layouts.
struct Exec {
  enum class Dir {
    kIn,     // read: reordered user -> inner before running
    kOut,    // written: reordered inner -> user after running
    kInOut,  // accumulated into (sum post-op): both
  };
  struct Arg {
    int arg = 0;  // DNNL_ARG_*
    memory::desc user, inner;
    std::optional<dnnl::reorder> to_inner, to_user;  // made when the layouts differ
    memory::desc to_inner_scratchpad, to_user_scratchpad;
  };
  dnnl::primitive prim;
  memory::desc scratchpad;  // the primitive's (user mode)
  memory::desc workspace;   // when it has one (max pooling in training)
  std::vector<Arg> args;

  // Adds an argument, making the reorders its direction needs when user != inner.
  void Add(int arg, const memory::desc& user, const memory::desc& inner, Dir dir);
  // Adds an argument passed as is (the primitive uses the caller's layout).
  void Add(int arg, const memory::desc& md, Dir dir = Dir::kIn) { Add(arg, md, md, dir); }
  // The argument `arg`, or nullptr.
  const Arg* Find(int arg) const;

  // Runs on caller buffers given in the order of `args`, reordering as needed, on this thread's
  // stream with pooled scratch; waits for completion. `given` holds extra arguments (a
  // workspace) and arguments already in the inner layout (their pointer in `ptrs` is skipped).
  void Run(std::initializer_list<const void*> ptrs,
           std::unordered_map<int, memory> given = {}) const;
  // Runs with exactly `args_in` (memories the caller made) plus the pooled scratchpad.
  void RunArgs(std::unordered_map<int, memory> args_in) const;

  // Memory objects and the argument map of one Run, kept across runs and rebound to each run's
  // buffers (memory::set_data_handle) instead of created per call: one set per thread running
  // this Exec at the same time, taken from and returned to `bound`.
  struct Bound;
  struct BoundPool {
    std::mutex mu;
    std::vector<std::unique_ptr<Bound>> free;
    BoundPool();
    BoundPool(const BoundPool&);  // a copy starts empty
    BoundPool& operator=(const BoundPool&);
    ~BoundPool();
  };
  mutable BoundPool bound;
};

// C = alpha * A B: oneDNN's matmul of A (batch, M, K) and B (batch, K, N) into C (batch, M, N), in
// the caller's (plain, possibly strided) layouts; Run({A, B, C}). Throws dnnl::error when oneDNN
// has no implementation.
std::shared_ptr<Exec> MakeMatmul(const memory::desc& a, const memory::desc& b,
                                 const memory::desc& c, float alpha = 1.f);

// A memory on Engine() over a caller buffer.
inline memory Wrap(const memory::desc& md, const void* p) {
  return memory(md, Engine(), const_cast<void*>(p));
}

// ---- Constant operands. ----

// Operand `arg` of `e` (the entry cached under `exec_key`) in the primitive's layout, reordered
// once per buffer: for operands that never change while their buffer lives (graph constants such
// as BatchNorm-folded weights). `owner` identifies the buffer (held weakly: a freed buffer never
// matches, even when its memory is reused by a new one), `offset` the operand's place in it,
// `data` its first element. nullptr when the operand needs no reorder.
std::shared_ptr<const memory> ReorderedConstant(const CacheKey& exec_key, const Exec& e, int arg,
                                                const std::shared_ptr<const void>& owner,
                                                int64_t offset, const void* data);

// ---- The backend table's hooks. ----

BackendStats Stats();
// Drops every cached primitive and constant operand, frees the scratch buffers (a thread running a
// kernel frees its own when the kernel ends) and flushes oneDNN's own primitive cache. Entries a
// running kernel holds live until it finishes; later calls recreate what they need.
void Release();
// Only the scratch buffers (same deferral).
void ReleaseScratch();

}  // namespace mxnet::backends::onednn
