// oneDNN 2.6 kernels of the conv op family (float32): convolution forward / backward data /
// backward weights (Convolution, Deconvolution and their gradient helpers all map onto these
// three), inner product forward / backward, pooling forward / backward.
//
// Primitives live in the oneDNN backend's cache (ndarray/backends/onednn: keyed by kind, geometry,
// dtype and thread count). A cached entry (backends::onednn::Exec) holds the primitive (created
// with format_tag::any where oneDNN benefits from blocked layouts), the user's plain memory
// descriptors and the reorders between the two. Entries are immutable after creation and executed
// with per-thread scratch buffers (reordered arguments, scratchpads), so one entry can run on
// several threads at once. A configuration oneDNN rejects is cached as "unsupported" and the
// caller runs the reference kernel.
//
// Layout choice for a forward convolution with one output position (a dense layer): the caller's
// plain layouts on oneDNN's gemm kernel (no weight reorder per call). Otherwise, for
// channels-first (NCHW) data: the convolution forward is created from a
// forward_training descriptor, which selects the blocked (nChw16c) jit kernels whose reorders
// from/to NCHW are much cheaper than the channels-last ones brgconv picks for forward_inference
// (LeNet's 3x3 32->64 conv on 13x13: 6.3 vs 7.7 ms per batch of 128 including reorders; the
// backward passes use the same blocked layouts). Channels-last data keeps forward_inference,
// whose brgconv kernels take NHWC without any reorder.
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "ndarray/kernel_util.h"
#include "ndarray/ops/conv/conv_kernels.h"
#include "ndarray/ops/conv/conv_onednn.h"

namespace mxnet::ops::onednn {
namespace {

namespace dnn = ::mxnet::backends::onednn;
using backends::CacheKey;
using dnn::dims;
using dnn::dt;
using dnn::Engine;
using dnn::Exec;
using dnn::memory;
using dnn::tag;
using dnn::UserScratchpad;
using Dir = Exec::Dir;

bool AllF32(std::initializer_list<const NDArray*> arrays) {
  for (const NDArray* a : arrays)
    if (a && a->dtype() != DType::kFloat32) return false;
  return true;
}

// ---- Convolution. ----

enum class ConvKind { kFwd, kFwdBias, kBwdData, kBwdWeight };

// Whether every output spatial size is 1 (the convolution is a matrix product per sample).
bool OneOutputPosition(const ConvGeom& g) {
  for (int i = 0; i < g.nd; ++i)
    if (g.ys[i] != 1) return false;
  return true;
}

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
  if ((kind == ConvKind::kFwd || kind == ConvKind::kFwdBias) && OneOutputPosition(g)) {
    // A dense layer written as a convolution (one output position, e.g. MobileNet's classifier):
    // oneDNN's gemm kernel on the caller's plain layouts, so the (large) weight is not reordered
    // on every call. Kept only when oneDNN has a non-reference kernel for these layouts.
    try {
      auto desc = kind == ConvKind::kFwdBias
                      ? convolution_forward::desc(
                            prop_kind::forward_inference, algorithm::convolution_direct, x_user,
                            w_user, b_md, y_user, cd.strides, cd.dilates, cd.pad_l, cd.pad_r)
                      : convolution_forward::desc(
                            prop_kind::forward_inference, algorithm::convolution_direct, x_user,
                            w_user, y_user, cd.strides, cd.dilates, cd.pad_l, cd.pad_r);
      convolution_forward::primitive_desc pd(desc, attr, Engine());
      if (std::string_view(pd.impl_info_str()).substr(0, 3) != "ref") {
        e->prim = convolution_forward(pd);
        e->scratchpad = pd.scratchpad_desc();
        e->Add(DNNL_ARG_SRC, x_user);
        e->Add(DNNL_ARG_WEIGHTS, w_user);
        if (kind == ConvKind::kFwdBias) e->Add(DNNL_ARG_BIAS, b_md);
        e->Add(DNNL_ARG_DST, y_user, Dir::kOut);
        return e;
      }
    } catch (const dnnl::error&) {
      // No kernel for the plain layouts: the blocked path below.
    }
  }
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
    e->Add(DNNL_ARG_SRC, x_user, pd.src_desc(), Dir::kIn);
    e->Add(DNNL_ARG_WEIGHTS, w_user, pd.weights_desc(), Dir::kIn);
    if (kind == ConvKind::kFwdBias) e->Add(DNNL_ARG_BIAS, b_md, pd.bias_desc(), Dir::kIn);
    e->Add(DNNL_ARG_DST, y_user, pd.dst_desc(), Dir::kOut);
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
    e->Add(DNNL_ARG_DIFF_DST, y_user, pd.diff_dst_desc(), Dir::kIn);
    e->Add(DNNL_ARG_WEIGHTS, w_user, pd.weights_desc(), Dir::kIn);
    e->Add(DNNL_ARG_DIFF_SRC, x_user, pd.diff_src_desc(), Dir::kOut);
    return e;
  }
  convolution_backward_weights::primitive_desc pd(
      convolution_backward_weights::desc(algorithm::convolution_direct, x_any, w_any, y_any,
                                         cd.strides, cd.dilates, cd.pad_l, cd.pad_r),
      attr, Engine(), hint);
  e->prim = convolution_backward_weights(pd);
  e->scratchpad = pd.scratchpad_desc();
  e->Add(DNNL_ARG_DIFF_DST, y_user, pd.diff_dst_desc(), Dir::kIn);
  e->Add(DNNL_ARG_SRC, x_user, pd.src_desc(), Dir::kIn);
  e->Add(DNNL_ARG_DIFF_WEIGHTS, w_user, pd.diff_weights_desc(), Dir::kOut);
  return e;
}

std::shared_ptr<const Exec> GetConv(const ConvGeom& g, ConvKind kind) {
  return dnn::GetOrNull<Exec>(WithGeom(CacheKey("conv")(kind, DType::kFloat32), g),
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
    e->Add(DNNL_ARG_SRC, x_md, pd.src_desc(), Dir::kIn);
    e->Add(DNNL_ARG_WEIGHTS, w_md, pd.weights_desc(), Dir::kIn);
    if (kind == FcKind::kFwdBias) e->Add(DNNL_ARG_BIAS, b_md, pd.bias_desc(), Dir::kIn);
    e->Add(DNNL_ARG_DST, y_md, pd.dst_desc(), Dir::kOut);
    return e;
  }
  inner_product_forward::primitive_desc hint(
      inner_product_forward::desc(prop_kind::forward_training, x_md, w_md, y_md), Engine());
  if (kind == FcKind::kBwdData) {
    inner_product_backward_data::primitive_desc pd(
        inner_product_backward_data::desc(x_md, w_md, y_md), attr, Engine(), hint);
    e->prim = inner_product_backward_data(pd);
    e->scratchpad = pd.scratchpad_desc();
    e->Add(DNNL_ARG_DIFF_DST, y_md, pd.diff_dst_desc(), Dir::kIn);
    e->Add(DNNL_ARG_WEIGHTS, w_md, pd.weights_desc(), Dir::kIn);
    e->Add(DNNL_ARG_DIFF_SRC, x_md, pd.diff_src_desc(), Dir::kOut);
    return e;
  }
  inner_product_backward_weights::primitive_desc pd(
      inner_product_backward_weights::desc(x_md, w_md, y_md), attr, Engine(), hint);
  e->prim = inner_product_backward_weights(pd);
  e->scratchpad = pd.scratchpad_desc();
  e->Add(DNNL_ARG_DIFF_DST, y_md, pd.diff_dst_desc(), Dir::kIn);
  e->Add(DNNL_ARG_SRC, x_md, pd.src_desc(), Dir::kIn);
  e->Add(DNNL_ARG_DIFF_WEIGHTS, w_md, pd.diff_weights_desc(), Dir::kOut);
  return e;
}

std::shared_ptr<const Exec> GetFc(int64_t M, int64_t K, int64_t H, FcKind kind) {
  return dnn::GetOrNull<Exec>(CacheKey("fc")(kind, DType::kFloat32, M, K, H),
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
    e->Add(DNNL_ARG_SRC, x_md, fpd.src_desc(), Dir::kIn);
    e->Add(DNNL_ARG_DST, y_md, fpd.dst_desc(), Dir::kOut);
    return e;
  }
  pooling_backward::primitive_desc bpd(
      pooling_backward::desc(alg, x_md, y_md, pd_dims.strides, pd_dims.kernel, pd_dims.pad_l,
                             pd_dims.pad_r),
      attr, Engine(), fpd);
  e->prim = pooling_backward(bpd);
  e->scratchpad = bpd.scratchpad_desc();
  e->Add(DNNL_ARG_DIFF_DST, y_md, bpd.diff_dst_desc(), Dir::kIn);
  e->Add(DNNL_ARG_DIFF_SRC, x_md, bpd.diff_src_desc(), Dir::kOut);
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
  e->Add(DNNL_ARG_SRC, x_md, fpd.src_desc(), Dir::kIn);
  e->Add(DNNL_ARG_DST, y_md, fpd.dst_desc(), Dir::kOut);
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
  auto e = dnn::GetOrNull<Exec>(WithGeom(CacheKey("pool")(*alg, DType::kFloat32), g),
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
  auto bwd = dnn::GetOrNull<Exec>(WithGeom(CacheKey("poolbwd")(*alg, DType::kFloat32), g),
                                  [&] { return MakePool(g, *alg, true); });
  if (!bwd) return false;
  if (*alg != dnnl::algorithm::pooling_max) {
    bwd->Run({dy.data_ptr(), dx.data_ptr()});
    if (kind == PoolKind::kSum) Scale(dx, static_cast<float>(KernelVolume(g)));
    return true;
  }
  // Max: the forward pass in training mode records the argmax positions in a workspace.
  auto fwd = dnn::GetOrNull<Exec>(WithGeom(CacheKey("pooltrain")(*alg, DType::kFloat32), g),
                                  [&] { return MakePoolTrain(g, *alg); });
  if (!fwd) return false;
  memory ws(fwd->workspace, Engine());
  std::vector<float> y_tmp(dy.size());
  fwd->Run({x.data_ptr(), y_tmp.data()}, {{DNNL_ARG_WORKSPACE, ws}});
  bwd->Run({dy.data_ptr(), dx.data_ptr()}, {{DNNL_ARG_WORKSPACE, ws}});
  return true;
}

}  // namespace mxnet::ops::onednn
