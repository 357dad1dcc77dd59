#include "gluon/symbol_block.h"

#include <map>

#include "base/strings.h"
#include "ndarray/io.h"

namespace mxnet::gluon {

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
  op_ = std::make_shared<sym::CachedOp>(graph_);
  std::vector<std::string> aux = graph_.list_auxiliary_states();
  std::map<std::string, const sym::Node*> vars;
  for (const auto& n : graph_.TopoNodes())
    if (n->is_variable()) vars[n->name] = n.get();
  for (const auto& in : input_names_)
    if (!vars.count(in))
      MX_THROW(absl::StatusCode::kInvalidArgument, "SymbolBlock: the graph has no input named '",
               in, "' (inputs: ", StrJoin(op_->input_names(), ", "), ")");
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
  for (const auto& name : op_->input_names()) {
    auto it = std::find(input_names_.begin(), input_names_.end(), name);
    if (it != input_names_.end()) {
      input_index_.push_back(static_cast<int>(it - input_names_.begin()));
      input_param_.push_back(nullptr);
      continue;
    }
    ParameterPtr p = params.get(name);
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
  std::vector<NDArray> args;
  for (size_t i = 0; i < input_index_.size(); ++i)
    args.push_back(input_index_[i] >= 0 ? inputs[input_index_[i]] : input_param_[i]->data(dev));
  return (*op_)(args);
}

}  // namespace mxnet::gluon
