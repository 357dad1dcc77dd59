// Sparse operators of the reduce family against MXNet 1.9.1 (testdata/reduce/sparse.json, from
// tools/conformance/gen_sparse_refs.py): dot with a csr lhs, _sparse_retain, _contrib_getnnz,
// with MXNet's output storage types and stored parts; plus our documented differences.
#include "ndarray/ops/reduce/reduce_sparse.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "base/strings.h"
#include "ndarray/sparse.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

NDArray In(const json& s) {
  DType t = ValueOrThrow(DTypeFromName(s["dtype"].get<std::string>()));
  NDArray d = NDArray::FromVector(s["values"].get<std::vector<double>>(),
                                  Shape(s["shape"].get<std::vector<int64_t>>()), cpu(), t);
  return d.tostype(ValueOrThrow(ParseStorageType(s["stype"].get<std::string>())));
}

void ExpectClose(const std::vector<double>& got, const json& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    double w = want[i].get<double>();
    EXPECT_NEAR(got[i], w, 1e-5 * (1 + std::fabs(w))) << what << " " << i;
  }
}

TEST(SparseOps, MatchMXNet) {
  json doc = testing::LoadRefJson("ndarray/ops/testdata/reduce/sparse.json");
  int n = 0;
  for (const json& c : doc["cases"]) {
    std::string label = StrCat(c["op"].get<std::string>(), " ", c["attrs"].dump());
    SCOPED_TRACE(label);
    std::vector<NDArray> ins;
    for (const json& s : c["inputs"]) ins.push_back(In(s));
    AttrDict attrs;
    for (const auto& [k, v] : c["attrs"].items()) attrs[k] = v.get<std::string>();
    NDArray y = Invoke(c["op"].get<std::string>(), ins, attrs)[0];
    const json& w = c["output"];
    EXPECT_EQ(std::string(StorageTypeName(y.stype())), w["stype"].get<std::string>());
    EXPECT_EQ(std::string(DTypeName(y.dtype())), w["dtype"].get<std::string>());
    EXPECT_EQ(y.shape(), Shape(w["shape"].get<std::vector<int64_t>>()));
    ExpectClose(y.ToVector<double>(), w["values"], "values");
    if (y.is_sparse()) {
      ExpectClose(y.data().ToVector<double>(), w["data"], "data");
      EXPECT_EQ(y.indices().ToVector<int64_t>(), w["indices"].get<std::vector<int64_t>>());
      EXPECT_EQ(std::string(StorageTypeName(y.stype())), "row_sparse");
    }
    ++n;
  }
  EXPECT_EQ(n, 15);
}

TEST(SparseOps, OurDifferencesFromMXNet) {
  NDArray rows = NDArray::FromVector<float>({1, 2, 0, 0, 3, 4}, Shape({3, 2}));
  NDArray rsp = rows.tostype(StorageType::kRowSparse);
  // Unsorted, repeated indices give a valid (sorted) row_sparse array.
  NDArray r =
      Invoke("_sparse_retain",
             std::vector<NDArray>{rsp, NDArray::FromVector<int64_t>({2, 0, 2}, Shape({3}))})[0];
  EXPECT_EQ(r.indices().ToVector<int64_t>(), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(r.ToVector<float>(), (std::vector<float>{1, 2, 0, 0, 3, 4}));
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke("_sparse_retain",
                       std::vector<NDArray>{rsp, NDArray::FromVector<int64_t>({3}, Shape({1}))});
              }),
              HasSubstr("index 3 is outside [0, 3)"));
  // Dense data: the other rows zeroed, dense output.
  NDArray d = Invoke("_sparse_retain",
                     std::vector<NDArray>{rows, NDArray::FromVector<int32_t>({2}, Shape({1}))})[0];
  EXPECT_EQ(d.stype(), StorageType::kDefault);
  EXPECT_EQ(d.ToVector<float>(), (std::vector<float>{0, 0, 0, 0, 3, 4}));
  // getnnz of a dense array counts non-zeros; axis 0 is refused as in MXNet.
  NDArray g = Invoke("_contrib_getnnz", std::vector<NDArray>{rows}, {{"axis", "1"}})[0];
  EXPECT_EQ(g.ToVector<int64_t>(), (std::vector<int64_t>{2, 0, 2}));
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke("_contrib_getnnz", std::vector<NDArray>{rows.tostype(StorageType::kCSR)},
                       {{"axis", "0"}});
              }),
              HasSubstr("axis = 0 is not supported"));
}

// The retain gradient keeps the listed rows of the head gradient; csr dot's gradient flows
// through the dense fallback of dot's gradient ops.
TEST(SparseOps, GenericChecksOfTheCases) {
  int n = 0;
  for (const auto& c : testing::OpTestCases()) {
    if (c.op != "_sparse_retain" && c.op != "_contrib_getnnz") continue;
    if (c.check_grad) {
      EXPECT_TRUE(testing::CheckGradient(c)) << c.op;
    }
    NDArrayVec out = testing::RunWithKernel(c, {DeviceType::kCPU, Backend::kReference},
                                            testing::MakeInputs(c, DType::kFloat32, 3));
    EXPECT_EQ(out.size(), 1u);
    ++n;
  }
  EXPECT_EQ(n, 3);
}

}  // namespace
}  // namespace mxnet
