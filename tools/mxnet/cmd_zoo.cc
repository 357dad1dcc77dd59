// mxnet summary / export / benchmark: the model-zoo subcommands. They share how a net is named,
// built and fed (--model, --classes, --input-shape), so they live in one file.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "base/strings.h"
#include "gluon/block.h"
#include "gluon/contrib/viz.h"
#include "gluon/init.h"
#include "gluon/onnx/onnx.h"
#include "modelzoo/vision.h"
#include "ndarray/ndarray.h"
#include "ndarray/random.h"
#include "symbol/symbol.h"
#include "tools/mxnet/cli.h"

ABSL_FLAG(std::string, save_params, "",
          "also write the weights to this file in save_parameters format (structured names)");
ABSL_FLAG(std::string, init, "uniform",
          "initializer: uniform (Uniform(0.07) like net.initialize()), xavier, normal, msraprelu, "
          "..., or JSON like '[\"xavier\", {\"magnitude\": 2}]'");
ABSL_FLAG(int64_t, iters, 20, "timed forwards");
ABSL_FLAG(std::string, plot, "",
          "also draw the network (mx.viz.plot_network) to this .svg, .png, .pdf or .dot file");
ABSL_FLAG(std::string, format, "mxnet",
          "export format: mxnet (PREFIX-symbol.json + PREFIX-0000.params) or onnx (--out F.onnx)");
ABSL_FLAG(int64_t, opset, 13, "ONNX opset of --format onnx (13..17)");
ABSL_FLAG(bool, dynamic_batch, true, "--format onnx: dim 0 of the input and output is symbolic");
ABSL_FLAG(int64_t, warmup, 3, "untimed forwards before timing");
ABSL_FLAG(std::string, backend, "onednn",
          "graph passes of the hybridized net (HybridizeOptions::backend): onednn (BatchNorm "
          "folding, post-op fusion, channels-last conv chains), default, or none");

namespace mxnet::cli {
namespace {

namespace vision = gluon::model_zoo::vision;

// The --model value (required by these commands) if it names a model-zoo net (case-insensitive,
// like get_model). Errors: kInvalidArgument, one line listing the valid names.
absl::StatusOr<std::string> ModelName() {
  const std::string model = absl::GetFlag(FLAGS_model);
  std::string name = AsciiToLower(model);
  std::vector<std::string> names = vision::model_names();
  if (std::find(names.begin(), names.end(), name) == names.end())
    return absl::InvalidArgumentError(
        StrCat("unknown --model '", model, "' (model-zoo names: ", StrJoin(names, ", "), ")"));
  return name;
}

// The model-zoo net `name` with --classes outputs (default 1000; must be >= 1). Not initialized.
absl::StatusOr<std::shared_ptr<gluon::HybridBlock>> BuildModel(const std::string& name) {
  const int64_t classes = absl::GetFlag(FLAGS_classes);
  if (classes < 1)
    return absl::InvalidArgumentError(StrCat("--classes must be >= 1, got ", classes));
  std::shared_ptr<gluon::HybridBlock> net;
  MX_RETURN_IF_ERROR(StatusFromCall([&] { net = vision::get_model(name, {.classes = classes}); }));
  return net;
}

// --input-shape "N,C,H,W" (four positive integers, NCHW layout). Default when absent:
// (batch, 3, S, S) with S = vision::input_size(name) (299 for inceptionv3, else 224). Errors:
// kInvalidArgument naming the text.
absl::StatusOr<Shape> InputShape(const std::string& name, int64_t batch = 1) {
  if (!Given(FLAGS_input_shape)) {
    const int64_t s = vision::input_size(name);
    return Shape{batch, 3, s, s};
  }
  const std::string text = absl::GetFlag(FLAGS_input_shape);  // the split views must not outlive it
  const absl::Status bad = absl::InvalidArgumentError(
      StrCat("--input-shape must be four positive integers N,C,H,W (NCHW), got '", text, "'"));
  std::vector<int64_t> dims;
  for (auto part : StrSplit(text, ',')) {
    int64_t v;
    if (!ParseInt64(part, &v) || v < 1) return bad;
    dims.push_back(v);
  }
  if (dims.size() != 4) return bad;
  return Shape(dims);
}

// The initializer --init names (MXNet's names: "uniform", "xavier", "normal", "msraprelu", ..., or
// a JSON spec like '["xavier", {"factor_type": "in", "magnitude": 2}]'); default "uniform",
// Uniform(0.07) like MXNet's net.initialize(). Errors: kInvalidArgument listing the known names.
absl::StatusOr<gluon::InitializerPtr> Initializer() {
  gluon::InitializerPtr init;
  MX_RETURN_IF_ERROR(
      StatusFromCall([&] { init = gluon::init::Create(absl::GetFlag(FLAGS_init)); }));
  return init;
}

// ---- summary ----

// --plot FILE: the traced graph of `net` for `shape` as mx.viz.plot_network draws it, with each
// layer's parameter count, written by extension (.svg/.png/.pdf through Graphviz's dot, .dot text).
absl::Status PlotSummary(gluon::HybridBlock& net, const std::string& name, const Shape& shape) {
  const std::string path = absl::GetFlag(FLAGS_plot);
  MX_ASSIGN_OR_RETURN(sym::Symbol graph, viz::TraceBlock(net, {shape}));
  viz::PlotOptions o;
  o.title = name;
  o.shape = viz::GraphInputShapes(net, {shape});
  MX_ASSIGN_OR_RETURN(std::string dot, viz::plot_network(graph, o));
  MX_RETURN_IF_ERROR(viz::render(dot, path));
  std::cout << "wrote " << path << "\n";
  return absl::OkStatus();
}

// Builds --model (random Uniform(0.07) weights, like MXNet's net.initialize()), runs one forward
// on zeros of --input-shape (default 1,3,224,224; 1,3,299,299 for inceptionv3) and prints MXNet's
// summary table: one row per layer (type-index, output shape, parameter count), then the total,
// trainable and non-trainable (BatchNorm running statistics) parameter counts. Errors: unknown
// model, bad shape, or the forward's error (e.g. an input too small for the net).
// --symbol F (an MXNet -symbol.json, input "data") or --onnx F (input: the model's first graph
// input): MXNet's mx.viz.print_summary(symbol, shape) of the graph for --input-shape (default
// 1,3,224,224), and --plot draws it. No weights needed.
absl::Status SummaryOfFile() {
  if (Given(FLAGS_model) || (Given(FLAGS_symbol) && Given(FLAGS_onnx)))
    return absl::InvalidArgumentError("give one of --model, --symbol or --onnx");
  if (Given(FLAGS_classes) || Given(FLAGS_params))
    return absl::InvalidArgumentError("--classes and --params apply to --model only");
  if (Given(FLAGS_plot)) MX_RETURN_IF_ERROR(viz::CheckPicturePath(absl::GetFlag(FLAGS_plot)));
  Shape shape{1, 3, 224, 224};
  if (Given(FLAGS_input_shape)) {
    MX_ASSIGN_OR_RETURN(shape, InputShape(""));
  }
  sym::Symbol graph;
  std::string input = "data", file;
  if (Given(FLAGS_symbol)) {
    file = absl::GetFlag(FLAGS_symbol);
    MX_ASSIGN_OR_RETURN(graph, sym::Symbol::load(file));
  } else {
    file = absl::GetFlag(FLAGS_onnx);
    MX_ASSIGN_OR_RETURN(auto block, gluon::imports_onnx(file));
    graph = block->graph();
    if (block->input_names().size() != 1)
      return absl::InvalidArgumentError(
          StrCat(file, " has ", block->input_names().size(), " data inputs; summary feeds one"));
    input = block->input_names()[0];
  }
  MX_ASSIGN_OR_RETURN(std::string table, viz::print_summary(graph, {{input, shape}}));
  std::cout << table;
  if (!Given(FLAGS_plot)) return absl::OkStatus();
  viz::PlotOptions o;
  o.title = std::filesystem::path(file).stem().string();
  o.shape = {{input, shape}};
  MX_ASSIGN_OR_RETURN(std::string dot, viz::plot_network(graph, o));
  const std::string path = absl::GetFlag(FLAGS_plot);
  MX_RETURN_IF_ERROR(viz::render(dot, path));
  std::cout << "wrote " << path << "\n";
  return absl::OkStatus();
}

absl::Status RunSummary(const std::vector<std::string>&) {
  if (Given(FLAGS_symbol) || Given(FLAGS_onnx)) return SummaryOfFile();
  if (!Given(FLAGS_model))
    return absl::InvalidArgumentError(
        "--model, --symbol or --onnx is required (see mxnet summary --help)");
  MX_ASSIGN_OR_RETURN(std::string name, ModelName());
  if (Given(FLAGS_plot)) MX_RETURN_IF_ERROR(viz::CheckPicturePath(absl::GetFlag(FLAGS_plot)));
  MX_ASSIGN_OR_RETURN(Shape shape, InputShape(name));
  MX_ASSIGN_OR_RETURN(auto net, BuildModel(name));
  std::string table;
  MX_RETURN_IF_ERROR(StatusFromCall([&] {
    net->initialize();
    table = net->summary({NDArray::Full(shape, 0.0)});
  }));
  std::cout << table;
  if (Given(FLAGS_plot)) MX_RETURN_IF_ERROR(PlotSummary(*net, name, shape));
  return absl::OkStatus();
}

// ---- export ----

// Fails fast (before building the net) when PREFIX's directory does not exist.
absl::Status CheckOutputDir(const std::string& flag, const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
    return absl::NotFoundError(StrCat("cannot write --", flag, " ", path, ": directory ",
                                      dir.string(), " does not exist"));
  return absl::OkStatus();
}

// Builds --model, loads --params (any save_parameters or export file of the same architecture)
// or initializes it (--init, default Uniform(0.07), after seeding the generator with --seed,
// default 0, so exports are repeatable), hybridizes, runs one forward on zeros of --input-shape
// (NCHW; default as for summary) on --device, and writes PREFIX-symbol.json and PREFIX-0000.params
// (arg:/aux: keys, data input "data": MXNet's HybridBlock.export). --save-params F also writes the
// weights in save_parameters format (structured names). Prints the written paths. Errors: unknown
// model or --init, a missing output directory, a --params file that does not fit the net, write
// failures.
absl::Status RunExport(const std::vector<std::string>&) {
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "mxnet" && format != "onnx")
    return absl::InvalidArgumentError(StrCat("--format must be mxnet or onnx, got '", format, "'"));
  const int64_t opset = absl::GetFlag(FLAGS_opset);
  if (format == "onnx" &&
      (opset < gluon::kOnnxMinExportOpset || opset > gluon::kOnnxMaxExportOpset))
    return absl::InvalidArgumentError(StrCat("--opset must be in ", gluon::kOnnxMinExportOpset,
                                             "..", gluon::kOnnxMaxExportOpset, ", got ", opset));
  MX_ASSIGN_OR_RETURN(std::string name, ModelName());
  const std::string prefix = absl::GetFlag(FLAGS_out);
  const std::string save_params = absl::GetFlag(FLAGS_save_params);
  MX_RETURN_IF_ERROR(CheckOutputDir("out", prefix));
  if (Given(FLAGS_save_params)) MX_RETURN_IF_ERROR(CheckOutputDir("save-params", save_params));
  MX_ASSIGN_OR_RETURN(Shape shape, InputShape(name));
  const int64_t seed = absl::GetFlag(FLAGS_seed);
  MX_ASSIGN_OR_RETURN(Device dev, ParseDevice(absl::GetFlag(FLAGS_device)));
  MX_ASSIGN_OR_RETURN(gluon::InitializerPtr init, Initializer());
  MX_ASSIGN_OR_RETURN(auto net, BuildModel(name));
  if (Given(FLAGS_params)) {
    gluon::LoadParametersOptions lo;
    lo.devices = {dev};
    MX_RETURN_IF_ERROR(net->load_parameters(absl::GetFlag(FLAGS_params), lo));
  } else {
    random::seed(static_cast<uint64_t>(seed));
    MX_RETURN_IF_ERROR(StatusFromCall([&] { net->initialize(init, {dev}); }));
  }
  MX_RETURN_IF_ERROR(StatusFromCall([&] {
    net->hybridize();
    (*net)(NDArray::Full(shape, 0.0, dev)).wait_to_read();
  }));
  if (format == "onnx") {
    const bool dynamic = absl::GetFlag(FLAGS_dynamic_batch);
    MX_RETURN_IF_ERROR(gluon::export_onnx(*net, {shape}, prefix, static_cast<int>(opset), dynamic));
    std::cout << "exported " << name << " (input " << shape.ToString()
              << (dynamic ? ", dynamic batch" : "") << ") to:\n  " << prefix << " (ONNX opset "
              << opset << ")\n";
  } else {
    MX_RETURN_IF_ERROR(net->export_model(prefix, 0));
    std::cout << "exported " << name << " (input " << shape.ToString() << ") to:\n  " << prefix
              << "-symbol.json\n  " << prefix << "-0000.params\n";
  }
  if (Given(FLAGS_save_params)) {
    MX_RETURN_IF_ERROR(net->save_parameters(save_params));
    std::cout << "  " << save_params << " (save_parameters format)\n";
  }
  return absl::OkStatus();
}

// ---- benchmark ----

// The q-quantile (0..1) of sorted `v` with linear interpolation (numpy.percentile's default).
double Quantile(const std::vector<double>& v, double q) {
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// Inference latency of --model (random Uniform(0.07) weights) on zeros of (B, C, H, W):
// --warmup W (default 3) untimed forwards, then --iters N (default 20) timed ones, each timed up to
// wait_to_read of the output. The shape is (--batch-size, 3, S, S) with S as for summary, or
// --input-shape N,C,H,W (its N must agree with --batch-size when both are given; default batch 1).
// --hybridize (default; --nohybridize runs imperatively) uses the cached graph with static_alloc
// and static_shape and the graph passes of --backend (default onednn: BatchNorm folding, oneDNN
// post-op fusion, channels-last convolution chains; none: the traced graph as is). Prints the
// median / p10 / p90 milliseconds per batch, the throughput in images/s from the median, and the
// median process CPU time per batch (all threads; on a loaded machine with one thread it shows
// the work better than the wall time). Errors: unknown model, --batch-size or --iters < 1,
// --warmup < 0, an unknown --backend, a forward's error.
absl::Status RunBenchmark(const std::vector<std::string>&) {
  MX_ASSIGN_OR_RETURN(std::string name, ModelName());
  int64_t batch = absl::GetFlag(FLAGS_batch_size);
  const int64_t iters = absl::GetFlag(FLAGS_iters), warmup = absl::GetFlag(FLAGS_warmup);
  if (batch < 1)
    return absl::InvalidArgumentError(StrCat("--batch-size must be >= 1, got ", batch));
  if (iters < 1) return absl::InvalidArgumentError(StrCat("--iters must be >= 1, got ", iters));
  if (warmup < 0) return absl::InvalidArgumentError(StrCat("--warmup must be >= 0, got ", warmup));
  MX_ASSIGN_OR_RETURN(Shape shape, InputShape(name, batch));
  if (Given(FLAGS_input_shape)) {
    if (Given(FLAGS_batch_size) && shape[0] != batch)
      return absl::InvalidArgumentError(
          StrCat("--input-shape batch ", shape[0], " differs from --batch-size ", batch));
    batch = shape[0];
  }
  MX_ASSIGN_OR_RETURN(Device dev, ParseDevice(absl::GetFlag(FLAGS_device)));
  const bool hybrid = absl::GetFlag(FLAGS_hybridize);
  std::string backend = absl::GetFlag(FLAGS_backend);
  if (backend == "none") backend.clear();
  MX_ASSIGN_OR_RETURN(auto net, BuildModel(name));
  std::vector<double> ms, cpu_ms;
  auto cpu_now = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
  };
  MX_RETURN_IF_ERROR(StatusFromCall([&] {
    net->initialize(nullptr, {dev});
    if (hybrid)
      net->hybridize(true, {.static_alloc = true, .static_shape = true, .backend = backend});
    NDArray x = NDArray::Full(shape, 0.0, dev);
    for (int64_t i = 0; i < warmup; ++i) (*net)(x).wait_to_read();
    for (int64_t i = 0; i < iters; ++i) {
      const double c0 = cpu_now();
      auto t0 = std::chrono::steady_clock::now();
      (*net)(x).wait_to_read();
      ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      cpu_ms.push_back(cpu_now() - c0);
    }
  }));
  std::sort(ms.begin(), ms.end());
  std::sort(cpu_ms.begin(), cpu_ms.end());
  const double median = Quantile(ms, 0.5);
  std::printf("%s, input %s, %s%s, %s: %lld timed iterations after %lld warm-up\n", name.c_str(),
              shape.ToString().c_str(), hybrid ? "hybridized" : "imperative",
              hybrid ? StrCat(" (backend ", backend.empty() ? "none" : backend, ")").c_str() : "",
              dev.ToString().c_str(), static_cast<long long>(iters),
              static_cast<long long>(warmup));
  std::printf("latency per batch: median %.3f ms, p10 %.3f ms, p90 %.3f ms\n", median,
              Quantile(ms, 0.1), Quantile(ms, 0.9));
  std::printf("throughput: %.1f images/s (batch %lld / median)\n",
              static_cast<double>(batch) * 1000.0 / median, static_cast<long long>(batch));
  std::printf("cpu time per batch: median %.3f ms (all threads)\n", Quantile(cpu_ms, 0.5));
  return absl::OkStatus();
}

constexpr const char* kModelHelp =
    "model-zoo name: resnet18_v1, mobilenet0.25, inceptionv3, ... (MXNet's "
    "gluon.model_zoo.vision names)";

const int kSummary = RegisterCommand(
    {"summary",
     "print a model-zoo net's layers, output shapes and parameter counts",
     "usage: mxnet summary --model NAME [--input-shape 1,3,224,224] [--classes 1000]\n"
     "                     [--plot net.svg|net.png|net.pdf|net.dot]\n"
     "       mxnet summary --symbol F-symbol.json | --onnx F.onnx [--input-shape 1,3,224,224]\n"
     "                     [--plot net.svg|net.png|net.pdf|net.dot]\n\n"
     "Builds the model-zoo net NAME (resnet18_v1, mobilenet0.25, inceptionv3, ...; MXNet's\n"
     "gluon.model_zoo.vision names), initializes it, runs one forward on zeros of --input-shape\n"
     "(N,C,H,W; default 1,3,224,224, 1,3,299,299 for inceptionv3) and prints MXNet's summary\n"
     "table: each layer's output shape and parameter count, then the total, trainable and\n"
     "non-trainable (BatchNorm running statistics) parameter counts.\n"
     "--plot FILE also draws the network like mx.viz.plot_network (a box per layer coloured by\n"
     "kind, its parameter count, edges labelled with output shapes) as .svg, .png or .pdf\n"
     "(through Graphviz's dot) or .dot text.\n"
     "--symbol F (an MXNet -symbol.json, input 'data') or --onnx F instead of --model prints\n"
     "what MXNet's mx.viz.print_summary(symbol, shape) prints for --input-shape (default\n"
     "1,3,224,224): each operator's output shape without the batch axis, its parameter count by\n"
     "MXNet's rules and the layers feeding it; no weights are needed.\n",
     {{.flag = Ref(FLAGS_model), .help = kModelHelp},
      {.flag = Ref(FLAGS_symbol)},
      {.flag = Ref(FLAGS_onnx)},
      {.flag = Ref(FLAGS_input_shape)},
      {.flag = Ref(FLAGS_classes)},
      {.flag = Ref(FLAGS_plot)}},
     "",
     RunSummary});

const int kExport = RegisterCommand(
    {"export",
     "write a model-zoo net as PREFIX-symbol.json + PREFIX-0000.params, or as ONNX",
     "usage: mxnet export --model NAME --out PREFIX [--input-shape 1,3,224,224] [--classes 1000]\n"
     "                    [--params F] [--save-params F] [--seed 0] [--init uniform]\n"
     "                    [--device cpu]\n"
     "       mxnet export --format onnx --model NAME --out F.onnx [--opset 13]\n"
     "                    [--nodynamic-batch] [the options above]\n\n"
     "Builds the model-zoo net NAME, loads --params (a save_parameters or export file of the\n"
     "same architecture; default: random --init weights seeded by --seed), hybridizes it, runs\n"
     "one forward on zeros of --input-shape (N,C,H,W; default 1,3,224,224, 1,3,299,299 for\n"
     "inceptionv3) and writes PREFIX-symbol.json and PREFIX-0000.params like MXNet's\n"
     "HybridBlock.export (input 'data'; loadable by SymbolBlock.imports, `mxnet predict` and\n"
     "`mxnet classify --symbol`). --save-params F also writes the weights in save_parameters\n"
     "format (for `mxnet classify --model` and net.load_parameters).\n\n"
     "--format onnx writes one ONNX model file --out (opset --opset, 13..17; weights as\n"
     "initializers; dim 0 symbolic unless --nodynamic-batch) that ONNX Runtime runs and\n"
     "`mxnet predict/classify --onnx` read (gluon::export_onnx; docs/onnx.md).\n",
     {{.flag = Ref(FLAGS_model), .help = kModelHelp, .required = true},
      {.flag = Ref(FLAGS_out),
       .help = "PREFIX: writes PREFIX-symbol.json and PREFIX-0000.params (--format onnx: the "
               ".onnx file)",
       .required = true},
      {.flag = Ref(FLAGS_format)},
      {.flag = Ref(FLAGS_opset)},
      {.flag = Ref(FLAGS_dynamic_batch)},
      {.flag = Ref(FLAGS_input_shape)},
      {.flag = Ref(FLAGS_classes)},
      {.flag = Ref(FLAGS_params),
       .help = "load these weights (a save_parameters or export file of the same architecture) "
               "instead of initializing"},
      {.flag = Ref(FLAGS_save_params)},
      {.flag = Ref(FLAGS_seed), .help = "seed of the random initial weights", .default_value = "0"},
      {.flag = Ref(FLAGS_init)},
      {.flag = Ref(FLAGS_device)}},
     "",
     RunExport});

const int kBenchmark = RegisterCommand(
    {"benchmark",
     "inference latency and throughput of a model-zoo net",
     "usage: mxnet benchmark --model NAME [--batch-size 1] [--hybridize|--nohybridize]\n"
     "                       [--backend onednn|default|none]\n"
     "                       [--iters 20] [--warmup 3] [--input-shape N,C,H,W]\n"
     "                       [--classes 1000] [--device cpu]\n\n"
     "Runs --warmup untimed and then --iters timed forwards of NAME (random weights) on zeros\n"
     "of (batch-size, 3, 224, 224) (299 for inceptionv3; or --input-shape, whose N must match\n"
     "--batch-size), each waited for with wait_to_read, and prints the median, p10 and p90\n"
     "milliseconds per batch, images/s from the median and the median CPU time per batch.\n"
     "--hybridize (the default) runs the cached graph with static_alloc/static_shape and the\n"
     "graph passes of --backend (onednn: BatchNorm folding, oneDNN post-op fusion, channels-last\n"
     "convolution chains; none: the traced graph as is); --nohybridize runs imperatively.\n",
     {{.flag = Ref(FLAGS_model), .help = kModelHelp, .required = true},
      {.flag = Ref(FLAGS_batch_size), .help = "images per forward", .default_value = "1"},
      {.flag = Ref(FLAGS_hybridize)},
      {.flag = Ref(FLAGS_backend)},
      {.flag = Ref(FLAGS_iters)},
      {.flag = Ref(FLAGS_warmup)},
      {.flag = Ref(FLAGS_input_shape),
       .help = "input shape N,C,H,W (NCHW; N must equal --batch-size when both are given; "
               "default: batch-size,3,224,224, 299x299 for inceptionv3)"},
      {.flag = Ref(FLAGS_classes)},
      {.flag = Ref(FLAGS_device)}},
     "",
     RunBenchmark});

}  // namespace
}  // namespace mxnet::cli
