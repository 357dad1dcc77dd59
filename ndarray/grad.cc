#include "ndarray/grad.h"

namespace mxnet {

GradValue GradBuilder::Call(std::string_view op, std::initializer_list<GradValue> inputs,
                            const AttrDict& attrs) {
  const Op& o = OpRegistry::Get(op);
  return Apply(o, OpAttrs::Parse(o, attrs), std::vector<GradValue>(inputs))[0];
}

GradValue GradBuilder::MulScalar(GradValue a, double s) {
  return Call("_mul_scalar", {a}, {{"scalar", PyFloatRepr(s)}});
}

GradValue GradBuilder::AddScalar(GradValue a, double s) {
  return Call("_plus_scalar", {a}, {{"scalar", PyFloatRepr(s)}});
}

const NDArray& EagerGradBuilder::Get(GradValue v) const {
  MX_CHECK(v.valid() && v.id < static_cast<int>(values_.size()), "bad GradValue ", v.id);
  return values_[v.id];
}

std::vector<GradValue> EagerGradBuilder::Apply(const Op& op, const OpAttrs& attrs,
                                               std::span<const GradValue> inputs) {
  NDArrayVec in;
  for (GradValue v : inputs) in.push_back(Get(v));
  NDArrayVec out = Invoke(op, attrs, in);
  std::vector<GradValue> res;
  for (auto& o : out) res.push_back(Wrap(o));
  return res;
}

std::vector<NDArray> EagerGradBuilder::Run(const Op& op, const OpAttrs& attrs,
                                           std::span<const NDArray> inputs,
                                           std::span<const NDArray> outputs,
                                           std::span<const NDArray> out_grads) {
  if (!op.gradient) MX_THROW(absl::StatusCode::kUnimplemented, op.name, " is not differentiable");
  EagerGradBuilder b;
  std::vector<GradValue> in, out, og;
  for (const auto& a : inputs) in.push_back(b.Wrap(a));
  for (const auto& a : outputs) out.push_back(b.Wrap(a));
  for (const auto& a : out_grads) og.push_back(b.Wrap(a));
  std::vector<GradValue> g = op.gradient(b, attrs, in, out, og);
  if (g.size() != inputs.size())
    MX_THROW(absl::StatusCode::kInternal, op.name, ": gradient returned ", g.size(), " values for ",
             inputs.size(), " inputs");
  std::vector<NDArray> res;
  for (GradValue v : g) res.push_back(v.valid() ? b.Get(v) : NDArray());
  return res;
}

}  // namespace mxnet
