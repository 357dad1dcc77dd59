// Fuzz target: the C ABI's symbol JSON entry point (mxc_symbol_from_json, a NUL-terminated
// string: the input up to its first NUL), then mxc_symbol_to_json and mxc_symbol_from_json again
// on the written JSON. Every handle and string is freed (LeakSanitizer checks it in the clang
// build). Errors must be documented codes with a message, never MXC_INTERNAL/MXC_UNKNOWN.
#include <cstdint>
#include <string>

#include "tools/fuzz/c_api_fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string json(reinterpret_cast<const char*>(data), size);  // stops at the first NUL for C
  mxc_symbol* s = nullptr;
  if (!MxcOk(mxc_symbol_from_json(json.c_str(), &s), "mxc_symbol_from_json")) {
    FUZZ_CHECK(s == nullptr, "out-parameter written on error");
    return 0;
  }
  char* out = nullptr;
  FUZZ_CHECK(MxcOk(mxc_symbol_to_json(s, &out), "mxc_symbol_to_json") && out != nullptr,
             "to_json failed on a parsed symbol");
  mxc_symbol* back = nullptr;
  FUZZ_CHECK(MxcOk(mxc_symbol_from_json(out, &back), "mxc_symbol_from_json (round trip)"),
             "the written JSON does not parse:\n%s", out);
  mxc_string_free(out);
  mxc_symbol_free(back);
  mxc_symbol_free(s);
  return 0;
}
