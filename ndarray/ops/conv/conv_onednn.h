// The oneDNN backend's layout helpers and cache keys on the conv family's geometries (ConvGeom,
// PoolGeom), shared by the family's oneDNN kernel sources (conv_onednn.cc, conv_fused.cc). This
// header brings in dnnl.hpp: include it only from those sources.
#pragma once

#include <array>
#include <span>

#include "ndarray/backends/onednn/onednn.h"
#include "ndarray/ops/conv/conv_params.h"

namespace mxnet::ops::onednn {

// The first nd (spatial) entries of a ConvGeom/PoolGeom array.
inline std::span<const int64_t> Spatial(const std::array<int64_t, 3>& a, int nd) {
  return {a.data(), static_cast<size_t>(nd)};
}

// Plain (N, C, sz[:nd]...) activation in the op's layout (channels-last or first).
inline backends::onednn::memory::desc ActDesc(int64_t N, int64_t C,
                                              const std::array<int64_t, 3>& sz, int nd,
                                              bool channels_last) {
  return backends::onednn::ActDesc(N, C, Spatial(sz, nd), channels_last);
}
// The same dims, layout chosen by the primitive.
inline backends::onednn::memory::desc AnyDesc(int64_t N, int64_t C,
                                              const std::array<int64_t, 3>& sz, int nd) {
  return backends::onednn::AnyDesc(N, C, Spatial(sz, nd));
}
// Weight dims (CY, CX/G, k...), grouped (G, CY/G, CX/G, k...) when G > 1.
inline backends::onednn::dims WeightDims(const ConvGeom& g) {
  return backends::onednn::WeightDims(g.G, g.CY, g.CX, Spatial(g.k, g.nd));
}
// The weight (CY, CX/G, k...) (channels-last: (CY, k..., CX/G)) as plain strides on WeightDims.
inline backends::onednn::memory::desc WeightDesc(const ConvGeom& g) {
  return backends::onednn::WeightDesc(g.G, g.CY, g.CX, Spatial(g.k, g.nd), g.channels_last);
}
// oneDNN's strides, dilations and padding of g.
struct ConvDims : backends::onednn::ConvDims {
  explicit ConvDims(const ConvGeom& g)
      : backends::onednn::ConvDims(Spatial(g.s, g.nd), Spatial(g.d, g.nd), Spatial(g.p, g.nd)) {}
};

// `key` followed by the geometry g (ConvGeom or PoolGeom).
template <typename Geom>
backends::CacheKey WithGeom(backends::CacheKey key, const Geom& g) {
  g.AppendTo(key);
  return key;
}

}  // namespace mxnet::ops::onednn
