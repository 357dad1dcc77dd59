#include "ndarray/backends/onednn/onednn.h"

#include <mutex>
#include <utility>

#include "base/error.h"

namespace mxnet::backends::onednn {
namespace {

ScratchPool& Pool() {
  static ScratchPool* p = new ScratchPool();
  return *p;
}

// Runs reorder `r` (user-scratchpad mode) from `from` to `to`.
void RunReorder(Scratch& scratch, dnnl::stream& s, const dnnl::reorder& r,
                const memory::desc& scratchpad, const memory& from, const memory& to) {
  std::unordered_map<int, memory> m{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  if (scratchpad.get_size() > 0) m.emplace(DNNL_ARG_SCRATCHPAD, scratch.Memory(scratchpad));
  r.execute(s, m);
}

std::pair<dnnl::reorder, memory::desc> MakeReorder(const memory::desc& from,
                                                   const memory::desc& to) {
  dnnl::reorder::primitive_desc pd(Engine(), from, Engine(), to, UserScratchpad());
  return {dnnl::reorder(pd), pd.scratchpad_desc()};
}

// Reordered constant operands by (exec key, thread count, buffer, offset).
struct Constant {
  std::weak_ptr<const void> owner;
  memory inner;
};
struct Constants {
  static constexpr size_t kMaxEntries = 4096;
  std::mutex mu;
  std::unordered_map<CacheKey, std::shared_ptr<const Constant>, CacheKeyHash> map;
};
Constants& GetConstants() {
  static Constants* c = new Constants();
  return *c;
}

void ClearConstants() {
  Constants& c = GetConstants();
  std::unordered_map<CacheKey, std::shared_ptr<const Constant>, CacheKeyHash> dropped;
  std::lock_guard<std::mutex> l(c.mu);
  dropped.swap(c.map);
}

const BackendTable kTable{"onednn", DeviceType::kCPU, &Stats, &Release};
[[maybe_unused]] const bool kRegistered = (RegisterBackend(&kTable), true);

}  // namespace

dnnl::engine& Engine() {
  static dnnl::engine* e = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *e;
}

dnnl::stream& Stream() {
  thread_local dnnl::stream s(Engine());
  return s;
}

dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

PrimitiveCache& Cache() {
  static PrimitiveCache* c = new PrimitiveCache(kCacheCapacity);
  return *c;
}

// ---- Scratch. ----

Scratch::Scratch() : scope_(Pool()) {}

memory Scratch::Memory(const memory::desc& md) {
  void* p = scope_.Get(md.get_size());
  return p ? memory(md, Engine(), p) : memory(md, Engine());
}

// ---- Layouts. ----

memory::desc ActDesc(int64_t N, int64_t C, std::span<const int64_t> spatial, bool channels_last,
                     dt type) {
  const int nd = static_cast<int>(spatial.size());
  dims d{N, C}, st(nd + 2);
  int64_t S = 1;
  for (int i = 0; i < nd; ++i) {
    d.push_back(spatial[i]);
    S *= spatial[i];
  }
  int64_t inner = channels_last ? C : 1;
  for (int i = nd - 1; i >= 0; --i) {
    st[2 + i] = inner;
    inner *= spatial[i];
  }
  st[1] = channels_last ? 1 : S;
  st[0] = C * S;
  return memory::desc(d, type, st);
}

memory::desc AnyDesc(int64_t N, int64_t C, std::span<const int64_t> spatial, dt type) {
  dims d{N, C};
  d.insert(d.end(), spatial.begin(), spatial.end());
  return memory::desc(d, type, tag::any);
}

dims WeightDims(int64_t G, int64_t O, int64_t I, std::span<const int64_t> k) {
  dims d;
  if (G > 1) d.push_back(G);
  d.push_back(O / G);
  d.push_back(I / G);
  d.insert(d.end(), k.begin(), k.end());
  return d;
}

memory::desc WeightDesc(int64_t G, int64_t O, int64_t I, std::span<const int64_t> k,
                        bool channels_last, dt type) {
  const int nd = static_cast<int>(k.size());
  const int64_t Ig = I / G;
  int64_t K = 1;
  for (int64_t v : k) K *= v;
  const int64_t o_stride = Ig * K;
  dims st;
  if (G > 1) st.push_back((O / G) * o_stride);
  st.push_back(o_stride);
  st.push_back(channels_last ? 1 : K);
  std::vector<int64_t> sp(nd);
  int64_t inner = channels_last ? Ig : 1;
  for (int i = nd - 1; i >= 0; --i) {
    sp[i] = inner;
    inner *= k[i];
  }
  st.insert(st.end(), sp.begin(), sp.end());
  return memory::desc(WeightDims(G, O, I, k), type, st);
}

ConvDims::ConvDims(std::span<const int64_t> stride, std::span<const int64_t> dilate,
                   std::span<const int64_t> pad) {
  for (size_t i = 0; i < stride.size(); ++i) {
    strides.push_back(stride[i]);
    dilates.push_back(dilate[i] - 1);
    pad_l.push_back(pad[i]);
    pad_r.push_back(pad[i]);
  }
}

memory Reordered(dnnl::stream& s, const memory::desc& user, const void* ptr,
                 const memory::desc& want, Scratch* scratch) {
  memory u = Wrap(user, ptr);
  if (user == want) return u;
  memory m = scratch ? scratch->Memory(want) : memory(want, Engine());
  dnnl::reorder(u, m).execute(s, u, m);
  return m;
}

// ---- Exec. ----

void Exec::Add(int arg, const memory::desc& user, const memory::desc& inner, Dir dir) {
  Arg a{arg, user, inner, std::nullopt, std::nullopt, {}, {}};
  if (user != inner) {
    if (dir != Dir::kOut) std::tie(a.to_inner, a.to_inner_scratchpad) = MakeReorder(user, inner);
    if (dir != Dir::kIn) std::tie(a.to_user, a.to_user_scratchpad) = MakeReorder(inner, user);
  }
  args.push_back(std::move(a));
}

const Exec::Arg* Exec::Find(int arg) const {
  for (const Arg& a : args)
    if (a.arg == arg) return &a;
  return nullptr;
}

struct Exec::Bound {
  std::vector<memory> user, inner;  // per argument (inner: only where a reorder is needed)
  memory scratchpad;
  std::unordered_map<int, memory> m;  // what execute gets: the objects above
};

Exec::BoundPool::BoundPool() = default;
Exec::BoundPool::BoundPool(const BoundPool&) {}
Exec::BoundPool& Exec::BoundPool::operator=(const BoundPool&) { return *this; }
Exec::BoundPool::~BoundPool() = default;

void Exec::Run(std::initializer_list<const void*> ptrs,
               std::unordered_map<int, memory> given) const {
  MX_CHECK_EQ(ptrs.size(), args.size(), "oneDNN Exec::Run: one pointer per argument");
  // This thread's bound set (made on first use: memory objects without a buffer yet).
  std::unique_ptr<Bound> b;
  {
    std::lock_guard<std::mutex> l(bound.mu);
    if (!bound.free.empty()) {
      b = std::move(bound.free.back());
      bound.free.pop_back();
    }
  }
  if (!b) {
    b = std::make_unique<Bound>();
    for (const Arg& a : args) {
      b->user.emplace_back(a.user, Engine(), nullptr);
      const bool reordered = a.to_inner || a.to_user;
      b->inner.push_back(reordered ? memory(a.inner, Engine(), nullptr) : memory());
      b->m.emplace(a.arg, reordered ? b->inner.back() : b->user.back());
    }
    if (scratchpad.get_size() > 0) {
      b->scratchpad = memory(scratchpad, Engine(), nullptr);
      b->m.emplace(DNNL_ARG_SCRATCHPAD, b->scratchpad);
    }
  }
  struct Return {  // the set goes back to the pool, its map as made, also when a run throws
    const Exec& e;
    std::unique_ptr<Bound>& b;
    std::vector<size_t> restore;  // argument entries replaced for this run
    std::vector<int> extra;       // entries added for this run
    ~Return() {
      for (size_t i : restore) b->m[e.args[i].arg] = b->inner[i] ? b->inner[i] : b->user[i];
      for (int k : extra) b->m.erase(k);
      std::lock_guard<std::mutex> l(e.bound.mu);
      e.bound.free.push_back(std::move(b));
    }
  } ret{*this, b, {}, {}};
  Scratch scratch;
  dnnl::stream& s = Stream();
  for (auto& [k, v] : given) {
    auto it = b->m.find(k);
    if (it == b->m.end()) {
      b->m.emplace(k, v);
      ret.extra.push_back(k);
    } else {
      it->second = v;
    }
  }
  struct Out {
    const Arg* arg;
    memory inner, user;
  };
  std::vector<Out> outs;  // reordered back after running (no allocation when none)
  auto p = ptrs.begin();
  for (size_t i = 0; i < args.size(); ++i, ++p) {
    const Arg& a = args[i];
    if (!given.empty() && given.count(a.arg)) {  // given by the caller
      if (b->m.count(a.arg)) ret.restore.push_back(i);
      continue;
    }
    memory& user = b->user[i];
    user.set_data_handle(const_cast<void*>(*p));
    if (!a.to_inner && !a.to_user) continue;
    memory inner = b->inner[i];
    if (void* buf = scratch.Get(a.inner.get_size())) {
      inner.set_data_handle(buf);
    } else {  // too large for the pool: this run's own buffer
      inner = memory(a.inner, Engine());
      b->m[a.arg] = inner;
      ret.restore.push_back(i);
    }
    if (a.to_inner) RunReorder(scratch, s, *a.to_inner, a.to_inner_scratchpad, user, inner);
    if (a.to_user) outs.push_back({&a, inner, user});
  }
  if (scratchpad.get_size() > 0) {
    if (void* buf = scratch.Get(scratchpad.get_size())) {
      b->scratchpad.set_data_handle(buf);
    } else {
      b->m[DNNL_ARG_SCRATCHPAD] = memory(scratchpad, Engine());
    }
  }
  prim.execute(s, b->m);
  for (const Out& o : outs)
    RunReorder(scratch, s, *o.arg->to_user, o.arg->to_user_scratchpad, o.inner, o.user);
  s.wait();
  if (scratchpad.get_size() > 0) b->m[DNNL_ARG_SCRATCHPAD] = b->scratchpad;
}

void Exec::RunArgs(std::unordered_map<int, memory> args_in) const {
  Scratch scratch;
  dnnl::stream& s = Stream();
  if (scratchpad.get_size() > 0) args_in.emplace(DNNL_ARG_SCRATCHPAD, scratch.Memory(scratchpad));
  prim.execute(s, args_in);
  s.wait();
}

std::shared_ptr<Exec> MakeMatmul(const memory::desc& a, const memory::desc& b,
                                 const memory::desc& c, float alpha) {
  dnnl::primitive_attr attr = UserScratchpad();
  if (alpha != 1.f) attr.set_output_scales(0, {alpha});
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), attr, Engine());
  auto e = std::make_shared<Exec>();
  e->prim = dnnl::matmul(pd);
  e->scratchpad = pd.scratchpad_desc();
  e->Add(DNNL_ARG_SRC, a);
  e->Add(DNNL_ARG_WEIGHTS, b);
  e->Add(DNNL_ARG_DST, c, Exec::Dir::kOut);
  return e;
}

// ---- Constant operands. ----

std::shared_ptr<const memory> ReorderedConstant(const CacheKey& exec_key, const Exec& e, int arg,
                                                const std::shared_ptr<const void>& owner,
                                                int64_t offset, const void* data) {
  const Exec::Arg* a = e.Find(arg);
  if (!a || !a->to_inner) return nullptr;  // already in the primitive's layout
  CacheKey key = exec_key;
  key(GetNumThreads(), owner.get(), offset);
  Constants& c = GetConstants();
  {
    std::lock_guard<std::mutex> l(c.mu);
    auto it = c.map.find(key);
    if (it != c.map.end() && it->second->owner.lock() == owner)
      return std::shared_ptr<const memory>(it->second, &it->second->inner);
  }
  auto entry = std::make_shared<Constant>();
  entry->owner = owner;
  entry->inner = memory(a->inner, Engine());
  {
    Scratch scratch;
    RunReorder(scratch, Stream(), *a->to_inner, a->to_inner_scratchpad, Wrap(a->user, data),
               entry->inner);
    Stream().wait();
  }
  std::lock_guard<std::mutex> l(c.mu);
  if (c.map.size() >= Constants::kMaxEntries) {
    for (auto it = c.map.begin(); it != c.map.end();)  // drop entries of freed buffers
      it = it->second->owner.expired() ? c.map.erase(it) : std::next(it);
    if (c.map.size() >= Constants::kMaxEntries) c.map.clear();
  }
  c.map[key] = entry;  // entries are immutable; callers hold the one they got
  return std::shared_ptr<const memory>(entry, &entry->inner);
}

// ---- Hooks. ----

BackendStats Stats() {
  BackendStats s;
  s.primitives = Cache().Stats();
  {
    Constants& c = GetConstants();
    std::lock_guard<std::mutex> l(c.mu);
    s.constants = c.map.size();
  }
  const ScratchPool::Stats p = Pool().GetStats();
  s.scratch_bytes = p.bytes;
  s.scratch_buffers = p.buffers;
  return s;
}

void ReleaseScratch() { Pool().Release(); }

void Release() {
  Cache().Clear();
  ClearConstants();
  ReleaseScratch();
  // oneDNN's own cache of primitive implementations (JIT code): flushed by a zero capacity.
  const int capacity = dnnl::get_primitive_cache_capacity();
  dnnl::set_primitive_cache_capacity(0);
  dnnl::set_primitive_cache_capacity(capacity);
}

}  // namespace mxnet::backends::onednn
