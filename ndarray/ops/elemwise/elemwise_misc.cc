// clip, where, cast (and the helper _cast_like), smooth_l1, add_n, BlockGrad and make_loss of the
// elemwise family, with MXNet 1.9.1's names, attributes and semantics.
#include <algorithm>
#include <cmath>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/elemwise/elemwise_bits.h"
#include "ndarray/ops/elemwise/elemwise_params.h"
#include "ndarray/ops/elemwise/elemwise_util.h"

namespace mxnet::ops {
namespace {

using ew::S;
using GradIn = std::span<const GradValue>;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
constexpr KernelKey kOpt{DeviceType::kCPU, Backend::kOptimized};

// Runs body(begin, end) over [0, n): in parallel chunks for the optimized kernels.
template <bool Parallel, typename F>
void Loop(int64_t n, F&& body) {
  if constexpr (Parallel)
    ParallelForRange(n, 32768, body);
  else
    body(int64_t{0}, n);
}

// ---- clip ----
// x > a_max ? a_max : (x < a_min ? a_min : x), bounds converted to the data's dtype first
// (so int32 clip(-1.5, 2.7) clips to [-1, 2]); NaN passes through. With a_min > a_max every
// element becomes a_max or a_min the way MXNet's test order gives.
template <bool Par>
void ClipKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<ClipParam>();
  MX_NUMERIC_TYPE_SWITCH(in[0].dtype(), T, "clip", {
    using A = AccType<T>;
    const A lo = static_cast<A>(ew::ScalarAs<T>(p.a_min)),
            hi = static_cast<A>(ew::ScalarAs<T>(p.a_max));
    const T* x = static_cast<const T*>(in[0].data_ptr());
    T* y = static_cast<T*>(out[0].data_ptr());
    Loop<Par>(in[0].size(), [x, y, lo, hi](int64_t b, int64_t e) {
      // Locals, so that the stores cannot alias the bounds (else reloaded and branched on).
      const T* xs = x;
      T* ys = y;
      const A l = lo, h = hi;
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        A v = static_cast<A>(xs[i]);
        ys[i] = static_cast<T>(v > h ? h : (v < l ? l : v));
      }
    });
  });
}

MX_REGISTER_OP(clip)
    .describe(
        "Clips values to [a_min, a_max]: x > a_max -> a_max, x < a_min -> a_min. "
        "Gradient passes where a_min <= x <= a_max.")
    .add_alias("_npi_clip")
    .add_alias("_sparse_clip")
    .set_params<ClipParam>()
    .add_inplace(0, 0)
    .set_kernel(kRef, ClipKernel<false>)
    .set_kernel(kOpt, ClipKernel<true>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, GradIn in, GradIn, GradIn og) {
          const auto& p = attrs.get<ClipParam>();
          GradValue mask = b.Mul(S(b, "_greater_equal_scalar", in[0], p.a_min),
                                 S(b, "_lesser_equal_scalar", in[0], p.a_max));
          return std::vector<GradValue>{b.Mul(og[0], mask)};
        },
        true, false);

// ---- where ----
// condition has x's shape, or is 1-D with x.shape[0] elements (selects whole rows).
void WhereShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  Shape s = Shape::Unknown();
  MergeShape(&s, (*in)[1], "where: x");
  MergeShape(&s, (*in)[2], "where: y (must have x's shape)");
  MergeShape(&s, (*out)[0], "where: output");
  Shape& c = (*in)[0];
  if (c.ndim_known() && s.ndim_known()) {
    bool ok;
    if (c.ndim() == s.ndim()) {
      Shape t = s;
      ok = true;
      for (int i = 0; i < c.ndim() && ok; ++i) ok = c[i] < 0 || t[i] < 0 || c[i] == t[i];
      if (ok) {
        MergeShape(&t, c, "where: condition");
        s = t;
        c = t;
      }
    } else {
      ok = c.ndim() == 1 && s.ndim() >= 1 && (c[0] < 0 || s[0] < 0 || c[0] == s[0]);
    }
    if (!ok)
      MX_THROW(absl::StatusCode::kInvalidArgument, "where: condition shape ", c.ToString(),
               " must equal x's shape ", s.ToString(), " or be 1-D with x.shape[0] elements");
  }
  (*in)[1] = (*in)[2] = (*out)[0] = s;
}

void WhereType(const OpAttrs&, DTypeVec* in, DTypeVec* out) {
  int t = -1;
  MergeType(&t, (*in)[1], "where: x");
  MergeType(&t, (*in)[2], "where: y (must have x's dtype)");
  MergeType(&t, (*out)[0], "where: output");
  (*in)[1] = (*in)[2] = (*out)[0] = t;
}

// Non-zero (NaN included) is true.
template <typename C>
inline bool Truthy(C v) {
  if constexpr (std::is_same_v<C, bool>)
    return v;
  else
    return static_cast<double>(v) != 0.0;
}

template <bool Par>
void WhereKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                 std::span<const NDArray> out) {
  const NDArray &c = in[0], &xa = in[1], &ya = in[2];
  int64_t n = xa.size();
  // Elements per condition entry: 1 (same shape) or the row size (1-D condition).
  int64_t per = c.size() == n ? 1 : (c.size() == 0 ? 1 : n / c.size());
  MX_DTYPE_SWITCH(c.dtype(), C, {
    ew::BitsTypeSwitch(xa.dtype(), [&]<typename T>() {  // x, y are only copied
      const C* cp = static_cast<const C*>(c.data_ptr());
      const T* xp = static_cast<const T*>(xa.data_ptr());
      const T* yp = static_cast<const T*>(ya.data_ptr());
      T* op = static_cast<T*>(out[0].data_ptr());
      if (per == 1) {
        Loop<Par>(n, [cp, xp, yp, op](int64_t b, int64_t e) {
          const C* c1 = cp;
          const T *x1 = xp, *y1 = yp;
          T* o1 = op;
          _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
            T xv = x1[i], yv = y1[i];  // both loaded: a select, not a branch
            o1[i] = Truthy(c1[i]) ? xv : yv;
          }
        });
      } else {
        Loop<Par>(n, [cp, xp, yp, op, per](int64_t b, int64_t e) {
          const C* c1 = cp;
          const T *x1 = xp, *y1 = yp;
          T* o1 = op;
          const int64_t p1 = per;
          for (int64_t i = b; i < e; ++i) o1[i] = Truthy(c1[i / p1]) ? x1[i] : y1[i];
        });
      }
    });
  });
}

MX_REGISTER_OP(where)
    .describe(
        "Takes x where condition is non-zero, else y. condition has x's shape or is 1-D "
        "selecting rows; x and y share shape and dtype; condition may have any dtype.")
    .add_alias("_sparse_where")
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"condition", "x", "y"})
    .set_infer_shape(WhereShape)
    .set_infer_type(WhereType)
    .set_kernel(kRef, WhereKernel<false>)
    .set_kernel(kOpt, WhereKernel<true>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
          GradValue zero = b.ZerosLike(og[0]);
          return std::vector<GradValue>{b.ZerosLike(in[0]), b.Call("where", {in[0], og[0], zero}),
                                        b.Call("where", {in[0], zero, og[0]})};
        },
        true, false);

// ---- cast / _cast_like ----
template <bool Par>
void CastKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  DType st = in[0].dtype(), dt = out[0].dtype();
  const char* src = static_cast<const char*>(in[0].data_ptr());
  char* dst = static_cast<char*>(out[0].data_ptr());
  size_t ss = DTypeSize(st), ds = DTypeSize(dt);
  Loop<Par>(in[0].size(), [&](int64_t b, int64_t e) {
    size_t n = static_cast<size_t>(e - b);
    if constexpr (Par) {  // hardware float32 <-> float16 conversion where the CPU has it
      if (st == DType::kFloat32 && dt == DType::kFloat16 &&
          ew::FloatToHalf(reinterpret_cast<const float*>(src) + b,
                          reinterpret_cast<uint16_t*>(dst) + b, n))
        return;
      if (st == DType::kFloat16 && dt == DType::kFloat32 &&
          ew::HalfToFloat(reinterpret_cast<const uint16_t*>(src) + b,
                          reinterpret_cast<float*>(dst) + b, n))
        return;
    }
    ConvertElements(src + b * ss, st, dst + b * ds, dt, n);
  });
}

MX_REGISTER_OP(cast)
    .describe(
        "Converts elements to `dtype` (as NDArray.astype: floats to integers truncate, "
        "non-zero to bool is true). Gradient: the output gradient cast back.")
    .add_alias("Cast")
    .add_alias("_npi_cast")
    .add_alias("_npx_cast")
    .set_params<CastParam>()
    .set_infer_type([](const OpAttrs& attrs, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], DTypeFlag(attrs.get<CastParam>().dtype), "cast: output");
    })
    .set_kernel(kRef, CastKernel<false>)
    .set_kernel(kOpt, CastKernel<true>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
          return std::vector<GradValue>{b.Call("_cast_like", {og[0], in[0]})};
        },
        true, false);

MX_REGISTER_OP(_cast_like)
    .describe(
        "Converts data's elements to the dtype of `like` (shape of data). Helper for the "
        "gradient of cast (not an MXNet op).")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "like"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      MergeShape(&(*out)[0], (*in)[0], "_cast_like: output");
      (*in)[0] = (*out)[0];
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_cast_like: output");
    })
    .set_kernel(kRef, CastKernel<false>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GradIn in, GradIn, GradIn og) {
          return std::vector<GradValue>{b.Call("_cast_like", {og[0], in[0]}), b.ZerosLike(in[1])};
        },
        true, false);

// ---- smooth_l1 ----
// f(x) = 0.5 (sigma x)^2 if |x| < 1/sigma^2, else |x| - 0.5/sigma^2 (attribute `scalar` = sigma).
template <bool Par>
void SmoothL1Kernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  double sigma = attrs.get<ScalarParam>().scalar;
  MX_NUMERIC_TYPE_SWITCH(in[0].dtype(), T, "smooth_l1", {
    using A = std::conditional_t<std::is_floating_point_v<AccType<T>>, AccType<T>, double>;
    const A s = static_cast<A>(static_cast<AccType<T>>(ew::ScalarAs<T>(sigma)));
    const A s2 = s * s, inv = A(1) / s2;
    const T* x = static_cast<const T*>(in[0].data_ptr());
    T* y = static_cast<T*>(out[0].data_ptr());
    Loop<Par>(in[0].size(), [x, y, s2, inv](int64_t b, int64_t e) {
      const T* xs = x;
      T* ys = y;
      const A sq = s2, t = inv;
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) {
        A v = static_cast<A>(static_cast<AccType<T>>(xs[i]));
        A a = std::fabs(v);
        A r = ew::Select(a < t, A(0.5) * v * v * sq, a - A(0.5) * t);
        if constexpr (std::is_floating_point_v<AccType<T>>)
          ys[i] = static_cast<T>(r);
        else
          ys[i] = ew::FromDouble<T>(r);
      }
    });
  });
}

MX_REGISTER_OP(smooth_l1)
    .describe(
        "Smooth L1: 0.5 (sigma x)^2 where |x| < 1/sigma^2, else |x| - 0.5/sigma^2; "
        "sigma is the `scalar` attribute (default 1).")
    .add_alias("_npx_smooth_l1")
    .set_params<ScalarParam>()
    .add_inplace(0, 0)
    .set_kernel(kRef, SmoothL1Kernel<false>)
    .set_kernel(kOpt, SmoothL1Kernel<true>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, GradIn in, GradIn, GradIn og) {
          // f'(x) = sigma^2 x inside, sign(x) outside = clip(sigma^2 x, -1, 1).
          double s = attrs.get<ScalarParam>().scalar;
          ClipParam cp;
          cp.a_min = -1;
          cp.a_max = 1;
          GradValue d = b.CallP("clip", {b.MulScalar(in[0], s * s)}, cp);
          return std::vector<GradValue>{b.Mul(og[0], d)};
        },
        true, false);

// ---- add_n ----
template <bool Par>
void AddNKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  MX_NUMERIC_TYPE_SWITCH(out[0].dtype(), T, "add_n", {
    T* y = static_cast<T*>(out[0].data_ptr());
    std::vector<const T*> xs;
    for (const auto& a : in) xs.push_back(static_cast<const T*>(a.data_ptr()));
    const T* const* xv = xs.data();
    const size_t nx = xs.size();
    // Chunk by chunk: y = x0 (+ x1), then y += xk, each a SIMD loop over a cache-sized chunk.
    Loop<Par>(out[0].size(), [y, xv, nx](int64_t b, int64_t e) {
      T* ys = y;
      const T* x0 = xv[0];
      if (nx == 1) {
        for (int64_t i = b; i < e; ++i) ys[i] = x0[i];
        return;
      }
      const T* x1 = xv[1];
      _Pragma("omp simd") for (int64_t i = b; i < e; ++i) ys[i] =
          ew::Binary<ew::Add, T>(x0[i], x1[i]);
      for (size_t k = 2; k < nx; ++k) {
        const T* xk = xv[k];
        _Pragma("omp simd") for (int64_t i = b; i < e; ++i) ys[i] =
            ew::Binary<ew::Add, T>(ys[i], xk[i]);
      }
    });
  });
}

MX_REGISTER_OP(add_n)
    .describe("Sums num_args arrays of one shape and dtype elementwise.")
    .add_alias("ElementWiseSum")
    .add_alias("_sparse_ElementWiseSum")
    .add_alias("_sparse_add_n")
    .set_params<AddNParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<AddNParam>().num_args; })
    .add_inplace(0, 0)
    .set_kernel(kRef, AddNKernel<false>)
    .set_kernel(kOpt, AddNKernel<true>)
    .set_gradient([](GradBuilder& b, const OpAttrs&, GradIn in, GradIn,
                     GradIn og) { return std::vector<GradValue>(in.size(), og[0]); },
                  false, false);

// ---- BlockGrad / make_loss ----
void IdentityKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  CopyBytes(out[0].data_ptr(), out[0].device(), in[0].data_ptr(), in[0].device(), in[0].nbytes());
}

MX_REGISTER_OP(BlockGrad)
    .describe("Identity in the forward pass; its gradient is zero (stops backpropagation).")
    .add_alias("stop_gradient")
    .add_alias("_sparse_stop_gradient")
    .add_inplace(0, 0)
    .set_kernel(kRef, IdentityKernel)
    .set_gradient([](GradBuilder& b, const OpAttrs&, GradIn in, GradIn,
                     GradIn) { return std::vector<GradValue>{b.ZerosLike(in[0])}; },
                  true, false);

MX_REGISTER_OP(make_loss)
    .describe(
        "Identity in the forward pass; marks a loss: its gradient is ones, whatever the "
        "output gradient.")
    .add_alias("_sparse_make_loss")
    .add_inplace(0, 0)
    .set_kernel(kRef, IdentityKernel)
    .set_gradient([](GradBuilder& b, const OpAttrs&, GradIn in, GradIn,
                     GradIn) { return std::vector<GradValue>{b.OnesLike(in[0])}; },
                  true, false);

}  // namespace
}  // namespace mxnet::ops
