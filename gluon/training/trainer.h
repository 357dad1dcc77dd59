// gluon.Trainer: applies an optimizer to a set of Parameters (MXNet 1.9.1 semantics).
//
//   Trainer trainer(net.collect_params(), "sgd", {{"learning_rate", 0.1}, {"momentum", 0.9}});
//   for (...) {
//     { auto rec = autograd::record(); loss = ...; }
//     autograd::backward({loss});
//     trainer.step(batch_size);
//   }
//
// Parameters: from a ParameterDict they are ordered by name (MXNet sorts the dict's keys); the
// position is the optimizer's index. Parameters with grad_req null are skipped. Every parameter
// must live on the same devices; each (device, parameter) pair has its own optimizer state and
// update count, as MXNet's one Updater per context.
//
// step(batch_size) = rescale_grad := optimizer's rescale_grad at construction / batch_size, then
// allreduce_grads(), then update. allreduce_grads() sums each parameter's gradient over its
// device copies and writes the sum back into every copy (MXNet's kvstore "device"), so the
// copies then take identical updates. This is MXNet's update_on_kvstore=False path, which
// gives the same weights as its default for several devices (update on the kvstore) and also
// allows calling allreduce_grads() and update() separately.
//
// Stale gradients (MXNet's check): autograd::backward marks every gradient it writes fresh
// (NDArray::fresh_grad) and an update marks it stale again. A copy whose gradient is not fresh
// at step()/update() -- the forward pass did not use the parameter (a branch not taken, a
// sub-network left out), or backward was not run since the last step -- makes them throw
// mxnet::Error(kFailedPrecondition) with MXNet's message naming the parameter and device before
// anything is updated; with ignore_stale_grad such copies are skipped (not updated, their
// optimizer state and update count untouched), as in MXNet.
//
// States file (save_states / load_states): MXNet pickles its Updater; we write MXNet's NDArray
// dict format (.params/.nd, docs/formats.md §2.1, §4.4; readable by mx.nd.load), atomically (a
// temporary file renamed over the target):
//   "<i>:<k>"       state array k of the parameter with index i (none entries omitted)
//   "<i>:weight32"  its float32 master weight (multi-precision only)
//   "__trainer_states__"  a uint8 array holding UTF-8 JSON:
//       {"format": "mxnet-cc-trainer-states", "version": 1,
//        "optimizer": Optimizer::SerializeConfig() (name, lr, wd, counts, scheduler, ...),
//        "params": [{"index": i, "name": "...", "num_arrays": n, "weight32": bool}, ...]}
// As MXNet, the states of the first device are saved and load_states gives every device a copy.
// load_states restores into this Trainer's optimizer, which must be of the same class; states
// must match the parameters' shapes (kInvalidArgument otherwise). Loaded states wait for the
// first update if the parameters are not initialized yet.
// KVStore (TrainerOptions, gluon.Trainer's kvstore / compression_params / update_on_kvstore):
// created at the first step from the devices then known. A name makes kvstore::create(name),
// except that one device with "local"/"device"/"nccl" needs none (MXNet's _create_kvstore); ""
// means none (each device copy then takes its own gradient, as MXNet with kvstore=None).
// "mpi"/"horovod" (link //gluon/kvstore:mpi) or a store object are always used. At that point
// every initialized parameter is broadcast from the store (key = index): in a multi-process
// job all processes start from rank 0's values. allreduce_grads() then pushpulls all
// gradients in one call (bucketed by the MPI store); step(batch_size) normalizes by the sum of
// batch_size over the processes (one scalar allreduce), so N processes with batch B train
// exactly as one process with batch N*B. update_on_kvstore = true pushes gradients and lets
// the store run this Trainer's optimizer (states kept here, saved by save_states) and pulls the
// weights; allreduce_grads()/update() then throw kFailedPrecondition as MXNet. Deviation:
// unspecified update_on_kvstore means false (MXNet: true when the store can), which gives the
// same weights and keeps allreduce_grads()/update() usable. The Trainer must not be moved or
// copied once it stepped with update_on_kvstore (the store's updater refers to it).
//
// Overlap (Horovod's DistributedOptimizer hooks, PyTorch DDP's buckets): with a multi-process
// store (kvstore::KVStore::supports_async_allreduce), update_on_kvstore false, no gradient
// compression, and one float32/float64 CPU gradient per parameter, the Trainer registers an
// autograd gradient-ready hook (autograd/grad_hooks.h) at its first step. The gradients are
// grouped into the buckets pushpull would form (kvstore::KVStore::buckets: parameter index
// order, MXNET_KVSTORE_BUCKET_BYTES), and during later backward passes each bucket's allreduce
// starts (kvstore start_allreduce) as soon as all its gradients are final, buckets in
// descending index order (the last layers' gradients are ready first; the fixed order keeps
// every process's collectives in the same sequence). allreduce_grads()/step() start the buckets
// still waiting (parameters that got no gradient, grad_req add, the first step) and wait for
// all. The result is bit for bit that of pushpull (same buckets, same data). A gradient written
// again after its bucket started (a second backward before step) makes step redo that bucket;
// parameters with grad_req add are reduced at step only (the Trainer cannot know the last
// backward of an accumulation). Gradients must not be changed between backward and step other
// than by backward (call allreduce_grads() first, then change them, then update(), as MXNet
// requires for gradient clipping anyway). Off: TrainerOptions::overlap_allreduce = false or
// MXNET_KVSTORE_OVERLAP=0. backward must run on the thread that initialized MPI.
//
// Finite check with update_on_kvstore: the store's push check (set_push_check) scans the summed
// gradients (identical on every process) before the store updates any weight, so a NaN/Inf on
// any process throws on every process with nothing updated.
// Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gluon/kvstore/kvstore.h"
#include "gluon/parameter.h"
#include "gluon/training/kwargs.h"
#include "gluon/training/optimizer.h"

namespace mxnet::gluon {

// gluon.Trainer's kvstore arguments (see the top of this file).
struct TrainerOptions {
  // A kvstore::create name ("device", "local", "mpi", "horovod", ...; "" for none) or a store.
  std::variant<std::string, kvstore::KVStorePtr> kvstore = std::string("device");
  // The store's set_gradient_compression dict, e.g. {{"type", "2bit"}}; empty: off.
  Kwargs compression_params;
  // Update on the store; nullopt: false. true with a store that cannot (horovod): kInvalidArgument.
  std::optional<bool> update_on_kvstore;
  // Overlap the gradient allreduce with backward (multi-process stores; see "Overlap" above);
  // nullopt: the environment variable MXNET_KVSTORE_OVERLAP (0 = off), default on.
  std::optional<bool> overlap_allreduce;
};

class Trainer {
 public:
  // optimizer: a registered name (optimizer::Create) with its keyword arguments.
  Trainer(const ParameterDict& params, const std::string& optimizer,
          const Kwargs& optimizer_params = {}, TrainerOptions options = {});
  // An optimizer object (shared: its param_dict is set to these parameters).
  Trainer(const ParameterDict& params, optimizer::OptimizerPtr optimizer,
          TrainerOptions options = {});
  // A list, in the given order (index = position).
  Trainer(std::vector<ParameterPtr> params, const std::string& optimizer,
          const Kwargs& optimizer_params = {}, TrainerOptions options = {});
  Trainer(std::vector<ParameterPtr> params, optimizer::OptimizerPtr optimizer,
          TrainerOptions options = {});

  // One optimization step: normalizes gradients by 1/batch_size, all-reduces them across
  // devices and updates every parameter (see the top of this file for stale gradients).
  void step(double batch_size, bool ignore_stale_grad = false);
  // Sums gradients across device copies and writes the sum to every copy.
  void allreduce_grads();
  // step() without allreduce_grads().
  void update(double batch_size, bool ignore_stale_grad = false);

  // The optimizer's current learning rate (its scheduler's, if any).
  double learning_rate();
  // kFailedPrecondition when the optimizer has an lr_scheduler.
  void set_learning_rate(double lr);
  optimizer::Optimizer& optimizer() { return *optimizer_; }
  const optimizer::OptimizerPtr& optimizer_ptr() const { return optimizer_; }
  const std::vector<ParameterPtr>& params() const { return params_; }
  // The store in use (null before the first step, or when none is needed).
  const kvstore::KVStorePtr& kvstore() const { return kv_; }
  bool update_on_kvstore() const { return update_on_kvstore_; }
  // Counts of the overlapped allreduce since construction (all 0 when it is off): buckets
  // started by the gradient hooks during backward, started at step, and redone at step (a
  // gradient changed after its bucket started).
  struct OverlapStats {
    int64_t started_in_backward = 0, started_at_step = 0, redone = 0;
  };
  OverlapStats overlap_stats() const;

  // Numerical faults (MXNet applies NaN/Inf gradients silently). With set_check_finite(true),
  // step() and update() first scan every gradient they would apply (after allreduce_grads) and,
  // if one holds NaN or Inf, throw mxnet::Error(kOutOfRange) before anything is updated, naming
  // the step (the update count it would have reached, optimizer().num_update() + 1), the first
  // affected parameter in index order (its index and name), its device, its NaN/Inf counts and
  // first flat index, and how many parameters are affected. Off by default (each scan copies the
  // gradients to the host). check_loss(loss): the same report for a loss array (any shape; call it
  // before backward), naming the step it precedes.
  void set_check_finite(bool on) { check_finite_ = on; }
  bool check_finite() const { return check_finite_; }
  void check_loss(const NDArray& loss) const;

  // Optimizer and per-parameter states (format above). I/O errors keep absl::Status codes.
  absl::Status save_states(const std::string& fname) const;
  absl::Status load_states(const std::string& fname);
  // The (name, array) records save_states writes and load_states reads, in memory: for bundling
  // the states into a larger file (a training checkpoint, gluon/training/checkpoint.h).
  // `source` names the records in load errors.
  absl::StatusOr<std::vector<std::pair<std::string, NDArray>>> states_records() const;
  absl::Status load_states_records(const std::vector<std::pair<std::string, NDArray>>& records,
                                   const std::string& source);

 private:
  void Init(std::vector<ParameterPtr> params, optimizer::OptimizerPtr opt);
  std::vector<Device> CheckDevices() const;
  void Update(bool ignore_stale_grad);
  // KVStore: created at the first step; new parameters broadcast; gradients reduced.
  void InitKVStore();
  void AllreduceGrads(bool ignore_stale_grad);
  double GlobalBatch(double batch_size);
  void CheckFresh() const;
  // Throws kOutOfRange naming the first parameter (index order) whose gradient in `grads`
  // (parameter index, gradient array) holds NaN/Inf; `where` follows the device in the message.
  void CheckFinite(const std::vector<std::pair<int, NDArray>>& grads) const;
  // Overlapped allreduce (trainer.cc): null unless enabled at the first step.
  struct Overlap;
  void InitOverlap();
  bool OverlapAllreduce();
  std::shared_ptr<Overlap> overlap_;

  std::vector<ParameterPtr> params_;
  optimizer::OptimizerPtr optimizer_;
  double scale_ = 1.0;
  // Per device (index into the devices of the parameters), per parameter index.
  std::map<std::pair<int, int>, std::map<int, optimizer::State>> states_;
  // Loaded states not yet placed on a device (host arrays), per parameter index.
  std::map<int, optimizer::State> pending_;
  bool check_finite_ = false;
  TrainerOptions kv_options_;
  kvstore::KVStorePtr kv_;
  bool kv_initialized_ = false, update_on_kvstore_ = false;
  std::vector<bool> kv_has_key_;  // per parameter index: broadcast through the store
};

}  // namespace mxnet::gluon
