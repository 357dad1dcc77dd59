// write_summaries CALLS.json LOGDIR: writes one TensorBoard event file into LOGDIR with our
// SummaryWriter for check_tensorboard.py (TensorBoard's own reader checks every value): the
// calls of CALLS.json (testdata/tensorboardx_reference.json: scalars, an equal-width histogram,
// uint8 images, text), then
//   step 9:  the histogram's values again with the default (TensorFlow) buckets, tag
//   "weights/default" step 10: a float32 (1, 2, 3) image "float" of 0, 0.5, 1, 2, -1, 0.2 the graph
//   of Dense(4, relu) -> Dense(2) hybridized on input (2, 3).
// Prints the event file's path. Exit status 1 with a message on any error.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "gluon/contrib/summary_writer.h"
#include "gluon/nn/basic_layers.h"
#include "ndarray/nd.h"

namespace mxnet::gluon::contrib {
namespace {

absl::Status Run(const std::string& calls_path, const std::string& logdir) {
  std::ifstream jf(calls_path);
  if (!jf) return absl::NotFoundError(StrCat("cannot open ", calls_path));
  nlohmann::json calls = nlohmann::json::parse(jf);
  MX_ASSIGN_OR_RETURN(auto w, SummaryWriter::Create(logdir));
  for (const auto& s : calls["scalars"])
    MX_RETURN_IF_ERROR(w->add_scalar(s[0], s[1].get<double>(), s[2].get<int64_t>()));
  const auto& h = calls["histogram"];
  std::vector<double> hv = h["values"].get<std::vector<double>>();
  NDArray values = NDArray::FromVector(hv, Shape{int64_t(hv.size())}, cpu(), DType::kFloat64);
  MX_RETURN_IF_ERROR(
      w->add_histogram(h["tag"], values, h["step"].get<int64_t>(), h["bins"].get<int64_t>()));
  for (const auto& im : calls["images"]) {
    std::vector<uint8_t> px = im["values"].get<std::vector<uint8_t>>();
    Shape shape(im["shape"].get<std::vector<int64_t>>());
    MX_RETURN_IF_ERROR(w->add_image(im["tag"], NDArray::FromVector(px, shape, cpu(), DType::kUint8),
                                    im["step"].get<int64_t>()));
  }
  for (const auto& t : calls["texts"])
    MX_RETURN_IF_ERROR(w->add_text(t[0], t[1].get<std::string>(), t[2].get<int64_t>()));
  MX_RETURN_IF_ERROR(w->add_histogram(h["tag"].get<std::string>() + "/default", values, 9));
  MX_RETURN_IF_ERROR(w->add_image(
      "float",
      NDArray::FromVector(std::vector<float>{0.f, 0.5f, 1.f, 2.f, -1.f, 0.2f}, Shape{1, 2, 3}),
      10));
  auto net = std::make_shared<nn::HybridSequential>();
  net->add({std::make_shared<nn::Dense>(4, nn::DenseOptions{.activation = "relu"}),
            std::make_shared<nn::Dense>(2)});
  MX_RETURN_IF_ERROR(StatusFromCall([&] {
    net->initialize();
    net->hybridize();
    (*net)(NDArray::Full(Shape{2, 3}, 1.0));
  }));
  MX_RETURN_IF_ERROR(w->add_graph(*net, {Shape{2, 3}}));
  MX_RETURN_IF_ERROR(w->close());
  std::cout << w->path() << "\n";
  return absl::OkStatus();
}

}  // namespace
}  // namespace mxnet::gluon::contrib

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: write_summaries CALLS.json LOGDIR\n");
    return 2;
  }
  absl::Status s = mxnet::gluon::contrib::Run(argv[1], argv[2]);
  if (!s.ok()) {
    std::fprintf(stderr, "write_summaries: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  return 0;
}
