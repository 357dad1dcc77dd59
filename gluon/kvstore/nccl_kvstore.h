// kvstore "nccl" (MXNet 1.9.1's KVStoreNCCL semantics): one process, several GPUs. A push of one
// key's GPU copies sums them with an allreduce over the GPUs holding them (one rank per device,
// device_comm.h: NCCL in CUDA builds) and stores the sum (on the CPU, as every store here; the
// updater or optimizer then runs on it); a pull writes the stored value to the first output's
// GPU and broadcasts it from there to the other outputs' GPUs. push/pull/pushpull/broadcast and
// their errors are KVStore's (kvstore.h); values or outputs that are not on distinct GPUs, or of
// a dtype NCCL lacks (bool, int16, uint16), take the "device" store's path (summed on the CPU).
// No gradient compression (set_gradient_compression throws kUnimplemented, as MXNet).
// One communicator per list of GPUs, made at first use and kept; per key and device one reduce
// and one broadcast buffer (a compact copy: inputs are never changed by push).
// Deviation: MXNet keeps the stored value on a GPU; here it is a CPU copy, so every push and
// pull moves one copy of the key between the host and the first GPU.
#pragma once

#include "gluon/kvstore/device_comm.h"
#include "gluon/kvstore/kvstore.h"

namespace mxnet::gluon::kvstore {

// create("nccl"): a store over NCCL. Errors: kUnimplemented in a build without CUDA/NCCL,
// kUnavailable when no GPU is found (naming the driver status).
KVStorePtr CreateNcclStore();
// A "nccl" store whose collectives go through `factory`'s communicators (tests: the host fake,
// testing/host_communicator.h). kInvalidArgument for an empty factory.
KVStorePtr CreateNcclStore(CommunicatorFactory factory);

}  // namespace mxnet::gluon::kvstore
