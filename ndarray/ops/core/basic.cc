// Core elementwise ops that gradient definitions compose (GradBuilder's sugar): same-shape
// arithmetic, negative, scalar arithmetic, zeros_like/ones_like, _copy, broadcast_like and
// _reduce_sum_like. Semantics follow MXNet 1.9's elemwise_* and *_scalar operators.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/core/basic_util.h"

namespace mxnet::ops {
namespace {

// ---- elemwise_add/sub/mul/div ----
template <typename F>
FCompute BinaryKernel(const char* name, F f) {
  return [name, f](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) { MapBinary(name, in[0], in[1], out[0], f); };
}

MX_REGISTER_OP(elemwise_add)
    .describe("Adds arguments elementwise (same shapes).")
    .add_alias("_add")
    .add_alias("_plus")
    .add_alias("_Plus")
    .add_alias("_grad_add")
    .set_num_inputs(2)
    .add_inplace(0, 0)
    .add_inplace(1, 0)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                BinaryKernel("elemwise_add", [](auto a, auto b) { return a + b; }))
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          return std::vector<GradValue>{og[0], og[0]};
        },
        false, false);

MX_REGISTER_OP(elemwise_sub)
    .describe("Subtracts arguments elementwise (same shapes).")
    .add_alias("_sub")
    .add_alias("_minus")
    .add_alias("_Minus")
    .set_num_inputs(2)
    .add_inplace(0, 0)
    .add_inplace(1, 0)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                BinaryKernel("elemwise_sub", [](auto a, auto b) { return a - b; }))
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) {
          return std::vector<GradValue>{og[0], b.Neg(og[0])};
        },
        false, false);

MX_REGISTER_OP(elemwise_mul)
    .describe("Multiplies arguments elementwise (same shapes).")
    .add_alias("_mul")
    .add_alias("_Mul")
    .set_num_inputs(2)
    .add_inplace(0, 0)
    .add_inplace(1, 0)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                BinaryKernel("elemwise_mul", [](auto a, auto b) { return a * b; }))
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.Mul(og[0], in[1]), b.Mul(og[0], in[0])};
        },
        true, false);

MX_REGISTER_OP(elemwise_div)
    .describe("Divides arguments elementwise (same shapes).")
    .add_alias("_div")
    .add_alias("_Div")
    .set_num_inputs(2)
    .add_inplace(0, 0)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                BinaryKernel("elemwise_div", [](auto a, auto b) { return a / b; }))
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          // d/da = g / b ; d/db = -g * a / b^2 = -(g / b) * (a / b)
          GradValue ga = b.Div(og[0], in[1]);
          GradValue gb = b.Neg(b.Mul(ga, b.Div(in[0], in[1])));
          return std::vector<GradValue>{ga, gb};
        },
        true, false);

// ---- negative, _copy ----
MX_REGISTER_OP(negative)
    .describe("Numerical negative, elementwise.")
    .add_alias("_npi_negative")
    .add_inplace(0, 0)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  MapUnary("negative", in[0], out[0], [](auto x) { return -x; });
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue>, std::span<const GradValue>,
           std::span<const GradValue> og) { return std::vector<GradValue>{b.Neg(og[0])}; },
        false, false);

void CopyKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  CopyBytes(out[0].data_ptr(), out[0].device(), in[0].data_ptr(), in[0].device(), in[0].nbytes());
}

MX_REGISTER_OP(_copy)
    .describe("Returns a copy of the input.")
    .add_alias("identity")
    .add_inplace(0, 0)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient([](GradBuilder& b, const OpAttrs&, std::span<const GradValue>,
                     std::span<const GradValue>,
                     std::span<const GradValue> og) { return std::vector<GradValue>{og[0]}; },
                  false, false);

// ---- zeros_like / ones_like ----
template <int V>
void FillKernel(const OpContext&, const OpAttrs&, std::span<const NDArray>,
                std::span<const NDArray> out) {
  out[0].Fill(V);
}

MX_REGISTER_OP(zeros_like)
    .describe("An array of zeros with the shape and dtype of the input.")
    .set_kernel({DeviceType::kCPU, Backend::kReference}, FillKernel<0>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>,
           std::span<const GradValue>) { return std::vector<GradValue>{b.ZerosLike(in[0])}; },
        true, false);

MX_REGISTER_OP(ones_like)
    .describe("An array of ones with the shape and dtype of the input.")
    .set_kernel({DeviceType::kCPU, Backend::kReference}, FillKernel<1>)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>,
           std::span<const GradValue>) { return std::vector<GradValue>{b.ZerosLike(in[0])}; },
        true, false);

// ---- scalar arithmetic ----
// MXNet 1.9.1 (src/operator/tensor/elemwise_binary_scalar_op.h, mshadow_op.h):
//  - output dtype by ScalarOutType (bool -> int64, or float64 with is_int=False; an integer
//    input with is_int=False -> float64), the input converted to it first;
//  - the scalar is converted to the output element type before the op (DType(scalar)): an int32
//    array times 2.5 is the array times 2, a float16 array plus 0.3 adds float16(0.3);
//  - integer arithmetic wraps; integer x / 0 is 0 here (MXNet raises SIGFPE there);
//  - _rdiv_scalar on integers divides in float32 (mshadow's math::id) and converts back as x86
//    does: 2 / 0 = inf gives INT32_MIN for int32, INT64_MIN for int64, 0 for int8/uint8.
enum class SOp { kPlus, kMinus, kRMinus, kMul, kDiv, kRDiv };

// Integer wrap of an int64 value into T.
template <typename T>
T WrapInt(uint64_t v) {
  return static_cast<T>(v);
}

// DType(scalar) for an integer T: truncation toward zero; out of the int64 range (or NaN)
// gives INT64_MIN wrapped to T (x86's cvttsd2si).
template <typename T>
T ScalarToInt(double s) {
  if (!(s > -9.2233720368547758e18 && s < 9.2233720368547758e18))
    return WrapInt<T>(static_cast<uint64_t>(std::numeric_limits<int64_t>::min()));
  return WrapInt<T>(static_cast<uint64_t>(static_cast<int64_t>(s)));
}

// float -> integer T as GCC compiles it on x86-64: 8-byte (and uint32) targets convert through
// int64, smaller ones through int32; NaN or out of range gives that conversion's minimum value,
// truncated to T.
template <typename T>
T FloatToInt(float v) {
  if constexpr (sizeof(T) == 8 || std::is_same_v<T, uint32_t>) {
    if (!(v >= -9.2233720368547758e18f && v < 9.2233720368547758e18f))
      return WrapInt<T>(static_cast<uint64_t>(std::numeric_limits<int64_t>::min()));
    return WrapInt<T>(static_cast<uint64_t>(static_cast<int64_t>(v)));
  } else {
    if (!(v >= -2147483648.0f && v < 2147483648.0f))
      return WrapInt<T>(static_cast<uint64_t>(static_cast<int64_t>(INT32_MIN)));
    return WrapInt<T>(static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v))));
  }
}

template <SOp K, typename T>
T IntScalarOp(T x, T s) {
  const uint64_t ux = static_cast<uint64_t>(x), us = static_cast<uint64_t>(s);
  if constexpr (K == SOp::kPlus) return WrapInt<T>(ux + us);
  if constexpr (K == SOp::kMinus) return WrapInt<T>(ux - us);
  if constexpr (K == SOp::kRMinus) return WrapInt<T>(us - ux);
  if constexpr (K == SOp::kMul) return WrapInt<T>(ux * us);
  if constexpr (K == SOp::kDiv) {
    if (s == 0) return 0;
    if constexpr (std::is_signed_v<T>)
      if (s == T(-1)) return WrapInt<T>(uint64_t{0} - ux);
    return static_cast<T>(x / s);
  }
  if constexpr (K == SOp::kRDiv)
    return FloatToInt<T>(static_cast<float>(s) / static_cast<float>(x));
}

template <SOp K, typename A>
A FloatScalarOp(A x, A s) {
  if constexpr (K == SOp::kPlus) return x + s;
  if constexpr (K == SOp::kMinus) return x - s;
  if constexpr (K == SOp::kRMinus) return s - x;
  if constexpr (K == SOp::kMul) return x * s;
  if constexpr (K == SOp::kDiv) return x / s;
  if constexpr (K == SOp::kRDiv) return s / x;
}

// y[i] = op(x[i], s) with x converted to the output type T first.
template <SOp K, typename Tin, typename T>
void ScalarLoop(const NDArray& in, const NDArray& out, double s) {
  const Tin* x = static_cast<const Tin*>(in.data_ptr());
  T* y = static_cast<T*>(out.data_ptr());
  if constexpr (std::is_integral_v<T>) {
    const T sv = ScalarToInt<T>(s);
    ParallelForRange(in.size(), 32768, [=](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = IntScalarOp<K, T>(static_cast<T>(x[i]), sv);
    });
  } else {
    using A = AccType<T>;
    const A sv = static_cast<A>(static_cast<T>(s));  // DType(scalar), e.g. float16(0.3)
    ParallelForRange(in.size(), 32768, [=](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        y[i] = static_cast<T>(FloatScalarOp<K, A>(static_cast<A>(x[i]), sv));
    });
  }
}

template <SOp K>
void ScalarKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const double s = attrs.get<ScalarParam>().scalar;
  const std::string_view name = attrs.op() ? std::string_view(attrs.op()->name) : "scalar op";
  const DType ti = in[0].dtype(), to = out[0].dtype();
  if (ti == to) {
    MX_NUMERIC_TYPE_SWITCH(ti, T, name, { ScalarLoop<K, T, T>(in[0], out[0], s); });
  } else if (to == DType::kInt64 && ti == DType::kBool) {
    ScalarLoop<K, bool, int64_t>(in[0], out[0], s);
  } else if (to == DType::kFloat64 && !IsFloatingPoint(ti)) {
    MX_DTYPE_SWITCH(ti, T, {
      if constexpr (std::is_integral_v<T>) ScalarLoop<K, T, double>(in[0], out[0], s);
    });
  } else {
    MX_THROW(absl::StatusCode::kInvalidArgument, name, ": unsupported dtypes ", DTypeName(ti),
             " -> ", DTypeName(to));
  }
}

#define MX_SCALAR_OP(NAME, KIND, DOC, GRAD)                                                 \
  MX_REGISTER_OP(NAME)                                                                      \
      .describe(DOC)                                                                        \
      .set_params<ScalarParam>()                                                            \
      .set_infer_type(ScalarOpType)                                                         \
      .add_inplace(0, 0)                                                                    \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, ScalarKernel<SOp::KIND>)         \
      .set_gradient([](GradBuilder& b, const OpAttrs& attrs, std::span<const GradValue> in, \
                       std::span<const GradValue> outs, std::span<const GradValue> og) {    \
        [[maybe_unused]] double s = attrs.get<ScalarParam>().scalar;                        \
        return std::vector<GradValue>{GRAD};                                                \
      })

MX_SCALAR_OP(_plus_scalar, kPlus, "x + scalar.", og[0]).add_alias("_PlusScalar");
MX_SCALAR_OP(_minus_scalar, kMinus, "x - scalar.", og[0]).add_alias("_MinusScalar");
MX_SCALAR_OP(_rminus_scalar, kRMinus, "scalar - x.", b.Neg(og[0])).add_alias("_RMinusScalar");
MX_SCALAR_OP(_mul_scalar, kMul, "x * scalar.", b.MulScalar(og[0], s)).add_alias("_MulScalar");
MX_SCALAR_OP(_div_scalar, kDiv, "x / scalar.", b.MulScalar(og[0], 1.0 / s)).add_alias("_DivScalar");
// d(s / x)/dx = -s / x^2 = -(out / x)
MX_SCALAR_OP(_rdiv_scalar, kRDiv, "scalar / x.", b.Neg(b.Mul(og[0], b.Div(outs[0], in[0]))))
    .add_alias("_RDivScalar");

// ---- broadcast_like / _reduce_sum_like (NumPy broadcasting, aligned at the last axis) ----

// Index maps between a broadcast shape `big` and a smaller shape `small` (right-aligned).
struct BroadcastMap {
  std::vector<int64_t> big_dims, small_strides;  // small strides expanded to big's rank (0 = bcast)
  BroadcastMap(const Shape& big, const Shape& small) {
    int nb = big.ndim(), ns = small.ndim();
    big_dims.assign(big.begin(), big.end());
    small_strides.assign(nb, 0);
    int64_t stride = 1;
    for (int i = ns - 1; i >= 0; --i) {
      int bi = nb - ns + i;
      small_strides[bi] = small[i] == 1 && big[bi] != 1 ? 0 : stride;
      stride *= small[i];
    }
  }
  int64_t SmallIndex(int64_t big_index) const {
    int64_t idx = 0;
    for (int d = static_cast<int>(big_dims.size()) - 1; d >= 0; --d) {
      idx += (big_index % big_dims[d]) * small_strides[d];
      big_index /= big_dims[d];
    }
    return idx;
  }
};

void CheckBroadcastable(std::string_view op, const Shape& big, const Shape& small) {
  bool ok = small.ndim() <= big.ndim();
  for (int i = 0; ok && i < small.ndim(); ++i) {
    int64_t s = small[small.ndim() - 1 - i], g = big[big.ndim() - 1 - i];
    ok = s == g || s == 1;
  }
  if (!ok)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": shape ", small.ToString(),
             " cannot be broadcast to ", big.ToString());
}

// Copies in[0] broadcast (size-1 axes, right-aligned) to out[0]'s shape.
void BroadcastKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  BroadcastMap m(out[0].shape(), in[0].shape());
  int64_t n = out[0].size();
  MX_DTYPE_SWITCH(in[0].dtype(), T, {
    const T* x = static_cast<const T*>(in[0].data_ptr());
    T* y = static_cast<T*>(out[0].data_ptr());
    ParallelFor(n, [&](int64_t i) { y[i] = x[m.SmallIndex(i)]; });
  });
}

// broadcast_like's attributes (MXNet's BroadcastLikeParam).
struct BroadcastLikeParam {
  std::optional<Shape> lhs_axes, rhs_axes;
  template <class D>
  static void Declare(D& d) {
    d.field("lhs_axes", &BroadcastLikeParam::lhs_axes)
        .describe(
            "Axes of lhs to broadcast (negative counts from the end); None: all of rhs's shape.");
    d.field("rhs_axes", &BroadcastLikeParam::rhs_axes)
        .describe("Axes of rhs whose sizes lhs_axes take, pairwise.");
  }
};

// The output shape of broadcast_like with lhs_axes/rhs_axes: lhs's shape with
// out[lhs_axes[i]] = rhs[rhs_axes[i]] (that lhs axis must have size 1 or the same size).
Shape BroadcastLikeAxesShape(const BroadcastLikeParam& p, const Shape& lhs, const Shape& rhs) {
  MX_REQUIRE(p.lhs_axes.has_value() && p.rhs_axes.has_value(), absl::StatusCode::kInvalidArgument,
             "broadcast_like: lhs_axes and rhs_axes must be given together");
  MX_REQUIRE(p.lhs_axes->ndim() == p.rhs_axes->ndim(), absl::StatusCode::kInvalidArgument,
             "broadcast_like: lhs_axes ", p.lhs_axes->ToString(), " and rhs_axes ",
             p.rhs_axes->ToString(), " must have the same length");
  Shape out = lhs;
  for (int i = 0; i < p.lhs_axes->ndim(); ++i) {
    int64_t a = (*p.lhs_axes)[i], r = (*p.rhs_axes)[i];
    if (a < 0) a += lhs.ndim();
    if (r < 0) r += rhs.ndim();
    MX_REQUIRE(a >= 0 && a < lhs.ndim(), absl::StatusCode::kInvalidArgument,
               "broadcast_like: lhs_axes entry ", (*p.lhs_axes)[i],
               " is out of range for lhs of shape ", lhs.ToString());
    MX_REQUIRE(r >= 0 && r < rhs.ndim(), absl::StatusCode::kInvalidArgument,
               "broadcast_like: rhs_axes entry ", (*p.rhs_axes)[i],
               " is out of range for rhs of shape ", rhs.ToString());
    MX_REQUIRE(lhs[a] == 1 || lhs[a] == rhs[r] || lhs[a] < 0 || rhs[r] < 0,
               absl::StatusCode::kInvalidArgument, "broadcast_like: axis ", a, " of lhs ",
               lhs.ToString(), " (size ", lhs[a], ") cannot be broadcast to axis ", r, " of rhs ",
               rhs.ToString(), " (size ", rhs[r], ")");
    out[a] = rhs[r];
  }
  return out;
}

MX_REGISTER_OP(broadcast_like)
    .describe("Broadcasts lhs to the shape of rhs, or only lhs_axes to the sizes of rhs_axes.")
    .set_params<BroadcastLikeParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"lhs", "rhs"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const auto& p = attrs.get<BroadcastLikeParam>();
      if (p.lhs_axes.has_value() || p.rhs_axes.has_value()) {
        if (!(*in)[0].ndim_known() || !(*in)[1].ndim_known()) return;
        (*out)[0] = BroadcastLikeAxesShape(p, (*in)[0], (*in)[1]);
        return;
      }
      if ((*in)[0].ndim_known() && (*in)[1].is_known())
        CheckBroadcastable("broadcast_like", (*in)[1], (*in)[0]);
      (*out)[0] = (*in)[1];
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) { (*out)[0] = (*in)[0]; })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BroadcastKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.SumLike(og[0], in[0]), b.ZerosLike(in[1])};
        },
        true, false);

// Gradient of broadcast_to / broadcast_axis: the output gradient summed back to the input's shape.
std::vector<GradValue> BroadcastGradient(GradBuilder& b, const OpAttrs&,
                                         std::span<const GradValue> in, std::span<const GradValue>,
                                         std::span<const GradValue> og) {
  return {b.SumLike(og[0], in[0])};
}

// broadcast_to's attributes (MXNet's BroadcastToParam): the target shape, 0 = keep that dim.
struct BroadcastToParam {
  Shape shape;
  template <class D>
  static void Declare(D& d) {
    d.field("shape", &BroadcastToParam::shape)
        .describe("The target shape (same rank as the input); 0 keeps the input's size.");
  }
};

MX_REGISTER_OP(broadcast_to)
    .describe("Broadcasts size-1 axes of the input to `shape` (0 keeps an axis).")
    .set_params<BroadcastToParam>()
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const Shape& want = attrs.get<BroadcastToParam>().shape;
      const Shape& x = (*in)[0];
      if (!x.ndim_known()) return;
      MX_REQUIRE(x.ndim() == want.ndim(), absl::StatusCode::kInvalidArgument,
                 "broadcast_to: input of shape ", x.ToString(), " and shape=", want.ToString(),
                 " must have the same rank");
      Shape o = want;
      for (int i = 0; i < o.ndim(); ++i) {
        if (o[i] == 0) o[i] = x[i];
        MX_REQUIRE(x[i] < 0 || x[i] == 1 || x[i] == o[i], absl::StatusCode::kInvalidArgument,
                   "broadcast_to: axis ", i, " of the input ", x.ToString(), " (size ", x[i],
                   ") cannot be broadcast to ", want.ToString());
      }
      (*out)[0] = o;
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BroadcastKernel)
    .set_gradient(BroadcastGradient, true, false);

// broadcast_axis's attributes (MXNet's BroadcastAxesParam).
struct BroadcastAxesParam {
  Shape axis, size;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &BroadcastAxesParam::axis).describe("The axes to broadcast (each of size 1).");
    d.field("size", &BroadcastAxesParam::size).describe("The target size of each axis.");
  }
};

MX_REGISTER_OP(broadcast_axis)
    .describe("Broadcasts the size-1 axes `axis` to sizes `size`.")
    .add_alias("broadcast_axes")
    .set_params<BroadcastAxesParam>()
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const auto& p = attrs.get<BroadcastAxesParam>();
      const Shape& x = (*in)[0];
      if (!x.ndim_known()) return;
      MX_REQUIRE(p.axis.ndim() == p.size.ndim(), absl::StatusCode::kInvalidArgument,
                 "broadcast_axis: axis ", p.axis.ToString(), " and size ", p.size.ToString(),
                 " must have the same length");
      Shape o = x;
      for (int i = 0; i < p.axis.ndim(); ++i) {
        int64_t a = p.axis[i] < 0 ? p.axis[i] + x.ndim() : p.axis[i];
        MX_REQUIRE(a >= 0 && a < x.ndim(), absl::StatusCode::kInvalidArgument,
                   "broadcast_axis: axis ", p.axis[i], " is out of range for an input of shape ",
                   x.ToString());
        MX_REQUIRE(x[a] < 0 || x[a] == 1, absl::StatusCode::kInvalidArgument,
                   "broadcast_axis: axis ", a, " of the input ", x.ToString(),
                   " must have size 1, got ", x[a]);
        MX_REQUIRE(p.size[i] >= 1, absl::StatusCode::kInvalidArgument, "broadcast_axis: size ",
                   p.size[i], " must be positive");
        o[a] = p.size[i];
      }
      (*out)[0] = o;
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, BroadcastKernel)
    .set_gradient(BroadcastGradient, true, false);

// ---- _reduce_sum_like kernel ----
// The input's axes, right-aligned with the output's and with size-1 axes dropped, are merged into
// runs that are all summed (R) or all kept (K); e.g. (N, C, H, W) -> (C, 1, 1) is [R N, K C, R HW].
// Sums accumulate in double (floats) or AccType (integers), in 4 interleaved partial sums.
struct SumLikeDims {
  std::vector<int64_t> size;
  std::vector<bool> reduced;
};

SumLikeDims CollapseSumLike(const Shape& big, const Shape& small) {
  SumLikeDims d;
  int nb = big.ndim(), off = nb - small.ndim();
  for (int i = 0; i < nb; ++i) {
    if (big[i] == 1) continue;
    bool r = i < off || small[i - off] == 1;
    if (!d.size.empty() && d.reduced.back() == r) {
      d.size.back() *= big[i];
    } else {
      d.size.push_back(big[i]);
      d.reduced.push_back(r);
    }
  }
  return d;
}

// Input offsets of every combination of the reduced runs among dims [0, end) (row-major order),
// and of every combination of the kept runs among them.
void RunOffsets(const SumLikeDims& d, size_t end, bool reduced, std::vector<int64_t>* offs) {
  std::vector<int64_t> stride(d.size.size());
  int64_t s = 1;
  for (size_t i = d.size.size(); i-- > 0;) {
    stride[i] = s;
    s *= d.size[i];
  }
  offs->assign(1, 0);
  for (size_t i = 0; i < end; ++i) {
    if (d.reduced[i] != reduced) continue;
    std::vector<int64_t> next;
    next.reserve(offs->size() * d.size[i]);
    for (int64_t o : *offs)
      for (int64_t j = 0; j < d.size[i]; ++j) next.push_back(o + j * stride[i]);
    offs->swap(next);
  }
}

template <typename T>
void SumLikeTyped(const T* x, T* y, const Shape& big, const Shape& small) {
  using A = std::conditional_t<std::is_floating_point_v<AccType<T>>, double, AccType<T>>;
  auto load = [](T v) { return static_cast<A>(static_cast<AccType<T>>(v)); };
  auto store = [](A v) { return static_cast<T>(static_cast<AccType<T>>(v)); };
  const int64_t n = big.Size(), k = small.Size();
  SumLikeDims d = CollapseSumLike(big, small);
  bool any_reduced = false;
  for (bool r : d.reduced) any_reduced |= r;
  if (!any_reduced) {  // same size: a copy
    ParallelForRange(n, 1 << 16, [&](int64_t b, int64_t e) { std::copy(x + b, x + e, y + b); });
    return;
  }
  const size_t m = d.size.size();
  if (k == 1) {  // sum of everything: per-chunk partial sums, combined in chunk order
    int chunks = static_cast<int>(std::clamp<int64_t>(n / (1 << 15), 1, GetNumThreads()));
    std::vector<A> part(chunks, A(0));
#pragma omp parallel for num_threads(chunks) schedule(static) if (chunks > 1)
    for (int c = 0; c < chunks; ++c) {
      A a[4] = {A(0), A(0), A(0), A(0)};
      int64_t i = n * c / chunks;
      const int64_t e = n * (c + 1) / chunks;
      for (; i + 4 <= e; i += 4)
        for (int u = 0; u < 4; ++u) a[u] += load(x[i + u]);
      for (; i < e; ++i) a[0] += load(x[i]);
      part[c] = (a[0] + a[1]) + (a[2] + a[3]);
    }
    A total(0);
    for (A p : part) total += p;
    y[0] = store(total);
    return;
  }
  std::vector<int64_t> red, kept;
  if (d.reduced.back()) {
    // [..., R inner]: each output sums contiguous rows of `inner` over the other reduced runs.
    const int64_t inner = d.size.back();
    RunOffsets(d, m - 1, true, &red);
    RunOffsets(d, m - 1, false, &kept);  // one per output, in output order
    int64_t work = std::max<int64_t>(1, n / k);
    ParallelForRange(k, std::max<int64_t>(1, (1 << 14) / work), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        A a[4] = {A(0), A(0), A(0), A(0)};  // independent chains: 4 adds in flight
        for (int64_t r : red) {
          const T* p = x + kept[o] + r;
          int64_t j = 0;
          for (; j + 4 <= inner; j += 4)
            for (int u = 0; u < 4; ++u) a[u] += load(p[j + u]);
          for (; j < inner; ++j) a[0] += load(p[j]);
        }
        y[o] = store((a[0] + a[1]) + (a[2] + a[3]));
      }
    });
    return;
  }
  // [..., K inner]: each output row of `inner` accumulates the input rows over all reduced runs.
  const int64_t inner = d.size.back();
  RunOffsets(d, m - 1, true, &red);
  RunOffsets(d, m - 1, false, &kept);  // one per output row
  const int64_t rows = static_cast<int64_t>(kept.size());
  constexpr int64_t kBlock = 512;
  const int64_t blocks = (inner + kBlock - 1) / kBlock;
  int64_t work = std::max<int64_t>(1, static_cast<int64_t>(red.size()) * std::min(inner, kBlock));
  ParallelForRange(
      rows * blocks, std::max<int64_t>(1, (1 << 14) / work), [&](int64_t b, int64_t e) {
        A acc[kBlock];
        for (int64_t t = b; t < e; ++t) {
          int64_t row = t / blocks, j0 = (t % blocks) * kBlock, len = std::min(kBlock, inner - j0);
          std::fill(acc, acc + len, A(0));
          for (int64_t r : red) {
            const T* p = x + kept[row] + r + j0;
            for (int64_t j = 0; j < len; ++j) acc[j] += load(p[j]);
          }
          T* q = y + row * inner + j0;
          for (int64_t j = 0; j < len; ++j) q[j] = store(acc[j]);
        }
      });
}

void ReduceSumLikeKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                         std::span<const NDArray> out) {
  MX_NUMERIC_TYPE_SWITCH(in[0].dtype(), T, "_reduce_sum_like", {
    SumLikeTyped<T>(static_cast<const T*>(in[0].data_ptr()), static_cast<T*>(out[0].data_ptr()),
                    in[0].shape(), out[0].shape());
  });
}

MX_REGISTER_OP(_reduce_sum_like)
    .describe(
        "Sums data over the axes along which `like` would be broadcast to data's shape, "
        "giving like's shape (gradient of broadcasting).")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data", "like"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      if ((*in)[0].is_known() && (*in)[1].is_known())
        CheckBroadcastable("_reduce_sum_like", (*in)[0], (*in)[1]);
      (*out)[0] = (*in)[1];
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) { (*out)[0] = (*in)[0]; })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ReduceSumLikeKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>, std::span<const GradValue> og) {
          return std::vector<GradValue>{b.Call("broadcast_like", {og[0], in[0]}),
                                        b.ZerosLike(in[1])};
        },
        true, false);

}  // namespace

int ScalarOutType(int in_type, bool is_int) {
  if (in_type < 0) return -1;
  DType t = static_cast<DType>(in_type);
  if (t == DType::kBool) return DTypeFlag(is_int ? DType::kInt64 : DType::kFloat64);
  if (!IsFloatingPoint(t) && !is_int) return DTypeFlag(DType::kFloat64);
  return in_type;
}

void ScalarOpType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  std::string_view op = attrs.op() ? std::string_view(attrs.op()->name) : "scalar op";
  bool is_int = attrs.get<ScalarParam>().is_int;
  if ((*in)[0] >= 0) {
    MergeType(&(*out)[0], ScalarOutType((*in)[0], is_int), StrCat(op, ": output"));
  } else if ((*out)[0] >= 0 && IsFloatingPoint(static_cast<DType>((*out)[0])) &&
             (is_int || (*out)[0] != DTypeFlag(DType::kFloat64))) {
    // A float output comes only from the same input dtype, except float64 with is_int=False
    // (also the output of integer and bool inputs).
    (*in)[0] = (*out)[0];
  }
}

}  // namespace mxnet::ops

namespace mxnet::nd {
namespace {
NDArray ScalarCall(const Op& op, const NDArray& x, double s) {
  ops::ScalarParam p;
  p.scalar = s;
  return Call(op, OpAttrs::From(op, p), {x})[0];
}
}  // namespace
NDArray plus_scalar(const NDArray& x, double s) { return ScalarCall(MX_ND_OP(_plus_scalar), x, s); }
NDArray minus_scalar(const NDArray& x, double s) {
  return ScalarCall(MX_ND_OP(_minus_scalar), x, s);
}
NDArray rminus_scalar(const NDArray& x, double s) {
  return ScalarCall(MX_ND_OP(_rminus_scalar), x, s);
}
NDArray mul_scalar(const NDArray& x, double s) { return ScalarCall(MX_ND_OP(_mul_scalar), x, s); }
NDArray div_scalar(const NDArray& x, double s) { return ScalarCall(MX_ND_OP(_div_scalar), x, s); }
NDArray rdiv_scalar(const NDArray& x, double s) { return ScalarCall(MX_ND_OP(_rdiv_scalar), x, s); }
NDArray broadcast_to(const NDArray& x, const Shape& shape) {
  const Op& op = MX_ND_OP(broadcast_to);
  return Call(op, OpAttrs::Parse(op, {{"shape", shape.ToString()}}), {x})[0];
}
NDArray broadcast_axis(const NDArray& x, const Shape& axis, const Shape& size) {
  const Op& op = MX_ND_OP(broadcast_axis);
  return Call(op, OpAttrs::Parse(op, {{"axis", axis.ToString()}, {"size", size.ToString()}}),
              {x})[0];
}
NDArray broadcast_like(const NDArray& lhs, const NDArray& rhs, const Shape& lhs_axes,
                       const Shape& rhs_axes) {
  const Op& op = MX_ND_OP(broadcast_like);
  return Call(
      op,
      OpAttrs::Parse(op, {{"lhs_axes", lhs_axes.ToString()}, {"rhs_axes", rhs_axes.ToString()}}),
      {lhs, rhs})[0];
}
}  // namespace mxnet::nd
