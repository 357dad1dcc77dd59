// mxnet classify: top-k classes of images through any MXNet export (ours or real MXNet's).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "gluon/data/vision/image.h"
#include "gluon/data/vision/transforms.h"
#include "gluon/symbol_block.h"
#include "modelzoo/vision.h"
#include "ndarray/nd.h"
#include "tools/mxnet/cli.h"

namespace mxnet::cli {
namespace {

namespace tf = gluon::data::vision::transforms;

absl::StatusOr<std::vector<std::string>> ReadLabels(const std::string& path) {
  std::ifstream f(path);
  if (!f) return absl::NotFoundError(StrCat("cannot open --labels file ", path));
  std::stringstream ss;
  ss << f.rdbuf();
  std::string text = ss.str();
  std::vector<std::string> labels;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_discarded() && j.is_array()) {
    for (const auto& x : j) labels.push_back(x.is_string() ? x.get<std::string>() : x.dump());
    return labels;
  }
  for (auto line : StrSplit(text, '\n'))
    if (!StripWhitespace(line).empty()) labels.emplace_back(StripWhitespace(line));
  return labels;
}

// Prints "PATH:" and then the k most probable classes of `prob` (one image's probabilities), best
// first, as "  1. NAME  0.9934" lines; NAME is labels[c], or "class c" past the end of `labels`.
void PrintTopK(const std::string& path, const std::vector<float>& prob,
               const std::vector<std::string>& labels, int64_t topk) {
  std::vector<int> idx(prob.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
  int k = static_cast<int>(std::min<int64_t>(topk, static_cast<int64_t>(prob.size())));
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(),
                    [&](int x1, int x2) { return prob[x1] > prob[x2]; });
  std::printf("%s:\n", path.c_str());
  for (int i = 0; i < k; ++i) {
    int c = idx[i];
    std::string name = c < static_cast<int>(labels.size()) ? labels[c] : StrCat("class ", c);
    std::printf("  %d. %-30s %.4f\n", i + 1, name.c_str(), prob[c]);
  }
}

// The network classify runs: an export (--symbol JSON + --params, input "data") through
// SymbolBlock.imports, or the model-zoo architecture --model (--classes outputs, default 1000)
// with load_parameters(--params) (save_parameters files, or an export's arg:/aux: file of the same
// architecture), hybridized. Exactly one of --symbol / --model. Errors: both or neither given, an
// unknown model name (listing the valid ones), files that do not load or fit.
absl::StatusOr<std::shared_ptr<gluon::Block>> LoadNet(const Args& a, Device dev) {
  namespace vision = gluon::model_zoo::vision;
  if (a.has("symbol") == a.has("model"))
    return absl::InvalidArgumentError(
        "give exactly one of --symbol (an exported -symbol.json) or --model (a model-zoo "
        "architecture) "
        "(see mxnet classify --help)");
  if (a.has("symbol")) {
    if (a.has("classes")) return absl::InvalidArgumentError("--classes applies to --model only");
    MX_ASSIGN_OR_RETURN(
        auto block, gluon::SymbolBlock::imports(a.get("symbol"), {"data"}, a.get("params"), {dev}));
    return std::shared_ptr<gluon::Block>(block);
  }
  const std::string name = AsciiToLower(a.get("model"));
  std::vector<std::string> names = vision::model_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    return absl::InvalidArgumentError(StrCat("unknown --model '", a.get("model"),
                                             "' (model-zoo names: ", StrJoin(names, ", "), ")"));
  MX_ASSIGN_OR_RETURN(int64_t classes, a.get_int("classes", 1000));
  if (classes < 1)
    return absl::InvalidArgumentError(StrCat("--classes must be >= 1, got ", classes));
  std::shared_ptr<gluon::HybridBlock> net;
  MX_RETURN_IF_ERROR(StatusFromCall([&] { net = vision::get_model(name, {.classes = classes}); }));
  gluon::LoadParametersOptions lo;
  lo.devices = {dev};
  MX_RETURN_IF_ERROR(net->load_parameters(a.get("params"), lo));
  net->hybridize();
  return std::shared_ptr<gluon::Block>(net);
}

// Classifies each --image (HWC uint8 RGB decoded from JPEG/PNG) with the net of LoadNet: short
// side resized to --resize (default 256 for a 224 input, else the input size), center crop of
// --input-size (default 224; 299 for --model inceptionv3), [0, 1] CHW, normalized by --mean/--std
// (ImageNet's by default), batch of one (1, 3, S, S) on --device; prints the softmax top-k
// (--topk, default 5) per image. Errors: missing flags, unreadable or undecodable images, bad
// --labels / --interp, and LoadNet's.
absl::Status RunClassify(const std::vector<std::string>& argv) {
  MX_ASSIGN_OR_RETURN(
      Args a, Args::Parse(argv,
                          {"symbol", "model", "classes", "params", "image", "labels", "input-size",
                           "resize", "mean", "std", "topk", "device", "interp"},
                          {}));
  for (const char* f : {"params", "image"})
    if (!a.has(f))
      return absl::InvalidArgumentError(
          StrCat("--", f, " is required (see mxnet classify --help)"));
  const int64_t default_size =
      a.has("model") ? gluon::model_zoo::vision::input_size(a.get("model")) : 224;
  MX_ASSIGN_OR_RETURN(int64_t size, a.get_int("input-size", default_size));
  MX_ASSIGN_OR_RETURN(int64_t resize, a.get_int("resize", size == 224 ? 256 : size));
  MX_ASSIGN_OR_RETURN(int64_t topk, a.get_int("topk", 5));
  if (topk < 1) return absl::InvalidArgumentError(StrCat("--topk must be >= 1, got ", topk));
  MX_ASSIGN_OR_RETURN(std::vector<double> mean, a.get_doubles("mean", {0.485, 0.456, 0.406}));
  MX_ASSIGN_OR_RETURN(std::vector<double> stdv, a.get_doubles("std", {0.229, 0.224, 0.225}));
  MX_ASSIGN_OR_RETURN(Device dev, ParseDevice(a.get("device", "cpu")));
  const std::map<std::string, gluon::data::vision::Interp> kInterp = {
      {"nearest", gluon::data::vision::Interp::kNearest},
      {"bilinear", gluon::data::vision::Interp::kBilinear},
      {"bicubic", gluon::data::vision::Interp::kBicubic},
      {"area", gluon::data::vision::Interp::kArea},
      {"lanczos", gluon::data::vision::Interp::kLanczos}};
  auto interp_it = kInterp.find(a.get("interp", "bilinear"));
  if (interp_it == kInterp.end())
    return absl::InvalidArgumentError(
        StrCat("--interp must be nearest, bilinear, bicubic, area or lanczos, got '",
               a.get("interp"), "'"));
  std::vector<std::string> labels;
  if (a.has("labels")) {
    MX_ASSIGN_OR_RETURN(labels, ReadLabels(a.get("labels")));
  }
  MX_ASSIGN_OR_RETURN(auto block, LoadNet(a, dev));
  // Short side to `resize` with an antialiasing filter, center crop, [0, 1], normalize. The long
  // side is rounded to the nearest pixel (the aspect ratio closest to the photo's); MXNet's
  // resize_short and gluon's Resize(keep_ratio) truncate instead, which for a 1024x576 photo gives
  // 56x32 rather than 57x32 and shifts the crop by half a pixel.
  tf::Compose prep({std::make_shared<tf::CenterCrop>(tf::Size2(size)),
                    std::make_shared<tf::ToTensor>(),
                    std::make_shared<tf::Normalize>(std::vector<float>(mean.begin(), mean.end()),
                                                    std::vector<float>(stdv.begin(), stdv.end()))});
  for (const std::string& path : a.all("image")) {
    MX_ASSIGN_OR_RETURN(NDArray img, gluon::data::vision::imread(path));
    NDArray x;
    MX_RETURN_IF_ERROR(StatusFromCall([&] {
      NDArray resized = gluon::data::vision::resize_short(img, resize, interp_it->second,
                                                          /*round_long_side=*/true);
      x = prep.Forward(resized).expand_dims(0).as_in_context(dev);
    }));
    NDArray prob;
    MX_RETURN_IF_ERROR(StatusFromCall([&] { prob = nd::softmax((*block)(x)); }));
    PrintTopK(path, prob.ToVector<float>(), labels, topk);
  }
  return absl::OkStatus();
}

const int kRegistered = RegisterCommand(
    {"classify", "top-k classes of images through an exported or model-zoo model",
     "usage: mxnet classify --symbol F-symbol.json --params F-0000.params --image IMG [IMG ...]\n"
     "       mxnet classify --model NAME [--classes 1000] --params F.params --image IMG [...]\n"
     "                      [--labels FILE] [--input-size 224] [--resize N]\n"
     "                      [--mean 0.485,0.456,0.406] [--std 0.229,0.224,0.225] [--topk 5]\n"
     "                      [--device cpu] [--interp bilinear|bicubic|lanczos|area|nearest]\n\n"
     "Decodes JPEG/PNG, resizes the short side to --resize (default 256 for 224 inputs, else\n"
     "the input size) with an antialiasing filter, center-crops --input-size, scales to [0, 1],\n"
     "normalizes, and prints the top-k classes with probabilities. --labels: a JSON list or one\n"
     "name per line.\n\n"
     "The network is either an export (--symbol + --params, input 'data': ours or real MXNet's)\n"
     "or a model-zoo architecture (--model resnet18_v1, mobilenet0.25, ...; MXNet's\n"
     "model_zoo.vision names) with --classes outputs whose weights --params holds (a\n"
     "save_parameters file, or an export's -0000.params of that architecture). Give exactly one\n"
     "of --symbol and --model. With --model inceptionv3 the default --input-size is 299.\n",
     RunClassify});

}  // namespace
}  // namespace mxnet::cli
