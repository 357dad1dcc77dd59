// MXNet 1.9.1's NumPy-interface reductions (mx.np.sum/prod/mean/max/min/std/var/all/any/argmax/
// argmin; ops _np_sum, _np_prod, _npi_mean, _np_max, _np_min, _npi_std, _npi_var, _np_all,
// _np_any, _npi_argmax, _npi_argmin; src/operator/numpy/np_broadcast_reduce_op_value.cc):
// attribute structs and nd:: free functions.
//
//   NDArray s = nd::np::sum(x, {.axis = Shape{1}});          // (2, 3) -> (2,)
//   NDArray m = nd::np::mean(x);                             // any shape -> 0-dim ()
//
// NumPy axis rules (unlike the legacy sum): axis None reduces every axis, axis () reduces none;
// without keepdims a full reduction gives a 0-dim () result. Negative axes count from the end;
// duplicates and out-of-range axes are kInvalidArgument naming the op.
#pragma once

#include <optional>
#include <string>

#include "base/shape.h"
#include "ndarray/ndarray.h"
#include "ndarray/ops/reduce/reduce_params.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// _np_sum, _np_prod, _npi_mean: axis (None: all, (): none), dtype (None: sum/prod keep the
// input's dtype, bool -> int64; mean: floats keep theirs, ints/bool -> float32), keepdims,
// initial (accepted, but any value is kInvalidArgument: MXNet "initial is not supported yet").
struct NpReduceParam {
  std::optional<Shape> axis;
  std::optional<DType> dtype;
  bool keepdims = false;
  std::optional<double> initial;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &NpReduceParam::axis)
        .describe("Axes to reduce: None reduces all axes, () none; negative counts from the end.");
    d.field("dtype", &NpReduceParam::dtype)
        .describe("The output (and accumulation) dtype; None: MXNet's default for the op.")
        .choices({"None", "bool", "float16", "float32", "float64", "int32", "int64", "int8"});
    d.field("keepdims", &NpReduceParam::keepdims)
        .describe("Keep the reduced axes as dimensions of size one.");
    d.field("initial", &NpReduceParam::initial)
        .describe("Starting value of the reduction (not supported, as in MXNet 1.9.1).");
  }
};

// _np_max, _np_min: axis, keepdims, initial (as NpReduceParam, no dtype: output = input dtype).
struct NpMaxParam {
  std::optional<Shape> axis;
  bool keepdims = false;
  std::optional<double> initial;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &NpMaxParam::axis)
        .describe("Axes to reduce: None reduces all axes, () none; negative counts from the end.");
    d.field("keepdims", &NpMaxParam::keepdims)
        .describe("Keep the reduced axes as dimensions of size one.");
    d.field("initial", &NpMaxParam::initial)
        .describe("Starting value of the reduction (not supported, as in MXNet 1.9.1).");
  }
};

// _np_all, _np_any: axis, keepdims; bool output.
struct NpBoolReduceParam {
  std::optional<Shape> axis;
  bool keepdims = false;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &NpBoolReduceParam::axis)
        .describe("Axes to reduce: None reduces all axes, () none; negative counts from the end.");
    d.field("keepdims", &NpBoolReduceParam::keepdims)
        .describe("Keep the reduced axes as dimensions of size one.");
  }
};

// _npi_std, _npi_var: axis, dtype (None: the input's; bool input is kInvalidArgument), ddof
// (divisor N - ddof), keepdims.
struct NpMomentParam {
  std::optional<Shape> axis;
  std::optional<DType> dtype;
  int ddof = 0;
  bool keepdims = false;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &NpMomentParam::axis)
        .describe("Axes to reduce: None reduces all axes, () none; negative counts from the end.");
    d.field("dtype", &NpMomentParam::dtype)
        .describe("The output dtype; None: the input's.")
        .choices({"None", "float16", "float32", "float64", "int32", "int64", "int8"});
    d.field("ddof", &NpMomentParam::ddof).describe("Delta degrees of freedom: divisor N - ddof.");
    d.field("keepdims", &NpMomentParam::keepdims)
        .describe("Keep the reduced axes as dimensions of size one.");
  }
};

// Helper of the gradients (_np_reduce_bcast, _np_reduce_extremum_mask): the reduction's axis and
// keepdims, and `normalize` (divide by the reduced count; mean).
struct NpReduceBcastParam {
  std::optional<Shape> axis;
  bool keepdims = false;
  bool normalize = false;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &NpReduceBcastParam::axis).describe("The reduction's axis attribute.");
    d.field("keepdims", &NpReduceBcastParam::keepdims).describe("The reduction's keepdims.");
    d.field("normalize", &NpReduceBcastParam::normalize)
        .describe("Divide by the number of reduced elements (gradient of mean).");
  }
};

}  // namespace mxnet::ops

namespace mxnet::nd::np {
// Free functions over the ops above (see their comments for dtypes and errors):
// nd::np::sum(x, {.axis = Shape{0}}) runs _np_sum.
NDArray sum(const NDArray& a, const ops::NpReduceParam& p = {});
NDArray prod(const NDArray& a, const ops::NpReduceParam& p = {});
NDArray mean(const NDArray& a, const ops::NpReduceParam& p = {});
NDArray max(const NDArray& a, const ops::NpMaxParam& p = {});
NDArray min(const NDArray& a, const ops::NpMaxParam& p = {});
NDArray std(const NDArray& a, const ops::NpMomentParam& p = {});
NDArray var(const NDArray& a, const ops::NpMomentParam& p = {});
NDArray all(const NDArray& a, const ops::NpBoolReduceParam& p = {});
NDArray any(const NDArray& a, const ops::NpBoolReduceParam& p = {});
// Index (int64) of the first max/min along `axis` (None: of the flattened array, 0-dim result).
NDArray argmax(const NDArray& a, const ops::ReduceAxisParam& p = {});
NDArray argmin(const NDArray& a, const ops::ReduceAxisParam& p = {});
}  // namespace mxnet::nd::np

namespace mxnet::ops {
// _np_cumsum: axis (None: the flattened array, 1-D result), dtype (None: the input's, bool ->
// int64); accumulates in the output dtype (integers wrap, float16 rounds every step, MXNet).
struct NpCumsumParam {
  std::optional<int> axis;
  std::optional<DType> dtype;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &NpCumsumParam::axis)
        .describe("Axis of the running sum; None: over the flattened array.");
    d.field("dtype", &NpCumsumParam::dtype)
        .describe("The output (and accumulation) dtype; None: the input's (bool -> int64).")
        .choices({"None", "float16", "float32", "float64", "int32", "int64", "int8"});
  }
};
}  // namespace mxnet::ops

namespace mxnet::nd::np {
// Running sum along axis (mx.np.cumsum).
NDArray cumsum(const NDArray& a, const ops::NpCumsumParam& p = {});
}  // namespace mxnet::nd::np

namespace mxnet::ops {
// _npi_average: axis (None: all axes), returned (also show the sum of weights), weighted (a
// second input `weights`: a's shape, or 1-D of length a.shape[axis] with a single axis).
struct NpAverageParam {
  std::optional<Shape> axis;
  bool returned = false;
  bool weighted = true;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &NpAverageParam::axis)
        .describe("Axes to average over: None reduces all axes; negative counts from the end.");
    d.field("returned", &NpAverageParam::returned)
        .describe("Also return the sum of the weights (visible second output).");
    d.field("weighted", &NpAverageParam::weighted)
        .describe("Whether a second input `weights` is given.");
  }
};
}  // namespace mxnet::ops

namespace mxnet::ops {
// _np_trace: sum of the diagonal at `offset` (> 0: above the main one) of the 2-D slices over
// axis1, axis2 (distinct; negative counts from the end). Output: data's shape without them.
struct NpTraceParam {
  int offset = 0;
  int axis1 = 0;
  int axis2 = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("offset", &NpTraceParam::offset).describe("Offset of the diagonal from the main one.");
    d.field("axis1", &NpTraceParam::axis1).describe("First axis of the 2-D slices.");
    d.field("axis2", &NpTraceParam::axis2).describe("Second axis of the 2-D slices.");
  }
};
// _npi_diff: the n-th discrete difference along axis (n >= 0; the axis shrinks by n, to 0 at
// least).
struct NpDiffParam {
  int n = 1;
  int axis = -1;
  template <class D>
  static void Declare(D& d) {
    d.field("n", &NpDiffParam::n).describe("Number of times values are differenced (>= 0).");
    d.field("axis", &NpDiffParam::axis).describe("Axis of the difference; negative from the end.");
  }
  std::string Validate() const {
    if (n < 0) return StrCat("n=", n, " must be non-negative");
    return "";
  }
};
}  // namespace mxnet::ops

namespace mxnet::ops {
// _npx_constraint_check: msg, the error message when some element of the bool input is False.
struct NpConstraintCheckParam {
  std::string msg = "Constraint violated.";
  template <class D>
  static void Declare(D& d) {
    d.field("msg", &NpConstraintCheckParam::msg)
        .describe("Error message raised when the constraint is violated.");
  }
};
// _npi_bincount: minlength (the output has at least this many bins), has_weights (a second
// input `weights` of data's length).
struct NpBincountParam {
  int minlength = 0;
  bool has_weights = false;
  template <class D>
  static void Declare(D& d) {
    d.field("minlength", &NpBincountParam::minlength).describe("Minimum number of bins.");
    d.field("has_weights", &NpBincountParam::has_weights)
        .describe("Whether a second input `weights` is given.");
  }
  std::string Validate() const {
    if (minlength < 0) return StrCat("minlength=", minlength, " must be non-negative");
    return "";
  }
};
}  // namespace mxnet::ops

namespace mxnet::ops {
// _npi_ediff1d: differences of the flattened input, with values put before / after: arrays
// (inputs 2 and 3, when *_arr_given) or scalars (*_scalar; None: nothing).
struct NpEdiff1dParam {
  bool to_begin_arr_given = false;
  bool to_end_arr_given = false;
  std::optional<double> to_begin_scalar;
  std::optional<double> to_end_scalar;
  template <class D>
  static void Declare(D& d) {
    d.field("to_begin_arr_given", &NpEdiff1dParam::to_begin_arr_given)
        .describe("Whether an array to prepend is given (the second input).");
    d.field("to_end_arr_given", &NpEdiff1dParam::to_end_arr_given)
        .describe("Whether an array to append is given (the last input).");
    d.field("to_begin_scalar", &NpEdiff1dParam::to_begin_scalar)
        .describe("A scalar to prepend (without a to_begin array); None: nothing.");
    d.field("to_end_scalar", &NpEdiff1dParam::to_end_scalar)
        .describe("A scalar to append (without a to_end array); None: nothing.");
  }
};
}  // namespace mxnet::ops
