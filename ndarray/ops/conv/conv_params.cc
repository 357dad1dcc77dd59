// Attribute validation and geometry of the conv op family (see conv_params.h).
#include <cmath>

#include "base/error.h"
#include "ndarray/ops/conv/conv_params.h"

namespace mxnet::ops {
namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;

// "" if `t` is empty or has `nd` entries each satisfying min_value; an error otherwise.
std::string CheckTuple(std::string_view name, const Shape& t, const Shape& kernel,
                       int64_t min_value) {
  if (t.ndim() == 0) return "";
  if (t.ndim() != kernel.ndim())
    return StrCat("attribute ", name, "=", t.ToString(), " must have ", kernel.ndim(),
                  " entries like kernel=", kernel.ToString());
  for (int64_t v : t)
    if (v < min_value)
      return StrCat("attribute ", name, "=", t.ToString(), " must have entries >= ", min_value);
  return "";
}

std::string CheckKernelAndLayout(const Shape& kernel, const std::optional<std::string>& layout) {
  if (kernel.ndim() < 1 || kernel.ndim() > 3)
    return StrCat("attribute kernel=", kernel.ToString(),
                  " must have 1, 2 or 3 entries ((w,), (h, w) or (d, h, w))");
  for (int64_t v : kernel)
    if (v < 1) return StrCat("attribute kernel=", kernel.ToString(), " must have entries >= 1");
  int lr = LayoutSpatialRank(layout);
  if (lr && lr != kernel.ndim())
    return StrCat("attribute layout=", *layout, " does not match the ", kernel.ndim(),
                  "-D kernel=", kernel.ToString());
  return "";
}

int64_t At(const Shape& t, int i, int64_t dflt) { return t.ndim() > i ? t[i] : dflt; }

}  // namespace

// ---- Validation. ----

std::string ConvolutionParam::Validate() const {
  std::string e = CheckKernelAndLayout(kernel, layout);
  if (e.empty()) e = CheckTuple("stride", stride, kernel, 1);
  if (e.empty()) e = CheckTuple("dilate", dilate, kernel, 1);
  if (e.empty()) e = CheckTuple("pad", pad, kernel, 0);
  if (!e.empty()) return e;
  if (num_filter < 1) return StrCat("attribute num_filter=", num_filter, " must be >= 1");
  if (num_group < 1) return StrCat("attribute num_group=", num_group, " must be >= 1");
  if (num_filter % num_group != 0)
    return StrCat("num_filter=", num_filter, " must be divisible by num_group=", num_group);
  if (workspace < 0) return StrCat("attribute workspace=", workspace, " must be >= 0");
  return "";
}

std::string DeconvolutionParam::Validate() const {
  std::string e = CheckKernelAndLayout(kernel, layout);
  if (e.empty()) e = CheckTuple("stride", stride, kernel, 1);
  if (e.empty()) e = CheckTuple("dilate", dilate, kernel, 1);
  if (e.empty()) e = CheckTuple("pad", pad, kernel, 0);
  if (e.empty()) e = CheckTuple("adj", adj, kernel, 0);
  if (e.empty()) e = CheckTuple("target_shape", target_shape, kernel, 0);
  if (!e.empty()) return e;
  if (num_filter < 1) return StrCat("attribute num_filter=", num_filter, " must be >= 1");
  if (num_group < 1) return StrCat("attribute num_group=", num_group, " must be >= 1");
  if (num_filter % num_group != 0)
    return StrCat("num_filter=", num_filter, " must be divisible by num_group=", num_group);
  if (workspace < 0) return StrCat("attribute workspace=", workspace, " must be >= 0");
  return "";
}

std::string FullyConnectedParam::Validate() const {
  if (num_hidden < 1) return StrCat("attribute num_hidden=", num_hidden, " must be >= 1");
  return "";
}

std::string PoolingParam::Validate() const {
  if (!global_pool || kernel.ndim() > 0) {
    if (kernel.ndim() == 0) return "attribute kernel is required unless global_pool=True";
    std::string e = CheckKernelAndLayout(kernel, global_pool ? std::nullopt : layout);
    if (e.empty()) e = CheckTuple("stride", stride, kernel, 1);
    if (e.empty()) e = CheckTuple("pad", pad, kernel, 0);
    if (!e.empty()) return e;
  }
  if (pool_type == "lp" && (!p_value || *p_value < 1 || *p_value > 3))
    return StrCat("pool_type='lp' needs p_value 1, 2 or 3, got ",
                  p_value ? StrCat(*p_value) : std::string("None"));
  if (pooling_convention == "same" && !global_pool) {
    if (kernel.ndim() != 1)
      return StrCat("pooling_convention='same' supports only 1-D pooling, got kernel=",
                    kernel.ToString());
    for (int64_t v : pad)
      if (v != 0)
        return StrCat("pooling_convention='same' does not allow pad, got pad=", pad.ToString());
  }
  return "";
}

std::string UpSamplingParam::Validate() const {
  if (scale < 1) return StrCat("attribute scale=", scale, " must be >= 1");
  if (num_args < 1) return StrCat("attribute num_args=", num_args, " must be >= 1");
  if (sample_type == "bilinear") {
    if (num_filter < 1)
      return StrCat("sample_type='bilinear' needs num_filter (the number of channels) >= 1, got ",
                    num_filter);
    if (multi_input_mode == "sum")
      return "multi_input_mode='sum' is only available for sample_type='nearest'";
  }
  return "";
}

// ---- Layouts. ----

int LayoutSpatialRank(const std::optional<std::string>& layout) {
  if (!layout) return 0;
  return static_cast<int>(layout->size()) - 2;
}

bool IsChannelsLast(std::string_view op, const std::optional<std::string>& layout, int nd) {
  if (!layout) return false;
  if (LayoutSpatialRank(layout) != nd)
    MX_THROW(kInvalid, op, ": layout ", *layout, " does not fit ", nd, " spatial dims");
  return layout->back() == 'C';
}

std::string LayoutName(bool channels_last, int nd) {
  static const char* cf[] = {"NC", "NCW", "NCHW", "NCDHW"};
  static const char* cl[] = {"NC", "NWC", "NHWC", "NDHWC"};
  return channels_last ? cl[nd] : cf[nd];
}

Shape ToChannelsFirst(const Shape& s, bool channels_last) {
  if (!channels_last || !s.ndim_known() || s.ndim() < 2) return s;
  Shape out;
  out.push_back(s[0]);
  out.push_back(s[s.ndim() - 1]);
  for (int i = 1; i < s.ndim() - 1; ++i) out.push_back(s[i]);
  return out;
}

Shape FromChannelsFirst(const Shape& s, bool channels_last) {
  if (!channels_last || !s.ndim_known() || s.ndim() < 2) return s;
  Shape out;
  out.push_back(s[0]);
  for (int i = 2; i < s.ndim(); ++i) out.push_back(s[i]);
  out.push_back(s[1]);
  return out;
}

// ---- Convolution geometry. ----

Shape ConvGeom::XShape() const {
  Shape s{N, CX};
  for (int i = 0; i < nd; ++i) s.push_back(xs[i]);
  return FromChannelsFirst(s, channels_last);
}

Shape ConvGeom::YShape() const {
  Shape s{N, CY};
  for (int i = 0; i < nd; ++i) s.push_back(ys[i]);
  return FromChannelsFirst(s, channels_last);
}

Shape ConvGeom::WShape() const {
  Shape s{CY, CX / G};
  for (int i = 0; i < nd; ++i) s.push_back(k[i]);
  return FromChannelsFirst(s, channels_last);
}

std::string ConvGeom::Key() const {
  std::string key = StrCat(nd, channels_last ? "L" : "F", N, ",", CX, ",", CY, ",", G);
  for (int i = 0; i < nd; ++i)
    StrAppend(&key, "|", xs[i], ",", ys[i], ",", k[i], ",", s[i], ",", d[i], ",", p[i]);
  return key;
}

int64_t ConvOutDim(std::string_view op, const ConvolutionParam& p, int i, int64_t in,
                   const Shape& data) {
  int64_t k = p.kernel[i], s = At(p.stride, i, 1), d = At(p.dilate, i, 1), pd = At(p.pad, i, 0);
  int64_t dk = (k - 1) * d + 1;
  if (dk > in + 2 * pd)
    MX_THROW(kInvalid, op, ": kernel=", p.kernel.ToString(), " (dilated size ", dk,
             " along spatial dim ", i, ") exceeds the padded input size ", in + 2 * pd,
             " (data shape ", data.ToString(), ", pad=", p.pad.ToString(), ")");
  return (in + 2 * pd - dk) / s + 1;
}

DeconvDim DeconvOutDim(std::string_view op, const DeconvolutionParam& p, int i, int64_t in,
                       const Shape& data) {
  bool use_target = false;
  for (int64_t v : p.target_shape) use_target |= v != 0;
  int64_t k = p.kernel[i], s = At(p.stride, i, 1), d = At(p.dilate, i, 1);
  int64_t dk = (k - 1) * d + 1;
  DeconvDim r;
  if (use_target) {
    int64_t full = s * (in - 1) + dk;
    int64_t target = At(p.target_shape, i, 0);
    if (full < target)
      MX_THROW(kInvalid, op, ": target_shape=", p.target_shape.ToString(), " is too big: at most ",
               full, " along spatial dim ", i, " for data shape ", data.ToString());
    int64_t total = full - target;
    r.adj = total % 2;
    r.pad = (total + 1) / 2;
  } else {
    r.pad = At(p.pad, i, 0);
    r.adj = At(p.adj, i, 0);
  }
  if (r.adj >= s)
    MX_THROW(kInvalid, op, ": adj ", r.adj, " along spatial dim ", i,
             " must be smaller than stride ", s,
             use_target ? StrCat(" (from target_shape=", p.target_shape.ToString(), ")") : "");
  r.out = s * (in - 1) + dk - 2 * r.pad + r.adj;
  if (r.out < 1)
    MX_THROW(kInvalid, op, ": output size ", r.out, " along spatial dim ", i,
             " is not positive (data shape ", data.ToString(), ", pad=", p.pad.ToString(), ")");
  return r;
}

namespace {
void CheckDataRank(std::string_view op, const Shape& data, int nd, bool cl, const Shape& kernel) {
  if (data.ndim() != nd + 2)
    MX_THROW(kInvalid, op, ": data must be ", nd + 2, "-D (", LayoutName(cl, nd),
             ") for kernel=", kernel.ToString(), ", got shape ", data.ToString());
}
}  // namespace

ConvGeom ConvGeomFromConv(std::string_view op, const ConvolutionParam& p, const Shape& data) {
  ConvGeom g;
  g.nd = p.kernel.ndim();
  g.channels_last = IsChannelsLast(op, p.layout, g.nd);
  CheckDataRank(op, data, g.nd, g.channels_last, p.kernel);
  Shape cf = ToChannelsFirst(data, g.channels_last);
  g.N = cf[0];
  g.CX = cf[1];
  g.CY = p.num_filter;
  g.G = p.num_group;
  if (g.CX % g.G != 0)
    MX_THROW(kInvalid, op, ": data channels ", g.CX, " (data shape ", data.ToString(),
             ") must be divisible by num_group=", g.G);
  for (int i = 0; i < g.nd; ++i) {
    g.k[i] = p.kernel[i];
    g.s[i] = At(p.stride, i, 1);
    g.d[i] = At(p.dilate, i, 1);
    g.p[i] = At(p.pad, i, 0);
    g.xs[i] = cf[2 + i];
    g.ys[i] = ConvOutDim(op, p, i, g.xs[i], data);
  }
  return g;
}

ConvGeom ConvGeomFromDeconv(std::string_view op, const DeconvolutionParam& p, const Shape& data) {
  ConvGeom g;
  g.nd = p.kernel.ndim();
  g.channels_last = IsChannelsLast(op, p.layout, g.nd);
  CheckDataRank(op, data, g.nd, g.channels_last, p.kernel);
  Shape cf = ToChannelsFirst(data, g.channels_last);
  g.N = cf[0];
  g.CY = cf[1];
  g.CX = p.num_filter;
  g.G = p.num_group;
  if (g.CY % g.G != 0)
    MX_THROW(kInvalid, op, ": data channels ", g.CY, " (data shape ", data.ToString(),
             ") must be divisible by num_group=", g.G);
  for (int i = 0; i < g.nd; ++i) {
    g.k[i] = p.kernel[i];
    g.s[i] = At(p.stride, i, 1);
    g.d[i] = At(p.dilate, i, 1);
    g.ys[i] = cf[2 + i];
    DeconvDim dd = DeconvOutDim(op, p, i, g.ys[i], data);
    g.p[i] = dd.pad;
    g.xs[i] = dd.out;
  }
  return g;
}

// ---- Pooling geometry. ----

Shape PoolGeom::InShape() const {
  Shape s{N, C};
  for (int i = 0; i < nd; ++i) s.push_back(in[i]);
  return FromChannelsFirst(s, channels_last);
}

Shape PoolGeom::OutShape() const {
  Shape s{N, C};
  for (int i = 0; i < nd; ++i) s.push_back(out[i]);
  return FromChannelsFirst(s, channels_last);
}

std::string PoolGeom::Key() const {
  std::string key = StrCat(nd, channels_last ? "L" : "F", N, ",", C);
  for (int i = 0; i < nd; ++i)
    StrAppend(&key, "|", in[i], ",", out[i], ",", k[i], ",", s[i], ",", p[i]);
  return key;
}

PoolKind GetPoolKind(const PoolingParam& p) {
  if (p.pool_type == "avg") return PoolKind::kAvg;
  if (p.pool_type == "sum") return PoolKind::kSum;
  if (p.pool_type == "lp") return PoolKind::kLp;
  return PoolKind::kMax;
}

namespace {
// Spatial rank and layout of Pooling on data of rank `ndim`.
std::pair<int, bool> PoolLayout(std::string_view op, const PoolingParam& p, const Shape& data) {
  if (!data.ndim_known() || data.ndim() < 3 || data.ndim() > 5)
    MX_THROW(kInvalid, op,
             ": data must be 3-D (N, C, W), 4-D (N, C, H, W) or 5-D (N, C, D, H, W), "
             "got shape ",
             data.ToString());
  int nd = data.ndim() - 2;
  if (!p.global_pool && p.kernel.ndim() != nd)
    MX_THROW(kInvalid, op, ": data must be ", p.kernel.ndim() + 2,
             "-D for kernel=", p.kernel.ToString(), ", got shape ", data.ToString());
  return {nd, IsChannelsLast(op, p.layout, nd)};
}

int64_t PoolOutSize(std::string_view conv, int64_t in, int64_t k, int64_t s, int64_t p) {
  if (conv == "valid") return 1 + (in + 2 * p - k) / s;
  if (conv == "full") return 1 + (in + 2 * p - k + s - 1) / s;
  return (in + 2 * p + s - 1) / s;  // same
}
}  // namespace

Shape PoolingOutputShape(std::string_view op, const PoolingParam& p, const Shape& data) {
  auto [nd, cl] = PoolLayout(op, p, data);
  Shape cf = ToChannelsFirst(data, cl);
  for (int i = 0; i < nd; ++i) {
    int64_t in = cf[2 + i];
    if (p.global_pool) {
      cf[2 + i] = 1;
      continue;
    }
    if (in < 0) continue;
    int64_t k = p.kernel[i], s = At(p.stride, i, 1), pd = At(p.pad, i, 0);
    if (k > in + 2 * pd)
      MX_THROW(kInvalid, op, ": kernel=", p.kernel.ToString(), " (size ", k, " along spatial dim ",
               i, ") exceeds the input size ", in, " padded to ", in + 2 * pd, " (data shape ",
               data.ToString(), ", pad=", p.pad.ToString(), ")");
    cf[2 + i] = PoolOutSize(p.pooling_convention, in, k, s, pd);
  }
  return FromChannelsFirst(cf, cl);
}

PoolGeom PoolGeomFrom(std::string_view op, const PoolingParam& p, const Shape& data) {
  Shape out = PoolingOutputShape(op, p, data);
  PoolGeom g;
  auto [nd, cl] = PoolLayout(op, p, data);
  g.nd = nd;
  g.channels_last = cl;
  Shape cfi = ToChannelsFirst(data, cl), cfo = ToChannelsFirst(out, cl);
  g.N = cfi[0];
  g.C = cfi[1];
  for (int i = 0; i < nd; ++i) {
    g.in[i] = cfi[2 + i];
    g.out[i] = cfo[2 + i];
    if (p.global_pool) {
      g.k[i] = g.in[i];
    } else {
      g.k[i] = p.kernel[i];
      g.s[i] = At(p.stride, i, 1);
      g.p[i] = At(p.pad, i, 0);
    }
  }
  return g;
}

DeconvolutionParam BilinearDeconvParam(const UpSamplingParam& p) {
  DeconvolutionParam d;
  int64_t k = 2 * p.scale - p.scale % 2;
  int64_t pad = (p.scale - 1 + 1) / 2;  // ceil((scale - 1) / 2)
  d.kernel = Shape{k, k};
  d.stride = Shape{p.scale, p.scale};
  d.pad = Shape{pad, pad};
  d.num_filter = p.num_filter;
  d.num_group = p.num_filter;
  d.no_bias = true;
  d.workspace = p.workspace;
  return d;
}

}  // namespace mxnet::ops
