// mxc/base.h: versioning, statuses, dtypes, memory handed out, handle accounting.
#include <cstdlib>

#include "c_api/src/api.h"
#include "c_api/src/handle.h"
#include "mxc/base.h"

namespace mxc {
bool IsStaticStatus(const mxc_status* s);
}  // namespace mxc

extern "C" {

MXC_API uint32_t mxc_abi_version(void) noexcept { return MXC_ABI_VERSION; }

MXC_API mxc_code mxc_status_code(const mxc_status* status) noexcept {
  return status ? mxc::FromC(status)->code : MXC_OK;
}

MXC_API const char* mxc_status_message(const mxc_status* status) noexcept {
  return status ? mxc::FromC(status)->message.c_str() : "";
}

MXC_API void mxc_status_free(mxc_status* status) noexcept {
  if (status && !mxc::IsStaticStatus(status)) delete mxc::FromC(status);
}

MXC_API mxc_status* mxc_status_create(int32_t code, const char* message) noexcept {
  std::string_view m = message ? message : "";
  try {
    mxc::CheckUtf8(m, "message");
  } catch (...) {
    m = "(a message with invalid UTF-8)";
  }
  bool known = code > 0 && code <= static_cast<int32_t>(absl::StatusCode::kUnauthenticated);
  return mxc::MakeStatus(known ? static_cast<absl::StatusCode>(code) : absl::StatusCode::kUnknown,
                         "callback", m);
}

MXC_API const char* mxc_code_name(int32_t code) noexcept {
  static constexpr const char* kNames[] = {"OK",
                                           "CANCELLED",
                                           "UNKNOWN",
                                           "INVALID_ARGUMENT",
                                           "DEADLINE_EXCEEDED",
                                           "NOT_FOUND",
                                           "ALREADY_EXISTS",
                                           "PERMISSION_DENIED",
                                           "RESOURCE_EXHAUSTED",
                                           "FAILED_PRECONDITION",
                                           "ABORTED",
                                           "OUT_OF_RANGE",
                                           "UNIMPLEMENTED",
                                           "INTERNAL",
                                           "UNAVAILABLE",
                                           "DATA_LOSS",
                                           "UNAUTHENTICATED"};
  return code >= 0 && code <= 16 ? kNames[code] : "UNKNOWN";
}

MXC_STATUS mxc_abi_check(uint32_t major, uint32_t minor) noexcept {
  return mxc::Call(__func__, [&] {
    if (major != MXC_ABI_MAJOR || minor > MXC_ABI_MINOR)
      MX_THROW(absl::StatusCode::kFailedPrecondition, "the binding needs the mxc ABI ", major, ".",
               minor, " but libmxc provides ", MXC_ABI_MAJOR, ".", MXC_ABI_MINOR,
               major != MXC_ABI_MAJOR ? " (a different major version)" : " (an older minor)");
  });
}

MXC_API size_t mxc_dtype_size(int32_t dtype) noexcept {
  auto t = mxnet::DTypeFromFlag(dtype);
  return t.ok() ? mxnet::DTypeSize(*t) : 0;
}

MXC_API const char* mxc_dtype_name(int32_t dtype) noexcept {
  auto t = mxnet::DTypeFromFlag(dtype);
  return t.ok() ? mxnet::DTypeName(*t).data() : nullptr;  // static, NUL-terminated literals
}

MXC_API void mxc_string_free(char* str) noexcept { std::free(str); }

MXC_API void mxc_string_array_free(char** strs, size_t count) noexcept {
  mxc::FreeStringArray(strs, count);
}

MXC_API void mxc_bytes_free(void* bytes) noexcept { std::free(bytes); }

MXC_STATUS mxc_handle_stats_get(mxc_handle_stats* stats) noexcept {
  return mxc::Call(__func__, [&] {
    mxc_handle_stats s{};
    s.live = mxc::LiveHandles().load();
    s.bad_frees = mxc::BadFrees().load();
    mxc::WriteStruct(stats, s, "stats");
  });
}

}  // extern "C"
