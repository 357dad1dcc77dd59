#include "gluon/kvstore/nccl_kvstore.h"

#include <map>
#include <set>

#include "base/error.h"
#include "ndarray/backends/cuda/gpu.h"

namespace mxnet::gluon::kvstore {
namespace {

class NcclStore final : public KVStore {
 public:
  explicit NcclStore(CommunicatorFactory factory) : KVStore("nccl"), factory_(std::move(factory)) {}

 protected:
  bool SupportsCompression() const override { return false; }
  bool CompressesLocally() const override { return false; }

  NDArray SumValues(int key, const std::vector<NDArray>& values, const NDArray& stored) override {
    DeviceCommunicator* comm = CommFor(values);
    if (!comm) return KVStore::SumValues(key, values, stored);
    std::vector<NDArray>& buf = Buffers(reduce_bufs_[key], values, /*fill=*/true);
    comm->AllReduce(buf);
    NDArray sum = buf[0].copyto(cpu());
    return sum.dtype() == stored.dtype() ? sum : sum.astype(stored.dtype());
  }

  void PullValues(int key, const NDArray& stored, const std::vector<NDArray>& out) override {
    DeviceCommunicator* comm = CommFor(out);
    if (!comm) return KVStore::PullValues(key, stored, out);
    std::vector<NDArray>& buf = Buffers(bcast_bufs_[key], out, /*fill=*/false);
    stored.copyto(buf[0]);  // to the first GPU (dtype converted to the outputs')
    comm->Broadcast(buf, 0);
    for (size_t i = 0; i < out.size(); ++i) buf[i].copyto(out[i]);
  }

 private:
  // The communicator over the arrays' GPUs (in their order), or null when they are not all on
  // distinct GPUs with one NCCL dtype.
  DeviceCommunicator* CommFor(const std::vector<NDArray>& arrays) {
    std::vector<int> ids;
    std::set<int> seen;
    for (const NDArray& a : arrays) {
      if (a.device().type != DeviceType::kGPU || a.is_sparse() || a.dtype() != arrays[0].dtype() ||
          !NcclSupports(a.dtype()) || !seen.insert(a.device().id).second)
        return nullptr;
      ids.push_back(a.device().id);
    }
    CommunicatorPtr& c = comms_[ids];
    if (!c) {
      std::vector<Device> devices;
      for (int id : ids) devices.push_back(gpu(id));
      c = factory_(devices);
      if (!c)
        MX_THROW(absl::StatusCode::kInternal,
                 "kvstore nccl: the communicator factory returned "
                 "null");
    }
    return c.get();
  }

  // Per-device buffers shaped like `like` (same devices, shape, dtype), reallocated on change;
  // with fill, holding `like`'s values (compact copies).
  static std::vector<NDArray>& Buffers(std::vector<NDArray>& buf, const std::vector<NDArray>& like,
                                       bool fill) {
    buf.resize(like.size());
    for (size_t i = 0; i < like.size(); ++i) {
      const NDArray& l = like[i];
      if (buf[i].is_none() || buf[i].device() != l.device() || buf[i].shape() != l.shape() ||
          buf[i].dtype() != l.dtype())
        buf[i] = l.copyto(l.device());  // a compact copy on the same GPU
      else if (fill)
        l.copyto(buf[i]);
    }
    return buf;
  }

  CommunicatorFactory factory_;
  std::map<std::vector<int>, CommunicatorPtr> comms_;
  std::map<int, std::vector<NDArray>> reduce_bufs_, bcast_bufs_;
};

}  // namespace

KVStorePtr CreateNcclStore(CommunicatorFactory factory) {
  if (!factory)
    MX_THROW(absl::StatusCode::kInvalidArgument, "CreateNcclStore: empty communicator factory");
  return std::make_shared<NcclStore>(std::move(factory));
}

KVStorePtr CreateNcclStore() {
  if (!BuiltWithNccl())
    MX_THROW(absl::StatusCode::kUnimplemented,
             "kvstore 'nccl' needs a CUDA build with NCCL (--config=cuda); this build has "
             "neither (use 'device' for several devices of one process, 'mpi' for several "
             "processes)");
  if (backends::cuda::GpuCount() < 1)
    MX_THROW(absl::StatusCode::kUnavailable,
             "kvstore 'nccl' needs at least one GPU; none found (driver: ",
             backends::cuda::DriverStatus(), ")");
  return CreateNcclStore(MakeNcclCommunicator);
}

}  // namespace mxnet::gluon::kvstore
