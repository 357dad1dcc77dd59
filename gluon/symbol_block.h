// SymbolBlock (mxnet.gluon.SymbolBlock): a block made from a Symbol graph, e.g. an exported
// model (`-symbol.json` + `.params`) written by us or by real MXNet.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gluon/block.h"

namespace mxnet::gluon {

class SymbolBlock : public HybridBlock {
 public:
  // `outputs`: the graph (a group for several outputs); `input_names`: its data inputs; every
  // other graph input becomes a Parameter named after its variable (aux states get
  // grad_req null). Parameters found in `params` (by name) are shared instead.
  SymbolBlock(sym::Symbol outputs, std::vector<std::string> input_names,
              const ParameterDict& params = {});
  SymbolBlock(sym::Symbol outputs, const std::vector<sym::Symbol>& inputs,
              const ParameterDict& params = {});

  // Loads `symbol_file` and (if given) `param_file` (arg:/aux: keys; 1.x and 2.x files) onto
  // `devices` (SymbolBlock.imports). Errors name the file and the missing/extra keys.
  static absl::StatusOr<std::shared_ptr<SymbolBlock>> imports(
      const std::string& symbol_file, const std::vector<std::string>& input_names,
      const std::string& param_file = "", const std::vector<Device>& devices = {cpu()},
      bool allow_missing = false, bool ignore_extra = false);

  NDArrayVec forward(const NDArrayVec& inputs) override;
  std::string class_name() const override { return "SymbolBlock"; }
  // The graph it runs (what export_model writes, as MXNet's SymbolBlock.export, without a call).
  const sym::Symbol& graph() const { return graph_; }

 protected:
  NDArrayVec CallForward(const NDArrayVec& inputs) override { return forward(inputs); }
  void InferParameterShapes(const NDArrayVec& inputs) override;

 private:
  sym::Symbol graph_;
  std::vector<std::string> input_names_;
  std::shared_ptr<sym::CachedOp> op_;
  std::vector<int> input_index_;  // per graph input: data index or -1 (parameter)
  std::vector<ParameterPtr> input_param_;
};

}  // namespace mxnet::gluon
