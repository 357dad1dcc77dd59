// Step time with the gradient allreduce overlapped with backward vs. not (issue 25), under
// `mpirun -np N`: two copies of one model (same weights), one Trainer with overlap_allreduce on
// and one with it off, trained alternately on the same batches so that both see the same load.
// Prints rank 0's medians of forward+backward, step (allreduce wait + update) and the whole
// iteration, per setting. docs/distributed.md gives the command and figures.
//   overlap_benchmark [model=resnet18_v1|mlp] [batch=8] [size=32] [iters=20]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "autograd/autograd.h"
#include "gluon/init.h"
#include "gluon/kvstore/mpi_kvstore.h"
#include "gluon/loss/loss.h"
#include "gluon/nn/basic_layers.h"
#include "gluon/training/trainer.h"
#include "modelzoo/vision.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/random.h"

using namespace mxnet;         // NOLINT
using namespace mxnet::gluon;  // NOLINT

namespace {

std::shared_ptr<HybridBlock> MakeModel(const std::string& name) {
  random::seed(1);
  if (name == "mlp") {  // 16 Dense(1024) layers: 16.8 M parameters
    auto net = std::make_shared<nn::HybridSequential>();
    for (int i = 0; i < 16; ++i)
      net->add(std::make_shared<nn::Dense>(1024, nn::DenseOptions{.activation = "relu"}));
    net->add(std::make_shared<nn::Dense>(10));
    net->initialize(init::Xavier());
    return net;
  }
  auto net = model_zoo::vision::get_model(name, {.classes = 10});
  net->initialize(init::Xavier());
  return net;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string model = argc > 1 ? argv[1] : "resnet18_v1";
  const int64_t batch = argc > 2 ? std::atoll(argv[2]) : 8,
                size = argc > 3 ? std::atoll(argv[3]) : 32;
  const int iters = argc > 4 ? std::atoi(argv[4]) : 20;
  kvstore::mpi::EnsureInitialized();
  const int rank = kvstore::mpi::WorldRank(), nproc = kvstore::mpi::WorldSize();
  std::shared_ptr<HybridBlock> nets[2] = {MakeModel(model), MakeModel(model)};
  std::vector<std::unique_ptr<Trainer>> trainers;
  for (int k = 0; k < 2; ++k)
    trainers.push_back(std::make_unique<Trainer>(
        nets[k]->collect_params(), "sgd", Kwargs{{"learning_rate", 0.01}, {"momentum", 0.9}},
        TrainerOptions{.kvstore = std::string("mpi"), .overlap_allreduce = k == 0}));
  loss::SoftmaxCrossEntropyLoss ce;
  std::vector<double> fb[2], st[2], all[2];
  int64_t params = 0;
  for (int it = 0; it < iters + 2; ++it) {
    random::seed(100 + it * nproc + rank);
    Shape xs = model == "mlp" ? Shape{batch, 1024} : Shape{batch, 3, size, size};
    NDArray x = nd::random::normal(0, 1, xs), y = NDArray::Full(Shape{batch}, it % 10);
    for (int k = 0; k < 2; ++k) {
      auto t0 = std::chrono::steady_clock::now();
      NDArray l;
      {
        auto rec = autograd::record();
        l = ce((*nets[k])(x), y);
      }
      autograd::backward({l});
      auto t1 = std::chrono::steady_clock::now();
      trainers[k]->step(static_cast<double>(batch));
      nets[k]->collect_params().begin()->second->data().wait_to_read();
      auto t2 = std::chrono::steady_clock::now();
      if (it < 2) continue;  // warm-up (the first step has no overlap: hooks start at step 1)
      fb[k].push_back(std::chrono::duration<double>(t1 - t0).count() * 1e3);
      st[k].push_back(std::chrono::duration<double>(t2 - t1).count() * 1e3);
      all[k].push_back(std::chrono::duration<double>(t2 - t0).count() * 1e3);
    }
  }
  for (const auto& [n, p] : nets[0]->collect_params()) params += p->data().size();
  if (rank == 0) {
    std::printf(
        "%s batch %lld%s, %lld parameters, %d processes, %d iterations (medians, ms, rank 0)\n",
        model.c_str(), (long long)batch,
        model == "mlp" ? "" : (" " + std::to_string(size) + "x" + std::to_string(size)).c_str(),
        (long long)params, nproc, iters);
    for (int k = 0; k < 2; ++k) {
      auto s = trainers[k]->overlap_stats();
      std::printf(
          "overlap %-3s: forward+backward %8.1f  step %8.1f  iteration %8.1f  (buckets in "
          "backward %lld, at step %lld)\n",
          k == 0 ? "on" : "off", Median(fb[k]), Median(st[k]), Median(all[k]),
          (long long)s.started_in_backward, (long long)s.started_at_step);
    }
  }
  return 0;
}
