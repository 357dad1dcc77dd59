// Network pictures (mxnet.visualization / mx.viz.plot_network): a Graphviz DOT description of a
// Symbol's graph, and rendering it to SVG/PNG/PDF with Graphviz's `dot` program.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "base/shape.h"
#include "gluon/block.h"
#include "symbol/symbol.h"

namespace mxnet::viz {

struct PlotOptions {
  std::string title = "plot";  // the digraph's name
  // Shapes of the graph's inputs (variables) by name, e.g. {"data", {1, 3, 224, 224}}; others
  // come from the variables' __shape__. Non-empty: every edge is labelled with the shape of the
  // tensor it carries without the batch axis ("64x56x56"), like MXNet's `shape=`.
  std::map<std::string, Shape> shape;
  // Hides weight-like variables (names ending in weight, bias, gamma, beta, moving_mean/var,
  // running_mean/var after '_' or '.'), like MXNet's hide_weights.
  bool hide_weights = true;
  // Adds a line "N params" to each op node: the element count of its hidden weight inputs
  // (BatchNorm's running statistics included, as in `summary`), in boxes of 1.6 x 1.0 inches
  // instead of MXNet's 1.3 x 0.8034. Not in MXNet's picture.
  bool show_params = true;
  // Extra or replaced node attributes (Graphviz names: "shape", "width", "fontsize", ...).
  std::map<std::string, std::string> node_attrs;
};

// The shape of every node output of `graph` (variables included), keyed by (node, output index),
// inferred from `known` (input name -> shape) and the variables' __shape__; dims that stay
// unknown are -1. Errors: kInvalidArgument when shapes disagree (naming the node).
absl::StatusOr<std::map<std::pair<const sym::Node*, int>, Shape>> EntryShapes(
    const sym::Symbol& graph, const std::map<std::string, Shape>& known);

// DOT text of `graph` as MXNet 1.9's plot_network draws it: one box per op (variables that are
// not hidden weights as ovals), labels
//   Convolution "Convolution\n<kernel>/<stride>, <num_filter>", FullyConnected
//   "FullyConnected\n<num_hidden>", Activation / LeakyReLU "<op>\n<act_type>", Pooling
//   "Pooling\n<pool_type>, <kernel>/<stride>", Custom its op_type, any other op its node name;
// fill colours by kind: inputs #8dd3c7, Convolution/FullyConnected #fb8072, activations #ffffb3,
// BatchNorm #bebada, Pooling #80b1d3, Concat/Flatten/Reshape #fdb462, Softmax #b3de69, other
// #fccde5; edges drawn from the consumer to its input with dir=back (arrows point from the input
// to the consumer, data at the bottom). Differs from MXNet: a multi-output node's edges carry
// the shape of the output used (MXNet labels them all with its last output), and the
// "N params" line (options.show_params). Errors: those of EntryShapes.
absl::StatusOr<std::string> plot_network(const sym::Symbol& graph, const PlotOptions& options = {});

struct SummaryOptions {
  int line_length = 120;                                // characters per line
  std::vector<double> positions = {.44, .64, .74, 1.};  // column ends (fractions <= 1 or columns)
};

// The text MXNet 1.9.1's mx.viz.print_summary(symbol, shape) prints: one row per operator
// (and the first variable) "name(op)", its output shape without the batch axis ("16x32x32"),
// its parameter count and the layers feeding it, then "Total params: N". `shape`: input name ->
// shape (NCHW ...); empty: no shapes (then BatchNorm counts 0 and convolutions count from their
// inputs' unknown channels, 0). Parameter counts follow MXNet's rules exactly, quirks included:
// Convolution in_channels * num_filter / num_group * prod(kernel) (+ num_filter unless
// no_bias is the string "True"), FullyConnected (in_channels + 1) * num_hidden where
// in_channels is dim 1 of its input (not the flattened size), BatchNorm 2 * channels,
// Embedding input_dim * output_dim, other ops 0; an input counts only if it is an operator or
// a head (MXNet's `heads` set is the numbers of the first output entry, so node 0 always is).
// Nodes with several visible outputs have no shape ("name_output" is not an output name).
// Errors: kInvalidArgument "Input shape is incomplete" when `shape` leaves a shape unknown
// (MXNet's ValueError) or contradicts the graph (naming the node), bad integer attributes.
absl::StatusOr<std::string> print_summary(const sym::Symbol& graph,
                                          const std::map<std::string, Shape>& shape = {},
                                          const SummaryOptions& options = {});

// The graph of `net` for inputs of `input_shapes` (NCHW etc.): hybridizes net (keeping its
// hybridize options if already hybridized), runs one inference forward on zeros (float32, CPU)
// and returns the traced graph. net must be initialized. If net was not hybridized it is
// turned back off afterwards. Errors: what the forward throws, as a Status.
absl::StatusOr<sym::Symbol> TraceBlock(gluon::HybridBlock& net,
                                       const std::vector<Shape>& input_shapes);

// Input name -> shape for `net`'s traced graph: every parameter's structured name with its
// shape, and "data" (one input) or "data0".."dataN" (several) with `input_shapes`.
std::map<std::string, Shape> GraphInputShapes(const gluon::Block& net,
                                              const std::vector<Shape>& input_shapes);

// Writes `dot` to `path`, by its extension: ".dot"/".gv" the text itself; ".svg", ".png", ".pdf"
// rendered by Graphviz's `dot` program (found on PATH; Debian package graphviz). Written to a
// temporary name in the same directory and renamed. Errors: kInvalidArgument for another
// extension (listing the valid ones), kNotFound when the directory does not exist,
// kFailedPrecondition when `dot` cannot be run, kInternal with dot's message when it fails,
// kPermissionDenied when the file cannot be written.
absl::Status render(const std::string& dot, const std::string& path);

// The checks render makes before writing (extension, directory), for callers that want to fail
// before building a net. Errors as render's.
absl::Status CheckPicturePath(const std::string& path);

}  // namespace mxnet::viz
