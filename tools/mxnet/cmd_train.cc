// mxnet train: trains a Gluon network on the real Fashion-MNIST (Debian's dataset-fashion-mnist),
// validates each epoch, checkpoints atomically and exports the model.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "absl/flags/reflection.h"
#include "autograd/autograd.h"
#include "base/strings.h"
#include "base/threading.h"
#include "gluon/contrib/summary_writer.h"
#include "gluon/contrib/viz.h"
#include "gluon/data/dataloader.h"
#include "gluon/data/split_sampler.h"
#include "gluon/data/vision/datasets.h"
#include "gluon/data/vision/transforms.h"
#include "gluon/kvstore/mpi_kvstore.h"
#include "gluon/loss/loss.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/nn/conv_layers.h"
#include "gluon/training/checkpoint.h"
#include "gluon/training/lr_scheduler.h"
#include "gluon/training/metric.h"
#include "gluon/training/trainer.h"
#include "modelzoo/vision.h"
#include "ndarray/nd.h"
#include "ndarray/random.h"
#include "tools/mxnet/cli.h"
#include "tools/mxnet/lenet.h"

ABSL_FLAG(int64_t, epochs, 5, "passes over the training set");
ABSL_FLAG(std::string, optimizer, "adam", "adam, sgd, nag, rmsprop, ... (MXNet's optimizer names)");
ABSL_FLAG(double, lr, 0.003, "learning rate (default: 0.003; 0.1 with --optimizer sgd)");
ABSL_FLAG(std::string, lr_schedule, "cosine",
          "cosine: decays --lr to 0 over the run (one step per batch); constant: keeps it");
ABSL_FLAG(double, wd, 0.0, "weight decay");
ABSL_FLAG(int64_t, workers, 1, "data-loading worker threads (0: load in the training thread)");
ABSL_FLAG(int64_t, threads, 0,
          "intra-op threads; 0 (default) picks the fastest count by timing training steps, "
          "re-checked as the machine's load changes");
ABSL_FLAG(std::string, data, "/usr/share/datasets/fashion-mnist",
          "Fashion-MNIST directory (the idx .gz files)");
ABSL_FLAG(int64_t, limit, 0, "train on the first N samples and test on N/6 (0: all)");
ABSL_FLAG(std::string, logdir, "",
          "write TensorBoard event files here: loss, accuracy, learning rate and weight "
          "histograms per epoch, and the network graph");
ABSL_FLAG(std::string, resume, "",
          "continue the run whose --out was DIR from its last checkpoint (DIR/train-state.params)");
ABSL_FLAG(int64_t, save_every, 0,
          "also checkpoint every N batches within an epoch (0: at the end of each epoch only)");
ABSL_FLAG(bool, check_nan, false,
          "debug: check every op's output for NaN/Inf (MXNET_CHECK_NAN=1; runs without "
          "hybridization) and stop at the first op that produces one");
ABSL_FLAG(std::string, kvstore, "device",
          "device (one process), local, or mpi/horovod: data-parallel across the processes of "
          "`mpirun -np N mxnet train --kvstore mpi` (--batch-size per process)");
ABSL_FLAG(bool, profile, false,
          "print where each epoch's time went (data, forward, backward, step, validation)");

namespace mxnet::cli {
namespace {

namespace nn = gluon::nn;
namespace tf = gluon::data::vision::transforms;

const char* kClasses[] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                          "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

// CIFAR-style ResNet-20 v1 (He et al. 2016, 3 stages of 3 basic blocks) for 28x28x1 inputs.
class BasicBlock : public gluon::HybridBlock {
 public:
  BasicBlock(int64_t channels, int64_t stride, bool downsample) {
    body = register_child(std::make_shared<nn::HybridSequential>(), "body");
    body->add(
        {std::make_shared<nn::Conv2D>(
             channels, Shape{3, 3},
             nn::ConvOptions{.strides = {stride, stride}, .padding = {1, 1}, .use_bias = false}),
         std::make_shared<nn::BatchNorm>(), std::make_shared<nn::Activation>("relu"),
         std::make_shared<nn::Conv2D>(channels, Shape{3, 3},
                                      nn::ConvOptions{.padding = {1, 1}, .use_bias = false}),
         std::make_shared<nn::BatchNorm>()});
    if (downsample) {
      ds = register_child(std::make_shared<nn::HybridSequential>(), "downsample");
      ds->add({std::make_shared<nn::Conv2D>(
                   channels, Shape{1, 1},
                   nn::ConvOptions{.strides = {stride, stride}, .use_bias = false}),
               std::make_shared<nn::BatchNorm>()});
    }
  }
  NDArray forward(const NDArray& x) override {
    NDArray r = ds ? (*ds)(x) : x;
    return nd::relu(nd::broadcast_add((*body)(x), r));
  }
  std::string class_name() const override { return "BasicBlockV1"; }
  std::shared_ptr<nn::HybridSequential> body, ds;
};

std::shared_ptr<nn::HybridSequential> ResNet20() {
  auto net = std::make_shared<nn::HybridSequential>();
  net->add({std::make_shared<nn::Conv2D>(16, Shape{3, 3},
                                         nn::ConvOptions{.padding = {1, 1}, .use_bias = false}),
            std::make_shared<nn::BatchNorm>(), std::make_shared<nn::Activation>("relu")});
  int64_t in = 16;
  for (int64_t channels : {16, 32, 64})
    for (int i = 0; i < 3; ++i) {
      int64_t stride = (i == 0 && channels != 16) ? 2 : 1;
      net->add(std::make_shared<BasicBlock>(channels, stride, channels != in));
      in = channels;
    }
  net->add({std::make_shared<nn::GlobalAvgPool2D>(), std::make_shared<nn::Flatten>(),
            std::make_shared<nn::Dense>(10)});
  return net;
}

// Chooses the intra-op thread count (base/threading.h) for training by measured step time.
// On an idle machine every core helps (2 cores: 11 vs 19 ms per LeNet step), but on a busy one
// the OpenMP team of every op waits at its barriers for whichever thread the OS has descheduled,
// and libgomp spins while it waits: with a 2-thread team on 2 cores shared with compilers, the
// previous LeNet trained at ~190 samples/s against ~750 with one thread (probes there measured
// 600 vs 100 ms per step). The tuner times a few steps with each candidate (all threads, half,
// ..., one), first with one thread (never slow: the warm-up runs there too), in later probes
// with the current choice first; keeps the fastest; and probes again after kReprobe steps
// (longer while the others stay far slower), or at once when steps become much slower than the
// choice measured (the load changed). A candidate over twice as slow as the best so far is
// dropped after one step, so probing costs little on a busy machine.
class ThreadTuner {
 public:
  // Tunes among max_threads, max_threads / 2, ..., 1; `fixed`: keeps max_threads.
  ThreadTuner(int max_threads, bool fixed) {
    for (int t = max_threads; t >= 1; t /= 2) {
      candidates_.push_back(t);
      if (fixed) break;
    }
    medians_.assign(candidates_.size(), 0);
    used_.assign(candidates_.size(), false);
    skip_ = kWarmup;
    Switch(candidates_.size() - 1);  // warm up and probe one thread first: never slow
  }
  int threads() const { return candidates_[current_]; }
  // "2 threads (3 probes, last: 2: 21 ms, 1: 36 ms per step)" for --profile.
  std::string Summary() const {
    std::string s = StrCat(threads(), threads() == 1 ? " thread" : " threads");
    if (probes_ > 0)
      StrAppend(&s, " (", probes_, probes_ == 1 ? " probe" : " probes", ", last: ", last_probe_,
                " per step)");
    return s;
  }

  // Called after every training step with its wall time.
  void Record(double secs) {
    if (candidates_.size() < 2) return;
    if (skip_ > 0) {  // warm-up, or the first step of a new count (builds its primitives)
      --skip_;
      return;
    }
    if (!probing_) {
      slow_streak_ = secs > 2 * medians_[current_] ? slow_streak_ + 1 : 0;
      if (++since_probe_ >= interval_ || slow_streak_ >= 3) StartProbe();
      return;
    }
    samples_.push_back(secs);
    const bool hopeless = best_ >= 0 && secs > 2 * medians_[best_];
    if (samples_.size() < kProbeSteps && !hopeless) return;
    std::sort(samples_.begin(), samples_.end());
    medians_[current_] = samples_[samples_.size() / 2];
    samples_.clear();
    if (best_ < 0 || medians_[current_] < medians_[best_]) best_ = static_cast<int>(current_);
    if (++probed_ < candidates_.size()) {
      Switch((current_ + 1) % candidates_.size());
      return;
    }
    // Done: run the fastest; probe again later, and less often while the others stay far
    // slower (each probe of a far slower count costs one slow step).
    double runner_up = 0;
    for (size_t i = 0; i < medians_.size(); ++i)
      if (static_cast<int>(i) != best_ && (runner_up == 0 || medians_[i] < runner_up))
        runner_up = medians_[i];
    last_probe_.clear();
    for (size_t i = 0; i < medians_.size(); ++i)
      StrAppend(&last_probe_, i ? ", " : "", candidates_[i], ": ",
                static_cast<int>(medians_[i] * 1e3 + 0.5), " ms");
    ++probes_;
    interval_ = runner_up > 1.5 * medians_[best_] ? std::min(interval_ * 2, kMaxReprobe) : kReprobe;
    Switch(static_cast<size_t>(best_));
    probing_ = false;
    since_probe_ = slow_streak_ = 0;
  }

 private:
  static constexpr int kWarmup = 3;         // steps before the first probe (tracing, JIT)
  static constexpr size_t kProbeSteps = 4;  // timed steps per candidate
  static constexpr int kReprobe = 200;      // steps between probes
  static constexpr int kMaxReprobe = 1600;

  void StartProbe() {
    probing_ = true;
    probed_ = 0;
    best_ = -1;
  }
  void Switch(size_t i) {
    current_ = i;
    SetNumThreads(candidates_[i]);
    if (!used_[i]) skip_ = std::max(skip_, 1);
    used_[i] = true;
  }

  std::vector<int> candidates_;
  std::vector<double> medians_, samples_;
  std::vector<bool> used_;
  size_t current_ = 0, probed_ = 0;
  int best_ = -1;
  bool probing_ = true;
  int skip_ = 0, since_probe_ = 0, slow_streak_ = 0, interval_ = kReprobe, probes_ = 0;
  std::string last_probe_;
};

// The net for --model: lenet, resnet20, or a model-zoo name (10 classes; the net must accept
// Fashion-MNIST's (N, 1, 28, 28) input, checked with one forward pass), Xavier-initialized on dev.
absl::StatusOr<std::shared_ptr<gluon::HybridBlock>> MakeNet(const std::string& model, Device dev) {
  std::shared_ptr<gluon::HybridBlock> net;
  if (model == "lenet") {
    net = LeNet();
  } else if (model == "resnet20") {
    net = ResNet20();
  } else {
    try {
      net = gluon::model_zoo::vision::get_model(model, {.classes = 10});
    } catch (const Error&) {
      return absl::InvalidArgumentError(
          StrCat("unknown --model '", model, "' (lenet, resnet20 or a model-zoo name: ",
                 StrJoin(gluon::model_zoo::vision::model_names(), ", "), ")"));
    }
  }
  net->initialize(gluon::init::Xavier(), {dev});
  try {
    (*net)(NDArray::Full(Shape{1, 1, 28, 28}, 0.0, dev));
  } catch (const Error& e) {
    return absl::InvalidArgumentError(
        StrCat("--model ", model, " does not fit Fashion-MNIST's 1x28x28 images: ", e.what()));
  }
  return net;
}

constexpr double kDefaultSgdLr = 0.1;  // --lr when --optimizer sgd and no --lr

std::string Bar(double frac) {
  int n = static_cast<int>(frac * 30);
  return "[" + std::string(n, '=') + std::string(30 - n, ' ') + "]";
}

// --logdir: one epoch's TensorBoard summaries (step = epoch): train/loss, train/accuracy,
// test/accuracy, learning_rate, a histogram per parameter (its structured name), and at epoch 1
// the network's graph for (batch, 1, 28, 28) input (traced once more when not hybridized).
absl::Status LogEpoch(gluon::contrib::SummaryWriter& w, gluon::HybridBlock& net, int64_t epoch,
                      int64_t batch, double loss, double train_acc, double test_acc, double lr) {
  MX_RETURN_IF_ERROR(w.add_scalar("train/loss", loss, epoch));
  MX_RETURN_IF_ERROR(w.add_scalar("train/accuracy", train_acc, epoch));
  MX_RETURN_IF_ERROR(w.add_scalar("test/accuracy", test_acc, epoch));
  MX_RETURN_IF_ERROR(w.add_scalar("learning_rate", lr, epoch));
  for (const auto& [name, p] : net.collect_params())
    MX_RETURN_IF_ERROR(w.add_histogram(name, p->data(), epoch));
  if (epoch == 1) {
    const Shape in{batch, 1, 28, 28};
    if (net.is_hybridized()) {
      MX_RETURN_IF_ERROR(w.add_graph(net, {in}));
    } else {
      MX_ASSIGN_OR_RETURN(sym::Symbol g, viz::TraceBlock(net, {in}));
      MX_RETURN_IF_ERROR(w.add_graph(g, viz::GraphInputShapes(net, {in})));
    }
  }
  return w.flush();
}

// The flags that decide a run's result: a checkpoint records them and --resume takes them from
// it; given again with --resume they must agree. kResumeDefaults are recorded too and taken from
// the checkpoint unless given with --resume (the thread count can change rounding: --threads 0
// tunes it by timing, so only a pinned count is repeatable); --logdir and --profile are not.
constexpr const char* kRunFlags[] = {"model", "epochs",      "batch_size", "optimizer",
                                     "lr",    "lr_schedule", "wd",         "seed",
                                     "limit", "hybridize",   "save_every", "data"};
// --kvstore too: `mpirun -np N mxnet train --resume DIR` continues a multi-process run (the
// process count is recorded as "processes" and must be the same).
constexpr const char* kResumeDefaults[] = {"threads", "workers", "device", "kvstore"};

nlohmann::json RunConfig() {
  nlohmann::json c = nlohmann::json::object();
  for (const char* name : kRunFlags) c[name] = absl::FindCommandLineFlag(name)->CurrentValue();
  for (const char* name : kResumeDefaults)
    c[name] = absl::FindCommandLineFlag(name)->CurrentValue();
  return c;
}

// --resume DIR: sets the run flags from the checkpoint's; a flag given on the command line must
// agree with it. Returns the checkpoint's meta (see SaveCheckpoint).
absl::StatusOr<nlohmann::json> ResumeConfig(const std::string& dir) {
  const std::string path = dir + "/train-state.params";
  absl::StatusOr<std::string> text = gluon::read_checkpoint_meta(path);
  if (absl::IsNotFound(text.status()))
    return absl::NotFoundError(
        StrCat("--resume ", dir, ": no checkpoint ", path, " (mxnet train --out ", dir,
               " writes one after each epoch, and every --save-every batches)"));
  if (!text.ok()) return text.status();
  nlohmann::json meta = nlohmann::json::parse(*text, nullptr, false);
  if (meta.is_discarded() || !meta.contains("config") || !meta.contains("epochs_done"))
    return absl::InvalidArgumentError(StrCat(path, ": not a checkpoint of mxnet train"));
  for (const char* name : kRunFlags) {
    absl::CommandLineFlag* f = absl::FindCommandLineFlag(name);
    if (!meta["config"].contains(name))
      return absl::InvalidArgumentError(StrCat(path, ": the checkpoint has no --", name));
    const std::string saved = meta["config"][name].get<std::string>();
    if (Given(*f) && f->CurrentValue() != saved)
      return absl::InvalidArgumentError(StrCat(
          "--resume ", dir, ": --", name, " ", f->CurrentValue(), " differs from the checkpoint's ",
          saved, " (a resumed run keeps the settings it was started with)"));
    std::string err;
    if (!f->ParseFrom(saved, &err))
      return absl::InvalidArgumentError(StrCat(path, ": bad --", name, " '", saved, "': ", err));
  }
  for (const char* name : kResumeDefaults) {
    absl::CommandLineFlag* f = absl::FindCommandLineFlag(name);
    std::string err;
    if (!Given(*f) && meta["config"].contains(name) &&
        !f->ParseFrom(meta["config"][name].get<std::string>(), &err))
      return absl::InvalidArgumentError(StrCat(path, ": bad --", name, ": ", err));
  }
  return meta;
}

absl::Status TrainImpl(gluon::kvstore::KVStorePtr& kv) {
  const bool resume = Given(FLAGS_resume);
  nlohmann::json resumed;
  if (resume) {
    const std::string dir = absl::GetFlag(FLAGS_resume);
    if (Given(FLAGS_out) && absl::GetFlag(FLAGS_out) != dir)
      return absl::InvalidArgumentError(StrCat("--resume ", dir, " continues in ", dir, "; --out ",
                                               absl::GetFlag(FLAGS_out), " differs"));
    MX_ASSIGN_OR_RETURN(resumed, ResumeConfig(dir));
    absl::SetFlag(&FLAGS_out, dir);
  }
  // Before the first op: op dispatch reads the switch once (ndarray/op.cc).
  const bool check_nan = absl::GetFlag(FLAGS_check_nan);
  if (check_nan) setenv("MXNET_CHECK_NAN", "1", 1);
  if (absl::GetFlag(FLAGS_save_every) < 0)
    return absl::InvalidArgumentError("--save-every must be >= 0 (0: each epoch only)");
  const int64_t epochs = absl::GetFlag(FLAGS_epochs), batch = absl::GetFlag(FLAGS_batch_size);
  const std::string optimizer = absl::GetFlag(FLAGS_optimizer);
  const double lr =
      optimizer == "sgd" && !Given(FLAGS_lr) ? kDefaultSgdLr : absl::GetFlag(FLAGS_lr);
  const std::string schedule = absl::GetFlag(FLAGS_lr_schedule);
  if (schedule != "cosine" && schedule != "constant")
    return absl::InvalidArgumentError(
        StrCat("unknown --lr-schedule '", schedule, "' (cosine, constant)"));
  const double wd = absl::GetFlag(FLAGS_wd);
  const int64_t seed = absl::GetFlag(FLAGS_seed), workers = absl::GetFlag(FLAGS_workers);
  const int64_t limit = absl::GetFlag(FLAGS_limit), threads = absl::GetFlag(FLAGS_threads);
  if (threads < 0)
    return absl::InvalidArgumentError("--threads must be >= 0 (0: tuned by measurement)");
  MX_ASSIGN_OR_RETURN(Device dev, ParseDevice(absl::GetFlag(FLAGS_device)));
  if (epochs < 1 || batch < 1)
    return absl::InvalidArgumentError("--epochs and --batch-size must be >= 1");
  const std::string out = absl::GetFlag(FLAGS_out), model = absl::GetFlag(FLAGS_model);
  const std::string root = absl::GetFlag(FLAGS_data);
  const bool hybrid = absl::GetFlag(FLAGS_hybridize), profile = absl::GetFlag(FLAGS_profile);
  random::seed(static_cast<uint64_t>(seed));
  // --kvstore: one store for the whole run; a multi-process one shards the data by rank.
  const std::string kv_name = absl::GetFlag(FLAGS_kvstore);
  if (kv_name != "device" && kv_name != "local") kv = gluon::kvstore::create(kv_name);
  const int rank = kv ? kv->rank() : 0, nproc = kv ? kv->num_workers() : 1;
  const bool lead = rank == 0;  // prints, checkpoints and exports
  const int64_t global_batch = batch * nproc;
  // The data order and the global batch depend on the process count: a resumed run keeps it.
  if (resume && resumed.value("processes", int64_t{1}) != nproc)
    return absl::InvalidArgumentError(
        StrCat("--resume ", out, ": the run was made by ", resumed.value("processes", int64_t{1}),
               " process(es) (--kvstore ",
               resumed["config"].value("kvstore", std::string("device")), "), this one has ", nproc,
               "; resume it with `mpirun -np ", resumed.value("processes", int64_t{1}), "`"));

  MX_ASSIGN_OR_RETURN(auto train_raw, gluon::data::vision::FashionMNIST::Create(root, true));
  MX_ASSIGN_OR_RETURN(auto test_raw, gluon::data::vision::FashionMNIST::Create(root, false));
  tf::Compose prep(
      {std::make_shared<tf::ToTensor>(),
       std::make_shared<tf::Normalize>(std::vector<float>{0.286f}, std::vector<float>{0.353f})});
  auto fn = [prep](const NDArray& x) { return prep.Forward(x); };
  gluon::data::DatasetPtr train = train_raw->transform_first(fn),
                          test = test_raw->transform_first(fn);
  if (limit > 0) train = train->take(limit), test = test->take(std::max<int64_t>(limit / 6, 1));

  MX_ASSIGN_OR_RETURN(std::shared_ptr<gluon::HybridBlock> net, MakeNet(model, dev));
  // --check-nan runs imperatively: a hybridized graph's ops are not checked one by one.
  if (hybrid && !check_nan) net->hybridize(true, {.static_alloc = true, .static_shape = true});
  if (hybrid && check_nan) std::printf("--check-nan: running without hybridization\n");
  gluon::Kwargs opt_kw{{"learning_rate", lr}, {"wd", wd}};
  if (schedule == "cosine") {  // from lr down to 0 over the whole run (one update per batch)
    const int64_t updates = epochs * ((train->size() + global_batch - 1) / global_batch);
    opt_kw.insert_or_assign("lr_scheduler",
                            std::make_shared<gluon::lr_scheduler::CosineScheduler>(updates, lr));
  }
  gluon::TrainerOptions kv_opts;
  if (kv)
    kv_opts.kvstore = kv;
  else
    kv_opts.kvstore = kv_name;
  gluon::Trainer trainer(net->collect_params(), optimizer, opt_kw, kv_opts);
  // A NaN/Inf loss or gradient stops the run with the step and the first parameter affected
  // (MXNet would train on garbage); the scans copy the gradients to the host once per step.
  trainer.set_check_finite(true);
  gluon::loss::SoftmaxCrossEntropyLoss loss_fn;
  std::unique_ptr<gluon::contrib::SummaryWriter> tb;
  if (Given(FLAGS_logdir) && lead) {
    MX_ASSIGN_OR_RETURN(tb, gluon::contrib::SummaryWriter::Create(absl::GetFlag(FLAGS_logdir)));
  }
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec)
    return absl::PermissionDeniedError(
        StrCat("cannot create --out directory ", out, ": ", ec.message()));

  // N processes: every rank draws the same permutation (same seed) and takes its slice of each
  // global batch of N * batch, so the run equals one process with batch N * batch.
  gluon::data::DataLoaderOptions train_opts{.num_workers = static_cast<int>(workers)};
  if (nproc > 1) {
    train_opts.batch_sampler = std::make_shared<gluon::data::SplitBatchSampler>(
        std::make_shared<gluon::data::RandomSampler>(train->size()), global_batch,
        gluon::data::LastBatch::kKeep, nproc, rank);
  } else {
    train_opts.batch_size = batch;
    train_opts.shuffle = true;
  }
  gluon::data::DataLoader train_loader(train, train_opts);
  gluon::data::DataLoader test_loader(
      test, {.batch_size = 256, .num_workers = static_cast<int>(workers)});
  // Checkpoints: DIR/train-state.params (gluon/training/checkpoint.h) holds everything --resume
  // needs: parameters, Trainer states (optimizer states, update counts, LR schedule), the random
  // generators now and at the start of the epoch (the shuffle), the position (epochs done,
  // batches done in the next one) and the epoch's running sums, the run flags.
  const std::string state_path = out + "/train-state.params";
  const int64_t every = absl::GetFlag(FLAGS_save_every);
  std::vector<Device> rng_devices = {cpu()};
  if (dev != cpu()) rng_devices.push_back(dev);
  std::string rng_epoch_start;
  auto save_state = [&](int64_t epochs_done, int64_t batches_done, double loss_sum, int64_t seen,
                        double acc_sum, double acc_n, double test_acc_now) {
    nlohmann::json meta = {{"config", RunConfig()},        {"epochs_done", epochs_done},
                           {"batches_done", batches_done}, {"rng_epoch_start", rng_epoch_start},
                           {"loss_sum", loss_sum},         {"seen", seen},
                           {"acc_sum", acc_sum},           {"acc_n", acc_n},
                           {"test_acc", test_acc_now},     {"processes", nproc}};
    return gluon::save_checkpoint(state_path, *net, trainer,
                                  {.rng_devices = rng_devices, .meta = meta.dump()});
  };
  int64_t start_epoch = 1, skip_batches = 0;
  double test_acc = 0;
  if (resume) {
    // Every rank loads the same checkpoint (rank 0's); rank 0 alone writes, and not before the
    // first step, which needs every rank (so after they all loaded).
    if (lead) {
      gluon::remove_stale_temporaries(state_path);
      gluon::remove_stale_temporaries(out + "/checkpoint.params");
    }
    MX_ASSIGN_OR_RETURN(std::string meta_text, gluon::load_checkpoint(state_path, *net, trainer));
    (void)meta_text;  // read before the net was built (ResumeConfig)
    start_epoch = resumed["epochs_done"].get<int64_t>() + 1;
    skip_batches = resumed["batches_done"].get<int64_t>();
    test_acc = resumed["test_acc"].get<double>();
    if (start_epoch > epochs)
      std::printf("resuming %s: all %lld epochs were done; exporting\n", out.c_str(),
                  (long long)epochs);
    else
      std::printf("resuming %s at epoch %lld/%lld, batch %lld/%lld\n", out.c_str(),
                  (long long)start_epoch, (long long)epochs, (long long)skip_batches,
                  (long long)train_loader.size());
  }
  bool tty = lead && isatty(fileno(stdout));
  // --threads N pins the intra-op thread count; 0 tunes it by measured step time (ThreadTuner).
  ThreadTuner tuner(threads > 0 ? static_cast<int>(threads) : GetNumThreads(),
                    threads > 0 || !dev.is_cpu());
  auto evaluate = [&] {
    gluon::metric::Accuracy acc;
    for (const auto& b : test_loader) acc.update(b[1], (*net)(b[0].as_in_context(dev)));
    return acc.get()[0].second;
  };
  auto t_all = std::chrono::steady_clock::now();
  for (int64_t epoch = start_epoch; epoch <= epochs; ++epoch) {
    gluon::metric::Accuracy acc;
    double loss_sum = 0, acc_sum0 = 0, acc_n0 = 0;  // acc_*0: before a mid-epoch resume
    int64_t seen = 0, nb = 0, total = train_loader.size();
    auto train_acc = [&] {
      const double n = acc.num_inst() + acc_n0;
      return n > 0 ? (acc.sum_metric() + acc_sum0) / n : 0.0;
    };
    // The epoch's order is drawn by begin() from the generator (shuffle): a mid-epoch resume
    // draws it again from the saved state at the epoch's start and skips the batches done.
    std::string rng_now;
    if (skip_batches > 0) {
      rng_now = gluon::random_state(cpu());
      gluon::set_random_state(cpu(), resumed["rng_epoch_start"].get<std::string>());
    }
    rng_epoch_start = gluon::random_state(cpu());
    auto it = train_loader.begin();
    if (skip_batches > 0) {
      for (; nb < skip_batches && it != train_loader.end(); ++nb) ++it;
      gluon::set_random_state(cpu(), rng_now);
      // The sums over every process so far (see the save below): rank 0 carries them.
      if (lead) {
        loss_sum = resumed["loss_sum"].get<double>();
        seen = resumed["seen"].get<int64_t>();
        acc_sum0 = resumed["acc_sum"].get<double>();
        acc_n0 = resumed["acc_n"].get<double>();
      }
      skip_batches = 0;
    }
    const int64_t seen0 = seen;
    auto t0 = std::chrono::steady_clock::now(), t_step = t0;
    // --profile: wall seconds per phase (data wait, forward, backward, optimizer step, metrics).
    double ph[5] = {0, 0, 0, 0, 0};
    auto tp = std::chrono::steady_clock::now();
    auto lap = [&](int i) {
      auto now = std::chrono::steady_clock::now();
      ph[i] += std::chrono::duration<double>(now - tp).count();
      tp = now;
    };
    for (; it != train_loader.end(); ++it) {
      const gluon::data::Batch b = *it;
      if (profile) lap(0);
      NDArray x = b[0].as_in_context(dev), y = b[1].as_in_context(dev);
      NDArray out_, l;
      try {
        {
          auto rec = autograd::record();
          out_ = (*net)(x);
          l = loss_fn(out_, y);
        }
        trainer.check_loss(l);
        if (profile) lap(1);
        l.backward();
        if (profile) lap(2);
        trainer.step(static_cast<double>(x.shape()[0]));
      } catch (const Error& e) {
        if (e.code() != absl::StatusCode::kOutOfRange) throw;
        return absl::OutOfRangeError(
            StrCat(tty ? "\n" : "", "epoch ", epoch, ", batch ", nb + 1, ": ", e.what(),
                   check_nan ? "" : " (--check-nan names the op that produced it)"));
      }
      if (profile) lap(3);
      acc.update(y, out_);
      loss_sum += nd::sum(l).asscalar<float>();
      if (profile) lap(4);
      seen += x.shape()[0];
      ++nb;
      if (every > 0 && nb % every == 0 && nb < total) {
        // The epoch's running sums over every process (every rank reaches this batch).
        double sums[4] = {loss_sum, static_cast<double>(seen), acc.sum_metric() + acc_sum0,
                          acc.num_inst() + acc_n0};
        if (nproc > 1)
          for (double& v : sums) v = kv->sum_across_workers(v);
        if (lead)
          MX_RETURN_IF_ERROR(save_state(epoch - 1, nb, sums[0], static_cast<int64_t>(sums[1]),
                                        sums[2], sums[3], test_acc));
      }
      auto t_end = std::chrono::steady_clock::now();
      tuner.Record(std::chrono::duration<double>(t_end - t_step).count());
      t_step = t_end;
      double secs = std::chrono::duration<double>(t_end - t0).count();
      // Mid-epoch lines show rank 0's loss and accuracy, and its rate times the process count.
      if (tty && (nb % 10 == 0 || nb == total)) {
        std::printf("\repoch %lld/%lld %s %5.1f%% %7.0f samples/s loss %.4f acc %.4f",
                    (long long)epoch, (long long)epochs, Bar(double(nb) / total).c_str(),
                    100.0 * nb / total, (seen - seen0) * nproc / secs, loss_sum / seen,
                    train_acc());
        std::fflush(stdout);
      } else if (lead && !tty && total >= 8 && nb < total &&
                 nb * 4 / total != (nb - 1) * 4 / total) {
        // Not a terminal (log file, pipe): a plain line at 25%, 50% and 75% of the epoch.
        std::printf("epoch %lld/%lld %3.0f%%: %.0f samples/s, loss %.4f, acc %.4f\n",
                    (long long)epoch, (long long)epochs, 100.0 * nb / total,
                    (seen - seen0) * nproc / secs, loss_sum / seen, train_acc());
      }
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double epoch_acc = train_acc();
    if (nproc > 1) {  // the epoch's loss and accuracy over every process's samples
      const double all = kv->sum_across_workers(static_cast<double>(seen));
      loss_sum = kv->sum_across_workers(loss_sum);
      epoch_acc = kv->sum_across_workers(epoch_acc * seen) / all;
      seen = static_cast<int64_t>(all);
    }
    if (profile && lead)
      std::printf(
          "%sprofile: data %.2f s, forward %.2f s, backward %.2f s, step %.2f s, metrics %.2f s; "
          "%s\n",
          tty ? "\r\033[K" : "", ph[0], ph[1], ph[2], ph[3], ph[4], tuner.Summary().c_str());
    auto te = std::chrono::steady_clock::now();
    if (lead) test_acc = evaluate();  // the replicas are identical: rank 0 validates
    if (profile && lead)
      std::printf("profile: validation %.2f s\n",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - te).count());
    if (lead)
      std::printf(
          "%sepoch %lld/%lld: %.1f s, %.0f samples/s, train loss %.4f, train acc %.4f, test acc "
          "%.4f\n",
          tty ? "\r\033[K" : "", (long long)epoch, (long long)epochs, secs, (seen - seen0) / secs,
          loss_sum / seen, epoch_acc, test_acc);
    if (tb)
      MX_RETURN_IF_ERROR(LogEpoch(*tb, *net, epoch, batch, loss_sum / seen, epoch_acc, test_acc,
                                  trainer.learning_rate()));
    // Checkpoints (each written to a temporary name and renamed: a killed run keeps the last good
    // one), by rank 0 only, the replicas being identical: the resume state, then the parameters
    // alone (for load_parameters).
    if (lead) {
      MX_RETURN_IF_ERROR(save_state(epoch, 0, 0, 0, 0, 0, test_acc));
      MX_RETURN_IF_ERROR(net->save_parameters(out + "/checkpoint.params"));
    }
  }
  // A hybridized net exports the graph of its last call: a run resumed after its last epoch
  // makes that call here (validation, which draws nothing from the generators).
  if (start_epoch > epochs && lead) test_acc = evaluate();
  if (!lead) return absl::OkStatus();
  MX_RETURN_IF_ERROR(net->export_model(out + "/model", 0));
  if (tb) {
    MX_RETURN_IF_ERROR(tb->close());
    std::printf("TensorBoard events: %s (tensorboard --logdir %s)\n", tb->path().c_str(),
                tb->get_logdir().c_str());
  }
  double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_all).count();
  std::printf(
      "test accuracy %.4f after %lld epochs (%.1f s); exported %s/model-symbol.json and "
      "%s/model-0000.params\n",
      test_acc, (long long)epochs, total_s, out.c_str(), out.c_str());
  // A few test images with predicted vs true labels.
  for (int i = 0; i < 5; ++i) {
    gluon::data::Sample s = test->at(i);
    NDArray p = (*net)(s[0].expand_dims(0).as_in_context(dev));
    int pred = static_cast<int>(nd::argmax(p, 1).asscalar<float>());
    int truth = s[1].asscalar<int>();
    std::printf("  test image %d: predicted %-12s true %-12s%s\n", i, kClasses[pred],
                kClasses[truth], pred == truth ? "" : "  (wrong)");
  }
  return absl::OkStatus();
}

absl::Status RunTrain(const std::vector<std::string>&) {
  gluon::kvstore::KVStorePtr kv;
  absl::Status st;
  try {
    st = TrainImpl(kv);
  } catch (...) {
    st = StatusFromCurrentException();
  }
  // One rank failing ends the whole job at once (the others would wait in a collective).
  if (!st.ok() && kv && kv->num_workers() > 1)
    gluon::kvstore::mpi::Abort(StrCat("mxnet train: error: ", st.message()));
  return st;
}

const int kRegistered = RegisterCommand(
    {"train",
     "train a CNN on the real Fashion-MNIST and export it",
     "usage: mxnet train [--model lenet|resnet20] [--epochs 5] [--batch-size 128] [--optimizer "
     "adam|sgd|...]\n"
     "                   [--lr 0.003] [--lr-schedule cosine|constant] [--wd 0] "
     "[--hybridize|--nohybridize]\n"
     "                   [--device cpu] [--seed 42] [--workers 1] [--threads 0] [--out DIR]\n"
     "                   [--data /usr/share/datasets/fashion-mnist] [--limit N] [--profile]\n"
     "                   [--logdir DIR] [--save-every N] [--kvstore device|local|mpi|horovod]\n"
     "       mxnet train --resume DIR [--workers N] [--threads N] [--device D] [--logdir DIR]\n\n"
     "Trains on Fashion-MNIST (Debian's dataset-fashion-mnist), validates on the test set every "
     "epoch,\n"
     "writes DIR/checkpoint.params atomically after each epoch and finally exports "
     "DIR/model-symbol.json\n"
     "and DIR/model-0000.params (loadable by MXNet's SymbolBlock.imports and `mxnet classify`).\n"
     "Crash-safe checkpoints: after each epoch (and every --save-every N batches) "
     "DIR/train-state.params\n"
     "  holds the parameters, optimizer states, LR-schedule step, random generator state, "
     "position and run\n"
     "  flags (temporary file, fsync, rename, directory fsync). --resume DIR continues a "
     "killed or stopped run\n"
     "  from it with the flags it was started with (--workers, --threads, --device may be "
     "given again),\n"
     "  and ends with the same parameters as an uninterrupted run (bit-identical with a "
     "pinned --threads N).\n"
     "A NaN/Inf loss or gradient stops the run, naming the epoch, batch, step and first "
     "parameter affected;\n"
     "  --check-nan (debug: imperative, slower) names the first op that produced it.\n\n"
     "lenet (default): conv 5x5 16 pad 2 + relu, max pool 2, conv 5x5 32 + relu, max pool 2,\n"
     "  dense 128 + relu, dense 10 (LeNet-5's layout with ReLU and max pooling); about 91% test\n"
     "  accuracy after the default 5 epochs (90% after 3). resnet20: CIFAR-style ResNet-20 v1,\n"
     "  about 93% after 5 epochs (~8 min on 2 idle cores). Model-zoo nets that take 28x28 input\n"
     "  (resnet18_v1, mobilenetv2_1.0, ...) train with 10 classes.\n"
     "--logdir DIR writes TensorBoard event files (view: tensorboard --logdir DIR): per epoch\n"
     "  train/loss, train/accuracy, test/accuracy, learning_rate and a histogram of every\n"
     "  parameter; the network graph once.\n"
     "--kvstore mpi trains data-parallel across processes: `mpirun -np N mxnet train --kvstore "
     "mpi`\n"
     "  (as root add --allow-run-as-root; more processes than cores: --oversubscribe). Each "
     "process\n"
     "  takes --batch-size samples of every global batch of N x --batch-size; gradients are "
     "summed\n"
     "  by MPI allreduce, so the run equals one process with N x --batch-size. Rank 0 prints,\n"
     "  checkpoints and exports. docs/distributed.md.\n",
     {{.flag = Ref(FLAGS_model),
       .help = "lenet, resnet20 or a model-zoo name that takes 28x28 input (e.g. resnet18_v1)",
       .default_value = "lenet"},
      {.flag = Ref(FLAGS_epochs)},
      {.flag = Ref(FLAGS_batch_size), .default_value = "128"},
      {.flag = Ref(FLAGS_optimizer)},
      {.flag = Ref(FLAGS_lr)},
      {.flag = Ref(FLAGS_lr_schedule)},
      {.flag = Ref(FLAGS_wd)},
      {.flag = Ref(FLAGS_hybridize)},
      {.flag = Ref(FLAGS_device)},
      {.flag = Ref(FLAGS_seed), .default_value = "42"},
      {.flag = Ref(FLAGS_workers)},
      {.flag = Ref(FLAGS_threads)},
      {.flag = Ref(FLAGS_out), .help = "output directory", .default_value = "mxnet-train-out"},
      {.flag = Ref(FLAGS_data)},
      {.flag = Ref(FLAGS_limit)},
      {.flag = Ref(FLAGS_profile)},
      {.flag = Ref(FLAGS_check_nan)},
      {.flag = Ref(FLAGS_kvstore)},
      {.flag = Ref(FLAGS_logdir)},
      {.flag = Ref(FLAGS_save_every)},
      {.flag = Ref(FLAGS_resume)}},
     "",
     RunTrain});

}  // namespace
}  // namespace mxnet::cli
