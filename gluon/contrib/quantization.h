// Post-training int8 quantization of Gluon nets (mxnet.contrib.quantization.quantize_net of
// MXNet 1.9.1 with ctx=cpu(): the MKLDNN_QUANTIZE flow).
//
//   auto qnet = quantization::quantize_net(net, {.calib_mode = "naive", .calib_data = batches});
//   NDArray y = qnet->forward({x})[0];   // float32, close to net's output
//   qnet->export_model("model-quantized", 0);   // loads and runs in MXNet 1.9.1
//
// The float graph (the net's export) is rewritten like MXNet's oneDNN quantization pass:
//  - Convolution [+ BatchNorm] [+ relu] | [+ BatchNorm] + elemwise_add (sum) [+ relu] become one
//    _sg_mkldnn_conv node with quantized=true (float weights; int8/uint8 data and sum operand
//    with (1,) float32 min/max inputs; outputs (q, min, max), uint8 after a final relu);
//  - FullyConnected [+ relu] becomes _sg_mkldnn_fully_connected (quantized, enable_float_output)
//    with int8 weight and bias parameters "<name>_quantize" and their "_min"/"_max" ranges
//    (mx.nd.contrib.quantize(w, min(w), max(w), 'int8'));
//  - Pooling and Flatten whose input is already quantized become _contrib_quantized_pooling /
//    _contrib_quantized_flatten;
//  - float data entering a quantized node goes through _contrib_quantize_v2 ("<entry>_quantize",
//    out_type = quantized_dtype, calibrated range), quantized values leaving to float ops through
//    _contrib_dequantize ("<node>_dequantize").
// Calibration (calib_mode) runs the float graph in inference mode on the calibration batches and
// records each calibrated entry (the quantize_v2 inputs and the fused nodes' float outputs):
//  - "naive": the minimum and maximum over all batches;
//  - "entropy": a histogram of 8001 bins over (-t, t), t = max |x| (widened symmetrically by
//    whole bins when a later batch has a larger t, as MXNet's combine_histogram), then the
//    KL-divergence threshold of _contrib_calibrate_entropy with 255 quantized bins (511 when
//    min >= 0 and quantized_dtype is "auto" or "uint8"): range (0, t) or (-t, t);
//  - "none": no calibration; quantize_v2 nodes use each batch's own range; fused conv nodes
//    then have no calibrated output range, which MXNet runs (int32 output) and we do not:
//    quantize_net throws kUnimplemented for "none" when the graph has a quantized conv node.
// Follows python/mxnet/contrib/quantization.py (quantize_net_v2, _LayerHistogramCollector,
// _get_optimal_thresholds, _quantize_params) and src/operator/quantization/quantize_graph_pass.
// Differs: only relu is fused (MXNet also fuses other activations in float, not in int8);
// 2-D convolutions only; quantize_granularity is tensor-wise.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gluon/block.h"
#include "gluon/symbol_block.h"
#include "symbol/symbol.h"

namespace mxnet::gluon::contrib::quantization {

struct QuantizeNetOptions {
  // "int8", "uint8" or "auto" (uint8 for entries whose calibrated minimum is >= 0).
  std::string quantized_dtype = "auto";
  // "full" (quantize every supported node) or "smart" (accepted; treated as "full").
  std::string quantize_mode = "full";
  // Node names not to quantize (the float graph's names: a Convolution, FullyConnected,
  // Pooling or Flatten node), names containing one of exclude_layers_match, op names
  // ("Convolution", "FullyConnected", "Pooling", "Flatten").
  std::vector<std::string> exclude_layers, exclude_layers_match, exclude_operators;
  std::string calib_mode = "none";  // "none", "naive", "entropy"
  // Calibration batches, each one array per data input (the net's forward inputs).
  std::vector<NDArrayVec> calib_data;
  // Shapes of the data inputs; required when calib_data is empty (the net is traced with zeros).
  std::vector<Shape> data_shapes;
  // Stop after this many examples (axis 0 of the first input), like MXNet: the batch that
  // reaches it is still used whole. nullopt: all of calib_data.
  std::optional<int64_t> num_calib_examples;
};

// The result of the graph pass before the parameters are attached.
struct QuantizedGraph {
  sym::Symbol symbol;
  std::map<std::string, NDArray> arg_params, aux_params;  // by variable name
  // Calibrated ranges by float entry name ("<node>_output" or the variable name).
  std::map<std::string, std::pair<float, float>> th_dict;
  // Names of the quantized nodes in topological order (fused and quantized ops).
  std::vector<std::string> quantized_nodes;
};

// Quantizes `sym` (a float inference graph whose variables are data inputs `data_names` or
// parameters in arg_params/aux_params) and calibrates it on `opts.calib_data`.
// Errors (mxnet::Error kInvalidArgument): an unknown quantized_dtype, quantize_mode or
// calib_mode, calib_mode naive/entropy without calib_data, batches with the wrong number of
// arrays, a missing parameter; kUnimplemented: see "none" above.
QuantizedGraph quantize_graph(const sym::Symbol& sym, const std::vector<std::string>& data_names,
                              const std::map<std::string, NDArray>& arg_params,
                              const std::map<std::string, NDArray>& aux_params,
                              const QuantizeNetOptions& opts);

// MXNet's quantize_net: hybridizes `network`, runs it once (first calibration batch or zeros of
// data_shapes), takes its export (data inputs "data" or "data0".."dataN"), quantizes and
// calibrates it and returns the quantized graph as a SymbolBlock on cpu() (int8 parameters keep
// their dtype). Errors: those of quantize_graph, and of the net's forward/export.
std::shared_ptr<SymbolBlock> quantize_net(HybridBlock& network, const QuantizeNetOptions& opts);

// The KL-divergence threshold of one histogram collected as above (MXNet's
// _get_optimal_threshold): hist counts (odd size), edges (size + 1), the data's min.
float OptimalThreshold(const std::vector<float>& hist, const std::vector<float>& edges,
                       float min_val, const std::string& quantized_dtype);

// numpy.histogram(x, bins, range=(-th, th)) in float32 arithmetic like NumPy for float32 data:
// counts per bin (the last bin closed), values outside the range ignored.
std::vector<int64_t> Histogram(const std::vector<float>& x, int bins, float th);

}  // namespace mxnet::gluon::contrib::quantization
