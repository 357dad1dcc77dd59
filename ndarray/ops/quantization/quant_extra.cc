// MXNet 1.9.1's int8 batch norm, int8 embedding and entropy calibration
// (src/operator/quantization/quantized_batch_norm.cc with its oneDNN kernel,
// quantized_indexing_op.cc, calibrate.cc). Inference only: declared non-differentiable.
#include <cmath>
#include <numeric>

#include "ndarray/ops/conv/conv_shape.h"
#include "ndarray/ops/quantization/quant_params.h"
#include "ndarray/ops/quantization/quant_util.h"

namespace mxnet::ops {
namespace {

using namespace quant;
constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
constexpr KernelKey kRef{DeviceType::kCPU, Backend::kReference};

// ---- _contrib_quantized_batch_norm ----
int BnAxis(const QuantizedBatchNormParam& p, int ndim) {
  const int axis = p.axis < 0 ? p.axis + ndim : p.axis;
  if (axis < 0 || axis >= ndim)
    MX_THROW(kInvalid, "_contrib_quantized_batch_norm: axis ", p.axis, " out of range for ", ndim,
             "-D data");
  return axis;
}

void QBnKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
               std::span<const NDArray> out) {
  const char* op = "_contrib_quantized_batch_norm";
  const auto& p = attrs.get<QuantizedBatchNormParam>();
  if (!p.min_calib_range || !p.max_calib_range)
    MX_THROW(kInvalid, op,
             ": min_calib_range and max_calib_range are required (MXNet's int8 "
             "batch norm has no calib_mode=None)");
  const Shape& s = in[0].shape();
  const int axis = BnAxis(p, s.ndim());
  int64_t outer = 1, C = s[axis], inner = 1;
  for (int d = 0; d < axis; ++d) outer *= s[d];
  for (int d = axis + 1; d < s.ndim(); ++d) inner *= s[d];
  const float max_abs_data = MaxAbs(Scalar(in[5]), Scalar(in[6]));
  const float lo = *p.min_calib_range, hi = *p.max_calib_range;
  const float max_abs_out = MaxAbs(lo, hi);
  SetScalar(out[1], lo);
  SetScalar(out[2], hi);
  const float* gamma = in[1].data<float>();
  const float* beta = in[2].data<float>();
  const float* mean = in[3].data<float>();
  const float* var = in[4].data<float>();
  // MXNet folds the statistics into oneDNN's scale/shift (mean 0, variance 1), and oneDNN
  // still divides by sqrt(1 + eps).
  const float div = std::sqrt(1.0f + static_cast<float>(p.eps));
  std::vector<float> scale(C), shift(C);
  for (int64_t c = 0; c < C; ++c) {
    const auto invstd = static_cast<float>(1.0 / std::sqrt(var[c] + p.eps));
    scale[c] = gamma[c] * invstd * max_abs_data / max_abs_out / div;
    shift[c] = (beta[c] - mean[c] * gamma[c] * invstd) * kInt8Range / max_abs_out;
  }
  const bool u8 = in[0].dtype() == DType::kUint8;
  int8_t* y = out[0].data<int8_t>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * C + c) * inner + i;
        // uint8 data is first reordered to int8 with scale 127.5 / 255.5.
        const float x =
            u8 ? static_cast<float>(Saturate<int8_t>(static_cast<float>(in[0].data<uint8_t>()[k]) *
                                                     (kInt8Range / kUint8Range)))
               : static_cast<float>(in[0].data<int8_t>()[k]);
        y[k] = Saturate<int8_t>(scale[c] * x + shift[c]);
      }
}

MX_REGISTER_OP(_contrib_quantized_batch_norm)
    .describe(
        "Inference BatchNorm of int8/uint8 data (MXNet 1.9.1 _contrib_quantized_batch_norm, "
        "oneDNN path): inputs data, gamma, beta, moving_mean, moving_var ((C,) float32, C = "
        "data.shape[axis]), min_data, max_data. Output int8 in the calibrated range "
        "(min_calib_range, max_calib_range; required): q = rne(x * gamma/sqrt(var + eps) * "
        "r_data / r_out / sqrt(1 + eps) + (beta - mean * gamma/sqrt(var + eps)) * 127.5 / r_out), "
        "uint8 data rescaled to int8 first. gamma is used as given (fix_gamma is ignored, as "
        "MXNet does).")
    .set_params<QuantizedBatchNormParam>()
    .set_num_inputs(7)
    .set_num_outputs(3)
    .set_input_names(std::vector<std::string>{"data", "gamma", "beta", "moving_mean", "moving_var",
                                              "min_data", "max_data"})
    .set_output_names(std::vector<std::string>{"output", "min_output", "max_output"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const char* op = "_contrib_quantized_batch_norm";
      RangeShapes(op, in, 5, 7, out);
      const Shape& d = (*in)[0];
      if (!d.ndim_known()) return;
      const int axis = BnAxis(attrs.get<QuantizedBatchNormParam>(), d.ndim());
      static const char* const kNames[] = {"gamma", "beta", "moving_mean", "moving_var"};
      for (int i = 1; i <= 4; ++i) AssignShape(op, kNames[i - 1], &(*in)[i], Shape{d[axis]});
      AssignShape(op, "output", &(*out)[0], d);
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      const char* op = "_contrib_quantized_batch_norm";
      CheckDType(op, "data", (*in)[0], {DType::kInt8, DType::kUint8});
      for (int i = 1; i < 7; ++i) AssignDType(op, StrCat("input ", i), &(*in)[i], DType::kFloat32);
      AssignDType(op, "output", &(*out)[0], DType::kInt8);
      AssignDType(op, "min output", &(*out)[1], DType::kFloat32);
      AssignDType(op, "max output", &(*out)[2], DType::kFloat32);
    })
    .set_kernel(kRef, QBnKernel)
    .set_non_differentiable();

// ---- _contrib_quantized_embedding ----
void QEmbeddingKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                      std::span<const NDArray> out) {
  const auto& p = attrs.get<QuantizedEmbeddingParam>();
  const std::vector<double> idx = in[0].ToVector<double>();
  const int8_t* w = in[1].data<int8_t>();
  int8_t* y = out[0].data<int8_t>();
  const int64_t D = p.output_dim;
  for (size_t i = 0; i < idx.size(); ++i) {
    // Indices are truncated and clipped to [0, input_dim) (MXNet's Embedding).
    const int64_t r = std::clamp<int64_t>(static_cast<int64_t>(idx[i]), 0, p.input_dim - 1);
    std::copy(w + r * D, w + (r + 1) * D, y + i * D);
  }
  SetScalar(out[1], Scalar(in[2]));
  SetScalar(out[2], Scalar(in[3]));
}

MX_REGISTER_OP(_contrib_quantized_embedding)
    .describe(
        "Embedding lookup of int8 vectors (MXNet 1.9.1 _contrib_quantized_embedding): data "
        "indices (any shape, any dtype; truncated, clipped to [0, input_dim)), weight "
        "(input_dim, output_dim) int8, min_weight, max_weight (1,) float32 -> (data.shape..., "
        "output_dim) int8 with the weight's range.")
    .set_params<QuantizedEmbeddingParam>()
    .set_num_inputs(4)
    .set_num_outputs(3)
    .set_input_names(std::vector<std::string>{"data", "weight", "min_weight", "max_weight"})
    .set_output_names(std::vector<std::string>{"output", "min_output", "max_output"})
    .set_infer_shape([](const OpAttrs& attrs, ShapeVec* in, ShapeVec* out) {
      const char* op = "_contrib_quantized_embedding";
      const auto& p = attrs.get<QuantizedEmbeddingParam>();
      RangeShapes(op, in, 2, 4, out);
      AssignShape(op, "weight", &(*in)[1], Shape{p.input_dim, p.output_dim});
      const Shape& d = (*in)[0];
      if (!d.ndim_known()) return;
      Shape o = d;
      o.push_back(p.output_dim);
      AssignShape(op, "output", &(*out)[0], o);
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      const char* op = "_contrib_quantized_embedding";
      AssignDType(op, "weight", &(*in)[1], DType::kInt8);
      AssignDType(op, "min_weight", &(*in)[2], DType::kFloat32);
      AssignDType(op, "max_weight", &(*in)[3], DType::kFloat32);
      AssignDType(op, "output", &(*out)[0], DType::kInt8);
      AssignDType(op, "min output", &(*out)[1], DType::kFloat32);
      AssignDType(op, "max output", &(*out)[2], DType::kFloat32);
    })
    .set_kernel(kRef, QEmbeddingKernel)
    .set_non_differentiable();

// ---- _contrib_calibrate_entropy ----
// MXNet's SmoothDistribution: eps to zero bins, taken evenly from the others; empty when all
// are zero or the others cannot give it.
std::vector<float> Smooth(const std::vector<float>& p, float eps = 0.0001f) {
  size_t zeros = 0;
  for (float v : p) zeros += v == 0.f;
  const size_t nonzeros = p.size() - zeros;
  if (!nonzeros) return {};
  const float eps1 = eps * static_cast<float>(zeros) / static_cast<float>(nonzeros);
  if (eps1 >= 1.0) return {};
  std::vector<float> r = p;
  for (size_t i = 0; i < p.size(); ++i)
    r[i] += eps * static_cast<float>(p[i] == 0.f) - eps1 * static_cast<float>(p[i] != 0.f);
  return r;
}

// KL(p || q) of the normalized distributions (float32 as MXNet).
float Entropy(std::vector<float> p, std::vector<float> q) {
  const float ps = std::accumulate(p.begin(), p.end(), 0.f);
  const float qs = std::accumulate(q.begin(), q.end(), 0.f);
  for (auto& v : p) v /= ps;
  for (auto& v : q) v /= qs;
  float r = 0;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != 0 && q[i] != 0) r += p[i] * std::log(p[i] / q[i]);
  return r;
}

void CalibrateKernel(const OpContext&, const OpAttrs& attrs, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
  const char* op = "_contrib_calibrate_entropy";
  const int nq = attrs.get<CalibrateEntropyParam>().num_quantized_bins;
  const float* hist = in[0].data<float>();
  const float* edges = in[1].data<float>();
  const int64_t nb = in[0].size();
  const int64_t zero = nb / 2, half_q = nq / 2;
  if (half_q > zero)
    MX_THROW(kInvalid, op, ": num_quantized_bins=", nq, " needs at least ", 2 * half_q,
             " histogram bins, got ", nb);
  std::vector<float> thresholds(zero + 1 - half_q), divergence(thresholds.size());
  for (int64_t i = half_q; i <= zero; ++i) {
    const int64_t start = zero - i, stop = zero + i + 1, len = stop - start;
    thresholds[i - half_q] = edges[stop];
    // The window [start, stop); p folds the outliers into its end bins. (MXNet keeps the
    // window's counts as integers: truncated.)
    std::vector<uint64_t> sliced(len, 0);
    std::vector<float> p(len, 0.f);
    for (int64_t j = 0; j < nb; ++j) {
      if (j <= start) {
        p[0] += hist[j];
      } else if (j >= stop) {
        p[len - 1] += hist[j];
      } else {
        sliced[j - start] = static_cast<uint64_t>(hist[j]);
        p[j - start] = hist[j];
      }
    }
    // Merge the window into nq bins (the last one takes the remainder), then expand back over
    // the window's nonzero bins.
    const int64_t merged = len / nq;
    std::vector<float> qbins(nq, 0.f);
    for (int64_t j = 0; j < nq; ++j) {
      int sum = 0;
      for (int64_t k = j * merged; k < (j + 1) * merged; ++k) sum += static_cast<int>(sliced[k]);
      qbins[j] = static_cast<float>(sum);
    }
    int rest = 0;
    for (int64_t k = nq * merged; k < len; ++k) rest += static_cast<int>(sliced[k]);
    qbins[nq - 1] += static_cast<float>(rest);
    std::vector<float> q(len, 0.f);
    for (int64_t j = 0; j < nq; ++j) {
      const int64_t b = j * merged, e = j == nq - 1 ? len : (j + 1) * merged;
      int norm = 0;
      for (int64_t k = b; k < e; ++k) norm += sliced[k] != 0;
      if (norm)
        for (int64_t k = b; k < e; ++k)
          if (p[k] != 0) q[k] = qbins[j] / static_cast<float>(norm);
    }
    p = Smooth(p);
    q = Smooth(q);
    divergence[i - half_q] =
        q.empty() ? std::numeric_limits<float>::infinity() : Entropy(std::move(p), std::move(q));
  }
  size_t best = 0;
  float best_div = std::numeric_limits<float>::max();
  for (size_t i = 0; i < divergence.size(); ++i)
    if (divergence[i] < best_div) {
      best_div = divergence[i];
      best = i;
    }
  SetScalar(out[0], thresholds[best]);
  SetScalar(out[1], best_div);
}

MX_REGISTER_OP(_contrib_calibrate_entropy)
    .describe(
        "Entropy calibration threshold (MXNet 1.9.1 _contrib_calibrate_entropy): hist (B,) "
        "float32 counts of a histogram symmetric around 0, hist_edges (B + 1,) float32. For each "
        "window of 2i + 1 central bins (i from num_quantized_bins / 2 to B / 2), the KL "
        "divergence between the window (outliers folded into its end bins) and its merge into "
        "num_quantized_bins (default 255) bins, both smoothed by 1e-4; outputs the window's "
        "upper edge with the least divergence and that divergence, each (1,) float32.")
    .set_params<CalibrateEntropyParam>()
    .set_num_inputs(2)
    .set_num_outputs(2)
    .set_input_names(std::vector<std::string>{"hist", "hist_edges"})
    .set_output_names(std::vector<std::string>{"threshold", "divergence"})
    .set_infer_shape([](const OpAttrs&, ShapeVec* in, ShapeVec* out) {
      const char* op = "_contrib_calibrate_entropy";
      AssignShape(op, "threshold", &(*out)[0], Shape{1});
      AssignShape(op, "divergence", &(*out)[1], Shape{1});
      const Shape& h = (*in)[0];
      if (h.ndim_known() && h.ndim() != 1)
        MX_THROW(kInvalid, op, ": hist must be 1-D, got shape ", h.ToString());
      if (h.is_known())
        AssignShape(op, "hist_edges", &(*in)[1], Shape{h[0] + 1}, "(hist size + 1)");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec* in, DTypeVec* out) {
      const char* op = "_contrib_calibrate_entropy";
      AssignDType(op, "hist", &(*in)[0], DType::kFloat32);
      AssignDType(op, "hist_edges", &(*in)[1], DType::kFloat32);
      AssignDType(op, "threshold", &(*out)[0], DType::kFloat32);
      AssignDType(op, "divergence", &(*out)[1], DType::kFloat32);
    })
    .set_kernel(kRef, CalibrateKernel)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
