// Elementwise ops on csr / row_sparse inputs against MXNet 1.9.1 (testdata/sparse/elemwise.json,
// from tools/conformance/gen_sparse_elemwise_refs.py): output storage type, dtype, shape, dense
// values and stored parts (csr entries, row_sparse rows) for unary, scalar, binary, broadcast,
// add_n and _square_sum cases; MXNet's shape errors; our documented deviations against MXNet's
// dense result. Plus hand-checked properties of the kernels (no fallback log, InvokeInto).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "base/strings.h"
#include "ndarray/sparse.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

std::vector<double> Nums(const json& a) {
  std::vector<double> v;
  for (const json& x : a) v.push_back(testing::RefNumber(x));
  return v;
}

NDArray In(const json& s) {
  DType t = ValueOrThrow(DTypeFromName(s["dtype"].get<std::string>()));
  Shape shape(s["shape"].get<std::vector<int64_t>>());
  if (s.contains("indptr")) {
    std::vector<double> d = Nums(s["data"]);
    std::vector<int64_t> idx = s["indices"].get<std::vector<int64_t>>();
    std::vector<int64_t> ptr = s["indptr"].get<std::vector<int64_t>>();
    return csr_matrix(NDArray::FromVector(d, Shape({static_cast<int64_t>(d.size())}), cpu(), t),
                      NDArray::FromVector(idx, Shape({static_cast<int64_t>(idx.size())})),
                      NDArray::FromVector(ptr, Shape({static_cast<int64_t>(ptr.size())})), shape);
  }
  if (s.contains("data")) {
    NDArray d = NDArray::FromVector(Nums(s["data"]),
                                    Shape(s["data_shape"].get<std::vector<int64_t>>()), cpu(), t);
    return row_sparse_array(
        d, NDArray::FromVector(s["indices"].get<std::vector<int64_t>>(), Shape({d.shape()[0]})),
        shape);
  }
  NDArray d = NDArray::FromVector(Nums(s["values"]), shape, cpu(), t);
  return d.tostype(ValueOrThrow(ParseStorageType(s["stype"].get<std::string>())));
}

// Exact for arithmetic and rounding; within float32 rounding for transcendental functions.
bool Transcendental(const std::string& op) {
  static const std::set<std::string> t = {
      "cbrt",    "sin",   "tan",   "arcsin",  "arctan",  "sinh", "tanh", "arcsinh",
      "arctanh", "expm1", "log1p", "degrees", "radians", "exp",  "cos",  "sigmoid"};
  return t.count(op) > 0;
}

void ExpectValues(const std::vector<double>& got, const std::vector<double>& want, bool exact,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " " << i << ": " << got[i];
    } else if (exact || std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << what << " " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], 2e-7 * std::fabs(want[i]) + 1e-9) << what << " " << i;
    }
  }
}

void ExpectOutput(const NDArray& y, const json& w, bool exact) {
  EXPECT_EQ(std::string(StorageTypeName(y.stype())), w["stype"].get<std::string>());
  EXPECT_EQ(std::string(DTypeName(y.dtype())), w["dtype"].get<std::string>());
  ASSERT_EQ(y.shape(), Shape(w["shape"].get<std::vector<int64_t>>()));
  ExpectValues(y.ToVector<double>(), Nums(w["values"]), exact, "values");
  EXPECT_EQ(CheckSparseIndices(y), "");
  if (y.stype() == StorageType::kCSR && w["stype"] == "csr") {
    // Our entries, row by row with ascending columns, vs MXNet's (sorted the same way).
    std::vector<int64_t> ptr = y.indptr().ToVector<int64_t>(),
                         idx = y.indices().ToVector<int64_t>();
    std::vector<double> d = y.data().ToVector<double>();
    std::vector<double> got_v, want_v;
    std::vector<std::pair<int64_t, int64_t>> got_p, want_p;
    for (size_t r = 0; r + 1 < ptr.size(); ++r)
      for (int64_t k = ptr[r]; k < ptr[r + 1]; ++k) {
        got_p.emplace_back(static_cast<int64_t>(r), idx[k]);
        got_v.push_back(d[k]);
      }
    for (const json& e : w["entries"]) {
      want_p.emplace_back(e[0].get<int64_t>(), e[1].get<int64_t>());
      want_v.push_back(testing::RefNumber(e[2]));
    }
    EXPECT_EQ(got_p, want_p) << "stored positions";
    ExpectValues(got_v, want_v, exact, "stored values");
  } else if (y.stype() == StorageType::kRowSparse && w["stype"] == "row_sparse") {
    EXPECT_EQ(y.indices().ToVector<int64_t>(), w["indices"].get<std::vector<int64_t>>());
    ExpectValues(y.data().ToVector<double>(), Nums(w["data"]), exact, "stored rows");
  }
}

TEST(SparseElemwise, MatchMXNet) {
  json doc = testing::LoadRefJson("ndarray/ops/testdata/sparse/elemwise.json");
  EXPECT_EQ(doc["mxnet_version"], "1.9.1");
  int n = 0, errors = 0, deviations = 0, sparse_out = 0;
  for (const json& c : doc["cases"]) {
    const std::string op = c["op"].get<std::string>();
    std::vector<NDArray> ins;
    std::string stypes;
    for (const json& s : c["inputs"]) {
      ins.push_back(In(s));
      stypes += StrCat(" ", StorageTypeName(ins.back().stype()));
    }
    SCOPED_TRACE(StrCat(op, " ", c["attrs"].dump(), stypes));
    AttrDict attrs = testing::RefAttrs(c);
    ++n;
    if (c.contains("mxnet_error") && !c.contains("deviation")) {  // bad input: refused too
      std::string err = testing::ErrorOf([&] { Invoke(op, ins, attrs); });
      EXPECT_THAT(err, HasSubstr(op));
      EXPECT_THAT(err, HasSubstr("input"));
      ++errors;
      continue;
    }
    NDArray y = Invoke(op, ins, attrs)[0];
    if (c.contains("deviation")) {  // MXNet refuses; ours computes MXNet's dense result
      EXPECT_EQ(std::string(StorageTypeName(y.stype())), c["ours_stype"].get<std::string>());
      ExpectOutput(y.tostype(StorageType::kDefault), c["dense"], !Transcendental(op));
      ++deviations;
      continue;
    }
    ExpectOutput(y, c["output"], !Transcendental(op));
    sparse_out += y.is_sparse();
  }
  EXPECT_EQ(n, 244);
  EXPECT_EQ(errors, 3);
  EXPECT_EQ(deviations, 5);
  EXPECT_GT(sparse_out, 100);
}

// The sparse kernels take the call: no fallback, and InvokeInto fills a sparse output.
TEST(SparseElemwise, KernelsRunWithoutFallback) {
  NDArray a = NDArray::FromVector<float>({0, 1, 0, 0, 2, 0}, Shape({3, 2}));
  NDArray c = a.tostype(StorageType::kCSR), r = a.tostype(StorageType::kRowSparse);
  EXPECT_TRUE(OpRegistry::Get("elemwise_add").infer_storage_type);
  EXPECT_TRUE(OpRegistry::Get("_grad_add").infer_storage_type);
  EXPECT_TRUE(OpRegistry::Get("identity").infer_storage_type);
  EXPECT_FALSE(OpRegistry::Get("exp").infer_storage_type);
  // rsp + rsp into a row_sparse output given by the caller.
  NDArray out = sparse_zeros(StorageType::kRowSparse, Shape({3, 2}));
  InvokeInto(OpRegistry::Get("elemwise_add"), OpAttrs::Parse(OpRegistry::Get("elemwise_add"), {}),
             std::vector<NDArray>{r, r}, std::vector<NDArray>{out});
  EXPECT_EQ(out.stype(), StorageType::kRowSparse);
  EXPECT_EQ(out.indices().ToVector<int64_t>(), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(out.ToVector<float>(), (std::vector<float>{0, 2, 0, 0, 4, 0}));
  // csr + csr into a dense output given by the caller: the csr result is copied over densified.
  NDArray dense_out(Shape({3, 2}), cpu(), DType::kFloat32);
  InvokeInto(OpRegistry::Get("elemwise_add"), OpAttrs::Parse(OpRegistry::Get("elemwise_add"), {}),
             std::vector<NDArray>{c, c}, std::vector<NDArray>{dense_out});
  EXPECT_EQ(dense_out.stype(), StorageType::kDefault);
  EXPECT_EQ(dense_out.ToVector<float>(), (std::vector<float>{0, 2, 0, 0, 4, 0}));
  // A zero-size stored part (nothing stored) goes through the unary and binary kernels.
  NDArray z = sparse_zeros(StorageType::kCSR, Shape({2, 3}));
  NDArray s = Invoke("sqrt", std::vector<NDArray>{z})[0];
  EXPECT_EQ(s.stype(), StorageType::kCSR);
  EXPECT_EQ(s.data().size(), 0);
  NDArray m = Invoke("elemwise_mul", std::vector<NDArray>{z, z})[0];
  EXPECT_EQ(m.stype(), StorageType::kCSR);
  EXPECT_EQ(m.ToVector<float>(), std::vector<float>(6, 0.0f));
  // Mixed dtypes are refused (the op's type inference), naming the op.
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke(
                    "elemwise_add",
                    std::vector<NDArray>{c, a.astype(DType::kFloat64).tostype(StorageType::kCSR)});
              }),
              HasSubstr("elemwise_add"));
  // _square_sum of 3-d row_sparse data is refused as in MXNet.
  NDArray r3 =
      NDArray::FromVector<float>({1, 2, 3, 4}, Shape({2, 1, 2})).tostype(StorageType::kRowSparse);
  EXPECT_THAT(testing::ErrorOf([&] {
                Invoke("_square_sum", std::vector<NDArray>{r3}, {{"axis", "1"}});
              }),
              HasSubstr("_square_sum: row_sparse data must be 2-d"));
}

}  // namespace
}  // namespace mxnet
