// The graph passes (one file each) and the pipelines CachedOp runs (docs/design.md §6, "Symbols,
// hybridize and the executor").
//
//   InferShapeTypePass     shape/dtype inference over the whole graph (symbol/graph.h)
//   DeadCodePass           unreachable nodes, identity ops, unused hidden outputs and inputs
//   ConstantFoldingPass    subgraphs without variable inputs -> executor-bound constants
//   CommonSubexprPass      same op, equal attributes, same inputs -> one node
//   BatchNormFoldingPass   Convolution/FullyConnected -> BatchNorm (inference) -> new weights
//   OneDnnFusionPass       Convolution/FullyConnected + activation / elementwise add -> one op
//                          with oneDNN post-ops (_sg_onednn_conv, _sg_onednn_fully_connected)
//   OneDnnLayoutPass       chains of fused convolutions -> channels-last between each other
//   memory planning        symbol/passes/memory_plan.h (run by the executor per input signature)
#pragma once

#include <string>
#include <vector>

#include "symbol/passes/pass.h"

namespace mxnet::sym::passes {

// Infers every entry's shape and dtype from g.input_shapes/input_types, the constants and the
// variables' __shape__/__dtype__ attributes (partial: unknown entries are counted, not errors).
// Throws kInvalidArgument naming the node when shapes contradict. Changes nothing in the graph;
// the result is cached in the Graph for the passes that need shapes.
PassResult InferShapeTypePass(Graph& g);

// Dead code: nodes no output depends on are dropped (the IR is rooted at the outputs, so this is
// the count that disappeared since the symbol was built); in inference graphs identity ops are
// bypassed (Dropout in "training" mode, _copy/identity, BlockGrad) unless they produce a graph
// output; unused hidden outputs (BatchNorm mean/var, Dropout mask) and graph inputs no node reads
// any more (e.g. BatchNorm parameters after folding) are reported.
PassResult DeadCodePass(Graph& g);

struct ConstantFoldingOptions {
  // Larger results stay computed at run time (a folded constant lives as long as the graph).
  int64_t max_bytes = int64_t{256} << 20;
};
// Every operator node whose inputs are all constants (transitively: zero-input ops such as
// _zeros/_full/_arange, and earlier constants) and that is deterministic and has no mutable
// inputs is evaluated once with the CPU reference kernels; the results a non-constant node or a
// graph output reads become constants (g.constants).
PassResult ConstantFoldingPass(Graph& g, const ConstantFoldingOptions& options = {});

// Nodes with the same op, equal attributes and the same input entries (commutative ops in any
// order) are merged, repeatedly up the graph. Never merges stochastic ops or ops with mutable
// inputs.
PassResult CommonSubexprPass(Graph& g);

// Inference only. A BatchNorm whose data is output 0 of a Convolution or FullyConnected that
// nothing else reads (and whose own hidden outputs nobody reads) is folded into that op:
//   w' = w * gamma / sqrt(var + eps)  (per output channel; gamma = 1 with fix_gamma)
//   b' = (b - mean) * gamma / sqrt(var + eps) + beta
// w', b' become constants; the BatchNorm node disappears. Needs the values of the weight, bias
// and BatchNorm parameters (constants or g.input_values; the inputs used go to g.value_deps), a
// channels-first Convolution or channel axis = last axis of a FullyConnected output, and float32
// or float64 values.
PassResult BatchNormFoldingPass(Graph& g);

// Inference only. Fuses Convolution / FullyConnected with what follows it into
// _sg_onednn_conv / _sg_onednn_fully_connected (registered by ndarray/ops/conv/conv_fused.cc):
//   op -> [Activation | clip] -> [elemwise_add(., other)] -> [Activation]
// where each fused value has no other reader. Activations: relu, sigmoid, tanh, softrelu (the
// ones oneDNN's eltwise post-op computes); right after the op also clip with a_min <= a_max
// (eltwise_clip; MobileNetV2's RELU6). A Convolution whose weight is a constant (BatchNorm-
// folded) becomes _sg_onednn_conv even with nothing to fuse, with const_weight=True: its kernel
// caches the weight in oneDNN's layout instead of reordering it on every call. The fused ops are
// not differentiable.
PassResult OneDnnFusionPass(Graph& g);

// Inference only, after OneDnnFusionPass. Fused 2-D convolutions (_sg_onednn_conv, NCHW,
// float32, constant weight) that feed each other through their data or sum inputs switch to
// layout=NHWC, so oneDNN keeps the activations between them in the channels-last layout its
// inference kernels take, without a reorder per convolution: the weights become transposed
// constants (O, kh, kw, I/g), and transpose nodes convert the values entering and leaving such a
// chain. Uses only existing ops; the results are unchanged.
PassResult OneDnnLayoutPass(Graph& g);

// ---- Pipelines. ----
struct PipelineOptions {
  // "none" (or ""): no passes. "default": dead code, CSE, constant folding and, for inference,
  // BatchNorm folding. "onednn": "default" plus oneDNN post-op fusion and channels-last chains
  // of fused convolutions (inference).
  std::string backend = "default";
  // Allow passes to bake g.input_values in (BatchNorm folding). Off: only value-independent
  // rewrites.
  bool fold_input_values = true;
};
// Whether `backend` names a pipeline; kInvalidArgument listing the valid names otherwise.
void CheckBackendName(const std::string& backend);
// Runs the pipeline for g.inference; returns every pass's result in order.
std::vector<PassResult> RunPipeline(Graph& g, const PipelineOptions& options);
// One line per pass.
std::string FormatReport(const std::vector<PassResult>& results);

}  // namespace mxnet::sym::passes
