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
namespace mxnet::gluon {
class Block;
class Trainer;
}  // namespace mxnet::gluon
namespace mxc {
struct CtxState;
struct InferResult;
struct ParamRef;
struct LoaderState;
}  // namespace mxc
namespace mxnet::gluon::data {
class Dataset;
namespace vision::transforms {
class Transform;
}  // namespace vision::transforms
}  // namespace mxnet::gluon::data

MXC_HANDLE_TYPE(mxc_ctx, std::shared_ptr<mxc::CtxState>, kCtx);
MXC_HANDLE_TYPE(mxc_ndarray, mxnet::NDArray, kNDArray);
MXC_HANDLE_TYPE(mxc_symbol, std::shared_ptr<const mxnet::sym::Symbol>, kSymbol);
MXC_HANDLE_TYPE(mxc_infer_result, std::shared_ptr<const mxc::InferResult>, kInferResult);
MXC_HANDLE_TYPE(mxc_block, std::shared_ptr<mxnet::gluon::Block>, kBlock);
MXC_HANDLE_TYPE(mxc_parameter, std::shared_ptr<const mxc::ParamRef>, kParameter);
MXC_HANDLE_TYPE(mxc_trainer, std::shared_ptr<mxnet::gluon::Trainer>, kTrainer);
MXC_HANDLE_TYPE(mxc_transform,
                std::shared_ptr<const mxnet::gluon::data::vision::transforms::Transform>,
                kTransform);
MXC_HANDLE_TYPE(mxc_dataset, std::shared_ptr<const mxnet::gluon::data::Dataset>, kDataset);
MXC_HANDLE_TYPE(mxc_dataloader, std::shared_ptr<mxc::LoaderState>, kDataLoader);
