// A host stand-in for the NCCL communicator (device_comm.h), for tests of kvstore "nccl" on the
// fake GPUs of ndarray/backends/cuda/testing/fake_gpu_backend.h: it checks the buffers as NCCL's
// does, then copies them to the host, sums there (in the buffers' dtype, rank order) and copies
// the result back to every device. It counts its calls.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "gluon/kvstore/device_comm.h"
#include "ndarray/op.h"

namespace mxnet::gluon::kvstore::testing {

struct HostCommCalls {
  int created = 0, allreduce = 0, broadcast = 0;
  std::vector<std::vector<Device>> device_lists;  // one per communicator made
};

class HostCommunicator final : public DeviceCommunicator {
 public:
  HostCommunicator(std::vector<Device> devices, HostCommCalls* calls)
      : devices_(std::move(devices)), calls_(calls) {
    ++calls_->created;
    calls_->device_lists.push_back(devices_);
  }
  const std::vector<Device>& devices() const override { return devices_; }
  std::string name() const override { return "host-fake"; }
  void AllReduce(const std::vector<NDArray>& buffers) override {
    CheckBuffers(buffers, devices_, "allreduce");
    ++calls_->allreduce;
    NDArray sum = buffers[0].copyto(cpu());
    for (size_t i = 1; i < buffers.size(); ++i)
      sum = Invoke("elemwise_add", std::vector<NDArray>{sum, buffers[i].copyto(cpu())})[0];
    for (const NDArray& b : buffers) sum.copyto(b);
  }
  void Broadcast(const std::vector<NDArray>& buffers, int root) override {
    CheckBuffers(buffers, devices_, "broadcast");
    if (root < 0 || root >= static_cast<int>(buffers.size()))
      MX_THROW(absl::StatusCode::kInvalidArgument, "broadcast: root ", root, " out of range");
    ++calls_->broadcast;
    NDArray v = buffers[static_cast<size_t>(root)].copyto(cpu());
    for (const NDArray& b : buffers) v.copyto(b);
  }
  // A CommunicatorFactory making HostCommunicators that count into `calls`.
  static CommunicatorFactory Factory(HostCommCalls* calls) {
    return [calls](const std::vector<Device>& devices) -> CommunicatorPtr {
      return std::make_shared<HostCommunicator>(devices, calls);
    };
  }

 private:
  std::vector<Device> devices_;
  HostCommCalls* calls_;
};

}  // namespace mxnet::gluon::kvstore::testing
