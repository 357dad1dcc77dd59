// Direct copies between two devices of one type (issue 24 item 1: gpu(0) -> gpu(1) without host
// staging), registered by the device library that has them (ndarray/backends/cuda/gpu_storage.cc:
// cudaMemcpyPeerAsync). CopyBytes (ndarray/storage.h), and so NDArray::copyto / as_in_context,
// uses the registered copy for device-to-device copies between two devices of that type; without
// one it stages through the host (CopyToHost, then CopyFromHost).
//
// Defined in ndarray/storage.cc (//ndarray:core); this header is its own target (//ndarray:
// device_copy) so that adding it did not change the header set every compile action of the tree
// sees. Keep the declaration in step with storage.cc's definition.
#pragma once

#include <cstddef>
#include <functional>

#include "base/device.h"

namespace mxnet {

// Copies `bytes` from `src` on device (type, src_id) to `dst` on (type, dst_id), src_id != dst_id.
// May be asynchronous if it is ordered after the work that produced `src` and before any later
// work on the destination device (host reads synchronize as for any device memory).
using PeerCopyFn =
    std::function<void(void* dst, int dst_id, const void* src, int src_id, size_t bytes)>;
// Installs (or, with an empty fn, removes) the peer copy for `type`. Thread-safe.
void RegisterPeerCopy(DeviceType type, PeerCopyFn fn);

}  // namespace mxnet
