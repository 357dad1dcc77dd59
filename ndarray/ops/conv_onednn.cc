// oneDNN 2.6 kernels of the conv op family (float32): convolution forward / backward data /
// backward weights (Convolution, Deconvolution and their gradient helpers all map onto these
// three), inner product forward / backward, pooling forward / backward.
//
// Primitives are cached process-wide by kind, geometry, dtype and thread count (PrimitiveCache;
// oneDNN splits the work for the thread count at creation, so SetNumThreads must give a new
// primitive). A cached entry holds the primitive (created with format_tag::any where oneDNN
// benefits from blocked layouts), the user's plain memory descriptors and the reorders between
// the two. Entries are immutable after creation and executed with per-thread scratch buffers
// (reordered arguments, scratchpads), so one entry can run on several threads at once. A
// configuration oneDNN rejects is cached as "unsupported" and the caller runs the reference
// kernel.
//
// Layout choice for channels-first (NCHW) data: the convolution forward is created from a
// forward_training descriptor, which selects the blocked (nChw16c) jit kernels whose reorders
// from/to NCHW are much cheaper than the channels-last ones brgconv picks for forward_inference
// (LeNet's 3x3 32->64 conv on 13x13: 6.3 vs 7.7 ms per batch of 128 including reorders; the
// backward passes use the same blocked layouts). Channels-last data keeps forward_inference,
// whose brgconv kernels take NHWC without any reorder.
#include <dnnl.hpp>

#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "base/threading.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ops/conv_kernels.h"

namespace mxnet::ops::onednn {
namespace {

using dnnl::memory;
using dims = memory::dims;
using dt = memory::data_type;
using tag = memory::format_tag;

dnnl::engine& Engine() {
  static dnnl::engine* e = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *e;
}

dnnl::stream& Stream() {
  thread_local dnnl::stream s(Engine());
  return s;
}

// Per-thread buffers reused across calls: the reordered (blocked) copies of arguments and the
// scratchpads. A training step runs the same primitives every iteration; allocating and
// page-faulting fresh multi-megabyte buffers on every call cost as much as a small kernel.
// Buffers above kMaxKept bytes are allocated per call and freed, so a thread never keeps more
// than kSlots * kMaxKept.
class ScratchArena {
 public:
  static constexpr size_t kSlots = 8;
  static constexpr size_t kMaxKept = size_t{64} << 20;

  ~ScratchArena() {
    for (Buf& b : bufs_) std::free(b.p);
  }
  // A buffer of at least `bytes` for `slot` (< kSlots), valid until the next Get of that slot
  // on this thread; nullptr when the caller should allocate (too large).
  void* Get(size_t slot, size_t bytes) {
    if (slot >= kSlots || bytes > kMaxKept) return nullptr;
    Buf& b = bufs_[slot];
    if (b.size < bytes) {
      std::free(b.p);
      const size_t rounded = (bytes + 4095) / 4096 * 4096;
      b.p = std::aligned_alloc(4096, rounded);
      if (!b.p) throw std::bad_alloc();
      b.size = rounded;
    }
    return b.p;
  }

 private:
  struct Buf {
    void* p = nullptr;
    size_t size = 0;
  };
  Buf bufs_[kSlots];
};

ScratchArena& Arena() {
  thread_local ScratchArena a;
  return a;
}

// A memory of `md` in the arena's `slot` (or freshly allocated when the arena declines).
memory ArenaMemory(const memory::desc& md, size_t slot) {
  void* p = Arena().Get(slot, md.get_size());
  return p ? memory(md, Engine(), p) : memory(md, Engine());
}

// A primitive with its arguments' user (plain) and inner (primitive-chosen) layouts.
struct Exec {
  struct Arg {
    int arg;
    memory::desc user, inner;
    bool output = false;
    std::optional<dnnl::reorder> reorder;  // user -> inner (inputs) or inner -> user (outputs)
    memory::desc reorder_scratchpad;
  };
  dnnl::primitive prim;
  memory::desc scratchpad;
  memory::desc workspace;  // max pooling (training) only
  std::vector<Arg> args;

  // Adds an argument; a reorder is created when the layouts differ.
  void Add(int arg, const memory::desc& user, const memory::desc& inner, bool output) {
    Arg a{arg, user, inner, output, std::nullopt, {}};
    if (user != inner) {
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      auto pd = output ? dnnl::reorder::primitive_desc(Engine(), inner, Engine(), user, attr)
                       : dnnl::reorder::primitive_desc(Engine(), user, Engine(), inner, attr);
      a.reorder = dnnl::reorder(pd);
      a.reorder_scratchpad = pd.scratchpad_desc();
    }
    args.push_back(std::move(a));
  }

  // Arena slots: one per argument (its inner copy), then the primitive's scratchpad, then the
  // reorders' scratchpads (reorders run one at a time, so they share one).
  static constexpr size_t kReorderScratchSlot = ScratchArena::kSlots - 1;

  // Runs a reorder with its own scratchpad.
  static void Reorder(dnnl::stream& s, const Arg& a, const memory& from, const memory& to) {
    std::unordered_map<int, memory> m{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    if (a.reorder_scratchpad.get_size() > 0)
      m.emplace(DNNL_ARG_SCRATCHPAD, ArenaMemory(a.reorder_scratchpad, kReorderScratchSlot));
    a.reorder->execute(s, m);
  }

  // Runs the primitive on user buffers given in the order of `args`, plus extra arguments
  // (workspaces) that need no reorder.
  void Run(std::initializer_list<const void*> ptrs,
           std::unordered_map<int, memory> extra = {}) const {
    dnnl::stream& s = Stream();
    std::unordered_map<int, memory> m = std::move(extra);
    std::vector<std::pair<memory, memory>> outs;  // (inner, user) to reorder back
    auto p = ptrs.begin();
    size_t slot = 0;
    for (const Arg& a : args) {
      memory user(a.user, Engine(), const_cast<void*>(*p++));
      if (!a.reorder) {
        m.emplace(a.arg, user);
        continue;
      }
      memory inner = ArenaMemory(a.inner, slot++);
      if (!a.output)
        Reorder(s, a, user, inner);
      else
        outs.emplace_back(inner, user);
      m.emplace(a.arg, inner);
    }
    if (scratchpad.get_size() > 0) m.emplace(DNNL_ARG_SCRATCHPAD, ArenaMemory(scratchpad, slot));
    prim.execute(s, m);
    for (size_t i = 0, j = 0; i < args.size(); ++i) {
      if (!args[i].output || !args[i].reorder) continue;
      Reorder(s, args[i], outs[j].first, outs[j].second);
      ++j;
    }
    s.wait();
  }
};

class PrimitiveCache {
 public:
  // The entry for `key` (and the current thread count), made by `make` on first use; nullptr if
  // oneDNN rejects the config.
  std::shared_ptr<const Exec> Get(std::string key,
                                  const std::function<std::shared_ptr<Exec>()>& make) {
    StrAppend(&key, "/t", GetNumThreads());
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = map_.find(key);
      if (it != map_.end()) return it->second;
    }
    std::shared_ptr<Exec> e;
    try {
      e = make();  // outside the lock: primitive creation can take milliseconds
    } catch (const dnnl::error&) {
      e = nullptr;
    }
    std::lock_guard<std::mutex> l(mu_);
    if (map_.size() >= kMaxEntries) map_.clear();
    return map_.emplace(key, std::move(e)).first->second;
  }
  size_t size() {
    std::lock_guard<std::mutex> l(mu_);
    return map_.size();
  }

 private:
  static constexpr size_t kMaxEntries = 4096;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const Exec>> map_;
};

PrimitiveCache& Cache() {
  static PrimitiveCache* c = new PrimitiveCache();
  return *c;
}

dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

bool AllF32(std::initializer_list<const NDArray*> arrays) {
  for (const NDArray* a : arrays)
    if (a && a->dtype() != DType::kFloat32) return false;
  return true;
}

// ---- Convolution. ----

// Plain descriptor of an (N, C, spatial...) activation in the op's layout.
memory::desc ActDesc(int64_t N, int64_t C, const std::array<int64_t, 3>& sz, int nd, bool cl) {
  dims d{N, C}, st(nd + 2);
  for (int i = 0; i < nd; ++i) d.push_back(sz[i]);
  int64_t inner = cl ? C : 1;
  for (int i = nd - 1; i >= 0; --i) {
    st[2 + i] = inner;
    inner *= sz[i];
  }
  // channels-first: inner is now S; channels-last: S * C
  int64_t S = 1;
  for (int i = 0; i < nd; ++i) S *= sz[i];
  st[1] = cl ? 1 : S;
  st[0] = C * S;
  return memory::desc(d, dt::f32, st);
}

memory::desc AnyDesc(int64_t N, int64_t C, const std::array<int64_t, 3>& sz, int nd) {
  dims d{N, C};
  for (int i = 0; i < nd; ++i) d.push_back(sz[i]);
  return memory::desc(d, dt::f32, tag::any);
}

// Weight (CY, CX/G, k...) in the op's layout; grouped dims (G, CY/G, CX/G, k...) when G > 1.
dims WeightDims(const ConvGeom& g) {
  dims d;
  if (g.G > 1) d.push_back(g.G);
  d.push_back(g.CY / g.G);
  d.push_back(g.CX / g.G);
  for (int i = 0; i < g.nd; ++i) d.push_back(g.k[i]);
  return d;
}

memory::desc WeightDesc(const ConvGeom& g) {
  const int64_t I = g.CX / g.G;
  int64_t K = 1;
  for (int i = 0; i < g.nd; ++i) K *= g.k[i];
  dims st;
  const int64_t o_stride = I * K;
  if (g.G > 1) st.push_back((g.CY / g.G) * o_stride);
  st.push_back(o_stride);
  st.push_back(g.channels_last ? 1 : K);
  std::vector<int64_t> sp(g.nd);
  int64_t inner = g.channels_last ? I : 1;
  for (int i = g.nd - 1; i >= 0; --i) {
    sp[i] = inner;
    inner *= g.k[i];
  }
  for (int64_t v : sp) st.push_back(v);
  return memory::desc(WeightDims(g), dt::f32, st);
}

struct ConvDims {
  dims strides, dilates, pad_l, pad_r;
  explicit ConvDims(const ConvGeom& g) {
    for (int i = 0; i < g.nd; ++i) {
      strides.push_back(g.s[i]);
      dilates.push_back(g.d[i] - 1);
      pad_l.push_back(g.p[i]);
      pad_r.push_back(g.p[i]);  // the output size rounds down, as oneDNN's check does
    }
  }
};

enum class ConvKind { kFwd, kFwdBias, kBwdData, kBwdWeight };

std::shared_ptr<Exec> MakeConv(const ConvGeom& g, ConvKind kind) {
  using namespace dnnl;
  const ConvDims cd(g);
  memory::desc x_user = ActDesc(g.N, g.CX, g.xs, g.nd, g.channels_last);
  memory::desc y_user = ActDesc(g.N, g.CY, g.ys, g.nd, g.channels_last);
  memory::desc w_user = WeightDesc(g);
  memory::desc x_any = AnyDesc(g.N, g.CX, g.xs, g.nd), y_any = AnyDesc(g.N, g.CY, g.ys, g.nd);
  memory::desc w_any(WeightDims(g), dt::f32, tag::any);
  memory::desc b_md({g.CY}, dt::f32, tag::a);
  primitive_attr attr = UserScratchpad();
  auto e = std::make_shared<Exec>();
  if (kind == ConvKind::kFwd || kind == ConvKind::kFwdBias) {
    // See the layout note at the top of the file.
    const prop_kind pk =
        g.channels_last ? prop_kind::forward_inference : prop_kind::forward_training;
    auto desc =
        kind == ConvKind::kFwdBias
            ? convolution_forward::desc(pk, algorithm::convolution_direct, x_any, w_any, b_md,
                                        y_any, cd.strides, cd.dilates, cd.pad_l, cd.pad_r)
            : convolution_forward::desc(pk, algorithm::convolution_direct, x_any, w_any, y_any,
                                        cd.strides, cd.dilates, cd.pad_l, cd.pad_r);
    convolution_forward::primitive_desc pd(desc, attr, Engine());
    e->prim = convolution_forward(pd);
    e->scratchpad = pd.scratchpad_desc();
    e->Add(DNNL_ARG_SRC, x_user, pd.src_desc(), false);
    e->Add(DNNL_ARG_WEIGHTS, w_user, pd.weights_desc(), false);
    if (kind == ConvKind::kFwdBias) e->Add(DNNL_ARG_BIAS, b_md, pd.bias_desc(), false);
    e->Add(DNNL_ARG_DST, y_user, pd.dst_desc(), true);
    return e;
  }
  convolution_forward::primitive_desc hint(
      convolution_forward::desc(prop_kind::forward_training, algorithm::convolution_direct, x_any,
                                w_any, y_any, cd.strides, cd.dilates, cd.pad_l, cd.pad_r),
      Engine());
  if (kind == ConvKind::kBwdData) {
    convolution_backward_data::primitive_desc pd(
        convolution_backward_data::desc(algorithm::convolution_direct, x_any, w_any, y_any,
                                        cd.strides, cd.dilates, cd.pad_l, cd.pad_r),
        attr, Engine(), hint);
    e->prim = convolution_backward_data(pd);
    e->scratchpad = pd.scratchpad_desc();
    e->Add(DNNL_ARG_DIFF_DST, y_user, pd.diff_dst_desc(), false);
    e->Add(DNNL_ARG_WEIGHTS, w_user, pd.weights_desc(), false);
    e->Add(DNNL_ARG_DIFF_SRC, x_user, pd.diff_src_desc(), true);
    return e;
  }
  convolution_backward_weights::primitive_desc pd(
      convolution_backward_weights::desc(algorithm::convolution_direct, x_any, w_any, y_any,
                                         cd.strides, cd.dilates, cd.pad_l, cd.pad_r),
      attr, Engine(), hint);
  e->prim = convolution_backward_weights(pd);
  e->scratchpad = pd.scratchpad_desc();
  e->Add(DNNL_ARG_DIFF_DST, y_user, pd.diff_dst_desc(), false);
  e->Add(DNNL_ARG_SRC, x_user, pd.src_desc(), false);
  e->Add(DNNL_ARG_DIFF_WEIGHTS, w_user, pd.diff_weights_desc(), true);
  return e;
}

std::shared_ptr<const Exec> GetConv(const ConvGeom& g, ConvKind kind) {
  return Cache().Get(StrCat("conv", static_cast<int>(kind), ":f32:", g.Key()),
                     [&] { return MakeConv(g, kind); });
}

// x[n, c, ...] += bias[c] over an activation in the op's layout.
void AddChannelBias(const NDArray& x, const NDArray& bias, int64_t N, int64_t C, int64_t S,
                    bool channels_last) {
  float* p = static_cast<float*>(x.data_ptr());
  const float* b = static_cast<const float*>(bias.data_ptr());
  ParallelFor(
      N * (channels_last ? S : C),
      [&](int64_t i) {
        if (channels_last) {
          float* row = p + i * C;
          for (int64_t c = 0; c < C; ++c) row[c] += b[c];
        } else {
          float* row = p + i * S;
          const float v = b[i % C];
          for (int64_t j = 0; j < S; ++j) row[j] += v;
        }
      },
      4);
}

// ---- Inner product. ----
enum class FcKind { kFwd, kFwdBias, kBwdData, kBwdWeight };

std::shared_ptr<Exec> MakeFc(int64_t M, int64_t K, int64_t H, FcKind kind) {
  using namespace dnnl;
  memory::desc x_md({M, K}, dt::f32, tag::ab), w_md({H, K}, dt::f32, tag::ab);
  memory::desc y_md({M, H}, dt::f32, tag::ab), b_md({H}, dt::f32, tag::a);
  primitive_attr attr = UserScratchpad();
  auto e = std::make_shared<Exec>();
  if (kind == FcKind::kFwd || kind == FcKind::kFwdBias) {
    auto desc =
        kind == FcKind::kFwdBias
            ? inner_product_forward::desc(prop_kind::forward_inference, x_md, w_md, b_md, y_md)
            : inner_product_forward::desc(prop_kind::forward_inference, x_md, w_md, y_md);
    inner_product_forward::primitive_desc pd(desc, attr, Engine());
    e->prim = inner_product_forward(pd);
    e->scratchpad = pd.scratchpad_desc();
    e->Add(DNNL_ARG_SRC, x_md, pd.src_desc(), false);
    e->Add(DNNL_ARG_WEIGHTS, w_md, pd.weights_desc(), false);
    if (kind == FcKind::kFwdBias) e->Add(DNNL_ARG_BIAS, b_md, pd.bias_desc(), false);
    e->Add(DNNL_ARG_DST, y_md, pd.dst_desc(), true);
    return e;
  }
  inner_product_forward::primitive_desc hint(
      inner_product_forward::desc(prop_kind::forward_training, x_md, w_md, y_md), Engine());
  if (kind == FcKind::kBwdData) {
    inner_product_backward_data::primitive_desc pd(
        inner_product_backward_data::desc(x_md, w_md, y_md), attr, Engine(), hint);
    e->prim = inner_product_backward_data(pd);
    e->scratchpad = pd.scratchpad_desc();
    e->Add(DNNL_ARG_DIFF_DST, y_md, pd.diff_dst_desc(), false);
    e->Add(DNNL_ARG_WEIGHTS, w_md, pd.weights_desc(), false);
    e->Add(DNNL_ARG_DIFF_SRC, x_md, pd.diff_src_desc(), true);
    return e;
  }
  inner_product_backward_weights::primitive_desc pd(
      inner_product_backward_weights::desc(x_md, w_md, y_md), attr, Engine(), hint);
  e->prim = inner_product_backward_weights(pd);
  e->scratchpad = pd.scratchpad_desc();
  e->Add(DNNL_ARG_DIFF_DST, y_md, pd.diff_dst_desc(), false);
  e->Add(DNNL_ARG_SRC, x_md, pd.src_desc(), false);
  e->Add(DNNL_ARG_DIFF_WEIGHTS, w_md, pd.diff_weights_desc(), true);
  return e;
}

std::shared_ptr<const Exec> GetFc(int64_t M, int64_t K, int64_t H, FcKind kind) {
  return Cache().Get(StrCat("fc", static_cast<int>(kind), ":f32:", M, ",", K, ",", H),
                     [&] { return MakeFc(M, K, H, kind); });
}

// ---- Pooling. ----

// oneDNN's algorithm computing MXNet's windows, or nullopt (see PoolSupported).
std::optional<dnnl::algorithm> PoolAlgorithm(const PoolGeom& g, PoolKind kind, bool include_pad) {
  if (kind == PoolKind::kLp) return std::nullopt;
  bool any_pad = false, any_extra = false;
  for (int i = 0; i < g.nd; ++i) {
    if (g.p[i] >= g.k[i]) return std::nullopt;  // a window wholly in the padding
    if ((g.out[i] - 1) * g.s[i] - g.p[i] >= g.in[i]) return std::nullopt;  // past the input
    any_pad |= g.p[i] > 0;
    any_extra |= (g.out[i] - 1) * g.s[i] + g.k[i] > g.in[i] + 2 * g.p[i];
  }
  if (kind == PoolKind::kMax) return dnnl::algorithm::pooling_max;
  // Sum pooling is the include-padding average times the kernel volume (padding adds zeros).
  if (kind == PoolKind::kSum) return dnnl::algorithm::pooling_avg_include_padding;
  if (!include_pad) return dnnl::algorithm::pooling_avg_exclude_padding;
  // MXNet counts the symmetric padding but not windows reaching past it ('full'/'same'); with no
  // padding that count is the exclude-padding one.
  if (!any_extra) return dnnl::algorithm::pooling_avg_include_padding;
  if (!any_pad) return dnnl::algorithm::pooling_avg_exclude_padding;
  return std::nullopt;
}

struct PoolDims {
  dims strides, kernel, pad_l, pad_r;
  explicit PoolDims(const PoolGeom& g) {
    for (int i = 0; i < g.nd; ++i) {
      strides.push_back(g.s[i]);
      kernel.push_back(g.k[i]);
      pad_l.push_back(g.p[i]);
      int64_t extra = (g.out[i] - 1) * g.s[i] + g.k[i] - (g.in[i] + 2 * g.p[i]);
      pad_r.push_back(g.p[i] + std::max<int64_t>(extra, 0));
    }
  }
};

std::shared_ptr<Exec> MakePool(const PoolGeom& g, dnnl::algorithm alg, bool backward) {
  using namespace dnnl;
  const PoolDims pd_dims(g);
  memory::desc x_md = ActDesc(g.N, g.C, g.in, g.nd, g.channels_last);
  memory::desc y_md = ActDesc(g.N, g.C, g.out, g.nd, g.channels_last);
  primitive_attr attr = UserScratchpad();
  auto e = std::make_shared<Exec>();
  prop_kind pk = backward ? prop_kind::forward_training : prop_kind::forward_inference;
  pooling_forward::primitive_desc fpd(
      pooling_forward::desc(pk, alg, x_md, y_md, pd_dims.strides, pd_dims.kernel, pd_dims.pad_l,
                            pd_dims.pad_r),
      attr, Engine());
  if (!backward) {
    e->prim = pooling_forward(fpd);
    e->scratchpad = fpd.scratchpad_desc();
    e->Add(DNNL_ARG_SRC, x_md, fpd.src_desc(), false);
    e->Add(DNNL_ARG_DST, y_md, fpd.dst_desc(), true);
    return e;
  }
  pooling_backward::primitive_desc bpd(
      pooling_backward::desc(alg, x_md, y_md, pd_dims.strides, pd_dims.kernel, pd_dims.pad_l,
                             pd_dims.pad_r),
      attr, Engine(), fpd);
  e->prim = pooling_backward(bpd);
  e->scratchpad = bpd.scratchpad_desc();
  e->Add(DNNL_ARG_DIFF_DST, y_md, bpd.diff_dst_desc(), false);
  e->Add(DNNL_ARG_DIFF_SRC, x_md, bpd.diff_src_desc(), true);
  return e;
}

// Forward training primitive of max pooling (produces the workspace the backward needs).
std::shared_ptr<Exec> MakePoolTrain(const PoolGeom& g, dnnl::algorithm alg) {
  using namespace dnnl;
  const PoolDims pd_dims(g);
  memory::desc x_md = ActDesc(g.N, g.C, g.in, g.nd, g.channels_last);
  memory::desc y_md = ActDesc(g.N, g.C, g.out, g.nd, g.channels_last);
  pooling_forward::primitive_desc fpd(
      pooling_forward::desc(prop_kind::forward_training, alg, x_md, y_md, pd_dims.strides,
                            pd_dims.kernel, pd_dims.pad_l, pd_dims.pad_r),
      UserScratchpad(), Engine());
  auto e = std::make_shared<Exec>();
  e->prim = pooling_forward(fpd);
  e->scratchpad = fpd.scratchpad_desc();
  e->Add(DNNL_ARG_SRC, x_md, fpd.src_desc(), false);
  e->Add(DNNL_ARG_DST, y_md, fpd.dst_desc(), true);
  e->workspace = fpd.workspace_desc();
  return e;
}

int64_t KernelVolume(const PoolGeom& g) {
  int64_t v = 1;
  for (int i = 0; i < g.nd; ++i) v *= g.k[i];
  return v;
}

void Scale(const NDArray& a, float s) {
  float* p = static_cast<float*>(a.data_ptr());
  ParallelFor(a.size(), [&](int64_t i) { p[i] *= s; });
}

}  // namespace

bool ConvForward(const ConvGeom& g, const NDArray& x, const NDArray& w, const NDArray* bias,
                 const NDArray& y) {
  if (!AllF32({&x, &w, bias, &y})) return false;
  auto e = GetConv(g, bias ? ConvKind::kFwdBias : ConvKind::kFwd);
  if (!e) return false;
  if (bias)
    e->Run({x.data_ptr(), w.data_ptr(), bias->data_ptr(), y.data_ptr()});
  else
    e->Run({x.data_ptr(), w.data_ptr(), y.data_ptr()});
  return true;
}

bool ConvBackwardData(const ConvGeom& g, const NDArray& dy, const NDArray& w, const NDArray* bias,
                      const NDArray& dx) {
  if (!AllF32({&dy, &w, bias, &dx})) return false;
  auto e = GetConv(g, ConvKind::kBwdData);
  if (!e) return false;
  e->Run({dy.data_ptr(), w.data_ptr(), dx.data_ptr()});
  if (bias) {
    int64_t S = g.xs[0] * g.xs[1] * g.xs[2];
    AddChannelBias(dx, *bias, g.N, g.CX, S, g.channels_last);
  }
  return true;
}

bool ConvBackwardWeight(const ConvGeom& g, const NDArray& dy, const NDArray& x, const NDArray& dw) {
  if (!AllF32({&dy, &x, &dw})) return false;
  auto e = GetConv(g, ConvKind::kBwdWeight);
  if (!e) return false;
  e->Run({dy.data_ptr(), x.data_ptr(), dw.data_ptr()});
  return true;
}

bool FcForward(int64_t M, int64_t K, int64_t H, const NDArray& x, const NDArray& w,
               const NDArray* bias, const NDArray& y) {
  if (!AllF32({&x, &w, bias, &y}) || M == 0) return false;
  auto e = GetFc(M, K, H, bias ? FcKind::kFwdBias : FcKind::kFwd);
  if (!e) return false;
  if (bias)
    e->Run({x.data_ptr(), w.data_ptr(), bias->data_ptr(), y.data_ptr()});
  else
    e->Run({x.data_ptr(), w.data_ptr(), y.data_ptr()});
  return true;
}

bool FcBackwardData(int64_t M, int64_t K, int64_t H, const NDArray& dy, const NDArray& w,
                    const NDArray& dx) {
  if (!AllF32({&dy, &w, &dx}) || M == 0) return false;
  auto e = GetFc(M, K, H, FcKind::kBwdData);
  if (!e) return false;
  e->Run({dy.data_ptr(), w.data_ptr(), dx.data_ptr()});
  return true;
}

bool FcBackwardWeight(int64_t M, int64_t K, int64_t H, const NDArray& dy, const NDArray& x,
                      const NDArray& dw) {
  if (!AllF32({&dy, &x, &dw}) || M == 0) return false;
  auto e = GetFc(M, K, H, FcKind::kBwdWeight);
  if (!e) return false;
  e->Run({dy.data_ptr(), x.data_ptr(), dw.data_ptr()});
  return true;
}

bool PoolSupported(const PoolGeom& g, PoolKind kind, bool count_include_pad) {
  return PoolAlgorithm(g, kind, count_include_pad).has_value();
}

bool PoolForward(const PoolGeom& g, PoolKind kind, bool count_include_pad, const NDArray& x,
                 const NDArray& y) {
  if (!AllF32({&x, &y}) || x.size() == 0) return false;
  auto alg = PoolAlgorithm(g, kind, count_include_pad);
  if (!alg) return false;
  auto e = Cache().Get(StrCat("pool", static_cast<int>(*alg), ":f32:", g.Key()),
                       [&] { return MakePool(g, *alg, false); });
  if (!e) return false;
  e->Run({x.data_ptr(), y.data_ptr()});
  if (kind == PoolKind::kSum) Scale(y, static_cast<float>(KernelVolume(g)));
  return true;
}

bool PoolBackward(const PoolGeom& g, PoolKind kind, bool count_include_pad, const NDArray& dy,
                  const NDArray& x, const NDArray& dx) {
  if (!AllF32({&dy, &x, &dx}) || x.size() == 0) return false;
  auto alg = PoolAlgorithm(g, kind, count_include_pad);
  if (!alg) return false;
  std::string key = StrCat(static_cast<int>(*alg), ":f32:", g.Key());
  auto bwd = Cache().Get("poolbwd" + key, [&] { return MakePool(g, *alg, true); });
  if (!bwd) return false;
  if (*alg != dnnl::algorithm::pooling_max) {
    bwd->Run({dy.data_ptr(), dx.data_ptr()});
    if (kind == PoolKind::kSum) Scale(dx, static_cast<float>(KernelVolume(g)));
    return true;
  }
  // Max: the forward pass in training mode records the argmax positions in a workspace.
  auto fwd = Cache().Get("pooltrain" + key, [&] { return MakePoolTrain(g, *alg); });
  if (!fwd) return false;
  memory ws(fwd->workspace, Engine());
  std::vector<float> y_tmp(dy.size());
  fwd->Run({x.data_ptr(), y_tmp.data()}, {{DNNL_ARG_WORKSPACE, ws}});
  bwd->Run({dy.data_ptr(), dx.data_ptr()}, {{DNNL_ARG_WORKSPACE, ws}});
  return true;
}

size_t CacheSize() { return Cache().size(); }

}  // namespace mxnet::ops::onednn
