// Gluon blocks (mxnet.gluon.Block / HybridBlock), following ../shared/seeds (gluon-hybridblock-api,
// gluon-block-source-1x) with MXNet 2's structured parameter names and forward() style:
//
//   class Model : public gluon::HybridBlock {
//    public:
//     Model() {
//       dense0 = register_child(std::make_shared<nn::Dense>(20), "dense0");
//       dense1 = register_child(std::make_shared<nn::Dense>(20), "dense1");
//     }
//     NDArray forward(const NDArray& x) override {
//       return nd::relu((*dense1)(nd::relu((*dense0)(x))));
//     }
//     std::shared_ptr<nn::Dense> dense0, dense1;
//   };
//   auto model = std::make_shared<Model>();
//   model->initialize(nullptr, {cpu(0)});
//   model->hybridize();
//   NDArray y = (*model)(nd::zeros({10, 10}));
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gluon/nested.h"
#include "gluon/parameter.h"
#include "ndarray/op.h"
#include "symbol/executor.h"

namespace mxnet::gluon {

class Block;
using BlockPtr = std::shared_ptr<Block>;

// Removes a hook when detach() is called (or never, if dropped).
class HookHandle {
 public:
  HookHandle() = default;
  HookHandle(std::weak_ptr<std::map<int, std::function<void()>>> owner, int id)
      : owner_(std::move(owner)), id_(id) {}
  void detach();

 private:
  std::weak_ptr<std::map<int, std::function<void()>>> owner_;
  int id_ = -1;
};

struct LoadParametersOptions {
  std::vector<Device> devices = {cpu()};
  bool allow_missing = false;
  bool ignore_extra = false;
  bool cast_dtype = false;
  std::string dtype_source = "current";  // "current" or "saved"
};

// How parameter files name the parameters (docs/formats.md §4.1).
enum class ParamNames {
  // "features.0.weight": the structured names MXNet 1.x and 2.x save_parameters write (default).
  kStructured,
  // "resnetv10_conv0_weight": MXNet 1.x Gluon's prefixed names (collect_params() keys; what 1.x
  // export and ParameterDict.save write), see Block::mxnet1_param_names.
  kMxnet1,
  // "conv0_weight": the 1.x names without the net's own prefix ("resnetv10_"), as MXNet 1.x's
  // deprecated save_params (ParameterDict.save(strip_prefix=net.prefix)) writes them and 1.x's
  // load_parameters reads them back.
  kMxnet1Stripped,
};

struct SaveParametersOptions {
  bool deduplicate = false;  // shared parameters saved once
  ParamNames names = ParamNames::kStructured;
};

struct ExportOptions {
  // kStructured or kMxnet1 (variables and arg:/aux: keys named "resnetv10_conv0_weight", as
  // MXNet 1.x's HybridBlock.export writes them); kMxnet1Stripped is rejected (kInvalidArgument).
  ParamNames names = ParamNames::kStructured;
  // MXNet's remove_amp_cast (default true): amp_cast / amp_multicast nodes are dropped from the
  // written graph, their consumers reading the cast's input instead (mixed-precision graphs
  // export as float32 graphs).
  bool remove_amp_cast = true;
};

// An export held in memory (MXNet 2's HybridBlock.export(None)): the graph as export_model would
// write it and the parameters keyed "arg:name" / "aux:name".
struct ExportedModel {
  sym::Symbol symbol;
  std::vector<std::pair<std::string, NDArray>> params;
};

struct HybridizeOptions {
  bool static_alloc = false;
  bool static_shape = false;
  // Graph passes of the executor (symbol/executor.h): "none" (the traced graph as is),
  // "default" (dead code, CSE, constant folding; BatchNorm folding for inference calls) or
  // "onednn" (also Convolution/FullyConnected post-op fusion and channels-last chains for
  // inference calls; MXNet's "ONEDNN"/"MKLDNN"). "" (the default) takes
  // $MXNET_SUBGRAPH_BACKEND like MXNet 1.x's oneDNN builds: unset means "onednn" (fusion on),
  // "NONE" none, "MKLDNN"/"ONEDNN"/"default" as named (ResolveHybridizeBackend). Training calls
  // (autograd recording) never fuse. Unknown names throw kInvalidArgument at the first call.
  std::string backend;
};

// The pass pipeline HybridizeOptions::backend names: `backend` itself unless empty, else
// $MXNET_SUBGRAPH_BACKEND mapped as MXNet 1.x does (unset or empty: "onednn"; "NONE"/"none":
// "none"; "MKLDNN"/"ONEDNN" (any case): "onednn"; any other value as given, checked at the first
// call). Source: MXNet 1.x docs/faq/env_var.md (MXNET_SUBGRAPH_BACKEND).
std::string ResolveHybridizeBackend(const std::string& backend);

class Block : public std::enable_shared_from_this<Block> {
 public:
  using PreHook = std::function<void(Block&, const NDArrayVec& inputs)>;
  using PostHook = std::function<void(Block&, const NDArrayVec& inputs, const NDArrayVec& outputs)>;

  Block();
  virtual ~Block();
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  // Calls the block: hooks, deferred initialization, then forward (or the cached graph of a
  // hybridized HybridBlock).
  NDArray operator()(const NDArray& x);
  NDArrayVec operator()(const NDArrayVec& inputs);

  // Calls the block on positional arguments that may be None or (nested) lists of arrays, like
  // Gluon's forward(x, *args) (MXNet 1.9 _flatten/_regroup, gluon/nested.h): hooks and a
  // hybridized block's graph see the flat arrays (None left out), forward_nested gets the
  // structure back. Returns forward_nested's value; a block that overrides forward instead gives
  // its output: the array when there is one, else a list. A hybridized HybridBlock keeps the
  // argument structure of its first such call until hybridize() is called again; another
  // structure is kInvalidArgument naming both (MXNet: "The argument structure of HybridBlock
  // does not match the cached version"). Spelled like Python's call with one positional
  // argument each (an NDArray or a Nested): block(x, Nested::List({h, c}), Nested()).
  Nested call_nested(const std::vector<Nested>& args);
  Nested operator()(const Nested& arg) { return call_nested({arg}); }
  template <typename A, typename B, typename... Rest>
  Nested operator()(const A& a, const B& b, const Rest&... rest) {
    return call_nested({Nested(a), Nested(b), Nested(rest)...});
  }

  // The computation. Override one of the two: the single-array form for one input and output,
  // the vector form for several.
  virtual NDArray forward(const NDArray& x);
  virtual NDArrayVec forward(const NDArrayVec& inputs);
  // The computation on structured arguments (None, lists): override it instead of forward for
  // such arguments. Its output may be nested too. The default hands arguments that are all
  // arrays to forward and rejects others (kInvalidArgument naming their format).
  virtual Nested forward_nested(const std::vector<Nested>& args);

  // Registers a child under `name` (default: its index among the children, like Sequential),
  // giving its parameters structured names "name.param". Returns the child.
  template <typename B>
  std::shared_ptr<B> register_child(std::shared_ptr<B> block, std::string name = "") {
    RegisterChildImpl(block, std::move(name));
    return block;
  }
  // Creates and registers a parameter of this block.
  ParameterPtr register_parameter(const std::string& name, ParameterOptions options = {});
  // Registers an existing (possibly shared) parameter.
  ParameterPtr register_parameter(const std::string& name, ParameterPtr param);

  const std::vector<std::pair<std::string, BlockPtr>>& children() const { return children_; }
  // This block's own parameters (not its children's).
  const std::vector<std::pair<std::string, ParameterPtr>>& params() const { return params_; }
  // All parameters with structured names ("features.0.weight"); `select` is a regular
  // expression that must match at the start of the name (Python re.match), e.g. ".*weight|.*bias".
  ParameterDict collect_params(const std::string& select = "") const;

  // Initializes every parameter (Block::initialize; default initializer Uniform(0.07)).
  void initialize(InitializerPtr init = nullptr, std::vector<Device> devices = {cpu()},
                  bool verbose = false, bool force_reinit = false);
  // Applies fn to every child (depth first), then to this block.
  Block& apply(const std::function<void(Block&)>& fn);
  HookHandle register_forward_pre_hook(PreHook hook);
  HookHandle register_forward_hook(PostHook hook);

  // Parameters by structured name in MXNet's NDArray-list format (docs/formats.md §2, §4).
  // deduplicate: shared parameters are saved once.
  absl::Status save_parameters(const std::string& filename, bool deduplicate = false) const;
  // The same with the file's naming (ParamNames): structured, or MXNet 1.x names.
  absl::Status save_parameters(const std::string& filename, const SaveParametersOptions& o) const;
  // Loads save_parameters files of ours, MXNet 1.x and 2.x (arg:/aux: prefixes are stripped).
  // Keys in MXNet 1.x naming (no '.', "resnetv10_conv0_weight" or "conv0_weight", any net
  // prefix such as "resnetv11_") are recognised and mapped through mxnet1_param_names().
  // Missing/extra keys are errors naming the keys and the file unless allowed.
  absl::Status load_parameters(const std::string& filename, const LoadParametersOptions& o = {});
  // MXNet 1.x's deprecated save_params / load_params: save_parameters with
  // ParamNames::kMxnet1Stripped, and load_parameters (which reads either naming).
  absl::Status save_params(const std::string& filename) const;
  absl::Status load_params(const std::string& filename, const LoadParametersOptions& o = {});
  // (structured name, MXNet 1.x name) of every parameter in collect_params() order, the 1.x name
  // as MXNet 1.9.1's Gluon gives it to the same network built in a fresh process: blocks get
  // "<hint><count>_" prefixes per enclosing name scope (conv, batchnorm, dense, or the lowercase
  // class name), the root "<hint>0_". Model-zoo nets follow their 1.x module code (stage1_,
  // features_, A1_, pred_ scopes: see RegisterMxnet1Naming in gluon/param_names.h).
  std::vector<std::pair<std::string, std::string>> mxnet1_param_names() const;
  absl::Status load_dict(const std::vector<std::pair<std::string, NDArray>>& dict,
                         const LoadParametersOptions& o = {}, const std::string& source = "dict");
  // Uses `shared`'s parameters for every matching structured name.
  void share_parameters(const ParameterDict& shared);
  // Sets grad_req/lr_mult/wd_mult on all parameters.
  void setattr(const std::string& name, const std::string& value);
  void zero_grad();
  virtual void cast(DType dtype);
  void reset_device(const std::vector<Device>& devices);
  // [Deprecated in MXNet 2] reset_device under its MXNet 1.x name.
  void reset_ctx(const std::vector<Device>& devices) { reset_device(devices); }

  // MXNet's summary table (Layer (type), Output Shape, Param #, totals) for a forward on
  // `inputs`; the block must be initialized and not hybridized.
  std::string summary(const NDArrayVec& inputs);
  // prefix-model.params (deduplicated parameters) and prefix-model.json (the block tree), and
  // loading them back into a block of the same structure.
  absl::Status save(const std::string& prefix) const;
  absl::Status load(const std::string& prefix);

  // Turns hybridization on/off recursively (no effect on plain Blocks).
  virtual void hybridize(bool active = true, const HybridizeOptions& options = {});
  // Installs `callback` (tensor name, op name, tensor) on every HybridBlock below, as MXNet's
  // Block.register_op_hook: it sees the ops of the graphs they run hybridized. monitor_all also
  // reports op inputs.
  virtual void register_op_hook(sym::CachedOp::Monitor callback, bool monitor_all = false);

  // "Dense", "Model", ...: the class name shown when printing.
  virtual std::string class_name() const;
  // The block tree like MXNet prints it.
  virtual std::string ToString() const;

 protected:
  // Extra text inside the parentheses when printing a leaf block ("None -> 20, linear").
  virtual std::string repr_args() const { return ""; }
  // Whether `child` may be registered (HybridBlock requires hybrid children).
  virtual void CheckChild(const Block& child) const {}
  // Runs forward in this block's mode (HybridBlock: the cached graph when hybridized).
  virtual NDArrayVec CallForward(const NDArrayVec& inputs);
  // Completes deferred parameter initialization by a shape-only pass over forward.
  virtual void InferParameterShapes(const NDArrayVec& inputs);
  void RegisterChildImpl(BlockPtr child, std::string name);
  bool has_hooks() const;

  std::vector<std::pair<std::string, BlockPtr>> children_;
  std::vector<std::pair<std::string, ParameterPtr>> params_;
  std::shared_ptr<std::map<int, std::function<void()>>> hook_removers_;
  std::map<int, PreHook> pre_hooks_;
  std::map<int, PostHook> post_hooks_;
  int next_hook_id_ = 0;

 private:
  void CollectParams(const std::string& prefix, ParameterDict* out) const;
  int forward_depth_ = 0;  // detects a forward that overrides neither form
  // call_nested of a hybridized block: the argument structure of the first call and
  // the output structure its trace recorded ("" before).
  std::mutex nested_mu_;
  std::string nested_in_format_;
  std::string nested_out_format_;
};

// A block that can be traced into a graph and run by the optimized executor.
//
// Hybridized, the first call for an input signature (ranks, dtypes, devices) traces forward
// without running it (MXNet 2's deferred compute): ops dispatch in shape-only mode, so no kernel
// runs and every array is a placeholder with its inferred shape; then the graph runs for the
// call's values. Every call, the first included, thus runs each op once (random draws, Custom
// ops). Consequences: forward must not read values (asscalar, ToVector, data pointers give a
// kFailedPrecondition error naming hybridize), ops with data-dependent output shapes get their
// shapes at run time, and children's hooks run during the trace with placeholder arrays.
// Threading: a hybridized block may be called from many threads (and RuntimeContexts) at once;
// traces are serialized process-wide, cached graphs run concurrently.
class HybridBlock : public Block {
 public:
  using Block::operator();
  // Called on symbols (MXNet: a HybridBlock called on a Symbol returns a Symbol): the graph of
  // forward with `inputs` in place of its data inputs, parameters as variables named by their
  // structured names (so SymbolBlock(graph, inputs, collect_params()) shares them). Several
  // outputs come as a group (operator[] picks one). forward is traced with placeholders of the
  // inputs' shapes, so each input must infer a full shape (a variable made with
  // VarOptions::shape) unless the hybridized block was already called with arrays of as many
  // inputs (its traced graph is then used); otherwise kInvalidArgument. Parameters need not be
  // initialized. No hooks run.
  sym::Symbol operator()(const sym::Symbol& x);
  sym::Symbol operator()(const std::vector<sym::Symbol>& inputs);

  void hybridize(bool active = true, const HybridizeOptions& options = {}) override;
  bool is_hybridized() const { return active_; }
  // Completes parameter shapes (deferred init) from input shapes without computing anything.
  void infer_shape(const NDArrayVec& inputs);
  void infer_type(const NDArrayVec& inputs);
  // Writes path-symbol.json and path-NNNN.params (arg:/aux: keys; inputs "data" or
  // "data0".."dataN") from the last traced graph (call the hybridized block once first).
  // MXNet's HybridBlock.export (named export_model: `export` is a C++ keyword).
  absl::Status export_model(const std::string& path, int epoch = 0) const;
  // The same with MXNet 1.x parameter names (ExportOptions::names).
  absl::Status export_model(const std::string& path, int epoch, const ExportOptions& o) const;
  // The export in memory (MXNet 2's export(path=None)); errors as export_model.
  absl::StatusOr<ExportedModel> export_model(const ExportOptions& o) const;
  // Called after every op of the cached graph with (tensor name, op name, tensor); installed on
  // the children too (MXNet's HybridBlock.register_op_hook), so a child run on its own reports
  // as well.
  void register_op_hook(sym::CachedOp::Monitor callback, bool monitor_all = false) override;
  // HybridBlock.optimize_for of MXNet 1.9: hybridizes with `backend` (see
  // HybridizeOptions::backend; the other options are kept) and prepares the graph for `inputs`
  // without executing a forward pass: deferred parameter shapes are inferred and forward is traced
  // (shape-only, no kernel runs); the backend's passes then compile for each input shape at its
  // first call (compile_report() after that call). Errors: an unknown backend
  // (kInvalidArgument), and whatever the trace raises.
  void optimize_for(const NDArrayVec& inputs, const std::string& backend = "");
  // What the executor's passes did for the last compiled input signature (node counts, passes,
  // memory plan); empty before the first hybridized call.
  sym::CompileReport compile_report() const;
  // The traced graph (empty Symbol before the first hybridized call).
  sym::Symbol cached_graph() const;
  void cast(DType dtype) override;

 protected:
  void CheckChild(const Block& child) const override;
  NDArrayVec CallForward(const NDArrayVec& inputs) override;
  void ClearCache();
  // Traces forward into a graph for this input signature and compiles it into cache_ (a
  // SymbolBlock compiles its own graph).
  virtual void Trace(const NDArrayVec& inputs);
  // The graph of forward on `inputs` (placeholders are enough), variables "data"/"data0".. and
  // the parameters' structured names; parameters may be uninitialized. Leaves the cache alone.
  sym::Symbol TraceGraph(const NDArrayVec& inputs);
  // operator()(symbols): SymbolBlock composes its own graph.
  virtual sym::Symbol CallSymbolic(const std::vector<sym::Symbol>& inputs);

  bool active_ = false;
  HybridizeOptions options_;
  struct Cache {
    std::string key;
    sym::Symbol graph;
    std::shared_ptr<sym::CachedOp> op;
    // Per cached-op input: index of the block input, or -1 with the parameter.
    std::vector<int> input_index;
    std::vector<ParameterPtr> input_param;
  };
  std::shared_ptr<const Cache> cache_;
  mutable std::mutex cache_mu_;
  sym::CachedOp::Monitor monitor_;
  bool monitor_all_ = false;
};

}  // namespace mxnet::gluon
