// Parameters of MXNet 1.9.1's internal helper ops registered in shape_internal.cc (_set_value,
// _zeros_without_dtype; the others reuse ScalarParam / ConcatParam or take none). These ops have
// no nd:: wrappers: call them by name (mxnet::Invoke("_copyto", {x})).
#pragma once

#include <string>

#include "ndarray/params.h"

namespace mxnet::ops {

// _set_value (MXNet's legacy NDArray function argument `src`).
struct SetValueParam {
  float src = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("src", &SetValueParam::src).required().describe("The value every element gets.");
  }
};

// _zeros_without_dtype (MXNet's InitOpWithoutDTypeParam): dtype -1 leaves the dtype to graph
// inference.
struct ZerosWithoutDTypeParam {
  Shape shape = Shape::Unknown();
  std::string ctx;
  int dtype = -1;
  template <class D>
  static void Declare(D& d) {
    d.field("shape", &ZerosWithoutDTypeParam::shape).describe("The shape of the output.");
    d.field("ctx", &ZerosWithoutDTypeParam::ctx)
        .describe("Device of the output, e.g. cpu(0) (imperative calls).");
    d.field("dtype", &ZerosWithoutDTypeParam::dtype)
        .describe("Target data type flag (-1: inferred from the graph).");
  }
};

}  // namespace mxnet::ops
