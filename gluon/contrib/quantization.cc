// quantize_net: MXNet 1.9.1's CPU (MKLDNN_QUANTIZE) post-training quantization; quantization.h.
#include "gluon/contrib/quantization.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "base/error.h"
#include "base/strings.h"
#include "ndarray/io.h"
#include "ndarray/ops/quantization/quant_api.h"
#include "symbol/control_flow.h"
#include "symbol/executor.h"
#include "symbol/node_params.h"

namespace mxnet::gluon::contrib::quantization {
namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
using sym::MakeOpNode;
using sym::Node;
using sym::NodeEntry;
using sym::Symbol;
using NodePtr = std::shared_ptr<Node>;
using Key = std::pair<const Node*, int>;

Key KeyOf(const NodeEntry& e) { return {e.node.get(), e.index}; }

// MXNet prints calibrated ranges with 6 decimals; we keep every float32 digit.
std::string FloatStr(float v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(v));
  return buf;
}

std::string EntryName(const NodeEntry& e) {
  if (e.node->is_variable()) return e.node->name;
  return Symbol({e}).list_outputs().at(0);
}

NodePtr MakeOp(const std::string& op_name, const std::string& name, AttrDict params,
               std::vector<NodeEntry> inputs) {
  return MakeOpNode(OpRegistry::Get(op_name), name, std::move(params), std::move(inputs));
}

NodePtr MakeVar(const std::string& name) {
  auto n = std::make_shared<Node>();
  n->name = name;
  return n;
}

bool IsRelu(const Node& n) {
  if (!n.op) return false;
  if (n.op->name == "relu") return false;  // MXNet's oneDNN fusion takes Activation only
  if (n.op->name != "Activation") return false;
  auto it = n.params.find("act_type");
  return it != n.params.end() && it->second == "relu";
}

// One fused or quantized node of the plan.
struct Group {
  enum Kind { kConv, kFC, kPool, kFlatten } kind;
  std::vector<NodePtr> chain;  // float nodes, first to last
  bool with_bn = false, with_act = false, with_sum = false, with_postsum_act = false;
  NodeEntry data, sum;  // quantized inputs (float graph entries)
  NodeEntry out;        // the float entry the group replaces
};

class Quantizer {
 public:
  Quantizer(const Symbol& sym, const QuantizeNetOptions& o) : sym_(sym), o_(o) {
    nodes_ = sym.TopoNodes();
    for (const NodePtr& n : nodes_)
      for (const NodeEntry& e : n->inputs) ++uses_[KeyOf(e)];
    for (const NodeEntry& e : sym.outputs()) ++uses_[KeyOf(e)];
  }

  void Plan() {
    std::set<const Node*> taken;
    for (const NodePtr& n : nodes_) {
      if (n->is_variable() || taken.count(n.get()) || Excluded(*n)) continue;
      Group g;
      const std::string& op = n->op->name;
      if (op == "Convolution" && Is2D(*n)) {
        g.kind = Group::kConv;
        g.data = n->inputs[0];
        g.chain.push_back(n);
        NodeEntry cur{n, 0};
        if (Node* c = SoleUser(cur); c && c->op->name == "BatchNorm" &&
                                     SameEntry(c->inputs[0], cur) && !Used(Key{c, 1}) &&
                                     !Used(Key{c, 2}) && !Excluded(*c)) {
          g.with_bn = true;
          g.chain.push_back(Find(c));
          cur = NodeEntry{g.chain.back(), 0};
        }
        if (Node* c = SoleUser(cur); c && IsRelu(*c) && !Excluded(*c)) {
          g.with_act = true;
          g.chain.push_back(Find(c));
          cur = NodeEntry{g.chain.back(), 0};
        } else if (c &&
                   (c->op->name == "elemwise_add" || c->op->name == "_Plus" ||
                    c->op->name == "_plus" || c->op->name == "_add") &&
                   c->inputs.size() == 2 && !Excluded(*c)) {
          const int other = SameEntry(c->inputs[0], cur) ? 1 : 0;
          if (!SameEntry(c->inputs[other], cur) && !SameEntry(c->inputs[other], g.data)) {
            g.with_sum = true;
            g.sum = c->inputs[other];
            g.chain.push_back(Find(c));
            cur = NodeEntry{g.chain.back(), 0};
            if (Node* r = SoleUser(cur); r && IsRelu(*r) && !Excluded(*r)) {
              g.with_postsum_act = true;
              g.chain.push_back(Find(r));
              cur = NodeEntry{g.chain.back(), 0};
            }
          }
        }
        g.out = cur;
      } else if (op == "FullyConnected" && ParamsAreVariables(*n)) {
        g.kind = Group::kFC;
        g.data = n->inputs[0];
        g.chain.push_back(n);
        NodeEntry cur{n, 0};
        if (Node* c = SoleUser(cur); c && IsRelu(*c) && !Excluded(*c)) {
          g.with_act = true;
          g.chain.push_back(Find(c));
          cur = NodeEntry{g.chain.back(), 0};
        }
        g.out = cur;
      } else if ((op == "Pooling" || op == "Flatten") && quantized_.count(KeyOf(n->inputs[0]))) {
        auto pt = n->params.find("pool_type");
        if (op == "Pooling" && pt != n->params.end() && pt->second != "max" && pt->second != "avg")
          continue;
        g.kind = op == "Pooling" ? Group::kPool : Group::kFlatten;
        g.data = n->inputs[0];
        g.chain.push_back(n);
        g.out = NodeEntry{n, 0};
      } else {
        continue;
      }
      for (const NodePtr& c : g.chain) taken.insert(c.get());
      if (g.kind != Group::kFC) quantized_.insert(KeyOf(g.out));
      if (g.kind == Group::kConv) calib_.push_back(g.out);
      for (const NodeEntry* in : {&g.data, g.with_sum ? &g.sum : nullptr})
        if (in && !quantized_.count(KeyOf(*in)) && !need_quantize_.count(KeyOf(*in))) {
          need_quantize_.insert(KeyOf(*in));
          calib_.push_back(*in);
        }
      group_of_[g.chain.back().get()] = groups_.size();
      for (const NodePtr& c : g.chain) member_.insert(c.get());
      groups_.push_back(std::move(g));
    }
  }

  const std::vector<NodeEntry>& calib_entries() const { return calib_; }

  // Builds the quantized graph; th: calibrated ranges by float entry (may be empty).
  Symbol Build(const std::map<Key, std::pair<float, float>>& th,
               std::map<std::string, NDArray>* args, std::vector<std::string>* qnames) {
    th_ = &th;
    args_ = args;
    for (const NodePtr& n : nodes_) {
      if (n->is_variable()) {
        float_[{n.get(), 0}] = NodeEntry{n, 0};
        continue;
      }
      auto g = group_of_.find(n.get());
      if (g != group_of_.end()) {
        EmitGroup(groups_[g->second], qnames);
        continue;
      }
      if (member_.count(n.get())) continue;  // inner node of a fused group
      auto copy = std::make_shared<Node>(*n);
      for (NodeEntry& e : copy->inputs) e = FloatOf(e);
      for (int i = 0; i < copy->num_outputs(); ++i) float_[{n.get(), i}] = NodeEntry{copy, i};
    }
    std::vector<NodeEntry> heads;
    for (const NodeEntry& e : sym_.outputs()) heads.push_back(FloatOf(e));
    for (auto& [node, graphs] : attach_)
      ThrowIfError(sym::AttachSubgraphs(node, std::move(graphs)));
    return Symbol(heads);
  }

 private:
  bool Excluded(const Node& n) const {
    if (std::find(o_.exclude_layers.begin(), o_.exclude_layers.end(), n.name) !=
        o_.exclude_layers.end())
      return true;
    for (const std::string& m : o_.exclude_layers_match)
      if (n.name.find(m) != std::string::npos) return true;
    return std::find(o_.exclude_operators.begin(), o_.exclude_operators.end(), n.op->name) !=
           o_.exclude_operators.end();
  }
  static bool Is2D(const Node& n) {
    auto it = n.params.find("kernel");
    return it != n.params.end() && std::count(it->second.begin(), it->second.end(), ',') == 1;
  }
  static bool SameEntry(const NodeEntry& a, const NodeEntry& b) { return KeyOf(a) == KeyOf(b); }
  bool Used(Key k) const {
    auto it = uses_.find(k);
    return it != uses_.end() && it->second > 0;
  }
  // FC weight and bias must be parameters (they become int8 parameters).
  static bool ParamsAreVariables(const Node& n) {
    for (size_t k = 1; k < n.inputs.size(); ++k)
      if (!n.inputs[k].node->is_variable()) return false;
    return true;
  }
  NodePtr Find(const Node* p) const {
    for (const NodePtr& n : nodes_)
      if (n.get() == p) return n;
    MX_CHECK(false);
    return nullptr;
  }
  // The only consumer of `e` (and `e` not a graph output) if no group has taken it, else null.
  Node* SoleUser(const NodeEntry& e) const {
    auto it = uses_.find(KeyOf(e));
    if (it == uses_.end() || it->second != 1) return nullptr;
    for (const NodeEntry& h : sym_.outputs())
      if (SameEntry(h, e)) return nullptr;
    for (const NodePtr& n : nodes_)
      for (const NodeEntry& in : n->inputs)
        if (SameEntry(in, e)) return member_.count(n.get()) ? nullptr : n.get();
    return nullptr;
  }

  // The float value of a float-graph entry in the new graph (dequantized if only quantized).
  NodeEntry FloatOf(const NodeEntry& e) {
    auto it = float_.find(KeyOf(e));
    if (it != float_.end()) return it->second;
    auto q = quant_.find(KeyOf(e));
    MX_CHECK(q != quant_.end(), EntryName(e));
    const std::string base = q->second[0].node->name;
    const std::string name =
        StrCat(base.rfind("quantized_", 0) == 0 ? base.substr(10) : base, "_dequantize");
    NodePtr d = MakeOp("_contrib_dequantize", name, {}, {q->second[0], q->second[1], q->second[2]});
    return float_[KeyOf(e)] = NodeEntry{d, 0};
  }

  // (q, min, max) of a float-graph entry: a quantized node's outputs or a new quantize_v2.
  std::array<NodeEntry, 3> QuantOf(const NodeEntry& e) {
    auto it = quant_.find(KeyOf(e));
    if (it != quant_.end()) return it->second;
    AttrDict p{{"out_type", o_.quantized_dtype}};
    if (auto t = th_->find(KeyOf(e)); t != th_->end()) {
      p["min_calib_range"] = FloatStr(t->second.first);
      p["max_calib_range"] = FloatStr(t->second.second);
    }
    const std::string name = e.node->is_variable()
                                 ? StrCat(e.node->name, "_quantize")
                                 : StrCat(e.node->name, "_", e.index, "_quantize");
    NodePtr q = MakeOp("_contrib_quantize_v2", name, p, {FloatOf(e)});
    return quant_[KeyOf(e)] = {NodeEntry{q, 0}, NodeEntry{q, 1}, NodeEntry{q, 2}};
  }

  void SetCalib(AttrDict* p, const NodeEntry& out) {
    auto t = th_->find(KeyOf(out));
    if (t == th_->end()) return;
    (*p)["min_calib_range"] = FloatStr(t->second.first);
    (*p)["max_calib_range"] = FloatStr(t->second.second);
  }

  // The float subgraph of a fused group: variables for its inputs (data first, the sum operand
  // last), copies of the chain.
  Symbol Subgraph(const Group& g, std::vector<NodeEntry>* outer) {
    std::map<Key, NodeEntry> vars;
    std::map<const Node*, NodePtr> copies;
    std::set<std::string> names;
    auto var_of = [&](const NodeEntry& e) {
      auto it = vars.find(KeyOf(e));
      if (it != vars.end()) return it->second;
      std::string name = EntryName(e) + "0";
      while (names.count(name)) name += "_";
      names.insert(name);
      outer->push_back(e);
      return vars[KeyOf(e)] = NodeEntry{MakeVar(name), 0};
    };
    NodeEntry last;
    for (const NodePtr& n : g.chain) {
      auto c = std::make_shared<Node>(*n);
      if (n->op->name != "Convolution" && n->op->name != "FullyConnected" &&
          n->op->name != "BatchNorm" && !IsRelu(*n)) {  // the sum: chain first, operand last
        c = MakeOp("elemwise_add", n->name, {}, {last, var_of(g.sum)});
      } else {
        for (NodeEntry& e : c->inputs) {
          auto in_chain = copies.find(e.node.get());
          e = in_chain != copies.end() ? NodeEntry{in_chain->second, e.index} : var_of(e);
        }
      }
      copies[n.get()] = c;
      last = NodeEntry{c, 0};
    }
    return Symbol({last});
  }

  void EmitGroup(const Group& g, std::vector<std::string>* qnames) {
    const Node& head = *g.chain[0];
    if (g.kind == Group::kPool || g.kind == Group::kFlatten) {
      auto q = QuantOf(g.data);
      const std::string op =
          g.kind == Group::kPool ? "_contrib_quantized_pooling" : "_contrib_quantized_flatten";
      NodePtr n = MakeOp(op, StrCat("quantized_", head.name), head.params, {q[0], q[1], q[2]});
      quant_[KeyOf(g.out)] = {NodeEntry{n, 0}, NodeEntry{n, 1}, NodeEntry{n, 2}};
      qnames->push_back(n->name);
      return;
    }
    std::vector<NodeEntry> outer;
    Symbol sub = Subgraph(g, &outer);
    AttrDict p{{"quantized", "true"}};
    std::string name;
    std::vector<NodeEntry> inputs;
    if (g.kind == Group::kConv) {
      name = StrCat("quantized_sg_mkldnn_conv", g.with_bn ? "_bn" : "", g.with_act ? "_act" : "",
                    g.with_sum ? "_add" : "", g.with_postsum_act ? "_act" : "", "_", conv_count_++);
      if (g.with_bn) p["with_bn"] = "true";
      if (g.with_act) p["with_act"] = "true";
      if (g.with_sum) p["with_sum"] = "true";
      if (g.with_postsum_act) p["with_postsum_act"] = "true";
      SetCalib(&p, g.out);
      auto qd = QuantOf(g.data);
      std::array<NodeEntry, 3> qs;
      if (g.with_sum) qs = QuantOf(g.sum);
      for (size_t k = 0; k < outer.size(); ++k) {
        if (k == 0)
          inputs.push_back(qd[0]);
        else if (g.with_sum && k + 1 == outer.size())
          inputs.push_back(qs[0]);
        else
          inputs.push_back(FloatOf(outer[k]));
      }
      inputs.push_back(qd[1]);
      inputs.push_back(qd[2]);
      if (g.with_sum) {
        inputs.push_back(qs[1]);
        inputs.push_back(qs[2]);
      }
    } else {  // FC: int8 weight and bias parameters, float output
      name = StrCat("quantized_sg_mkldnn_fully_connected", g.with_act ? "_eltwise" : "", "_",
                    fc_count_++);
      p["enable_float_output"] = "true";
      if (g.with_act) p["with_eltwise"] = "true";
      auto qd = QuantOf(g.data);
      inputs.push_back(qd[0]);
      std::vector<NodeEntry> ranges{qd[1], qd[2]};
      for (size_t k = 1; k < outer.size(); ++k) {
        const std::string& w = outer[k].node->name;
        auto it = args_->find(w);
        if (it == args_->end())
          MX_THROW(kInvalid, "quantize_net: no parameter '", w, "' for ", head.name);
        NDArray lo = NDArray::FromVector(std::vector<float>{Min(it->second)}, Shape{1});
        NDArray hi = NDArray::FromVector(std::vector<float>{Max(it->second)}, Shape{1});
        NDArrayVec q = nd::contrib::quantize(it->second, lo, hi, {.out_type = "int8"});
        const std::string qn = StrCat(w, "_quantize");
        (*args_)[qn] = q[0];
        (*args_)[qn + "_min"] = q[1];
        (*args_)[qn + "_max"] = q[2];
        inputs.push_back(NodeEntry{MakeVar(qn), 0});
        ranges.push_back(NodeEntry{MakeVar(qn + "_min"), 0});
        ranges.push_back(NodeEntry{MakeVar(qn + "_max"), 0});
      }
      inputs.insert(inputs.end(), ranges.begin(), ranges.end());
    }
    const std::string op =
        g.kind == Group::kConv ? "_sg_mkldnn_conv" : "_sg_mkldnn_fully_connected";
    NodePtr n = MakeOp(op, name, p, std::move(inputs));
    attach_.emplace_back(n.get(), std::vector<Symbol>{sub});
    keep_.push_back(n);
    if (g.kind == Group::kConv)
      quant_[KeyOf(g.out)] = {NodeEntry{n, 0}, NodeEntry{n, 1}, NodeEntry{n, 2}};
    else
      float_[KeyOf(g.out)] = NodeEntry{n, 0};
    qnames->push_back(name);
  }

  static float Min(const NDArray& a) {
    auto v = a.ToVector<float>();
    return v.empty() ? 0.f : *std::min_element(v.begin(), v.end());
  }
  static float Max(const NDArray& a) {
    auto v = a.ToVector<float>();
    return v.empty() ? 0.f : *std::max_element(v.begin(), v.end());
  }

  const Symbol& sym_;
  const QuantizeNetOptions& o_;
  std::vector<NodePtr> nodes_;
  std::map<Key, int> uses_;
  std::vector<Group> groups_;
  std::map<const Node*, size_t> group_of_;  // last chain node -> group
  std::set<const Node*> member_;
  std::set<Key> quantized_, need_quantize_;
  std::vector<NodeEntry> calib_;
  const std::map<Key, std::pair<float, float>>* th_ = nullptr;
  std::map<std::string, NDArray>* args_ = nullptr;
  std::map<Key, NodeEntry> float_;
  std::map<Key, std::array<NodeEntry, 3>> quant_;
  std::vector<std::pair<Node*, std::vector<Symbol>>> attach_;
  std::vector<NodePtr> keep_;
  int conv_count_ = 0, fc_count_ = 0;
};

// numpy linspace(-th, th, n + 1) computed in double, stored as float32.
std::vector<float> Edges(int n, double th) {
  std::vector<float> e(n + 1);
  const double step = 2 * th / n;
  for (int i = 0; i < n; ++i) e[i] = static_cast<float>(i * step - th);
  e[n] = static_cast<float>(th);
  return e;
}

// MXNet's _LayerHistogramCollector state for one entry.
struct HistState {
  std::vector<int64_t> hist;
  double th = 0;
  float min = 0, max = 0;
};

void Collect(HistState* s, const std::vector<float>& x, bool first) {
  float mn = *std::min_element(x.begin(), x.end()), mx = *std::max_element(x.begin(), x.end());
  const float t = std::max(std::abs(mn), std::abs(mx));
  if (first) {
    s->hist = Histogram(x, 8001, t);
    s->th = t;
    s->min = mn;
    s->max = mx;
    return;
  }
  s->min = std::min(s->min, mn);
  s->max = std::max(s->max, mx);
  if (t <= s->th) {
    auto h = Histogram(x, static_cast<int>(s->hist.size()), static_cast<float>(s->th));
    for (size_t i = 0; i < h.size(); ++i) s->hist[i] += h[i];
    return;
  }
  const int old_n = static_cast<int>(s->hist.size());
  const double old_step = 2 * s->th / old_n;
  const int half = static_cast<int>(std::floor((t - s->th) / old_step) + 1);
  const int new_n = 2 * half + old_n;
  const double new_th = half * old_step + s->th;
  auto h = Histogram(x, new_n, static_cast<float>(new_th));
  for (int i = 0; i < old_n; ++i) h[half + i] += s->hist[i];
  s->hist = std::move(h);
  s->th = new_th;
}

std::string MakeTempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "mx_quantize_XXXXXX").string();
  if (!mkdtemp(tmpl.data()))
    MX_THROW(absl::StatusCode::kInternal, "quantize_net: cannot create a temporary directory");
  return tmpl;
}

void Validate(const QuantizeNetOptions& o) {
  const std::string& qd = o.quantized_dtype;
  if (qd != "int8" && qd != "uint8" && qd != "auto")
    MX_THROW(kInvalid, "quantize_net: unknown quantized_dtype '", qd,
             "', expected int8, uint8 or auto");
  if (o.quantize_mode != "full" && o.quantize_mode != "smart")
    MX_THROW(kInvalid, "quantize_net: unknown quantize_mode '", o.quantize_mode,
             "', expected full or smart");
  const std::string& cm = o.calib_mode;
  if (cm != "none" && cm != "naive" && cm != "entropy")
    MX_THROW(kInvalid, "quantize_net: unknown calib_mode '", cm,
             "', expected none, naive or entropy");
  if (cm != "none" && o.calib_data.empty())
    MX_THROW(kInvalid, "quantize_net: calib_data must be provided when calib_mode=", cm);
}

}  // namespace

std::vector<int64_t> Histogram(const std::vector<float>& x, int bins, float th) {
  double lo = -th, hi = th;
  if (th == 0) lo = -0.5, hi = 0.5;  // numpy widens an empty range
  std::vector<float> e = Edges(bins, hi);
  std::vector<int64_t> h(bins, 0);
  const double norm = bins / (hi - lo);
  for (float v : x) {
    if (!(v >= static_cast<float>(lo) && v <= static_cast<float>(hi))) continue;
    int i = static_cast<int>((static_cast<double>(v) - lo) * norm);
    i = std::clamp(i, 0, bins - 1);
    while (i > 0 && v < e[i]) --i;
    while (i < bins - 1 && v >= e[i + 1]) ++i;
    ++h[i];
  }
  return h;
}

float OptimalThreshold(const std::vector<float>& hist, const std::vector<float>& edges,
                       float min_val, const std::string& quantized_dtype) {
  int nq = 255;
  if (min_val >= 0 && (quantized_dtype == "auto" || quantized_dtype == "uint8")) nq = 2 * nq + 1;
  const int64_t n = static_cast<int64_t>(hist.size());
  NDArrayVec r = nd::contrib::calibrate_entropy(NDArray::FromVector(hist, Shape{n}),
                                                NDArray::FromVector(edges, Shape{n + 1}),
                                                {.num_quantized_bins = nq});
  return r[0].ToVector<float>()[0];
}

QuantizedGraph quantize_graph(const Symbol& sym, const std::vector<std::string>& data_names,
                              const std::map<std::string, NDArray>& arg_params,
                              const std::map<std::string, NDArray>& aux_params,
                              const QuantizeNetOptions& o) {
  Validate(o);
  const std::string& qd = o.quantized_dtype;
  const std::string& cm = o.calib_mode;
  Quantizer q(sym, o);
  q.Plan();
  std::map<Key, std::pair<float, float>> th;
  QuantizedGraph out;
  if (cm != "none") {
    const auto& entries = q.calib_entries();
    std::vector<Symbol> heads;
    for (const NodeEntry& e : entries) heads.push_back(Symbol({e}));
    sym::CachedOp run(Symbol::Group(heads));
    std::vector<std::pair<float, float>> mm(entries.size());
    std::vector<HistState> hs(entries.size());
    int64_t seen = 0;
    for (size_t b = 0; b < o.calib_data.size(); ++b) {
      const NDArrayVec& batch = o.calib_data[b];
      if (batch.size() != data_names.size())
        MX_THROW(kInvalid, "quantize_net: calib_data batch ", b, " has ", batch.size(),
                 " arrays, expected ", data_names.size(), " (", StrJoin(data_names, ", "), ")");
      NDArrayVec in;
      for (const std::string& name : run.input_names()) {
        auto d = std::find(data_names.begin(), data_names.end(), name);
        if (d != data_names.end()) {
          in.push_back(batch[d - data_names.begin()]);
          continue;
        }
        auto a = arg_params.find(name);
        if (a == arg_params.end()) a = aux_params.find(name);
        if (a == aux_params.end())
          MX_THROW(kInvalid, "quantize_net: the graph input '", name,
                   "' is neither a data input nor a parameter");
        in.push_back(a->second);
      }
      NDArrayVec y = run.Forward(in, /*is_train=*/false);
      for (size_t k = 0; k < entries.size(); ++k) {
        std::vector<float> v = y[k].ToVector<float>();
        if (v.empty()) continue;
        const float mn = *std::min_element(v.begin(), v.end());
        const float mx = *std::max_element(v.begin(), v.end());
        if (cm == "naive") {
          mm[k] = b == 0 ? std::pair{mn, mx}
                         : std::pair{std::min(mm[k].first, mn), std::max(mm[k].second, mx)};
        } else {
          Collect(&hs[k], v, b == 0);
        }
      }
      seen += batch.empty() || batch[0].shape().ndim() == 0 ? 1 : batch[0].shape()[0];
      if (o.num_calib_examples && seen >= *o.num_calib_examples) break;
    }
    for (size_t k = 0; k < entries.size(); ++k) {
      std::pair<float, float> r = mm[k];
      if (cm == "entropy") {
        const HistState& s = hs[k];
        std::vector<float> h(s.hist.begin(), s.hist.end());
        const float t = OptimalThreshold(h, Edges(static_cast<int>(h.size()), s.th), s.min, qd);
        r = s.min >= 0 && (qd == "auto" || qd == "uint8") ? std::pair{0.f, t} : std::pair{-t, t};
      }
      th[KeyOf(entries[k])] = r;
      out.th_dict[EntryName(entries[k])] = r;
    }
  }
  out.arg_params = arg_params;
  out.aux_params = aux_params;
  out.symbol = q.Build(th, &out.arg_params, &out.quantized_nodes);
  // Drop parameters the quantized graph no longer reads (FC float weights).
  std::set<std::string> used;
  for (const std::string& n : out.symbol.list_inputs()) used.insert(n);
  for (auto it = out.arg_params.begin(); it != out.arg_params.end();)
    it = used.count(it->first) ? std::next(it) : out.arg_params.erase(it);
  if (cm == "none")
    for (const auto& n : out.symbol.TopoNodes())
      if (n->op && n->op->name == "_sg_mkldnn_conv")
        MX_THROW(absl::StatusCode::kUnimplemented, "quantize_net: calib_mode=none leaves '",
                 n->name,
                 "' without a calibrated output range (int32 output), which this runtime does "
                 "not run; use calib_mode naive or entropy, or exclude Convolution");
  return out;
}

std::shared_ptr<SymbolBlock> quantize_net(HybridBlock& network, const QuantizeNetOptions& o) {
  Validate(o);
  NDArrayVec probe;
  if (!o.calib_data.empty()) {
    probe = o.calib_data[0];
  } else {
    if (o.data_shapes.empty())
      MX_THROW(kInvalid, "quantize_net: data_shapes required when calib_data is empty");
    for (const Shape& s : o.data_shapes) probe.push_back(NDArray::Full(s, 0.0));
  }
  network.hybridize(true);
  network(probe);
  const std::string dir = MakeTempDir();
  struct Cleanup {
    std::string d;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    }
  } cleanup{dir};
  ThrowIfError(network.export_model(dir + "/float", 0));
  Symbol fsym = ValueOrThrow(Symbol::load(dir + "/float-symbol.json"));
  nd::NDArrayFile file = ValueOrThrow(nd::load(dir + "/float-0000.params"));
  std::map<std::string, NDArray> args, aux;
  for (auto& [k, v] : file.items()) {
    if (k.rfind("arg:", 0) == 0)
      args[k.substr(4)] = v;
    else if (k.rfind("aux:", 0) == 0)
      aux[k.substr(4)] = v;
  }
  std::vector<std::string> data_names;
  if (probe.size() == 1)
    data_names = {"data"};
  else
    for (size_t i = 0; i < probe.size(); ++i) data_names.push_back(StrCat("data", i));
  QuantizedGraph g = quantize_graph(fsym, data_names, args, aux, o);
  ThrowIfError(g.symbol.save(dir + "/q-symbol.json"));
  std::vector<std::pair<std::string, NDArray>> named;
  for (auto& [k, v] : g.arg_params) named.emplace_back("arg:" + k, v);
  for (auto& [k, v] : g.aux_params) named.emplace_back("aux:" + k, v);
  ThrowIfError(nd::save(dir + "/q-0000.params", named));
  return ValueOrThrow(
      SymbolBlock::imports(dir + "/q-symbol.json", data_names, dir + "/q-0000.params"));
}

}  // namespace mxnet::gluon::contrib::quantization
