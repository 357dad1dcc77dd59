// Lazy updates with row_sparse gradients (optim_sparse.h) against real MXNet 1.9.1
// (testdata/optim/sparse.json from tools/conformance/gen_sparse_grad_refs.py): sgd_update,
// sgd_mom_update, adam_update with lazy_update True and False, and _sparse_adagrad_update, each
// on a dense weight with gradients storing some, one, all and no rows, out = weight. Plus: rows
// the gradient does not store stay bit-identical (weight and states), a lazy update of a
// gradient storing every row equals the dense update bit for bit, out != weight, errors.
#include "ndarray/ops/optim/optim_sparse.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "base/strings.h"
#include "ndarray/ops/optim/optim_api.h"
#include "ndarray/sparse.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

NDArray F32(const json& v, const Shape& s) {
  return NDArray::FromVector(v.get<std::vector<double>>(), s, cpu(), DType::kFloat32);
}

NDArray RspGrad(const json& c, const Shape& s) {
  std::vector<int64_t> rows = c["grad_rows"].get<std::vector<int64_t>>();
  const int64_t k = static_cast<int64_t>(rows.size());
  if (k == 0) return sparse_zeros(StorageType::kRowSparse, s);
  return row_sparse_array(F32(c["grad_data"], Shape{k, s[1]}),
                          NDArray::FromVector(rows, Shape{k}, cpu(), DType::kInt64), s);
}

// Largest distance in float32 ulps between got and the reference values.
int64_t MaxUlps(const NDArray& got, const json& want) {
  std::vector<float> g = got.ToVector<float>();
  std::vector<double> w = want.get<std::vector<double>>();
  EXPECT_EQ(g.size(), w.size());
  int64_t worst = 0;
  for (size_t i = 0; i < g.size() && i < w.size(); ++i) {
    float wf = static_cast<float>(w[i]);
    int32_t a, b;
    std::memcpy(&a, &g[i], 4);
    std::memcpy(&b, &wf, 4);
    worst = std::max<int64_t>(worst, std::abs(static_cast<int64_t>(a) - b));
  }
  return worst;
}

TEST(LazyUpdate, MatchesMXNet) {
  json doc = testing::LoadRefJson("ndarray/ops/testdata/optim/sparse.json");
  int n = 0, exact = 0;
  for (const json& c : doc["cases"]) {
    const std::string op = c["op"];
    const Shape s(c["shape"].get<std::vector<int64_t>>());
    SCOPED_TRACE(StrCat(op, " ", c["attrs"].dump(), " rows ", c["grad_rows"].dump()));
    AttrDict attrs;
    for (const auto& [k, v] : c["attrs"].items()) attrs[k] = v.get<std::string>();
    // MXNet's Python bools print as True/False; lazy_update=False goes through the fallback.
    NDArray w = F32(c["weight"], s);
    std::vector<NDArray> in{w, RspGrad(c, s)};
    for (const json& st : c["states"]) in.push_back(F32(st, s));
    const Op& o = OpRegistry::Get(op);
    InvokeInto(o, OpAttrs::Parse(o, attrs), in, std::vector<NDArray>{w});
    int64_t ulps = MaxUlps(w, c["weight_after"]);
    for (size_t k = 0; k < c["states"].size(); ++k)
      ulps = std::max(ulps, MaxUlps(in[2 + k], c["states_after"][k]));
    EXPECT_LE(ulps, 1);
    exact += ulps == 0;
    ++n;
  }
  EXPECT_EQ(n, 56);
  // Lazy updates are MXNet's arithmetic per row: all bit-identical (the lazy_update=False
  // fallback too, on these cases).
  EXPECT_EQ(exact, n);
}

// Rows the gradient does not store keep their bits (weight and every state), whatever wd,
// momentum or beta; the stored rows move.
TEST(LazyUpdate, UntouchedRowsAndStatesStayBitIdentical) {
  const Shape s{5, 3};
  NDArray w0 = testing::RandomArray({5, 3}, -1, 1, 7, DType::kFloat32);
  NDArray g = row_sparse_array(testing::RandomArray({2, 3}, -1, 1, 8, DType::kFloat32),
                               NDArray::FromVector<int64_t>({1, 3}, Shape{2}), s);
  auto check = [&](const std::string& op, AttrDict attrs, int nstates) {
    SCOPED_TRACE(op);
    NDArray w = w0.copy();
    std::vector<NDArray> in{w, g}, before;
    for (int k = 0; k < nstates; ++k) {
      in.push_back(testing::RandomArray({5, 3}, 0.1, 1, 20 + k, DType::kFloat32));
      before.push_back(in.back().copy());
    }
    const Op& o = OpRegistry::Get(op);
    InvokeInto(o, OpAttrs::Parse(o, attrs), in, std::vector<NDArray>{w});
    std::vector<float> a = w.ToVector<float>(), b = w0.ToVector<float>();
    for (int r = 0; r < 5; ++r)
      for (int j = 0; j < 3; ++j) {
        if (r == 1 || r == 3)
          EXPECT_NE(a[r * 3 + j], b[r * 3 + j]) << r;
        else
          EXPECT_EQ(a[r * 3 + j], b[r * 3 + j]) << r;
        for (int k = 0; k < nstates; ++k) {
          if (r == 1 || r == 3) continue;
          EXPECT_EQ(in[2 + k].ToVector<float>()[r * 3 + j], before[k].ToVector<float>()[r * 3 + j]);
        }
      }
  };
  check("sgd_update", {{"lr", "0.1"}, {"wd", "0.5"}}, 0);
  check("sgd_mom_update", {{"lr", "0.1"}, {"wd", "0.5"}, {"momentum", "0.9"}}, 1);
  check("adam_update", {{"lr", "0.1"}, {"wd", "0.5"}}, 2);
  check("_sparse_adagrad_update", {{"lr", "0.1"}}, 1);
}

// A gradient storing every row: the lazy update equals the dense kernel's bit for bit (float32,
// float64), with rescaling and (sgd) clipping; out other than weight leaves the weight alone.
TEST(LazyUpdate, AllRowsEqualsDenseUpdate) {
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    const Shape s{4, 6};
    NDArray w0 = testing::RandomArray({4, 6}, -1, 1, 3, t);
    NDArray gd = testing::RandomArray({4, 6}, -2, 2, 4, t);
    NDArray gr = row_sparse_array(gd, NDArray::FromVector<int64_t>({0, 1, 2, 3}, Shape{4}), s);
    for (const auto& [op, nstates] : std::vector<std::pair<std::string, int>>{
             {"sgd_update", 0}, {"sgd_mom_update", 1}, {"adam_update", 2}}) {
      SCOPED_TRACE(StrCat(op, " ", DTypeName(t)));
      AttrDict attrs{
          {"lr", "0.05"}, {"wd", "0.1"}, {"rescale_grad", "0.7"}, {"clip_gradient", "0.9"}};
      if (op == "sgd_mom_update") attrs["momentum"] = "0.8";
      // With clipping, MXNet's lazy adam squares before scaling (may differ in the last bit).
      if (op == "adam_update") attrs.erase("clip_gradient");
      const Op& o = OpRegistry::Get(op);
      std::vector<NDArray> dense{w0.copy(), gd}, lazy{w0.copy(), gr};
      for (int k = 0; k < nstates; ++k) {
        NDArray st = testing::RandomArray({4, 6}, 0.1, 1, 30 + k, t);
        dense.push_back(st.copy());
        lazy.push_back(st.copy());
      }
      InvokeInto(o, OpAttrs::Parse(o, attrs), dense, std::vector<NDArray>{dense[0]});
      NDArray out(s, cpu(), t);  // out != weight: weight stays, out receives the update
      InvokeInto(o, OpAttrs::Parse(o, attrs), lazy, std::vector<NDArray>{out});
      EXPECT_EQ(out.ToVector<double>(), dense[0].ToVector<double>());
      EXPECT_EQ(lazy[0].ToVector<double>(), w0.ToVector<double>());
      for (int k = 0; k < nstates; ++k)
        EXPECT_EQ(lazy[2 + k].ToVector<double>(), dense[2 + k].ToVector<double>());
    }
  }
}

// Out other than weight with some rows: the other rows are the weight's (Invoke, new output).
TEST(LazyUpdate, SeparateOutputCopiesUntouchedRows) {
  NDArray w = NDArray::FromVector<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  NDArray g = row_sparse_array(NDArray::FromVector<float>({10, 20}, Shape{1, 2}),
                               NDArray::FromVector<int64_t>({1}, Shape{1}), Shape{3, 2});
  NDArray y = nd::sgd_update(w, g, {.lr = 0.5f});
  EXPECT_EQ(y.ToVector<float>(), (std::vector<float>{1, 2, -2, -6, 5, 6}));
  EXPECT_EQ(w.ToVector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(y.stype(), StorageType::kDefault);
}

// _sparse_adagrad_update: closed form; a dense grad updates every row; wd refused as in MXNet.
TEST(SparseAdagrad, ClosedFormAndErrors) {
  NDArray w = NDArray::FromVector<double>({1, 2, 3, 4}, Shape{2, 2}, cpu(), DType::kFloat64);
  NDArray h = NDArray::FromVector<double>({0, 1, 2, 3}, Shape{2, 2}, cpu(), DType::kFloat64);
  NDArray g =
      row_sparse_array(NDArray::FromVector<double>({0.5, -4}, Shape{1, 2}, cpu(), DType::kFloat64),
                       NDArray::FromVector<int64_t>({1}, Shape{1}), Shape{2, 2});
  nd::sparse_adagrad_update(w, g, h, {.lr = 0.1f, .epsilon = 0.0f, .clip_gradient = 3.0f}, w);
  // Row 1: g = (0.5, -3); history (2.25, 12); w -= 0.1 * g / sqrt(history).
  std::vector<double> want{1, 2, 3 - 0.1 * 0.5 / 1.5, 4 + 0.1 * 3 / std::sqrt(12.0)};
  std::vector<double> got = w.ToVector<double>();
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[i], want[i], 1e-7) << i;
  EXPECT_EQ(h.ToVector<double>(), (std::vector<double>{0, 1, 2.25, 12}));
  NDArray wd = NDArray::FromVector<float>({1, 1}, Shape{2});
  NDArray hd = NDArray::FromVector<float>({0, 0}, Shape{2});
  nd::sparse_adagrad_update(wd, NDArray::FromVector<float>({1, -1}, Shape{2}), hd,
                            {.lr = 0.5f, .epsilon = 0.0f}, wd);
  EXPECT_EQ(wd.ToVector<float>(), (std::vector<float>{0.5f, 1.5f}));
  EXPECT_THAT(
      testing::ErrorOf([&] { nd::sparse_adagrad_update(w, g, h, {.lr = 0.1f, .wd = 0.1f}, w); }),
      HasSubstr("wd"));
}

TEST(LazyUpdate, Errors) {
  NDArray w = NDArray::FromVector<float>({1, 2, 3, 4}, Shape{2, 2});
  // A row_sparse grad whose stored rows exceed the weight (parts checked only for shape).
  NDArray g = sparse_zeros(StorageType::kRowSparse, Shape{2, 2});
  SetSparseParts(g, NDArray::FromVector<float>({1, 1}, Shape{1, 2}),
                 {NDArray::FromVector<int64_t>({5}, Shape{1})});
  EXPECT_THAT(testing::ErrorOf([&] { nd::sgd_update(w, g, {.lr = 0.1f}, w); }),
              HasSubstr("gradient row 5 is outside the weight's 2 rows"));
  // A row_sparse state cannot be updated in place by the dense fallback.
  NDArray mom = sparse_zeros(StorageType::kRowSparse, Shape{2, 2});
  EXPECT_THAT(
      testing::ErrorOf([&] { nd::sgd_mom_update(w, g, mom, {.lr = 0.1f, .momentum = 0.9f}, w); }),
      HasSubstr("updated in place"));
}

}  // namespace
}  // namespace mxnet
