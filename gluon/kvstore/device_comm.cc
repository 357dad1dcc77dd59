#include "gluon/kvstore/device_comm.h"

#include "base/error.h"

namespace mxnet::gluon::kvstore {

bool NcclSupports(DType t) {
  return t != DType::kBool && t != DType::kInt16 && t != DType::kUint16;
}

void CheckBuffers(const std::vector<NDArray>& buffers, const std::vector<Device>& devices,
                  const char* op) {
  if (buffers.size() != devices.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, "device communicator ", op, ": ", buffers.size(),
             " buffers for ", devices.size(), " devices");
  for (size_t i = 0; i < buffers.size(); ++i) {
    const NDArray& b = buffers[i];
    if (b.is_none() || b.is_sparse())
      MX_THROW(absl::StatusCode::kInvalidArgument, "device communicator ", op, ": buffer ", i,
               " is ", b.is_none() ? "none" : "sparse");
    if (b.device() != devices[i])
      MX_THROW(absl::StatusCode::kInvalidArgument, "device communicator ", op, ": buffer ", i,
               " is on ", b.device().ToString(), ", rank ", i, " is ", devices[i].ToString());
    if (b.shape() != buffers[0].shape() || b.dtype() != buffers[0].dtype())
      MX_THROW(absl::StatusCode::kInvalidArgument, "device communicator ", op, ": buffer ", i,
               " is ", DTypeName(b.dtype()), " ", b.shape().ToString(), ", buffer 0 is ",
               DTypeName(buffers[0].dtype()), " ", buffers[0].shape().ToString());
    if (!NcclSupports(b.dtype()))
      MX_THROW(absl::StatusCode::kInvalidArgument, "device communicator ", op, ": dtype ",
               DTypeName(b.dtype()), " is not supported by NCCL");
  }
}

}  // namespace mxnet::gluon::kvstore
