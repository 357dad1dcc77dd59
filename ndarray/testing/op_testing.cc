#include "ndarray/testing/op_testing.h"

#include <cmath>
#include <random>

#include "ndarray/grad.h"
#include "ndarray/random.h"

namespace mxnet::testing {

NDArray RandomArray(const Shape& shape, double lo, double hi, uint64_t seed, DType dtype) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(shape.Size());
  for (auto& x : v) x = dist(gen);
  return NDArray::FromVector(v, shape, cpu(), dtype);
}

::testing::AssertionResult AllClose(const NDArray& actual, const NDArray& expected, double rtol,
                                    double atol) {
  if (actual.shape() != expected.shape())
    return ::testing::AssertionFailure()
           << "shape " << actual.shape() << " vs expected " << expected.shape();
  std::vector<double> a = actual.ToVector<double>(), e = expected.ToVector<double>();
  int bad = 0;
  double max_abs = 0, max_rel = 0;
  std::string first;
  for (size_t i = 0; i < a.size(); ++i) {
    double d = std::fabs(a[i] - e[i]);
    bool nan_ok = std::isnan(a[i]) && std::isnan(e[i]);
    bool inf_ok = std::isinf(a[i]) && a[i] == e[i];
    if (nan_ok || inf_ok) continue;
    max_abs = std::max(max_abs, d);
    if (e[i] != 0) max_rel = std::max(max_rel, d / std::fabs(e[i]));
    if (!(d <= atol + rtol * std::fabs(e[i]))) {
      if (!bad++) first = StrCat("index ", i, ": ", a[i], " vs expected ", e[i]);
    }
  }
  if (!bad) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << a.size() << " elements differ; first at " << first << "; max abs err "
         << max_abs << ", max rel err " << max_rel;
}

namespace {
std::vector<OpTestCase>& Cases() {
  static auto* v = new std::vector<OpTestCase>();
  return *v;
}
}  // namespace

int RegisterOpTestCase(OpTestCase c) {
  Cases().push_back(std::move(c));
  return static_cast<int>(Cases().size());
}

const std::vector<OpTestCase>& OpTestCases() { return Cases(); }

std::vector<NDArray> MakeInputs(const OpTestCase& c, DType dtype, uint64_t seed) {
  if (c.make_inputs) return c.make_inputs(dtype, seed);
  std::vector<NDArray> in;
  for (size_t i = 0; i < c.shapes.size(); ++i)
    in.push_back(RandomArray(c.shapes[i], c.lo, c.hi, seed * 131 + i, dtype));
  return in;
}

NDArrayVec RunWithKernel(const OpTestCase& c, KernelKey key, std::span<const NDArray> inputs) {
  const Op& op = OpRegistry::Get(c.op);
  OpAttrs attrs = OpAttrs::Parse(op, c.attrs);
  const FCompute* k = op.FindKernel(key);
  if (!k) MX_THROW(absl::StatusCode::kNotFound, c.op, ": no kernel ", BackendName(key.backend));
  ShapeVec in_s, out_s;
  DTypeVec in_t, out_t;
  for (const auto& x : inputs)
    in_s.push_back(x.shape()), in_t.push_back(static_cast<int>(x.dtype()));
  if (op.has_dynamic_output_shape())  // shapes from the input values (boolean_mask, nonzero)
    InferOutputsFromData(op, attrs, inputs, &out_s, &out_t);
  else
    InferOutputs(op, attrs, &in_s, &in_t, &out_s, &out_t);
  NDArrayVec outs;
  // Zero-input ops whose output only the caller gives (_set_value, _NoGradient): (2, 3) float32.
  for (size_t i = 0; i < out_s.size(); ++i)
    outs.emplace_back(
        inputs.empty() && !out_s[i].is_known() ? Shape{2, 3} : out_s[i], cpu(),
        out_t[i] < 0 && inputs.empty() ? DType::kFloat32 : static_cast<DType>(out_t[i]));
  OpContext ctx{c.is_train, c.is_train, cpu()};
  (*k)(ctx, attrs, inputs, outs);
  return outs;
}

namespace {
// Forward with the default kernel selection, in the case's mode.
NDArrayVec Forward(const Op& op, const OpAttrs& attrs, const std::vector<NDArray>& in, bool train) {
  random::seed(1234);  // random ops (Dropout masks) repeat exactly across FD evaluations
  DispatchStateScope scope;
  scope.state().is_training = train;
  return Invoke(op, attrs, in);
}

double Loss(const NDArrayVec& outs, const std::vector<std::vector<double>>& w, int visible) {
  double l = 0;
  for (int k = 0; k < visible; ++k) {
    std::vector<double> o = outs[k].ToVector<double>();
    for (size_t i = 0; i < o.size(); ++i) l += o[i] * w[k][i];
  }
  return l;
}
}  // namespace

::testing::AssertionResult CheckGradient(const OpTestCase& c, uint64_t seed) {
  const Op& op = OpRegistry::Get(c.op);
  OpAttrs attrs = OpAttrs::Parse(op, c.attrs);
  std::vector<NDArray> in = MakeInputs(c, DType::kFloat64, seed);
  NDArrayVec outs = Forward(op, attrs, in, c.is_train);
  int visible = op.NumVisibleOutputs(attrs);
  std::mt19937_64 gen(seed + 99);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<std::vector<double>> w(visible);
  std::vector<NDArray> og;
  for (int k = 0; k < static_cast<int>(outs.size()); ++k) {
    if (k < visible) {
      w[k].resize(outs[k].size());
      for (auto& x : w[k]) x = dist(gen);
      og.push_back(NDArray::FromVector(w[k], outs[k].shape(), cpu(), outs[k].dtype()));
    } else {
      og.push_back(NDArray::Full(outs[k].shape(), 0, cpu(), outs[k].dtype()));
    }
  }
  std::vector<NDArray> outs_v(outs.begin(), outs.end());
  std::vector<NDArray> grads = EagerGradBuilder::Run(op, attrs, in, outs_v, og);
  std::vector<int> which = c.grad_inputs;
  if (which.empty())
    for (size_t i = 0; i < in.size(); ++i)
      if (IsFloatingPoint(in[i].dtype()) && !op.IsMutableInput(static_cast<int>(i)))
        which.push_back(i);
  for (int i : which) {
    if (grads[i].is_none())
      return ::testing::AssertionFailure() << c.op << c.label << ": no gradient for input " << i;
    std::vector<double> x = in[i].ToVector<double>();
    std::vector<double> fd(x.size());
    for (size_t j = 0; j < x.size(); ++j) {
      std::vector<NDArray> p = in, m = in;
      std::vector<double> xp = x, xm = x;
      xp[j] += c.fd_eps;
      xm[j] -= c.fd_eps;
      p[i] = NDArray::FromVector(xp, in[i].shape(), cpu(), in[i].dtype());
      m[i] = NDArray::FromVector(xm, in[i].shape(), cpu(), in[i].dtype());
      fd[j] = (Loss(Forward(op, attrs, p, c.is_train), w, visible) -
               Loss(Forward(op, attrs, m, c.is_train), w, visible)) /
              (2 * c.fd_eps);
    }
    NDArray expected = NDArray::FromVector(fd, in[i].shape(), cpu(), DType::kFloat64);
    auto r = AllClose(grads[i].astype(DType::kFloat64), expected, c.grad_rtol, c.grad_atol);
    if (!r)
      return ::testing::AssertionFailure()
             << c.op << c.label << " input " << i << ": " << r.message();
  }
  return ::testing::AssertionSuccess();
}

}  // namespace mxnet::testing
