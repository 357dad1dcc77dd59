#include "modelzoo/common.h"

#include <algorithm>

#include "base/error.h"
#include "base/strings.h"
#include "modelzoo/model_store.h"

namespace mxnet::gluon::model_zoo::vision::internal {

void LoadPretrained(Block& net, std::string_view model_name, const ModelOptions& options) {
  std::string path = ValueOrThrow(get_model_file(model_name, options.root));
  absl::Status st = net.load_parameters(path, LoadParametersOptions{.devices = {options.device}});
  if (!st.ok()) MX_THROW(st.code(), "pretrained ", model_name, ": ", st.message());
}

void CheckArchOptions(const ModelOptions& options, std::string_view model,
                      std::initializer_list<std::string_view> takes) {
  const std::pair<std::string_view, bool> set[] = {{"thumbnail", options.thumbnail.has_value()},
                                                   {"batch_norm", options.batch_norm.has_value()},
                                                   {"bn_size", options.bn_size.has_value()},
                                                   {"dropout", options.dropout.has_value()}};
  for (const auto& [name, given] : set) {
    if (!given || std::find(takes.begin(), takes.end(), name) != takes.end()) continue;
    MX_THROW(absl::StatusCode::kInvalidArgument, model, ": unexpected option '", name,
             "' (MXNet: TypeError, unexpected keyword argument; this model takes ",
             takes.size() == 0 ? std::string("none of thumbnail, batch_norm, bn_size, dropout")
                               : StrJoin(std::vector<std::string_view>(takes), ", "),
             ")");
  }
}

}  // namespace mxnet::gluon::model_zoo::vision::internal
