// Custom (alias _npi_Custom) and _backward_Custom: operators defined by a registered C++
// CustomOpProp (nn_custom_api.h), after MXNet 1.9.1's src/operator/custom/custom.cc.
//
// Inputs: the prop's list_arguments() then list_auxiliary_states(); outputs: list_outputs().
// _backward_Custom's inputs: the output gradients (only when need_top_grad()), the arguments,
// the outputs, the aux states; its outputs: one gradient per argument. Both ops share the
// attributes (op_type plus any kwargs, kept as strings). The prop is built when the attributes are
// parsed (an unknown op_type fails there, as in MXNet) and shared by every call with them.
#include <algorithm>
#include <map>
#include <mutex>

#include "ndarray/grad.h"
#include "ndarray/op.h"
#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/nn/nn_custom_api.h"

namespace mxnet {
namespace ops {

// Attributes of Custom / _backward_Custom.
struct CustomParam {
  std::string op_type;
  AttrDict kwargs;  // every other attribute, as given
  // Built by Validate from op_type and kwargs (not an attribute).
  mutable std::shared_ptr<const nd::CustomOpProp> prop;

  template <class D>
  static void Declare(D& d) {
    d.field("op_type", &CustomParam::op_type)
        .required()
        .describe("name of a custom op registered with RegisterCustomOp");
    d.extra_keys(&CustomParam::kwargs);
  }
  std::string Validate() const;
};

}  // namespace ops

namespace nd {
namespace {

struct CustomRegistry {
  std::mutex mu;
  std::map<std::string, CustomOpPropCreator, std::less<>> creators;
};
CustomRegistry& Registry() {
  static auto* r = new CustomRegistry();
  return *r;
}

// The prop, or nullptr with `*err` set (without the "Custom: " prefix).
std::shared_ptr<const CustomOpProp> MakeProp(const std::string& op_type, const AttrDict& kwargs,
                                             std::string* err) {
  CustomOpPropCreator creator;
  {
    CustomRegistry& r = Registry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.creators.find(op_type);
    if (it == r.creators.end()) {
      *err = StrCat("Cannot find custom operator ", op_type);
      return nullptr;
    }
    creator = it->second;
  }
  std::shared_ptr<const CustomOpProp> prop;
  try {
    prop = creator(kwargs);
  } catch (const std::exception& e) {
    *err = StrCat("error creating the prop of custom operator ", op_type, ": ", e.what());
    return nullptr;
  }
  if (!prop) {
    *err = StrCat("the creator of custom operator ", op_type, " returned no prop");
    return nullptr;
  }
  if (prop->list_outputs().empty()) {
    *err = StrCat("custom operator ", op_type, ": list_outputs() is empty");
    return nullptr;
  }
  return prop;
}

}  // namespace

void CustomOp::backward(const ReqVec&, const ArrayVec&, const ArrayVec&, const ArrayVec&,
                        const ArrayVec&, const ArrayVec&) {
  MX_THROW(absl::StatusCode::kUnimplemented, "CustomOp::backward is not implemented");
}

void CustomOp::assign(const NDArray& dst, std::string_view req, const NDArray& src) {
  if (req == "null") return;
  if (req != "write" && req != "inplace" && req != "add")
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "CustomOp::assign: req must be one of null, "
             "write, inplace, add, got '",
             req, "'");
  if (dst.shape() != src.shape())
    MX_THROW(absl::StatusCode::kInvalidArgument, "CustomOp::assign: src has shape ",
             src.shape().ToString(), ", dst has ", dst.shape().ToString());
  if (req == "add") {
    NDArray s = src.dtype() == dst.dtype() ? src : src.astype(dst.dtype());
    elemwise_add(dst, s).copyto(dst);
  } else if (!src.is_same(dst)) {
    src.copyto(dst);
  }
}

CustomShapes CustomOpProp::infer_shape(const std::vector<Shape>& in_shape) const {
  CustomShapes r;
  r.in = in_shape;
  if (!in_shape.empty()) r.out.assign(list_outputs().size(), in_shape[0]);
  return r;
}

CustomTypes CustomOpProp::infer_type(const std::vector<DType>& in_type) const {
  CustomTypes r;
  r.in = in_type;
  if (!in_type.empty()) {
    r.out.assign(list_outputs().size(), in_type[0]);
    r.aux.assign(list_auxiliary_states().size(), in_type[0]);
  }
  return r;
}

void RegisterCustomOp(const std::string& op_type, CustomOpPropCreator creator) {
  if (op_type.empty())
    MX_THROW(absl::StatusCode::kInvalidArgument, "RegisterCustomOp: empty op_type");
  if (!creator)
    MX_THROW(absl::StatusCode::kInvalidArgument, "RegisterCustomOp('", op_type,
             "'): empty creator");
  CustomRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  if (!r.creators.emplace(op_type, std::move(creator)).second)
    MX_THROW(absl::StatusCode::kAlreadyExists, "RegisterCustomOp: custom operator '", op_type,
             "' is already registered");
}

bool IsCustomOpRegistered(std::string_view op_type) {
  CustomRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.creators.find(op_type) != r.creators.end();
}

std::vector<std::string> ListCustomOps() {
  CustomRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& [name, c] : r.creators) out.push_back(name);
  return out;
}

std::shared_ptr<const CustomOpProp> CreateCustomOpProp(const std::string& op_type,
                                                       const AttrDict& kwargs) {
  std::string err;
  auto prop = MakeProp(op_type, kwargs, &err);
  if (!prop) MX_THROW(absl::StatusCode::kInvalidArgument, "Custom: ", err);
  return prop;
}

std::vector<NDArray> Custom(std::span<const NDArray> inputs, const std::string& op_type,
                            const AttrDict& kwargs) {
  if (kwargs.count("op_type"))
    MX_THROW(absl::StatusCode::kInvalidArgument,
             "Custom: op_type is given twice (argument and kwargs)");
  AttrDict d = kwargs;
  d["op_type"] = op_type;
  const Op& op = MX_ND_OP(Custom);
  NDArrayVec out = Invoke(op, OpAttrs::Parse(op, d), inputs);
  return std::vector<NDArray>(out.begin(), out.end());
}

}  // namespace nd

namespace ops {

std::string CustomParam::Validate() const {
  if (prop) return "";
  if (op_type.empty()) return "Required argument `op_type` is missing.";
  std::string err;
  prop = nd::MakeProp(op_type, kwargs, &err);
  return prop ? "" : err;
}

namespace {

using nd::CustomOp;
using nd::CustomOpProp;

struct Counts {
  size_t args, outs, aux;
  bool top;  // _backward_Custom takes the output gradients
};
Counts CountsOf(const CustomParam& p) {
  return {p.prop->list_arguments().size(), p.prop->list_outputs().size(),
          p.prop->list_auxiliary_states().size(), p.prop->need_top_grad()};
}

// Runs a call into the prop or the op; rethrows its errors naming Custom, op_type and the method
// (mxnet::Error keeps its code; other exceptions become kInvalidArgument).
template <typename F>
auto Guarded(const CustomParam& p, std::string_view what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(e.code(), StrCat("Custom: error in ", p.op_type, ".", what, ": ", e.what()));
  } catch (const std::exception& e) {
    MX_THROW(absl::StatusCode::kInvalidArgument, "Custom: error in ", p.op_type, ".", what, ": ",
             e.what());
  }
}

void CheckCount(const CustomParam& p, std::string_view what, std::string_view kind, size_t got,
                size_t want) {
  if (got != want)
    MX_THROW(absl::StatusCode::kInvalidArgument, "Custom: ", p.op_type, ".", what, ": expecting ",
             want, " entries in returned ", kind, ", got ", got);
}

// Custom's shape inference: the prop's, once every argument shape is fully known.
void CustomShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const auto& p = attrs.get<CustomParam>();
  const Counts c = CountsOf(p);
  for (size_t i = 0; i < c.args; ++i)
    if (!(*in)[i].is_known()) return;
  std::vector<Shape> arg(in->begin(), in->begin() + c.args);
  nd::CustomShapes r = Guarded(p, "infer_shape", [&] { return p.prop->infer_shape(arg); });
  CheckCount(p, "infer_shape", "input shapes", r.in.size(), c.args);
  CheckCount(p, "infer_shape", "output shapes", r.out.size(), c.outs);
  CheckCount(p, "infer_shape", "aux state shapes", r.aux.size(), c.aux);
  const std::vector<std::string> names = attrs.op()->InputNames(attrs);
  for (size_t i = 0; i < c.args; ++i)
    MergeShape(&(*in)[i], r.in[i], StrCat("Custom (", p.op_type, "): input ", names[i]));
  for (size_t i = 0; i < c.aux; ++i)
    MergeShape(&(*in)[c.args + i], r.aux[i],
               StrCat("Custom (", p.op_type, "): aux state ", names[c.args + i]));
  for (size_t i = 0; i < c.outs; ++i)
    MergeShape(&(*out)[i], r.out[i], StrCat("Custom (", p.op_type, "): output ", i));
}

void CustomType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  const auto& p = attrs.get<CustomParam>();
  const Counts c = CountsOf(p);
  std::vector<DType> arg;
  for (size_t i = 0; i < c.args; ++i) {
    if ((*in)[i] < 0) return;
    arg.push_back(static_cast<DType>((*in)[i]));
  }
  nd::CustomTypes r = Guarded(p, "infer_type", [&] { return p.prop->infer_type(arg); });
  CheckCount(p, "infer_type", "input types", r.in.size(), c.args);
  CheckCount(p, "infer_type", "output types", r.out.size(), c.outs);
  CheckCount(p, "infer_type", "aux state types", r.aux.size(), c.aux);
  const std::vector<std::string> names = attrs.op()->InputNames(attrs);
  for (size_t i = 0; i < c.args; ++i)
    MergeType(&(*in)[i], static_cast<int>(r.in[i]),
              StrCat("Custom (", p.op_type, "): input ", names[i]));
  for (size_t i = 0; i < c.aux; ++i)
    MergeType(&(*in)[c.args + i], static_cast<int>(r.aux[i]),
              StrCat("Custom (", p.op_type, "): aux state ", names[c.args + i]));
  for (size_t i = 0; i < c.outs; ++i)
    MergeType(&(*out)[i], static_cast<int>(r.out[i]),
              StrCat("Custom (", p.op_type, "): output ", i));
}

// While user code runs inside a kernel: ops it calls are not recorded or traced, and run in the
// kernel's train mode (MXNet runs custom ops with recording off and is_train set).
class UserCodeScope : public DispatchStateScope {
 public:
  explicit UserCodeScope(bool is_train) {
    state().is_recording = false;
    state().tracer = nullptr;
    state().infer_only = false;
    state().is_training = is_train;
  }
};

using ArrayVec = CustomOp::ArrayVec;

std::unique_ptr<CustomOp> MakeOp(const CustomParam& p, Device dev, const ArrayVec& args,
                                 const ArrayVec& aux) {
  std::vector<Shape> shapes;
  std::vector<DType> types;
  for (const auto* v : {&args, &aux})
    for (const auto& a : *v) {
      shapes.push_back(a.shape());
      types.push_back(a.dtype());
    }
  std::unique_ptr<CustomOp> op =
      Guarded(p, "create_operator", [&] { return p.prop->create_operator(dev, shapes, types); });
  if (!op)
    MX_THROW(absl::StatusCode::kInvalidArgument, "Custom: ", p.op_type,
             ".create_operator returned no operator");
  return op;
}

void CustomForward(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
  const auto& p = attrs.get<CustomParam>();
  const Counts c = CountsOf(p);
  ArrayVec args(in.begin(), in.begin() + c.args), aux(in.begin() + c.args, in.end());
  ArrayVec outs(out.begin(), out.end());
  UserCodeScope scope(ctx.is_train);
  for (const auto& o : outs) o.Fill(0);
  std::unique_ptr<CustomOp> op = MakeOp(p, ctx.device, args, aux);
  Guarded(p, "forward",
          [&] { op->forward(ctx.is_train, CustomOp::ReqVec(c.outs, "write"), args, outs, aux); });
}

void CustomBackward(const OpContext& ctx, const OpAttrs& attrs, std::span<const NDArray> in,
                    std::span<const NDArray> out) {
  const auto& p = attrs.get<CustomParam>();
  const Counts c = CountsOf(p);
  size_t k = c.top ? c.outs : 0;
  ArrayVec args(in.begin() + k, in.begin() + k + c.args);
  ArrayVec outs(in.begin() + k + c.args, in.begin() + k + c.args + c.outs);
  ArrayVec aux(in.begin() + k + c.args + c.outs, in.end());
  ArrayVec og;
  if (c.top) {
    og.assign(in.begin(), in.begin() + c.outs);
  } else {
    for (const auto& o : outs) og.push_back(NDArray::Full(o.shape(), 0, o.device(), o.dtype()));
  }
  ArrayVec ig(out.begin(), out.end());
  UserCodeScope scope(ctx.is_train);
  for (const auto& g : ig) g.Fill(0);
  std::unique_ptr<CustomOp> op = MakeOp(p, ctx.device, args, aux);
  Guarded(p, "backward",
          [&] { op->backward(CustomOp::ReqVec(c.args, "write"), og, args, outs, ig, aux); });
}

std::vector<GradValue> CustomGrad(GradBuilder& b, const OpAttrs& attrs,
                                  std::span<const GradValue> in, std::span<const GradValue> out,
                                  std::span<const GradValue> og) {
  const auto& p = attrs.get<CustomParam>();
  const Counts c = CountsOf(p);
  std::vector<GradValue> bin;
  if (c.top) bin.insert(bin.end(), og.begin(), og.begin() + c.outs);
  bin.insert(bin.end(), in.begin(), in.begin() + c.args);
  bin.insert(bin.end(), out.begin(), out.begin() + c.outs);
  bin.insert(bin.end(), in.begin() + c.args, in.end());
  static const Op& bop = OpRegistry::Get("_backward_Custom");
  std::vector<GradValue> ig = b.Apply(bop, OpAttrs::From(bop, p), bin);
  ig.resize(c.args + c.aux);  // no gradient for aux states
  return ig;
}

std::vector<std::string> CustomInputNames(const OpAttrs& attrs) {
  const auto& p = attrs.get<CustomParam>();
  std::vector<std::string> names = p.prop->list_arguments();
  for (auto& a : p.prop->list_auxiliary_states()) names.push_back(std::move(a));
  return names;
}

MX_REGISTER_OP(Custom)
    .describe(
        "Runs a custom operator registered with RegisterCustomOp (op_type), passing every other "
        "attribute to its prop as strings.")
    .add_alias("_npi_Custom")
    .set_params<CustomParam>()
    .set_num_inputs([](const OpAttrs& a) {
      const Counts c = CountsOf(a.get<CustomParam>());
      return static_cast<int>(c.args + c.aux);
    })
    .set_num_outputs([](const OpAttrs& a) {
      return static_cast<int>(CountsOf(a.get<CustomParam>()).outs);
    })
    .set_input_names(CustomInputNames)
    .set_infer_shape(CustomShape)
    .set_infer_type(CustomType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CustomForward)
    .set_gradient(CustomGrad, true, true)
    // Opaque user code (may update aux states, keep counters, draw random numbers): graph
    // passes treat it like a random op and never fold or merge it.
    .set_random();

// Inputs: [out_grads (need_top_grad)], arguments, outputs, aux states.
void BackwardShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const Counts c = CountsOf(attrs.get<CustomParam>());
  const size_t k = c.top ? c.outs : 0;
  for (size_t i = 0; i < c.args; ++i)
    MergeShape(&(*out)[i], (*in)[k + i], StrCat("_backward_Custom: gradient of input ", i));
  for (size_t i = 0; i < c.args; ++i) (*in)[k + i] = (*out)[i];
}
void BackwardType(const OpAttrs& attrs, DTypeVec* in, DTypeVec* out) {
  const Counts c = CountsOf(attrs.get<CustomParam>());
  const size_t k = c.top ? c.outs : 0;
  for (size_t i = 0; i < c.args; ++i)
    MergeType(&(*out)[i], (*in)[k + i], StrCat("_backward_Custom: gradient of input ", i));
  for (size_t i = 0; i < c.args; ++i) (*in)[k + i] = (*out)[i];
}

MX_REGISTER_OP(_backward_Custom)
    .describe(
        "Gradient of Custom (internal): CustomOp::backward on [out_grads (if need_top_grad)], "
        "arguments, outputs and aux states; one gradient per argument.")
    .set_params<CustomParam>()
    .set_num_inputs([](const OpAttrs& a) {
      const Counts c = CountsOf(a.get<CustomParam>());
      return static_cast<int>((c.top ? c.outs : 0) + c.args + c.outs + c.aux);
    })
    .set_num_outputs([](const OpAttrs& a) {
      return static_cast<int>(CountsOf(a.get<CustomParam>()).args);
    })
    .set_input_names([](const OpAttrs& attrs) {
      const auto& p = attrs.get<CustomParam>();
      std::vector<std::string> names;
      const auto outs = p.prop->list_outputs();
      if (p.prop->need_top_grad())
        for (const auto& o : outs) names.push_back(StrCat(o, "_grad"));
      for (const auto& a : p.prop->list_arguments()) names.push_back(a);
      for (const auto& o : outs) names.push_back(o);
      for (const auto& a : p.prop->list_auxiliary_states()) names.push_back(a);
      return names;
    })
    .set_infer_shape(BackwardShape)
    .set_infer_type(BackwardType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CustomBackward)
    .set_non_differentiable()
    .set_random();  // opaque user code, as Custom

}  // namespace
}  // namespace ops
}  // namespace mxnet
