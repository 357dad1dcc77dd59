// Parameters of MXNet 1.9.1's NumPy-interface creation ops (shape_np_create.cc; mx.np.zeros,
// ones, full_like, identity, eye, arange, indices, logspace, blackman, hamming, hanning). These
// ops have no nd:: wrappers: call them by name (mxnet::Invoke("_npi_eye", {}, {{"N", "3"}})).
// _npi_arange takes _arange's ArangeParam (shape_params.h).
// Source: src/operator/numpy/np_init_op.h, np_window_op.h (MXNet 1.9.1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ndarray/ops/shape/shape_params.h"

namespace mxnet::ops {

// Output dtypes of _npi_eye, _npi_indices, _npi_logspace and the windows (no bool).
inline const std::vector<std::string>& NpCreateDTypeChoices() {
  static const std::vector<std::string> c = {"bfloat16", "float16", "float32", "float64",
                                             "int32",    "int64",   "int8",    "uint8"};
  return c;
}

// _npi_full_like's dtype: None (the input's) or a creation dtype.
inline const std::vector<std::string>& NpFullLikeDTypeChoices() {
  static const std::vector<std::string> c = {"None",    "bfloat16", "bool",  "float16", "float32",
                                             "float64", "int32",    "int64", "int8",    "uint8"};
  return c;
}

// _npi_zeros, _npi_ones, _npi_identity: shape (default (), a 0-dim array), dtype (float32).
struct NpInitParam {
  Shape shape = Shape{};
  std::string ctx;
  DType dtype = DType::kFloat32;
  template <class D>
  static void Declare(D& d) {
    d.field("shape", &NpInitParam::shape).describe("The output shape (default (): 0-dim).");
    d.field("ctx", &NpInitParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &NpInitParam::dtype).choices(InitDTypeChoices()).describe("The output dtype.");
  }
};

// _npi_full_like: fill_value (required) cast to dtype (None: the input's dtype).
struct NpFullLikeParam {
  double fill_value = 0;
  std::string ctx;
  std::optional<DType> dtype;
  template <class D>
  static void Declare(D& d) {
    d.field("fill_value", &NpFullLikeParam::fill_value).required().describe("The fill value.");
    d.field("ctx", &NpFullLikeParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &NpFullLikeParam::dtype)
        .choices(NpFullLikeDTypeChoices())
        .describe("The output dtype (None: the input's).");
  }
};

// _npi_eye: N x M (M None: N) with ones on diagonal k; N, M >= 0.
struct NpEyeParam {
  int64_t N = 0;
  std::optional<int64_t> M;
  int64_t k = 0;
  std::string ctx;
  DType dtype = DType::kFloat32;
  template <class D>
  static void Declare(D& d) {
    d.field("N", &NpEyeParam::N).required().describe("Number of rows.");
    d.field("M", &NpEyeParam::M).describe("Number of columns (None: N).");
    d.field("k", &NpEyeParam::k).describe("Diagonal: 0 main, > 0 above, < 0 below.");
    d.field("ctx", &NpEyeParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &NpEyeParam::dtype)
        .choices(NpCreateDTypeChoices())
        .describe("The output dtype.");
  }
};

// _npi_indices: the index grid of `dimensions`, shape (ndim, *dimensions), dtype int32 default.
struct NpIndicesParam {
  Shape dimensions = Shape{};
  DType dtype = DType::kInt32;
  std::string ctx;
  template <class D>
  static void Declare(D& d) {
    d.field("dimensions", &NpIndicesParam::dimensions).required().describe("The grid's shape.");
    d.field("dtype", &NpIndicesParam::dtype)
        .choices(NpCreateDTypeChoices())
        .describe("The output dtype.");
    d.field("ctx", &NpIndicesParam::ctx).describe("Device of the output (imperative calls).");
  }
};

// _npi_logspace: base ** linspace(start, stop, num, endpoint); num >= 0.
struct NpLogspaceParam {
  double start = 0, stop = 0;
  int num = 0;
  bool endpoint = true;
  double base = 10;
  std::string ctx;
  DType dtype = DType::kFloat32;
  template <class D>
  static void Declare(D& d) {
    d.field("start", &NpLogspaceParam::start).required().describe("First exponent.");
    d.field("stop", &NpLogspaceParam::stop).required().describe("Last exponent.");
    d.field("num", &NpLogspaceParam::num).required().describe("Number of values (>= 0).");
    d.field("endpoint", &NpLogspaceParam::endpoint).describe("Whether stop is included.");
    d.field("base", &NpLogspaceParam::base).describe("Base of the powers.");
    d.field("ctx", &NpLogspaceParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &NpLogspaceParam::dtype)
        .choices(NpCreateDTypeChoices())
        .describe("The output dtype.");
  }
};

// _npi_blackman, _npi_hamming, _npi_hanning: window of M points (M required; M <= 0: empty).
struct NpWindowParam {
  std::optional<int64_t> M;
  std::string ctx;
  DType dtype = DType::kFloat32;
  template <class D>
  static void Declare(D& d) {
    d.field("M", &NpWindowParam::M).describe("Number of points (required; <= 0: empty).");
    d.field("ctx", &NpWindowParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &NpWindowParam::dtype)
        .choices(NpCreateDTypeChoices())
        .describe("The output dtype.");
  }
};

}  // namespace mxnet::ops

namespace mxnet::ops {

// Parameters of the NumPy-interface samplers (shape_np_create_random.cc). Each distribution
// parameter ("float or None") is either an attribute or, when None, the next tensor input
// (input1, input2, in order), broadcast against the others. size: output shape (None: the
// broadcast shape of the tensor parameters, () without any); the _n variants prepend size to
// the broadcast shape instead. S names the attributes:
//   static constexpr const char* kA, *kB (nullptr: one parameter); kADefault / kBDefault (NaN:
//   required, else the optional default; a NaN default with kARequired false: default None);
//   kHasCtx, kHasDType (dtype float16/float32/float64, default float32; without it float32).
template <class S>
struct NpDistParam {
  std::optional<float> a = S::kADefault, b;
  std::optional<Shape> size;
  std::string ctx = "cpu";
  DType dtype = DType::kFloat32;
  NpDistParam() {
    if (S::kADefault != S::kADefault) a.reset();  // NaN: None
  }
  template <class D>
  static void Declare(D& d) {
    auto fa = d.field(S::kA, &NpDistParam::a);
    fa.describe("Distribution parameter (None: taken from the next tensor input).");
    if (S::kARequired) fa.required();
    if constexpr (S::kB != nullptr)
      d.field(S::kB, &NpDistParam::b)
          .required()
          .describe("Distribution parameter (None: taken from the next tensor input).");
    d.field("size", &NpDistParam::size).describe("Output shape (None: broadcast of the inputs).");
    if constexpr (S::kHasCtx)
      d.field("ctx", &NpDistParam::ctx).describe("Device of the output (imperative calls).");
    if constexpr (S::kHasDType)
      d.field("dtype", &NpDistParam::dtype)
          .choices({"float16", "float32", "float64"})
          .describe("The output dtype.");
  }
};

}  // namespace mxnet::ops

namespace mxnet::ops {

// _npi_bernoulli: 1 with probability prob (is_logit false) or sigmoid(logit) (is_logit true);
// the parameter in use is the tensor input when None. prob must lie in [0, 1]. size as
// NpDistParam; dtype bool/float16/float32/float64/int32/uint8 (default float32).
struct NpBernoulliParam {
  std::optional<float> prob, logit;
  std::optional<Shape> size;
  std::string ctx = "cpu";
  DType dtype = DType::kFloat32;
  bool is_logit = false;
  template <class D>
  static void Declare(D& d) {
    d.field("prob", &NpBernoulliParam::prob)
        .required()
        .describe("Probability of 1 (None: the input, when is_logit is false).");
    d.field("logit", &NpBernoulliParam::logit)
        .required()
        .describe("Log-odds of 1 (None: the input, when is_logit is true).");
    d.field("size", &NpBernoulliParam::size).describe("Output shape (None: the input's).");
    d.field("ctx", &NpBernoulliParam::ctx).describe("Device of the output (imperative calls).");
    d.field("dtype", &NpBernoulliParam::dtype)
        .choices({"bool", "float16", "float32", "float64", "int32", "uint8"})
        .describe("The output dtype.");
    d.field("is_logit", &NpBernoulliParam::is_logit)
        .required()
        .describe("Whether logit (true) or prob (false) is the parameter.");
  }
};

}  // namespace mxnet::ops

namespace mxnet::ops {

// _npi_multinomial: counts of n draws over k categories with probabilities pvals (a tuple, or
// None: the 1-D tensor input a); output int64 of shape size + (k,) (size None: (k,)). The last
// category takes the remaining probability 1 - sum(pvals[:-1]), which must be >= 0; n <= 0
// gives zeros.
struct NpMultinomialParam {
  int n = 0;
  std::optional<std::vector<double>> pvals;
  std::optional<Shape> size;
  template <class D>
  static void Declare(D& d) {
    d.field("n", &NpMultinomialParam::n).required().describe("Number of draws.");
    d.field("pvals", &NpMultinomialParam::pvals)
        .describe("Category probabilities (None: the input a).");
    d.field("size", &NpMultinomialParam::size).describe("Leading output shape (None: ()).");
  }
};

}  // namespace mxnet::ops
