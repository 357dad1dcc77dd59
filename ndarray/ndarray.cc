#include "ndarray/ndarray.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "base/strings.h"
#include "ndarray/ndarray_impl.h"
#include "ndarray/op.h"
#include "ndarray/sparse.h"

namespace mxnet {

std::string_view GradReqName(GradReq r) {
  switch (r) {
    case GradReq::kNull:
      return "null";
    case GradReq::kWrite:
      return "write";
    case GradReq::kAdd:
      return "add";
  }
  return "null";
}

absl::StatusOr<GradReq> ParseGradReq(std::string_view s) {
  if (s == "write" || s == "inplace") return GradReq::kWrite;
  if (s == "add") return GradReq::kAdd;
  if (s == "null") return GradReq::kNull;
  return absl::InvalidArgumentError(
      StrCat("invalid grad_req '", s, "' (expected 'write', 'add' or 'null')"));
}

NDArray::NDArray(const Shape& shape, Device device, DType dtype) {
  if (!shape.is_known())
    MX_THROW(absl::StatusCode::kInvalidArgument, "NDArray: cannot allocate an array of shape ",
             shape.ToString(), " (all dims must be known and non-negative)");
  impl_ = std::make_shared<Impl>();
  impl_->shape = shape;
  impl_->dtype = dtype;
  impl_->storage = Storage::Alloc(static_cast<size_t>(shape.Size()) * DTypeSize(dtype), device);
}

NDArray NDArray::Placeholder(const Shape& shape, Device device, DType dtype) {
  auto impl = std::make_shared<Impl>();
  impl->shape = shape;
  impl->dtype = dtype;
  impl->is_placeholder = true;
  impl->storage = Storage::Alloc(0, device);
  return NDArray(std::move(impl));
}

NDArray NDArray::Full(const Shape& shape, double value, Device device, DType dtype) {
  NDArray a(shape, device, dtype);
  a.Fill(value);
  return a;
}

const NDArray::Impl& NDArray::checked() const {
  if (!impl_)
    MX_THROW(absl::StatusCode::kFailedPrecondition, "operation on an empty (none) NDArray");
  return *impl_;
}

const Shape& NDArray::shape() const { return checked().shape; }
DType NDArray::dtype() const { return checked().dtype; }
Device NDArray::device() const { return checked().storage->device(); }
namespace {
// Reading values: an error inside a hybridized forward (traced without running) for arrays the
// trace follows, and for placeholders (no data).
void CheckReadable(const NDArray::Impl& i) {
  const DispatchState& st = CurrentDispatchState();
  if (st.tracer && (i.trace_entry || i.is_placeholder))
    MX_THROW(absl::StatusCode::kFailedPrecondition,
             "cannot read array values inside a hybridized forward: hybridize traces forward "
             "without running it (values do not exist yet) and the graph must not depend on "
             "data; use ops instead of reading values (asscalar, ToVector, data pointers), or "
             "call the block without hybridize()");
  if (i.is_placeholder)
    MX_THROW(absl::StatusCode::kFailedPrecondition,
             "cannot access the values of an array of shape ", i.shape.ToString(),
             " that has no data yet (shape inference / uninitialized parameter)");
}
}  // namespace

void* NDArray::data_ptr() const {
  const Impl& i = checked();
  if (i.sparse)
    MX_THROW(absl::StatusCode::kFailedPrecondition, "data_ptr() on a ", StorageTypeName(stype()),
             " array of shape ", i.shape.ToString(),
             ": sparse arrays have no dense buffer (use data(), aux_data(i) or "
             "tostype(StorageType::kDefault))");
  if (i.is_placeholder) CheckReadable(i);
  return i.storage->data() ? static_cast<char*>(i.storage->data()) + i.offset : nullptr;
}

bool NDArray::shares_storage(const NDArray& o) const {
  return impl_ && o.impl_ && impl_->storage == o.impl_->storage;
}

NDArray NDArray::ViewAs(const Shape& shape, size_t extra_offset_bytes) const {
  const Impl& i = checked();
  if (i.sparse) {
    if (shape == i.shape && extra_offset_bytes == 0) return SparseShare(*this);
    MX_THROW(absl::StatusCode::kUnimplemented, "views (reshape, slice, at, expand_dims, squeeze) ",
             "of a ", StorageTypeName(stype()), " array are not supported (shape ",
             i.shape.ToString(), " to ", shape.ToString(), "); use tostype(StorageType::kDefault)");
  }
  auto v = std::make_shared<Impl>();
  v->storage = i.storage;
  v->offset = i.offset + extra_offset_bytes;
  v->shape = shape;
  v->dtype = i.dtype;
  v->is_placeholder = i.is_placeholder;
  return NDArray(std::move(v));
}

Shape InferReshape(const Shape& in, const std::vector<int64_t>& spec_in, bool reverse,
                   std::string_view what) {
  auto fail = [&](std::string_view why) {
    MX_THROW(absl::StatusCode::kInvalidArgument, what, ": cannot reshape ", in.ToString(),
             " with shape spec (", StrJoin(spec_in, ", "), "): ", why);
  };
  std::vector<int64_t> src(in.begin(), in.end());
  std::vector<int64_t> spec = spec_in;
  if (reverse) {
    std::reverse(src.begin(), src.end());
    std::reverse(spec.begin(), spec.end());
    // -4 takes the two factors after it; move it back in front of them.
    for (size_t i = 0; i + 2 < spec.size(); ++i)
      if (spec[i + 2] == -4) {  // reversed [b, a, -4] -> [-4, b, a]
        std::rotate(spec.begin() + i, spec.begin() + i + 2, spec.begin() + i + 3);
        i += 2;
      }
  }
  std::vector<int64_t> out;
  int infer_at = -1;
  size_t s = 0;  // index into src
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t c = spec[i];
    if (c > 0) {
      out.push_back(c);
      ++s;
    } else if (c == 0) {
      if (s >= src.size()) fail("code 0 has no input dimension to copy");
      out.push_back(src[s++]);
    } else if (c == -1) {
      if (infer_at >= 0) fail("more than one -1");
      infer_at = static_cast<int>(out.size());
      out.push_back(1);
      ++s;
    } else if (c == -2) {
      while (s < src.size()) out.push_back(src[s++]);
    } else if (c == -3) {
      if (s + 1 >= src.size()) fail("code -3 needs two input dimensions");
      out.push_back(src[s] * src[s + 1]);
      s += 2;
    } else if (c == -4) {
      if (i + 2 >= spec.size()) fail("code -4 needs two factors after it");
      if (s >= src.size()) fail("code -4 has no input dimension to split");
      int64_t d = src[s++], a = spec[i + 1], b = spec[i + 2];
      if (a == -1 && b == -1) fail("code -4 factors cannot both be -1");
      if (a == -1) a = b ? d / b : 0;
      if (b == -1) b = a ? d / a : 0;
      if (a * b != d) fail(StrCat("code -4 factors ", a, "*", b, " do not give ", d));
      out.push_back(a);
      out.push_back(b);
      i += 2;
    } else {
      fail(StrCat("invalid code ", c));
    }
  }
  int64_t total = in.Size();
  if (infer_at >= 0) {
    int64_t known = 1;
    for (size_t i = 0; i < out.size(); ++i)
      if (static_cast<int>(i) != infer_at) known *= out[i];
    if (known == 0 || total % known != 0) fail("the size cannot be inferred for -1");
    out[infer_at] = total / known;
  }
  if (reverse) std::reverse(out.begin(), out.end());
  Shape result(out);
  if (result.Size() != total)
    fail(StrCat("the new shape ", result.ToString(), " has ", result.Size(), " elements, not ",
                total));
  return result;
}

// Views of arrays that autograd or the hybridize tracer follow (or placeholders in a shape-only
// pass) must go through the registered ops so the history is kept, as MXNet records reshape
// and slicing. Returns none when a plain view is fine.
namespace {
bool NeedsOpDispatch(const NDArray::Impl& impl) {
  const DispatchState& st = CurrentDispatchState();
  if (st.infer_only) return true;
  if (st.tracer && impl.trace_entry) return true;
  return st.is_recording && (impl.autograd_entry || (impl.grad && impl.grad_req != GradReq::kNull));
}

NDArray ViaOp(const NDArray& x, const char* op_name, const AttrDict& attrs) {
  const Op* op = OpRegistry::Find(op_name);
  if (!op) return NDArray();
  return Invoke(*op, OpAttrs::Parse(*op, attrs), std::vector<NDArray>{x})[0];
}

std::string Tuple(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) StrAppend(&s, i ? ", " : "", v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}
}  // namespace

NDArray NDArray::reshape(const std::vector<int64_t>& spec, bool reverse) const {
  if (NeedsOpDispatch(checked())) {
    NDArray r =
        ViaOp(*this, "Reshape", {{"shape", Tuple(spec)}, {"reverse", reverse ? "True" : "False"}});
    if (!r.is_none()) return r;
  }
  return ViewAs(InferReshape(shape(), spec, reverse, "reshape"));
}

NDArray NDArray::slice(int64_t begin, int64_t end) const {
  const Shape& s = shape();
  if (NeedsOpDispatch(checked()) && s.ndim() >= 1) {
    NDArray r =
        ViaOp(*this, "slice_axis", {{"axis", "0"}, {"begin", StrCat(begin)}, {"end", StrCat(end)}});
    if (!r.is_none()) return r;
  }
  if (s.ndim() < 1) MX_THROW(absl::StatusCode::kInvalidArgument, "slice: cannot slice a scalar");
  int64_t n = s[0];
  if (begin < 0) begin += n;
  if (end < 0) end += n;
  if (begin < 0 || end > n || begin > end)
    MX_THROW(absl::StatusCode::kOutOfRange, "slice: [", begin, ", ", end,
             ") is out of range for axis 0 of shape ", s.ToString());
  Shape ns = s;
  ns[0] = end - begin;
  size_t row = static_cast<size_t>(s.ProdRange(1, s.ndim())) * DTypeSize(dtype());
  return ViewAs(ns, static_cast<size_t>(begin) * row);
}

NDArray NDArray::at(int64_t index) const {
  const Shape& s = shape();
  if (NeedsOpDispatch(checked()) && s.ndim() >= 1) {
    int64_t i = index < 0 ? index + s[0] : index;
    NDArray r =
        ViaOp(*this, "slice_axis", {{"axis", "0"}, {"begin", StrCat(i)}, {"end", StrCat(i + 1)}});
    if (!r.is_none()) {
      NDArray q = ViaOp(r, "squeeze", {{"axis", "(0,)"}});
      if (!q.is_none()) return q;
    }
  }
  if (s.ndim() < 1) MX_THROW(absl::StatusCode::kInvalidArgument, "at: cannot index a scalar");
  int64_t i = index < 0 ? index + s[0] : index;
  if (i < 0 || i >= s[0])
    MX_THROW(absl::StatusCode::kOutOfRange, "at: index ", index,
             " is out of range for axis 0 of shape ", s.ToString());
  Shape ns;
  for (int d = 1; d < s.ndim(); ++d) ns.push_back(s[d]);
  return ViewAs(ns, static_cast<size_t>(i) * ns.Size() * DTypeSize(dtype()));
}

NDArray NDArray::expand_dims(int axis) const {
  const Shape& s = shape();
  if (NeedsOpDispatch(checked())) {
    NDArray r = ViaOp(*this, "expand_dims", {{"axis", StrCat(axis)}});
    if (!r.is_none()) return r;
  }
  int a = NormalizeAxis(axis, s.ndim() + 1, "expand_dims");
  std::vector<int64_t> d = s.ToVector();
  d.insert(d.begin() + a, 1);
  return ViewAs(Shape(d));
}

NDArray NDArray::squeeze(const std::vector<int>& axes) const {
  const Shape& s = shape();
  if (NeedsOpDispatch(checked())) {
    std::vector<int64_t> a(axes.begin(), axes.end());
    NDArray r = ViaOp(*this, "squeeze", axes.empty() ? AttrDict{} : AttrDict{{"axis", Tuple(a)}});
    if (!r.is_none()) return r;
  }
  std::vector<bool> drop(s.ndim(), false);
  if (axes.empty()) {
    for (int i = 0; i < s.ndim(); ++i) drop[i] = s[i] == 1;
  } else {
    for (int a : axes) {
      int n = NormalizeAxis(a, s.ndim(), "squeeze");
      if (s[n] != 1)
        MX_THROW(absl::StatusCode::kInvalidArgument, "squeeze: axis ", a, " of shape ",
                 s.ToString(), " has size ", s[n], ", not 1");
      drop[n] = true;
    }
  }
  Shape ns;
  for (int i = 0; i < s.ndim(); ++i)
    if (!drop[i]) ns.push_back(s[i]);
  return ViewAs(ns);
}

NDArray NDArray::detach() const {
  // Inside a hybridized forward, detach is a graph node that stops gradients.
  if (CurrentDispatchState().tracer && checked().trace_entry) {
    NDArray r = ViaOp(*this, "BlockGrad", {});
    if (!r.is_none()) return r;
  }
  return ViewAs(shape());
}

NDArray NDArray::copy() const { return copyto(device()); }

NDArray NDArray::copyto(Device dev) const {
  if (is_sparse()) return SparseCopyTo(*this, dev);
  NDArray out(shape(), dev, dtype());
  CopyBytes(out.data_ptr(), dev, data_ptr(), device(), nbytes());
  out.mark_written();
  return out;
}

void NDArray::copyto(const NDArray& dst) const {
  if (dst.shape() != shape())
    MX_THROW(absl::StatusCode::kInvalidArgument, "copyto: destination shape ",
             dst.shape().ToString(), " differs from source shape ", shape().ToString());
  if (is_sparse() || dst.is_sparse()) {  // MXNet casts the storage to dst's (CopyFromTo)
    NDArray v = CastStorage(dst.dtype() == dtype() ? *this : astype(dst.dtype()), dst.stype());
    if (!dst.is_sparse()) return v.copyto(dst);
    NDArray moved = v.is_same(*this) ? SparseCopyTo(v, dst.device()) : v.copyto(dst.device());
    std::vector<NDArray> aux;
    for (int k = 0; k < moved.num_aux(); ++k) aux.push_back(moved.aux_data(k));
    SetSparseParts(dst, moved.data(), std::move(aux));
    return;
  }
  if (dst.dtype() == dtype()) {
    CopyBytes(dst.data_ptr(), dst.device(), data_ptr(), device(), nbytes());
    dst.mark_written();
    return;
  }
  NDArray tmp = astype(dst.dtype());
  CopyBytes(dst.data_ptr(), dst.device(), tmp.data_ptr(), tmp.device(), dst.nbytes());
  dst.mark_written();
}

NDArray NDArray::as_in_context(Device dev) const { return dev == device() ? *this : copyto(dev); }

NDArray NDArray::astype(DType t, bool copy_always) const {
  if (t == dtype()) return copy_always ? copy() : *this;
  if (is_sparse()) return SparseAsType(*this, t);
  std::vector<char> src(nbytes()), dst(static_cast<size_t>(size()) * DTypeSize(t));
  SyncCopyToCPU(src.data(), src.size());
  ConvertElements(src.data(), dtype(), dst.data(), t, static_cast<size_t>(size()));
  NDArray out(shape(), device(), t);
  out.SyncCopyFromCPU(dst.data(), dst.size());
  return out;
}

void NDArray::SyncCopyFromCPU(const void* src, size_t bytes) const {
  if (bytes != nbytes())
    MX_THROW(absl::StatusCode::kInvalidArgument, "SyncCopyFromCPU: got ", bytes,
             " bytes for an array of ", nbytes(), " bytes (shape ", shape().ToString(), ", ",
             DTypeName(dtype()), ")");
  CopyBytes(data_ptr(), device(), src, cpu(), bytes);
  mark_written();
}

void NDArray::SyncCopyToCPU(void* dst, size_t bytes) const {
  CheckReadable(checked());
  if (is_sparse()) return CastStorage(*this, StorageType::kDefault).SyncCopyToCPU(dst, bytes);
  if (bytes != nbytes())
    MX_THROW(absl::StatusCode::kInvalidArgument, "SyncCopyToCPU: buffer of ", bytes,
             " bytes for an array of ", nbytes(), " bytes");
  wait_to_read();
  CopyBytes(dst, cpu(), data_ptr(), device(), bytes);
}

void NDArray::Fill(double value) const {
  if (is_sparse()) {
    if (value != 0)
      MX_THROW(absl::StatusCode::kInvalidArgument, "Fill(", value, ") on a ",
               StorageTypeName(stype()), " array: only 0 keeps it sparse (use tostype first)");
    NDArray z = sparse_zeros(stype(), shape(), device(), dtype());
    std::vector<NDArray> aux;
    for (int k = 0; k < z.num_aux(); ++k) aux.push_back(z.aux_data(k));
    SetSparseParts(*this, z.data(), std::move(aux));
    return;
  }
  size_t n = static_cast<size_t>(size());
  if (n == 0) return;
  size_t es = DTypeSize(dtype());
  char one[8];
  ConvertElements(&value, DType::kFloat64, one, dtype(), 1);
  if (device().is_cpu()) {
    char* p = static_cast<char*>(data_ptr());
    for (size_t i = 0; i < n; ++i) std::memcpy(p + i * es, one, es);
    mark_written();
  } else {
    std::vector<char> host(n * es);
    for (size_t i = 0; i < n; ++i) std::memcpy(host.data() + i * es, one, es);
    SyncCopyFromCPU(host.data(), host.size());
  }
}

void NDArray::wait_to_read() const {
  const Impl& i = checked();
  Device d = i.storage->device();
  if (d.is_gpu()) GetDeviceBackend(d.type).Synchronize(d.id);
}

void waitall() {
  if (HasDeviceBackend(DeviceType::kGPU)) GetDeviceBackend(DeviceType::kGPU).Synchronize(-1);
}

void NDArray::attach_grad(GradReq req) const {
  const Impl& i = checked();
  NDArray g(shape(), device(), dtype());
  g.Fill(0);
  auto* impl = const_cast<Impl*>(&i);
  impl->grad = g.impl_;
  impl->grad_req = req;
  impl->autograd_entry.reset();  // a fresh variable: no history
}

bool NDArray::is_placeholder() const { return impl_ && impl_->is_placeholder; }
bool NDArray::is_sparse() const { return impl_ && impl_->sparse; }

bool NDArray::fresh_grad() const { return impl_ && impl_->grad && impl_->grad->fresh_grad; }

void NDArray::set_fresh_grad(bool fresh) const {
  if (!impl_ || !impl_->grad)
    MX_THROW(absl::StatusCode::kFailedPrecondition,
             "set_fresh_grad: the array has no gradient buffer (call attach_grad first)");
  impl_->grad->fresh_grad = fresh;
}

ArrayHookState* NDArray::hook_state(HookSlot slot) const {
  const Impl& i = checked();
  return (slot == HookSlot::kAutograd ? i.autograd_entry : i.trace_entry).get();
}

void NDArray::set_hook_state(HookSlot slot, std::shared_ptr<ArrayHookState> state) const {
  checked();
  (slot == HookSlot::kAutograd ? impl_->autograd_entry : impl_->trace_entry) = std::move(state);
}

void NDArray::set_grad_buffer(const NDArray& grad, GradReq req) const {
  checked();
  if (grad.is_none() || grad.shape() != shape())
    MX_THROW(absl::StatusCode::kInvalidArgument, "set_grad_buffer: gradient buffer of shape ",
             grad.is_none() ? std::string("none") : grad.shape().ToString(),
             " for a variable of shape ", shape().ToString());
  impl_->grad = grad.impl_;
  impl_->grad_req = req;
}

void NDArray::clear_grad() const {
  checked();
  impl_->grad.reset();
  impl_->grad_req = GradReq::kNull;
}

const std::shared_ptr<Storage>& NDArray::storage() const { return checked().storage; }
size_t NDArray::storage_offset() const { return checked().offset; }

void NDArray::mark_written() const {
  if (impl_ && impl_->storage) impl_->storage->bump_version();
}

NDArray NDArray::FromStorage(std::shared_ptr<Storage> storage, size_t offset, const Shape& shape,
                             DType dtype) {
  if (!storage) MX_THROW(absl::StatusCode::kInvalidArgument, "NDArray::FromStorage: null storage");
  if (!shape.is_known())
    MX_THROW(absl::StatusCode::kInvalidArgument, "NDArray::FromStorage: shape ", shape.ToString(),
             " is not fully known");
  size_t need = static_cast<size_t>(shape.Size()) * DTypeSize(dtype);
  if (offset > storage->bytes() || need > storage->bytes() - offset)
    MX_THROW(absl::StatusCode::kInvalidArgument, "NDArray::FromStorage: a ", shape.ToString(), " ",
             DTypeName(dtype), " view (", need, " bytes) at offset ", offset,
             " does not fit in a storage block of ", storage->bytes(), " bytes");
  auto impl = std::make_shared<Impl>();
  impl->storage = std::move(storage);
  impl->offset = offset;
  impl->shape = shape;
  impl->dtype = dtype;
  return NDArray(std::move(impl));
}

NDArray NDArray::grad() const {
  const Impl& i = checked();
  return i.grad ? NDArray(i.grad) : NDArray();
}

bool NDArray::has_grad() const { return checked().grad != nullptr; }

GradReq NDArray::grad_req() const { return checked().grad_req; }

namespace {
BackwardHook g_backward_hook = nullptr;
}  // namespace

void SetBackwardHook(BackwardHook hook) { g_backward_hook = hook; }

void NDArray::backward(const NDArray& out_grad, bool retain_graph, bool train_mode) const {
  if (!g_backward_hook)
    MX_THROW(absl::StatusCode::kFailedPrecondition,
             "NDArray::backward needs the //autograd library linked");
  g_backward_hook(*this, out_grad, retain_graph, train_mode);
}

// ---- Element conversion. ----
namespace {
template <typename S, typename D>
void ConvertTyped(const S* s, D* d, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<D, bool>) {
      d[i] = static_cast<float>(s[i]) != 0.0f || static_cast<double>(s[i]) != 0.0;
    } else if constexpr (std::is_same_v<D, Half> || std::is_same_v<D, BFloat16>) {
      d[i] = D(static_cast<float>(s[i]));
    } else if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>) {
      d[i] = static_cast<D>(static_cast<float>(s[i]));
    } else {
      d[i] = static_cast<D>(s[i]);
    }
  }
}
}  // namespace

void ConvertElements(const void* src, DType st, void* dst, DType dt, size_t n) {
  if (n == 0) return;  // src/dst may be null for empty arrays
  if (st == dt) {
    std::memcpy(dst, src, n * DTypeSize(st));
    return;
  }
  MX_DTYPE_SWITCH(st, S, {
    MX_DTYPE_SWITCH(dt, D, ConvertTyped(static_cast<const S*>(src), static_cast<D*>(dst), n));
  });
}

// ---- Printing (NumPy layout, as MXNet prints NDArrays). ----
namespace {

std::string FormatFloat(double v, int decimals, bool sci) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (sci) {
    std::snprintf(buf, sizeof buf, "%.*e", decimals, v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  // Trim trailing zeros but keep the point ("1." like NumPy).
  if (s.find('.') == std::string::npos) s += '.';
  while (s.back() == '0') s.pop_back();
  return s;
}

}  // namespace

std::string NDArray::ToString() const {
  if (is_none()) return "<NDArray none>";
  const Shape& s = shape();
  if (is_placeholder())
    return StrCat("<NDArray ", s.ToString(), " @", device().ToString(), ", no data (placeholder)>");
  if (is_sparse()) {  // MXNet prints the class, shape and context only
    std::string dims;
    for (int d = 0; d < s.ndim(); ++d) StrAppend(&dims, d ? "x" : "", s[d]);
    return StrCat("<", stype() == StorageType::kCSR ? "CSRNDArray" : "RowSparseNDArray", " ", dims,
                  " @", device().ToString(), ">");
  }
  std::vector<double> v = ToVector<double>();
  bool is_float = IsFloatingPoint(dtype());
  bool is_bool = dtype() == DType::kBool;
  // Choose the float style for the whole array, like NumPy.
  bool sci = false;
  int decimals = 0;
  if (is_float) {
    double maxabs = 0, minabs = INFINITY;
    for (double x : v)
      if (std::isfinite(x) && x != 0)
        maxabs = std::max(maxabs, std::fabs(x)), minabs = std::min(minabs, std::fabs(x));
    sci = maxabs >= 1e8 || (minabs < 1e-4 && minabs > 0) ||
          (maxabs > 0 && maxabs / minabs > 1e3 && minabs < 1e-2);
    if (!sci) {
      for (double x : v) {
        if (!std::isfinite(x)) continue;
        for (int d = decimals; d <= 8; ++d) {
          double scaled = x * std::pow(10.0, d);
          if (std::fabs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, std::fabs(scaled)) ||
              d == 8) {
            decimals = std::max(decimals, d);
            break;
          }
        }
      }
    } else {
      decimals = 8;
    }
  }
  std::vector<std::string> cells(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (is_bool)
      cells[i] = v[i] != 0 ? "True" : "False";
    else if (is_float)
      cells[i] = FormatFloat(v[i], decimals, sci);
    else
      cells[i] = StrCat(static_cast<int64_t>(v[i]));
  }
  // Align like NumPy: floats on the decimal point (integer part padded left, fraction right).
  size_t int_w = 0, frac_w = 0;
  for (const auto& c : cells) {
    size_t dot = is_float && !sci ? c.find('.') : std::string::npos;
    int_w = std::max(int_w, dot == std::string::npos ? c.size() : dot);
    if (dot != std::string::npos) frac_w = std::max(frac_w, c.size() - dot);
  }
  for (auto& c : cells) {
    size_t dot = is_float && !sci ? c.find('.') : std::string::npos;
    size_t iw = dot == std::string::npos ? c.size() : dot;
    size_t fw = dot == std::string::npos ? 0 : c.size() - dot;
    c = std::string(int_w - iw, ' ') + c + std::string(frac_w - fw, ' ');
  }
  size_t width = int_w + frac_w;
  const int64_t kThreshold = 1000, kEdge = 3;
  bool summarize = static_cast<int64_t>(v.size()) > kThreshold;
  std::string out;
  // Recursive writer over dims.
  std::vector<int64_t> strides(s.ndim(), 1);
  for (int d = s.ndim() - 2; d >= 0; --d) strides[d] = strides[d + 1] * s[d + 1];
  auto pad = [&](const std::string& c) { return std::string(width - c.size(), ' ') + c; };
  std::function<void(int, int64_t)> rec = [&](int d, int64_t base) {
    if (d == s.ndim()) {
      out += pad(cells[base]);
      return;
    }
    out += "[";
    int64_t n = s[d];
    for (int64_t i = 0; i < n; ++i) {
      if (summarize && n > 2 * kEdge && i == kEdge) {
        out += d + 1 == s.ndim() ? "..." : "...";
        i = n - kEdge - 1;
        if (d + 1 == s.ndim())
          out += " ";
        else
          out += "\n" + std::string(d + 1, ' ');
        continue;
      }
      rec(d + 1, base + i * strides[d]);
      if (i + 1 < n) {
        if (d + 1 == s.ndim())
          out += " ";
        else
          out += std::string(s.ndim() - d - 1, '\n') + std::string(d + 1, ' ');
      }
    }
    out += "]";
  };
  if (s.ndim() == 0)
    out += v.empty() ? "" : cells[0];
  else
    rec(0, 0);
  std::string dims;
  for (int d = 0; d < s.ndim(); ++d) StrAppend(&dims, d ? "x" : "", s[d]);
  StrAppend(&out, "\n<NDArray ", dims, " @", device().ToString(), ">");
  return out;
}

std::ostream& operator<<(std::ostream& os, const NDArray& a) { return os << a.ToString(); }

}  // namespace mxnet
