// mxnet predict: batch inference of an MXNet export on arrays from an NDArray file.
#include <algorithm>
#include <iostream>
#include <set>

#include "base/strings.h"
#include "gluon/onnx/onnx.h"
#include "gluon/symbol_block.h"
#include "ndarray/io.h"
#include "tools/mxnet/cli.h"

ABSL_FLAG(std::string, input, "", "the input arrays: an NDArray file (.nd, .params, .npy, .npz)");
ABSL_FLAG(std::string, output, "", "where to write the outputs (a named NDArray file)");

namespace mxnet::cli {
namespace {

// The model: an ONNX file (--onnx) or an export (--symbol + --params), with its data inputs.
struct Model {
  std::shared_ptr<gluon::SymbolBlock> block;
  sym::Symbol graph;
  std::vector<std::string> data_names;
};

// `input` is loaded after the model (the model's errors come first): the export path needs it to
// tell whether loss-head labels are given.
absl::StatusOr<Model> LoadModel(Device dev, const std::string& input_path, nd::NDArrayFile& input) {
  Model m;
  if (Given(FLAGS_onnx)) {
    if (Given(FLAGS_symbol) || Given(FLAGS_params))
      return absl::InvalidArgumentError("give either --onnx or --symbol with --params, not both");
    MX_ASSIGN_OR_RETURN(m.block, gluon::imports_onnx(absl::GetFlag(FLAGS_onnx), {dev}));
    m.graph = m.block->graph();
    std::set<std::string> param_names;
    for (const auto& [k, _] : m.block->collect_params()) param_names.insert(k);
    for (const auto& n : m.graph.list_inputs())
      if (!param_names.count(n)) m.data_names.push_back(n);
    MX_ASSIGN_OR_RETURN(input, nd::load(input_path));
    return m;
  }
  if (!Given(FLAGS_symbol) || !Given(FLAGS_params))
    return absl::InvalidArgumentError(
        "give --onnx F.onnx, or --symbol F-symbol.json with --params");
  const std::string params_path = absl::GetFlag(FLAGS_params);
  MX_ASSIGN_OR_RETURN(m.graph, sym::Symbol::load(absl::GetFlag(FLAGS_symbol)));
  MX_ASSIGN_OR_RETURN(nd::NDArrayFile params, nd::load(params_path));
  MX_ASSIGN_OR_RETURN(input, nd::load(input_path));
  // Graph inputs not provided by the params file are the data inputs, except the labels of
  // loss heads (softmax_label of a Module-era export): inference runs without them, unless the
  // input file holds them (by name, or as extra unnamed arrays).
  std::set<std::string> param_names;
  for (const auto& [k, _] : params.items())
    param_names.insert(StartsWith(k, "arg:") || StartsWith(k, "aux:") ? k.substr(4) : k);
  std::vector<std::string> labels = gluon::SymbolBlock::label_inputs(m.graph);
  auto is_label = [&](const std::string& n) {
    return std::find(labels.begin(), labels.end(), n) != labels.end();
  };
  std::vector<std::string> with_labels;
  for (const auto& n : m.graph.list_inputs()) {
    if (param_names.count(n)) continue;
    with_labels.push_back(n);
    if (!is_label(n) || (input.is_dict && input.find(n))) m.data_names.push_back(n);
  }
  if (!input.is_dict && input.size() == with_labels.size()) m.data_names = with_labels;
  MX_RETURN_IF_ERROR(StatusFromCall(
      [&] { m.block = std::make_shared<gluon::SymbolBlock>(m.graph, m.data_names); }));
  gluon::LoadParametersOptions lo;
  lo.devices = {dev};
  MX_RETURN_IF_ERROR(m.block->load_dict(params.items(), lo, params_path));
  return m;
}

absl::Status RunPredict(const std::vector<std::string>&) {
  const std::string input_path = absl::GetFlag(FLAGS_input);
  const std::string output_path = absl::GetFlag(FLAGS_output);
  MX_ASSIGN_OR_RETURN(Device dev, ParseDevice(absl::GetFlag(FLAGS_device)));
  nd::NDArrayFile input;
  MX_ASSIGN_OR_RETURN(Model model, LoadModel(dev, input_path, input));
  const std::vector<std::string>& data_names = model.data_names;
  const sym::Symbol& graph = model.graph;
  auto block = model.block;
  NDArrayVec data;
  if (input.is_dict) {
    for (const auto& n : data_names) {
      const NDArray* arr = input.find(n);
      if (!arr)
        return absl::NotFoundError(StrCat(input_path, " has no array named '", n,
                                          "' (graph data inputs: ", StrJoin(data_names, ", "),
                                          ")"));
      data.push_back(arr->as_in_context(dev));
    }
  } else {
    if (input.size() != data_names.size())
      return absl::InvalidArgumentError(StrCat(input_path, " holds ", input.size(),
                                               " arrays but the graph has ", data_names.size(),
                                               " data inputs (", StrJoin(data_names, ", "), ")"));
    for (const auto& arr : input.arrays) data.push_back(arr.as_in_context(dev));
  }
  NDArrayVec out;
  MX_RETURN_IF_ERROR(StatusFromCall([&] { out = (*block)(data); }));
  std::vector<std::string> names = graph.list_outputs();
  std::vector<std::pair<std::string, NDArray>> named;
  for (size_t i = 0; i < out.size(); ++i) named.push_back({names[i], out[i]});
  MX_RETURN_IF_ERROR(nd::save(output_path, named));
  std::cout << "wrote " << out.size() << " output(s) to " << output_path << "\n";
  return absl::OkStatus();
}

const int kRegistered = RegisterCommand(
    {"predict",
     "batch inference of an exported model on arrays from an NDArray file",
     "usage: mxnet predict --symbol F-symbol.json --params F-0000.params --input "
     "X.nd --output Y.nd "
     "[--device cpu|gpu(0)]\n"
     "       mxnet predict --onnx F.onnx --input X.nd --output Y.nd\n\n"
     "The model is an export (--symbol + --params) or an ONNX file (--onnx).\n"
     "Reads the input arrays from X.nd (by name, or in order for an unnamed list), "
     "runs the graph and writes\n"
     "the outputs as a named NDArray file (keys: the graph's output names) that "
     "MXNet's nd.load reads.\n"
     "Module-era exports ending in loss heads (SoftmaxOutput, LinearRegressionOutput, ...) run\n"
     "without their labels (softmax_label, ...), as MXNet's predict API runs them.\n",
     {{.flag = Ref(FLAGS_symbol)},
      {.flag = Ref(FLAGS_params), .help = "the export's F-0000.params (arg:/aux: keys)"},
      {.flag = Ref(FLAGS_onnx)},
      {.flag = Ref(FLAGS_input), .required = true},
      {.flag = Ref(FLAGS_output), .required = true},
      {.flag = Ref(FLAGS_device)}},
     "",
     RunPredict});

}  // namespace
}  // namespace mxnet::cli
