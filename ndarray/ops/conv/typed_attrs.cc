#include "ndarray/ops/conv/typed_attrs.h"

#include "base/error.h"
#include "base/strings.h"

namespace mxnet {

void CheckChoices(std::string_view op, const ParamSchema& schema, const void* obj) {
  for (const FieldInfo& f : schema.fields) {
    if (f.choices.empty()) continue;
    std::string v = f.print(obj);
    bool ok = false;
    for (const auto& c : f.choices) ok |= c == v;
    if (!ok)
      MX_THROW(absl::StatusCode::kInvalidArgument, op, ": attribute ", f.name, "='", v,
               "' is not one of {", StrJoin(f.choices, ", "), "}");
  }
}

}  // namespace mxnet
