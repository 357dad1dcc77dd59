// Tests of the NumPy-interface matrix products (reduce_np_linalg.cc): values, gradients, registry
// entries and rejected calls from real MXNet 1.9.1 (testdata/reduce/np_linalg.json, written by
// tools/conformance/refs_np_linalg.py), hand-computed values, dtype rules and errors; the
// cholesky/solve/tensorinv/tensorsolve ops of reduce_np_linalg_solve.cc and eigh/eigvalsh of
// reduce_np_linalg_eig.cc too.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/linalg/np_linalg_api.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

NDArray Arr(std::vector<double> v, Shape s, DType t = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), t);
}
std::vector<double> Vals(const NDArray& a) { return a.ToVector<double>(); }

json LoadJson() { return LoadRefJson("ndarray/ops/testdata/reduce/np_linalg.json"); }

TEST(MXNetRefs, ValuesAndGradientsMatch) {
  // MXNet's float32 kernels accumulate in float32, ours in double.
  RefFileCounts r = CheckRefFile(LoadJson(), DTypeTolerance(2e-5, 2e-6));
  EXPECT_GE(r.cases, 62);
  EXPECT_GE(r.with_grads, 45);
  EXPECT_EQ(r.ops.size(), 11u);
}

TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["ops"].size(), 11u);
  for (auto& [name, info] : doc["ops"].items()) {
    AttrDict required;
    if (name == "_npi_tensordot") required = {{"a_axes_summed", "(0,)"}, {"b_axes_summed", "(0,)"}};
    if (name == "_npi_tensordot_int_axes") required = {{"axes", "1"}};
    if (name == "_npi_einsum") required = {{"num_args", "1"}};
    CheckRegistryEntry(name, info, required);
  }
}

TEST(MXNetErrors, RejectedLikeMXNet) { EXPECT_EQ(CheckRefErrors(LoadJson()), 28u); }

TEST(NpDot, ByHand) {
  NDArray a = Arr({1, 2, 3, 4, 5, 6}, {2, 3});
  NDArray v = Arr({1, 0, -1}, {3});
  NDArray r = nd::np::dot(a, v);
  EXPECT_EQ(r.shape(), (Shape{2}));
  EXPECT_EQ(Vals(r), (std::vector<double>{-2, -2}));
  NDArray s = nd::np::dot(v, v);  // 1-D . 1-D -> 0-dim
  EXPECT_EQ(s.shape().ndim(), 0);
  EXPECT_EQ(Vals(s), (std::vector<double>{2}));
  NDArray k = nd::np::dot(Arr({2}, {}), a);  // 0-dim scales
  EXPECT_EQ(Vals(k), (std::vector<double>{2, 4, 6, 8, 10, 12}));
  // N-D . M-D: a[:-1] + b[:-2] + b[-1:]
  NDArray b = Arr(std::vector<double>(4 * 3 * 5, 1.0), {4, 3, 5});
  EXPECT_EQ(nd::np::dot(a, b).shape(), (Shape{2, 4, 5}));
}

TEST(NpMatmul, BroadcastAndVectors) {
  NDArray a = Arr(std::vector<double>(2 * 1 * 3 * 4, 1.0), {2, 1, 3, 4});
  NDArray b = Arr(std::vector<double>(5 * 4 * 6, 0.5), {5, 4, 6});
  NDArray c = nd::np::matmul(a, b);
  EXPECT_EQ(c.shape(), (Shape{2, 5, 3, 6}));
  EXPECT_EQ(Vals(c)[0], 2.0);
  EXPECT_EQ(nd::np::matmul(Arr({1, 2, 3, 4}, {4}), b).shape(), (Shape{5, 6}));
  EXPECT_EQ(nd::np::matmul(a, Arr({1, 2, 3, 4}, {4})).shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(Vals(nd::np::matmul(Arr({1, 2}, {2}), Arr({3, 4}, {2}))), (std::vector<double>{11}));
}

TEST(NpTensordot, AxesListsAndInt) {
  NDArray a = Arr({1, 2, 3, 4, 5, 6}, {2, 3});
  NDArray b = Arr({1, 2, 3, 4, 5, 6}, {3, 2});
  // a's axis 1 with b's axis 0: the matrix product.
  NDArray m = nd::np::tensordot(a, b, Shape{1}, Shape{0});
  EXPECT_EQ(Vals(m), (std::vector<double>{22, 28, 49, 64}));
  EXPECT_EQ(Vals(nd::np::tensordot(a, b, 1)), (std::vector<double>{22, 28, 49, 64}));
  // a's axes (0, 1) with b's (1, 0): sum_ij a_ij b_ji = trace(a b).
  EXPECT_EQ(Vals(nd::np::tensordot(a, b, Shape{0, 1}, Shape{1, 0})), (std::vector<double>{86}));
  EXPECT_EQ(nd::np::tensordot(a, b, 0).shape(), (Shape{2, 3, 3, 2}));
}

TEST(NpEinsum, SubscriptForms) {
  NDArray m = Arr({1, 2, 3, 4}, {2, 2});
  EXPECT_EQ(Vals(nd::np::einsum("ii", {m})), (std::vector<double>{5}));
  EXPECT_EQ(Vals(nd::np::einsum("ii->i", {m})), (std::vector<double>{1, 4}));
  EXPECT_EQ(Vals(nd::np::einsum("ij->ji", {m})), (std::vector<double>{1, 3, 2, 4}));
  EXPECT_EQ(Vals(nd::np::einsum("ba", {m})), (std::vector<double>{1, 3, 2, 4}));  // implicit: ab
  EXPECT_EQ(nd::np::einsum("...ij,...jk->...ik", {Arr(std::vector<double>(12, 1), {2, 2, 3}),
                                                  Arr(std::vector<double>(6, 1), {1, 3, 2})})
                .shape(),
            (Shape{2, 2, 2}));
  // Any dtype; integers are exact.
  NDArray i = nd::np::einsum(
      "ij,j->i", {Arr({1, 2, 3, 4}, {2, 2}, DType::kInt64), Arr({10, 100}, {2}, DType::kInt64)});
  EXPECT_EQ(i.dtype(), DType::kInt64);
  EXPECT_EQ(Vals(i), (std::vector<double>{210, 430}));
}

TEST(NpEinsum, GradientOfDiagonalScattersBack) {
  const Op& op = OpRegistry::Get("_npi_einsum");
  OpAttrs attrs = OpAttrs::Parse(op, {{"num_args", "1"}, {"subscripts", "ii->i"}});
  std::vector<NDArray> in = {Arr({1, 2, 3, 4}, {2, 2})};
  NDArrayVec out = Invoke(op, attrs, in);
  std::vector<NDArray> outs = {out[0]}, og = {Arr({5, 7}, {2})};
  auto g = EagerGradBuilder::Run(op, attrs, in, outs, og);
  EXPECT_EQ(Vals(g[0]), (std::vector<double>{5, 0, 0, 7}));
}

TEST(NpLinalgErrors, NamedAndClear) {
  NDArray a = Arr({1, 2, 3, 4, 5, 6}, {2, 3});
  ExpectInvalidArgument([&] { nd::np::dot(a, a); }, {"_np_dot", "not aligned", "(2, 3)"});
  ExpectInvalidArgument([&] { nd::np::matmul(Arr({1}, {}), a); }, {"_npi_matmul", "0-dim"});
  ExpectInvalidArgument(
      [&] {
        nd::np::tensordot(a, Arr({1, 2, 3}, {3}), 2);
      },
      {"_npi_tensordot_int_axes", "axes 2"});
  ExpectInvalidArgument(
      [&] {
        nd::np::tensordot(a, a, Shape{0, 1}, Shape{0});
      },
      {"_npi_tensordot", "different lengths"});
  ExpectInvalidArgument([&] { nd::np::tensordot(a, a, Shape{2}, Shape{0}); },
                        {"_npi_tensordot", "out of range"});
  ExpectInvalidArgument(
      [&] {
        nd::np::einsum("ij,jk->il", {a, Arr({1, 2, 3}, {3, 1})});
      },
      {"_npi_einsum", "'l'"});
  ExpectInvalidArgument([&] { nd::np::einsum("ij->ii", {a}); }, {"_npi_einsum", "repeats"});
  ExpectInvalidArgument([&] { nd::np::einsum("i.j", {a}); }, {"_npi_einsum", "'.'"});
  ExpectInvalidArgument(
      [&] {
        nd::np::einsum("ij", {Arr({1, 2, 3}, {3})});
      },
      {"_npi_einsum", "dimensions"});
  ExpectInvalidArgument([&] { nd::np::dot(a, Arr({1, 2, 3}, {3}, DType::kFloat64)); }, {"_np_dot"});
  ExpectInvalidArgument(
      [&] {
        nd::np::matmul(Arr({1, 2}, {1, 2}, DType::kInt32), Arr({1, 2}, {2, 1}, DType::kInt32));
      },
      {"_npi_matmul", "int32", "float32 and float64 only"});
}

TEST(NpCholesky, ByHandAndErrors) {
  NDArray l = nd::np::linalg::cholesky(Arr({4, 100, 2, 10}, {2, 2}));  // upper triangle ignored
  EXPECT_EQ(Vals(l), (std::vector<double>{2, 0, 1, 3}));
  ExpectInvalidArgument(
      [&] {
        nd::np::linalg::cholesky(Arr({1, 2, 2, 1}, {2, 2}));
      },
      {"_npi_cholesky", "not symmetric positive definite"});
  ExpectInvalidArgument(
      [&] {
        nd::np::linalg::cholesky(Arr({1, 2, 3, 4, 5, 6}, {2, 3}));
      },
      {"_npi_cholesky", "square", "(2, 3)"});
  EXPECT_EQ(nd::np::linalg::cholesky(Arr({}, {0, 0})).shape(), (Shape{0, 0}));
}

TEST(NpSolve, ByHandDtypesAndErrors) {
  NDArray a = Arr({2, 1, 1, 3}, {2, 2});
  NDArray x = nd::np::linalg::solve(a, Arr({3, 5}, {2}));
  EXPECT_EQ(x.dtype(), DType::kFloat32);
  EXPECT_TRUE(AllClose(x, Arr({0.8, 1.4}, {2}), 1e-6, 1e-6));
  // Integer or mixed inputs give float64 (MXNet's rule).
  NDArray xi = nd::np::linalg::solve(Arr({2, 1, 1, 3}, {2, 2}, DType::kInt32),
                                     Arr({3, 5}, {2}, DType::kInt32));
  EXPECT_EQ(xi.dtype(), DType::kFloat64);
  EXPECT_EQ(nd::np::linalg::solve(a, Arr({3, 5}, {2}, DType::kFloat64)).dtype(), DType::kFloat64);
  ExpectInvalidArgument(
      [&] {
        nd::np::linalg::solve(Arr({1, 1, 1, 1}, {2, 2}), Arr({1, 1}, {2}));
      },
      {"_npi_solve", "singular"});
  ExpectInvalidArgument(
      [&] {
        nd::np::linalg::solve(a, Arr({1, 1, 1}, {3}));
      },
      {"_npi_solve", "rows"});
  ExpectInvalidArgument(
      [&] {
        nd::np::linalg::solve(a.astype(DType::kFloat16), Arr({1, 1}, {2}, DType::kFloat16));
      },
      {"_npi_solve", "float16"});
}

TEST(NpTensorinv, InverseUnderTensordot) {
  // a (4, 2, 2) with ind=1: tensordot(inv, a, 1) is the (2, 2, 2, 2) identity.
  std::vector<double> v = RandomArray({4, 4}, -1, 1, 5, DType::kFloat64).ToVector<double>();
  for (int i = 0; i < 4; ++i) v[i * 4 + i] += 3;
  NDArray a = Arr(v, {4, 2, 2}, DType::kFloat64);
  NDArray inv = nd::np::linalg::tensorinv(a, 1);
  EXPECT_EQ(inv.shape(), (Shape{2, 2, 4}));
  std::vector<double> p = Vals(nd::np::tensordot(inv, a, 1));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_NEAR(p[i * 4 + j], i == j ? 1.0 : 0.0, 1e-12);
  ExpectInvalidArgument(
      [&] {
        nd::np::linalg::tensorinv(Arr({1, 2, 3, 4, 5, 6}, {2, 3}), 1);
      },
      {"_npi_tensorinv", "not square"});
  ExpectInvalidArgument([&] { nd::np::linalg::tensorinv(a, 4); }, {"_npi_tensorinv", "ind 4"});
  ExpectInvalidArgument(
      [&] {
        nd::np::linalg::tensorinv(Arr({1, 0, 0, 1}, {2, 2}, DType::kInt32), 1);
      },
      {"_npi_tensorinv", "int32"});
}

TEST(NpTensorsolve, SolvesUnderTensordot) {
  std::vector<double> v = RandomArray({6, 6}, -1, 1, 9, DType::kFloat64).ToVector<double>();
  for (int i = 0; i < 6; ++i) v[i * 6 + i] += 3;
  NDArray a = Arr(v, {6, 2, 3}, DType::kFloat64);  // a_axes (0,): a' is (2, 3, 6)
  NDArray b = Arr({1, 2, 3, 4, 5, 6}, {2, 3}, DType::kFloat64);
  NDArray x = nd::np::linalg::tensorsolve(a, b, Shape{0});
  EXPECT_EQ(x.shape(), (Shape{6}));
  // sum_k a[k, i, j] x[k] == b[i, j]
  std::vector<double> got = Vals(nd::np::tensordot(a, x, Shape{0}, Shape{0}));
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(got[i], i + 1.0, 1e-12);
  ExpectInvalidArgument(
      [&] {
        nd::np::linalg::tensorsolve(Arr(std::vector<double>(30, 1), {2, 3, 5}), b);
      },
      {"_npi_tensorsolve", "not square"});
  ExpectInvalidArgument([&] { nd::np::linalg::tensorsolve(a, b, Shape{3}); },
                        {"_npi_tensorsolve", "out of range"});
}

TEST(NpEigh, DecomposesWithMXNetSigns) {
  // Lower triangle of [[2, 1], [1, 2]] (the upper 9 is ignored): w = (1, 3).
  NDArray a = Arr({2, 9, 1, 2}, {2, 2}, DType::kFloat64);
  auto [w, v] = nd::np::linalg::eigh(a);
  EXPECT_TRUE(AllClose(w, Arr({1, 3}, {2}, DType::kFloat64), 1e-12, 1e-12));
  double r = std::sqrt(0.5);
  // Columns (-r, r) -> sign flipped so the largest-magnitude (first on ties) entry is positive.
  EXPECT_TRUE(AllClose(v, Arr({r, r, -r, r}, {2, 2}, DType::kFloat64), 1e-12, 1e-12));
  EXPECT_TRUE(AllClose(nd::np::linalg::eigvalsh(a, "U"), Arr({-7, 11}, {2}, DType::kFloat64), 1e-12,
                       1e-12));
  EXPECT_EQ(nd::np::linalg::eigvalsh(Arr({2, 1, 1, 2}, {2, 2}, DType::kInt32)).dtype(),
            DType::kFloat64);
  ExpectInvalidArgument(
      [&] {
        nd::np::linalg::eigvalsh(Arr({1, 2, 3, 4, 5, 6}, {2, 3}));
      },
      {"_npi_eigvalsh", "square"});
  ExpectInvalidArgument([&] { nd::np::linalg::eigvalsh(a, "X"); }, {"_npi_eigvalsh", "UPLO"});
}

}  // namespace
}  // namespace mxnet::testing
