#include "gluon/kvstore/kvstore.h"

#include <cstdlib>
#include <mutex>

#include "base/error.h"
#include "base/strings.h"
#include "gluon/kvstore/nccl_kvstore.h"
#include "ndarray/ops/core/basic_api.h"

namespace mxnet::gluon::kvstore {
namespace {

std::map<std::string, Factory>& Registry() {
  static auto* r = new std::map<std::string, Factory>();
  return *r;
}
std::mutex& RegistryMutex() {
  static auto* m = new std::mutex();
  return *m;
}

class LocalStore : public KVStore {
 public:
  explicit LocalStore(std::string type) : KVStore(std::move(type)) {}
};

void CheckValues(int key, const std::vector<NDArray>& values, const char* op) {
  if (values.empty())
    MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore ", op, ": no values for key ", key);
  for (const NDArray& v : values) {
    if (v.is_none())
      MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore ", op, ": a value of key ", key,
               " is none");
    if (v.shape() != values[0].shape())
      MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore ", op, ": the values of key ", key,
               " have shapes ", values[0].shape().ToString(), " and ", v.shape().ToString());
  }
}

// A float32 CPU copy (or the array itself when it already is one).
NDArray CpuFloat(const NDArray& a) {
  NDArray c = a.device().is_cpu() ? a : a.copyto(cpu());
  return c.dtype() == DType::kFloat32 ? c : c.astype(DType::kFloat32);
}

}  // namespace

bool RegisterKVStore(const std::string& name, Factory factory) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry()[name] = std::move(factory);
  return true;
}

KVStorePtr create(const std::string& name) {
  if (name == "local" || name == "device") return std::make_shared<LocalStore>(name);
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    auto it = Registry().find(name);
    if (it != Registry().end()) return it->second(name);
  }
  if (name == "nccl") return CreateNcclStore();
  if (name == "mpi" || name == "horovod" || name == "dist_sync" || name == "dist_sync_device")
    MX_THROW(absl::StatusCode::kUnimplemented, "kvstore '", name,
             "' needs MPI: link //gluon/kvstore:mpi into the program and launch it with "
             "`mpirun -np N`");
  if (name == "dist_async" || name == "dist_device_sync" || name == "dist")
    MX_THROW(absl::StatusCode::kUnimplemented, "kvstore '", name,
             "' (a parameter server) is not supported; use 'mpi' (synchronous allreduce)");
  MX_THROW(absl::StatusCode::kInvalidArgument, "unknown kvstore type '", name,
           "' (local, device, nccl, mpi, horovod, dist_sync, dist_sync_device)");
}

bool KVStore::is_capable(Capability c) const { return c == Capability::kOptimizer; }

const NDArray& KVStore::Stored(int key, const char* op) const {
  auto it = store_.find(key);
  if (it == store_.end())
    MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore ", op, ": key ", key,
             " has not been inited");
  return it->second;
}

void KVStore::init(int key, const NDArray& value) {
  if (store_.count(key))
    MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore init: duplicate init of key ", key);
  CheckValues(key, {value}, "init");
  NDArray v = value.copyto(cpu());
  BroadcastFromRoot(key, v);
  store_[key] = v;
}

void KVStore::init(const std::vector<int>& keys, const std::vector<NDArray>& values) {
  if (keys.size() != values.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore init: ", keys.size(), " keys but ",
             values.size(), " values");
  for (size_t i = 0; i < keys.size(); ++i) init(keys[i], values[i]);
}

NDArray& KVStore::Residual(int key, const NDArray& like) {
  NDArray& r = residual_[key];
  if (r.is_none() || r.shape() != like.shape()) r = NDArray::Full(like.shape(), 0.0, cpu());
  return r;
}

NDArray KVStore::LocalReduce(int key, const std::vector<NDArray>& values) {
  const NDArray& stored = Stored(key, "push");
  CheckValues(key, values, "push");
  if (values[0].shape() != stored.shape())
    MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore push: key ", key, " holds shape ",
             stored.shape().ToString(), " but a value of shape ", values[0].shape().ToString(),
             " was pushed");
  if (gc_.active() && CompressesLocally()) {
    // Every device copy quantized with its own residual; the decoded values summed.
    auto& res = local_residual_[key];
    res.resize(values.size());
    const int64_t n = stored.size();
    NDArray sum = NDArray::Full(stored.shape(), 0.0, cpu());
    std::vector<uint32_t> codes(static_cast<size_t>(gc_.compressed_size(n)));
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i].dtype() != DType::kFloat32)
        MX_THROW(absl::StatusCode::kInvalidArgument,
                 "kvstore push: gradient compression needs "
                 "float32 values, key ",
                 key, " has ", DTypeName(values[i].dtype()));
      if (res[i].is_none()) res[i] = NDArray::Full(stored.shape(), 0.0, cpu());
      NDArray g = CpuFloat(values[i]);
      gc_.Quantize(g.data<float>(), res[i].data<float>(), n, codes.data());
      gc_.Dequantize(codes.data(), n, sum.data<float>(), /*accumulate=*/true);
      res[i].mark_written();  // raw-pointer writes (Storage::version)
    }
    sum.mark_written();
    return sum;
  }
  return SumValues(key, values, stored);
}

NDArray KVStore::SumValues(int, const std::vector<NDArray>& values, const NDArray& stored) {
  NDArray sum = values[0].copyto(cpu());
  for (size_t i = 1; i < values.size(); ++i)
    sum = nd::elemwise_add(sum, values[i].as_in_context(cpu()));
  if (sum.dtype() != stored.dtype()) sum = sum.astype(stored.dtype());
  return sum;
}

void KVStore::PullValues(int, const NDArray& stored, const std::vector<NDArray>& out) {
  for (const NDArray& o : out) stored.copyto(o);
}

void KVStore::Apply(int key, const NDArray& merged) {
  NDArray& stored = store_.at(key);
  if (updater_) {
    updater_(key, merged, stored);
  } else {
    stored = merged;
  }
}

void KVStore::push(int key, const std::vector<NDArray>& values, int priority) {
  push(std::vector<int>{key}, std::vector<std::vector<NDArray>>{values}, priority);
}

void KVStore::push(const std::vector<int>& keys, const std::vector<std::vector<NDArray>>& values,
                   int priority) {
  if (keys.size() != values.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore push: ", keys.size(), " keys but ",
             values.size(), " value lists");
  std::vector<NDArray> merged;
  merged.reserve(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) merged.push_back(LocalReduce(keys[k], values[k]));
  pushed_ = true;
  ReduceAcrossWorkers(keys, merged);
  if (push_check_) push_check_(keys, merged);
  for (size_t k = 0; k < keys.size(); ++k) Apply(keys[k], merged[k]);
}

std::vector<std::pair<size_t, size_t>> KVStore::buckets(const std::vector<NDArray>& values,
                                                        int64_t bucket_bytes) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t k = 0;
  while (k < values.size()) {
    const DType dt = values[k].dtype();
    size_t end = k;
    int64_t bytes = 0;
    while (end < values.size() && values[end].dtype() == dt &&
           (end == k || bytes + static_cast<int64_t>(values[end].nbytes()) <= bucket_bytes)) {
      bytes += static_cast<int64_t>(values[end].nbytes());
      ++end;
    }
    out.emplace_back(k, end);
    k = end;
  }
  return out;
}

int64_t KVStore::bucket_bytes() {
  static const int64_t bytes = [] {
    const char* e = std::getenv("MXNET_KVSTORE_BUCKET_BYTES");
    int64_t v = e ? std::atoll(e) : 0;
    return v > 0 ? v : int64_t{4} << 20;
  }();
  return bytes;
}

void KVStore::pull(int key, const std::vector<NDArray>& out, int, bool) {
  const NDArray& stored = Stored(key, "pull");
  for (const NDArray& o : out) {
    if (o.is_none() || o.shape() != stored.shape())
      MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore pull: key ", key, " holds shape ",
               stored.shape().ToString(), " but an output ",
               o.is_none() ? std::string("is none") : "has shape " + o.shape().ToString());
  }
  PullValues(key, stored, out);
}

void KVStore::pushpull(int key, const std::vector<NDArray>& values, const std::vector<NDArray>& out,
                       int priority) {
  pushpull(
      std::vector<int>{key}, {values},
      out.empty() ? std::vector<std::vector<NDArray>>{} : std::vector<std::vector<NDArray>>{out},
      priority);
}

void KVStore::pushpull(const std::vector<int>& keys,
                       const std::vector<std::vector<NDArray>>& values,
                       const std::vector<std::vector<NDArray>>& out, int priority) {
  if (keys.size() != values.size() || (!out.empty() && out.size() != keys.size()))
    MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore pushpull: ", keys.size(), " keys, ",
             values.size(), " value lists and ", out.size(), " output lists");
  std::vector<NDArray> merged;
  merged.reserve(keys.size());
  for (size_t k = 0; k < keys.size(); ++k) merged.push_back(LocalReduce(keys[k], values[k]));
  pushed_ = true;
  ReduceAcrossWorkers(keys, merged);
  if (push_check_) push_check_(keys, merged);
  for (size_t k = 0; k < keys.size(); ++k) {
    Apply(keys[k], merged[k]);
    pull(keys[k], out.empty() ? values[k] : out[k], priority);
  }
}

void KVStore::broadcast(int key, const NDArray& value, const std::vector<NDArray>& out,
                        int priority) {
  init(key, value);
  pull(key, out, priority);
}

void KVStore::set_gradient_compression(const Kwargs& params) {
  if (!SupportsCompression())
    MX_THROW(absl::StatusCode::kUnimplemented,
             "Gradient compression is not supported for this type of kvstore ('", type_,
             "'; use 'device' or a multi-process store)");
  if (pushed_)
    MX_THROW(absl::StatusCode::kFailedPrecondition,
             "set_gradient_compression must be called before the first push");
  gc_ = GradientCompression::FromParams(params);
}

void KVStore::set_updater(Updater updater) { updater_ = std::move(updater); }

void KVStore::set_optimizer(optimizer::OptimizerPtr opt) {
  if (!opt) MX_THROW(absl::StatusCode::kInvalidArgument, "kvstore set_optimizer: null optimizer");
  opt_states_.clear();
  updater_ = [this, opt](int key, const NDArray& grad, const NDArray& weight) {
    auto it = opt_states_.find(key);
    if (it == opt_states_.end())
      it = opt_states_.emplace(key, opt->create_state_multi_precision(key, weight)).first;
    opt->update_multi_precision(key, weight, grad, it->second);
  };
}

}  // namespace mxnet::gluon::kvstore
