#include "base/error.h"

#include <gtest/gtest.h>

namespace mxnet {
namespace {

absl::StatusOr<int> Half(int x) {
  if (x % 2) return absl::InvalidArgumentError("odd");
  return x / 2;
}

absl::StatusOr<int> Quarter(int x) {
  MX_ASSIGN_OR_RETURN(int h, Half(x));
  MX_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(Error, CarriesCodeAndMessage) {
  try {
    MX_THROW(absl::StatusCode::kInvalidArgument, "Convolution: weight has shape ", 3, " not ", 4);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_STREQ(e.what(), "Convolution: weight has shape 3 not 4");
    EXPECT_EQ(e.status(), absl::InvalidArgumentError("Convolution: weight has shape 3 not 4"));
  }
}

TEST(Error, StatusRoundTrips) {
  absl::Status s = absl::NotFoundError("no file x.params");
  try {
    ThrowIfError(s);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), s);
  }
  EXPECT_NO_THROW(ThrowIfError(absl::OkStatus()));
  EXPECT_EQ(ValueOrThrow(absl::StatusOr<int>(3)), 3);
  EXPECT_THROW(ValueOrThrow(absl::StatusOr<int>(absl::DataLossError("x"))), Error);
  EXPECT_EQ(StatusFromCall([] { throw Error(absl::StatusCode::kOutOfRange, "r"); }),
            absl::OutOfRangeError("r"));
  EXPECT_EQ(StatusFromCall([] { throw std::bad_alloc(); }).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(StatusFromCall([] { throw 42; }).code(), absl::StatusCode::kUnknown);
  EXPECT_TRUE(StatusFromCall([] {}).ok());
}

TEST(Error, StatusMacros) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_EQ(Quarter(6).status(), absl::InvalidArgumentError("odd"));
  auto f = [](absl::Status s) -> absl::Status {
    MX_RETURN_IF_ERROR(s);
    return absl::CancelledError("reached");
  };
  EXPECT_EQ(f(absl::OkStatus()).code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(f(absl::AbortedError("a")).code(), absl::StatusCode::kAborted);
}

TEST(Error, ChecksReportFileAndLine) {
  try {
    int a = 2, b = 3;
    MX_CHECK_EQ(a, b, "while planning");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kInternal);
    std::string m = e.what();
    EXPECT_NE(m.find("base/error_test.cc:"), std::string::npos) << m;
    EXPECT_NE(m.find("a == b"), std::string::npos) << m;
    EXPECT_NE(m.find("(2 vs 3)"), std::string::npos) << m;
    EXPECT_NE(m.find("while planning"), std::string::npos) << m;
  }
  EXPECT_NO_THROW(MX_CHECK(true));
  EXPECT_THROW(MX_CHECK(1 > 2, "x"), Error);
  EXPECT_THROW(MX_REQUIRE(false, absl::StatusCode::kInvalidArgument, "bad"), Error);
}

}  // namespace
}  // namespace mxnet
