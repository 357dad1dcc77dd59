// Random ops (MXNet 1.9.1 names): _random_uniform, _random_normal, _random_randint, _shuffle,
// _sample_uniform, _sample_normal. They draw from the global generator of the output device
// (ndarray/random.h), so mxnet::random::seed(s) makes a sequence of calls repeatable. The
// values differ from MXNet's (another generator); distributions and ranges are the same.
// Non-differentiable.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "ndarray/ops/core/shape_util.h"
#include "ndarray/ops/shape/shape_api.h"
#include "ndarray/ops/shape/shape_params.h"
#include "ndarray/random.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;

template <typename P>
void AttrShape(const OpAttrs& a, ShapeVec*, ShapeVec* out) {
  MergeShape(&(*out)[0], a.get<P>().shape, StrCat(OpName(a), ": output"));
}

template <typename P>
void FloatType(const OpAttrs& a, DTypeVec*, DTypeVec* out) {
  const auto& dt = a.get<P>().dtype;
  MergeType(&(*out)[0], DTypeFlag(dt ? *dt : DType::kFloat32), StrCat(OpName(a), ": output"));
}

// Writes n draws of `draw()` (double) into `out`, converted to its float dtype; values equal to
// `exclusive_high` after rounding are replaced by `low` (uniform's half-open range).
template <typename F>
void FillDraws(const NDArray& out, F draw) {
  int64_t n = out.size();
  if (n == 0) return;
  std::vector<double> v(n);
  for (auto& x : v) x = draw();
  ConvertElements(v.data(), DType::kFloat64, out.data_ptr(), out.dtype(), n);
}

// Uniform in [low, high) after rounding to the output dtype.
void UniformFill(const NDArray& out, std::mt19937_64& gen, double low, double high) {
  int64_t n = out.size();
  if (n == 0) return;
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  std::vector<double> v(n), back(n);
  for (auto& x : v) x = low + (high - low) * dist(gen);
  ConvertElements(v.data(), DType::kFloat64, out.data_ptr(), out.dtype(), n);
  if (!(low < high)) return;
  ConvertElements(out.data_ptr(), out.dtype(), back.data(), DType::kFloat64, n);
  bool fix = false;
  for (int64_t i = 0; i < n; ++i)
    if (!(back[i] < high)) back[i] = low, fix = true;
  if (fix) ConvertElements(back.data(), DType::kFloat64, out.data_ptr(), out.dtype(), n);
}

MX_REGISTER_OP(_random_uniform)
    .describe("Samples uniformly from [low, high).")
    .add_alias("random_uniform")
    .add_alias("uniform")
    .set_params<UniformParam>()
    .set_num_inputs(0)
    .set_random()
    .set_infer_shape(AttrShape<UniformParam>)
    .set_infer_type(FloatType<UniformParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<UniformParam>();
                  random::GeneratorGuard g(ctx.device);
                  UniformFill(out[0], g.gen(), p.low, p.high);
                })
    .set_non_differentiable();

MX_REGISTER_OP(_random_normal)
    .describe("Samples from the normal distribution N(loc, scale^2).")
    .add_alias("random_normal")
    .add_alias("normal")
    .set_params<NormalParam>()
    .set_num_inputs(0)
    .set_random()
    .set_infer_shape(AttrShape<NormalParam>)
    .set_infer_type(FloatType<NormalParam>)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<NormalParam>();
                  random::GeneratorGuard g(ctx.device);
                  std::normal_distribution<double> dist(p.loc, p.scale);
                  FillDraws(out[0], [&] { return dist(g.gen()); });
                })
    .set_non_differentiable();

MX_REGISTER_OP(_random_randint)
    .describe("Samples integers uniformly from [low, high) (dtype int32 by default, or int64).")
    .add_alias("random_randint")
    .add_alias("_npi_random_randint")
    .set_params<RandIntParam>()
    .set_num_inputs(0)
    .set_random()
    .set_infer_shape(AttrShape<RandIntParam>)
    .set_infer_type([](const OpAttrs& a, DTypeVec*, DTypeVec* out) {
      const auto& dt = a.get<RandIntParam>().dtype;
      MergeType(&(*out)[0], DTypeFlag(dt ? *dt : DType::kInt32), "_random_randint: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs& a, std::span<const NDArray>,
                   std::span<const NDArray> out) {
                  const auto& p = a.get<RandIntParam>();
                  if (out[0].dtype() == DType::kInt32 &&
                      (p.low < INT32_MIN || p.high - 1 > INT32_MAX))
                    Fail(a, "low=", p.low, " and high=", p.high, " do not fit dtype int32");
                  random::GeneratorGuard g(ctx.device);
                  std::uniform_int_distribution<int64_t> dist(p.low, p.high - 1);
                  int64_t n = out[0].size();
                  if (n == 0) return;
                  std::vector<int64_t> v(n);
                  for (auto& x : v) x = dist(g.gen());
                  ConvertElements(v.data(), DType::kInt64, out[0].data_ptr(), out[0].dtype(), n);
                })
    .set_non_differentiable();

MX_REGISTER_OP(_shuffle)
    .describe("Randomly permutes the input along its first axis.")
    .add_alias("shuffle")
    .add_alias("_npi_shuffle")
    .set_random()
    .set_infer_shape([](const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
      if ((*in)[0].ndim() == 0) Fail(a, "cannot shuffle a 0-d array");
      ElemwiseShape(a, in, out);
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  const Shape& s = in[0].shape();
                  int64_t rows = s[0];
                  if (rows == 0) return;
                  std::vector<int64_t> perm(rows);
                  std::iota(perm.begin(), perm.end(), 0);
                  {
                    random::GeneratorGuard g(ctx.device);
                    std::shuffle(perm.begin(), perm.end(), g.gen());
                  }
                  size_t row_bytes = in[0].nbytes() / rows;
                  const char* x = static_cast<const char*>(in[0].data_ptr());
                  char* y = static_cast<char*>(out[0].data_ptr());
                  ParallelFor(
                      rows,
                      [&](int64_t r) {
                        std::memcpy(y + r * row_bytes, x + perm[r] * row_bytes, row_bytes);
                      },
                      64);
                })
    .set_non_differentiable();

// ---- _sample_uniform / _sample_normal: one distribution per element of the parameters ----
void SampleShape(const OpAttrs& a, ShapeVec* in, ShapeVec* out) {
  Shape p = Shape::Unknown();
  for (size_t i = 0; i < in->size(); ++i)
    MergeShape(&p, (*in)[i], StrCat(OpName(a), ": input ", i));
  for (auto& x : *in) x = p;
  if (!p.ndim_known()) return;
  Shape o = p;
  for (int64_t d : a.get<SampleParam>().shape) o.push_back(d);
  MergeShape(&(*out)[0], o, StrCat(OpName(a), ": output"));
}

void SampleType(const OpAttrs& a, DTypeVec* in, DTypeVec* out) {
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i) MergeType(&t, (*in)[i], StrCat(OpName(a), ": input ", i));
  for (auto& x : *in) x = t;
  const auto& dt = a.get<SampleParam>().dtype;
  MergeType(&(*out)[0], DTypeFlag(dt ? *dt : DType::kFloat32), StrCat(OpName(a), ": output"));
}

template <typename Draw>
void SampleKernel(const OpContext& ctx, std::span<const NDArray> in, const NDArray& out,
                  Draw draw) {
  if (out.size() == 0) return;
  std::vector<double> p0 = in[0].ToVector<double>(), p1 = in[1].ToVector<double>();
  int64_t k = p0.empty() ? 0 : out.size() / static_cast<int64_t>(p0.size());
  std::vector<double> v(out.size());
  random::GeneratorGuard g(ctx.device);
  for (size_t i = 0; i < p0.size(); ++i)
    for (int64_t j = 0; j < k; ++j) v[i * k + j] = draw(g.gen(), p0[i], p1[i]);
  ConvertElements(v.data(), DType::kFloat64, out.data_ptr(), out.dtype(), v.size());
}

MX_REGISTER_OP(_sample_uniform)
    .describe(
        "For each element i of low/high (same shape), draws `shape` samples from "
        "[low[i], high[i]); output shape low.shape + shape.")
    .add_alias("sample_uniform")
    .set_params<SampleParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"low", "high"})
    .set_random()
    .set_infer_shape(SampleShape)
    .set_infer_type(SampleType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::uniform_real_distribution<double> u(0.0, 1.0);
                  SampleKernel(ctx, in, out[0], [&](std::mt19937_64& g, double lo, double hi) {
                    return lo + (hi - lo) * u(g);
                  });
                })
    .set_non_differentiable();

MX_REGISTER_OP(_sample_normal)
    .describe(
        "For each element i of mu/sigma (same shape), draws `shape` samples from "
        "N(mu[i], sigma[i]^2); output shape mu.shape + shape.")
    .add_alias("sample_normal")
    .set_params<SampleParam>()
    .set_num_inputs(2)
    .set_input_names(std::vector<std::string>{"mu", "sigma"})
    .set_random()
    .set_infer_shape(SampleShape)
    .set_infer_type(SampleType)
    .set_kernel({DeviceType::kCPU, Backend::kReference},
                [](const OpContext& ctx, const OpAttrs&, std::span<const NDArray> in,
                   std::span<const NDArray> out) {
                  std::normal_distribution<double> n(0.0, 1.0);
                  SampleKernel(ctx, in, out[0], [&](std::mt19937_64& g, double mu, double sigma) {
                    return mu + sigma * n(g);
                  });
                })
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
