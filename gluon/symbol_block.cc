#include "gluon/symbol_block.h"

#include <map>

#include <set>

#include "autograd/autograd.h"
#include "base/strings.h"
#include "ndarray/io.h"

namespace mxnet::gluon {

namespace {
// Loss heads whose input 1 is a label their inference forward ignores (MXNet 1.x's
// SoftmaxOutput, regression outputs and SVMOutput: softmax / identity / sigmoid of the data).
bool IsLossHead(const sym::Node& n) {
  if (n.is_variable()) return false;
  static const std::set<std::string> kHeads = {"SoftmaxOutput",          "Softmax",
                                               "LinearRegressionOutput", "LogisticRegressionOutput",
                                               "MAERegressionOutput",    "SVMOutput"};
  return kHeads.count(n.op->name) > 0;
}
}  // namespace

std::vector<std::string> SymbolBlock::label_inputs(const sym::Symbol& graph) {
  // A variable is a label iff it is used, and every use is input 1 of a loss head.
  std::map<const sym::Node*, int> uses, label_uses;
  std::vector<const sym::Node*> order;
  for (const auto& n : graph.TopoNodes()) {
    if (n->is_variable()) order.push_back(n.get());
    for (size_t i = 0; i < n->inputs.size(); ++i) {
      const sym::Node* in = n->inputs[i].node.get();
      if (!in->is_variable()) continue;
      ++uses[in];
      if (i == 1 && IsLossHead(*n)) ++label_uses[in];
    }
  }
  std::vector<std::string> names;
  for (const sym::Node* v : order)
    if (uses[v] > 0 && uses[v] == label_uses[v] &&
        std::find(names.begin(), names.end(), v->name) == names.end())
      names.push_back(v->name);
  return names;
}

SymbolBlock::SymbolBlock(sym::Symbol outputs, const std::vector<sym::Symbol>& inputs,
                         const ParameterDict& params)
    : SymbolBlock(
          std::move(outputs),
          [&] {
            std::vector<std::string> names;
            for (const auto& s : inputs) {
              if (s.num_outputs() != 1 || !s.outputs()[0].node->is_variable())
                MX_THROW(absl::StatusCode::kInvalidArgument,
                         "SymbolBlock: inputs must be variables");
              names.push_back(s.name());
            }
            return names;
          }(),
          params) {}

SymbolBlock::SymbolBlock(sym::Symbol outputs, std::vector<std::string> input_names,
                         const ParameterDict& params)
    : graph_(std::move(outputs)), input_names_(std::move(input_names)) {
  active_ = true;
  std::vector<std::string> aux = graph_.list_auxiliary_states();
  std::map<std::string, const sym::Node*> vars;
  for (const auto& n : graph_.TopoNodes())
    if (n->is_variable()) vars[n->name] = n.get();
  for (const auto& in : input_names_)
    if (!vars.count(in))
      MX_THROW(absl::StatusCode::kInvalidArgument, "SymbolBlock: the graph has no input named '",
               in, "' (inputs: ", StrJoin(graph_.list_inputs(), ", "), ")");
  // Integer parameters without __dtype__ (the int8 weights of MXNet's quantized exports): their
  // dtype from type inference with float32 data, as MXNet's SymbolBlock infers parameter types.
  std::map<std::string, DType> int_params;
  {
    std::map<std::string, DType> known;
    for (const auto& in : input_names_) known[in] = DType::kFloat32;
    absl::Status st = StatusFromCall([&] {
      sym::InferResult<int> t = graph_.infer_type(known);
      std::vector<std::string> names = graph_.list_arguments();
      for (const auto& a : aux) names.push_back(a);
      t.arg.insert(t.arg.end(), t.aux.begin(), t.aux.end());
      for (size_t i = 0; i < names.size() && i < t.arg.size(); ++i)
        if (t.arg[i] == static_cast<int>(DType::kInt8) ||
            t.arg[i] == static_cast<int>(DType::kUint8) ||
            t.arg[i] == static_cast<int>(DType::kInt32))
          int_params[names[i]] = static_cast<DType>(t.arg[i]);
    });
    (void)st;  // graphs whose types stay unknown keep the float32 default
  }
  const std::vector<std::string> labels = label_inputs(graph_);
  for (const auto& n : graph_.TopoNodes())
    if (IsLossHead(*n) && n->inputs.size() > 1 && n->inputs[1].node->is_variable())
      label_head_.try_emplace(n->inputs[1].node->name,
                              StrCat("'", n->name, "' (", n->op->name, ")"));
  for (const auto& name : graph_.list_inputs()) {
    auto it = std::find(input_names_.begin(), input_names_.end(), name);
    if (it != input_names_.end()) {
      input_index_.push_back(static_cast<int>(it - input_names_.begin()));
      input_param_.push_back(nullptr);
      continue;
    }
    ParameterPtr p = params.get(name);
    if (!p && std::find(labels.begin(), labels.end(), name) != labels.end()) {
      input_index_.push_back(-2);
      input_param_.push_back(nullptr);
      label_names_.push_back(name);
      continue;
    }
    if (!p) {
      ParameterOptions o;
      const sym::Node* v = vars.at(name);
      if (auto s = v->user_attrs.find("__shape__"); s != v->user_attrs.end())
        if (auto parsed = ParseShape(s->second); parsed.ok()) o.shape = *parsed;
      if (auto d = v->user_attrs.find("__dtype__"); d != v->user_attrs.end()) {
        int64_t flag;
        if (ParseInt64(d->second, &flag) && DTypeFromFlag(flag).ok())
          o.dtype = static_cast<DType>(flag);
      } else if (auto ip = int_params.find(name); ip != int_params.end())
        o.dtype = ip->second;
      if (auto lr = v->user_attrs.find("__lr_mult__"); lr != v->user_attrs.end())
        ParseDouble(lr->second, &o.lr_mult);
      if (auto wd = v->user_attrs.find("__wd_mult__"); wd != v->user_attrs.end())
        ParseDouble(wd->second, &o.wd_mult);
      if (auto in = v->user_attrs.find("__init__"); in != v->user_attrs.end()) {
        absl::Status st = StatusFromCall([&] { o.init = init::Create(in->second); });
        (void)st;  // unknown initializer names fall back to Block::initialize's
      }
      if (std::find(aux.begin(), aux.end(), name) != aux.end()) o.grad_req = GradReq::kNull;
      p = std::make_shared<Parameter>(name, o);
    }
    register_parameter(name, p);
    input_index_.push_back(-1);
    input_param_.push_back(p);
  }
  std::lock_guard<std::mutex> l(cache_mu_);
  BuildCacheLocked();  // MXNet's SymbolBlock has its cached graph from construction
}

void SymbolBlock::BuildCacheLocked() {
  auto c = std::make_shared<Cache>();
  c->graph = graph_;
  sym::CachedOpOptions o;
  o.static_alloc = options_.static_alloc;
  o.static_shape = options_.static_shape;
  o.backend = ResolveHybridizeBackend(options_.backend);  // as HybridBlock::hybridize
  c->op = std::make_shared<sym::CachedOp>(graph_, o);
  if (monitor_) c->op->set_monitor(monitor_, monitor_all_);
  // input_index: per CachedOp input, its position in graph_.list_inputs() (input_index_'s order).
  const std::vector<std::string> slots = graph_.list_inputs();
  for (const auto& name : c->op->input_names()) {
    auto it = std::find(slots.begin(), slots.end(), name);
    if (it == slots.end())
      MX_THROW(absl::StatusCode::kInternal, "SymbolBlock: compiled graph input '", name,
               "' is not an input of the graph");
    c->input_index.push_back(static_cast<int>(it - slots.begin()));
  }
  cache_ = c;
}

void SymbolBlock::Trace(const NDArrayVec&) {
  std::lock_guard<std::mutex> l(cache_mu_);
  BuildCacheLocked();
}

sym::Symbol SymbolBlock::CallSymbolic(const std::vector<sym::Symbol>& inputs) {
  if (inputs.size() != input_names_.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "SymbolBlock: expected ", input_names_.size(),
             " symbols (", StrJoin(input_names_, ", "), "), got ", inputs.size());
  std::map<std::string, sym::Symbol> substitutes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].num_outputs() != 1)
      MX_THROW(absl::StatusCode::kInvalidArgument, "SymbolBlock: input ", i, " has ",
               inputs[i].num_outputs(), " outputs; pass each output as its own input");
    substitutes[input_names_[i]] = inputs[i];
  }
  return graph_.compose(substitutes);
}

absl::StatusOr<std::shared_ptr<SymbolBlock>> SymbolBlock::imports(
    const std::string& symbol_file, const std::vector<std::string>& input_names,
    const std::string& param_file, const std::vector<Device>& devices, bool allow_missing,
    bool ignore_extra) {
  auto graph = sym::Symbol::load(symbol_file);
  if (!graph.ok()) return graph.status();
  std::shared_ptr<SymbolBlock> block;
  MX_RETURN_IF_ERROR(
      StatusFromCall([&] { block = std::make_shared<SymbolBlock>(*graph, input_names); }));
  if (!param_file.empty()) {
    LoadParametersOptions o;
    o.devices = devices;
    o.allow_missing = allow_missing;
    o.ignore_extra = ignore_extra;
    // MXNet 1.9's SymbolBlock.imports loads with cast_dtype=True, dtype_source='saved': the
    // parameters take the file's dtypes (a float16 or int8 export imports as such).
    o.cast_dtype = true;
    o.dtype_source = "saved";
    MX_RETURN_IF_ERROR(block->load_parameters(param_file, o));
  }
  return block;
}

void SymbolBlock::InferParameterShapes(const NDArrayVec& inputs) {
  std::map<std::string, Shape> known;
  for (size_t i = 0; i < inputs.size() && i < input_names_.size(); ++i)
    known[input_names_[i]] = inputs[i].shape();
  for (const auto& [name, p] : params_)
    if (p->shape().is_known()) known[name] = p->shape();
  sym::InferResult<Shape> r = graph_.infer_shape_partial(known);
  std::vector<std::string> names = graph_.list_arguments(), aux = graph_.list_auxiliary_states();
  std::map<std::string, Shape> inferred;
  for (size_t i = 0; i < names.size(); ++i) inferred[names[i]] = r.arg[i];
  for (size_t i = 0; i < aux.size(); ++i) inferred[aux[i]] = r.aux[i];
  for (const auto& [name, p] : params_) {
    if (!p->has_deferred_init()) continue;
    p->set_shape(inferred.at(name));
    p->finish_deferred_init();
  }
}

NDArrayVec SymbolBlock::forward(const NDArrayVec& inputs) {
  if (inputs.size() != input_names_.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "SymbolBlock: expected ", input_names_.size(),
             " inputs (", StrJoin(input_names_, ", "), "), got ", inputs.size());
  if (CurrentDispatchState().infer_only) {
    InferParameterShapes(inputs);
    NDArrayVec out;
    std::map<std::string, Shape> known;
    for (size_t i = 0; i < inputs.size(); ++i) known[input_names_[i]] = inputs[i].shape();
    for (const auto& s : graph_.infer_shape_partial(known).out)
      out.push_back(NDArray::Placeholder(s));
    return out;
  }
  Device dev = inputs.empty() ? cpu() : inputs[0].device();
  std::map<std::string, Shape> label_shapes;
  if (!label_names_.empty()) {
    if (autograd::is_recording() && autograd::is_training()) {
      const std::string& l = label_names_[0];
      MX_THROW(
          absl::StatusCode::kFailedPrecondition, "SymbolBlock: the loss head ",
          label_head_.count(l) ? label_head_.at(l) : std::string("?"), " needs its label '", l,
          "' for training; name it among the inputs (input_names: ", StrJoin(input_names_, ", "),
          ", ", StrJoin(label_names_, ", "), ") and pass the labels (inference runs without them)");
    }
    std::map<std::string, Shape> known;
    for (size_t i = 0; i < inputs.size(); ++i) known[input_names_[i]] = inputs[i].shape();
    for (const auto& [name, p] : params_)
      if (p->shape().is_known()) known[name] = p->shape();
    sym::InferResult<Shape> r = graph_.infer_shape_partial(known);
    std::vector<std::string> names = graph_.list_arguments();
    for (size_t i = 0; i < names.size(); ++i) label_shapes[names[i]] = r.arg[i];
    for (const auto& l : label_names_)
      if (!label_shapes[l].is_known())
        MX_THROW(absl::StatusCode::kInvalidArgument,
                 "SymbolBlock: cannot infer the shape of the "
                 "label '",
                 l, "' of the loss head ", label_head_.count(l) ? label_head_.at(l) : "",
                 " from the inputs (got ", label_shapes[l].ToString(), ")");
  }
  // Labels in the data's float type (float32 for integer data such as Embedding indices).
  const DType label_dtype =
      !inputs.empty() && IsFloatingPoint(inputs[0].dtype()) ? inputs[0].dtype() : DType::kFloat32;
  std::vector<NDArray> slot_args;
  size_t next_label = 0;
  for (size_t i = 0; i < input_index_.size(); ++i) {
    if (input_index_[i] >= 0)
      slot_args.push_back(inputs[input_index_[i]]);
    else if (input_index_[i] == -1)
      slot_args.push_back(input_param_[i]->data(dev));
    else
      slot_args.push_back(
          NDArray::Full(label_shapes.at(label_names_[next_label++]), 0.0, dev, label_dtype));
  }
  std::shared_ptr<const Cache> cache;
  {
    std::lock_guard<std::mutex> l(cache_mu_);
    if (!cache_) BuildCacheLocked();  // hybridize() or cast() dropped it
    cache = cache_;
  }
  std::vector<NDArray> args;
  args.reserve(cache->input_index.size());
  for (int slot : cache->input_index) args.push_back(slot_args[slot]);
  return (*cache->op)(args);
}

}  // namespace mxnet::gluon
