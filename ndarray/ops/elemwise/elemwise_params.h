// Attribute structs of the elemwise op family (scalar ops use ops::ScalarParam from
// basic_util.h). Field names, types and defaults follow MXNet 1.9.1.
#pragma once

#include <string>

#include "base/dtype.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// clip: both bounds required (MXNet type "float"; cast to the data's dtype by the kernel).
struct ClipParam {
  float a_min = 0;
  float a_max = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("a_min", &ClipParam::a_min).required().describe("Minimum value.");
    d.field("a_max", &ClipParam::a_max).required().describe("Maximum value.");
  }
};

// cast / Cast: the target dtype, one of the nine MXNet 1.9 allows.
struct CastParam {
  DType dtype = DType::kFloat32;
  template <class D>
  static void Declare(D& d) {
    d.field("dtype", &CastParam::dtype)
        .required()
        .choices({"bfloat16", "bool", "float16", "float32", "float64", "int32", "int64", "int8",
                  "uint8"})
        .describe("Output data type.");
  }
};

// add_n / ElementWiseSum: the number of inputs.
struct AddNParam {
  int num_args = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &AddNParam::num_args).required().describe("Number of inputs to be summed.");
  }
  std::string Validate() const {
    return num_args >= 1 ? "" : "num_args must be at least 1, got " + std::to_string(num_args);
  }
};

}  // namespace mxnet::ops
