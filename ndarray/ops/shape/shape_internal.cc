// MXNet 1.9.1's internal helper ops (graph plumbing and dense forms of sparse-storage ops),
// dense storage only:
//   _scatter_elemwise_div: lhs / rhs elementwise, same shape and dtype (integers truncate);
//     elemwise_div's gradient (MXNet: the division that keeps lhs's sparsity).
//   _scatter_plus_scalar / _scatter_minus_scalar: x + scalar / x - scalar with _plus_scalar's
//     scalar/is_int attributes and dtype rule; gradient ograd.
//   _set_value: every element of the (caller-given) output set to `src`; no inputs, so the
//     output shape/dtype come from the caller (InvokeInto, MXNet's out=) or graph inference.
//   _zeros_without_dtype: zeros of `shape`; dtype -1 is left to graph inference (an imperative
//     call then fails like MXNet's "Unknown type enum -1").
//   _identity_with_attr_like_rhs: lhs, whose shape and dtype must equal rhs's; gradient
//     (ograd, zeros).
//   _copyto (_npi_copyto), _CrossDeviceCopy: a copy of data (same device here); gradient ograd.
//   _NoGradient: zeros of whatever shape/dtype the caller or graph gives (MXNet's "no
//     gradient" placeholder node); no inputs.
//   _rnn_param_concat (_npi_rnn_param_concat): Concat (num_args, dim=1) of RNN parameter
//     pieces; Concat's shapes and gradient.
// Sources: src/operator/tensor/elemwise_scatter_op.cc, init_op.cc, elemwise_unary_op_basic.cc,
// cross_device_copy.cc, rnn.cc (RNNParamConcat), src/ndarray/ndarray.cc (_set_value, _copyto).
#include "ndarray/grad.h"
#include "ndarray/ops/core/basic_util.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/shape/shape_internal_api.h"
#include "ndarray/ops/shape/shape_params.h"

namespace mxnet::ops {
namespace {
using Grads = std::vector<GradValue>;
using GV = std::span<const GradValue>;

// The reference kernel of another registered op (looked up at call time: registration order
// across files is unspecified). The attributes must be of that op's parameter type.
FCompute KernelOf(const char* name) {
  return [name](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                std::span<const NDArray> out) {
    const FCompute* k = OpRegistry::Get(name).FindKernel({DeviceType::kCPU, Backend::kReference});
    (*k)(ctx, a, in, out);
  };
}

void CopyKernel(const OpContext&, const OpAttrs&, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  in[0].copyto(out[0]);
}

Grads PassThrough(GradBuilder&, const OpAttrs&, GV, GV, GV og) { return Grads{og[0]}; }

MX_REGISTER_OP(_scatter_elemwise_div)
    .describe("lhs / rhs elementwise (same shape and dtype; integer division truncates).")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"lhs", "rhs"})
    .set_kernel({DeviceType::kCPU, Backend::kReference}, KernelOf("elemwise_div"))
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
      return OpRegistry::Get("elemwise_div").gradient(b, a, in, out, og);
    });

MX_REGISTER_OP(_scatter_plus_scalar)
    .describe("x + scalar (the scalar attributes and dtype rule of _plus_scalar).")
    .set_params<ScalarParam>()
    .set_infer_type(ScalarOpType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, KernelOf("_plus_scalar"))
    .set_gradient(PassThrough, false, false);

MX_REGISTER_OP(_scatter_minus_scalar)
    .describe("x - scalar (the scalar attributes and dtype rule of _minus_scalar).")
    .set_params<ScalarParam>()
    .set_infer_type(ScalarOpType)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, KernelOf("_minus_scalar"))
    .set_gradient(PassThrough, false, false);

// No inputs and nothing to infer the output from: the caller or the graph gives it.
void LeaveOutputUnknown(const OpAttrs&, ShapeVec*, ShapeVec*) {}
void LeaveTypeUnknown(const OpAttrs&, DTypeVec*, DTypeVec*) {}

MX_REGISTER_OP(_set_value)
    .describe("Sets every element of the output (given by the caller) to src.")
    .set_params<SetValueParam>()
    .set_num_inputs(0)
    .set_infer_shape(LeaveOutputUnknown)
    .set_infer_type(LeaveTypeUnknown)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) { out[0].Fill(a.get<SetValueParam>().src); })
    .set_non_differentiable();

MX_REGISTER_OP(_NoGradient)
    .describe("Zeros of the shape/dtype the caller or graph gives (no-gradient placeholder).")
    .set_num_inputs(0)
    .set_infer_shape(LeaveOutputUnknown)
    .set_infer_type(LeaveTypeUnknown)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray>,
                   std::span<const NDArray> out) { out[0].Fill(0); })
    .set_non_differentiable();

MX_REGISTER_OP(_zeros_without_dtype)
    .describe("Zeros of `shape`; dtype -1 is inferred from the graph.")
    .set_params<ZerosWithoutDTypeParam>()
    .set_num_inputs(0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec*, ShapeVec* out) {
      MergeShape(&(*out)[0], a.get<ZerosWithoutDTypeParam>().shape, "_zeros_without_dtype: output");
    })
    .set_infer_type([](const OpAttrs& a, DTypeVec*, DTypeVec* out) {
      int t = a.get<ZerosWithoutDTypeParam>().dtype;
      if (t < -1 || (t >= 0 && !DTypeFromFlag(t).ok()))
        MX_THROW(absl::StatusCode::kInvalidArgument, "_zeros_without_dtype: unknown dtype flag ",
                 t);
      MergeType(&(*out)[0], t, "_zeros_without_dtype: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray>,
                   std::span<const NDArray> out) { out[0].Fill(0); })
    .set_non_differentiable();

MX_REGISTER_OP(_identity_with_attr_like_rhs)
    .describe("lhs unchanged; its shape and dtype must equal rhs's.")
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"lhs", "rhs"})
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, GV in, GV, GV og) {
          return Grads{og[0], b.ZerosLike(in[1])};
        },
        true, false);

MX_REGISTER_OP(_copyto)
    .describe("A copy of data.")
    .add_alias("_npi_copyto")
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient(PassThrough, false, false);

MX_REGISTER_OP(_CrossDeviceCopy)
    .describe("A copy of data (MXNet copies between the devices of a model-parallel graph).")
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"data"})
    .set_kernel({DeviceType::kCPU, Backend::kReference}, CopyKernel)
    .set_gradient(PassThrough, false, false);

MX_REGISTER_OP(_rnn_param_concat)
    .describe("Concat (num_args, dim=1) of RNN parameter pieces.")
    .add_alias("_npi_rnn_param_concat")
    .set_params<ConcatParam>()
    .set_num_inputs([](const OpAttrs& a) { return a.get<ConcatParam>().num_args; })
    .set_input_names([](const OpAttrs& a) {
      std::vector<std::string> n;
      for (int i = 0; i < a.get<ConcatParam>().num_args; ++i) n.push_back(StrCat("arg", i));
      return n;
    })
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      OpRegistry::Get("Concat").infer_shape(a, in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, KernelOf("Concat"))
    .set_gradient([](GradBuilder& b, const OpAttrs& a, GV in, GV out, GV og) {
      return OpRegistry::Get("Concat").gradient(b, a, in, out, og);
    });

}  // namespace
}  // namespace mxnet::ops
