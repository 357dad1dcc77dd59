// Tests of shape_np_choice.cc (_npi_choice): shapes, dtype and index frequencies against real MXNet
// 1.9.1's (testdata/shape/np_choice.json, tools/conformance/refs_np_choice.py: 20000 draws per
// call form; the generators differ, so values are compared as distributions), distinct draws
// without replacement, the registry entry, errors and seeded repeatability.
#include <cmath>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/random.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet::testing {
namespace {

using json = nlohmann::json;

json LoadJson() { return LoadRefJson("ndarray/ops/testdata/shape/np_choice.json"); }

TEST(MXNetRefs, FrequenciesShapesAndDtypesMatch) {
  json doc = LoadJson();
  ASSERT_EQ(doc["mxnet_version"], "1.9.1");
  ASSERT_EQ(doc["cases"].size(), 8u);
  random::seed(7);
  for (const auto& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    AttrDict attrs = c["attrs"].get<AttrDict>();
    std::vector<NDArray> in;
    for (const auto& x : c["inputs"]) in.push_back(RefArray(x));
    std::vector<double> want = c["freq"].get<std::vector<double>>();
    std::vector<double> got(want.size(), 0.0);
    int calls = c["calls"];
    bool distinct = true;
    double total = 0;
    for (int k = 0; k < calls; ++k) {
      NDArray y = Invoke("_npi_choice", in, attrs)[0];
      if (k == 0) {
        EXPECT_EQ(y.shape(), Shape(c["shape"].get<std::vector<int64_t>>()));
        EXPECT_EQ(DTypeName(y.dtype()), c["dtype"].get<std::string>());
      }
      std::vector<double> v = y.ToVector<double>();
      distinct = distinct && std::set<double>(v.begin(), v.end()).size() == v.size();
      for (double i : v) {
        ASSERT_GE(i, 0);
        ASSERT_LT(i, static_cast<double>(want.size()));
        got[static_cast<size_t>(i)] += 1, total += 1;
      }
    }
    if (attrs.count("replace") && attrs["replace"] == "False") {
      EXPECT_TRUE(distinct);
      EXPECT_TRUE(c["distinct"].get<bool>());
    }
    for (size_t i = 0; i < want.size(); ++i) {
      double f = got[i] / total, pbar = (f + want[i]) / 2;
      // Two independent samples of `total` draws: 6 standard errors of the difference.
      double tol = 6 * std::sqrt(2 * pbar * (1 - pbar) / total) + 1e-9;
      EXPECT_NEAR(f, want[i], tol) << "index " << i;
      if (want[i] == 0) {
        EXPECT_EQ(got[i], 0) << "index " << i << " has probability 0";
      }
    }
  }
}

TEST(MXNetRegistry, NamesAttributesAndDefaults) {
  json info = LoadJson()["ops"]["_npi_choice"];
  // MXNet lists both input slots; with a=None and weighted=False there is one (its
  // FListInputNames gives the same).
  info["inputs"] = {"input1"};
  CheckRegistryEntry("_npi_choice", info, {{"a", "None"}, {"size", "None"}});
}

TEST(NpChoice, SeededRunsRepeatAndErrors) {
  AttrDict at = {{"a", "10"}, {"size", "(6,)"}, {"replace", "False"}};
  random::seed(3);
  std::vector<double> x = Invoke("_npi_choice", {}, at)[0].ToVector<double>();
  random::seed(3);
  EXPECT_EQ(Invoke("_npi_choice", {}, at)[0].ToVector<double>(), x);
  ExpectInvalidArgument(
      [&] {
        Invoke("_npi_choice", {}, {{"a", "3"}, {"size", "(4,)"}, {"replace", "False"}});
      },
      {"_npi_choice", "larger sample (4) than the population (3)"});
  ExpectInvalidArgument(
      [&] {
        Invoke("_npi_choice",
               std::vector<NDArray>{NDArray::FromVector(std::vector<double>{1, 1}, Shape{2})},
               {{"a", "3"}, {"size", "(4,)"}, {"weighted", "True"}});
      },
      {"_npi_choice", "p has 2 values for a population of 3"});
  EXPECT_FALSE(OpRegistry::Get("_npi_choice").differentiable());
}

}  // namespace
}  // namespace mxnet::testing
