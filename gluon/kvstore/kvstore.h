// Key-value store for data-parallel training (mxnet.kvstore, MXNet 1.9.1 semantics; the
// multi-process store follows kvstore "dist_sync" and Horovod's kvstore over MPI).
//
//   auto kv = gluon::kvstore::create("local");   // or "device", "mpi", "horovod"
//   kv->init(3, NDArray::Full(Shape{2, 3}, 1));  // key 3 holds a (2, 3) array
//   kv->push(3, {g_dev0, g_dev1});               // stored := sum (or updater(key, sum, stored))
//   kv->pull(3, {w_dev0, w_dev1});               // every out := stored
//   kv->pushpull(3, {g_dev0, g_dev1});           // push, then pull into the same arrays
//
// Types (create()):
//   "local"   one process; values of a key are summed on the CPU. No gradient compression (as
//             MXNet: set_gradient_compression throws kUnimplemented).
//   "device"  one process, several devices; the sum is formed on the device of the first value.
//             With gradient compression every value (device) is quantized with its own residual
//             and the decoded values summed (MXNet's CommDevice::ReduceCompressed).
//   "nccl"    one process, several GPUs: the device copies are summed by an NCCL allreduce on
//             the GPUs (one rank per device, ncclCommInitAll) and pulls are NCCL broadcasts
//             (nccl_kvstore.h). Needs a CUDA build (--config=cuda, which links NCCL) and a GPU:
//             otherwise create("nccl") throws kUnimplemented / kUnavailable saying so. No
//             gradient compression (as MXNet).
//   "mpi", "horovod", "dist_sync", "dist_sync_device": several processes launched by
//             `mpirun -np N`; needs //gluon/kvstore:mpi linked into the program (otherwise
//             create() throws kUnimplemented naming that target). See mpi_kvstore.h.
//
// Semantics (each process holds the stored value of every key):
//   init(key, v)        stored := copy of v on the CPU (multi-process: rank 0's v, broadcast).
//                       kInvalidArgument "duplicate init of key K" if the key exists.
//   push(key, vs)       merged := sum of vs (several devices of this process), then the sum over
//                       all processes; then updater(key, merged, stored) if an updater or
//                       optimizer is set, else stored := merged.
//   pull(key, outs)     each out := stored.
//   pushpull(key, vs, outs)   push then pull (outs empty: into vs). Several keys at once may be
//                       fused into buckets by the multi-process store.
//   broadcast(key, v, outs)   init then pull.
// Unknown keys: kInvalidArgument "key K has not been inited"; shapes must equal the stored
// shape. A multi-process store needs every process to make the same calls in the same order.
// Deviation: MXNet's local store may alias the pushed array as the stored value; here it is
// always a copy.
// Not thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gluon/kvstore/gradient_compression.h"
#include "gluon/training/kwargs.h"
#include "gluon/training/optimizer.h"
#include "ndarray/ndarray.h"

namespace mxnet::gluon::kvstore {

// updater(key, merged gradient, stored weight): updates the stored weight in place
// (MXNet's kvstore updater; set_optimizer installs optimizer.get_updater's equivalent).
using Updater = std::function<void(int key, const NDArray& grad, const NDArray& weight)>;

// KVStoreBase.OPTIMIZER: whether set_optimizer/update_on_kvstore is supported.
enum class Capability { kOptimizer };

class KVStore {
 public:
  virtual ~KVStore() = default;
  KVStore(const KVStore&) = delete;
  KVStore& operator=(const KVStore&) = delete;

  // The name given to create() ("local", "device", "mpi", "horovod", ...).
  const std::string& type() const { return type_; }
  // This process's rank in [0, num_workers()), and the number of processes (1 unless MPI).
  virtual int rank() const { return 0; }
  virtual int num_workers() const { return 1; }

  void init(int key, const NDArray& value);
  void init(const std::vector<int>& keys, const std::vector<NDArray>& values);
  // values: this process's copies of the key's gradient (one per device), same shape.
  void push(int key, const std::vector<NDArray>& values, int priority = 0);
  // ignore_sparse: accepted for API parity (no sparse storage here).
  void pull(int key, const std::vector<NDArray>& out, int priority = 0, bool ignore_sparse = true);
  void pushpull(int key, const std::vector<NDArray>& values, const std::vector<NDArray>& out = {},
                int priority = 0);
  // Several keys in one call: values[k], out[k] belong to keys[k] (out empty: in place).
  void pushpull(const std::vector<int>& keys, const std::vector<std::vector<NDArray>>& values,
                const std::vector<std::vector<NDArray>>& out = {}, int priority = 0);
  void broadcast(int key, const NDArray& value, const std::vector<NDArray>& out, int priority = 0);

  // MXNet's compression_params dict, e.g. {{"type", "2bit"}, {"threshold", 0.5}} (see
  // gradient_compression.h). Must be called before the first push (kFailedPrecondition
  // otherwise); "local" throws kUnimplemented as MXNet ('not supported for this type').
  void set_gradient_compression(const Kwargs& params);
  const GradientCompression& gradient_compression() const { return gc_; }

  // Updates on the store: pushes apply the optimizer to the stored weight (key = the
  // optimizer's index), with one state per key kept here.
  void set_optimizer(optimizer::OptimizerPtr optimizer);
  void set_updater(Updater updater);
  virtual bool is_capable(Capability c) const;

  // Several keys pushed at once: every key's sum is formed (bucketed across processes, as
  // pushpull) before any stored value changes; then check (if set, see set_push_check) sees
  // them, then the updater runs key by key.
  void push(const std::vector<int>& keys, const std::vector<std::vector<NDArray>>& values,
            int priority = 0);
  // Called by push/pushpull with the keys and their merged values (summed over devices and
  // processes: identical on every process) before the updater or store changes anything; an
  // exception it throws propagates with the store unchanged (the Trainer's finite check with
  // update_on_kvstore). Empty: none.
  using PushCheck =
      std::function<void(const std::vector<int>& keys, const std::vector<NDArray>& merged)>;
  void set_push_check(PushCheck check) { push_check_ = std::move(check); }

  // Waits until every process reaches this call (a no-op for one process).
  virtual void barrier() {}

  // ---- Overlapped allreduce (the Trainer's gradient hooks; Horovod's allreduce_async_ and
  // synchronize, PyTorch DDP's buckets). For multi-process stores (supports_async_allreduce()):
  // start_allreduce copies `arrays` (dense, CPU, one dtype: float32 or float64) into one buffer
  // and starts summing it over all processes (one MPI_Iallreduce, no store key involved), then
  // returns a ticket; wait_allreduce(ticket, write_back) waits for it (MXNET_KVSTORE_TIMEOUT)
  // and, with write_back, copies the sums into the arrays (sizes as at the start). progress()
  // lets outstanding ones advance (MPI progresses only inside its calls). Every process must
  // start the same buckets, with the same sizes, in the same order. Same bits as pushpull of
  // the same keys when the buckets are those of buckets() (same MPI count and data).
  // Defaults (one process): start returns 0, wait and progress do nothing.
  virtual bool supports_async_allreduce() const { return false; }
  virtual int64_t start_allreduce(const std::vector<NDArray>& arrays, const std::string& what) {
    return 0;
  }
  virtual void wait_allreduce(int64_t ticket, bool write_back = true) {}
  virtual void progress() {}
  // The buckets a multi-key pushpull forms: [begin, end) ranges of consecutive values with one
  // dtype and at most bucket_bytes() bytes together (a larger value is a bucket alone).
  static std::vector<std::pair<size_t, size_t>> buckets(const std::vector<NDArray>& values,
                                                        int64_t bucket_bytes);
  // MXNET_KVSTORE_BUCKET_BYTES (default 4 MiB).
  static int64_t bucket_bytes();
  // The sum of x over all processes (x for one process). Used by the Trainer to normalize by
  // the global batch size.
  virtual double sum_across_workers(double x) { return x; }

 protected:
  explicit KVStore(std::string type) : type_(std::move(type)) {}

  // Hooks of the multi-process store. `merged` is this process's sum on the CPU, dense,
  // float32 or float64; the hook replaces it with the sum over all processes (compressing with
  // the per-key residual when compression is on). Default: nothing (one process).
  virtual void ReduceAcrossWorkers(const std::vector<int>& keys, std::vector<NDArray>& merged) {}
  // Replaces value (CPU) with rank 0's. Default: nothing.
  virtual void BroadcastFromRoot(int key, NDArray& value) {}
  // Whether push compresses this process's device copies (the "device" store).
  virtual bool CompressesLocally() const { return type_ == "device"; }
  virtual bool SupportsCompression() const { return type_ != "local"; }
  float residual_threshold() const { return gc_.threshold(); }
  // Per-key residual of the cross-process compression (zeros at first use).
  NDArray& Residual(int key, const NDArray& like);
  // Hooks of the "nccl" store (nccl_kvstore.h), called after the key and shapes are checked.
  // SumValues: the sum of one key's values (this process's device copies, uncompressed) as a
  // CPU array of `stored`'s dtype; default: copies summed on the CPU. PullValues: every out :=
  // stored; default: one copy per out.
  virtual NDArray SumValues(int key, const std::vector<NDArray>& values, const NDArray& stored);
  virtual void PullValues(int key, const NDArray& stored, const std::vector<NDArray>& out);

 private:
  // merged sum of one key's values on the CPU.
  NDArray LocalReduce(int key, const std::vector<NDArray>& values);
  void Apply(int key, const NDArray& merged);
  const NDArray& Stored(int key, const char* op) const;

  std::string type_;
  PushCheck push_check_;
  std::map<int, NDArray> store_;
  GradientCompression gc_;
  bool pushed_ = false;
  Updater updater_;
  std::map<int, optimizer::State> opt_states_;
  // Residuals: per key, per device copy ("device"), and per key across processes.
  std::map<int, std::vector<NDArray>> local_residual_;
  std::map<int, NDArray> residual_;
};
using KVStorePtr = std::shared_ptr<KVStore>;

// mx.kv.create(name): "local" (default), "device", "nccl", "mpi", "horovod", "dist_sync",
// "dist_sync_device". Errors: kInvalidArgument for an unknown name (listing the known ones),
// kUnimplemented for "nccl" in a build without CUDA (kUnavailable without a GPU), "dist_async" (no
// parameter server) and for the multi-process names when //gluon/kvstore:mpi is not linked.
KVStorePtr create(const std::string& name = "local");

// Registration of a store kind by a library linked in (//gluon/kvstore:mpi registers the
// multi-process names). Returns true (for static initialization).
using Factory = std::function<KVStorePtr(const std::string& name)>;
bool RegisterKVStore(const std::string& name, Factory factory);

}  // namespace mxnet::gluon::kvstore
