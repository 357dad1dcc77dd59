#include "base/threading.h"

#include <omp.h>

#include <cstdlib>
#include <thread>

#include "base/error.h"
#include "base/strings.h"

namespace mxnet {
namespace {
int EnvThreads() {
  for (const char* var : {"MXNET_OMP_MAX_THREADS", "OMP_NUM_THREADS"}) {
    int64_t n;
    if (const char* v = std::getenv(var); v && ParseInt64(v, &n) && n > 0)
      return static_cast<int>(n);
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? static_cast<int>(hw) : 1;
}

int& Threads() {
  static int n = [] {
    int t = EnvThreads();
    omp_set_num_threads(t);
    return t;
  }();
  return n;
}
}  // namespace

int GetNumThreads() { return Threads(); }

void SetNumThreads(int n) {
  MX_REQUIRE(n >= 1, absl::StatusCode::kInvalidArgument, "SetNumThreads: n must be >= 1, got ", n);
  Threads() = n;
  omp_set_num_threads(n);
}

}  // namespace mxnet
