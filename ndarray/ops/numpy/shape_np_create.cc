// MXNet 1.9.1's NumPy-interface creation ops (mx.np.*), non-differentiable except full_like:
//   _npi_zeros / _npi_ones: `shape` (default (): 0-dim) of zeros / ones, dtype float32 default.
//   _npi_full_like(a): a's shape, filled with fill_value cast to dtype (None: a's dtype);
//     gradient zeros.
//   _npi_identity: `shape` with ones at flat indices i where i % (shape[0] + 1) == 0, as MXNet
//     computes it (for the (n, n) that np.identity(n) passes: the main diagonal).
//   _npi_eye: N x M (None: N) with ones on diagonal k; N, M >= 0.
//   _npi_arange: _arange (start, stop, step; stop None: [0, start)) with repeat = 1 only.
//   _npi_indices: shape (ndim, *dimensions); out[k, i_0..] = i_k (dtype int32 default).
//   _npi_logspace: base ** (start + i * step), step (stop - start) / (num - endpoint), computed
//     in double and cast; num >= 0.
//   _npi_blackman / _npi_hamming / _npi_hanning: window of M points (M <= 0: empty, M == 1:
//     [1]) computed in the output dtype like MXNet (float32 math for float32/float16, integer
//     dtypes give zeros), the angle 2*pi*i/(M-1) with pi rounded to float as MXNet does.
// Sources: src/operator/numpy/np_init_op.{h,cc}, np_window_op.{h,cc} (MXNet 1.9.1); NumPy docs.
#include <cmath>
#include <numbers>

#include "ndarray/grad.h"
#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/numpy/shape_np_create_api.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;

void CheckDims(const OpAttrs& a, const Shape& s) {
  for (int i = 0; s.ndim_known() && i < s.ndim(); ++i)
    if (s[i] < 0) Fail(a, "negative dimensions are not allowed, got shape ", s.ToString());
}

void InitShape(const OpAttrs& a, ShapeVec*, ShapeVec* out) {
  const Shape& s = a.get<NpInitParam>().shape;
  CheckDims(a, s);
  MergeShape(&(*out)[0], s, StrCat(OpName(a), ": output"));
}

template <typename P>
void AttrType(const OpAttrs& a, DTypeVec*, DTypeVec* out) {
  MergeType(&(*out)[0], DTypeFlag(a.get<P>().dtype), StrCat(OpName(a), ": output"));
}

template <int V>
void FillKernel(const OpContext&, const OpAttrs&, std::span<const NDArray>,
                std::span<const NDArray> out) {
  FillValue(out[0].data_ptr(), out[0].dtype(), out[0].size(), V);
}

// Writes the doubles `v` into `out` (converted to its dtype).
void WriteDoubles(const NDArray& out, const std::vector<double>& v) {
  if (!v.empty()) ConvertElements(v.data(), DType::kFloat64, out.data_ptr(), out.dtype(), v.size());
}

MX_REGISTER_OP(_npi_zeros)
    .describe("Zeros of `shape` (default (): 0-dim) and `dtype` (float32) (mx.np.zeros).")
    .set_params<NpInitParam>()
    .set_num_inputs(0)
    .set_infer_shape(InitShape)
    .set_infer_type(AttrType<NpInitParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, FillKernel<0>)
    .set_non_differentiable();

MX_REGISTER_OP(_npi_ones)
    .describe("Ones of `shape` (default (): 0-dim) and `dtype` (float32) (mx.np.ones).")
    .set_params<NpInitParam>()
    .set_num_inputs(0)
    .set_infer_shape(InitShape)
    .set_infer_type(AttrType<NpInitParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, FillKernel<1>)
    .set_non_differentiable();

MX_REGISTER_OP(_npi_full_like)
    .describe("a's shape filled with fill_value in dtype (None: a's dtype) (mx.np.full_like).")
    .set_params<NpFullLikeParam>()
    .set_num_inputs(1)
    .set_input_names(std::vector<std::string>{"a"})
    .set_infer_type([](const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
      const auto& dt = a.get<NpFullLikeParam>().dtype;
      if (dt)
        MergeType(&(*out)[0], DTypeFlag(*dt), "_npi_full_like: output");
      else if ((*in)[0] != -1)
        MergeType(&(*out)[0], (*in)[0], "_npi_full_like: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  FillValue(out[0].data_ptr(), out[0].dtype(), out[0].size(),
                            a.get<NpFullLikeParam>().fill_value);
                })
    .set_gradient(
        [](GradBuilder& b, const OpAttrs&, std::span<const GradValue> in,
           std::span<const GradValue>,
           std::span<const GradValue>) { return std::vector<GradValue>{b.ZerosLike(in[0])}; },
        true, false);

MX_REGISTER_OP(_npi_identity)
    .describe("`shape` with ones at flat i % (shape[0] + 1) == 0 ((n, n): the identity).")
    .set_params<NpInitParam>()
    .set_num_inputs(0)
    .set_infer_shape(InitShape)
    .set_infer_type(AttrType<NpInitParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs&, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  const Shape& s = out[0].shape();
                  int64_t n = out[0].size(), step = (s.ndim() > 0 ? s[0] : 0) + 1;
                  std::vector<double> v(n, 0.0);
                  for (int64_t i = 0; i < n; i += step) v[i] = 1.0;
                  WriteDoubles(out[0], v);
                })
    .set_non_differentiable();

MX_REGISTER_OP(_npi_eye)
    .describe("N x M (M None: N) with ones on diagonal k (mx.np.eye).")
    .set_params<NpEyeParam>()
    .set_num_inputs(0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec*, ShapeVec* out) {
      const auto& p = a.get<NpEyeParam>();
      int64_t m = p.M ? *p.M : p.N;
      if (p.N < 0 || m < 0) Fail(a, "negative dimensions are not allowed, got N=", p.N, " M=", m);
      MergeShape(&(*out)[0], Shape{p.N, m}, "_npi_eye: output");
    })
    .set_infer_type(AttrType<NpEyeParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  int64_t k = a.get<NpEyeParam>().k;
                  int64_t rows = out[0].shape()[0], cols = out[0].shape()[1];
                  std::vector<double> v(rows * cols, 0.0);
                  for (int64_t r = 0; r < rows; ++r)
                    if (r + k >= 0 && r + k < cols) v[r * cols + r + k] = 1.0;
                  WriteDoubles(out[0], v);
                })
    .set_non_differentiable();

MX_REGISTER_OP(_npi_arange)
    .describe(
        "start, start+step, ... below stop (stop None: [0, start)); repeat must be 1 "
        "(mx.np.arange).")
    .set_params<ArangeParam>()
    .set_num_inputs(0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      const auto& p = a.get<ArangeParam>();
      if (p.repeat != 1) Fail(a, "only repeat=1 is supported, received ", p.repeat);
      if (p.step > 0 ? !(p.stop ? p.start < *p.stop : 0 < p.start)
                     : !(p.stop ? p.start > *p.stop : 0 > p.start)) {
        MergeShape(&(*out)[0], Shape{0}, "_npi_arange: output");  // empty like NumPy
        return;
      }
      OpRegistry::Get("_arange").infer_shape(a, in, out);
    })
    .set_infer_type(AttrType<ArangeParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  if (out[0].size() == 0) return;
                  (*OpRegistry::Get("_arange").FindKernel({DeviceType::kCPU, Backend::kReference}))(
                      ctx, a, in, out);
                })
    .set_non_differentiable();

MX_REGISTER_OP(_npi_indices)
    .describe("The index grid of `dimensions`: shape (ndim, *dimensions) (mx.np.indices).")
    .set_params<NpIndicesParam>()
    .set_num_inputs(0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec*, ShapeVec* out) {
      const Shape& d = a.get<NpIndicesParam>().dimensions;
      CheckDims(a, d);
      std::vector<int64_t> dims{d.ndim()};
      for (int i = 0; i < d.ndim(); ++i) dims.push_back(d[i]);
      MergeShape(&(*out)[0], Shape(dims), "_npi_indices: output");
    })
    .set_infer_type(AttrType<NpIndicesParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  const Shape& d = a.get<NpIndicesParam>().dimensions;
                  int64_t per = d.Size(), nd = d.ndim();
                  std::vector<double> v(out[0].size());
                  for (int64_t k = 0; k < nd; ++k) {
                    int64_t inner = 1;
                    for (int64_t j = k + 1; j < nd; ++j) inner *= d[j];
                    for (int64_t i = 0; i < per; ++i)
                      v[k * per + i] = static_cast<double>((i / inner) % d[k]);
                  }
                  WriteDoubles(out[0], v);
                })
    .set_non_differentiable();

MX_REGISTER_OP(_npi_logspace)
    .describe("base ** linspace(start, stop, num, endpoint), in double then cast (mx.np.logspace).")
    .set_params<NpLogspaceParam>()
    .set_num_inputs(0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec*, ShapeVec* out) {
      int num = a.get<NpLogspaceParam>().num;
      if (num < 0) Fail(a, "num must be non-negative, received ", num);
      MergeShape(&(*out)[0], Shape{num}, "_npi_logspace: output");
    })
    .set_infer_type(AttrType<NpLogspaceParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<NpLogspaceParam>();
                  int64_t steps = p.endpoint ? p.num - 1 : p.num;
                  double step = steps > 0 ? (p.stop - p.start) / static_cast<double>(steps) : 0.0;
                  std::vector<double> v(p.num);
                  for (int64_t i = 0; i < p.num; ++i)
                    v[i] = std::pow(p.base, p.start + step * static_cast<double>(i));
                  WriteDoubles(out[0], v);
                })
    .set_non_differentiable();

// ---- windows ----
enum class Window { kBlackman, kHamming, kHanning };

// Value i of an M-point window computed in T (float or double) like MXNet.
template <typename T>
T WindowValue(Window w, int64_t i, int64_t M) {
  if (M == 1) return T(1);
  const double pi = static_cast<double>(static_cast<float>(std::numbers::pi));
  // MXNet rounds the angle to float32 (then takes cos in T).
  T x = static_cast<T>(
      static_cast<float>(2 * pi * static_cast<double>(i) / static_cast<double>(M - 1)));
  switch (w) {
    case Window::kBlackman: {
      T x2 = static_cast<T>(
          static_cast<float>(4 * pi * static_cast<double>(i) / static_cast<double>(M - 1)));
      return T(0.42) - T(0.5) * std::cos(x) + T(0.08) * std::cos(x2);
    }
    case Window::kHamming:
      return T(0.54) - T(0.46) * std::cos(x);
    case Window::kHanning:
      return T(0.5) - T(0.5) * std::cos(x);
  }
  return T(0);
}

void WindowShape(const OpAttrs& a, ShapeVec*, ShapeVec* out) {
  const auto& m = a.get<NpWindowParam>().M;
  if (!m) Fail(a, "missing the required attribute M");
  MergeShape(&(*out)[0], Shape{std::max<int64_t>(0, *m)}, StrCat(OpName(a), ": output"));
}

template <Window W>
void WindowKernel(const OpContext&, const OpAttrs&, std::span<const NDArray>,
                  std::span<const NDArray> out) {
  int64_t M = out[0].size();
  DType t = out[0].dtype();
  std::vector<double> v(M);
  for (int64_t i = 0; i < M; ++i) {
    if (t == DType::kFloat64)
      v[i] = WindowValue<double>(W, i, M);
    else if (t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16)
      v[i] = WindowValue<float>(W, i, M);
    else  // integer dtypes: MXNet's coefficients truncate to 0
      v[i] = M == 1 ? 1.0 : 0.0;
  }
  WriteDoubles(out[0], v);
}

#define MX_NP_WINDOW(name, W, doc)                                          \
  MX_REGISTER_OP(name)                                                      \
      .describe(doc)                                                        \
      .set_params<NpWindowParam>()                                          \
      .set_num_inputs(0)                                                    \
      .set_infer_shape(WindowShape)                                         \
      .set_infer_type(AttrType<NpWindowParam>)                              \
      .set_kernel({DeviceType::kCPU, Backend::kReference}, WindowKernel<W>) \
      .set_non_differentiable()

MX_NP_WINDOW(_npi_blackman, Window::kBlackman,
             "Blackman window 0.42 - 0.5 cos(2 pi i/(M-1)) + 0.08 cos(4 pi i/(M-1)).");
MX_NP_WINDOW(_npi_hamming, Window::kHamming, "Hamming window 0.54 - 0.46 cos(2 pi i/(M-1)).");
MX_NP_WINDOW(_npi_hanning, Window::kHanning, "Hann window 0.5 - 0.5 cos(2 pi i/(M-1)).");

#undef MX_NP_WINDOW

}  // namespace
}  // namespace mxnet::ops
