// The operator registry: the single source of truth for every op (docs/design.md §3, "The
// operator registry"). Imperative calls, autograd, the symbolic executor, JSON and the C ABI all
// read it.
//
// An op is registered once, in ndarray/ops/*.cc:
//   MX_REGISTER_OP(relu)
//       .describe("max(x, 0) elementwise.")
//       .set_num_inputs(1)
//       .set_infer_shape(ElemwiseShape)
//       .set_kernel({DeviceType::kCPU, Backend::kReference}, ReluRef)
//       .set_gradient(ReluGrad);
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "base/error.h"
#include "ndarray/ndarray.h"
#include "ndarray/params.h"
#include "ndarray/runtime_context.h"

namespace mxnet {

class Op;
class GradBuilder;
struct GradValue;

using ShapeVec = absl::InlinedVector<Shape, 4>;
using DTypeVec = absl::InlinedVector<int, 4>;  // DType flag, or -1 when unknown
using NDArrayVec = absl::InlinedVector<NDArray, 3>;

// Parsed attributes of one op instance: the typed struct plus the op it belongs to.
class OpAttrs {
 public:
  OpAttrs() = default;
  // From strings (JSON, C ABI, by-name calls). Throws mxnet::Error(kInvalidArgument) naming the
  // op and attribute on bad input.
  static OpAttrs Parse(const Op& op, const AttrDict& dict);
  // From a typed struct (the C++ API): no string parsing.
  template <typename P>
  static OpAttrs From(const Op& op, P param);

  const Op* op() const { return op_; }
  // The typed attributes; P must be the op's parameter struct.
  template <typename P>
  const P& get() const {
    if (schema_ != &SchemaOf<P>()) ThrowWrongType();
    return *static_cast<const P*>(parsed_.get());
  }
  // MXNet string form (required fields and non-defaults), as JSON export writes it.
  AttrDict ToDict() const;
  bool operator==(const OpAttrs& o) const;
  // A stable text key of the attributes (kernel caches, CSE).
  std::string Key() const;

 private:
  [[noreturn]] void ThrowWrongType() const;
  const Op* op_ = nullptr;
  const ParamSchema* schema_ = nullptr;
  std::shared_ptr<const void> parsed_;
};

// Kernel selection keys (typed, not strings).
enum class Backend : uint8_t {
  kReference = 0,  // simple, obviously right; every op has one on CPU
  kOptimized = 1,  // oneDNN primitives or vectorized/parallel loops
  kCuda = 2,       // own CUDA kernels, cuBLAS
  kCudnn = 3,
};
struct KernelKey {
  DeviceType device = DeviceType::kCPU;
  Backend backend = Backend::kReference;
  bool operator==(const KernelKey& o) const { return device == o.device && backend == o.backend; }
};
std::string_view BackendName(Backend b);

// Per-call execution state handed to kernels.
struct OpContext {
  bool is_train = false;   // autograd train_mode (Dropout, BatchNorm)
  bool is_record = false;  // autograd recording (BatchNorm updates moving stats only then)
  Device device;
};

// Kernel: reads `inputs`, writes `outputs` (allocated by the caller with inferred shapes/dtypes).
// Aux states (e.g. BatchNorm moving stats) are inputs the kernel may update in place.
using FCompute =
    std::function<void(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> inputs,
                       std::span<const NDArray> outputs)>;
// Whether a kernel handles this call (dtype, layout, ...); the next backend is tried if not.
using FSupports = std::function<bool(const OpAttrs& attrs, std::span<const NDArray> inputs)>;
// Shape inference: fills unknown entries of `in` and `out` (Shape::Unknown() or -1 dims) from the
// known ones; throws mxnet::Error(kInvalidArgument) naming the op and input on a mismatch.
using FInferShape = std::function<void(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out)>;
// Type inference, same contract, with DType flags (-1 unknown).
using FInferType = std::function<void(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out)>;
// Data-dependent output shapes (boolean_mask, nonzero): sets every output shape from the input
// arrays' values (reading device data as needed). Runs right before the kernel in Invoke and in
// the symbolic executor; the op's static FInferShape leaves such outputs unknown (no error).
using FInferShapeFromData =
    std::function<void(const OpAttrs& attrs, std::span<const NDArray> inputs, ShapeVec* out)>;
// Storage-type dispatch (MXNet's FInferStorageType + FComputeEx; ndarray/sparse.h): from the
// input storage types, sets the output ones (all kDefault on entry) and returns true when the op's
// storage kernel takes the call. false: Invoke falls back like MXNet, densifying sparse inputs
// (logged once per op and input types) and running the dense kernel.
using FInferStorageType = std::function<bool(const OpAttrs& attrs, std::span<const StorageType> in,
                                             std::span<StorageType> out)>;
// Gradient as a composition of registered ops: one entry per input (an invalid GradValue where
// there is none, e.g. integer indices or aux states).
using FGradient = std::function<std::vector<GradValue>(
    GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> inputs,
    std::span<const GradValue> outputs, std::span<const GradValue> out_grads)>;

class Op {
 public:
  explicit Op(std::string name) : name(std::move(name)) {}

  // ---- Declaration (chained at registration). ----
  Op& describe(std::string d) {
    doc = std::move(d);
    return *this;
  }
  Op& add_alias(std::string alias);
  template <typename P>
  Op& set_params() {
    schema = &SchemaOf<P>();
    return *this;
  }
  Op& set_num_inputs(int n) {
    num_inputs_fixed = n;
    return *this;
  }
  Op& set_num_inputs(std::function<int(const OpAttrs&)> f) {
    num_inputs_fn = std::move(f);
    return *this;
  }
  Op& set_num_outputs(int n) {
    num_outputs_fixed = n;
    return *this;
  }
  Op& set_num_outputs(std::function<int(const OpAttrs&)> f) {
    num_outputs_fn = std::move(f);
    return *this;
  }
  // Outputs a user sees (the rest are hidden, e.g. BatchNorm's saved mean/var, Dropout's mask).
  Op& set_num_visible_outputs(std::function<int(const OpAttrs&)> f) {
    num_visible_fn = std::move(f);
    return *this;
  }
  Op& set_input_names(std::vector<std::string> names) {
    input_names_fixed = std::move(names);
    return *this;
  }
  Op& set_input_names(std::function<std::vector<std::string>(const OpAttrs&)> f) {
    input_names_fn = std::move(f);
    return *this;
  }
  Op& set_output_names(std::vector<std::string> names) {
    output_names_fixed = std::move(names);
    return *this;
  }
  // Inputs the op mutates (aux states: BatchNorm's moving_mean=3, moving_var=4).
  Op& set_mutable_inputs(std::vector<int> idx) {
    mutable_inputs = std::move(idx);
    return *this;
  }
  Op& set_infer_shape(FInferShape f) {
    infer_shape = std::move(f);
    return *this;
  }
  Op& set_infer_type(FInferType f) {
    infer_type = std::move(f);
    return *this;
  }
  Op& set_kernel(KernelKey key, FCompute f, FSupports supports = nullptr);
  Op& set_gradient(FGradient f, bool uses_inputs = true, bool uses_outputs = true);
  // Declares the op not differentiable (argmax, comparisons, random sampling...).
  Op& set_non_differentiable() {
    non_differentiable = true;
    return *this;
  }
  // Input i may share its buffer with output j (memory planner hint).
  Op& add_inplace(int input, int output) {
    inplace.push_back({input, output});
    return *this;
  }
  // Zero-input ops (zeros, random_*): output device from this attribute's value if set.
  Op& set_random() {
    is_random = true;
    return *this;
  }
  // A CPU kernel for sparse inputs/outputs (see FInferStorageType). Its sparse outputs come
  // without stored parts; the kernel sets them (SetSparseParts, ndarray/sparse.h).
  Op& set_storage_kernel(FInferStorageType infer, FCompute kernel) {
    infer_storage_type = std::move(infer);
    storage_kernel = std::move(kernel);
    return *this;
  }
  // Output shapes depend on input values (see FInferShapeFromData).
  Op& set_dynamic_output_shape(FInferShapeFromData f) {
    infer_shape_from_data = std::move(f);
    return *this;
  }

  // ---- Queries. ----
  int NumInputs(const OpAttrs& a) const {
    return num_inputs_fn ? num_inputs_fn(a) : num_inputs_fixed;
  }
  int NumOutputs(const OpAttrs& a) const {
    return num_outputs_fn ? num_outputs_fn(a) : num_outputs_fixed;
  }
  int NumVisibleOutputs(const OpAttrs& a) const {
    return num_visible_fn ? num_visible_fn(a) : NumOutputs(a);
  }
  std::vector<std::string> InputNames(const OpAttrs& a) const;
  std::vector<std::string> OutputNames(const OpAttrs& a) const;
  bool IsMutableInput(int i) const;
  bool differentiable() const { return static_cast<bool>(gradient); }
  bool has_dynamic_output_shape() const { return static_cast<bool>(infer_shape_from_data); }
  // The kernel for `dev` handling this call: optimized backends first, then the reference.
  // CPU: throws kUnimplemented naming the op and device when none exists. GPU: the op's GPU
  // kernels, then those registered by name (ndarray/device_kernels.h), then a wrapper running
  // the CPU kernel on host copies (the GPU fallback, ndarray/op.cc; $MXNET_GPU_FALLBACK=error
  // makes it kUnimplemented instead).
  const FCompute& SelectKernel(DeviceType dev, const OpAttrs& attrs,
                               std::span<const NDArray> in) const;
  // The kernel registered under exactly `key`, or nullptr.
  const FCompute* FindKernel(KernelKey key) const;
  std::vector<KernelKey> Kernels() const;

  // ---- Fields. ----
  std::string name;
  std::vector<std::string> aliases;
  std::string doc;
  const ParamSchema* schema = nullptr;  // nullptr: the op takes no attributes
  int num_inputs_fixed = 1;
  int num_outputs_fixed = 1;
  std::function<int(const OpAttrs&)> num_inputs_fn, num_outputs_fn, num_visible_fn;
  std::vector<std::string> input_names_fixed, output_names_fixed;
  std::function<std::vector<std::string>(const OpAttrs&)> input_names_fn;
  std::vector<int> mutable_inputs;
  FInferShape infer_shape;
  FInferType infer_type;                      // default: all inputs and outputs share one dtype
  FInferShapeFromData infer_shape_from_data;  // set only for data-dependent output shapes
  FInferStorageType infer_storage_type;       // set only for ops with a sparse kernel
  FCompute storage_kernel;
  FGradient gradient;
  bool grad_uses_inputs = true, grad_uses_outputs = true;
  bool non_differentiable = false;
  bool is_random = false;
  std::vector<std::pair<int, int>> inplace;

  struct KernelEntry {
    KernelKey key;
    FCompute fn;
    FSupports supports;
  };
  std::vector<KernelEntry> kernels;
};

// Global registry. Thread-safe: lookups may run concurrently with late registrations (ops
// registered after static initialization, e.g. from a plugin library being loaded).
class OpRegistry {
 public:
  // Registers a new op; a duplicate name is a bug (kInternal).
  static Op& Register(const std::string& name);
  // By canonical name or alias; nullptr if unknown.
  static const Op* Find(std::string_view name);
  // Like Find, but throws kNotFound "unknown operator 'X'".
  static const Op& Get(std::string_view name);
  // All ops, sorted by name.
  static std::vector<const Op*> List();
  static void AddAlias(Op* op, const std::string& alias);
};

#define MX_REGISTER_OP(Name)                                         \
  static ::mxnet::Op& MX_CONCAT_(mx_op_registration_, __COUNTER__) = \
      ::mxnet::OpRegistry::Register(#Name)

// ---- Imperative invocation. ----

// Watches op dispatch: autograd's recorder (while the current context records) and the hybridize
// tracer (DispatchState::tracer, ndarray/runtime_context.h).
class InvokeObserver {
 public:
  virtual ~InvokeObserver() = default;
  // Called after a kernel ran (outputs hold values), or, in shape-only dispatch, after the
  // placeholder outputs were made. `outputs` includes hidden outputs.
  virtual void OnInvoke(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
                        std::span<const NDArray> outputs) = 0;
};
// The process-wide recorder (autograd) notified when the current context is recording.
void SetRecordObserver(InvokeObserver* observer);

// Runs `op` on `inputs` under the current RuntimeContext's dispatch state: infers output
// shapes/dtypes, allocates outputs on the inputs' device (or `device`, else the context's
// default_device, for ops without inputs), runs the selected kernel, notifies observers.
// Returns all outputs (visible first, then hidden). Throws mxnet::Error naming the op on wrong
// input counts, shapes, dtypes or mixed devices.
NDArrayVec Invoke(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
                  std::optional<Device> device = std::nullopt);
// The same into caller-provided outputs (shapes/dtypes must match what inference gives). In
// shape-only dispatch no kernel runs and the outputs keep their contents.
void InvokeInto(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
                std::span<const NDArray> outputs);
// By name with string attributes (C ABI, bindings, tests). "ctx" selects the device of ops
// without inputs.
NDArrayVec Invoke(std::string_view op_name, std::span<const NDArray> inputs,
                  const AttrDict& attrs = {});
// Runs only shape and type inference for `op` on the given input shapes/types (flags).
void InferOutputs(const Op& op, const OpAttrs& attrs, ShapeVec* in_shapes, DTypeVec* in_types,
                  ShapeVec* out_shapes, DTypeVec* out_types);

// Output shapes/types of `op` on concrete input arrays: static inference, then (ops with a
// dynamic output shape) the shapes computed from the input values. Throws kInvalidArgument naming
// the op when an output stays unknown.
void InferOutputsFromData(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
                          ShapeVec* out_shapes, DTypeVec* out_types);

// ---- Common inference helpers for op definitions. ----
// All inputs and outputs share one shape (unknown dims filled from any known one).
void ElemwiseShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out);
// All inputs and outputs share one dtype.
void ElemwiseType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out);
// Merges `from` into `*into` (unknown ndim/dims filled); throws kInvalidArgument with `what`
// if known dims disagree.
void MergeShape(Shape* into, const Shape& from, std::string_view what);
void MergeType(int* into, int from, std::string_view what);

template <typename P>
OpAttrs OpAttrs::From(const Op& op, P param) {
  OpAttrs a;
  a.op_ = &op;
  a.schema_ = &SchemaOf<P>();
  if (op.schema != a.schema_)
    MX_THROW(absl::StatusCode::kInternal, op.name, ": attributes of the wrong parameter type");
  if constexpr (requires(const P& p) { p.Validate(); }) {
    std::string err = param.Validate();
    if (!err.empty()) MX_THROW(absl::StatusCode::kInvalidArgument, op.name, ": ", err);
  }
  a.parsed_ = std::make_shared<const P>(std::move(param));
  return a;
}

}  // namespace mxnet
