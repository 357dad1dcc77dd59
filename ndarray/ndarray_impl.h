// The private state of an NDArray object, for ndarray's own sources only (a private header of
// //ndarray:core). The layers above use the hooks declared in ndarray/ndarray.h.
#pragma once

#include <memory>

#include "ndarray/ndarray.h"

namespace mxnet {

struct NDArray::Impl {
  std::shared_ptr<Storage> storage;
  size_t offset = 0;  // bytes
  Shape shape;
  DType dtype = DType::kFloat32;
  bool is_placeholder = false;  // no data (NDArray::Placeholder)
  // Autograd: variable state (attach_grad) and tape entry.
  GradReq grad_req = GradReq::kNull;
  std::shared_ptr<Impl> grad;
  bool fresh_grad = false;  // on a gradient buffer: see NDArray::fresh_grad()
  std::shared_ptr<ArrayHookState> autograd_entry;
  // Deferred-compute tracer state (hybridize).
  std::shared_ptr<ArrayHookState> trace_entry;
  // Sparse arrays only (ndarray/sparse.h): the stored parts; `storage` then holds the values'
  // block (so device() and shares_storage work) and data_ptr() refuses.
  std::shared_ptr<SparseAux> sparse;
};

// Access to the state from ndarray's own sources (ndarray.cc, op.cc, sparse.cc).
struct NDArrayAccess {
  static const std::shared_ptr<NDArray::Impl>& impl(const NDArray& a) { return a.impl_; }
  static NDArray Make(std::shared_ptr<NDArray::Impl> impl) { return NDArray(std::move(impl)); }
  static std::shared_ptr<NDArray::Impl> New() { return std::make_shared<NDArray::Impl>(); }
};

}  // namespace mxnet
