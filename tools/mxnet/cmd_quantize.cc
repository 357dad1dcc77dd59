// mxnet quantize: int8 post-training quantization of an exported model (quantize_net), with
// Fashion-MNIST calibration, accuracy and speed of the float and int8 nets.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "base/strings.h"
#include "gluon/contrib/quantization.h"
#include "gluon/data/dataloader.h"
#include "gluon/data/vision/datasets.h"
#include "gluon/data/vision/transforms.h"
#include "gluon/symbol_block.h"
#include "gluon/training/metric.h"
#include "ndarray/io.h"
#include "ndarray/nd.h"
#include "tools/mxnet/cli.h"

ABSL_DECLARE_FLAG(std::string, data);
ABSL_DECLARE_FLAG(int64_t, limit);
ABSL_DECLARE_FLAG(std::string, input);
ABSL_FLAG(std::string, calib_mode, "naive", "calibration: naive (min/max), entropy (KL), none");
ABSL_FLAG(std::string, quantized_dtype, "auto", "int8, uint8 or auto");
ABSL_FLAG(int64_t, calib_batches, 10, "calibration batches (--batch-size images each)");
ABSL_FLAG(std::string, exclude_layers, "", "comma-separated node names kept in float");
ABSL_FLAG(std::string, exclude_operators, "",
          "comma-separated operator names kept in float (Convolution, FullyConnected, ...)");
ABSL_FLAG(int64_t, timing_batches, 20, "test batches timed for the speed figure (0: none)");

namespace mxnet::cli {
namespace {

namespace tf = gluon::data::vision::transforms;
namespace q = gluon::contrib::quantization;

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

absl::Status RunQuantize(const std::vector<std::string>&) {
  const std::string out = absl::GetFlag(FLAGS_out);
  const int64_t batch = absl::GetFlag(FLAGS_batch_size), nb = absl::GetFlag(FLAGS_calib_batches);
  const int64_t limit = absl::GetFlag(FLAGS_limit), timing = absl::GetFlag(FLAGS_timing_batches);
  if (batch < 1 || nb < 1)
    return absl::InvalidArgumentError("--batch-size and --calib-batches must be >= 1");
  if (limit < 0 || timing < 0)
    return absl::InvalidArgumentError("--limit and --timing-batches must be >= 0");
  MX_ASSIGN_OR_RETURN(auto fnet, gluon::SymbolBlock::imports(absl::GetFlag(FLAGS_symbol), {"data"},
                                                             absl::GetFlag(FLAGS_params)));
  q::QuantizeNetOptions o;
  o.calib_mode = absl::GetFlag(FLAGS_calib_mode);
  o.quantized_dtype = absl::GetFlag(FLAGS_quantized_dtype);
  o.exclude_layers = SplitList(absl::GetFlag(FLAGS_exclude_layers));
  o.exclude_operators = SplitList(absl::GetFlag(FLAGS_exclude_operators));

  // Calibration batches: --input's arrays (one batch each), else Fashion-MNIST's training set.
  gluon::data::DatasetPtr test;
  if (Given(FLAGS_input)) {
    MX_ASSIGN_OR_RETURN(nd::NDArrayFile f, nd::load(absl::GetFlag(FLAGS_input)));
    for (const NDArray& a : f.arrays) o.calib_data.push_back({a});
    if (o.calib_data.empty())
      return absl::InvalidArgumentError(StrCat(absl::GetFlag(FLAGS_input), " holds no arrays"));
  } else {
    const std::string root = absl::GetFlag(FLAGS_data);
    MX_ASSIGN_OR_RETURN(auto train_raw, gluon::data::vision::FashionMNIST::Create(root, true));
    MX_ASSIGN_OR_RETURN(auto test_raw, gluon::data::vision::FashionMNIST::Create(root, false));
    // The normalization `mxnet train` uses.
    tf::Compose prep(
        {std::make_shared<tf::ToTensor>(),
         std::make_shared<tf::Normalize>(std::vector<float>{0.286f}, std::vector<float>{0.353f})});
    auto fn = [prep](const NDArray& x) { return prep.Forward(x); };
    auto train = train_raw->transform_first(fn)->take(nb * batch);
    test = test_raw->transform_first(fn);
    if (limit > 0) test = test->take(limit);
    gluon::data::DataLoader calib(train, {.batch_size = batch});
    for (const auto& b : calib) o.calib_data.push_back({b[0]});
  }
  auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<gluon::SymbolBlock> qnet;
  MX_RETURN_IF_ERROR(StatusFromCall([&] { qnet = q::quantize_net(*fnet, o); }));
  std::printf("quantized (%s calibration, %zu batches) in %.1f s\n", o.calib_mode.c_str(),
              o.calib_data.size(), Seconds(t0));
  MX_RETURN_IF_ERROR(qnet->export_model(out, 0));
  std::printf("wrote %s-symbol.json and %s-0000.params\n", out.c_str(), out.c_str());
  if (!test) return absl::OkStatus();

  // Accuracy of both nets on the test set, then the speed of each on the same batches.
  gluon::data::DataLoader loader(test, {.batch_size = batch});
  std::vector<std::pair<NDArray, NDArray>> batches;
  for (const auto& b : loader) batches.push_back({b[0], b[1]});
  fnet->hybridize(true, {.backend = "onednn"});
  qnet->hybridize(true);
  auto accuracy = [&](gluon::HybridBlock& net) {
    gluon::metric::Accuracy acc;
    for (const auto& [x, y] : batches) acc.update(y, net(x));
    return acc.get()[0].second;
  };
  double acc_f = 0, acc_q = 0;
  MX_RETURN_IF_ERROR(StatusFromCall([&] { acc_f = accuracy(*fnet), acc_q = accuracy(*qnet); }));
  std::printf("top-1 accuracy on %lld test images: float32 %.4f, int8 %.4f (%+.4f)\n",
              static_cast<long long>(test->size()), acc_f, acc_q, acc_q - acc_f);
  if (timing == 0) return absl::OkStatus();
  const size_t n = std::min<size_t>(timing, batches.size());
  auto speed = [&](gluon::HybridBlock& net) {
    int64_t images = 0;
    auto t = std::chrono::steady_clock::now();
    for (size_t i = 0; i < n; ++i) {
      net(batches[i].first).wait_to_read();
      images += batches[i].first.shape()[0];
    }
    return images / Seconds(t);
  };
  double sf = 0, sq = 0;
  MX_RETURN_IF_ERROR(StatusFromCall([&] { sf = speed(*fnet), sq = speed(*qnet); }));
  std::printf(
      "inference over %zu batches of %lld: float32 (onednn passes) %.1f images/s, int8 %.1f "
      "images/s, speed-up %.2fx\n",
      n, static_cast<long long>(batch), sf, sq, sq / sf);
  return absl::OkStatus();
}

const int kRegistered = RegisterCommand(
    {"quantize",
     "int8 post-training quantization of an exported model (quantize_net)",
     "usage: mxnet quantize --symbol F-symbol.json --params F-0000.params --out PREFIX\n"
     "                      [--calib-mode naive|entropy|none] [--quantized-dtype auto|int8|uint8]\n"
     "                      [--exclude-layers a,b] [--exclude-operators Op,...]\n"
     "                      [--data /usr/share/datasets/fashion-mnist] [--calib-batches 10]\n"
     "                      [--batch-size 64] [--limit N] [--timing-batches 20] [--input X.nd]\n\n"
     "Quantizes the model's graph like MXNet 1.9.1's mx.contrib.quantization.quantize_net on CPU\n"
     "(fused int8 convolution and FC nodes, calibrated ranges) and writes PREFIX-symbol.json and\n"
     "PREFIX-0000.params, which MXNet 1.9.1 loads (SymbolBlock.imports) and runs.\n"
     "Calibration uses the first --calib-batches batches of Fashion-MNIST's training set,\n"
     "normalized like `mxnet train`; then the float and int8 nets' top-1 accuracy on the test set\n"
     "(first --limit images; 0: all 10,000) and their speed on --timing-batches test batches are\n"
     "printed. With --input X.nd, its arrays are the calibration batches and nothing is\n"
     "evaluated (any model with one data input named data).\n",
     {{.flag = Ref(FLAGS_symbol), .required = true},
      {.flag = Ref(FLAGS_params), .required = true},
      {.flag = Ref(FLAGS_out), .help = "output prefix", .required = true},
      {.flag = Ref(FLAGS_calib_mode)},
      {.flag = Ref(FLAGS_quantized_dtype)},
      {.flag = Ref(FLAGS_exclude_layers)},
      {.flag = Ref(FLAGS_exclude_operators)},
      {.flag = Ref(FLAGS_data)},
      {.flag = Ref(FLAGS_calib_batches)},
      {.flag = Ref(FLAGS_batch_size), .default_value = "64"},
      {.flag = Ref(FLAGS_limit), .help = "test images evaluated (0: all)", .default_value = "0"},
      {.flag = Ref(FLAGS_timing_batches)},
      {.flag = Ref(FLAGS_input),
       .help = "calibration batches (an NDArray file) instead of --data"}},
     "",
     RunQuantize});

}  // namespace
}  // namespace mxnet::cli
