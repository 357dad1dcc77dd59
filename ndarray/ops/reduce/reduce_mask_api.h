// nd:: free functions of the ops with data-dependent output shapes (reduce_mask.cc):
//
//   NDArray kept = nd::contrib::boolean_mask(x, mask);  // x (N, ...), mask (N,) -> (count, ...)
//   NDArray idx = nd::npx::nonzero(x);                   // int64 (count, x.ndim)
//
// Errors: mxnet::Error(kInvalidArgument) naming the op: axis != 0, index not 1-D or of another
// length than data.shape[0], 0-d data.
#pragma once

#include "ndarray/ops/core/basic_api.h"

namespace mxnet::ops {
// boolean_mask (MXNet's BooleanMaskParam).
struct BooleanMaskParam {
  int axis = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &BooleanMaskParam::axis)
        .describe("The axis of data the mask applies to (only 0 is supported).");
  }
};
}  // namespace mxnet::ops

namespace mxnet::nd {
namespace contrib {
// Rows of data (N, ...) where index (N,) != 0 (any dtype), in order: (count, ...); same dtype.
// Differentiable in data. (mx.nd.contrib.boolean_mask)
NDArray boolean_mask(const NDArray& data, const NDArray& index, int axis = 0);
}  // namespace contrib
namespace npx {
// int64 (count, max(ndim, 1)) coordinates of x's nonzero elements, row-major. (mx.npx.nonzero)
NDArray nonzero(const NDArray& x);
}  // namespace npx
}  // namespace mxnet::nd
