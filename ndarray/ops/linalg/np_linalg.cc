// MXNet 1.9.1's NumPy-interface matrix products: _np_dot, _npi_matmul, _npi_tensordot,
// _npi_tensordot_int_axes, _npi_einsum (src/operator/numpy/np_dot.cc, np_matmul_op.cc,
// np_tensordot_op.cc, np_einsum_op.cc).
//
// Every op is lowered to one einsum contraction ("Spec": a label per operand axis, the output's
// labels, a size per label) that a single kernel evaluates in double, looping over all label
// values (out[o] += prod_k in_k[...]). A label's axes must agree in size or be 1 (broadcast, as
// MXNet's einsum and matmul's batch axes); dot/tensordot check their contracted sizes first. The
// gradient is one op, _backward_np_linalg_contract, that rebuilds the Spec from the operand shapes
// and accumulates dIn_k[...] += dOut[o] * prod_{j != k} in_j[...] (summing over broadcast axes and
// repeated labels); it is declared non-differentiable.
#include <algorithm>
#include <string>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/linalg/np_linalg_api.h"
#include "ndarray/ops/reduce/reduce_params.h"

namespace mxnet::ops {
namespace {

using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;
using reduce_internal::OpName;
constexpr auto kBad = absl::StatusCode::kInvalidArgument;
constexpr int kEllipsisLabel = 1000;  // label ids of '...' axes: 1000 + position

struct Spec {
  std::vector<std::vector<int>> in;  // labels per operand axis
  std::vector<int> out;              // output labels
  std::vector<int> labels;           // all labels, output ones first
  std::vector<int64_t> size;         // size per entry of `labels`
  Shape out_shape;
};

char Letter(int i) { return static_cast<char>(i < 26 ? 'a' + i : 'A' + (i - 26)); }

std::string ShapesText(std::span<const Shape> shapes) {
  std::string s;
  for (size_t i = 0; i < shapes.size(); ++i) s += (i ? ", " : "") + shapes[i].ToString();
  return s;
}

// Parses NumPy einsum subscripts for operands of `shapes`; throws kInvalidArgument naming `op`.
Spec Parse(std::string_view op, const std::string& subs, std::span<const Shape> shapes) {
  auto fail = [&](auto&&... why) {
    MX_THROW(kBad, op, ": ", why..., " (subscripts '", subs, "', operand shapes ",
             ShapesText(shapes), ")");
  };
  std::string clean;
  for (char c : subs)
    if (c != ' ') clean += c;
  size_t arrow = clean.find("->");
  bool explicit_out = arrow != std::string::npos;
  std::string lhs = explicit_out ? clean.substr(0, arrow) : clean;
  std::string rhs = explicit_out ? clean.substr(arrow + 2) : "";
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',')
      terms.emplace_back();
    else
      terms.back() += c;
  }
  if (terms.size() != shapes.size())
    fail(terms.size(), " operand terms for ", shapes.size(), " operands");
  // Splits a term into letters with one optional "..." (position -1 in the result).
  auto split = [&](const std::string& t) {
    std::vector<int> items;
    bool ell = false;
    for (size_t i = 0; i < t.size(); ++i) {
      char c = t[i];
      if (c == '.') {
        if (ell || t.compare(i, 3, "...") != 0) fail("invalid '.' in term '", t, "'");
        ell = true, i += 2;
        items.push_back(-1);
      } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        items.push_back(c);
      } else {
        fail("invalid subscript character '", std::string(1, c), "'");
      }
    }
    return items;
  };
  Spec s;
  std::vector<int> all_labels;
  std::vector<int64_t> all_sizes;
  auto note = [&](int label, int64_t dim) {
    auto it = std::find(all_labels.begin(), all_labels.end(), label);
    if (it == all_labels.end()) {
      all_labels.push_back(label), all_sizes.push_back(dim);
      return;
    }
    int64_t& have = all_sizes[it - all_labels.begin()];
    if (have == dim) return;
    if (have == 1 || dim == 1) {  // size 1 broadcasts (NumPy; MXNet's einsum too)
      have = std::max(have, dim);
      return;
    }
    if (label >= kEllipsisLabel)
      fail("the '...' axes do not broadcast (sizes ", have, " and ", dim, ")");
    fail("label '", std::string(1, static_cast<char>(label)), "' has sizes ", have, " and ", dim);
  };
  std::vector<std::vector<int>> items(shapes.size());
  std::vector<int> ell_nd(shapes.size(), 0);
  int max_ell = 0;
  for (size_t k = 0; k < shapes.size(); ++k) {
    items[k] = split(terms[k]);
    int letters = static_cast<int>(
        std::count_if(items[k].begin(), items[k].end(), [](int v) { return v >= 0; }));
    bool ell = letters != static_cast<int>(items[k].size());
    int nd = shapes[k].ndim();
    if (ell ? nd < letters : nd != letters)
      fail("operand ", k, " of shape ", shapes[k].ToString(), " has ", nd, " dimensions but term '",
           terms[k], "' names ", letters);
    ell_nd[k] = ell ? nd - letters : 0;
    max_ell = std::max(max_ell, ell_nd[k]);
  }
  for (size_t k = 0; k < shapes.size(); ++k) {
    std::vector<int> labels;
    int axis = 0;
    for (int v : items[k]) {
      if (v < 0) {
        for (int j = 0; j < ell_nd[k]; ++j, ++axis) {
          int label = kEllipsisLabel + max_ell - ell_nd[k] + j;
          labels.push_back(label);
          note(label, shapes[k][axis]);
        }
      } else {
        labels.push_back(v);
        note(v, shapes[k][axis++]);
      }
    }
    s.in.push_back(labels);
  }
  if (explicit_out) {
    for (int v : split(rhs)) {
      if (v < 0) {
        for (int j = 0; j < max_ell; ++j) s.out.push_back(kEllipsisLabel + j);
        continue;
      }
      if (std::find(s.out.begin(), s.out.end(), v) != s.out.end())
        fail("output label '", std::string(1, static_cast<char>(v)), "' repeats");
      if (std::find(all_labels.begin(), all_labels.end(), v) == all_labels.end())
        fail("output label '", std::string(1, static_cast<char>(v)), "' is not an operand label");
      s.out.push_back(v);
    }
  } else {
    // Implicit: '...' axes, then letters used exactly once, in alphabetical (ASCII) order.
    for (int j = 0; j < max_ell; ++j) s.out.push_back(kEllipsisLabel + j);
    std::vector<int> once;
    for (int l : all_labels) {
      if (l >= kEllipsisLabel) continue;
      int n = 0;
      for (const auto& in : s.in) n += static_cast<int>(std::count(in.begin(), in.end(), l));
      if (n == 1) once.push_back(l);
    }
    std::sort(once.begin(), once.end());
    s.out.insert(s.out.end(), once.begin(), once.end());
  }
  auto size_of = [&](int l) {
    return all_sizes[std::find(all_labels.begin(), all_labels.end(), l) - all_labels.begin()];
  };
  for (int l : s.out) {
    s.labels.push_back(l), s.size.push_back(size_of(l));
    s.out_shape.push_back(size_of(l));
  }
  for (int l : all_labels)
    if (std::find(s.out.begin(), s.out.end(), l) == s.out.end())
      s.labels.push_back(l), s.size.push_back(size_of(l));
  return s;
}

// Letter labels of the non-einsum ops: the contraction as einsum subscripts.
std::string Term(const std::vector<int>& ids) {
  std::string t;
  for (int i : ids) t += Letter(i);
  return t;
}

std::string DotSubscripts(std::string_view op, const Shape& a, const Shape& b) {
  int na = a.ndim(), nb = b.ndim();
  std::vector<int> la, lb, lo;
  int next = 0;
  if (na == 0 || nb == 0) {  // scalar times array
    const Shape& other = na == 0 ? b : a;
    for (int i = 0; i < other.ndim(); ++i) lo.push_back(next++);
    (na == 0 ? lb : la) = lo;
  } else {
    for (int i = 0; i < na - 1; ++i) la.push_back(next), lo.push_back(next++);
    int k = next++;
    la.push_back(k);
    int kb = nb == 1 ? 0 : nb - 2;
    for (int i = 0; i < nb; ++i) {
      if (i == kb) {
        lb.push_back(k);
      } else {
        lb.push_back(next), lo.push_back(next++);
      }
    }
    int64_t ka = a[na - 1], kbs = b[kb];
    if (ka != kbs)
      MX_THROW(kBad, op, ": shapes ", a.ToString(), " and ", b.ToString(),
               " are not aligned: a's last axis (", ka, ") != b's ",
               nb == 1 ? "only" : "second-to-last", " axis (", kbs, ")");
  }
  return Term(la) + "," + Term(lb) + "->" + Term(lo);
}

std::string MatmulSubscripts(std::string_view op, const Shape& a, const Shape& b) {
  if (a.ndim() == 0 || b.ndim() == 0)
    MX_THROW(kBad, op,
             ": operands must have at least one dimension (matmul of 0-dim arrays is "
             "not allowed), got shapes ",
             a.ToString(), " and ", b.ToString());
  int64_t ka = a[a.ndim() - 1], kb = b.ndim() == 1 ? b[0] : b[b.ndim() - 2];
  if (ka != kb)
    MX_THROW(kBad, op, ": shapes ", a.ToString(), " and ", b.ToString(),
             " do not match: a's last axis (", ka, ") != b's ",
             b.ndim() == 1 ? "only" : "second-to-last", " axis (", kb, ")");
  std::string ta = a.ndim() == 1 ? "k" : "...ik", tb = b.ndim() == 1 ? "k" : "...kj";
  std::string to = std::string(a.ndim() > 1 || b.ndim() > 1 ? "..." : "") +
                   (a.ndim() > 1 ? "i" : "") + (b.ndim() > 1 ? "j" : "");
  return ta + "," + tb + "->" + to;
}

std::string TensordotSubscripts(std::string_view op, const Shape& a, const Shape& b,
                                const Shape& a_axes, const Shape& b_axes) {
  if (a_axes.ndim() != b_axes.ndim())
    MX_THROW(kBad, op, ": a_axes_summed ", a_axes.ToString(), " and b_axes_summed ",
             b_axes.ToString(), " have different lengths");
  int na = a.ndim(), nb = b.ndim();
  if (na + nb > 52) MX_THROW(kBad, op, ": too many dimensions (", na, " + ", nb, ", at most 52)");
  std::vector<int> la(na, -1), lb(nb, -1), lo;
  int next = 0;
  for (int i = 0; i < a_axes.ndim(); ++i) {
    int ia = reduce_internal::CheckAxis(op, a_axes[i], a, "a_axes_summed axis");
    int ib = reduce_internal::CheckAxis(op, b_axes[i], b, "b_axes_summed axis");
    if (la[ia] >= 0 || lb[ib] >= 0)
      MX_THROW(kBad, op, ": repeated axis in a_axes_summed ", a_axes.ToString(),
               " or b_axes_summed ", b_axes.ToString());
    if (a[ia] != b[ib])
      MX_THROW(kBad, op, ": shape mismatch for sum: a ", a.ToString(), " axis ", ia, " (", a[ia],
               ") vs b ", b.ToString(), " axis ", ib, " (", b[ib], ")");
    la[ia] = lb[ib] = next++;
  }
  for (int& l : la)
    if (l < 0) l = next, lo.push_back(next++);
  for (int& l : lb)
    if (l < 0) l = next, lo.push_back(next++);
  return Term(la) + "," + Term(lb) + "->" + Term(lo);
}

Shape RangeAxes(int from, int n) {
  Shape s;
  for (int i = 0; i < n; ++i) s.push_back(from + i);
  return s;
}

std::string IntAxesSubscripts(std::string_view op, const Shape& a, const Shape& b, int axes) {
  if (axes < 0 || axes > a.ndim() || axes > b.ndim())
    MX_THROW(kBad, op, ": axes ", axes, " must be in [0, min(a.ndim, b.ndim)] for shapes ",
             a.ToString(), " and ", b.ToString());
  return TensordotSubscripts(op, a, b, RangeAxes(a.ndim() - axes, axes), RangeAxes(0, axes));
}

// The contraction of forward op `op` (its attributes as a NpContractGradParam).
Spec SpecFor(const NpContractGradParam& p, std::span<const Shape> shapes) {
  const std::string& op = p.op;
  std::string subs;
  if (op == "_np_dot") {
    subs = DotSubscripts(op, shapes[0], shapes[1]);
  } else if (op == "_npi_matmul") {
    subs = MatmulSubscripts(op, shapes[0], shapes[1]);
  } else if (op == "_npi_tensordot") {
    subs = TensordotSubscripts(op, shapes[0], shapes[1], p.a_axes_summed, p.b_axes_summed);
  } else if (op == "_npi_tensordot_int_axes") {
    subs = IntAxesSubscripts(op, shapes[0], shapes[1], p.axes);
  } else if (op == "_npi_einsum") {
    subs = p.subscripts;
  } else {
    MX_THROW(kBad, "_backward_np_linalg_contract: unknown forward op '", op, "'");
  }
  return Parse(op, subs, shapes);
}

NpContractGradParam GradParamOf(const OpAttrs& attrs) {
  NpContractGradParam p;
  p.op = std::string(OpName(attrs));
  if (p.op == "_npi_tensordot") {
    const auto& t = attrs.get<NpTensordotParam>();
    p.a_axes_summed = t.a_axes_summed, p.b_axes_summed = t.b_axes_summed;
  } else if (p.op == "_npi_tensordot_int_axes") {
    p.axes = attrs.get<NpTensordotIntAxesParam>().axes;
  } else if (p.op == "_npi_einsum") {
    const auto& e = attrs.get<NpEinsumParam>();
    p.num_args = e.num_args, p.subscripts = e.subscripts;
  }
  return p;
}

std::vector<double> Load(const NDArray& a) {
  std::vector<double> v(a.size());
  MX_DTYPE_SWITCH(a.dtype(), T, {
    const T* p = static_cast<const T*>(a.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(p[i]);
  });
  return v;
}

void Store(const NDArray& a, const std::vector<double>& v) {
  MX_DTYPE_SWITCH(a.dtype(), T, {
    T* p = static_cast<T*>(a.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
  });
}

// Per-label element steps of an array whose axes carry `labels` (0 along broadcast axes).
std::vector<int64_t> Steps(const Spec& s, const std::vector<int>& labels, const Shape& shape) {
  std::vector<int64_t> step(s.labels.size(), 0);
  int64_t stride = 1;
  for (int i = static_cast<int>(labels.size()) - 1; i >= 0; --i) {
    size_t j = std::find(s.labels.begin(), s.labels.end(), labels[i]) - s.labels.begin();
    if (shape[i] != 1 || s.size[j] == 1) step[j] += stride;
    stride *= shape[i];
  }
  return step;
}

// Calls f(offsets) for every label combination; offsets[k] indexes array k (arrays' steps).
template <typename F>
void ForEach(const Spec& s, const std::vector<std::vector<int64_t>>& steps, F f) {
  size_t nl = s.labels.size(), na = steps.size();
  for (int64_t n : s.size)
    if (n == 0) return;
  std::vector<int64_t> idx(nl, 0), off(na, 0);
  while (true) {
    f(off);
    int l = static_cast<int>(nl) - 1;
    for (; l >= 0; --l) {
      if (++idx[l] < s.size[l]) {
        for (size_t k = 0; k < na; ++k) off[k] += steps[k][l];
        break;
      }
      for (size_t k = 0; k < na; ++k) off[k] -= steps[k][l] * (s.size[l] - 1);
      idx[l] = 0;
    }
    if (l < 0) return;
  }
}

std::vector<Shape> ShapesOf(std::span<const NDArray> in) {
  std::vector<Shape> v;
  for (const auto& a : in) v.push_back(a.shape());
  return v;
}

void ContractForward(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  std::vector<Shape> shapes = ShapesOf(in);
  Spec s = SpecFor(GradParamOf(attrs), shapes);
  std::vector<std::vector<double>> data;
  std::vector<std::vector<int64_t>> steps;
  for (size_t k = 0; k < in.size(); ++k) {
    data.push_back(Load(in[k]));
    steps.push_back(Steps(s, s.in[k], shapes[k]));
  }
  steps.push_back(Steps(s, s.out, s.out_shape));
  std::vector<double> o(out[0].size(), 0.0);
  size_t n = in.size();
  ForEach(s, steps, [&](const std::vector<int64_t>& off) {
    double p = 1.0;
    for (size_t k = 0; k < n; ++k) p *= data[k][off[k]];
    o[off[n]] += p;
  });
  Store(out[0], o);
}

// Optimized np.dot / np.matmul: the cases that are plain (batched) matrix products run the
// legacy dot / batch_dot kernels (oneDNN matmul); other shapes fall back to the contraction. dot:
// both 2-D. matmul: both 2-D, or the same rank >= 3 with equal batch axes (no broadcasting), viewed
// as (B, M, K) x (B, K, N).
bool MatmulLike(std::span<const NDArray> in, bool matmul) {
  if (in.size() != 2 || in[0].dtype() != in[1].dtype()) return false;
  if (in[0].dtype() != DType::kFloat32 && in[0].dtype() != DType::kFloat64) return false;
  const Shape &a = in[0].shape(), &b = in[1].shape();
  if (a.ndim() == 2 && b.ndim() == 2) return a[1] == b[0];
  if (!matmul || a.ndim() != b.ndim() || a.ndim() < 3) return false;
  for (int i = 0; i + 2 < a.ndim(); ++i)
    if (a[i] != b[i]) return false;
  return a[a.ndim() - 1] == b[b.ndim() - 2];
}

void MatmulFast(const OpContext& ctx, std::span<const NDArray> in, std::span<const NDArray> out) {
  const bool batched = in[0].ndim() > 2;
  const Op& op = OpRegistry::Get(batched ? "batch_dot" : "dot");
  OpAttrs a = OpAttrs::From(op, DotParam{});
  if (!batched) {
    op.SelectKernel(DeviceType::kCPU, a, in)(ctx, a, in, out);
    return;
  }
  const Shape &sa = in[0].shape(), &sb = in[1].shape();
  const int n = sa.ndim();
  std::vector<NDArray> v{in[0].reshape({-1, sa[n - 2], sa[n - 1]}),
                         in[1].reshape({-1, sb[n - 2], sb[n - 1]})};
  std::vector<NDArray> o{out[0].reshape({-1, sa[n - 2], sb[n - 1]})};
  op.SelectKernel(DeviceType::kCPU, a, v)(ctx, a, v, o);
}

void ContractShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  for (const auto& s : *in)
    if (!s.is_known()) return;
  Spec s = SpecFor(GradParamOf(attrs), std::span<const Shape>(in->data(), in->size()));
  MergeShape(&(*out)[0], s.out_shape, StrCat(OpName(attrs), ": output"));
}

// dot/matmul/tensordot: one dtype, float32 or float64 (MXNet's CPU kernels); einsum: any dtype.
void FloatType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  ElemwiseType(attrs, in, out);
  int t = (*out)[0];
  if (t >= 0 && t != static_cast<int>(DType::kFloat32) && t != static_cast<int>(DType::kFloat64))
    MX_THROW(kBad, OpName(attrs), ": dtype ", DTypeName(static_cast<DType>(t)),
             " is not supported (float32 and float64 only, as MXNet's CPU kernels)");
}

Grads ContractGrad(GradBuilder& b, const OpAttrs& attrs, GV in, GV, GV og) {
  NpContractGradParam p = GradParamOf(attrs);
  p.num_args = static_cast<int>(in.size());
  std::vector<GradValue> args{og[0]};
  args.insert(args.end(), in.begin(), in.end());
  const Op& op = OpRegistry::Get("_backward_np_linalg_contract");
  return b.Apply(op, OpAttrs::From(op, p), args);
}

MX_REGISTER_OP(_np_dot)
    .describe(
        "NumPy dot of a and b (mx.np.dot): 1-D . 1-D -> 0-dim; N-D . 1-D contracts a's last "
        "axis; N-D . M-D contracts a's last with b's second-to-last axis; a 0-dim operand "
        "multiplies. One dtype for both inputs, kept by the output.")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"a", "b"})
    .set_infer_shape(ContractShape)
    .set_infer_type(FloatType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ContractForward)
    .set_kernel(
        {DeviceType::kCPU, Backend::kOptimized},
        [](const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
           std::span<const NDArray> out) {
          if (!MatmulLike(in, false)) return ContractForward(ctx, attrs, in, out);
          MatmulFast(ctx, in, out);
        },
        [](const OpAttrs&, std::span<const NDArray> in) { return MatmulLike(in, false); })
    .set_gradient(ContractGrad, true, false);

MX_REGISTER_OP(_npi_matmul)
    .describe(
        "NumPy matmul (mx.np.matmul): matrix products over the last two axes with broadcast "
        "batch axes; 1-D operands act as a row (a) or column (b) vector whose axis is dropped.")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"a", "b"})
    .set_infer_shape(ContractShape)
    .set_infer_type(FloatType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ContractForward)
    .set_kernel(
        {DeviceType::kCPU, Backend::kOptimized},
        [](const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
           std::span<const NDArray> out) {
          if (!MatmulLike(in, true)) return ContractForward(ctx, attrs, in, out);
          MatmulFast(ctx, in, out);
        },
        [](const OpAttrs&, std::span<const NDArray> in) { return MatmulLike(in, true); })
    .set_gradient(ContractGrad, true, false);

MX_REGISTER_OP(_npi_tensordot)
    .describe(
        "NumPy tensordot with axis lists (mx.np.tensordot(a, b, axes=(a_axes, b_axes))): "
        "output = a's free axes then b's free axes.")
    .set_params<NpTensordotParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"a", "b"})
    .set_infer_shape(ContractShape)
    .set_infer_type(FloatType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ContractForward)
    .set_gradient(ContractGrad, true, false);

MX_REGISTER_OP(_npi_tensordot_int_axes)
    .describe(
        "NumPy tensordot with an integer axes (mx.np.tensordot(a, b, axes=N)): a's last N axes "
        "contracted with b's first N.")
    .set_params<NpTensordotIntAxesParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"a", "b"})
    .set_infer_shape(ContractShape)
    .set_infer_type(FloatType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ContractForward)
    .set_gradient(ContractGrad, true, false);

MX_REGISTER_OP(_npi_einsum)
    .describe(
        "NumPy einsum (mx.np.einsum): explicit ('ij,jk->ik') or implicit output, '...' "
        "broadcasting, repeated labels (diagonals, traces). One dtype for all operands.")
    .set_params<NpEinsumParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<NpEinsumParam>().num_args; })
    .set_infer_shape(ContractShape)
    .set_infer_type(ElemwiseType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ContractForward)
    .set_gradient(ContractGrad, true, false);

MX_REGISTER_OP(_backward_np_linalg_contract)
    .describe(
        "Gradient of _np_dot/_npi_matmul/_npi_tensordot(_int_axes)/_npi_einsum: inputs (head "
        "gradient, operands...), one gradient per operand.")
    .set_params<NpContractGradParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<NpContractGradParam>().num_args + 1; })
    .set_num_outputs([](const OpAttrs& a) { return a.get<NpContractGradParam>().num_args; })
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      for (size_t k = 0; k < out->size(); ++k)
        MergeShape(&(*out)[k], (*in)[k + 1], "_backward_np_linalg_contract: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      for (size_t k = 0; k < out->size(); ++k)
        MergeType(&(*out)[k], (*in)[k + 1], "_backward_np_linalg_contract: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = attrs.get<NpContractGradParam>();
                  std::span<const NDArray> ops = in.subspan(1);
                  std::vector<Shape> shapes = ShapesOf(ops);
                  Spec s = SpecFor(p, shapes);
                  size_t n = ops.size();
                  std::vector<std::vector<double>> data, grad;
                  std::vector<std::vector<int64_t>> steps;
                  for (size_t k = 0; k < n; ++k) {
                    data.push_back(Load(ops[k]));
                    grad.emplace_back(ops[k].size(), 0.0);
                    steps.push_back(Steps(s, s.in[k], shapes[k]));
                  }
                  steps.push_back(Steps(s, s.out, s.out_shape));
                  std::vector<double> og = Load(in[0]);
                  ForEach(s, steps, [&](const std::vector<int64_t>& off) {
                    double g = og[off[n]];
                    for (size_t k = 0; k < n; ++k) {
                      double v = g;
                      for (size_t j = 0; j < n; ++j)
                        if (j != k) v *= data[j][off[j]];
                      grad[k][off[k]] += v;
                    }
                  });
                  for (size_t k = 0; k < n; ++k) Store(out[k], grad[k]);
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops

// ---------------------------------------------------------------------------------------------
namespace mxnet::nd::np {

NDArray dot(const NDArray& a, const NDArray& b) {
  return Invoke("_np_dot", std::vector<NDArray>{a, b})[0];
}
NDArray matmul(const NDArray& a, const NDArray& b) {
  return Invoke("_npi_matmul", std::vector<NDArray>{a, b})[0];
}
NDArray tensordot(const NDArray& a, const NDArray& b, const Shape& a_axes, const Shape& b_axes) {
  const Op& op = OpRegistry::Get("_npi_tensordot");
  ops::NpTensordotParam p;
  p.a_axes_summed = a_axes, p.b_axes_summed = b_axes;
  return Invoke(op, OpAttrs::From(op, p), std::vector<NDArray>{a, b})[0];
}
NDArray tensordot(const NDArray& a, const NDArray& b, int axes) {
  const Op& op = OpRegistry::Get("_npi_tensordot_int_axes");
  ops::NpTensordotIntAxesParam p;
  p.axes = axes;
  return Invoke(op, OpAttrs::From(op, p), std::vector<NDArray>{a, b})[0];
}
NDArray einsum(const std::string& subscripts, const std::vector<NDArray>& operands, int optimize) {
  const Op& op = OpRegistry::Get("_npi_einsum");
  ops::NpEinsumParam p;
  p.num_args = static_cast<int>(operands.size()), p.subscripts = subscripts, p.optimize = optimize;
  return Invoke(op, OpAttrs::From(op, p), operands)[0];
}

}  // namespace mxnet::nd::np
