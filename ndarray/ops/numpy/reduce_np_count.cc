// MXNet 1.9.1's _npx_constraint_check (npx.constraint_check; src/operator/numpy/
// np_constraint_check.cc) and _npi_bincount (mx.np.bincount; np_bincount_op.cc), attributes in
// reduce_np_api.h.
//   _npx_constraint_check  bool input (any shape) -> 0-dim bool True; kInvalidArgument with `msg`
//                          when some element is False. Zero gradient.
//   _npi_bincount          1-D non-negative integer data [, weights of its length] -> counts
//                          (data's dtype) or weight sums (weights' dtype) per value, length
//                          max(max(data) + 1, minlength) (data-dependent: unknown statically).
//                          Not differentiable.
#include <algorithm>

#include "ndarray/grad.h"
#include "ndarray/ops/core/reduce_internal.h"
#include "ndarray/ops/numpy/reduce_np_api.h"

namespace mxnet::ops {
namespace {
using reduce_internal::OpName;
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};

MX_REGISTER_OP(_npx_constraint_check)
    .describe(
        "Checks that every element of a bool array is True: returns a 0-dim True, else "
        "raises `msg` (npx.constraint_check).")
    .set_params<NpConstraintCheckParam>()
    .set_input_names(std::vector<std::string>{"input"})
    .set_infer_shape([](const OpAttrs& a, ShapeVec*, ShapeVec* out) {
      MergeShape(&(*out)[0], Shape::Filled(0, 0), StrCat(OpName(a), ": output"));
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      if ((*in)[0] >= 0 && (*in)[0] != DTypeFlag(DType::kBool))
        MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a), ": the input must be bool, got ",
                 DTypeName(static_cast<DType>((*in)[0])));
      MergeType(&(*out)[0], DTypeFlag(DType::kBool), StrCat(OpName(a), ": output"));
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const bool* p = in[0].data<bool>();
                  if (!std::all_of(p, p + in[0].size(), [](bool v) { return v; }))
                    MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a), ": ",
                             a.get<NpConstraintCheckParam>().msg);
                  *out[0].data<bool>() = true;
                })
    .set_gradient([](GradBuilder& b, const OpAttrs&, GV in, GV,
                     GV) { return Grads{b.ZerosLike(in[0])}; },
                  true, false);

// Bins of data (validated: 1-D, integer, non-negative).
std::vector<int64_t> Bins(const OpAttrs& a, const NDArray& data) {
  std::vector<int64_t> v = reduce_internal::ReadIndices(data);
  for (int64_t x : v)
    if (x < 0)
      MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a),
               ": input should be non-negative, got ", x);
  return v;
}
int64_t BinCount(const OpAttrs& a, const std::vector<int64_t>& v) {
  int64_t n = a.get<NpBincountParam>().minlength;
  for (int64_t x : v) n = std::max(n, x + 1);
  return n;
}

MX_REGISTER_OP(_npi_bincount)
    .describe(
        "Occurrences (or weight sums) of each non-negative integer in a 1-D array "
        "(mx.np.bincount); length max(max(data) + 1, minlength).")
    .set_params<NpBincountParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<NpBincountParam>().has_weights ? 2 : 1; })
    .set_input_names([](const OpAttrs& a) {
      return a.get<NpBincountParam>().has_weights ? std::vector<std::string>{"data", "weights"}
                                                  : std::vector<std::string>{"data"};
    })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const Shape& s = (*in)[0];
      if (!s.ndim_known()) return;
      if (s.ndim() != 1)
        MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a), ": needs a 1-D input, got ",
                 s.ToString());
      if (in->size() > 1) MergeShape(&(*in)[1], s, StrCat(OpName(a), ": weights"));
      MergeShape(&(*out)[0], Shape{Shape::kUnknownDim}, StrCat(OpName(a), ": output"));
    })
    .set_dynamic_output_shape([](const OpAttrs& a, std::span<const NDArray> in, ShapeVec* out) {
      (*out)[0] = Shape{BinCount(a, Bins(a, in[0]))};
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      int t = (*in)[0];
      if (t >= 0 && (IsFloatingPoint(static_cast<DType>(t)) || t == DTypeFlag(DType::kBool)))
        MX_THROW(absl::StatusCode::kInvalidArgument, OpName(a),
                 ": input data should be an integer type, got ", DTypeName(static_cast<DType>(t)));
      MergeType(&(*out)[0], in->size() > 1 ? (*in)[1] : t, StrCat(OpName(a), ": output"));
    })
    .set_kernel(kRef,
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::vector<int64_t> v = Bins(a, in[0]);
                  std::vector<double> w =
                      in.size() > 1 ? in[1].ToVector<double>() : std::vector<double>();
                  std::vector<double> y(out[0].size(), 0.0);
                  for (size_t i = 0; i < v.size(); ++i) y[v[i]] += w.empty() ? 1.0 : w[i];
                  ConvertElements(y.data(), DType::kFloat64, out[0].data_ptr(), out[0].dtype(),
                                  y.size());
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
