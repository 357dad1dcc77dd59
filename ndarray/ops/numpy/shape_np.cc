// MXNet 1.9.1's NumPy-interface shape ops (mx.np / mx.npx), NumPy semantics: 0-dim and zero-size
// arrays allowed, any dtype, output dtype = input dtype.
//   _np_reshape (newshape, order='C'): NumPy reshape (one -1 inferred; 0 is a literal 0). order
//     is ignored, as in MXNet 1.9.1 (which accepts 'F'/'A' and still fills in C order).
//   _npx_reshape (_npi_reshape) (newshape, reverse, order): npx codes -1..-6 (shape_np_api.h).
//   _np_squeeze (axis=None): drop size-1 axes (all of them: 0-dim result).
//   _np_transpose (axes=None), _np_moveaxis (source, destination): axis permutations.
//   _np_roll (shift, axis=None), _npi_flip (axis), _npi_rot90 (k=1, axes): rearrangements.
//   _np_copy: a copy. _np_atleast_1d/_2d/_3d (num_args): each input reshaped as NumPy's.
//   _npi_broadcast_to (shape): broadcast, input dims aligned right.
// Errors (kInvalidArgument, naming the op) where MXNet rejects: bad newshape, axes out of range
// or repeated (flip: negative axes too, as MXNet), shift/axis lengths differ, missing shift/axes.
// Gradients compose registered ops (reshape_like, inverse permutation, roll by -shift, rot90 by
// -k, _reduce_sum_like), so they are differentiable again.
// Source: src/operator/numpy/np_matrix_op-inl.h, np_matrix_op.cc, np_broadcast_reduce_op_value.cc.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/numpy/shape_np_api.h"
#include "ndarray/ops/shape/shape_params.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

void CopyKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].data_ptr() == in[i].data_ptr() || in[i].nbytes() == 0) continue;
    std::memcpy(out[i].data_ptr(), in[i].data_ptr(), in[i].nbytes());
  }
}

Grads ReshapeLikeGrad(GradBuilder& b, const OpAttrs&, GV in, GV, GV og) {
  Grads g;
  for (size_t i = 0; i < in.size(); ++i) g.push_back(b.Call("reshape_like", {og[i], in[i]}));
  return g;
}

// Shape inference of ops whose output shape is a function of the (known) input shape only.
template <Shape (*F)(const OpAttrs&, const Shape&)>
void UnaryShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  if (!(*in)[0].is_known()) return;
  MergeShape(&(*out)[0], F(a, (*in)[0]), StrCat(OpName(a), ": output"));
}

// Normalizes axis `ax` (negative allowed) for rank `nd`.
int NormAxis(const OpAttrs& a, int64_t ax, int nd, std::string_view what, const Shape& s) {
  return CheckAxis(a, ax, nd, what, s);
}

// ---- _np_reshape ----
Shape NpReshapeShape(const OpAttrs& a, const Shape& x) {
  const Shape& ns = a.get<NpReshapeParam>().newshape;
  Shape o = ns;
  int unknown = -1;
  int64_t prod = 1;
  for (int i = 0; i < ns.ndim(); ++i) {
    if (ns[i] == -1) {
      if (unknown >= 0)
        Fail(a, "can only specify one unknown dimension in newshape ", ns.ToString());
      unknown = i;
    } else if (ns[i] < 0) {
      Fail(a, "newshape ", ns.ToString(), " has ", ns[i], ": only -1 may be inferred");
    } else {
      prod *= ns[i];
    }
  }
  if (unknown >= 0) {
    if (prod == 0 || x.Size() % prod != 0)
      Fail(a, "cannot reshape array of shape ", x.ToString(), " into shape ", ns.ToString());
    o[unknown] = x.Size() / prod;
  }
  if (o.Size() != x.Size())
    Fail(a, "cannot reshape array of shape ", x.ToString(), " into shape ", ns.ToString());
  return o;
}

MX_REGISTER_OP(_np_reshape)
    .describe("NumPy reshape: newshape with at most one -1 (inferred); order is ignored (C order).")
    .set_params<NpReshapeParam>()
    .set_input_names(std::vector<std::string>{"a"})
    .add_inplace(0, 0)
    .set_infer_shape(UnaryShape<NpReshapeShape>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient(ReshapeLikeGrad, true, false);

// ---- _npx_reshape ----
struct NpxToken {
  int64_t code;
  int64_t d1 = 0, d2 = 0;  // -6's two sizes
};

Shape NpxReshapeShape(const OpAttrs& a, const Shape& x) {
  const auto& p = a.get<NpxReshapeParam>();
  const Shape& ns = p.newshape;
  auto bad = [&](const auto&... why) {
    Fail(a, "cannot reshape array of shape ", x.ToString(), " into shape ", ns.ToString(),
         ", reverse = ", p.reverse ? 1 : 0, ": ", why...);
  };
  std::vector<NpxToken> toks;
  for (int i = 0; i < ns.ndim(); ++i) {
    if (ns[i] == -6) {
      if (p.reverse) bad("-6 cannot be used with reverse");
      if (i + 2 >= ns.ndim()) bad("-6 must be followed by two sizes");
      toks.push_back({-6, ns[i + 1], ns[i + 2]});
      i += 2;
    } else {
      if (ns[i] < -6) bad("unknown code ", ns[i]);
      toks.push_back({ns[i]});
    }
  }
  std::vector<int64_t> src = x.ToVector();
  if (p.reverse) {
    std::reverse(src.begin(), src.end());
    std::reverse(toks.begin(), toks.end());
  }
  std::vector<int64_t> o;
  size_t s = 0;
  int unknown = -1;
  auto next = [&]() {
    if (s >= src.size()) bad("newshape uses more input dims than there are");
    return src[s++];
  };
  for (const NpxToken& t : toks) {
    if (t.code >= 0) {
      o.push_back(t.code);
      ++s;
    } else if (t.code == -1) {
      if (unknown >= 0) bad("only one -1 may be inferred");
      unknown = static_cast<int>(o.size());
      o.push_back(-1);
      ++s;
    } else if (t.code == -2) {
      o.push_back(next());
    } else if (t.code == -3) {
      if (next() != 1) bad("-3 may only skip a dim of size 1");
    } else if (t.code == -4) {
      while (s < src.size()) o.push_back(src[s++]);
    } else if (t.code == -5) {
      int64_t d = next();
      o.push_back(d * next());
    } else {  // -6
      int64_t d = next(), d1 = t.d1, d2 = t.d2;
      if (d1 == -1 && d2 == -1) bad("-6 splits into at most one -1");
      if (d1 == -1) d1 = d2 == 0 ? -1 : d / d2;
      if (d2 == -1) d2 = d1 == 0 ? -1 : d / d1;
      if (d1 < 0 || d2 < 0 || d1 * d2 != d) bad("-6 cannot split ", d, " into ", t.d1, ", ", t.d2);
      o.push_back(d1);
      o.push_back(d2);
    }
  }
  if (unknown >= 0) {
    int64_t prod = 1;
    for (size_t i = 0; i < o.size(); ++i)
      if (static_cast<int>(i) != unknown) prod *= o[i];
    if (prod == 0 || x.Size() % prod != 0) bad("cannot infer the -1");
    o[unknown] = x.Size() / prod;
  }
  if (p.reverse) std::reverse(o.begin(), o.end());
  Shape r(o);
  if (r.Size() != x.Size()) bad("the sizes differ");
  return r;
}

MX_REGISTER_OP(_npx_reshape)
    .describe(
        "npx reshape: newshape codes -1 infer, -2 copy, -3 skip size 1, -4 copy rest, -5 merge "
        "two, -6 split one; reverse applies them right to left.")
    .add_alias("_npi_reshape")
    .set_params<NpxReshapeParam>()
    .set_input_names(std::vector<std::string>{"a"})
    .add_inplace(0, 0)
    .set_infer_shape(UnaryShape<NpxReshapeShape>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient(ReshapeLikeGrad, true, false);

// ---- _np_squeeze ----
Shape NpSqueezeShape(const OpAttrs& a, const Shape& x) {
  const auto& axis = a.get<SqueezeParam>().axis;
  std::vector<bool> drop(x.ndim(), false);
  if (axis) {
    for (int64_t ax : *axis) {
      int k = NormAxis(a, ax, x.ndim(), "axis", x);
      if (drop[k]) Fail(a, "repeated axis in ", axis->ToString());
      if (x[k] != 1)
        Fail(a, "cannot squeeze axis ", ax, " of shape ", x.ToString(), ": its size is ", x[k],
             ", not 1");
      drop[k] = true;
    }
  } else {
    for (int i = 0; i < x.ndim(); ++i) drop[i] = x[i] == 1;
  }
  std::vector<int64_t> o;
  for (int i = 0; i < x.ndim(); ++i)
    if (!drop[i]) o.push_back(x[i]);
  return Shape(o);
}

MX_REGISTER_OP(_np_squeeze)
    .describe("NumPy squeeze: removes size-1 axes (those in axis, or all); may give 0 dims.")
    .set_params<SqueezeParam>()
    .set_input_names(std::vector<std::string>{"a"})
    .add_inplace(0, 0)
    .set_infer_shape(UnaryShape<NpSqueezeShape>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient(ReshapeLikeGrad, true, false);

// ---- _np_copy ----
MX_REGISTER_OP(_np_copy)
    .describe("A copy of a (same shape and dtype).")
    .set_input_names(std::vector<std::string>{"a"})
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient([](GradBuilder&, const OpAttrs&, GV, GV, GV og) { return Grads{og[0]}; }, false,
                  false);

// ---- _np_atleast_1d / 2d / 3d ----
template <int N>
void AtleastShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  for (size_t i = 0; i < in->size(); ++i) {
    const Shape& x = (*in)[i];
    if (!x.ndim_known()) continue;
    std::vector<int64_t> d = x.ToVector();
    if (static_cast<int>(d.size()) < N) {
      if (d.empty()) {
        d.assign(N, 1);
      } else if (d.size() == 1) {
        d = N == 2 ? std::vector<int64_t>{1, d[0]} : std::vector<int64_t>{1, d[0], 1};
      } else {  // 2 dims, N == 3
        d.push_back(1);
      }
    }
    MergeShape(&(*out)[i], Shape(d), StrCat(OpName(a), ": output ", i));
  }
}

void AtleastType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  for (size_t i = 0; i < in->size(); ++i) {
    MergeType(&(*out)[i], (*in)[i], StrCat(OpName(a), ": output ", i));
    MergeType(&(*in)[i], (*out)[i], StrCat(OpName(a), ": input ", i));
  }
}

int AtleastCount(const OpAttrs& a) {
  int n = a.get<NpAtleastParam>().num_args;
  if (n < 1) Fail(a, "num_args must be >= 1, got ", n);
  return n;
}

#define MX_NP_ATLEAST(NAME, N)                                                            \
  MX_REGISTER_OP(NAME)                                                                    \
      .describe("Each input viewed with at least " #N " dims (NumPy's atleast_" #N "d).") \
      .set_params<NpAtleastParam>()                                                       \
      .set_num_inputs(AtleastCount)                                                       \
      .set_num_outputs(AtleastCount)                                                      \
      .set_input_names([](const OpAttrs& a) {                                             \
        std::vector<std::string> n;                                                       \
        for (int i = 0; i < AtleastCount(a); ++i) n.push_back(StrCat("arys", i));         \
        return n;                                                                         \
      })                                                                                  \
      .set_infer_shape(AtleastShape<N>)                                                   \
      .set_infer_type(AtleastType)                                                        \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)                    \
      .set_gradient(ReshapeLikeGrad, true, false)

MX_NP_ATLEAST(_np_atleast_1d, 1);
MX_NP_ATLEAST(_np_atleast_2d, 2);
MX_NP_ATLEAST(_np_atleast_3d, 3);

// ---- permutations: _np_transpose, _np_moveaxis ----
// out dim i is in dim perm[i].
void PermuteCopy(const NDArray& in, const NDArray& out, const std::vector<int>& perm) {
  std::vector<int64_t> is = Strides(in.shape()), os = Strides(out.shape()),
                       dims = out.shape().ToVector(), ss(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) ss[i] = is[perm[i]];
  if (out.shape().Size() == 0) return;
  StridedCopy(out.data_ptr(), in.data_ptr(), DTypeSize(in.dtype()), dims, os, ss);
}

Shape Permuted(const Shape& x, const std::vector<int>& perm) {
  std::vector<int64_t> o(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) o[i] = x[perm[i]];
  return Shape(o);
}

std::vector<int> TransposePerm(const OpAttrs& a, const Shape& x) {
  const auto& axes = a.get<NpTransposeParam>().axes;
  int nd = x.ndim();
  std::vector<int> perm(nd);
  if (!axes) {
    for (int i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
    return perm;
  }
  if (axes->ndim() != nd)
    Fail(a, "the number of axes ", axes->ToString(), " does not match the input shape ",
         x.ToString());
  std::vector<bool> seen(nd, false);
  for (int i = 0; i < nd; ++i) {
    perm[i] = NormAxis(a, (*axes)[i], nd, "axis", x);
    if (seen[perm[i]]) Fail(a, "repeated axis in axes ", axes->ToString());
    seen[perm[i]] = true;
  }
  return perm;
}

std::vector<int> MoveaxisPerm(const OpAttrs& a, const Shape& x) {
  const auto& p = a.get<NpMoveaxisParam>();
  int nd = x.ndim();
  if (p.source.ndim() != p.destination.ndim())
    Fail(a, "source ", p.source.ToString(), " and destination ", p.destination.ToString(),
         " have different lengths");
  std::vector<int> src, dst;
  for (int i = 0; i < p.source.ndim(); ++i) {
    src.push_back(NormAxis(a, p.source[i], nd, "source axis", x));
    dst.push_back(NormAxis(a, p.destination[i], nd, "destination axis", x));
  }
  for (size_t i = 0; i < src.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      if (src[i] == src[j]) Fail(a, "repeated axis in source ", p.source.ToString());
      if (dst[i] == dst[j]) Fail(a, "repeated axis in destination ", p.destination.ToString());
    }
  std::vector<int> perm(nd, -1), rest;
  for (size_t i = 0; i < src.size(); ++i) perm[dst[i]] = src[i];
  for (int k = 0; k < nd; ++k)
    if (std::find(src.begin(), src.end(), k) == src.end()) rest.push_back(k);
  size_t r = 0;
  for (int i = 0; i < nd; ++i)
    if (perm[i] < 0) perm[i] = rest[r++];
  return perm;
}

template <std::vector<int> (*P)(const OpAttrs&, const Shape&)>
Shape PermShape(const OpAttrs& a, const Shape& x) {
  return Permuted(x, P(a, x));
}

template <std::vector<int> (*P)(const OpAttrs&, const Shape&)>
void PermKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  PermuteCopy(in[0], out[0], P(a, in[0].shape()));
}

// Gradients: _np_transpose by the inverse permutation (None is its own inverse); moveaxis
// back from destination to source.
Grads TransposeGrad(GradBuilder& b, const OpAttrs& a, GV, GV, GV og) {
  NpTransposeParam p = a.get<NpTransposeParam>();
  if (p.axes) {
    int n = p.axes->ndim();
    std::vector<int64_t> inv(n);
    for (int i = 0; i < n; ++i) {
      int64_t ax = (*p.axes)[i];
      inv[ax < 0 ? ax + n : ax] = i;
    }
    p.axes = Shape(inv);
  }
  return Grads{b.CallP("_np_transpose", {og[0]}, p)};
}

Grads MoveaxisGrad(GradBuilder& b, const OpAttrs& a, GV, GV, GV og) {
  NpMoveaxisParam p = a.get<NpMoveaxisParam>();
  std::swap(p.source, p.destination);
  return Grads{b.CallP("_np_moveaxis", {og[0]}, p)};
}

MX_REGISTER_OP(_np_transpose)
    .describe("NumPy transpose: output dim i is input dim axes[i] (None: reversed).")
    .set_params<NpTransposeParam>()
    .set_input_names(std::vector<std::string>{"a"})
    .set_infer_shape(UnaryShape<PermShape<TransposePerm>>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, PermKernel<TransposePerm>)
    .set_gradient(TransposeGrad, false, false);

MX_REGISTER_OP(_np_moveaxis)
    .describe("NumPy moveaxis: axes source move to positions destination, the rest keep order.")
    .set_params<NpMoveaxisParam>()
    .set_input_names(std::vector<std::string>{"a"})
    .set_infer_shape(UnaryShape<PermShape<MoveaxisPerm>>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, PermKernel<MoveaxisPerm>)
    .set_gradient(MoveaxisGrad, false, false);

// ---- _npi_flip ----
void CheckFlipAxes(const OpAttrs& a, const Shape& x) {
  for (int64_t ax : a.get<NpFlipParam>().axis)
    if (ax < 0 || ax >= x.ndim())
      Fail(a, "axis ", ax, " is out of bounds [0, ", x.ndim(), ") for input shape ", x.ToString());
}

Shape FlipShape(const OpAttrs& a, const Shape& x) {
  CheckFlipAxes(a, x);
  return x;
}

MX_REGISTER_OP(_npi_flip)
    .describe("Reverses the elements along axis (each in [0, ndim); listed twice: no change).")
    .set_params<NpFlipParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(UnaryShape<FlipShape>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  CheckFlipAxes(a, s);
                  if (s.Size() == 0) return;
                  std::vector<bool> flip(s.ndim(), false);
                  for (int64_t ax : a.get<NpFlipParam>().axis) flip[ax] = !flip[ax];
                  std::vector<int64_t> st = Strides(s), os = st, dims = s.ToVector();
                  int64_t offset = 0;
                  for (int k = 0; k < s.ndim(); ++k)
                    if (flip[k]) {
                      offset += (s[k] - 1) * st[k];
                      st[k] = -st[k];
                    }
                  size_t es = DTypeSize(in[0].dtype());
                  StridedCopy(out[0].data_ptr(), ElemPtr(in[0].data_ptr(), offset, es), es, dims,
                              os, st);
                })
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV, GV,
                     GV og) { return Grads{b.CallP("_npi_flip", {og[0]}, a.get<NpFlipParam>())}; },
                  false, false);

// ---- _np_roll ----
// The (axis, shift) pairs of a roll on shape x, shifts normalized to [0, size); axis -1: flat.
std::vector<std::pair<int, int64_t>> RollPlan(const OpAttrs& a, const Shape& x) {
  const auto& p = a.get<NpRollParam>();
  if (!p.shift) Fail(a, "roll missing 1 required positional argument: 'shift'");
  const Shape& sh = *p.shift;
  auto norm = [](int64_t s, int64_t n) { return n == 0 ? 0 : ((s % n) + n) % n; };
  if (!p.axis) {
    if (sh.ndim() != 1) Fail(a, "shift must be an int when axis is None, got ", sh.ToString());
    return {{-1, norm(sh[0], x.Size())}};
  }
  const Shape& ax = *p.axis;
  if (sh.ndim() != 1 && sh.ndim() != ax.ndim())
    Fail(a, "shift ", sh.ToString(), " and axis ", ax.ToString(), " must have the same size");
  std::vector<std::pair<int, int64_t>> plan;
  std::vector<bool> seen(x.ndim(), false);
  for (int i = 0; i < ax.ndim(); ++i) {
    int k = NormAxis(a, ax[i], x.ndim(), "axis", x);
    if (seen[k]) Fail(a, "axes have duplicates ", ax.ToString());
    seen[k] = true;
    plan.push_back({k, norm(sh[sh.ndim() == 1 ? 0 : i], x[k])});
  }
  return plan;
}

Shape RollShape(const OpAttrs& a, const Shape& x) {
  RollPlan(a, x);
  return x;
}

// out[(i + shift) mod n] = in[i] along each rolled axis: 2^k strided block copies.
void RollKernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const Shape& s = in[0].shape();
  auto plan = RollPlan(a, s);
  if (s.Size() == 0) return;
  size_t es = DTypeSize(in[0].dtype());
  std::vector<int64_t> dims = s.ToVector(), st = Strides(s);
  if (!plan.empty() && plan[0].first == -1) {  // flattened
    dims = {s.Size()};
    st = {1};
    plan[0].first = 0;
  }
  int n = static_cast<int>(plan.size());
  for (int mask = 0; mask < (1 << n); ++mask) {
    std::vector<int64_t> d = dims;
    int64_t src_off = 0, dst_off = 0;
    bool empty = false;
    for (int j = 0; j < n; ++j) {
      auto [k, sh] = plan[j];
      int64_t len = dims[k];
      // Block 0: in [0, len - sh) -> out [sh, len); block 1: in [len - sh, len) -> out [0, sh).
      if (mask >> j & 1) {
        d[k] = sh;
        src_off += (len - sh) * st[k];
      } else {
        d[k] = len - sh;
        dst_off += sh * st[k];
      }
      if (d[k] == 0) empty = true;
    }
    if (empty) continue;
    StridedCopy(ElemPtr(out[0].data_ptr(), dst_off, es), ElemPtr(in[0].data_ptr(), src_off, es), es,
                d, st, st);
  }
}

MX_REGISTER_OP(_np_roll)
    .describe("NumPy roll: elements shifted along axis (None: the flattened array), wrapping.")
    .set_params<NpRollParam>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(UnaryShape<RollShape>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, RollKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV, GV, GV og) {
          NpRollParam p = a.get<NpRollParam>();
          if (p.shift)
            for (int i = 0; i < p.shift->ndim(); ++i) (*p.shift)[i] = -(*p.shift)[i];
          return Grads{b.CallP("_np_roll", {og[0]}, p)};
        },
        false, false);

// ---- _npi_rot90 ----
struct Rot90Plan {
  int k, a0, a1;
};

Rot90Plan Rot90Of(const OpAttrs& a, const Shape& x) {
  const auto& p = a.get<NpRot90Param>();
  if (!p.axes || p.axes->ndim() != 2) Fail(a, "the length of axes must be 2");
  int a0 = NormAxis(a, (*p.axes)[0], x.ndim(), "axis", x);
  int a1 = NormAxis(a, (*p.axes)[1], x.ndim(), "axis", x);
  if (a0 == a1) Fail(a, "axes have duplicates ", p.axes->ToString());
  return {((p.k % 4) + 4) % 4, a0, a1};
}

Shape Rot90Shape(const OpAttrs& a, const Shape& x) {
  Rot90Plan r = Rot90Of(a, x);
  Shape o = x;
  if (r.k % 2 == 1) std::swap(o[r.a0], o[r.a1]);
  return o;
}

// k=1: out = swap(flip(in, a1)); k=2: flip(in, a0, a1); k=3: flip(swap(in), a1) (NumPy's rot90).
void Rot90Kernel(const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const Shape& s = in[0].shape();
  Rot90Plan r = Rot90Of(a, s);
  const Shape& os = out[0].shape();
  if (os.Size() == 0) return;
  std::vector<int64_t> is = Strides(s), ost = Strides(os), dims = os.ToVector(), ss = is;
  int64_t off = 0;
  if (r.k == 1) {  // out[.., i@a0, .., j@a1, ..] = in[.., j@a0, .., (n1-1-i)@a1, ..]
    ss[r.a0] = -is[r.a1];
    ss[r.a1] = is[r.a0];
    off = (s[r.a1] - 1) * is[r.a1];
  } else if (r.k == 2) {
    ss[r.a0] = -is[r.a0];
    ss[r.a1] = -is[r.a1];
    off = (s[r.a0] - 1) * is[r.a0] + (s[r.a1] - 1) * is[r.a1];
  } else if (r.k == 3) {  // out[.., i@a0, .., j@a1, ..] = in[.., (n0-1-j)@a0, .., i@a1, ..]
    ss[r.a0] = is[r.a1];
    ss[r.a1] = -is[r.a0];
    off = (s[r.a0] - 1) * is[r.a0];
  }
  size_t es = DTypeSize(in[0].dtype());
  StridedCopy(out[0].data_ptr(), ElemPtr(in[0].data_ptr(), off, es), es, dims, ost, ss);
}

MX_REGISTER_OP(_npi_rot90)
    .describe("NumPy rot90: rotates by k * 90 degrees from axes[0] towards axes[1].")
    .set_params<NpRot90Param>()
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(UnaryShape<Rot90Shape>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, Rot90Kernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV, GV, GV og) {
          NpRot90Param p = a.get<NpRot90Param>();
          p.k = -p.k;
          return Grads{b.CallP("_npi_rot90", {og[0]}, p)};
        },
        false, false);

// ---- _npi_broadcast_to ----
Shape BroadcastToShape(const OpAttrs& a, const Shape& x) {
  const Shape& t = a.get<NpBroadcastToParam>().shape;
  int off = t.ndim() - x.ndim();
  if (off < 0) Fail(a, "shape ", x.ToString(), " is not broadcastable to ", t.ToString());
  for (int i = 0; i < t.ndim(); ++i) {
    if (t[i] < 0) Fail(a, "shape ", x.ToString(), " is not broadcastable to ", t.ToString());
    if (i >= off && x[i - off] != t[i] && x[i - off] != 1)
      Fail(a, "shape ", x.ToString(), " is not broadcastable to ", t.ToString());
  }
  return t;
}

MX_REGISTER_OP(_npi_broadcast_to)
    .describe("Broadcasts array to shape (its dims aligned right; size-1 dims repeat).")
    .set_params<NpBroadcastToParam>()
    .set_input_names(std::vector<std::string>{"array"})
    .set_infer_shape(UnaryShape<BroadcastToShape>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape &s = in[0].shape(), &t = out[0].shape();
                  if (t.Size() == 0) return;
                  std::vector<int64_t> is = Strides(s), ss(t.ndim(), 0);
                  int off = t.ndim() - s.ndim();
                  for (int i = 0; i < s.ndim(); ++i) ss[i + off] = s[i] == 1 ? 0 : is[i];
                  StridedCopy(out[0].data_ptr(), in[0].data_ptr(), DTypeSize(in[0].dtype()),
                              t.ToVector(), Strides(t), ss);
                })
    .set_gradient([](GradBuilder& b, const OpAttrs&, GV in, GV,
                     GV og) { return Grads{b.SumLike(og[0], in[0])}; },
                  true, false);

}  // namespace
}  // namespace mxnet::ops
