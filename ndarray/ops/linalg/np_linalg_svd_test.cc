// Tests of reduce_np_linalg_svd.cc (_npi_svd, _npi_pinv, _npi_pinv_scalar_rcond): values and svd
// gradients from real MXNet 1.9.1 (testdata/reduce/np_svd.json, tools/conformance/refs_np_svd.py;
// pinv also checked there against numpy.linalg.pinv), MXNet's registry entries and rejected calls,
// and hand-computed values.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

NDArray Arr(std::vector<double> v, Shape s, DType t = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), t);
}
std::vector<double> Vals(const NDArray& a) { return a.ToVector<double>(); }

json LoadJson() { return LoadRefJson("ndarray/ops/testdata/reduce/np_svd.json"); }

TEST(MXNetRefs, ValuesAndGradientsMatch) {
  // MXNet's LAPACK works in the input's float type, ours in double.
  RefFileCounts r = CheckRefFile(LoadJson(), DTypeTolerance(1e-4, 1e-5));
  EXPECT_GE(r.cases, 30);
  EXPECT_GE(r.with_grads, 17);  // not MXNet's wrong spectral / matrix ord +-1 norm gradients
  EXPECT_EQ(r.ops.size(), 4u);
}

TEST(MXNetRefs, RejectedLikeMXNet) { EXPECT_EQ(CheckRefErrors(LoadJson()), 5u); }

TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["ops"].size(), 4u);
  for (auto [name, info] : doc["ops"].items()) {
    // MXNet's registry lists no attributes for _npi_norm (undocumented NumpyNormParam); these are
    // its fields and defaults (src/operator/numpy/linalg/np_norm-inl.h).
    if (name == "_npi_norm")
      info["attrs"] = json::parse(R"([["ord", "double, optional, default=2"],
          ["axis", "Shape or None, optional, default=None"],
          ["keepdims", "boolean, optional, default=0"], ["flag", "int, optional, default=-1"]])");
    CheckRegistryEntry(name, info, {});
  }
}

TEST(NpSvd, ByHand) {
  // diag(3, 2) with columns swapped: singular values 3, 2; V's rows signed positive at their max.
  NDArrayVec o = Invoke("_npi_svd", std::vector<NDArray>{Arr({0, 3, 0, -2, 0, 0}, {2, 3})}, {});
  EXPECT_EQ(Vals(o[1]), (std::vector<double>{3, 2}));
  std::vector<double> v = Vals(o[2]), ut = Vals(o[0]);
  EXPECT_NEAR(v[1], 1, 1e-7);  // row 0 = e_1
  EXPECT_NEAR(v[3], 1, 1e-7);  // row 1 = e_0
  EXPECT_NEAR(ut[0], 1, 1e-7);
  EXPECT_NEAR(ut[3], -1, 1e-7);  // A[1, 0] = -2 = ut[1, 1] * 2 * v[1, 0]
  ExpectInvalidArgument(
      [&] {
        Invoke("_npi_svd", std::vector<NDArray>{Arr({1, 2}, {2, 1})}, {});
      },
      {"_npi_svd", "more rows than columns"});
  ExpectInvalidArgument(
      [&] {
        Invoke("_npi_svd", std::vector<NDArray>{Arr({1, 2}, {1, 2}, DType::kInt32)}, {});
      },
      {"_npi_svd", "int32"});
}

TEST(NpPinv, ByHand) {
  // pinv(diag(2, 0.001)) with rcond 0.01 drops the small value.
  NDArray r = Invoke("_npi_pinv_scalar_rcond", std::vector<NDArray>{Arr({2, 0, 0, 0.001}, {2, 2})},
                     {{"rcond", "0.01"}})[0];
  std::vector<double> v = Vals(r);
  EXPECT_NEAR(v[0], 0.5, 1e-7);
  EXPECT_NEAR(v[3], 0, 1e-7);
  // A 3 x 2 full-rank matrix: pinv(A) A = I.
  NDArray a = Arr({1, 2, 3, 4, 5, 7}, {3, 2}, DType::kFloat64);
  NDArray p = Invoke("_npi_pinv_scalar_rcond", std::vector<NDArray>{a}, {})[0];
  EXPECT_EQ(p.shape(), (Shape{2, 3}));
  EXPECT_EQ(p.dtype(), DType::kFloat64);
  std::vector<double> pv = Vals(p), av = Vals(a);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      double acc = 0;
      for (int k = 0; k < 3; ++k) acc += pv[i * 3 + k] * av[k * 2 + j];
      EXPECT_NEAR(acc, i == j ? 1 : 0, 1e-12);
    }
  // Integers give float64 (MXNet's rule).
  EXPECT_EQ(Invoke("_npi_pinv_scalar_rcond",
                   std::vector<NDArray>{Arr({1, 0, 0, 1}, {2, 2}, DType::kInt32)}, {})[0]
                .dtype(),
            DType::kFloat64);
}

TEST(NpNorm, MatricesWithMoreRowsThanColumns) {
  // numpy.linalg.norm of a 3 x 2 matrix: 'nuc', 2, -2 (MXNet 1.9.1's nuclear norm fails for
  // more rows than columns).
  NDArray a = Arr({0.5, 1, 2, 3, 4, 6}, {3, 2}, DType::kFloat64);
  auto norm = [&](AttrDict at) {
    return Vals(Invoke("_npi_norm", std::vector<NDArray>{a}, at)[0])[0];
  };
  EXPECT_NEAR(norm({{"axis", "(0, 1)"}, {"flag", "2"}}), 8.275630971563427, 1e-12);
  EXPECT_NEAR(norm({{"axis", "(0, 1)"}, {"flag", "0"}}), 8.138250837793423, 1e-12);
  EXPECT_NEAR(norm({{"ord", "-2"}, {"axis", "(0, 1)"}, {"flag", "0"}}), 0.13738013377000358, 1e-12);
  // Vector forms by hand: [3, -4] -> 7 (ord 1), 5 (ord 2), 4 (inf), 2 nonzeros (ord 0).
  NDArray v = Arr({3, -4}, {2});
  auto vn = [&](const char* ord) {
    return Vals(Invoke("_npi_norm", std::vector<NDArray>{v}, {{"ord", ord}})[0])[0];
  };
  EXPECT_DOUBLE_EQ(vn("1"), 7);
  EXPECT_DOUBLE_EQ(vn("2"), 5);
  EXPECT_DOUBLE_EQ(vn("inf"), 4);
  EXPECT_DOUBLE_EQ(vn("0"), 2);
  // Integers keep their dtype (the norm truncated).
  NDArray i = Invoke("_npi_norm", std::vector<NDArray>{Arr({3, 4, 1}, {3}, DType::kInt32)},
                     {{"flag", "-2"}})[0];
  EXPECT_EQ(i.dtype(), DType::kInt32);
  EXPECT_EQ(Vals(i), (std::vector<double>{5}));
  ExpectInvalidArgument(
      [&] {
        Invoke("_npi_norm", std::vector<NDArray>{a}, {{"ord", "3"}, {"axis", "(0, 1)"}});
      },
      {"_npi_norm", "invalid norm order 3 for matrices"});
}

}  // namespace
}  // namespace mxnet::testing
