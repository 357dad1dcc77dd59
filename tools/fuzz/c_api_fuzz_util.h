// Helpers for the C ABI fuzz targets: a status must be OK (NULL) or a documented, non-internal
// error with a message; every status is freed.
#pragma once

#include <cstring>

#include "mxc/mxc.h"
#include "tools/fuzz/fuzz_check.h"

// Returns true for OK; checks and frees an error status.
inline bool MxcOk(mxc_status* st, const char* call) {
  if (st == nullptr) return true;
  const mxc_code code = mxc_status_code(st);
  const char* msg = mxc_status_message(st);
  FUZZ_CHECK(code != MXC_OK && code != MXC_INTERNAL && code != MXC_UNKNOWN,
             "%s: status code %d: %s", call, static_cast<int>(code), msg);
  FUZZ_CHECK(msg != nullptr && std::strlen(msg) > 0, "%s: error without a message", call);
  mxc_status_free(st);
  return false;
}
