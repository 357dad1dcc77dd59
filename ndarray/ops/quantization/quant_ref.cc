// Reference kernel of _contrib_quantized_conv (conv_quant_kernels.h): direct int32 loops.
#include "ndarray/ops/quantization/quant_kernels.h"

namespace mxnet::ops {
namespace {

template <typename X>
void ConvLoops(const ConvGeom& g, const X* x, const int8_t* w, const int8_t* bias, int32_t* y) {
  const int64_t C = g.CX, F = g.CY;
  const int64_t XS = g.xs[0] * g.xs[1] * g.xs[2], YS = g.ys[0] * g.ys[1] * g.ys[2];
  const int64_t KS = g.k[0] * g.k[1] * g.k[2];
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t f = 0; f < F; ++f)
      for (int64_t o0 = 0; o0 < g.ys[0]; ++o0)
        for (int64_t o1 = 0; o1 < g.ys[1]; ++o1)
          for (int64_t o2 = 0; o2 < g.ys[2]; ++o2) {
            int32_t acc = bias ? bias[f] : 0;
            for (int64_t c = 0; c < C; ++c) {
              const X* xc = x + (n * C + c) * XS;
              const int8_t* wc = w + (f * C + c) * KS;
              ForEachTapInside(g, o0, o1, o2, [&](int64_t k, int64_t i) {
                acc += static_cast<int32_t>(xc[i]) * static_cast<int32_t>(wc[k]);
              });
            }
            y[(n * F + f) * YS + (o0 * g.ys[1] + o1) * g.ys[2] + o2] = acc;
          }
}

}  // namespace

void QuantizedConvRef(const ConvGeom& g, const NDArray& x, const NDArray& w, const NDArray* bias,
                      const NDArray& y) {
  const int8_t* b = bias ? bias->data<int8_t>() : nullptr;
  if (x.dtype() == DType::kUint8)
    ConvLoops(g, x.data<uint8_t>(), w.data<int8_t>(), b, y.data<int32_t>());
  else
    ConvLoops(g, x.data<int8_t>(), w.data<int8_t>(), b, y.data<int32_t>());
}

}  // namespace mxnet::ops
