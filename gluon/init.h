// Parameter initializers (mxnet.initializer) as Gluon uses them. An initializer fills an array
// given the parameter's name; like MXNet, the name's suffix picks the rule for roles other than
// weights: *bias/*beta/*running_mean/*moving_mean -> 0, *gamma/*running_var/*moving_var -> 1,
// *weight -> the initializer's own rule. Random draws use the global generator
// (mxnet::random::seed).
//
// Blocks pass the parameter's leaf name ("weight", "running_mean"), so role suffixes and regular
// expressions of Mixed see that name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ndarray/ndarray.h"

namespace mxnet::gluon {

class Initializer {
 public:
  virtual ~Initializer() = default;
  // Fills `arr` for a parameter named `name` (structured or leaf name) following the rules above
  // (used for Block::initialize's initializer; a parameter's own init calls InitWeight).
  // Mixed overrides it to hand the whole call to the initializer its pattern picks.
  virtual void operator()(const std::string& name, const NDArray& arr) const;
  // Fills a weight-like array with this initializer's rule.
  virtual void InitWeight(const std::string& name, const NDArray& arr) const = 0;
  // JSON dump written as the __init__ attribute, e.g. ["uniform", {"scale": 0.07}].
  virtual std::string dumps() const = 0;
};
using InitializerPtr = std::shared_ptr<const Initializer>;

namespace init {
// Every element 0 / 1 / value (for any parameter name).
InitializerPtr Zero();
InitializerPtr One();
InitializerPtr Constant(double value);
// U(-scale, scale); MXNet's default (Block::initialize with no initializer) is Uniform(0.07).
InitializerPtr Uniform(double scale = 0.07);
// N(0, sigma^2).
InitializerPtr Normal(double sigma = 0.01);
// Glorot & Bengio (2010): scale = sqrt(magnitude / factor) with factor from fan_in/fan_out
// ("avg", "in", "out"); rnd_type "uniform" draws U(-scale, scale), "gaussian" N(0, scale^2).
InitializerPtr Xavier(const std::string& rnd_type = "uniform",
                      const std::string& factor_type = "avg", double magnitude = 3);
// Saxe et al. (2013): a random (nout, nin) matrix, nout = shape[0], nin = prod(shape[1:]), drawn
// from U(-1, 1) (rand_type "uniform") or N(0, 1) ("normal"), replaced by the orthonormal factor
// of its SVD that has its shape (U when nout >= nin, else V^T), times `scale`. So
// W W^T = scale^2 I when nout <= nin, W^T W = scale^2 I otherwise. Needs >= 2 dimensions.
InitializerPtr Orthogonal(double scale = 1.414, const std::string& rand_type = "uniform");
// He et al. (2015) for PReLU nets: Xavier("gaussian", factor_type, 2 / (1 + slope^2)), i.e.
// N(0, 2 / ((1 + slope^2) * factor)).
InitializerPtr MSRAPrelu(const std::string& factor_type = "avg", double slope = 0.25);
// Bilinear upsampling kernels for (C, 1, H, W)-style deconvolution weights (4-D only):
// w[..., y, x] = (1 - |x / f - c|) (1 - |y / f - c|), f = ceil(W / 2), c = (2f - 1 - f % 2) / (2f).
InitializerPtr Bilinear();
// Picks, for each parameter name, the initializer of the first pattern that matches at the start
// of the name (Python re.match; RE2 syntax), and lets it do the whole initialization (role rules
// included). No match is kInvalidArgument naming the parameter; add ".*" last as a default.
// Patterns and initializers must have the same length; bad regular expressions are errors.
InitializerPtr Mixed(const std::vector<std::string>& patterns,
                     const std::vector<InitializerPtr>& initializers);
// Parses an initializer name as MXNet writes __init__ ("zeros", "ones", "uniform",
// "[\"uniform\", {\"scale\": 0.1}]", "orthogonal", "msraprelu", "bilinear", ...), and
// ["mixed", {"patterns": [...], "initializers": [spec, ...]}] (specs as strings or JSON arrays).
// Throws kInvalidArgument for an unknown one.
InitializerPtr Create(const std::string& spec);
}  // namespace init

}  // namespace mxnet::gluon
