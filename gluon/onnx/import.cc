// ONNX import: a ModelProto's graph onto registry ops (sym::Symbol), then a SymbolBlock with the
// initializers as parameters. Every check of the untrusted file (tensor sizes, names, graph
// order, attributes) gives a Status naming the node and what was wrong.
#include <algorithm>
#include <cmath>
#include <filesystem>
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

namespace mxnet::gluon {
namespace {

using onnx_internal::FromOnnxType;
using onnx_internal::FromTensorProto;
using Ints = std::vector<int64_t>;
using sym::Symbol;

std::string TupleStr(const Ints& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) StrAppend(&s, i ? ", " : "", v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}
std::string FloatStr(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

class Importer;
using Handler = std::function<void(Importer&, const ::onnx::NodeProto&)>;
const std::map<std::string, Handler>& Handlers();

class Importer {
 public:
  Importer(const ::onnx::ModelProto& m, std::string base_dir)
      : model_(m), base_dir_(std::move(base_dir)) {}

  [[noreturn]] void Fail(const std::string& why) const {
    if (node_)
      MX_THROW(absl::StatusCode::kInvalidArgument, "ONNX import: node '", node_->name(), "' (",
               node_->op_type(), "): ", why);
    MX_THROW(absl::StatusCode::kInvalidArgument, "ONNX import: ", why);
  }

  int opset() const { return opset_; }
  const ::onnx::NodeProto& node() const { return *node_; }

  // ---- attributes ----
  const ::onnx::AttributeProto* FindAttr(const std::string& name) const {
    for (const auto& a : node_->attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  int64_t Int(const std::string& name, int64_t def) const {
    const auto* a = FindAttr(name);
    if (!a) return def;
    if (a->type() != ::onnx::AttributeProto::INT)
      Fail(StrCat("attribute ", name, " is not an int"));
    if (a->i() > (int64_t{1} << 24) || a->i() < -(int64_t{1} << 24))
      Fail(StrCat("attribute ", name, " value ", a->i(), " is out of range"));
    return a->i();
  }
  double Float(const std::string& name, double def) const {
    const auto* a = FindAttr(name);
    if (!a) return def;
    if (a->type() != ::onnx::AttributeProto::FLOAT)
      Fail(StrCat("attribute ", name, " is not a float"));
    return a->f();
  }
  std::string Str(const std::string& name, const std::string& def) const {
    const auto* a = FindAttr(name);
    if (!a) return def;
    if (a->type() != ::onnx::AttributeProto::STRING)
      Fail(StrCat("attribute ", name, " is not a string"));
    return a->s();
  }
  std::optional<Ints> IntsAttr(const std::string& name) const {
    const auto* a = FindAttr(name);
    if (!a) return std::nullopt;
    if (a->type() != ::onnx::AttributeProto::INTS)
      Fail(StrCat("attribute ", name, " is not a list of ints"));
    if (a->ints_size() > 64) Fail(StrCat("attribute ", name, " has ", a->ints_size(), " entries"));
    for (int64_t v : a->ints())
      if (v > (int64_t{1} << 24) || v < -(int64_t{1} << 24))
        Fail(StrCat("attribute ", name, " value ", v, " is out of range"));
    return Ints(a->ints().begin(), a->ints().end());
  }

  // ---- values ----
  int num_inputs() const {
    int n = node_->input_size();
    while (n > 0 && node_->input(n - 1).empty()) --n;  // trailing optional inputs
    return n;
  }
  bool HasInput(int k) const { return k < node_->input_size() && !node_->input(k).empty(); }
  bool IsConst(int k) const { return HasInput(k) && consts_.count(node_->input(k)); }
  const NDArray& ConstValue(int k) const {
    if (!IsConst(k))
      Fail(StrCat("input ", k, " ('", HasInput(k) ? node_->input(k) : "",
                  "') must be a constant "
                  "(an initializer or a Constant node)"));
    return consts_.at(node_->input(k));
  }
  Ints ConstInts(int k) const {
    const NDArray& a = ConstValue(k);
    if (a.dtype() != DType::kInt64 && a.dtype() != DType::kInt32)
      Fail(StrCat("input ", k, " must be an integer tensor, got ", DTypeName(a.dtype())));
    if (a.size() > 64) Fail(StrCat("input ", k, " has ", a.size(), " entries"));
    return a.ToVector<int64_t>();
  }
  double ConstScalar(int k) const {
    const NDArray& a = ConstValue(k);
    if (a.size() != 1)
      Fail(StrCat("input ", k, " must hold one value, got shape ", a.shape().ToString()));
    return a.ToVector<double>()[0];
  }
  // The symbol of input k: a computed value, a graph input, or a constant made a parameter.
  Symbol In(int k) {
    if (!HasInput(k)) Fail(StrCat("input ", k, " is missing"));
    const std::string& name = node_->input(k);
    if (auto it = values_.find(name); it != values_.end()) return it->second;
    if (auto it = consts_.find(name); it != consts_.end()) {
      sym::VarOptions o;
      o.shape = it->second.shape();
      o.dtype = it->second.dtype();
      Symbol v = Symbol::Variable(name, o);
      values_[name] = v;
      params_.push_back({name, it->second});
      return v;
    }
    Fail(StrCat("input '", name, "' is not defined"));
  }
  // Shape of input k, inferred from the graph inputs' declared shapes (symbolic dims as 1).
  Shape InShape(int k) {
    if (IsConst(k)) return ConstValue(k).shape();
    Symbol s = In(k);
    Shape r;
    absl::Status st = StatusFromCall([&] {
      std::map<std::string, Shape> known;  // only this subgraph's inputs
      for (const auto& n : s.list_inputs())
        if (auto it = input_shapes_.find(n); it != input_shapes_.end()) known.insert(*it);
      r = s.infer_shape_partial(known).out.at(0);
    });
    if (!st.ok() || r.ndim() < 0)
      Fail(StrCat("the rank of input '", node_->input(k), "' is needed but unknown"));
    return r;
  }
  int InRank(int k) { return InShape(k).ndim(); }

  void SetOut(int k, const Symbol& s) {
    if (k >= node_->output_size() || node_->output(k).empty()) return;
    values_[node_->output(k)] = s;
  }
  // The registry op `op` on `inputs` with string attributes, named after the node's output.
  Symbol Make(const std::string& op, const std::vector<Symbol>& inputs,
              const AttrDict& attrs = {}) {
    std::string name = Unique(node_->output_size() ? node_->output(0) : node_->name());
    return Symbol::Create(op, inputs, attrs, name);
  }
  void Out(const std::string& op, const std::vector<Symbol>& inputs, const AttrDict& attrs = {}) {
    SetOut(0, Make(op, inputs, attrs));
  }
  // The tensor whose Shape node produced input k ("" if none).
  std::string ShapeSource(int k) const {
    auto it = shape_src_.find(node_->input(k));
    return it == shape_src_.end() ? "" : it->second;
  }
  void NoteShapeOf(const std::string& src) { shape_src_[node_->output(0)] = src; }
  Symbol Value(const std::string& name) {
    auto it = values_.find(name);
    if (it == values_.end()) Fail(StrCat("'", name, "' is not a computed tensor"));
    return it->second;
  }
  // A constant computed at import time.
  void SetConstOut(int k, const NDArray& v) { consts_[node_->output(k)] = v; }

  std::shared_ptr<SymbolBlock> Run(const std::vector<Device>& devices);

  // A node whose inputs are all constants (Unsqueeze of a weight, shape arithmetic of
  // torch.onnx exports) is evaluated now: its outputs become constants too, so they can feed
  // operators that need constant inputs (Reshape's shape, PRelu's slope rank).
  void FoldConstants(const ::onnx::NodeProto& nd) {
    if (nd.input_size() == 0) return;
    for (const auto& i : nd.input())
      if (!i.empty() && !consts_.count(i)) return;
    for (int k = 0; k < nd.output_size(); ++k) {
      const std::string& o = nd.output(k);
      auto it = values_.find(o);
      if (o.empty() || it == values_.end()) continue;
      std::vector<std::pair<std::string, NDArray>> dict;
      for (const auto& name : it->second.list_inputs()) dict.push_back({name, consts_.at(name)});
      auto block = std::make_shared<SymbolBlock>(it->second, std::vector<std::string>{});
      ThrowIfError(block->load_dict(dict));
      NDArrayVec v = (*block)(NDArrayVec{});
      consts_[o] = v.at(0);
      values_.erase(it);
    }
  }

 private:
  std::string Unique(const std::string& base) {
    std::string b = base.empty() ? "node" : base;
    std::string n = b;
    for (int i = 1; used_names_.count(n); ++i) n = StrCat(b, "_", i);
    used_names_.insert(n);
    return n;
  }

  const ::onnx::ModelProto& model_;
  std::string base_dir_;
  int opset_ = 0;
  const ::onnx::NodeProto* node_ = nullptr;
  std::map<std::string, Symbol> values_;
  std::map<std::string, NDArray> consts_;
  std::vector<std::pair<std::string, NDArray>> params_;
  std::map<std::string, Shape> input_shapes_;
  std::set<std::string> used_names_;
  std::map<std::string, std::string> shape_src_;  // Shape node output -> its input
};

std::shared_ptr<SymbolBlock> Importer::Run(const std::vector<Device>& devices) {
  // Opset of the default domain; other domains (ai.onnx.ml, custom) are refused per node.
  for (const auto& o : model_.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = static_cast<int>(o.version());
  if (model_.opset_import_size() == 0) opset_ = 1;  // IR < 3: opset 1
  if (opset_ < kOnnxMinImportOpset || opset_ > kOnnxMaxImportOpset)
    Fail(StrCat("opset ", opset_, " is not supported (", kOnnxMinImportOpset, "..",
                kOnnxMaxImportOpset, ")"));
  if (!model_.has_graph()) Fail("the model has no graph");
  const ::onnx::GraphProto& g = model_.graph();
  if (g.sparse_initializer_size()) Fail("sparse initializers are not supported");
  for (const auto& t : g.initializer()) {
    if (t.name().empty()) Fail("an initializer has no name");
    if (consts_.count(t.name())) Fail(StrCat("initializer '", t.name(), "' is defined twice"));
    auto v = FromTensorProto(t, base_dir_, StrCat("initializer '", t.name(), "'"));
    ThrowIfError(v.status());
    consts_[t.name()] = *v;
  }
  // Graph inputs that are not initializers are the block's data inputs.
  std::vector<std::string> inputs;
  for (const auto& vi : g.input()) {
    if (consts_.count(vi.name())) continue;
    if (vi.name().empty()) Fail("a graph input has no name");
    if (values_.count(vi.name())) Fail(StrCat("graph input '", vi.name(), "' is declared twice"));
    sym::VarOptions o;
    if (vi.type().has_tensor_type()) {
      const auto& tt = vi.type().tensor_type();
      auto dt = FromOnnxType(tt.elem_type());
      if (!dt)
        Fail(StrCat("graph input '", vi.name(), "' has unsupported element type ", tt.elem_type()));
      o.dtype = *dt;
      if (tt.has_shape()) {
        if (tt.shape().dim_size() > 32)
          Fail(StrCat("graph input '", vi.name(), "' has rank above 32"));
        Shape s;
        for (const auto& d : tt.shape().dim()) {
          if (d.has_dim_value() && d.dim_value() < 0)
            Fail(StrCat("graph input '", vi.name(), "' has negative dim ", d.dim_value()));
          s.push_back(d.has_dim_value() ? d.dim_value() : 1);
        }
        input_shapes_[vi.name()] = s;
      }
    } else {
      Fail(StrCat("graph input '", vi.name(), "' is not a tensor"));
    }
    values_[vi.name()] = Symbol::Variable(vi.name(), o);
    used_names_.insert(vi.name());
    inputs.push_back(vi.name());
  }
  for (const auto& t : g.initializer()) used_names_.insert(t.name());

  // Nodes in dependency order (Kahn): a node runs once all its inputs exist. ONNX requires
  // topologically sorted nodes; unsorted files are accepted, cycles and dangling inputs refused.
  const int n = g.node_size();
  std::map<std::string, int> producer;
  for (int i = 0; i < n; ++i)
    for (const auto& o : g.node(i).output()) {
      if (o.empty()) continue;
      if (producer.count(o) || values_.count(o) || consts_.count(o))
        Fail(StrCat("tensor '", o, "' is produced twice (node '", g.node(i).name(), "')"));
      producer[o] = i;
    }
  std::vector<bool> done(n, false);
  auto ready = [&](int i) {
    for (const auto& in : g.node(i).input())
      if (!in.empty() && !values_.count(in) && !consts_.count(in)) return false;
    return true;
  };
  int remaining = n;
  while (remaining > 0) {
    bool progress = false;
    for (int i = 0; i < n; ++i) {
      if (done[i] || !ready(i)) continue;
      const auto& nd = g.node(i);
      node_ = &nd;
      if (!nd.domain().empty() && nd.domain() != "ai.onnx")
        Fail(StrCat("operator domain '", nd.domain(),
                    "' is not supported (only the default ai.onnx)"));
      auto it = Handlers().find(nd.op_type());
      if (it == Handlers().end())
        Fail(StrCat("unsupported ONNX operator '", nd.op_type(),
                    "' (importable: ", StrJoin(onnx_importable_ops(), ", "), ")"));
      try {
        it->second(*this, nd);
        if (nd.op_type() != "Constant") FoldConstants(nd);
      } catch (const Error& e) {
        if (StartsWith(e.what(), "ONNX import:")) throw;
        Fail(e.what());
      }
      node_ = nullptr;
      done[i] = true;
      --remaining;
      progress = true;
    }
    if (progress) continue;
    // Stuck: a missing input, or a cycle.
    for (int i = 0; i < n; ++i) {
      if (done[i]) continue;
      for (const auto& in : g.node(i).input())
        if (!in.empty() && !values_.count(in) && !consts_.count(in) && !producer.count(in))
          MX_THROW(absl::StatusCode::kInvalidArgument, "ONNX import: input '", in, "' of node '",
                   g.node(i).name(), "' (", g.node(i).op_type(),
                   ") is not produced by any node, graph input or initializer");
    }
    for (int i = 0; i < n; ++i)
      if (!done[i])
        MX_THROW(absl::StatusCode::kInvalidArgument,
                 "ONNX import: the graph has a cycle through node '", g.node(i).name(), "' (",
                 g.node(i).op_type(), ")");
  }

  if (g.output_size() == 0) Fail("the graph has no outputs");
  std::vector<Symbol> outs;
  for (const auto& o : g.output()) {
    auto it = values_.find(o.name());
    if (it != values_.end()) {
      outs.push_back(it->second);
    } else if (consts_.count(o.name())) {  // a constant output: a parameter passed through _copy
      ::onnx::NodeProto fake;
      fake.set_name(o.name());
      fake.set_op_type("Identity");
      fake.add_input(o.name());
      node_ = &fake;
      outs.push_back(Make("_copy", {In(0)}));
      node_ = nullptr;
    } else {
      Fail(StrCat("graph output '", o.name(), "' is not produced by any node"));
    }
  }
  Symbol graph = outs.size() == 1 ? outs[0] : Symbol::Group(outs);
  // Parameters the graph uses (a constant consumed only as an attribute is not one); graph
  // inputs no node reads are dropped.
  std::set<std::string> used;
  for (const auto& name : graph.list_inputs()) used.insert(name);
  std::vector<std::string> used_inputs;
  for (const auto& name : inputs)
    if (used.count(name)) used_inputs.push_back(name);
  auto block = std::make_shared<SymbolBlock>(graph, used_inputs);
  std::vector<std::pair<std::string, NDArray>> dict;
  for (const auto& [name, v] : params_)
    if (used.count(name)) dict.push_back({name, v});
  LoadParametersOptions lo;
  lo.devices = devices;
  ThrowIfError(block->load_dict(dict, lo, "the ONNX initializers"));
  return block;
}

// ---------------------------------------------------------------------------------------------
// Handlers.

using Im = Importer;
using NP = const ::onnx::NodeProto&;

// Symmetric pads (begin == end per axis) as MXNet's pad tuple.
Ints SymmetricPads(Im& x, const Ints& pads, int nd) {
  if (pads.empty()) return Ints(nd, 0);
  if (static_cast<int>(pads.size()) != 2 * nd)
    x.Fail(StrCat("pads has ", pads.size(), " entries, expected ", 2 * nd));
  Ints p(pads.begin(), pads.begin() + nd);
  for (int i = 0; i < nd; ++i)
    if (pads[i] != pads[nd + i] || pads[i] < 0)
      x.Fail(StrCat("pads ", TupleStr(pads),
                    " are asymmetric or negative (MXNet pads both sides "
                    "alike)"));
  return p;
}

void CheckAutoPad(Im& x) {
  std::string a = x.Str("auto_pad", "NOTSET");
  if (a != "NOTSET" && a != "VALID") x.Fail(StrCat("auto_pad ", a, " is not supported"));
}

void Conv(Im& x, NP, bool transpose) {
  CheckAutoPad(x);
  const Shape w = x.InShape(1);
  if (w.ndim() < 3) x.Fail(StrCat("weight of rank ", w.ndim()));
  const int nd = w.ndim() - 2;
  Ints kernel = x.IntsAttr("kernel_shape").value_or(Ints(w.begin() + 2, w.end()));
  if (static_cast<int>(kernel.size()) != nd) x.Fail("kernel_shape does not match the weight");
  const int64_t group = x.Int("group", 1);
  if (group < 1) x.Fail(StrCat("group ", group));
  AttrDict a = {{"kernel", TupleStr(kernel)},
                {"stride", TupleStr(x.IntsAttr("strides").value_or(Ints(nd, 1)))},
                {"dilate", TupleStr(x.IntsAttr("dilations").value_or(Ints(nd, 1)))},
                {"pad", TupleStr(SymmetricPads(x, x.IntsAttr("pads").value_or(Ints{}), nd))},
                {"num_group", StrCat(group)},
                {"no_bias", x.HasInput(2) ? "False" : "True"}};
  std::vector<Symbol> in = {x.In(0), x.In(1)};
  if (x.HasInput(2)) in.push_back(x.In(2));
  if (!transpose) {
    a["num_filter"] = StrCat(w[0]);
    x.Out("Convolution", in, a);
    return;
  }
  if (x.FindAttr("output_shape")) x.Fail("output_shape is not supported; give pads instead");
  a["num_filter"] = StrCat(w[1] * group);
  a["adj"] = TupleStr(x.IntsAttr("output_padding").value_or(Ints(nd, 0)));
  x.Out("Deconvolution", in, a);
}

void Pool(Im& x, NP nd, const std::string& type) {
  CheckAutoPad(x);
  Ints kernel = x.IntsAttr("kernel_shape").value_or(Ints{});
  if (kernel.empty()) x.Fail("kernel_shape is required");
  const int n = static_cast<int>(kernel.size());
  if (auto d = x.IntsAttr("dilations"))
    for (int64_t v : *d)
      if (v != 1) x.Fail("dilated pooling is not supported");
  if (x.Int("storage_order", 0) != 0) x.Fail("storage_order 1 is not supported");
  if (nd.output_size() > 1 && !nd.output(1).empty()) x.Fail("the Indices output is not supported");
  const Ints stride = x.IntsAttr("strides").value_or(Ints(n, 1));
  Ints pads = x.IntsAttr("pads").value_or(Ints(2 * n, 0));
  if (static_cast<int>(pads.size()) != 2 * n)
    x.Fail(StrCat("pads has ", pads.size(), " entries, expected ", 2 * n));
  std::string convention = x.Int("ceil_mode", 0) ? "full" : "valid";
  if (!std::equal(pads.begin(), pads.begin() + n, pads.begin() + n) &&
      (type == "max" || x.Int("count_include_pad", 0) == 0) && !x.Int("ceil_mode", 0)) {
    // Extra end padding that pads are excluded from (max, or avg not counting pads): MXNet's
    // `full` convention with the begin pads gives the same windows when the output sizes agree.
    const Shape s = x.InShape(0);
    bool same = s.ndim() == n + 2;
    for (int i = 0; same && i < n; ++i) {
      const int64_t b = pads[i], e = pads[n + i], h = s[2 + i];
      const int64_t onnx_out = (h + b + e - kernel[i]) / stride[i] + 1;
      const int64_t mx_out = (h + 2 * b - kernel[i] + stride[i] - 1) / stride[i] + 1;
      same = e >= b && onnx_out == mx_out;
    }
    if (same) {
      for (int i = 0; i < n; ++i) pads[n + i] = pads[i];
      convention = "full";
    }
  }
  AttrDict a = {{"kernel", TupleStr(kernel)},
                {"stride", TupleStr(stride)},
                {"pad", TupleStr(SymmetricPads(x, pads, n))},
                {"pool_type", type},
                {"pooling_convention", convention}};
  if (type == "avg") a["count_include_pad"] = x.Int("count_include_pad", 0) ? "True" : "False";
  if (type == "lp") a["p_value"] = StrCat(x.Int("p", 2));
  if (type == "avg" && x.Int("ceil_mode", 0) && x.Int("count_include_pad", 0)) {
    // ONNX Runtime divides a ceil-mode window that runs past the padded input by the whole
    // kernel; MXNet by its part inside. Pad with zeros to cover every window, pool without.
    const Shape s = x.InShape(0);
    if (s.ndim() != n + 2 || (n != 2 && n != 3))
      x.Fail("ceil-mode average pooling counting pads is supported for 2-D and 3-D pools");
    Ints pad = SymmetricPads(x, pads, n);
    Ints width(2 * (n + 2), 0);
    for (int i = 0; i < n; ++i) {
      const int64_t padded = s[2 + i] + 2 * pad[i];
      const int64_t outd = (padded - kernel[i] + stride[i] - 1) / stride[i] + 1;
      width[4 + 2 * i] = pad[i];
      width[5 + 2 * i] = pad[i] + std::max<int64_t>(0, (outd - 1) * stride[i] + kernel[i] - padded);
    }
    Symbol padded =
        x.Make("Pad", {x.In(0)}, {{"mode", "constant"}, {"pad_width", TupleStr(width)}});
    a["pad"] = TupleStr(Ints(n, 0));
    a["pooling_convention"] = "valid";
    x.Out("Pooling", {padded}, a);
    return;
  }
  x.Out("Pooling", {x.In(0)}, a);
}

void GlobalPool(Im& x, const std::string& type) {
  AttrDict a = {{"global_pool", "True"}, {"pool_type", type}, {"kernel", "(1, 1)"}};
  const int r = x.InRank(0);
  a["kernel"] = TupleStr(Ints(std::max(1, r - 2), 1));
  if (type == "lp") a["p_value"] = StrCat(x.Int("p", 2));
  x.Out("Pooling", {x.In(0)}, a);
}

void Gemm(Im& x, NP) {
  const double alpha = x.Float("alpha", 1.0), beta = x.Float("beta", 1.0);
  const bool ta = x.Int("transA", 0) != 0, tb = x.Int("transB", 0) != 0;
  Symbol a = x.In(0);
  if (ta) a = x.Make("transpose", {a});
  if (alpha == 1.0 && beta == 1.0 && tb && (!x.HasInput(2) || x.InRank(2) == 1)) {
    const Shape w = x.InShape(1);
    std::vector<Symbol> in = {a, x.In(1)};
    if (x.HasInput(2)) in.push_back(x.In(2));
    x.Out("FullyConnected", in,
          {{"num_hidden", StrCat(w[0])},
           {"no_bias", x.HasInput(2) ? "False" : "True"},
           {"flatten", "True"}});
    return;
  }
  Symbol y = x.Make("dot", {a, x.In(1)}, {{"transpose_b", tb ? "True" : "False"}});
  if (alpha != 1.0) y = x.Make("_mul_scalar", {y}, {{"scalar", FloatStr(alpha)}});
  if (x.HasInput(2)) {
    Symbol c = x.In(2);
    if (beta != 1.0) c = x.Make("_mul_scalar", {c}, {{"scalar", FloatStr(beta)}});
    y = x.Make("broadcast_add", {y, c});
  }
  x.SetOut(0, y);
}

void MatMul(Im& x, NP) {
  const int ra = x.InRank(0), rb = x.InRank(1);
  if (ra == 2 && rb == 2)
    x.Out("dot", {x.In(0), x.In(1)});
  else
    x.Out("_npi_matmul", {x.In(0), x.In(1)});
}

void BatchNorm(Im& x, NP nd) {
  if (x.Int("training_mode", 0)) x.Fail("training_mode 1 is not supported");
  if (x.opset() < 9 && x.Int("spatial", 1) != 1) x.Fail("spatial 0 is not supported");
  for (int k = 1; k < nd.output_size(); ++k)
    if (!nd.output(k).empty()) x.Fail("only the Y output is supported");
  x.Out("BatchNorm", {x.In(0), x.In(1), x.In(2), x.In(3), x.In(4)},
        {{"eps", FloatStr(x.Float("epsilon", 1e-5))},
         {"momentum", FloatStr(x.Float("momentum", 0.9))},
         {"fix_gamma", "False"}});
}

Handler Act(const std::string& act) {
  return [act](Im& x, NP) { x.Out("Activation", {x.In(0)}, {{"act_type", act}}); };
}
Handler UnaryOp(const std::string& op) {
  return [op](Im& x, NP) { x.Out(op, {x.In(0)}); };
}

// Binary arithmetic with ONNX broadcasting; a one-value constant operand becomes a scalar op.
Handler BinaryOp(const std::string& bop, const std::string& scalar, const std::string& rscalar) {
  return [=](Im& x, NP) {
    if (x.IsConst(1) && x.ConstValue(1).size() == 1 && x.ConstValue(1).shape().ndim() <= 1 &&
        !scalar.empty() && !x.IsConst(0)) {
      x.Out(scalar, {x.In(0)}, {{"scalar", FloatStr(x.ConstScalar(1))}});
      return;
    }
    if (x.IsConst(0) && x.ConstValue(0).size() == 1 && x.ConstValue(0).shape().ndim() <= 1 &&
        !rscalar.empty() && !x.IsConst(1)) {
      x.Out(rscalar, {x.In(1)}, {{"scalar", FloatStr(x.ConstScalar(0))}});
      return;
    }
    x.Out(bop, {x.In(0), x.In(1)});
  };
}

// Variadic Sum/Max/Min/Mean as a chain of broadcasting binary ops.
Handler Variadic(const std::string& bop, bool mean) {
  return [=](Im& x, NP nd) {
    const int n = x.num_inputs();
    if (n < 1) x.Fail("needs at least one input");
    Symbol y = x.In(0);
    for (int k = 1; k < n; ++k) y = x.Make(bop, {y, x.In(k)});
    if (mean && n > 1) y = x.Make("_div_scalar", {y}, {{"scalar", StrCat(n)}});
    if (n == 1) y = x.Make("_copy", {y});
    x.SetOut(0, y);
  };
}

void Clip(Im& x, NP) {
  double lo = -std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::max();
  if (x.opset() < 11) {
    lo = x.Float("min", lo);
    hi = x.Float("max", hi);
  } else {
    if (x.HasInput(1)) lo = x.ConstScalar(1);
    if (x.HasInput(2)) hi = x.ConstScalar(2);
  }
  x.Out("clip", {x.In(0)}, {{"a_min", FloatStr(lo)}, {"a_max", FloatStr(hi)}});
}

void Flatten(Im& x, NP) {
  int64_t axis = x.Int("axis", 1);
  if (axis == 1) {
    x.Out("Flatten", {x.In(0)});
    return;
  }
  const int r = x.InRank(0);
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) x.Fail(StrCat("axis ", x.Int("axis", 1), " for rank ", r));
  // (prod(dims[:axis]), prod(dims[axis:])) from the inferred shape.
  Shape s = x.InShape(0);
  int64_t a = 1, b = 1;
  for (int i = 0; i < r; ++i) (i < axis ? a : b) *= s[i];
  x.Out("Reshape", {x.In(0)}, {{"shape", TupleStr({a, b})}});
}

void Reshape(Im& x, NP) {
  Ints shape = x.opset() < 5 ? x.IntsAttr("shape").value_or(Ints{}) : x.ConstInts(1);
  if (x.Int("allowzero", 0))
    for (int64_t v : shape)
      if (v == 0) x.Fail("allowzero with a zero dim is not supported");
  for (int64_t v : shape)
    if (v < -1) x.Fail(StrCat("shape ", TupleStr(shape), " has a negative dim other than -1"));
  x.Out("Reshape", {x.In(0)}, {{"shape", TupleStr(shape)}});
}

void Transpose(Im& x, NP) {
  if (auto perm = x.IntsAttr("perm"))
    x.Out("transpose", {x.In(0)}, {{"axes", TupleStr(*perm)}});
  else
    x.Out("transpose", {x.In(0)});
}

Ints AxesOf(Im& x, int input) {
  if (x.opset() >= 13) return x.HasInput(input) ? x.ConstInts(input) : Ints{};
  return x.IntsAttr("axes").value_or(Ints{});
}

void Unsqueeze(Im& x, NP) {
  Ints axes = AxesOf(x, 1);
  if (axes.empty()) x.Fail("axes are required");
  bool neg = axes[0] < 0;
  for (int64_t a : axes)
    if ((a < 0) != neg) x.Fail("axes mixing negative and non-negative values are not supported");
  // Non-negative: ascending; negative: -1, -2, ... (each a position in the final rank).
  std::sort(axes.begin(), axes.end());
  if (neg) std::reverse(axes.begin(), axes.end());
  Symbol y = x.In(0);
  for (int64_t a : axes) y = x.Make("expand_dims", {y}, {{"axis", StrCat(a)}});
  x.SetOut(0, y);
}

void Squeeze(Im& x, NP) {
  Ints axes = AxesOf(x, 1);
  if (axes.empty())
    x.Out("squeeze", {x.In(0)});
  else
    x.Out("squeeze", {x.In(0)}, {{"axis", TupleStr(axes)}});
}

void Concat(Im& x, NP) {
  std::vector<Symbol> in;
  for (int k = 0; k < x.num_inputs(); ++k) in.push_back(x.In(k));
  if (in.empty()) x.Fail("needs inputs");
  x.Out("Concat", in, {{"dim", StrCat(x.Int("axis", 1))}, {"num_args", StrCat(in.size())}});
}

void Slice(Im& x, NP) {
  Ints starts, ends, axes, steps;
  if (x.opset() < 10) {
    starts = x.IntsAttr("starts").value_or(Ints{});
    ends = x.IntsAttr("ends").value_or(Ints{});
    axes = x.IntsAttr("axes").value_or(Ints{});
  } else {
    starts = x.ConstInts(1);
    ends = x.ConstInts(2);
    if (x.HasInput(3)) axes = x.ConstInts(3);
    if (x.HasInput(4)) steps = x.ConstInts(4);
  }
  if (starts.size() != ends.size()) x.Fail("starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    x.Fail("starts, ends, axes and steps differ in length");
  // Only the rank is taken from inference (dims may be symbolic); bounds stay relative (negative
  // counts from the end, as in MXNet's slice), and ONNX's open ends (|v| >= 2^31, e.g. INT64_MAX)
  // become None.
  const int rank = x.InRank(0);
  Symbol y = x.In(0);
  constexpr int64_t kOpen = int64_t{1} << 31;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
    if (axis < 0 || axis >= rank) x.Fail(StrCat("axis ", axes[i], " out of range"));
    const int64_t step = steps[i];
    if (step == 0) x.Fail("step 0");
    std::optional<int64_t> b = starts[i], e = ends[i];
    if (step > 0) {
      if (*b <= -kOpen) b = std::nullopt;
      if (*e >= kOpen) e = std::nullopt;
    } else {
      if (*b >= kOpen) b = std::nullopt;
      if (*e <= -kOpen) e = std::nullopt;
    }
    if (step == 1 && (!b || *b == 0) && !e) continue;  // the whole axis
    std::string begin = "(", end = "(", st = "(";
    for (int64_t k = 0; k <= axis; ++k) {
      const bool last = k == axis;
      StrAppend(&begin, last ? (b ? StrCat(*b) : "None") : "None", last ? "" : ", ");
      StrAppend(&end, last ? (e ? StrCat(*e) : "None") : "None", last ? "" : ", ");
      StrAppend(&st, last ? StrCat(step) : "1", last ? "" : ", ");
    }
    auto close = [&](std::string& t) { t += axis == 0 ? ",)" : ")"; };
    close(begin), close(end), close(st);
    y = x.Make("slice", {y}, {{"begin", begin}, {"end", end}, {"step", st}});
  }
  x.SetOut(0, y);
}

void SoftmaxLike(Im& x, NP, const std::string& op) {
  int64_t axis = x.Int("axis", x.opset() >= 13 ? -1 : 1);
  if (x.opset() < 13) {  // coerced to 2-D at axis: equal to a per-axis softmax when axis is last
    const int r = x.InRank(0);
    if (axis < 0) axis += r;
    if (axis != r - 1)
      x.Fail(StrCat("opset ", x.opset(), " softmax over axes ", axis, ".. of a rank-", r,
                    " input is not supported (only the last axis)"));
  }
  x.Out(op, {x.In(0)}, {{"axis", StrCat(axis)}});
}

void Cast(Im& x, NP) {
  auto dt = FromOnnxType(static_cast<int>(x.Int("to", 1)));
  if (!dt) x.Fail(StrCat("cast to element type ", x.Int("to", 1), " is not supported"));
  x.Out("cast", {x.In(0)}, {{"dtype", std::string(DTypeName(*dt))}});
}

void Gather(Im& x, NP) {
  x.Out("take", {x.In(0), x.In(1)}, {{"axis", StrCat(x.Int("axis", 0))}, {"mode", "clip"}});
}

Handler ReduceOp(const std::string& op) {
  return [op](Im& x, NP) {
    // axes: an input for ReduceSum from opset 13 and for the others from opset 18.
    Ints axes = x.opset() >= (op == "sum" ? 13 : 18) ? (x.HasInput(1) ? x.ConstInts(1) : Ints{})
                                                     : x.IntsAttr("axes").value_or(Ints{});
    const bool keep = x.Int("keepdims", 1) != 0;
    if (axes.empty() && x.Int("noop_with_empty_axes", 0)) {
      x.Out("_copy", {x.In(0)});
      return;
    }
    AttrDict a = {{"keepdims", keep ? "True" : "False"}};
    if (!axes.empty()) a["axis"] = TupleStr(axes);
    if (op == "l1" || op == "l2") {
      a["ord"] = op == "l1" ? "1" : "2";
      x.Out("norm", {x.In(0)}, a);
    } else {
      x.Out(op, {x.In(0)}, a);
    }
  };
}

Handler ArgOp(const std::string& op) {
  return [op](Im& x, NP) {
    if (x.Int("select_last_index", 0)) x.Fail("select_last_index 1 is not supported");
    Symbol y = x.Make(op, {x.In(0)},
                      {{"axis", StrCat(x.Int("axis", 0))},
                       {"keepdims", x.Int("keepdims", 1) ? "True" : "False"}});
    x.Out("cast", {y}, {{"dtype", "int64"}});
  };
}

void Expand(Im& x, NP) {
  Ints shape = x.ConstInts(1);
  const int r = x.InRank(0);
  Symbol y = x.In(0);
  for (int i = r; i < static_cast<int>(shape.size()); ++i)
    y = x.Make("expand_dims", {y}, {{"axis", "0"}});
  const int rr = std::max<int>(r, static_cast<int>(shape.size()));
  Ints target(rr, 0);  // 0: keep the input's dim
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1) target[rr - shape.size() + i] = shape[i];
  x.Out("broadcast_to", {y}, {{"shape", TupleStr(target)}});
}

void Constant(Im& x, NP nd) {
  const ::onnx::AttributeProto* a = nullptr;
  for (const auto& at : nd.attribute()) a = &at;
  if (nd.attribute_size() != 1 || !a) x.Fail("needs exactly one value attribute");
  NDArray v;
  if (a->name() == "value") {
    auto r = FromTensorProto(a->t(), "", StrCat("Constant '", nd.name(), "'"));
    ThrowIfError(r.status());
    v = *r;
  } else if (a->name() == "value_float") {
    v = NDArray::FromVector(std::vector<float>{a->f()}, Shape{});
  } else if (a->name() == "value_int") {
    v = NDArray::FromVector(std::vector<int64_t>{a->i()}, Shape{}, cpu(), DType::kInt64);
  } else if (a->name() == "value_floats") {
    std::vector<float> f(a->floats().begin(), a->floats().end());
    v = NDArray::FromVector(f, Shape{static_cast<int64_t>(f.size())});
  } else if (a->name() == "value_ints") {
    Ints i(a->ints().begin(), a->ints().end());
    v = NDArray::FromVector(i, Shape{static_cast<int64_t>(i.size())}, cpu(), DType::kInt64);
  } else {
    x.Fail(StrCat("value attribute '", a->name(), "' is not supported"));
  }
  x.SetConstOut(0, v);
}

void ConstantOfShape(Im& x, NP nd) {
  DType t = DType::kFloat32;
  double value = 0;
  if (const auto* a = x.FindAttr("value")) {
    auto r = FromTensorProto(a->t(), "", "ConstantOfShape value");
    ThrowIfError(r.status());
    if (r->size() != 1) x.Fail("value must hold one element");
    t = r->dtype();
    value = r->ToVector<double>()[0];
  }
  if (!x.IsConst(0)) {  // ConstantOfShape(Shape(y)): a constant like y
    std::string src = x.ShapeSource(0);
    if (src.empty()) x.Fail("input 0 must be a constant or the output of a Shape node");
    Symbol z = x.Make("zeros_like", {x.Value(src)});
    if (value != 0) z = x.Make("_plus_scalar", {z}, {{"scalar", FloatStr(value)}});
    x.Out("cast", {z}, {{"dtype", std::string(DTypeName(t))}});
    return;
  }
  Ints shape = x.ConstInts(0);
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d > 0 && n > (int64_t{1} << 31) / d))
      x.Fail(StrCat("shape ", TupleStr(shape), " is too large"));
    n *= d;
  }
  x.SetConstOut(0, NDArray::Full(Shape(shape), value, cpu(), t));
}

void Pad(Im& x, NP) {
  Ints pads = x.opset() < 11 ? x.IntsAttr("pads").value_or(Ints{}) : x.ConstInts(1);
  const std::string mode = x.Str("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect") x.Fail(StrCat("mode ", mode));
  double value = x.opset() < 11 ? x.Float("value", 0) : (x.HasInput(2) ? x.ConstScalar(2) : 0.0);
  if (x.HasInput(3)) x.Fail("the axes input is not supported");
  const int r = static_cast<int>(pads.size() / 2);
  Ints width;
  for (int i = 0; i < r; ++i) {
    width.push_back(pads[i]);
    width.push_back(pads[r + i]);
  }
  x.Out("Pad", {x.In(0)},
        {{"mode", mode}, {"pad_width", TupleStr(width)}, {"constant_value", FloatStr(value)}});
}

void Split(Im& x, NP nd) {
  int64_t axis = x.Int("axis", 0);
  Ints split = x.opset() >= 13 ? (x.HasInput(1) ? x.ConstInts(1) : Ints{})
                               : x.IntsAttr("split").value_or(Ints{});
  const int n = nd.output_size();
  if (n < 1) x.Fail("needs outputs");
  if (const auto* a = x.FindAttr("num_outputs"); a && a->i() != n)
    x.Fail(StrCat("num_outputs ", a->i(), " differs from the ", n, " outputs"));
  Symbol y;
  if (split.empty()) {
    y = x.Make("SliceChannel", {x.In(0)}, {{"num_outputs", StrCat(n)}, {"axis", StrCat(axis)}});
  } else {
    if (static_cast<int>(split.size()) != n) x.Fail("split sizes do not match the outputs");
    Ints idx = {0};
    for (int i = 0; i + 1 < n; ++i) idx.push_back(idx.back() + split[i]);
    y = x.Make("_split_v2", {x.In(0)}, {{"indices", TupleStr(idx)}, {"axis", StrCat(axis)}});
  }
  for (int k = 0; k < n; ++k) x.SetOut(k, n == 1 ? y : y[static_cast<size_t>(k)]);
}

void Tile(Im& x, NP) { x.Out("tile", {x.In(0)}, {{"reps", TupleStr(x.ConstInts(1))}}); }

void PRelu(Im& x, NP) {
  // MXNet's prelu takes gamma (C,) along axis 1: reshape a (C, 1, ..., 1) slope.
  Shape g = x.InShape(1);
  Symbol slope = x.In(1);
  if (g.ndim() > 1) {
    for (int i = 1; i < g.ndim(); ++i)
      if (g[i] != 1) x.Fail(StrCat("slope shape ", g.ToString(), " is not per-channel"));
    slope = x.Make("Reshape", {slope}, {{"shape", TupleStr({g[0]})}});
  }
  x.Out("LeakyReLU", {x.In(0), slope}, {{"act_type", "prelu"}});
}

void Resize(Im& x, NP nd) {
  const std::string mode = x.Str("mode", "nearest");
  if (mode != "nearest") x.Fail(StrCat("mode ", mode, " is not supported (only nearest)"));
  Shape in = x.InShape(0);
  std::vector<double> scales;
  int scales_input = nd.op_type() == "Upsample" ? 1 : (x.opset() >= 11 ? 2 : 1);
  if (x.HasInput(scales_input) && x.ConstValue(scales_input).size() > 0) {
    scales = x.ConstValue(scales_input).ToVector<double>();
  } else if (x.opset() >= 11 && x.HasInput(3)) {
    Ints sizes = x.ConstInts(3);
    for (size_t i = 0; i < sizes.size() && static_cast<int>(i) < in.ndim(); ++i)
      scales.push_back(static_cast<double>(sizes[i]) /
                       static_cast<double>(in[static_cast<int>(i)]));
  }
  if (scales.size() != 4 || scales[0] != 1 || scales[1] != 1 || scales[2] != scales[3] ||
      scales[2] != std::floor(scales[2]) || scales[2] < 1)
    x.Fail("only nearest upsampling of NCHW by one integer factor on H and W is supported");
  x.Out("UpSampling", {x.In(0)},
        {{"scale", StrCat(static_cast<int64_t>(scales[2]))},
         {"sample_type", "nearest"},
         {"num_args", "1"}});
}

void Where(Im& x, NP) { x.Out("where", {x.In(0), x.In(1), x.In(2)}); }

const std::map<std::string, Handler>& Handlers() {
  static const auto* h = new std::map<std::string, Handler>([] {
    std::map<std::string, Handler> m;
    m["Conv"] = [](Im& x, NP n) { Conv(x, n, false); };
    m["ConvTranspose"] = [](Im& x, NP n) { Conv(x, n, true); };
    m["MaxPool"] = [](Im& x, NP n) { Pool(x, n, "max"); };
    m["AveragePool"] = [](Im& x, NP n) { Pool(x, n, "avg"); };
    m["LpPool"] = [](Im& x, NP n) { Pool(x, n, "lp"); };
    m["GlobalMaxPool"] = [](Im& x, NP) { GlobalPool(x, "max"); };
    m["GlobalAveragePool"] = [](Im& x, NP) { GlobalPool(x, "avg"); };
    m["GlobalLpPool"] = [](Im& x, NP) { GlobalPool(x, "lp"); };
    m["Gemm"] = Gemm;
    m["MatMul"] = MatMul;
    m["BatchNormalization"] = BatchNorm;
    m["Relu"] = Act("relu");
    m["Sigmoid"] = Act("sigmoid");
    m["Tanh"] = Act("tanh");
    m["Softplus"] = Act("softrelu");
    m["Softsign"] = Act("softsign");
    m["LeakyRelu"] = [](Im& x, NP) {
      x.Out("LeakyReLU", {x.In(0)},
            {{"act_type", "leaky"}, {"slope", FloatStr(x.Float("alpha", 0.01))}});
    };
    m["Elu"] = [](Im& x, NP) {
      x.Out("LeakyReLU", {x.In(0)},
            {{"act_type", "elu"}, {"slope", FloatStr(x.Float("alpha", 1.0))}});
    };
    m["Selu"] = [](Im& x, NP) {
      if (std::abs(x.Float("alpha", 1.67326319217681884765625) - 1.6732632) > 1e-6 ||
          std::abs(x.Float("gamma", 1.05070102214813232421875) - 1.0507010) > 1e-6)
        x.Fail("only the standard alpha and gamma are supported");
      x.Out("LeakyReLU", {x.In(0)}, {{"act_type", "selu"}});
    };
    m["PRelu"] = PRelu;
    m["HardSigmoid"] = [](Im& x, NP) {
      x.Out("hard_sigmoid", {x.In(0)},
            {{"alpha", FloatStr(x.Float("alpha", 0.2))}, {"beta", FloatStr(x.Float("beta", 0.5))}});
    };
    m["Clip"] = Clip;
    m["Flatten"] = Flatten;
    m["Reshape"] = Reshape;
    m["Transpose"] = Transpose;
    m["Unsqueeze"] = Unsqueeze;
    m["Squeeze"] = Squeeze;
    m["Concat"] = Concat;
    m["Slice"] = Slice;
    m["Softmax"] = [](Im& x, NP n) { SoftmaxLike(x, n, "softmax"); };
    m["LogSoftmax"] = [](Im& x, NP n) { SoftmaxLike(x, n, "log_softmax"); };
    m["Cast"] = Cast;
    m["Gather"] = Gather;
    m["Expand"] = Expand;
    m["Constant"] = Constant;
    m["ConstantOfShape"] = ConstantOfShape;
    m["Pad"] = Pad;
    m["Split"] = Split;
    m["Tile"] = Tile;
    m["Where"] = Where;
    m["Resize"] = Resize;
    m["Upsample"] = Resize;
    m["Shape"] = [](Im& x, NP) {
      if (x.FindAttr("start") || x.FindAttr("end")) x.Fail("start/end are not supported");
      x.Out("shape_array", {x.In(0)});
      x.NoteShapeOf(x.node().input(0));
    };
    m["InstanceNormalization"] = [](Im& x, NP) {
      x.Out("InstanceNorm", {x.In(0), x.In(1), x.In(2)},
            {{"eps", FloatStr(x.Float("epsilon", 1e-5))}});
    };
    m["LayerNormalization"] = [](Im& x, NP n) {
      for (int k = 1; k < n.output_size(); ++k)
        if (!n.output(k).empty()) x.Fail("only the Y output is supported");
      int64_t axis = x.Int("axis", -1);
      if (axis != -1 && axis != x.InRank(0) - 1) x.Fail("only axis -1 is supported");
      if (!x.HasInput(2)) x.Fail("a missing bias B is not supported");
      x.Out("LayerNorm", {x.In(0), x.In(1), x.In(2)},
            {{"axis", "-1"}, {"eps", FloatStr(x.Float("epsilon", 1e-5))}});
    };
    m["Dropout"] = [](Im& x, NP n) {
      if (n.output_size() > 1 && !n.output(1).empty()) x.Fail("the mask output is not supported");
      x.Out("_copy", {x.In(0)});
    };
    m["Identity"] = UnaryOp("_copy");
    const std::pair<const char*, const char*> unary[] = {
        {"Exp", "exp"},       {"Log", "log"},        {"Sqrt", "sqrt"},
        {"Abs", "abs"},       {"Neg", "negative"},   {"Reciprocal", "reciprocal"},
        {"Floor", "floor"},   {"Ceil", "ceil"},      {"Sin", "sin"},
        {"Cos", "cos"},       {"Tan", "tan"},        {"Asin", "arcsin"},
        {"Acos", "arccos"},   {"Atan", "arctan"},    {"Sinh", "sinh"},
        {"Cosh", "cosh"},     {"Asinh", "arcsinh"},  {"Acosh", "arccosh"},
        {"Atanh", "arctanh"}, {"Erf", "erf"},        {"Sign", "sign"},
        {"Round", "rint"},    {"Not", "logical_not"}};
    for (const auto& [a, b] : unary) m[a] = UnaryOp(b);
    m["Add"] = BinaryOp("broadcast_add", "_plus_scalar", "_plus_scalar");
    m["Sub"] = BinaryOp("broadcast_sub", "_minus_scalar", "_rminus_scalar");
    m["Mul"] = BinaryOp("broadcast_mul", "_mul_scalar", "_mul_scalar");
    m["Div"] = BinaryOp("broadcast_div", "_div_scalar", "_rdiv_scalar");
    m["Pow"] = BinaryOp("broadcast_power", "_power_scalar", "_rpower_scalar");
    m["Equal"] = BinaryOp("broadcast_equal", "", "");
    m["Greater"] = BinaryOp("broadcast_greater", "", "");
    m["GreaterOrEqual"] = BinaryOp("broadcast_greater_equal", "", "");
    m["Less"] = BinaryOp("broadcast_lesser", "", "");
    m["LessOrEqual"] = BinaryOp("broadcast_lesser_equal", "", "");
    m["Sum"] = Variadic("broadcast_add", false);
    m["Mean"] = Variadic("broadcast_add", true);
    m["Max"] = Variadic("broadcast_maximum", false);
    m["Min"] = Variadic("broadcast_minimum", false);
    m["ReduceSum"] = ReduceOp("sum");
    m["ReduceMean"] = ReduceOp("mean");
    m["ReduceMax"] = ReduceOp("max");
    m["ReduceMin"] = ReduceOp("min");
    m["ReduceProd"] = ReduceOp("prod");
    m["ReduceL1"] = ReduceOp("l1");
    m["ReduceL2"] = ReduceOp("l2");
    m["ArgMax"] = ArgOp("argmax");
    m["ArgMin"] = ArgOp("argmin");
    return m;
  }());
  return *h;
}

}  // namespace

absl::StatusOr<std::shared_ptr<SymbolBlock>> imports_onnx_from_string(
    std::string_view bytes, const std::string& base_dir, const std::vector<Device>& devices) {
  ::onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    return absl::InvalidArgumentError("ONNX import: the model is larger than 2 GiB");
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return absl::InvalidArgumentError(
        "ONNX import: not an ONNX model (the protobuf does not parse: truncated or corrupt)");
  std::shared_ptr<SymbolBlock> block;
  MX_RETURN_IF_ERROR(StatusFromCall([&] {
    Importer im(model, base_dir);
    block = im.Run(devices);
  }));
  return block;
}

absl::StatusOr<std::shared_ptr<SymbolBlock>> imports_onnx(const std::string& path,
                                                          const std::vector<Device>& devices) {
  MX_ASSIGN_OR_RETURN(std::string bytes,
                      onnx_internal::ReadFile(path, std::numeric_limits<int>::max()));
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  auto r = imports_onnx_from_string(bytes, dir, devices);
  if (!r.ok()) return absl::Status(r.status().code(), StrCat(path, ": ", r.status().message()));
  return r;
}

std::vector<std::string> onnx_importable_ops() {
  std::vector<std::string> v;
  for (const auto& [name, _] : Handlers()) v.push_back(name);
  return v;
}

}  // namespace mxnet::gluon
