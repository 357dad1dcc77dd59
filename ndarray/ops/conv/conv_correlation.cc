// Correlation (MXNet 1.9.1 src/operator/correlation.cc; FlowNet, Dosovitskiy et al., ICCV 2015):
// patch comparisons between two feature maps data1, data2 (N, C, H, W), zero-padded by
// pad_size. With r = max_displacement / stride2, D = 2r + 1, border = max_displacement +
// (kernel_size - 1) / 2, output (N, D*D, OH, OW), OH = ceil((H + 2*pad - 2*border) / stride1):
//   out[n, q, i, j] = sum over c, 0 <= dy, dx < kernel_size of
//       f(p1[n, c, y1 + dy, x1 + dx], p2[n, c, y1 + oy + dy, x1 + ox + dx]) / (K*K*C)
// with p1, p2 the padded maps, (y1, x1) = (i, j) * stride1 + max_displacement (MXNet's patch
// starts there, it is not centered), (oy, ox) = (q / D - r, q % D - r) * stride2, and
// f(a, b) = a*b (is_multiply) or |a - b|.
// Gradient helper: _backward_Correlation(ograd, data1, data2) -> (d data1, d data2); the
// |a - b| derivative takes sign +1 where a >= b (MXNet's).
#include <algorithm>
#include <cmath>

#include "ndarray/grad.h"
#include "ndarray/kernel_util.h"
#include "ndarray/ops/conv/conv_shape.h"
#include "ndarray/ops/conv/conv_spatial_params.h"

namespace mxnet::ops {

std::string CorrelationParam::Validate() const {
  if (kernel_size < 1 || kernel_size % 2 == 0)
    return StrCat("attribute kernel_size=", kernel_size, " must be a positive odd number");
  if (max_displacement < 0)
    return StrCat("attribute max_displacement=", max_displacement, " must be >= 0");
  if (stride1 < 1) return StrCat("attribute stride1=", stride1, " must be >= 1");
  if (stride2 < 1) return StrCat("attribute stride2=", stride2, " must be >= 1");
  if (pad_size < 0) return StrCat("attribute pad_size=", pad_size, " must be >= 0");
  return "";
}

namespace {

constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};
using GV = GradValue;
using GVs = std::vector<GradValue>;

struct CorrGeom {
  int64_t N = 0, C = 0, H = 0, W = 0, OH = 0, OW = 0, r = 0, D = 0;
};

// Output (OH, OW) for data (H, W); -1 where unknown. Throws when the neighborhood and kernel do
// not fit the padded map.
std::pair<int64_t, int64_t> CorrOut(const CorrelationParam& p, int64_t H, int64_t W,
                                    const Shape& shown) {
  const int64_t border = p.max_displacement + (p.kernel_size - 1) / 2;
  auto dim = [&](int64_t n) -> int64_t {
    if (n < 0) return -1;
    const int64_t span = n + 2 * p.pad_size - 2 * border;
    const int64_t o = span <= 0 ? 0 : (span + p.stride1 - 1) / p.stride1;
    if (o < 1)
      MX_THROW(kInvalid, "Correlation: kernel_size=", p.kernel_size,
               " and max_displacement=", p.max_displacement, " do not fit data shape ",
               shown.ToString(), " padded by ", p.pad_size, " (needs H, W + 2*pad_size > 2*",
               border, ")");
    return o;
  };
  return {dim(H), dim(W)};
}

CorrGeom Geom(const CorrelationParam& p, const Shape& d) {
  CorrGeom g{d[0], d[1], d[2], d[3]};
  std::tie(g.OH, g.OW) = CorrOut(p, g.H, g.W, d);
  g.r = p.max_displacement / p.stride2;
  g.D = 2 * g.r + 1;
  return g;
}

void CorrShape(const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
  const char* op = "Correlation";
  const auto& p = attrs.get<CorrelationParam>();
  for (int i : {0, 1}) {
    const Shape& s = (*in)[i];
    if (s.ndim_known() && s.ndim() != 4)
      MX_THROW(kInvalid, op, ": data", i + 1, " must be 4-D (N, C, H, W), got shape ",
               s.ToString());
  }
  MergeShape(&(*in)[0], (*in)[1], "Correlation: data1 and data2 must have the same shape");
  MergeShape(&(*in)[1], (*in)[0], "Correlation: data1 and data2 must have the same shape");
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return;
  auto [oh, ow] = CorrOut(p, d[2], d[3], d);
  const int64_t D = 2 * (p.max_displacement / p.stride2) + 1;
  AssignShape(op, "output", &(*out)[0], Shape{d[0], D * D, oh, ow});
}

// Calls f(n, q, i, j, c, index in data1 or -1 if padding, index in data2 or -1).
template <typename F>
void ForEachPair(const CorrelationParam& p, const CorrGeom& g, int64_t n, F f) {
  const int64_t K = p.kernel_size, pad = p.pad_size;
  for (int64_t i = 0; i < g.OH; ++i)
    for (int64_t j = 0; j < g.OW; ++j) {
      const int64_t y1 = i * p.stride1 + p.max_displacement,
                    x1 = j * p.stride1 + p.max_displacement;
      for (int64_t q = 0; q < g.D * g.D; ++q) {
        const int64_t y2 = y1 + (q / g.D - g.r) * p.stride2, x2 = x1 + (q % g.D - g.r) * p.stride2;
        for (int64_t dy = 0; dy < K; ++dy)
          for (int64_t dx = 0; dx < K; ++dx) {
            auto idx = [&](int64_t y, int64_t x) -> int64_t {
              y -= pad;
              x -= pad;
              return y >= 0 && y < g.H && x >= 0 && x < g.W ? y * g.W + x : -1;
            };
            const int64_t a = idx(y1 + dy, x1 + dx), b = idx(y2 + dy, x2 + dx);
            for (int64_t c = 0; c < g.C; ++c) {
              const int64_t base = (n * g.C + c) * g.H * g.W;
              f(q, i, j, a < 0 ? -1 : base + a, b < 0 ? -1 : base + b);
            }
          }
      }
    }
}

void CorrRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
             std::span<const NDArray> out) {
  const auto& p = attrs.get<CorrelationParam>();
  const CorrGeom g = Geom(p, in[0].shape());
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "Correlation", {
    using A = AccType<T>;
    const T* x1 = static_cast<const T*>(in[0].data_ptr());
    const T* x2 = static_cast<const T*>(in[1].data_ptr());
    T* y = static_cast<T*>(out[0].data_ptr());
    const A norm = static_cast<A>(p.kernel_size * p.kernel_size * g.C);
    const int64_t block = g.D * g.D * g.OH * g.OW;
    ParallelFor(
        g.N,
        [&](int64_t n) {
          std::vector<A> acc(block, A(0));
          ForEachPair(p, g, n, [&](int64_t q, int64_t i, int64_t j, int64_t a, int64_t b) {
            const A va = a < 0 ? A(0) : static_cast<A>(x1[a]);
            const A vb = b < 0 ? A(0) : static_cast<A>(x2[b]);
            acc[(q * g.OH + i) * g.OW + j] += p.is_multiply ? va * vb : std::abs(va - vb);
          });
          for (int64_t k = 0; k < block; ++k) y[n * block + k] = static_cast<T>(acc[k] / norm);
        },
        1);
  });
}

void CorrBwdRef(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                std::span<const NDArray> out) {
  const auto& p = attrs.get<CorrelationParam>();
  const CorrGeom g = Geom(p, in[1].shape());
  MX_FLOAT_TYPE_SWITCH(in[0].dtype(), T, "_backward_Correlation", {
    using A = AccType<T>;
    const T* og = static_cast<const T*>(in[0].data_ptr());
    const T* x1 = static_cast<const T*>(in[1].data_ptr());
    const T* x2 = static_cast<const T*>(in[2].data_ptr());
    T* d1 = static_cast<T*>(out[0].data_ptr());
    T* d2 = static_cast<T*>(out[1].data_ptr());
    const A norm = static_cast<A>(p.kernel_size * p.kernel_size * g.C);
    const int64_t block = g.D * g.D * g.OH * g.OW, plane = g.C * g.H * g.W;
    ParallelFor(
        g.N,
        [&](int64_t n) {
          std::vector<A> a1(plane, A(0)), a2(plane, A(0));
          const int64_t off = n * plane;
          ForEachPair(p, g, n, [&](int64_t q, int64_t i, int64_t j, int64_t a, int64_t b) {
            const A gv = static_cast<A>(og[n * block + (q * g.OH + i) * g.OW + j]) / norm;
            const A va = a < 0 ? A(0) : static_cast<A>(x1[a]);
            const A vb = b < 0 ? A(0) : static_cast<A>(x2[b]);
            if (p.is_multiply) {
              if (a >= 0) a1[a - off] += gv * vb;
              if (b >= 0) a2[b - off] += gv * va;
            } else {
              const A s = va >= vb ? A(1) : A(-1);
              if (a >= 0) a1[a - off] += gv * s;
              if (b >= 0) a2[b - off] -= gv * s;
            }
          });
          for (int64_t k = 0; k < plane; ++k) {
            d1[off + k] = static_cast<T>(a1[k]);
            d2[off + k] = static_cast<T>(a2[k]);
          }
        },
        1);
  });
}

MX_REGISTER_OP(Correlation)
    .describe(
        "Correlation of two feature maps (MXNet's Correlation, FlowNet): data1, data2 (N, C, "
        "H, W) -> (N, (2r+1)^2, OH, OW), r = max_displacement / stride2, OH = ceil((H + "
        "2*pad_size - 2*(max_displacement + (kernel_size-1)/2)) / stride1); each output "
        "averages a*b (is_multiply) or |a - b| over a kernel_size^2 x C patch of data1 at "
        "(i, j)*stride1 + max_displacement and the displaced patch of data2.")
    .set_params<CorrelationParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"data1", "data2"})
    .set_infer_shape(CorrShape)
    .set_kernel(kRef, CorrRef)
    .set_gradient(
        [](GradBuilder& b, const OpAttrs& attrs, std::span<const GV> in, std::span<const GV>,
           std::span<const GV> og) {
          const Op& bwd = OpRegistry::Get("_backward_Correlation");
          GVs r = b.Apply(bwd, OpAttrs::From(bwd, attrs.get<CorrelationParam>()),
                          std::vector<GV>{og[0], in[0], in[1]});
          return GVs{r[0], r[1]};
        },
        true, false);

MX_REGISTER_OP(_backward_Correlation)
    .describe("Gradient of Correlation: (d data1, d data2) from (ograd, data1, data2).")
    .set_params<CorrelationParam>()
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_input_names(std::vector<std::string>{"ograd", "data1", "data2"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      ShapeVec fin{(*in)[1], (*in)[2]}, fout{(*in)[0]};
      CorrShape(attrs, &fin, &fout);
      AssignShape("_backward_Correlation", "ograd", &(*in)[0], fout[0]);
      for (int i : {0, 1}) {
        AssignShape("_backward_Correlation", "data", &(*in)[i + 1], fin[i]);
        AssignShape("_backward_Correlation", "output", &(*out)[i], fin[i]);
      }
    })
    .set_kernel(kRef, CorrBwdRef)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
