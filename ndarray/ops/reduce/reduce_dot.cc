// dot and batch_dot with MXNet 1.9.1's shape rules, and the view helpers their gradients use.
//
// dot(lhs, rhs): lhs is read as a matrix (prod(shape[:-1]), shape[-1]) -- or with transpose_a as
// (shape[0], prod(shape[1:])) transposed -- and rhs as (shape[0], prod(shape[1:])) -- or with
// transpose_b as (prod(shape[:-1]), shape[-1]) transposed. The output shape is lhs's free dims
// followed by rhs's free dims; 1-D . 1-D is an inner product of shape (1,) (no transposes).
// batch_dot: N-D x N-D (N >= 3) with equal leading batch dims, matrix product of the last two.
//
// Kernels: a reference triple loop accumulating in double; an optimized one that runs oneDNN's
// matmul for float32 (primitives cached by shape and flags) and a packed, parallel loop for the
// other floating types. Gradients are dot/batch_dot compositions (on 2-D views for dot), so
// higher-order gradients come from the same definitions.
#include "ndarray/backends/onednn/onednn.h"
#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/reduce/reduce_api.h"
#include "ndarray/ops/reduce/reduce_params.h"
#include "ndarray/ops/reduce/reduce_sparse.h"

namespace mxnet::ops {
namespace {

using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

// ---- GEMM: C[b] (M x N) = op(A[b]) (M x K) * op(B[b]) (K x N), row-major storage. ----
// A is stored (M, K), or (K, M) when ta; B is stored (K, N), or (N, K) when tb.
struct GemmDims {
  int64_t batch = 1, M = 0, N = 0, K = 0;
  bool ta = false, tb = false;
};

template <typename T>
void GemmRef(const T* A, const T* B, T* C, const GemmDims& d) {
  for (int64_t b = 0; b < d.batch; ++b) {
    const T* a = A + b * d.M * d.K;
    const T* bb = B + b * d.K * d.N;
    T* c = C + b * d.M * d.N;
    for (int64_t m = 0; m < d.M; ++m)
      for (int64_t n = 0; n < d.N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < d.K; ++k) {
          double x = static_cast<double>(d.ta ? a[k * d.M + m] : a[m * d.K + k]);
          double y = static_cast<double>(d.tb ? bb[n * d.K + k] : bb[k * d.N + n]);
          acc += x * y;
        }
        if constexpr (std::is_same_v<T, double>)
          c[m * d.N + n] = acc;
        else
          c[m * d.N + n] = static_cast<T>(static_cast<float>(acc));
      }
  }
}

// Packed/parallel loop for dtypes oneDNN does not take here: B is packed once per batch into
// row-major (K, N) accumulation-type storage, then rows of C are computed in parallel with an
// i-k-j loop (contiguous, vectorizable inner loop).
template <typename T>
void GemmBlocked(const T* A, const T* B, T* C, const GemmDims& d) {
  using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
  std::vector<Acc> bp(d.K * d.N);
  for (int64_t b = 0; b < d.batch; ++b) {
    const T* a = A + b * d.M * d.K;
    const T* bb = B + b * d.K * d.N;
    T* c = C + b * d.M * d.N;
    ParallelFor(
        d.K,
        [&](int64_t k) {
          for (int64_t n = 0; n < d.N; ++n)
            bp[k * d.N + n] = static_cast<Acc>(d.tb ? bb[n * d.K + k] : bb[k * d.N + n]);
        },
        std::max<int64_t>(1, 16384 / std::max<int64_t>(1, d.N)));
    ParallelForRange(d.M, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, d.N * d.K)),
                     [&](int64_t mb, int64_t me) {
                       std::vector<Acc> row(d.N);
                       for (int64_t m = mb; m < me; ++m) {
                         std::fill(row.begin(), row.end(), Acc(0));
                         for (int64_t k = 0; k < d.K; ++k) {
                           Acc av = static_cast<Acc>(d.ta ? a[k * d.M + m] : a[m * d.K + k]);
                           const Acc* brow = bp.data() + k * d.N;
                           for (int64_t n = 0; n < d.N; ++n) row[n] += av * brow[n];
                         }
                         for (int64_t n = 0; n < d.N; ++n) c[m * d.N + n] = static_cast<T>(row[n]);
                       }
                     });
  }
}

// ---- oneDNN matmul (float32), primitives cached by dims and flags. ----
namespace dnn = ::mxnet::backends::onednn;

// C (batch, M, N) = A (batch, M, K) * B (batch, K, N), dense row-major or (ta/tb) transposed
// operands, by oneDNN's matmul (cached by dims and flags).
void GemmOneDnn(const float* A, const float* B, float* C, const GemmDims& d, std::string_view op) {
  try {
    auto e =
        dnn::Get<dnn::Exec>(backends::CacheKey("matmul")(d.batch, d.M, d.N, d.K, d.ta, d.tb), [&] {
          using dims = dnn::dims;
          const int64_t M = d.M, N = d.N, K = d.K;
          return dnn::MakeMatmul(
              {{d.batch, M, K}, dnn::dt::f32, d.ta ? dims{M * K, 1, M} : dims{M * K, K, 1}},
              {{d.batch, K, N}, dnn::dt::f32, d.tb ? dims{K * N, 1, K} : dims{K * N, N, 1}},
              {{d.batch, M, N}, dnn::dt::f32, dims{M * N, N, 1}});
        });
    e->Run({A, B, C});
  } catch (const dnnl::error& err) {
    MX_THROW(absl::StatusCode::kInternal, op, ": oneDNN matmul failed (", err.what(), ")");
  }
}

template <typename T>
void RunGemmT(bool optimized, const T* pa, const T* pb, T* pc, const GemmDims& d,
              std::string_view op) {
  if (!optimized) {
    GemmRef(pa, pb, pc, d);
  } else if constexpr (std::is_same_v<T, float>) {
    GemmOneDnn(pa, pb, pc, d, op);
  } else {
    GemmBlocked(pa, pb, pc, d);
  }
}

void RunGemm(bool optimized, const NDArray& a, const NDArray& b, const NDArray& c,
             const GemmDims& d, std::string_view op) {
  if (d.batch * d.M * d.N == 0) return;
  if (d.K == 0) {
    c.Fill(0);
    return;
  }
  MX_FLOAT_TYPE_SWITCH(a.dtype(), T, op, {
    RunGemmT(optimized, static_cast<const T*>(a.data_ptr()), static_cast<const T*>(b.data_ptr()),
             static_cast<T*>(c.data_ptr()), d, op);
  });
}

// ---- dot ----
struct DotDims {
  Shape out;
  GemmDims g;
};

// lhs/rhs free dims and contracted sizes per MXNet's DotShape. Unknown dims stay -1.
DotDims DotInfer(const Shape& l, const Shape& r, bool ta, bool tb) {
  if (l.ndim() == 0 || r.ndim() == 0)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "dot: inputs must have at least one dimension, got lhs ", l.ToString(), " and rhs ",
             r.ToString());
  auto mismatch = [&](int64_t a, int64_t b) {
    MX_THROW(absl::StatusCode::kInvalidArgument, "dot: shape mismatch: lhs ", l.ToString(),
             " x rhs ", r.ToString(), " (transpose_a=", ta ? "True" : "False",
             ", transpose_b=", tb ? "True" : "False", ") contracts sizes ", a, " and ", b);
  };
  DotDims d;
  d.g.ta = ta, d.g.tb = tb;
  if (l.ndim() == 1 && r.ndim() == 1) {
    if (ta || tb)
      MX_THROW(absl::StatusCode::kInvalidArgument, "dot: cannot transpose 1-D vectors (lhs ",
               l.ToString(), ", rhs ", r.ToString(), ")");
    if (l[0] >= 0 && r[0] >= 0 && l[0] != r[0]) mismatch(l[0], r[0]);
    d.out = Shape{1};
    d.g.M = 1, d.g.N = 1, d.g.K = l[0];
    return d;
  }
  int ln = l.ndim(), rn = r.ndim();
  int64_t lk = ln == 1 ? l[0] : ta ? l[0] : l[ln - 1];
  int64_t rk = rn == 1 ? r[0] : tb ? r[rn - 1] : r[0];
  if (lk >= 0 && rk >= 0 && lk != rk) mismatch(lk, rk);
  int64_t M = 1, N = 1;
  if (ln > 1) {
    int b = ta ? 1 : 0, e = ta ? ln : ln - 1;
    for (int i = b; i < e; ++i) d.out.push_back(l[i]), M = (M < 0 || l[i] < 0) ? -1 : M * l[i];
  }
  if (rn > 1) {
    int b = tb ? 0 : 1, e = tb ? rn - 1 : rn;
    for (int i = b; i < e; ++i) d.out.push_back(r[i]), N = (N < 0 || r[i] < 0) ? -1 : N * r[i];
  }
  d.g.M = M, d.g.N = N, d.g.K = lk >= 0 ? lk : rk;
  return d;
}

void DotShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape &l = (*in)[0], &r = (*in)[1];
  if (!l.ndim_known() || !r.ndim_known()) return;
  const auto& p = attrs.get<DotParam>();
  MergeShape(&(*out)[0], DotInfer(l, r, p.transpose_a, p.transpose_b).out, "dot: output");
}

FCompute DotKernel(bool optimized) {
  return [optimized](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
    const auto& p = attrs.get<DotParam>();
    GemmDims g = DotInfer(in[0].shape(), in[1].shape(), p.transpose_a, p.transpose_b).g;
    RunGemm(optimized, in[0], in[1], out[0], g, "dot");
  };
}

bool FloatInputs(const OpAttrs&, std::span<const NDArray> in) {
  return IsFloatingPoint(in[0].dtype());
}

MatrixViewParam Split(int s) {
  MatrixViewParam p;
  p.split = s;
  return p;
}
DotParam Flags(bool ta, bool tb) {
  DotParam p;
  p.transpose_a = ta;
  p.transpose_b = tb;
  return p;
}

Grads DotGrad(GradBuilder& b, const OpAttrs& attrs, GV in, GV, GV og) {
  const auto& p = attrs.get<DotParam>();
  bool ta = p.transpose_a, tb = p.transpose_b;
  GradValue lm = b.CallP("_matrix_view", {in[0]}, Split(ta ? 1 : -1));
  GradValue rm = b.CallP("_matrix_view", {in[1]}, Split(tb ? -1 : 1));
  GradValue g = b.CallP("_dot_out_view", {og[0], in[0]}, Flags(ta, false));
  GradValue dl =
      !ta ? b.CallP("dot", {g, rm}, Flags(false, !tb)) : b.CallP("dot", {rm, g}, Flags(tb, true));
  GradValue dr =
      !tb ? b.CallP("dot", {lm, g}, Flags(!ta, false)) : b.CallP("dot", {g, lm}, Flags(true, ta));
  return Grads{b.Call("_reshape_as", {dl, in[0]}), b.Call("_reshape_as", {dr, in[1]})};
}

MX_REGISTER_OP(dot)
    .describe(
        "Dot product of two arrays (MXNet's N-D dot: contracts lhs's last axis, or first "
        "with transpose_a, with rhs's first axis, or last with transpose_b).")
    .add_alias("_sparse_dot")
    .set_params<DotParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"lhs", "rhs"})
    .set_infer_shape(DotShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, DotKernel(false))
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, DotKernel(true), FloatInputs)
    .set_storage_kernel(DotInferStorage, DotCsrKernel)  // csr lhs (reduce_sparse.cc)
    .set_gradient(DotGrad, true, false);

// ---- batch_dot ----
struct BatchDims {
  Shape out;
  GemmDims g;
};

BatchDims BatchInfer(const Shape& l, const Shape& r, bool ta, bool tb) {
  auto flags = [&] {
    return StrCat(" (transpose_a=", ta ? "True" : "False", ", transpose_b=", tb ? "True" : "False",
                  ")");
  };
  if (l.ndim() < 3 || l.ndim() != r.ndim())
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "batch_dot: inputs must both be N-D with the same N >= 3, got lhs ", l.ToString(),
             " and rhs ", r.ToString());
  int n = l.ndim();
  BatchDims d;
  d.g.ta = ta, d.g.tb = tb;
  int64_t batch = 1;
  for (int i = 0; i < n - 2; ++i) {
    int64_t v = l[i] >= 0 ? l[i] : r[i];
    if (l[i] >= 0 && r[i] >= 0 && l[i] != r[i])
      MX_THROW(absl::StatusCode::kInvalidArgument,
               "batch_dot: leading batch dimensions differ: lhs ", l.ToString(), " vs rhs ",
               r.ToString(), flags());
    d.out.push_back(v);
    batch = (batch < 0 || v < 0) ? -1 : batch * v;
  }
  int64_t M = ta ? l[n - 1] : l[n - 2], lk = ta ? l[n - 2] : l[n - 1];
  int64_t rk = tb ? r[n - 1] : r[n - 2], N = tb ? r[n - 2] : r[n - 1];
  if (lk >= 0 && rk >= 0 && lk != rk)
    MX_THROW(absl::StatusCode::kInvalidArgument, "batch_dot: shape mismatch: lhs ", l.ToString(),
             " x rhs ", r.ToString(), flags(), " contracts sizes ", lk, " and ", rk);
  d.out.push_back(M);
  d.out.push_back(N);
  d.g.batch = batch, d.g.M = M, d.g.N = N, d.g.K = lk >= 0 ? lk : rk;
  return d;
}

Grads BatchDotGrad(GradBuilder& b, const OpAttrs& attrs, GV in, GV, GV og) {
  const auto& p = attrs.get<DotParam>();
  bool ta = p.transpose_a, tb = p.transpose_b;
  GradValue g = og[0];
  GradValue dl = !ta ? b.CallP("batch_dot", {g, in[1]}, Flags(false, !tb))
                     : b.CallP("batch_dot", {in[1], g}, Flags(tb, true));
  GradValue dr = !tb ? b.CallP("batch_dot", {in[0], g}, Flags(!ta, false))
                     : b.CallP("batch_dot", {g, in[0]}, Flags(true, ta));
  return Grads{dl, dr};
}

FCompute BatchDotKernel(bool optimized) {
  return [optimized](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
    const auto& p = attrs.get<DotParam>();
    GemmDims g = BatchInfer(in[0].shape(), in[1].shape(), p.transpose_a, p.transpose_b).g;
    RunGemm(optimized, in[0], in[1], out[0], g, "batch_dot");
  };
}

MX_REGISTER_OP(batch_dot)
    .describe("Batchwise matrix product of N-D arrays (N >= 3) over their last two axes.")
    .add_alias("_npx_batch_dot")
    .set_params<DotParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"lhs", "rhs"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape &l = (*in)[0], &r = (*in)[1];
      if (!l.ndim_known() || !r.ndim_known()) return;
      const auto& p = attrs.get<DotParam>();
      MergeShape(&(*out)[0], BatchInfer(l, r, p.transpose_a, p.transpose_b).out,
                 "batch_dot: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BatchDotKernel(false))
    .set_kernel({DeviceType::kCPU, Backend::kOptimized}, BatchDotKernel(true), FloatInputs)
    .set_gradient(BatchDotGrad, true, false);

// ---- View helpers (copies with a new shape) used by dot's gradient. ----
void CopyAll(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
             std::span<const NDArray> out) {
  CopyBytes(out[0].data_ptr(), out[0].device(), in[0].data_ptr(), in[0].device(), in[0].nbytes());
}

Shape MatrixViewShape(const Shape& s, int split) {
  int nd = s.ndim();
  int sp = split < 0 ? split + nd : split;
  if (sp < 0 || sp > nd)
    MX_THROW(absl::StatusCode::kInvalidArgument, "_matrix_view: split ", split,
             " is out of range for input shape ", s.ToString());
  auto prod = [&](int b, int e) {
    int64_t p = 1;
    for (int i = b; i < e; ++i) p = (p < 0 || s[i] < 0) ? -1 : p * s[i];
    return p;
  };
  return Shape{prod(0, sp), prod(sp, nd)};
}

MX_REGISTER_OP(_matrix_view)
    .describe("The input as a 2-D matrix (prod(shape[:split]), prod(shape[split:])).")
    .set_params<MatrixViewParam>()
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      if (!(*in)[0].ndim_known()) return;
      MergeShape(&(*out)[0], MatrixViewShape((*in)[0], attrs.get<MatrixViewParam>().split),
                 "_matrix_view: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyAll)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV, GV og) {
          return Grads{b.Call("_reshape_as", {og[0], in[0]})};
        },
        true, false);

MX_REGISTER_OP(_reshape_as)
    .describe("data reshaped to the shape of `like` (same element count).")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "like"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const Shape &d = (*in)[0], &l = (*in)[1];
      if (d.is_known() && l.is_known() && d.Size() != l.Size())
        MX_THROW(absl::StatusCode::kInvalidArgument, "_reshape_as: cannot reshape ", d.ToString(),
                 " (", d.Size(), " elements) to ", l.ToString(), " (", l.Size(), " elements)");
      MergeShape(&(*out)[0], l, "_reshape_as: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "_reshape_as: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyAll)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV, GV og) {
          return Grads{b.Call("_reshape_as", {og[0], in[0]}), b.ZerosLike(in[1])};
        },
        true, false);

// og of dot viewed as (rows, cols) where rows = the product of lhs's free dims.
MX_REGISTER_OP(_dot_out_view)
    .describe("dot's output gradient as a matrix (product of lhs's free dims, the rest).")
    .set_params<DotParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "lhs"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape &d = (*in)[0], &l = (*in)[1];
      if (!d.is_known() || !l.is_known()) return;
      bool ta = attrs.get<DotParam>().transpose_a;
      int64_t rows = 1;
      if (l.ndim() > 1) rows = ta ? l.ProdRange(1, l.ndim()) : l.ProdRange(0, l.ndim() - 1);
      int64_t cols = rows == 0 ? 0 : d.Size() / rows;
      if (rows * cols != d.Size())
        MX_THROW(absl::StatusCode::kInvalidArgument, "_dot_out_view: ", d.ToString(),
                 " is not a dot output for lhs ", l.ToString());
      MergeShape(&(*out)[0], Shape{rows, cols}, "_dot_out_view: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "_dot_out_view: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyAll)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV, GV og) {
          return Grads{b.Call("_reshape_as", {og[0], in[0]}), b.ZerosLike(in[1])};
        },
        true, false);

}  // namespace

}  // namespace mxnet::ops
