// Custom operators written in C++ (MXNet 1.9.1's mx.operator.CustomOp / CustomOpProp /
// mx.operator.register, python/mxnet/operator.py, src/operator/custom/custom.cc).
//
//   class SigmoidOp : public nd::CustomOp {
//     void forward(bool, const ReqVec& req, const ArrayVec& in, const ArrayVec& out,
//                  const ArrayVec&) override { assign(out[0], req[0], nd::sigmoid(in[0])); }
//     void backward(const ReqVec& req, const ArrayVec& og, const ArrayVec&, const ArrayVec& out,
//                   const ArrayVec& ig, const ArrayVec&) override { ... }
//   };
//   class SigmoidProp : public nd::CustomOpProp {
//    public:
//     explicit SigmoidProp(const AttrDict& kwargs) {}
//     std::unique_ptr<nd::CustomOp> create_operator(Device, const std::vector<Shape>&,
//                                                   const std::vector<DType>&) const override {
//       return std::make_unique<SigmoidOp>();
//     }
//   };
//   nd::RegisterCustomOp<SigmoidProp>("my_sigmoid");
//   NDArray y = nd::Custom({x}, "my_sigmoid")[0];
//
// The registered op `Custom` (alias `_npi_Custom`) takes the attribute `op_type` (required) and any
// other attributes, handed as strings to the prop's factory; they print back unchanged, so a
// symbol JSON node {"op": "Custom", "attrs": {"op_type": ..., ...}} round-trips. Its inputs are
// list_arguments() then list_auxiliary_states(), its outputs list_outputs(). It works
// imperatively, under autograd (gradient through `_backward_Custom`, which calls
// CustomOp::backward) and inside hybridized graphs, where graph passes never fold or merge a
// Custom node (user code may have side effects). Ops called inside forward/backward are never
// recorded by autograd or traced by hybridize (MXNet runs them with recording off).
//
// Differences from MXNet: a CustomOp is created (create_operator) for every forward and every
// backward call, so state must travel through in_data/out_data/aux, not through members; that
// keeps concurrent calls of one graph independent. The req handed to forward/backward is always
// "write" (autograd accumulates grad_req 'add' itself). In symbol graphs aux states of Custom are
// listed as arguments (the registry's mutable inputs are fixed per op) and output entries are
// named output0.. (not list_outputs() names). Registering an op_type twice is an error (MXNet
// replaces the first registration with a warning). CPU only, like every op here.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ndarray/ndarray.h"
#include "ndarray/params.h"

namespace mxnet::nd {

// The computation of one custom op instance (mx.operator.CustomOp).
class CustomOp {
 public:
  // "null", "write", "inplace" or "add", one per output (forward) or input gradient (backward).
  using ReqVec = std::vector<std::string>;
  using ArrayVec = std::vector<NDArray>;

  virtual ~CustomOp() = default;
  // Computes out_data from in_data (list_arguments() order) and aux (list_auxiliary_states(),
  // may be updated in place); outputs are preallocated with the inferred shapes/dtypes, filled
  // with zeros. is_train: autograd's train mode.
  virtual void forward(bool is_train, const ReqVec& req, const ArrayVec& in_data,
                       const ArrayVec& out_data, const ArrayVec& aux) = 0;
  // Computes in_grad (one per argument, preallocated, zero-filled) from out_grad (zeros when the
  // prop's need_top_grad() is false), in_data, out_data and aux. Default: throws kUnimplemented.
  virtual void backward(const ReqVec& req, const ArrayVec& out_grad, const ArrayVec& in_data,
                        const ArrayVec& out_data, const ArrayVec& in_grad, const ArrayVec& aux);
  // dst := src ("write"/"inplace"), dst += src ("add"), nothing ("null"). src must have dst's
  // shape (its dtype is converted). Errors: another req, a shape mismatch (kInvalidArgument).
  static void assign(const NDArray& dst, std::string_view req, const NDArray& src);
};

// Shapes and types of a custom op (the three lists MXNet's infer_shape/infer_type return).
struct CustomShapes {
  std::vector<Shape> in, out, aux;
};
struct CustomTypes {
  std::vector<DType> in, out, aux;
};

// Describes a custom op: inputs, outputs, inference, and creates its CustomOp
// (mx.operator.CustomOpProp). One prop is built per distinct attribute set and shared between
// calls and threads, so its methods are const.
class CustomOpProp {
 public:
  explicit CustomOpProp(bool need_top_grad = true) : need_top_grad_(need_top_grad) {}
  virtual ~CustomOpProp() = default;

  // Argument (input) names; default {"data"}.
  virtual std::vector<std::string> list_arguments() const { return {"data"}; }
  // Output names; default {"output"}.
  virtual std::vector<std::string> list_outputs() const { return {"output"}; }
  // Auxiliary state names (inputs after the arguments, not differentiated); default none.
  virtual std::vector<std::string> list_auxiliary_states() const { return {}; }
  // From the argument shapes (all fully known): {in, out, aux} shapes. Default: every output
  // has in_shape[0]'s shape, no aux states (as MXNet, a prop with aux states must override).
  virtual CustomShapes infer_shape(const std::vector<Shape>& in_shape) const;
  // From the argument dtypes: {in, out, aux} dtypes. Default: everything has in_type[0].
  virtual CustomTypes infer_type(const std::vector<DType>& in_type) const;
  // Whether backward reads out_grad (false for loss layers); default: the constructor's flag.
  virtual bool need_top_grad() const { return need_top_grad_; }
  // The CustomOp for inputs (arguments then aux states) of these shapes/dtypes on `ctx`.
  virtual std::unique_ptr<CustomOp> create_operator(Device ctx, const std::vector<Shape>& in_shapes,
                                                    const std::vector<DType>& in_dtypes) const = 0;

 private:
  bool need_top_grad_;
};

// Builds the prop of one op instance from its attributes other than op_type (all strings, as
// MXNet passes Python kwargs). May throw mxnet::Error for bad values.
using CustomOpPropCreator = std::function<std::unique_ptr<CustomOpProp>(const AttrDict& kwargs)>;

// Registers `op_type` for Custom (mx.operator.register). Thread-safe. Errors: an empty name or
// creator (kInvalidArgument), a name already registered (kAlreadyExists; MXNet would replace it).
void RegisterCustomOp(const std::string& op_type, CustomOpPropCreator creator);
// Registers a prop class constructible from the kwargs.
template <typename Prop>
void RegisterCustomOp(const std::string& op_type) {
  RegisterCustomOp(op_type, [](const AttrDict& kwargs) -> std::unique_ptr<CustomOpProp> {
    return std::make_unique<Prop>(kwargs);
  });
}
// Whether `op_type` is registered; the registered names, sorted.
bool IsCustomOpRegistered(std::string_view op_type);
std::vector<std::string> ListCustomOps();
// A new prop for `op_type` (what Custom does on parsing its attributes). Errors: kInvalidArgument
// "Cannot find custom operator <op_type>" (MXNet's wording) or the creator's error.
std::shared_ptr<const CustomOpProp> CreateCustomOpProp(const std::string& op_type,
                                                       const AttrDict& kwargs);

// mx.nd.Custom(*inputs, op_type=..., **kwargs): runs the registered custom op on `inputs`
// (arguments then aux states) and returns its outputs. Errors (kInvalidArgument, naming Custom):
// unknown op_type, wrong number of inputs, the prop's infer_shape/infer_type/forward failing.
std::vector<NDArray> Custom(std::span<const NDArray> inputs, const std::string& op_type,
                            const AttrDict& kwargs = {});
inline std::vector<NDArray> Custom(std::initializer_list<NDArray> inputs,
                                   const std::string& op_type, const AttrDict& kwargs = {}) {
  return Custom(std::span<const NDArray>(inputs.begin(), inputs.size()), op_type, kwargs);
}

}  // namespace mxnet::nd
