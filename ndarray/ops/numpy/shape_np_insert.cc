// MXNet 1.9.1's mx.np.insert / mx.np.delete and boolean-mask assignment with NumPy's semantics:
//   _npi_insert_scalar (arr[, values]; int_ind), _npi_insert_slice (arr[, values]; start, stop,
//   step), _npi_insert_tensor (arr[, values], obj): numpy.insert(arr, index, values, axis). The
//     values input is absent when `val` (a scalar) is given. axis None: arr flattened. A scalar
//     index (int_ind or a 0-d obj) inserts values with its first axis moved to `axis`; a single
//     index in a 1-D obj or slice inserts values as they broadcast (numnew = values.shape[axis]
//     after prepending ones); several indices insert one slice each, values broadcast to
//     arr.shape with axis -> len(indices), in obj's order (NumPy: stable sort, then shifted).
//     Indices in [-N, N]. Values are cast to arr's dtype; out dtype = arr's.
//   _npi_delete (arr[, obj]; int_ind | start, stop, step | obj): numpy.delete. A tensor obj:
//     integer indices, negative ones from the end, duplicates once; the output length depends on
//     obj's values (dynamic output shape).
//   _npi_boolean_mask_assign_scalar (data, mask; value, start_axis),
//   _npi_boolean_mask_assign_tensor (data, mask, value; start_axis): data with
//     data[lead..., mask, ...] = value where mask covers axes start_axis.. of data (nonzero =
//     true). A tensor value broadcasts to (lead..., count, trail...) when it has that many dims,
//     else to (lead..., trail...) and repeats for every true position (MXNet's rule; for
//     start_axis 0, what mx.np's a[mask] = v uses, both are NumPy's broadcasting).
// Where MXNet 1.9.1 is wrong we follow NumPy (tools/conformance/refs_np_insert.py keeps only the
// calls MXNet gets right): its delete silently ignores negative and out-of-range tensor indices;
// its insert with `val` and an axis fails ("dimension do not match") and with `val` and a slice or
// tensor index fails on a dtype check; insert of values whose broadcast shape does not fit reads
// past the values (garbage) instead of failing; the tensor mask assignment without the count axis
// for start_axis > 0 reads past the value. Not differentiable (MXNet: no FGradient for
// insert/delete, zero gradients for the mask assignment).
// No nd:: wrappers (like shape_np_api.h): call them by name, e.g.
//   Invoke("_npi_insert_scalar", {arr, values}, {{"int_ind", "1"}, {"axis", "0"}}).
// Source: src/operator/numpy/np_insert_op_*.cc, np_delete_op.cc, np_boolean_mask_assign.cc.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "ndarray/ops/core/shape_util.h"
#include "ndarray/params.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;

// _npi_insert_scalar / _slice / _tensor (MXNet's NumpyInsertParam). The index is int_ind
// (_scalar), the Python slice start:stop:step (_slice) or the `obj` input (_tensor). `val`
// given: a scalar inserted (no `values` input); else the `values` input. axis None: arr is
// flattened first.
struct NpInsertParam {
  std::optional<double> val;
  std::optional<int> start, stop, step, int_ind, axis;
  template <class D>
  static void Declare(D& d) {
    d.field("val", &NpInsertParam::val).describe("Scalar inserted (None: the values input).");
    d.field("start", &NpInsertParam::start).describe("Slice start (_npi_insert_slice).");
    d.field("stop", &NpInsertParam::stop).describe("Slice stop (_npi_insert_slice).");
    d.field("step", &NpInsertParam::step).describe("Slice step (_npi_insert_slice).");
    d.field("int_ind", &NpInsertParam::int_ind).describe("Index (_npi_insert_scalar).");
    d.field("axis", &NpInsertParam::axis).describe("Axis to insert along (None: flattened).");
  }
};

// _npi_delete (MXNet's NumpyDeleteParam): removes int_ind, the slice start:stop:step, or (when
// neither is given) the indices of the `obj` input along axis (None: flattened).
struct NpDeleteParam {
  std::optional<int> start, stop, step, int_ind, axis;
  template <class D>
  static void Declare(D& d) {
    d.field("start", &NpDeleteParam::start).describe("Slice start.");
    d.field("stop", &NpDeleteParam::stop).describe("Slice stop.");
    d.field("step", &NpDeleteParam::step).describe("Slice step.");
    d.field("int_ind", &NpDeleteParam::int_ind).describe("Index to delete.");
    d.field("axis", &NpDeleteParam::axis).describe("Axis to delete along (None: flattened).");
  }
};

// _npi_boolean_mask_assign_scalar: data with data[..., mask, ...] = value, the mask covering
// axes start_axis .. start_axis + mask.ndim - 1.
struct NpBooleanMaskAssignScalarParam {
  double value = 0;
  int start_axis = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("value", &NpBooleanMaskAssignScalarParam::value)
        .required()
        .describe("Value assigned where mask is true.");
    d.field("start_axis", &NpBooleanMaskAssignScalarParam::start_axis)
        .required()
        .describe("First axis of data the mask covers.");
  }
};

// _npi_boolean_mask_assign_tensor: as the scalar form with a value tensor.
struct NpBooleanMaskAssignTensorParam {
  int start_axis = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("start_axis", &NpBooleanMaskAssignTensorParam::start_axis)
        .required()
        .describe("First axis of data the mask covers.");
  }
};

enum class Kind { kScalar, kSlice, kTensor };

// Python's range(*slice(start, stop, step).indices(n)).
std::vector<int64_t> SliceIndices(const OpAttrs& a, std::optional<int> start,
                                  std::optional<int> stop, std::optional<int> step, int64_t n) {
  int64_t st = step.value_or(1);
  if (st == 0) Fail(a, "slice step cannot be zero");
  int64_t lower = st > 0 ? 0 : -1, upper = st > 0 ? n : n - 1;
  auto clamp = [&](std::optional<int> v, int64_t dflt) {
    if (!v) return dflt;
    int64_t x = *v;
    if (x < 0) return std::max(x + n, lower);
    return std::min(x, upper);
  };
  int64_t b = clamp(start, st > 0 ? lower : upper), e = clamp(stop, st > 0 ? upper : lower);
  std::vector<int64_t> r;
  for (int64_t i = b; st > 0 ? i < e : i > e; i += st) r.push_back(i);
  return r;
}

std::vector<int64_t> IntValues(const OpAttrs& a, const NDArray& obj) {
  if (obj.dtype() == DType::kBool) Fail(a, "obj must hold integer indices, got dtype bool");
  NDArray h = obj.device().type == DeviceType::kCPU ? obj : obj.as_in_context(cpu());
  std::vector<double> d = h.ToVector<double>();
  return std::vector<int64_t>(d.begin(), d.end());
}

// arr's shape as the op sees it (flattened for axis None) and the normalized axis.
std::pair<Shape, int> Effective(const OpAttrs& a, const Shape& s, std::optional<int> axis) {
  if (!axis) return {Shape{s.Size()}, 0};
  if (s.ndim() == 0) Fail(a, "axis ", *axis, " given for a 0-d array (use axis None)");
  return {s, CheckAxis(a, *axis, s.ndim(), "axis", s)};
}

// Right-aligned NumPy broadcast of `v` to `t`: strides of v (in elements) per dim of t.
std::vector<int64_t> BroadcastStrides(const OpAttrs& a, const Shape& v, const Shape& t,
                                      std::string_view what) {
  if (v.ndim() > t.ndim())
    Fail(a, what, " of shape ", v.ToString(), " cannot be broadcast to ", t.ToString());
  std::vector<int64_t> vs = Strides(v), out(t.ndim(), 0);
  int off = t.ndim() - v.ndim();
  for (int i = 0; i < v.ndim(); ++i) {
    if (v[i] == t[i + off]) {
      out[i + off] = v[i] == 1 ? 0 : vs[i];
    } else if (v[i] == 1) {
      out[i + off] = 0;
    } else {
      Fail(a, what, " of shape ", v.ToString(), " cannot be broadcast to ", t.ToString());
    }
  }
  return out;
}

// v (any dtype) cast to `dt` and broadcast to `t`, dense.
NDArray BroadcastAs(const OpAttrs& a, const NDArray& v, const Shape& view, const Shape& t, DType dt,
                    std::string_view what) {
  std::vector<int64_t> ss = BroadcastStrides(a, view, t, what);
  NDArray c = v.dtype() == dt ? v : v.astype(dt);
  if (c.device().type != DeviceType::kCPU) c = c.as_in_context(cpu());
  NDArray out(t, cpu(), dt);
  if (t.Size() == 0) return out;
  std::vector<int64_t> dims = t.ToVector();
  StridedCopy(out.data_ptr(), c.data_ptr(), DTypeSize(dt), dims, Strides(t), ss);
  return out;
}

// Copies rows of `src` (outer, n_src, inner) picked by `pick` (per output position along the
// axis: index into src) into dst (outer, pick.size(), inner); entries < 0 are skipped.
void GatherRows(const NDArray& dst, const void* src, int64_t outer, int64_t n_src, int64_t inner,
                const std::vector<int64_t>& pick, size_t esize) {
  int64_t n = static_cast<int64_t>(pick.size());
  size_t run = static_cast<size_t>(inner) * esize;
  if (run == 0) return;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t p = 0; p < n; ++p) {
      if (pick[p] < 0) continue;
      std::memcpy(ElemPtr(dst.data_ptr(), (o * n + p) * inner, esize),
                  ElemPtr(src, (o * n_src + pick[p]) * inner, esize), run);
    }
}

// ---- insert ----
Kind InsertKind(const OpAttrs& a) {
  std::string_view n = OpName(a);
  if (n == "_npi_insert_slice") return Kind::kSlice;
  if (n == "_npi_insert_tensor") return Kind::kTensor;
  return Kind::kScalar;
}

// Where the values go: `scalar_path` (NumPy's 0-d index: values' first axis moved to axis),
// the number of indices, and the shape values broadcast from (vview) and to (target).
struct InsertPlan {
  Shape eff;
  int axis = 0;
  int64_t count = 0, numnew = 0;
  bool scalar_path = false;
  Shape vview, target, out;
};

InsertPlan PlanInsert(const OpAttrs& a, const Shape& arr, const Shape& values, int64_t count,
                      bool scalar_path) {
  const auto& p = a.get<NpInsertParam>();
  InsertPlan r;
  std::tie(r.eff, r.axis) = Effective(a, arr, p.axis);
  r.count = count;
  r.scalar_path = scalar_path;
  int d = r.eff.ndim();
  if (count == 1) {
    if (values.ndim() > d)
      Fail(a, "values of shape ", values.ToString(), " has more dimensions than arr ",
           r.eff.ToString());
    std::vector<int64_t> vs(d - values.ndim(), 1);
    for (int64_t x : values) vs.push_back(x);
    if (scalar_path) {  // numpy.moveaxis(values, 0, axis)
      int64_t first = vs[0];
      vs.erase(vs.begin());
      vs.insert(vs.begin() + r.axis, first);
    }
    r.vview = Shape(vs);
    r.numnew = vs[r.axis];
  } else {
    r.vview = values;
    r.numnew = count;
  }
  r.target = r.eff;
  r.target[r.axis] = r.numnew;
  BroadcastStrides(a, r.vview, r.target, "values");
  r.out = r.eff;
  r.out[r.axis] += r.numnew;
  return r;
}

bool HasValues(const OpAttrs& a) { return !a.get<NpInsertParam>().val.has_value(); }

int InsertNumInputs(const OpAttrs& a) {
  return (InsertKind(a) == Kind::kTensor ? 2 : 1) + (HasValues(a) ? 1 : 0);
}

std::vector<std::string> InsertInputNames(const OpAttrs& a) {
  std::vector<std::string> n = {"arr"};
  if (HasValues(a)) n.push_back("values");
  if (InsertKind(a) == Kind::kTensor) n.push_back("obj");
  return n;
}

// Index count and scalar path from shapes alone (slice: from the attrs and N).
std::pair<int64_t, bool> InsertCount(const OpAttrs& a, const Shape& eff, int axis,
                                     const Shape* obj) {
  const auto& p = a.get<NpInsertParam>();
  switch (InsertKind(a)) {
    case Kind::kScalar:
      if (!p.int_ind) Fail(a, "int_ind is required");
      return {1, true};
    case Kind::kSlice:
      return {static_cast<int64_t>(SliceIndices(a, p.start, p.stop, p.step, eff[axis]).size()),
              false};
    case Kind::kTensor:
      if (obj->ndim() > 1) Fail(a, "obj must be 0-d or 1-d, got shape ", obj->ToString());
      return {obj->Size(), obj->ndim() == 0};
  }
  return {0, false};
}

void InsertShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  const Shape& arr = (*in)[0];
  bool hv = HasValues(a);
  const Shape* obj = InsertKind(a) == Kind::kTensor ? &(*in)[hv ? 2 : 1] : nullptr;
  if (!arr.is_known() || (hv && !(*in)[1].is_known()) || (obj && !obj->is_known())) return;
  auto [eff, axis] = Effective(a, arr, a.get<NpInsertParam>().axis);
  auto [count, scalar_path] = InsertCount(a, eff, axis, obj);
  InsertPlan plan = PlanInsert(a, arr, hv ? (*in)[1] : Shape{}, count, scalar_path);
  MergeShape(&(*out)[0], plan.out, StrCat(OpName(a), ": output"));
}

void InsertType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  MergeType(&(*out)[0], (*in)[0], StrCat(OpName(a), ": output"));
}

void InsertKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const auto& p = a.get<NpInsertParam>();
  const NDArray& arr = in[0];
  bool hv = HasValues(a);
  NDArray values = hv ? in[1] : NDArray::Full(Shape{}, *p.val, cpu(), arr.dtype());
  auto [eff, axis] = Effective(a, arr.shape(), p.axis);
  int64_t n = eff[axis];
  std::vector<int64_t> idx;
  bool scalar_path = false;
  switch (InsertKind(a)) {
    case Kind::kScalar:
      idx = {*p.int_ind};
      scalar_path = true;
      break;
    case Kind::kSlice:
      idx = SliceIndices(a, p.start, p.stop, p.step, n);
      break;
    case Kind::kTensor: {
      const NDArray& obj = in[hv ? 2 : 1];
      if (obj.shape().ndim() > 1)
        Fail(a, "obj must be 0-d or 1-d, got shape ", obj.shape().ToString());
      idx = IntValues(a, obj);
      scalar_path = obj.shape().ndim() == 0;
      break;
    }
  }
  for (int64_t& i : idx) {
    if (i < -n || i > n)
      Fail(a, "index ", i, " is out of bounds for axis ", axis, " with size ", n);
    if (i < 0) i += n;
  }
  InsertPlan plan =
      PlanInsert(a, arr.shape(), values.shape(), static_cast<int64_t>(idx.size()), scalar_path);
  NDArray b = BroadcastAs(a, values, plan.vview, plan.target, arr.dtype(), "values");
  int64_t nout = plan.out[axis];
  // src[q]: old index (>= 0) or -(k + 1) for the k-th inserted slice.
  std::vector<int64_t> src(nout, 0);
  std::vector<bool> is_new(nout, false);
  if (idx.size() == 1) {
    for (int64_t k = 0; k < plan.numnew; ++k) src[idx[0] + k] = -(k + 1), is_new[idx[0] + k] = true;
  } else {
    std::vector<int64_t> order(idx.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t x, int64_t y) { return idx[x] < idx[y]; });
    for (size_t j = 0; j < order.size(); ++j) {
      int64_t q = idx[order[j]] + static_cast<int64_t>(j);
      src[q] = -(order[j] + 1), is_new[q] = true;
    }
  }
  int64_t next = 0;
  for (int64_t q = 0; q < nout; ++q)
    if (!is_new[q]) src[q] = next++;
  int64_t outer = eff.ProdRange(0, axis), inner = eff.ProdRange(axis + 1, eff.ndim());
  size_t es = DTypeSize(arr.dtype());
  std::vector<int64_t> old_pick(nout), new_pick(nout);
  for (int64_t q = 0; q < nout; ++q) {
    old_pick[q] = is_new[q] ? -1 : src[q];
    new_pick[q] = is_new[q] ? -src[q] - 1 : -1;
  }
  GatherRows(out[0], arr.data_ptr(), outer, n, inner, old_pick, es);
  GatherRows(out[0], b.data_ptr(), outer, plan.numnew, inner, new_pick, es);
}

#define MX_REGISTER_NP_INSERT(NAME, DESC)                                \
  MX_REGISTER_OP(NAME)                                                   \
      .describe(DESC)                                                    \
      .set_params<NpInsertParam>()                                       \
      .set_num_inputs(InsertNumInputs)                                   \
      .set_input_names(InsertInputNames)                                 \
      .set_infer_shape(InsertShape)                                      \
      .set_infer_type(InsertType)                                        \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, InsertKernel) \
      .set_non_differentiable()

MX_REGISTER_NP_INSERT(_npi_insert_scalar,
                      "numpy.insert(arr, int_ind, values or val, axis): values' first axis "
                      "moved to axis, broadcast, inserted before index int_ind.");
MX_REGISTER_NP_INSERT(_npi_insert_slice,
                      "numpy.insert(arr, slice(start, stop, step), values or val, axis): one "
                      "slice of values before each index of the slice.");
MX_REGISTER_NP_INSERT(_npi_insert_tensor,
                      "numpy.insert(arr, obj, values or val, axis) with int indices obj (0-d or "
                      "1-d): one slice of values before each index, in obj's order.");

// ---- delete ----
bool DeleteHasObj(const NpDeleteParam& p) { return !p.int_ind && !p.start && !p.stop && !p.step; }

// Kept positions of 0..n-1 after deleting `del`; errors name out-of-range indices.
std::vector<int64_t> Kept(const OpAttrs& a, std::vector<int64_t> del, int64_t n, int axis) {
  std::vector<bool> gone(n, false);
  for (int64_t i : del) {
    if (i < -n || i >= n)
      Fail(a, "index ", i, " is out of bounds for axis ", axis, " with size ", n);
    gone[i < 0 ? i + n : i] = true;
  }
  std::vector<int64_t> k;
  for (int64_t i = 0; i < n; ++i)
    if (!gone[i]) k.push_back(i);
  return k;
}

std::vector<int64_t> DeleteKept(const OpAttrs& a, std::span<const NDArray> in, const Shape& eff,
                                int axis) {
  const auto& p = a.get<NpDeleteParam>();
  int64_t n = eff[axis];
  if (p.int_ind) return Kept(a, {*p.int_ind}, n, axis);
  if (!DeleteHasObj(p)) return Kept(a, SliceIndices(a, p.start, p.stop, p.step, n), n, axis);
  if (in[1].shape().ndim() > 1)
    Fail(a, "obj must be 0-d or 1-d, got shape ", in[1].shape().ToString());
  return Kept(a, IntValues(a, in[1]), n, axis);
}

void DeleteShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  const auto& p = a.get<NpDeleteParam>();
  const Shape& arr = (*in)[0];
  if (!arr.is_known()) return;
  auto [eff, axis] = Effective(a, arr, p.axis);
  Shape o = eff;
  if (p.int_ind) {
    o[axis] = Kept(a, {*p.int_ind}, eff[axis], axis).size();
  } else if (!DeleteHasObj(p)) {
    o[axis] = Kept(a, SliceIndices(a, p.start, p.stop, p.step, eff[axis]), eff[axis], axis).size();
  } else {
    o[axis] = Shape::kUnknownDim;  // depends on obj's values
  }
  MergeShape(&(*out)[0], o, StrCat(OpName(a), ": output"));
}

void DeleteKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  auto [eff, axis] = Effective(a, in[0].shape(), a.get<NpDeleteParam>().axis);
  std::vector<int64_t> kept = DeleteKept(a, in, eff, axis);
  GatherRows(out[0], in[0].data_ptr(), eff.ProdRange(0, axis), eff[axis],
             eff.ProdRange(axis + 1, eff.ndim()), kept, DTypeSize(in[0].dtype()));
}

MX_REGISTER_OP(_npi_delete)
    .describe(
        "numpy.delete(arr, obj, axis): arr without the entries int_ind, slice(start, stop, step) "
        "or the int indices obj along axis (None: flattened).")
    .set_params<NpDeleteParam>()
    .set_num_inputs([](const OpAttrs& a) { return DeleteHasObj(a.get<NpDeleteParam>()) ? 2 : 1; })
    .set_input_names([](const OpAttrs& a) {
      return DeleteHasObj(a.get<NpDeleteParam>()) ? std::vector<std::string>{"arr", "obj"}
                                                  : std::vector<std::string>{"arr"};
    })
    .set_infer_shape(DeleteShape)
    .set_dynamic_output_shape([](const OpAttrs& a, std::span<const NDArray> in, ShapeVec* out) {
      auto [eff, axis] = Effective(a, in[0].shape(), a.get<NpDeleteParam>().axis);
      Shape o = eff;
      o[axis] = static_cast<int64_t>(DeleteKept(a, in, eff, axis).size());
      (*out)[0] = o;
    })
    .set_infer_type(InsertType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, DeleteKernel)
    .set_non_differentiable();

// ---- boolean mask assignment ----
struct MaskLayout {
  int64_t lead = 1, mid = 1, trail = 1;
  int start = 0;
};

MaskLayout CheckMask(const OpAttrs& a, const Shape& d, const Shape& m, int start_axis) {
  if (start_axis < 0 || start_axis + m.ndim() > d.ndim())
    Fail(a, "mask of shape ", m.ToString(), " at start_axis ", start_axis,
         " does not fit data of shape ", d.ToString());
  for (int i = 0; i < m.ndim(); ++i)
    if (d[start_axis + i] != m[i])
      Fail(a, "boolean index did not match indexed array along dimension ", start_axis + i,
           "; dimension is ", d[start_axis + i], " but corresponding boolean dimension is ", m[i]);
  MaskLayout l;
  l.start = start_axis;
  l.lead = d.ProdRange(0, start_axis);
  l.mid = m.Size();
  l.trail = d.ProdRange(start_axis + m.ndim(), d.ndim());
  return l;
}

int StartAxis(const OpAttrs& a) {
  return OpName(a) == "_npi_boolean_mask_assign_scalar"
             ? a.get<NpBooleanMaskAssignScalarParam>().start_axis
             : a.get<NpBooleanMaskAssignTensorParam>().start_axis;
}

void MaskAssignShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  if (!(*in)[0].is_known() || !(*in)[1].is_known()) return;
  CheckMask(a, (*in)[0], (*in)[1], StartAxis(a));
  MergeShape(&(*out)[0], (*in)[0], StrCat(OpName(a), ": output"));
}

void MaskAssignKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const NDArray &data = in[0], &mask = in[1];
  const Shape& d = data.shape();
  MaskLayout l = CheckMask(a, d, mask.shape(), StartAxis(a));
  size_t es = DTypeSize(data.dtype());
  if (out[0].data_ptr() != data.data_ptr() && d.Size() > 0)
    std::memcpy(out[0].data_ptr(), data.data_ptr(), d.Size() * es);
  NDArray mh = mask.device().type == DeviceType::kCPU ? mask : mask.as_in_context(cpu());
  std::vector<double> flags = mh.ToVector<double>();
  int64_t count = 0;
  for (double f : flags) count += f != 0;
  int trail_nd = d.ndim() - l.start - mask.shape().ndim();
  // Target (lead..., count, trail...) and the value's view of it.
  std::vector<int64_t> t(d.begin(), d.begin() + l.start);
  t.push_back(count);
  t.insert(t.end(), d.end() - trail_nd, d.end());
  NDArray b;
  if (in.size() > 2) {
    const Shape& v = in[2].shape();
    Shape view = v;
    if (v.ndim() < static_cast<int>(t.size())) {  // no count axis: (lead..., trail...)
      std::vector<int64_t> pv(l.start + trail_nd - v.ndim(), 1);
      for (int64_t x : v) pv.push_back(x);
      pv.insert(pv.begin() + l.start, 1);
      view = Shape(pv);
    }
    b = BroadcastAs(a, in[2], view, Shape(t), data.dtype(), "value");
  } else {
    b = NDArray::Full(Shape(t), a.get<NpBooleanMaskAssignScalarParam>().value, cpu(), data.dtype());
  }
  size_t run = static_cast<size_t>(l.trail) * es;
  if (run == 0 || count == 0) return;
  for (int64_t ld = 0; ld < l.lead; ++ld) {
    int64_t k = 0;
    for (int64_t j = 0; j < l.mid; ++j) {
      if (flags[j] == 0) continue;
      std::memcpy(ElemPtr(out[0].data_ptr(), (ld * l.mid + j) * l.trail, es),
                  ElemPtr(b.data_ptr(), (ld * count + k) * l.trail, es), run);
      ++k;
    }
  }
}

MX_REGISTER_OP(_npi_boolean_mask_assign_scalar)
    .describe(
        "data with data[lead..., mask, ...] = value (mask over axes start_axis.. of data; "
        "nonzero = true); a[mask] = value of mx.np.")
    .set_params<NpBooleanMaskAssignScalarParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "mask"})
    .set_infer_shape(MaskAssignShape)
    .set_infer_type(InsertType)
    .add_inplace(0, 0)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MaskAssignKernel)
    .set_non_differentiable();

MX_REGISTER_OP(_npi_boolean_mask_assign_tensor)
    .describe(
        "data with data[lead..., mask, ...] = value, value broadcast to (lead..., count, "
        "trail...) or (lead..., trail...); cast to data's dtype.")
    .set_params<NpBooleanMaskAssignTensorParam>()
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"data", "mask", "value"})
    .set_infer_shape(MaskAssignShape)
    .set_infer_type(InsertType)
    .add_inplace(0, 0)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, MaskAssignKernel)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
