// Activation layers (mxnet.gluon.nn.activations): LeakyReLU, PReLU, ELU, SELU, GELU, Swish,
// SiLU. Elementwise; any shape. Printing follows MXNet 1.9.1: "LeakyReLU(0.1)"; the others have
// no __repr__ of their own there and print as an empty block, "PReLU(\n\n)".
#pragma once

#include "gluon/block.h"
#include "gluon/nn/op_call.h"

namespace mxnet::gluon::nn {

// max(x, alpha * x) (Maas et al. 2013).
class LeakyReLU : public HybridBlock {
 public:
  explicit LeakyReLU(double alpha);
  NDArray forward(const NDArray& x) override { return op_({x}); }
  std::string class_name() const override { return "LeakyReLU"; }

 protected:
  std::string repr_args() const override;

 private:
  double alpha_;
  internal::OpCall op_;
};

// Parametric ReLU (He et al. 2015): learned slope `alpha` of shape (in_channels,) (default (1,)),
// initialized to 0.25.
class PReLU : public HybridBlock {
 public:
  // in_channels: the size of axis 1 of the data (one slope per channel), or 1 (one shared slope).
  explicit PReLU(InitializerPtr alpha_initializer = nullptr, int64_t in_channels = 1);
  NDArray forward(const NDArray& x) override { return op_({x, alpha->data(x.device())}); }
  std::string class_name() const override { return "PReLU"; }
  std::string ToString() const override { return internal::EmptyBlockRepr(class_name()); }
  ParameterPtr alpha;

 private:
  internal::OpCall op_;
};

// Exponential linear unit (Clevert et al. 2016): x > 0 ? x : alpha * (exp(x) - 1).
class ELU : public HybridBlock {
 public:
  explicit ELU(double alpha = 1.0);
  NDArray forward(const NDArray& x) override { return op_({x}); }
  std::string class_name() const override { return "ELU"; }
  std::string ToString() const override { return internal::EmptyBlockRepr(class_name()); }

 private:
  internal::OpCall op_;
};

// Scaled ELU (Klambauer et al. 2017).
class SELU : public HybridBlock {
 public:
  SELU();
  NDArray forward(const NDArray& x) override { return op_({x}); }
  std::string class_name() const override { return "SELU"; }
  std::string ToString() const override { return internal::EmptyBlockRepr(class_name()); }

 private:
  internal::OpCall op_;
};

// Gaussian error linear unit (Hendrycks & Gimpel 2016), erf form.
class GELU : public HybridBlock {
 public:
  GELU();
  NDArray forward(const NDArray& x) override { return op_({x}); }
  std::string class_name() const override { return "GELU"; }
  std::string ToString() const override { return internal::EmptyBlockRepr(class_name()); }

 private:
  internal::OpCall op_;
};

// x * sigmoid(beta * x) (Ramachandran et al. 2017).
class Swish : public HybridBlock {
 public:
  explicit Swish(double beta = 1.0);
  NDArray forward(const NDArray& x) override;
  std::string class_name() const override { return "Swish"; }
  std::string ToString() const override { return internal::EmptyBlockRepr(class_name()); }

 private:
  internal::OpCall scale_, sigmoid_, mul_;
};

// Swish with beta = 1 (Elfwing et al. 2018).
class SiLU : public Swish {
 public:
  SiLU() : Swish(1.0) {}
  std::string class_name() const override { return "SiLU"; }
};

}  // namespace mxnet::gluon::nn
