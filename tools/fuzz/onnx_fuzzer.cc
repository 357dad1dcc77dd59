// Fuzz target: the ONNX reader (gluon::imports_onnx_from_string: ModelProto parsing, tensor and
// attribute checks, graph validation, the operator mapping onto a SymbolBlock). External data is
// refused (no base directory), so an input can only name files it may not open.
//
// Invariants checked on every input:
//  - no crash, hang, escaping exception or unjustified allocation;
//  - an error is never kInternal (that is an MX_CHECK or a stray std::exception: a bug) and
//    always has a message;
//  - an imported model has a graph whose JSON parses again.
#include <cstdint>
#include <string_view>

#include "base/error.h"
#include "gluon/onnx/onnx.h"
#include "symbol/symbol.h"
#include "tools/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto b = mxnet::gluon::imports_onnx_from_string(bytes, "", {mxnet::cpu()});
  if (!b.ok()) {
    FUZZ_CHECK(b.status().code() != absl::StatusCode::kInternal, "internal error: %s",
               b.status().ToString().c_str());
    FUZZ_CHECK(!b.status().message().empty(), "error without a message");
    return 0;
  }
  std::string json;
  absl::Status st = mxnet::StatusFromCall([&] { json = (*b)->graph().tojson(); });
  FUZZ_CHECK(st.ok(), "tojson of an imported model failed: %s", st.ToString().c_str());
  FUZZ_CHECK(mxnet::sym::Symbol::fromjson(json).ok(), "the imported graph's JSON does not parse");
  return 0;
}
