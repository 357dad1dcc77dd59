// import_finetune: load an exported model and fine-tune it with autograd, a loss and a Trainer.
//
//   ./bazelw run //examples:hybrid_export -- /tmp/model          # writes the export
//   ./bazelw run //examples:import_finetune -- /tmp/model        # or: SYMBOL.json PARAMS
//
// The exported graph becomes a gluon::SymbolBlock whose weights are ordinary trainable
// Parameters. We fine-tune it on a synthetic regression task: learn to imitate a fixed random
// "teacher" network, targets = relu(x A), from random inputs x. The loss must go down.
// Options: --features N (input size, default 10), --steps N (default 100), --out FILE (default
// PREFIX-finetuned.params, written with save_parameters).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "base/strings.h"
#include "gluon/loss/loss.h"
#include "gluon/symbol_block.h"
#include "gluon/training/trainer.h"
#include "ndarray/nd.h"
#include "ndarray/random.h"

using namespace mxnet;  // short names for an example; real code would spell them out

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
  // ---- Arguments: one or two file names, then --name value options. ----
  std::vector<std::string> files;
  std::string out;
  int64_t features = 10, steps = 100;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--out" && has_value) {
      out = UserPath(argv[++i]);
    } else if ((arg == "--features" || arg == "--steps") && has_value) {
      int64_t* dst = arg == "--features" ? &features : &steps;
      if (!ParseInt64(argv[++i], dst) || *dst < 1) {
        std::fprintf(stderr, "import_finetune: %s needs a positive integer, got '%s'\n",
                     arg.c_str(), argv[i]);
        return 1;
      }
    } else if (!StartsWith(arg, "-")) {
      files.push_back(UserPath(arg));
    } else {
      files.clear();  // an unknown option: print the usage
      break;
    }
  }
  if (files.empty() || files.size() > 2) {
    std::fprintf(stderr,
                 "usage: import_finetune (PREFIX | SYMBOL.json PARAMS) [--features N] [--steps N] "
                 "[--out FILE]\n");
    return 1;
  }
  // PREFIX means PREFIX-symbol.json + PREFIX-0000.params (what export_model writes).
  const std::string symbol_file = files.size() == 2 ? files[0] : files[0] + "-symbol.json";
  const std::string params_file = files.size() == 2 ? files[1] : files[0] + "-0000.params";
  if (out.empty()) out = (files.size() == 2 ? symbol_file : files[0]) + "-finetuned.params";

  try {
    // ---- The model: graph + weights from the files; its one input is called "data". ----
    auto net = ValueOrThrow(gluon::SymbolBlock::imports(symbol_file, {"data"}, params_file));

    // ---- The data: 256 random inputs and the teacher's targets. ----
    random::seed(7);
    const int64_t batch = 256;
    NDArray x = nd::random::normal(0, 1, Shape{batch, features});
    const int64_t outputs = (*net)(x).shape()[1];  // one forward tells the output size
    NDArray teacher = nd::random::normal(0, 0.5, Shape{features, outputs});
    NDArray y = nd::relu(nd::dot(x, teacher));

    // ---- Loss and optimizer. L2Loss is 0.5 * mean squared error per sample. The Trainer
    // updates every parameter of the net with Adam. ----
    gluon::loss::L2Loss l2;
    gluon::Trainer trainer(net->collect_params(), "adam", {{"learning_rate", 0.01}});

    float first = 0, last = 0;
    for (int64_t step = 0; step <= steps; ++step) {
      NDArray loss;
      {
        // Inside record(), every op is remembered so that backward() can compute gradients.
        auto recording = autograd::record();
        loss = l2((*net)(x), y);  // shape (batch,): one loss per sample
      }
      last = nd::mean(loss).asscalar<float>();
      if (step == 0) first = last;
      if (step % 10 == 0 || step == steps)
        std::printf("step %3lld  loss %.6f\n", static_cast<long long>(step), last);
      if (step == steps) break;    // the last iteration only measures the loss
      autograd::backward({loss});  // gradients of sum(loss) into each parameter's grad()
      trainer.step(batch);         // update, with gradients divided by the batch size
    }
    std::printf("loss: %.6f -> %.6f (%.1fx lower)\n", first, last, first / last);

    // ---- Save the fine-tuned weights by name; load them with load_parameters. ----
    ThrowIfError(net->save_parameters(out));
    std::printf("saved %s\n", out.c_str());
  } catch (const Error& e) {  // every API error is an mxnet::Error with a readable message
    std::fprintf(stderr, "import_finetune: error: %s\n", OneLine(e.what()).c_str());
    return 1;
  }
  return 0;
}
