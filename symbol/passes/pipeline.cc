// The pass pipelines CachedOp runs ("none", "default", "onednn").
#include "base/strings.h"
#include "symbol/passes/passes.h"

namespace mxnet::sym::passes {

void CheckBackendName(const std::string& backend) {
  if (backend.empty() || backend == "none" || backend == "default" || backend == "onednn" ||
      backend == "ONEDNN" || backend == "MKLDNN")
    return;
  MX_THROW(absl::StatusCode::kInvalidArgument, "unknown optimization backend '", backend,
           "' (expected \"none\", \"default\" or \"onednn\")");
}

std::vector<PassResult> RunPipeline(Graph& g, const PipelineOptions& o) {
  CheckBackendName(o.backend);
  std::vector<PassResult> out;
  if (o.backend.empty() || o.backend == "none") return out;
  const bool fuse = o.backend != "default";
  out.push_back(InferShapeTypePass(g));
  out.push_back(DeadCodePass(g));
  out.push_back(CommonSubexprPass(g));
  out.push_back(ConstantFoldingPass(g));
  if (g.inference) {
    if (o.fold_input_values) {
      out.push_back(BatchNormFoldingPass(g));
    } else {
      // Nothing may depend on input values: fold with only the constants known.
      std::map<std::string, NDArray> saved;
      std::swap(saved, g.input_values);
      out.push_back(BatchNormFoldingPass(g));
      std::swap(saved, g.input_values);
    }
    if (fuse) {
      out.push_back(OneDnnFusionPass(g));
      out.push_back(OneDnnLayoutPass(g));
    }
  }
  out.push_back(DeadCodePass(g));
  return out;
}

std::string FormatReport(const std::vector<PassResult>& results) {
  std::string s;
  for (const auto& r : results) StrAppend(&s, r.ToString(), "\n");
  return s;
}

}  // namespace mxnet::sym::passes
