// Which registry ops the generic elementwise GPU kernel covers, and how one call maps to it
// (issue 24 item 2). Host code compiled in every build; in a CUDA build elemwise_gpu.cc also
// registers the kernels (RegisterDeviceKernel, {kGPU, kCuda}) for these ops when
// //ndarray/backends/cuda:gpu_storage is linked.
//
// Covered (float32, float64 and float16, same dtype in and out, dense arrays): elemwise_add,
// elemwise_sub, elemwise_mul, elemwise_div; negative, abs, square, sqrt, exp, log, tanh, sigmoid,
// relu; Activation (relu, sigmoid, tanh, softrelu, softsign); _plus_scalar, _minus_scalar,
// _rminus_scalar, _mul_scalar, _div_scalar, _rdiv_scalar. Other dtypes and ops fall back to the
// CPU (ndarray/op.cc) until they get kernels.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ndarray/backends/cuda/elemwise_ops.h"
#include "ndarray/backends/cuda/elemwise_plan.h"
#include "ndarray/op.h"

namespace mxnet::backends::cuda {

// One call of the generic kernel: the op, the scalar operand (scalar ops: DType(scalar)).
struct EwCall {
  EwOp op = EwOp::kAdd;
  double scalar = 0;
};

// The registry names the kernel covers (canonical names).
const std::vector<std::string>& ElemwiseGpuOpNames();
// The call for `attrs` (attrs.op() must be set), or nullopt when the op or its attributes are not
// covered (e.g. an unknown act_type).
std::optional<EwCall> ResolveElemwise(const OpAttrs& attrs);
// FSupports of the kernels: float32 or float64 inputs of one dtype, dense, and an op/attributes
// ResolveElemwise takes.
bool ElemwiseGpuSupports(const OpAttrs& attrs, std::span<const NDArray> in);
// The kernel's element type for `t` (float32, float64, float16), or nullopt.
std::optional<EwDType> EwDTypeOf(DType t);
// The scalar as the CPU's scalar ops use it: DType(scalar) in the compute type (float16: the
// float value of Half(float(s)); float32: float(s); float64: s).
double EwScalarFor(DType t, double s);
// The plan of a call on device arrays (addresses of the output and the inputs read).
ElemwisePlan PlanFor(const EwCall& call, const NDArray& out, std::span<const NDArray> in,
                     int multiprocessors);

}  // namespace mxnet::backends::cuda
