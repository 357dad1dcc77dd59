#include "ndarray/op.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"

#include "ndarray/grad.h"
#include "ndarray/ndarray_impl.h"
#include "ndarray/sparse.h"

namespace mxnet {

// ---- OpAttrs. ----
OpAttrs OpAttrs::Parse(const Op& op, const AttrDict& dict) {
  OpAttrs a;
  a.op_ = &op;
  if (!op.schema) {
    if (!dict.empty())
      MX_THROW(absl::StatusCode::kInvalidArgument, op.name, ": takes no attributes, got '",
               dict.begin()->first, "'");
    return a;
  }
  a.schema_ = op.schema;
  a.parsed_ = ValueOrThrow(op.schema->Parse(op.name, dict));
  return a;
}

AttrDict OpAttrs::ToDict() const { return schema_ ? schema_->Print(parsed_.get()) : AttrDict{}; }

bool OpAttrs::operator==(const OpAttrs& o) const {
  if (op_ != o.op_ || schema_ != o.schema_) return false;
  return !schema_ || parsed_ == o.parsed_ || schema_->Equal(parsed_.get(), o.parsed_.get());
}

std::string OpAttrs::Key() const {
  std::string k = op_ ? op_->name : "";
  for (const auto& [n, v] : ToDict()) StrAppend(&k, ";", n, "=", v);
  return k;
}

void OpAttrs::ThrowWrongType() const {
  MX_THROW(absl::StatusCode::kInternal, op_ ? op_->name : "<none>",
           ": attributes read with the wrong parameter type");
}

std::string_view BackendName(Backend b) {
  switch (b) {
    case Backend::kReference:
      return "reference";
    case Backend::kOptimized:
      return "optimized";
    case Backend::kCuda:
      return "cuda";
    case Backend::kCudnn:
      return "cudnn";
  }
  return "?";
}

// ---- Op. ----
Op& Op::add_alias(std::string alias) {
  OpRegistry::AddAlias(this, alias);
  aliases.push_back(std::move(alias));
  return *this;
}

Op& Op::set_kernel(KernelKey key, FCompute f, FSupports supports) {
  for (auto& k : kernels)
    if (k.key == key) MX_THROW(absl::StatusCode::kInternal, name, ": kernel registered twice");
  kernels.push_back({key, std::move(f), std::move(supports)});
  // Optimized/device backends first, the reference kernel last.
  std::stable_sort(kernels.begin(), kernels.end(), [](const KernelEntry& a, const KernelEntry& b) {
    return static_cast<int>(a.key.backend) > static_cast<int>(b.key.backend);
  });
  return *this;
}

Op& Op::set_gradient(FGradient f, bool uses_inputs, bool uses_outputs) {
  gradient = std::move(f);
  grad_uses_inputs = uses_inputs;
  grad_uses_outputs = uses_outputs;
  return *this;
}

std::vector<std::string> Op::InputNames(const OpAttrs& a) const {
  if (input_names_fn) return input_names_fn(a);
  int n = NumInputs(a);
  if (static_cast<int>(input_names_fixed.size()) == n) return input_names_fixed;
  if (n == 1) return {"data"};
  std::vector<std::string> out;
  if (n == 2 && input_names_fixed.empty()) return {"lhs", "rhs"};
  for (int i = 0; i < n; ++i) out.push_back(StrCat("arg", i));
  return out;
}

std::vector<std::string> Op::OutputNames(const OpAttrs& a) const {
  int n = NumOutputs(a);
  if (static_cast<int>(output_names_fixed.size()) == n) return output_names_fixed;
  if (n == 1) return {"output"};
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(StrCat("output", i));
  return out;
}

bool Op::IsMutableInput(int i) const {
  return std::find(mutable_inputs.begin(), mutable_inputs.end(), i) != mutable_inputs.end();
}

// ---- GPU fallback (issue 24 item 2). ----
// An op called on GPU arrays without a GPU kernel that takes the call runs its CPU kernel on host
// copies: inputs are copied to cpu() (one copy per distinct buffer, so an array passed twice stays
// one array), outputs are made on cpu() (an output viewing the same bytes as an input, i.e. run in
// place by InvokeInto or the executor's memory plan, views that input's host copy, as it would on
// the CPU), the CPU kernel runs with OpContext::device cpu(), then the outputs and the inputs the
// op updates in place (aux states) are copied back. The values are the CPU kernel's, bit for bit;
// random ops draw from cpu()'s generator. Because SelectKernel hands out the wrapper, Invoke,
// InvokeInto, autograd's backward (which Invokes the gradient ops) and the symbolic executor all
// fall back the same way.
//
// $MXNET_GPU_FALLBACK (read at each fallback): unset, "" or "warn": one stderr line per op, the
// first time it falls back ("[hh:mm:ss] ndarray/op.cc: GPU fallback: operator X has no GPU
// kernel ..."); "silent": no line; "error": kUnimplemented naming the op instead of falling back
// (tools/gpu/run_gpu_checks.sh sets it, so a missing kernel fails the GPU checks). Any other
// value is kInvalidArgument listing these.
namespace {
enum class GpuFallbackMode { kWarn, kSilent, kError };

GpuFallbackMode ReadGpuFallbackMode() {
  const char* v = std::getenv("MXNET_GPU_FALLBACK");
  std::string_view s = v ? v : "";
  if (s.empty() || s == "warn") return GpuFallbackMode::kWarn;
  if (s == "silent") return GpuFallbackMode::kSilent;
  if (s == "error") return GpuFallbackMode::kError;
  MX_THROW(absl::StatusCode::kInvalidArgument, "MXNET_GPU_FALLBACK='", s,
           "' is not one of warn (the default), silent, error");
}

// Identical bytes: same storage block, offset and byte count.
bool SameBytes(const NDArray& a, const NDArray& b) {
  return !a.is_sparse() && !b.is_sparse() && a.storage() == b.storage() &&
         a.storage_offset() == b.storage_offset() && a.nbytes() == b.nbytes();
}

void RunOnCpu(const Op& op, const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
              std::span<const NDArray> out) {
  std::vector<NDArray> cin(in.size()), cout(out.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].device().type != DeviceType::kGPU) {
      cin[i] = in[i];
      continue;
    }
    for (size_t j = 0; j < i && cin[i].is_none(); ++j)
      if (SameBytes(in[i], in[j]) && in[i].shape() == in[j].shape() &&
          in[i].dtype() == in[j].dtype())
        cin[i] = cin[j];
    if (cin[i].is_none()) cin[i] = in[i].copyto(cpu());
  }
  for (size_t k = 0; k < out.size(); ++k) {
    if (out[k].device().type != DeviceType::kGPU) {
      cout[k] = out[k];
      continue;
    }
    for (size_t i = 0; i < in.size() && cout[k].is_none(); ++i)
      if (SameBytes(out[k], in[i]) && out[k].dtype() == in[i].dtype())
        cout[k] = cin[i].ViewAs(out[k].shape());
    for (size_t j = 0; j < k && cout[k].is_none(); ++j)
      if (SameBytes(out[k], out[j]) && out[k].dtype() == out[j].dtype())
        cout[k] = cout[j].ViewAs(out[k].shape());
    if (cout[k].is_none()) cout[k] = NDArray(out[k].shape(), cpu(), out[k].dtype());
  }
  OpContext cctx = ctx;
  cctx.device = cpu();
  op.SelectKernel(DeviceType::kCPU, attrs, cin)(cctx, attrs, cin, cout);
  for (size_t k = 0; k < out.size(); ++k)
    if (!cout[k].is_same(out[k])) cout[k].copyto(out[k]);
  for (size_t i = 0; i < in.size(); ++i) {
    if (cin[i].is_same(in[i]) || !op.IsMutableInput(static_cast<int>(i))) continue;
    bool is_output = false;
    for (const NDArray& o : out) is_output = is_output || SameBytes(o, in[i]);
    if (!is_output) cin[i].copyto(in[i]);
  }
}

struct FallbackEntry {
  FCompute fn;
  bool warned = false;
};

const FCompute& GpuFallback(const Op& op) {
  GpuFallbackMode mode = ReadGpuFallbackMode();
  if (mode == GpuFallbackMode::kError)
    MX_THROW(absl::StatusCode::kUnimplemented, op.name,
             ": no GPU kernel for these inputs, and MXNET_GPU_FALLBACK=error forbids running it "
             "on the CPU");
  static std::mutex mu;
  static auto* entries = new absl::flat_hash_map<const Op*, std::unique_ptr<FallbackEntry>>();
  std::lock_guard l(mu);
  auto& e = (*entries)[&op];
  if (!e) {
    e = std::make_unique<FallbackEntry>();
    e->fn = [&op](const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) { RunOnCpu(op, ctx, attrs, in, out); };
  }
  if (mode == GpuFallbackMode::kWarn && !e->warned) {
    e->warned = true;
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    std::fprintf(stderr,
                 "[%02d:%02d:%02d] ndarray/op.cc: GPU fallback: operator %s has no GPU kernel for "
                 "these inputs; it runs on the CPU (inputs copied to the host, outputs back to the "
                 "GPU). Shown once per operator; MXNET_GPU_FALLBACK=error makes this an error, "
                 "=silent hides it\n",
                 tm.tm_hour, tm.tm_min, tm.tm_sec, op.name.c_str());
  }
  return e->fn;
}
}  // namespace

// ---- Kernels of device libraries, by op name (ndarray/device_kernels.h, declared there). ----
void RegisterDeviceKernel(const std::string& op_name, KernelKey key, FCompute fn,
                          FSupports supports);

namespace {
struct DeviceKernels {
  std::shared_mutex mu;
  // Nodes and entries are never removed or moved (SelectKernel hands out references to their
  // FCompute; DeviceKernelsOf the address of a node's vector, read under the lock).
  std::unordered_map<std::string, std::vector<std::unique_ptr<Op::KernelEntry>>> by_op;
};
DeviceKernels& GetDeviceKernels() {
  static DeviceKernels* k = new DeviceKernels();
  return *k;
}
// The entries for `op` (sorted: higher backends first), or null.
const std::vector<std::unique_ptr<Op::KernelEntry>>* DeviceKernelsOf(const Op& op) {
  DeviceKernels& k = GetDeviceKernels();
  std::shared_lock l(k.mu);
  auto it = k.by_op.find(op.name);
  return it == k.by_op.end() ? nullptr : &it->second;
}
}  // namespace

void RegisterDeviceKernel(const std::string& op_name, KernelKey key, FCompute fn,
                          FSupports supports) {
  if (key.device == DeviceType::kCPU)
    MX_THROW(absl::StatusCode::kInternal, op_name,
             ": RegisterDeviceKernel is for device kernels; register CPU kernels with the op");
  DeviceKernels& k = GetDeviceKernels();
  std::unique_lock l(k.mu);
  auto& v = k.by_op[op_name];
  for (const auto& e : v)
    if (e->key == key) MX_THROW(absl::StatusCode::kInternal, op_name, ": kernel registered twice");
  v.push_back(
      std::make_unique<Op::KernelEntry>(Op::KernelEntry{key, std::move(fn), std::move(supports)}));
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return static_cast<int>(a->key.backend) > static_cast<int>(b->key.backend);
  });
}

const FCompute& Op::SelectKernel(DeviceType dev, const OpAttrs& attrs,
                                 std::span<const NDArray> in) const {
  // CPU variants (pinned/shared memory) run CPU kernels.
  DeviceType d = dev == DeviceType::kGPU ? DeviceType::kGPU : DeviceType::kCPU;
  for (const auto& k : kernels)
    if (k.key.device == d && (!k.supports || k.supports(attrs, in))) return k.fn;
  if (d == DeviceType::kGPU) {
    if (const auto* extra = DeviceKernelsOf(*this)) {
      DeviceKernels& dk = GetDeviceKernels();
      std::shared_lock l(dk.mu);
      for (const auto& k : *extra)
        if (k->key.device == d && (!k->supports || k->supports(attrs, in))) return k->fn;
    }
    return GpuFallback(*this);
  }
  MX_THROW(absl::StatusCode::kUnimplemented, name, ": no kernel for ", Device{dev, 0}.ToString(),
           " and these inputs");
}

const FCompute* Op::FindKernel(KernelKey key) const {
  for (const auto& k : kernels)
    if (k.key == key) return &k.fn;
  if (const auto* extra = DeviceKernelsOf(*this)) {
    std::shared_lock l(GetDeviceKernels().mu);
    for (const auto& k : *extra)
      if (k->key == key) return &k->fn;
  }
  return nullptr;
}

std::vector<KernelKey> Op::Kernels() const {
  std::vector<KernelKey> out;
  for (const auto& k : kernels) out.push_back(k.key);
  if (const auto* extra = DeviceKernelsOf(*this)) {
    std::shared_lock l(GetDeviceKernels().mu);
    for (const auto& k : *extra) out.push_back(k->key);
  }
  return out;
}

// ---- Registry. ----
namespace {
struct Registry {
  std::shared_mutex mu;                           // readers: Find/List; writers: registration
  absl::flat_hash_map<std::string, Op*> by_name;  // names and aliases (string_view lookup)
  std::vector<Op*> ops;
  // AttachStorageKernel calls for ops not registered yet, by the name given.
  absl::flat_hash_map<std::string, std::pair<FInferStorageType, FCompute>> pending_storage;
};
Registry& GetRegistry() {
  static Registry* r = new Registry();
  return *r;
}
}  // namespace

Op& OpRegistry::Register(const std::string& name) {
  Registry& r = GetRegistry();
  std::unique_lock l(r.mu);
  if (r.by_name.count(name))
    MX_THROW(absl::StatusCode::kInternal, "operator '", name, "' registered twice");
  Op* op = new Op(name);
  r.by_name[name] = op;
  r.ops.push_back(op);
  if (auto it = r.pending_storage.find(name); it != r.pending_storage.end()) {
    op->infer_storage_type = std::move(it->second.first);
    op->storage_kernel = std::move(it->second.second);
    r.pending_storage.erase(it);
  }
  return *op;
}

// Declared in ndarray/ops/sparse/storage_attach.h (kept out of op.h, which every op includes).
void AttachStorageKernel(const std::string& op_name, FInferStorageType infer, FCompute kernel);
void AttachStorageKernel(const std::string& op_name, FInferStorageType infer, FCompute kernel) {
  Registry& r = GetRegistry();
  std::unique_lock l(r.mu);
  auto it = r.by_name.find(op_name);
  if (it == r.by_name.end()) {
    r.pending_storage[op_name] = {std::move(infer), std::move(kernel)};
    return;
  }
  it->second->infer_storage_type = std::move(infer);
  it->second->storage_kernel = std::move(kernel);
}

void OpRegistry::AddAlias(Op* op, const std::string& alias) {
  Registry& r = GetRegistry();
  std::unique_lock l(r.mu);
  auto it = r.by_name.find(alias);
  if (it != r.by_name.end() && it->second != op)
    MX_THROW(absl::StatusCode::kInternal, "alias '", alias, "' of ", op->name, " is already ",
             it->second->name);
  r.by_name[alias] = op;
  if (auto p = r.pending_storage.find(alias); p != r.pending_storage.end()) {
    op->infer_storage_type = std::move(p->second.first);
    op->storage_kernel = std::move(p->second.second);
    r.pending_storage.erase(p);
  }
}

const Op* OpRegistry::Find(std::string_view name) {
  Registry& r = GetRegistry();
  std::shared_lock l(r.mu);
  auto it = r.by_name.find(absl::string_view(name.data(), name.size()));  // no std::string
  return it == r.by_name.end() ? nullptr : it->second;
}

const Op& OpRegistry::Get(std::string_view name) {
  const Op* op = Find(name);
  if (!op) MX_THROW(absl::StatusCode::kNotFound, "unknown operator '", name, "'");
  return *op;
}

std::vector<const Op*> OpRegistry::List() {
  Registry& r = GetRegistry();
  std::vector<const Op*> out;
  {
    std::shared_lock l(r.mu);
    out.assign(r.ops.begin(), r.ops.end());
  }
  std::sort(out.begin(), out.end(), [](const Op* a, const Op* b) { return a->name < b->name; });
  return out;
}

// ---- Inference helpers. ----
void MergeShape(Shape* into, const Shape& from, std::string_view what) {
  if (!from.ndim_known()) return;
  if (!into->ndim_known()) {
    *into = from;
    return;
  }
  if (into->ndim() != from.ndim())
    MX_THROW(absl::StatusCode::kInvalidArgument, what, ": expected shape ", into->ToString(),
             ", got ", from.ToString());
  for (int i = 0; i < from.ndim(); ++i) {
    if (from[i] < 0) continue;
    if ((*into)[i] < 0)
      (*into)[i] = from[i];
    else if ((*into)[i] != from[i])
      MX_THROW(absl::StatusCode::kInvalidArgument, what, ": expected shape ", into->ToString(),
               ", got ", from.ToString());
  }
}

void MergeType(int* into, int from, std::string_view what) {
  if (from < 0) return;
  if (*into < 0)
    *into = from;
  else if (*into != from)
    MX_THROW(absl::StatusCode::kInvalidArgument, what, ": expected dtype ",
             DTypeName(static_cast<DType>(*into)), ", got ", DTypeName(static_cast<DType>(from)));
}

void ElemwiseShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  std::string_view op = attrs.op() ? std::string_view(attrs.op()->name) : "op";
  Shape s = Shape::Unknown();
  for (size_t i = 0; i < in->size(); ++i) MergeShape(&s, (*in)[i], StrCat(op, ": input ", i));
  for (size_t i = 0; i < out->size(); ++i) MergeShape(&s, (*out)[i], StrCat(op, ": output ", i));
  for (auto& x : *in) x = s;
  for (auto& x : *out) x = s;
}

void ElemwiseType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  std::string_view op = attrs.op() ? std::string_view(attrs.op()->name) : "op";
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i) MergeType(&t, (*in)[i], StrCat(op, ": input ", i));
  for (size_t i = 0; i < out->size(); ++i) MergeType(&t, (*out)[i], StrCat(op, ": output ", i));
  for (auto& x : *in) x = t;
  for (auto& x : *out) x = t;
}

// ---- Dispatch. ----
namespace {
std::atomic<InvokeObserver*> g_record_observer{nullptr};

void CheckInputs(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs) {
  int n = op.NumInputs(attrs);
  if (static_cast<int>(inputs.size()) != n)
    MX_THROW(absl::StatusCode::kInvalidArgument, op.name, ": expected ", n, " inputs (",
             StrJoin(op.InputNames(attrs), ", "), "), got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_none())
      MX_THROW(absl::StatusCode::kInvalidArgument, op.name, ": input ", i, " (",
               op.InputNames(attrs)[i], ") is an empty NDArray");
    if (i && inputs[i].device() != inputs[0].device())
      MX_THROW(absl::StatusCode::kInvalidArgument, op.name, ": inputs are on different devices (",
               op.InputNames(attrs)[0], " on ", inputs[0].device().ToString(), ", ",
               op.InputNames(attrs)[i], " on ", inputs[i].device().ToString(), ")");
  }
}

// MXNET_CHECK_NAN (a debug switch, read once at the first op; any value but "" and "0" turns it
// on, e.g. `mxnet train --check-nan`): after each kernel that Invoke/InvokeInto runs, every
// floating-point output is scanned, and the first op whose output holds a NaN or an infinity
// throws mxnet::Error(kOutOfRange) naming the op, the output, the counts, the first flat index,
// and which inputs already held such values (none: this op produced them). Covers imperative
// calls, autograd's backward and optimizer updates; a hybridized block's graph runs its kernels
// in the executor (symbol/executor.h) and is not checked per op.
bool CheckNanEnabled() {
  static const bool on = [] {
    const char* v = std::getenv("MXNET_CHECK_NAN");
    return v && *v && std::string_view(v) != "0";
  }();
  return on;
}

// (NaN count, infinity count, first flat index of either; -1 when all finite).
struct NonFinite {
  int64_t nan = 0, inf = 0, first = -1;
};
NonFinite CountNonFinite(const NDArray& x) {
  NonFinite r;
  if (x.is_none() || !IsFloatingPoint(x.dtype()) || x.size() == 0) return r;
  std::vector<double> v = x.ToVector<double>();
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isfinite(v[i])) continue;
    (std::isnan(v[i]) ? r.nan : r.inf)++;
    if (r.first < 0) r.first = static_cast<int64_t>(i);
  }
  return r;
}

void CheckFiniteOutputs(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
                        std::span<const NDArray> outputs) {
  for (size_t k = 0; k < outputs.size(); ++k) {
    NonFinite o = CountNonFinite(outputs[k]);
    if (o.first < 0) continue;
    std::vector<std::string> bad_inputs;
    const auto names = op.InputNames(attrs);
    for (size_t i = 0; i < inputs.size(); ++i) {
      NonFinite in = CountNonFinite(inputs[i]);
      if (in.first >= 0)
        bad_inputs.push_back(StrCat(i < names.size() ? names[i] : StrCat("input ", i), " (", in.nan,
                                    " NaN, ", in.inf, " Inf)"));
    }
    MX_THROW(absl::StatusCode::kOutOfRange, "MXNET_CHECK_NAN: ", op.name, " output ", k, " ",
             outputs[k].shape().ToString(), " has ", o.nan, " NaN and ", o.inf,
             " Inf values (first at flat index ", o.first, "); ",
             bad_inputs.empty() ? std::string("its inputs are finite: this op produced them")
                                : StrCat("non-finite inputs: ", StrJoin(bad_inputs, ", ")));
  }
}

void Notify(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
            std::span<const NDArray> outputs, const DispatchState& st) {
  if (CheckNanEnabled() && !st.infer_only) CheckFiniteOutputs(op, attrs, inputs, outputs);
  if (st.is_recording)
    if (InvokeObserver* rec = g_record_observer.load(std::memory_order_acquire))
      rec->OnInvoke(op, attrs, inputs, outputs);
  if (st.tracer) st.tracer->OnInvoke(op, attrs, inputs, outputs);
}
}  // namespace

void SetRecordObserver(InvokeObserver* observer) {
  g_record_observer.store(observer, std::memory_order_release);
}

void InferOutputs(const Op& op, const OpAttrs& attrs, ShapeVec* in_shapes, DTypeVec* in_types,
                  ShapeVec* out_shapes, DTypeVec* out_types) {
  int nout = op.NumOutputs(attrs);
  out_shapes->assign(nout, Shape::Unknown());
  out_types->assign(nout, -1);
  if (op.infer_shape)
    op.infer_shape(attrs, in_shapes, out_shapes);
  else
    ElemwiseShape(attrs, in_shapes, out_shapes);
  if (op.infer_type)
    op.infer_type(attrs, in_types, out_types);
  else
    ElemwiseType(attrs, in_types, out_types);
}

void InferOutputsFromData(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
                          ShapeVec* out_shapes, DTypeVec* out_types) {
  ShapeVec in_s;
  DTypeVec in_t;
  for (const auto& x : inputs) {
    in_s.push_back(x.shape());
    in_t.push_back(static_cast<int>(x.dtype()));
  }
  InferOutputs(op, attrs, &in_s, &in_t, out_shapes, out_types);
  if (op.infer_shape_from_data) {
    ShapeVec dyn(out_shapes->size(), Shape::Unknown());
    op.infer_shape_from_data(attrs, inputs, &dyn);
    for (size_t i = 0; i < out_shapes->size() && i < dyn.size(); ++i)
      MergeShape(&dyn[i], (*out_shapes)[i], StrCat(op.name, ": output ", i));
    out_shapes->assign(dyn.begin(), dyn.end());
  }
  for (size_t i = 0; i < out_shapes->size(); ++i)
    if (!(*out_shapes)[i].is_known() || (*out_types)[i] < 0)
      MX_THROW(absl::StatusCode::kInvalidArgument, op.name,
               ": cannot infer the shape/dtype of output ", i, " (got ",
               (*out_shapes)[i].ToString(), ")");
}

// Declared in ndarray/op_writes.h.
bool MayWriteMutableInputs(const Op& op, const OpContext& ctx) {
  if (op.mutable_inputs.empty()) return false;
  if (ctx.is_record) return true;
  static constexpr std::string_view kAuxStateOps[] = {"BatchNorm", "_contrib_BatchNormWithReLU",
                                                      "_contrib_SyncBatchNorm",
                                                      "IdentityAttachKLSparseReg"};
  for (std::string_view n : kAuxStateOps)
    if (op.name == n) return false;
  return true;
}

namespace {
// After a kernel ran: its outputs and the inputs it updates in place hold new bytes
// (Storage::version).
void MarkWritten(const Op& op, const OpContext& ctx, std::span<const NDArray> inputs,
                 std::span<const NDArray> outputs) {
  for (const NDArray& o : outputs) o.mark_written();
  if (!MayWriteMutableInputs(op, ctx)) return;
  for (int i : op.mutable_inputs)
    if (i >= 0 && static_cast<size_t>(i) < inputs.size()) inputs[i].mark_written();
}

// ---- Storage types (ndarray/sparse.h). ----
bool AnySparse(std::span<const NDArray> xs) {
  for (const NDArray& x : xs)
    if (x.is_sparse()) return true;
  return false;
}

std::string StypeList(std::span<const NDArray> xs) {
  std::string s = "[";
  for (size_t i = 0; i < xs.size(); ++i)
    StrAppend(&s, i ? ", " : "", StorageTypeName(xs[i].stype()));
  return s + "]";
}

// MXNet's storage fallback: one stderr line per (op, input storage types), unless
// MXNET_STORAGE_FALLBACK_LOG_VERBOSE is "0" (MXNet's switch for its warning).
void LogFallback(const Op& op, std::span<const NDArray> inputs) {
  static const bool verbose = [] {
    const char* v = std::getenv("MXNET_STORAGE_FALLBACK_LOG_VERBOSE");
    return !(v && std::string_view(v) == "0");
  }();
  if (!verbose) return;
  static std::mutex mu;
  static absl::flat_hash_set<std::string> seen;
  std::string key = StrCat(op.name, " ", StypeList(inputs));
  {
    std::lock_guard l(mu);
    if (!seen.insert(key).second) return;
  }
  std::fprintf(stderr,
               "mxnet: storage fallback: operator %s has no kernel for input storage types %s; "
               "the sparse inputs are densified and the outputs are dense (shown once; "
               "MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0 hides this)\n",
               op.name.c_str(), StypeList(inputs).c_str());
}

// The fallback's dense inputs. A sparse input the op would update in place cannot fall back
// (the update would land in a temporary): kUnimplemented.
std::vector<NDArray> DensifyInputs(const Op& op, const OpAttrs& attrs,
                                   std::span<const NDArray> inputs) {
  LogFallback(op, inputs);
  std::vector<NDArray> dense(inputs.begin(), inputs.end());
  for (size_t i = 0; i < dense.size(); ++i) {
    if (!dense[i].is_sparse()) continue;
    if (op.IsMutableInput(static_cast<int>(i)))
      MX_THROW(absl::StatusCode::kUnimplemented, op.name, ": input ", i, " (",
               op.InputNames(attrs)[i], ") is ", StorageTypeName(dense[i].stype()),
               " and updated in place, which needs a sparse kernel this op does not have");
    dense[i] = CastStorage(dense[i], StorageType::kDefault);
  }
  return dense;
}

// Runs the op's storage kernel when it takes these input storage types; nullopt otherwise.
// `given` (InvokeInto's outputs, or empty): a dense output is written in place when the kernel
// makes it dense (a lazy optimizer update touches only its rows of the weight).
std::optional<NDArrayVec> TryStorageKernel(const Op& op, const OpAttrs& attrs,
                                           std::span<const NDArray> inputs, Device dev,
                                           const DispatchState& st,
                                           std::span<const NDArray> given = {}) {
  if (!op.infer_storage_type || dev.type != DeviceType::kCPU) return std::nullopt;
  absl::InlinedVector<StorageType, 4> in_st, out_st(op.NumOutputs(attrs), StorageType::kDefault);
  for (const NDArray& x : inputs) in_st.push_back(x.stype());
  if (!op.infer_storage_type(attrs, in_st, std::span<StorageType>(out_st))) return std::nullopt;
  ShapeVec out_s;
  DTypeVec out_t;
  InferOutputsFromData(op, attrs, inputs, &out_s, &out_t);
  NDArrayVec outs;
  for (size_t i = 0; i < out_s.size(); ++i) {
    if (out_st[i] == StorageType::kDefault && i < given.size() && !given[i].is_sparse() &&
        given[i].shape() == out_s[i] && static_cast<int>(given[i].dtype()) == out_t[i])
      outs.push_back(given[i]);
    else if (out_st[i] == StorageType::kDefault)
      outs.emplace_back(out_s[i], dev, static_cast<DType>(out_t[i]));
    else
      outs.push_back(EmptySparse(out_st[i], out_s[i], dev, static_cast<DType>(out_t[i])));
  }
  OpContext ctx{st.is_training, st.is_recording, dev};
  op.storage_kernel(ctx, attrs, inputs, outs);
  MarkWritten(op, ctx, inputs, outs);
  return outs;
}

// Shape-only dispatch (DispatchState::infer_only).
NDArrayVec InvokeInferOnly(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
                           ShapeVec& in_s, DTypeVec& in_t, Device dev, DispatchState& st) {
  ShapeVec out_s;
  DTypeVec out_t;
  InferOutputs(op, attrs, &in_s, &in_t, &out_s, &out_t);
  // Data-dependent shapes are known only when every input holds data, and are not read while
  // tracing (the traced graph computes them from each call's values).
  if (op.infer_shape_from_data && !st.tracer &&
      std::none_of(inputs.begin(), inputs.end(),
                   [](const NDArray& x) { return x.is_placeholder(); }))
    InferOutputsFromData(op, attrs, inputs, &out_s, &out_t);
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto& impl = *NDArrayAccess::impl(inputs[i]);
    if (!impl.is_placeholder) continue;
    MergeShape(&impl.shape, in_s[i], StrCat(op.name, ": input ", i));
  }
  NDArrayVec outs;
  for (size_t i = 0; i < out_s.size(); ++i)
    outs.push_back(NDArray::Placeholder(
        out_s[i], dev, out_t[i] < 0 ? DType::kFloat32 : static_cast<DType>(out_t[i])));
  Notify(op, attrs, inputs, outs, st);
  return outs;
}
}  // namespace

NDArrayVec Invoke(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
                  std::optional<Device> device) {
  CheckInputs(op, attrs, inputs);
  ShapeVec in_s;
  DTypeVec in_t;
  for (const auto& x : inputs) {
    in_s.push_back(x.shape());
    in_t.push_back(static_cast<int>(x.dtype()));
  }
  RuntimeContext& rc = RuntimeContext::Current();
  DispatchState& st = rc.dispatch;
  Device dev = device ? *device : inputs.empty() ? rc.default_device : inputs[0].device();
  if (st.infer_only) return InvokeInferOnly(op, attrs, inputs, in_s, in_t, dev, st);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].is_placeholder())
      MX_THROW(absl::StatusCode::kFailedPrecondition, op.name, ": input ", i, " (",
               op.InputNames(attrs)[i], ") has no data yet (an uninitialized parameter?)");
  // Storage types: the op's storage kernel, else MXNet's fallback to dense.
  std::vector<NDArray> dense_inputs;
  std::span<const NDArray> run_inputs = inputs;
  if (op.infer_storage_type || AnySparse(inputs)) {
    if (std::optional<NDArrayVec> outs = TryStorageKernel(op, attrs, inputs, dev, st)) {
      Notify(op, attrs, inputs, *outs, st);
      return *std::move(outs);
    }
    if (AnySparse(inputs)) {
      dense_inputs = DensifyInputs(op, attrs, inputs);
      run_inputs = dense_inputs;
    }
  }
  ShapeVec out_s;
  DTypeVec out_t;
  if (op.infer_shape_from_data)
    InferOutputsFromData(op, attrs, run_inputs, &out_s, &out_t);
  else
    InferOutputs(op, attrs, &in_s, &in_t, &out_s, &out_t);
  NDArrayVec outs;
  for (size_t i = 0; i < out_s.size(); ++i) {
    if (!out_s[i].is_known() || out_t[i] < 0)
      MX_THROW(absl::StatusCode::kInvalidArgument, op.name,
               ": cannot infer the shape/dtype of output ", i, " (got ", out_s[i].ToString(), ")");
    outs.emplace_back(out_s[i], dev, static_cast<DType>(out_t[i]));
  }
  OpContext ctx{st.is_training, st.is_recording, dev};
  op.SelectKernel(dev.type, attrs, run_inputs)(ctx, attrs, run_inputs, outs);
  MarkWritten(op, ctx, inputs, outs);
  Notify(op, attrs, inputs, outs, st);
  return outs;
}

void InvokeInto(const Op& op, const OpAttrs& attrs, std::span<const NDArray> inputs,
                std::span<const NDArray> outputs) {
  CheckInputs(op, attrs, inputs);
  ShapeVec in_s, out_s;
  DTypeVec in_t, out_t;
  for (const auto& x : inputs)
    in_s.push_back(x.shape()), in_t.push_back(static_cast<int>(x.dtype()));
  DispatchState& st = CurrentDispatchState();
  if (op.infer_shape_from_data && !st.infer_only)
    InferOutputsFromData(op, attrs, inputs, &out_s, &out_t);
  else
    InferOutputs(op, attrs, &in_s, &in_t, &out_s, &out_t);
  if (outputs.size() != out_s.size())
    MX_THROW(absl::StatusCode::kInvalidArgument, op.name, ": expected ", out_s.size(),
             " outputs, got ", outputs.size());
  // Outputs inference leaves (partly) unknown take the caller's shape/dtype (_set_value).
  auto fits = [](const Shape& given, const Shape& inferred) {
    if (!inferred.ndim_known()) return true;
    if (given.ndim() != inferred.ndim()) return false;
    for (int d = 0; d < given.ndim(); ++d)
      if (inferred[d] >= 0 && inferred[d] != given[d]) return false;
    return true;
  };
  for (size_t i = 0; i < outputs.size(); ++i)
    if (!fits(outputs[i].shape(), out_s[i]) ||
        (out_t[i] >= 0 && static_cast<int>(outputs[i].dtype()) != out_t[i]))
      MX_THROW(absl::StatusCode::kInvalidArgument, op.name, ": output ", i, " is ",
               outputs[i].shape().ToString(), " ", DTypeName(outputs[i].dtype()), ", expected ",
               out_s[i].ToString());
  if (st.infer_only) {  // shape-only dispatch: the outputs keep their contents
    Notify(op, attrs, inputs, outputs, st);
    return;
  }
  Device dev = outputs.empty() ? cpu() : outputs[0].device();
  OpContext ctx{st.is_training, st.is_recording, dev};
  if (AnySparse(inputs) || AnySparse(outputs)) {
    // Storage types: the op's storage kernel, into the dense outputs directly and into fresh
    // sparse ones copied over (MXNet's CopyFromTo casts storage), else the fallback: dense
    // inputs, dense temporaries for sparse outputs.
    if (std::optional<NDArrayVec> r = TryStorageKernel(op, attrs, inputs, dev, st, outputs)) {
      for (size_t i = 0; i < outputs.size(); ++i)
        if (!(*r)[i].is_same(outputs[i])) (*r)[i].copyto(outputs[i]);
    } else {
      std::vector<NDArray> dense_in = AnySparse(inputs)
                                          ? DensifyInputs(op, attrs, inputs)
                                          : std::vector<NDArray>(inputs.begin(), inputs.end());
      std::vector<NDArray> dense_out(outputs.begin(), outputs.end());
      for (NDArray& o : dense_out)
        if (o.is_sparse()) o = NDArray(o.shape(), dev, o.dtype());
      op.SelectKernel(dev.type, attrs, dense_in)(ctx, attrs, dense_in, dense_out);
      for (size_t i = 0; i < outputs.size(); ++i)
        if (outputs[i].is_sparse()) dense_out[i].copyto(outputs[i]);
    }
    MarkWritten(op, ctx, inputs, outputs);
    Notify(op, attrs, inputs, outputs, st);
    return;
  }
  op.SelectKernel(dev.type, attrs, inputs)(ctx, attrs, inputs, outputs);
  MarkWritten(op, ctx, inputs, outputs);
  Notify(op, attrs, inputs, outputs, st);
}

NDArrayVec Invoke(std::string_view op_name, std::span<const NDArray> inputs,
                  const AttrDict& attrs) {
  const Op& op = OpRegistry::Get(op_name);
  std::optional<Device> dev;
  if (auto it = attrs.find("ctx"); it != attrs.end() && !it->second.empty())
    dev = ValueOrThrow(ParseDevice(it->second));
  return Invoke(op, OpAttrs::Parse(op, attrs), inputs, dev);
}

}  // namespace mxnet
