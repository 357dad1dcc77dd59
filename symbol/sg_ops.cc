// MXNet 1.9.1's oneDNN fused subgraph operators, as written by sym.optimize_for('MKLDNN') /
// HybridBlock.optimize_for(x, backend='MKLDNN') and found in exported graphs
// (src/operator/subgraph/mkldnn/mkldnn_conv*.cc, mkldnn_fc*.cc):
//
//  _sg_mkldnn_conv: Convolution [+ BatchNorm] [+ Activation/relu] [+ elemwise_add (sum)]
//    [+ post-sum activation]. Attributes with_bn, with_act, with_sum, with_postsum_act,
//    dedup_sum (booleans, default false), quantized (default false), min_calib_range /
//    max_calib_range (float or None). Inputs: the subgraph's inputs in its list_inputs() order
//    (data, weight, [bias], [gamma, beta, moving_mean, moving_var], [sum operand]); 1 output.
//  _sg_mkldnn_fully_connected: FullyConnected [+ elementwise activation]. Attributes quantized,
//    enable_float_output, with_eltwise, channel_wise_quantize (booleans, default false),
//    min_calib_range / max_calib_range. Inputs: the subgraph's (data, weight, [bias]); 1 output.
//  _sg_mkldnn_selfatt_qk / _sg_mkldnn_selfatt_valatt: one _contrib_interleaved_matmul_selfatt_qk
//    / _valatt (ndarray/ops/contrib/nn_contrib_attention.cc). Attributes heads (int, required),
//    quantized, enable_float_output (default false), min/max_calib_range. Inputs:
//    queries_keys_values [, attention]; 1 output.
//
// The node's "subgraphs" (one graph: the original float ops) hold the semantics; the CPU kernel
// runs that subgraph with a CachedOp in inference mode (BatchNorm uses its moving statistics),
// which is what the fused oneDNN primitive computes. Inference only: the ops are
// non-differentiable (MXNet registers no gradient for them).
//
// Quantized nodes (quantized=True, from mx.contrib.quantization.quantize_net): the int8/uint8
// inputs (conv: data [and the sum operand]; FC: data, weight, bias) are followed by float32 (1,)
// min/max inputs; they are dequantized (_contrib_dequantize), the float subgraph runs, and the
// result is requantized with the calibrated range like MXNet does: outputs (q, min_calib_range,
// max_calib_range), q = sat(rne(y * R / max(|min|, |max|))), uint8 (R = 255) after a fused
// final activation, else int8 (R = 127); FC with enable_float_output returns the float result.
// Quantized _sg_mkldnn_conv nodes whose subgraph is Convolution [+ BatchNorm] [+ relu]
// [+ elemwise_add] [+ relu] (2-D, NCHW, one group) run in int8 like MXNet's: BatchNorm folded
// into the weights, int8 weights per output channel, one oneDNN int8 convolution
// (_contrib_quantized_conv), then one pass for scale, bias, sum, relu and requantization
// (FastQuantizedConv). Other nodes (and all with MXNET_SG_INT8_EMULATE=1) emulate oneDNN's int8
// arithmetic in float. Results differ from MXNet's by a few quantization steps (sg_ops_test.cc
// states the measured bounds). Not supported (kUnimplemented when the node is loaded): quantized
// attention ops, quantized nodes without calib ranges (int32 output), channel_wise_quantize FC.
// Errors (kInvalidArgument): a node without exactly one subgraph, or whose input count differs
// from its subgraph's (plus the min/max inputs), or a subgraph with other than one output.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>

#include "base/strings.h"
#include "symbol/control_flow.h"
#include "symbol/executor.h"
#include "symbol/graph.h"

namespace mxnet::sym {
namespace {

struct SgConvParam {
  bool with_bn = false, with_act = false, with_sum = false, with_postsum_act = false;
  bool dedup_sum = false, quantized = false;
  std::optional<float> min_calib_range, max_calib_range;
  std::shared_ptr<const Subgraphs> subgraphs;
  template <class D>
  static void Declare(D& d) {
    d.field("with_bn", &SgConvParam::with_bn).describe("BatchNorm fused.");
    d.field("with_act", &SgConvParam::with_act).describe("Activation fused.");
    d.field("with_sum", &SgConvParam::with_sum).describe("Sum fused.");
    d.field("with_postsum_act", &SgConvParam::with_postsum_act)
        .describe("Activation after the sum fused.");
    d.field("dedup_sum", &SgConvParam::dedup_sum).describe("The sum operand is the data input.");
    d.field("quantized", &SgConvParam::quantized).describe("int8 node.");
    d.field("min_calib_range", &SgConvParam::min_calib_range)
        .describe("Calibrated output minimum (quantized).");
    d.field("max_calib_range", &SgConvParam::max_calib_range)
        .describe("Calibrated output maximum (quantized).");
  }
};

struct SgFCParam {
  bool quantized = false, enable_float_output = false, with_eltwise = false;
  bool channel_wise_quantize = false;
  std::optional<float> min_calib_range, max_calib_range;
  std::shared_ptr<const Subgraphs> subgraphs;
  template <class D>
  static void Declare(D& d) {
    d.field("quantized", &SgFCParam::quantized).describe("int8 node.");
    d.field("enable_float_output", &SgFCParam::enable_float_output)
        .describe("Quantized node with a float output.");
    d.field("with_eltwise", &SgFCParam::with_eltwise).describe("Elementwise activation fused.");
    d.field("channel_wise_quantize", &SgFCParam::channel_wise_quantize)
        .describe("Per-channel weight scales (quantized).");
    d.field("min_calib_range", &SgFCParam::min_calib_range)
        .describe("Calibrated output minimum (quantized).");
    d.field("max_calib_range", &SgFCParam::max_calib_range)
        .describe("Calibrated output maximum (quantized).");
  }
};

// _sg_mkldnn_selfatt_qk / _sg_mkldnn_selfatt_valatt attributes (MXNet MKLDNNSelfAttParam).
struct SgSelfAttParam {
  int heads = 1;
  bool quantized = false, enable_float_output = false;
  std::optional<float> min_calib_range, max_calib_range;
  std::shared_ptr<const Subgraphs> subgraphs;
  template <class D>
  static void Declare(D& d) {
    d.field("heads", &SgSelfAttParam::heads).required().describe("Number of attention heads.");
    d.field("quantized", &SgSelfAttParam::quantized).describe("int8 node.");
    d.field("enable_float_output", &SgSelfAttParam::enable_float_output)
        .describe("Quantized node with a float output.");
    d.field("min_calib_range", &SgSelfAttParam::min_calib_range)
        .describe("Calibrated output minimum (quantized).");
    d.field("max_calib_range", &SgSelfAttParam::max_calib_range)
        .describe("Calibrated output maximum (quantized).");
  }
};

template <typename P>
const Subgraphs& Need(const OpAttrs& a, std::string_view op) {
  const auto& s = a.get<P>().subgraphs;
  if (!s)
    MX_THROW(absl::StatusCode::kFailedPrecondition, op,
             ": the node has no subgraph (load it from MXNet's symbol JSON)");
  return *s;
}

CachedOp& RuntimeOf(const Subgraphs& s) {
  std::lock_guard<std::mutex> l(s.mu);
  if (!s.runtime) s.runtime = std::make_shared<CachedOp>(s.graphs[0]);
  return *static_cast<CachedOp*>(s.runtime.get());
}

// ---- Quantized nodes (quantized=True). Node inputs: the subgraph's nin inputs, then a float32
// (1,) min/max pair for each int8/uint8 one (conv: data [, sum operand]; FC: every input, whose
// weight and bias are int8 params). Outputs: (q int8/uint8, min, max), or one float32 output
// for FC with enable_float_output. ----
int SubgraphInputs(const OpAttrs& a, const std::shared_ptr<const Subgraphs>& s, int guess) {
  return s ? static_cast<int>(s->input_names[0].size()) : guess;
}
std::vector<int> QuantizedInputs(const SgConvParam& p, int nin) {
  if (!p.quantized) return {};
  if (p.with_sum) return {0, nin - 1};
  return {0};
}
std::vector<int> QuantizedInputs(const SgFCParam& p, int nin) {
  std::vector<int> q;
  for (int i = 0; p.quantized && i < nin; ++i) q.push_back(i);
  return q;
}
std::vector<int> QuantizedInputs(const SgSelfAttParam&, int) { return {}; }
int Guess(const SgConvParam& p) {
  return 3 + (p.with_bn ? 4 : 0) + (p.with_sum && !p.dedup_sum ? 1 : 0);
}
int Guess(const SgFCParam&) { return 3; }
bool FloatOutput(const SgConvParam& p) { return !p.quantized; }
bool FloatOutput(const SgFCParam& p) { return !p.quantized || p.enable_float_output; }
bool FloatOutput(const SgSelfAttParam&) { return true; }
// MXNet: uint8 after a fused relu-type activation that ends the node, else int8.
DType QuantizedOutType(const SgConvParam& p) {
  return (p.with_act && !p.with_sum) || p.with_postsum_act ? DType::kUint8 : DType::kInt8;
}
// (FC without enable_float_output: not covered by the reference exports.)
DType QuantizedOutType(const SgFCParam& p) { return p.with_eltwise ? DType::kUint8 : DType::kInt8; }
DType QuantizedOutType(const SgSelfAttParam&) { return DType::kInt8; }
// Quantized inputs with a fixed dtype (MXNet's FC: int8 weight and bias params); -1: the
// producer's (int8 or uint8 data).
int QuantizedInType(const SgConvParam&, int) { return -1; }
int QuantizedInType(const SgFCParam&, int k) { return k > 0 ? static_cast<int>(DType::kInt8) : -1; }
int QuantizedInType(const SgSelfAttParam&, int) { return -1; }

template <typename P>
int NumSubInputs(const OpAttrs& a) {
  const P& p = a.get<P>();
  return SubgraphInputs(a, p.subgraphs, Guess(p));
}
template <typename P>
int NumInputsOf(const OpAttrs& a) {
  const int nin = NumSubInputs<P>(a);
  return nin + 2 * static_cast<int>(QuantizedInputs(a.get<P>(), nin).size());
}
template <typename P>
int NumOutputsOf(const OpAttrs& a) {
  return FloatOutput(a.get<P>()) ? 1 : 3;
}

template <typename P>
std::vector<std::string> InputNamesOf(const OpAttrs& a) {
  const auto& s = a.get<P>().subgraphs;
  const int nin = NumSubInputs<P>(a);
  std::vector<std::string> out;
  for (int i = 0; i < nin; ++i) out.push_back(s ? s->input_names[0][i] : StrCat("arg", i));
  for (int q : QuantizedInputs(a.get<P>(), nin)) {
    out.push_back(StrCat("min_", out[q]));
    out.push_back(StrCat("max_", out[q]));
  }
  return out;
}

// Shapes or dtype flags through the subgraph, both ways: the first nin node inputs and output 0
// are the subgraph's; quantized ones (dtype) and the min/max extras are not.
void MergeAny(Shape* into, const Shape& from, std::string_view what) {
  MergeShape(into, from, what);
}
void MergeAny(int* into, int from, std::string_view what) { MergeType(into, from, what); }
void InferAll(const IndexedGraph& g, std::vector<Shape>* v) { InferShapes(g, v); }
void InferAll(const IndexedGraph& g, std::vector<int>* v) { InferTypes(g, v); }
Shape Scalar1(const Shape&) { return Shape{1}; }
int Scalar1(int) { return static_cast<int>(DType::kFloat32); }

template <typename P, typename T, typename V>
void SubgraphInfer(const OpAttrs& a, V* in, V* out, std::string_view op, T unknown) {
  const P& p = a.get<P>();
  const Subgraphs& s = Need<P>(a, op);
  constexpr bool kTypes = std::is_same_v<T, int>;
  const int nin = static_cast<int>(s.input_names[0].size());
  const std::vector<int> quant = QuantizedInputs(p, nin);
  auto is_q = [&](int k) { return std::find(quant.begin(), quant.end(), k) != quant.end(); };
  IndexedGraph g(s.graphs[0]);
  std::vector<T> v(g.num_entries, unknown);
  const std::string what = StrCat(op, " subgraph");
  const T f32 = Scalar1(unknown);
  for (int k = 0; k < nin; ++k) {
    T& slot = v[g.entry_start[g.input_nodes.at(k)]];
    if constexpr (kTypes) {
      if (is_q(k)) {  // dequantized to float32 before the subgraph
        slot = f32;
        continue;
      }
    }
    MergeAny(&slot, (*in)[k], what + " input");
  }
  const bool float_out = FloatOutput(p);
  if (!kTypes || float_out) MergeAny(&v[g.outputs.at(0)], (*out)[0], what + " output");
  try {
    InferAll(g, &v);
  } catch (const Error& e) {
    MX_THROW(e.code(), what, ": ", e.what());
  }
  for (int k = 0; k < nin; ++k) {
    if (!kTypes || !is_q(k)) {
      MergeAny(&(*in)[k], v[g.entry_start[g.input_nodes.at(k)]], StrCat(op, " input"));
    } else if constexpr (kTypes) {
      if (int t = QuantizedInType(p, k); t >= 0) MergeAny(&(*in)[k], t, StrCat(op, " input"));
    }
  }
  for (size_t k = nin; k < in->size(); ++k) MergeAny(&(*in)[k], f32, StrCat(op, " min/max input"));
  if constexpr (kTypes) {
    MergeAny(&(*out)[0], float_out ? v[g.outputs.at(0)] : static_cast<int>(QuantizedOutType(p)),
             StrCat(op, " output"));
  } else {
    MergeAny(&(*out)[0], v[g.outputs.at(0)], StrCat(op, " output"));
  }
  for (size_t k = 1; k < out->size(); ++k) MergeAny(&(*out)[k], f32, StrCat(op, " min/max output"));
}

// MXNet's requantization of the float result with the calibrated range:
// q = saturate(round(y * R / max(|min|, |max|))), R = 255 (uint8) or 127 (int8).
template <typename Q>
void Requantize(const NDArray& y, float lo, float hi, const NDArray& out) {
  const float range = std::is_same_v<Q, uint8_t> ? 255.f : 127.f;
  const float scale = range / std::max(std::abs(lo), std::abs(hi));
  const float qmin = std::is_same_v<Q, uint8_t> ? 0.f : -127.f;
  std::vector<float> v = y.ToVector<float>();
  std::vector<Q> q(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    q[i] = static_cast<Q>(std::clamp(std::nearbyint(v[i] * scale), qmin, range));
  out.SyncCopyFromCPU(q.data(), q.size() * sizeof(Q));
}

// MXNET_SG_INT8_EMULATE=1 forces the float emulation (tests compare the two paths).
bool FastPathDisabled() {
  const char* e = std::getenv("MXNET_SG_INT8_EMULATE");
  return e && *e && std::string_view(e) != "0";
}

// ---- int8 fast path of quantized _sg_mkldnn_conv: the subgraph Convolution [+ BatchNorm]
// [+ relu] [+ elemwise_add] [+ relu] (2-D, NCHW, no groups) runs as one oneDNN int8 convolution
// (_contrib_quantized_conv, int32 accumulators) on int8 weights quantized per output channel
// after folding BatchNorm (w' = w * gamma / sqrt(var + eps), MXNet's fused int8 node does the
// same), then one pass scales each channel back (acc * data_step / weight_scale_c), adds the
// folded bias and the dequantized sum operand, applies the relus and requantizes with the
// calibrated range. Other subgraphs take the float emulation below. ----
struct FastConvPlan {
  const Node* conv = nullptr;
  int w = -1, b = -1, gamma = -1, beta = -1, mean = -1, var = -1;
  double eps = 1e-3;
  bool fix_gamma = true, act = false, sum = false, postsum_act = false;
};

bool PyTrue(const AttrDict& d, const std::string& k, bool dflt) {
  auto it = d.find(k);
  if (it == d.end()) return dflt;
  return it->second == "True" || it->second == "true" || it->second == "1";
}

std::optional<FastConvPlan> PlanFastConv(const Subgraphs& s) {
  FastConvPlan f;
  const std::vector<std::string>& names = s.input_names[0];
  auto index = [&](const NodeEntry& e) {
    if (!e.node->is_variable()) return -1;
    auto it = std::find(names.begin(), names.end(), e.node->name);
    return it == names.end() ? -1 : static_cast<int>(it - names.begin());
  };
  const Node* last = nullptr;
  for (const auto& n : s.graphs[0].TopoNodes()) {
    if (n->is_variable()) continue;
    const std::string& op = n->op->name;
    if (op == "Convolution" && !f.conv) {
      auto k = n->params.find("kernel");
      auto l = n->params.find("layout");
      auto g = n->params.find("num_group");
      if (k == n->params.end() || std::count(k->second.begin(), k->second.end(), ',') != 1 ||
          (l != n->params.end() && l->second != "NCHW") ||
          (g != n->params.end() && g->second != "1") || index(n->inputs[0]) != 0)
        return std::nullopt;
      f.conv = n.get();
      f.w = index(n->inputs[1]);
      if (n->inputs.size() > 2) f.b = index(n->inputs[2]);
      if (f.w < 0 || (n->inputs.size() > 2 && f.b < 0)) return std::nullopt;
    } else if (op == "BatchNorm" && last == f.conv && f.conv) {
      if (n->inputs.size() != 5 || !(n->inputs[0].node.get() == last)) return std::nullopt;
      auto ax = n->params.find("axis");
      if (ax != n->params.end() && ax->second != "1") return std::nullopt;
      f.gamma = index(n->inputs[1]), f.beta = index(n->inputs[2]);
      f.mean = index(n->inputs[3]), f.var = index(n->inputs[4]);
      if (std::min({f.gamma, f.beta, f.mean, f.var}) < 0) return std::nullopt;
      auto e = n->params.find("eps");
      if (e != n->params.end()) f.eps = std::stod(e->second);
      f.fix_gamma = PyTrue(n->params, "fix_gamma", true);
    } else if (op == "Activation" && last && n->inputs[0].node.get() == last) {
      auto t = n->params.find("act_type");
      if (t == n->params.end() || t->second != "relu") return std::nullopt;
      (f.sum ? f.postsum_act : f.act) = true;
    } else if (op == "elemwise_add" && last && !f.sum && n->inputs[0].node.get() == last &&
               index(n->inputs[1]) == static_cast<int>(names.size()) - 1) {
      f.sum = true;
    } else {
      return std::nullopt;
    }
    last = n.get();
  }
  if (!f.conv) return std::nullopt;
  return f;
}

// Real value of one int8/uint8 step of a quantized input (_contrib_dequantize's scale).
float StepOf(const NDArray& q, const NDArray& lo, const NDArray& hi) {
  const float r = std::max(std::abs(lo.ToVector<float>()[0]), std::abs(hi.ToVector<float>()[0]));
  return r / (q.dtype() == DType::kUint8 ? 255.5f : 127.5f);
}

template <typename Q>
void FinishFastConv(const FastConvPlan& f, const int32_t* acc, const std::vector<float>& scale,
                    const std::vector<float>& bias, const NDArray* sum, float sum_step,
                    float out_scale, const NDArray& out, int64_t n, int64_t c, int64_t hw) {
  const float range = std::is_same_v<Q, uint8_t> ? 255.f : 127.f;
  const float qmin = std::is_same_v<Q, uint8_t> ? 0.f : -127.f;
  Q* y = out.data<Q>();
  const uint8_t* su = sum && sum->dtype() == DType::kUint8 ? sum->data<uint8_t>() : nullptr;
  const int8_t* ss = sum && sum->dtype() == DType::kInt8 ? sum->data<int8_t>() : nullptr;
#pragma omp parallel for schedule(static)
  for (int64_t nc = 0; nc < n * c; ++nc) {
    const int64_t ch = nc % c;
    const float sc = scale[ch], b = bias[ch];
    for (int64_t i = nc * hw, e = i + hw; i < e; ++i) {
      float v = static_cast<float>(acc[i]) * sc + b;
      if (f.act) v = std::max(v, 0.f);
      if (su) v += static_cast<float>(su[i]) * sum_step;
      if (ss) v += static_cast<float>(ss[i]) * sum_step;
      if (f.postsum_act) v = std::max(v, 0.f);
      y[i] = static_cast<Q>(std::clamp(std::nearbyint(v * out_scale), qmin, range));
    }
  }
}

// The int8 weights of one fused conv: BatchNorm folded into w and the bias, per-channel
// scales (w_q = rne(w' * 127 / max|w'_c|), inv_scale = max|w'_c| / 127). Cached by the
// parameters' buffers and contents (a 64-bit hash per array, one pass over the weights per call
// instead of quantizing them again); at most 1024 entries, least recently used dropped.
struct QuantizedWeights {
  NDArray w;
  std::vector<float> inv_scale, bias;
};

uint64_t ContentHash(const NDArray& a) {
  const auto* p = static_cast<const uint64_t*>(a.data_ptr());
  const int64_t words = static_cast<int64_t>(a.size() * DTypeSize(a.dtype())) / 8;
  uint64_t h = 0;
#pragma omp parallel for reduction(+ : h) schedule(static) if (words > (1 << 16))
  for (int64_t i = 0; i < words; ++i) h += (p[i] + 0x9e3779b97f4a7c15ull) * (2 * i + 1);
  const auto* tail = static_cast<const uint8_t*>(a.data_ptr()) + words * 8;
  for (size_t i = 0; i < a.size() * DTypeSize(a.dtype()) - words * 8; ++i) h = h * 131 + tail[i];
  return h;
}

std::shared_ptr<const QuantizedWeights> QuantizeWeights(const FastConvPlan& f,
                                                        std::span<const NDArray> in) {
  std::vector<uint64_t> key{static_cast<uint64_t>(f.fix_gamma), std::bit_cast<uint64_t>(f.eps)};
  for (int k : {f.w, f.b, f.gamma, f.beta, f.mean, f.var}) {
    if (k < 0) {
      key.insert(key.end(), {0, 0, 0});
      continue;
    }
    key.push_back(reinterpret_cast<uintptr_t>(in[k].data_ptr()));
    key.push_back(in[k].size());
    key.push_back(ContentHash(in[k]));
  }
  static std::mutex mu;
  static std::list<std::pair<std::vector<uint64_t>, std::shared_ptr<const QuantizedWeights>>> lru;
  {
    std::lock_guard<std::mutex> l(mu);
    for (auto it = lru.begin(); it != lru.end(); ++it)
      if (it->first == key) {
        lru.splice(lru.begin(), lru, it);
        return lru.front().second;
      }
  }
  const NDArray& w = in[f.w];
  const int64_t oc = w.shape()[0], per = w.size() / std::max<int64_t>(oc, 1);
  const float* wv = w.data<float>();
  std::vector<float> a(oc, 1.f), b(oc, 0.f);
  if (f.b >= 0) b = in[f.b].ToVector<float>();
  if (f.gamma >= 0) {
    std::vector<float> g = in[f.gamma].ToVector<float>(), be = in[f.beta].ToVector<float>();
    std::vector<float> m = in[f.mean].ToVector<float>(), v = in[f.var].ToVector<float>();
    for (int64_t c = 0; c < oc; ++c) {
      a[c] = static_cast<float>((f.fix_gamma ? 1.0 : g[c]) / std::sqrt(v[c] + f.eps));
      b[c] = (b[c] - m[c]) * a[c] + be[c];
    }
  }
  auto q = std::make_shared<QuantizedWeights>();
  q->w = NDArray(w.shape(), cpu(), DType::kInt8);
  int8_t* wq = q->w.data<int8_t>();
  q->inv_scale.resize(oc);
  q->bias = std::move(b);
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < oc; ++c) {
    float mx = 0;
    for (int64_t i = c * per; i < (c + 1) * per; ++i) mx = std::max(mx, std::abs(wv[i] * a[c]));
    const float ws = mx > 0 ? 127.f / mx : 1.f;
    for (int64_t i = c * per; i < (c + 1) * per; ++i)
      wq[i] = static_cast<int8_t>(std::clamp(std::nearbyint(wv[i] * a[c] * ws), -127.f, 127.f));
    q->inv_scale[c] = 1.f / ws;
  }
  std::lock_guard<std::mutex> l(mu);
  lru.emplace_front(std::move(key), q);
  if (lru.size() > 1024) lru.pop_back();
  return q;
}

bool FastQuantizedConv(const SgConvParam& p, const Subgraphs& s, std::span<const NDArray> in,
                       std::span<const NDArray> out) {
  // Planned per call: a walk over the handful of subgraph nodes.
  const std::optional<FastConvPlan> plan = PlanFastConv(s);
  if (!plan || p.with_sum != plan->sum || !in[0].device().is_cpu()) return false;
  const FastConvPlan& f = *plan;
  const int nin = static_cast<int>(s.input_names[0].size());
  const NDArray& x = in[0];
  if (x.shape().ndim() != 4 || (x.dtype() != DType::kUint8 && x.dtype() != DType::kInt8))
    return false;
  const NDArray& w = in[f.w];
  if (w.dtype() != DType::kFloat32 || w.shape().ndim() != 4 || !w.device().is_cpu()) return false;
  for (int k : {f.b, f.gamma, f.beta, f.mean, f.var})
    if (k >= 0 && (in[k].dtype() != DType::kFloat32 || !in[k].device().is_cpu())) return false;
  std::shared_ptr<const QuantizedWeights> qw = QuantizeWeights(f, in);
  const float step = StepOf(x, in[nin], in[nin + 1]);
  const int64_t oc = w.shape()[0];
  std::vector<float> scale(oc);
  for (int64_t c = 0; c < oc; ++c) scale[c] = step * qw->inv_scale[c];
  const std::vector<float>& b = qw->bias;
  const NDArray& wq_arr = qw->w;
  AttrDict attrs = f.conv->params;
  attrs["no_bias"] = "True";
  attrs.erase("cudnn_tune");
  attrs.erase("cudnn_off");
  attrs.erase("workspace");
  NDArray r = NDArray::FromVector(std::vector<float>{-127.f}, Shape{1});
  NDArray rr = NDArray::FromVector(std::vector<float>{127.f}, Shape{1});
  NDArrayVec acc = Invoke("_contrib_quantized_conv",
                          std::vector<NDArray>{x, wq_arr, in[nin], in[nin + 1], r, rr}, attrs);
  const Shape ys = acc[0].shape();
  if (ys.ndim() != 4 || ys[1] != oc) return false;
  const NDArray* sum = nullptr;
  float sum_step = 0;
  NDArray sum_arr;
  if (f.sum) {
    sum_arr = in[nin - 1];
    if (sum_arr.shape() != ys) return false;
    sum = &sum_arr;
    sum_step = StepOf(sum_arr, in[nin + 2], in[nin + 3]);
  }
  const float lo = *p.min_calib_range, hi = *p.max_calib_range;
  const bool u8 = QuantizedOutType(p) == DType::kUint8;
  const float out_scale = (u8 ? 255.f : 127.f) / std::max(std::abs(lo), std::abs(hi));
  if (u8)
    FinishFastConv<uint8_t>(f, acc[0].data<int32_t>(), scale, b, sum, sum_step, out_scale, out[0],
                            ys[0], ys[1], ys[2] * ys[3]);
  else
    FinishFastConv<int8_t>(f, acc[0].data<int32_t>(), scale, b, sum, sum_step, out_scale, out[0],
                           ys[0], ys[1], ys[2] * ys[3]);
  out[1].Fill(lo);
  out[2].Fill(hi);
  return true;
}

template <typename P>
void SubgraphForward(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  QuietDispatchScope quiet;
  const P& p = a.get<P>();
  const Subgraphs& s = Need<P>(a, "_sg_mkldnn");
  if constexpr (std::is_same_v<P, SgConvParam>) {
    if (p.quantized && !FastPathDisabled() && FastQuantizedConv(p, s, in, out)) return;
  }
  const int nin = static_cast<int>(s.input_names[0].size());
  std::vector<NDArray> x(in.begin(), in.begin() + nin);
  const std::vector<int> quant = QuantizedInputs(p, nin);
  for (size_t j = 0; j < quant.size(); ++j)
    x[quant[j]] = Invoke("_contrib_dequantize", std::vector<NDArray>{in[quant[j]], in[nin + 2 * j],
                                                                     in[nin + 2 * j + 1]})[0];
  // Inference mode always: the fused ops exist for inference (BatchNorm's moving statistics).
  NDArrayVec y = RuntimeOf(s).Forward(x, /*is_train=*/false);
  if (FloatOutput(p)) {
    y[0].copyto(out[0]);
    return;
  }
  const float lo = *p.min_calib_range, hi = *p.max_calib_range;
  NDArray yc = y[0].as_in_context(cpu());
  if (QuantizedOutType(p) == DType::kUint8)
    Requantize<uint8_t>(yc, lo, hi, out[0]);
  else
    Requantize<int8_t>(yc, lo, hi, out[0]);
  out[1].Fill(lo);
  out[2].Fill(hi);
}

template <typename P>
absl::Status Attach(Node* n, std::vector<Symbol> graphs) {
  const std::string& op = n->op->name;
  auto bad = [&](std::string_view msg) {
    return absl::InvalidArgumentError(StrCat("node '", n->name, "' (", op, "): ", msg));
  };
  auto unsupported = [&](std::string_view msg) {
    return absl::UnimplementedError(StrCat("node '", n->name, "' (", op, "): ", msg));
  };
  P p = n->attrs.get<P>();
  if (p.quantized) {
    if (std::is_same_v<P, SgSelfAttParam>)
      return unsupported("quantized=True is not supported for the attention ops");
    if (!FloatOutput(p) && !(p.min_calib_range && p.max_calib_range))
      return unsupported(
          "quantized=True without min/max_calib_range (int32 output) is not "
          "supported");
    if constexpr (std::is_same_v<P, SgFCParam>)
      if (p.channel_wise_quantize)
        return unsupported("channel_wise_quantize=True is not supported");
    if constexpr (std::is_same_v<P, SgConvParam>)
      if (p.dedup_sum) return unsupported("quantized dedup_sum=True is not supported");
  }
  if (graphs.size() != 1) return bad(StrCat("needs exactly 1 subgraph, got ", graphs.size()));
  const size_t nin = graphs[0].list_inputs().size();
  if (graphs[0].num_outputs() != 1)
    return bad(StrCat("the subgraph has ", graphs[0].num_outputs(), " outputs, expected 1"));
  const size_t want = nin + 2 * QuantizedInputs(p, static_cast<int>(nin)).size();
  if (n->inputs.size() != want)
    return bad(StrCat("the node has ", n->inputs.size(), " inputs but its subgraph has ", nin, " (",
                      StrJoin(graphs[0].list_inputs(), ", "), ")",
                      want != nin ? StrCat(" plus ", want - nin, " min/max inputs") : ""));
  auto s = std::make_shared<Subgraphs>();
  s->input_names.push_back(graphs[0].list_inputs());
  s->graphs = std::move(graphs);
  p.subgraphs = std::move(s);
  n->attrs = OpAttrs::From(*n->op, std::move(p));
  return absl::OkStatus();
}

template <typename P>
void RegisterHooks(const char* name) {
  RegisterSubgraphOp(name, SubgraphOpHooks{
                               .get = [](const Node& n) -> const Subgraphs* {
                                 return n.attrs.get<P>().subgraphs.get();
                               },
                               .attach = Attach<P>,
                           });
}

constexpr KernelKey kCpu{DeviceType::kCPU, Backend::kReference};

struct Registrar {
  Registrar() {
    RegisterHooks<SgConvParam>("_sg_mkldnn_conv");
    RegisterHooks<SgFCParam>("_sg_mkldnn_fully_connected");
    RegisterHooks<SgSelfAttParam>("_sg_mkldnn_selfatt_qk");
    RegisterHooks<SgSelfAttParam>("_sg_mkldnn_selfatt_valatt");
  }
} registrar;

}  // namespace

MX_REGISTER_OP(_sg_mkldnn_conv)
    .describe(
        "MXNet's oneDNN fused convolution (optimize_for('MKLDNN')): Convolution [+ BatchNorm] "
        "[+ relu] [+ sum] [+ post-sum relu], computed by running its subgraph in inference "
        "mode. Inputs: the subgraph's, in its list_inputs() order; 1 output. quantized=True: "
        "int8/uint8 data [and sum] with min/max inputs; outputs (q, min, max).")
    .set_params<SgConvParam>()
    .set_num_inputs(NumInputsOf<SgConvParam>)
    .set_input_names(InputNamesOf<SgConvParam>)
    .set_num_outputs(NumOutputsOf<SgConvParam>)
    .set_output_names({"output", "output_min", "output_max"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      SubgraphInfer<SgConvParam>(a, in, out, "_sg_mkldnn_conv", Shape::Unknown());
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      SubgraphInfer<SgConvParam>(a, in, out, "_sg_mkldnn_conv", -1);
    })
    .set_kernel(kCpu, SubgraphForward<SgConvParam>)
    .set_non_differentiable();

MX_REGISTER_OP(_sg_mkldnn_fully_connected)
    .describe(
        "MXNet's oneDNN fused fully connected layer (optimize_for('MKLDNN')): FullyConnected "
        "[+ elementwise activation], computed by running its subgraph. Inputs: the subgraph's "
        "(data, weight, [bias]); 1 output. quantized=True: int8 inputs with min/max inputs; "
        "outputs (q, min, max), or the float result with enable_float_output.")
    .set_params<SgFCParam>()
    .set_num_inputs(NumInputsOf<SgFCParam>)
    .set_input_names(InputNamesOf<SgFCParam>)
    .set_num_outputs(NumOutputsOf<SgFCParam>)
    .set_output_names({"output", "output_min", "output_max"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      SubgraphInfer<SgFCParam>(a, in, out, "_sg_mkldnn_fully_connected", Shape::Unknown());
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      SubgraphInfer<SgFCParam>(a, in, out, "_sg_mkldnn_fully_connected", -1);
    })
    .set_kernel(kCpu, SubgraphForward<SgFCParam>)
    .set_non_differentiable();

MX_REGISTER_OP(_sg_mkldnn_selfatt_qk)
    .describe(
        "MXNet's oneDNN fused interleaved self-attention scores (optimize_for('MKLDNN')): the "
        "subgraph _contrib_interleaved_matmul_selfatt_qk(queries_keys_values (seq, batch, "
        "3 * heads * dim), heads) -> (batch * heads, seq, seq). Float only.")
    .set_params<SgSelfAttParam>()
    .set_num_inputs(1)
    .set_input_names({"queries_keys_values"})
    .set_num_outputs(1)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      SubgraphInfer<SgSelfAttParam>(a, in, out, "_sg_mkldnn_selfatt_qk", Shape::Unknown());
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      SubgraphInfer<SgSelfAttParam>(a, in, out, "_sg_mkldnn_selfatt_qk", -1);
    })
    .set_kernel(kCpu, SubgraphForward<SgSelfAttParam>)
    .set_non_differentiable();

MX_REGISTER_OP(_sg_mkldnn_selfatt_valatt)
    .describe(
        "MXNet's oneDNN fused interleaved self-attention output (optimize_for('MKLDNN')): the "
        "subgraph _contrib_interleaved_matmul_selfatt_valatt(queries_keys_values (seq, batch, "
        "3 * heads * dim), attention (batch * heads, seq, seq), heads) -> (seq, batch, "
        "heads * dim). Float only.")
    .set_params<SgSelfAttParam>()
    .set_num_inputs(2)
    .set_input_names({"queries_keys_values", "attention"})
    .set_num_outputs(1)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      SubgraphInfer<SgSelfAttParam>(a, in, out, "_sg_mkldnn_selfatt_valatt", Shape::Unknown());
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      SubgraphInfer<SgSelfAttParam>(a, in, out, "_sg_mkldnn_selfatt_valatt", -1);
    })
    .set_kernel(kCpu, SubgraphForward<SgSelfAttParam>)
    .set_non_differentiable();

}  // namespace mxnet::sym
