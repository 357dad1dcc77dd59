// MXNET_CHECK_NAN=1 (set by the BUILD target's env): the first op whose output holds NaN or Inf
// throws kOutOfRange naming the op, the output and whether its inputs were already non-finite;
// finite computations are untouched. (Backward ops under autograd: autograd/check_nan_test.cc.)
#include <cmath>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "ndarray/nd.h"

namespace mxnet {
namespace {

std::string ErrorOf(const std::function<void()>& fn, absl::StatusCode* code = nullptr) {
  try {
    fn();
  } catch (const Error& e) {
    if (code) *code = e.code();
    return e.what();
  }
  return "";
}

TEST(CheckNan, TheOpThatProducesNaNOrInfIsNamed) {
  NDArray x = NDArray::FromVector(std::vector<float>{1, 0, -1}, Shape{3});
  absl::StatusCode code = absl::StatusCode::kOk;
  EXPECT_EQ(ErrorOf([&] { nd::log(x); }, &code),
            "MXNET_CHECK_NAN: log output 0 (3,) has 1 NaN and 1 Inf values (first at flat index "
            "1); its inputs are finite: this op produced them");
  EXPECT_EQ(code, absl::StatusCode::kOutOfRange);
  // Finite results pass.
  NDArray y = NDArray::FromVector(std::vector<float>{1, 4, 9}, Shape{3});
  EXPECT_EQ(nd::sqrt(y).ToVector<float>(), (std::vector<float>{1, 2, 3}));
}

TEST(CheckNan, NonFiniteInputsAreReported) {
  NDArray a = NDArray::FromVector(std::vector<float>{1, INFINITY}, Shape{2});  // not an op
  NDArray b = NDArray::FromVector(std::vector<float>{std::nanf(""), 1}, Shape{2});
  EXPECT_EQ(ErrorOf([&] { nd::elemwise_add(a, b); }),
            "MXNET_CHECK_NAN: elemwise_add output 0 (2,) has 1 NaN and 1 Inf values (first at "
            "flat index 0); non-finite inputs: lhs (0 NaN, 1 Inf), rhs (1 NaN, 0 Inf)");
}

}  // namespace
}  // namespace mxnet
