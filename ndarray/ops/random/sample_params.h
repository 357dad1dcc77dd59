// Typed attributes of the shape family's remaining random ops (shape_sample.cc) and the pdf ops
// (shape_pdf.cc), with MXNet 1.9.1's names, types, defaults and checks:
// src/operator/random/sample_op.h (Sample*Param, Sample*LikeParam), sample_multinomial_op.h
// (SampleMultinomialParam), unique_sample_op.h (SampleUniqueZifpianParam), pdf_op.h (PdfParam).
// _sample_exponential & co. reuse SampleParam (shape_params.h).
#pragma once

#include <optional>
#include <string>

#include "base/dtype.h"
#include "base/shape.h"
#include "ndarray/ops/shape/shape_params.h"
#include "ndarray/params.h"

namespace mxnet::ops {

// The creation attributes of the _random_* ops (shape, ctx, dtype), declared after the
// distribution's own ones as MXNet orders them.
template <class P, class D>
void DeclareRandomCreation(D& d) {
  d.field("shape", &P::shape).describe("The output shape.");
  d.field("ctx", &P::ctx).describe("Device of the output (imperative calls).");
  d.field("dtype", &P::dtype)
      .choices(RandomFloatDTypeChoices())
      .describe("Output dtype (None: float32).");
}

// kCreate = true: _random_<distr> (with shape/ctx/dtype); false: _random_<distr>_like (output
// shape and dtype from the input `data`).
template <bool kCreate>
struct ExponentialParamT {
  float lam = 1;  // rate; > 0
  Shape shape = Shape::Unknown();
  std::string ctx;
  std::optional<DType> dtype;
  template <class D>
  static void Declare(D& d) {
    d.field("lam", &ExponentialParamT::lam).describe("Rate (1/mean), > 0.");
    if constexpr (kCreate) DeclareRandomCreation<ExponentialParamT>(d);
  }
  std::string Validate() const {
    return lam > 0 ? "" : StrCat("lam must be > 0, got ", PyFloatRepr(lam));
  }
};
using ExponentialParam = ExponentialParamT<true>;
using ExponentialLikeParam = ExponentialParamT<false>;

template <bool kCreate>
struct GammaParamT {
  float alpha = 1, beta = 1;  // shape, scale; both > 0
  Shape shape = Shape::Unknown();
  std::string ctx;
  std::optional<DType> dtype;
  template <class D>
  static void Declare(D& d) {
    d.field("alpha", &GammaParamT::alpha).describe("Shape, > 0.");
    d.field("beta", &GammaParamT::beta).describe("Scale, > 0 (mean alpha * beta).");
    if constexpr (kCreate) DeclareRandomCreation<GammaParamT>(d);
  }
  std::string Validate() const {
    if (!(alpha > 0)) return StrCat("alpha must be > 0, got ", PyFloatRepr(alpha));
    if (!(beta > 0)) return StrCat("beta must be > 0, got ", PyFloatRepr(beta));
    return "";
  }
};
using GammaParam = GammaParamT<true>;
using GammaLikeParam = GammaParamT<false>;

template <bool kCreate>
struct PoissonParamT {
  float lam = 1;  // mean; >= 0
  Shape shape = Shape::Unknown();
  std::string ctx;
  std::optional<DType> dtype;
  template <class D>
  static void Declare(D& d) {
    d.field("lam", &PoissonParamT::lam).describe("Mean, >= 0.");
    if constexpr (kCreate) DeclareRandomCreation<PoissonParamT>(d);
  }
  std::string Validate() const {
    return lam >= 0 ? "" : StrCat("lam must be >= 0, got ", PyFloatRepr(lam));
  }
};
using PoissonParam = PoissonParamT<true>;
using PoissonLikeParam = PoissonParamT<false>;

// Failures before the k-th success, success probability p. MXNet accepts p = 0 (garbage
// values) and p > 1 (zeros); both are errors here.
template <bool kCreate>
struct NegBinomialParamT {
  int k = 1;    // >= 0
  float p = 1;  // in (0, 1]
  Shape shape = Shape::Unknown();
  std::string ctx;
  std::optional<DType> dtype;
  template <class D>
  static void Declare(D& d) {
    d.field("k", &NegBinomialParamT::k).describe("Number of successes, >= 0.");
    d.field("p", &NegBinomialParamT::p).describe("Success probability, in (0, 1].");
    if constexpr (kCreate) DeclareRandomCreation<NegBinomialParamT>(d);
  }
  std::string Validate() const {
    if (k < 0) return StrCat("k must be >= 0, got ", k);
    if (!(p > 0 && p <= 1)) return StrCat("p must be in (0, 1], got ", PyFloatRepr(p));
    return "";
  }
};
using NegBinomialParam = NegBinomialParamT<true>;
using NegBinomialLikeParam = NegBinomialParamT<false>;

// Mean mu, dispersion alpha (variance mu + alpha * mu^2; alpha = 0 is Poisson(mu)).
template <bool kCreate>
struct GenNegBinomialParamT {
  float mu = 1, alpha = 1;  // both >= 0
  Shape shape = Shape::Unknown();
  std::string ctx;
  std::optional<DType> dtype;
  template <class D>
  static void Declare(D& d) {
    d.field("mu", &GenNegBinomialParamT::mu).describe("Mean, >= 0.");
    d.field("alpha", &GenNegBinomialParamT::alpha).describe("Dispersion, >= 0.");
    if constexpr (kCreate) DeclareRandomCreation<GenNegBinomialParamT>(d);
  }
  std::string Validate() const {
    if (!(mu >= 0)) return StrCat("mu must be >= 0, got ", PyFloatRepr(mu));
    if (!(alpha >= 0)) return StrCat("alpha must be >= 0, got ", PyFloatRepr(alpha));
    return "";
  }
};
using GenNegBinomialParam = GenNegBinomialParamT<true>;
using GenNegBinomialLikeParam = GenNegBinomialParamT<false>;

struct UniformLikeParam {  // _random_uniform_like
  float low = 0, high = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("low", &UniformLikeParam::low).describe("Lower bound (inclusive).");
    d.field("high", &UniformLikeParam::high).describe("Upper bound (exclusive).");
  }
  std::string Validate() const {
    return low <= high ? ""
                       : StrCat("low must be <= high, got low=", PyFloatRepr(low),
                                " high=", PyFloatRepr(high));
  }
};

struct NormalLikeParam {  // _random_normal_like
  float loc = 0, scale = 1;
  template <class D>
  static void Declare(D& d) {
    d.field("loc", &NormalLikeParam::loc).describe("Mean.");
    d.field("scale", &NormalLikeParam::scale).describe("Standard deviation (> 0).");
  }
  std::string Validate() const {
    return scale > 0 ? "" : StrCat("scale must be > 0, got ", PyFloatRepr(scale));
  }
};

struct MultinomialParam {  // _sample_multinomial
  Shape shape;             // draws per distribution; () is one draw
  bool get_prob = false;   // also return log(p[draw])
  DType dtype = DType::kInt32;
  template <class D>
  static void Declare(D& d) {
    d.field("shape", &MultinomialParam::shape)
        .describe("Samples drawn per distribution (appended to data.shape[:-1]).");
    d.field("get_prob", &MultinomialParam::get_prob)
        .describe("Also return the log-probability of each drawn index.");
    d.field("dtype", &MultinomialParam::dtype)
        .choices({"float16", "float32", "float64", "int32", "uint8"})
        .describe("Dtype of the drawn indices.");
  }
};

struct UniqueZipfianParam {  // _sample_unique_zipfian
  int range_max = 1;         // required
  Shape shape = Shape::Unknown();
  template <class D>
  static void Declare(D& d) {
    d.field("range_max", &UniqueZipfianParam::range_max)
        .required()
        .describe("Number of classes: values lie in [0, range_max).");
    d.field("shape", &UniqueZipfianParam::shape)
        .describe("(batch_size, num_sampled): distinct samples per batch row.");
  }
  std::string Validate() const {
    return range_max >= 1 ? "" : StrCat("range_max must be >= 1, got ", range_max);
  }
};

struct PdfParam {  // _random_pdf_*
  bool is_log = false;
  template <class D>
  static void Declare(D& d) {
    d.field("is_log", &PdfParam::is_log).describe("Return the log-density instead.");
  }
};

}  // namespace mxnet::ops
