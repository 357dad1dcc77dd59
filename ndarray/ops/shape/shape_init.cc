// Creation ops without inputs: _zeros, _ones, _full, _arange, _eye, _linspace (MXNet 1.9.1's
// init_op). The output shape and dtype come from the attributes; its device from `ctx` (by-name
// calls) or the device the caller passes to Invoke (nd::zeros & co.).
#include <cmath>

#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/ops/shape/shape_params.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;

template <typename P>
void AttrShape(const OpAttrs& a, ShapeVec*, ShapeVec* out) {
  const Shape& s = a.get<P>().shape;
  for (int i = 0; s.ndim_known() && i < s.ndim(); ++i)
    if (s[i] < -1) Fail(a, "invalid shape ", s.ToString());
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

MX_REGISTER_OP(_zeros)
    .describe("An array of zeros of `shape` and `dtype` (nd::zeros).")
    .set_params<InitParam>()
    .set_num_inputs(0)
    .set_infer_shape(AttrShape<InitParam>)
    .set_infer_type(AttrType<InitParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, FillKernel<0>)
    .set_non_differentiable();

MX_REGISTER_OP(_ones)
    .describe("An array of ones of `shape` and `dtype` (nd::ones).")
    .set_params<InitParam>()
    .set_num_inputs(0)
    .set_infer_shape(AttrShape<InitParam>)
    .set_infer_type(AttrType<InitParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference}, FillKernel<1>)
    .set_non_differentiable();

MX_REGISTER_OP(_full)
    .describe("An array of `shape` and `dtype` filled with `value` (nd::full).")
    .add_alias("_npi_full")
    .set_params<FullParam>()
    .set_num_inputs(0)
    .set_infer_shape(AttrShape<FullParam>)
    .set_infer_type(AttrType<FullParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  FillValue(out[0].data_ptr(), out[0].dtype(), out[0].size(),
                            a.get<FullParam>().value);
                })
    .set_non_differentiable();

// ---- _arange ----
// Number of values before repetition, after MXNet's start/stop rules (stop None: [0, start)).
int64_t ArangeCount(const OpAttrs& a) {
  const auto& p = a.get<ArangeParam>();
  double start = p.start, stop = p.stop ? *p.stop : 0;
  if (!p.stop) stop = start, start = 0;
  if (p.step > 0 ? !(start < stop) : !(start > stop))
    Fail(a, "invalid range (start, stop, step) = (", PyFloatRepr(start), ", ", PyFloatRepr(stop),
         ", ", PyFloatRepr(p.step), ")");
  return static_cast<int64_t>(std::ceil((stop - start) / p.step));
}

template <typename T>
T CastParam(double v) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<int64_t>(v));
  else
    return static_cast<T>(v);
}

MX_REGISTER_OP(_arange)
    .describe(
        "Evenly spaced values start, start+step, ... below stop (stop None: [0, start)), each "
        "repeated `repeat` times; computed in the output dtype like MXNet.")
    .set_params<ArangeParam>()
    .set_num_inputs(0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec*, ShapeVec* out) {
      const auto& p = a.get<ArangeParam>();
      if (p.infer_range && !p.stop) return;  // stop comes from the output shape (graphs)
      MergeShape(&(*out)[0], Shape{ArangeCount(a) * p.repeat}, "_arange: output");
    })
    .set_infer_type(AttrType<ArangeParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<ArangeParam>();
                  double start = p.stop || p.infer_range ? p.start : 0;
                  int64_t rep = p.repeat, n = out[0].size();
                  MX_NUMERIC_TYPE_SWITCH(out[0].dtype(), T, "_arange", {
                    using A = AccType<T>;
                    A st = static_cast<A>(CastParam<T>(start)),
                      sp = static_cast<A>(CastParam<T>(p.step));
                    T* y = static_cast<T*>(out[0].data_ptr());
                    ParallelFor(n, [&](int64_t i) {
                      y[i] = static_cast<T>(st + static_cast<A>(i / rep) * sp);
                    });
                  });
                })
    .set_non_differentiable();

// ---- _eye ----
MX_REGISTER_OP(_eye)
    .describe("An N x M (M 0: N) array with ones on diagonal k (0 main, > 0 above, < 0 below).")
    .set_params<EyeParam>()
    .set_num_inputs(0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec*, ShapeVec* out) {
      const auto& p = a.get<EyeParam>();
      MergeShape(&(*out)[0], Shape{p.N, p.M > 0 ? p.M : p.N}, "_eye: output");
    })
    .set_infer_type(AttrType<EyeParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<EyeParam>();
                  FillValue(out[0].data_ptr(), out[0].dtype(), out[0].size(), 0);
                  int64_t rows = out[0].shape()[0], cols = out[0].shape()[1];
                  int64_t r0 = p.k >= 0 ? 0 : -p.k, c0 = p.k >= 0 ? p.k : 0;
                  int64_t n = std::max<int64_t>(0, std::min(rows - r0, cols - c0));
                  if (n == 0) return;
                  std::vector<int64_t> dims{n}, ds{cols + 1};
                  size_t es = DTypeSize(out[0].dtype());
                  FillStrided(ElemPtr(out[0].data_ptr(), r0 * cols + c0, es), out[0].dtype(), 1,
                              dims, ds);
                })
    .set_non_differentiable();

// ---- _linspace ----
MX_REGISTER_OP(_linspace)
    .describe(
        "`num` evenly spaced values from start to stop (stop excluded unless endpoint), "
        "computed in double and cast.")
    .add_alias("_npi_linspace")
    .set_params<LinspaceParam>()
    .set_num_inputs(0)
    .set_infer_shape([](const OpAttrs& a, ShapeVec*, ShapeVec* out) {
      MergeShape(&(*out)[0], Shape{a.get<LinspaceParam>().num}, "_linspace: output");
    })
    .set_infer_type(AttrType<LinspaceParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext&, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<LinspaceParam>();
                  int64_t steps = p.endpoint ? p.num - 1 : p.num;
                  double step = steps > 0 ? (p.stop - p.start) / static_cast<double>(steps) : 0.0;
                  int64_t n = out[0].size();
                  if (n == 0) return;
                  std::vector<double> v(n);
                  for (int64_t i = 0; i < n; ++i) v[i] = p.start + step * static_cast<double>(i);
                  ConvertElements(v.data(), DType::kFloat64, out[0].data_ptr(), out[0].dtype(), n);
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
