// Tests of reduce_np_percentile.cc (_npi_percentile, _npi_unique): values from real MXNet 1.9.1
// (testdata/reduce/np_percentile.json, tools/conformance/refs_np_percentile.py; the generator
// checked each against NumPy), MXNet's registry entries and rejected calls, hand-computed values.
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

json LoadJson() { return LoadRefJson("ndarray/ops/testdata/reduce/np_percentile.json"); }

TEST(MXNetRefs, ValuesMatch) {
  // MXNet 1.9.1 interpolates with float32 positions and weights (float64 data too), ours in
  // double as NumPy: float64 results agree to float32 precision.
  RefFileCounts r = CheckRefFile(LoadJson(), [](const NDArray& got, const NDArray& want) {
    return AllClose(got, want, 2e-6, 1e-7);
  });
  EXPECT_GE(r.cases, 42);
  EXPECT_EQ(r.ops.size(), 2u);
}

TEST(MXNetRefs, RejectedLikeMXNet) { EXPECT_EQ(CheckRefErrors(LoadJson()), 5u); }

TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["ops"].size(), 2u);
  for (auto& [name, info] : doc["ops"].items()) CheckRegistryEntry(name, info, {});
}

TEST(NpPercentile, ByHand) {
  // [1, 2, 3, 4]: position q/100 * 3.
  NDArray x = Arr({4, 1, 3, 2}, {4});
  auto at = [&](double q, const char* how) {
    return Vals(Invoke("_npi_percentile", std::vector<NDArray>{x},
                       {{"q_scalar", std::to_string(q)}, {"interpolation", how}})[0])[0];
  };
  EXPECT_DOUBLE_EQ(at(50, "linear"), 2.5);
  EXPECT_DOUBLE_EQ(at(50, "lower"), 2);
  EXPECT_DOUBLE_EQ(at(50, "higher"), 3);
  EXPECT_DOUBLE_EQ(at(50, "midpoint"), 2.5);
  EXPECT_DOUBLE_EQ(at(50, "nearest"), 3);  // position 1.5 rounds half to even: 2
  // numpy.percentile([1, 2], 50, interpolation='nearest') = 1: position 0.5 rounds to 0 (MXNet
  // 1.9.1 rounds half away from zero: 2).
  EXPECT_EQ(Vals(Invoke("_npi_percentile", std::vector<NDArray>{Arr({2, 1}, {2})},
                        {{"q_scalar", "50"}, {"interpolation", "nearest"}})[0]),
            (std::vector<double>{1}));
  EXPECT_DOUBLE_EQ(at(100, "linear"), 4);
  // float64 in -> float64 out; int32 in -> float32 out (MXNet's rule).
  NDArray i = Arr({1, 2}, {2}, DType::kInt32);
  EXPECT_EQ(Invoke("_npi_percentile", std::vector<NDArray>{i}, {{"q_scalar", "50"}})[0].dtype(),
            DType::kFloat32);
  ExpectInvalidArgument(
      [&] {
        Invoke("_npi_percentile", std::vector<NDArray>{x}, {{"q_scalar", "-1"}});
      },
      {"_npi_percentile", "[0, 100]"});
}

TEST(NpUnique, ByHand) {
  NDArrayVec o =
      Invoke("_npi_unique", std::vector<NDArray>{Arr({3, 1, 3, 2, 1, 3}, {6})},
             {{"return_index", "True"}, {"return_inverse", "True"}, {"return_counts", "True"}});
  ASSERT_EQ(o.size(), 4u);
  EXPECT_EQ(Vals(o[0]), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(Vals(o[1]), (std::vector<double>{1, 3, 0}));
  EXPECT_EQ(Vals(o[2]), (std::vector<double>{2, 0, 2, 1, 0, 2}));
  EXPECT_EQ(Vals(o[3]), (std::vector<double>{2, 1, 3}));
  EXPECT_EQ(o[1].dtype(), DType::kInt64);
  // Rows: [[1, 2], [0, 5], [1, 2]] -> [[0, 5], [1, 2]].
  o = Invoke("_npi_unique", std::vector<NDArray>{Arr({1, 2, 0, 5, 1, 2}, {3, 2})}, {{"axis", "0"}});
  EXPECT_EQ(o[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(Vals(o[0]), (std::vector<double>{0, 5, 1, 2}));
  EXPECT_FALSE(OpRegistry::Get("_npi_unique").differentiable());
  EXPECT_FALSE(OpRegistry::Get("_npi_percentile").differentiable());
}

}  // namespace
}  // namespace mxnet::testing
