// MXNet 1.9.1's mx.np.random.choice as an op:
//   _npi_choice ([input1][, input2]; a, size, ctx='cpu', replace=True, weighted=False) -> int64
//     indices of shape `size` (None: ()) drawn from range(n): n = a, or the size of input1 when a
//     is None (mx.np then indexes that array with them). weighted: the last input holds the
//     probabilities p (n values >= 0, normalized by their sum here; mx.np passes ones summing to
//     1). replace: independent draws (uniform, or inverse CDF of p); else distinct indices
//     (uniform: partial Fisher-Yates; weighted: the k largest Gumbel-perturbed keys
//     log p_i - log(-log U_i), as MXNet), size <= n.
//   Draws come from the output device's global generator (ndarray/random.h; seeded runs
//   repeat); MXNet's generator differs, so values differ while the distributions agree
//   (shape_np_choice_test.cc compares frequencies with MXNet's). Not differentiable (MXNet: zero
//   gradients).
// Source: src/operator/numpy/random/np_choice_op.{h,cc} (MXNet 1.9.1); numpy.random.choice docs.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "ndarray/ops/core/shape_util.h"
#include "ndarray/params.h"
#include "ndarray/random.h"

namespace mxnet::ops {
namespace {

using namespace shape_internal;

// MXNet's NumpyChoiceParam.
struct NpChoiceParam {
  std::optional<int64_t> a;
  std::optional<Shape> size;
  std::string ctx = "cpu";
  bool replace = true;
  bool weighted = false;
  template <class D>
  static void Declare(D& d) {
    d.field("a", &NpChoiceParam::a).required().describe("Population size (None: input1's size).");
    d.field("size", &NpChoiceParam::size).required().describe("Output shape (None: ()).");
    d.field("ctx", &NpChoiceParam::ctx).describe("Device of the output (MXNet's context string).");
    d.field("replace", &NpChoiceParam::replace).describe("Draw with replacement.");
    d.field("weighted", &NpChoiceParam::weighted).describe("The last input holds probabilities.");
  }
};

int ChoiceInputs(const OpAttrs& a) {
  const auto& p = a.get<NpChoiceParam>();
  return (p.a ? 0 : 1) + (p.weighted ? 1 : 0);
}

void ChoiceKernel(const OpContext& ctx, const OpAttrs& a, std::span<const NDArray> in,
                  std::span<const NDArray> out) {
  const auto& p = a.get<NpChoiceParam>();
  int64_t n = p.a ? *p.a : in[0].size();
  int64_t k = out[0].size();
  if (n <= 0 && k > 0) Fail(a, "a must be greater than 0, got ", n);
  if (!p.replace && k > n)
    Fail(a, "cannot take a larger sample (", k, ") than the population (", n,
         ") when replace=False");
  std::vector<double> w;
  if (p.weighted) {
    const NDArray& pw = in.back();
    w = pw.ToVector<double>();
    if (static_cast<int64_t>(w.size()) != n)
      Fail(a, "p has ", w.size(), " values for a population of ", n);
    double total = 0;
    for (double x : w) {
      if (!(x >= 0)) Fail(a, "probabilities must be >= 0");
      total += x;
    }
    if (!(total > 0)) Fail(a, "probabilities sum to 0");
    for (double& x : w) x /= total;
  }
  int64_t* o = static_cast<int64_t*>(out[0].data_ptr());
  if (k == 0) return;
  random::GeneratorGuard g(ctx.device);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  if (p.replace && !p.weighted) {
    std::uniform_int_distribution<int64_t> pick(0, n - 1);
    for (int64_t i = 0; i < k; ++i) o[i] = pick(g.gen());
  } else if (p.replace) {
    std::vector<double> cdf(n);
    std::partial_sum(w.begin(), w.end(), cdf.begin());
    for (int64_t i = 0; i < k; ++i) {
      double u = uni(g.gen()) * cdf.back();
      int64_t j = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
      while (j > 0 && (j >= n || w[j] == 0)) --j;  // never an index of probability 0
      o[i] = j;
    }
  } else if (!p.weighted) {
    std::vector<int64_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    for (int64_t i = 0; i < k; ++i) {
      std::uniform_int_distribution<int64_t> pick(i, n - 1);
      std::swap(idx[i], idx[pick(g.gen())]);
      o[i] = idx[i];
    }
  } else {
    std::vector<double> key(n);
    for (int64_t i = 0; i < n; ++i) {
      double u = std::max(uni(g.gen()), 1e-300);
      key[i] = w[i] > 0 ? std::log(w[i]) - std::log(-std::log(u)) : -INFINITY;
    }
    std::vector<int64_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::partial_sort(idx.begin(), idx.begin() + k, idx.end(),
                      [&](int64_t x, int64_t y) { return key[x] > key[y]; });
    for (int64_t i = 0; i < k; ++i) {
      if (key[idx[i]] == -INFINITY)
        Fail(a, "fewer nonzero probabilities than the sample size with replace=False");
      o[i] = idx[i];
    }
  }
}

MX_REGISTER_OP(_npi_choice)
    .describe(
        "int64 indices of shape size drawn from range(a) (or range(input1.size)), uniform or "
        "with probabilities p (weighted), with or without replacement (mx.np.random.choice).")
    .set_params<NpChoiceParam>()
    .set_num_inputs(ChoiceInputs)
    .set_input_names([](const OpAttrs& a) {
      int n = ChoiceInputs(a);
      return n == 0   ? std::vector<std::string>{}
             : n == 1 ? std::vector<std::string>{"input1"}
                      : std::vector<std::string>{"input1", "input2"};
    })
    .set_random()
    .set_infer_shape([](const OpAttrs& a, ShapeVec*, ShapeVec* out) {
      const auto& p = a.get<NpChoiceParam>();
      MergeShape(&(*out)[0], p.size ? *p.size : Shape{}, "_npi_choice: output");
    })
    .set_infer_type([](const OpAttrs&, DTypeVec*, DTypeVec* out) {
      MergeType(&(*out)[0], static_cast<int>(DType::kInt64), "_npi_choice: output");
    })
    .set_kernel({DeviceType::kCPU, Backend::kReference}, ChoiceKernel)
    .set_non_differentiable();

}  // namespace
}  // namespace mxnet::ops
