// MXNet 1.9.1's _np_cumsum (mx.np.cumsum; src/operator/numpy/np_cumsum.cc), declared in
// reduce_np_api.h, and its gradient helper _np_cumsum_backward (reverse running sum).
// Shapes: axis None -> (a.size,) (a 0-dim input gives (1,)); axis k -> a's shape (negative k
// counts from the end; out of range is kInvalidArgument). Zero-size inputs give zero-size outputs.
#include <cstdint>
#include <type_traits>

#include "ndarray/grad.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/numpy/reduce_np_api.h"

namespace mxnet::ops {
namespace {
using reduce_internal::AxisSplit;
using reduce_internal::CheckAxis;
using reduce_internal::OpName;
using reduce_internal::SplitAt;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};

// (outer, n, inner) of the running sum over `shape` (axis None: the flattened array).
AxisSplit CumsumSplit(std::string_view op, const Shape& s, const std::optional<int>& axis) {
  if (!axis) {
    AxisSplit sp;
    sp.n = s.Size();
    return sp;
  }
  return SplitAt(s, CheckAxis(op, *axis, s));
}

Shape CumsumShape(std::string_view op, const Shape& s, const std::optional<int>& axis) {
  if (!axis) return Shape{s.Size()};
  CheckAxis(op, *axis, s);
  return s;
}

// Running sum along the split in dtype T (double/int64/uint64 arithmetic, rounded / wrapped to T
// after every step); reverse runs from the end (the gradient).
template <typename T>
void Scan(const T* x, T* y, const AxisSplit& sp, bool reverse) {
  constexpr bool kFloat = !std::is_integral_v<T>;
  for (int64_t o = 0; o < sp.outer; ++o)
    for (int64_t i = 0; i < sp.inner; ++i) {
      const int64_t base = o * sp.n * sp.inner + i;
      T acc = T(0);
      for (int64_t k = 0; k < sp.n; ++k) {
        int64_t j = base + (reverse ? sp.n - 1 - k : k) * sp.inner;
        if constexpr (kFloat)
          acc = T(static_cast<double>(static_cast<float>(acc)) +
                  static_cast<double>(static_cast<float>(x[j])));
        else
          acc = static_cast<T>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(x[j]));
        y[j] = acc;
      }
    }
}
template <>
void Scan<double>(const double* x, double* y, const AxisSplit& sp, bool reverse) {
  for (int64_t o = 0; o < sp.outer; ++o)
    for (int64_t i = 0; i < sp.inner; ++i) {
      const int64_t base = o * sp.n * sp.inner + i;
      double acc = 0;
      for (int64_t k = 0; k < sp.n; ++k) {
        int64_t j = base + (reverse ? sp.n - 1 - k : k) * sp.inner;
        acc += x[j];
        y[j] = acc;
      }
    }
}

void RunScan(const NDArray& x_in, const NDArray& out, const AxisSplit& sp, bool reverse,
             std::string_view op) {
  NDArray x = x_in;
  if (x.dtype() != out.dtype()) {
    x = NDArray(x_in.shape(), x_in.device(), out.dtype());
    ConvertElements(x_in.data_ptr(), x_in.dtype(), x.data_ptr(), out.dtype(), x_in.size());
  }
  if (out.dtype() == DType::kBool)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": dtype bool is not supported");
  MX_NUMERIC_TYPE_SWITCH(out.dtype(), T, op, {
    Scan<T>(static_cast<const T*>(x.data_ptr()), static_cast<T*>(out.data_ptr()), sp, reverse);
  });
}

MX_REGISTER_OP(_np_cumsum)
    .describe(
        "Running sum along axis (mx.np.cumsum); axis None: over the flattened array "
        "(1-D result). Output dtype: `dtype`, else the input's (bool -> int64).")
    .add_alias("cumsum")
    .set_params<NpCumsumParam>()
    .set_input_names(std::vector<std::string>{"a"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& s = (*in)[0];
      if (!s.ndim_known()) return;
      if (!s.is_known() && !a.get<NpCumsumParam>().axis) return;
      MergeShape(&(*out)[0], CumsumShape(OpName(a), s, a.get<NpCumsumParam>().axis),
                 StrCat(OpName(a), ": output"));
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      const auto& p = a.get<NpCumsumParam>();
      int t = (*in)[0];
      if (p.dtype)
        MergeType(&(*out)[0], DTypeFlag(*p.dtype), StrCat(OpName(a), ": output"));
      else if (t >= 0)
        MergeType(&(*out)[0], t == DTypeFlag(DType::kBool) ? DTypeFlag(DType::kInt64) : t,
                  StrCat(OpName(a), ": output"));
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::string_view op = OpName(a);
                  AxisSplit sp = CumsumSplit(op, in[0].shape(), a.get<NpCumsumParam>().axis);
                  RunScan(in[0], out[0], sp, false, op);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          return Grads{b.CallP("_np_cumsum_backward", {og[0], in[0]}, a.get<NpCumsumParam>())};
        },
        true, false);

// Reverse running sum of ograd (cumsum's output shape) along axis, in like's shape and dtype.
MX_REGISTER_OP(_np_cumsum_backward)
    .describe(
        "Gradient of _np_cumsum: the reverse running sum of ograd, shaped and typed as "
        "`like` (the cumsum input).")
    .set_params<NpCumsumParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "like"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& like = (*in)[1];
      if (!like.is_known()) return;
      MergeShape(&(*in)[0], CumsumShape(OpName(a), like, a.get<NpCumsumParam>().axis),
                 "_np_cumsum_backward: ograd");
      MergeShape(&(*out)[0], like, "_np_cumsum_backward: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[1], "_np_cumsum_backward: output");
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::string_view op = OpName(a);
                  AxisSplit sp = CumsumSplit(op, out[0].shape(), a.get<NpCumsumParam>().axis);
                  RunScan(in[0], out[0], sp, true, op);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          NpCumsumParam p = a.get<NpCumsumParam>();
          p.dtype.reset();
          return Grads{b.CallP("_np_cumsum", {og[0]}, p), b.ZerosLike(in[1])};
        },
        true, false);

}  // namespace
}  // namespace mxnet::ops

namespace mxnet::nd::np {
NDArray cumsum(const NDArray& a, const ops::NpCumsumParam& p) {
  const Op& op = OpRegistry::Get("_np_cumsum");
  NDArray in[1] = {a};
  return Invoke(op, OpAttrs::From(op, p), in)[0];
}
}  // namespace mxnet::nd::np
