// ONNX export: one handler per MXNet operator, writing ONNX nodes (opsets 13..17) into a
// GraphProto. Shapes and dtypes of every entry come from the graph's own inference, so
// attribute-only facts (Reshape's special codes, exclude axes, ranks) become plain ONNX values.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/strings.h"
#include "gluon/onnx/onnx.h"
#include "gluon/onnx/onnx_util.h"
#include "ndarray/ops/conv/conv_params.h"
#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/elemwise/elemwise_params.h"
#include "ndarray/ops/nn/nn_extra_params.h"
#include "ndarray/ops/nn/nn_params.h"
#include "ndarray/ops/reduce/reduce_params.h"
#include "ndarray/ops/shape/shape_params.h"
#include "symbol/graph.h"

namespace mxnet::gluon {
namespace {

using onnx_internal::OnnxType;
using onnx_internal::ToTensorProto;
using Ints = std::vector<int64_t>;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

[[noreturn]] void Fail(const sym::Node& n, const std::string& why) {
  MX_THROW(absl::StatusCode::kInvalidArgument, "ONNX export: node '", n.name, "' (", n.op->name,
           "): ", why);
}

class Exporter;
// Writes the ONNX nodes of `n`; `in`: ONNX names of its inputs; `out`: of its outputs.
using Handler =
    std::function<void(Exporter&, const sym::Node& n, const std::vector<std::string>& in,
                       const std::vector<std::string>& out)>;
std::map<std::string, Handler>& Handlers();

class Exporter {
 public:
  Exporter(::onnx::GraphProto* g, int opset) : g_(g), opset_(opset) {}

  int opset() const { return opset_; }
  // Shape/dtype of node input k and output k (from inference).
  const Shape& in_shape(int k) const { return (*shapes_)[ig_->EntryId(cur_->inputs[k])]; }
  const Shape& out_shape(int k) const { return (*shapes_)[ig_->EntryId(ig_->node_id.at(cur_), k)]; }
  DType in_type(int k) const {
    return static_cast<DType>((*types_)[ig_->EntryId(cur_->inputs[k])]);
  }
  DType out_type(int k) const {
    return static_cast<DType>((*types_)[ig_->EntryId(ig_->node_id.at(cur_), k)]);
  }
  int in_rank(int k) const { return in_shape(k).ndim(); }
  bool dynamic_batch() const { return dynamic_batch_; }

  std::string Tmp(const std::string& hint) { return StrCat(cur_->name, "__", hint, tmp_++); }

  ::onnx::NodeProto* Add(const std::string& op, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs) {
    ::onnx::NodeProto* p = g_->add_node();
    p->set_op_type(op);
    p->set_name(StrCat(cur_->name, "/", op, nodes_++));
    for (const auto& i : inputs) p->add_input(i);
    for (const auto& o : outputs) p->add_output(o);
    return p;
  }
  // A node with one fresh output; returns its name.
  std::string Op1(const std::string& op, const std::vector<std::string>& inputs,
                  const std::function<void(::onnx::NodeProto*)>& attrs = nullptr) {
    std::string o = Tmp(op);
    auto* p = Add(op, inputs, {o});
    if (attrs) attrs(p);
    return o;
  }

  // Constant initializers.
  std::string ConstInts(const Ints& v, const std::string& hint = "const") {
    NDArray a = NDArray::FromVector(v, Shape{static_cast<int64_t>(v.size())}, cpu(), DType::kInt64);
    return Const(a, hint);
  }
  std::string ConstScalar(double v, DType t, const std::string& hint = "scalar") {
    return Const(NDArray::FromVector(std::vector<double>{v}, Shape{}, cpu(), t), hint);
  }
  std::string Const(const NDArray& a, const std::string& hint) {
    std::string name = Tmp(hint);
    ToTensorProto(a, name, g_->add_initializer());
    return name;
  }

  void Run(const sym::Symbol& graph, const std::map<std::string, NDArray>& params,
           const std::vector<std::pair<std::string, Shape>>& inputs, bool dynamic_batch);

 private:
  ::onnx::GraphProto* g_;
  int opset_;
  bool dynamic_batch_ = true;
  const sym::IndexedGraph* ig_ = nullptr;
  const std::vector<Shape>* shapes_ = nullptr;
  const std::vector<int>* types_ = nullptr;
  const sym::Node* cur_ = nullptr;
  int tmp_ = 0, nodes_ = 0;
};

void SetInts(::onnx::NodeProto* p, const std::string& name, const Ints& v) {
  auto* a = p->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void SetInt(::onnx::NodeProto* p, const std::string& name, int64_t v) {
  auto* a = p->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}
void SetFloat(::onnx::NodeProto* p, const std::string& name, double v) {
  auto* a = p->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(static_cast<float>(v));
}
void SetString(::onnx::NodeProto* p, const std::string& name, const std::string& v) {
  auto* a = p->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(v);
}

Ints Filled(const Shape& s, int n, int64_t v) {
  if (s.ndim() <= 0) return Ints(n, v);
  return s.ToVector();
}
int NormAxis(int64_t axis, int rank) { return static_cast<int>(axis < 0 ? axis + rank : axis); }

void WriteValueInfo(::onnx::ValueInfoProto* v, const std::string& name, const Shape& s, DType t,
                    bool dynamic0) {
  v->set_name(name);
  auto type = OnnxType(t);
  MX_REQUIRE(type.has_value(), absl::StatusCode::kInvalidArgument, "ONNX export: ", name,
             " has dtype ", DTypeName(t), " which ONNX has no type for");
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(*type);
  auto* shape = tt->mutable_shape();
  for (int i = 0; i < s.ndim(); ++i) {
    auto* d = shape->add_dim();
    if (i == 0 && dynamic0)
      d->set_dim_param("N");
    else
      d->set_dim_value(s[i]);
  }
}

void Exporter::Run(const sym::Symbol& graph, const std::map<std::string, NDArray>& params,
                   const std::vector<std::pair<std::string, Shape>>& inputs, bool dynamic_batch) {
  dynamic_batch_ = dynamic_batch;
  sym::IndexedGraph ig(graph);
  ig_ = &ig;
  std::vector<Shape> shapes(ig.num_entries, Shape::Unknown());
  std::vector<int> types(ig.num_entries, -1);
  std::map<std::string, Shape> input_shape(inputs.begin(), inputs.end());
  std::set<std::string> seen_inputs;
  int64_t batch = -1;
  if (!inputs.empty() && inputs[0].second.ndim() > 0) batch = inputs[0].second[0];
  // Variables: data inputs (declared graph inputs) and parameters (initializers).
  for (int v : ig.input_nodes) {
    const sym::Node& n = *ig.nodes[v];
    const int e = ig.entry_start[v];
    if (auto it = input_shape.find(n.name); it != input_shape.end()) {
      shapes[e] = it->second;
      types[e] = static_cast<int>(DType::kFloat32);
      if (auto d = n.user_attrs.find("__dtype__"); d != n.user_attrs.end()) {
        int64_t flag;
        if (ParseInt64(d->second, &flag)) types[e] = static_cast<int>(flag);
      }
      seen_inputs.insert(n.name);
    } else if (auto p = params.find(n.name); p != params.end()) {
      shapes[e] = p->second.shape();
      types[e] = static_cast<int>(p->second.dtype());
    } else {
      MX_THROW(absl::StatusCode::kInvalidArgument, "ONNX export: graph variable '", n.name,
               "' is neither an input (",
               StrJoin(
                   [&] {
                     std::vector<std::string> k;
                     for (const auto& [name, _] : inputs) k.push_back(name);
                     return k;
                   }(),
                   ", "),
               ") nor a parameter");
    }
  }
  for (const auto& [name, _] : inputs)
    MX_REQUIRE(seen_inputs.count(name), absl::StatusCode::kInvalidArgument, "ONNX export: input '",
               name, "' is not a variable of the graph");
  sym::InferShapes(ig, &shapes);
  sym::InferTypes(ig, &types);
  shapes_ = &shapes;
  types_ = &types;

  // Declared inputs in the given order, then initializers for used parameters.
  for (const auto& [name, shape] : inputs) {
    int id = -1;
    for (int v : ig.input_nodes)
      if (ig.nodes[v]->name == name) id = v;
    WriteValueInfo(g_->add_input(), name, shape, static_cast<DType>(types[ig.entry_start[id]]),
                   dynamic_batch && shape.ndim() > 0);
  }
  for (int v : ig.input_nodes) {
    const sym::Node& n = *ig.nodes[v];
    if (input_shape.count(n.name)) continue;
    NDArray value = params.at(n.name);
    ToTensorProto(value, n.name, g_->add_initializer());
  }

  // Entry names: variables keep their names; op outputs are "<node>_output" (one visible
  // output) or "<node>_output<k>".
  std::vector<std::string> names(ig.num_entries);
  for (size_t i = 0; i < ig.nodes.size(); ++i) {
    const sym::Node& n = *ig.nodes[i];
    if (n.is_variable()) {
      names[ig.entry_start[i]] = n.name;
      continue;
    }
    int vis = n.num_visible_outputs();
    for (int k = 0; k < n.num_outputs(); ++k)
      names[ig.entry_start[i] + k] =
          vis == 1 && k == 0 ? n.name + "_output" : StrCat(n.name, "_output", k);
  }
  // Hidden outputs (BatchNorm's saved statistics, Dropout's mask) must not be used.
  for (size_t i = 0; i < ig.nodes.size(); ++i)
    for (const auto& e : ig.nodes[i]->inputs)
      if (!e.node->is_variable() && e.index >= e.node->num_visible_outputs())
        Fail(*e.node, StrCat("its hidden output ", e.index, " is used by node '", ig.nodes[i]->name,
                             "'; only visible outputs can be exported"));

  for (size_t i = 0; i < ig.nodes.size(); ++i) {
    const sym::Node& n = *ig.nodes[i];
    if (n.is_variable()) continue;
    cur_ = &n;
    std::vector<std::string> in, out;
    for (const auto& e : n.inputs) in.push_back(names[ig.EntryId(e)]);
    for (int k = 0; k < n.num_visible_outputs(); ++k) out.push_back(names[ig.entry_start[i] + k]);
    auto it = Handlers().find(n.op->name);
    if (it == Handlers().end()) {
      if (n.inputs.empty()) {  // a creation op (_zeros, _arange, ...): its value as a constant
        NDArrayVec v = Invoke(*n.op, n.attrs, {});
        for (size_t k = 0; k < out.size(); ++k) ToTensorProto(v[k], out[k], g_->add_initializer());
        continue;
      }
      Fail(n, StrCat("operator ", n.op->name,
                     " has no ONNX mapping (exportable operators: see "
                     "docs/onnx.md or gluon::onnx_exportable_ops())"));
    }
    for (int k = 0; k < static_cast<int>(n.inputs.size()); ++k)
      if (!in_shape(k).is_known()) Fail(n, StrCat("the shape of input ", k, " is unknown"));
    it->second(*this, n, in, out);
  }
  // Graph outputs (an output that is a variable gets an Identity: ONNX outputs are node outputs
  // or inputs, and an initializer is neither).
  std::set<std::string> done;
  for (size_t k = 0; k < graph.outputs().size(); ++k) {
    const sym::NodeEntry& e = graph.outputs()[k];
    std::string name = names[ig.EntryId(e)];
    if (done.count(name) || e.node->is_variable()) {
      std::string alias = StrCat(name, "_out", k);
      ::onnx::NodeProto* p = g_->add_node();
      p->set_op_type("Identity");
      p->set_name(alias);
      p->add_input(name);
      p->add_output(alias);
      name = alias;
    }
    done.insert(name);
    const Shape& s = shapes[ig.EntryId(e)];
    WriteValueInfo(g_->add_output(), name, s, static_cast<DType>(types[ig.EntryId(e)]),
                   dynamic_batch && s.ndim() > 0 && batch >= 0 && s[0] == batch);
  }
}

// ---------------------------------------------------------------------------------------------
// Handlers.

using NodeRef = const sym::Node&;
using Names = const std::vector<std::string>&;

Handler Unary(const std::string& op) {
  return [op](Exporter& x, NodeRef, Names in, Names out) { x.Add(op, {in[0]}, out); };
}
Handler Binary(const std::string& op) {
  return [op](Exporter& x, NodeRef, Names in, Names out) { x.Add(op, {in[0], in[1]}, out); };
}
// A comparison: ONNX gives bool, MXNet the input dtype (0/1).
Handler Compare(const std::string& op, bool negate) {
  return [op, negate](Exporter& x, NodeRef, Names in, Names out) {
    std::string b = x.Op1(op, {in[0], in[1]});
    if (negate) b = x.Op1("Not", {b});
    auto* p = x.Add("Cast", {b}, out);
    SetInt(p, "to", *OnnxType(x.out_type(0)));
  };
}

void RequireFloat(Exporter& x, NodeRef n) {
  DType t = x.in_type(0);
  if (t != DType::kFloat32 && t != DType::kFloat64 && t != DType::kFloat16)
    Fail(n, StrCat("exported for float inputs only, got ", DTypeName(t)));
}

// x OP scalar (rev: scalar OP x), optionally followed by Cast for comparisons.
Handler Scalar(const std::string& op, bool rev, bool compare = false, bool negate = false) {
  return [=](Exporter& x, NodeRef n, Names in, Names out) {
    RequireFloat(x, n);
    double s = n.attrs.get<ops::ScalarParam>().scalar;
    std::string c = x.ConstScalar(s, x.in_type(0));
    std::vector<std::string> args =
        rev ? std::vector<std::string>{c, in[0]} : std::vector<std::string>{in[0], c};
    if (!compare) {
      x.Add(op, args, out);
      return;
    }
    std::string b = x.Op1(op, args);
    if (negate) b = x.Op1("Not", {b});
    SetInt(x.Add("Cast", {b}, out), "to", *OnnxType(x.out_type(0)));
  };
}

void Identity(Exporter& x, NodeRef, Names in, Names out) { x.Add("Identity", {in[0]}, out); }

// Conv/ConvTranspose attributes shared by Convolution and Deconvolution, in the order the
// committed exports have them: kernel_shape, strides, dilations, symmetric pads (begin = end =
// MXNet's pad). The callers add output_padding (ConvTranspose) and group after them.
template <typename P>
void SetConvAttrs(::onnx::NodeProto* q, const P& p) {
  const int nd = p.kernel.ndim();
  SetInts(q, "kernel_shape", p.kernel.ToVector());
  SetInts(q, "strides", Filled(p.stride, nd, 1));
  SetInts(q, "dilations", Filled(p.dilate, nd, 1));
  Ints pad = Filled(p.pad, nd, 0), pads = pad;
  pads.insert(pads.end(), pad.begin(), pad.end());
  SetInts(q, "pads", pads);
}

void Convolution(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::ConvolutionParam>();
  if (p.layout && !StartsWith(*p.layout, "NC"))
    Fail(n, StrCat("layout ", *p.layout, " is not exportable (ONNX Conv is channels-first)"));
  std::vector<std::string> args = {in[0], in[1]};
  if (!p.no_bias) args.push_back(in[2]);
  auto* q = x.Add("Conv", args, out);
  SetConvAttrs(q, p);
  SetInt(q, "group", p.num_group);
}

void Deconvolution(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::DeconvolutionParam>();
  const int nd = p.kernel.ndim();
  if (p.layout && !StartsWith(*p.layout, "NC"))
    Fail(n, StrCat("layout ", *p.layout, " is not exportable"));
  if (p.target_shape.ndim() > 0 &&
      !std::all_of(p.target_shape.begin(), p.target_shape.end(), [](int64_t v) { return v == 0; }))
    Fail(n, "target_shape is not exportable; give pad and adj instead");
  std::vector<std::string> args = {in[0], in[1]};
  if (!p.no_bias) args.push_back(in[2]);
  auto* q = x.Add("ConvTranspose", args, out);
  SetConvAttrs(q, p);
  SetInts(q, "output_padding", Filled(p.adj, nd, 0));
  SetInt(q, "group", p.num_group);
}

void FullyConnected(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::FullyConnectedParam>();
  if (p.flatten || x.in_rank(0) == 2) {
    std::string a = in[0];
    if (x.in_rank(0) != 2) a = x.Op1("Flatten", {in[0]}, [](auto* q) { SetInt(q, "axis", 1); });
    std::vector<std::string> args = {a, in[1]};
    if (!p.no_bias) args.push_back(in[2]);
    SetInt(x.Add("Gemm", args, out), "transB", 1);
    return;
  }
  std::string wt = x.Op1("Transpose", {in[1]}, [](auto* q) { SetInts(q, "perm", {1, 0}); });
  if (p.no_bias) {
    x.Add("MatMul", {in[0], wt}, out);
    return;
  }
  std::string m = x.Op1("MatMul", {in[0], wt});
  x.Add("Add", {m, in[2]}, out);
}

void BatchNorm(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::BatchNormParam>();
  const int rank = x.in_rank(0);
  if (NormAxis(p.axis, rank) != 1)
    Fail(n,
         StrCat("axis ", p.axis, " is not exportable (ONNX BatchNormalization normalizes axis 1)"));
  std::string gamma = in[1];
  if (p.fix_gamma)  // MXNet then uses gamma = 1 whatever the parameter holds
    gamma = x.Const(NDArray::Full(x.in_shape(1), 1.0, cpu(), x.in_type(1)), "ones");
  auto* q = x.Add("BatchNormalization", {in[0], gamma, in[2], in[3], in[4]}, {out[0]});
  SetFloat(q, "epsilon", p.eps);
  SetFloat(q, "momentum", p.momentum);
}

void Activation(Exporter& x, NodeRef n, Names in, Names out) {
  const std::string& t = n.attrs.get<ops::ActivationParam>().act_type;
  static const std::map<std::string, std::string> m = {{"relu", "Relu"},
                                                       {"sigmoid", "Sigmoid"},
                                                       {"tanh", "Tanh"},
                                                       {"softrelu", "Softplus"},
                                                       {"softsign", "Softsign"}};
  if (auto it = m.find(t); it != m.end()) {
    x.Add(it->second, {in[0]}, out);
  } else if (t == "log_sigmoid") {  // -softplus(-x)
    x.Add("Neg", {x.Op1("Softplus", {x.Op1("Neg", {in[0]})})}, out);
  } else if (t == "mish") {  // x * tanh(softplus(x))
    x.Add("Mul", {in[0], x.Op1("Tanh", {x.Op1("Softplus", {in[0]})})}, out);
  } else {
    Fail(n, StrCat("act_type ", t, " has no ONNX mapping"));
  }
}

// 0.5 * x * (1 + erf(x / sqrt(2))): MXNet's (erf) GELU; ONNX has Gelu only from opset 20.
void Gelu(Exporter& x, Names in, Names out) {
  DType t = x.in_type(0);
  std::string e = x.Op1("Erf", {x.Op1("Div", {in[0], x.ConstScalar(std::sqrt(2.0), t)})});
  std::string h = x.Op1("Mul", {in[0], x.Op1("Add", {e, x.ConstScalar(1.0, t)})});
  x.Add("Mul", {h, x.ConstScalar(0.5, t)}, out);
}

void LeakyReLU(Exporter& x, NodeRef n, Names in, Names all_out) {
  const auto& p = n.attrs.get<ops::LeakyReLUParam>();
  const std::vector<std::string> out = {all_out[0]};  // rrelu's mask output is not exported
  if (p.act_type == "leaky") {
    SetFloat(x.Add("LeakyRelu", {in[0]}, out), "alpha", p.slope);
  } else if (p.act_type == "rrelu") {  // inference: the mean slope
    SetFloat(x.Add("LeakyRelu", {in[0]}, out), "alpha", (p.lower_bound + p.upper_bound) / 2);
  } else if (p.act_type == "elu") {
    SetFloat(x.Add("Elu", {in[0]}, out), "alpha", p.slope);
  } else if (p.act_type == "selu") {
    auto* q = x.Add("Selu", {in[0]}, out);
    SetFloat(q, "alpha", 1.6732632423543772848170429916717);
    SetFloat(q, "gamma", 1.0507009873554804934193349852946);
  } else if (p.act_type == "gelu") {
    Gelu(x, in, out);
  } else if (p.act_type == "prelu") {
    // gamma (C,) applies along axis 1: make it (C, 1, ..., 1) for ONNX's right-aligned broadcast.
    std::string g = in[1];
    const int rank = x.in_rank(0), grank = x.in_rank(1);
    if (rank > 2 && grank == 1 && x.in_shape(1)[0] != 1) {
      Ints axes;
      for (int i = 1; i < rank - 1; ++i) axes.push_back(i);
      g = x.Op1("Unsqueeze", {in[1], x.ConstInts(axes, "axes")});
    }
    x.Add("PRelu", {in[0], g}, out);
  } else {
    Fail(n, StrCat("act_type ", p.act_type, " has no ONNX mapping"));
  }
}

void Pooling(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::PoolingParam>();
  if (p.layout && !StartsWith(*p.layout, "NC"))
    Fail(n, StrCat("layout ", *p.layout, " is not exportable (ONNX pools are channels-first)"));
  const int nd = x.in_rank(0) - 2;
  if (p.global_pool) {
    if (p.pool_type == "max") {
      x.Add("GlobalMaxPool", {in[0]}, out);
    } else if (p.pool_type == "avg") {
      x.Add("GlobalAveragePool", {in[0]}, out);
    } else if (p.pool_type == "lp") {
      SetInt(x.Add("GlobalLpPool", {in[0]}, out), "p", p.p_value.value_or(2));
    } else {
      Fail(n, StrCat("pool_type ", p.pool_type, " has no ONNX mapping"));
    }
    return;
  }
  if (p.pooling_convention == "same") Fail(n, "pooling_convention 'same' has no ONNX mapping");
  const bool ceil = p.pooling_convention == "full";
  std::string op = p.pool_type == "max"   ? "MaxPool"
                   : p.pool_type == "avg" ? "AveragePool"
                   : p.pool_type == "lp"  ? "LpPool"
                                          : "";
  if (op.empty()) Fail(n, StrCat("pool_type ", p.pool_type, " has no ONNX mapping"));
  if (op == "LpPool" && ceil) Fail(n, "LpPool has no ceil mode before opset 18");
  const Ints kernel = p.kernel.ToVector(), stride = Filled(p.stride, nd, 1),
             padv = Filled(p.pad, nd, 0);
  if (op == "AveragePool" && ceil && p.count_include_pad.value_or(true)) {
    // MXNet divides a ceil-mode window that runs past the padded input by its part inside
    // (H + 2p); ONNX Runtime by the whole kernel. Pad explicitly (counted), then pool with the
    // overhang as excluded end padding in floor mode: the same windows and divisors as MXNet.
    const Shape& s = x.in_shape(0);
    Ints extra(nd, 0);
    bool over = false;
    for (int i = 0; i < nd; ++i) {
      const int64_t padded = s[2 + i] + 2 * padv[i];
      const int64_t outd = (padded - kernel[i] + stride[i] - 1) / stride[i] + 1;
      extra[i] = std::max<int64_t>(0, (outd - 1) * stride[i] + kernel[i] - padded);
      over |= extra[i] > 0;
    }
    if (over) {
      Ints pads(2 * (nd + 2), 0);
      for (int i = 0; i < nd; ++i) pads[2 + i] = pads[nd + 4 + i] = padv[i];
      std::string padded = x.Op1("Pad", {in[0], x.ConstInts(pads, "pads")});
      auto* q = x.Add("AveragePool", {padded}, out);
      SetInts(q, "kernel_shape", kernel);
      SetInts(q, "strides", stride);
      Ints pp(nd, 0);
      pp.insert(pp.end(), extra.begin(), extra.end());
      SetInts(q, "pads", pp);
      SetInt(q, "ceil_mode", 0);
      SetInt(q, "count_include_pad", 0);
      return;
    }
  }
  auto* q = x.Add(op, {in[0]}, out);
  SetInts(q, "kernel_shape", p.kernel.ToVector());
  SetInts(q, "strides", Filled(p.stride, nd, 1));
  Ints pad = Filled(p.pad, nd, 0), pads = pad;
  pads.insert(pads.end(), pad.begin(), pad.end());
  SetInts(q, "pads", pads);
  if (op != "LpPool") SetInt(q, "ceil_mode", ceil ? 1 : 0);
  if (op == "AveragePool")
    SetInt(q, "count_include_pad", p.count_include_pad.value_or(true) ? 1 : 0);
  if (op == "LpPool") SetInt(q, "p", p.p_value.value_or(2));
}

void Flatten(Exporter& x, NodeRef, Names in, Names out) {
  SetInt(x.Add("Flatten", {in[0]}, out), "axis", 1);
}

void Concat(Exporter& x, NodeRef n, Names in, Names out) {
  int dim = n.attrs.get<ops::ConcatParam>().dim;
  SetInt(x.Add("Concat", in, out), "axis", NormAxis(dim, x.in_rank(0)));
}

void Stack(Exporter& x, NodeRef n, Names in, Names out) {
  int axis = NormAxis(n.attrs.get<ops::StackParam>().axis, x.in_rank(0) + 1);
  std::vector<std::string> parts;
  std::string axes = x.ConstInts({axis}, "axes");
  for (const auto& i : in) parts.push_back(x.Op1("Unsqueeze", {i, axes}));
  SetInt(x.Add("Concat", parts, out), "axis", axis);
}

// ONNX Reshape from the inferred output shape: dim 0 copies the input's (0) when they agree,
// or is inferred (-1), so the model keeps a dynamic batch.
void ReshapeTo(Exporter& x, const std::string& in, const Shape& in_shape, const Shape& out_shape,
               Names out) {
  Ints target = out_shape.ToVector();
  if (x.dynamic_batch() && !target.empty() && in_shape.ndim() > 0) {
    if (target[0] == in_shape[0])
      target[0] = 0;
    else if (target[0] != 0)
      target[0] = -1;
  }
  for (size_t i = 1; i < target.size(); ++i)
    if (target[i] == 0 && target[0] == 0) target[0] = in_shape[0];  // 0 would mean "copy"
  x.Add("Reshape", {in, x.ConstInts(target, "shape")}, out);
}

void Reshape(Exporter& x, NodeRef, Names in, Names out) {
  ReshapeTo(x, in[0], x.in_shape(0), x.out_shape(0), out);
}

void ExpandDims(Exporter& x, NodeRef n, Names in, Names out) {
  int axis = NormAxis(n.attrs.get<ops::ExpandDimsParam>().axis, x.in_rank(0) + 1);
  x.Add("Unsqueeze", {in[0], x.ConstInts({axis}, "axes")}, out);
}

void Squeeze(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::SqueezeParam>();
  if (!p.axis || p.axis->ndim() == 0) {
    x.Add("Squeeze", {in[0]}, out);
    return;
  }
  Ints axes;
  for (int64_t a : *p.axis) axes.push_back(NormAxis(a, x.in_rank(0)));
  x.Add("Squeeze", {in[0], x.ConstInts(axes, "axes")}, out);
}

void TransposeOp(Exporter& x, NodeRef n, Names in, Names out) {
  const Shape& axes = n.attrs.get<ops::TransposeParam>().axes;
  Ints perm;
  const int r = x.in_rank(0);
  if (axes.ndim() <= 0) {
    for (int i = r - 1; i >= 0; --i) perm.push_back(i);
  } else {
    for (int64_t a : axes) perm.push_back(NormAxis(a, r));
  }
  SetInts(x.Add("Transpose", {in[0]}, out), "perm", perm);
}

void SwapAxis(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::SwapAxisParam>();
  const int r = x.in_rank(0);
  Ints perm;
  for (int i = 0; i < r; ++i) perm.push_back(i);
  std::swap(perm[NormAxis(p.dim1, r)], perm[NormAxis(p.dim2, r)]);
  SetInts(x.Add("Transpose", {in[0]}, out), "perm", perm);
}

void SliceOnnx(Exporter& x, const std::string& in, const Ints& starts, const Ints& ends,
               const Ints& axes, const Ints& steps, Names out) {
  if (starts.empty()) {
    x.Add("Identity", {in}, out);
    return;
  }
  x.Add("Slice",
        {in, x.ConstInts(starts, "starts"), x.ConstInts(ends, "ends"), x.ConstInts(axes, "axes"),
         x.ConstInts(steps, "steps")},
        out);
}

void Slice(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::SliceParam>();
  Ints starts, ends, axes, steps;
  for (int i = 0; i < p.begin.size(); ++i) {
    int64_t step = i < p.step.size() && p.step.v[i] ? *p.step.v[i] : 1;
    if (step == 0) Fail(n, "step 0");
    std::optional<int64_t> b = p.begin.v[i], e = i < p.end.size() ? p.end.v[i] : std::nullopt;
    if (!b && !e && step == 1) continue;  // the whole axis
    starts.push_back(b ? *b : (step > 0 ? 0 : -1));
    ends.push_back(e ? *e : (step > 0 ? kInt64Max : kInt64Min));
    axes.push_back(i);
    steps.push_back(step);
  }
  SliceOnnx(x, in[0], starts, ends, axes, steps, out);
}

void SliceAxis(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::SliceAxisParam>();
  SliceOnnx(x, in[0], {p.begin}, {p.end.value_or(kInt64Max)}, {NormAxis(p.axis, x.in_rank(0))}, {1},
            out);
}

void SliceLike(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::SliceLikeParam>();
  const Shape& o = x.out_shape(0);
  Ints starts, ends, axes, steps;
  for (int i = 0; i < o.ndim(); ++i) {
    bool sliced = p.axes.ndim() <= 0;
    for (int64_t a : p.axes) sliced |= NormAxis(a, o.ndim()) == i;
    if (!sliced) continue;
    starts.push_back(0);
    ends.push_back(o[i]);
    axes.push_back(i);
    steps.push_back(1);
  }
  SliceOnnx(x, in[0], starts, ends, axes, steps, out);
}

// Reductions: axes (None/() = all; exclude = the complement), keepdims.
Ints ReduceAxes(const std::optional<Shape>& axis, bool exclude, int rank) {
  std::set<int64_t> chosen;
  if (axis && axis->ndim() > 0)
    for (int64_t a : *axis) chosen.insert(NormAxis(a, rank));
  Ints axes;
  if (!exclude) return Ints(chosen.begin(), chosen.end());
  for (int i = 0; i < rank; ++i)
    if (!chosen.count(i)) axes.push_back(i);
  return axes;
}

void ReduceEmit(Exporter& x, const std::string& op, const std::string& in, Ints axes, bool keepdims,
                int rank, Names out) {
  if (axes.empty())
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  ::onnx::NodeProto* q;
  if (op == "ReduceSum") {  // axes is an input from opset 13
    q = x.Add(op, {in, x.ConstInts(axes, "axes")}, out);
  } else {
    q = x.Add(op, {in}, out);
    SetInts(q, "axes", axes);
  }
  SetInt(q, "keepdims", keepdims ? 1 : 0);
}

Handler Reduce(const std::string& op) {
  return [op](Exporter& x, NodeRef n, Names in, Names out) {
    const auto& p = n.attrs.get<ops::ReduceAxesParam>();
    const int r = x.in_rank(0);
    Ints axes = ReduceAxes(p.axis, p.exclude, r);
    if (p.exclude && axes.empty()) {  // nothing reduced
      x.Add("Identity", {in[0]}, out);
      return;
    }
    ReduceEmit(x, op, in[0], axes, p.keepdims, r, out);
  };
}

void Norm(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::NormParam>();
  if (p.out_dtype && *p.out_dtype != x.in_type(0)) Fail(n, "out_dtype is not exportable");
  ReduceEmit(x, p.ord == 1 ? "ReduceL1" : "ReduceL2", in[0],
             ReduceAxes(p.axis, false, x.in_rank(0)), p.keepdims, x.in_rank(0), out);
}

Handler ArgReduce(const std::string& op) {
  return [op](Exporter& x, NodeRef n, Names in, Names out) {
    const auto& p = n.attrs.get<ops::ReduceAxisParam>();
    std::string data = in[0];
    int axis = 0;
    if (!p.axis) {  // the flattened array
      data = x.Op1("Reshape", {in[0], x.ConstInts({-1}, "shape")});
    } else {
      axis = NormAxis(*p.axis, x.in_rank(0));
    }
    std::string idx = x.Op1(op, {data}, [&](auto* q) {
      SetInt(q, "axis", axis);
      SetInt(q, "keepdims", p.keepdims ? 1 : 0);
    });
    if (!p.axis) idx = x.Op1("Reshape", {idx, x.ConstInts(x.out_shape(0).ToVector(), "shape")});
    SetInt(x.Add("Cast", {idx}, out), "to", *OnnxType(x.out_type(0)));  // MXNet: float indices
  };
}

void Softmax(Exporter& x, NodeRef n, Names in, Names out, const std::string& op) {
  const auto& p = n.attrs.get<ops::SoftmaxParam>();
  if (p.use_length.value_or(false)) Fail(n, "use_length is not exportable");
  std::string data = in[0];
  if (p.temperature && *p.temperature != 1.0)
    data = x.Op1("Div", {data, x.ConstScalar(*p.temperature, x.in_type(0))});
  if (op == "softmin") data = x.Op1("Neg", {data});
  const std::string onnx_op = op == "log_softmax" ? "LogSoftmax" : "Softmax";
  const int axis = NormAxis(p.axis, x.in_rank(0));
  if (p.dtype && *p.dtype != x.in_type(0)) {
    std::string s = x.Op1(onnx_op, {data}, [&](auto* q) { SetInt(q, "axis", axis); });
    SetInt(x.Add("Cast", {s}, out), "to", *OnnxType(*p.dtype));
    return;
  }
  SetInt(x.Add(onnx_op, {data}, out), "axis", axis);
}

void SoftmaxActivation(Exporter& x, NodeRef n, Names in, Names out) {
  const std::string& mode = n.attrs.get<ops::SoftmaxActivationParam>().mode;
  if (mode == "channel" || x.in_rank(0) == 2) {
    SetInt(x.Add("Softmax", {in[0]}, out), "axis", 1);
    return;
  }
  std::string f = x.Op1("Flatten", {in[0]}, [](auto* q) { SetInt(q, "axis", 1); });
  std::string s = x.Op1("Softmax", {f}, [](auto* q) { SetInt(q, "axis", 1); });
  x.Add("Reshape", {s, x.Op1("Shape", {in[0]})}, out);
}

void Clip(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::ClipParam>();
  RequireFloat(x, n);
  DType t = x.in_type(0);
  x.Add("Clip", {in[0], x.ConstScalar(p.a_min, t, "min"), x.ConstScalar(p.a_max, t, "max")}, out);
}

void HardSigmoid(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::HardSigmoidParam>();
  auto* q = x.Add("HardSigmoid", {in[0]}, out);
  SetFloat(q, "alpha", p.alpha);
  SetFloat(q, "beta", p.beta);
}

void Dot(Exporter& x, NodeRef n, Names in, Names out, bool batch) {
  const auto& p = n.attrs.get<ops::DotParam>();
  auto t = [&](int k, bool flag) {
    if (!flag) return in[k];
    const int r = x.in_rank(k);
    if (!batch && r != 2) Fail(n, "transpose of an operand of rank other than 2");
    Ints perm;
    for (int i = 0; i < r; ++i) perm.push_back(i);
    std::swap(perm[r - 1], perm[r - 2]);
    return x.Op1("Transpose", {in[k]}, [&](auto* q) { SetInts(q, "perm", perm); });
  };
  if (!batch && x.in_rank(1) != 2 && !(x.in_rank(0) == 1 && x.in_rank(1) == 1))
    Fail(n,
         "dot with a right operand of rank other than 2 is not exportable (ONNX MatMul "
         "broadcasts batch dims instead of contracting)");
  std::string a = t(0, p.transpose_a), b = t(1, p.transpose_b);
  x.Add("MatMul", {a, b}, out);
}

void Cast(Exporter& x, NodeRef n, Names in, Names out) {
  SetInt(x.Add("Cast", {in[0]}, out), "to", *OnnxType(x.out_type(0)));
}

void Where(Exporter& x, NodeRef, Names in, Names out) {
  std::string c =
      x.Op1("Cast", {in[0]}, [](auto* q) { SetInt(q, "to", ::onnx::TensorProto::BOOL); });
  x.Add("Where", {c, in[1], in[2]}, out);
}

void AddN(Exporter& x, NodeRef, Names in, Names out) { x.Add("Sum", in, out); }

void Embedding(Exporter& x, NodeRef, Names in, Names out) {
  std::string idx =
      x.Op1("Cast", {in[0]}, [](auto* q) { SetInt(q, "to", ::onnx::TensorProto::INT64); });
  SetInt(x.Add("Gather", {in[1], idx}, out), "axis", 0);
}

void Take(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::TakeParam>();
  std::string idx =
      x.Op1("Cast", {in[1]}, [](auto* q) { SetInt(q, "to", ::onnx::TensorProto::INT64); });
  SetInt(x.Add("Gather", {in[0], idx}, out), "axis", NormAxis(p.axis, x.in_rank(0)));
}

void Tile(Exporter& x, NodeRef n, Names in, Names out) {
  Ints reps = n.attrs.get<ops::TileParam>().reps.ToVector();
  const int r = x.in_rank(0);
  std::string data = in[0];
  if (static_cast<int>(reps.size()) > r) {  // new leading axes
    Ints axes;
    for (int i = 0; i < static_cast<int>(reps.size()) - r; ++i) axes.push_back(i);
    data = x.Op1("Unsqueeze", {data, x.ConstInts(axes, "axes")});
  }
  while (static_cast<int>(reps.size()) < r) reps.insert(reps.begin(), 1);
  x.Add("Tile", {data, x.ConstInts(reps, "repeats")}, out);
}

void Pad(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::PadParam>();
  const int r = x.in_rank(0);
  Ints pads(2 * r, 0);
  for (int i = 0; i < r && 2 * i + 1 < p.pad_width.ndim(); ++i) {
    pads[i] = p.pad_width[2 * i];
    pads[r + i] = p.pad_width[2 * i + 1];
  }
  std::vector<std::string> args = {in[0], x.ConstInts(pads, "pads")};
  if (p.mode == "constant") args.push_back(x.ConstScalar(p.constant_value, x.in_type(0)));
  SetString(x.Add("Pad", args, out), "mode", p.mode);
}

// broadcast_to / broadcast_axis / broadcast_like: Expand to the output shape, with 1 for dims the
// input already has (so a dynamic batch stays dynamic).
void ExpandTo(Exporter& x, NodeRef, Names in, Names out) {
  Ints target = x.out_shape(0).ToVector();
  const Shape& s = x.in_shape(0);
  for (int i = 0; i < s.ndim() && i < static_cast<int>(target.size()); ++i)
    if (target[i] == s[i]) target[i] = 1;
  x.Add("Expand", {in[0], x.ConstInts(target, "shape")}, out);
}

void LikeConst(Exporter& x, NodeRef n, Names in, Names out, double v) {
  auto* q = x.Add("ConstantOfShape", {x.Op1("Shape", {in[0]})}, out);
  auto* a = q->add_attribute();
  a->set_name("value");
  a->set_type(::onnx::AttributeProto::TENSOR);
  ToTensorProto(NDArray::FromVector(std::vector<double>{v}, Shape{1}, cpu(), x.in_type(0)), "value",
                a->mutable_t());
}

void LayerNorm(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::LayerNormParam>();
  const int r = x.in_rank(0), axis = NormAxis(p.axis, r);
  DType t = x.in_type(0);
  if (x.opset() >= 17 && axis == r - 1) {
    auto* q = x.Add("LayerNormalization", {in[0], in[1], in[2]}, {out[0]});
    SetInt(q, "axis", axis);
    SetFloat(q, "epsilon", p.eps);
    return;
  }
  auto mean = [&](const std::string& v) {
    return x.Op1("ReduceMean", {v}, [&](auto* q) {
      SetInts(q, "axes", {axis});
      SetInt(q, "keepdims", 1);
    });
  };
  std::string d = x.Op1("Sub", {in[0], mean(in[0])});
  std::string var = mean(x.Op1("Mul", {d, d}));
  std::string norm =
      x.Op1("Div", {d, x.Op1("Sqrt", {x.Op1("Add", {var, x.ConstScalar(p.eps, t)})})});
  std::string g = in[1], b = in[2];
  if (axis != r - 1) {
    Ints axes;
    for (int i = 1; i < r - axis; ++i) axes.push_back(i);
    std::string ax = x.ConstInts(axes, "axes");
    g = x.Op1("Unsqueeze", {g, ax});
    b = x.Op1("Unsqueeze", {b, ax});
  }
  x.Add("Add", {x.Op1("Mul", {norm, g}), b}, {out[0]});
}

void InstanceNorm(Exporter& x, NodeRef n, Names in, Names out) {
  SetFloat(x.Add("InstanceNormalization", {in[0], in[1], in[2]}, out), "epsilon",
           n.attrs.get<ops::InstanceNormParam>().eps);
}

void SplitOp(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::SliceChannelParam>();
  const int r = x.in_rank(0), axis = NormAxis(p.axis, r);
  const int64_t each = x.in_shape(0)[axis] / p.num_outputs;
  std::vector<std::string> parts = out;
  if (p.squeeze_axis)
    for (auto& s : parts) s = x.Tmp("split");
  SetInt(x.Add("Split", {in[0], x.ConstInts(Ints(p.num_outputs, each), "split")}, parts), "axis",
         axis);
  if (p.squeeze_axis) {
    std::string ax = x.ConstInts({axis}, "axes");
    for (size_t k = 0; k < parts.size(); ++k) x.Add("Squeeze", {parts[k], ax}, {out[k]});
  }
}

void UpSampling(Exporter& x, NodeRef n, Names in, Names out) {
  const auto& p = n.attrs.get<ops::UpSamplingParam>();
  if (p.sample_type != "nearest" || in.size() != 1)
    Fail(n, "only nearest UpSampling of one input is exportable");
  const double s = p.scale;
  std::string scales =
      x.Const(NDArray::FromVector(
                  std::vector<float>{1, 1, static_cast<float>(s), static_cast<float>(s)}, Shape{4}),
              "scales");
  auto* q = x.Add("Resize", {in[0], "", scales}, out);
  SetString(q, "mode", "nearest");
  SetString(q, "coordinate_transformation_mode", "asymmetric");
  SetString(q, "nearest_mode", "floor");
}

void Square(Exporter& x, NodeRef, Names in, Names out) { x.Add("Mul", {in[0], in[0]}, out); }
void Rsqrt(Exporter& x, NodeRef, Names in, Names out) {
  x.Add("Reciprocal", {x.Op1("Sqrt", {in[0]})}, out);
}
Handler LogBase(double base) {
  return [base](Exporter& x, NodeRef, Names in, Names out) {
    x.Add("Div", {x.Op1("Log", {in[0]}), x.ConstScalar(std::log(base), x.in_type(0))}, out);
  };
}
void Log1p(Exporter& x, NodeRef, Names in, Names out) {
  x.Add("Log", {x.Op1("Add", {in[0], x.ConstScalar(1.0, x.in_type(0))})}, out);
}
void Expm1(Exporter& x, NodeRef, Names in, Names out) {
  x.Add("Sub", {x.Op1("Exp", {in[0]}), x.ConstScalar(1.0, x.in_type(0))}, out);
}
void ShapeArray(Exporter& x, NodeRef, Names in, Names out) { x.Add("Shape", {in[0]}, out); }

std::map<std::string, Handler>& Handlers() {
  static auto* h = new std::map<std::string, Handler>([] {
    std::map<std::string, Handler> m;
    m["Convolution"] = Convolution;
    m["Deconvolution"] = Deconvolution;
    m["FullyConnected"] = FullyConnected;
    m["BatchNorm"] = BatchNorm;
    m["Activation"] = Activation;
    m["LeakyReLU"] = LeakyReLU;
    m["Pooling"] = Pooling;
    m["Flatten"] = Flatten;
    m["Concat"] = Concat;
    m["stack"] = Stack;
    m["Reshape"] = Reshape;
    m["reshape_like"] = Reshape;
    m["expand_dims"] = ExpandDims;
    m["squeeze"] = Squeeze;
    m["transpose"] = TransposeOp;
    m["SwapAxis"] = SwapAxis;
    m["slice"] = Slice;
    m["slice_axis"] = SliceAxis;
    m["slice_like"] = SliceLike;
    m["SliceChannel"] = SplitOp;
    m["clip"] = Clip;
    m["hard_sigmoid"] = HardSigmoid;
    m["softmax"] = [](Exporter& x, NodeRef n, Names i, Names o) { Softmax(x, n, i, o, "softmax"); };
    m["log_softmax"] = [](Exporter& x, NodeRef n, Names i, Names o) {
      Softmax(x, n, i, o, "log_softmax");
    };
    m["softmin"] = [](Exporter& x, NodeRef n, Names i, Names o) { Softmax(x, n, i, o, "softmin"); };
    m["SoftmaxActivation"] = SoftmaxActivation;
    m["dot"] = [](Exporter& x, NodeRef n, Names i, Names o) { Dot(x, n, i, o, false); };
    m["batch_dot"] = [](Exporter& x, NodeRef n, Names i, Names o) { Dot(x, n, i, o, true); };
    m["Cast"] = Cast;
    m["where"] = Where;
    m["add_n"] = AddN;
    m["Embedding"] = Embedding;
    m["take"] = Take;
    m["tile"] = Tile;
    m["Pad"] = Pad;
    m["broadcast_to"] = ExpandTo;
    m["broadcast_axis"] = ExpandTo;
    m["broadcast_like"] = ExpandTo;
    m["zeros_like"] = [](Exporter& x, NodeRef n, Names i, Names o) { LikeConst(x, n, i, o, 0); };
    m["ones_like"] = [](Exporter& x, NodeRef n, Names i, Names o) { LikeConst(x, n, i, o, 1); };
    m["LayerNorm"] = LayerNorm;
    m["InstanceNorm"] = InstanceNorm;
    m["UpSampling"] = UpSampling;
    m["shape_array"] = ShapeArray;
    for (const char* id : {"_copy", "Dropout", "BlockGrad", "make_loss", "MakeLoss", "identity"})
      m[id] = Identity;
    const std::pair<const char*, const char*> unary[] = {
        {"relu", "Relu"},     {"sigmoid", "Sigmoid"},
        {"tanh", "Tanh"},     {"softsign", "Softsign"},
        {"exp", "Exp"},       {"log", "Log"},
        {"sqrt", "Sqrt"},     {"abs", "Abs"},
        {"negative", "Neg"},  {"reciprocal", "Reciprocal"},
        {"floor", "Floor"},   {"ceil", "Ceil"},
        {"sin", "Sin"},       {"cos", "Cos"},
        {"tan", "Tan"},       {"arcsin", "Asin"},
        {"arccos", "Acos"},   {"arctan", "Atan"},
        {"sinh", "Sinh"},     {"cosh", "Cosh"},
        {"arcsinh", "Asinh"}, {"arccosh", "Acosh"},
        {"arctanh", "Atanh"}, {"erf", "Erf"},
        {"sign", "Sign"},     {"rint", "Round"}};
    for (const auto& [a, b] : unary) m[a] = Unary(b);
    m["square"] = Square;
    m["rsqrt"] = Rsqrt;
    m["log2"] = LogBase(2.0);
    m["log10"] = LogBase(10.0);
    m["log1p"] = Log1p;
    m["expm1"] = Expm1;
    const std::pair<const char*, const char*> binary[] = {
        {"elemwise_add", "Add"},      {"elemwise_sub", "Sub"},      {"elemwise_mul", "Mul"},
        {"elemwise_div", "Div"},      {"broadcast_add", "Add"},     {"broadcast_sub", "Sub"},
        {"broadcast_mul", "Mul"},     {"broadcast_div", "Div"},     {"broadcast_power", "Pow"},
        {"broadcast_maximum", "Max"}, {"broadcast_minimum", "Min"}, {"_power", "Pow"},
        {"_maximum", "Max"},          {"_minimum", "Min"}};
    for (const auto& [a, b] : binary) m[a] = Binary(b);
    m["broadcast_equal"] = Compare("Equal", false);
    m["broadcast_not_equal"] = Compare("Equal", true);
    m["broadcast_greater"] = Compare("Greater", false);
    m["broadcast_greater_equal"] = Compare("GreaterOrEqual", false);
    m["broadcast_lesser"] = Compare("Less", false);
    m["broadcast_lesser_equal"] = Compare("LessOrEqual", false);
    m["_equal"] = Compare("Equal", false);
    m["_not_equal"] = Compare("Equal", true);
    m["_greater"] = Compare("Greater", false);
    m["_greater_equal"] = Compare("GreaterOrEqual", false);
    m["_lesser"] = Compare("Less", false);
    m["_lesser_equal"] = Compare("LessOrEqual", false);
    m["_plus_scalar"] = Scalar("Add", false);
    m["_minus_scalar"] = Scalar("Sub", false);
    m["_rminus_scalar"] = Scalar("Sub", true);
    m["_mul_scalar"] = Scalar("Mul", false);
    m["_div_scalar"] = Scalar("Div", false);
    m["_rdiv_scalar"] = Scalar("Div", true);
    m["_power_scalar"] = Scalar("Pow", false);
    m["_rpower_scalar"] = Scalar("Pow", true);
    m["_maximum_scalar"] = Scalar("Max", false);
    m["_minimum_scalar"] = Scalar("Min", false);
    m["_equal_scalar"] = Scalar("Equal", false, true);
    m["_not_equal_scalar"] = Scalar("Equal", false, true, true);
    m["_greater_scalar"] = Scalar("Greater", false, true);
    m["_greater_equal_scalar"] = Scalar("GreaterOrEqual", false, true);
    m["_lesser_scalar"] = Scalar("Less", false, true);
    m["_lesser_equal_scalar"] = Scalar("LessOrEqual", false, true);
    m["sum"] = Reduce("ReduceSum");
    m["mean"] = Reduce("ReduceMean");
    m["max"] = Reduce("ReduceMax");
    m["min"] = Reduce("ReduceMin");
    m["prod"] = Reduce("ReduceProd");
    m["norm"] = Norm;
    m["argmax"] = ArgReduce("ArgMax");
    m["argmin"] = ArgReduce("ArgMin");
    // Keep only names the registry knows under that canonical name (aliases resolve to it).
    std::map<std::string, Handler> out;
    for (auto& [name, fn] : m)
      if (const Op* op = OpRegistry::Find(name)) out[op->name] = fn;
    return out;
  }());
  return *h;
}

absl::StatusOr<std::string> Export(const sym::Symbol& graph,
                                   const std::map<std::string, NDArray>& params,
                                   const std::vector<std::pair<std::string, Shape>>& inputs,
                                   const OnnxExportOptions& o) {
  if (o.opset < kOnnxMinExportOpset || o.opset > kOnnxMaxExportOpset)
    return absl::InvalidArgumentError(StrCat("ONNX export: opset ", o.opset, " is not supported (",
                                             kOnnxMinExportOpset, "..", kOnnxMaxExportOpset, ")"));
  if (graph.outputs().empty())
    return absl::InvalidArgumentError("ONNX export: the graph has no outputs");
  std::map<std::string, NDArray> plain;
  for (const auto& [k, v] : params)
    plain[StartsWith(k, "arg:") || StartsWith(k, "aux:") ? k.substr(4) : k] = v;
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("mxnet-cpp");
  model.set_producer_version("1.9.1");
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(o.opset);
  auto* g = model.mutable_graph();
  g->set_name(o.graph_name);
  MX_RETURN_IF_ERROR(StatusFromCall([&] {
    Exporter x(g, o.opset);
    x.Run(graph, plain, inputs, o.dynamic_batch);
  }));
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return absl::InternalError("ONNX export: the model could not be serialized (over 2 GiB?)");
  return bytes;
}

}  // namespace

absl::StatusOr<std::string> export_onnx_to_string(
    const sym::Symbol& graph, const std::map<std::string, NDArray>& params,
    const std::vector<std::pair<std::string, Shape>>& inputs, const OnnxExportOptions& options) {
  return Export(graph, params, inputs, options);
}

absl::Status export_onnx(const sym::Symbol& graph, const std::map<std::string, NDArray>& params,
                         const std::vector<std::pair<std::string, Shape>>& inputs,
                         const std::string& path, const OnnxExportOptions& options) {
  MX_ASSIGN_OR_RETURN(std::string bytes, Export(graph, params, inputs, options));
  return onnx_internal::WriteFileAtomic(path, bytes);
}

absl::Status export_onnx(HybridBlock& block, const std::vector<Shape>& input_shapes,
                         const std::string& path, int opset, bool dynamic_batch) {
  const auto* symbol_block = dynamic_cast<const SymbolBlock*>(&block);
  sym::Symbol graph = symbol_block ? symbol_block->graph() : block.cached_graph();
  if (graph.outputs().empty()) {
    MX_RETURN_IF_ERROR(StatusFromCall([&] {
      NDArrayVec zeros;
      for (const Shape& s : input_shapes) zeros.push_back(NDArray::Full(s, 0.0));
      block.hybridize();
      for (NDArray& y : block(zeros)) y.wait_to_read();
    }));
    graph = block.cached_graph();
  }
  std::map<std::string, NDArray> params;
  MX_RETURN_IF_ERROR(StatusFromCall([&] {
    for (const auto& [name, p] : block.collect_params()) params[name] = p->data();
  }));
  // Data inputs: the graph variables that are not parameters ("data" or "data0".."dataN-1").
  std::vector<std::string> data;
  for (const std::string& v : graph.list_inputs())
    if (!params.count(v)) data.push_back(v);
  auto index = [](const std::string& s) {
    int64_t i = -1;
    if (StartsWith(s, "data")) ParseInt64(s.substr(4), &i);
    return i;
  };
  std::stable_sort(data.begin(), data.end(),
                   [&](const std::string& a, const std::string& b) { return index(a) < index(b); });
  if (data.size() != input_shapes.size())
    return absl::InvalidArgumentError(StrCat("ONNX export: the graph has ", data.size(),
                                             " data inputs (", StrJoin(data, ", "), ") but ",
                                             input_shapes.size(), " input shapes were given"));
  std::vector<std::pair<std::string, Shape>> inputs;
  for (size_t i = 0; i < data.size(); ++i) inputs.push_back({data[i], input_shapes[i]});
  OnnxExportOptions o;
  o.opset = opset;
  o.dynamic_batch = dynamic_batch;
  return export_onnx(graph, params, inputs, path, o);
}

std::vector<std::string> onnx_exportable_ops() {
  std::vector<std::string> v;
  for (const auto& [name, _] : Handlers()) v.push_back(name);
  return v;
}

}  // namespace mxnet::gluon
