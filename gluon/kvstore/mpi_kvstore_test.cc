// The multi-process kvstore under a real `mpirun -np 2` (Open MPI, loopback TCP).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gluon/kvstore/mpi_testing.h"

namespace mxnet::gluon::kvstore {
namespace {

using ::testing::HasSubstr;
using testing::RunMpi;

const char kWorker[] = "gluon/kvstore/mpi_kvstore_worker";

TEST(MpiKVStore, SemanticsOnTwoProcesses) {
  auto r = RunMpi(2, kWorker, "-x MXNET_KVSTORE_BUCKET_BYTES=16 -x MXNET_KVSTORE_TIMEOUT=60");
  EXPECT_EQ(r.code, 0) << r.output;
  // Both ranks ran and passed every case.
  size_t first = r.output.find("[  PASSED  ] 5 tests");
  ASSERT_NE(first, std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[  PASSED  ] 5 tests", first + 1), std::string::npos) << r.output;
}

TEST(MpiKVStore, HungRankEndsTheJobAfterTheTimeout) {
  auto r = RunMpi(2, std::string(kWorker) + " hang", "-x MXNET_KVSTORE_TIMEOUT=3");
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("mxnet kvstore mpi: rank 0 of 2: allreduce of key 0 did not "
                                  "complete within 3 s"));
  EXPECT_LT(r.seconds, 45) << r.output;  // rank 1 would sleep 60 s
  EXPECT_EQ(r.output.find("pushpull returned"), std::string::npos) << r.output;
}

TEST(MpiKVStore, CrashedRankEndsTheJob) {
  auto r = RunMpi(2, std::string(kWorker) + " crash", "-x MXNET_KVSTORE_TIMEOUT=120");
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_LT(r.seconds, 60) << r.output;  // not the 120 s timeout: mpirun ends the job
  EXPECT_THAT(r.output, HasSubstr("rank 0 of 2: terminated by signal")) << r.output;
  EXPECT_EQ(r.output.find("pushpull returned"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mxnet::gluon::kvstore
