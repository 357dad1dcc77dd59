#include "ndarray/ops/nn/nn_onednn.h"

#include <memory>
#include <utility>

#include "base/error.h"
#include "ndarray/backends/onednn/onednn.h"

namespace mxnet::ops::nn::onednn {
namespace {

namespace dnn = ::mxnet::backends::onednn;
using backends::CacheKey;
using dnn::dt;
using dnn::Engine;
using dnn::memory;
using dnn::tag;
using dnn::UserScratchpad;

// A cached primitive (no argument layouts: callers pass memories in the primitive's layouts).
template <typename Make>
std::shared_ptr<const dnn::Exec> GetPrimitive(const CacheKey& key, Make make) {
  return dnn::Get<dnn::Exec>(key, [&] {
    auto [prim, scratchpad] = make();
    auto e = std::make_shared<dnn::Exec>();
    e->prim = std::move(prim);
    e->scratchpad = scratchpad;
    return e;
  });
}

memory Mem(const memory::desc& d, const void* p) { return dnn::Wrap(d, p); }

// Runs fn, turning oneDNN errors into mxnet::Error naming the primitive.
template <typename F>
void Guard(const char* what, F fn) {
  try {
    fn();
  } catch (const dnnl::error& e) {
    MX_THROW(absl::StatusCode::kInternal, "oneDNN ", what, ": ", e.what());
  }
}

memory::desc Desc3(int64_t a, int64_t b, int64_t c) {
  return memory::desc({a, b, c}, dt::f32, tag::abc);
}
// Channels-last (rows, c) data as 4-D nhwc (rows, c, 1, 1), which oneDNN 2.6 runs with jit kernels.
memory::desc DescBN(int64_t rows, int64_t c) {
  return memory::desc({rows, c, 1, 1}, dt::f32, tag::nhwc);
}
memory::desc Desc2(int64_t a, int64_t b) { return memory::desc({a, b}, dt::f32, tag::ab); }
memory::desc Desc1(int64_t a) { return memory::desc({a}, dt::f32, tag::a); }

}  // namespace

void BatchNormForward(const float* x, float* y, const float* scale, const float* shift, float* mean,
                      float* var, int64_t rows, int64_t c, float eps, bool training) {
  Guard("batch_normalization_forward", [&] {
    memory::desc d = DescBN(rows, c);
    auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    if (!training) flags = flags | dnnl::normalization_flags::use_global_stats;
    const CacheKey key = CacheKey("bn_fwd")(rows, c, eps, training);
    auto e = GetPrimitive(key, [&] {
      dnnl::batch_normalization_forward::desc desc(
          training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference, d, eps,
          flags);
      dnnl::batch_normalization_forward::primitive_desc pd(desc, UserScratchpad(), Engine());
      return std::pair{dnnl::batch_normalization_forward(pd), pd.scratchpad_desc()};
    });
    memory::desc s = Desc1(c);
    e->RunArgs({{DNNL_ARG_SRC, Mem(d, x)},
                {DNNL_ARG_DST, Mem(d, y)},
                {DNNL_ARG_SCALE, Mem(s, scale)},
                {DNNL_ARG_SHIFT, Mem(s, shift)},
                {DNNL_ARG_MEAN, Mem(s, mean)},
                {DNNL_ARG_VARIANCE, Mem(s, var)}});
  });
}

void BatchNormBackward(const float* x, const float* dy, const float* scale, const float* mean,
                       const float* var, float* dx, float* dscale, float* dshift, int64_t rows,
                       int64_t c, float eps, bool global_stats) {
  Guard("batch_normalization_backward", [&] {
    memory::desc d = DescBN(rows, c);
    auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    if (global_stats) flags = flags | dnnl::normalization_flags::use_global_stats;
    const CacheKey key = CacheKey("bn_bwd")(rows, c, eps, global_stats);
    auto e = GetPrimitive(key, [&] {
      dnnl::batch_normalization_forward::desc fdesc(dnnl::prop_kind::forward_training, d, eps,
                                                    flags);
      dnnl::batch_normalization_forward::primitive_desc fpd(fdesc, Engine());
      dnnl::batch_normalization_backward::desc desc(dnnl::prop_kind::backward, d, d, eps, flags);
      dnnl::batch_normalization_backward::primitive_desc pd(desc, UserScratchpad(), Engine(), fpd);
      return std::pair{dnnl::batch_normalization_backward(pd), pd.scratchpad_desc()};
    });
    memory::desc s = Desc1(c);
    std::vector<float> shift(c, 0.f);  // unused by the math, but oneDNN 2.6 requires the argument
    e->RunArgs({{DNNL_ARG_SRC, Mem(d, x)},
                {DNNL_ARG_DIFF_DST, Mem(d, dy)},
                {DNNL_ARG_SCALE, Mem(s, scale)},
                {DNNL_ARG_SHIFT, Mem(s, shift.data())},
                {DNNL_ARG_MEAN, Mem(s, mean)},
                {DNNL_ARG_VARIANCE, Mem(s, var)},
                {DNNL_ARG_DIFF_SRC, Mem(d, dx)},
                {DNNL_ARG_DIFF_SCALE, Mem(s, dscale)},
                {DNNL_ARG_DIFF_SHIFT, Mem(s, dshift)}});
  });
}

void LayerNormForward(const float* x, float* y, const float* scale, const float* shift, float* mean,
                      float* var, int64_t rows, int64_t c, float eps) {
  Guard("layer_normalization_forward", [&] {
    memory::desc d = Desc2(rows, c);
    memory::desc st = Desc1(rows);
    auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    const CacheKey key = CacheKey("ln_fwd")(rows, c, eps);
    auto e = GetPrimitive(key, [&] {
      dnnl::layer_normalization_forward::desc desc(dnnl::prop_kind::forward_training, d, st, eps,
                                                   flags);
      dnnl::layer_normalization_forward::primitive_desc pd(desc, UserScratchpad(), Engine());
      return std::pair{dnnl::layer_normalization_forward(pd), pd.scratchpad_desc()};
    });
    memory::desc s = Desc1(c);
    e->RunArgs({{DNNL_ARG_SRC, Mem(d, x)},
                {DNNL_ARG_DST, Mem(d, y)},
                {DNNL_ARG_SCALE, Mem(s, scale)},
                {DNNL_ARG_SHIFT, Mem(s, shift)},
                {DNNL_ARG_MEAN, Mem(st, mean)},
                {DNNL_ARG_VARIANCE, Mem(st, var)}});
  });
}

void EltwiseForward(Eltwise alg, float alpha, const float* x, float* y, int64_t n) {
  Guard("eltwise_forward", [&] {
    dnnl::algorithm a = dnnl::algorithm::eltwise_relu;
    switch (alg) {
      case Eltwise::kRelu:
        a = dnnl::algorithm::eltwise_relu;
        alpha = 0;
        break;
      case Eltwise::kLeakyRelu:
        a = dnnl::algorithm::eltwise_relu;
        break;
      case Eltwise::kLogistic:
        a = dnnl::algorithm::eltwise_logistic;
        break;
      case Eltwise::kTanh:
        a = dnnl::algorithm::eltwise_tanh;
        break;
      case Eltwise::kSoftRelu:
        a = dnnl::algorithm::eltwise_soft_relu;
        break;
      case Eltwise::kElu:
        a = dnnl::algorithm::eltwise_elu;
        break;
      case Eltwise::kGeluErf:
        a = dnnl::algorithm::eltwise_gelu_erf;
        break;
    }
    memory::desc d = Desc1(n);
    const CacheKey key = CacheKey("eltwise")(alg, alpha, n);
    auto e = GetPrimitive(key, [&] {
      dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, a, d, alpha, 0.f);
      dnnl::eltwise_forward::primitive_desc pd(desc, UserScratchpad(), Engine());
      return std::pair{dnnl::eltwise_forward(pd), pd.scratchpad_desc()};
    });
    e->RunArgs({{DNNL_ARG_SRC, Mem(d, x)}, {DNNL_ARG_DST, Mem(d, y)}});
  });
}

void SoftmaxForward(bool log, const float* x, float* y, int64_t outer, int64_t n, int64_t inner) {
  Guard("softmax_forward", [&] {
    memory::desc d = Desc3(outer, n, inner);
    const CacheKey key = CacheKey("softmax")(log, outer, n, inner);
    auto e = GetPrimitive(key, [&] {
      dnnl::softmax_v2_forward::desc desc(
          dnnl::prop_kind::forward_inference,
          log ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate, d, d, 1);
      dnnl::softmax_v2_forward::primitive_desc pd(desc, UserScratchpad(), Engine());
      return std::pair{dnnl::softmax_v2_forward(pd), pd.scratchpad_desc()};
    });
    e->RunArgs({{DNNL_ARG_SRC, Mem(d, x)}, {DNNL_ARG_DST, Mem(d, y)}});
  });
}

}  // namespace mxnet::ops::nn::onednn
