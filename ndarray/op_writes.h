// Which arrays an operator call writes, for the write versions of Storage (ndarray/storage.h)
// that Invoke and the symbolic executor both bump.
//
// Defined in ndarray/op.cc (//ndarray:core); this header is its own target (//ndarray:op_writes)
// so that adding it did not change the header set every compile action of the tree sees.
#pragma once

#include "ndarray/op.h"

namespace mxnet {

// Whether a call may write `op`'s mutable inputs (Op::mutable_inputs). The aux states of BatchNorm
// and its variants (moving statistics) and IdentityAttachKLSparseReg (moving average) change only
// in recorded calls (ctx.is_record: MXNet updates them in training under autograd.record); other
// ops with mutable inputs (optimizer updates) always write them. False for ops without any.
bool MayWriteMutableInputs(const Op& op, const OpContext& ctx);

}  // namespace mxnet
