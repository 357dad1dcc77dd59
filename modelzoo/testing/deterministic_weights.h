// Deterministic parameter values shared with real MXNet (tools/conformance/modelzoo_weights.py,
// the Python twin; keep both in step): integer hashing only, so both sides build bit-identical
// float32 arrays and outputs can be compared without shipping weight files.
//
//   u(name, i)  = (splitmix64(fnv1a64(name) + i) >> 40) / 2^23 - 1      in [-1, 1)
//   *weight     = u * sqrt(3 / fan_in)   (fan_in = prod(shape[1:]), 1 for 1-D)
//   *bias, *beta, *running_mean = 0.1 u;  *gamma = 1 + 0.2 u;  *running_var = 1 + 0.5 u;  else u
#pragma once

#include <string>

#include "gluon/block.h"
#include "ndarray/ndarray.h"

namespace mxnet::gluon::model_zoo::testing {

// float32 array of `shape` for the parameter or input called `name`.
NDArray DeterministicValues(const std::string& name, const Shape& shape);

// Sets every parameter of `net` (structured names) to DeterministicValues. Parameter shapes must
// be known (after a forward or infer_shape); uninitialized parameters get initialized on cpu().
void SetDeterministicWeights(Block& net);

}  // namespace mxnet::gluon::model_zoo::testing
