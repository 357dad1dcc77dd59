// Fuzz target: MXNet symbol JSON (sym::Symbol::fromjson): every MXNet version's layout (0.8
// "param", 0.9-1.0 "attr", "attrs"), two-element inputs, the legacy upgrades of docs/formats.md
// §3.3 (hidden keys, <arg>_lr_mult, implicit aux inputs, BatchNorm initializers, argmax axis),
// np-shape, control-flow subgraphs and the fused _sg_* nodes. All operators are registered.
//
// Invariants checked on every input:
//  - no crash, hang, escaping exception or unjustified allocation;
//  - an error is never kInternal (that is an MX_CHECK or a stray std::exception: a bug);
//  - a parsed symbol writes JSON (tojson) that parses again and writes the same JSON again;
//  - shape/type inference with nothing known either works or throws mxnet::Error (not kInternal).
#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.h"
#include "symbol/symbol.h"
#include "tools/fuzz/fuzz_check.h"

namespace sym = mxnet::sym;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view json(reinterpret_cast<const char*>(data), size);
  auto s = sym::Symbol::fromjson(json);
  if (!s.ok()) {
    FUZZ_CHECK(s.status().code() != absl::StatusCode::kInternal, "internal error: %s",
               s.status().ToString().c_str());
    return 0;
  }
  std::string out;
  absl::Status st = mxnet::StatusFromCall([&] { out = s->tojson(); });
  FUZZ_CHECK(st.ok(), "tojson failed: %s", st.ToString().c_str());
  auto back = sym::Symbol::fromjson(out);
  FUZZ_CHECK(back.ok(), "written JSON does not parse: %s\n%s", back.status().ToString().c_str(),
             out.c_str());
  std::string again;
  st = mxnet::StatusFromCall([&] { again = back->tojson(); });
  FUZZ_CHECK(st.ok() && again == out, "tojson is not stable across a round trip:\n%s\n---\n%s",
             out.c_str(), again.c_str());
  st = mxnet::StatusFromCall([&] {
    (void)s->infer_shape_partial({});
    (void)s->infer_type({});
  });
  FUZZ_CHECK(st.code() != absl::StatusCode::kInternal, "inference: internal error: %s",
             st.ToString().c_str());
  return 0;
}
