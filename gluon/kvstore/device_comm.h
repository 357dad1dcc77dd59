// Collectives over the GPUs of one process, one rank per device (the transport of kvstore
// "nccl", nccl_kvstore.h). The real implementation runs NCCL (ncclCommInitAll, then one
// ncclGroupStart/End around a call per device, each on that device's stream,
// backends::cuda::Stream); testing/host_communicator.h is a host fake for tests without GPUs.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/device.h"
#include "ndarray/ndarray.h"

namespace mxnet::gluon::kvstore {

class DeviceCommunicator {
 public:
  virtual ~DeviceCommunicator() = default;
  // The devices, in rank order (rank i = devices()[i]); distinct GPUs.
  virtual const std::vector<Device>& devices() const = 0;
  // In place: every buffers[i] := the elementwise sum of all buffers. buffers[i] lives on
  // devices()[i]; all dense, compact, of one shape and dtype (float32/64, float16, bfloat16,
  // int8/32/64, uint8/32/64). Asynchronous on the devices' streams (work queued there later
  // sees the result). Errors: kInvalidArgument naming the mismatch (CheckBuffers), kInternal
  // with NCCL's message.
  virtual void AllReduce(const std::vector<NDArray>& buffers) = 0;
  // In place: every buffers[i] := buffers[root]. Same rules.
  virtual void Broadcast(const std::vector<NDArray>& buffers, int root) = 0;
  // "nccl" or the fake's name (error messages, tests).
  virtual std::string name() const = 0;
};
using CommunicatorPtr = std::shared_ptr<DeviceCommunicator>;
// Makes a communicator over `devices` (distinct GPUs, rank order).
using CommunicatorFactory = std::function<CommunicatorPtr(const std::vector<Device>& devices)>;

// The checks every communicator makes: one buffer per device, on that device, none of them
// none or sparse, equal shapes and dtypes, a supported dtype; `op` names the call.
void CheckBuffers(const std::vector<NDArray>& buffers, const std::vector<Device>& devices,
                  const char* op);
// Whether NCCL supports arrays of this dtype (all but bool, int16, uint16).
bool NcclSupports(DType dtype);

// Whether this build has NCCL (a --config=cuda build).
bool BuiltWithNccl();
// An NCCL communicator over `devices` (ncclCommInitAll). Errors: kUnimplemented without NCCL
// in the build, kUnavailable for a missing GPU (as backends::cuda::CheckGpu), kInvalidArgument
// for an empty list, non-GPU or repeated devices, kInternal with NCCL's message.
CommunicatorPtr MakeNcclCommunicator(const std::vector<Device>& devices);

}  // namespace mxnet::gluon::kvstore
