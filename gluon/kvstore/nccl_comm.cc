// The NCCL communicator (device_comm.h). Compiled with MXNET_CUDA under --config=cuda, linked
// with @local_cuda//:nccl; otherwise MakeNcclCommunicator throws kUnimplemented.
#include <set>

#include "base/error.h"
#include "gluon/kvstore/device_comm.h"

#ifdef MXNET_CUDA
#include <cuda_runtime.h>
#include <nccl.h>

#include "ndarray/backends/cuda/gpu.h"
#endif

namespace mxnet::gluon::kvstore {
namespace {

void CheckDevices(const std::vector<Device>& devices) {
  if (devices.empty())
    MX_THROW(absl::StatusCode::kInvalidArgument, "NCCL communicator: no devices");
  std::set<int> ids;
  for (const Device& d : devices) {
    if (d.type != DeviceType::kGPU)
      MX_THROW(absl::StatusCode::kInvalidArgument, "NCCL communicator: ", d.ToString(),
               " is not a GPU");
    if (!ids.insert(d.id).second)
      MX_THROW(absl::StatusCode::kInvalidArgument, "NCCL communicator: ", d.ToString(),
               " is listed twice");
  }
}

#ifdef MXNET_CUDA
void Check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess)
    MX_THROW(absl::StatusCode::kInternal, "NCCL ", what, " failed: ", ncclGetErrorString(r), " (",
             ncclGetLastError(nullptr) ? ncclGetLastError(nullptr) : "", ")");
}

ncclDataType_t NcclType(DType t) {
  switch (t) {
    case DType::kFloat32:
      return ncclFloat32;
    case DType::kFloat64:
      return ncclFloat64;
    case DType::kFloat16:
      return ncclFloat16;
    case DType::kBFloat16:
      return ncclBfloat16;
    case DType::kInt8:
      return ncclInt8;
    case DType::kUint8:
      return ncclUint8;
    case DType::kInt32:
      return ncclInt32;
    case DType::kUint32:
      return ncclUint32;
    case DType::kInt64:
      return ncclInt64;
    case DType::kUint64:
      return ncclUint64;
    default:
      MX_THROW(absl::StatusCode::kInvalidArgument, "NCCL: unsupported dtype ", DTypeName(t));
  }
}

class NcclCommunicator final : public DeviceCommunicator {
 public:
  explicit NcclCommunicator(std::vector<Device> devices) : devices_(std::move(devices)) {
    std::vector<int> ids;
    for (const Device& d : devices_) {
      backends::cuda::CheckGpu(d);
      ids.push_back(d.id);
    }
    comms_.resize(ids.size());
    Check(ncclCommInitAll(comms_.data(), static_cast<int>(ids.size()), ids.data()),
          "ncclCommInitAll");
  }
  ~NcclCommunicator() override {
    for (ncclComm_t c : comms_) ncclCommDestroy(c);
  }
  const std::vector<Device>& devices() const override { return devices_; }
  std::string name() const override { return "nccl"; }

  void AllReduce(const std::vector<NDArray>& buffers) override {
    CheckBuffers(buffers, devices_, "allreduce");
    Run(
        buffers,
        [&](size_t i, void* p, size_t n, ncclDataType_t t, cudaStream_t s) {
          return ncclAllReduce(p, p, n, t, ncclSum, comms_[i], s);
        },
        "ncclAllReduce");
  }
  void Broadcast(const std::vector<NDArray>& buffers, int root) override {
    CheckBuffers(buffers, devices_, "broadcast");
    if (root < 0 || root >= static_cast<int>(devices_.size()))
      MX_THROW(absl::StatusCode::kInvalidArgument, "NCCL broadcast: root ", root,
               " out of range for ", devices_.size(), " ranks");
    Run(
        buffers,
        [&](size_t i, void* p, size_t n, ncclDataType_t t, cudaStream_t s) {
          return ncclBroadcast(p, p, n, t, root, comms_[i], s);
        },
        "ncclBroadcast");
  }

 private:
  template <typename F>
  void Run(const std::vector<NDArray>& buffers, F call, const char* what) {
    const size_t n = static_cast<size_t>(buffers[0].size());
    if (n == 0) return;
    const ncclDataType_t t = NcclType(buffers[0].dtype());
    Check(ncclGroupStart(), "ncclGroupStart");
    ncclResult_t first = ncclSuccess;
    for (size_t i = 0; i < buffers.size(); ++i) {
      const int id = devices_[i].id;
      cudaSetDevice(id);
      auto s = static_cast<cudaStream_t>(backends::cuda::Stream(id));
      ncclResult_t r = call(i, buffers[i].data_ptr(), n, t, s);
      if (r != ncclSuccess && first == ncclSuccess) first = r;
    }
    ncclResult_t end = ncclGroupEnd();
    Check(first, what);
    Check(end, "ncclGroupEnd");
  }

  std::vector<Device> devices_;
  std::vector<ncclComm_t> comms_;
};
#endif

}  // namespace

bool BuiltWithNccl() {
#ifdef MXNET_CUDA
  return true;
#else
  return false;
#endif
}

CommunicatorPtr MakeNcclCommunicator(const std::vector<Device>& devices) {
  CheckDevices(devices);
#ifdef MXNET_CUDA
  return std::make_shared<NcclCommunicator>(devices);
#else
  MX_THROW(absl::StatusCode::kUnimplemented,
           "NCCL communicator: this build has no CUDA/NCCL (build with --config=cuda)");
#endif
}

}  // namespace mxnet::gluon::kvstore
