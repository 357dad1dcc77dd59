// ONNX export and import (MXNet 1.9's mx.onnx.export_model / import_model, for C++): hybridized
// graphs to ONNX models run by ONNX Runtime, and ONNX models (ours, PyTorch's torch.onnx,
// MXNet's exporter) back into SymbolBlocks. Built on Debian's ONNX 1.12 protobuf library
// (//third_party:onnx); the covered opsets and operators are listed in docs/onnx.md.
//
// These are free functions in their own package rather than HybridBlock/SymbolBlock methods so
// that gluon/block.h does not depend on protobuf (gluon::export_onnx is MXNet's
// HybridBlock.export + mx.onnx.export_model in one call; gluon::imports_onnx is
// SymbolBlock.imports for an .onnx file).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gluon/block.h"
#include "gluon/symbol_block.h"
#include "symbol/symbol.h"

namespace mxnet::gluon {

// The opsets export_onnx writes (ai.onnx domain). 17 is the newest Debian's ONNX 1.12 knows.
inline constexpr int kOnnxMinExportOpset = 13;
inline constexpr int kOnnxMaxExportOpset = 17;
// The opsets imports_onnx reads (older models: attribute forms of axes/pads/min/max/split; 18..21:
// Reduce* axes as inputs, Split's num_outputs; what MXNet 1.9.1's mx.onnx writes with a newer
// onnx package, e.g. opset 21 with onnx 1.16).
inline constexpr int kOnnxMinImportOpset = 7;
inline constexpr int kOnnxMaxImportOpset = 21;

struct OnnxExportOptions {
  int opset = 13;  // kOnnxMinExportOpset..kOnnxMaxExportOpset
  // Dim 0 of every graph input (and of outputs whose dim 0 is the batch) is the symbolic "N":
  // the model runs with any batch size. Otherwise every dim is the exported shape's.
  bool dynamic_batch = true;
  std::string graph_name = "mxnet_graph";
};

// Writes `graph` as an ONNX model to `path` (a temporary file renamed into place).
// `params`: the values of the graph's parameters and auxiliary states by variable name (plain
// names; "arg:"/"aux:" prefixes are stripped), written as initializers (float32 stays float32).
// `inputs`: the data inputs in order, (variable name, shape) with the shape of one call (NCHW
// for images; dim 0 is the batch). Every graph variable must be an input or a parameter.
// The graph is inference-only: Dropout becomes Identity, BatchNorm uses the running statistics.
// Errors: kInvalidArgument naming the node and operator that cannot be exported (an operator
// without an ONNX mapping, or attributes ONNX cannot express, e.g. a channels-last layout),
// an opset outside 13..17, a missing parameter or input; kInternal/kUnavailable on write errors.
absl::Status export_onnx(const sym::Symbol& graph, const std::map<std::string, NDArray>& params,
                         const std::vector<std::pair<std::string, Shape>>& inputs,
                         const std::string& path, const OnnxExportOptions& options = {});

// The serialized ModelProto instead of a file (same arguments and errors).
absl::StatusOr<std::string> export_onnx_to_string(
    const sym::Symbol& graph, const std::map<std::string, NDArray>& params,
    const std::vector<std::pair<std::string, Shape>>& inputs,
    const OnnxExportOptions& options = {});

// MXNet's HybridBlock.export to ONNX: exports `block`'s graph (a SymbolBlock's own graph, else
// the last traced one; a block that has not been traced is hybridized and run once on zeros of
// `input_shapes`, which leaves it hybridized) with its parameters (initialized first). Inputs
// are the traced data inputs "data" (one input) or "data0".."dataN-1" with `input_shapes` in
// that order. Errors as above; kFailedPrecondition for uninitialized parameters.
absl::Status export_onnx(HybridBlock& block, const std::vector<Shape>& input_shapes,
                         const std::string& path, int opset = 13, bool dynamic_batch = true);

// Reads an ONNX model into a SymbolBlock whose inputs are the model's graph inputs that are
// not initializers (in order) and whose parameters are the initializers used as operator
// inputs (names kept), loaded onto `devices`. Operators are mapped onto registry ops
// (docs/onnx.md lists them); constants that ONNX passes as tensors (shapes, axes, pads, clip
// bounds) must be initializers or Constant nodes. External data (data_location EXTERNAL) is read
// relative to the model's directory and may not leave it. The block runs, hybridizes and
// trains (autograd) like any SymbolBlock.
// Errors (absl::Status, all naming what and where): kInvalidArgument for a file that is not an
// ONNX model (truncated or corrupt protobuf), tensors whose dims are negative, overflow or do
// not match their data, unknown or unsupported operators and domains (naming the op and node),
// attributes outside what the mapped op supports, graphs with cycles or dangling inputs, an
// opset outside 7..21, external data paths that are absolute or escape the directory;
// kNotFound for a missing file.
absl::StatusOr<std::shared_ptr<SymbolBlock>> imports_onnx(const std::string& path,
                                                          const std::vector<Device>& devices = {
                                                              cpu()});

// The same from the bytes of a model; external data is read relative to `base_dir` ("" refuses
// external data).
absl::StatusOr<std::shared_ptr<SymbolBlock>> imports_onnx_from_string(
    std::string_view bytes, const std::string& base_dir = "",
    const std::vector<Device>& devices = {cpu()});

// The MXNet operators export_onnx maps (canonical registry names, sorted).
std::vector<std::string> onnx_exportable_ops();
// The ONNX operators imports_onnx maps (sorted).
std::vector<std::string> onnx_importable_ops();

}  // namespace mxnet::gluon
