#include "base/error.h"

#include <new>

namespace mxnet {

void ThrowStatus(const absl::Status& status) {
  if (status.ok()) throw Error(absl::StatusCode::kInternal, "ThrowStatus called with an OK status");
  throw Error(status.code(), std::string(status.message()));
}

absl::Status StatusFromCurrentException() {
  try {
    throw;
  } catch (const Error& e) {
    return e.status();
  } catch (const std::bad_alloc& e) {
    return absl::ResourceExhaustedError(StrCat("out of memory: ", e.what()));
  } catch (const std::exception& e) {
    return absl::InternalError(e.what());
  } catch (...) {
    return absl::UnknownError("unknown exception");
  }
}

namespace internal {
void CheckFailed(const char* file, int line, const char* expr, const std::string& msg) {
  throw Error(
      absl::StatusCode::kInternal,
      StrCat(file, ":", line, ": internal check failed: ", expr, msg.empty() ? "" : " ", msg));
}
}  // namespace internal

}  // namespace mxnet
