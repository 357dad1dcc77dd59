// mxnet classify: top-k classes of images through any MXNet export (ours or real MXNet's).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "gluon/data/vision/image.h"
#include "gluon/data/vision/transforms.h"
#include "gluon/symbol_block.h"
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

absl::Status RunClassify(const std::vector<std::string>& argv) {
  MX_ASSIGN_OR_RETURN(Args a, Args::Parse(argv, {"symbol", "params", "image", "labels", "input-size", "resize",
                                                 "mean", "std", "topk", "device", "interp"},
                                          {}));
  for (const char* f : {"symbol", "params", "image"})
    if (!a.has(f)) return absl::InvalidArgumentError(StrCat("--", f, " is required (see mxnet classify --help)"));
  MX_ASSIGN_OR_RETURN(int64_t size, a.get_int("input-size", 224));
  MX_ASSIGN_OR_RETURN(int64_t resize, a.get_int("resize", size == 224 ? 256 : size));
  MX_ASSIGN_OR_RETURN(int64_t topk, a.get_int("topk", 5));
  MX_ASSIGN_OR_RETURN(std::vector<double> mean, a.get_doubles("mean", {0.485, 0.456, 0.406}));
  MX_ASSIGN_OR_RETURN(std::vector<double> stdv, a.get_doubles("std", {0.229, 0.224, 0.225}));
  MX_ASSIGN_OR_RETURN(Device dev, ParseDevice(a.get("device", "cpu")));
  const std::map<std::string, gluon::data::vision::Interp> kInterp = {
      {"nearest", gluon::data::vision::Interp::kNearest}, {"bilinear", gluon::data::vision::Interp::kBilinear},
      {"bicubic", gluon::data::vision::Interp::kBicubic}, {"area", gluon::data::vision::Interp::kArea},
      {"lanczos", gluon::data::vision::Interp::kLanczos}};
  auto interp_it = kInterp.find(a.get("interp", "bilinear"));
  if (interp_it == kInterp.end())
    return absl::InvalidArgumentError(StrCat("--interp must be nearest, bilinear, bicubic, area or lanczos, got '",
                                             a.get("interp"), "'"));
  std::vector<std::string> labels;
  if (a.has("labels")) {
    MX_ASSIGN_OR_RETURN(labels, ReadLabels(a.get("labels")));
  }
  MX_ASSIGN_OR_RETURN(auto block, gluon::SymbolBlock::imports(a.get("symbol"), {"data"}, a.get("params"), {dev}));
  // Short side to `resize` with an antialiasing filter, center crop, [0, 1], normalize. The long
  // side is rounded to the nearest pixel (the aspect ratio closest to the photo's); MXNet's
  // resize_short and gluon's Resize(keep_ratio) truncate instead, which for a 1024x576 photo gives
  // 56x32 rather than 57x32 and shifts the crop by half a pixel.
  tf::Compose prep({std::make_shared<tf::CenterCrop>(tf::Size2(size)), std::make_shared<tf::ToTensor>(),
                    std::make_shared<tf::Normalize>(std::vector<float>(mean.begin(), mean.end()),
                                                    std::vector<float>(stdv.begin(), stdv.end()))});
  for (const std::string& path : a.all("image")) {
    MX_ASSIGN_OR_RETURN(NDArray img, gluon::data::vision::imread(path));
    NDArray x;
    MX_RETURN_IF_ERROR(StatusFromCall([&] {
      const double h = static_cast<double>(img.shape()[0]), w = static_cast<double>(img.shape()[1]);
      const double scale = static_cast<double>(resize) / std::min(h, w);
      const auto rw = std::max<int64_t>(resize, std::llround(w * scale));
      const auto rh = std::max<int64_t>(resize, std::llround(h * scale));
      NDArray resized = gluon::data::vision::imresize(img, rw, rh, interp_it->second);
      x = prep.Forward(resized).expand_dims(0).as_in_context(dev);
    }));
    NDArray prob;
    MX_RETURN_IF_ERROR(StatusFromCall([&] { prob = nd::softmax((*block)(x)); }));
    std::vector<float> p = prob.ToVector<float>();
    std::vector<int> idx(p.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
    int k = static_cast<int>(std::min<int64_t>(topk, p.size()));
    std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int x1, int x2) { return p[x1] > p[x2]; });
    std::printf("%s:\n", path.c_str());
    for (int i = 0; i < k; ++i) {
      int c = idx[i];
      std::string name = c < static_cast<int>(labels.size()) ? labels[c] : StrCat("class ", c);
      std::printf("  %d. %-30s %.4f\n", i + 1, name.c_str(), p[c]);
    }
  }
  return absl::OkStatus();
}

const int kRegistered = RegisterCommand(
    {"classify", "top-k classes of images through an exported model",
     "usage: mxnet classify --symbol F-symbol.json --params F-0000.params --image IMG [IMG ...]\n"
     "                      [--labels FILE] [--input-size 224] [--resize N] [--mean 0.485,0.456,0.406]\n"
     "                      [--std 0.229,0.224,0.225] [--topk 5] [--device cpu]\n"
     "                      [--interp bilinear|bicubic|lanczos|area|nearest]\n\n"
     "Decodes JPEG/PNG, resizes the short side to --resize (default 256 for 224 inputs, else the input\n"
     "size) with an antialiasing filter, center-crops --input-size, scales to [0, 1], normalizes, and\n"
     "prints the top-k classes with probabilities. --labels: a JSON list or one name per line.\n",
     RunClassify});

}  // namespace
}  // namespace mxnet::cli
