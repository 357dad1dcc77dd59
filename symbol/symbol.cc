#include "symbol/symbol.h"

#include <unordered_map>
#include <unordered_set>

#include "base/strings.h"

namespace mxnet::sym {
namespace {

NameState& Names() { return RuntimeContext::Current().names; }

Symbol MakeBinary(std::string_view op, const Symbol& a, const Symbol& b) {
  return Symbol::Create(op, {a, b});
}
Symbol MakeScalar(std::string_view op, const Symbol& a, double s) {
  return Symbol::Create(op, {a}, {{"scalar", PyFloatRepr(s)}});
}

}  // namespace

// ---- Names. ----
std::string NameManager::Get(const std::string& name, const std::string& hint) {
  NameState& s = Names();
  if (!name.empty()) return s.prefix + name;
  int n = s.counters[hint]++;
  return StrCat(s.prefix, hint, n);
}
NameManager::Prefix::Prefix(std::string prefix) : state_(&Names()), saved_(state_->prefix) {
  state_->prefix = saved_ + prefix;
}
NameManager::Prefix::~Prefix() { state_->prefix = saved_; }
void NameManager::Reset() { Names().counters.clear(); }

std::string OpNameHint(const Op& op) {
  // MXNet names nodes after the lowercased function that created them; the front-end operators
  // (x + y, x + 2) call these aliases.
  static const std::unordered_map<std::string, std::string> kAliasHints = {
      {"elemwise_add", "_plus"},
      {"elemwise_sub", "_minus"},
      {"elemwise_mul", "_mul"},
      {"elemwise_div", "_div"},
      {"_plus_scalar", "_plusscalar"},
      {"_minus_scalar", "_minusscalar"},
      {"_rminus_scalar", "_rminusscalar"},
      {"_mul_scalar", "_mulscalar"},
      {"_div_scalar", "_divscalar"},
      {"_rdiv_scalar", "_rdivscalar"},
  };
  if (auto it = kAliasHints.find(op.name); it != kAliasHints.end()) return it->second;
  return AsciiToLower(op.name);
}

// ---- Construction. ----
Symbol Symbol::Variable(const std::string& name, const VarOptions& o) {
  if (name.empty())
    MX_THROW(absl::StatusCode::kInvalidArgument, "Variable: the name must not be empty");
  auto n = std::make_shared<Node>();
  n->name = name;
  n->user_attrs = o.attrs;
  if (o.shape) n->user_attrs["__shape__"] = o.shape->ToString();
  if (o.dtype) n->user_attrs["__dtype__"] = StrCat(DTypeFlag(*o.dtype));
  if (o.lr_mult) n->user_attrs["__lr_mult__"] = PyFloatRepr(*o.lr_mult);
  if (o.wd_mult) n->user_attrs["__wd_mult__"] = PyFloatRepr(*o.wd_mult);
  if (!o.init.empty()) n->user_attrs["__init__"] = o.init;
  return Symbol({NodeEntry{n, 0, 0}});
}

namespace {
// Creates the node with its final name (no NameManager involvement).
Symbol CreateNamed(const Op& op, const OpAttrs& attrs, AttrDict params,
                   const std::vector<Symbol>& inputs, const std::string& full_name,
                   const AttrDict& user_attrs) {
  auto n = std::make_shared<Node>();
  n->op = &op;
  n->attrs = attrs;
  n->params = std::move(params);
  n->user_attrs = user_attrs;
  n->name = full_name;
  int nin = op.NumInputs(attrs);
  std::vector<std::string> in_names = op.InputNames(attrs);
  if (static_cast<int>(inputs.size()) > nin)
    MX_THROW(absl::StatusCode::kInvalidArgument, op.name, " (", n->name, "): takes ", nin,
             " inputs (", StrJoin(in_names, ", "), "), got ", inputs.size());
  for (int i = 0; i < nin; ++i) {
    if (i < static_cast<int>(inputs.size())) {
      const Symbol& s = inputs[i];
      if (s.num_outputs() != 1)
        MX_THROW(absl::StatusCode::kInvalidArgument, op.name, " (", n->name, "): input ",
                 in_names[i], " is a group of ", s.num_outputs(), " outputs, expected one");
      n->inputs.push_back(s.outputs()[0]);
    } else {
      // Missing inputs become variables named <node>_<input>, like MXNet (conv0_weight).
      Symbol v = Symbol::Variable(n->name + "_" + in_names[i]);
      n->inputs.push_back(v.outputs()[0]);
    }
  }
  std::vector<NodeEntry> outs;
  for (int i = 0; i < n->num_visible_outputs(); ++i) outs.push_back(NodeEntry{n, i, 0});
  return Symbol(outs);
}
}  // namespace

Symbol Symbol::Create(const Op& op, const OpAttrs& attrs, const std::vector<Symbol>& inputs,
                      const std::string& name, const AttrDict& user_attrs) {
  return CreateNamed(op, attrs, attrs.ToDict(), inputs, NameManager::Get(name, OpNameHint(op)),
                     user_attrs);
}

Symbol Symbol::Create(std::string_view op_name, const std::vector<Symbol>& inputs,
                      const AttrDict& attrs, const std::string& name) {
  const Op& op = OpRegistry::Get(op_name);
  OpAttrs a = OpAttrs::Parse(op, attrs);
  // The node name hint follows the name the op was called by (_Plus -> _plus0).
  std::string hint = op_name == op.name ? OpNameHint(op) : AsciiToLower(op_name);
  // Keep the attribute strings as given, like MXNet.
  return CreateNamed(op, a, attrs, inputs, NameManager::Get(name, hint), {});
}

Symbol Symbol::Group(const std::vector<Symbol>& symbols) {
  std::vector<NodeEntry> outs;
  for (const auto& s : symbols) outs.insert(outs.end(), s.outputs_.begin(), s.outputs_.end());
  return Symbol(outs);
}

// ---- Traversal. ----
Node::~Node() {
  // Nodes only this one keeps alive go to a work list and are torn down here, one at a time,
  // after their own inputs were moved out the same way; shared ones just lose a reference.
  std::vector<std::shared_ptr<Node>> work;
  auto take = [&work](std::shared_ptr<Node>& p) {
    if (p && p.use_count() == 1) work.push_back(std::move(p));
  };
  for (auto& e : inputs) take(e.node);
  for (auto& c : control_deps) take(c);
  while (!work.empty()) {
    std::shared_ptr<Node> n = std::move(work.back());
    work.pop_back();
    for (auto& e : n->inputs) take(e.node);
    for (auto& c : n->control_deps) take(c);
  }
}

std::vector<std::shared_ptr<Node>> Symbol::TopoNodes() const {
  std::vector<std::shared_ptr<Node>> order;
  std::unordered_set<Node*> seen;
  std::vector<std::pair<std::shared_ptr<Node>, size_t>> stack;
  for (const auto& e : outputs_) {
    if (!seen.insert(e.node.get()).second) continue;
    stack.push_back({e.node, 0});
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      size_t nc = n->control_deps.size();
      if (next < nc + n->inputs.size()) {
        std::shared_ptr<Node> c = next < nc ? n->control_deps[next] : n->inputs[next - nc].node;
        ++next;
        if (seen.insert(c.get()).second) stack.push_back({c, 0});
      } else {
        order.push_back(n);
        stack.pop_back();
      }
    }
  }
  return order;
}

namespace {
// Variables consumed at a mutable input position are auxiliary states.
std::unordered_set<Node*> AuxVariables(const std::vector<std::shared_ptr<Node>>& nodes) {
  std::unordered_set<Node*> aux;
  for (const auto& n : nodes) {
    if (n->is_variable()) continue;
    for (int i : n->op->mutable_inputs)
      if (i < static_cast<int>(n->inputs.size()) && n->inputs[i].node->is_variable())
        aux.insert(n->inputs[i].node.get());
  }
  return aux;
}
}  // namespace

std::vector<std::string> Symbol::list_arguments() const {
  auto nodes = TopoNodes();
  auto aux = AuxVariables(nodes);
  std::vector<std::string> out;
  for (const auto& n : nodes)
    if (n->is_variable() && !aux.count(n.get())) out.push_back(n->name);
  return out;
}

std::vector<std::string> Symbol::list_auxiliary_states() const {
  auto nodes = TopoNodes();
  auto aux = AuxVariables(nodes);
  std::vector<std::string> out;
  for (const auto& n : nodes)
    if (n->is_variable() && aux.count(n.get())) out.push_back(n->name);
  return out;
}

std::vector<std::string> Symbol::list_inputs() const {
  std::vector<std::string> out;
  for (const auto& n : TopoNodes())
    if (n->is_variable()) out.push_back(n->name);
  return out;
}

std::vector<std::string> Symbol::list_outputs() const {
  std::vector<std::string> out;
  for (const auto& e : outputs_) {
    if (e.node->is_variable()) {
      out.push_back(e.node->name);
    } else {
      out.push_back(e.node->name + "_" + e.node->op->OutputNames(e.node->attrs)[e.index]);
    }
  }
  return out;
}

std::string Symbol::name() const { return outputs_.size() == 1 ? outputs_[0].node->name : ""; }

Symbol Symbol::operator[](size_t i) const {
  if (i >= outputs_.size())
    MX_THROW(absl::StatusCode::kOutOfRange, "Symbol: output index ", i, " out of range (",
             outputs_.size(), " outputs)");
  return Symbol({outputs_[i]});
}

Symbol Symbol::operator[](std::string_view output_name) const {
  std::vector<std::string> names = list_outputs();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == output_name) return (*this)[i];
  MX_THROW(absl::StatusCode::kNotFound, "Symbol: no output named '", output_name,
           "' (outputs: ", StrJoin(names, ", "), ")");
}

Symbol Symbol::get_internals() const {
  std::vector<NodeEntry> outs;
  for (const auto& n : TopoNodes())
    for (int i = 0; i < n->num_visible_outputs(); ++i) outs.push_back(NodeEntry{n, i, 0});
  return Symbol(outs);
}

Symbol Symbol::get_children() const {
  std::vector<NodeEntry> outs;
  for (const auto& e : outputs_)
    for (const auto& in : e.node->inputs) outs.push_back(in);
  return Symbol(outs);
}

// ---- Attributes. ----
std::optional<std::string> Symbol::attr(const std::string& key) const {
  if (outputs_.size() != 1) return std::nullopt;
  const Node& n = *outputs_[0].node;
  if (auto it = n.user_attrs.find(key); it != n.user_attrs.end()) return it->second;
  if (auto it = n.params.find(key); it != n.params.end()) return it->second;
  return std::nullopt;
}

std::map<std::string, AttrDict> Symbol::attr_dict() const {
  std::map<std::string, AttrDict> out;
  for (const auto& n : TopoNodes()) {
    AttrDict d = n->params;
    for (const auto& [k, v] : n->user_attrs) d[k] = v;
    if (!d.empty()) out[n->name] = d;
  }
  return out;
}

void Symbol::set_attr(const std::string& key, const std::string& value) {
  for (auto& e : outputs_) e.node->user_attrs[key] = value;
}

// ---- Composition. ----
namespace {
Symbol CopyGraph(const Symbol& s, const std::map<std::string, Symbol>* subs) {
  std::unordered_map<Node*, std::shared_ptr<Node>> map;
  std::unordered_map<Node*, NodeEntry> replaced;
  std::unordered_set<std::string> used;
  for (const auto& n : s.TopoNodes()) {
    if (n->is_variable() && subs) {
      auto it = subs->find(n->name);
      if (it != subs->end()) {
        if (it->second.num_outputs() != 1)
          MX_THROW(absl::StatusCode::kInvalidArgument, "compose: substitute for '", n->name,
                   "' must have one output");
        replaced[n.get()] = it->second.outputs()[0];
        used.insert(n->name);
        continue;
      }
    }
    auto c = std::make_shared<Node>(*n);
    for (auto& in : c->inputs) {
      if (auto r = replaced.find(in.node.get()); r != replaced.end()) {
        in = r->second;
      } else {
        in.node = map.at(in.node.get());
      }
    }
    for (auto& d : c->control_deps) d = map.at(d.get());
    map[n.get()] = c;
  }
  if (subs)
    for (const auto& [name, _] : *subs)
      if (!used.count(name))
        MX_THROW(absl::StatusCode::kInvalidArgument, "compose: the graph has no input named '",
                 name, "' (inputs: ", StrJoin(s.list_inputs(), ", "), ")");
  std::vector<NodeEntry> outs;
  for (const auto& e : s.outputs()) {
    if (auto r = replaced.find(e.node.get()); r != replaced.end())
      outs.push_back(r->second);
    else
      outs.push_back(NodeEntry{map.at(e.node.get()), e.index, e.version});
  }
  return Symbol(outs);
}
}  // namespace

Symbol Symbol::compose(const std::map<std::string, Symbol>& substitutes) const {
  return CopyGraph(*this, &substitutes);
}

Symbol Symbol::copy() const { return CopyGraph(*this, nullptr); }

// ---- Operators. ----
Symbol operator+(const Symbol& a, const Symbol& b) { return MakeBinary("_Plus", a, b); }
Symbol operator-(const Symbol& a, const Symbol& b) { return MakeBinary("_Minus", a, b); }
Symbol operator*(const Symbol& a, const Symbol& b) { return MakeBinary("_Mul", a, b); }
Symbol operator/(const Symbol& a, const Symbol& b) { return MakeBinary("_Div", a, b); }
Symbol operator+(const Symbol& a, double s) { return MakeScalar("_PlusScalar", a, s); }
Symbol operator-(const Symbol& a, double s) { return MakeScalar("_MinusScalar", a, s); }
Symbol operator*(const Symbol& a, double s) { return MakeScalar("_MulScalar", a, s); }
Symbol operator/(const Symbol& a, double s) { return MakeScalar("_DivScalar", a, s); }
Symbol operator+(double s, const Symbol& a) { return MakeScalar("_PlusScalar", a, s); }
Symbol operator-(double s, const Symbol& a) { return MakeScalar("_RMinusScalar", a, s); }
Symbol operator*(double s, const Symbol& a) { return MakeScalar("_MulScalar", a, s); }
Symbol operator/(double s, const Symbol& a) { return MakeScalar("_RDivScalar", a, s); }
Symbol operator-(const Symbol& a) { return Symbol::Create("negative", {a}); }

}  // namespace mxnet::sym
