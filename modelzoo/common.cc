#include "modelzoo/common.h"

#include "base/error.h"
#include "modelzoo/model_store.h"

namespace mxnet::gluon::model_zoo::vision::internal {

void LoadPretrained(Block& net, std::string_view model_name, const ModelOptions& options) {
  std::string path = ValueOrThrow(get_model_file(model_name, options.root));
  absl::Status st = net.load_parameters(path, LoadParametersOptions{.devices = {options.device}});
  if (!st.ok()) MX_THROW(st.code(), "pretrained ", model_name, ": ", st.message());
}

}  // namespace mxnet::gluon::model_zoo::vision::internal
