// The multi-process kvstore over MPI (Open MPI from Debian): kvstore::create("mpi") in a program
// that links //gluon/kvstore:mpi and is launched with `mpirun -np N prog ...` (or run alone: one
// process, MPI singleton). Types:
//   "mpi", "dist_sync", "dist_sync_device": MXNet's dist_sync semantics with the parameter
//       server replaced by an allreduce: every process keeps a replica of the stored values and
//       applies the same updates, so replicas stay identical. is_capable(kOptimizer): true.
//   "horovod": the same store, is_capable(kOptimizer) false (as Horovod's kvstore), so the
//       Trainer updates locally after the allreduce.
// push: this process's device copies are summed, then summed over processes with
// MPI_Iallreduce (float32/float64; other dtypes: kInvalidArgument). pushpull of several keys
// packs them into buckets of up to MXNET_KVSTORE_BUCKET_BYTES (default 4 MiB) per allreduce.
// With 2bit/1bit compression each process quantizes its sum with a residual per key, the codes
// are allgathered (16x / 32x fewer bytes) and every process decodes and sums them in rank order
// (MXNet's dist_sync: the worker compresses, the server decodes and sums).
// init/broadcast: rank 0's value wins (MPI_Ibcast).
//
// Failures: every collective waits at most MXNET_KVSTORE_TIMEOUT seconds (default 300; also
// set_timeout). On timeout the process prints
//   "mxnet kvstore mpi: rank R of N: <op> did not complete within T s (...)"
// and calls MPI_Abort, which ends every rank. A rank that exits or crashes is reported by
// mpirun, which terminates the others; each terminated rank prints
//   "mxnet kvstore mpi: rank R of N: terminated by signal S (another rank failed ...)".
// MPI is finalized at normal exit; call Abort() instead when a rank gives up with an error, so
// the others do not wait for it.
#pragma once

#include <string>

#include "gluon/kvstore/kvstore.h"

namespace mxnet::gluon::kvstore::mpi {

// Initializes MPI once (MPI_Init_thread, MPI_THREAD_FUNNELED); registered with atexit to
// finalize. Safe to call repeatedly.
void EnsureInitialized();
// MPI_COMM_WORLD's rank and size (initializes MPI).
int WorldRank();
int WorldSize();
// Prints "mxnet kvstore mpi: rank R of N: <why>" to stderr and ends the whole job
// (MPI_Abort(MPI_COMM_WORLD, code)). Does not return.
[[noreturn]] void Abort(const std::string& why, int code = 1);
// The collective timeout of stores created from now on, in seconds (> 0).
void set_timeout(double seconds);
double timeout();

}  // namespace mxnet::gluon::kvstore::mpi
