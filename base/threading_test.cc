#include "base/threading.h"

#include <omp.h>

#include <gtest/gtest.h>

#include "base/error.h"

namespace mxnet {
namespace {

TEST(Threading, SetAndGet) {
  EXPECT_GE(GetNumThreads(), 1);
  SetNumThreads(2);
  EXPECT_EQ(GetNumThreads(), 2);
  EXPECT_EQ(omp_get_max_threads(), 2);
  SetNumThreads(1);
  EXPECT_EQ(omp_get_max_threads(), 1);
  EXPECT_THROW(SetNumThreads(0), Error);
}

}  // namespace
}  // namespace mxnet
