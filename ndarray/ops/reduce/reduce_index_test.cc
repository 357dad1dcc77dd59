// Tests of reduce_index.cc's internal index/count ops: reference values (and the zero /
// square-sum gradients) from real MXNet 1.9.1 (testdata/reduce/index.json,
// tools/conformance/refs_reduce_index.py), MXNet's registry entries and errors, hand values.
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

json LoadJson() { return LoadRefJson("ndarray/ops/testdata/reduce/index.json"); }

TEST(MXNetRefs, ValuesAndGradientsMatch) {
  RefFileCounts r = CheckRefFile(LoadJson(), DTypeTolerance(1e-6, 1e-7));
  EXPECT_GE(r.cases, 34);
  EXPECT_GE(r.with_grads, 6);
  for (const char* o : {"_ravel_multi_index", "_unravel_index", "_histogram", "_onehot_encode",
                        "_scatter_set_nd", "_square_sum"})
    EXPECT_TRUE(r.ops.count(o)) << o;
}

TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json doc = LoadJson();
  ASSERT_EQ(doc["ops"].size(), 6u);
  for (auto& [name, info] : doc["ops"].items()) {
    // A legacy NDArray function in MXNet: its inputs are listed as attributes there.
    if (name == "_onehot_encode") {
      EXPECT_EQ(OpRegistry::Get(name).InputNames(OpAttrs::Parse(OpRegistry::Get(name), {})),
                (std::vector<std::string>{"lhs", "rhs"}));
      continue;
    }
    CheckRegistryEntry(name, info,
                       name == "_scatter_set_nd" ? AttrDict{{"shape", "(2,)"}} : AttrDict{});
  }
}

TEST(MXNetErrors, RejectedLikeMXNet) { EXPECT_EQ(CheckRefErrors(LoadJson()), 9u); }

TEST(RavelUnravel, ByHand) {
  NDArray flat = Invoke("_ravel_multi_index", std::vector<NDArray>{Arr({1, 2, 3, 0}, {2, 2})},
                        {{"shape", "(4, 5)"}})[0];
  EXPECT_EQ(Vals(flat), (std::vector<double>{8, 10}));  // 1*5+3, 2*5+0
  NDArray back = Invoke("_unravel_index", std::vector<NDArray>{flat}, {{"shape", "(4, 5)"}})[0];
  EXPECT_EQ(Vals(back), (std::vector<double>{1, 2, 3, 0}));
  ExpectInvalidArgument(
      [] {
        Invoke("_unravel_index", std::vector<NDArray>{Arr({1, 2, 3, 4}, {2, 2})},
               {{"shape", "(4, 5)"}});
      },
      {"_unravel_index", "1-D"});
}

TEST(Histogram, ByHand) {
  NDArrayVec r = Invoke("_histogram", std::vector<NDArray>{Arr({0, 0.5, 1, 1.5, 2, 5}, {6})},
                        {{"bin_cnt", "2"}, {"range", "(0, 2)"}});
  EXPECT_EQ(r[0].dtype(), DType::kInt64);
  EXPECT_EQ(Vals(r[0]), (std::vector<double>{2, 3}));  // 2 counts in the last bin's right edge
  EXPECT_EQ(Vals(r[1]), (std::vector<double>{0, 1, 2}));
  ExpectInvalidArgument(
      [] {
        Invoke("_histogram",
               std::vector<NDArray>{Arr({1}, {1}), Arr({0, 1}, {2}, DType::kFloat64)});
      },
      {"_histogram", "bins"});
  ExpectInvalidArgument(
      [] {
        Invoke("_histogram", std::vector<NDArray>{Arr({1}, {1})},
               {{"bin_cnt", "-1"}, {"range", "(0, 1)"}});
      },
      {"_histogram", "bin_cnt=-1"});
}

TEST(ScatterSetNd, ByHandAndErrors) {
  NDArray y = Invoke("_scatter_set_nd",
                     std::vector<NDArray>{Arr({1, 2, 3}, {3}), Arr({7}, {1}), Arr({-1}, {1, 1})},
                     {{"shape", "(3,)"}})[0];
  EXPECT_EQ(Vals(y), (std::vector<double>{1, 2, 7}));  // negative counts from the end
  try {
    Invoke("_scatter_set_nd",
           std::vector<NDArray>{Arr({1, 2, 3}, {3}), Arr({7}, {1}), Arr({3}, {1, 1})},
           {{"shape", "(3,)"}});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), absl::StatusCode::kOutOfRange) << e.what();
  }
  ExpectInvalidArgument(
      [] {
        Invoke("_scatter_set_nd",
               std::vector<NDArray>{Arr({1, 2, 3}, {3}), Arr({7}, {1}), Arr({1}, {1, 1})},
               {{"shape", "(4,)"}});
      },
      {"_scatter_set_nd", "lhs"});
}

TEST(SquareSum, ByHand) {
  NDArray y = Invoke("_square_sum", std::vector<NDArray>{Arr({1, 2, 3, 4}, {2, 2})},
                     {{"axis", "(0,)"}, {"exclude", "True"}})[0];
  EXPECT_EQ(Vals(y), (std::vector<double>{5, 25}));
  NDArray all = Invoke("_square_sum", std::vector<NDArray>{Arr({1, 2, 3, 4}, {2, 2})})[0];
  EXPECT_EQ(Vals(all), (std::vector<double>{30}));
}

}  // namespace
}  // namespace mxnet::testing
