// SymbolBlock (mxnet.gluon.SymbolBlock): a block made from a Symbol graph, e.g. an exported
// model (`-symbol.json` + `.params`) written by us or by real MXNet.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gluon/block.h"

namespace mxnet::gluon {

class SymbolBlock : public HybridBlock {
 public:
  // `outputs`: the graph (a group for several outputs); `input_names`: its data inputs; every
  // other graph input becomes a Parameter named after its variable (aux states get
  // grad_req null). Parameters found in `params` (by name) are shared instead. Exception: the
  // label inputs of loss heads (label_inputs(): `softmax_label` of a Module-era SoftmaxOutput
  // export, ...) not named in input_names are neither parameters nor inputs: inference feeds
  // them zeros of their inferred shape (the heads' forward ignores them, as MXNet's predict API
  // runs such files with the data alone); a forward while autograd records in training mode
  // throws kFailedPrecondition naming the head and the label to pass as an input.
  SymbolBlock(sym::Symbol outputs, std::vector<std::string> input_names,
              const ParameterDict& params = {});
  SymbolBlock(sym::Symbol outputs, const std::vector<sym::Symbol>& inputs,
              const ParameterDict& params = {});

  // Loads `symbol_file` and (if given) `param_file` (arg:/aux: keys; 1.x and 2.x files) onto
  // `devices` (SymbolBlock.imports). Parameters adopt the file's dtypes (MXNet 1.9's
  // cast_dtype=True, dtype_source='saved'). Errors name the file and the missing/extra keys.
  static absl::StatusOr<std::shared_ptr<SymbolBlock>> imports(
      const std::string& symbol_file, const std::vector<std::string>& input_names,
      const std::string& param_file = "", const std::vector<Device>& devices = {cpu()},
      bool allow_missing = false, bool ignore_extra = false);

  // Variables of `graph` used only as the label (input 1) of loss heads whose forward ignores it
  // in inference: SoftmaxOutput (Softmax), LinearRegressionOutput, LogisticRegressionOutput,
  // MAERegressionOutput, SVMOutput. DFS order, no duplicates.
  static std::vector<std::string> label_inputs(const sym::Symbol& graph);
  // The data inputs, as given to the constructor.
  const std::vector<std::string>& input_names() const { return input_names_; }
  // The label inputs this block feeds itself (label_inputs() minus input_names).
  const std::vector<std::string>& implicit_labels() const { return label_names_; }

  // Runs the graph as a hybridized block: hybridize's options (static_alloc, static_shape,
  // backend) apply from the next call, register_op_hook sees its ops, compile_report() and
  // cached_graph() describe it. The backend follows hybridize()'s rule from construction on
  // (ResolveHybridizeBackend: "" takes $MXNET_SUBGRAPH_BACKEND, unset = "onednn" fusion for
  // inference calls; hybridize(true, {.backend = "none"}) runs the graph as given).
  NDArrayVec forward(const NDArrayVec& inputs) override;
  std::string class_name() const override { return "SymbolBlock"; }
  // The graph it runs (what export_model writes, as MXNet's SymbolBlock.export, without a call).
  const sym::Symbol& graph() const { return graph_; }

 protected:
  NDArrayVec CallForward(const NDArrayVec& inputs) override { return forward(inputs); }
  void InferParameterShapes(const NDArrayVec& inputs) override;
  // Called on symbols: the graph composed with them in place of input_names (MXNet's
  // SymbolBlock.forward on a Symbol); implicit labels stay variables.
  sym::Symbol CallSymbolic(const std::vector<sym::Symbol>& inputs) override;
  // optimize_for: compiles graph_ with the current options (nothing to trace).
  void Trace(const NDArrayVec& inputs) override;

 private:
  // Compiles graph_ into cache_ with the current hybridize options and op hook (cache_mu_ held).
  void BuildCacheLocked();

  sym::Symbol graph_;
  std::vector<std::string> input_names_;
  // Per graph input (graph_.list_inputs() order): data index, -1 (parameter), -2 (label).
  std::vector<int> input_index_;
  std::vector<ParameterPtr> input_param_;
  std::vector<std::string> label_names_;           // implicit labels, in graph input order
  std::map<std::string, std::string> label_head_;  // implicit label -> "name (Op)" of its head
};

}  // namespace mxnet::gluon
