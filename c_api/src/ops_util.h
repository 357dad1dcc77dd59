// The ops family's lookups shared with other families (symbol.cc builds nodes from mxc_op).
#pragma once

#include "c_api/src/handle.h"
#include "mxc/ops.h"
#include "ndarray/op.h"

namespace mxc {
// The operator behind an mxc_op handle. Throws kInvalidArgument naming `arg` for invalid handles.
const mxnet::Op& OpOf(mxc_op* h, const Arg& arg);
}  // namespace mxc
