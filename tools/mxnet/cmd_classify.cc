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
#include "gluon/onnx/onnx.h"
#include "gluon/symbol_block.h"
#include "modelzoo/vision.h"
#include "ndarray/nd.h"
#include "tools/mxnet/cli.h"

ABSL_FLAG(std::string, image, "",
          "a JPEG or PNG image (required); more may follow as plain arguments");
ABSL_FLAG(std::string, labels, "", "class names: a JSON list or one name per line");
ABSL_FLAG(int64_t, input_size, 224,
          "side S of the S x S center crop fed to the net (default: 224; 299 for --model "
          "inceptionv3)");
ABSL_FLAG(int64_t, resize, 256,
          "short side after resizing (default: 256 for a 224 input, else the input size)");
ABSL_FLAG(std::string, mean, "0.485,0.456,0.406",
          "per-channel mean subtracted (RGB, [0, 1] scale)");
ABSL_FLAG(std::string, std, "0.229,0.224,0.225", "per-channel standard deviation divided by");
ABSL_FLAG(int64_t, topk, 5, "classes printed per image");
ABSL_FLAG(std::string, interp, "bilinear",
          "resize filter: nearest, bilinear, bicubic, area or lanczos");

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
// architecture), hybridized, or an ONNX model (--onnx F.onnx, gluon::imports_onnx; one input).
// Exactly one of --symbol / --model / --onnx. Errors: none or several given, an unknown model
// name (listing the valid ones), files that do not load or fit.
absl::StatusOr<std::shared_ptr<gluon::Block>> LoadNet(Device dev) {
  namespace vision = gluon::model_zoo::vision;
  const std::string params = absl::GetFlag(FLAGS_params), model = absl::GetFlag(FLAGS_model);
  if (int(Given(FLAGS_symbol)) + int(Given(FLAGS_model)) + int(Given(FLAGS_onnx)) != 1)
    return absl::InvalidArgumentError(
        "give exactly one of --symbol (an exported -symbol.json), --model (a model-zoo "
        "architecture) or --onnx (an ONNX model) "
        "(see mxnet classify --help)");
  if (Given(FLAGS_onnx)) {
    if (Given(FLAGS_classes) || Given(FLAGS_params))
      return absl::InvalidArgumentError("--classes and --params do not apply to --onnx");
    MX_ASSIGN_OR_RETURN(auto block, gluon::imports_onnx(absl::GetFlag(FLAGS_onnx), {dev}));
    return std::shared_ptr<gluon::Block>(block);
  }
  if (!Given(FLAGS_params))
    return absl::InvalidArgumentError("--params is required (see mxnet classify --help)");
  if (Given(FLAGS_symbol)) {
    if (Given(FLAGS_classes))
      return absl::InvalidArgumentError("--classes applies to --model only");
    MX_ASSIGN_OR_RETURN(auto block, gluon::SymbolBlock::imports(absl::GetFlag(FLAGS_symbol),
                                                                {"data"}, params, {dev}));
    return std::shared_ptr<gluon::Block>(block);
  }
  const std::string name = AsciiToLower(model);
  std::vector<std::string> names = vision::model_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    return absl::InvalidArgumentError(
        StrCat("unknown --model '", model, "' (model-zoo names: ", StrJoin(names, ", "), ")"));
  const int64_t classes = absl::GetFlag(FLAGS_classes);
  if (classes < 1)
    return absl::InvalidArgumentError(StrCat("--classes must be >= 1, got ", classes));
  std::shared_ptr<gluon::HybridBlock> net;
  MX_RETURN_IF_ERROR(StatusFromCall([&] { net = vision::get_model(name, {.classes = classes}); }));
  gluon::LoadParametersOptions lo;
  lo.devices = {dev};
  MX_RETURN_IF_ERROR(net->load_parameters(params, lo));
  net->hybridize();
  return std::shared_ptr<gluon::Block>(net);
}

// The channels the export's input "data" takes for an S x S image: 3, or 1 when the graph's
// shapes (its loaded parameters: the first Convolution's or FullyConnected's weight) only fit a
// (1, 1, S, S) input (a grayscale LeNet); 3 when neither fits (the forward then says why).
int64_t InputChannels(gluon::SymbolBlock& block, int64_t size) {
  std::map<std::string, Shape> known;
  for (const auto& [name, p] : block.collect_params())
    if (p->shape().is_known()) known[name] = p->shape();
  auto fits = [&](int64_t c) {
    known["data"] = Shape{1, c, size, size};
    return StatusFromCall([&] { (void)block.graph().infer_shape(known); }).ok();
  };
  return !fits(3) && fits(1) ? 1 : 3;
}

// Whether the export's (first) output is already a probability distribution: it ends in
// SoftmaxOutput (a Module-era export) or softmax, so classify does not apply softmax again.
bool OutputsProbabilities(const gluon::SymbolBlock& block) {
  const auto& outs = block.graph().outputs();
  if (outs.empty() || outs[0].node->is_variable()) return false;
  const std::string& op = outs[0].node->op->name;
  return op == "SoftmaxOutput" || op == "Softmax" || op == "softmax";
}

// Classifies each --image (HWC uint8 RGB decoded from JPEG/PNG) with the net of LoadNet: short
// side resized to --resize (default 256 for a 224 input, else the input size), center crop of
// --input-size (default 224; 299 for --model inceptionv3), [0, 1] CHW, normalized by --mean/--std
// (ImageNet's by default), batch of one (1, 3, S, S) on --device; prints the softmax top-k
// (--topk, default 5) per image. An export whose input only fits 1 channel (InputChannels) gets
// the image decoded as grayscale (mx.image.imread flag 0), (1, 1, S, S), mean 0 / std 1 unless
// given (one value each); an export ending in SoftmaxOutput/softmax is not softmaxed again. Errors:
// missing flags, unreadable or undecodable images, bad
// --labels / --interp, and LoadNet's.
absl::Status RunClassify(const std::vector<std::string>& more_images) {
  std::vector<std::string> images;
  if (Given(FLAGS_image)) images.push_back(absl::GetFlag(FLAGS_image));
  images.insert(images.end(), more_images.begin(), more_images.end());
  if (images.empty())
    return absl::InvalidArgumentError("--image is required (see mxnet classify --help)");
  const int64_t size = Given(FLAGS_input_size) || !Given(FLAGS_model)
                           ? absl::GetFlag(FLAGS_input_size)
                           : gluon::model_zoo::vision::input_size(absl::GetFlag(FLAGS_model));
  const int64_t resize = Given(FLAGS_resize) ? absl::GetFlag(FLAGS_resize)
                         : size == 224       ? 256
                                             : size;
  const int64_t topk = absl::GetFlag(FLAGS_topk);
  if (topk < 1) return absl::InvalidArgumentError(StrCat("--topk must be >= 1, got ", topk));
  MX_ASSIGN_OR_RETURN(Device dev, ParseDevice(absl::GetFlag(FLAGS_device)));
  const std::map<std::string, gluon::data::vision::Interp> kInterp = {
      {"nearest", gluon::data::vision::Interp::kNearest},
      {"bilinear", gluon::data::vision::Interp::kBilinear},
      {"bicubic", gluon::data::vision::Interp::kBicubic},
      {"area", gluon::data::vision::Interp::kArea},
      {"lanczos", gluon::data::vision::Interp::kLanczos}};
  const std::string interp = absl::GetFlag(FLAGS_interp);
  auto interp_it = kInterp.find(interp);
  if (interp_it == kInterp.end())
    return absl::InvalidArgumentError(
        StrCat("--interp must be nearest, bilinear, bicubic, area or lanczos, got '", interp, "'"));
  std::vector<std::string> labels;
  if (Given(FLAGS_labels)) {
    MX_ASSIGN_OR_RETURN(labels, ReadLabels(absl::GetFlag(FLAGS_labels)));
  }
  MX_ASSIGN_OR_RETURN(auto block, LoadNet(dev));
  int64_t channels = 3;
  bool probabilities = false;
  if (auto* sb = dynamic_cast<gluon::SymbolBlock*>(block.get())) {
    channels = InputChannels(*sb, size);
    probabilities = OutputsProbabilities(*sb);
  }
  // Grayscale nets: one mean/std value, default 0 and 1 (inputs in [0, 1], as MXNet's MNIST
  // examples feed them).
  const bool gray = channels == 1;
  MX_ASSIGN_OR_RETURN(
      std::vector<double> mean,
      ParseDoubles("mean", gray && !Given(FLAGS_mean) ? "0" : absl::GetFlag(FLAGS_mean)));
  MX_ASSIGN_OR_RETURN(
      std::vector<double> stdv,
      ParseDoubles("std", gray && !Given(FLAGS_std) ? "1" : absl::GetFlag(FLAGS_std)));
  if (gray && (mean.size() != 1 || stdv.size() != 1))
    return absl::InvalidArgumentError(StrCat(
        "the net takes 1-channel (grayscale) input: --mean and --std take one value each, got ",
        mean.size(), " and ", stdv.size()));
  // Short side to `resize` with an antialiasing filter, center crop, [0, 1], normalize. The long
  // side is rounded to the nearest pixel (the aspect ratio closest to the photo's); MXNet's
  // resize_short and gluon's Resize(keep_ratio) truncate instead, which for a 1024x576 photo gives
  // 56x32 rather than 57x32 and shifts the crop by half a pixel.
  tf::Compose prep({std::make_shared<tf::CenterCrop>(tf::Size2(size)),
                    std::make_shared<tf::ToTensor>(),
                    std::make_shared<tf::Normalize>(std::vector<float>(mean.begin(), mean.end()),
                                                    std::vector<float>(stdv.begin(), stdv.end()))});
  for (const std::string& path : images) {
    MX_ASSIGN_OR_RETURN(NDArray img, gluon::data::vision::imread(path, gray ? 0 : 1));
    NDArray x;
    MX_RETURN_IF_ERROR(StatusFromCall([&] {
      NDArray resized = gluon::data::vision::resize_short(img, resize, interp_it->second,
                                                          /*round_long_side=*/true);
      x = prep.Forward(resized).expand_dims(0).as_in_context(dev);
    }));
    NDArray prob;
    MX_RETURN_IF_ERROR(StatusFromCall([&] {
      NDArray y = (*block)(x);
      prob = probabilities ? y : nd::softmax(y);
    }));
    PrintTopK(path, prob.ToVector<float>(), labels, topk);
  }
  return absl::OkStatus();
}

const int kRegistered = RegisterCommand(
    {"classify",
     "top-k classes of images through an exported or model-zoo model",
     "usage: mxnet classify --symbol F-symbol.json --params F-0000.params --image IMG [IMG ...]\n"
     "       mxnet classify --model NAME [--classes 1000] --params F.params --image IMG [...]\n"
     "       mxnet classify --onnx F.onnx --image IMG [...]\n"
     "                      [--labels FILE] [--input-size 224] [--resize N]\n"
     "                      [--mean 0.485,0.456,0.406] [--std 0.229,0.224,0.225] [--topk 5]\n"
     "                      [--device cpu] [--interp bilinear|bicubic|lanczos|area|nearest]\n\n"
     "Decodes JPEG/PNG, resizes the short side to --resize (default 256 for 224 inputs, else\n"
     "the input size) with an antialiasing filter, center-crops --input-size, scales to [0, 1],\n"
     "normalizes, and prints the top-k classes with probabilities. --labels: a JSON list or one\n"
     "name per line.\n\n"
     "The network is either an export (--symbol + --params, input 'data': ours or real MXNet's,\n"
     "Module-era exports ending in SoftmaxOutput included; a net whose input has 1 channel gets\n"
     "the image as grayscale with --mean 0 --std 1 unless given)\n"
     "or a model-zoo architecture (--model resnet18_v1, mobilenet0.25, ...; MXNet's\n"
     "model_zoo.vision names) with --classes outputs whose weights --params holds (a\n"
     "save_parameters file, or an export's -0000.params of that architecture), or an ONNX model\n"
     "(--onnx: ours, torch.onnx's or mx.onnx's; one NCHW input). Give exactly one of --symbol,\n"
     "--model and --onnx. With --model inceptionv3 the default --input-size is 299.\n",
     {{.flag = Ref(FLAGS_symbol), .help = "an exported F-symbol.json (input 'data')"},
      {.flag = Ref(FLAGS_model),
       .help = "a model-zoo architecture (resnet18_v1, mobilenet0.25, ...)"},
      {.flag = Ref(FLAGS_onnx), .help = "an ONNX model (one input, NCHW images)"},
      {.flag = Ref(FLAGS_classes), .help = "outputs of --model's last layer"},
      {.flag = Ref(FLAGS_params),
       .help = "the weights: the export's F-0000.params, or for --model a save_parameters file "
               "(required with --symbol and --model)"},
      {.flag = Ref(FLAGS_image), .repeatable = true},
      {.flag = Ref(FLAGS_labels)},
      {.flag = Ref(FLAGS_input_size)},
      {.flag = Ref(FLAGS_resize)},
      {.flag = Ref(FLAGS_mean)},
      {.flag = Ref(FLAGS_std)},
      {.flag = Ref(FLAGS_topk)},
      {.flag = Ref(FLAGS_device)},
      {.flag = Ref(FLAGS_interp)}},
     "more images to classify (IMG ...)",
     RunClassify});

}  // namespace
}  // namespace mxnet::cli
