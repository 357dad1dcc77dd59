// The Trainer across two processes (`mpirun -np 2`, loopback TCP): trainer_mpi_worker's cases
// (overlapped allreduce == pushpull bit for bit; the finite check with update_on_kvstore).
// Buckets of 10,000 bytes make one bucket per layer of the worker's net.
#include <gtest/gtest.h>

#include "gluon/kvstore/mpi_testing.h"

namespace mxnet::gluon {
namespace {

TEST(TrainerMpi, WorkerCasesPassOnBothRanks) {
  auto r = kvstore::testing::RunMpi(
      2, "gluon/training/trainer_mpi_worker",
      "-x MXNET_KVSTORE_BUCKET_BYTES=10000 -x MXNET_KVSTORE_TIMEOUT=60 -x MXNET_KVSTORE_OVERLAP=1");
  EXPECT_EQ(r.code, 0) << r.output;
  size_t first = r.output.find("[  PASSED  ] 6 tests");
  ASSERT_NE(first, std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[  PASSED  ] 6 tests", first + 1), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mxnet::gluon
