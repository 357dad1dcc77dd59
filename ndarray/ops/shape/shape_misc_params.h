// Typed attributes of the shape family's miscellaneous ops (shape_misc.cc): MXNet 1.9.1's
// DiagParam (src/operator/tensor/diag_op-inl.h), KhatriRaoParam (contrib/krprod.cc),
// AMPCastParam / AMPMultiCastParam (tensor/amp_cast.h), CastStorageParam
// (tensor/cast_storage-inl.h): names, types, defaults and choices as MXNet declares them.
#pragma once

#include <string>

#include "ndarray/params.h"

namespace mxnet::ops {

// diag.
struct DiagParam {
  int k = 0;
  int axis1 = 0;
  int axis2 = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("k", &DiagParam::k)
        .describe("Diagonal in question: > 0 above the main diagonal, < 0 below.");
    d.field("axis1", &DiagParam::axis1)
        .describe("The first axis of the sub-arrays of interest (ignored for 1-D input).");
    d.field("axis2", &DiagParam::axis2)
        .describe("The second axis of the sub-arrays of interest (ignored for 1-D input).");
  }
};

// khatri_rao.
struct KhatriRaoParam {
  int num_args = 1;  // required (the key of the variable input count)
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &KhatriRaoParam::num_args).required().describe("Number of input matrices.");
  }
  std::string Validate() const {
    return num_args < 1 ? StrCat("num_args must be >= 1, got ", num_args) : "";
  }
};

// amp_cast.
struct AMPCastParam {
  DType dtype = DType::kFloat32;  // required
  template <class D>
  static void Declare(D& d) {
    d.field("dtype", &AMPCastParam::dtype)
        .required()
        .choices({"bfloat16", "float16", "float32", "float64", "int32", "int64", "int8", "uint8"})
        .describe("Output data type.");
  }
};

// amp_multicast.
struct AMPMultiCastParam {
  int num_outputs = 1;  // required
  bool cast_narrow = false;
  template <class D>
  static void Declare(D& d) {
    d.field("num_outputs", &AMPMultiCastParam::num_outputs)
        .required()
        .describe("Number of input/output pairs to be casted to the widest type.");
    d.field("cast_narrow", &AMPMultiCastParam::cast_narrow)
        .describe("Whether to cast to the narrowest type");
  }
  std::string Validate() const {
    return num_outputs < 1 ? StrCat("num_outputs must be >= 1, got ", num_outputs) : "";
  }
};

// cast_storage: the output storage type (ndarray/sparse.h).
struct CastStorageParam {
  std::string stype = "default";  // required
  template <class D>
  static void Declare(D& d) {
    d.field("stype", &CastStorageParam::stype)
        .required()
        .choices({"csr", "default", "row_sparse"})
        .describe("Output storage type.");
  }
};

}  // namespace mxnet::ops
