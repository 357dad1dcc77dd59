// Attribute structs of the reduce op family (reductions, dot/batch_dot, ordering, indexing), with
// MXNet 1.9.1's attribute names, defaults and choices. Shared by the registrations (reduce*.cc)
// and the nd:: free functions (reduce_api.h).
#pragma once

#include <optional>
#include <string>

#include "base/shape.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// sum, mean, prod, nansum, nanprod, max, min (MXNet's ReduceAxesParam).
struct ReduceAxesParam {
  std::optional<Shape> axis;  // None or (): every axis
  bool keepdims = false;
  bool exclude = false;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &ReduceAxesParam::axis)
        .describe(
            "The axis or axes to reduce; None or () reduces all axes. Negative values count "
            "from the end.");
    d.field("keepdims", &ReduceAxesParam::keepdims)
        .describe("Keep the reduced axes as dimensions of size one.");
    d.field("exclude", &ReduceAxesParam::exclude)
        .describe("Reduce over the axes NOT in `axis` instead.");
  }
};

// The helper that broadcasts a reduced array back to the input's shape (gradients of the
// reductions): the reduction's attributes plus `normalize` (divide by the reduced count; mean).
struct ReduceBroadcastParam {
  std::optional<Shape> axis;
  bool keepdims = false;
  bool exclude = false;
  bool normalize = false;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &ReduceBroadcastParam::axis).describe("The reduction's axis attribute.");
    d.field("keepdims", &ReduceBroadcastParam::keepdims).describe("The reduction's keepdims.");
    d.field("exclude", &ReduceBroadcastParam::exclude).describe("The reduction's exclude.");
    d.field("normalize", &ReduceBroadcastParam::normalize)
        .describe("Divide by the number of reduced elements (gradient of mean).");
  }
};

// norm (MXNet's NormParam).
struct NormParam {
  int ord = 2;
  std::optional<Shape> axis;
  std::optional<DType> out_dtype;
  bool keepdims = false;
  template <class D>
  static void Declare(D& d) {
    d.field("ord", &NormParam::ord).describe("Order of the norm: 1 or 2.");
    d.field("axis", &NormParam::axis).describe("The axis or axes to reduce; None: all axes.");
    d.field("out_dtype", &NormParam::out_dtype)
        .describe("The data type of the output (default: the input's).")
        .choices({"None", "float16", "float32", "float64", "int32", "int64", "int8"});
    d.field("keepdims", &NormParam::keepdims)
        .describe("Keep the reduced axes as dimensions of size one.");
  }
  std::string Validate() const {
    if (ord != 1 && ord != 2)
      return StrCat("ord=", ord, " is not supported (norm supports ord 1 and 2)");
    return "";
  }
};

// argmax, argmin (MXNet's ReduceAxisParam).
struct ReduceAxisParam {
  std::optional<int> axis;  // None: the flattened array
  bool keepdims = false;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &ReduceAxisParam::axis)
        .describe("The axis to reduce; None searches the flattened array.");
    d.field("keepdims", &ReduceAxisParam::keepdims)
        .describe("Keep the reduced axis as a dimension of size one.");
  }
};

// dot, batch_dot (MXNet's DotParam).
struct DotParam {
  bool transpose_a = false;
  bool transpose_b = false;
  std::optional<std::string> forward_stype;  // storage hint; only dense storage exists here
  template <class D>
  static void Declare(D& d) {
    d.field("transpose_a", &DotParam::transpose_a).describe("Transpose the first input first.");
    d.field("transpose_b", &DotParam::transpose_b).describe("Transpose the second input first.");
    d.field("forward_stype", &DotParam::forward_stype)
        .describe("Desired output storage type (accepted for compatibility; output is dense).")
        .choices({"None", "csr", "default", "row_sparse"});
  }
};

// _matrix_view: a 2-D view (prod(shape[:split]), prod(shape[split:])) of an array.
struct MatrixViewParam {
  int split = -1;  // negative counts from the end
  template <class D>
  static void Declare(D& d) {
    d.field("split", &MatrixViewParam::split).describe("Number of leading axes forming the rows.");
  }
};

// topk (MXNet's TopKParam).
struct TopKParam {
  std::optional<int> axis = -1;
  int k = 1;
  std::string ret_typ = "indices";
  bool is_ascend = false;
  DType dtype = DType::kFloat32;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &TopKParam::axis)
        .describe("Axis along which to choose the top k; None uses the flattened array.");
    d.field("k", &TopKParam::k)
        .describe("Number of elements to select; k < 1 sorts the whole axis.");
    d.field("ret_typ", &TopKParam::ret_typ)
        .describe("What to return: value, indices, mask, or both (values and indices).")
        .choices({"both", "indices", "mask", "value"});
    d.field("is_ascend", &TopKParam::is_ascend).describe("Select the k smallest instead.");
    d.field("dtype", &TopKParam::dtype)
        .describe("DType of the indices output.")
        .choices({"float16", "float32", "float64", "int32", "int64", "uint8"});
  }
  std::string Validate() const {
    if (ret_typ != "both" && ret_typ != "indices" && ret_typ != "mask" && ret_typ != "value")
      return StrCat("ret_typ='", ret_typ, "' is not one of {both, indices, mask, value}");
    return "";
  }
};

// sort (MXNet's SortParam).
struct SortParam {
  std::optional<int> axis = -1;
  bool is_ascend = true;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &SortParam::axis)
        .describe("Axis to sort along; None uses the flattened array.");
    d.field("is_ascend", &SortParam::is_ascend).describe("Ascending (True) or descending order.");
  }
};

// argsort (MXNet's ArgSortParam).
struct ArgSortParam {
  std::optional<int> axis = -1;
  bool is_ascend = true;
  DType dtype = DType::kFloat32;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &ArgSortParam::axis)
        .describe("Axis to sort along; None uses the flattened array.");
    d.field("is_ascend", &ArgSortParam::is_ascend)
        .describe("Ascending (True) or descending order.");
    d.field("dtype", &ArgSortParam::dtype)
        .describe("DType of the output indices.")
        .choices({"float16", "float32", "float64", "int32", "int64", "uint8"});
  }
};

// _take_along_axis / _scatter_add_along_axis (gradients of topk/sort).
struct AlongAxisParam {
  std::optional<int> axis = -1;  // None: flattened
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &AlongAxisParam::axis).describe("The axis; None: the flattened array.");
  }
};

// take (MXNet's TakeParam).
struct TakeParam {
  int axis = 0;
  std::string mode = "clip";
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &TakeParam::axis).describe("The axis of the input to take from.");
    d.field("mode", &TakeParam::mode)
        .describe("Out-of-range indices: clip, wrap, or raise an error.")
        .choices({"clip", "raise", "wrap"});
  }
  std::string Validate() const {
    if (mode != "clip" && mode != "raise" && mode != "wrap")
      return StrCat("mode='", mode, "' is not one of {clip, raise, wrap}");
    return "";
  }
};

// pick (MXNet's PickParam).
struct PickParam {
  std::optional<int> axis = -1;
  bool keepdims = false;
  std::string mode = "clip";
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &PickParam::axis).describe("The axis to pick along (None is not supported).");
    d.field("keepdims", &PickParam::keepdims).describe("Keep the picked axis with size one.");
    d.field("mode", &PickParam::mode)
        .describe("Out-of-range indices: clip or wrap.")
        .choices({"clip", "wrap"});
  }
  std::string Validate() const {
    if (mode != "clip" && mode != "wrap")
      return StrCat("mode='", mode, "' is not one of {clip, wrap}");
    return "";
  }
};

// one_hot (MXNet's OneHotParam).
struct OneHotParam {
  int depth = 0;
  double on_value = 1.0;
  double off_value = 0.0;
  DType dtype = DType::kFloat32;
  template <class D>
  static void Declare(D& d) {
    d.field("depth", &OneHotParam::depth).describe("Depth of the one hot dimension.").required();
    d.field("on_value", &OneHotParam::on_value).describe("Value at the indexed locations.");
    d.field("off_value", &OneHotParam::off_value).describe("Value elsewhere.");
    d.field("dtype", &OneHotParam::dtype)
        .describe("DType of the output.")
        .choices({"bfloat16", "float16", "float32", "float64", "int32", "int64", "int8", "uint8"});
  }
  std::string Validate() const {
    if (depth < 0) return StrCat("depth=", depth, " must be >= 0");
    return "";
  }
};

// Embedding (MXNet's EmbeddingParam).
struct EmbeddingParam {
  int64_t input_dim = 0;
  int64_t output_dim = 0;
  DType dtype = DType::kFloat32;
  bool sparse_grad = false;
  template <class D>
  static void Declare(D& d) {
    d.field("input_dim", &EmbeddingParam::input_dim).describe("Vocabulary size.").required();
    d.field("output_dim", &EmbeddingParam::output_dim)
        .describe("Dimension of the embedding vectors.")
        .required();
    d.field("dtype", &EmbeddingParam::dtype)
        .describe("Data type of weight.")
        .choices({"bfloat16", "float16", "float32", "float64", "int32", "int64", "int8", "uint8"});
    d.field("sparse_grad", &EmbeddingParam::sparse_grad)
        .describe("The weight gradient is row_sparse (the looked-up rows) instead of dense.");
  }
  std::string Validate() const {
    if (input_dim < 1) return StrCat("input_dim=", input_dim, " must be >= 1");
    if (output_dim < 1) return StrCat("output_dim=", output_dim, " must be >= 1");
    return "";
  }
};

// scatter_nd (MXNet's ScatterNDParam).
struct ScatterNDParam {
  Shape shape;
  template <class D>
  static void Declare(D& d) {
    d.field("shape", &ScatterNDParam::shape).describe("Shape of the output.").required();
  }
};

}  // namespace mxnet::ops
