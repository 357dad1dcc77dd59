#include "gluon/nn/conv_layers.h"

#include <limits>

#include "base/strings.h"
#include "ndarray/ops/conv/conv_params.h"
#include "ndarray/ops/nn/nn_params.h"
#include "ndarray/ops/shape/shape_params.h"

namespace mxnet::gluon::nn {
namespace {

Shape OrFilled(const Shape& s, int dims, int64_t v, const char* what, const std::string& layer) {
  if (s.ndim() == 0) return Shape::Filled(dims, v);
  if (s.ndim() == 1 && dims > 1) return Shape::Filled(dims, s[0]);
  if (s.ndim() != dims)
    MX_THROW(absl::StatusCode::kInvalidArgument, layer, ": ", what, " ", s.ToString(),
             " must have ", dims, " values");
  return s;
}

std::string DefaultLayout(int dims) { return dims == 1 ? "NCW" : dims == 2 ? "NCHW" : "NCDHW"; }

bool AllEqual(const Shape& s, int64_t v) {
  for (int64_t d : s)
    if (d != v) return false;
  return true;
}

// The layouts MXNet 1.9.1's layers accept (Conv1D/Conv1DTranspose: NCW only).
void CheckLayout(const std::string& layer, const std::string& layout,
                 std::initializer_list<const char*> ok) {
  for (const char* l : ok)
    if (layout == l) return;
  std::vector<std::string> names;
  for (const char* l : ok) names.push_back(StrCat("'", l, "'"));
  MX_THROW(absl::StatusCode::kInvalidArgument, layer, ": layout must be ", StrJoin(names, " or "),
           ", got '", layout, "'");
}

}  // namespace

ConvBase::ConvBase(int64_t channels, Shape kernel, int dims, bool transpose, ConvOptions o,
                   std::string name)
    : channels_(channels), o_(std::move(o)), transpose_(transpose), name_(std::move(name)) {
  if (channels <= 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, name_, ": channels must be positive, got ",
             channels);
  kernel_ = OrFilled(kernel, dims, 1, "kernel_size", name_);
  for (int64_t k : kernel_)
    if (k <= 0)
      MX_THROW(absl::StatusCode::kInvalidArgument, name_, ": kernel_size ", kernel_.ToString(),
               " must be positive");
  o_.strides = OrFilled(o_.strides, dims, 1, "strides", name_);
  o_.padding = OrFilled(o_.padding, dims, 0, "padding", name_);
  o_.dilation = OrFilled(o_.dilation, dims, 1, "dilation", name_);
  o_.output_padding = OrFilled(o_.output_padding, dims, 0, "output_padding", name_);
  if (o_.layout.empty()) o_.layout = DefaultLayout(dims);
  if (dims == 1)
    CheckLayout(name_, o_.layout, {"NCW"});
  else if (dims == 2)
    CheckLayout(name_, o_.layout, {"NCHW", "NHWC"});
  else
    CheckLayout(name_, o_.layout, {"NCDHW", "NDHWC"});
  if (o_.groups < 1)
    MX_THROW(absl::StatusCode::kInvalidArgument, name_, ": groups must be >= 1, got ", o_.groups);
  if (channels > std::numeric_limits<int>::max() || o_.groups > std::numeric_limits<int>::max())
    MX_THROW(absl::StatusCode::kInvalidArgument, name_, ": channels (", channels, ") and groups (",
             o_.groups, ") must be below 2^31 (the ops' num_filter and num_group are ints)");
  if (channels % o_.groups != 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, name_, ": channels (", channels,
             ") must be divisible by groups (", o_.groups, ")");
  if (o_.in_channels > 0 && o_.in_channels % o_.groups != 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, name_, ": in_channels (", o_.in_channels,
             ") must be divisible by groups (", o_.groups, ")");
  if (o_.in_channels < 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, name_,
             ": in_channels must be >= 0 (0: inferred), got ", o_.in_channels);
  bool channels_last = o_.layout.back() == 'C';
  int64_t in = o_.in_channels > 0 ? o_.in_channels : -1;
  std::vector<int64_t> w;
  if (transpose_) {
    // Deconvolution: (in_channels, channels / groups, *kernel).
    w = {in, channels / o_.groups};
    for (int64_t k : kernel_) w.push_back(k);
  } else if (channels_last) {
    w = {channels};
    for (int64_t k : kernel_) w.push_back(k);
    w.push_back(in > 0 ? in / o_.groups : -1);
  } else {
    w = {channels, in > 0 ? in / o_.groups : -1};
    for (int64_t k : kernel_) w.push_back(k);
  }
  weight = register_parameter("weight", {.shape = Shape(w), .init = o_.weight_initializer});
  if (o_.use_bias)
    bias = register_parameter("bias",
                              {.shape = Shape{channels},
                               .init = o_.bias_initializer ? o_.bias_initializer : init::Zero()});
  // The attributes Convolution and Deconvolution share, from the layer's options.
  auto shared = [&](auto p) {
    p.kernel = kernel_;
    p.num_filter = static_cast<int>(channels);
    p.stride = o_.strides;
    p.dilate = o_.dilation;
    p.pad = o_.padding;
    p.num_group = static_cast<int>(o_.groups);
    p.no_bias = !o_.use_bias;
    p.layout = o_.layout;
    return p;
  };
  if (transpose_) {
    ops::DeconvolutionParam p = shared(ops::DeconvolutionParam{});
    p.adj = o_.output_padding;
    conv_ = internal::OpCall(MX_ND_OP(Deconvolution), std::move(p));
  } else {
    conv_ = internal::OpCall(MX_ND_OP(Convolution), shared(ops::ConvolutionParam{}));
  }
  if (!o_.activation.empty())
    act_ = internal::OpCall(MX_ND_OP(Activation), ops::ActivationParam{.act_type = o_.activation});
}

NDArray ConvBase::forward(const NDArray& x) {
  Device d = x.device();
  std::vector<NDArray> in = {x, weight->data(d)};
  if (bias) in.push_back(bias->data(d));
  NDArray y = conv_(in);
  return act_.valid() ? act_({y}) : y;
}

// MXNet 1.9.1's _Conv.__repr__, quirks included: the mapping is "weight.shape[1] ->
// weight.shape[0]" (so in_channels / groups for convolutions, channels / groups -> in_channels
// for transposed ones, and a kernel size for channels-last layouts), an unknown shape[1] prints
// None and an unknown shape[0] 0; output_padding is never shown (1.9.1 tests an attribute it
// never sets).
std::string ConvBase::repr_args() const {
  const Shape& w = weight->shape();
  auto dim = [&](int i) -> int64_t {
    return w.ndim_known() && w.ndim() > i && w[i] > 0 ? w[i] : 0;
  };
  std::string s = StrCat(dim(1) > 0 ? StrCat(dim(1)) : std::string("None"), " -> ", dim(0),
                         ", kernel_size=", kernel_.ToString(), ", stride=", o_.strides.ToString());
  if (!AllEqual(o_.padding, 0)) StrAppend(&s, ", padding=", o_.padding.ToString());
  if (!AllEqual(o_.dilation, 1)) StrAppend(&s, ", dilation=", o_.dilation.ToString());
  if (o_.groups != 1) StrAppend(&s, ", groups=", o_.groups);
  if (!o_.use_bias) s += ", bias=False";
  if (!o_.activation.empty()) StrAppend(&s, ", Activation(", o_.activation, ")");
  return s;
}

PoolBase::PoolBase(Shape pool_size, int dims, std::string pool_type, bool global, PoolOptions o,
                   std::string name)
    : pool_type_(std::move(pool_type)),
      layout_(o.layout),
      name_(std::move(name)),
      global_(global),
      ceil_mode_(global ? true : o.ceil_mode) {
  pool_size_ = OrFilled(pool_size, dims, 1, "pool_size", name_);
  for (int64_t k : pool_size_)
    if (k <= 0)
      MX_THROW(absl::StatusCode::kInvalidArgument, name_, ": pool_size ", pool_size_.ToString(),
               " must be positive");
  strides_ = o.strides.ndim() == 0 ? pool_size_ : OrFilled(o.strides, dims, 1, "strides", name_);
  padding_ = OrFilled(o.padding, dims, 0, "padding", name_);
  if (layout_.empty()) layout_ = DefaultLayout(dims);
  if (dims == 1)
    CheckLayout(name_, layout_, {"NCW", "NWC"});
  else if (dims == 2)
    CheckLayout(name_, layout_, {"NCHW", "NHWC"});
  else
    CheckLayout(name_, layout_, {"NCDHW", "NDHWC"});
  ops::PoolingParam p{.kernel = pool_size_,
                      .pool_type = pool_type_,
                      .stride = strides_,
                      .pad = padding_,
                      .global_pool = global_,
                      .pooling_convention = ceil_mode_ ? "full" : "valid",
                      .layout = layout_};
  if (pool_type_ == "avg" && !global_) p.count_include_pad = o.count_include_pad;
  pool_ = internal::OpCall(MX_ND_OP(Pooling), std::move(p));
}

NDArray PoolBase::forward(const NDArray& x) { return pool_({x}); }

std::string PoolBase::repr_args() const {
  return StrCat("size=", pool_size_.ToString(), ", stride=", strides_.ToString(),
                ", padding=", padding_.ToString(), ", ceil_mode=", ceil_mode_ ? "True" : "False",
                ", global_pool=", global_ ? "True" : "False", ", pool_type=", pool_type_,
                ", layout=", layout_);
}

ReflectionPad2D::ReflectionPad2D(int64_t p)
    : pad_(MX_ND_OP(pad),
           ops::PadParam{.mode = "reflect", .pad_width = Shape{0, 0, 0, 0, p, p, p, p}}) {
  if (p < 0)
    MX_THROW(absl::StatusCode::kInvalidArgument, "ReflectionPad2D: padding must be >= 0, got ", p);
}

}  // namespace mxnet::gluon::nn
