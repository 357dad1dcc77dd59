// Fused inference ops made by the graph pass OneDnnFusionPass (symbol/passes), MXNet's oneDNN
// subgraph ops:
//   _sg_onednn_conv(data, weight[, bias][, sum])
//   _sg_onednn_fully_connected(data, weight[, bias][, sum])
//     y = post_act(act(op(data, weight, bias)) + sum)
// with the attributes of Convolution / FullyConnected plus
//   act_type           activation right after the op (None, relu, sigmoid, tanh, softrelu, clip)
//   act_min, act_max   the bounds of act_type='clip' (MXNet's clip(x, a_min, a_max); RELU6 is
//                      clip(x, 0, 6)); required with it, rejected without it; act_min <= act_max
//   with_sum           add the last input elementwise (a residual connection)
//   postsum_act_type   activation after the sum
// The reference kernel composes the unfused ops' reference kernels (Convolution /
// FullyConnected, Activation, elemwise_add); the optimized kernel runs one oneDNN primitive with
// eltwise/sum/eltwise post-ops. The sum input may share its buffer with the output (declared
// in-place at position 3, i.e. with a bias): oneDNN's sum post-op accumulates into the output.
// Inference only: not differentiable.
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "ndarray/kernel_util.h"
#include "ndarray/op.h"
#include "ndarray/ops/conv/conv_kernels.h"
#include "ndarray/ops/conv/conv_onednn.h"
#include "ndarray/ops/conv/conv_shape.h"

namespace mxnet::ops {
namespace {

constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
constexpr KernelKey kOpt{DeviceType::kCPU, Backend::kOptimized};
constexpr const char* kConvOp = "_sg_onednn_conv";
constexpr const char* kFcOp = "_sg_onednn_fully_connected";

// Declares the base op's fields on the derived struct (member pointers of the base converted
// to the derived type).
template <class D, class Derived>
struct BaseFields {
  D& d;
  template <class T, class B>
  auto field(const char* name, T B::*member) {
    return d.field(name, static_cast<T Derived::*>(member));
  }
};

const std::vector<std::string> kActChoices = {"None", "relu", "sigmoid", "softrelu", "tanh"};
// act_type also takes clip (oneDNN's eltwise_clip post-op; the bounds are act_min / act_max).
const std::vector<std::string> kFirstActChoices = {"None",     "relu", "sigmoid",
                                                   "softrelu", "tanh", "clip"};

template <class P, class D>
void DeclarePostOps(D& d) {
  d.field("act_type", &P::act_type)
      .choices(kFirstActChoices)
      .describe("Activation applied to the op's output (None: none).");
  d.field("act_min", &P::act_min).describe("Lower bound of act_type='clip' (clip's a_min).");
  d.field("act_max", &P::act_max).describe("Upper bound of act_type='clip' (clip's a_max).");
  d.field("with_sum", &P::with_sum)
      .describe("Add the last input (same shape as the output) after the activation.");
  d.field("postsum_act_type", &P::postsum_act_type)
      .choices(kActChoices)
      .describe("Activation applied after the sum (None: none).");
}

std::string ValidatePostOps(const std::optional<std::string>& act, std::optional<float> act_min,
                            std::optional<float> act_max, bool with_sum,
                            const std::optional<std::string>& post) {
  if (post && !with_sum) return "postsum_act_type needs with_sum=True";
  const bool clip = act && *act == "clip";
  if (clip && (!act_min || !act_max)) return "act_type='clip' needs act_min and act_max";
  if (!clip && (act_min || act_max)) return "act_min/act_max need act_type='clip'";
  if (clip && !(*act_min <= *act_max))
    return StrCat("act_min (", *act_min, ") must not exceed act_max (", *act_max, ")");
  return "";
}

struct SgConvParam : ConvolutionParam {
  std::optional<std::string> act_type;
  std::optional<float> act_min, act_max;
  bool with_sum = false;
  std::optional<std::string> postsum_act_type;
  bool const_weight = false;
  template <class D>
  static void Declare(D& d) {
    BaseFields<D, SgConvParam> base{d};
    ConvolutionParam::Declare(base);
    DeclarePostOps<SgConvParam>(d);
    d.field("const_weight", &SgConvParam::const_weight)
        .describe(
            "The weight is a graph constant (e.g. BatchNorm-folded) that never changes while its "
            "buffer lives: its oneDNN-layout copy is cached by buffer identity.");
  }
  std::string Validate() const {
    std::string e = ConvolutionParam::Validate();
    return e.empty() ? ValidatePostOps(act_type, act_min, act_max, with_sum, postsum_act_type) : e;
  }
};

struct SgFcParam : FullyConnectedParam {
  std::optional<std::string> act_type;
  std::optional<float> act_min, act_max;
  bool with_sum = false;
  std::optional<std::string> postsum_act_type;
  template <class D>
  static void Declare(D& d) {
    BaseFields<D, SgFcParam> base{d};
    FullyConnectedParam::Declare(base);
    DeclarePostOps<SgFcParam>(d);
  }
  std::string Validate() const {
    std::string e = FullyConnectedParam::Validate();
    return e.empty() ? ValidatePostOps(act_type, act_min, act_max, with_sum, postsum_act_type) : e;
  }
};

// Number of inputs of the base op (data, weight[, bias]).
template <typename P>
int BaseInputs(const P& p) {
  return p.no_bias ? 2 : 3;
}

template <typename P>
std::vector<std::string> InputNames(const OpAttrs& a) {
  const auto& p = a.get<P>();
  std::vector<std::string> n{"data", "weight"};
  if (!p.no_bias) n.push_back("bias");
  if (p.with_sum) n.push_back("sum");
  return n;
}

template <typename P>
int NumInputs(const OpAttrs& a) {
  const auto& p = a.get<P>();
  return BaseInputs(p) + (p.with_sum ? 1 : 0);
}

// The base op and its attributes for a fused op's parameters.
template <typename P>
const Op& BaseOp() {
  static const Op& op =
      OpRegistry::Get(std::is_same_v<P, SgConvParam> ? "Convolution" : "FullyConnected");
  return op;
}
template <typename P>
OpAttrs BaseAttrs(const P& p) {
  if constexpr (std::is_same_v<P, SgConvParam>)
    return OpAttrs::From(BaseOp<P>(), static_cast<const ConvolutionParam&>(p));
  else
    return OpAttrs::From(BaseOp<P>(), static_cast<const FullyConnectedParam&>(p));
}

template <typename P>
FInferShape FusedShape(const char* op) {
  return [op](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
    const auto& p = attrs.get<P>();
    const int nb = BaseInputs(p);
    ShapeVec base(in->begin(), in->begin() + nb);
    BaseOp<P>().infer_shape(BaseAttrs(p), &base, out);
    for (int i = 0; i < nb; ++i) (*in)[i] = base[i];
    if (p.with_sum) {
      AssignShape(op, "sum", &(*in)[nb], (*out)[0], "(the output's shape)");
      AssignShape(op, "output", &(*out)[0], (*in)[nb]);
    }
  };
}

// ---- Reference: the unfused ops' reference kernels, one after the other. ----

void RunRef(const char* op_name, const AttrDict& attrs, std::span<const NDArray> in,
            const NDArray& out) {
  const Op* op = OpRegistry::Find(op_name);
  if (!op)
    MX_THROW(absl::StatusCode::kFailedPrecondition, "fused op needs ", op_name,
             " registered (link //ndarray/ops/nn and //ndarray/ops/elemwise)");
  NDArrayVec o{out};
  (*op->FindKernel(kRef))(OpContext{}, OpAttrs::Parse(*op, attrs), in, o);
}

// A float as text that parses back to the same float (9 significant digits).
std::string ExactFloat(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

// act(y) -> (+ sum) -> post_act, in place on y (act 'clip': the clip op with act_min/act_max).
template <typename P>
void PostOpsRef(const P& p, const NDArray* sum, const NDArray& y) {
  const std::optional<std::string>& act = p.act_type;
  const std::optional<std::string>& post = p.postsum_act_type;
  if (act && *act == "clip") {
    RunRef("clip", {{"a_min", ExactFloat(*p.act_min)}, {"a_max", ExactFloat(*p.act_max)}},
           std::vector<NDArray>{y}, y);
  } else if (act) {
    RunRef("Activation", {{"act_type", *act}}, std::vector<NDArray>{y}, y);
  }
  if (sum) RunRef("elemwise_add", {}, std::vector<NDArray>{y, *sum}, y);
  if (post) RunRef("Activation", {{"act_type", *post}}, std::vector<NDArray>{y}, y);
}

// Inputs the output overwrites before reading them (only the sum may alias it by plan, but be
// safe against any aliasing): copied first.
std::vector<NDArray> Unaliased(std::span<const NDArray> in, const NDArray& out) {
  std::vector<NDArray> v(in.begin(), in.end());
  for (auto& a : v)
    if (a.shares_storage(out)) a = a.copy();
  return v;
}

template <typename P>
void FusedRef(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
              std::span<const NDArray> out) {
  const auto& p = attrs.get<P>();
  const int nb = BaseInputs(p);
  std::vector<NDArray> v = Unaliased(in, out[0]);
  const Op& base = BaseOp<P>();
  NDArrayVec o{out[0]};
  (*base.FindKernel(kRef))(ctx, BaseAttrs(p), std::span<const NDArray>(v.data(), nb), o);
  PostOpsRef(p, p.with_sum ? &v[nb] : nullptr, out[0]);
}

// ---- oneDNN with post-ops. ----
namespace dnn {

// The oneDNN backend (engine, streams, cache, Exec, scratch) and its conv-geometry helpers.
using namespace ::mxnet::backends::onednn;
using namespace ::mxnet::ops::onednn;
using Dir = Exec::Dir;

dnnl::algorithm EltwiseAlg(const std::string& t) {
  if (t == "relu") return dnnl::algorithm::eltwise_relu;
  if (t == "sigmoid") return dnnl::algorithm::eltwise_logistic;
  if (t == "tanh") return dnnl::algorithm::eltwise_tanh;
  return dnnl::algorithm::eltwise_soft_relu;
}

template <typename P>
dnnl::primitive_attr PostOpsAttr(const P& p) {
  dnnl::post_ops po;
  // clip: oneDNN's eltwise_clip, alpha = lower and beta = upper bound.
  if (p.act_type && *p.act_type == "clip")
    po.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, *p.act_min, *p.act_max);
  else if (p.act_type)
    po.append_eltwise(1.f, EltwiseAlg(*p.act_type), 0.f, 0.f);
  if (p.with_sum) po.append_sum(1.f);
  if (p.postsum_act_type) po.append_eltwise(1.f, EltwiseAlg(*p.postsum_act_type), 0.f, 0.f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(po);
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

template <typename P>
std::string PostOpsKey(const P& p) {
  // The bounds by their bits (exact).
  const std::string bounds = p.act_min ? StrCat("[", std::bit_cast<uint32_t>(*p.act_min), ",",
                                                std::bit_cast<uint32_t>(*p.act_max), "]")
                                       : std::string();
  return StrCat(p.act_type.value_or("-"), bounds, p.with_sum ? "+sum" : "",
                p.postsum_act_type ? "+" + *p.postsum_act_type : "");
}

std::shared_ptr<Exec> MakeConv(const ConvGeom& g, bool bias, const SgConvParam& p) {
  using namespace dnnl;
  dims strides, dilates, pad_l, pad_r, xd{g.N, g.CX}, yd{g.N, g.CY};
  for (int i = 0; i < g.nd; ++i) {
    strides.push_back(g.s[i]);
    dilates.push_back(g.d[i] - 1);
    pad_l.push_back(g.p[i]);
    pad_r.push_back(g.p[i]);
    xd.push_back(g.xs[i]);
    yd.push_back(g.ys[i]);
  }
  memory::desc x_any(xd, dt::f32, tag::any), y_any(yd, dt::f32, tag::any);
  memory::desc w_any(WeightDims(g), dt::f32, tag::any), b_md({g.CY}, dt::f32, tag::a);
  const memory::desc x_user = ActDesc(g.N, g.CX, g.xs, g.nd, g.channels_last);
  const memory::desc y_user = ActDesc(g.N, g.CY, g.ys, g.nd, g.channels_last);
  auto make_pd = [&](const memory::desc& x, const memory::desc& y) {
    auto desc =
        bias
            ? convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                        x, w_any, b_md, y, strides, dilates, pad_l, pad_r)
            : convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                        x, w_any, y, strides, dilates, pad_l, pad_r);
    return convolution_forward::primitive_desc(desc, PostOpsAttr(p), Engine());
  };
  // Channels-last activations (OneDnnLayoutPass's chains): oneDNN's jit kernels for NHWC itself
  // when it has them (on AVX2 the default pick is nChw8c, i.e. two reorders per call), else
  // whatever layout it prefers, with reorders.
  std::optional<convolution_forward::primitive_desc> pd;
  if (g.channels_last) {
    try {
      pd = make_pd(x_user, y_user);
      const std::string_view impl = pd->impl_info_str();
      if (impl.find("jit") == std::string_view::npos || impl.find("gemm") != std::string_view::npos)
        pd.reset();
    } catch (const dnnl::error&) {
      pd.reset();
    }
  }
  if (!pd) pd = make_pd(x_any, y_any);
  auto e = std::make_shared<Exec>();
  e->prim = convolution_forward(*pd);
  e->scratchpad = pd->scratchpad_desc();
  e->Add(DNNL_ARG_SRC, x_user, pd->src_desc(), Dir::kIn);
  e->Add(DNNL_ARG_WEIGHTS, WeightDesc(g), pd->weights_desc(), Dir::kIn);
  if (bias) e->Add(DNNL_ARG_BIAS, b_md, pd->bias_desc(), Dir::kIn);
  e->Add(DNNL_ARG_DST, y_user, pd->dst_desc(),
         p.with_sum ? Dir::kInOut : Dir::kOut);  // the sum post-op reads dst
  return e;
}

std::shared_ptr<Exec> MakeFc(int64_t M, int64_t K, int64_t H, bool bias, const SgFcParam& p) {
  using namespace dnnl;
  memory::desc x_md({M, K}, dt::f32, tag::ab), w_md({H, K}, dt::f32, tag::ab);
  memory::desc y_md({M, H}, dt::f32, tag::ab), b_md({H}, dt::f32, tag::a);
  auto desc =
      bias ? inner_product_forward::desc(prop_kind::forward_inference, x_md, w_md, b_md, y_md)
           : inner_product_forward::desc(prop_kind::forward_inference, x_md, w_md, y_md);
  inner_product_forward::primitive_desc pd(desc, PostOpsAttr(p), Engine());
  auto e = std::make_shared<Exec>();
  e->prim = inner_product_forward(pd);
  e->scratchpad = pd.scratchpad_desc();
  e->Add(DNNL_ARG_SRC, x_md, pd.src_desc(), Dir::kIn);
  e->Add(DNNL_ARG_WEIGHTS, w_md, pd.weights_desc(), Dir::kIn);
  if (bias) e->Add(DNNL_ARG_BIAS, b_md, pd.bias_desc(), Dir::kIn);
  e->Add(DNNL_ARG_DST, y_md, pd.dst_desc(), p.with_sum ? Dir::kInOut : Dir::kOut);
  return e;
}

// Puts the sum operand into the output buffer (nothing to do when the plan made them share it).
void PrepareSum(const NDArray& sum, const NDArray& out) {
  if (sum.data_ptr() == out.data_ptr()) return;
  if (sum.shares_storage(out)) {
    NDArray tmp = sum.copy();
    std::memcpy(out.data_ptr(), tmp.data_ptr(), out.nbytes());
    return;
  }
  std::memcpy(out.data_ptr(), sum.data_ptr(), out.nbytes());
}

}  // namespace dnn

bool FusedSupports(std::span<const NDArray> in) {
  for (const auto& a : in)
    if (a.dtype() != DType::kFloat32 || a.size() == 0 || a.device().type != DeviceType::kCPU)
      return false;
  return true;
}

// Inputs other than the sum that alias the output would be overwritten by PrepareSum.
bool NoOtherAliasing(std::span<const NDArray> in, int nb, const NDArray& out) {
  for (int i = 0; i < nb; ++i)
    if (in[i].shares_storage(out)) return false;
  return true;
}

void SgConvDnnl(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<SgConvParam>();
  const int nb = BaseInputs(p);
  ConvGeom g = ConvGeomFromConv(kConvOp, p, in[0].shape());
  const bool bias = !p.no_bias;
  const backends::CacheKey key =
      dnn::WithGeom(backends::CacheKey("sgconv")(bias, dnn::PostOpsKey(p)), g);
  auto e = NoOtherAliasing(in, nb, out[0])
               ? dnn::GetOrNull<dnn::Exec>(key, [&] { return dnn::MakeConv(g, bias, p); })
               : nullptr;
  if (!e) return FusedRef<SgConvParam>(ctx, attrs, in, out);
  std::shared_ptr<const dnnl::memory> w =
      p.const_weight ? dnn::ReorderedConstant(key, *e, DNNL_ARG_WEIGHTS, in[1].storage(),
                                              in[1].storage_offset(), in[1].data_ptr())
                     : nullptr;
  std::unordered_map<int, dnnl::memory> given;  // the weight already in the primitive's layout
  if (w) given.emplace(DNNL_ARG_WEIGHTS, *w);
  if (p.with_sum) dnn::PrepareSum(in[nb], out[0]);
  if (bias)
    e->Run({in[0].data_ptr(), in[1].data_ptr(), in[2].data_ptr(), out[0].data_ptr()}, given);
  else
    e->Run({in[0].data_ptr(), in[1].data_ptr(), out[0].data_ptr()}, given);
}

void SgFcDnnl(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
              std::span<const NDArray> out) {
  const auto& p = attrs.get<SgFcParam>();
  const int nb = BaseInputs(p);
  const Shape& d = in[0].shape();
  int64_t M = 1, K = 1;
  const int n = d.ndim();
  if (p.flatten) {
    M = d[0];
    for (int i = 1; i < n; ++i) K *= d[i];
  } else {
    for (int i = 0; i + 1 < n; ++i) M *= d[i];
    K = d[n - 1];
  }
  const int64_t H = p.num_hidden;
  const bool bias = !p.no_bias;
  auto e =
      NoOtherAliasing(in, nb, out[0]) && M > 0
          ? dnn::GetOrNull<dnn::Exec>(backends::CacheKey("sgfc")(bias, dnn::PostOpsKey(p), M, K, H),
                                      [&] { return dnn::MakeFc(M, K, H, bias, p); })
          : nullptr;
  if (!e) return FusedRef<SgFcParam>(ctx, attrs, in, out);
  if (p.with_sum) dnn::PrepareSum(in[nb], out[0]);
  if (bias)
    e->Run({in[0].data_ptr(), in[1].data_ptr(), in[2].data_ptr(), out[0].data_ptr()});
  else
    e->Run({in[0].data_ptr(), in[1].data_ptr(), out[0].data_ptr()});
}

MX_REGISTER_OP(_sg_onednn_conv)
    .describe(
        "Inference-only fused Convolution (graph pass OneDnnFusionPass): "
        "postsum_act(act(Convolution(data, weight, bias)) + sum), run by oneDNN with post-ops. "
        "Attributes: Convolution's plus act_type, with_sum, postsum_act_type.")
    .set_params<SgConvParam>()
    .set_num_inputs(NumInputs<SgConvParam>)
    .set_input_names(InputNames<SgConvParam>)
    .set_infer_shape(FusedShape<SgConvParam>(kConvOp))
    .add_inplace(3, 0)
    .set_kernel(kRef, FusedRef<SgConvParam>)
    .set_kernel(kOpt, SgConvDnnl,
                [](const OpAttrs&, std::span<const NDArray> in) { return FusedSupports(in); })
    .set_non_differentiable();

MX_REGISTER_OP(_sg_onednn_fully_connected)
    .describe(
        "Inference-only fused FullyConnected (graph pass OneDnnFusionPass): "
        "postsum_act(act(FullyConnected(data, weight, bias)) + sum), run by oneDNN with post-ops. "
        "Attributes: FullyConnected's plus act_type, with_sum, postsum_act_type.")
    .set_params<SgFcParam>()
    .set_num_inputs(NumInputs<SgFcParam>)
    .set_input_names(InputNames<SgFcParam>)
    .set_infer_shape(FusedShape<SgFcParam>(kFcOp))
    .add_inplace(3, 0)
    .set_kernel(kRef, FusedRef<SgFcParam>)
    .set_kernel(kOpt, SgFcDnnl,
                [](const OpAttrs&, std::span<const NDArray> in) { return FusedSupports(in); })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
