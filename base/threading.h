// Threading policy (docs/design.md §10, "Threading").
//
// CPU ops run synchronously on the calling thread. Intra-op parallelism uses one runtime:
// GCC's OpenMP (libgomp), the runtime Debian's oneDNN is built with, so oneDNN primitives and our
// own `#pragma omp parallel for` loops share one thread pool and never oversubscribe.
// The thread count is, in order of precedence: SetNumThreads(n); the environment variables
// MXNET_OMP_MAX_THREADS or OMP_NUM_THREADS; otherwise the number of cores. There is no
// dependency engine: GPU work is ordered by CUDA streams and wait_to_read()/waitall().
#pragma once

namespace mxnet {

// Threads used by one CPU op (>= 1).
int GetNumThreads();
// Sets the intra-op thread count for all CPU ops (n >= 1; throws kInvalidArgument otherwise).
void SetNumThreads(int n);

}  // namespace mxnet
