// oneDNN int8 convolution for _contrib_quantized_conv (conv_quant_kernels.h): uint8/int8 data,
// int8 weights, float32 bias (the int8 bias converted, exact), int32 output, all channels-first.
// The primitive picks its own (blocked) layouts (format_tag::any); cached entries (keyed by
// geometry, data dtype and bias) hold the primitive and its layouts, and each call reorders data
// and weights into them and the output back (the weights are not kept reordered between calls).
// Without VNNI oneDNN's int8 kernels saturate: those calls take the exact weight-split path of
// conv_quant_exact.h.
#include <memory>
#include <string>

#include "base/strings.h"
#include "ndarray/backends/onednn/onednn.h"
#include "ndarray/ops/quantization/quant_exact.h"
#include "ndarray/ops/quantization/quant_kernels.h"

namespace mxnet::ops::onednn {
namespace {

using dnnl::memory;
using dt = memory::data_type;
using tag = memory::format_tag;

namespace dnn = ::mxnet::backends::onednn;

// The oneDNN backend's engine.
dnnl::engine& QEngine() { return dnn::Engine(); }

struct QConvEntry {
  dnnl::convolution_forward prim;
  memory::desc user_src, user_wei, user_dst, src, wei, dst, bias, scratch;
  std::string impl;  // the kernel's name (primitive_desc::impl_info_str())
};

std::shared_ptr<const QConvEntry> MakeEntry(const ConvGeom& g, dt src_dt, bool has_bias) {
  memory::dims xd{g.N, g.CX}, wd{g.CY, g.CX}, yd{g.N, g.CY}, s, d, pl, pr;
  for (int i = 0; i < g.nd; ++i) {
    xd.push_back(g.xs[i]);
    wd.push_back(g.k[i]);
    yd.push_back(g.ys[i]);
    s.push_back(g.s[i]);
    d.push_back(g.d[i] - 1);  // oneDNN dilation counts the gaps
    pl.push_back(g.p[i]);
    // Right padding so that oneDNN's output size equals ours.
    pr.push_back((g.ys[i] - 1) * g.s[i] + g.DilatedKernel(i) - g.xs[i] - g.p[i]);
  }
  const tag act = g.nd == 2 ? tag::nchw : tag::ncdhw, wt = g.nd == 2 ? tag::oihw : tag::oidhw;
  auto e = std::make_shared<QConvEntry>();
  e->user_src = memory::desc(xd, src_dt, act);
  e->user_wei = memory::desc(wd, dt::s8, wt);
  e->user_dst = memory::desc(yd, dt::s32, act);
  memory::desc any_src(xd, src_dt, tag::any), any_wei(wd, dt::s8, tag::any),
      any_dst(yd, dt::s32, tag::any), bias_md({g.CY}, dt::f32, tag::a);
  auto desc = has_bias
                  ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                    dnnl::algorithm::convolution_direct, any_src,
                                                    any_wei, bias_md, any_dst, s, d, pl, pr)
                  : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                    dnnl::algorithm::convolution_direct, any_src,
                                                    any_wei, any_dst, s, d, pl, pr);
  // A user scratchpad (allocated per call) keeps one cached primitive safe on several threads.
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::convolution_forward::primitive_desc pd(desc, attr, QEngine());
  e->prim = dnnl::convolution_forward(pd);
  e->src = pd.src_desc();
  e->wei = pd.weights_desc();
  e->dst = pd.dst_desc();
  e->bias = bias_md;
  e->scratch = pd.scratchpad_desc();
  e->impl = pd.impl_info_str();
  return e;
}

// From the backend's cache; unsupported configurations are cached as such (nullptr: the caller
// runs the reference kernel).
std::shared_ptr<const QConvEntry> GetEntry(const ConvGeom& g, dt src_dt, bool has_bias) {
  backends::CacheKey key("qconv");
  key(src_dt, has_bias);
  g.AppendTo(key);
  return dnn::GetOrNull<QConvEntry>(std::move(key), [&] { return MakeEntry(g, src_dt, has_bias); });
}

// `user` as a memory in `want`'s layout (reordered into a new buffer when they differ).
memory Prepare(dnnl::stream& st, const memory::desc& user_md, void* ptr, const memory::desc& want) {
  return dnn::Reordered(st, user_md, ptr, want);
}

}  // namespace

bool QuantizedConvForward(const ConvGeom& g, const NDArray& x, const NDArray& w,
                          const NDArray* bias, const NDArray& y) {
  if (g.channels_last || g.G != 1 || g.N == 0 || (g.nd != 2 && g.nd != 3)) return false;
  const dt src_dt = x.dtype() == DType::kUint8 ? dt::u8 : dt::s8;
  auto e = GetEntry(g, src_dt, bias != nullptr);
  if (!e) return false;
  if (!quant_exact::Int8KernelIsExact(e->impl) &&
      !(src_dt == dt::u8 && quant_exact::WeightsPairSafe(w.data<int8_t>(), w.size())))
    return QuantizedConvForwardSplit(g, x, w, bias, y);
  dnnl::stream& st = dnn::Stream();
  memory src = Prepare(st, e->user_src, x.data_ptr(), e->src);
  memory wei = Prepare(st, e->user_wei, w.data_ptr(), e->wei);
  memory user_dst(e->user_dst, QEngine(), y.data_ptr());
  memory dst = e->dst == e->user_dst ? user_dst : memory(e->dst, QEngine());
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
  dnn::Scratch pool;
  args.emplace(DNNL_ARG_SCRATCHPAD, pool.Memory(e->scratch));
  std::vector<float> b;
  if (bias) {
    const int8_t* bp = bias->data<int8_t>();
    b.assign(bp, bp + g.CY);
    args.emplace(DNNL_ARG_BIAS, memory(e->bias, QEngine(), b.data()));
  }
  e->prim.execute(st, args);
  if (!(e->dst == e->user_dst)) dnnl::reorder(dst, user_dst).execute(st, dst, user_dst);
  st.wait();
  return true;
}

std::string QuantizedConvKernelName(const ConvGeom& g, DType data, bool has_bias) {
  auto e = GetEntry(g, data == DType::kUint8 ? dt::u8 : dt::s8, has_bias);
  return e ? e->impl : "";
}

}  // namespace mxnet::ops::onednn
