// Convolution and pooling layers (mxnet.gluon.nn conv_layers): Conv1D/2D/3D,
// Conv1D/2D/3DTranspose, Max/Avg/GlobalMax/GlobalAvg pooling 1D/2D/3D, ReflectionPad2D.
// Parameter names and shapes follow MXNet: weight (channels, in_channels/groups, *kernel) for
// channels-first layouts, (channels, *kernel, in_channels/groups) for channels-last;
// transposed convolutions (in_channels, channels/groups, *kernel); bias (channels,).
#pragma once

#include <string>

#include "gluon/block.h"
#include "gluon/nn/op_call.h"

namespace mxnet::gluon::nn {

struct ConvOptions {
  Shape strides;         // default 1s
  Shape padding;         // default 0s
  Shape dilation;        // default 1s
  Shape output_padding;  // transposed convolutions only (MXNet's adj); default 0s
  int64_t groups = 1;
  std::string layout;      // default NCW / NCHW / NCDHW
  std::string activation;  // applied after the convolution ("relu", ...); "" = none
  bool use_bias = true;
  InitializerPtr weight_initializer;
  InitializerPtr bias_initializer;  // default zeros
  int64_t in_channels = 0;          // 0: inferred at the first forward
};

// N-D convolution or transposed convolution (the shared implementation of ConvND).
class ConvBase : public HybridBlock {
 public:
  ConvBase(int64_t channels, Shape kernel_size, int dims, bool transpose, ConvOptions options,
           std::string name);
  NDArray forward(const NDArray& x) override;
  std::string class_name() const override { return name_; }
  ParameterPtr weight, bias;

 protected:
  std::string repr_args() const override;

 private:
  int64_t channels_;
  Shape kernel_;
  ConvOptions o_;
  bool transpose_;
  std::string name_;
  internal::OpCall conv_, act_;
};

// Conv2D(16, {3, 3}, {.padding = {1, 1}}): data (N, C, H, W) -> (N, 16, H', W').
// A one-value kernel/strides/padding/dilation/output_padding applies to every spatial axis.
// Layouts (as MXNet 1.9.1): Conv1D/Conv1DTranspose NCW; 2-D NCHW or NHWC; 3-D NCDHW or NDHWC.
// Errors (kInvalidArgument, naming the layer and the argument): channels <= 0, a kernel size
// <= 0, tuples of the wrong length, another layout, groups < 1 or not dividing channels or
// in_channels.
class Conv1D : public ConvBase {
 public:
  Conv1D(int64_t channels, Shape kernel, ConvOptions o = {})
      : ConvBase(channels, kernel, 1, false, o, "Conv1D") {}
};
class Conv2D : public ConvBase {
 public:
  Conv2D(int64_t channels, Shape kernel, ConvOptions o = {})
      : ConvBase(channels, kernel, 2, false, o, "Conv2D") {}
};
class Conv3D : public ConvBase {
 public:
  Conv3D(int64_t channels, Shape kernel, ConvOptions o = {})
      : ConvBase(channels, kernel, 3, false, o, "Conv3D") {}
};
class Conv1DTranspose : public ConvBase {
 public:
  Conv1DTranspose(int64_t channels, Shape kernel, ConvOptions o = {})
      : ConvBase(channels, kernel, 1, true, o, "Conv1DTranspose") {}
};
class Conv2DTranspose : public ConvBase {
 public:
  Conv2DTranspose(int64_t channels, Shape kernel, ConvOptions o = {})
      : ConvBase(channels, kernel, 2, true, o, "Conv2DTranspose") {}
};
class Conv3DTranspose : public ConvBase {
 public:
  Conv3DTranspose(int64_t channels, Shape kernel, ConvOptions o = {})
      : ConvBase(channels, kernel, 3, true, o, "Conv3DTranspose") {}
};

struct PoolOptions {
  Shape strides;                  // default: pool_size
  Shape padding;                  // default 0s
  bool ceil_mode = false;         // pooling_convention "full" when true, else "valid"
  std::string layout;             // default NCW / NCHW / NCDHW
  bool count_include_pad = true;  // average pooling only
};

// Max/average pooling over windows, or global pooling (output spatial size 1). Layouts: NCW/NWC,
// NCHW/NHWC, NCDHW/NDHWC. Printed as MXNet 1.9.1 does:
// "MaxPool2D(size=(2, 2), stride=(2, 2), padding=(0, 0), ceil_mode=False, global_pool=False,
// pool_type=max, layout=NCHW)".
class PoolBase : public HybridBlock {
 public:
  PoolBase(Shape pool_size, int dims, std::string pool_type, bool global, PoolOptions options,
           std::string name);
  NDArray forward(const NDArray& x) override;
  std::string class_name() const override { return name_; }

 protected:
  std::string repr_args() const override;

 private:
  Shape pool_size_, strides_, padding_;
  std::string pool_type_, layout_, name_;
  bool global_, ceil_mode_;
  internal::OpCall pool_;
};

#define MX_GLUON_POOL(NAME, DIMS, TYPE, DEFAULT)                 \
  class NAME : public PoolBase {                                 \
   public:                                                       \
    explicit NAME(Shape pool_size = DEFAULT, PoolOptions o = {}) \
        : PoolBase(pool_size, DIMS, TYPE, false, o, #NAME) {}    \
  };
MX_GLUON_POOL(MaxPool1D, 1, "max", Shape({2}))
MX_GLUON_POOL(MaxPool2D, 2, "max", Shape({2, 2}))
MX_GLUON_POOL(MaxPool3D, 3, "max", Shape({2, 2, 2}))
MX_GLUON_POOL(AvgPool1D, 1, "avg", Shape({2}))
MX_GLUON_POOL(AvgPool2D, 2, "avg", Shape({2, 2}))
MX_GLUON_POOL(AvgPool3D, 3, "avg", Shape({2, 2, 2}))
#undef MX_GLUON_POOL

#define MX_GLUON_GLOBAL_POOL(NAME, DIMS, TYPE)                                              \
  class NAME : public PoolBase {                                                            \
   public:                                                                                  \
    explicit NAME(std::string layout = "")                                                  \
        : PoolBase(Shape::Filled(DIMS, 1), DIMS, TYPE, true, PoolOptions{.layout = layout}, \
                   #NAME) {}                                                                \
  };
MX_GLUON_GLOBAL_POOL(GlobalMaxPool1D, 1, "max")
MX_GLUON_GLOBAL_POOL(GlobalMaxPool2D, 2, "max")
MX_GLUON_GLOBAL_POOL(GlobalMaxPool3D, 3, "max")
MX_GLUON_GLOBAL_POOL(GlobalAvgPool1D, 1, "avg")
MX_GLUON_GLOBAL_POOL(GlobalAvgPool2D, 2, "avg")
MX_GLUON_GLOBAL_POOL(GlobalAvgPool3D, 3, "avg")
#undef MX_GLUON_GLOBAL_POOL

// Pads the last two axes of (N, C, H, W) by reflection (nn.ReflectionPad2D).
class ReflectionPad2D : public HybridBlock {
 public:
  explicit ReflectionPad2D(int64_t padding);
  NDArray forward(const NDArray& x) override { return pad_({x}); }
  std::string class_name() const override { return "ReflectionPad2D"; }
  std::string ToString() const override { return internal::EmptyBlockRepr(class_name()); }

 private:
  internal::OpCall pad_;
};

}  // namespace mxnet::gluon::nn
