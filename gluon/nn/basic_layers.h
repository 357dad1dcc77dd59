// Basic Gluon layers (mxnet.gluon.nn): Sequential, HybridSequential, Dense, Activation.
// Parameter names, shapes and defaults follow MXNet so checkpoints load.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>

#include "gluon/block.h"
#include "gluon/nn/op_call.h"

namespace mxnet::gluon::nn {

// Stacks blocks sequentially (nn.Sequential); children are named "0", "1", ...
class Sequential : public Block {
 public:
  Sequential() = default;
  // Appends blocks in order.
  Sequential& add(std::initializer_list<BlockPtr> blocks);
  Sequential& add(BlockPtr block);
  NDArrayVec forward(const NDArrayVec& inputs) override;
  BlockPtr operator[](size_t i) const { return children_.at(i).second; }
  size_t size() const { return children_.size(); }
  std::string class_name() const override { return "Sequential"; }
  using Block::operator();
};

// Sequential for HybridBlocks (nn.HybridSequential); hybridizes as one graph.
class HybridSequential : public HybridBlock {
 public:
  HybridSequential() = default;
  HybridSequential& add(std::initializer_list<BlockPtr> blocks);
  HybridSequential& add(BlockPtr block);
  NDArrayVec forward(const NDArrayVec& inputs) override;
  BlockPtr operator[](size_t i) const { return children_.at(i).second; }
  size_t size() const { return children_.size(); }
  std::string class_name() const override { return "HybridSequential"; }
  using Block::operator();
};

struct DenseOptions {
  std::string activation;  // "" (linear), "relu", "sigmoid", "tanh", "softrelu", "softsign"
  bool use_bias = true;
  bool flatten = true;  // flatten (N, ...) to (N, prod(...)); else apply to the last axis
  DType dtype = DType::kFloat32;
  InitializerPtr weight_initializer;  // default: Block::initialize's
  InitializerPtr bias_initializer;    // default: zeros
  int64_t in_units = 0;               // 0: inferred at the first forward (deferred init)
};

// Fully connected layer (nn.Dense): out = act(dot(x, weight.T) + bias).
// x: (N, in_units) or (N, d1, ..., dk) flattened when flatten, else (..., in_units).
// weight: (units, in_units); bias: (units,). Output (N, units) or (..., units).
class Dense : public HybridBlock {
 public:
  explicit Dense(int64_t units, DenseOptions options = {});
  NDArray forward(const NDArray& x) override;
  std::string class_name() const override { return "Dense"; }
  ParameterPtr weight, bias;

 protected:
  std::string repr_args() const override;

 private:
  int64_t units_;
  DenseOptions options_;
  OpAttrs fc_attrs_, act_attrs_;
};

// Applies an activation function elementwise (nn.Activation): relu, sigmoid, tanh, softrelu,
// softsign.
class Activation : public HybridBlock {
 public:
  explicit Activation(std::string activation);
  NDArray forward(const NDArray& x) override;
  std::string class_name() const override { return "Activation"; }
  const std::string& activation() const { return act_; }

 protected:
  std::string repr_args() const override { return act_; }

 private:
  std::string act_;
  OpAttrs attrs_;
};

// Randomly zeroes elements with probability `rate` in training mode, scaling the rest by
// 1/(1-rate); identity in predict mode (nn.Dropout). axes: dimensions sharing one mask.
// rate 0 is a plain copy (MXNet's identity). Printed "Dropout(p = 0.5, axes=())".
class Dropout : public HybridBlock {
 public:
  explicit Dropout(double rate, Shape axes = Shape());
  NDArray forward(const NDArray& x) override { return op_({x}); }
  std::string class_name() const override { return "Dropout"; }

 protected:
  std::string repr_args() const override;

 private:
  double rate_;
  Shape axes_;
  internal::OpCall op_;
};

struct BatchNormOptions {
  int axis = 1;  // the channel axis of the data
  double momentum = 0.9;
  double epsilon = 1e-5;
  bool center = true;  // learn beta
  bool scale = true;   // learn gamma (op attr fix_gamma = !scale)
  bool use_global_stats = false;
  InitializerPtr beta_initializer, gamma_initializer, running_mean_initializer,
      running_variance_initializer;
  int64_t in_channels = 0;  // 0: inferred
};

// Batch normalization (Ioffe & Szegedy 2015; nn.BatchNorm, Gluon defaults eps 1e-5, momentum
// 0.9, not fix_gamma). Parameters gamma, beta (C,), and running_mean, running_var (C,) which are
// auxiliary states (grad_req null) updated in training mode. cast(float16) keeps the
// parameters in float32 (as MXNet: the op computes float16 data with float32 statistics).
class BatchNorm : public HybridBlock {
 public:
  explicit BatchNorm(BatchNormOptions options = {});
  NDArray forward(const NDArray& x) override;
  std::string class_name() const override { return "BatchNorm"; }
  void cast(DType dtype) override;
  ParameterPtr gamma, beta, running_mean, running_var;

 protected:
  std::string repr_args() const override;

 private:
  BatchNormOptions o_;
  internal::OpCall op_;
};

// Layer normalization over `axis` (Ba et al. 2016; nn.LayerNorm): gamma, beta (C,) with C the
// size of `axis` (inferred when in_channels is 0). center/scale false: beta/gamma not learned
// (grad_req null). Printed "LayerNorm(eps=1e-05, axis=-1, center=True, scale=True, in_channels=0)"
// (in_channels: gamma's size, 0 while not inferred yet).
class LayerNorm : public HybridBlock {
 public:
  explicit LayerNorm(int axis = -1, double epsilon = 1e-5, bool center = true, bool scale = true,
                     int64_t in_channels = 0, InitializerPtr beta_initializer = nullptr,
                     InitializerPtr gamma_initializer = nullptr);
  NDArray forward(const NDArray& x) override;
  std::string class_name() const override { return "LayerNorm"; }
  ParameterPtr gamma, beta;

 protected:
  std::string repr_args() const override;

 private:
  int axis_;
  double eps_;
  bool center_, scale_;
  internal::OpCall op_;
};

// Group normalization (Wu & He 2018; nn.GroupNorm) over (N, C, ...) with num_groups groups
// (C divisible by num_groups). As MXNet 1.9.1, gamma and beta have shape (num_groups,): one
// scale/shift per group (MXNet 2 changed that to (C,)). `in_channels` is accepted for MXNet 2
// source compatibility and ignored. Printed "GroupNorm(eps=1e-05, num_groups=1, center=True,
// scale=True)".
class GroupNorm : public HybridBlock {
 public:
  explicit GroupNorm(int num_groups = 1, double epsilon = 1e-5, bool center = true,
                     bool scale = true, int64_t in_channels = 0,
                     InitializerPtr beta_initializer = nullptr,
                     InitializerPtr gamma_initializer = nullptr);
  NDArray forward(const NDArray& x) override;
  std::string class_name() const override { return "GroupNorm"; }
  ParameterPtr gamma, beta;

 protected:
  std::string repr_args() const override;

 private:
  int num_groups_;
  double eps_;
  bool center_, scale_;
  internal::OpCall op_;
};

// Instance normalization (Ulyanov et al. 2016; nn.InstanceNorm): normalizes each sample over
// every axis but 0 and `axis` (the channels, default 1; another axis is swapped to 1 around the
// op, as MXNet does). gamma, beta: (C,). scale defaults to false (gamma not learned). Printed
// "InstanceNorm(eps=1e-05, axis=1, center=True, scale=False, in_channels=0)".
class InstanceNorm : public HybridBlock {
 public:
  explicit InstanceNorm(int axis = 1, double epsilon = 1e-5, bool center = true, bool scale = false,
                        int64_t in_channels = 0, InitializerPtr beta_initializer = nullptr,
                        InitializerPtr gamma_initializer = nullptr);
  NDArray forward(const NDArray& x) override;
  std::string class_name() const override { return "InstanceNorm"; }
  ParameterPtr gamma, beta;

 protected:
  std::string repr_args() const override;

 private:
  int axis_;
  double eps_;
  bool center_, scale_;
  internal::OpCall op_, swap_;
};

// Maps integer indices to dense vectors (nn.Embedding): x (...) -> (..., output_dim);
// weight (input_dim, output_dim). sparse_grad (MXNet's option, default false): the weight's
// gradient is row_sparse (only the looked-up rows; the weight Parameter's grad_stype).
class Embedding : public HybridBlock {
 public:
  Embedding(int64_t input_dim, int64_t output_dim, DType dtype = DType::kFloat32,
            InitializerPtr weight_initializer = nullptr, bool sparse_grad = false);
  NDArray forward(const NDArray& x) override;
  std::string class_name() const override { return "Embedding"; }
  ParameterPtr weight;

 protected:
  std::string repr_args() const override;

 private:
  int64_t input_dim_, output_dim_;
  internal::OpCall op_;
};

// (N, d1, ..., dk) -> (N, d1*...*dk) (nn.Flatten). Printed "Flatten" (no parentheses, as MXNet).
class Flatten : public HybridBlock {
 public:
  Flatten() : op_(MX_ND_OP(Flatten)) {}
  NDArray forward(const NDArray& x) override { return op_({x}); }
  std::string class_name() const override { return "Flatten"; }
  std::string ToString() const override { return class_name(); }

 private:
  internal::OpCall op_;
};

// Returns its input unchanged (nn.Identity).
class Identity : public HybridBlock {
 public:
  Identity() : op_(MX_ND_OP(_copy)) {}
  NDArray forward(const NDArray& x) override { return op_({x}); }
  std::string class_name() const override { return "Identity"; }
  std::string ToString() const override { return internal::EmptyBlockRepr(class_name()); }

 private:
  internal::OpCall op_;
};

// Wraps a function of NDArrays (nn.Lambda / nn.HybridLambda; the hybrid one must use ops only).
// `name` is what printing shows, like the Python function's __name__: "Lambda(<lambda>)".
class Lambda : public Block {
 public:
  explicit Lambda(std::function<NDArrayVec(const NDArrayVec&)> fn, std::string name = "<lambda>")
      : fn_(std::move(fn)), name_(std::move(name)) {
    if (!fn_) MX_THROW(absl::StatusCode::kInvalidArgument, "Lambda: the function is empty");
  }
  NDArrayVec forward(const NDArrayVec& x) override { return fn_(x); }
  std::string class_name() const override { return "Lambda"; }

 protected:
  std::string repr_args() const override { return name_; }

 private:
  std::function<NDArrayVec(const NDArrayVec&)> fn_;
  std::string name_;
};
class HybridLambda : public HybridBlock {
 public:
  explicit HybridLambda(std::function<NDArrayVec(const NDArrayVec&)> fn,
                        std::string name = "<lambda>")
      : fn_(std::move(fn)), name_(std::move(name)) {
    if (!fn_) MX_THROW(absl::StatusCode::kInvalidArgument, "HybridLambda: the function is empty");
  }
  NDArrayVec forward(const NDArrayVec& x) override { return fn_(x); }
  std::string class_name() const override { return "HybridLambda"; }

 protected:
  std::string repr_args() const override { return name_; }

 private:
  std::function<NDArrayVec(const NDArrayVec&)> fn_;
  std::string name_;
};

// Applies every child to the same input and concatenates the outputs along `axis`
// (nn.Concatenate / nn.HybridConcatenate of MXNet 2; contrib.nn.Concurrent / HybridConcurrent in
// MXNet 1.9.1, with the same children names "0", "1", ... and printing).
class Concatenate : public Sequential {
 public:
  explicit Concatenate(int axis = -1) : axis_(axis) {}
  NDArrayVec forward(const NDArrayVec& inputs) override;
  std::string class_name() const override { return "Concatenate"; }

 private:
  int axis_;
};
class HybridConcatenate : public HybridSequential {
 public:
  explicit HybridConcatenate(int axis = -1) : axis_(axis) {}
  NDArrayVec forward(const NDArrayVec& inputs) override;
  std::string class_name() const override { return "HybridConcatenate"; }

 private:
  int axis_;
};

}  // namespace mxnet::gluon::nn
