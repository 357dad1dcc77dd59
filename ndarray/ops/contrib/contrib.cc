// MXNet 1.9.1's small _contrib_ helper operators, registered in the reduce family:
// _contrib_arange_like, _contrib_index_copy, _contrib_index_array, _contrib_div_sqrt_dim,
// _contrib_gradientmultiplier, _contrib_round_ste, _contrib_sign_ste, _contrib_quadratic,
// _contrib_allclose. Semantics and gradients follow MXNet's src/operator/contrib/*.cc and
// src/operator/tensor/init_op.h (arange_like). _contrib_boolean_mask (output shape depends on
// the mask's values) is in reduce_mask.cc.
#include <cmath>
#include <cstring>

#include "ndarray/grad.h"
#include "ndarray/ops/contrib/contrib_params.h"
#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/core/reduce_internal.h"

namespace mxnet::ops {
namespace {
using namespace reduce_internal;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

// Compute type of ops whose float attributes mix with the data (MXNet: float, double for double).
template <typename T>
using MixT = std::conditional_t<std::is_same_v<T, double>, double, float>;

// ---- _contrib_arange_like ----
int ArangeLikeAxis(const OpAttrs& attrs, const Shape& in) {
  const auto& p = attrs.get<ArangeLikeParam>();
  return p.axis ? CheckAxis(OpName(attrs), *p.axis, in) : -1;
}

void ArangeLikeShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return;
  int axis = ArangeLikeAxis(attrs, d);
  MergeShape(&(*out)[0], axis < 0 ? d : Shape{d[axis]}, "_contrib_arange_like: output");
}

// out[i] = start + (i / repeat) * step in the data's dtype (MXNet casts start/step first).
void ArangeLikeKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray>,
                      std::span<const NDArray> out) {
  const auto& p = attrs.get<ArangeLikeParam>();
  int64_t n = out[0].size();
  MX_NUMERIC_TYPE_SWITCH(out[0].dtype(), T, "_contrib_arange_like", {
    using A = AccType<T>;
    A start = static_cast<A>(static_cast<T>(p.start)),
      step = static_cast<A>(static_cast<T>(p.step));
    T* y = static_cast<T*>(out[0].data_ptr());
    for (int64_t i = 0; i < n; ++i)
      y[i] = static_cast<T>(start + static_cast<A>(i / p.repeat) * step);
  });
}

MX_REGISTER_OP(_contrib_arange_like)
    .describe(
        "Evenly spaced values start + (i // repeat) * step shaped like data (axis None) or as "
        "long as data.shape[axis] (1-D); data's dtype. Zero gradient.")
    .add_alias("_npx_arange_like")
    .set_params<ArangeLikeParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape(ArangeLikeShape)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ArangeLikeKernel)
    .set_gradient(ZeroGrads, true, false);

// ---- _contrib_index_copy ----
void IndexCopyShape(const OpAttrs&, ShapeVec* in, ShapeVec* out) {
  Shape &old = (*in)[0], &idx = (*in)[1], &nw = (*in)[2];
  MergeShape(&(*out)[0], old, "_contrib_index_copy: output");
  MergeShape(&old, (*out)[0], "_contrib_index_copy: old_tensor");
  if (idx.ndim_known() && idx.ndim() != 1)
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "_contrib_index_copy: index_vector must be 1-D, got shape ", idx.ToString());
  if (!old.ndim_known() || !nw.ndim_known()) return;
  if (old.ndim() != nw.ndim() || old.ndim() < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, "_contrib_index_copy: new_tensor ", nw.ToString(),
             " must have the rank of old_tensor ", old.ToString(), " (>= 1)");
  for (int i = 1; i < old.ndim(); ++i)
    if (old[i] >= 0 && nw[i] >= 0 && old[i] != nw[i])
      MX_THROW(absl::StatusCode::kInvalidArgument, "_contrib_index_copy: new_tensor ",
               nw.ToString(), " must match old_tensor ", old.ToString(), " beyond axis 0");
  if (idx.ndim_known() && idx[0] >= 0 && nw[0] >= 0 && idx[0] != nw[0])
    MX_THROW(absl::StatusCode::kInvalidArgument, "_contrib_index_copy: index_vector has ", idx[0],
             " entries but new_tensor ", nw.ToString(), " has ", nw[0], " rows");
  if (old[0] >= 0 && nw[0] > old[0])
    MX_THROW(absl::StatusCode::kInvalidArgument, "_contrib_index_copy: new_tensor ", nw.ToString(),
             " has more rows than old_tensor ", old.ToString());
}

// Row indices of index_copy (floats truncated); kOutOfRange outside [0, n).
std::vector<int64_t> IndexCopyRows(const NDArray& idx, int64_t n) {
  std::vector<int64_t> rows = ReadIndices(idx);
  for (int64_t r : rows)
    if (r < 0 || r >= n)
      MX_THROW(absl::StatusCode::kOutOfRange, "_contrib_index_copy: index ", r,
               " is out of range for old_tensor's first axis of size ", n);
  return rows;
}

void IndexCopyKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  in[0].copyto(out[0]);
  int64_t n = in[0].shape()[0];
  std::vector<int64_t> rows = IndexCopyRows(in[1], n);
  size_t row = static_cast<size_t>(n == 0 ? 0 : in[0].size() / n) * DTypeSize(in[0].dtype());
  const char* src = static_cast<const char*>(in[2].data_ptr());
  char* dst = static_cast<char*>(out[0].data_ptr());
  for (size_t j = 0; j < rows.size(); ++j) std::memcpy(dst + rows[j] * row, src + j * row, row);
}

MX_REGISTER_OP(_contrib_index_copy)
    .describe(
        "Copy of old_tensor (N, ...) with rows index_vector[j] replaced by new_tensor[j] "
        "(new_tensor (K, ...), index_vector (K,) of any dtype, floats truncated). Index outside "
        "[0, N) is kOutOfRange. Gradients: old gets og with the copied rows zeroed, new gets "
        "og's rows at the indices; none for the index.")
    .set_num_inputs(3)
    .set_input_names(std::vector<std::string>{"old_tensor", "index_vector", "new_tensor"})
    .set_infer_shape(IndexCopyShape)
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*out)[0], (*in)[0], "_contrib_index_copy: output");
      MergeType(&(*out)[0], (*in)[2], "_contrib_index_copy: new_tensor");
      MergeType(&(*in)[0], (*out)[0], "_contrib_index_copy: old_tensor");
      MergeType(&(*in)[2], (*out)[0], "_contrib_index_copy: new_tensor");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, IndexCopyKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV, GV og) {
          GradValue old_g = b.Call("_contrib_index_copy", {og[0], in[1], b.ZerosLike(in[2])});
          GradValue new_g = b.Call("take", {og[0], in[1]});
          return Grads{old_g, GradValue{}, new_g};
        },
        true, false);

// ---- _contrib_index_array ----
// The listed axes (normalized), or every axis.
std::vector<int> IndexArrayAxes(const OpAttrs& attrs, const Shape& in) {
  const auto& p = attrs.get<IndexArrayParam>();
  std::vector<int> axes;
  if (!p.axes) {
    for (int i = 0; i < in.ndim(); ++i) axes.push_back(i);
  } else {
    for (int64_t a : *p.axes) axes.push_back(CheckAxis("_contrib_index_array", a, in, "axes"));
  }
  return axes;
}

void IndexArrayShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return;
  Shape o = d;
  o.push_back(static_cast<int64_t>(IndexArrayAxes(attrs, d).size()));
  MergeShape(&(*out)[0], o, "_contrib_index_array: output");
}

void IndexArrayKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const Shape& s = in[0].shape();
  std::vector<int> axes = IndexArrayAxes(attrs, s);
  int64_t m = static_cast<int64_t>(axes.size()), n = in[0].size();
  int64_t* y = static_cast<int64_t*>(out[0].data_ptr());
  std::vector<int64_t> coord(s.ndim());
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = i;
    for (int d = s.ndim() - 1; d >= 0; --d) coord[d] = r % s[d], r /= s[d];
    for (int64_t j = 0; j < m; ++j) y[i * m + j] = coord[axes[j]];
  }
}

MX_REGISTER_OP(_contrib_index_array)
    .describe(
        "int64 array of data.shape + (m,) whose [i1..in, j] entry is i_axes[j] (axes None: every "
        "axis, m = ndim). Axes outside the input's rank are kInvalidArgument. Zero gradient.")
    .set_params<IndexArrayParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_output_names(std::vector<std::string>{"output"})
    .set_infer_shape(IndexArrayShape)
    .set_infer_type([](const OpAttrs&, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], static_cast<int>(DType::kInt64), "_contrib_index_array: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, IndexArrayKernel)
    .set_gradient(ZeroGrads, true, false);

// ---- _contrib_div_sqrt_dim ----
MX_REGISTER_OP(_contrib_div_sqrt_dim)
    .describe("data / sqrt(data.shape[-1]) (floating dtypes); gradient og / sqrt(shape[-1]).")
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      if ((*in)[0].ndim_known() && (*in)[0].ndim() == 0)
        MX_THROW(absl::StatusCode::kInvalidArgument,
                 "_contrib_div_sqrt_dim: data must have at least one dimension");
      ElemwiseShape(attrs, in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t n = in[0].size();
                  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_contrib_div_sqrt_dim", {
                    T d = static_cast<T>(std::sqrt(static_cast<AccType<T>>(s[s.ndim() - 1])));
                    const T* x = static_cast<const T*>(in[0].data_ptr());
                    T* y = static_cast<T*>(out[0].data_ptr());
                    for (int64_t i = 0; i < n; ++i)
                      y[i] = static_cast<T>(static_cast<AccType<T>>(x[i]) /
                                            static_cast<AccType<T>>(d));
                  });
                })
    .set_gradient([](GradBuilder& b, const OpAttrs&, GV, GV,
                     GV og) { return Grads{b.Call("_contrib_div_sqrt_dim", {og[0]})}; },
                  false, false);

// ---- _contrib_gradientmultiplier, _contrib_round_ste, _contrib_sign_ste ----
void CopyKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  in[0].copyto(out[0]);
}

MX_REGISTER_OP(_contrib_gradientmultiplier)
    .describe("Identity forward; backward multiplies the gradient by `scalar` (any dtype).")
    .set_params<GradientMultiplierParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .add_inplace(0, 0)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV, GV, GV og) {
          return Grads{b.MulScalar(og[0], a.get<GradientMultiplierParam>().scalar)};
        },
        false, false);

// Straight-through estimators: the gradient passes through unchanged (MXNet: 1 everywhere).
Grads PassThrough(GradBuilder&, const OpAttrs&, GV, GV, GV og) { return Grads{og[0]}; }

MX_REGISTER_OP(_contrib_round_ste)
    .describe(
        "round(x) (half away from zero) forward; straight-through gradient (og passes "
        "unchanged). Any numeric dtype.")
    .add_alias("_sparse__contrib_round_ste")
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  MapUnary("_contrib_round_ste", in[0], out[0], [](auto x) {
                    if constexpr (std::is_floating_point_v<decltype(x)>)
                      return std::round(x);
                    else
                      return x;
                  });
                })
    .add_inplace(0, 0)
    .set_gradient(PassThrough, false, false);

MX_REGISTER_OP(_contrib_sign_ste)
    .describe(
        "sign(x) (-1, 0 or 1; NaN gives 0) forward; straight-through gradient (og passes "
        "unchanged). Any numeric dtype.")
    .add_alias("_sparse__contrib_sign_ste")
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  MapUnary("_contrib_sign_ste", in[0], out[0], [](auto x) {
                    using X = decltype(x);
                    return x < X(0) ? X(-1) : x > X(0) ? X(1) : X(0);
                  });
                })
    .add_inplace(0, 0)
    .set_gradient(PassThrough, false, false);

// ---- _contrib_quadratic ----
MX_REGISTER_OP(_contrib_quadratic)
    .describe(
        "a*x^2 + b*x + c elementwise, computed as x*(a*x + b) + c in float (double for float64) "
        "like MXNet; gradient og * (2*a*x + b).")
    .set_params<QuadraticParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = attrs.get<QuadraticParam>();
                  int64_t n = in[0].size();
                  MX_NUMERIC_TYPE_SWITCH(in[0].dtype(), T, "_contrib_quadratic", {
                    using C = MixT<T>;
                    const T* x = static_cast<const T*>(in[0].data_ptr());
                    T* y = static_cast<T*>(out[0].data_ptr());
                    for (int64_t i = 0; i < n; ++i) {
                      C v = static_cast<C>(x[i]);
                      y[i] = static_cast<T>(v * (C(p.a) * v + C(p.b)) + C(p.c));
                    }
                  });
                })
    .add_inplace(0, 0)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& a, GV in, GV, GV og) {
          const auto& p = a.get<QuadraticParam>();
          QuadraticParam d;  // 2*a*x + b
          d.b = 2 * p.a;
          d.c = p.b;
          return Grads{b.Mul(og[0], b.CallP("_contrib_quadratic", {in[0]}, d))};
        },
        true, false);

// ---- _contrib_allclose ----
MX_REGISTER_OP(_contrib_allclose)
    .describe(
        "uint8 scalar (shape ()): 1 if |a - b| <= atol + rtol * |b| everywhere (NaN equal to NaN "
        "if equal_nan), else 0. a and b must have one shape and dtype. Not differentiable.")
    .set_params<AllCloseParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"a", "b"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const Shape &a = (*in)[0], &b = (*in)[1];
      if (a.ndim_known() && b.ndim_known() && a.is_known() && b.is_known() && a != b)
        MX_THROW(absl::StatusCode::kInvalidArgument, "_contrib_allclose: shapes of a ",
                 a.ToString(), " and b ", b.ToString(), " differ");
      MergeShape(&(*in)[0], (*in)[1], "_contrib_allclose: a");
      MergeShape(&(*in)[1], (*in)[0], "_contrib_allclose: b");
      MergeShape(&(*out)[0], Shape{}, "_contrib_allclose: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      MergeType(&(*in)[1], (*in)[0], "_contrib_allclose: b");
      MergeType(&(*in)[0], (*in)[1], "_contrib_allclose: a");
      MergeType(&(*out)[0], static_cast<int>(DType::kUint8), "_contrib_allclose: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const auto& p = attrs.get<AllCloseParam>();
                  int64_t n = in[0].size();
                  bool all = true;
                  MX_NUMERIC_TYPE_SWITCH(in[0].dtype(), T, "_contrib_allclose", {
                    using C = MixT<T>;
                    const T* x = static_cast<const T*>(in[0].data_ptr());
                    const T* z = static_cast<const T*>(in[1].data_ptr());
                    for (int64_t i = 0; i < n && all; ++i) {
                      C a = static_cast<C>(x[i]), b = static_cast<C>(z[i]);
                      bool na = std::isnan(a), nb = std::isnan(b);
                      if (na || nb)
                        all = p.equal_nan && na == nb;
                      else
                        all = a == b || (a > b ? a - b : b - a) <=
                                            C(p.atol) + (b > 0 ? C(p.rtol) * b : -C(p.rtol) * b);
                    }
                  });
                  *static_cast<uint8_t*>(out[0].data_ptr()) = all ? 1 : 0;
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
