// A stream-ordered caching allocator for device memory (the GPU's Storage backend, issue 24 item
// 1), after the design PyTorch describes for its CUDA allocator ("CUDA semantics: memory
// management"): memory is taken from the device in large segments, split into blocks, and blocks
// freed by arrays are kept for reuse instead of being returned to the device (cudaMalloc and
// cudaFree synchronize the device and cost tens of microseconds).
//
// Streams: every block belongs to the stream it was allocated on. Work on one stream runs in
// order, so a block freed on stream S may be handed out again at once to a later allocation on S:
// its next user's work is queued after the previous user's. A block is never handed to another
// stream while work may still use it: the free bins are per stream, and a block that was also
// used on other streams (RecordStream) is held back ("pending") until an event recorded on each of
// those streams at Free time has completed.
//
// Device access goes through DeviceMemory (below): the CUDA runtime in cuda_runtime.cc, a host
// fake in the tests (ndarray/backends/cuda/testing/fake_device_memory.h). No CUDA headers here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace mxnet::backends::cuda {

// An opaque stream (a cudaStream_t on a GPU; any distinct value in a fake). nullptr is the
// device's default stream.
using StreamHandle = void*;
// An opaque event (a cudaEvent_t on a GPU).
using EventHandle = void*;

// What the allocator needs from one device. Implementations need not be thread-safe: the
// allocator calls them under its own lock.
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  // Allocates `bytes` (> 0) of device memory, aligned to at least 256 bytes, or returns nullptr
  // when the device is out of memory (no throw).
  virtual void* Malloc(size_t bytes) = 0;
  // Returns memory from Malloc (all work using it must be complete: the allocator synchronizes
  // first where needed).
  virtual void Free(void* ptr) = 0;
  // Records an event on `stream` after the work queued there so far.
  virtual EventHandle RecordEvent(StreamHandle stream) = 0;
  // True once the work before `event` has completed.
  virtual bool EventDone(EventHandle event) = 0;
  // Blocks until `event` has completed.
  virtual void EventSynchronize(EventHandle event) = 0;
  virtual void DestroyEvent(EventHandle event) = 0;
};

// Statistics of one allocator (bytes are the allocator's rounded block sizes).
struct AllocatorStats {
  size_t bytes_in_use = 0;    // blocks handed out and not yet freed
  size_t peak_in_use = 0;     // maximum of bytes_in_use since creation or ResetPeak()
  size_t bytes_reserved = 0;  // segments taken from the device
  size_t peak_reserved = 0;
  size_t bytes_cached = 0;   // bytes_reserved - bytes_in_use: free or pending blocks
  size_t bytes_pending = 0;  // freed blocks waiting for events of other streams
  uint64_t allocations = 0;  // Malloc() calls that returned memory
  uint64_t cache_hits = 0;   // served from a cached block without a device allocation
  uint64_t device_mallocs = 0;
  uint64_t device_frees = 0;
  uint64_t ooms = 0;  // requests that failed even after emptying the cache
  size_t segments = 0;
};

class CachingAllocator {
 public:
  // Size rules (bytes): requests are rounded up to a multiple of kMinBlock (512). Requests up to
  // kSmallSize (1 MiB) come from the small pool, whose segments are kSmallSegment (2 MiB); larger
  // ones from the large pool: kMidSegment (20 MiB) segments for requests under kLargeSize
  // (10 MiB), else a segment of the request rounded up to kSegmentRound (2 MiB). A cached block is
  // split when the rest is at least kMinBlock (small pool) or more than kSmallSize (large pool);
  // adjacent free blocks of a segment merge again.
  static constexpr size_t kMinBlock = 512;
  static constexpr size_t kSmallSize = size_t{1} << 20;
  static constexpr size_t kSmallSegment = size_t{2} << 20;
  static constexpr size_t kLargeSize = size_t{10} << 20;
  static constexpr size_t kMidSegment = size_t{20} << 20;
  static constexpr size_t kSegmentRound = size_t{2} << 20;

  // `device` (owned) provides the memory; `name` (e.g. "gpu(0)") appears in error messages.
  // `cache` false is MXNet's MXNET_GPU_MEM_POOL_TYPE=Unpooled (for memory checkers): every
  // request is its own device allocation of the rounded size, returned to the device when freed
  // (after its events, if it was used on other streams); statistics are kept the same way.
  CachingAllocator(std::unique_ptr<DeviceMemory> device, std::string name, bool cache = true);
  // Returns every unused segment to the device (waits for pending events first). Segments with
  // blocks still in use are not returned (their users may still run); the per-GPU allocators of
  // gpu.h are never destroyed, since arrays may outlive static destruction.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // The size a request of `bytes` takes: a multiple of kMinBlock, at least kMinBlock.
  static size_t RoundSize(size_t bytes);
  // The segment size the device is asked for when a request of rounded size `rounded` finds no
  // cached block.
  static size_t SegmentSize(size_t rounded);

  // Memory for `bytes` (> 0) to be used on `stream`: the smallest cached block of that stream
  // and pool that fits (split if much larger), else a new segment. When the device is out of
  // memory, the cache is emptied (waiting for pending blocks) and the device asked again.
  // Throws mxnet::Error kResourceExhausted naming the device, the request and the statistics;
  // kInvalidArgument for 0 bytes.
  void* Malloc(size_t bytes, StreamHandle stream);
  // Returns a block from Malloc to the cache. Without RecordStream calls it is reusable at once
  // by later allocations on its stream; otherwise after the events recorded now on the other
  // streams complete. Throws kInvalidArgument for a pointer this allocator did not hand out
  // (or freed twice). nullptr is ignored.
  void Free(void* ptr);
  // Marks the block `ptr` (from Malloc) as also used by work queued on `stream` (e.g. a copy on
  // another stream); Free then waits for that work before reuse. Same errors as Free.
  void RecordStream(void* ptr, StreamHandle stream);
  // Returns to the device every segment none of whose memory is in use (after waiting for
  // pending blocks); MXNet's / PyTorch's empty_cache. Returns the bytes released.
  size_t EmptyCache();

  AllocatorStats Stats();
  // Sets peak_in_use and peak_reserved to the current values.
  void ResetPeak();
  // The rounded size of the live block `ptr` (from Malloc); throws kInvalidArgument otherwise.
  size_t BlockSize(void* ptr);

 private:
  struct Block {
    char* ptr = nullptr;
    size_t size = 0;
    StreamHandle stream = nullptr;
    bool small = false;      // pool
    bool allocated = false;  // handed out
    int pending = 0;         // events still to complete before reuse
    Block* prev = nullptr;   // neighbours within the segment
    Block* next = nullptr;
    std::vector<StreamHandle> used_on;  // other streams (RecordStream)
  };
  struct BlockLess {
    bool operator()(const Block* a, const Block* b) const;
  };
  using Bin = std::set<Block*, BlockLess>;
  struct PendingEvent {
    EventHandle event;
    Block* block;
  };

  Block* FindCached(size_t size, StreamHandle stream, bool small);
  Block* NewSegment(size_t size, StreamHandle stream, bool small);
  Block* Split(Block* b, size_t size);
  void InsertFree(Block* b);  // merges with free neighbours, then bins it
  void ProcessEvents();       // frees pending blocks whose events completed
  void SynchronizeAndProcessEvents();
  size_t ReleaseFreeSegments();
  Block* Lookup(void* ptr, const char* what);
  Bin& BinFor(bool small) { return small ? small_bin_ : large_bin_; }

  std::mutex mu_;
  std::unique_ptr<DeviceMemory> device_;
  std::string name_;
  bool cache_;
  Bin small_bin_, large_bin_;
  std::unordered_map<void*, Block*> live_;  // allocated blocks by pointer
  std::vector<PendingEvent> events_;
  AllocatorStats stats_;
};

}  // namespace mxnet::backends::cuda
