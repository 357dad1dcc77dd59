// nd:: free functions of the shape family's remaining random ops (shape_sample.cc) and the pdf
// ops (shape_pdf.cc), MXNet 1.9.1's mx.nd.random.* / mx.nd.sample_* / mx.nd.random_pdf_*.
// Samplers draw from the global generator of the output device (ndarray/random.h):
// mxnet::random::seed(s) makes a sequence of calls repeatable; values differ from MXNet's (another
// generator), distributions are the same. Errors are mxnet::Error(kInvalidArgument) naming the op
// and what was wrong.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "ndarray/ops/core/basic_api.h"
#include "ndarray/ops/random/sample_params.h"

namespace mxnet::nd::random {

// ---- One distribution, `shape` draws; dtype float16/32/64 (values of the discrete ones are
// integers stored as floats). ----
// _random_exponential: rate lam > 0 (mean 1/lam).
NDArray exponential(double lam, const Shape& shape, Device device = cpu(),
                    DType dtype = DType::kFloat32);
// _random_gamma: shape alpha > 0, scale beta > 0 (mean alpha*beta, variance alpha*beta^2).
NDArray gamma(double alpha, double beta, const Shape& shape, Device device = cpu(),
              DType dtype = DType::kFloat32);
// _random_poisson: mean lam >= 0.
NDArray poisson(double lam, const Shape& shape, Device device = cpu(),
                DType dtype = DType::kFloat32);
// _random_negative_binomial: failures before the k-th success (k >= 0) with success probability
// p in (0, 1]: mean k(1-p)/p, variance k(1-p)/p^2.
NDArray negative_binomial(int k, double p, const Shape& shape, Device device = cpu(),
                          DType dtype = DType::kFloat32);
// _random_generalized_negative_binomial: mean mu >= 0, dispersion alpha >= 0 (variance
// mu + alpha*mu^2; alpha = 0 is Poisson(mu)).
NDArray generalized_negative_binomial(double mu, double alpha, const Shape& shape,
                                      Device device = cpu(), DType dtype = DType::kFloat32);

// ---- _random_<distr>_like: shape, dtype (float16/32/64, else an error) and device of data;
// same parameters and checks as above. ----
NDArray uniform_like(const NDArray& data, double low = 0, double high = 1);
NDArray normal_like(const NDArray& data, double loc = 0, double scale = 1);
NDArray exponential_like(const NDArray& data, double lam = 1);
NDArray gamma_like(const NDArray& data, double alpha = 1, double beta = 1);
NDArray poisson_like(const NDArray& data, double lam = 1);
NDArray negative_binomial_like(const NDArray& data, int k = 1, double p = 1);
NDArray generalized_negative_binomial_like(const NDArray& data, double mu = 1, double alpha = 1);

// ---- _sample_<distr>: parameter arrays of one shape S (any dtype, one for all); for each
// element `shape` draws; result S + shape, float32 unless dtype is given. Elements outside the
// parameter ranges above are errors (MXNet loops forever or returns garbage). ----
NDArray sample_exponential(const NDArray& lam, const Shape& shape = Shape(),
                           std::optional<DType> dtype = std::nullopt);
NDArray sample_gamma(const NDArray& alpha, const NDArray& beta, const Shape& shape = Shape(),
                     std::optional<DType> dtype = std::nullopt);
NDArray sample_poisson(const NDArray& lam, const Shape& shape = Shape(),
                       std::optional<DType> dtype = std::nullopt);
NDArray sample_negative_binomial(const NDArray& k, const NDArray& p, const Shape& shape = Shape(),
                                 std::optional<DType> dtype = std::nullopt);
NDArray sample_generalized_negative_binomial(const NDArray& mu, const NDArray& alpha,
                                             const Shape& shape = Shape(),
                                             std::optional<DType> dtype = std::nullopt);

// _sample_multinomial: data (..., K) float16/32/64 holds K category probabilities per row (rows
// should sum to 1; they are normalized when drawing). Draws `shape` indices per row: result
// data.shape[:-1] + shape (1-D data: shape, or (1,) when shape is ()), dtype int32 (or uint8 /
// float16/32/64). With get_prob a second output, same shape, data's dtype: log(p[index]),
// differentiable w.r.t. data (d/dp log p = 1/p at the drawn index).
std::vector<NDArray> sample_multinomial(const NDArray& data, const Shape& shape = Shape(),
                                        bool get_prob = false, DType dtype = DType::kInt32);

// _sample_unique_zipfian: for each of shape[0] rows, shape[1] distinct int64 values from
// [0, range_max), approximately log-uniform: each draw is round(range_max^u) - 1 with u ~ U[0, 1)
// (P(v) = (log(min(v + 1.5, R)) - log(max(v + 0.5, 1))) / log(R), R = range_max), repeated
// until the row has shape[1] distinct values; and the int64 number of draws per row, shape
// (shape[0],). shape must be 2-D with shape[1] <= range_max. Not differentiable.
std::pair<NDArray, NDArray> sample_unique_zipfian(int range_max, const Shape& shape);

// ---- _random_pdf_<distr>: densities (log-densities with is_log) of `sample` under
// per-element distributions. Parameters share one shape P that is the leading sub-shape of
// sample's shape; the output has sample's shape; sample[i, ...] uses the parameters at i. One
// float dtype for all. No range checks (as MXNet). Gradients w.r.t. the parameters (summed
// over the samples of each distribution) and w.r.t. sample for the continuous ones (uniform's,
// and the discrete ones', is 0). ----
NDArray pdf_uniform(const NDArray& sample, const NDArray& low, const NDArray& high,
                    bool is_log = false);  // 1/(high-low), ignoring the support
NDArray pdf_normal(const NDArray& sample, const NDArray& mu, const NDArray& sigma,
                   bool is_log = false);
NDArray pdf_gamma(const NDArray& sample, const NDArray& alpha, const NDArray& beta,
                  bool is_log = false);  // beta is the RATE here (MXNet's pdf convention)
NDArray pdf_exponential(const NDArray& sample, const NDArray& lam, bool is_log = false);
NDArray pdf_poisson(const NDArray& sample, const NDArray& lam, bool is_log = false);
NDArray pdf_negative_binomial(const NDArray& sample, const NDArray& k, const NDArray& p,
                              bool is_log = false);
NDArray pdf_generalized_negative_binomial(const NDArray& sample, const NDArray& mu,
                                          const NDArray& alpha, bool is_log = false);
// Dirichlet: sample (..., K) with alpha (P..., K), P a leading sub-shape of sample.shape[:-1];
// output sample.shape[:-1] ((1,) for 1-D sample).
NDArray pdf_dirichlet(const NDArray& sample, const NDArray& alpha, bool is_log = false);

}  // namespace mxnet::nd::random
