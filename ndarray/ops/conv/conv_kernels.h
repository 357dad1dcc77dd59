// Kernels of the conv op family on raw NDArrays with resolved geometry:
//  - reference kernels (conv_ref.cc): direct loops, any floating dtype (float16/bfloat16
//    computed in float, float32 in float, float64 in double);
//  - oneDNN 2.6 kernels (conv_onednn.cc) for float32, on the oneDNN backend's thread-safe
//    primitive cache (ndarray/backends/onednn) keyed by geometry, dtype and attributes. They
//    return false when oneDNN cannot handle a configuration (the caller then runs the reference
//    kernel).
#pragma once

#include <string>
#include <string_view>

#include "ndarray/ndarray.h"
#include "ndarray/ops/conv/conv_params.h"

namespace mxnet::ops {

// ---- Reference kernels. `op` names the op in dtype errors. ----

// y = conv(x, w) (+ bias per y channel, if bias is non-null).
void ConvForwardRef(std::string_view op, const ConvGeom& g, const NDArray& x, const NDArray& w,
                    const NDArray* bias, const NDArray& y);
// dx = conv_transpose(dy, w) (+ bias per x channel, if non-null: Deconvolution's bias).
void ConvBackwardDataRef(std::string_view op, const ConvGeom& g, const NDArray& dy,
                         const NDArray& w, const NDArray* bias, const NDArray& dx);
// dw[f, c, k] = sum over n and output positions of dy[n, f, o] * x[n, c', o*s + k*d - p].
void ConvBackwardWeightRef(std::string_view op, const ConvGeom& g, const NDArray& dy,
                           const NDArray& x, const NDArray& dw);

// Fully connected on 2-D views: x (M, K), w (H, K), y (M, H).
void FcForwardRef(std::string_view op, int64_t M, int64_t K, int64_t H, const NDArray& x,
                  const NDArray& w, const NDArray* bias, const NDArray& y);
// dx (M, K) = dy (M, H) . w (H, K)
void FcBackwardDataRef(std::string_view op, int64_t M, int64_t K, int64_t H, const NDArray& dy,
                       const NDArray& w, const NDArray& dx);
// dw (H, K) = dy^T (H, M) . x (M, K)
void FcBackwardWeightRef(std::string_view op, int64_t M, int64_t K, int64_t H, const NDArray& dy,
                         const NDArray& x, const NDArray& dw);

// Pooling forward with MXNet's window rules (src/operator/nn/pool.h): max ignores padding;
// avg divides by the window clipped to the padded input (count_include_pad) or to the input;
// sum adds the window; lp is (sum x^p)^(1/p) for p in {1, 2, 3}.
void PoolForwardRef(std::string_view op, const PoolGeom& g, PoolKind kind, bool count_include_pad,
                    int p_value, const NDArray& x, const NDArray& y);
// Gradient of PoolForwardRef: max routes dy to the first position in the window equal to y
// (MXNet's rule); avg/sum spread dy; lp uses dy * (x / y)^(p-1) (0 where y == 0).
void PoolBackwardRef(std::string_view op, const PoolGeom& g, PoolKind kind, bool count_include_pad,
                     int p_value, const NDArray& dy, const NDArray& x, const NDArray& y,
                     const NDArray& dx);
// out[o] = g[argmax_o] with the max routing of PoolBackwardRef (adjoint of the max backward).
void PoolMaxGatherRef(std::string_view op, const PoolGeom& g, const NDArray& grad, const NDArray& x,
                      const NDArray& y, const NDArray& out);

// ---- oneDNN kernels (float32). ----
namespace onednn {
bool ConvForward(const ConvGeom& g, const NDArray& x, const NDArray& w, const NDArray* bias,
                 const NDArray& y);
bool ConvBackwardData(const ConvGeom& g, const NDArray& dy, const NDArray& w, const NDArray* bias,
                      const NDArray& dx);
bool ConvBackwardWeight(const ConvGeom& g, const NDArray& dy, const NDArray& x, const NDArray& dw);
bool FcForward(int64_t M, int64_t K, int64_t H, const NDArray& x, const NDArray& w,
               const NDArray* bias, const NDArray& y);
bool FcBackwardData(int64_t M, int64_t K, int64_t H, const NDArray& dy, const NDArray& w,
                    const NDArray& dx);
bool FcBackwardWeight(int64_t M, int64_t K, int64_t H, const NDArray& dy, const NDArray& x,
                      const NDArray& dw);
// Max/avg/sum pooling when oneDNN computes exactly MXNet's windows (see PoolSupported).
bool PoolSupported(const PoolGeom& g, PoolKind kind, bool count_include_pad);
bool PoolForward(const PoolGeom& g, PoolKind kind, bool count_include_pad, const NDArray& x,
                 const NDArray& y);
bool PoolBackward(const PoolGeom& g, PoolKind kind, bool count_include_pad, const NDArray& dy,
                  const NDArray& x, const NDArray& dx);
}  // namespace onednn

}  // namespace mxnet::ops
