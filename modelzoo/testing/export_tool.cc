// Conformance helper for tools/conformance/modelzoo_check_export.py (not a test): builds a
// model-zoo net with deterministic weights (testing/deterministic_weights.h), runs it
// hybridized on the deterministic "input" of the given size and exports it.
//   export_tool NAME SIZE OUT_PREFIX [mxnet1]
// writes OUT_PREFIX-symbol.json, OUT_PREFIX-0000.params (export_model) and OUT_PREFIX-io.params
// (the input "data" and our output "output"); with "mxnet1" also OUT_PREFIX-mx1-symbol.json and
// OUT_PREFIX-mx1-0000.params (export_model with MXNet 1.x names) and OUT_PREFIX-mx1.params
// (save_parameters with the 1.x names without the net's prefix, as 1.x save_params writes).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "modelzoo/testing/deterministic_weights.h"
#include "modelzoo/vision.h"
#include "ndarray/io.h"

int main(int argc, char** argv) {
  namespace vision = mxnet::gluon::model_zoo::vision;
  namespace testing = mxnet::gluon::model_zoo::testing;
  const bool mxnet1 = argc == 5 && std::string(argv[4]) == "mxnet1";
  if (argc != 4 && !mxnet1) {
    std::fprintf(stderr, "usage: %s NAME SIZE OUT_PREFIX [mxnet1]\n", argv[0]);
    return 2;
  }
  absl::Status st = mxnet::StatusFromCall([&] {
    std::string name = argv[1], prefix = argv[3];
    int64_t size = std::atoll(argv[2]);
    auto net = vision::get_model(name);
    mxnet::Shape shape{1, 3, size, size};
    mxnet::NDArray x = testing::DeterministicValues("input", shape);
    net->initialize(mxnet::gluon::init::Zero());
    (*net)(x);  // completes deferred initialization
    testing::SetDeterministicWeights(*net);
    net->hybridize();
    mxnet::NDArray y = (*net)(x);
    mxnet::ThrowIfError(net->export_model(prefix));
    if (mxnet1) {
      namespace gluon = mxnet::gluon;
      mxnet::ThrowIfError(
          net->export_model(prefix + "-mx1", 0, {.names = gluon::ParamNames::kMxnet1}));
      mxnet::ThrowIfError(net->save_parameters(prefix + "-mx1.params",
                                               {.names = gluon::ParamNames::kMxnet1Stripped}));
    }
    mxnet::ThrowIfError(mxnet::nd::save(prefix + "-io.params", {{"data", x}, {"output", y}}));
  });
  if (!st.ok()) {
    std::fprintf(stderr, "export_tool: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  return 0;
}
