#include "ndarray/ops/nn/nn_util.h"

#include "ndarray/ops/nn/nn_params.h"

namespace mxnet::ops {

// ---- Parameter validation (errors are prefixed with the op name by the caller). ----
std::string BatchNormParam::Validate() const {
  if (!(eps > 0)) return StrCat("attribute eps must be > 0, got ", eps);
  return "";
}
std::string LayerNormParam::Validate() const {
  if (!(eps >= 0)) return StrCat("attribute eps must be >= 0, got ", eps);
  return "";
}
std::string GroupNormParam::Validate() const {
  if (num_groups < 1) return StrCat("attribute num_groups must be >= 1, got ", num_groups);
  if (!(eps >= 0)) return StrCat("attribute eps must be >= 0, got ", eps);
  return "";
}
std::string InstanceNormParam::Validate() const {
  if (!(eps >= 0)) return StrCat("attribute eps must be >= 0, got ", eps);
  return "";
}
std::string LeakyReLUParam::Validate() const {
  if (act_type == "rrelu" && !(lower_bound <= upper_bound))
    return StrCat("attribute lower_bound (", lower_bound, ") must be <= upper_bound (", upper_bound,
                  ")");
  return "";
}
std::string SoftmaxParam::Validate() const {
  if (temperature && !(*temperature != 0)) return StrCat("attribute temperature must be non-zero");
  if (dtype && !IsFloatingPoint(*dtype))
    return StrCat("attribute dtype must be float16, float32 or float64, got ", DTypeName(*dtype));
  return "";
}
std::string SoftmaxOutputParam::Validate() const {
  if (!(smooth_alpha >= 0 && smooth_alpha <= 1))
    return StrCat("attribute smooth_alpha must be in [0, 1], got ", smooth_alpha);
  return "";
}
std::string DropoutParam::Validate() const {
  if (!(p >= 0 && p <= 1)) return StrCat("attribute p must be in [0, 1], got ", p);
  return "";
}

namespace nn {

int NormalizeAxis(std::string_view op, std::string_view attr, int axis, const Shape& shape) {
  int nd = shape.ndim();
  int a = axis < 0 ? axis + nd : axis;
  if (a < 0 || a >= nd)
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": attribute ", attr, "=", axis,
             " is out of range for data of shape ", shape.ToString(), " (ndim ", nd, ")");
  return a;
}

Split3 SplitAt(const Shape& s, int axis) {
  Split3 r;
  r.outer = s.ProdRange(0, axis);
  r.n = s[axis];
  r.inner = s.ProdRange(axis + 1, s.ndim());
  return r;
}

int ParamDType(int t) {
  if (t == DTypeFlag(DType::kFloat16) || t == DTypeFlag(DType::kBFloat16))
    return DTypeFlag(DType::kFloat32);
  return t;
}

void RequireFloat(std::string_view op, std::string_view what, DType t) {
  if (!IsFloatingPoint(t))
    MX_THROW(absl::StatusCode::kInvalidArgument, op, ": ", what,
             " must be a floating-point array, got ", DTypeName(t));
}

void AssignShape(std::string_view op, std::string_view input, Shape* s, const Shape& want) {
  MergeShape(s, want, StrCat(op, ": input ", input));
}

}  // namespace nn
}  // namespace mxnet::ops
