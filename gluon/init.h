// Parameter initializers (mxnet.initializer) as Gluon uses them. An initializer fills an array
// given the parameter's name; like MXNet, the name's suffix picks the rule for roles other than
// weights: *bias/*beta/*running_mean/*moving_mean -> 0, *gamma/*running_var/*moving_var -> 1,
// *weight -> the initializer's own rule. Random draws use the global generator
// (mxnet::random::seed).
#pragma once

#include <memory>
#include <string>

#include "ndarray/ndarray.h"

namespace mxnet::gluon {

class Initializer {
 public:
  virtual ~Initializer() = default;
  // Fills `arr` for a parameter named `name` (structured or leaf name) following the rules above
  // (used for Block::initialize's initializer; a parameter's own init calls InitWeight).
  void operator()(const std::string& name, const NDArray& arr) const;
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
InitializerPtr Xavier(const std::string& rnd_type = "uniform", const std::string& factor_type = "avg",
                      double magnitude = 3);
// Parses an initializer name as MXNet writes __init__ ("zeros", "ones", "uniform",
// "[\"uniform\", {\"scale\": 0.1}]", ...). Throws kInvalidArgument for an unknown one.
InitializerPtr Create(const std::string& spec);
}  // namespace init

}  // namespace mxnet::gluon
