// classify_image: classify a photo with a model-zoo network or an exported model; print top-5.
//
//   ./bazelw run //examples:classify_image -- --model resnet18_v1 --params W.params --image cat.jpg
//   ./bazelw run //examples:classify_image -- --symbol M-symbol.json --params M-0000.params
//       --image IMG --size 32 --mean ... --std ... --labels FILE     (see examples/README.md)
//
// --model NAME builds a model-zoo net (get_model; --classes N, default 1000) and loads --params
// (a save_parameters file). --symbol FILE imports an export instead (SymbolBlock::imports).
// Preprocessing: short side resized to --resize (default 256 for --size 224, else --size) with an
// antialiasing filter, center crop --size (default 224), [0, 1], normalize by --mean/--std
// (default ImageNet's). --labels: one class name per line.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/strings.h"
#include "gluon/data/vision/image.h"
#include "gluon/data/vision/transforms.h"
#include "gluon/symbol_block.h"
#include "modelzoo/vision.h"
#include "ndarray/nd.h"

using namespace mxnet;  // short names for an example; real code would spell them out
namespace vision = gluon::data::vision;

// "a,b,c" -> {a, b, c}; throws mxnet::Error naming the option on bad input.
std::vector<float> ParseFloats(const std::string& option, const std::string& text) {
  std::vector<float> out;
  for (std::string_view piece : StrSplit(text, ',')) {
    double v;
    MX_REQUIRE(ParseDouble(piece, &v), absl::StatusCode::kInvalidArgument, option,
               " expects numbers like 0.5,0.5,0.5, got '", text, "'");
    out.push_back(static_cast<float>(v));
  }
  return out;
}
int64_t ParseSize(const std::string& option, const std::string& text) {
  int64_t v;
  MX_REQUIRE(ParseInt64(text, &v) && v > 0, absl::StatusCode::kInvalidArgument, option,
             " expects a positive integer, got '", text, "'");
  return v;
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
  // ---- Arguments: --name value pairs of known names; exactly one of --model and --symbol. ----
  const std::set<std::string> known = {"image", "model",  "classes", "symbol", "params",
                                       "size",  "resize", "mean",    "std",    "labels"};
  std::map<std::string, std::string> opt;
  bool ok_args = argc % 2 == 1;
  for (int i = 1; ok_args && i + 1 < argc; i += 2) {
    ok_args = StartsWith(argv[i], "--") && known.count(argv[i] + 2);
    if (ok_args) opt[argv[i] + 2] = argv[i + 1];
  }
  ok_args = ok_args && opt.count("image") && opt.count("params") &&
            opt.count("model") != opt.count("symbol");
  if (!ok_args) {
    std::fprintf(stderr,
                 "usage: classify_image --image IMG (--model NAME [--classes N] | --symbol FILE) "
                 "--params FILE [--size N] [--resize N] [--mean a,b,c] [--std a,b,c] "
                 "[--labels FILE]\n");
    return 1;
  }
  auto get = [&](const std::string& k, const std::string& def) {
    return opt.count(k) ? opt[k] : def;
  };
  try {
    const int64_t size = ParseSize("--size", get("size", "224"));
    const int64_t resize =
        ParseSize("--resize", get("resize", std::to_string(size == 224 ? 256 : size)));
    const std::vector<float> mean = ParseFloats("--mean", get("mean", "0.485,0.456,0.406"));
    const std::vector<float> stdev = ParseFloats("--std", get("std", "0.229,0.224,0.225"));

    // ---- The network: a model-zoo architecture with weights from a file, or an export. ----
    std::shared_ptr<gluon::HybridBlock> net;
    if (opt.count("model")) {
      namespace zoo = gluon::model_zoo::vision;
      net =
          zoo::get_model(opt["model"], {.classes = ParseSize("--classes", get("classes", "1000"))});
      ThrowIfError(net->load_parameters(UserPath(opt["params"])));  // keys like "features.0.weight"
    } else {
      net = ValueOrThrow(
          gluon::SymbolBlock::imports(UserPath(opt["symbol"]), {"data"}, UserPath(opt["params"])));
    }

    // ---- The image: decode to (H, W, 3) uint8 RGB, resize the short side to `resize` (the long
    // side keeps the aspect ratio, rounded to the nearest pixel), then crop, scale, normalize. ----
    NDArray img = ValueOrThrow(vision::imread(UserPath(opt["image"])));
    img = vision::resize_short(img, resize, vision::Interp::kBilinear, /*round_long_side=*/true);
    namespace tf = vision::transforms;
    tf::Compose preprocess({tf::CenterCrop(size), tf::ToTensor(), tf::Normalize(mean, stdev)});
    NDArray x = preprocess(img).expand_dims(0);  // (3, size, size) -> a batch of one

    // ---- Classify: logits -> probabilities; print the 5 most likely classes. ----
    std::vector<float> prob = nd::softmax((*net)(x)).ToVector<float>();
    std::vector<std::string> labels;
    if (opt.count("labels")) {
      std::ifstream f(UserPath(opt["labels"]));
      MX_REQUIRE(f, absl::StatusCode::kNotFound, "cannot open --labels file ", opt["labels"]);
      for (std::string line; std::getline(f, line);) labels.push_back(line);
    }
    std::vector<int> order(prob.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    const int k = std::min<int>(5, order.size());
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](int a, int b) { return prob[a] > prob[b]; });
    std::printf("%s (input %s):\n", opt["image"].c_str(), x.shape().ToString().c_str());
    for (int i = 0; i < k; ++i) {
      const int c = order[i];
      std::printf("  %d. class %-4d %-14s %.4f\n", i + 1, c,
                  c < static_cast<int>(labels.size()) ? labels[c].c_str() : "", prob[c]);
    }
  } catch (const Error& e) {  // every API error is an mxnet::Error with a readable message
    std::fprintf(stderr, "classify_image: error: %s\n", OneLine(e.what()).c_str());
    return 1;
  }
  return 0;
}
