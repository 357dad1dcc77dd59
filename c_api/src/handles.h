// The handle types of the C ABI: C type -> C++ value and tag (see handle.h). One line per type,
// here so every family that passes another family's handles (ops take ndarrays and ctxs) sees
// the same binding.
#pragma once

#include <memory>

#include "c_api/src/handle.h"
#include "mxc/mxc.h"
#include "ndarray/ndarray.h"

namespace mxnet::sym {
class Symbol;
}  // namespace mxnet::sym
namespace mxc {
struct CtxState;
struct InferResult;
}  // namespace mxc

MXC_HANDLE_TYPE(mxc_ctx, std::shared_ptr<mxc::CtxState>, kCtx);
MXC_HANDLE_TYPE(mxc_ndarray, mxnet::NDArray, kNDArray);
MXC_HANDLE_TYPE(mxc_symbol, std::shared_ptr<const mxnet::sym::Symbol>, kSymbol);
MXC_HANDLE_TYPE(mxc_infer_result, std::shared_ptr<const mxc::InferResult>, kInferResult);
