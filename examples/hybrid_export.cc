// hybrid_export: define a HybridBlock, run it imperatively and hybridized, export it.
//
//   ./bazelw run //examples:hybrid_export -- /tmp/model
//
// This is the `Model` of MXNet's HybridBlock documentation in C++. It shows the three ways the
// same network runs:
//   1. imperatively: forward() executes op by op, like plain NumPy code;
//   2. hybridized:   the next call traces forward() into a symbolic graph, optimizes it and
//                    caches an executor that later calls reuse;
//   3. exported:     the graph and weights written as PREFIX-symbol.json + PREFIX-0000.params,
//                    loaded back with SymbolBlock::imports (real MXNet 1.9 loads them too).
// All three must give the same numbers.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "gluon/block.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/symbol_block.h"
#include "ndarray/nd.h"
#include "ndarray/random.h"

using namespace mxnet;  // short names for an example; real code would spell them out

// A HybridBlock registers its children (giving their parameters structured names such as
// "dense0.weight") and overrides forward() with NDArray code. To be hybridizable, forward() may
// only call ops: no reading of values, no branches on data.
class Model : public gluon::HybridBlock {
 public:
  Model() {
    dense0 = register_child(std::make_shared<gluon::nn::Dense>(20), "dense0");
    dense1 = register_child(std::make_shared<gluon::nn::Dense>(20), "dense1");
  }
  NDArray forward(const NDArray& x) override { return nd::relu((*dense1)(nd::relu((*dense0)(x)))); }
  std::shared_ptr<gluon::nn::Dense> dense0, dense1;
};

// The largest |a - b| over all elements.
float MaxAbsDiff(const NDArray& a, const NDArray& b) {
  return nd::max(nd::abs(a - b)).asscalar<float>();
}

// An error message on one line (a few list their options on separate lines, as MXNet's do).
std::string OneLine(const std::string& message) {
  std::string out;
  for (char c : message)
    if (c != '\n' && c != '\t')
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  return out;
}

// `bazel run` starts a program in its runfiles directory: make a relative path relative to the
// directory the command was typed in instead.
std::string UserPath(const std::string& path) {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  return (wd && !path.empty() && path[0] != '/') ? std::string(wd) + "/" + path : path;
}

int main(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '-') {
    std::fprintf(stderr,
                 "usage: hybrid_export PREFIX  (writes PREFIX-symbol.json, PREFIX-0000.params)\n");
    return 1;
  }
  const std::string prefix = UserPath(argv[1]);
  try {
    random::seed(42);  // repeatable initial weights

    // Dense(20) has not seen its input yet, so its weight shape is (20, ?): initialization is
    // deferred until the first call tells it the number of input features.
    auto model = std::make_shared<Model>();
    model->initialize(gluon::init::Xavier());

    // A fixed input: 4 samples of 10 features, 0.00, 0.01, ..., 0.39, then centered.
    NDArray x = (nd::arange(0, 40) / 100.0 - 0.2).reshape({4, 10});

    // 1. Imperative: every op of forward() runs as it is called.
    NDArray y_imperative = (*model)(x);

    // 2. Hybridized: the first call after hybridize() traces forward() with x's shape into a
    //    graph; the second call runs the cached graph without calling forward() at all.
    model->hybridize();
    NDArray y_traced = (*model)(x);
    NDArray y_hybrid = (*model)(x);

    // 3. Export the last traced graph and its parameters ("arg:dense0.weight", ...), then load
    //    them into a SymbolBlock, a block built from a graph file instead of C++ code. The input
    //    of a one-input graph is called "data".
    ThrowIfError(model->export_model(prefix));  // Status-returning I/O: turn errors into throws
    auto imported = ValueOrThrow(
        gluon::SymbolBlock::imports(prefix + "-symbol.json", {"data"}, prefix + "-0000.params"));
    NDArray y_imported = (*imported)(x);

    std::printf("%s\n", model->ToString().c_str());  // the block tree, as MXNet prints it
    std::printf("input shape:  %s\n", x.shape().ToString().c_str());
    std::printf("output shape: imperative %s, hybridized %s, imported %s\n",
                y_imperative.shape().ToString().c_str(), y_hybrid.shape().ToString().c_str(),
                y_imported.shape().ToString().c_str());
    std::printf("max |imperative - hybridized| = %.3g\n", MaxAbsDiff(y_imperative, y_hybrid));
    std::printf("max |imperative - traced call| = %.3g\n", MaxAbsDiff(y_imperative, y_traced));
    std::printf("max |hybridized - imported| = %.3g\n", MaxAbsDiff(y_hybrid, y_imported));
    std::printf("output sum = %.6f\n", nd::sum(y_hybrid).asscalar<float>());
    std::printf("wrote %s-symbol.json and %s-0000.params\n", prefix.c_str(), prefix.c_str());
  } catch (const Error& e) {  // every API error is an mxnet::Error with a readable message
    std::fprintf(stderr, "hybrid_export: error: %s\n", OneLine(e.what()).c_str());
    return 1;
  }
  return 0;
}
