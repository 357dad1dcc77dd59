// MXNet 1.9.1's mx.np.linalg.cholesky, solve, tensorinv and tensorsolve (_npi_cholesky,
// _npi_solve, _npi_tensorinv, _npi_tensorsolve; src/operator/numpy/linalg/np_potrf.cc,
// np_solve.cc, np_tensorinv.cc, np_tensorsolve.cc). Reference kernels in double, per matrix
// of the batch: Cholesky reading the lower triangle, LU with partial pivoting.
//
//   _npi_cholesky  A (..., n, n) symmetric positive definite -> lower L, A = L L^T; float32 and
//                  float64; not positive definite -> kInvalidArgument naming the batch item.
//                  Gradient: potrf's (composed of _linalg_trmm/_linalg_copyltu/_linalg_trsm).
//   _npi_solve     A (..., n, n), B (..., n) (B.ndim == A.ndim - 1: vectors) or (..., n, k) with
//                  A's batch dims -> X with A X = B, B's shape. Dtypes (MXNet's rule): float16
//                  or bool anywhere is an error; float32 with float32 -> float32; every other
//                  pair (integers included) -> float64. Singular A -> kInvalidArgument.
//                  Gradient (_backward_npi_solve): dB = A^-T dX, dA = -dB X^T.
//   _npi_tensorinv a (front..., back...), front = shape[:ind], prod(front) == prod(back) ->
//                  (back..., front...), the inverse of a as a matrix; float32/float64 (MXNet
//                  1.9.1 crashes on integer inputs). Gradient: dA = -X^T dY X^T (matrices).
//   _npi_tensorsolve a, b: a's `a_axes` moved to the end, then a is a (b.size, rest) square
//                  matrix (b.size == prod(a.shape after b.ndim axes)); x = solve(A, b.ravel())
//                  shaped as a's trailing axes. Dtypes as _npi_solve. Gradient as solve's.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ndarray/grad.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/linalg/linalg_api.h"
#include "ndarray/ops/linalg/np_linalg_api.h"

namespace mxnet::ops {
namespace {

using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;
using reduce_internal::OpName;
using Vec = std::vector<double>;
constexpr auto kBad = absl::StatusCode::kInvalidArgument;

Vec Load(const NDArray& a) {
  Vec v(a.size());
  MX_DTYPE_SWITCH(a.dtype(), T, {
    const T* p = static_cast<const T*>(a.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(p[i]);
  });
  return v;
}

void Store(const NDArray& a, const Vec& v) {
  MX_DTYPE_SWITCH(a.dtype(), T, {
    T* p = static_cast<T*>(a.data_ptr());
    for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
  });
}

void NeedSquare(std::string_view op, const Shape& s) {
  if (s.ndim() < 2)
    MX_THROW(kBad, op,
             ": input A must be at least 2-D (a matrix or a batch of matrices), got "
             "shape ",
             s.ToString());
  int n = s.ndim();
  if (s[n - 1] != s[n - 2])
    MX_THROW(kBad, op, ": input A must be square on its last two axes, got shape ", s.ToString());
}

// ---- _npi_cholesky ----
LinalgTriangParam Tr(bool transpose, bool rightside, double alpha) {
  LinalgTriangParam p;
  p.transpose = transpose, p.rightside = rightside, p.lower = true, p.alpha = alpha;
  return p;
}

MX_REGISTER_OP(_npi_cholesky)
    .describe(
        "Cholesky factor L (lower triangular) of symmetric positive definite matrices A = L L^T "
        "(mx.np.linalg.cholesky); reads A's lower triangle. float32/float64.")
    .set_input_names(std::vector<std::string>{"A"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].is_known()) return;
      NeedSquare("_npi_cholesky", (*in)[0]);
      MergeShape(&(*out)[0], (*in)[0], "_npi_cholesky: output");
    })
    .set_infer_type([](const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
      ElemwiseType(attrs, in, out);
      int t = (*out)[0];
      if (t >= 0 && t != static_cast<int>(DType::kFloat32) &&
          t != static_cast<int>(DType::kFloat64))
        MX_THROW(kBad, "_npi_cholesky: dtype ", DTypeName(static_cast<DType>(t)),
                 " is not supported (float32 and float64 only)");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t n = s[s.ndim() - 1];
                  int64_t nb = n == 0 ? 0 : s.Size() / (n * n);
                  Vec a = Load(in[0]), l(a.size(), 0.0);
                  for (int64_t b = 0; b < nb; ++b) {
                    const double* x = a.data() + b * n * n;
                    double* y = l.data() + b * n * n;
                    for (int64_t j = 0; j < n; ++j) {
                      double d = x[j * n + j];
                      for (int64_t k = 0; k < j; ++k) d -= y[j * n + k] * y[j * n + k];
                      if (!(d > 0))
                        MX_THROW(kBad, "_npi_cholesky: matrix ", b, " of input A ", s.ToString(),
                                 " is not symmetric positive definite (pivot ", j, " is ", d,
                                 "); the lower triangle is read");
                      y[j * n + j] = std::sqrt(d);
                      for (int64_t i = j + 1; i < n; ++i) {
                        double v = x[i * n + j];
                        for (int64_t k = 0; k < j; ++k) v -= y[i * n + k] * y[j * n + k];
                        y[i * n + j] = v / y[j * n + j];
                      }
                    }
                  }
                  Store(out[0], l);
                })
    .set_gradient(
        // dA = 0.5 * L^-T * copyLTU(L^T * dL) * L^-1 (symmetric), as _linalg_potrf.
        [](GradBuilder& b, const OpAttrs&, GV, GV outs, GV og) {
          GradValue L = outs[0];
          GradValue m = b.CallP("_linalg_trmm", {L, og[0]}, Tr(true, false, 1.0));
          GradValue s = b.Call("_linalg_copyltu", {m});
          GradValue x = b.CallP("_linalg_trsm", {L, s}, Tr(true, false, 1.0));
          return Grads{b.CallP("_linalg_trsm", {L, x}, Tr(false, true, 0.5))};
        },
        false, true);

// ---- _npi_solve ----
struct SolveDims {
  int64_t n = 0, k = 0, batch = 0;
  bool vector = false;
};

SolveDims SolveInfer(std::string_view op, const Shape& a, const Shape& b) {
  NeedSquare(op, a);
  int na = a.ndim(), nb = b.ndim();
  SolveDims d;
  d.n = a[na - 1];
  d.vector = nb == na - 1;
  if (!d.vector && nb != na)
    MX_THROW(kBad, op, ": B ", b.ToString(), " must have A's ", a.ToString(),
             " batch dimensions and then (n,) or (n, k)");
  for (int i = 0; i < na - 2; ++i)
    if (a[i] != b[i])
      MX_THROW(kBad, op, ": batch dimensions of A ", a.ToString(), " and B ", b.ToString(),
               " differ");
  int64_t bn = d.vector ? b[nb - 1] : b[nb - 2];
  if (bn != d.n)
    MX_THROW(kBad, op, ": A ", a.ToString(), " is ", d.n, " x ", d.n, " but B ", b.ToString(),
             " has ", bn, " rows");
  d.k = d.vector ? 1 : b[nb - 1];
  d.batch = a.ProdRange(0, na - 2);
  return d;
}

DType SolveOutType(std::string_view op, DType a, DType b) {
  for (DType t : {a, b})
    if (t == DType::kFloat16 || t == DType::kBool || t == DType::kBFloat16)
      MX_THROW(kBad, op, ": dtype ", DTypeName(t), " is not supported");
  return a == DType::kFloat32 && b == DType::kFloat32 ? DType::kFloat32 : DType::kFloat64;
}

// Solves A X = B (A n x n, B n x k, row-major) in place of B; transpose: A^T X = B.
void LuSolve(std::string_view op, int64_t item, Vec a, int64_t n, double* x, int64_t k,
             bool transpose) {
  if (transpose)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < i; ++j) std::swap(a[i * n + j], a[j * n + i]);
  for (int64_t c = 0; c < n; ++c) {
    int64_t p = c;
    for (int64_t r = c + 1; r < n; ++r)
      if (std::abs(a[r * n + c]) > std::abs(a[p * n + c])) p = r;
    if (a[p * n + c] == 0)
      MX_THROW(kBad, op, ": matrix ", item, " of A is singular (zero pivot in column ", c, ")");
    if (p != c) {
      for (int64_t j = 0; j < n; ++j) std::swap(a[p * n + j], a[c * n + j]);
      for (int64_t j = 0; j < k; ++j) std::swap(x[p * k + j], x[c * k + j]);
    }
    for (int64_t r = c + 1; r < n; ++r) {
      double f = a[r * n + c] / a[c * n + c];
      if (f == 0) continue;
      for (int64_t j = c; j < n; ++j) a[r * n + j] -= f * a[c * n + j];
      for (int64_t j = 0; j < k; ++j) x[r * k + j] -= f * x[c * k + j];
    }
  }
  for (int64_t c = n - 1; c >= 0; --c)
    for (int64_t j = 0; j < k; ++j) {
      double v = x[c * k + j];
      for (int64_t i = c + 1; i < n; ++i) v -= a[c * n + i] * x[i * k + j];
      x[c * k + j] = v / a[c * n + c];
    }
}

// X (batch of n x k) solving A X = B (or A^T X = B).
Vec SolveAll(std::string_view op, const Vec& a, const Vec& b, const SolveDims& d, bool transpose) {
  Vec x = b;
  for (int64_t i = 0; i < d.batch; ++i) {
    Vec m(a.begin() + i * d.n * d.n, a.begin() + (i + 1) * d.n * d.n);
    LuSolve(op, i, std::move(m), d.n, x.data() + i * d.n * d.k, d.k, transpose);
  }
  return x;
}

MX_REGISTER_OP(_npi_solve)
    .describe(
        "Solution X of A X = B (mx.np.linalg.solve): A (..., n, n), B (..., n) or (..., n, k); "
        "float32 for two float32 inputs, else float64.")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"A", "B"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].is_known() || !(*in)[1].is_known()) return;
      SolveInfer("_npi_solve", (*in)[0], (*in)[1]);
      MergeShape(&(*out)[0], (*in)[1], "_npi_solve: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      if ((*in)[0] < 0 || (*in)[1] < 0) return;
      DType t =
          SolveOutType("_npi_solve", static_cast<DType>((*in)[0]), static_cast<DType>((*in)[1]));
      MergeType(&(*out)[0], static_cast<int>(t), "_npi_solve: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  SolveDims d = SolveInfer("_npi_solve", in[0].shape(), in[1].shape());
                  Store(out[0], SolveAll("_npi_solve", Load(in[0]), Load(in[1]), d, false));
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV outs, GV og) {
          const Op& op = OpRegistry::Get("_backward_npi_solve");
          return b.Apply(op, OpAttrs::Parse(op, {}),
                         std::vector<GradValue>{og[0], in[0], in[1], outs[0]});
        },
        true, true);

MX_REGISTER_OP(_backward_npi_solve)
    .describe("Gradient of _npi_solve: inputs (dX, A, B, X), outputs dA = -dB X^T, dB = A^-T dX.")
    .set_num_inputs(4)
    .set_num_outputs(2)
    .set_input_names(std::vector<std::string>{"dX", "A", "B", "X"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[1], "_backward_npi_solve: dA");
      MergeShape(&(*out)[1], (*in)[2], "_backward_npi_solve: dB");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_backward_npi_solve: dA");
      MergeType(&(*out)[1], (*in)[2], "_backward_npi_solve: dB");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  SolveDims d = SolveInfer("_backward_npi_solve", in[1].shape(), in[2].shape());
                  Vec a = Load(in[1]), x = Load(in[3]);
                  Vec db = SolveAll("_backward_npi_solve", a, Load(in[0]), d, true);
                  Vec da(a.size(), 0.0);
                  for (int64_t i = 0; i < d.batch; ++i) {
                    const double* g = db.data() + i * d.n * d.k;
                    const double* xx = x.data() + i * d.n * d.k;
                    double* o = da.data() + i * d.n * d.n;
                    for (int64_t r = 0; r < d.n; ++r)
                      for (int64_t c = 0; c < d.n; ++c) {
                        double v = 0;
                        for (int64_t j = 0; j < d.k; ++j) v += g[r * d.k + j] * xx[c * d.k + j];
                        o[r * d.n + c] = -v;
                      }
                  }
                  Store(out[0], da);
                  Store(out[1], db);
                })
    .set_non_differentiable();

// ---- _npi_tensorinv ----
// a (front..., back...) with prod(front) == prod(back) (front = a.shape[:ind]) -> its inverse as
// a (prod(front), prod(back)) matrix, shaped back + front.
struct TensorinvDims {
  Shape out;
  int64_t n = 0;
};

TensorinvDims TensorinvInfer(const Shape& a, int ind) {
  if (ind <= 0 || ind > a.ndim())
    MX_THROW(kBad, "_npi_tensorinv: ind ", ind, " must be in [1, ", a.ndim(), "] for input shape ",
             a.ToString());
  int64_t front = a.ProdRange(0, ind), back = a.ProdRange(ind, a.ndim());
  if (front != back)
    MX_THROW(kBad, "_npi_tensorinv: input ", a.ToString(),
             " is not square: prod(shape[:ind]) = ", front, " != prod(shape[ind:]) = ", back,
             " (ind=", ind, ")");
  TensorinvDims d;
  for (int i = ind; i < a.ndim(); ++i) d.out.push_back(a[i]);
  for (int i = 0; i < ind; ++i) d.out.push_back(a[i]);
  d.n = front;
  return d;
}

Vec Inverse(std::string_view op, const Vec& a, int64_t n) {
  Vec x(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) x[i * n + i] = 1.0;
  LuSolve(op, 0, a, n, x.data(), n, false);
  return x;
}

void FloatOnly(std::string_view op, int t) {
  if (t >= 0 && t != static_cast<int>(DType::kFloat32) && t != static_cast<int>(DType::kFloat64))
    MX_THROW(kBad, op, ": dtype ", DTypeName(static_cast<DType>(t)),
             " is not supported (float32 and float64 only)");
}

MX_REGISTER_OP(_npi_tensorinv)
    .describe(
        "Inverse of a tensor for tensordot (mx.np.linalg.tensorinv): a (front..., back...) with "
        "front = a.shape[:ind], prod(front) == prod(back) -> (back..., front...). float32/64.")
    .set_params<NpTensorinvParam>()
    .set_input_names(std::vector<std::string>{"a"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].is_known()) return;
      MergeShape(&(*out)[0], TensorinvInfer((*in)[0], attrs.get<NpTensorinvParam>().ind).out,
                 "_npi_tensorinv: output");
    })
    .set_infer_type([](const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
      ElemwiseType(attrs, in, out);
      FloatOnly("_npi_tensorinv", (*out)[0]);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  TensorinvDims d =
                      TensorinvInfer(in[0].shape(), attrs.get<NpTensorinvParam>().ind);
                  Store(out[0], Inverse("_npi_tensorinv", Load(in[0]), d.n));
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, GV, GV outs, GV og) {
          return Grads{
              b.CallP("_backward_npi_tensorinv", {og[0], outs[0]}, attrs.get<NpTensorinvParam>())};
        },
        false, true);

// dA = -(X^T dY X^T) as a (front, back) matrix, X = the output as a (back, front) matrix.
MX_REGISTER_OP(_backward_npi_tensorinv)
    .describe("Gradient of _npi_tensorinv: inputs (dOut, Out), output dA = -Out^T dOut Out^T.")
    .set_params<NpTensorinvParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "out"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& y = (*in)[1];
      if (!y.is_known()) return;
      int ind = attrs.get<NpTensorinvParam>().ind, k = y.ndim() - ind;
      if (ind <= 0 || k < 0)
        MX_THROW(kBad, "_backward_npi_tensorinv: ind ", ind, " does not fit output ", y.ToString());
      Shape a;
      for (int i = k; i < y.ndim(); ++i) a.push_back(y[i]);
      for (int i = 0; i < k; ++i) a.push_back(y[i]);
      MergeShape(&(*out)[0], a, "_backward_npi_tensorinv: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_backward_npi_tensorinv: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  int64_t size = in[1].size();
                  auto n = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(size))));
                  Vec dy = Load(in[0]), x = Load(in[1]), t(size, 0.0), da(size, 0.0);
                  // t = dY X^T (rows of dY: back; X is (back, front))
                  for (int64_t i = 0; i < n; ++i)
                    for (int64_t j = 0; j < n; ++j) {
                      double v = 0;
                      for (int64_t k = 0; k < n; ++k) v += dy[i * n + k] * x[j * n + k];
                      t[i * n + j] = v;
                    }
                  // da = -X^T t
                  for (int64_t i = 0; i < n; ++i)
                    for (int64_t j = 0; j < n; ++j) {
                      double v = 0;
                      for (int64_t k = 0; k < n; ++k) v += x[k * n + i] * t[k * n + j];
                      da[i * n + j] = -v;
                    }
                  Store(out[0], da);
                })
    .set_non_differentiable();

// ---- _npi_tensorsolve ----
// a's axes in `a_axes` move to the end (NumPy's order); the permuted a is a (prod(front),
// prod(back)) matrix with front = its first b.ndim axes; x has shape back.
struct TensorsolveDims {
  std::vector<int> perm;  // permuted axis i = a's axis perm[i]
  Shape permuted, x;
  int64_t n = 0;
};

TensorsolveDims TensorsolveInfer(std::string_view op, const Shape& a, const Shape& b,
                                 const Shape& a_axes) {
  TensorsolveDims d;
  for (int i = 0; i < a.ndim(); ++i) d.perm.push_back(i);
  for (int i = 0; i < a_axes.ndim(); ++i) {
    int ax = reduce_internal::CheckAxis(op, a_axes[i], a, "a_axes axis");
    auto it = std::find(d.perm.begin(), d.perm.end(), ax);
    d.perm.erase(it);
    d.perm.push_back(ax);
  }
  for (int p : d.perm) d.permuted.push_back(a[p]);
  if (b.ndim() > a.ndim())
    MX_THROW(kBad, op, ": b ", b.ToString(), " has more dimensions than a ", a.ToString());
  int64_t front = d.permuted.ProdRange(0, b.ndim());
  int64_t back = d.permuted.ProdRange(b.ndim(), a.ndim());
  if (front != back || front != b.Size())
    MX_THROW(kBad, op, ": a ", a.ToString(), " (axes moved: ", d.permuted.ToString(),
             ") is not square for b ", b.ToString(), ": prod of its first b.ndim axes = ", front,
             ", of the rest = ", back, ", b has ", b.Size(), " elements");
  for (int i = b.ndim(); i < a.ndim(); ++i) d.x.push_back(d.permuted[i]);
  d.n = front;
  return d;
}

// Strides of a row-major shape.
std::vector<int64_t> Strides(const Shape& s) {
  std::vector<int64_t> st(s.ndim(), 1);
  for (int i = s.ndim() - 2; i >= 0; --i) st[i] = st[i + 1] * s[i + 1];
  return st;
}

// src laid out as `shape`; returns it with axes in `perm` order (or, with inverse, src laid out
// as the permuted shape back to `shape`).
Vec Permute(const Vec& src, const Shape& shape, const std::vector<int>& perm, bool inverse) {
  std::vector<int64_t> st = Strides(shape);
  int nd = shape.ndim();
  Vec out(src.size());
  std::vector<int64_t> idx(nd, 0);
  for (size_t flat = 0; flat < src.size(); ++flat) {
    int64_t off = 0;  // offset in the original layout of permuted element `flat`
    for (int i = 0; i < nd; ++i) off += idx[i] * st[perm[i]];
    if (inverse)
      out[off] = src[flat];
    else
      out[flat] = src[off];
    for (int i = nd - 1; i >= 0; --i) {
      if (++idx[i] < shape[perm[i]]) break;
      idx[i] = 0;
    }
  }
  return out;
}

MX_REGISTER_OP(_npi_tensorsolve)
    .describe(
        "Solution x of tensordot(a, x, x.ndim) = b (mx.np.linalg.tensorsolve): a_axes move to "
        "the end of a; x has the shape of a's trailing axes. Dtypes as _npi_solve.")
    .set_params<NpTensorsolveParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"a", "b"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].is_known() || !(*in)[1].is_known()) return;
      MergeShape(&(*out)[0],
                 TensorsolveInfer("_npi_tensorsolve", (*in)[0], (*in)[1],
                                  attrs.get<NpTensorsolveParam>().a_axes)
                     .x,
                 "_npi_tensorsolve: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      if ((*in)[0] < 0 || (*in)[1] < 0) return;
      DType t = SolveOutType("_npi_tensorsolve", static_cast<DType>((*in)[0]),
                             static_cast<DType>((*in)[1]));
      MergeType(&(*out)[0], static_cast<int>(t), "_npi_tensorsolve: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  TensorsolveDims d =
                      TensorsolveInfer("_npi_tensorsolve", in[0].shape(), in[1].shape(),
                                       attrs.get<NpTensorsolveParam>().a_axes);
                  Vec a = Permute(Load(in[0]), in[0].shape(), d.perm, false);
                  Vec x = Load(in[1]);
                  LuSolve("_npi_tensorsolve", 0, std::move(a), d.n, x.data(), 1, false);
                  Store(out[0], x);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, GV in, GV outs, GV og) {
          const Op& op = OpRegistry::Get("_backward_npi_tensorsolve");
          return b.Apply(op, OpAttrs::From(op, attrs.get<NpTensorsolveParam>()),
                         std::vector<GradValue>{og[0], in[0], in[1], outs[0]});
        },
        true, true);

MX_REGISTER_OP(_backward_npi_tensorsolve)
    .describe(
        "Gradient of _npi_tensorsolve: inputs (dx, a, b, x), outputs da = -(A^-T dx) x^T (axes "
        "moved back), db = A^-T dx.")
    .set_params<NpTensorsolveParam>()
    .set_num_inputs(4)
    .set_num_outputs(2)
    .set_input_names(std::vector<std::string>{"dx", "a", "b", "x"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[1], "_backward_npi_tensorsolve: da");
      MergeShape(&(*out)[1], (*in)[2], "_backward_npi_tensorsolve: db");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_backward_npi_tensorsolve: da");
      MergeType(&(*out)[1], (*in)[2], "_backward_npi_tensorsolve: db");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  TensorsolveDims d =
                      TensorsolveInfer("_backward_npi_tensorsolve", in[1].shape(), in[2].shape(),
                                       attrs.get<NpTensorsolveParam>().a_axes);
                  Vec a = Permute(Load(in[1]), in[1].shape(), d.perm, false);
                  Vec db = Load(in[0]), x = Load(in[3]);
                  LuSolve("_backward_npi_tensorsolve", 0, std::move(a), d.n, db.data(), 1, true);
                  Vec da(d.n * d.n);
                  for (int64_t r = 0; r < d.n; ++r)
                    for (int64_t c = 0; c < d.n; ++c) da[r * d.n + c] = -db[r] * x[c];
                  Store(out[0], Permute(da, in[1].shape(), d.perm, true));
                  Store(out[1], db);
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops

// ---------------------------------------------------------------------------------------------
namespace mxnet::nd::np::linalg {

NDArray cholesky(const NDArray& a) { return Invoke("_npi_cholesky", std::vector<NDArray>{a})[0]; }
NDArray solve(const NDArray& a, const NDArray& b) {
  return Invoke("_npi_solve", std::vector<NDArray>{a, b})[0];
}
NDArray tensorsolve(const NDArray& a, const NDArray& b, const Shape& a_axes) {
  const Op& op = OpRegistry::Get("_npi_tensorsolve");
  ops::NpTensorsolveParam p;
  p.a_axes = a_axes;
  return Invoke(op, OpAttrs::From(op, p), std::vector<NDArray>{a, b})[0];
}
NDArray tensorinv(const NDArray& a, int ind) {
  return Invoke("_npi_tensorinv", std::vector<NDArray>{a}, {{"ind", std::to_string(ind)}})[0];
}

}  // namespace mxnet::nd::np::linalg
