// The project's error model (docs/design.md §9, "Errors").
//  - I/O and parsing boundaries return absl::Status / absl::StatusOr<T>.
//  - The compute and model-building API throws mxnet::Error, which carries an absl::StatusCode and
//    a message naming the op, the argument and the expected vs actual value.
//  - Internal invariants use MX_CHECK*, which report file:line and throw kInternal (a bug, not a
//    user error). Nothing aborts the host process: the C ABI catches everything.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/strings.h"

namespace mxnet {

// An error of the compute/model-building API. what() is the message; code() its status code.
class Error : public std::runtime_error {
 public:
  Error(absl::StatusCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  absl::StatusCode code() const noexcept { return code_; }
  // The same error as an absl::Status (code and message).
  absl::Status status() const { return absl::Status(code_, what()); }

 private:
  absl::StatusCode code_;
};

// Throws `status` as mxnet::Error. Precondition: !status.ok() (an OK status throws kInternal).
[[noreturn]] void ThrowStatus(const absl::Status& status);

// Throws if `status` is not OK; otherwise does nothing.
inline void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) ThrowStatus(status);
}

// The value of `v`, or throws its error as mxnet::Error.
template <typename T>
T ValueOrThrow(absl::StatusOr<T> v) {
  if (!v.ok()) ThrowStatus(v.status());
  return *std::move(v);
}

// The current exception (call only inside a catch block) as an absl::Status: mxnet::Error keeps its
// code; std::bad_alloc is kResourceExhausted; other std::exceptions and unknown ones are kInternal.
absl::Status StatusFromCurrentException();

// Runs fn() and converts anything it throws into a Status (for Status-returning boundaries).
template <typename Fn>
absl::Status StatusFromCall(Fn&& fn) {
  try {
    std::forward<Fn>(fn)();
    return absl::OkStatus();
  } catch (...) {
    return StatusFromCurrentException();
  }
}

namespace internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* expr, const std::string& msg);
}  // namespace internal

}  // namespace mxnet

// Throws mxnet::Error(code, StrCat(args...)).
#define MX_THROW(code, ...) throw ::mxnet::Error((code), ::mxnet::StrCat(__VA_ARGS__))

// User-input check: if !cond, throws mxnet::Error(code, StrCat(args...)).
#define MX_REQUIRE(cond, code, ...)                                          \
  do {                                                                       \
    if (!(cond)) throw ::mxnet::Error((code), ::mxnet::StrCat(__VA_ARGS__)); \
  } while (0)

// Internal invariant: if !cond, throws kInternal "file:line: check failed: cond: <message>".
#define MX_CHECK(cond, ...)                                                           \
  do {                                                                                \
    if (!(cond))                                                                      \
      ::mxnet::internal::CheckFailed(__FILE__, __LINE__, #cond,                       \
                                     ::mxnet::StrCat("" __VA_OPT__(, ) __VA_ARGS__)); \
  } while (0)

#define MX_CHECK_OP_(a, op, b, ...)                                                         \
  do {                                                                                      \
    const auto& mx_check_a_ = (a);                                                          \
    const auto& mx_check_b_ = (b);                                                          \
    if (!(mx_check_a_ op mx_check_b_))                                                      \
      ::mxnet::internal::CheckFailed(__FILE__, __LINE__, #a " " #op " " #b,                 \
                                     ::mxnet::StrCat("(", mx_check_a_, " vs ", mx_check_b_, \
                                                     ") " __VA_OPT__(, ) __VA_ARGS__));     \
  } while (0)
#define MX_CHECK_EQ(a, b, ...) MX_CHECK_OP_(a, ==, b __VA_OPT__(, ) __VA_ARGS__)
#define MX_CHECK_NE(a, b, ...) MX_CHECK_OP_(a, !=, b __VA_OPT__(, ) __VA_ARGS__)
#define MX_CHECK_LT(a, b, ...) MX_CHECK_OP_(a, <, b __VA_OPT__(, ) __VA_ARGS__)
#define MX_CHECK_LE(a, b, ...) MX_CHECK_OP_(a, <=, b __VA_OPT__(, ) __VA_ARGS__)
#define MX_CHECK_GT(a, b, ...) MX_CHECK_OP_(a, >, b __VA_OPT__(, ) __VA_ARGS__)
#define MX_CHECK_GE(a, b, ...) MX_CHECK_OP_(a, >=, b __VA_OPT__(, ) __VA_ARGS__)

// Status plumbing for I/O code.
#define MX_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::absl::Status mx_status_ = (expr);      \
    if (!mx_status_.ok()) return mx_status_; \
  } while (0)

#define MX_CONCAT_INNER_(a, b) a##b
#define MX_CONCAT_(a, b) MX_CONCAT_INNER_(a, b)
#define MX_ASSIGN_OR_RETURN(lhs, expr) \
  MX_ASSIGN_OR_RETURN_IMPL_(MX_CONCAT_(mx_statusor_, __LINE__), lhs, expr)
#define MX_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = *std::move(tmp)
