// Typed attributes of the shape op family, with MXNet 1.9.1's names, defaults and string forms
// (docs/formats.md §3.4). Shared by the registrations (shape_*.cc) and the nd:: free functions
// (shape_api.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/dtype.h"
#include "base/shape.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// A tuple of optional integers, MXNet's Tuple<optional<int>> (slice's begin/end/step):
// "(None, 1, -2)", "[0,None]", "(3,)", "()". Entries may be None.
struct OptIntTuple {
  std::vector<std::optional<int64_t>> v;
  OptIntTuple() = default;
  OptIntTuple(std::initializer_list<std::optional<int64_t>> l) : v(l) {}
  explicit OptIntTuple(std::vector<std::optional<int64_t>> x) : v(std::move(x)) {}
  int size() const { return static_cast<int>(v.size()); }
  bool operator==(const OptIntTuple& o) const { return v == o.v; }
};
bool ParseAttrValue(std::string_view s, OptIntTuple* out);
std::string PrintAttrValue(const OptIntTuple& v);

}  // namespace mxnet::ops

namespace mxnet::params_internal {
template <>
inline std::string TypeName<ops::OptIntTuple>() {
  return "tuple of int or None";
}
}  // namespace mxnet::params_internal

namespace mxnet::ops {

// ---- Reshape / Flatten / expand_dims / squeeze / reshape_like ----
struct ReshapeParam {
  Shape shape;                // codes 0 copy, -1 infer, -2 copy rest, -3 merge two, -4 split
  bool reverse = false;       // apply the codes right to left
  Shape target_shape;         // deprecated: 0 = infer (one dim)
  bool keep_highest = false;  // deprecated: with target_shape, keep dim 0 of the input
  template <class D>
  static void Declare(D& d) {
    d.field("shape", &ReshapeParam::shape)
        .describe("The target shape (special codes 0, -1, -2, -3, -4).");
    d.field("reverse", &ReshapeParam::reverse).describe("Infer the special values right to left.");
    d.field("target_shape", &ReshapeParam::target_shape)
        .describe("(Deprecated) target shape; 0 infers one dim.");
    d.field("keep_highest", &ReshapeParam::keep_highest)
        .describe("(Deprecated) keep the first dim of the input.");
  }
};

struct ExpandDimsParam {
  int axis = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &ExpandDimsParam::axis)
        .required()
        .describe("Position of the new axis, in [-ndim-1, ndim].");
  }
};

struct SqueezeParam {
  std::optional<Shape> axis;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &SqueezeParam::axis).describe("Size-1 axes to remove (None: all).");
  }
};

struct ReshapeLikeParam {
  std::optional<int> lhs_begin, lhs_end, rhs_begin, rhs_end;
  template <class D>
  static void Declare(D& d) {
    d.field("lhs_begin", &ReshapeLikeParam::lhs_begin)
        .describe("First lhs axis to replace (None: 0).");
    d.field("lhs_end", &ReshapeLikeParam::lhs_end)
        .describe("End of the replaced lhs axes (None: ndim).");
    d.field("rhs_begin", &ReshapeLikeParam::rhs_begin)
        .describe("First rhs axis to take (None: 0).");
    d.field("rhs_end", &ReshapeLikeParam::rhs_end)
        .describe("End of the rhs axes taken (None: ndim).");
  }
};

// ---- Concat / stack / split ----
struct ConcatParam {
  int num_args = 1;
  int dim = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &ConcatParam::num_args).required().describe("Number of inputs.");
    d.field("dim", &ConcatParam::dim).describe("The axis to concatenate along.");
  }
  std::string Validate() const {
    return num_args >= 1 ? "" : StrCat("num_args must be >= 1, got ", num_args);
  }
};

struct StackParam {
  int axis = 0;
  int num_args = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &StackParam::axis)
        .describe("The new axis of the result along which inputs are stacked.");
    d.field("num_args", &StackParam::num_args).required().describe("Number of inputs.");
  }
  std::string Validate() const {
    return num_args >= 1 ? "" : StrCat("num_args must be >= 1, got ", num_args);
  }
};

struct SliceChannelParam {
  int num_outputs = 1;
  int axis = 1;
  bool squeeze_axis = false;
  template <class D>
  static void Declare(D& d) {
    d.field("num_outputs", &SliceChannelParam::num_outputs)
        .required()
        .describe("Number of equal parts.");
    d.field("axis", &SliceChannelParam::axis).describe("Axis to split along.");
    d.field("squeeze_axis", &SliceChannelParam::squeeze_axis)
        .describe("Remove the split axis (its size must equal num_outputs).");
  }
  std::string Validate() const {
    return num_outputs >= 1 ? "" : StrCat("num_outputs must be >= 1, got ", num_outputs);
  }
};

struct SplitV2Param {
  Shape indices;
  int axis = 1;
  bool squeeze_axis = false;
  int sections = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("indices", &SplitV2Param::indices)
        .required()
        .describe("Start index of every part (the first is 0).");
    d.field("axis", &SplitV2Param::axis).describe("Axis to split along.");
    d.field("squeeze_axis", &SplitV2Param::squeeze_axis)
        .describe("Remove the split axis (parts of size 1).");
    d.field("sections", &SplitV2Param::sections)
        .describe("Number of near-equal parts (0: use indices).");
  }
  std::string Validate() const {
    if (sections < 0) return StrCat("sections must be >= 0, got ", sections);
    if (sections == 0 && indices.ndim() == 0) return "indices must not be empty when sections is 0";
    return "";
  }
};

// _split_like (gradient of Concat): splits data along dim into parts shaped like the others.
struct SplitLikeParam {
  int num_args = 1;
  int dim = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("num_args", &SplitLikeParam::num_args)
        .required()
        .describe("Number of parts (inputs after data).");
    d.field("dim", &SplitLikeParam::dim).describe("Axis to split along.");
  }
  std::string Validate() const {
    return num_args >= 1 ? "" : StrCat("num_args must be >= 1, got ", num_args);
  }
};

// ---- slicing ----
struct SliceParam {
  OptIntTuple begin, end, step;
  template <class D>
  static void Declare(D& d) {
    d.field("begin", &SliceParam::begin)
        .required()
        .describe("Start index per leading axis (None: from the start).");
    d.field("end", &SliceParam::end)
        .required()
        .describe("End index (exclusive) per leading axis (None: to the end).");
    d.field("step", &SliceParam::step)
        .describe("Step per leading axis (None: 1); negative steps go backwards.");
  }
};

struct SliceAssignScalarParam {
  double scalar = 0;
  OptIntTuple begin, end, step;
  template <class D>
  static void Declare(D& d) {
    d.field("scalar", &SliceAssignScalarParam::scalar).describe("The value assigned to the slice.");
    d.field("begin", &SliceAssignScalarParam::begin).required().describe("As slice's begin.");
    d.field("end", &SliceAssignScalarParam::end).required().describe("As slice's end.");
    d.field("step", &SliceAssignScalarParam::step).describe("As slice's step.");
  }
};

struct SliceAxisParam {
  int axis = 0;
  int64_t begin = 0;
  std::optional<int64_t> end;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &SliceAxisParam::axis)
        .required()
        .describe("The axis to slice (negative counts from the end).");
    d.field("begin", &SliceAxisParam::begin)
        .required()
        .describe("Start index (negative counts from the end).");
    d.field("end", &SliceAxisParam::end)
        .required()
        .describe("End index, exclusive (None: the axis size).");
  }
};

struct SliceLikeParam {
  Shape axes;
  template <class D>
  static void Declare(D& d) {
    d.field("axes", &SliceLikeParam::axes)
        .describe("Axes to slice to shape_like's size (empty: all).");
  }
};

// ---- axis permutations ----
struct TransposeParam {
  Shape axes;
  template <class D>
  static void Declare(D& d) {
    d.field("axes", &TransposeParam::axes).describe("Target axis order (empty: reversed).");
  }
};

struct SwapAxisParam {
  int dim1 = 0, dim2 = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("dim1", &SwapAxisParam::dim1).describe("The first axis to swap.");
    d.field("dim2", &SwapAxisParam::dim2).describe("The second axis to swap.");
  }
};

struct ReverseParam {
  Shape axis;
  template <class D>
  static void Declare(D& d) {
    d.field("axis", &ReverseParam::axis).required().describe("The axes to reverse.");
  }
};

struct DepthToSpaceParam {
  int block_size = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("block_size", &DepthToSpaceParam::block_size)
        .required()
        .describe("Side of the moved blocks.");
  }
  std::string Validate() const {
    return block_size > 0 ? "" : StrCat("block_size must be a positive integer, got ", block_size);
  }
};

// ---- tile / repeat / pad ----
struct TileParam {
  Shape reps;
  template <class D>
  static void Declare(D& d) {
    d.field("reps", &TileParam::reps)
        .required()
        .describe("Repetitions per axis (aligned at the last axis).");
  }
  std::string Validate() const {
    for (int64_t r : reps)
      if (r < 0) return StrCat("reps must be non-negative, got ", reps.ToString());
    return "";
  }
};

struct RepeatParam {
  int repeats = 1;
  std::optional<int> axis;
  template <class D>
  static void Declare(D& d) {
    d.field("repeats", &RepeatParam::repeats).required().describe("Repetitions of each element.");
    d.field("axis", &RepeatParam::axis)
        .describe("Axis to repeat along (None: the flattened input).");
  }
  std::string Validate() const {
    return repeats >= 0 ? "" : StrCat("repeats cannot be a negative number, got ", repeats);
  }
};

struct PadParam {
  std::string mode = "constant";
  Shape pad_width;
  double constant_value = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("mode", &PadParam::mode)
        .required()
        .choices({"constant", "edge", "reflect"})
        .describe("constant: fill with constant_value; edge: repeat the border; reflect: mirror.");
    d.field("pad_width", &PadParam::pad_width)
        .required()
        .describe("(before, after) per axis: 2*ndim values; the first two axes must be 0.");
    d.field("constant_value", &PadParam::constant_value).describe("Fill value of constant mode.");
  }
};

// ---- creation ----
inline const std::vector<std::string>& InitDTypeChoices() {
  static const std::vector<std::string> c = {"bfloat16", "bool",  "float16", "float32", "float64",
                                             "int32",    "int64", "int8",    "uint8"};
  return c;
}

struct InitParam {  // _zeros, _ones
  Shape shape = Shape::Unknown();
  std::string ctx;
  DType dtype = DType::kFloat32;
  template <class D>
  static void Declare(D& d) {
    d.field("shape", &InitParam::shape).describe("The output shape.");
    d.field("ctx", &InitParam::ctx)
        .describe("Device of the output, e.g. cpu(0) (imperative calls).");
    d.field("dtype", &InitParam::dtype).choices(InitDTypeChoices()).describe("The output dtype.");
  }
};

struct FullParam {  // _full
  Shape shape = Shape::Unknown();
  std::string ctx;
  DType dtype = DType::kFloat32;
  double value = 0;
  template <class D>
  static void Declare(D& d) {
    d.field("shape", &FullParam::shape).describe("The output shape.");
    d.field("ctx", &FullParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &FullParam::dtype).choices(InitDTypeChoices()).describe("The output dtype.");
    d.field("value", &FullParam::value).required().describe("The fill value.");
  }
};

struct ArangeParam {  // _arange
  double start = 0;
  std::optional<double> stop;
  double step = 1;
  int repeat = 1;
  bool infer_range = false;
  std::string ctx;
  DType dtype = DType::kFloat32;
  template <class D>
  static void Declare(D& d) {
    d.field("start", &ArangeParam::start)
        .required()
        .describe("Start of the interval (the stop if stop is None).");
    d.field("stop", &ArangeParam::stop).describe("End of the interval, exclusive.");
    d.field("step", &ArangeParam::step).describe("Spacing between values.");
    d.field("repeat", &ArangeParam::repeat).describe("Times each value is repeated.");
    d.field("infer_range", &ArangeParam::infer_range)
        .describe("Infer stop from the output shape (graphs).");
    d.field("ctx", &ArangeParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &ArangeParam::dtype)
        .choices({"bfloat16", "float16", "float32", "float64", "int32", "int64", "int8", "uint8"})
        .describe("The output dtype.");
  }
  std::string Validate() const {
    if (step == 0) return StrCat("Range does not support step=0, received ", PyFloatRepr(step));
    if (repeat <= 0) return StrCat("Range only supports repeat > 0, received ", repeat);
    return "";
  }
};

struct EyeParam {  // _eye
  int64_t N = 0, M = 0, k = 0;
  std::string ctx;
  DType dtype = DType::kFloat32;
  template <class D>
  static void Declare(D& d) {
    d.field("N", &EyeParam::N).required().describe("Number of rows.");
    d.field("M", &EyeParam::M).describe("Number of columns (0: N).");
    d.field("k", &EyeParam::k).describe("Diagonal: 0 main, > 0 upper, < 0 lower.");
    d.field("ctx", &EyeParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &EyeParam::dtype)
        .choices({"float16", "float32", "float64", "int32", "int64", "int8", "uint8"})
        .describe("The output dtype.");
  }
  std::string Validate() const {
    if (N < 0) return StrCat("N must be non-negative, got ", N);
    if (M < 0) return StrCat("M must be non-negative, got ", M);
    return "";
  }
};

struct LinspaceParam {  // _linspace
  double start = 0, stop = 0;
  int num = 0;
  bool endpoint = true;
  std::string ctx;
  DType dtype = DType::kFloat32;
  template <class D>
  static void Declare(D& d) {
    d.field("start", &LinspaceParam::start).required().describe("First value.");
    d.field("stop", &LinspaceParam::stop)
        .required()
        .describe("Last value (excluded unless endpoint).");
    d.field("num", &LinspaceParam::num).required().describe("Number of values (>= 0).");
    d.field("endpoint", &LinspaceParam::endpoint).describe("Whether stop is the last value.");
    d.field("ctx", &LinspaceParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &LinspaceParam::dtype)
        .choices(InitDTypeChoices())
        .describe("The output dtype.");
  }
  std::string Validate() const {
    return num >= 0 ? "" : StrCat("Number of sequence should be non-negative, received ", num);
  }
};

// ---- random ----
inline const std::vector<std::string>& RandomFloatDTypeChoices() {
  static const std::vector<std::string> c = {"None", "float16", "float32", "float64"};
  return c;
}

struct UniformParam {  // _random_uniform
  float low = 0, high = 1;
  Shape shape = Shape::Unknown();
  std::string ctx;
  std::optional<DType> dtype;  // None: float32
  template <class D>
  static void Declare(D& d) {
    d.field("low", &UniformParam::low).describe("Lower bound (inclusive).");
    d.field("high", &UniformParam::high).describe("Upper bound (exclusive).");
    d.field("shape", &UniformParam::shape).describe("The output shape.");
    d.field("ctx", &UniformParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &UniformParam::dtype)
        .choices(RandomFloatDTypeChoices())
        .describe("Output dtype (None: float32).");
  }
  std::string Validate() const {
    return low <= high ? ""
                       : StrCat("low must be <= high, got low=", PyFloatRepr(low),
                                " high=", PyFloatRepr(high));
  }
};

struct NormalParam {  // _random_normal
  float loc = 0, scale = 1;
  Shape shape = Shape::Unknown();
  std::string ctx;
  std::optional<DType> dtype;
  template <class D>
  static void Declare(D& d) {
    d.field("loc", &NormalParam::loc).describe("Mean.");
    d.field("scale", &NormalParam::scale).describe("Standard deviation (> 0).");
    d.field("shape", &NormalParam::shape).describe("The output shape.");
    d.field("ctx", &NormalParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &NormalParam::dtype)
        .choices(RandomFloatDTypeChoices())
        .describe("Output dtype (None: float32).");
  }
  std::string Validate() const {
    return scale > 0 ? "" : StrCat("scale must be > 0, got ", PyFloatRepr(scale));
  }
};

struct RandIntParam {  // _random_randint
  int64_t low = 0, high = 1;
  Shape shape = Shape::Unknown();
  std::string ctx;
  std::optional<DType> dtype;  // None: int32
  template <class D>
  static void Declare(D& d) {
    d.field("low", &RandIntParam::low).required().describe("Lower bound (inclusive).");
    d.field("high", &RandIntParam::high).required().describe("Upper bound (exclusive).");
    d.field("shape", &RandIntParam::shape).describe("The output shape.");
    d.field("ctx", &RandIntParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &RandIntParam::dtype)
        .choices({"None", "int32", "int64"})
        .describe("Output dtype (None: int32).");
  }
  std::string Validate() const {
    return low < high ? "" : StrCat("low must be < high, got low=", low, " high=", high);
  }
};

struct SampleParam {  // _sample_uniform, _sample_normal
  Shape shape;
  std::optional<DType> dtype;
  template <class D>
  static void Declare(D& d) {
    d.field("shape", &SampleParam::shape)
        .describe("Samples drawn per distribution (appended to the parameter shape).");
    d.field("dtype", &SampleParam::dtype)
        .choices(RandomFloatDTypeChoices())
        .describe("Output dtype (None: float32).");
  }
};

}  // namespace mxnet::ops
