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
//    / _valatt (ndarray/ops/nn_contrib_attention.cc). Attributes heads (int, required),
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
// This emulates oneDNN's int8 arithmetic in float (MXNet quantizes the folded weights to int8
// per channel): results differ from MXNet's by a few quantization steps (sg_ops_test.cc states
// the measured bounds). Not supported (kUnimplemented when the node is loaded): quantized
// attention ops, quantized nodes without calib ranges (int32 output), channel_wise_quantize FC.
// Errors (kInvalidArgument): a node without exactly one subgraph, or whose input count differs
// from its subgraph's (plus the min/max inputs), or a subgraph with other than one output.
#include <algorithm>
#include <cmath>
#include <memory>
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

template <typename P>
void SubgraphForward(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  QuietDispatchScope quiet;
  const P& p = a.get<P>();
  const Subgraphs& s = Need<P>(a, "_sg_mkldnn");
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
