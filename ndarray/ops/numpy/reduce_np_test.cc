// Tests of the NumPy-interface reductions (reduce_np.cc):
//  - values and gradients against real MXNet 1.9.1 (testdata/reduce/np.json, written by
//    tools/conformance/refs_np_reduce.py via gen_reduce_refs.py): axis None / () / tuples,
//    keepdims, 0-dim and zero-size inputs, NaN, ties, dtype attributes;
//  - the output dtype (or rejection) for every input dtype, as MXNet;
//  - MXNet's op names, input names and attributes; the calls MXNet rejects;
//  - the family's op cases (finite-difference gradients, optimized vs reference kernels);
//  - hand-computed values and error messages.
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "ndarray/grad.h"
#include "ndarray/ops/numpy/reduce_np_api.h"
#include "ndarray/testing/family_cases.h"
#include "ndarray/testing/op_testing.h"
#include "ndarray/testing/ref_json.h"

namespace mxnet {
namespace {

using nlohmann::json;
using testing::AllClose;
using testing::RefArray;

const json& Doc() {
  static const json doc = testing::LoadRefJson("ndarray/ops/testdata/reduce/np.json");
  return doc;
}

::testing::AssertionResult Matches(const NDArray& got, const NDArray& want) {
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure()
           << "dtype " << DTypeName(got.dtype()) << " vs expected " << DTypeName(want.dtype());
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure()
           << "shape " << got.shape() << " vs expected " << want.shape();
  switch (want.dtype()) {
    case DType::kFloat64:
      return AllClose(got, want, 1e-9, 1e-12);
    case DType::kFloat32:
      return AllClose(got, want, 2e-5, 1e-6);
    case DType::kFloat16:
      return AllClose(got, want, 2e-3, 1e-3);
    default:
      return AllClose(got, want, 0, 0);
  }
}

TEST(NpReduceVsMXNet, ValuesAndGradients) {
  const json& doc = Doc();
  ASSERT_EQ(doc["mxnet_version"], "1.9.1");
  int n = 0, with_grads = 0;
  std::set<std::string> ops;
  for (const auto& c : doc["cases"]) {
    std::string name = c["name"], opname = c["op"];
    SCOPED_TRACE(name);
    const Op& op = OpRegistry::Get(opname);
    OpAttrs attrs = OpAttrs::Parse(op, testing::RefAttrs(c));
    std::vector<NDArray> in = testing::RefInputs(c);
    NDArrayVec out = Invoke(op, attrs, in);
    ASSERT_GE(out.size(), c["outputs"].size());
    for (size_t k = 0; k < c["outputs"].size(); ++k)
      EXPECT_TRUE(Matches(out[k], RefArray(c["outputs"][k]))) << "output " << k;
    ops.insert(op.name);
    ++n;
    if (!c.contains("grads")) continue;
    ++with_grads;
    std::vector<NDArray> og, outs(out.begin(), out.end());
    for (const auto& hg : c["head_grads"]) og.push_back(RefArray(hg));
    std::vector<NDArray> g = EagerGradBuilder::Run(op, attrs, in, outs, og);
    ASSERT_EQ(g.size(), in.size());
    for (size_t i = 0; i < g.size(); ++i) {
      if (c["grads"][i].is_null()) continue;
      EXPECT_TRUE(Matches(g[i], RefArray(c["grads"][i]))) << "gradient " << i;
    }
  }
  EXPECT_GT(n, 100);
  EXPECT_GT(with_grads, 40);
  EXPECT_EQ(ops.size(), 18u);
}

TEST(NpReduceVsMXNet, OutputDTypesAndRejections) {
  int n = 0;
  for (const auto& row : Doc()["dtypes"]) {
    std::string opname = row[0];
    DType t = ValueOrThrow(DTypeFromName(row[2][0].get<std::string>()));
    SCOPED_TRACE(opname + " " + row[2][0].get<std::string>() + " " + row[1].dump());
    std::vector<NDArray> in{NDArray::FromVector(std::vector<double>{1, 2, 3}, {3}, cpu(), t)};
    const Op& op = OpRegistry::Get(opname);
    OpAttrs attrs = OpAttrs::Parse(op, testing::RefAttrs(json{{"attrs", row[1]}}));
    if (row[3].is_null()) {
      EXPECT_NE(testing::ErrorOf([&] { Invoke(op, attrs, in); }), "") << "accepted";
    } else {
      NDArrayVec out;
      std::string err = testing::ErrorOf([&] { out = Invoke(op, attrs, in); });
      ASSERT_EQ(err, "");
      EXPECT_EQ(DTypeName(out[0].dtype()), row[3].get<std::string>());
    }
    ++n;
  }
  EXPECT_GT(n, 120);
}

TEST(NpReduceVsMXNet, NamesAttributesAndErrors) {
  const json& reg = Doc()["ops"];
  EXPECT_EQ(reg.size(), 18u);
  for (auto it = reg.begin(); it != reg.end(); ++it) {
    if (it.key() == "_npi_ediff1d") {  // inputs 2 and 3 exist only when given
      const Op& op = OpRegistry::Get("_npi_ediff1d");
      EXPECT_EQ(op.InputNames(OpAttrs::Parse(
                    op, {{"to_begin_arr_given", "True"}, {"to_end_arr_given", "True"}})),
                it.value()["inputs"].get<std::vector<std::string>>());
      json info = it.value();
      info["inputs"] = json::array({"input1"});
      testing::CheckRegistryEntry(it.key(), info, {});
      continue;
    }
    if (it.key() != "_npi_bincount") {
      testing::CheckRegistryEntry(it.key(), it.value(), {});
      continue;
    }
    // MXNet lists both inputs; the weights input exists only with has_weights=True.
    json info = it.value();
    const Op& op = OpRegistry::Get("_npi_bincount");
    EXPECT_EQ(op.InputNames(OpAttrs::Parse(op, {{"has_weights", "True"}})),
              info["inputs"].get<std::vector<std::string>>());
    info["inputs"] = json::array({"data"});
    testing::CheckRegistryEntry(it.key(), info, {});
  }
  EXPECT_EQ(testing::CheckRefErrors(Doc()), 14u);
  // MXNet's other names for the same ops.
  for (const char* alias : {"_np_amax", "_np_amin", "_np_product", "_np_sometrue", "cumsum"})
    EXPECT_NO_THROW(OpRegistry::Get(alias)) << alias;
}

bool IsNpReduceOp(const std::string& op) {
  static const std::set<std::string> ops = {"_np_sum",
                                            "_np_prod",
                                            "_npi_mean",
                                            "_np_max",
                                            "_np_min",
                                            "_npi_std",
                                            "_npi_var",
                                            "_np_all",
                                            "_np_any",
                                            "_npi_argmax",
                                            "_npi_argmin",
                                            "_np_reduce_bcast",
                                            "_np_reduce_extremum_mask",
                                            "_np_cumsum",
                                            "_np_cumsum_backward",
                                            "_npi_average",
                                            "_npi_average_backward",
                                            "_np_trace",
                                            "_np_trace_backward",
                                            "_npi_diff",
                                            "_npi_diff_backward",
                                            "_npx_constraint_check",
                                            "_npi_bincount",
                                            "_npi_ediff1d",
                                            "_npi_ediff1d_backward"};
  return ops.count(op) > 0;
}

// The checks of //ndarray:all_ops_test for these ops (runs without the other families).
TEST(NpReduceCases, GradientsAndBackends) {
  testing::FamilyCaseCounts r = testing::CheckFamilyCases(IsNpReduceOp);
  EXPECT_GT(r.cases, 60);
  EXPECT_GT(r.grads, 50);
}

NDArray Of(std::vector<double> v, Shape s, DType t = DType::kFloat32) {
  return NDArray::FromVector(v, s, cpu(), t);
}

TEST(NpReduce, HandComputed) {
  NDArray x = Of({1, 2, 3, 4, 5, 6}, {2, 3});
  // axis None: 0-dim result; axis (): nothing reduced.
  NDArray s = nd::np::sum(x);
  EXPECT_EQ(s.shape(), Shape());
  EXPECT_EQ(s.ToVector<double>(), (std::vector<double>{21}));
  ops::NpReduceParam none;
  none.axis = Shape::Filled(0, 0);
  EXPECT_EQ(nd::np::sum(x, none).shape(), (Shape{2, 3}));
  ops::NpReduceParam ax1;
  ax1.axis = Shape{1};
  EXPECT_EQ(nd::np::sum(x, ax1).ToVector<double>(), (std::vector<double>{6, 15}));
  // mean of int32 -> float32 (not truncated); sum of bool -> int64.
  NDArray m = nd::np::mean(Of({1, 2}, {2}, DType::kInt32));
  EXPECT_EQ(m.dtype(), DType::kFloat32);
  EXPECT_EQ(m.ToVector<double>(), (std::vector<double>{1.5}));
  NDArray b = nd::np::sum(Of({1, 0, 1}, {3}, DType::kBool));
  EXPECT_EQ(b.dtype(), DType::kInt64);
  EXPECT_EQ(b.ToVector<double>(), (std::vector<double>{2}));
  // var/std with ddof; std of int32 truncates.
  ops::NpMomentParam dd;
  dd.ddof = 1;
  EXPECT_EQ(nd::np::var(Of({1, 2, 3, 4}, {4}, DType::kFloat64), dd).ToVector<double>(),
            (std::vector<double>{5.0 / 3}));
  // Integer inputs: the mean is taken in the integer dtype first (MXNet): var([1, 2, 4]) uses 2.
  ops::NpMomentParam f64;
  f64.dtype = DType::kFloat64;
  EXPECT_EQ(nd::np::var(Of({1, 2, 4}, {3}, DType::kInt32), f64).ToVector<double>(),
            (std::vector<double>{5.0 / 3}));
  EXPECT_EQ(nd::np::std(Of({1, 2, 4}, {3}, DType::kInt32)).ToVector<double>(),
            (std::vector<double>{1}));
  // all/any: bool, empty reductions True/False; argmax int64, ties -> first.
  EXPECT_EQ(nd::np::all(Of({}, {0, 2})).ToVector<double>(), (std::vector<double>{1}));
  EXPECT_EQ(nd::np::any(Of({}, {0, 2})).ToVector<double>(), (std::vector<double>{0}));
  EXPECT_EQ(nd::np::any(Of({0, 0, 3}, {3})).dtype(), DType::kBool);
  ops::ReduceAxisParam a1;
  a1.axis = 1;
  NDArray am = nd::np::argmax(Of({1, 5, 5, 7, 0, 7}, {2, 3}), a1);
  EXPECT_EQ(am.dtype(), DType::kInt64);
  EXPECT_EQ(am.ToVector<double>(), (std::vector<double>{1, 0}));
  EXPECT_EQ(nd::np::argmin(Of({3, 1, 1}, {3})).shape(), Shape());
  // max over a zero-size axis into an empty result is fine.
  ops::NpMaxParam mp;
  mp.axis = Shape{1};
  EXPECT_EQ(nd::np::max(Of({}, {0, 3}), mp).shape(), (Shape{0}));
  // cumsum: flattened by default; bool -> int64; int8 wraps.
  NDArray c = nd::np::cumsum(Of({1, 2, 3, 4, 5, 6}, {2, 3}));
  EXPECT_EQ(c.shape(), (Shape{6}));
  EXPECT_EQ(c.ToVector<double>(), (std::vector<double>{1, 3, 6, 10, 15, 21}));
  ops::NpCumsumParam c0;
  c0.axis = 0;
  EXPECT_EQ(nd::np::cumsum(Of({1, 2, 3, 4, 5, 6}, {2, 3}), c0).ToVector<double>(),
            (std::vector<double>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(nd::np::cumsum(Of({1, 1}, {2}, DType::kBool)).dtype(), DType::kInt64);
  EXPECT_EQ(nd::np::cumsum(Of({100, 100}, {2}, DType::kInt8)).ToVector<double>(),
            (std::vector<double>{100, -56}));
}

TEST(NpReduce, Average) {
  NDArray x = Of({1, 2, 3, 4, 5, 6}, {2, 3}), w = Of({1, 0, 1, 2, 1, 1}, {2, 3});
  NDArrayVec r =
      Invoke("_npi_average", std::vector<NDArray>{x, w}, {{"axis", "(1,)"}, {"returned", "True"}});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].ToVector<double>(), (std::vector<double>{2, 4.75}));
  EXPECT_EQ(r[1].ToVector<double>(), (std::vector<double>{2, 4}));
  NDArrayVec u = Invoke("_npi_average", std::vector<NDArray>{x}, {{"weighted", "False"}});
  EXPECT_EQ(u[0].shape(), Shape());
  EXPECT_EQ(u[0].ToVector<double>(), (std::vector<double>{3.5}));
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_npi_average", std::vector<NDArray>{x, Of({1, 2}, {2})}, {{"axis", "(0, 1)"}});
      },
      {"_npi_average", "axis must be a single int"});
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_npi_average", std::vector<NDArray>{x, Of({1, 2}, {2})}, {{"axis", "(1,)"}});
      },
      {"_npi_average", "1-D of length 3"});
}

TEST(NpReduce, TraceAndDiff) {
  NDArray x = Of({0, 1, 2, 3, 4, 5, 6, 7, 8}, {3, 3});
  EXPECT_EQ(Invoke("_np_trace", std::vector<NDArray>{x})[0].ToVector<double>(),
            (std::vector<double>{12}));
  EXPECT_EQ(Invoke("_np_trace", std::vector<NDArray>{x}, {{"offset", "1"}})[0].ToVector<double>(),
            (std::vector<double>{6}));
  EXPECT_EQ(Invoke("_np_trace", std::vector<NDArray>{x}, {{"offset", "5"}})[0].ToVector<double>(),
            (std::vector<double>{0}));
  NDArray d = Invoke("_npi_diff", std::vector<NDArray>{Of({1, 2, 4, 7}, {4})}, {{"n", "2"}})[0];
  EXPECT_EQ(d.ToVector<double>(), (std::vector<double>{1, 1}));
  EXPECT_EQ(Invoke("_npi_diff", std::vector<NDArray>{Of({1, 2}, {2})}, {{"n", "3"}})[0].shape(),
            (Shape{0}));
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_np_trace", std::vector<NDArray>{x}, {{"axis1", "1"}, {"axis2", "-1"}});
      },
      {"_np_trace", "same axis"});
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_np_trace", std::vector<NDArray>{Of({1, 2}, {2})});
      },
      {"_np_trace", "2 dims"});
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_npi_diff", std::vector<NDArray>{x}, {{"axis", "2"}});
      },
      {"_npi_diff", "axis 2"});
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_npi_diff", std::vector<NDArray>{x}, {{"n", "-1"}});
      },
      {"_npi_diff", "n=-1"});
}

TEST(NpReduce, ConstraintCheckAndBincount) {
  NDArray ok = Of({1, 1}, {2}, DType::kBool), bad = Of({1, 0}, {2}, DType::kBool);
  NDArray r = Invoke("_npx_constraint_check", std::vector<NDArray>{ok})[0];
  EXPECT_EQ(r.shape(), Shape());
  EXPECT_EQ(r.ToVector<double>(), (std::vector<double>{1}));
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_npx_constraint_check", std::vector<NDArray>{bad}, {{"msg", "x must be > 0"}});
      },
      {"_npx_constraint_check", "x must be > 0"});
  testing::ExpectInvalidArgument(
      [&] { Invoke("_npx_constraint_check", std::vector<NDArray>{Of({1}, {1})}); },
      {"_npx_constraint_check", "bool", "float32"});
  NDArray c =
      Invoke("_npi_bincount", std::vector<NDArray>{Of({0, 1, 1, 3}, {4}, DType::kInt32)})[0];
  EXPECT_EQ(c.dtype(), DType::kInt32);
  EXPECT_EQ(c.ToVector<double>(), (std::vector<double>{1, 2, 0, 1}));
  NDArray e = Invoke("_npi_bincount", std::vector<NDArray>{Of({}, {0}, DType::kInt32)},
                     {{"minlength", "3"}})[0];
  EXPECT_EQ(e.shape(), (Shape{3}));
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_npi_bincount", std::vector<NDArray>{Of({0, -1}, {2}, DType::kInt32)});
      },
      {"_npi_bincount", "non-negative", "-1"});
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_npi_bincount", std::vector<NDArray>{Of({0, 1}, {2})});
      },
      {"_npi_bincount", "integer", "float32"});
}

TEST(NpReduce, Errors) {
  NDArray x = Of({1, 2, 3, 4, 5, 6}, {2, 3});
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_np_sum", std::vector<NDArray>{x}, {{"axis", "(2,)"}});
      },
      {"_np_sum", "axis 2", "(2, 3)"});
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_np_max", std::vector<NDArray>{Of({}, {0, 3})});
      },
      {"_np_max", "zero-size"});
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_npi_argmax", std::vector<NDArray>{Of({}, {0, 3})});
      },
      {"_npi_argmax", "empty"});
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_npi_argmax", std::vector<NDArray>{Of({1, 0}, {2}, DType::kBool)});
      },
      {"_npi_argmax", "bool"});
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_npi_var", std::vector<NDArray>{Of({1, 0}, {2}, DType::kBool)});
      },
      {"_npi_var", "bool"});
  testing::ExpectInvalidArgument(
      [&] {
        Invoke("_np_sum", std::vector<NDArray>{x}, {{"initial", "1"}});
      },
      {"_np_sum", "initial"});
}

}  // namespace
}  // namespace mxnet
