// Tests of reduce_np_linalg_geev.cc (_npi_eig, _npi_eigvals): values from real MXNet 1.9.1
// (testdata/reduce/np_eig.json, tools/conformance/refs_np_eig.py) in MXNet's (LAPACK's) order,
// eigenvector columns up to their sign (LAPACK's is arbitrary), MXNet's registry entries and
// rejected calls, and A v = w v by hand.
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

// Each column of the (..., n, n) array `v` with its largest-magnitude entry positive.
void SignNormalize(json& v) {
  std::vector<int64_t> s = v["shape"];
  int64_t n = s.back();
  std::vector<double> d = v["data"];
  for (size_t b = 0; n > 0 && b < d.size() / (n * n); ++b)
    for (int64_t c = 0; c < n; ++c) {
      int64_t big = 0;
      for (int64_t r = 1; r < n; ++r)
        if (std::abs(d[b * n * n + r * n + c]) > std::abs(d[b * n * n + big * n + c])) big = r;
      if (d[b * n * n + big * n + c] < 0)
        for (int64_t r = 0; r < n; ++r) d[b * n * n + r * n + c] = -d[b * n * n + r * n + c];
    }
  v["data"] = d;
}

json LoadJson() {
  json doc = LoadRefJson("ndarray/ops/testdata/reduce/np_eig.json");
  for (auto& c : doc["cases"])
    if (c["op"] == "_npi_eig") SignNormalize(c["outputs"][1]);
  return doc;
}

TEST(MXNetRefs, ValuesMatchInLapackOrder) {
  // MXNet's LAPACK works in the input's float type, ours in double.
  RefFileCounts r = CheckRefFile(LoadJson(), DTypeTolerance(1e-4, 1e-5));
  EXPECT_GE(r.cases, 22);
  EXPECT_EQ(r.ops.size(), 2u);
}

TEST(MXNetRefs, RejectedLikeMXNet) { EXPECT_EQ(CheckRefErrors(LoadJson()), 4u); }

TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["ops"].size(), 2u);
  for (auto& [name, info] : doc["ops"].items()) CheckRegistryEntry(name, info, {});
}

TEST(NpEig, EigenpairsByHand) {
  NDArray a = Arr({4, 1, 2, 0, 3, 1, 1, 0, 1}, {3, 3}, DType::kFloat64);
  NDArrayVec o = Invoke("_npi_eig", std::vector<NDArray>{a}, {});
  std::vector<double> w = Vals(o[0]), v = Vals(o[1]), av = Vals(a);
  for (int k = 0; k < 3; ++k) {
    double norm = 0;
    for (int i = 0; i < 3; ++i) {
      double lhs = 0;
      for (int j = 0; j < 3; ++j) lhs += av[i * 3 + j] * v[j * 3 + k];
      EXPECT_NEAR(lhs, w[k] * v[i * 3 + k], 1e-12);
      norm += v[i * 3 + k] * v[i * 3 + k];
    }
    EXPECT_NEAR(norm, 1, 1e-12);
  }
  ExpectInvalidArgument(
      [&] {
        Invoke("_npi_eigvals", std::vector<NDArray>{Arr({0, -1, 1, 0}, {2, 2})}, {});
      },
      {"_npi_eigvals", "complex eigenvalues"});
  EXPECT_EQ(
      Invoke("_npi_eigvals", std::vector<NDArray>{Arr({1, 0, 0, 2}, {2, 2}, DType::kInt32)}, {})[0]
          .dtype(),
      DType::kFloat64);
}

}  // namespace
}  // namespace mxnet::testing
