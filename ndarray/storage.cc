#include "ndarray/storage.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "base/error.h"

namespace mxnet {
namespace {

class CpuBackend final : public DeviceBackend {
 public:
  void* Alloc(size_t bytes, int) override {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p)
      MX_THROW(absl::StatusCode::kResourceExhausted, "cpu: cannot allocate ", bytes, " bytes");
    return p;
  }
  void Free(void* p, size_t, int) override { std::free(p); }
  void CopyToHost(void* d, const void* s, size_t n, int) override { std::memcpy(d, s, n); }
  void CopyFromHost(void* d, const void* s, size_t n, int) override { std::memcpy(d, s, n); }
  void CopyWithin(void* d, const void* s, size_t n, int) override { std::memmove(d, s, n); }
  void Synchronize(int) override {}
};

struct Backends {
  std::mutex mu;
  std::array<std::unique_ptr<DeviceBackend>, 6> by_type;
  Backends() {
    by_type[static_cast<int>(DeviceType::kCPU)] = std::make_unique<CpuBackend>();
    by_type[static_cast<int>(DeviceType::kCPUPinned)] = std::make_unique<CpuBackend>();
    by_type[static_cast<int>(DeviceType::kCPUShared)] = std::make_unique<CpuBackend>();
  }
};
Backends& GetBackends() {
  static Backends* b = new Backends();
  return *b;
}

// Size classes: powers of two up to 4 KiB, then multiples of 4 KiB up to 1 MiB, then of 1 MiB.
size_t RoundSize(size_t n) {
  if (n <= 4096) {
    size_t r = 64;
    while (r < n) r <<= 1;
    return r;
  }
  size_t unit = n <= (1u << 20) ? 4096 : (1u << 20);
  return (n + unit - 1) / unit * unit;
}

struct Pool {
  std::mutex mu;
  std::unordered_map<size_t, std::vector<void*>> free;  // by rounded size
  Storage::Stats stats;
};

struct Pools {
  std::mutex mu;
  std::unordered_map<int64_t, std::unique_ptr<Pool>> pools;
  size_t limit = [] {
    const char* v = std::getenv("MXNET_MEM_POOL_LIMIT_MB");
    long long mb = v ? std::atoll(v) : 0;
    return mb > 0 ? static_cast<size_t>(mb) << 20 : size_t{2} << 30;
  }();
};
Pools& GetPools() {
  static Pools* p = new Pools();  // never destroyed: arrays may outlive static destruction
  return *p;
}
int64_t PoolKey(Device d) { return (static_cast<int64_t>(d.type) << 32) | d.id; }
Pool& GetPool(Device d) {
  Pools& ps = GetPools();
  std::lock_guard<std::mutex> l(ps.mu);
  auto& p = ps.pools[PoolKey(d)];
  if (!p) p = std::make_unique<Pool>();
  return *p;
}

}  // namespace

void RegisterDeviceBackend(DeviceType type, std::unique_ptr<DeviceBackend> backend) {
  Backends& b = GetBackends();
  std::lock_guard<std::mutex> l(b.mu);
  b.by_type[static_cast<int>(type)] = std::move(backend);
}

bool HasDeviceBackend(DeviceType type) {
  return GetBackends().by_type[static_cast<int>(type)] != nullptr;
}

namespace {
[[noreturn]] void ThrowNoBackend(Device device) {
  MX_THROW(absl::StatusCode::kUnavailable, device.ToString(),
           " requested but this build has no CUDA (no GPU backend linked; build with "
           "--config=cuda and link //ndarray/backends/cuda:gpu_storage)");
}
// The backend of `device`; the error names the device (with its id).
DeviceBackend& BackendFor(Device device) {
  auto& p = GetBackends().by_type[static_cast<int>(device.type)];
  if (!p) ThrowNoBackend(device);
  return *p;
}
}  // namespace

DeviceBackend& GetDeviceBackend(DeviceType type) {
  auto& p = GetBackends().by_type[static_cast<int>(type)];
  if (!p) ThrowNoBackend(Device{type, 0});
  return *p;
}

std::shared_ptr<Storage> Storage::Alloc(size_t bytes, Device device) {
  if (bytes == 0) return std::shared_ptr<Storage>(new Storage(nullptr, 0, 0, device));
  DeviceBackend& be = BackendFor(device);
  if (device.is_gpu()) {
    // GPU memory comes from the backend's own stream-ordered caching allocator
    // (ndarray/backends/cuda): no second cache here. Stats count what is in use.
    void* g = be.Alloc(bytes, device.id);
    Pool& pool = GetPool(device);
    std::lock_guard<std::mutex> l(pool.mu);
    ++pool.stats.allocations;
    pool.stats.bytes_in_use += bytes;
    if (pool.stats.bytes_in_use > pool.stats.peak_in_use)
      pool.stats.peak_in_use = pool.stats.bytes_in_use;
    return std::shared_ptr<Storage>(new Storage(g, bytes, bytes, device));
  }
  size_t cap = RoundSize(bytes);
  Pool& pool = GetPool(device);
  void* p = nullptr;
  {
    std::lock_guard<std::mutex> l(pool.mu);
    ++pool.stats.allocations;
    auto it = pool.free.find(cap);
    if (it != pool.free.end() && !it->second.empty()) {
      p = it->second.back();
      it->second.pop_back();
      pool.stats.bytes_cached -= cap;
      ++pool.stats.cache_hits;
    }
  }
  if (!p) {
    try {
      p = be.Alloc(cap, device.id);
    } catch (const Error&) {
      ReleaseCached(device);  // retry once with the cache emptied
      p = be.Alloc(cap, device.id);
    }
  }
  {
    std::lock_guard<std::mutex> l(pool.mu);
    pool.stats.bytes_in_use += cap;
    if (pool.stats.bytes_in_use > pool.stats.peak_in_use)
      pool.stats.peak_in_use = pool.stats.bytes_in_use;
  }
  return std::shared_ptr<Storage>(new Storage(p, bytes, cap, device));
}

std::shared_ptr<Storage> Storage::WrapExternal(void* data, size_t bytes, Device device,
                                               std::function<void()> release) {
  // capacity 0 and a custom deleter: the memory never enters the pool.
  std::shared_ptr<Storage> r(new Storage(data, bytes, 0, device),
                             [release = std::move(release)](Storage* s) {
                               s->data_ = nullptr;  // the destructor then returns nothing
                               delete s;
                               if (release) release();
                             });
  r->mark_untracked_writes();  // the owner writes its memory without telling us
  return r;
}

Storage::~Storage() {
  if (!data_) return;
  Pool& pool = GetPool(device_);
  {
    std::lock_guard<std::mutex> l(pool.mu);
    pool.stats.bytes_in_use -= capacity_;
    if (!device_.is_gpu() && pool.stats.bytes_cached + capacity_ <= GetPools().limit) {
      pool.free[capacity_].push_back(data_);
      pool.stats.bytes_cached += capacity_;
      return;
    }
  }
  GetDeviceBackend(device_.type).Free(data_, capacity_, device_.id);
}

Storage::Stats Storage::GetStats(Device device) {
  Pool& pool = GetPool(device);
  std::lock_guard<std::mutex> l(pool.mu);
  return pool.stats;
}

void Storage::ReleaseCached(Device device) {
  Pool& pool = GetPool(device);
  std::unordered_map<size_t, std::vector<void*>> blocks;
  {
    std::lock_guard<std::mutex> l(pool.mu);
    blocks.swap(pool.free);
    pool.stats.bytes_cached = 0;
  }
  DeviceBackend& be = GetDeviceBackend(device.type);
  for (auto& [cap, ptrs] : blocks)
    for (void* p : ptrs) be.Free(p, cap, device.id);
}

void Storage::SetCacheLimit(size_t bytes) { GetPools().limit = bytes; }

// Direct copies between two devices of one type (declared in ndarray/device_copy.h, a separate
// target so that //ndarray:core's header set, which every compile action sees, stays the same).
using PeerCopyFn =
    std::function<void(void* dst, int dst_id, const void* src, int src_id, size_t bytes)>;
namespace {
struct PeerCopies {
  std::mutex mu;
  std::array<std::shared_ptr<const PeerCopyFn>, 6> by_type;
};
PeerCopies& GetPeerCopies() {
  static PeerCopies* p = new PeerCopies();
  return *p;
}
std::shared_ptr<const PeerCopyFn> PeerCopyFor(DeviceType type) {
  PeerCopies& p = GetPeerCopies();
  std::lock_guard<std::mutex> l(p.mu);
  return p.by_type[static_cast<int>(type)];
}
}  // namespace

void RegisterPeerCopy(DeviceType type, PeerCopyFn fn) {
  PeerCopies& p = GetPeerCopies();
  std::lock_guard<std::mutex> l(p.mu);
  p.by_type[static_cast<int>(type)] =
      fn ? std::make_shared<const PeerCopyFn>(std::move(fn)) : nullptr;
}

void CopyBytes(void* dst, Device dst_dev, const void* src, Device src_dev, size_t bytes) {
  if (bytes == 0) return;
  if (dst_dev.is_cpu() && src_dev.is_cpu()) {
    std::memmove(dst, src, bytes);
  } else if (dst_dev == src_dev) {
    BackendFor(dst_dev).CopyWithin(dst, src, bytes, dst_dev.id);
  } else if (src_dev.is_cpu()) {
    BackendFor(dst_dev).CopyFromHost(dst, src, bytes, dst_dev.id);
  } else if (dst_dev.is_cpu()) {
    BackendFor(src_dev).CopyToHost(dst, src, bytes, src_dev.id);
  } else if (auto peer = dst_dev.type == src_dev.type ? PeerCopyFor(dst_dev.type) : nullptr) {
    (*peer)(dst, dst_dev.id, src, src_dev.id, bytes);  // e.g. gpu(0) -> gpu(1), no host staging
  } else {                                             // device to device through the host
    std::vector<char> host(bytes);
    BackendFor(src_dev).CopyToHost(host.data(), src, bytes, src_dev.id);
    BackendFor(dst_dev).CopyFromHost(dst, host.data(), bytes, dst_dev.id);
  }
}

}  // namespace mxnet
