// MXNET_CHECK_NAN=1 (set by the BUILD target's env) covers autograd's backward ops too: a
// non-finite gradient throws kOutOfRange from backward(). (Forward ops: ndarray/check_nan_test.cc.)
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "autograd/autograd.h"
#include "ndarray/nd.h"

namespace mxnet {
namespace {

std::string ErrorOf(const std::function<void()>& fn, absl::StatusCode* code) {
  try {
    fn();
  } catch (const Error& e) {
    *code = e.code();
    return e.what();
  }
  return "";
}

TEST(CheckNan, BackwardOpsAreChecked) {
  NDArray x = NDArray::FromVector(std::vector<float>{0, 4}, Shape{2});
  x.attach_grad();
  NDArray y;
  {
    auto rec = autograd::record();
    y = nd::sqrt(x);  // finite: 0, 2
  }
  absl::StatusCode code = absl::StatusCode::kOk;
  const std::string msg = ErrorOf([&] { y.backward(); }, &code);  // d sqrt(x) / dx at 0: Inf
  EXPECT_EQ(code, absl::StatusCode::kOutOfRange) << msg;
  EXPECT_NE(msg.find("MXNET_CHECK_NAN: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("1 Inf values (first at flat index 0)"), std::string::npos) << msg;
}

}  // namespace
}  // namespace mxnet
