// Outputs of all 34 nets vs real MXNet 1.9.1 with identical weights: both sides fill every
// parameter (by structured name) and the input with testing/deterministic_weights.h's values
// (tools/conformance/modelzoo_weights.py on MXNet's side), so no weight files are needed.
// Inputs are the smallest convenient sizes (32x32 where the architecture allows; 224 for
// densenet/squeezenet and 299 for inceptionv3, whose fixed final pools need them). Each net runs
// imperatively, hybridized, and as its traced graph through the executor's inference passes.
#include <cstdio>

#include "modelzoo/testing/test_util.h"
#include "symbol/executor.h"

namespace mxnet::gluon::model_zoo::vision {
namespace {

using testing::CloseTo;
using testing::DeterministicValues;
using testing::InferShapes;
using testing::ReadJson;
using testing::SetDeterministicWeights;
using testing::ShapeFromJson;

class NetOutput : public ::testing::TestWithParam<std::string> {};

TEST_P(NetOutput, MatchesMxnetImperativeAndHybridized) {
  const std::string& name = GetParam();
  nlohmann::json ref = ReadJson("modelzoo/testdata/nets/" + name + ".json");
  Shape in_shape = ShapeFromJson(ref["test_input"]);
  auto net = get_model(name);
  InferShapes(*net, in_shape);
  SetDeterministicWeights(*net);
  NDArray x = DeterministicValues("input", in_shape);
  NDArray expected =
      testing::ArrayFromJson(ref["test_output"], ShapeFromJson(ref["test_output_shape"]));
  NDArray imperative = (*net)(x);
  EXPECT_TRUE(CloseTo(imperative, expected)) << "imperative";
  net->hybridize();
  NDArray hybridized = (*net)(x);
  EXPECT_TRUE(CloseTo(hybridized, expected)) << "hybridized";
  EXPECT_TRUE(CloseTo((*net)(x), expected)) << "hybridized, cached graph";
  // The traced graph through the executor's inference passes (BatchNorm folding, oneDNN conv/FC
  // post-op fusion), as hybridize with a backend would run it.
  sym::CachedOp op(net->cached_graph(), {.static_alloc = true, .backend = "onednn"});
  ParameterDict params = net->collect_params();
  std::vector<NDArray> args;
  for (const auto& n : op.input_names()) args.push_back(n == "data" ? x : params.get(n)->data());
  NDArray optimized = op.Forward(args, false)[0];
  EXPECT_TRUE(CloseTo(optimized, expected)) << "graph passes (onednn)";
  std::printf(
      "%-18s input %-18s max rel error vs MXNet: imperative %.2e, hybridized %.2e, onednn passes "
      "%.2e "
      "(%d -> %d nodes)\n",
      name.c_str(), in_shape.ToString().c_str(), testing::MaxRelError(imperative, expected),
      testing::MaxRelError(hybridized, expected), testing::MaxRelError(optimized, expected),
      op.last_report().nodes_before, op.last_report().nodes_after);
}

INSTANTIATE_TEST_SUITE_P(AllNets, NetOutput, ::testing::ValuesIn(model_names()),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s)
                             if (c == '.') c = '_';
                           return s;
                         });

}  // namespace
}  // namespace mxnet::gluon::model_zoo::vision
